//! Issue 18, "How it is checked": the six personalities, as WML files of
//! our own (crates/jobfile/tests/filebench/personalities/NAME.f, filebench
//! 1.5's defaults), run unchanged through `iolab run NAME.f dir=DIR` for
//! a second on ext4 (a loop device of the test's own), made small with
//! filebench's own variables on the command line (`nfiles=50`, ...). Every
//! operation of every flow the plan holds must have happened (the result
//! document's `operations`), and nothing else.

mod common;
mod fs_support;

use common::*;
use fs_support::*;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::PathBuf;

fn wml(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../jobfile/tests/filebench/personalities")
        .join(format!("{name}.f"))
}

/// Each flow's operations, from the spec the result document records.
fn flow_ops(doc: &Value) -> Vec<(String, Vec<String>)> {
    ptr(wl(doc), "spec.fs.work.flows")
        .as_array()
        .expect("a WML file runs flows")
        .iter()
        .map(|f| {
            let ops = f["steps"]
                .as_array()
                .unwrap()
                .iter()
                .map(|s| s["op"].as_str().unwrap().to_string())
                .collect();
            (f["name"].as_str().unwrap().to_string(), ops)
        })
        .collect()
}

/// `iolab run NAME.f dir=MNT/NAME VARS --duration 1s` on ext4; the
/// result document, after checking every flow's operations ran.
fn run_wml(name: &str, vars: &[&str]) -> Option<Value> {
    let fs = mount("ext4")?;
    let out_dir = scratch();
    let dir = fs.path().join(name);
    let f = wml(name);
    let dir_var = format!("dir={}", dir.display());
    let mut args = vec![s(&f), dir_var.as_str()];
    args.extend_from_slice(vars);
    args.extend_from_slice(&["--duration", "1s"]);
    let (o, doc) = run_json(&args, out_dir.path());
    assert_eq!(o.status.code(), Some(0), "{name}: {}", stderr(&o));
    let counts: BTreeMap<String, u64> = all_ops(&doc).into_iter().collect();
    let flows = flow_ops(&doc);
    assert!(!flows.is_empty(), "{name}: no flows");
    for (flow, ops) in &flows {
        for op in ops {
            assert!(
                counts.get(op).copied().unwrap_or(0) > 0,
                "{name}: flow {flow}'s {op} never ran: {counts:?}"
            );
        }
    }
    for (op, n) in &counts {
        assert!(
            *n == 0 || flows.iter().any(|(_, ops)| ops.contains(op)),
            "{name}: {op} ran {n} times, in no flow"
        );
    }
    // The filesets went to DIR/NAME, which the run made.
    for set in ptr(wl(&doc), "filesets").as_array().unwrap() {
        let anchor = PathBuf::from(set["anchor"].as_str().unwrap());
        assert_eq!(anchor.parent(), Some(dir.as_path()), "{name}: {anchor:?}");
        assert!(
            anchor.join(".iolab-fileset").is_file(),
            "{name}: {anchor:?}"
        );
    }
    eprintln!("{name}: {counts:?}");
    Some(doc)
}

const SMALL: [&str; 3] = ["nfiles=50", "filesize=16k", "nthreads=4"];

#[test]
fn fileserver_wml_runs_every_flowop() {
    run_wml("fileserver", &SMALL);
}

#[test]
fn varmail_wml_runs_every_flowop() {
    run_wml("varmail", &SMALL);
}

#[test]
fn webserver_wml_runs_every_flowop() {
    run_wml("webserver", &SMALL);
}

#[test]
fn webproxy_wml_runs_every_flowop() {
    run_wml("webproxy", &["nfiles=50", "meanfilesize=16k", "nthreads=4"]);
}

#[test]
fn videoserver_wml_runs_every_flowop() {
    // Small videos, so the writer replaces one within the second and the
    // readers read several (its 10 s pause comes after the replacement).
    run_wml(
        "videoserver",
        &[
            "numactivevids=4",
            "numpassivevids=4",
            "filesize=512k",
            "nthreads=2",
        ],
    );
}

#[test]
fn oltp_wml_runs_every_flowop() {
    let Some(doc) = run_wml("oltp", &["nshadows=16", "filesize=1m", "logfilesize=1m"]) else {
        return;
    };
    // Both writer flows wrote: the bytes lie strictly between all-dbwr
    // (2 KiB writes) and all-lgwr (256 KiB).
    let (w, wb) = (ops(&doc, "write"), op_u(&doc, "write", "bytes"));
    assert!(
        w >= 2 && wb > w * 2048 && wb < w * 256 * 1024,
        "oltp: {w} writes of {wb} bytes: a writer flow starved"
    );
}

/// `--filesets`: each fileset at PATH/NAME, a missing PATH made (its
/// parent exists), the anchors marked; the steps reach both filesets.
#[test]
fn filesets_go_to_path_slash_name_and_make_a_missing_path() {
    let t = scratch();
    let (dir, other) = (t.path().join("new"), t.path().join("other"));
    let sets = format!(
        "a(files=4 size=4k dir_width=2) | b(files=1 size=4k path={})",
        other.display()
    );
    let (o, doc) = run_json(
        &[
            "--dir",
            s(&dir),
            "--filesets",
            &sets,
            "--flow",
            "open,read:whole,close,open@b,append:4k,close",
            "--duration",
            "0.3s",
        ],
        t.path(),
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    for anchor in [dir.join("a"), other.join("b")] {
        assert!(anchor.join(".iolab-fileset").is_file(), "{anchor:?}");
    }
    assert_eq!(find_counts(&dir.join("a")).0, 4);
    assert!(ops(&doc, "read") > 0 && ops(&doc, "append") > 0);
}

/// A fileset's anchor that holds someone else's file is refused before
/// anything is written, and the file stays; a PATH whose parent is
/// missing is refused; `--dry-run` makes nothing.
#[test]
fn filesets_keep_the_anchor_rules() {
    let t = scratch();
    let dir = t.path().join("d");
    std::fs::create_dir_all(dir.join("a")).unwrap();
    std::fs::write(dir.join("a/precious"), b"mine").unwrap();
    let flow = "open,read,close";
    let o = iolab()
        .args(["run", "--dir", s(&dir), "--filesets", "a(files=2 size=4k)"])
        .args(["--flow", flow, "--duration", "0.2s", "-q"])
        .output()
        .unwrap();
    assert_bad_input(&o, "is not empty and has no");
    assert_eq!(std::fs::read(dir.join("a/precious")).unwrap(), b"mine");
    assert_eq!(std::fs::read_dir(dir.join("a")).unwrap().count(), 1);

    let deep = t.path().join("no/such/dir");
    let o = iolab()
        .args(["run", "--dir", s(&deep), "--filesets", "a(files=2 size=4k)"])
        .args(["--flow", flow, "--duration", "0.2s", "-q"])
        .output()
        .unwrap();
    assert_bad_input(&o, "does not exist and neither does its parent");
    assert!(!t.path().join("no").exists());

    let fresh = t.path().join("fresh");
    let o = iolab()
        .args([
            "run",
            "--dir",
            s(&fresh),
            "--filesets",
            "a(files=2 size=4k)",
        ])
        .args(["--flow", flow, "--dry-run"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(!fresh.exists(), "--dry-run made {fresh:?}");
}

/// `iolab run fileserver.f --style filebench`: filebench's Per-Operation
/// Breakdown, a line per operation named by the file's own flowops
/// (`opena+openr`: iolab counts per operation, not per step), every
/// flowop named once, the counts adding up to the result document's
/// operations; and the IO Summary line with the document's total.
#[test]
fn a_wml_file_prints_filebench_style() {
    let Some(fs) = mount("ext4") else { return };
    let out_dir = scratch();
    let json = out_dir.path().join("r.json");
    let dir_var = format!("dir={}", fs.path().join("fb").display());
    let o = iolab()
        .arg("run")
        .arg(wml("fileserver"))
        .arg(&dir_var)
        .args(SMALL)
        .args(["--duration", "1s", "--style", "filebench", "--json"])
        .arg(&json)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let lines: Vec<&str> = out.lines().collect();
    let start = lines
        .iter()
        .position(|l| l.ends_with(": Per-Operation Breakdown"))
        .unwrap_or_else(|| panic!("no breakdown in {out}"));
    let summary = lines
        .iter()
        .position(|l| l.contains(": IO Summary: "))
        .unwrap_or_else(|| panic!("no IO Summary in {out}"));
    // fileserver.f's flowops, by the names our file gives them.
    let mut names = [
        "mk", "fill", "mkdone", "opena", "grow", "adone", "openr", "readall", "rdone", "rm", "look",
    ];
    names.sort();
    let mut seen: Vec<&str> = Vec::new();
    let mut sum = 0;
    for l in &lines[start + 1..summary] {
        let t: Vec<&str> = l.split_whitespace().collect();
        let n: u64 = t[1].strip_suffix("ops").unwrap().parse().unwrap();
        assert!(n > 0, "{l}");
        // One line per operation: the flowops of one operation joined.
        seen.extend(t[0].split('+'));
        sum += n;
    }
    seen.sort();
    assert_eq!(seen, names, "{out}");
    let total: u64 = all_ops(&doc).iter().map(|(_, n)| n).sum();
    assert_eq!(sum, total, "{out}");
    let io: u64 = lines[summary]
        .split(": IO Summary: ")
        .nth(1)
        .and_then(|r| r.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{}", lines[summary]));
    assert_eq!(io, u(wl(&doc), "io_summary.ops"), "{}", lines[summary]);
}
