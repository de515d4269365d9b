//! End-to-end tests of `iolab monitor` and `iolab mark`: the monitor's
//! figures against `iostat -x` on a loop device written by `dd`, marks
//! through the socket and SIGUSR1 timed on the monitor's clock, Ctrl-C
//! keeping the document, the mark command's refusals, and the document
//! loading in `iolab report`. Each test uses its own runtime directory
//! (IOLAB_RUNTIME_DIR), so tests running side by side never see each
//! other's monitors.

mod common;
use common::*;
use iolab_testutil::{require_root, require_tool, LoopDevice, TmpfsMount};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant, SystemTime};

/// The runtime directory of one test (iolab creates it, mode 0700).
fn rt(d: &tempfile::TempDir) -> PathBuf {
    d.path().join("rt")
}

fn bin() -> PathBuf {
    assert_cmd::cargo::cargo_bin("iolab")
}

/// `iolab monitor ARGS --json OUT` started in the background, its mark
/// socket in `rt`.
fn monitor_bg(rt: &Path, args: &[&str], json: &Path) -> Child {
    Command::new(bin())
        .arg("monitor")
        .args(args)
        .arg("--json")
        .arg(json)
        .env("IOLAB_RUNTIME_DIR", rt)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Wait until process `pid` listens for marks in `rt` (its SIGUSR1
/// handler is set up before the socket).
fn wait_listening(rt: &Path, pid: u32) {
    let sock = rt.join(format!("{pid}.sock"));
    let t = Instant::now();
    while !sock.exists() {
        assert!(
            t.elapsed() < Duration::from_secs(10),
            "no socket {}",
            sock.display()
        );
        std::thread::sleep(Duration::from_millis(5));
    }
}

fn mark(rt: &Path, args: &[&str]) -> std::process::Output {
    Command::new(bin())
        .arg("mark")
        .args(args)
        .env("IOLAB_RUNTIME_DIR", rt)
        .output()
        .unwrap()
}

fn finish(c: Child) -> std::process::Output {
    c.wait_with_output().unwrap()
}

fn load(p: &Path) -> Value {
    let text = std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    serde_json::from_str(&text).unwrap()
}

/// Seconds since the epoch of an RFC 3339 UTC stamp with milliseconds
/// (`2026-11-24T23:04:24.123Z`), as the document writes them.
fn epoch_s(stamp: &str) -> f64 {
    let out = Command::new("date")
        .args(["-u", "-d", stamp, "+%s.%N"])
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).trim().parse().unwrap()
}

fn now_s() -> f64 {
    SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap()
        .as_secs_f64()
}

fn events(doc: &Value) -> Vec<Value> {
    ptr(doc, "runs/0/events").as_array().unwrap().clone()
}

fn one_line(o: &std::process::Output) -> String {
    let e = stderr(o);
    assert_eq!(e.trim_end().lines().count(), 1, "one line: {e:?}");
    e
}

/// Write 16 MiB to `dev` with O_DIRECT in 4 KiB requests: 4096 writes.
fn dd(dev: &str) {
    let out = Command::new("dd")
        .args([
            "if=/dev/zero",
            &format!("of={dev}"),
            "bs=4k",
            "count=4096",
            "oflag=direct",
            "status=none",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "dd: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// iostat's figures of one device per interval, from `iostat -o JSON`.
fn iostat_rows(json: &str, dev: &str) -> Vec<Value> {
    let v: Value = serde_json::from_str(json).unwrap();
    ptr(&v, "sysstat/hosts/0/statistics")
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|s| {
            s["disk"]
                .as_array()?
                .iter()
                .find(|d| d["disk_device"] == dev)
                .cloned()
        })
        .collect()
}

fn close(a: f64, b: f64, rel: f64) -> bool {
    (a - b).abs() <= rel * a.abs().max(b.abs())
}

/// `iolab monitor` and `iostat -x -y DEV 1 2` started together watch a
/// loop device while dd writes 4096 x 4 KiB with O_DIRECT in the middle
/// of both windows. Their interval boundaries cannot be aligned exactly
/// (two processes start a few ms apart, and iostat times its intervals
/// with /proc/uptime in 10 ms steps), so the burst is kept well inside
/// both windows and the figures compared are those over the whole window:
/// writes, kB written and busy time, each within 2 %, and both tools
/// within 1 % of what dd wrote.
#[test]
fn monitor_agrees_with_iostat_on_a_loop_device_written_by_dd() {
    require_root!();
    require_tool!("iostat");
    require_tool!("dd");
    // A tmpfs backing file: fast and steady, so the burst is short.
    let fs = TmpfsMount::new("64m").unwrap();
    let dev = LoopDevice::new_in(Some(fs.path()), 32 << 20, false).unwrap();
    std::thread::sleep(Duration::from_millis(300)); // udev probing
    let d = tempfile::tempdir().unwrap();
    let json = d.path().join("m.json");
    let name = dev.name();
    let iostat = Command::new("iostat")
        .args(["-x", "-d", "-y", "-o", "JSON", &name, "1", "2"])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mon = monitor_bg(
        &rt(&d),
        &[dev.path_str(), "--interval", "1", "--duration", "2"],
        &json,
    );
    wait_listening(&rt(&d), mon.id());
    std::thread::sleep(Duration::from_millis(300));
    let t = Instant::now();
    dd(dev.path_str());
    assert!(
        t.elapsed() < Duration::from_millis(1200),
        "dd took {:?}",
        t.elapsed()
    );
    let out = finish(mon);
    assert!(out.status.success(), "{}", stderr(&out));
    let io = iostat.wait_with_output().unwrap();
    let rows = iostat_rows(&String::from_utf8_lossy(&io.stdout), &name);
    assert_eq!(rows.len(), 2, "{}", String::from_utf8_lossy(&io.stdout));
    let sum = |k: &str| rows.iter().map(|r| r[k].as_f64().unwrap()).sum::<f64>();
    let doc = load(&json);
    let ivs = ptr(&doc, "runs/0/devices/intervals").as_array().unwrap();
    assert_eq!(ivs.len(), 2);
    let mine = |k: &str| {
        ivs.iter()
            .map(|i| {
                let r = i["rows"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .find(|r| r["device"] == name.as_str())
                    .unwrap();
                r[k].as_f64().unwrap() * r["interval_ms"].as_f64().unwrap() / 1000.0
            })
            .sum::<f64>()
    };
    // Totals over the window: a rate times its interval, summed.
    let (w, wkb, util) = (mine("w_s"), mine("wkb_s"), mine("util_pct"));
    let (iw, iwkb, iutil) = (sum("w/s"), sum("wkB/s"), sum("util"));
    eprintln!("iolab: {w} writes, {wkb} kB, util {util}; iostat: {iw}, {iwkb}, {iutil}");
    assert!(close(w, iw, 0.02), "writes: iolab {w}, iostat {iw}");
    assert!(close(wkb, iwkb, 0.02), "kB: iolab {wkb}, iostat {iwkb}");
    assert!(
        close(util, iutil, 0.02) || (util - iutil).abs() < 0.5,
        "util: iolab {util}, iostat {iutil}"
    );
    assert!(
        close(w, 4096.0, 0.01) && close(wkb, 16384.0, 0.01),
        "dd wrote 4096 x 4 KiB: {w} writes, {wkb} kB"
    );
    // The terminal shows the device every interval, with the writes.
    let text = stdout(&out);
    assert_eq!(
        text.lines().filter(|l| l.contains(&name)).count(),
        2,
        "{text}"
    );
}

/// A mark sent while the monitor runs is in its document, timed on its
/// clock within 50 ms of when `iolab mark` sent it, and `iolab mark` says
/// the same time; the event shows in the terminal lines too.
#[test]
fn a_mark_lands_in_the_document_at_the_time_it_was_sent() {
    let d = tempfile::tempdir().unwrap();
    let json = d.path().join("m.json");
    let dir = d.path().to_str().unwrap();
    let mon = monitor_bg(
        &rt(&d),
        &[dir, "--interval", "0.2", "--duration", "1.2"],
        &json,
    );
    let pid = mon.id().to_string();
    wait_listening(&rt(&d), mon.id());
    std::thread::sleep(Duration::from_millis(300));
    let sent = now_s();
    let m = mark(&rt(&d), &["--pid", &pid, "controller", "A", "failed"]);
    let back = now_s();
    assert!(m.status.success(), "{}", stderr(&m));
    let said = stdout(&m);
    let out = finish(mon);
    assert!(out.status.success(), "{}", stderr(&out));
    let doc = load(&json);
    let ev = events(&doc);
    assert_eq!(ev.len(), 1, "{ev:?}");
    assert_eq!(ev[0]["label"], "controller A failed");
    assert_eq!(ev[0]["source"], "mark");
    let at = ev[0]["time_s"].as_f64().unwrap();
    let t0 = epoch_s(ptr(&doc, "runs/0/started_at").as_str().unwrap());
    assert!(
        at >= sent - t0 - 0.05 && at <= back - t0 + 0.05,
        "event at {at} s; sent between {} and {} s",
        sent - t0,
        back - t0
    );
    assert!(
        said.contains(&format!("at {at:.3} s into run monitor")),
        "{said}"
    );
    assert!(
        stdout(&out).contains("s  mark: controller A failed"),
        "{}",
        stdout(&out)
    );
    assert!(
        !rt(&d).join(format!("{pid}.sock")).exists(),
        "socket removed at the end"
    );
}

/// SIGUSR1 marks "signal", source "signal".
#[test]
fn sigusr1_marks_a_signal_event() {
    let d = tempfile::tempdir().unwrap();
    let json = d.path().join("m.json");
    let dir = d.path().to_str().unwrap();
    let mon = monitor_bg(
        &rt(&d),
        &[dir, "--interval", "0.2", "--duration", "0.8"],
        &json,
    );
    wait_listening(&rt(&d), mon.id());
    let kill = Command::new("kill")
        .args(["-USR1", &mon.id().to_string()])
        .status()
        .unwrap();
    assert!(kill.success());
    let out = finish(mon);
    assert!(out.status.success(), "{}", stderr(&out));
    let ev = events(&load(&json));
    assert_eq!(ev.len(), 1, "{ev:?}");
    assert_eq!(
        (ev[0]["label"].as_str(), ev[0]["source"].as_str()),
        (Some("signal"), Some("signal"))
    );
}

/// Ctrl-C (SIGINT) ends a monitor without --duration: exit 0, the
/// document with what it saw, the socket removed.
#[test]
fn ctrl_c_ends_the_monitor_and_keeps_the_document() {
    let d = tempfile::tempdir().unwrap();
    let json = d.path().join("m.json");
    let dir = d.path().to_str().unwrap();
    let mon = monitor_bg(&rt(&d), &[dir, "--interval", "0.2"], &json);
    let pid = mon.id();
    wait_listening(&rt(&d), pid);
    std::thread::sleep(Duration::from_millis(700));
    let m = mark(&rt(&d), &["before the end"]);
    assert!(
        m.status.success(),
        "the only monitor is found without --pid: {}",
        stderr(&m)
    );
    let k = Command::new("kill")
        .args(["-INT", &pid.to_string()])
        .status()
        .unwrap();
    assert!(k.success());
    let out = finish(mon);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let doc = load(&json);
    let ivs = ptr(&doc, "runs/0/devices/intervals").as_array().unwrap();
    assert!(ivs.len() >= 3, "{} intervals", ivs.len());
    assert!(!ivs[0]["rows"].as_array().unwrap().is_empty());
    assert_eq!(events(&doc)[0]["label"], "before the end");
    assert!(ptr(&doc, "runs/0/workloads")
        .as_array()
        .is_none_or(|w| w.is_empty()));
    assert!(!rt(&d).join(format!("{pid}.sock")).exists());
}

#[test]
fn mark_without_a_running_iolab_is_one_line_and_exit_2() {
    let d = tempfile::tempdir().unwrap();
    let m = mark(&rt(&d), &["nothing runs"]);
    assert_eq!(m.status.code(), Some(2));
    assert!(one_line(&m).contains("no running iolab"), "{}", stderr(&m));
}

#[test]
fn mark_with_the_pid_of_another_program_is_refused() {
    let d = tempfile::tempdir().unwrap();
    let mut sleeper = Command::new("sleep").arg("10").spawn().unwrap();
    let m = mark(&rt(&d), &["--pid", &sleeper.id().to_string(), "x"]);
    let _ = sleeper.kill();
    let _ = sleeper.wait();
    assert_eq!(m.status.code(), Some(2));
    assert!(
        one_line(&m).contains("is not a running iolab"),
        "{}",
        stderr(&m)
    );
}

#[test]
fn bad_monitor_input_is_one_line_and_exit_2() {
    let d = tempfile::tempdir().unwrap();
    for (args, needle) in [
        (
            vec!["no-such-device-xyz"],
            "neither a block device nor an existing path",
        ),
        (vec!["--duration", "soon"], "--duration"),
        (vec!["--interval", "0"], "--interval"),
        (vec!["--interval", "10ms"], "at least 100ms"),
    ] {
        let o = iolab()
            .arg("monitor")
            .args(&args)
            .current_dir(d.path())
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(one_line(&o).contains(needle), "{args:?}: {}", stderr(&o));
    }
    let m = mark(&rt(&d), &["a\tb"]);
    assert_eq!(m.status.code(), Some(2));
    one_line(&m);
}

/// `iolab run` listens for marks while it runs (crate::marks::start_for_run):
/// `iolab mark --pid` reaches it, is answered with the run's name and the
/// time on the run's clock, and the event is in `runs[0].events` at that
/// time, within 50 ms of when it was sent.
#[test]
fn a_run_takes_marks_while_it_runs() {
    let d = tempfile::tempdir().unwrap();
    let json = d.path().join("r.json");
    let run = Command::new(bin())
        .args([
            "run",
            "--engine",
            "null",
            "--target",
            "t.dat",
            "--no-prefill",
        ])
        .args([
            "--size",
            "1m",
            "--duration",
            "1",
            "--name",
            "marked-run",
            "-q",
        ])
        .arg("--json")
        .arg(&json)
        .current_dir(d.path())
        .env("IOLAB_RUNTIME_DIR", rt(&d))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = run.id();
    wait_listening(&rt(&d), pid);
    std::thread::sleep(Duration::from_millis(300));
    let sent = now_s();
    let m = mark(&rt(&d), &["--pid", &pid.to_string(), "during the run"]);
    let back = now_s();
    let out = finish(run);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(m.status.success(), "{}", stderr(&m));
    let said = stdout(&m);
    assert!(said.contains("run marked-run (pid"), "{said}");
    assert!(!rt(&d).join(format!("{pid}.sock")).exists());
    let doc = load(&json);
    let ev = events(&doc);
    assert_eq!(ev.len(), 1, "{ev:?}");
    assert_eq!(
        (ev[0]["label"].as_str(), ev[0]["source"].as_str()),
        (Some("during the run"), Some("mark"))
    );
    let at = ev[0]["time_s"].as_f64().unwrap();
    assert!(said.contains(&format!("at {at:.3} s into")), "{said}");
    let t0 = epoch_s(ptr(&doc, "runs/0/started_at").as_str().unwrap());
    // started_at is when the run began (before its clock started after
    // set-up), so the event is at most 50 ms later than sent - started_at.
    assert!(
        at <= back - t0 + 0.05 && at > 0.0,
        "event at {at} s; sent between {} and {} s after started_at",
        sent - t0,
        back - t0
    );
}

/// The monitor's document is a result document: `iolab report` draws it
/// (HTML and Markdown) and `iolab compare` compares two of them.
#[test]
fn the_monitor_document_loads_in_report_and_compare() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path().to_str().unwrap();
    let mut docs = Vec::new();
    for name in ["a.json", "b.json"] {
        let json = d.path().join(name);
        let mon = monitor_bg(
            &rt(&d),
            &[dir, "--interval", "0.1", "--duration", "0.3"],
            &json,
        );
        let out = finish(mon);
        assert!(out.status.success(), "{}", stderr(&out));
        let doc = load(&json);
        assert_eq!(ptr(&doc, "runs/0/name"), "monitor");
        assert_eq!(ptr(&doc, "runs/0/intervals").as_array().unwrap().len(), 3);
        // The whole monitor's summary: a row per device it sampled.
        let rows = ptr(&doc, "runs/0/devices/intervals/0/rows")
            .as_array()
            .unwrap();
        let summary = ptr(&doc, "runs/0/devices/summary").as_array().unwrap();
        assert!(!rows.is_empty());
        assert_eq!(summary.len(), rows.len(), "{summary:?}");
        docs.push(json);
    }
    let html = d.path().join("m.html");
    let o = iolab()
        .arg("report")
        .arg(&docs[0])
        .arg("-o")
        .arg(&html)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(std::fs::read_to_string(&html).unwrap().contains("monitor"));
    let o = iolab()
        .args(["report", "--format", "md"])
        .arg(&docs[0])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let o = iolab().arg("compare").args(&docs).output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("monitor"), "{}", stdout(&o));
}

/// Two monitors at once: `iolab mark` without --pid names both and asks
/// for one; a monitor killed with SIGKILL leaves a socket the next
/// `iolab mark` removes, and the one left is found alone.
#[test]
fn several_monitors_need_a_pid_and_a_killed_ones_socket_is_cleaned() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path().to_str().unwrap();
    let a = monitor_bg(&rt(&d), &[dir, "--duration", "3"], &d.path().join("a.json"));
    let mut b = monitor_bg(&rt(&d), &[dir, "--duration", "3"], &d.path().join("b.json"));
    let (pa, pb) = (a.id(), b.id());
    wait_listening(&rt(&d), pa);
    wait_listening(&rt(&d), pb);
    let m = mark(&rt(&d), &["which one"]);
    assert_eq!(m.status.code(), Some(2));
    let line = one_line(&m);
    assert!(
        line.contains(&pa.to_string()) && line.contains(&pb.to_string()) && line.contains("--pid"),
        "{line}"
    );
    b.kill().unwrap();
    b.wait().unwrap();
    let stale = rt(&d).join(format!("{pb}.sock"));
    assert!(stale.exists(), "SIGKILL leaves the socket behind");
    let m = mark(&rt(&d), &["the survivor"]);
    assert!(m.status.success(), "{}", stderr(&m));
    assert!(
        stdout(&m).contains(&format!("(pid {pa})")),
        "{}",
        stdout(&m)
    );
    assert!(!stale.exists(), "the dead monitor's socket is removed");
    let k = Command::new("kill")
        .args(["-INT", &pa.to_string()])
        .status()
        .unwrap();
    assert!(k.success());
    let out = finish(a);
    assert_eq!(
        out.status.code(),
        Some(130),
        "Ctrl-C before --duration: {}",
        stderr(&out)
    );
    let doc = load(&d.path().join("a.json"));
    assert_eq!(events(&doc)[0]["label"], "the survivor");
    assert_eq!(ptr(&doc, "runs/0/incomplete_reason"), "interrupted");
}
