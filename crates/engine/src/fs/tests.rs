//! The file-system driver end to end through [`crate::run`] on small
//! filesets in temporary directories (no root needed): a mix and a flow
//! with sensible counts, the fileset counters against what is on disk,
//! a file deleted behind iolab's back, an unmarked directory refused.

use crate::{run, RunError, WorkloadRaw};
use iolab_core::{EventLog, Quiet};
use iolab_raw::Op;
use iolab_spec::fileset::{EntriesShape, FileSize, FilesetSpec, Format, Shape, TreeShape};
use iolab_spec::fs::{FileSelect, Flow, FsFileset, FsSpec, FsWork, MixEntry, Step};
use iolab_spec::{RunSpec, WorkloadSpec};
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

pub(super) fn fileset(anchor: &Path, files: u64, size: &str) -> FsFileset {
    FsFileset {
        name: "fs".into(),
        spec: FilesetSpec {
            anchor: anchor.to_path_buf(),
            shape: Shape::Tree(TreeShape {
                depth: 1,
                width: 2,
                files,
                sizes: size.into(),
            }),
        },
        format: Format::No,
        cleanup: false,
        make_parent: false,
    }
}

/// A fileset of filebench's shape: `entries` files of `size` bytes,
/// `dir_width` a directory, `prealloc` percent made before the run.
pub(super) fn entries_set(
    anchor: &Path,
    entries: u64,
    dir_width: u32,
    size: u64,
    prealloc: f64,
) -> FsFileset {
    let mut set = fileset(anchor, 1, "1");
    set.spec.shape = Shape::Entries(EntriesShape {
        entries,
        dir_width,
        size: FileSize::Fixed(size),
        prealloc,
    });
    set
}

pub(super) fn workload(set: FsFileset, work: FsWork, secs: f64) -> WorkloadSpec {
    let mut w = WorkloadSpec::example("fs", "unused", "read");
    w.targets.clear();
    w.direct = false;
    w.duration_s = Some(secs);
    w.interval_s = 0.1;
    w.bs[0].bytes = 4096;
    w.fs = Some(FsSpec {
        filesets: vec![set],
        work,
        select: FileSelect::Uniform,
        personality: None,
        layout_seed: None,
    });
    w
}

pub(super) fn step(op: Op) -> Step {
    Step::new(op)
}

pub(super) fn mix(entries: &[(Op, u32)]) -> FsWork {
    FsWork::Mix(
        entries
            .iter()
            .map(|&(op, weight)| MixEntry {
                step: step(op),
                weight,
            })
            .collect(),
    )
}

pub(super) fn go(w: WorkloadSpec) -> Result<WorkloadRaw, RunError> {
    let r = run(
        &RunSpec::single(w),
        &mut Quiet,
        Arc::new(AtomicBool::new(false)),
        Arc::new(EventLog::new()),
    )?;
    Ok(r.workloads.into_iter().next().expect("one workload"))
}

/// Regular files and directories under `root` (the marker and the side
/// directories' contents included as what they are).
pub(super) fn walk(root: &Path) -> (u64, u64) {
    let (mut files, mut dirs) = (0, 0);
    for e in std::fs::read_dir(root).unwrap() {
        let e = e.unwrap();
        let t = e.file_type().unwrap();
        if t.is_dir() {
            dirs += 1;
            let (f, d) = walk(&e.path());
            files += f;
            dirs += d;
        } else if t.is_file() && e.file_name() != iolab_fileset::MARKER {
            files += 1;
        }
    }
    (files, dirs)
}

pub(super) fn ops(r: &WorkloadRaw, op: Op) -> u64 {
    r.ops.get(op).map_or(0, |d| d.ops)
}

#[test]
fn a_mix_runs_and_its_counters_match_the_disk() {
    let d = tempfile::tempdir().unwrap();
    let anchor = d.path().join("a");
    let work = mix(&[
        (Op::Read, 40),
        (Op::Write, 20),
        (Op::Stat, 10),
        (Op::Create, 10),
        (Op::Delete, 10),
        (Op::Mkdir, 5),
        (Op::Rmdir, 5),
    ]);
    let mut w = workload(fileset(&anchor, 50, "8k"), work, 0.3);
    w.jobs = 2;
    w.qd = 2;
    let r = go(w).unwrap();
    assert!(r.complete, "{:?}", r.incomplete_reason);
    assert_eq!(r.errors_total, 0, "{:?}", r.errors.first());
    let fs = r.fs.as_ref().unwrap();
    let total = r.ops.total_ops();
    assert!(total > 200, "{total} operations in 0.3 s");
    let share = ops(&r, Op::Read) as f64 / total as f64;
    assert!((0.3..0.5).contains(&share), "reads {share}");
    assert!(r.ops.get(Op::Read).unwrap().bytes > 0);
    // What iolab says it left equals what is there.
    let made = 100; // 2 leaves x 50 files
    let c = fs.counters;
    let files_now = made + c.files_created - c.files_deleted;
    let (files, dirs) = walk(&anchor);
    assert_eq!(files, files_now, "{c:?}");
    assert_eq!(fs.filesets[0].files_at_end, Some(files_now));
    assert_eq!(dirs, 2 + c.dirs_created - c.dirs_deleted, "{c:?}");
    assert!(c.files_created > 0 && c.files_deleted > 0 && c.dirs_created > 0);
    // Each read, write and create opened and closed one file.
    assert_eq!(c.opens_read, ops(&r, Op::Read));
    assert_eq!(c.opens_write, ops(&r, Op::Write) + ops(&r, Op::Create));
    assert_eq!(c.closes, c.opens_read + c.opens_write);
    // The table has exactly the mix's operations.
    let listed: Vec<Op> = r.ops.iter().map(|(o, _)| o).collect();
    assert_eq!(
        listed,
        vec![
            Op::Read,
            Op::Write,
            Op::Create,
            Op::Delete,
            Op::Stat,
            Op::Mkdir,
            Op::Rmdir
        ]
    );
}

#[test]
fn a_flow_runs_its_steps_in_order() {
    flow_in_order(1);
}

/// Two flow instances per thread: on io_uring, where it is there.
#[test]
fn a_flow_runs_its_steps_in_order_with_two_in_flight() {
    flow_in_order(2);
}

fn flow_in_order(qd: u32) {
    let d = tempfile::tempdir().unwrap();
    let anchor = d.path().join("a");
    let whole = |op| Step {
        whole: true,
        ..step(op)
    };
    let steps = vec![
        step(Op::Create),
        whole(Op::Write),
        step(Op::Close),
        step(Op::Open),
        Step {
            random: true,
            xfer: 2048,
            ..step(Op::Append)
        },
        step(Op::Close),
        step(Op::Open),
        whole(Op::Read),
        step(Op::Close),
        step(Op::Delete),
        step(Op::Stat),
    ];
    let flow = Flow {
        name: "f".into(),
        threads: 2,
        steps,
        rate_ops: None,
        think_us: 0,
    };
    // filebench's shape: half the files exist up front, so that create
    // finds files to make.
    let set = entries_set(&anchor, 200, 20, 16384, 50.0);
    let mut w = workload(set, FsWork::Flows(vec![flow]), 0.3);
    w.qd = qd;
    // Passes in flight when the run ends: 2 threads x qd slots.
    let slack = 2 * qd as u64;
    let r = go(w).unwrap();
    assert!(r.complete, "{:?}", r.incomplete_reason);
    assert_eq!(r.errors_total, 0, "{:?}", r.errors.first());
    let n = ops(&r, Op::Create);
    assert!(n > 20, "{n} passes");
    // Every step runs once a pass: counts agree within the passes in
    // flight (2 threads x 1 slot).
    for op in [Op::Write, Op::Append, Op::Read, Op::Delete, Op::Stat] {
        let k = ops(&r, op);
        assert!(k.abs_diff(n) <= slack, "{op:?} {k} vs create {n}");
    }
    assert!(ops(&r, Op::Close).abs_diff(3 * n) <= 3 * slack);
    let fs = r.fs.as_ref().unwrap();
    let c = fs.counters;
    let (files, _) = walk(&anchor);
    let made = fs.filesets[0].files_made;
    assert!((60..140).contains(&made), "{made} of 200 made up front");
    assert_eq!(files, made + c.files_created - c.files_deleted, "{c:?}");
    assert_eq!(fs.filesets[0].files_at_end, Some(files));
    // A whole read reads the file whole: 16 KiB plus appends.
    let rd = r.ops.get(Op::Read).unwrap();
    assert!(
        rd.bytes >= rd.ops * 16384,
        "{} bytes in {} reads",
        rd.bytes,
        rd.ops
    );
    // Two opens for writing a pass (create, and the open before append).
    assert!(c.opens_write.abs_diff(n * 2) <= slack, "{c:?}");
}

#[test]
fn a_file_deleted_behind_iolabs_back_is_counted_not_fatal() {
    let d = tempfile::tempdir().unwrap();
    let anchor = d.path().join("a");
    let set = fileset(&anchor, 20, "4k");
    // A first short run creates the fileset.
    let w0 = workload(set.clone(), mix(&[(Op::Stat, 1)]), 0.05);
    go(w0).unwrap();
    let w = workload(set, mix(&[(Op::Read, 1)]), 0.3);
    /// Deletes ten files when the clock starts (after iolab read back the
    /// files' state).
    struct Deleter(std::path::PathBuf);
    impl iolab_core::Observer for Deleter {
        fn clock_started(&mut self) {
            for i in 0..10 {
                std::fs::remove_file(self.0.join(format!("d0/f{i}"))).unwrap();
            }
        }
    }
    let r = run(
        &RunSpec::single(w),
        &mut Deleter(anchor.clone()),
        Arc::new(AtomicBool::new(false)),
        Arc::new(EventLog::new()),
    )
    .unwrap();
    let r = &r.workloads[0];
    let fs = r.fs.as_ref().unwrap();
    let enoent = fs
        .op_errors
        .get(&Op::Read)
        .and_then(|v| v.iter().find(|e| e.0 == libc::ENOENT))
        .map_or(0, |e| e.1);
    assert!(r.complete, "{:?}", r.incomplete_reason);
    // Each deleted file fails at most once: then iolab knows it is gone.
    assert!((1..=10).contains(&enoent), "{:?}", fs.op_errors);
    assert!(
        r.errors.iter().any(|e| e.target.contains("/d0/f")),
        "{:?}",
        r.errors
    );
    assert_eq!(fs.filesets[0].files_at_end, Some(30));
    assert!(ops(r, Op::Read) > 100);
}

#[test]
fn an_unmarked_directory_is_refused_and_left_alone() {
    let d = tempfile::tempdir().unwrap();
    let anchor = d.path().join("a");
    std::fs::create_dir(&anchor).unwrap();
    std::fs::write(anchor.join("mine"), b"user data").unwrap();
    let w = workload(fileset(&anchor, 4, "4k"), mix(&[(Op::Read, 1)]), 0.1);
    let e = go(w).unwrap_err();
    let msg = e.to_string();
    assert!(msg.contains("no .iolab-fileset marker"), "{msg}");
    assert!(!msg.contains('\n'), "{msg}");
    assert!(matches!(e, RunError::Setup(_)));
    let names: Vec<_> = std::fs::read_dir(&anchor)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, vec![std::ffi::OsString::from("mine")]);
}

#[test]
fn a_refused_fileset_leaves_no_anchor_behind() {
    let d = tempfile::tempdir().unwrap();
    let anchor = d.path().join("a");
    // Far more than any test machine's disk.
    let w = workload(fileset(&anchor, 1000, "100g"), mix(&[(Op::Read, 1)]), 0.1);
    let msg = go(w).unwrap_err().to_string();
    assert!(msg.contains("the fileset needs"), "{msg}");
    assert!(!anchor.exists());
}

#[test]
fn every_operation_runs_in_a_mix_and_the_tree_matches_the_counters() {
    let d = tempfile::tempdir().unwrap();
    let anchor = d.path().join("a");
    let all: Vec<(Op, u32)> = Op::FS.iter().map(|&o| (o, 5)).collect();
    let mut w = workload(fileset(&anchor, 30, "8k"), mix(&all), 0.3);
    w.jobs = 2;
    w.qd = 3;
    let r = go(w).unwrap();
    assert!(r.complete, "{:?}", r.incomplete_reason);
    assert_eq!(r.errors_total, 0, "{:?}", r.errors.first());
    for op in Op::FS {
        assert!(
            ops(&r, op) > 0,
            "no {op:?} in {:?}",
            r.ops.iter().map(|(o, d)| (o, d.ops)).collect::<Vec<_>>()
        );
    }
    let fs = r.fs.as_ref().unwrap();
    // getdents, setattr and access have no io_uring opcode.
    if r.effective.engine == "sync" {
        assert_eq!(fs.sync_ops, Op::FS.to_vec());
    } else {
        assert!(fs.sync_ops.contains(&Op::Readdir), "{:?}", fs.sync_ops);
    }
    let c = fs.counters;
    let (files, dirs) = walk(&anchor);
    assert_eq!(files, 60 + c.files_created - c.files_deleted, "{c:?}");
    assert_eq!(dirs, 2 + c.dirs_created - c.dirs_deleted, "{c:?}");
    assert_eq!(c.closes, c.opens_read + c.opens_write, "{c:?}");
    assert_eq!(c.files_created, ops(&r, Op::Create));
    assert_eq!(c.files_deleted, ops(&r, Op::Delete));
    assert_eq!(c.dirs_created, ops(&r, Op::Mkdir));
}

#[test]
fn a_mix_ends_on_its_operation_count_across_threads() {
    let d = tempfile::tempdir().unwrap();
    let mut w = workload(
        fileset(&d.path().join("a"), 20, "4k"),
        mix(&[(Op::Read, 1), (Op::Stat, 1)]),
        1.0,
    );
    w.duration_s = None;
    w.ops = Some(777);
    w.jobs = 3;
    w.qd = 2;
    let r = go(w).unwrap();
    assert!(r.complete, "{:?}", r.incomplete_reason);
    assert_eq!(r.ops.total_ops(), 777);
}

/// Renames run on a full fileset (every layout name taken): each moves
/// a file to its side name `f<j>.r` or back; mid-run the tree holds the
/// same number of files, and the end leaves the layout's names only.
#[test]
fn renames_run_on_a_full_fileset_and_leave_the_layout() {
    let d = tempfile::tempdir().unwrap();
    let anchor = d.path().join("a");
    let mut w = workload(fileset(&anchor, 10, "4k"), mix(&[(Op::Rename, 1)]), 1.0);
    w.duration_s = None;
    w.ops = Some(500);
    let r = go(w).unwrap();
    assert!(r.complete, "{:?}", r.incomplete_reason);
    assert_eq!(r.errors_total, 0, "{:?}", r.errors.first());
    assert_eq!(ops(&r, Op::Rename), 500);
    let c = &r.fs.as_ref().unwrap().counters;
    assert_eq!((c.files_created, c.files_deleted), (0, 0), "{c:?}");
    assert_eq!(walk(&anchor), (20, 2));
    for leaf in ["d0", "d1"] {
        for j in 0..10 {
            assert!(anchor.join(format!("{leaf}/f{j}")).is_file(), "{leaf}/f{j}");
        }
    }
}

#[test]
fn a_mix_ends_on_bytes() {
    let d = tempfile::tempdir().unwrap();
    let mut w = workload(
        fileset(&d.path().join("a"), 20, "64k"),
        mix(&[(Op::Read, 1)]),
        1.0,
    );
    w.duration_s = None;
    w.io_size = Some(400 << 10);
    let r = go(w).unwrap();
    let b = r.ops.read().bytes;
    assert!((400 << 10..(400 << 10) + 4096).contains(&b), "{b}");
    assert_eq!(r.ops.read().ops, 100);
}

#[test]
fn rate_and_think_time_pace_the_work() {
    let d = tempfile::tempdir().unwrap();
    let set = fileset(&d.path().join("a"), 20, "4k");
    let mut w = workload(set.clone(), mix(&[(Op::Stat, 1)]), 0.4);
    w.rate_iops = Some(500.0);
    w.jobs = 2;
    let n = go(w).unwrap().ops.total_ops();
    assert!((150..=205).contains(&n), "{n} stats at 500/s for 0.4 s");
    let flow = Flow {
        name: "f".into(),
        threads: 1,
        steps: vec![step(Op::Stat)],
        rate_ops: None,
        think_us: 20_000,
    };
    let n = go(workload(set, FsWork::Flows(vec![flow]), 0.3))
        .unwrap()
        .ops
        .total_ops();
    assert!(
        (10..=16).contains(&n),
        "{n} passes of 20 ms think time in 0.3 s"
    );
}

#[test]
fn enospc_mid_run_stops_cleanly_with_the_results_kept() {
    iolab_testutil::require_root!();
    let m = iolab_testutil::TmpfsMount::new("2m").unwrap();
    let anchor = m.path().join("a");
    let set = fileset(&anchor, 8, "64k");
    let append = Step {
        xfer: 64 << 10,
        ..step(Op::Append)
    };
    let work = FsWork::Mix(vec![
        MixEntry {
            step: append,
            weight: 1,
        },
        MixEntry {
            step: step(Op::Stat),
            weight: 1,
        },
    ]);
    let mut w = workload(set.clone(), work.clone(), 2.0);
    w.bs[0].bytes = 64 << 10;
    let r = go(w.clone()).unwrap();
    let why = r.incomplete_reason.as_deref().unwrap_or("");
    assert!(
        why.contains("ENOSPC (") && why.contains("(append) at") && why.contains("/a/d"),
        "{why}"
    );
    let fs = r.fs.as_ref().unwrap();
    let enospc = &fs.op_errors[&Op::Append];
    assert!(enospc.iter().any(|e| e.0 == libc::ENOSPC), "{enospc:?}");
    assert!(ops(&r, Op::Append) > 5 && ops(&r, Op::Stat) > 5);
    assert!(r.measured_ns < 1_000_000_000, "stopped early");
    // Under --on-error continue it runs its time, counting every refusal.
    w.on_error = iolab_spec::OnError::Continue;
    w.duration_s = Some(0.2);
    let r = go(w).unwrap();
    assert!(r.complete, "{:?}", r.incomplete_reason);
    assert!(r.errors_total > 10, "{}", r.errors_total);
}

#[test]
fn o_direct_and_o_dsync_flows_move_whole_files() {
    let d = tempfile::tempdir().unwrap();
    let set = entries_set(&d.path().join("a"), 40, 10, 16384, 50.0);
    let whole = |op| Step {
        whole: true,
        ..step(op)
    };
    let steps = vec![
        step(Op::Create),
        whole(Op::Write),
        step(Op::Append),
        step(Op::Fdatasync),
        step(Op::Close),
        step(Op::Open),
        whole(Op::Read),
        step(Op::Close),
        step(Op::Delete),
    ];
    let flow = Flow {
        name: "f".into(),
        threads: 1,
        steps,
        rate_ops: None,
        think_us: 0,
    };
    let mut w = workload(set, FsWork::Flows(vec![flow]), 0.3);
    w.direct = true;
    w.sync = iolab_spec::SyncMode::Dsync;
    let r = go(w).unwrap();
    if r.errors.first().is_some_and(|e| e.errno == libc::EINVAL) {
        eprintln!("SKIP o_direct_and_o_dsync_flows_move_whole_files: no O_DIRECT here");
        return;
    }
    assert_eq!(r.errors_total, 0, "{:?}", r.errors.first());
    let (wr, rd) = (r.ops.get(Op::Write).unwrap(), r.ops.read());
    assert!(
        wr.ops >= 1 && wr.bytes == wr.ops * 16384,
        "{} {}",
        wr.ops,
        wr.bytes
    );
    // Each file read whole: its 16 KiB and the 4 KiB appended.
    assert!(rd.bytes >= rd.ops * 16384, "{} {}", rd.ops, rd.bytes);
    assert!(ops(&r, Op::Fdatasync).abs_diff(wr.ops) <= 1);
}

/// `--direct` whole-file writes of files whose size is no multiple of
/// 4096 write the tail through the page cache: the files keep their
/// 5000 bytes (they grew to 8192 when the tail was rounded up).
#[test]
fn o_direct_writes_keep_unaligned_file_sizes() {
    let d = tempfile::tempdir().unwrap();
    let anchor = d.path().join("a");
    let whole = Step {
        whole: true,
        ..step(Op::Write)
    };
    let work = FsWork::Mix(vec![MixEntry {
        step: whole,
        weight: 1,
    }]);
    let mut w = workload(fileset(&anchor, 5, "5000"), work, 0.0);
    w.duration_s = None;
    w.ops = Some(20);
    w.direct = true;
    let r = go(w).unwrap();
    if r.errors.first().is_some_and(|e| e.errno == libc::EINVAL) {
        eprintln!("SKIP o_direct_writes_keep_unaligned_file_sizes: no O_DIRECT here");
        return;
    }
    assert_eq!(r.errors_total, 0, "{:?}", r.errors.first());
    let wr = r.ops.get(Op::Write).unwrap();
    assert_eq!((wr.ops, wr.bytes), (20, 20 * 5000));
    let mut sizes = Vec::new();
    for e in walkdir(&anchor) {
        if e.file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with('f'))
        {
            sizes.push(std::fs::metadata(&e).unwrap().len());
        }
    }
    assert_eq!(sizes, vec![5000; 10], "2 leaves of 5 files");
}

/// A step's own `direct`/`dsync` (filebench's per-flowop `directio`,
/// `dsync`) reach the open of its file and nothing else: the plan's
/// open carries O_DIRECT | O_DSYNC where the workload has neither, and a
/// run of whole-file writes of 5000 bytes, O_DIRECT on the step alone,
/// writes the unaligned tails through the page cache as `--direct` does
/// (an O_DIRECT tail would fail with EINVAL), keeping the sizes.
#[test]
fn a_steps_own_direct_and_dsync_reach_its_open() {
    let d = tempfile::tempdir().unwrap();
    let anchor = d.path().join("a");
    let steps = iolab_spec::fs_parse::parse_flows(
        "create:dsync,write:whole:4k:direct,close,open,read:4k,close",
        &["fs"],
        1,
    )
    .unwrap();
    let mut w = workload(
        fileset(&anchor, 5, "5000"),
        FsWork::Flows(steps.clone()),
        0.3,
    );
    assert!(!w.direct && w.sync == iolab_spec::SyncMode::None);
    let plan = &super::setup::plans(&w, None)[0];
    let flags: Vec<i32> = plan.acts.iter().map(|a| a.flags).collect();
    assert_eq!(
        flags,
        [libc::O_DIRECT | libc::O_DSYNC, libc::O_DIRECT, 0, 0, 0, 0],
        "the write's direct goes to the create that opened its file"
    );
    assert_eq!(plan.data_flags, 0);
    w.fs.as_mut().unwrap().filesets[0].spec.shape = Shape::Entries(EntriesShape {
        entries: 10,
        dir_width: 5,
        size: FileSize::Fixed(5000),
        prealloc: 50.0,
    });
    let r = go(w).unwrap();
    if r.errors.first().is_some_and(|e| e.errno == libc::EINVAL) && r.ops.get(Op::Write).is_none() {
        eprintln!("SKIP a_steps_own_direct_and_dsync_reach_its_open: no O_DIRECT here");
        return;
    }
    assert_eq!(r.errors_total, 0, "{:?}", r.errors.first());
    let wr = r.ops.get(Op::Write).unwrap();
    assert!(
        wr.ops >= 1 && wr.bytes == wr.ops * 5000,
        "{} {}",
        wr.ops,
        wr.bytes
    );
    for e in walkdir(&anchor) {
        let name = e.file_name().unwrap().to_string_lossy().to_string();
        if name.starts_with('f') {
            assert_eq!(std::fs::metadata(&e).unwrap().len(), 5000, "{name}");
        }
    }
}

fn walkdir(root: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(root).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(walkdir(&p));
        } else {
            out.push(p);
        }
    }
    out
}

#[test]
fn an_anchor_whose_parent_is_missing_is_one_line_and_nothing_is_made() {
    let d = tempfile::tempdir().unwrap();
    let anchor = d.path().join("no/such/a");
    let w = workload(fileset(&anchor, 4, "4k"), mix(&[(Op::Stat, 1)]), 0.1);
    let msg = go(w).unwrap_err().to_string();
    assert!(
        msg.contains("parent") && msg.contains("does not exist"),
        "{msg}"
    );
    assert!(!msg.contains('\n'));
    assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 0);
}

/// Rough rates for a look in release builds (`cargo test --release -p
/// iolab-engine --lib fs::tests::rates -- --ignored --nocapture`); the
/// benchmarks of record are in bench/.
#[test]
#[ignore]
fn rates() {
    let d = tempfile::tempdir().unwrap();
    for (name, m, qd) in [
        ("stat", vec![(Op::Stat, 1)], 1),
        ("stat", vec![(Op::Stat, 1)], 16),
        ("create+delete", vec![(Op::Create, 1), (Op::Delete, 1)], 1),
        ("delete", vec![(Op::Delete, 1)], 1),
        ("create+delete", vec![(Op::Create, 1), (Op::Delete, 1)], 16),
        ("read 4k", vec![(Op::Read, 1)], 1),
    ] {
        let mut w = workload(fileset(&d.path().join("a"), 5000, "4k"), mix(&m), 1.0);
        w.qd = qd;
        let r = go(w).unwrap();
        let secs = r.measured_ns as f64 / 1e9;
        let n = r.ops.total_ops();
        let cpu = (r.cpu.user_us + r.cpu.sys_us) as f64 / n.max(1) as f64;
        println!(
            "{name:>14} qd {qd:>2} {}: {:>9.0} ops/s, {cpu:.1} us CPU/op",
            r.effective.engine,
            n as f64 / secs
        );
        for n in &r.notes {
            println!("    {n}");
        }
    }
}

/// [`rates`] on a wide tree (64 x 64 leaf directories of 2 files): the
/// metadata operations' leaf directories mostly miss the threads' caches
/// of descriptors (`dirs.rs`), the worst case for them.
#[test]
#[ignore]
fn rates_wide() {
    let d = tempfile::tempdir().unwrap();
    let mut set = fileset(&d.path().join("a"), 2, "4k");
    set.spec.shape = Shape::Tree(TreeShape {
        depth: 2,
        width: 64,
        files: 2,
        sizes: "4k".into(),
    });
    for (name, m, qd) in [
        ("stat", vec![(Op::Stat, 1)], 1),
        ("stat", vec![(Op::Stat, 1)], 16),
        ("delete+rename", vec![(Op::Delete, 1), (Op::Rename, 4)], 1),
        ("create+delete", vec![(Op::Create, 1), (Op::Delete, 1)], 1),
        ("create+delete", vec![(Op::Create, 1), (Op::Delete, 1)], 16),
    ] {
        let mut w = workload(set.clone(), mix(&m), 1.0);
        w.qd = qd;
        let r = go(w).unwrap();
        let n = r.ops.total_ops();
        let cpu = (r.cpu.user_us + r.cpu.sys_us) as f64 / n.max(1) as f64;
        let rate = n as f64 / (r.measured_ns as f64 / 1e9);
        let eng = &r.effective.engine;
        println!("wide {name:>14} qd {qd:>2} {eng}: {rate:>9.0} ops/s, {cpu:.1} us CPU/op");
    }
}

#[test]
fn skipped_operations_do_not_count_and_a_starved_workload_stops() {
    let d = tempfile::tempdir().unwrap();
    let set = fileset(&d.path().join("a"), 10, "4k");
    // Creates find no missing file until deletes make one: those starts
    // are not operations, and the count still comes out exact.
    let mut w = workload(
        set.clone(),
        mix(&[(Op::Create, 5), (Op::Delete, 1), (Op::Stat, 4)]),
        1.0,
    );
    w.duration_s = None;
    w.ops = Some(3000);
    w.jobs = 2;
    let r = go(w).unwrap();
    assert!(r.complete, "{:?}", r.incomplete_reason);
    assert_eq!(r.ops.total_ops(), 3000);
    assert!(
        r.notes.iter().any(|n| n.contains("were skipped")),
        "{:?}",
        r.notes
    );
    // Deletes only: once every file is gone the workload stops, saying why.
    let r = go(workload(set, mix(&[(Op::Delete, 1)]), 30.0)).unwrap();
    let why = r.incomplete_reason.as_deref().unwrap_or("");
    assert!(why.contains("found no file"), "{why}");
    assert_eq!(ops(&r, Op::Delete), 20);
    assert!(r.measured_ns < 10_000_000_000);
}

#[test]
fn one_transfer_writes_never_leave_holes() {
    let d = tempfile::tempdir().unwrap();
    let anchor = d.path().join("a");
    let rnd = Step {
        random: true,
        ..step(Op::Write)
    };
    let work = FsWork::Mix(vec![
        MixEntry {
            step: rnd,
            weight: 4,
        },
        MixEntry {
            step: step(Op::Write),
            weight: 2,
        },
        MixEntry {
            step: step(Op::Create),
            weight: 1,
        },
        MixEntry {
            step: step(Op::Delete),
            weight: 1,
        },
    ]);
    let r = go(workload(fileset(&anchor, 10, "64k"), work, 0.3)).unwrap();
    assert!(r.ops.get(Op::Write).unwrap().ops > 100);
    // Files hold random bytes (made by the fileset or written): a 4 KiB
    // block of zeros would be a hole a write left before itself.
    for leaf in ["d0", "d1"] {
        for e in std::fs::read_dir(anchor.join(leaf)).unwrap() {
            let data = std::fs::read(e.unwrap().path()).unwrap();
            for (k, b) in data.chunks(4096).enumerate() {
                assert!(b.iter().any(|&x| x != 0), "a hole at block {k}");
            }
        }
    }
}

#[test]
fn threads_append_to_one_shared_file_together() {
    let d = tempfile::tempdir().unwrap();
    let anchor = d.path().join("log");
    let set = entries_set(&anchor, 1, 2, 4096, 100.0);
    let flow = Flow {
        name: "logger".into(),
        threads: 4,
        steps: vec![
            step(Op::Open),
            Step {
                xfer: 1000,
                ..step(Op::Append)
            },
            step(Op::Close),
        ],
        rate_ops: None,
        think_us: 0,
    };
    let r = go(workload(set, FsWork::Flows(vec![flow]), 0.3)).unwrap();
    assert_eq!(r.errors_total, 0, "{:?}", r.errors.first());
    let n = ops(&r, Op::Append);
    assert!(n > 100, "{n}");
    // Every pass appended: no thread waited for another's claim.
    assert!(ops(&r, Op::Open).abs_diff(n) <= 4, "{:?}", r.notes);
    assert!(
        !r.notes.iter().any(|x| x.contains("skipped")),
        "{:?}",
        r.notes
    );
    // Each append got its own range: the file grew by all of them.
    let path = anchor.join(if anchor.join("f0").exists() {
        "f0"
    } else {
        "d0/f0"
    });
    let len = std::fs::metadata(path).unwrap().len();
    assert_eq!(len, 4096 + 1000 * n);
}

#[test]
fn cleanup_removes_the_fileset_and_keeps_the_marked_anchor() {
    let d = tempfile::tempdir().unwrap();
    let anchor = d.path().join("a");
    let mut set = fileset(&anchor, 10, "4k");
    set.cleanup = true;
    let work = mix(&[
        (Op::Mkdir, 1),
        (Op::Create, 1),
        (Op::Delete, 1),
        (Op::Stat, 1),
    ]);
    let r = go(workload(set, work, 0.2)).unwrap();
    let fs = r.fs.as_ref().unwrap();
    assert!(fs.filesets[0].removed, "{:?}", r.notes);
    assert!(fs.counters.dirs_created > 0);
    assert_eq!(walk(&anchor), (0, 0));
    assert!(anchor.join(iolab_fileset::MARKER).exists());
}

#[test]
fn a_flow_of_every_operation_runs_without_errors() {
    let d = tempfile::tempdir().unwrap();
    let set = entries_set(&d.path().join("a"), 100, 10, 8192, 60.0);
    let rnd = |op| Step {
        random: true,
        ..step(op)
    };
    let steps = vec![
        step(Op::Create),
        Step {
            whole: true,
            ..step(Op::Write)
        },
        step(Op::Fsync),
        rnd(Op::Rewrite),
        step(Op::Fdatasync),
        step(Op::Getattr),
        step(Op::Setattr),
        rnd(Op::Read),
        step(Op::Append),
        step(Op::Close),
        step(Op::Open),
        step(Op::Read),
        step(Op::Close),
        step(Op::Readdir),
        step(Op::Rename),
        step(Op::Access),
        step(Op::Mkdir),
        step(Op::Rmdir),
        step(Op::Stat),
        step(Op::Delete),
    ];
    let flow = Flow {
        name: "all".into(),
        threads: 2,
        steps,
        rate_ops: None,
        think_us: 0,
    };
    // Every slot (threads x qd) runs its own passes, and a step whose
    // files other slots hold waits rather than being skipped: when the
    // time is up each slot may be anywhere in a pass, so an operation's
    // count differs from its share of the passes begun by at most one
    // pass's worth of it per slot.
    let slots = u64::from(flow.threads) * 2;
    let mut w = workload(set, FsWork::Flows(vec![flow]), 0.3);
    w.qd = 2;
    let r = go(w).unwrap();
    assert_eq!(r.errors_total, 0, "{:?}", r.errors.first());
    let n = ops(&r, Op::Create);
    assert!(n > 10, "{n}");
    // A step that finds no file in the state it needs at all (not one
    // held by another slot) is skipped and said in a note; on a busy
    // machine a delete did so once. Those are allowed for too.
    let skipped = r
        .notes
        .iter()
        .find_map(|n| n.split_once(" operations found no file"))
        .and_then(|(k, _)| k.trim().parse::<u64>().ok())
        .unwrap_or(0);
    for op in Op::FS {
        let per_pass = match op {
            Op::Close | Op::Read => 2,
            _ => 1,
        };
        let k = ops(&r, op);
        assert!(
            k <= per_pass * n && per_pass * n - k <= slots * per_pass + skipped,
            "{op:?}: {k} for {n} passes ({slots} slots, {skipped} skipped; {:?})",
            r.notes
        );
    }
}

#[test]
fn a_file_truncated_between_verify_runs_is_seen() {
    let d = tempfile::tempdir().unwrap();
    let anchor = d.path().join("a");
    let set = fileset(&anchor, 4, "16k");
    let whole = |op| Step {
        whole: true,
        ..step(op)
    };
    let run_once = |op: Op| {
        let work = FsWork::Mix(vec![MixEntry {
            step: whole(op),
            weight: 1,
        }]);
        let mut w = workload(set.clone(), work, 1.0);
        w.duration_s = None;
        w.ops = Some(40);
        w.verify = true;
        go(w).unwrap()
    };
    run_once(Op::Write);
    // A clean second run expects what the first left: nothing short.
    let r = run_once(Op::Read);
    assert_eq!(r.errors_total, 0, "{:?}", r.errors.first());
    std::fs::OpenOptions::new()
        .write(true)
        .open(anchor.join("d1/f2"))
        .unwrap()
        .set_len(100)
        .unwrap();
    let r = run_once(Op::Read);
    let short = r.fs.as_ref().unwrap().op_errors.get(&Op::Read).cloned();
    assert!(short.as_ref().is_some_and(|v| v[0].0 == 0), "{short:?}");
    assert!(
        r.errors.iter().all(|e| e.target.ends_with("d1/f2")),
        "{:?}",
        r.errors
    );
}

/// With one operation in flight the workload runs on system calls by
/// choice: the result says so and why, and lists no operation as lacking
/// an io_uring opcode; with two in flight it runs on io_uring.
#[test]
fn the_backend_used_and_why_are_in_the_result() {
    let d = tempfile::tempdir().unwrap();
    let mut w = workload(
        fileset(&d.path().join("a"), 10, "4k"),
        mix(&[(Op::Read, 1), (Op::Stat, 1)]),
        0.1,
    );
    w.qd = 1;
    let r = go(w.clone()).unwrap();
    let fs = r.fs.as_ref().unwrap();
    assert_eq!(
        (r.effective.engine.as_str(), fs.backend.as_str()),
        ("sync", "sync")
    );
    let why = fs.backend_reason.as_deref().unwrap_or_default();
    assert!(why.contains("--qd 1"), "{why}");
    assert!(fs.sync_ops.is_empty(), "{:?}", fs.sync_ops);
    if !crate::runner::io_uring_available() {
        return;
    }
    w.qd = 2;
    let r = go(w).unwrap();
    let fs = r.fs.as_ref().unwrap();
    assert_eq!(
        (fs.backend.as_str(), fs.backend_reason.as_deref()),
        ("io_uring", None)
    );
    assert!(!fs.sync_ops.contains(&Op::Read), "{:?}", fs.sync_ops);
}
