//! A file-system workload's results through the binary, on a real run (a
//! weighted mix in a temporary directory): the per-operation table, IO
//! summary line and counters on the terminal; `operations`, `fileset` and
//! `io_summary` in the document, agreeing with each other; the interval
//! lines of every operation; `iolab compare` per operation and
//! `iolab report` with the per-operation charts.

mod common;
use common::*;
use serde_json::Value;
use std::path::Path;

const MIX: &str = "read:50,write:20,stat:15,create:10,delete:5";

/// `iolab run --dir DIR/anchor --mix MIX --ops N`, printing its lines
/// (not -q); returns stdout and the document.
fn run_mix(dir: &Path, json: &str, ops: u64) -> (String, Value) {
    let anchor = dir.join("anchor");
    std::fs::create_dir_all(&anchor).unwrap();
    let out = iolab()
        .args(["run", "--dir"])
        .arg(&anchor)
        .args(["--mix", MIX, "--files", "200", "--file-size", "8k"])
        .args(["--ops", &ops.to_string(), "--interval", "100ms", "--json"])
        .arg(dir.join(json))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let text = std::fs::read_to_string(dir.join(json)).unwrap();
    (stdout(&out), serde_json::from_str(&text).unwrap())
}

#[test]
fn an_fs_run_reports_per_operation_everywhere() {
    let dir = tempfile::tempdir().unwrap();
    let (out, doc) = run_mix(dir.path(), "a.json", 3000);
    let w = &doc["runs"][0]["workloads"][0];
    let ops = w["operations"].as_object().expect("operations");
    let names: Vec<&str> = ops.keys().map(String::as_str).collect();
    assert_eq!(names, ["create", "delete", "read", "stat", "write"], "{w}");
    let sum: u64 = ops.values().map(|o| o["ops"].as_u64().unwrap()).sum();
    let io = &w["io_summary"];
    assert_eq!(io["ops"].as_u64().unwrap(), sum, "{io}");
    // The driver skips operations that find no file in the state they
    // need (it says so in a note); the rest ran.
    assert!((2000..=3000).contains(&sum), "--ops 3000 ran {sum}");
    assert_eq!(
        w["fileset"]["files_created"], ops["create"]["ops"],
        "each create made a file"
    );
    assert_eq!(w["fileset"]["files_deleted"], ops["delete"]["ops"]);
    for (n, o) in ops {
        assert!(o["lat_us"]["p99_9"].as_f64().unwrap() > 0.0, "{n}: {o}");
        assert_eq!(o["errors"], serde_json::json!({}), "{n}");
    }
    // The terminal: the table in the mix's order, then the IO summary.
    let table: Vec<&str> = out
        .lines()
        .skip_while(|l| !l.starts_with("operation "))
        .skip(1)
        .take(5)
        .map(|l| l.split_whitespace().next().unwrap())
        .collect();
    assert_eq!(
        table,
        ["read", "write", "stat", "create", "delete"],
        "{out}"
    );
    assert!(out.contains(&format!("IO summary: {sum} ops in ")), "{out}");
    assert!(out.contains("fileset: files created "), "{out}");
    let head = out
        .lines()
        .find(|l| l.contains("ops/s") && l.contains("time"));
    assert!(head.is_some_and(|h| !h.contains("r/w")), "{out}");

    // compare: per operation; report: the charts.
    let (_, _) = run_mix(dir.path(), "b.json", 3000);
    let c = iolab()
        .arg("compare")
        .arg(dir.path().join("a.json"))
        .arg(dir.path().join("b.json"))
        .output()
        .unwrap();
    let text = stdout(&c);
    assert!(c.status.success(), "{}", stderr(&c));
    assert!(
        text.contains("ops/s by operation (higher is better)"),
        "{text}"
    );
    let name = doc["runs"][0]["workloads"][0]["name"].as_str().unwrap();
    assert!(text.contains(&format!("{name} stat ")), "{text}");
    assert!(text.contains("Fileset counters"), "{text}");
    let html = dir.path().join("a.html");
    let r = iolab()
        .arg("report")
        .arg(dir.path().join("a.json"))
        .arg("-o")
        .arg(&html)
        .output()
        .unwrap();
    assert!(r.status.success(), "{}", stderr(&r));
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains(&format!("{name}: operations per second")));
    assert!(page.contains(&format!("{name}: latency percentiles by operation")));
}
