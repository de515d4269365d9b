//! Preparing a block workload before its clock starts: check and open
//! its targets, set up `--verify`, prefill, and share the targets and the
//! budget out over its workers.

use crate::buffers::BufferPool;
use crate::data::DataGen;
use crate::gen::Region;
use crate::runner::RunError;
use crate::verify_setup::{VerifyRun, VerifyTarget};
use iolab_core::Observer;
use iolab_raw::*;
use iolab_spec::{SyncMode, WorkloadSpec};
use iolab_target::{Kind, TargetInfo};
use std::fs::File;
use std::os::unix::io::AsRawFd;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant, SystemTime};

pub(crate) struct Prepared {
    pub info: TargetInfo,
    pub file: File,
    pub region_start: u64,
    pub region_len: u64,
    pub prefill: bool,
    pub prefill_secs: f64,
}

/// so bad input leaves nothing behind.
pub(crate) fn prepare_targets(
    spec: &WorkloadSpec,
    notes: &mut Vec<String>,
) -> Result<Vec<Prepared>, RunError> {
    let mut created: Vec<TargetInfo> = Vec::new();
    let r = prepare_targets_inner(spec, notes, &mut created);
    if r.is_err() {
        for info in &created {
            let _ = iolab_target::remove_created(info);
        }
    }
    r
}

fn prepare_targets_inner(
    spec: &WorkloadSpec,
    notes: &mut Vec<String>,
    created: &mut Vec<TargetInfo>,
) -> Result<Vec<Prepared>, RunError> {
    let mut out = Vec::new();
    for t in &spec.targets {
        let opts = crate::precheck::prepare_options(spec, t);
        let info = iolab_target::prepare(Path::new(&t.path), &opts)?;
        if info.created {
            created.push(info.clone());
        }
        let region_len = crate::precheck::region_len(spec, t, info.size)?;
        if spec.engine == iolab_spec::EngineKind::Ftruncate && info.kind == Kind::BlockDevice {
            return Err(RunError::Setup(format!(
                "--engine ftruncate truncates files; {} is a block device: give a file",
                t.path
            )));
        }
        if spec.direct && crate::engines::caps(spec.engine).moves_data {
            let lbs = (info
                .dio_offset_align
                .max(if info.kind == Kind::BlockDevice {
                    info.logical_block_size
                } else {
                    0
                }))
            .max(512) as u64;
            for b in spec.all_bs() {
                if !b.bytes.is_multiple_of(lbs) {
                    return Err(RunError::Setup(format!(
                        "--bs {} is not a multiple of {}'s logical block size {lbs} needed with O_DIRECT; use a multiple of {lbs} or drop --direct",
                        b.bytes, t.path
                    )));
                }
            }
            if !spec.align.is_multiple_of(lbs) || !t.offset.is_multiple_of(lbs) {
                return Err(RunError::Setup(format!(
                    "--align and --offset must be multiples of {}'s logical block size {lbs} with O_DIRECT",
                    t.path
                )));
            }
        }
        let prefill = wants_prefill(&info, t.offset + region_len, spec);
        let file = iolab_target::open(
            &info,
            spec.writes() || prefill,
            spec.direct,
            spec.sync == SyncMode::Dsync,
        )?;
        if info.created {
            notes.push(format!("created {} ({} bytes)", t.path, info.size));
        }
        out.push(Prepared {
            info,
            file,
            region_start: t.offset,
            region_len,
            prefill,
            prefill_secs: 0.0,
        });
    }
    Ok(out)
}

/// Write every byte of the region once, sequentially, in 1 MiB writes.
pub(crate) fn prefill_one(
    p: &mut Prepared,
    spec: &WorkloadSpec,
    obs: &mut dyn Observer,
    stop: &AtomicBool,
    verify: Option<(&VerifyRun, usize)>,
) -> Result<(), (u64, i32)> {
    let mut chunk = (1usize << 20).max(spec.max_bs() as usize);
    if let Some((v, _)) = verify {
        let u = v.shared.unit as usize;
        chunk = chunk.div_ceil(u) * u;
    }
    let mut pool =
        BufferPool::new(1, chunk).map_err(|e| (0, e.raw_os_error().unwrap_or(libc::ENOMEM)))?;
    let data = DataGen::new(spec.data, 0);
    let mut rng = fastrand::Rng::with_seed(spec.seed ^ 0xf111);
    data.fill_base(pool.slot_mut(0), &mut rng);
    let start = p.region_start;
    let end = p.region_start + p.region_len;
    let fd = p.file.as_raw_fd();
    let t = Instant::now();
    let mut off = start;
    let mut seq = 0;
    let mut last_report = Instant::now();
    while off < end {
        if stop.load(Ordering::Relaxed) {
            return Err((off, libc::EINTR));
        }
        let len = ((end - off) as usize).min(chunk);
        let len = if spec.direct {
            len.div_ceil(512) * 512
        } else {
            len
        };
        seq += 1;
        match verify {
            Some((v, t)) => {
                let wall = SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map(|d| d.as_nanos() as u64)
                    .unwrap_or(0);
                v.prefill_stamp(t, &mut pool.slot_mut(0)[..len], off, wall);
            }
            None => data.prepare_write(
                pool.slot_mut(0),
                len,
                off,
                seq,
                &mut rng,
                &mut Default::default(),
                &[],
            ),
        }
        // SAFETY: the pool's slot 0 holds at least `chunk` >= len bytes.
        let r = unsafe { libc::pwrite(fd, pool.ptr(0) as *const libc::c_void, len, off as i64) };
        if r < 0 {
            return Err((
                off,
                std::io::Error::last_os_error()
                    .raw_os_error()
                    .unwrap_or(libc::EIO),
            ));
        }
        if r == 0 {
            return Err((off, libc::EIO));
        }
        off += r as u64;
        if last_report.elapsed() > Duration::from_millis(500) {
            obs.prefill(&p.info.path.to_string_lossy(), off - start, end - start);
            last_report = Instant::now();
        }
    }
    // SAFETY: fsync on an fd we own.
    if unsafe { libc::fsync(fd) } != 0 {
        return Err((
            end,
            std::io::Error::last_os_error()
                .raw_os_error()
                .unwrap_or(libc::EIO),
        ));
    }
    p.prefill_secs = t.elapsed().as_secs_f64();
    // The record means "the first N bytes were written": extend it only
    // when this region joins what was written before.
    if p.region_start <= p.info.prefilled_bytes {
        let _ = iolab_target::mark_prefilled(&p.info, end.max(p.info.prefilled_bytes));
    }
    Ok(())
}

pub(crate) fn wants_prefill(info: &TargetInfo, region_end: u64, spec: &WorkloadSpec) -> bool {
    if !crate::engines::caps(spec.engine).moves_data {
        return false;
    }
    match spec.prefill {
        iolab_spec::Prefill::Never => false,
        iolab_spec::Prefill::Always => true,
        // A fill's own writes are what allocates the file system's space;
        // reads checked against a data pattern check what is there (a
        // prefill would write the pattern over it).
        iolab_spec::Prefill::Auto => {
            let pattern_check =
                spec.verify && matches!(spec.data, iolab_spec::DataPattern::Pattern { .. });
            !spec.fill
                && !pattern_check
                && info.kind == Kind::File
                && info.owned
                && info.prefilled_bytes < region_end
        }
    }
}

/// Assign targets to workers: with at least as many workers as targets,
/// worker i drives target i mod T (LUN A, B, A, ...); with fewer, each
/// worker alternates over several. Returns, per worker, (target index,
/// stream number on that target, streams on that target).
pub(crate) fn assign(jobs: u32, ntargets: usize) -> Vec<Vec<(usize, u64, u64)>> {
    let t = ntargets as u32;
    let mut per_target = vec![0u64; ntargets];
    let mut lists: Vec<Vec<usize>> = Vec::new();
    for w in 0..jobs {
        let mine: Vec<usize> = if jobs >= t {
            vec![(w % t) as usize]
        } else {
            (w..t).step_by(jobs as usize).map(|x| x as usize).collect()
        };
        lists.push(mine);
    }
    let mut seen = vec![0u64; ntargets];
    for l in &lists {
        for &ti in l {
            per_target[ti] += 1;
        }
    }
    lists
        .into_iter()
        .map(|l| {
            l.into_iter()
                .map(|ti| {
                    let k = seen[ti];
                    seen[ti] += 1;
                    (ti, k, per_target[ti])
                })
                .collect()
        })
        .collect()
}

/// Each target's measured (ops, bytes) from the workers' totals, when every
/// worker drove one target only (`assign` with jobs >= targets: worker w
/// drives target w mod T). With fewer workers than targets a worker's
/// totals cover several targets, and the split is unknown: left `None`.
pub(crate) fn per_target(targets: &mut [TargetRaw], per_worker: &[(u64, u64)]) {
    let t = targets.len();
    if t == 0 || per_worker.len() < t {
        return;
    }
    for (ti, tr) in targets.iter_mut().enumerate() {
        let (ops, bytes) = per_worker
            .iter()
            .skip(ti)
            .step_by(t)
            .fold((0, 0), |a, w| (a.0 + w.0, a.1 + w.1));
        tr.measured = Some((ops, bytes));
    }
}

/// `offset_increment`: each worker's own region on a target.
#[derive(Debug, Clone, Default)]
pub(crate) struct PerWorker {
    /// Stream k's region starts k x this after the target's offset (0:
    /// every stream shares the region).
    pub increment: u64,
    /// Each target's `range` (the length of every stream's region), if given.
    pub range: Vec<Option<u64>>,
}

/// A worker's regions: for each of its (target, stream k of n) the target's
/// region, with the sequential stream starting k/n of the way into it, so
/// n sequential workers on one target are n separate dd-like streams. With
/// `offset_increment`, stream k has a region of its own instead, from
/// offset + k x increment, `range` long (else to the region's end;
/// [`crate::precheck::region_len`] checked that each fits).
pub(crate) fn worker_regions(
    mine: &[(usize, u64, u64)],
    spans: &[(u64, u64)],
    hit_len: u64,
    per: &PerWorker,
) -> Vec<Region> {
    mine.iter()
        .enumerate()
        .map(|(local, &(ti, k, n))| {
            let (start, len) = spans[ti];
            if per.increment > 0 {
                let skip = k * per.increment;
                let own = per.range.get(ti).copied().flatten();
                return Region {
                    target: local as u32,
                    start: start + skip,
                    len: own.unwrap_or(len.saturating_sub(skip)),
                    hit_len: 0,
                    stream_start: 0,
                };
            }
            let miss_len = if hit_len > 0 && hit_len < len {
                len - hit_len
            } else {
                len
            };
            Region {
                target: local as u32,
                start,
                len,
                hit_len,
                stream_start: miss_len / n * k,
            }
        })
        .collect()
}

pub(crate) fn split(total: Option<u64>, jobs: u32, w: u32) -> Option<u64> {
    total.map(|t| t / jobs as u64 + ((w as u64) < t % jobs as u64) as u64)
}

/// Set up `--verify`: maps (journal or memory), and which targets need a
/// stamped prefill so that every read checks something.
pub(crate) fn setup_verify(
    spec: &WorkloadSpec,
    targets: &mut [Prepared],
    notes: &mut Vec<String>,
) -> Result<VerifyRun, RunError> {
    let vt: Vec<VerifyTarget> = targets
        .iter()
        .map(|p| VerifyTarget {
            path: &p.info.path,
            size: p.info.size,
        })
        .collect();
    let v = VerifyRun::setup(spec, &vt).map_err(RunError::Setup)?;
    if v.raw.journal_reset_blocks > 0 {
        notes.push(format!(
            "the journal's previous run ended abruptly: {} blocks written without a durability promise are unchecked until written again",
            v.raw.journal_reset_blocks
        ));
    }
    if matches!(spec.data, iolab_spec::DataPattern::Pattern { .. }) {
        // Every read is compared with the pattern wherever it lands: a
        // prefill would write the pattern over what is to be checked.
        notes
            .push("every read is checked against the data pattern, whoever wrote the block".into());
        return Ok(v);
    }
    for (ti, p) in targets.iter_mut().enumerate() {
        let may = match spec.prefill {
            iolab_spec::Prefill::Never => false,
            iolab_spec::Prefill::Always => true,
            iolab_spec::Prefill::Auto => p.info.kind == Kind::File && p.info.owned,
        };
        if spec.reads()
            && may
            && !p.prefill
            && v.region_has_unwritten(ti, p.region_start, p.region_len)
        {
            // Stamp the region first, so every read checks something.
            if !spec.writes() {
                p.file =
                    iolab_target::open(&p.info, true, spec.direct, spec.sync == SyncMode::Dsync)?;
            }
            p.prefill = true;
        }
        if spec.reads() && !p.prefill && v.region_has_unwritten(ti, p.region_start, p.region_len) {
            notes.push(format!(
                "reads of blocks of {} not written in this run{} are not checked; --prefill stamps the whole region first",
                p.info.path.display(),
                if spec.journal.is_some() { " or its journal" } else { "" }
            ));
        }
    }
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn per_target_totals_follow_the_assignment() {
        let t = |p: &str| TargetRaw {
            path: p.into(),
            kind: TargetKind::File,
            size: 0,
            region_start: 0,
            region_len: 0,
            logical_block_size: 512,
            created: false,
            prefilled_bytes: 0,
            prefill_secs: 0.0,
            measured: None,
        };
        // 5 workers over 2 targets: A gets workers 0, 2, 4; B 1, 3.
        let mut ts = vec![t("a"), t("b")];
        per_target(&mut ts, &[(1, 10), (2, 20), (4, 40), (8, 80), (16, 160)]);
        assert_eq!(ts[0].measured, Some((21, 210)));
        assert_eq!(ts[1].measured, Some((10, 100)));
        assert_eq!(assign(5, 2)[4], vec![(0, 2, 3)]);
        // Fewer workers than targets: a worker's totals cover several.
        let mut ts = vec![t("a"), t("b"), t("c")];
        per_target(&mut ts, &[(1, 10), (2, 20)]);
        assert!(ts.iter().all(|t| t.measured.is_none()));
    }

    #[test]
    fn assignment_alternates_targets() {
        let a = assign(3, 2);
        assert_eq!(a[0], vec![(0, 0, 2)]);
        assert_eq!(a[1], vec![(1, 0, 1)]);
        assert_eq!(a[2], vec![(0, 1, 2)]);
        let a = assign(1, 3);
        assert_eq!(a[0], vec![(0, 0, 1), (1, 0, 1), (2, 0, 1)]);
    }

    #[test]
    fn sequential_workers_are_separate_streams() {
        use crate::gen::{GenConfig, IoGen};
        let spans = [(0u64, 1u64 << 30)];
        let cfg = GenConfig {
            read_pct: 100,
            random_pct: 0,
            bs: vec![(1 << 20, 1)],
            align: 1 << 20,
            ..GenConfig::default()
        };
        let firsts: Vec<Vec<u64>> = assign(4, 1)
            .iter()
            .enumerate()
            .map(|(w, mine)| {
                let mut g = IoGen::new(
                    &cfg,
                    worker_regions(mine, &spans, 0, &PerWorker::default()),
                    w as u64,
                );
                (0..3).map(|_| g.next_io().offset >> 20).collect()
            })
            .collect();
        assert_eq!(
            firsts,
            vec![
                vec![0, 1, 2],
                vec![256, 257, 258],
                vec![512, 513, 514],
                vec![768, 769, 770]
            ]
        );
    }

    #[test]
    fn offset_increment_gives_each_worker_its_own_region() {
        let spans = [(1u64 << 20, 64u64 << 20)];
        let per = PerWorker {
            increment: 8 << 20,
            range: vec![Some(4 << 20)],
        };
        let starts: Vec<(u64, u64)> = assign(3, 1)
            .iter()
            .map(|mine| {
                let r = &worker_regions(mine, &spans, 0, &per)[0];
                (r.start >> 20, r.len >> 20)
            })
            .collect();
        assert_eq!(starts, vec![(1, 4), (9, 4), (17, 4)]);
        // Without a range, each runs to the end of the target's region.
        let per = PerWorker {
            increment: 8 << 20,
            range: vec![None],
        };
        let r = &worker_regions(&assign(3, 1)[2], &spans, 0, &per)[0];
        assert_eq!((r.start >> 20, r.len >> 20), (17, 48));
    }

    #[test]
    fn budget_split_sums() {
        let total: u64 = (0..7).map(|w| split(Some(100), 7, w).unwrap()).sum();
        assert_eq!(total, 100);
    }
}
