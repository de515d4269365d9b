//! The `--dry-run` text of runs that do not end on time, and of flows
//! with a think time: what the plan says is what was asked for.

use iolab_jobfile::{parse_job_text, RunOptions};
use iolab_plan::{build, dry_run_text, PlanArgs};

fn text(job: &str) -> String {
    let runs: Vec<RunOptions> = parse_job_text(job, "t.toml").unwrap().runs().unwrap();
    dry_run_text(&build(&runs, &PlanArgs::default()).unwrap())
}

/// The run's line of a plan of one run: the line after the header.
fn run_line(t: &str) -> &str {
    t.lines().nth(2).unwrap_or_else(|| panic!("{t}"))
}

/// Regression: a run ending on `--ops` said "by size".
#[test]
fn a_run_that_ends_on_a_count_or_bytes_says_so() {
    let t = text("[[workload]]\ntarget='/tmp/iolab-dry-a'\nsize='1m'\nops=400\n");
    assert!(run_line(&t).contains(" after 400 I/Os  "), "{t}");
    let t = text("[[workload]]\ntarget='/tmp/iolab-dry-a'\nsize='1m'\nio_size='4m'\n");
    assert!(run_line(&t).contains(" after 4 MiB  "), "{t}");
    let t = text("[[workload]]\ndir='/tmp/iolab-dry-fs'\nmix='read:1'\nops=10000\n");
    assert!(run_line(&t).contains(" after 10,000 operations  "), "{t}");
    // The header's time column is as wide as its rows.
    let head = t.lines().nth(1).unwrap();
    let col = |l: &str| l.find("  workload").or_else(|| l.find("  mix-1:"));
    assert_eq!(col(head), col(run_line(&t)), "{t}");
    assert!(!run_line(&t).contains("by size"), "{t}");
}

/// Regression: `think=100ms` was printed `think=100000us`.
#[test]
fn a_flows_think_time_keeps_its_unit() {
    let t = text(
        "[[workload]]\ndir='/tmp/iolab-dry-fs'\nflow='w(2 think=100ms): open,read,close'\nduration='1s'\n",
    );
    assert!(t.contains("flow w(2 think=100ms): open,read,close"), "{t}");
}
