//! Runs of several workloads planned from job-file text: their RunSpec,
//! the axes of their sweeps, flags over them, and errors with their line.

use iolab_jobfile::{parse_job_text, RunOptions, Values};
use iolab_plan::{build, dry_run_text, locate_in_job_file, Location, PlanArgs};

fn runs(text: &str) -> Vec<RunOptions> {
    parse_job_text(text, "t.toml").unwrap().runs().unwrap()
}

const MIX: &str = r#"
[global]
target = "/tmp/iolab-plan-runs-a"
size = "64m"

[[run]]
name = "db-and-backup"
duration = "60s"
warmup = "5s"
rate = 4000
qd = 8

[[run.workload]]
name = "db"
rw = "randrw"
bs = "8k"
skew = 75

[[run.workload]]
name = "backup"
rw = "read"
bs = "1m"
qd = 1
start_delay = "5s"
io_size = "1g"
target = "/tmp/iolab-plan-runs-b"
"#;

#[test]
fn a_run_of_two_workloads_is_one_runspec() {
    let p = build(&runs(MIX), &PlanArgs::default()).unwrap();
    assert_eq!(p.runs.len(), 1);
    let r = &p.runs[0].spec;
    assert_eq!(r.name, "db-and-backup");
    assert_eq!(
        (r.duration_s, r.warmup_s, r.rate_iops),
        (Some(60.0), 5.0, Some(4000.0))
    );
    let names: Vec<&str> = r.workloads.iter().map(|w| w.name.as_str()).collect();
    assert_eq!(names, ["db", "backup"], "the file's order");
    let (db, backup) = (&r.workloads[0], &r.workloads[1]);
    assert_eq!(
        (db.qd, db.bs[0].bytes, db.read_pct),
        (8, 8192, 50),
        "run < workload"
    );
    assert_eq!(backup.qd, 1);
    assert_eq!(
        db.targets[0].path, "/tmp/iolab-plan-runs-a",
        "global under run"
    );
    assert_eq!(backup.targets[0].path, "/tmp/iolab-plan-runs-b");
    assert_eq!(db.targets[0].size, Some(64 << 20));
    assert_eq!(db.duration_s, Some(60.0), "no end of its own: the run's");
    assert_eq!((backup.duration_s, backup.io_size), (None, Some(1 << 30)));
    assert_eq!(backup.start_delay_s, 5.0);
    assert_eq!(db.skew_pct, Some(75.0));
    assert_eq!(r.workload_rates(), vec![Some(3000.0), Some(1000.0)]);
    assert_ne!(db.seed, backup.seed);
    assert_eq!(p.runs[0].planned_s(), Some(65.0));
    let text = dry_run_text(&p);
    assert!(
        text.contains("2 workloads together, rate 4000/s shared"),
        "{text}"
    );
    assert!(
        text.contains("starts +5 s") && text.contains("(skew 75%)"),
        "{text}"
    );
}

#[test]
fn a_run_without_duration_ends_with_its_workloads_or_after_the_default() {
    let t = "[[run]]\n[[run.workload]]\ntarget='/x'\nops=100\n[[run.workload]]\ntarget='/y'\nduration='3s'\nstart_delay='2s'\n";
    let p = build(&runs(t), &PlanArgs::default()).unwrap();
    let r = &p.runs[0];
    assert_eq!(r.spec.duration_s, None);
    assert_eq!(r.spec.name, "run-1");
    let names: Vec<&str> = r.spec.workloads.iter().map(|w| w.name.as_str()).collect();
    assert_eq!(names, ["run-1-1", "run-1-2"], "default names are unique");
    assert_eq!(r.planned_s(), None, "ends by I/O count: unknown");
    assert!(p.estimate_partial);
    let t = "[[run]]\n[[run.workload]]\ntarget='/x'\n[[run.workload]]\ntarget='/y'\nduration='3s'\nstart_delay='2s'\n";
    let p = build(&runs(t), &PlanArgs::default()).unwrap();
    assert_eq!(p.runs[0].spec.duration_s, Some(10.0));
    assert_eq!(p.runs[0].spec.workloads[0].duration_s, Some(10.0));
    assert_eq!(p.runs[0].spec.workloads[1].duration_s, Some(3.0));
}

#[test]
fn a_runs_list_is_one_axis_and_a_workloads_list_its_own() {
    let t = r#"
[[run]]
name = "r"
duration = "2s"
bs = ["4k", "8k"]

[[run.workload]]
name = "a"
target = "/x"
qd = [1, 2, 4]

[[run.workload]]
name = "b"
target = "/y"
"#;
    let pa = PlanArgs {
        repeat: 2,
        ..Default::default()
    };
    let p = build(&runs(t), &pa).unwrap();
    let axes: Vec<&str> = p.info.axes.iter().map(|a| a.name.as_str()).collect();
    assert_eq!(axes, ["bs", "a.qd"]);
    assert_eq!((p.info.points, p.runs.len()), (6, 12));
    assert_eq!(p.runs[0].params_text(), "bs=4k a.qd=1");
    assert_eq!(p.runs[2].params_text(), "bs=4k a.qd=2");
    assert_eq!(p.runs[6].params_text(), "bs=8k a.qd=1");
    for r in &p.runs {
        let (a, b) = (&r.spec.workloads[0], &r.spec.workloads[1]);
        assert_eq!(a.bs, b.bs, "the run's list is shared by its workloads");
        assert_eq!(b.qd, 1);
    }
    assert_eq!(p.runs[3].spec.workloads[0].qd, 2);
    let mut seeds: Vec<u64> = p
        .runs
        .iter()
        .flat_map(|r| r.spec.workloads.iter().map(|w| w.seed))
        .collect();
    seeds.sort();
    seeds.dedup();
    assert_eq!(seeds.len(), 24, "every workload of every run its own seed");
}

#[test]
fn a_list_flag_over_a_job_file_sweeps_the_run_once() {
    let mut rs = runs(MIX);
    for r in rs.iter_mut() {
        r.overrides.qd = Some(Values::from("2,16"));
        r.overrides.duration = Some(Values::from("1s"));
    }
    let p = build(&rs, &PlanArgs::default()).unwrap();
    assert_eq!(p.runs.len(), 2, "one axis, not one per workload");
    for (r, qd) in p.runs.iter().zip([2, 16]) {
        assert!(r.spec.workloads.iter().all(|w| w.qd == qd), "{r:?}");
        assert!(r.spec.workloads.iter().all(|w| w.duration_s == Some(1.0)));
        assert_eq!(r.spec.duration_s, Some(1.0));
    }
}

#[test]
fn runs_and_plain_workloads_number_their_points_on() {
    let mut all = runs("[global]\ntarget='/x'\nduration='1s'\n[[workload]]\nqd=[1,2]\n");
    let mut more = runs(MIX);
    more[0].index = 1;
    all.extend(more);
    let p = build(&all, &PlanArgs::default()).unwrap();
    assert_eq!(p.runs.len(), 3);
    assert_eq!(p.runs[2].point, 2);
    assert_eq!(p.runs[0].spec.workloads.len(), 1);
    assert_eq!(p.runs[2].spec.workloads.len(), 2);
}

#[test]
fn errors_name_the_run_and_workload_and_find_their_line() {
    let t = "[[run]]\nname='r'\nduration='2s'\n[[run.workload]]\ntarget='/x'\n[[run.workload]]\ntarget='/y'\nqd = 0\n";
    let e = build(&runs(t), &PlanArgs::default()).unwrap_err();
    assert!(
        e.message.starts_with("run 'r', workload 'r-2': --qd 0"),
        "{e}"
    );
    assert_eq!(
        e.at,
        Some(Location {
            run: 0,
            workload: Some(1),
            single: false
        })
    );
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("j.toml");
    std::fs::write(&f, t).unwrap();
    let located = locate_in_job_file(&e, &f, &[]);
    assert!(located.contains("line 8: run 'r'"), "{located}");
    // Given as a flag, the file's line is not the place.
    let located = locate_in_job_file(&e, &f, &["--qd".into(), "0".into()]);
    assert!(!located.contains("line 8"), "{located}");

    let t = "[[run]]\nname='r'\nrate=100\n[[run.workload]]\ntarget='/x'\nduration='1s'\nskew=70\n[[run.workload]]\ntarget='/y'\nduration='1s'\nskew=40\n";
    let e = build(&runs(t), &PlanArgs::default()).unwrap_err();
    assert!(e.message.contains("110%"), "{e}");
    let t = "[[run]]\nname='r'\n[[run.workload]]\ntarget='/x'\nduration='1s'\nskew=40\n";
    let e = build(&runs(t), &PlanArgs::default()).unwrap_err();
    assert!(e.message.contains("no rate to share"), "{e}");
    let t = "[[run]]\n[[run.workload]]\nname='a'\ntarget='/x'\n[[run.workload]]\nname='a'\ntarget='/y'\n";
    let e = build(&runs(t), &PlanArgs::default()).unwrap_err();
    assert!(e.message.contains("two workloads named 'a'"), "{e}");
    let t = "[[run]]\n[[run.workload]]\ntarget='/x'\nstart_delay='soon'\n";
    let e = build(&runs(t), &PlanArgs::default()).unwrap_err();
    assert!(e.message.contains("--start-delay"), "{e}");
}

#[test]
fn a_workload_of_a_run_cannot_have_its_own_clock() {
    let mut rs = runs(MIX);
    rs[0].workloads[1].warmup = Some(Values::from("1s"));
    let e = build(&rs, &PlanArgs::default()).unwrap_err();
    assert!(e.message.contains("--warmup is the run's"), "{e}");
    assert_eq!(e.at.unwrap().workload, Some(1));
}

#[test]
fn a_workload_that_would_start_after_its_run_is_refused() {
    let t = "[[run]]\nduration='10s'\n[[run.workload]]\ntarget='/x'\n[[run.workload]]\ntarget='/y'\nstart_delay='10s'\n";
    let e = build(&runs(t), &PlanArgs::default()).unwrap_err();
    assert!(
        e.message.contains(
            "workload 'run-1-2': --start-delay 10s: the workload would start after its run has ended"
        ),
        "{e}"
    );
    let ok = t.replace("start_delay='10s'", "start_delay='9s'");
    assert!(build(&runs(&ok), &PlanArgs::default()).is_ok());
}

#[test]
fn a_rate_list_flag_is_the_runs_and_a_workloads_own_rate_list_its_own() {
    let t = "[[run]]\nname='r'\nduration='2s'\n[[run.workload]]\nname='a'\ntarget='/x'\nrate=[100, 200]\n[[run.workload]]\nname='b'\ntarget='/y'\n";
    let mut rs = runs(t);
    rs[0].overrides.rate = Some(Values::from("1000,2000"));
    let p = build(&rs, &PlanArgs::default()).unwrap();
    let axes: Vec<&str> = p.info.axes.iter().map(|a| a.name.as_str()).collect();
    assert_eq!(axes, ["rate", "a.rate"]);
    assert_eq!(p.runs.len(), 4);
    let got: Vec<(Option<f64>, Option<f64>)> = p
        .runs
        .iter()
        .map(|r| (r.spec.rate_iops, r.spec.workloads[0].rate_iops))
        .collect();
    assert_eq!(
        got,
        [
            (Some(1000.0), Some(100.0)),
            (Some(1000.0), Some(200.0)),
            (Some(2000.0), Some(100.0)),
            (Some(2000.0), Some(200.0))
        ]
    );
}

/// `start_delay` and `skew` are options like any other: `[global]` <
/// `[[run]]` (the default of its workloads) < `[[run.workload]]` < flags.
#[test]
fn start_delay_and_skew_take_the_layers_of_any_key() {
    let t = r#"
[global]
target = "/x"
start_delay = "1s"
skew = 10

[[run]]
name = "r"
duration = "20s"
rate = 1000
skew = 20

[[run.workload]]
name = "a"

[[run.workload]]
name = "b"
startdelay = "3s"
skew = 30
"#;
    let p = build(&runs(t), &PlanArgs::default()).unwrap();
    let w = &p.runs[0].spec.workloads;
    assert_eq!((w[0].start_delay_s, w[0].skew_pct), (1.0, Some(20.0)));
    assert_eq!((w[1].start_delay_s, w[1].skew_pct), (3.0, Some(30.0)));
    assert_eq!(p.runs[0].spec.workload_rates(), [Some(200.0), Some(300.0)]);
    // A flag over the job file sets the key in every workload.
    let mut rs = runs(t);
    rs[0].overrides.start_delay = Some(Values::from("2s"));
    rs[0].overrides.skew = Some(Values::from("50"));
    let p = build(&rs, &PlanArgs::default()).unwrap();
    for w in &p.runs[0].spec.workloads {
        assert_eq!(
            (w.start_delay_s, w.skew_pct),
            (2.0, Some(50.0)),
            "{}",
            w.name
        );
    }
}

#[test]
fn start_delay_sweeps_where_it_is_written_and_skew_takes_one_value() {
    let t = "[[run]]\nname='r'\nduration='20s'\nstart_delay=['0s','5s']\n[[run.workload]]\nname='a'\ntarget='/x'\n[[run.workload]]\nname='b'\ntarget='/y'\nstart_delay=['1s','2s']\n";
    let p = build(&runs(t), &PlanArgs::default()).unwrap();
    let axes: Vec<&str> = p.info.axes.iter().map(|a| a.name.as_str()).collect();
    assert_eq!(axes, ["start-delay", "b.start-delay"]);
    let got: Vec<(f64, f64)> = p
        .runs
        .iter()
        .map(|r| {
            (
                r.spec.workloads[0].start_delay_s,
                r.spec.workloads[1].start_delay_s,
            )
        })
        .collect();
    assert_eq!(got, [(0.0, 1.0), (0.0, 2.0), (5.0, 1.0), (5.0, 2.0)]);
    // A plain workload sweeps it too.
    let p = build(
        &runs("[global]\ntarget='/x'\nduration='1s'\nstart_delay='0s,1s'\n"),
        &PlanArgs::default(),
    )
    .unwrap();
    assert_eq!(p.info.axes[0].name, "start-delay");
    assert_eq!(p.runs[1].spec.workloads[0].start_delay_s, 1.0);
    // skew is not a sweep parameter: a list is refused, in either table.
    for t in [
        "[[run]]\nrate=100\nskew=[10, 20]\n[[run.workload]]\ntarget='/x'\n[[run.workload]]\ntarget='/y'\n",
        "[[run]]\nrate=100\n[[run.workload]]\ntarget='/x'\nskew='10,20'\n[[run.workload]]\ntarget='/y'\n",
    ] {
        let e = build(&runs(t), &PlanArgs::default()).unwrap_err();
        assert!(e.message.contains("--skew takes one value"), "{e}");
    }
}

/// Every RunSpec the planner hands out has passed `RunSpec::validate`,
/// a run of one workload too.
#[test]
fn every_run_is_validated_as_a_whole() {
    // Alone, a workload has no run's rate to take a share of.
    for extra in ["", "rate=1000\n"] {
        let t = format!("[global]\ntarget='/x'\nduration='1s'\nskew=25\n{extra}");
        let e = build(&runs(&t), &PlanArgs::default()).unwrap_err();
        assert!(
            e.message.starts_with("--skew 25: a share of a run's rate"),
            "{e}"
        );
        assert!(!e.message.contains('\n'), "{e}");
    }
    // The [[run]]'s skew is its workloads' default: 2 x 60 is over 100.
    let t = "[[run]]\nname='r'\nrate=100\nduration='1s'\nskew=60\n[[run.workload]]\ntarget='/x'\n[[run.workload]]\ntarget='/y'\n";
    let e = build(&runs(t), &PlanArgs::default()).unwrap_err();
    assert!(e.message.contains("add up to 120%"), "{e}");
    let ok = t.replace("skew=60", "skew=50");
    assert!(build(&runs(&ok), &PlanArgs::default()).is_ok());
}

#[test]
fn two_workloads_writing_one_verified_target_are_refused() {
    let text = |verify: &str, b_target: &str, offsets: &str| {
        format!(
            r#"
[[run]]
name = "dv"
duration = "2s"
{verify}

[[run.workload]]
name = "a"
target = "/tmp/iolab-plan-dv"
size = "4m"
rw = "randrw"
{offsets}

[[run.workload]]
name = "b"
target = "{b_target}"
size = "4m"
rw = "randrw"
{b_range}
"#,
            b_range = if offsets.is_empty() {
                ""
            } else {
                "range = \"1m\""
            }
        )
    };
    let err = build(
        &runs(&text("verify = true", "/tmp/iolab-plan-dv", "")),
        &PlanArgs::default(),
    )
    .unwrap_err();
    assert!(
        err.message.contains("run 'dv', workload 'a'")
            && err.message.contains("stale")
            && err.message.contains("one workload per target"),
        "{}",
        err.message
    );
    // A journal keeps the same map (and implies verify).
    let err = build(
        &runs(&text(
            "journal = \"/tmp/iolab-plan-dv-j\"",
            "/tmp/iolab-plan-dv",
            "",
        )),
        &PlanArgs::default(),
    )
    .unwrap_err();
    assert!(err.message.contains("stale"), "{}", err.message);
    // Other targets, or regions apart, are fine; so is no verify.
    for t in [
        text("verify = true", "/tmp/iolab-plan-dv-other", ""),
        text(
            "verify = true",
            "/tmp/iolab-plan-dv",
            "offset = \"2m\"\nrange = \"1m\"",
        ),
        text("", "/tmp/iolab-plan-dv", ""),
        // A pattern is checked as the pattern, whoever wrote it.
        text(
            "verify = true\ndata = \"pattern:0xaa55\"",
            "/tmp/iolab-plan-dv",
            "",
        ),
    ] {
        build(&runs(&t), &PlanArgs::default()).unwrap();
    }
}
