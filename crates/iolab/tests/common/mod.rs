//! Helpers for the end-to-end tests: run the real binary, read its result
//! document.
#![allow(dead_code)]

use serde_json::Value;
use std::path::Path;
use std::process::Output;

pub fn iolab() -> assert_cmd::Command {
    let mut c = assert_cmd::Command::cargo_bin("iolab").unwrap();
    c.timeout(std::time::Duration::from_secs(120));
    c
}

/// Run `iolab run ARGS --json OUT -q` and return (output, document).
pub fn run_json(args: &[&str], dir: &Path) -> (Output, Value) {
    cmd_json("run", args, dir)
}

/// Run `iolab SUBCOMMAND ARGS --json OUT -q` in DIR and return (output,
/// document).
pub fn cmd_json(sub: &str, args: &[&str], dir: &Path) -> (Output, Value) {
    let json = dir.join(format!("r-{}.json", fastish_id()));
    let out = iolab()
        .arg(sub)
        .args(args)
        .arg("--json")
        .arg(&json)
        .arg("-q")
        .current_dir(dir)
        .output()
        .unwrap();
    let text = std::fs::read_to_string(&json).unwrap_or_else(|e| {
        panic!(
            "no result document ({e}); stderr: {}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (out, serde_json::from_str(&text).unwrap())
}

/// `iolab report` of the (one) result document `run_json` left in
/// `dir`, as HTML written to `dir/NAME`; the page's text (the command
/// must succeed).
pub fn report_html(dir: &Path, name: &str) -> String {
    let json = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|x| x == "json"))
        .expect("a result document in the directory");
    let html = dir.join(name);
    let o = iolab()
        .arg("report")
        .arg(&json)
        .arg("-o")
        .arg(&html)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    std::fs::read_to_string(&html).unwrap()
}

fn fastish_id() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    N.fetch_add(1, Ordering::Relaxed) ^ ((std::process::id() as u64) << 20)
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn u(v: &Value, path: &str) -> u64 {
    ptr(v, path)
        .as_u64()
        .unwrap_or_else(|| panic!("{path} is not an integer: {}", ptr(v, path)))
}

pub fn f(v: &Value, path: &str) -> f64 {
    ptr(v, path)
        .as_f64()
        .unwrap_or_else(|| panic!("{path} is not a number: {}", ptr(v, path)))
}

pub fn ptr<'a>(v: &'a Value, path: &str) -> &'a Value {
    let p = format!("/{}", path.replace('.', "/"));
    v.pointer(&p)
        .unwrap_or_else(|| panic!("{path} missing in result document"))
}

/// Assert a one-line error and exit code 2.
pub fn assert_bad_input(o: &Output, needle: &str) {
    let err = stderr(o);
    assert_eq!(o.status.code(), Some(2), "exit code; stderr: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "not one line: {err}");
    assert!(err.contains(needle), "{err:?} lacks {needle:?}");
    assert!(!err.contains("panicked"), "{err}");
}

/// Start `iolab run ARGS -q --json DIR/r.json` in DIR, send SIGINT after
/// `ms` milliseconds, and return (output, document).
pub fn run_interrupted(args: &[&str], dir: &Path, ms: u64) -> (Output, Value) {
    let json = dir.join("r.json");
    let child = std::process::Command::new(assert_cmd::cargo::cargo_bin("iolab"))
        .arg("run")
        .args(args)
        .args(["-q", "--json"])
        .arg(&json)
        .current_dir(dir)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(ms));
    // SAFETY: signalling our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let out = child.wait_with_output().unwrap();
    let doc = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    (out, doc)
}

/// `run_json` on a background thread, so the test can inject faults meanwhile.
pub fn run_json_bg(args: &[&str], dir: &Path) -> std::thread::JoinHandle<(Output, Value)> {
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    let dir = dir.to_path_buf();
    std::thread::spawn(move || {
        let a: Vec<&str> = args.iter().map(String::as_str).collect();
        run_json(&a, &dir)
    })
}

/// A FUSE fault injector with a loop device over its disk (root only).
pub fn faultfs_loop(size: u64) -> (iolab_faultfs::FaultFs, iolab_faultfs::FaultLoop) {
    let fs = iolab_faultfs::FaultFs::start(size).expect("faultfs");
    let lo = fs.attach_loop().expect("loop device on faultfs");
    (fs, lo)
}

/// Compare output with `tests/golden/NAME`; `UPDATE_GOLDEN=1` rewrites it.
pub fn golden(name: &str, got: &str) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(name);
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, got).unwrap();
        return;
    }
    let want = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e}; create it with UPDATE_GOLDEN=1", path.display()));
    if want != got {
        let first = want
            .lines()
            .zip(got.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(want.lines().count().min(got.lines().count()));
        panic!(
            "{name} differs from the golden file at line {}:\n want: {:?}\n  got: {:?}\nwhole output:\n{got}\n(after an intended change: UPDATE_GOLDEN=1)",
            first + 1,
            want.lines().nth(first),
            got.lines().nth(first)
        );
    }
}

/// The (value_ns -> count) of the histograms `hs` of a result document
/// merged (their buckets added), from the document's own numbers.
pub fn merged_buckets<'a>(
    hs: impl Iterator<Item = &'a Value>,
) -> std::collections::BTreeMap<u64, u64> {
    let mut m = std::collections::BTreeMap::new();
    for h in hs {
        for b in h["buckets"].as_array().unwrap() {
            *m.entry(b[0].as_u64().unwrap()).or_insert(0) += b[1].as_u64().unwrap();
        }
    }
    m
}

/// The q-percentile of `m` by docs/results.md's rank rule: the smallest
/// stored value with at least ceil(q * count) values at or below it.
pub fn percentile(m: &std::collections::BTreeMap<u64, u64>, q: f64) -> u64 {
    let count: u64 = m.values().sum();
    let rank = ((q * count as f64).ceil() as u64).max(1);
    let mut seen = 0;
    for (v, c) in m {
        seen += c;
        if seen >= rank {
            return *v;
        }
    }
    0
}

/// Whether `cond` holds within `limit` (looked at every 20 ms).
pub fn wait_until(limit: std::time::Duration, cond: impl Fn() -> bool) -> bool {
    let end = std::time::Instant::now() + limit;
    while std::time::Instant::now() < end {
        if cond() {
            return true;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    cond()
}

/// Two 256 MiB loop devices of the test's own (the "hosts'" devices),
/// settled (udev's first look done) before a run counts their I/O.
pub fn two_devices() -> (iolab_testutil::LoopDevice, iolab_testutil::LoopDevice) {
    let a = iolab_testutil::LoopDevice::new(256 << 20, true).unwrap();
    let b = iolab_testutil::LoopDevice::new(256 << 20, true).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(300));
    (a, b)
}
