//! The filesets before and after a run (issue 16 audit): one spec is one
//! tree whatever workload lays it out, progress reaches the observer,
//! a run that stops before its workload reports the files that are there,
//! and a read-only anchor takes a workload that only reads.

use super::tests::{entries_set, go, mix, workload};
use crate::RunError;
use iolab_core::{FilesetProgress, Observer};
use iolab_raw::{FilesetRaw, Op};
use iolab_spec::fileset::{FileSize, Format, Shape};
use iolab_spec::{RunSpec, WorkloadSpec};
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

fn set_of(r: &iolab_raw::WorkloadRaw) -> FilesetRaw {
    r.fs.as_ref().unwrap().filesets[0].clone()
}

/// 40 files of gamma sizes (so the seed matters), read for 0.1 s.
fn gamma_reads(anchor: &Path, seed: u64, layout_seed: Option<u64>, format: Format) -> WorkloadSpec {
    let mut set = entries_set(anchor, 40, 100, 0, 100.0);
    if let Shape::Entries(e) = &mut set.spec.shape {
        e.size = FileSize::Gamma {
            mean: 8 << 10,
            shape: 1.5,
        };
    }
    set.format = format;
    let mut w = workload(set, mix(&[(Op::Read, 1)]), 0.1);
    w.seed = seed;
    w.fs.as_mut().unwrap().layout_seed = layout_seed;
    w
}

/// Workloads of one job have their own seeds (base + index) and one
/// layout seed: the second lays out the tree the first made, so
/// `format=restart` rewrites nothing; a layout from another seed is
/// another tree (restart resizes it, no refuses it).
#[test]
fn one_spec_and_base_seed_is_one_tree_whatever_the_workload_seed() {
    let d = tempfile::tempdir().unwrap();
    let a = d.path().join("a");
    let first = go(gamma_reads(&a, 11, Some(7), Format::Restart)).unwrap();
    assert_eq!(set_of(&first).files_made, 40);
    let second = go(gamma_reads(&a, 12, Some(7), Format::Restart)).unwrap();
    let s = set_of(&second);
    assert_eq!((s.files_resized, s.bytes_written), (0, 0), "{s:?}");
    let e = go(gamma_reads(&a, 12, None, Format::No)).unwrap_err();
    assert!(
        matches!(&e, RunError::Setup(m) if m.contains("--format restart") && !m.contains('\n')),
        "{e}"
    );
    let other = go(gamma_reads(&a, 12, None, Format::Restart)).unwrap();
    assert!(set_of(&other).files_resized > 0);
}

#[derive(Default)]
struct Seen(Vec<FilesetProgress>);

impl Observer for Seen {
    fn fileset_progress(&mut self, _anchor: &str, p: &FilesetProgress) {
        self.0.push(*p);
    }
}

#[test]
fn creation_progress_reaches_the_observer_and_ends_finished() {
    let d = tempfile::tempdir().unwrap();
    let w = workload(
        entries_set(&d.path().join("a"), 300, 100, 4096, 100.0),
        mix(&[(Op::Stat, 1)]),
        0.1,
    );
    let mut seen = Seen::default();
    let r = crate::run(
        &RunSpec::single(w),
        &mut seen,
        Arc::new(AtomicBool::new(false)),
        Arc::new(iolab_core::EventLog::new()),
    )
    .unwrap();
    let last = *seen.0.last().unwrap();
    assert!(last.finished && seen.0[..seen.0.len() - 1].iter().all(|p| !p.finished));
    assert_eq!((last.files_done, last.files_total), (300, 300));
    assert_eq!(
        (last.bytes_done, last.bytes_total),
        (300 * 4096, 300 * 4096)
    );
    // Each report's time and counts move forward, never back.
    assert!(
        seen.0.windows(2).all(|p| p[1].elapsed_s >= p[0].elapsed_s
            && p[1].files_done >= p[0].files_done
            && p[1].bytes_done >= p[0].bytes_done),
        "{:?}",
        seen.0
    );
    let s = &r.workloads[0].fs.as_ref().unwrap().filesets[0];
    assert!(
        s.create_secs > 0.0 && last.elapsed_s > 0.0,
        "{last:?} {s:?}"
    );
    // Nothing to make: the check alone, no 0.1 s tick.
    let w = workload(
        entries_set(&d.path().join("a"), 300, 100, 4096, 100.0),
        mix(&[(Op::Stat, 1)]),
        0.1,
    );
    let s = set_of(&go(w).unwrap());
    assert_eq!((s.files_made, s.bytes_written), (0, 0));
    assert!(s.create_secs < 0.09, "{s:?}");
}

/// A layout name that is not a regular file stops creation; the summary
/// counts the files that are there, not 0.
#[test]
fn a_run_stopped_before_its_workload_counts_the_files_there() {
    let d = tempfile::tempdir().unwrap();
    let a = d.path().join("a");
    let w = || {
        workload(
            entries_set(&a, 20, 100, 512, 100.0),
            mix(&[(Op::Stat, 1)]),
            0.1,
        )
    };
    go(w()).unwrap();
    std::fs::remove_file(a.join("f3")).unwrap();
    std::fs::create_dir(a.join("f3")).unwrap();
    let r = go(w()).unwrap();
    assert!(r.incomplete_reason.as_deref().unwrap_or("").contains("f3"));
    let s = set_of(&r);
    assert_eq!(s.files_at_end, Some(19), "{s:?}");
    assert_eq!(s.bytes_prealloc, 20 * 512);
}

/// A marker already right is not written again: a workload that only
/// reads runs on a read-only mount, one that writes is refused before any
/// I/O with one line.
#[test]
fn a_read_only_anchor_takes_reads_and_refuses_writes() {
    iolab_testutil::require_root!();
    let fs = iolab_testutil::TmpfsMount::new("4m").unwrap();
    let a = fs.path().join("a");
    let w = |op| workload(entries_set(&a, 20, 100, 4096, 100.0), mix(&[(op, 1)]), 0.1);
    go(w(Op::Read)).unwrap();
    let st = std::process::Command::new("mount")
        .args(["-o", "remount,ro"])
        .arg(fs.path())
        .status()
        .unwrap();
    assert!(st.success());
    for op in [Op::Read, Op::Stat] {
        let r = go(w(op)).unwrap();
        assert!(r.incomplete_reason.is_none(), "{:?}", r.incomplete_reason);
        assert_eq!(r.errors_total, 0);
    }
    let e = go(w(Op::Write)).unwrap_err();
    assert!(
        matches!(&e, RunError::Setup(m) if m.contains("read-only") && m.contains("write") && !m.contains('\n')),
        "{e}"
    );
}
