//! Workloads that act on each other, from fio job files: `exitall` ends
//! the others of its `exit_what` scope when a workload ends (and
//! `exit_what=all` skips the later runs), and `flow` keeps workloads of
//! one flow id near the ratio of their weights.

mod common;
use common::*;

/// A fio job file of `sections` (name, options), each with the options
/// of a null-engine job at 2000 IOPS first.
fn write_job(dir: &std::path::Path, sections: &[(&str, &str)]) -> String {
    let common = "ioengine=null\nfilename=a.dat\nsize=8m\nbs=4k\nrate_iops=2000\n";
    let text: String = sections
        .iter()
        .map(|(name, opts)| format!("[{name}]\n{common}{opts}\n"))
        .collect();
    let p = dir.join("job.fio");
    std::fs::write(&p, text).unwrap();
    p.to_str().unwrap().to_string()
}

#[test]
fn exitall_ends_the_other_workload_when_one_ends() {
    let d = tempfile::tempdir().unwrap();
    let job = write_job(
        d.path(),
        &[
            ("short", "rw=read\nnumber_ios=1000\nexitall"),
            ("long", "rw=randread\ntime_based\nruntime=20"),
        ],
    );
    let t0 = std::time::Instant::now();
    let (out, doc) = run_json(&[&job], d.path());
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(t0.elapsed().as_secs_f64() < 12.0, "the long one ran on");
    let short = ptr(&doc, "runs.0.workloads.0");
    let long = ptr(&doc, "runs.0.workloads.1");
    assert!(short.get("ended_by").is_none(), "{short}");
    let why = long["ended_by"].as_str().expect("long has ended_by");
    assert!(why.contains("exitall") && why.contains("short"), "{why}");
    assert!(
        f(long, "measured_s") < 8.0,
        "long ran {} s",
        f(long, "measured_s")
    );
    assert!(f(long, "end_s") < f(short, "end_s") + 2.0);
    assert_eq!(long["complete"], true, "{}", long["incomplete_reason"]);
    assert_eq!(doc["complete"], true);
}

#[test]
fn exit_what_all_skips_the_later_runs_and_group_spares_other_groups() {
    let d = tempfile::tempdir().unwrap();
    let job = write_job(
        d.path(),
        &[
            ("first", "rw=read\nnumber_ios=600\nexitall\nexit_what=all"),
            ("second", "rw=randread\ntime_based\nruntime=20"),
            ("never", "stonewall\nrw=read\ntime_based\nruntime=20"),
        ],
    );
    let t0 = std::time::Instant::now();
    let (out, doc) = run_json(&[&job], d.path());
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(t0.elapsed().as_secs_f64() < 12.0);
    assert_eq!(
        doc["runs"].as_array().unwrap().len(),
        1,
        "the second run ran"
    );
    assert!(stdout(&out).contains("do not run"), "{}", stdout(&out));
    let second = ptr(&doc, "runs.0.workloads.1");
    assert!(second["ended_by"].as_str().unwrap().contains("first"));
    assert_eq!(doc["complete"], true);

    // exit_what=group (the default) leaves a job of another group running.
    let job = write_job(
        d.path(),
        &[
            ("first", "rw=read\nnumber_ios=600\nexitall"),
            ("other", "new_group\nrw=randread\ntime_based\nruntime=3"),
        ],
    );
    let (out, doc) = run_json(&[&job], d.path());
    assert!(out.status.success(), "{}", stderr(&out));
    let other = ptr(&doc, "runs.0.workloads.1");
    assert!(other.get("ended_by").is_none(), "{other}");
    assert!(f(other, "measured_s") > 2.5, "{}", f(other, "measured_s"));
}

#[test]
fn flow_keeps_two_workloads_near_the_ratio_of_their_weights() {
    let d = tempfile::tempdir().unwrap();
    // No rate: each runs as fast as its flow share lets it.
    let sections: Vec<(&str, &str)> = vec![
        (
            "slow",
            "rw=write\nflow=1\nflow_sleep=100\ntime_based\nruntime=2",
        ),
        (
            "fast",
            "rw=randread\nflow=8\nflow_sleep=100\ntime_based\nruntime=2",
        ),
    ];
    let job = write_job(d.path(), &sections);
    let text = std::fs::read_to_string(&job)
        .unwrap()
        .replace("rate_iops=2000\n", "");
    std::fs::write(&job, text).unwrap();
    let (out, doc) = run_json(&[&job], d.path());
    assert!(out.status.success(), "{}", stderr(&out));
    let ops = |i: usize| f(&doc, &format!("runs.0.workloads.{i}.summary.total.ops"));
    let (slow, fast) = (ops(0), ops(1));
    assert!(slow > 50.0, "slow did {slow}");
    let r = fast / slow;
    assert!((6.0..10.0).contains(&r), "fast/slow = {fast}/{slow} = {r}");
}
