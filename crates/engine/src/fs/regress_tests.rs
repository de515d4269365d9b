//! Regression tests of the file-system driver, one per bug, named after
//! it (issue 16's audit of a release build): mixes and flows that can
//! never find a file stop at once saying why; error records of
//! operations without an offset carry none; a file truncated by someone
//! else is one error, not one per read; under `--verify` a damaged place
//! is one finding however often it is read.

use super::tests::{fileset, go, mix, ops, step, workload};
use crate::run;
use iolab_core::{EventLog, Observer};
use iolab_raw::{ErrOp, Op, WorkloadRaw};
use iolab_spec::fs::{Flow, FsWork, Step};
use iolab_spec::RunSpec;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// Runs `w`, calling `f` on the anchor once the clock starts (after
/// iolab read back the files' state: what `f` changes, iolab does not
/// know).
fn run_with(w: iolab_spec::WorkloadSpec, anchor: &Path, f: fn(&Path)) -> WorkloadRaw {
    struct Meddler(PathBuf, fn(&Path));
    impl Observer for Meddler {
        fn clock_started(&mut self) {
            (self.1)(&self.0)
        }
    }
    let r = run(
        &RunSpec::single(w),
        &mut Meddler(anchor.to_path_buf(), f),
        Arc::new(AtomicBool::new(false)),
        Arc::new(EventLog::new()),
    )
    .unwrap();
    r.workloads.into_iter().next().unwrap()
}

fn flow(steps: &[Step]) -> FsWork {
    FsWork::Flows(vec![Flow {
        name: "f".into(),
        threads: 1,
        rate_ops: None,
        think_us: 0,
        steps: steps.to_vec(),
    }])
}

#[test]
fn a_create_or_rmdir_mix_that_can_never_find_a_file_stops_at_once_saying_why() {
    let d = tempfile::tempdir().unwrap();
    let set = fileset(&d.path().join("a"), 20, "4k");
    let whole = Step {
        whole: true,
        ..step(Op::Write)
    };
    let cases = [
        (
            mix(&[(Op::Create, 1)]),
            "create found no missing file",
            "add delete to the mix",
        ),
        (
            mix(&[(Op::Rmdir, 1)]),
            "rmdir found no directory",
            "add mkdir to the mix",
        ),
        (
            flow(&[step(Op::Create), whole, step(Op::Close)]),
            "create found no missing file",
            "--prealloc below 100 or add delete to the flow",
        ),
    ];
    for (work, what, todo) in cases {
        let r = go(workload(set.clone(), work, 5.0)).unwrap();
        let why = r.incomplete_reason.as_deref().unwrap_or("");
        assert!(why.contains(what) && why.contains(todo), "{why}");
        assert!(!r.complete);
        assert_eq!(r.ops.total_ops(), 0);
        assert!(r.measured_ns < 500_000_000, "{} ns", r.measured_ns);
    }
    // Creates with deletes beside them are a mix that works.
    let mut w = workload(set, mix(&[(Op::Create, 1), (Op::Delete, 1)]), 0.2);
    w.duration_s = None;
    w.ops = Some(200);
    let r = go(w).unwrap();
    assert!(r.complete, "{:?}", r.incomplete_reason);
    assert!(ops(&r, Op::Create) > 0);
}

#[test]
fn errors_of_operations_without_an_offset_carry_none() {
    let d = tempfile::tempdir().unwrap();
    let anchor = d.path().join("a");
    let set = fileset(&anchor, 20, "8k");
    go(workload(set.clone(), mix(&[(Op::Stat, 1)]), 0.05)).unwrap();
    // A read moves 4 KiB at 4096 at times: its offset must not leak into
    // the records of the stats and opens that fail.
    let w = workload(set, mix(&[(Op::Read, 1), (Op::Stat, 1)]), 0.3);
    let r = run_with(w, &anchor, |a| {
        for i in 0..10 {
            std::fs::remove_file(a.join(format!("d0/f{i}"))).unwrap();
        }
    });
    assert!(r.complete, "{:?}", r.incomplete_reason);
    assert!(!r.errors.is_empty());
    for e in &r.errors {
        assert_eq!(e.errno, libc::ENOENT, "{e:?}");
        assert!(matches!(e.op, ErrOp::Stat | ErrOp::Open), "{e:?}");
        assert!(!e.op.has_range());
        assert_eq!((e.offset, e.len), (0, 0), "{e:?}");
        assert!(e.target.contains("/d0/f"), "{e:?}");
    }
}

#[test]
fn a_file_truncated_during_the_run_is_one_error_not_one_per_read() {
    let d = tempfile::tempdir().unwrap();
    let anchor = d.path().join("a");
    let set = fileset(&anchor, 10, "16k");
    go(workload(set.clone(), mix(&[(Op::Stat, 1)]), 0.05)).unwrap();
    let mut w = workload(set, mix(&[(Op::Read, 3), (Op::Stat, 1)]), 0.5);
    w.qd = 2;
    let r = run_with(w, &anchor, |a| {
        let cut = |p: &str, n| {
            let f = std::fs::OpenOptions::new().write(true).open(a.join(p));
            f.unwrap().set_len(n).unwrap();
        };
        cut("d0/f3", 100);
        cut("d1/f6", 5000);
    });
    // One short transfer per file cut, at its new end; the reads go on.
    assert!(r.complete, "{:?}", r.incomplete_reason);
    assert!(
        r.errors_total <= 2 * 2,
        "{} errors: {:?}",
        r.errors_total,
        r.errors
    );
    for e in &r.errors {
        assert_eq!((e.errno, e.op), (0, ErrOp::Read), "{e:?}");
        assert!(e.len > 0, "{e:?}");
        let at_end = (e.target.ends_with("d0/f3") && e.offset >= 100)
            || (e.target.ends_with("d1/f6") && e.offset >= 5000);
        assert!(at_end, "{e:?}");
    }
    assert!(ops(&r, Op::Read) > 200, "{} reads", ops(&r, Op::Read));
}

#[test]
fn a_damaged_place_read_again_and_again_is_one_finding() {
    let d = tempfile::tempdir().unwrap();
    let anchor = d.path().join("a");
    let set = fileset(&anchor, 4, "16k");
    let mut w = workload(set, mix(&[(Op::Read, 3), (Op::Stat, 1)]), 0.5);
    w.verify = true;
    w.max_errors = 50;
    let r = run_with(w, &anchor, |a| {
        use std::os::unix::fs::FileExt;
        let f = std::fs::OpenOptions::new()
            .write(true)
            .open(a.join("d0/f1"));
        f.unwrap().write_at(b"X", 3000).unwrap();
        let f = std::fs::OpenOptions::new()
            .write(true)
            .open(a.join("d1/f2"));
        f.unwrap().set_len(10_000).unwrap();
    });
    let v = r.verify.as_ref().unwrap();
    let t = &v.w.totals;
    assert_eq!(t.by_class.get("corrupt"), Some(&1), "{:?}", t.findings);
    assert_eq!(t.by_class.get("truncated"), Some(&1), "{:?}", t.findings);
    assert_eq!(t.findings_total, 2);
    assert!(t.findings_repeated > 10, "{} repeats", t.findings_repeated);
    assert!(!v.stopped_on_max_errors);
    assert!(r.measured_ns > 400_000_000, "the run went on");
    let c = t
        .findings
        .iter()
        .find(|f| f.class.name() == "corrupt")
        .unwrap();
    assert_eq!(
        (c.offset, c.file_sector_first, c.file_sector_last),
        (2560, Some(5), Some(5))
    );
    // The file ends at 10,000: the first read to meet the end says so
    // (at its offset, or "or earlier"), with what it asked for, as the
    // one error of the file does.
    let tr = t
        .findings
        .iter()
        .find(|f| f.class.name() == "truncated")
        .unwrap();
    assert!((10_000..16_384).contains(&tr.offset), "{tr:?}");
    assert_eq!(tr.file_sector_first, Some(tr.offset / 512));
    assert!(tr.summary.contains("a read of "), "{}", tr.summary);
    assert_eq!(r.errors_total, 1, "{:?}", r.errors);
    let e = &r.errors[0];
    assert!(e.target.ends_with("d1/f2") && e.offset >= 10_000, "{e:?}");
}
