//! Issue 16, "How it is checked": each filebench personality, made small
//! (few files, small sizes, few threads), runs for a second on ext4 and
//! on xfs (loop devices of the test's own) and its per-operation counts
//! follow its flows: two operations whose counts the flows tie together
//! (the same steps per pass, up to a factor) differ by no more than the
//! passes the threads in flight may be into.

mod common;
mod fs_support;

use common::*;
use fs_support::*;
use serde_json::Value;
use std::collections::BTreeMap;

/// Per operation, per flow: the times it runs in one pass (iterations
/// counted); and each flow's threads. Read from the result document's
/// spec, so the check follows what ran, whatever the personality's table.
fn flow_table(doc: &Value) -> (BTreeMap<String, Vec<u64>>, Vec<u64>) {
    let flows = ptr(wl(doc), "spec.fs.work.flows")
        .as_array()
        .expect("a personality runs flows");
    let mut per_op: BTreeMap<String, Vec<u64>> = BTreeMap::new();
    let threads: Vec<u64> = flows
        .iter()
        .map(|f| f["threads"].as_u64().unwrap())
        .collect();
    for (i, f) in flows.iter().enumerate() {
        for s in f["steps"].as_array().unwrap() {
            let op = s["op"].as_str().unwrap().to_string();
            let iters = s["iters"].as_u64().unwrap_or(1);
            per_op.entry(op).or_insert_with(|| vec![0; flows.len()])[i] += iters;
        }
    }
    (per_op, threads)
}

/// `a` is `k` times `b` in every flow (`None`: not proportional).
fn factor(a: &[u64], b: &[u64]) -> Option<f64> {
    let k = a
        .iter()
        .zip(b)
        .find(|(_, &y)| y > 0)
        .map(|(&x, &y)| x as f64 / y as f64)?;
    a.iter()
        .zip(b)
        .all(|(&x, &y)| (x as f64 - k * y as f64).abs() < 1e-9)
        .then_some(k)
}

fn check_flow(name: &str, kind: &str, doc: &Value) {
    let (table, threads) = flow_table(doc);
    let counts: BTreeMap<String, u64> = all_ops(doc).into_iter().collect();
    let got = |op: &str| counts.get(op).copied().unwrap_or(0);
    let mut pairs = 0;
    for (a, ma) in &table {
        assert!(
            got(a) > 0 || ma.iter().zip(&threads).all(|(m, _)| *m == 0),
            "{kind} {name}: {a} never ran: {counts:?}"
        );
        for (b, mb) in &table {
            let Some(k) = factor(ma, mb).filter(|_| a < b) else {
                continue;
            };
            // Each thread is at most one pass ahead of another step.
            let slack: f64 = threads
                .iter()
                .zip(ma.iter().zip(mb))
                .map(|(&t, (&x, &y))| t as f64 * (x as f64 + k * y as f64))
                .sum();
            let d = (got(a) as f64 - k * got(b) as f64).abs();
            assert!(
                d <= slack,
                "{kind} {name}: {a} = {} and {b} = {} are not {k} : 1 within {slack} (the passes in flight): {counts:?}",
                got(a),
                got(b)
            );
            pairs += 1;
        }
    }
    assert!(pairs > 0, "{kind} {name}: no operations tied by the flows");
    // Only the flows' operations ran.
    for (op, n) in &counts {
        assert!(
            *n == 0 || table.contains_key(op),
            "{kind} {name}: {op} ran {n} times, not in the flows"
        );
    }
}

fn personality(kind: &str, name: &str, extra: &[&str]) {
    let Some(fs) = mount(kind) else { return };
    let out_dir = scratch();
    let dir = fs.path().join(name);
    // The personality's filesets go to DIR/<fileset>; DIR must exist.
    std::fs::create_dir(&dir).unwrap();
    let mut args = vec!["--personality", name, "--dir", s(&dir), "--duration", "1s"];
    args.extend_from_slice(extra);
    let (o, doc) = run_json(&args, out_dir.path());
    assert_eq!(o.status.code(), Some(0), "{kind} {name}: {}", stderr(&o));
    let measured = f(wl(&doc), "measured_s");
    assert!(
        (0.9..3.0).contains(&measured),
        "{kind} {name}: measured {measured} s"
    );
    check_flow(name, kind, &doc);
    eprintln!("{kind} {name}: {:?}", all_ops(&doc));
}

fn fileserver(kind: &str) {
    personality(
        kind,
        "fileserver",
        &["--files", "50", "--file-size", "16k", "--jobs", "4"],
    );
}
fn varmail(kind: &str) {
    personality(
        kind,
        "varmail",
        &["--files", "50", "--file-size", "16k", "--jobs", "4"],
    );
}
fn webserver(kind: &str) {
    personality(
        kind,
        "webserver",
        &["--files", "50", "--file-size", "16k", "--jobs", "4"],
    );
}
fn webproxy(kind: &str) {
    personality(
        kind,
        "webproxy",
        &["--files", "50", "--file-size", "16k", "--jobs", "4"],
    );
}
fn videoserver(kind: &str) {
    personality(
        kind,
        "videoserver",
        &["--files", "4", "--file-size", "512k", "--jobs", "2"],
    );
}
fn oltp(kind: &str) {
    // filebench's 10 data files for the 10 database writers and 16
    // shadows: the threads share them (docs/filesystem.md, "Threads on
    // one file").
    personality(kind, "oltp", &["--file-size", "1m", "--jobs", "16"]);
}

/// oltp at filebench's sizes (10 data files of 10 MiB, 10 database
/// writers, 200 shadow readers, a log writer): in two seconds every flow
/// moves data, as in filebench, where the threads share the files.
fn oltp_defaults(kind: &str) {
    let Some(fs) = mount(kind) else { return };
    let out_dir = scratch();
    let dir = fs.path().join("oltp");
    std::fs::create_dir(&dir).unwrap();
    let a = [
        "--personality",
        "oltp",
        "--dir",
        s(&dir),
        // Two seconds: lgwr is one thread whose 256 KiB O_DSYNC writes
        // each wait for a flush of the loop device's backing file, which
        // on CI's busy disk took the whole of one second once.
        "--duration",
        "2s",
    ];
    let (o, doc) = run_json(&a, out_dir.path());
    assert_eq!(o.status.code(), Some(0), "{kind}: {}", stderr(&o));
    let (r, w) = (ops(&doc, "read"), ops(&doc, "write"));
    eprintln!(
        "{kind} oltp defaults: {:?} {}",
        all_ops(&doc),
        wl(&doc)["notes"]
    );
    // The shadows read; lgwr writes 256 KiB at a time and dbwr 2 KiB
    // (both O_DSYNC, so few in a second on a busy 2-core machine): the
    // write bytes lie strictly between all-dbwr and all-lgwr only when
    // both writer flows wrote.
    let wb = op_u(&doc, "write", "bytes");
    assert!(r >= 100, "{kind}: reads {r}: the shadow flow starved");
    assert!(
        w >= 2 && wb > w * 2048 && wb < w * 256 * 1024,
        "{kind}: {w} writes of {wb} bytes: a writer flow starved"
    );
}

on_both!(oltp_at_its_defaults_runs_every_flow, super::oltp_defaults);
on_both!(fileserver_follows_its_flow, super::fileserver);
on_both!(varmail_follows_its_flow, super::varmail);
on_both!(webserver_follows_its_flow, super::webserver);
on_both!(webproxy_follows_its_flow, super::webproxy);
on_both!(videoserver_follows_its_flows, super::videoserver);
on_both!(oltp_follows_its_flows, super::oltp);
