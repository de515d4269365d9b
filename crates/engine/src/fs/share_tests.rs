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
        !r.notes.iter().any(|n| n.contains("started no operation")),
        "{:?}",
        r.notes
    );
}

/// Operations per second of each thread where a test paces its threads:
/// they sleep between operations, so the scheduler of a loaded machine
/// runs every one of them, while each still holds its file most of the
/// time (an open and its 20 transfers take some 20 ms). (Counts per
/// thread depend on that scheduler: the tests check what the claims
/// decide, skipped starts and threads that never got a file.)
const PACE: f64 = 1000.0;

/// oltp's shape: writers and many more readers of a few files, random
/// 2k transfers, 20 per open (oltp's 100, shorter), `rate` per thread.
fn oltp_like(writers: u32, readers: u32, rate: Option<f64>) -> FsWork {
    let paced = |n: u32, name: &str, op: Op| Flow {
        rate_ops: rate.map(|r| r * f64::from(n)),
        ..flow(
            name,
            n,
            vec![step(Op::Open), rand(op, 2048, 20), step(Op::Close)],
        )
    };
    FsWork::Flows(vec![
        paced(writers, "dbwr", Op::Write),
        paced(readers, "shadow", Op::Read),
    ])
}

#[test]
fn many_threads_share_a_few_files_without_skipped_starts() {
    for (qd, rate) in [(1, Some(PACE)), (2, Some(PACE)), (2, None)] {
        let d = tempfile::tempdir().unwrap();
        // 4 files (2 leaves of 2) for 28 threads.
        let set = fileset(&d.path().join("a"), 2, "256k");
        let mut w = workload(set, oltp_like(4, 24, rate), 0.5);
        w.qd = qd;
        let r = go(w).unwrap();
        let what = format!("qd {qd}, rate {rate:?}");
        assert!(r.complete, "{what}: {:?}", r.incomplete_reason);
        assert_eq!(r.errors_total, 0, "{what}: {:?}", r.errors.first());
        let total = r.ops.total_ops();
        let (writes, reads) = (ops(&r, Op::Write), ops(&r, Op::Read));
        assert!(writes > 0 && reads > 0, "{what}: {writes} {reads}");
        // Held alone, 28 threads on 4 files skipped most starts (2 of 3),
        // and some threads got none.
        let skip = skipped(&r);
        assert!(skip * 100 <= total, "{what}: {skip} skipped of {total}");
        no_idle_threads(&r);
        no_hole(d.path(), &what);
    }
}

/// Writers at a file's end together leave no hole: the size grows only
/// once a transfer's bytes are there (the buffers hold random bytes, so
/// a block of zeros past the fileset's size is a hole).
fn no_hole(dir: &std::path::Path, what: &str) {
    for i in 0..2 {
        let data = std::fs::read(dir.join(format!("a/d1/f{i}"))).unwrap();
        let len = data.len();
        assert!(len >= 256 << 10 && len.is_multiple_of(2048), "{len}");
        let hole = data[256 << 10..]
            .chunks(2048)
            .position(|b| b.iter().all(|&x| x == 0));
        assert_eq!(hole, None, "{what}: a hole in f{i} of {len} bytes");
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
        // Paced (2 ms a pass), so every thread runs on a loaded machine.
        Flow {
            rate_ops: Some(24.0 * 2.0 * PACE),
            ..flow(
                "readers",
                24,
                vec![
                    step(Op::Open),
                    rand(Op::Read, 4096, 10),
                    step(Op::Close),
                    step(Op::Stat),
                ],
            )
        },
    ]);
    let r = go(workload(fileset(&anchor, 2, "32k"), work, 1.0)).unwrap();
    assert!(r.complete, "{:?}", r.incomplete_reason);
    let fs = r.fs.as_ref().unwrap();
    // Neither a delete nor a reader's open or stat found a file gone.
    assert!(fs.op_errors.is_empty(), "{:?}", fs.op_errors);
    assert_eq!(r.errors_total, 0, "{:?}", r.errors.first());
    // The exclusive flow got its files in turn, beside 24 readers (some
    // 1,000 to 3,000 deletes a second here, fewer on a loaded machine),
    // and no thread found every start refused.
    assert!(ops(&r, Op::Delete) > 0, "{} deletes", ops(&r, Op::Delete));
    assert!(ops(&r, Op::Create) > 0 && ops(&r, Op::Read) > 0);
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
    let mut w = workload(
        fileset(&d.path().join("a"), 2, "64k"),
        oltp_like(2, 8, None),
        0.5,
    );
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
