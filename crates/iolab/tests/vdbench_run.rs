//! vdbench parameter files end to end: the FC white paper's appendix
//! (examples/vdbench/fc-appendix.vdb) runs unchanged against a loop device
//! (`lun=/dev/loopN`), with iolab's flags shortening its 200 s warm-ups,
//! 90 s runs and 10 s pauses; the result document holds the paper's runs
//! with their parameters, the device saw the I/O, and `iolab report`
//! draws them. Needs root for the loop device (skips with a reason
//! elsewhere, fails under CI).

mod common;
use common::*;
use iolab_testutil::{diskstats, require_io_uring, require_root, LoopDevice, TmpfsMount};
use std::path::PathBuf;

fn appendix() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/vdbench/fc-appendix.vdb")
}

/// The runs the appendix gives, in order: (name, read %, random %,
/// read hit %, write hit %, O_DSYNC).
fn expected() -> Vec<(String, u64, u64, u64, u64, bool)> {
    let mut v = Vec::new();
    for rh in [0, 100] {
        for sk in [0, 100] {
            v.push((
                format!("rd_read xfersize=8k threads=32 rhpct={rh} seekpct={sk}"),
                100,
                sk,
                rh,
                0,
                false,
            ));
        }
    }
    for (rd, dsync) in [("rd_write", false), ("rd_dsync", true)] {
        for wh in [0, 100] {
            for sk in [0, 100] {
                v.push((
                    format!("{rd} xfersize=8k threads=32 whpct={wh} seekpct={sk}"),
                    0,
                    sk,
                    0,
                    wh,
                    dsync,
                ));
            }
        }
    }
    for rh in [25, 75] {
        v.push((
            format!("rd_db xfersize=8k threads=32 rhpct={rh}"),
            75,
            100,
            rh,
            5,
            false,
        ));
    }
    v
}

#[test]
fn the_fc_appendix_runs_unchanged_on_a_loop_device_and_reports() {
    require_root!();
    require_io_uring!();
    // Bigger than the 1 GiB hit area; sparse, on a tmpfs so that what
    // the runs write (some 100 MB) costs no disk and detaches at once.
    let tmpfs = TmpfsMount::new("2g").unwrap();
    let dev = LoopDevice::new_in(Some(tmpfs.path()), 1536 << 20, false).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(300)); // udev probing
    let d = tempfile::tempdir().unwrap();
    let lun = format!("lun={}", dev.path_str());
    let file = appendix();
    let file = file.to_str().unwrap();
    // The plan first: the paper's runs, its pauses overridden.
    let plan = iolab()
        .args(["run", file, &lun, "--destroy-data-on", dev.path_str()])
        .args(["--duration", "200ms", "--warmup", "0", "--pause", "0"])
        .args(["--interval", "100ms", "--dry-run"])
        .output()
        .unwrap();
    assert!(plan.status.success(), "{}", stderr(&plan));
    let text = stdout(&plan);
    assert!(text.contains("14 runs"), "{text}");
    assert!(!text.contains("pause between runs"), "{text}");
    let before = diskstats(&dev.name()).unwrap();
    let (out, doc) = run_json(
        &[
            file,
            &lun,
            "--destroy-data-on",
            dev.path_str(),
            "--duration",
            "200ms",
            "--warmup",
            "0",
            "--pause",
            "0",
            "--interval",
            "100ms",
        ],
        d.path(),
    );
    let after = diskstats(&dev.name()).unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let runs = ptr(&doc, "runs").as_array().unwrap();
    let want = expected();
    let names: Vec<&str> = runs.iter().map(|r| r["name"].as_str().unwrap()).collect();
    let want_names: Vec<&str> = want.iter().map(|w| w.0.as_str()).collect();
    assert_eq!(names, want_names);
    for (r, (name, read, random, rh, wh, dsync)) in runs.iter().zip(&want) {
        let ws = r["workloads"].as_array().unwrap();
        assert_eq!(ws.len(), 1, "{name}");
        let s = &ws[0]["spec"];
        let at = |k: &str| s[k].clone();
        assert_eq!(at("read_pct"), *read, "{name}");
        assert_eq!(at("random_pct"), *random, "{name}");
        assert_eq!(at("read_hit_pct"), *rh, "{name}");
        assert_eq!(at("write_hit_pct"), *wh, "{name}");
        assert_eq!(at("hit_area"), 1u64 << 30, "{name}");
        assert_eq!(at("qd"), 32, "{name}");
        assert_eq!(at("jobs"), 1, "{name}");
        assert_eq!(at("bs")[0]["bytes"], 8192, "{name}");
        assert_eq!(at("direct"), true, "{name}");
        assert_eq!(at("sync") == "dsync", *dsync, "{name}");
        assert!(at("rate_iops").is_null(), "{name}: iorate=max");
        assert_eq!(s["origin"]["format"], "vdbench", "{name}");
        assert_eq!(r["warmup_s"], 0.0, "{name}: --warmup overrides warmup=200");
        let m = r["measured_s"].as_f64().unwrap();
        assert!(m < 5.0, "{name}: --duration overrides elapsed=90 ({m} s)");
        assert!(u(r, "summary/total/ops") > 0, "{name} did no I/O");
    }
    // The device saw reads and writes.
    assert!(after.0 > before.0, "no reads reached {}", dev.name());
    assert!(after.2 > before.2, "no writes reached {}", dev.name());
    let page = report_html(d.path(), "fc.html");
    for n in ["rd_read", "rd_write", "rd_dsync", "rd_db"] {
        assert!(page.contains(n), "the report has no run {n}");
    }
}

/// `--parse-only` prints the plan of a vdbench file without touching
/// the LUN (none is needed: a path that does not exist).
#[test]
fn parse_only_prints_a_vdbench_plan() {
    let out = iolab()
        .args(["run", appendix().to_str().unwrap(), "lun=/dev/iolab-none"])
        .arg("--parse-only")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("14 runs"), "{text}");
    assert!(
        text.contains("rd_db xfersize=8k threads=32 rhpct=75"),
        "{text}"
    );
    assert!(text.contains("10 s pause between runs"), "{text}");
}

/// A refusal: one line with the file and line, exit code 2, nothing run.
#[test]
fn a_host_definition_over_rsh_is_refused_in_one_line() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("hd.vdb");
    std::fs::write(
        &p,
        "hd=host1,system=node1,shell=rsh\nsd=sd1,lun=/dev/iolab-none\nwd=wd1,sd=sd1\nrd=rd1,wd=wd1,iorate=max\n",
    )
    .unwrap();
    let out = iolab().arg("run").arg(&p).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let e = stderr(&out);
    assert_eq!(e.trim().lines().count(), 1, "{e}");
    assert!(
        e.contains("hd.vdb:1") && e.contains("only through ssh or --remote-shell"),
        "{e}"
    );
}

/// Every parameter file of the jobfile corpus that maps (its golden is
/// not a refusal) also plans: the planner takes each key the mapper
/// writes (`--parse-only` looks at no target).
#[test]
fn every_corpus_file_that_maps_also_plans() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../jobfile/tests/vdbench");
    let mut n = 0;
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_name().unwrap().to_string_lossy().to_string();
        let golden = std::fs::read_to_string(p.with_extension("golden")).unwrap_or_default();
        if !name.ends_with(".vdb") || golden.starts_with("error: ") {
            continue;
        }
        let text = std::fs::read_to_string(&p).unwrap();
        let mut cmd = iolab();
        cmd.arg("run").arg(&p).arg("--parse-only");
        for l in text.lines().filter_map(|l| l.strip_prefix("*% ")) {
            let (k, v) = l.split_once(' ').unwrap_or((l, ""));
            match k {
                "var" => {
                    cmd.arg(v);
                }
                "flags" => {
                    cmd.arg("--vdbench-flags").arg(v);
                }
                "ignore-unsupported" => {
                    cmd.arg("--ignore-unsupported");
                }
                other => panic!("{name}: unknown directive {other}"),
            }
        }
        let out = cmd.output().unwrap();
        assert!(out.status.success(), "{name}: {}", stderr(&out));
        assert!(stdout(&out).contains("plan:"), "{name}: {}", stdout(&out));
        n += 1;
    }
    assert!(n >= 15, "{n} corpus files planned");
}

/// Validation by two workloads writing one target would report data loss
/// that did not happen (each keeps its own map of what it wrote): a
/// vdbench file with two wds on one sd is refused with its file and line,
/// and iolab's own `--workload`s the same way, before any I/O.
#[test]
fn validation_by_two_workloads_on_one_target_is_refused() {
    let d = tempfile::tempdir().unwrap();
    let img = d.path().join("dv.img");
    let p = d.path().join("dv.vdb");
    std::fs::write(
        &p,
        format!(
            "validate=yes\nsd=sd1,lun={},size=4m,threads=4\nwd=w1,sd=sd1,rdpct=50,xfersize=4k\nwd=w2,sd=sd1,rdpct=50,xfersize=4k\nrd=rd1,wd=w*,elapsed=2,interval=1,warmup=0\n",
            img.display()
        ),
    )
    .unwrap();
    let out = iolab().arg("run").arg(&p).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let e = stderr(&out);
    assert_eq!(e.trim().lines().count(), 1, "{e}");
    assert!(
        e.contains("dv.vdb:2") && e.contains("wd=w1") && e.contains("wd=w2") && e.contains("stale"),
        "{e}"
    );
    let out = iolab()
        .args([
            "run",
            "--size",
            "4m",
            "--duration",
            "1s",
            "--verify",
            "--target",
        ])
        .arg(&img)
        .args([
            "--workload",
            "a",
            "--rw",
            "randrw",
            "--workload",
            "b",
            "--rw",
            "randwrite",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let e = stderr(&out);
    assert_eq!(e.trim().lines().count(), 1, "{e}");
    assert!(
        e.contains("workload 'a'") && e.contains("one workload per target"),
        "{e}"
    );
    assert!(!img.exists(), "refused before any I/O");
}
