//! `iolab run --hosts` end to end over OpenSSH (the default channel):
//! private sshds (testutil's sshd harness, on 127.0.0.1 ports or in
//! network namespaces) start this build's binary as the agent. Two hosts
//! each on its own loop device, checked against the devices' diskstats
//! and the per-host histograms of the document; per-host target names
//! from a job file's map and a host file; a host whose link is cut and
//! one whose agent is killed; refused logins and another version through
//! the CLI; no listening socket of the run's; Ctrl-C. Every agent is
//! started through a symlink private to its test, so the test finds
//! (and, on failure, kills) exactly its own agents by their path.

mod common;
use common::*;
use iolab_testutil::sshd::{Broken, Sshd};
use iolab_testutil::{diskstats, require_root, require_sshd, require_tool};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

fn bin() -> PathBuf {
    assert_cmd::cargo::cargo_bin("iolab")
}

/// A test's scratch directory: the agent's path (a symlink to this
/// build's iolab), the ssh_config, job files and result documents. On
/// drop every agent started through the symlink is killed.
struct Bed {
    dir: tempfile::TempDir,
}

impl Bed {
    fn new() -> Bed {
        let dir = tempfile::Builder::new()
            .prefix("iolab-multi-ssh.")
            .tempdir()
            .unwrap();
        std::os::unix::fs::symlink(bin(), dir.path().join("iolab")).unwrap();
        Bed { dir }
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    fn agent(&self) -> String {
        self.path().join("iolab").display().to_string()
    }

    /// One ssh_config with every server's aliases (each server's own
    /// `Host` block).
    fn config(&self, servers: &[(&Sshd, Option<Broken>)]) -> String {
        let mut text = String::new();
        for (s, how) in servers {
            let p = match how {
                Some(b) => s.broken_config(*b).unwrap(),
                None => s.config(),
            };
            text += &std::fs::read_to_string(p).unwrap();
        }
        let p = self.path().join("ssh_config");
        std::fs::write(&p, text).unwrap();
        p.display().to_string()
    }

    /// `run --hosts HOSTS` over ssh with `cfg`, this bed's agent, a 2 s
    /// host timeout and the document in r.json.
    fn args(&self, hosts: &str, cfg: &str, more: &[&str]) -> Vec<String> {
        let mut v: Vec<String> = [
            "run",
            "--ssh-config",
            cfg,
            "--agent-path",
            &self.agent(),
            "--host-timeout",
            "2s",
            "--json",
            "r.json",
        ]
        .map(String::from)
        .to_vec();
        if !hosts.is_empty() {
            v.extend(["--hosts".to_string(), hosts.to_string()]);
        }
        v.extend(more.iter().map(|s| s.to_string()));
        v
    }

    /// The pids of the agents started through this bed's path (argv[0]
    /// the path, argv[1] `agent`: not ssh's or a shell's command line).
    fn agents(&self) -> Vec<i32> {
        let me = self.agent();
        let mut out = Vec::new();
        for e in std::fs::read_dir("/proc").unwrap().flatten() {
            let Ok(pid) = e.file_name().to_string_lossy().parse::<i32>() else {
                continue;
            };
            let Ok(cmd) = std::fs::read(e.path().join("cmdline")) else {
                continue;
            };
            let argv: Vec<&[u8]> = cmd.split(|b| *b == 0).collect();
            if argv.len() > 1 && argv[0] == me.as_bytes() && argv[1] == b"agent" {
                out.push(pid);
            }
        }
        out
    }

    /// The agents whose session came from `sshd` (its environment marker).
    fn agents_of(&self, sshd: &Sshd) -> Vec<i32> {
        let of: Vec<i32> = sshd.session_pids().iter().map(|&p| p as i32).collect();
        self.agents()
            .into_iter()
            .filter(|p| of.contains(p))
            .collect()
    }

    fn doc(&self) -> Value {
        let text = std::fs::read_to_string(self.path().join("r.json")).expect("a result document");
        serde_json::from_str(&text).unwrap()
    }

    /// Wait until the document says a run is in progress (failing with
    /// the controller's stderr if it ended first).
    fn wait_started(&self, c: &mut Controller) {
        let p = self.path().join("r.json");
        let end = Instant::now() + Duration::from_secs(30);
        while !std::fs::read_to_string(&p).is_ok_and(|s| s.contains("in progress")) {
            let err = || std::fs::read_to_string(self.path().join("stderr")).unwrap_or_default();
            assert!(
                c.running(),
                "the controller ended before its run: {}",
                err()
            );
            assert!(
                Instant::now() < end,
                "the run did not start in 30 s: {}",
                err()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Bed {
    fn drop(&mut self) {
        for pid in self.agents() {
            // SAFETY: an agent started through this test's own path.
            unsafe { libc::kill(pid, libc::SIGKILL) };
        }
    }
}

/// A controller in the background (stdout and stderr to files in the
/// bed), killed when dropped.
struct Controller {
    child: Option<Child>,
    out: PathBuf,
}

impl Controller {
    fn start(bed: &Bed, args: &[String]) -> Controller {
        let out = bed.path().join("stdout");
        let child = Command::new(bin())
            .args(args)
            .current_dir(bed.path())
            .stdin(Stdio::null())
            .stdout(std::fs::File::create(&out).unwrap())
            .stderr(std::fs::File::create(bed.path().join("stderr")).unwrap())
            .spawn()
            .unwrap();
        Controller {
            child: Some(child),
            out,
        }
    }

    fn pid(&self) -> i32 {
        self.child.as_ref().unwrap().id() as i32
    }

    fn running(&mut self) -> bool {
        self.child.as_mut().unwrap().try_wait().unwrap().is_none()
    }

    /// Wait (at most `limit`) for the controller's end.
    fn wait(mut self, limit: Duration) -> Output {
        let mut child = self.child.take().unwrap();
        let end = Instant::now() + limit;
        let status = loop {
            if let Some(st) = child.try_wait().unwrap() {
                break st;
            }
            if Instant::now() > end {
                let _ = child.kill();
                let _ = child.wait();
                panic!(
                    "the controller did not end in {limit:?}: {}",
                    std::fs::read_to_string(self.out.with_file_name("stderr")).unwrap()
                );
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        Output {
            status,
            stdout: std::fs::read(&self.out).unwrap(),
            stderr: std::fs::read(self.out.with_file_name("stderr")).unwrap(),
        }
    }
}

impl Drop for Controller {
    fn drop(&mut self) {
        if let Some(c) = self.child.as_mut() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

fn hosts_of(run: &Value) -> &Vec<Value> {
    ptr(run, "hosts").as_array().unwrap()
}

fn names(run: &Value) -> Vec<String> {
    hosts_of(run)
        .iter()
        .map(|h| h["host"].as_str().unwrap().to_string())
        .collect()
}

/// Every aggregate count of `run` in direction `dir` is the sum of its
/// hosts', and its percentiles those of the hosts' histograms merged.
fn check_aggregate(run: &Value, dir: &str) {
    let hosts = hosts_of(run);
    for k in ["ops", "bytes"] {
        for d in [dir, "total"] {
            let sum: u64 = hosts
                .iter()
                .map(|h| u(h, &format!("summary/{d}/{k}")))
                .sum();
            assert_eq!(u(run, &format!("summary/{d}/{k}")), sum, "{d} {k}");
        }
    }
    let m = merged_buckets(
        hosts
            .iter()
            .map(|h| ptr(h, &format!("latency_histograms/{dir}"))),
    );
    assert_eq!(
        m.values().sum::<u64>(),
        u(run, &format!("summary/{dir}/ops")),
        "the merged histograms do not count every I/O"
    );
    for (q, key) in [(0.5, "p50"), (0.99, "p99"), (0.999, "p99_9")] {
        let want = percentile(&m, q) as f64 / 1e3;
        let got = f(run, &format!("summary/{dir}/lat_us/{key}"));
        eprintln!("{dir} {key}: {got} us (merged histograms: {want} us)");
        assert!(
            (got - want).abs() < 0.0015,
            "{dir} {key}: {got} us, the merged histograms give {want}"
        );
    }
}

/// The lines of `out` starting with `prefix` and a space.
fn count_lines(out: &str, prefix: &str) -> usize {
    let p = format!("{prefix} ");
    out.lines().filter(|l| l.starts_with(&p)).count()
}

/// (ops, bytes) a device did in direction `dir` between two diskstats.
fn moved(before: (u64, u64, u64, u64), after: (u64, u64, u64, u64), dir: &str) -> (u64, u64) {
    match dir {
        "read" => (after.0 - before.0, (after.1 - before.1) * 512),
        _ => (after.2 - before.2, (after.3 - before.3) * 512),
    }
}

#[test]
fn two_hosts_over_ssh_each_match_their_device_and_the_total_is_their_sum() {
    require_root!();
    require_sshd!();
    let sshd = Sshd::start(&["h1", "h2"]).unwrap();
    // Reads and writes in runs of their own: udev reads a device again
    // after a writer closes it, which would count among a run's reads.
    for (rw, dir) in [("randwrite", "write"), ("randread", "read")] {
        let (a, b) = two_devices();
        let bed = Bed::new();
        let cfg = bed.config(&[(&sshd, None)]);
        let (ta, tb) = (
            format!("h1:{}", a.path_str()),
            format!("h2:{}", b.path_str()),
        );
        let args = bed.args(
            "h1,h2",
            &cfg,
            &[
                "--target",
                &ta,
                "--target",
                &tb,
                "--destroy-data-on",
                &ta,
                "--destroy-data-on",
                &tb,
                "--rw",
                rw,
                "--bs",
                "4k",
                "--qd",
                "4",
                "--duration",
                "1.5s",
                "--interval",
                "0.5s",
            ],
        );
        let before = [diskstats(&a.name()).unwrap(), diskstats(&b.name()).unwrap()];
        let o = Controller::start(&bed, &args).wait(Duration::from_secs(60));
        let after = [diskstats(&a.name()).unwrap(), diskstats(&b.name()).unwrap()];
        assert!(o.status.success(), "{}\n{}", stderr(&o), sshd.log());
        let doc = bed.doc();
        let run = &ptr(&doc, "runs")[0];
        assert_eq!(names(run), ["h1", "h2"]);
        let within = |a: u64, b: u64| (a as f64 - b as f64).abs() <= b.max(1) as f64 * 0.01;
        for (i, h) in hosts_of(run).iter().enumerate() {
            let (ops, bytes) = moved(before[i], after[i], dir);
            let mine_ops = u(h, &format!("summary/{dir}/ops"));
            let mine = u(h, &format!("summary/{dir}/bytes"));
            eprintln!(
                "{rw} {}: iolab {mine_ops} I/Os {mine} B, the device {ops} I/Os {bytes} B",
                h["host"]
            );
            assert!(mine > 0, "{rw} {}: no I/O", h["host"]);
            assert!(
                within(ops, mine_ops),
                "{rw} {}: device {ops}, iolab {mine_ops}",
                h["host"]
            );
            assert!(
                within(bytes, mine),
                "{rw} {}: device {bytes} B, iolab {mine}",
                h["host"]
            );
            // Each host's record names its own device.
            let path = h["targets"][0]["path"].as_str().unwrap_or_default();
            assert!(
                path.ends_with(&[&a, &b][i].name()),
                "{} on {path}",
                h["host"]
            );
        }
        check_aggregate(run, dir);
        eprintln!(
            "{rw}: start skew {:.1} us; clocks {} {}",
            f(run, "start_skew_us"),
            hosts_of(run)[0]["clock"],
            hosts_of(run)[1]["clock"]
        );
        // A line per host and the total, per interval.
        let out = stdout(&o);
        assert!(count_lines(&out, "h1") >= 2, "{out}");
        assert_eq!(count_lines(&out, "h1"), count_lines(&out, "h2"), "{out}");
        assert_eq!(count_lines(&out, "h1"), count_lines(&out, "total"), "{out}");
        assert!(
            wait_until(Duration::from_secs(5), || bed.agents().is_empty()),
            "agents left: {:?}",
            bed.agents()
        );
    }
}

/// A file `name` in the bed (absolute, as every host sees it here).
fn file(bed: &Bed, name: &str) -> String {
    bed.path().join(name).display().to_string()
}

/// The null engine (no I/O) on a small file of the bed for each of h1
/// and h2: one run (without a target, iolab runs its default plan of
/// four). Each host has its own file: here both hosts share one file
/// system, and two agents creating one path race (the one that loses
/// sees a file it did not create and rightly refuses it).
fn null_on(bed: &Bed) -> Vec<String> {
    let (a, b) = (file(bed, "null-h1.dat"), file(bed, "null-h2.dat"));
    let (a, b) = (format!("h1:{a}"), format!("h2:{b}"));
    [
        "--engine", "null", "--target", &a, "--target", &b, "--size", "1m", "--bs", "4k",
    ]
    .map(String::from)
    .to_vec()
}

/// The run of `bed`'s document gave each host its own file and wrote it.
fn check_own_files(bed: &Bed, want: [&str; 2]) {
    let doc = bed.doc();
    let runs = ptr(&doc, "runs").as_array().unwrap();
    assert_eq!(runs.len(), 1);
    let run = &runs[0];
    assert_eq!(names(run), ["h1", "h2"]);
    for (h, name) in hosts_of(run).iter().zip(want) {
        let path = file(bed, name);
        assert_eq!(h["targets"][0]["path"], path.as_str(), "{}", h["host"]);
        assert!(u(h, "summary/write/bytes") > 0, "{}: no I/O", h["host"]);
        let len = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
        assert_eq!(len, 4 << 20, "{path}");
    }
    // The aggregate names each host's target as HOST:PATH.
    let agg: Vec<&str> = ptr(run, "targets")
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["path"].as_str().unwrap())
        .collect();
    for (h, name) in ["h1", "h2"].iter().zip(want) {
        let q = format!("{h}:{}", file(bed, name));
        assert!(agg.contains(&q.as_str()), "{q} not in {agg:?}");
    }
    check_aggregate(run, "write");
}

#[test]
fn per_host_target_names_from_a_job_file_map_and_a_host_file() {
    require_sshd!();
    let sshd = Sshd::start(&["h1", "h2"]).unwrap();
    let bed = Bed::new();
    let cfg = bed.config(&[(&sshd, None)]);
    let job = format!(
        "hosts = [\"h1\", \"h2\"]\n\n[global]\nrw = \"randwrite\"\nbs = \"4k\"\nsize = \"4m\"\n\
         duration = \"1s\"\n\n[[workload]]\nname = \"db\"\n\
         target = {{ h1 = \"{}\", h2 = \"{}\" }}\n",
        file(&bed, "a.dat"),
        file(&bed, "b.dat")
    );
    std::fs::write(bed.path().join("job.toml"), job).unwrap();
    let o =
        Controller::start(&bed, &bed.args("", &cfg, &["job.toml"])).wait(Duration::from_secs(60));
    assert!(o.status.success(), "{}", stderr(&o));
    check_own_files(&bed, ["a.dat", "b.dat"]);
    // A host file's per-host targets.
    std::fs::write(
        bed.path().join("hosts"),
        format!(
            "# one file each\nh1 {}\nh2 {}\n",
            file(&bed, "c.dat"),
            file(&bed, "d.dat")
        ),
    )
    .unwrap();
    let args = bed.args(
        "",
        &cfg,
        &[
            "--hosts-file",
            "hosts",
            "--rw",
            "randwrite",
            "--bs",
            "4k",
            "--size",
            "4m",
            "--duration",
            "1s",
        ],
    );
    let o = Controller::start(&bed, &args).wait(Duration::from_secs(60));
    assert!(o.status.success(), "{}", stderr(&o));
    check_own_files(&bed, ["c.dat", "d.dat"]);
    assert!(bed.agents().is_empty(), "agents left: {:?}", bed.agents());
}

/// The checks of a run of `bed` where h2 was lost and h1 ran on
/// (`--on-host-loss continue`): exit 1, the loss said, h2's intervals up
/// to the loss kept, h1 complete, the aggregate their sum. The end of
/// h2's last interval.
fn check_lost_h2(bed: &Bed, o: &Output, cut_s: f64, duration_s: f64) -> f64 {
    let err = stderr(o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("iolab: host h2 lost at "), "{err}");
    let doc = bed.doc();
    let runs = ptr(&doc, "runs").as_array().unwrap();
    assert_eq!(runs.len(), 1);
    let run = &runs[0];
    assert_eq!(run["complete"], false);
    let (h1, h2) = (&hosts_of(run)[0], &hosts_of(run)[1]);
    assert!(h1.get("lost").is_none(), "{}", h1["lost"]);
    assert_eq!(h1["complete"], true, "{}", h1["incomplete_reason"]);
    let m1 = f(h1, "measured_s");
    assert!(m1 > duration_s - 0.1, "h1 ran {m1} s");
    let at = f(h2, "lost/at_s");
    eprintln!(
        "h2 lost at {at:.2} s ({}); h1 ran {m1:.2} s",
        h2["lost"]["reason"]
    );
    assert!(at > cut_s && at < duration_s + 3.0, "lost at {at} s");
    let iv = ptr(h2, "intervals").as_array().unwrap();
    assert!(!iv.is_empty(), "h2's intervals were not kept");
    let last_end = iv.iter().map(|i| f(i, "end_s")).fold(0.0, f64::max);
    eprintln!("h2 kept {} intervals, up to {last_end:.2} s", iv.len());
    assert!(last_end <= at + 0.01, "an interval of h2 after its loss");
    assert!(u(h2, "summary/read/ops") > 0, "h2's figures were not kept");
    let total: u64 = [h1, h2].iter().map(|h| u(h, "summary/read/ops")).sum();
    assert_eq!(u(run, "summary/read/ops"), total);
    last_end
}

/// A null-engine read run of `secs` on h1 and h2 that goes on without a
/// lost host.
fn loss_args(bed: &Bed, cfg: &str, secs: &str) -> Vec<String> {
    let mut more = null_on(bed);
    more.extend(
        [
            "--rw",
            "randread",
            "--duration",
            secs,
            "--interval",
            "0.25s",
            "--on-host-loss",
            "continue",
        ]
        .map(String::from),
    );
    let more: Vec<&str> = more.iter().map(|s| s.as_str()).collect();
    bed.args("h1,h2", cfg, &more)
}

#[test]
fn a_host_whose_link_is_cut_is_lost_with_its_intervals_and_the_other_completes() {
    require_root!();
    require_sshd!();
    require_tool!("ip");
    let near = Sshd::start(&["h1"]).unwrap();
    let far = Sshd::start_netns(&["h2"]).unwrap();
    let bed = Bed::new();
    let cfg = bed.config(&[(&near, None), (&far, None)]);
    let mut c = Controller::start(&bed, &loss_args(&bed, &cfg, "3s"));
    bed.wait_started(&mut c);
    std::thread::sleep(Duration::from_millis(500));
    assert!(c.running(), "the run ended before the cut");
    assert_eq!(bed.agents_of(&far).len(), 1, "h2's agent");
    far.cut().unwrap();
    let cut = Instant::now();
    let o = c.wait(Duration::from_secs(30));
    eprintln!("ended {:.2} s after the cut", cut.elapsed().as_secs_f64());
    let last = check_lost_h2(&bed, &o, 0.3, 3.0);
    assert!(
        last < 2.0,
        "h2's intervals go on to {last} s after a cut at ~0.5 s"
    );
    // The far agent hears nothing either: it stops and exits by itself.
    assert!(
        wait_until(Duration::from_secs(5), || bed.agents().is_empty()),
        "agents left: {:?}",
        bed.agents()
    );
}

#[test]
fn an_agent_killed_over_ssh_is_lost_with_its_intervals_and_the_other_completes() {
    require_sshd!();
    let near = Sshd::start(&["h1"]).unwrap();
    let far = Sshd::start(&["h2"]).unwrap();
    let bed = Bed::new();
    let cfg = bed.config(&[(&near, None), (&far, None)]);
    let mut c = Controller::start(&bed, &loss_args(&bed, &cfg, "2s"));
    bed.wait_started(&mut c);
    std::thread::sleep(Duration::from_millis(500));
    assert!(c.running(), "the run ended before the kill");
    let victims = bed.agents_of(&far);
    assert_eq!(victims.len(), 1, "h2's agent");
    // SAFETY: h2's agent, started through this test's own path.
    unsafe { libc::kill(victims[0], libc::SIGKILL) };
    let o = c.wait(Duration::from_secs(30));
    check_lost_h2(&bed, &o, 0.3, 2.0);
    assert!(
        wait_until(Duration::from_secs(5), || bed.agents().is_empty()),
        "agents left: {:?}",
        bed.agents()
    );
}

#[test]
fn refused_logins_are_one_line_naming_the_host_exit_2_and_no_io() {
    require_sshd!();
    let good = Sshd::start(&["h1"]).unwrap();
    let bad = Sshd::start(&["h2"]).unwrap();
    for how in [Broken::UnknownHostKey, Broken::NoKey, Broken::WrongUser] {
        let bed = Bed::new();
        let cfg = bed.config(&[(&good, None), (&bad, Some(how))]);
        let target = file(&bed, "t.dat");
        let args = bed.args(
            "h1,h2",
            &cfg,
            &[
                "--target",
                &target,
                "--size",
                "4m",
                "--rw",
                "write",
                "--duration",
                "1s",
            ],
        );
        let o = Controller::start(&bed, &args).wait(Duration::from_secs(30));
        let err = stderr(&o);
        eprint!("{how:?}: {err}");
        assert_eq!(o.status.code(), Some(2), "{how:?}: {err}");
        let lines: Vec<&str> = err.lines().filter(|l| !l.trim().is_empty()).collect();
        assert_eq!(lines.len(), 1, "{how:?}: {err}");
        assert!(lines[0].starts_with("iolab: host h2: "), "{how:?}: {err}");
        assert!(
            !Path::new(&target).exists(),
            "{how:?}: a host created its target"
        );
        assert!(!bed.path().join("r.json").exists(), "{how:?}: a document");
        assert!(
            wait_until(Duration::from_secs(5), || bed.agents().is_empty()),
            "{how:?}: agents left: {:?}",
            bed.agents()
        );
    }
}

/// An agent that answers the controller's hello with another iolab
/// version (a frame written by printf), then waits for its stdin's end.
const OTHER_VERSION: &str = r#"#!/bin/sh
j='{"type":"hello","protocol":1,"version":"0.0.0-other","arch":"'"$(uname -m)"'","host":{"hostname":"old","kernel":"k","os":"o","cpus":1,"memory_bytes":0},"pid":'$$'}'
printf "iolb\000\000\000\\$(printf %03o ${#j})%s" "$j"
exec cat >/dev/null
"#;

#[test]
fn another_version_is_refused_naming_both_versions() {
    require_sshd!();
    let sshd = Sshd::start(&["h1", "h2"]).unwrap();
    let bed = Bed::new();
    let cfg = bed.config(&[(&sshd, None)]);
    let script = bed.path().join("old-iolab");
    std::fs::write(&script, OTHER_VERSION).unwrap();
    std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let target = file(&bed, "t.dat");
    let mut args = bed.args(
        "h1",
        &cfg,
        &[
            "--target",
            &target,
            "--size",
            "4m",
            "--rw",
            "write",
            "--duration",
            "1s",
        ],
    );
    let at = args.iter().position(|a| a == "--agent-path").unwrap();
    args[at + 1] = script.display().to_string();
    let o = Controller::start(&bed, &args).wait(Duration::from_secs(30));
    let err = stderr(&o);
    eprint!("{err}");
    assert_eq!(o.status.code(), Some(2), "{err}");
    let lines: Vec<&str> = err.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(lines.len(), 1, "{err}");
    assert!(lines[0].starts_with("iolab: host h1 "), "{err}");
    assert!(lines[0].contains("0.0.0-other"), "{err}");
    assert!(lines[0].contains(env!("CARGO_PKG_VERSION")), "{err}");
    assert!(!Path::new(&target).exists(), "the target was created");
}

/// The listening TCP sockets: (local address, owners' pids).
fn listening() -> BTreeMap<String, Vec<u32>> {
    let o = Command::new("ss").args(["-ltnpH"]).output().unwrap();
    assert!(o.status.success(), "ss: {}", stderr(&o));
    let mut m = BTreeMap::new();
    for line in String::from_utf8_lossy(&o.stdout).lines() {
        let w: Vec<&str> = line.split_whitespace().collect();
        if w.len() < 4 {
            continue;
        }
        let pids = line
            .split("pid=")
            .skip(1)
            .filter_map(|s| s.split(|c: char| !c.is_ascii_digit()).next()?.parse().ok())
            .collect();
        m.insert(w[3].to_string(), pids);
    }
    m
}

#[test]
fn nothing_listens_during_a_run() {
    require_sshd!();
    require_tool!("ss");
    let sshd = Sshd::start(&["h1", "h2"]).unwrap();
    let bed = Bed::new();
    let cfg = bed.config(&[(&sshd, None)]);
    let own = format!("127.0.0.1:{}", sshd.port());
    let before = listening();
    assert!(
        before.contains_key(&own),
        "the test's sshd is not listening"
    );
    let mut more = null_on(&bed);
    more.extend(["--rw", "randread", "--duration", "2s"].map(String::from));
    let more: Vec<&str> = more.iter().map(|s| s.as_str()).collect();
    let mut c = Controller::start(&bed, &bed.args("h1,h2", &cfg, &more));
    bed.wait_started(&mut c);
    let (mut samples, mut foreign) = (0, BTreeSet::new());
    while c.running() {
        let now = listening();
        // Ours: the controller and everything it started (ssh and its
        // masters), the agents, every process of the test sshd's sessions.
        let mut ours: BTreeSet<u32> = iolab_testutil::sshd::descendants(c.pid() as u32)
            .into_iter()
            .collect();
        ours.insert(c.pid() as u32);
        ours.extend(bed.agents().iter().map(|&p| p as u32));
        ours.extend(sshd.session_pids());
        assert!(now.contains_key(&own), "the test's sshd stopped listening");
        for (addr, pids) in &now {
            if before.contains_key(addr) {
                continue;
            }
            // Another program of this shared machine (another test's sshd)
            // may start listening meanwhile; a socket of the run's never.
            // (ss names the owners of every socket to root only.)
            assert!(
                !pids.iter().any(|p| ours.contains(p)),
                "the run listens on {addr} ({pids:?})"
            );
            assert!(
                !pids.is_empty() || !iolab_testutil::is_root(),
                "a new listener {addr} of no process"
            );
            foreign.insert(format!("{addr} {pids:?}"));
        }
        samples += 1;
        std::thread::sleep(Duration::from_millis(100));
    }
    let o = c.wait(Duration::from_secs(30));
    assert!(o.status.success(), "{}", stderr(&o));
    eprintln!("{samples} samples of ss during the run; listeners not of the run's: {foreign:?}");
    assert!(samples >= 5, "only {samples} samples during the run");
}

/// The ssh processes still running with `cfg` on their command line.
fn ssh_left(cfg: &str) -> Vec<u32> {
    let mut out = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = e.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(cmd) = std::fs::read(e.path().join("cmdline")) else {
            continue;
        };
        let argv: Vec<&[u8]> = cmd.split(|b| *b == 0).collect();
        if argv[0].ends_with(b"ssh") && argv.contains(&cfg.as_bytes()) {
            out.push(pid);
        }
    }
    out
}

#[test]
fn ctrl_c_over_ssh_stops_every_agent_and_keeps_both_hosts_figures() {
    require_sshd!();
    let sshd = Sshd::start(&["h1", "h2"]).unwrap();
    let bed = Bed::new();
    let cfg = bed.config(&[(&sshd, None)]);
    let mut more = null_on(&bed);
    more.extend(
        [
            "--rw",
            "randread",
            "--duration",
            "30s",
            "--interval",
            "0.25s",
        ]
        .map(String::from),
    );
    let more: Vec<&str> = more.iter().map(|s| s.as_str()).collect();
    let mut c = Controller::start(&bed, &bed.args("h1,h2", &cfg, &more));
    bed.wait_started(&mut c);
    std::thread::sleep(Duration::from_millis(1000));
    assert_eq!(bed.agents().len(), 2, "{:?}", bed.agents());
    // SAFETY: signalling the controller this test started.
    unsafe { libc::kill(c.pid(), libc::SIGINT) };
    let sent = Instant::now();
    let o = c.wait(Duration::from_secs(20));
    eprintln!("ended {:.2} s after SIGINT", sent.elapsed().as_secs_f64());
    assert_eq!(o.status.code(), Some(130), "{}", stderr(&o));
    let doc = bed.doc();
    assert_eq!(doc["complete"], false);
    let run = &ptr(&doc, "runs")[0];
    assert_eq!(names(run), ["h1", "h2"]);
    for h in hosts_of(run) {
        let m = f(h, "measured_s");
        eprintln!(
            "{}: {} reads in {m:.2} s",
            h["host"],
            u(h, "summary/read/ops")
        );
        assert!(u(h, "summary/read/ops") > 0, "{}: nothing kept", h["host"]);
        assert!(m > 0.5 && m < 10.0, "{}: measured {m} s", h["host"]);
    }
    check_aggregate(run, "read");
    assert!(
        wait_until(Duration::from_secs(5), || bed.agents().is_empty()),
        "agents left: {:?}",
        bed.agents()
    );
    assert!(
        wait_until(Duration::from_secs(5), || ssh_left(&cfg).is_empty()),
        "ssh left: {:?}",
        ssh_left(&cfg)
    );
}
