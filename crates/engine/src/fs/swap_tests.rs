//! Data safety end to end: a leaf directory of a fileset swapped for a
//! symbolic link to an outside directory holding files (and side
//! directories) with the same names, before the run's clock starts and
//! again in the middle of the run, under a mix of every operation that
//! takes a path. The outside files keep their content, nothing is added
//! to or removed from the outside directories, the failures are counted
//! (ELOOP, ENOTDIR, EXDEV) and the run ends normally; on the synchronous
//! backend (qd 1, what `IOLAB_NO_IO_URING=1` also gives; the variable is
//! not set here, tests share the process) and on io_uring (qd 8).

use crate::run;
use iolab_core::EventLog;
use iolab_raw::Op;
use iolab_spec::fileset::{FilesetSpec, Format, Shape, TreeShape};
use iolab_spec::fs::{FileSelect, FsFileset, FsSpec, FsWork, MixEntry, Step};
use iolab_spec::{EngineKind, OnError, RunSpec, WorkloadSpec};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

const PER_LEAF: u64 = 12;

fn workload(anchor: &Path, ops: &[(Op, u32)], qd: u32, engine: EngineKind) -> WorkloadSpec {
    let mut w = WorkloadSpec::example("fs", "unused", "read");
    w.targets.clear();
    w.direct = false;
    w.duration_s = Some(0.6);
    w.interval_s = 0.1;
    w.bs[0].bytes = 4096;
    w.jobs = 2;
    w.qd = qd;
    w.engine = engine;
    w.on_error = OnError::Continue;
    let set = FsFileset {
        name: "fs".into(),
        spec: FilesetSpec {
            anchor: anchor.to_path_buf(),
            shape: Shape::Tree(TreeShape {
                depth: 2,
                width: 2,
                files: PER_LEAF,
                sizes: "4k".into(),
            }),
        },
        format: Format::No,
        cleanup: false,
        make_parent: false,
    };
    let work = ops
        .iter()
        .map(|&(op, weight)| MixEntry {
            step: Step::new(op),
            weight,
        })
        .collect();
    w.fs = Some(FsSpec {
        filesets: vec![set],
        work: FsWork::Mix(work),
        select: FileSelect::Uniform,
        personality: None,
        layout_seed: None,
    });
    w
}

/// An outside directory with the names a leaf holds: files `f0..f5`
/// (the rest missing, so creates and renames onto them would add files
/// there) and empty side directories `f0.d..f2.d`.
fn outside(dir: &Path) -> BTreeMap<PathBuf, Option<String>> {
    std::fs::create_dir_all(dir).unwrap();
    for j in 0..6 {
        let body = format!("user data {j} in {}", dir.display()).into_bytes();
        std::fs::write(dir.join(format!("f{j}")), body).unwrap();
    }
    for j in 0..3 {
        std::fs::create_dir(dir.join(format!("f{j}.d"))).unwrap();
    }
    snapshot(dir)
}

/// Every name in `dir` and a regular file's content (short: a digest of
/// what is longer, so a failure prints a readable difference).
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Option<String>> {
    use std::hash::{Hash, Hasher};
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let p = e.unwrap().path();
            let body = p.is_file().then(|| {
                let b = std::fs::read(&p).unwrap();
                if b.len() <= 100 {
                    return String::from_utf8_lossy(&b).into_owned();
                }
                let mut h = std::collections::hash_map::DefaultHasher::new();
                b.hash(&mut h);
                format!("{} bytes, digest {:x}", b.len(), h.finish())
            });
            (p, body)
        })
        .collect()
}

/// `anchor/rel` moved away (outside the anchor, to `away`) and replaced
/// by a symbolic link to `target`.
fn swap(anchor: &Path, rel: &str, away: &Path, target: &Path) {
    std::fs::rename(anchor.join(rel), away).unwrap();
    std::os::unix::fs::symlink(target, anchor.join(rel)).unwrap();
}

/// Swaps `d1/d0` when the clock starts, and `d0/d1` 200 ms later (the
/// threads may hold a descriptor of it by then); with `middle`, the
/// directories above them, `d1` and then `d0`.
struct Swapper {
    anchor: PathBuf,
    root: PathBuf,
    middle: bool,
    later: Option<std::thread::JoinHandle<()>>,
}

impl iolab_core::Observer for Swapper {
    fn clock_started(&mut self) {
        let r = &self.root;
        let (first, second) = if self.middle {
            ("d1", "d0")
        } else {
            ("d1/d0", "d0/d1")
        };
        swap(&self.anchor, first, &r.join("moved1"), &r.join("out1"));
        let (anchor, root) = (self.anchor.clone(), self.root.clone());
        self.later = Some(std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(200));
            swap(&anchor, second, &root.join("moved2"), &root.join("out2"));
        }));
    }
}

/// Errors counted by errno over all operations.
fn errnos(r: &crate::WorkloadRaw) -> BTreeMap<i32, u64> {
    let mut m = BTreeMap::new();
    for v in r.fs.as_ref().unwrap().op_errors.values() {
        for &(e, n) in v {
            *m.entry(e).or_default() += n;
        }
    }
    m
}

fn swapped_leaves_never_reach_outside(qd: u32, engine: EngineKind, want_engine: &str) {
    swapped_dirs_never_reach_outside(qd, engine, want_engine, false);
}

/// The outside directories a swap points at: with `middle`, each holds
/// `d0` and `d1` with a leaf's names.
fn outsides(root: &Path, middle: bool) -> Vec<(PathBuf, BTreeMap<PathBuf, Option<String>>)> {
    let mut dirs = vec![root.join("out1"), root.join("out2")];
    if middle {
        dirs = dirs
            .iter()
            .flat_map(|d| [d.join("d0"), d.join("d1")])
            .collect();
    }
    dirs.into_iter()
        .map(|d| {
            let before = outside(&d);
            (d, before)
        })
        .collect()
}

fn swapped_dirs_never_reach_outside(qd: u32, engine: EngineKind, want_engine: &str, middle: bool) {
    let d = tempfile::tempdir().unwrap();
    let root = d.path().to_path_buf();
    let anchor = root.join("a");
    let every = [
        (Op::Delete, 2),
        (Op::Stat, 2),
        (Op::Access, 1),
        (Op::Rename, 2),
        (Op::Create, 2),
        (Op::Open, 1),
        (Op::Write, 2),
        (Op::Read, 1),
        (Op::Mkdir, 1),
        (Op::Rmdir, 1),
    ];
    // The fileset, then half of d1/d0's files gone (creates and rename
    // targets there), noticed by the next run's set-up.
    let mut w0 = workload(&anchor, &[(Op::Stat, 1)], 1, EngineKind::Psync);
    w0.duration_s = Some(0.05);
    let run0 = |w: WorkloadSpec, obs: &mut dyn iolab_core::Observer| {
        let stop = Arc::new(AtomicBool::new(false));
        run(&RunSpec::single(w), obs, stop, Arc::new(EventLog::new())).unwrap()
    };
    run0(w0, &mut iolab_core::Quiet);
    for j in PER_LEAF / 2..PER_LEAF {
        std::fs::remove_file(anchor.join(format!("d1/d0/f{j}"))).unwrap();
    }
    let before = outsides(&root, middle);
    let mut obs = Swapper {
        anchor: anchor.clone(),
        root: root.clone(),
        middle,
        later: None,
    };
    let res = run0(workload(&anchor, &every, qd, engine), &mut obs);
    obs.later.take().unwrap().join().unwrap();
    let r = &res.workloads[0];
    assert_eq!(r.effective.engine, want_engine);
    for (d, b) in &before {
        assert_eq!(&snapshot(d), b, "outside dir {} changed", d.display());
    }
    assert!(r.complete, "{:?}", r.incomplete_reason);
    let errs = errnos(r);
    let refused: u64 = [libc::ELOOP, libc::ENOTDIR, libc::EXDEV]
        .iter()
        .map(|e| errs.get(e).copied().unwrap_or(0))
        .sum();
    assert!(refused > 0, "no refusal counted: {errs:?}");
    assert!(r.ops.total_ops() > 50, "{}", r.ops.total_ops());
    assert!(r.errors.iter().any(|e| e.target.contains("/d1/d0/")));
}

#[test]
fn a_leaf_swapped_for_a_symlink_is_never_followed_sync() {
    swapped_leaves_never_reach_outside(1, EngineKind::IoUring, "sync");
}

#[test]
fn a_leaf_swapped_for_a_symlink_is_never_followed_io_uring() {
    iolab_testutil::require!(
        crate::runner::io_uring_available(),
        "io_uring is not available to this process"
    );
    swapped_leaves_never_reach_outside(8, EngineKind::IoUring, "io_uring");
}

/// A directory above the leaves swapped (`d1`, then `d0`): a path
/// `d1/d0/f3` must not go through it either. With openat2 refused
/// (`strace -f -e inject=openat2:error=ENOSYS` on this test), the
/// fallback's walk one component at a time is what keeps it inside.
#[test]
fn a_middle_directory_swapped_for_a_symlink_is_never_followed_sync() {
    swapped_dirs_never_reach_outside(1, EngineKind::IoUring, "sync", true);
}
