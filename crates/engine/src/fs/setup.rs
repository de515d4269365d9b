//! The file-system driver's set-up and wrap-up, off the per-operation
//! path: checking the workload, the threads' plans, the anchors and the
//! capacity check, creating the filesets with progress, reading back the
//! state of every file, and at the end the results (counters, errors,
//! files left) and the clean-up.

use super::dirs::DirCache;
use super::exec::FsWorkerOut;
use super::table::{Claim, FileTable, DIR, EXISTS, MOVED};
use super::verify::FileVerify;
use super::{Act, FsSet, Plan, Shared};
use crate::clock::TscRate;
use iolab_core::Observer;
use iolab_fileset::{anchor, Anchor, AnchorState, CreateOptions, Layout, Needs, Progress};
use iolab_raw::{errno_name, FilesetRaw, FsRaw, Op, WorkloadRaw};
use iolab_spec::fileset::Format;
use iolab_spec::fs::{FileSelect, FsSpec, FsWork, Step};
use iolab_spec::fs::{MAX_FILESETS, MAX_STEPS};
use iolab_spec::{OnError, SyncMode, WorkloadSpec};
use std::ffi::CString;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicI64};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Largest transfer a step may ask for.
const MAX_XFER: u64 = 1 << 30;

fn fs_of(spec: &WorkloadSpec) -> &FsSpec {
    spec.fs
        .as_ref()
        .expect("the fs driver runs workloads with fs set")
}

fn steps(fs: &FsSpec) -> Vec<&Step> {
    match &fs.work {
        FsWork::Mix(m) => m.iter().map(|e| &e.step).collect(),
        FsWork::Flows(f) => f.iter().flat_map(|f| f.steps.iter()).collect(),
    }
}

/// What the spec crate's validation may not have caught, as one line.
pub(super) fn validate(spec: &WorkloadSpec) -> Result<(), String> {
    let fs = fs_of(spec);
    let n = fs.filesets.len();
    if n == 0 || n > MAX_FILESETS {
        return Err(format!(
            "a file-system workload needs 1 to {MAX_FILESETS} filesets; give --dir DIR"
        ));
    }
    let all = steps(fs);
    if all.is_empty() || all.len() > MAX_STEPS * MAX_STEPS {
        return Err("the workload has no operations; give --mix or --flow".into());
    }
    for s in &all {
        if s.fileset as usize >= n {
            return Err(format!(
                "operation {} names fileset {} of {n}; name one of the workload's filesets",
                s.op.name(),
                s.fileset
            ));
        }
        if s.xfer > MAX_XFER {
            return Err(format!(
                "{}: transfers over 1 GiB are not supported",
                s.op.name()
            ));
        }
    }
    match &fs.work {
        FsWork::Mix(m) if m.iter().map(|e| u64::from(e.weight)).sum::<u64>() == 0 => {
            return Err("the mix's weights are all 0; give at least one above 0".into())
        }
        FsWork::Flows(f) if f.iter().any(|f| f.threads == 0 || f.steps.is_empty()) => {
            return Err("every flow needs at least 1 thread and 1 step".into())
        }
        _ => {}
    }
    if let FileSelect::Zipf(t) = fs.select {
        if !(t > 0.0 && t.is_finite()) || (t - 1.0).abs() < 1e-9 {
            return Err(format!("file selection zipf:{t} is not usable; give a theta above 0 other than 1, e.g. zipf:1.2"));
        }
    }
    Ok(())
}

/// The operations the workload issues, in table order.
fn ops_of(fs: &FsSpec) -> Vec<Op> {
    let used: Vec<Op> = steps(fs).iter().map(|s| s.op).collect();
    Op::ALL
        .iter()
        .copied()
        .filter(|o| used.contains(o))
        .collect()
}

fn act(s: &Step, spec: &WorkloadSpec, ops: &[Op], open_write: bool, claim: Claim) -> Act {
    let xfer = if s.xfer == 0 { spec.max_bs() } else { s.xfer };
    Act {
        op: s.op,
        set: s.fileset,
        whole: s.whole,
        xfer: xfer.clamp(1, MAX_XFER) as u32,
        random: s.random,
        iters: s.iters.max(1),
        open_write,
        claim,
        stat: ops.iter().position(|&o| o == s.op).unwrap_or(0) as u8,
        flags: if s.direct { libc::O_DIRECT } else { 0 } | if s.dsync { libc::O_DSYNC } else { 0 },
    }
}

/// How a step holds the file it works on (the rule is in `table.rs`):
/// shared when it leaves the file's existence alone and its size alone
/// (or grows it by one transfer at most); appends share with appends.
/// Under `--verify` whatever writes data holds its file alone, so a read
/// never meets another thread's write of the same block.
fn claim_of(s: &Step, verify: bool) -> Claim {
    match s.op {
        Op::Append => Claim::Append,
        Op::Read | Op::Fsync | Op::Fdatasync | Op::Getattr | Op::Stat | Op::Access => Claim::Data,
        Op::Rewrite if !verify => Claim::Data,
        Op::Write if !s.whole && !verify => Claim::Data,
        _ => Claim::Excl,
    }
}

/// A flow's steps. An `open` holds its file for the steps that act on it
/// until the next close (a pass ends with none open): it
/// opens for writing when one of them writes data or sets attributes,
/// shares the file with appenders when they are appends and syncs, with
/// readers and in-place writers when each of them would share it
/// ([`claim_of`]), and holds it alone otherwise.
fn flow_acts(steps: &[Step], spec: &WorkloadSpec, ops: &[Op]) -> Vec<Act> {
    (0..steps.len())
        .map(|i| {
            let body = || {
                steps[i + 1..]
                    .iter()
                    .take_while(|s| !matches!(s.op, Op::Close | Op::Open | Op::Create))
                    .filter(|s| super::action::on_current(s.op))
            };
            let w = body().any(|s| s.op.writes_data() || matches!(s.op, Op::Setattr));
            let appends = body().any(|s| s.op == Op::Append)
                && body().all(|s| matches!(s.op, Op::Append | Op::Fsync | Op::Fdatasync));
            let claim = match steps[i].op {
                Op::Open if appends => Claim::Append,
                Op::Open if body().all(|s| claim_of(s, spec.verify) == Claim::Data) => Claim::Data,
                Op::Open => Claim::Excl,
                _ => claim_of(&steps[i], spec.verify),
            };
            act(&steps[i], spec, ops, w, claim)
        })
        .collect()
}

/// The threads' plans: `jobs` threads for a mix, each flow's `threads`.
pub(super) fn plans(spec: &WorkloadSpec, clock: Option<TscRate>) -> Vec<Plan> {
    let fs = fs_of(spec);
    let ops = ops_of(fs);
    let direct = if spec.direct { libc::O_DIRECT } else { 0 };
    let dsync = if spec.sync == SyncMode::Dsync {
        libc::O_DSYNC
    } else {
        0
    };
    let max_x = steps(fs)
        .iter()
        .map(|s| if s.xfer == 0 { spec.max_bs() } else { s.xfer })
        .max();
    let base = Plan {
        worker: 0,
        index: 0,
        threads: 1,
        flow: false,
        acts: Vec::new(),
        cum: Vec::new(),
        total_w: 0,
        think_ns: 0,
        rate_period_ns: None,
        rate_phase_ns: 0.0,
        qd: spec.qd.max(1),
        buf_len: max_x.unwrap_or(0).clamp(32 << 10, MAX_XFER) as usize,
        svc: false,
        ops: ops.clone(),
        select: fs.select,
        seed: spec.seed,
        clock,
        on_error: spec.on_error,
        max_errors: spec.max_errors,
        data_flags: direct | dsync,
        direct_flag: direct,
    };
    let mut out = Vec::new();
    match &fs.work {
        FsWork::Mix(m) => {
            let acts: Vec<Act> = m
                .iter()
                .map(|e| act(&e.step, spec, &ops, true, claim_of(&e.step, spec.verify)))
                .collect();
            let mut t = 0u32;
            let cum = m
                .iter()
                .map(|e| {
                    t += e.weight;
                    t
                })
                .collect();
            let p = Plan {
                acts,
                cum,
                total_w: t,
                threads: spec.jobs.max(1),
                ..base.clone()
            };
            out.extend(threads(&p, spec.rate_iops, out.len()));
        }
        FsWork::Flows(flows) => {
            let all: u32 = flows.iter().map(|f| f.threads).sum();
            for f in flows {
                let rate = f.rate_ops.or(spec
                    .rate_iops
                    .map(|r| r * f.threads as f64 / all.max(1) as f64));
                let p = Plan {
                    flow: true,
                    acts: flow_acts(&f.steps, spec, &ops),
                    threads: f.threads.max(1),
                    think_ns: f.think_us.saturating_mul(1000),
                    ..base.clone()
                };
                let n = out.len();
                out.extend(threads(&p, rate, n));
            }
        }
    }
    out
}

/// The workload's threads: `jobs` for a mix, the flows' threads.
fn all_threads(spec: &WorkloadSpec, fs: &FsSpec) -> u32 {
    match &fs.work {
        FsWork::Mix(_) => spec.jobs.max(1),
        FsWork::Flows(f) => f.iter().map(|f| f.threads.max(1)).sum(),
    }
}

/// `p.threads` copies of `p`, numbered from `first`, sharing `rate`.
fn threads(p: &Plan, rate: Option<f64>, first: usize) -> Vec<Plan> {
    (0..p.threads)
        .map(|i| Plan {
            worker: (first as u32) + i,
            index: i,
            rate_period_ns: rate.map(|r| 1e9 * p.threads as f64 / r),
            rate_phase_ns: rate.map_or(0.0, |r| 1e9 * i as f64 / r),
            svc: rate.is_some(),
            ..p.clone()
        })
        .collect()
}

/// Layouts, anchors (created or adopted with the marker) and the capacity
/// check of every fileset. On an error the anchors made so far are undone
/// (`made` lists them).
pub(super) fn check_filesets(
    spec: &WorkloadSpec,
    made: &mut Vec<(PathBuf, AnchorState)>,
) -> Result<Vec<Layout>, String> {
    let mut layouts = Vec::new();
    for f in &fs_of(spec).filesets {
        let layout =
            Layout::new(&f.spec, spec.seed).map_err(|e| format!("fileset {}: {e}", f.name))?;
        let hash = anchor::spec_hash(&f.spec, spec.seed);
        let a = Anchor::prepare(&f.spec.anchor, &hash).map_err(|e| e.to_string())?;
        if a.state != AnchorState::Marked {
            made.push((a.path.clone(), a.state));
        }
        let needs = Needs::of(&a, &layout, f.format).map_err(|e| e.to_string())?;
        iolab_fileset::check_capacity(&a, &needs).map_err(|e| e.to_string())?;
        layouts.push(layout);
    }
    Ok(layouts)
}

/// Leave the anchors check() made as they were: the marker of an adopted
/// directory goes, a directory iolab made goes (when still empty).
pub(super) fn undo_anchors(made: &[(PathBuf, AnchorState)]) {
    for (p, st) in made {
        let _ = std::fs::remove_file(p.join(iolab_fileset::MARKER));
        if *st == AnchorState::Created {
            let _ = std::fs::remove_dir(p);
        }
    }
}

/// The filesets ready to run and what creating them did, or why they are
/// not, with what was done.
type Created = Result<(Vec<FsSet>, Vec<FilesetRaw>), (String, Vec<FilesetRaw>)>;

/// Create every fileset (progress through `obs.prefill`, a stop honoured)
/// and read back the state of its files.
pub(super) fn create_all(
    spec: &WorkloadSpec,
    layouts: &[Layout],
    verify: &FileVerify,
    obs: &mut dyn Observer,
    stop: &AtomicBool,
) -> Created {
    let fs = fs_of(spec);
    let mut sets = Vec::new();
    let mut raws = Vec::new();
    let side_dirs = ops_of(fs)
        .iter()
        .any(|o| matches!(o, Op::Mkdir | Op::Rmdir));
    for (f, layout) in fs.filesets.iter().zip(layouts) {
        let mut raw = FilesetRaw {
            name: f.name.clone(),
            anchor: std::path::absolute(&f.spec.anchor)
                .unwrap_or_else(|_| f.spec.anchor.clone())
                .display()
                .to_string(),
            files: layout.files(),
            dirs: layout.dirs(),
            bytes: layout.total_bytes(),
            ..Default::default()
        };
        let r = create_one(spec, sets.len() as u32, layout, &mut raw, verify, obs, stop);
        raws.push(raw);
        if let Err(e) = r {
            return Err((e, raws));
        }
        let set = open_set(&f.spec.anchor, layout, side_dirs).map_err(|e| (e, raws.clone()))?;
        super::sizes::take(&set, spec.verify && f.format == Format::No);
        sets.push(set);
    }
    Ok((sets, raws))
}

/// Create fileset number `set` (its files stamped under `--verify`).
fn create_one(
    spec: &WorkloadSpec,
    set: u32,
    layout: &Layout,
    raw: &mut FilesetRaw,
    verify: &FileVerify,
    obs: &mut dyn Observer,
    stop: &AtomicBool,
) -> Result<(), String> {
    let f = &fs_of(spec).filesets[set as usize];
    let fill = |i: u64, off: u64, buf: &mut [u8]| verify.fill(set, i, off, buf);
    let latest: Mutex<Option<Progress>> = Mutex::new(None);
    let cb = |p: &Progress| *latest.lock().unwrap_or_else(|e| e.into_inner()) = Some(*p);
    let opts = CreateOptions {
        format: f.format,
        threads: 4,
        check_capacity: true,
        progress: Some(&cb),
        stop: Some(stop),
        fill: verify.on().then_some(&fill),
    };
    let path = raw.anchor.clone();
    let t = Instant::now();
    let r = std::thread::scope(|s| {
        let h = s.spawn(|| iolab_fileset::create(&f.spec, spec.seed, layout, &opts));
        while !h.is_finished() {
            std::thread::sleep(Duration::from_millis(10));
            if let Some(p) = latest.lock().unwrap_or_else(|e| e.into_inner()).take() {
                obs.prefill(&path, p.files_done, p.files_total);
            }
        }
        h.join()
            .map_err(|_| "creating the fileset panicked".to_string())
    })?;
    raw.create_secs = t.elapsed().as_secs_f64();
    let rep = match &r {
        Ok(rep) => *rep,
        Err(e) => e.report,
    };
    raw.files_made = rep.files_created;
    raw.dirs_made = rep.dirs_created;
    raw.bytes_written = rep.bytes_written;
    match r {
        Ok(_) => Ok(()),
        Err(e) if e.error.errno == Some(libc::EINTR) => Err("interrupted".into()),
        Err(e) => Err(format!("creating fileset {}: {e}", f.name)),
    }
}

fn cstr(p: &Path) -> Result<CString, String> {
    CString::new(p.as_os_str().as_bytes())
        .map_err(|_| format!("{}: a path with a NUL byte", p.display()))
}

/// Open the anchor (checking it still holds the marker) and read the
/// state of every file of the layout (and its side directory when the
/// workload makes them).
fn open_set(anchor_path: &Path, layout: &Layout, side_dirs: bool) -> Result<FsSet, String> {
    let c = cstr(anchor_path)?;
    // SAFETY: a valid C string; the descriptor is checked and owned.
    let fd = unsafe {
        libc::open(
            c.as_ptr(),
            libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC,
        )
    };
    if fd < 0 {
        let e = std::io::Error::last_os_error();
        return Err(format!(
            "{}: opening the anchor: {e}",
            anchor_path.display()
        ));
    }
    // SAFETY: just opened, ours.
    let dir = unsafe { OwnedFd::from_raw_fd(fd) };
    anchor::read_marker_at(dir.as_raw_fd(), anchor_path).map_err(|e| e.to_string())?;
    let table = FileTable::new(layout.files());
    let mut p = Vec::with_capacity(super::exec::PATH_CAP);
    let mut dirs = DirCache::new(layout.leaf_of(layout.files()) + 1, 1);
    for i in 0..layout.files() {
        layout.file_path_into(i, &mut p);
        let mut bits = 0;
        let leaf = DirCache::key(0, layout.leaf_of(i));
        let st = lstat(&mut dirs, leaf, dir.as_raw_fd(), &mut p);
        let size = match st {
            Some(st) if st.st_mode & libc::S_IFMT == libc::S_IFREG => {
                bits |= EXISTS;
                st.st_size as u64
            }
            _ => 0,
        };
        if side_dirs {
            p.extend_from_slice(b".d");
            if lstat(&mut dirs, leaf, dir.as_raw_fd(), &mut p)
                .is_some_and(|s| s.st_mode & libc::S_IFMT == libc::S_IFDIR)
            {
                bits |= DIR;
            }
        }
        table.init(i, bits, size);
    }
    Ok(FsSet {
        layout: layout.clone(),
        table,
        dir,
        anchor: anchor_path.to_path_buf(),
    })
}

/// fstatat(leaf, name, AT_SYMLINK_NOFOLLOW) of `p` (relative to the
/// anchor `dir`; NUL added and removed), its leaf directory reached with
/// no symbolic link followed (`dirs.rs`); `None` when missing or
/// unreachable.
fn lstat(dirs: &mut DirCache, leaf: u64, dir: i32, p: &mut Vec<u8>) -> Option<libc::stat> {
    p.push(0);
    // SAFETY: stat is plain data.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    let r = dirs.with_leaf(leaf, dir, p, |d, name| {
        // SAFETY: name is NUL-terminated, d a directory descriptor.
        unsafe { libc::fstatat(d, name, &mut st, libc::AT_SYMLINK_NOFOLLOW) }
    });
    p.pop();
    (r == Ok(0)).then_some(st)
}

/// Move the files renames left at their side names (`f17.r`) back to
/// their layout names (renameat2 with RENAME_NOREPLACE), so the tree
/// the run leaves holds the layout's names only (for the next run, the
/// clean-up and `find`).
fn restore_moved(set: &FsSet) {
    let mut p = Vec::with_capacity(super::exec::PATH_CAP);
    let mut dirs = DirCache::new(set.layout.leaf_of(set.table.files()) + 1, 1);
    for i in 0..set.table.files() {
        let bits = set.table.bits(i);
        if bits & MOVED == 0 {
            continue;
        }
        set.layout.file_path_into(i, &mut p);
        let cut = p.iter().rposition(|&b| b == b'/').map_or(0, |c| c + 1);
        let Ok(base) = std::ffi::CString::new(&p[cut..]) else {
            continue;
        };
        p.extend_from_slice(b".r\0");
        let leaf = DirCache::key(0, set.layout.leaf_of(i));
        // SAFETY: both names are NUL-terminated, d a directory descriptor.
        let r = dirs.with_leaf(leaf, set.dir_fd(), &mut p, |d, name| unsafe {
            libc::renameat2(d, name, d, base.as_ptr(), libc::RENAME_NOREPLACE)
        });
        if r == Ok(0) {
            set.table.init(i, bits & !MOVED | EXISTS, set.table.size(i));
        }
    }
}

/// rmdir of the side directories (`f17.d`) the run left, each from its
/// leaf directory reached with no symbolic link followed.
fn remove_side_dirs(set: &FsSet) {
    let mut p = Vec::with_capacity(super::exec::PATH_CAP);
    let mut dirs = DirCache::new(set.layout.leaf_of(set.table.files()) + 1, 1);
    for i in set.table.side_dirs().collect::<Vec<_>>() {
        set.layout.file_path_into(i, &mut p);
        p.extend_from_slice(b".d\0");
        let leaf = DirCache::key(0, set.layout.leaf_of(i));
        // SAFETY: name is NUL-terminated, d a directory descriptor.
        let _ = dirs.with_leaf(leaf, set.dir_fd(), &mut p, |d, name| unsafe {
            libc::unlinkat(d, name, libc::AT_REMOVEDIR)
        });
    }
}

/// The workload's data validation (off without `--verify`), made before
/// the filesets so that their creation stamps what it writes. Findings
/// name files by path (formatted only on a finding).
pub(super) fn make_verify(spec: &WorkloadSpec, layouts: &[Layout]) -> FileVerify {
    if !spec.verify {
        return FileVerify::off();
    }
    let files: Vec<u64> = layouts.iter().map(|l| l.files()).collect();
    let v = FileVerify::with_data(&files, spec.seed, spec.data);
    let named: Vec<(PathBuf, Layout)> = fs_of(spec)
        .filesets
        .iter()
        .zip(layouts)
        .map(|(f, l)| (f.spec.anchor.clone(), l.clone()))
        .collect();
    v.set_names(Box::new(move |set, i| {
        named.get(set as usize).map_or_else(
            || format!("fileset {set} file {i}"),
            |(a, l)| a.join(l.file_path(i)).display().to_string(),
        )
    }));
    v
}

/// The threads' shared state over the created filesets.
pub(super) fn shared(spec: &WorkloadSpec, sets: Vec<FsSet>, verify: FileVerify) -> Shared {
    Shared {
        threads: all_threads(spec, fs_of(spec)),
        verify,
        sets,
        ops_left: spec
            .ops
            .map(|n| AtomicI64::new(n.min(i64::MAX as u64) as i64)),
        bytes_left: spec
            .io_size
            .map(|n| AtomicI64::new(n.min(i64::MAX as u64) as i64)),
    }
}

/// Add the threads' counters and errors into `fs`; returns the skipped
/// operations.
pub(super) fn merge_outs(fs: &mut FsRaw, outs: &[FsWorkerOut]) -> u64 {
    let mut skipped = 0;
    fs.cpu_sampled = !outs.is_empty() && outs.iter().all(|o| o.cpu_sampled);
    for o in outs {
        fs.counters.merge(&o.counters);
        for &(op, c) in &o.op_cpu {
            fs.op_cpu.entry(op).or_default().merge(c);
        }
        skipped += o.skipped;
        for op in &o.sync_ops {
            if !fs.sync_ops.contains(op) {
                fs.sync_ops.push(*op);
            }
        }
        for &(op, errno, n) in &o.op_errors {
            let v = fs.op_errors.entry(op).or_default();
            match v.iter_mut().find(|e| e.0 == errno) {
                Some(e) => e.1 += n,
                None => v.push((errno, n)),
            }
        }
    }
    fs.sync_ops.sort();
    for v in fs.op_errors.values_mut() {
        v.sort();
    }
    skipped
}

/// A note when some threads started no operation at all: every start
/// found no file in the state it needs and free.
pub(super) fn idle_threads(outs: &[FsWorkerOut]) -> Option<String> {
    let idle = outs.iter().filter(|o| o.idle).count();
    (idle > 0).then(|| {
        format!(
            "{idle} of {} threads started no operation: every file they needed was held by other threads or in the wrong state",
            outs.len()
        )
    })
}

/// Files left at the end, and the clean-up when asked.
pub(super) fn end_filesets(
    spec: &WorkloadSpec,
    sh: &Shared,
    raws: &mut [FilesetRaw],
    notes: &mut Vec<String>,
) {
    for ((f, set), raw) in fs_of(spec)
        .filesets
        .iter()
        .zip(&sh.sets)
        .zip(raws.iter_mut())
    {
        restore_moved(set);
        raw.files_at_end = set.table.existing();
        if spec.verify && !f.cleanup {
            if let Err(e) = super::sizes::save(set) {
                notes.push(format!(
                    "fileset {}: recording the files' sizes for the next --verify run: {e}",
                    f.name
                ));
            }
        }
        if !f.cleanup {
            continue;
        }
        remove_side_dirs(set);
        match iolab_fileset::remove(&set.anchor, &set.layout) {
            Ok(r) => {
                raw.removed = true;
                notes.push(format!(
                    "removed fileset {}: {} files and {} directories{}",
                    f.name,
                    r.files_removed,
                    r.dirs_removed,
                    if r.left > 0 {
                        format!(" ({} names left: not iolab's)", r.left)
                    } else {
                        String::new()
                    }
                ));
            }
            Err(e) => notes.push(format!("removing fileset {}: {e}", f.name)),
        }
    }
}

/// Why the workload stopped itself: the first error that stopped it.
pub(super) fn stop_reason(raw: &WorkloadRaw, spec: &WorkloadSpec) -> Option<String> {
    if spec.on_error != OnError::Stop {
        return None;
    }
    let e = raw
        .errors
        .iter()
        .find(|e| !matches!(e.errno, 0 | libc::ENOENT | libc::EEXIST | libc::ENOTEMPTY))?;
    Some(format!(
        "stopped on {} ({}) at {} (--on-error stop); results up to then are kept",
        errno_name(e.errno),
        e.op,
        e.target
    ))
}
