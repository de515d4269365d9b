//! `iolab run --hosts` end to end without ssh: the agents are this build's
//! binary started through a local remote shell (`--remote-shell 'env
//! IOLAB_HOST={host}'`), each "host" with its own loop device. The
//! figures are checked against the devices' own counters and against the
//! per-host histograms of the document; a killed agent, a refused target
//! and a Ctrl-C are checked for what they leave. Root only (loop devices).

mod common;
use common::*;
use iolab_testutil::{diskstats, require_root, require_tool, LoopDevice};
use serde_json::Value;
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

fn bin() -> String {
    assert_cmd::cargo::cargo_bin("iolab")
        .to_string_lossy()
        .into_owned()
}

/// A tag in the agents' environment, unique to this test, to find them.
fn tag(test: &str) -> String {
    format!("{test}-{}", std::process::id())
}

/// The arguments of a two-host run: h1 on `a`, h2 on `b` (h2's
/// destroy_data_on only when `b_ok`), the agents tagged `tag`.
fn two_hosts(a: &LoopDevice, b: &LoopDevice, b_ok: bool, tag: &str) -> Vec<String> {
    let mut v: Vec<String> = vec![
        "run".into(),
        "--remote-shell".into(),
        format!("env IOLAB_TEST_TAG={tag} IOLAB_HOST={{host}}"),
        "--agent-path".into(),
        bin(),
        "--hosts".into(),
        "h1,h2".into(),
        "--target".into(),
        format!("h1:{}", a.path_str()),
        "--target".into(),
        format!("h2:{}", b.path_str()),
        "--destroy-data-on".into(),
        format!("h1:{}", a.path_str()),
        "--bs".into(),
        "4k".into(),
        "--interval".into(),
        "0.5s".into(),
    ];
    if b_ok {
        v.push("--destroy-data-on".into());
        v.push(format!("h2:{}", b.path_str()));
    }
    v
}

/// The pids of the agents started with `tag` (for `host`, or any).
fn agents(tag: &str, host: Option<&str>) -> Vec<i32> {
    let mut out = Vec::new();
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return out;
    };
    for e in dir.flatten() {
        let Ok(pid) = e.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        let Ok(env) = std::fs::read(e.path().join("environ")) else {
            continue;
        };
        let vars: Vec<&[u8]> = env.split(|b| *b == 0).collect();
        let has = |s: &str| vars.contains(&s.as_bytes());
        if has(&format!("IOLAB_TEST_TAG={tag}"))
            && host.is_none_or(|h| has(&format!("IOLAB_HOST={h}")))
        {
            out.push(pid);
        }
    }
    out
}

/// A controller run in the background, killed when dropped (with its
/// agents: a failing test leaves no process behind).
struct Controller {
    child: Option<Child>,
    tag: String,
}

impl Controller {
    fn start(args: &[String], dir: &Path, tag: &str) -> Controller {
        let child = Command::new(bin())
            .args(args)
            .current_dir(dir)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        Controller {
            child: Some(child),
            tag: tag.into(),
        }
    }

    fn pid(&self) -> i32 {
        self.child.as_ref().unwrap().id() as i32
    }

    /// Wait (at most `limit`) for the controller's end.
    fn wait(mut self, limit: Duration) -> Output {
        let mut child = self.child.take().unwrap();
        let end = Instant::now() + limit;
        while child.try_wait().unwrap().is_none() {
            if Instant::now() > end {
                let _ = child.kill();
                let o = child.wait_with_output().unwrap();
                panic!("the controller did not end in {limit:?}: {}", stderr(&o));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        child.wait_with_output().unwrap()
    }
}

impl Drop for Controller {
    fn drop(&mut self) {
        if let Some(c) = self.child.as_mut() {
            let _ = c.kill();
            let _ = c.wait();
        }
        for pid in agents(&self.tag, None) {
            // SAFETY: a process this test started (tagged environment).
            unsafe { libc::kill(pid, libc::SIGKILL) };
        }
    }
}

fn doc_of(dir: &Path) -> Value {
    let text = std::fs::read_to_string(dir.join("r.json")).expect("a result document");
    serde_json::from_str(&text).unwrap()
}

/// Run `rw` on two hosts: the document, stdout, and each device's
/// (ops, bytes) in the run's direction from /proc/diskstats around it.
fn measured_run(rw: &str, t: &str) -> (Value, String, [(u64, u64); 2]) {
    let (a, b) = two_devices();
    let d = tempfile::tempdir().unwrap();
    let mut args = two_hosts(&a, &b, true, t);
    let run = [
        "--rw",
        rw,
        "--qd",
        "4",
        "--duration",
        "1.5s",
        "--json",
        "r.json",
    ];
    args.extend(run.map(String::from));
    let before = [diskstats(&a.name()).unwrap(), diskstats(&b.name()).unwrap()];
    let o = Controller::start(&args, d.path(), t).wait(Duration::from_secs(60));
    let after = [diskstats(&a.name()).unwrap(), diskstats(&b.name()).unwrap()];
    assert!(o.status.success(), "{}", stderr(&o));
    let dev = |i: usize| match rw {
        "randread" => (after[i].0 - before[i].0, (after[i].1 - before[i].1) * 512),
        _ => (after[i].2 - before[i].2, (after[i].3 - before[i].3) * 512),
    };
    (doc_of(d.path()), stdout(&o), [dev(0), dev(1)])
}

#[test]
fn two_hosts_each_measure_their_own_device_and_the_total_is_their_sum() {
    require_root!();
    // Reads and writes in runs of their own: udev reads a device again
    // after a writer closes it, which would count among a run's reads.
    for (rw, dir) in [("randread", "read"), ("randwrite", "write")] {
        let t = tag(&format!("sum-{rw}"));
        let (doc, out, devs) = measured_run(rw, &t);
        let run = &ptr(&doc, "runs")[0];
        let hosts = ptr(run, "hosts").as_array().unwrap();
        let names: Vec<&str> = hosts.iter().map(|h| h["host"].as_str().unwrap()).collect();
        assert_eq!(names, ["h1", "h2"]);
        let within = |a: u64, b: u64| (a as f64 - b as f64).abs() <= b.max(1) as f64 * 0.01;
        for (h, (ops, bytes)) in hosts.iter().zip(devs) {
            let (mine_ops, mine) = (
                u(h, &format!("summary/{dir}/ops")),
                u(h, &format!("summary/{dir}/bytes")),
            );
            eprintln!(
                "{rw} {}: {mine_ops} I/Os, {mine} B; the device {ops} I/Os, {bytes} B",
                h["host"]
            );
            assert!(mine > 0, "{rw} {}: no I/O", h["host"]);
            assert!(
                within(ops, mine_ops),
                "{rw} {}: device {ops} I/Os, iolab {mine_ops}",
                h["host"]
            );
            assert!(
                within(bytes, mine),
                "{rw} {}: device {bytes} B, iolab {mine}",
                h["host"]
            );
        }
        for k in ["ops", "bytes"] {
            for d in [dir, "total"] {
                let sum: u64 = hosts
                    .iter()
                    .map(|h| u(h, &format!("summary/{d}/{k}")))
                    .sum();
                assert_eq!(u(run, &format!("summary/{d}/{k}")), sum, "{rw}: {d} {k}");
            }
        }
        let m = merged_buckets(
            hosts
                .iter()
                .map(|h| ptr(h, &format!("latency_histograms/{dir}"))),
        );
        for (q, key) in [(0.5, "p50"), (0.99, "p99"), (0.999, "p99_9")] {
            let want = percentile(&m, q) as f64 / 1e3;
            let got = f(run, &format!("summary/{dir}/lat_us/{key}"));
            assert!(
                (got - want).abs() < 0.0015,
                "{rw} {key}: {got} us, the merged histograms give {want}"
            );
        }
        let skew = f(run, "start_skew_us");
        let starts: Vec<f64> = hosts.iter().map(|h| f(h, "clock/start_us")).collect();
        eprintln!("{rw}: start skew {skew:.1} us, starts {starts:?} us");
        let spread = starts.iter().cloned().fold(f64::MIN, f64::max)
            - starts.iter().cloned().fold(f64::MAX, f64::min);
        assert!(
            (skew - spread).abs() < 1.0,
            "skew {skew} us, the hosts' starts {starts:?}"
        );
        // A line per host and the total, per interval.
        let count = |p: &str| out.lines().filter(|l| l.starts_with(p)).count();
        assert!(count("h1 ") >= 2, "{out}");
        assert_eq!(count("h1 "), count("h2 "), "{out}");
        assert_eq!(count("h1 "), count("total "), "{out}");
        assert!(agents(&t, None).is_empty(), "an agent is left");
    }
}

#[test]
fn a_killed_agent_is_lost_with_its_intervals_and_the_other_host_completes() {
    require_root!();
    let (a, b) = two_devices();
    let d = tempfile::tempdir().unwrap();
    let t = tag("lost");
    let mut args = two_hosts(&a, &b, true, &t);
    args.extend(
        [
            "--rw",
            "randread",
            "--duration",
            "3s",
            "--repeat",
            "2",
            "--on-host-loss",
            "continue",
            "--json",
            "r.json",
        ]
        .map(String::from),
    );
    let c = Controller::start(&args, d.path(), &t);
    // The run is under way once the document lists it in progress.
    let path = d.path().join("r.json");
    assert!(
        wait_until(Duration::from_secs(20), || std::fs::read_to_string(&path)
            .is_ok_and(|s| s.contains("in progress"))),
        "the run did not start"
    );
    std::thread::sleep(Duration::from_millis(1200));
    let h2 = agents(&t, Some("h2"));
    assert!(!h2.is_empty(), "no agent of h2");
    for pid in h2 {
        // SAFETY: h2's agent, started by this test (tagged environment).
        unsafe { libc::kill(pid, libc::SIGKILL) };
    }
    let o = c.wait(Duration::from_secs(60));
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("iolab: host h2 lost at "), "{err}");
    let doc = doc_of(d.path());
    let run = &ptr(&doc, "runs")[0];
    assert_eq!(run["complete"], false);
    let (h1, h2) = (&run["hosts"][0], &run["hosts"][1]);
    assert!(h1.get("lost").is_none(), "{}", h1["lost"]);
    assert_eq!(h1["complete"], true, "{}", h1["incomplete_reason"]);
    assert!(f(h1, "measured_s") > 2.5, "h1 ran {} s", h1["measured_s"]);
    let at = f(h2, "lost/at_s");
    assert!(at > 0.5 && at < 3.0, "lost at {at} s");
    let ivs = ptr(h2, "intervals").as_array().unwrap();
    assert!(!ivs.is_empty(), "h2's intervals were not kept");
    let last = f(ivs.last().unwrap(), "end_s");
    assert!(
        last <= at + 0.01,
        "h2's interval ending at {last} s after its loss at {at} s"
    );
    // The plan's second run goes on without the lost host.
    let second = &ptr(&doc, "runs")[1];
    let names: Vec<&str> = (ptr(second, "hosts").as_array().unwrap().iter())
        .map(|h| h["host"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["h1"]);
    assert_eq!(second["complete"], true, "{}", second["incomplete_reason"]);
    assert!(u(h2, "summary/read/ops") > 0, "h2's figures were not kept");
    let total: u64 = [h1, h2].iter().map(|h| u(h, "summary/read/ops")).sum();
    assert_eq!(u(run, "summary/read/ops"), total);
}

#[test]
fn a_target_refused_on_one_host_is_one_line_and_no_io_on_the_other() {
    require_root!();
    let (a, b) = two_devices();
    let d = tempfile::tempdir().unwrap();
    require_tool!("mkfs.ext4");
    // h2's device holds a file system: writing to it needs its name.
    let mk = Command::new("mkfs.ext4")
        .args(["-q", "-F", b.path_str()])
        .status()
        .unwrap();
    assert!(mk.success());
    let t = tag("refused");
    let mut args = two_hosts(&a, &b, false, &t);
    args.extend(["--rw", "randrw", "--duration", "2s", "--json", "r.json"].map(String::from));
    let before = diskstats(&a.name()).unwrap();
    let o = Controller::start(&args, d.path(), &t).wait(Duration::from_secs(60));
    let after = diskstats(&a.name()).unwrap();
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    let said: Vec<&str> = (err.lines())
        .filter(|l| l.starts_with("iolab: host h2: ") && !l.contains(" on "))
        .collect();
    assert_eq!(said.len(), 1, "{err}");
    assert!(said[0].contains("destroy-data-on"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(after.2, before.2, "h1's device was written to");
    // The target checks read a little (signatures, partition tables);
    // a second of measured reads would be thousands.
    assert!(
        after.0 - before.0 < 1000,
        "h1's device saw {} reads",
        after.0 - before.0
    );
    assert!(agents(&t, None).is_empty(), "an agent is left");
}

#[test]
fn ctrl_c_stops_every_agent_and_keeps_both_hosts_figures() {
    require_root!();
    let (a, b) = two_devices();
    let d = tempfile::tempdir().unwrap();
    let t = tag("sigint");
    let mut args = two_hosts(&a, &b, true, &t);
    args.extend(["--rw", "randread", "--duration", "30s", "--json", "r.json"].map(String::from));
    let c = Controller::start(&args, d.path(), &t);
    let path = d.path().join("r.json");
    assert!(
        wait_until(Duration::from_secs(20), || std::fs::read_to_string(&path)
            .is_ok_and(|s| s.contains("in progress"))),
        "the run did not start"
    );
    std::thread::sleep(Duration::from_millis(1500));
    // Nothing of iolab's listens on any port while the run goes on.
    if let Ok(ss) = Command::new("ss").args(["-ltnpH"]).output() {
        let text = String::from_utf8_lossy(&ss.stdout);
        assert!(!text.contains("\"iolab\""), "iolab listens:\n{text}");
    }
    // SAFETY: signalling the controller this test started.
    unsafe { libc::kill(c.pid(), libc::SIGINT) };
    let started = Instant::now();
    let o = c.wait(Duration::from_secs(30));
    eprintln!(
        "ended {:.2} s after SIGINT",
        started.elapsed().as_secs_f64()
    );
    assert_eq!(o.status.code(), Some(130), "{}", stderr(&o));
    let doc = doc_of(d.path());
    assert_eq!(doc["complete"], false);
    let run = &ptr(&doc, "runs")[0];
    for h in ptr(run, "hosts").as_array().unwrap() {
        assert!(u(h, "summary/read/ops") > 0, "{}: nothing kept", h["host"]);
        let m = f(h, "measured_s");
        assert!(m > 0.5 && m < 20.0, "{}: measured {m} s", h["host"]);
    }
    assert!(
        wait_until(Duration::from_secs(5), || agents(&t, None).is_empty()),
        "agents left: {:?}",
        agents(&t, None)
    );
}

#[test]
fn over_ssh_two_hosts_run_like_over_a_local_shell_and_leave_no_session() {
    require_root!();
    iolab_testutil::require_sshd!();
    let sshd = iolab_testutil::sshd::Sshd::start(&["h1", "h2"]).unwrap();
    let (a, b) = two_devices();
    let d = tempfile::tempdir().unwrap();
    let t = tag("ssh");
    let mut args = two_hosts(&a, &b, true, &t);
    // The default channel (ssh) instead of the local shell.
    args.drain(1..3);
    let cfg = sshd.config().to_string_lossy().into_owned();
    let run = [
        "--ssh-config",
        &cfg,
        "--rw",
        "randread",
        "--duration",
        "1s",
        "--json",
        "r.json",
    ];
    args.extend(run.map(String::from));
    let before = [diskstats(&a.name()).unwrap(), diskstats(&b.name()).unwrap()];
    let o = Controller::start(&args, d.path(), &t).wait(Duration::from_secs(60));
    let after = [diskstats(&a.name()).unwrap(), diskstats(&b.name()).unwrap()];
    assert!(o.status.success(), "{}\nsshd: {}", stderr(&o), sshd.log());
    let doc = doc_of(d.path());
    let run = &ptr(&doc, "runs")[0];
    for (i, h) in ptr(run, "hosts").as_array().unwrap().iter().enumerate() {
        let reads = after[i].0 - before[i].0;
        let mine = u(h, "summary/read/ops");
        assert!(
            mine > 0 && reads >= mine && reads - mine <= mine / 100,
            "{}: device {reads} reads, iolab {mine}",
            h["host"]
        );
    }
    assert!(f(run, "start_skew_us") >= 0.0);
    assert!(
        wait_until(Duration::from_secs(5), || sshd.session_pids().is_empty()),
        "sessions left: {:?}",
        sshd.session_pids()
    );
}

#[test]
fn a_silent_host_is_lost_after_the_timeout_and_stop_ends_the_plan() {
    require_root!();
    let (a, b) = two_devices();
    let d = tempfile::tempdir().unwrap();
    let t = tag("silent");
    let mut args = two_hosts(&a, &b, true, &t);
    // Two runs; --on-host-loss stop is the default.
    let run = [
        "--rw",
        "randread,randwrite",
        "--duration",
        "5s",
        "--host-timeout",
        "2s",
        "--json",
        "r.json",
    ];
    args.extend(run.map(String::from));
    let c = Controller::start(&args, d.path(), &t);
    let path = d.path().join("r.json");
    assert!(
        wait_until(Duration::from_secs(20), || std::fs::read_to_string(&path)
            .is_ok_and(|s| s.contains("in progress"))),
        "the run did not start"
    );
    std::thread::sleep(Duration::from_millis(800));
    let h2 = agents(&t, Some("h2"));
    assert!(!h2.is_empty(), "no agent of h2");
    for pid in &h2 {
        // SAFETY: h2's agent, started by this test: it stops answering.
        unsafe { libc::kill(*pid, libc::SIGSTOP) };
    }
    let o = c.wait(Duration::from_secs(60));
    let err = stderr(&o);
    eprintln!("{err}");
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("iolab: host h2 lost at "), "{err}");
    assert!(
        err.contains("the remaining run does not run: h2 lost"),
        "{err}"
    );
    let doc = doc_of(d.path());
    assert_eq!(doc["complete"], false);
    let runs = ptr(&doc, "runs").as_array().unwrap();
    assert_eq!(runs.len(), 1, "the second run ran");
    let (h1, h2) = (&runs[0]["hosts"][0], &runs[0]["hosts"][1]);
    let at = f(h2, "lost/at_s");
    // Lost after about 2 s of silence, h1 stopped then: before its 5 s.
    assert!(at > 1.5 && at < 5.0, "lost at {at} s");
    assert!(
        f(h1, "measured_s") < 4.9,
        "h1 was not stopped: {} s",
        h1["measured_s"]
    );
    assert!(u(h1, "summary/read/ops") > 0 && u(h2, "summary/read/ops") > 0);
    assert!(
        wait_until(Duration::from_secs(5), || agents(&t, None).is_empty()),
        "agents left: {:?}",
        agents(&t, None)
    );
}

#[test]
fn hosts_without_targets_are_one_line_before_any_host_is_contacted() {
    let d = tempfile::tempdir().unwrap();
    let o = iolab()
        .args([
            "run",
            "--hosts",
            "h1,h2",
            "--rw",
            "randread",
            "--remote-shell",
            "false {host}",
        ])
        .current_dir(d.path())
        .output()
        .unwrap();
    assert_bad_input(&o, "a run on several hosts needs its targets");
    assert_eq!(
        std::fs::read_dir(d.path()).unwrap().count(),
        0,
        "a file was left"
    );
}

#[test]
fn a_curve_runs_each_hosts_points_at_that_hosts_own_maximum() {
    require_root!();
    let (a, b) = two_devices();
    let d = tempfile::tempdir().unwrap();
    let t = tag("curve");
    let mut args = two_hosts(&a, &b, true, &t);
    let run = [
        "--rw",
        "randread",
        "--duration",
        "1s",
        "--curve",
        "50",
        "--json",
        "r.json",
    ];
    args.extend(run.map(String::from));
    let o = Controller::start(&args, d.path(), &t).wait(Duration::from_secs(60));
    assert!(o.status.success(), "{}", stderr(&o));
    let doc = doc_of(d.path());
    let runs = ptr(&doc, "runs").as_array().unwrap();
    assert_eq!(runs.len(), 2);
    let hosts = |r: &Value| r["hosts"].as_array().unwrap().clone();
    let (maxes, points) = (hosts(&runs[0]), hosts(&runs[1]));
    assert_eq!((maxes.len(), points.len()), (2, 2));
    for (max, point) in maxes.iter().zip(&points) {
        let measured = f(max, "summary/total/iops");
        let rate = f(point, "curve/rate_iops");
        let achieved = f(point, "summary/total/iops");
        eprintln!(
            "{}: max {measured:.0} IOPS, 50% point at {rate:.0}/s, achieved {achieved:.0}",
            point["host"]
        );
        assert!(
            (rate - measured / 2.0).abs() <= measured * 0.02,
            "{}: rate {rate} for a maximum of {measured}",
            point["host"]
        );
        // The point is rate-limited: never above its rate (below it only
        // when the busy machine cannot keep up, which says nothing here).
        assert!(
            achieved > 0.0 && achieved <= rate * 1.05,
            "{}: achieved {achieved} of {rate}",
            point["host"]
        );
    }
}
