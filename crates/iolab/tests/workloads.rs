//! Runs of several workloads from the front ends: every example job file
//! dry-runs, `[[run]]` job files and `--workload NAME` on the command line
//! plan the workloads that run together, and bad input is one line, exit 2.

mod common;
use common::*;
use std::path::{Path, PathBuf};

fn examples() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    v.sort();
    v
}

/// `iolab run JOB --dry-run` in `dir` (relative targets resolve there).
fn dry_run_job(dir: &Path, job: &Path) -> std::process::Output {
    iolab()
        .current_dir(dir)
        .arg("run")
        .arg(job)
        .arg("--dry-run")
        .output()
        .unwrap()
}

/// Every example, its placeholder devices replaced by a file iolab would
/// create (nothing is created by a dry run), plans without an error.
#[test]
fn every_example_dry_runs() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("f");
    let mut concurrent = Vec::new();
    // An empty directory: a personality's filesets go below it.
    let anchor = dir.path().join("fs");
    std::fs::create_dir(&anchor).unwrap();
    for ex in examples() {
        // A file-system example gets a directory instead of a target.
        let text = std::fs::read_to_string(&ex).unwrap();
        let files = text
            .lines()
            .any(|l| l.starts_with("dir ") || l.starts_with("anchor "));
        let (flag, path, size) = if files {
            ("--dir", &anchor, [].as_slice())
        } else {
            ("--target", &target, ["--size", "2g"].as_slice())
        };
        let out = iolab()
            .arg("run")
            .arg(&ex)
            .arg(flag)
            .arg(path)
            .args(size)
            .args(["--duration", "90s", "--dry-run"])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}: {}", ex.display(), stderr(&out));
        let text = stdout(&out);
        assert!(text.starts_with("plan: "), "{}: {text}", ex.display());
        if text.contains("workloads together") {
            concurrent.push(ex.file_name().unwrap().to_string_lossy().into_owned());
        }
    }
    assert!(!target.exists(), "a dry run created the target");
    assert_eq!(
        std::fs::read_dir(&anchor).unwrap().count(),
        0,
        "a dry run created files under the anchor"
    );
    for name in [
        "db-with-backup.toml",
        "read-while-write.toml",
        "staggered-streams.toml",
    ] {
        assert!(
            concurrent.iter().any(|c| c == name),
            "{name}: {concurrent:?}"
        );
    }
}

#[test]
fn a_job_file_run_dry_runs_with_its_workloads() {
    let dir = tempfile::tempdir().unwrap();
    let job = dir.path().join("j.toml");
    std::fs::write(
        &job,
        format!(
            r#"
[global]
target = "{}"
size = "16m"

[[run]]
name = "pair"
duration = "30s"
rate = 2000
qd = [1, 8]

[[run.workload]]
name = "reader"
rw = "randread"
skew = 25

[[run.workload]]
name = "writer"
rw = "write"
bs = "1m"
start_delay = "5s"
"#,
            dir.path().join("f").display()
        ),
    )
    .unwrap();
    let out = dry_run_job(dir.path(), &job);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains("2 runs (2 points x 1 repeat), sweeping qd"),
        "{text}"
    );
    let lines: Vec<&str> = text.lines().collect();
    let pair = lines
        .iter()
        .filter(|l| l.contains("pair") && l.contains("qd="))
        .count();
    assert_eq!(pair, 2, "{text}");
    assert!(
        text.contains("2 workloads together, rate 2000/s shared"),
        "{text}"
    );
    assert!(text.contains("- reader: randread 4 KiB"), "{text}");
    assert!(text.contains("rate 500/s (skew 25%)"), "{text}");
    assert!(
        text.contains("- writer: write 1 MiB") && text.contains("starts +5 s"),
        "{text}"
    );
    assert!(text.contains("rate 1500/s"), "{text}");
}

#[test]
fn workloads_on_the_command_line_dry_run() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    let out = iolab()
        .args([
            "run",
            "--size",
            "16m",
            "--duration",
            "10s",
            "--rate",
            "1000",
            "--target",
        ])
        .arg(&a)
        .args([
            "--workload",
            "db",
            "--rw",
            "randrw",
            "--bs",
            "8k",
            "--qd",
            "16",
            "--skew",
            "75",
        ])
        .args([
            "--workload",
            "backup",
            "--rw",
            "read",
            "--bs",
            "1m",
            "--target",
        ])
        .arg(&b)
        .args(["--start-delay", "2s", "--duration", "5s", "--dry-run"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("1 run (1 point x 1 repeat)"), "{text}");
    assert!(
        text.contains("db+backup"),
        "unnamed, the run is named after its workloads: {text}"
    );
    let db = text.lines().find(|l| l.contains("- db:")).expect(&text);
    assert!(db.contains("randrw 8 KiB") && db.contains("qd 16"), "{db}");
    assert!(
        db.contains(&a.display().to_string()),
        "the run's target: {db}"
    );
    assert!(db.contains("rate 750/s (skew 75%)"), "{db}");
    let backup = text.lines().find(|l| l.contains("- backup:")).expect(&text);
    assert!(
        backup.contains("read 1 MiB") && backup.contains("qd 1 x"),
        "{backup}"
    );
    assert!(
        backup.contains(&b.display().to_string()),
        "its own target: {backup}"
    );
    assert!(
        backup.contains("starts +2 s") && backup.contains("ends after 5 s"),
        "{backup}"
    );
    assert!(!a.exists() && !b.exists(), "a dry run created a target");

    // A list of a workload is an axis of the run's sweep, named after it.
    let out = iolab()
        .args(["run", "--size", "16m", "--duration", "2s", "--target"])
        .arg(&a)
        .args([
            "--workload",
            "x",
            "--qd",
            "1,4",
            "--workload",
            "y",
            "--dry-run",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains("sweeping x.qd") && text.contains("x.qd=4"),
        "{text}"
    );
}

#[test]
fn bad_workload_flags_are_one_line_and_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let job = dir.path().join("j.toml");
    std::fs::write(&job, "[global]\ntarget = 'f'\n").unwrap();
    let job = job.to_str().unwrap().to_string();
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (
            vec!["--target", "f", "--workload"],
            "--workload needs a name",
        ),
        (
            vec!["--target", "f", "--workload", "a", "--workload", "a"],
            "two workloads are named 'a'",
        ),
        (
            vec!["--target", "f", "--workload", "a", "--qd", "x"],
            "run 'a', workload 'a': --qd: 'x' is not a number",
        ),
        (
            vec!["--target", "f", "--workload", "a", "--name", "b"],
            "named by --workload a",
        ),
        (
            vec!["--target", "f", "--workload", "a", "--bogus"],
            "go before the first --workload",
        ),
        (
            vec![&job, "--workload", "a"],
            "either a job file or --workload",
        ),
        (
            vec![
                "--target",
                "f",
                "--rate",
                "100",
                "--workload",
                "a",
                "--skew",
                "70",
                "--workload",
                "b",
                "--skew",
                "40",
            ],
            "110%",
        ),
        (
            vec![
                "--target",
                "f",
                "--duration",
                "5s",
                "--workload",
                "a",
                "--start-delay",
                "9s",
            ],
            "would start after its run has ended",
        ),
        // A workload alone has no run's rate to take a share of.
        (
            vec!["--target", "f", "--skew", "25"],
            "--skew 25: a share of a run's rate",
        ),
        (
            vec!["--target", "f", "--rate", "100", "--skew", "25"],
            "--skew 25: a share of a run's rate",
        ),
        // The run's --skew is every workload's default: 2 x 60%.
        (
            vec![
                "--target",
                "f",
                "--rate",
                "100",
                "--skew",
                "60",
                "--workload",
                "a",
                "--workload",
                "b",
            ],
            "120%",
        ),
        (
            vec!["--target", "f", "--workload", "a", "--skew", "10,20"],
            "--skew takes one value",
        ),
    ];
    for (args, needle) in cases {
        let out = iolab()
            .current_dir(dir.path())
            .arg("run")
            .args(&args)
            .arg("--dry-run")
            .output()
            .unwrap();
        let e = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {e}");
        assert!(e.contains(needle), "{args:?}: {e}");
        assert_eq!(e.trim_end().lines().count(), 1, "{args:?}: {e}");
    }
}

#[test]
fn a_bad_value_in_a_run_workload_names_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let job = dir.path().join("j.toml");
    std::fs::write(
        &job,
        "[[run]]\nname = 'r'\nduration = '2s'\n\n[[run.workload]]\ntarget = 'a'\n\n[[run.workload]]\ntarget = 'b'\nqd = 0\n",
    )
    .unwrap();
    let out = dry_run_job(dir.path(), &job);
    let e = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{e}");
    assert!(
        e.contains("line 10: run 'r', workload 'r-2': --qd 0"),
        "{e}"
    );
    // Both kinds of table in one file: refused, with the line.
    std::fs::write(
        &job,
        "[[workload]]\ntarget = 'a'\n[[run]]\n[[run.workload]]\ntarget = 'b'\n",
    )
    .unwrap();
    let out = dry_run_job(dir.path(), &job);
    let e = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{e}");
    assert!(
        e.contains("line 1: the file has both [[workload]] and [[run]]"),
        "{e}"
    );
}

/// start_delay and skew in a job file's [global] and [[run]] are the
/// defaults of its workloads, and a flag over the file beats them.
#[test]
fn start_delay_and_skew_in_a_job_file_are_keys_like_any_other() {
    let dir = tempfile::tempdir().unwrap();
    let job = dir.path().join("j.toml");
    std::fs::write(
        &job,
        "[global]\ntarget = 'f'\nsize = '16m'\nstart_delay = '2s'\n\n[[run]]\nname = 'r'\nduration = '10s'\nrate = 1000\nskew = 40\n\n[[run.workload]]\nname = 'a'\n\n[[run.workload]]\nname = 'b'\nskew = 60\nstart_delay = '3s'\n",
    )
    .unwrap();
    let dry = |extra: &[&str]| {
        let out = iolab()
            .current_dir(dir.path())
            .arg("run")
            .arg(&job)
            .args(extra)
            .arg("--dry-run")
            .output()
            .unwrap();
        assert!(out.status.success(), "{extra:?}: {}", stderr(&out));
        stdout(&out)
    };
    let text = dry(&[]);
    let line = |name: &str, text: &str| {
        text.lines()
            .find(|l| l.contains(&format!("- {name}:")))
            .expect(text)
            .to_string()
    };
    let a = line("a", &text);
    assert!(
        a.contains("starts +2 s") && a.contains("rate 400/s (skew 40%)"),
        "{a}"
    );
    let b = line("b", &text);
    assert!(
        b.contains("starts +3 s") && b.contains("rate 600/s (skew 60%)"),
        "{b}"
    );
    let text = dry(&["--start-delay", "1s", "--skew", "50"]);
    for name in ["a", "b"] {
        let w = line(name, &text);
        assert!(w.contains("starts +1 s") && w.contains("(skew 50%)"), "{w}");
    }
    // A bad value in a [[run.workload]] is refused with its line.
    std::fs::write(
        &job,
        "[[run]]\nname = 'r'\nrate = 100\n[[run.workload]]\ntarget = 'f'\nskew = 'lots'\n",
    )
    .unwrap();
    let out = dry_run_job(dir.path(), &job);
    let e = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{e}");
    assert!(e.contains("line 6: run 'r', workload 'r-1': --skew"), "{e}");
    assert_eq!(e.trim_end().lines().count(), 1, "{e}");
}

#[test]
fn run_help_documents_the_workload_syntax() {
    let out = iolab().args(["run", "--help"]).output().unwrap();
    let text = stdout(&out);
    assert!(text.contains("--workload <NAME>"), "{text}");
    assert!(text.contains("--start-delay"), "{text}");
}

/// Two workloads given on the command line really run together: the
/// document keeps them in order, the run's total is their sum, the second
/// starts at its start delay, and each has its own span and intervals.
#[test]
fn two_workloads_run_together_and_the_document_has_each_and_the_total() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.dat");
    let b = dir.path().join("b.dat");
    let (out, doc) = run_json(
        &[
            "--engine",
            "null",
            "--size",
            "1m",
            "--duration",
            "1s",
            "--interval",
            "200ms",
            "--workload",
            "a",
            "--target",
            a.to_str().unwrap(),
            "--rate",
            "3000",
            "--workload",
            "b",
            "--target",
            b.to_str().unwrap(),
            "--rw",
            "randwrite",
            "--rate",
            "2000",
            "--start-delay",
            "400ms",
            "--duration",
            "400ms",
        ],
        dir.path(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let r = &ptr(&doc, "runs")[0];
    let ws = ptr(r, "workloads").as_array().unwrap();
    let names: Vec<&str> = ws.iter().map(|w| w["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["a", "b"]);
    let (wa, wb) = (&ws[0], &ws[1]);
    assert_eq!(
        u(r, "summary/total/ops"),
        u(wa, "summary/total/ops") + u(wb, "summary/total/ops")
    );
    assert_eq!(u(wa, "summary/write/ops"), 0);
    assert_eq!(u(wb, "summary/read/ops"), 0);
    // Paced, so the counts say how long each ran: a 1 s at 3000/s, b
    // 0.4 s at 2000/s from 0.4 s on.
    let (na, nb) = (
        u(wa, "summary/total/ops") as f64,
        u(wb, "summary/total/ops") as f64,
    );
    assert!((na - 3000.0).abs() < 90.0, "a: {na} I/Os");
    assert!((nb - 800.0).abs() < 40.0, "b: {nb} I/Os");
    let (sb, eb) = (f(wb, "start_s"), f(wb, "end_s"));
    assert!((sb - 0.4).abs() < 0.02, "b started at {sb} s");
    assert!((eb - 0.8).abs() < 0.05, "b ended at {eb} s");
    assert!(f(wa, "start_s") < 0.02, "a started at {}", f(wa, "start_s"));
    let iv_b = ptr(wb, "intervals").as_array().unwrap();
    assert!(
        iv_b.iter().all(|iv| iv["end_s"].as_f64().unwrap() > 0.39),
        "b has intervals before it started: {iv_b:?}"
    );
    let text = stdout(&out);
    assert!(text.contains("(total of 2 workloads)"), "{text}");
}
