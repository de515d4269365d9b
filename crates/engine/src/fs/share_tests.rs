//! Threads sharing files (`table.rs`'s claims) end to end on small
//! filesets in temporary directories: many threads on a few files make
//! progress without skipped starts, an exclusive flow beside shared
//! readers never trips over its own workload, `--verify` keeps writers
//! alone, and the claim each step takes is decided when it is planned.

use super::table::Claim;
use super::tests::{fileset, go, ops, step, walk, workload};
use iolab_raw::{Op, WorkloadRaw};
use iolab_spec::fs::{Flow, FsWork, MixEntry, Step};

fn flow(name: &str, threads: u32, steps: Vec<Step>) -> Flow {
    Flow {
        name: name.into(),
        threads,
        steps,
        rate_ops: None,
        think_us: 0,
    }
}

fn rand(op: Op, xfer: u64, iters: u32) -> Step {
    Step {
        random: true,
        xfer,
        iters,
        ..step(op)
    }
}

fn whole(op: Op) -> Step {
    Step {
        whole: true,
        ..step(op)
    }
}

/// Starts that found no file free, from the workload's note (none: 0).
fn skipped(r: &WorkloadRaw) -> u64 {
    r.notes
        .iter()
        .find(|n| n.contains("were skipped"))
        .and_then(|n| n.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

fn no_idle_threads(r: &WorkloadRaw) {
    assert!(
        !r.notes.iter().any(|n| n.contains("did no operation")),
        "{:?}",
        r.notes
    );
}

/// oltp's shape: writers and many more readers of a few files, random
/// 2k transfers, 100 per open.
fn oltp_like(writers: u32, readers: u32) -> FsWork {
    FsWork::Flows(vec![
        flow(
            "dbwr",
            writers,
            vec![step(Op::Open), rand(Op::Write, 2048, 20), step(Op::Close)],
        ),
        flow(
            "shadow",
            readers,
            vec![step(Op::Open), rand(Op::Read, 2048, 20), step(Op::Close)],
        ),
    ])
}

#[test]
fn many_threads_share_a_few_files_without_skipped_starts() {
    for qd in [1, 2] {
        let d = tempfile::tempdir().unwrap();
        // 4 files (2 leaves of 2) for 28 threads.
        let mut w = workload(
            fileset(&d.path().join("a"), 2, "256k"),
            oltp_like(4, 24),
            0.5,
        );
        w.qd = qd;
        let r = go(w).unwrap();
        assert!(r.complete, "qd {qd}: {:?}", r.incomplete_reason);
        assert_eq!(r.errors_total, 0, "qd {qd}: {:?}", r.errors.first());
        let total = r.ops.total_ops();
        assert!(
            ops(&r, Op::Write) > 0 && ops(&r, Op::Read) > 1000,
            "qd {qd}: {total}"
        );
        // Held alone, 28 threads on 4 files skipped most starts.
        let skip = skipped(&r);
        assert!(
            skip * 100 <= total,
            "qd {qd}: {skip} skipped for {total} operations"
        );
        no_idle_threads(&r);
        // Writers at a file's end together leave no hole: the size grows
        // only once a transfer's bytes are there (the buffers hold random
        // bytes, so a block of zeros past the fileset's size is a hole).
        for i in 0..2 {
            let data = std::fs::read(d.path().join(format!("a/d1/f{i}"))).unwrap();
            assert!(
                data.len() >= 256 << 10 && data.len().is_multiple_of(2048),
                "{}",
                data.len()
            );
            let hole = data[256 << 10..]
                .chunks(2048)
                .position(|b| b.iter().all(|&x| x == 0));
            assert_eq!(
                hole,
                None,
                "qd {qd}: a hole in f{i} of {} bytes",
                data.len()
            );
        }
    }
}

#[test]
fn an_exclusive_flow_beside_shared_readers_never_meets_enoent() {
    let d = tempfile::tempdir().unwrap();
    let anchor = d.path().join("a");
    let work = FsWork::Flows(vec![
        flow(
            "replace",
            2,
            vec![
                step(Op::Delete),
                step(Op::Create),
                whole(Op::Write),
                step(Op::Close),
            ],
        ),
        flow(
            "readers",
            24,
            vec![
                step(Op::Open),
                rand(Op::Read, 4096, 10),
                step(Op::Close),
                step(Op::Stat),
            ],
        ),
    ]);
    let r = go(workload(fileset(&anchor, 2, "32k"), work, 0.5)).unwrap();
    assert!(r.complete, "{:?}", r.incomplete_reason);
    let fs = r.fs.as_ref().unwrap();
    // Neither a delete nor a reader's open or stat found a file gone.
    assert!(fs.op_errors.is_empty(), "{:?}", fs.op_errors);
    assert_eq!(r.errors_total, 0, "{:?}", r.errors.first());
    // The exclusive flow got its files in turn, beside 24 readers: each
    // delete waits for the readers of the file it marked to leave (some
    // 100 to 900 deletes in 0.5 s here, fewer on a loaded machine).
    assert!(ops(&r, Op::Delete) >= 20, "{} deletes", ops(&r, Op::Delete));
    assert!(ops(&r, Op::Create) >= 20 && ops(&r, Op::Read) > 1000);
    no_idle_threads(&r);
    let c = fs.counters;
    assert_eq!(
        walk(&anchor).0,
        4 + c.files_created - c.files_deleted,
        "{c:?}"
    );
}

#[test]
fn writers_hold_their_files_alone_under_verify_and_nothing_is_found() {
    let d = tempfile::tempdir().unwrap();
    let mut w = workload(fileset(&d.path().join("a"), 2, "64k"), oltp_like(2, 8), 0.5);
    w.verify = true;
    let r = go(w).unwrap();
    assert!(r.complete, "{:?}", r.incomplete_reason);
    assert_eq!(r.errors_total, 0, "{:?}", r.errors.first());
    let v = r.verify.as_ref().expect("a verify record");
    assert_eq!(v.w.totals.findings_total, 0, "{:?}", v.w.totals.findings);
    assert!(v.w.totals.blocks_checked > 0);
    assert!(ops(&r, Op::Write) > 0 && ops(&r, Op::Read) > 0);
}

/// The claim of each step of the first plan of `work`'s first flow.
fn claims(work: FsWork, verify: bool) -> Vec<Claim> {
    let d = std::path::Path::new("/nonexistent");
    let mut w = workload(fileset(d, 1, "4k"), work, 1.0);
    w.verify = verify;
    let plans = super::setup::plans(&w, None);
    plans[0].acts.iter().map(|a| a.claim).collect()
}

fn one(steps: Vec<Step>) -> FsWork {
    FsWork::Flows(vec![flow("f", 1, steps)])
}

#[test]
fn each_step_is_given_its_claim_when_planned() {
    use Claim::*;
    let read = || rand(Op::Read, 2048, 1);
    let write = || rand(Op::Write, 2048, 1);
    let flow = one(vec![
        step(Op::Open),
        read(),
        write(),
        step(Op::Fsync),
        step(Op::Close),
    ]);
    assert_eq!(claims(flow.clone(), false)[0], Data);
    // Under --verify a writing open holds its file alone.
    assert_eq!(claims(flow, true)[0], Excl);
    let reads = one(vec![step(Op::Open), whole(Op::Read), step(Op::Close)]);
    assert_eq!(claims(reads, true)[0], Data);
    let appends = one(vec![
        step(Op::Open),
        step(Op::Append),
        step(Op::Fsync),
        step(Op::Close),
    ]);
    assert_eq!(claims(appends, false)[0], Append);
    // What changes a file's size or attributes holds it alone.
    for s in [whole(Op::Write), step(Op::Setattr)] {
        assert_eq!(
            claims(one(vec![step(Op::Open), s, step(Op::Close)]), false)[0],
            Excl
        );
    }
    // A pass wraps around: the open's file is written at the start.
    let wraps = one(vec![write(), step(Op::Close), step(Op::Open)]);
    let p = super::setup::plans(
        &workload(
            fileset(std::path::Path::new("/x"), 1, "4k"),
            wraps.clone(),
            1.0,
        ),
        None,
    );
    assert!(p[0].acts[2].open_write);
    assert_eq!(claims(wraps, false)[2], Data);
    let own = one(vec![
        step(Op::Stat),
        step(Op::Delete),
        step(Op::Create),
        step(Op::Rename),
    ]);
    assert_eq!(claims(own, false), vec![Data, Excl, Excl, Excl]);
    // A mix: each entry on its own.
    let mix = FsWork::Mix(
        [
            read(),
            write(),
            whole(Op::Write),
            step(Op::Append),
            step(Op::Mkdir),
        ]
        .into_iter()
        .map(|step| MixEntry { step, weight: 1 })
        .collect(),
    );
    assert_eq!(
        claims(mix.clone(), false),
        vec![Data, Data, Excl, Append, Excl]
    );
    assert_eq!(claims(mix, true), vec![Data, Excl, Excl, Append, Excl]);
}
