//! Stand-ins for the other parts of issue 19 until they are merged:
//! `iolab_jobfile::hosts::runs_for_host` and
//! `iolab_report::multi::{HostOutcome, merge_hosts}`.

use iolab_jobfile::RunOptions;
use iolab_raw::RunRaw;
use iolab_report::model::{Host, HostClock, HostLoss, HostRun, RunResult};
use iolab_spec::HostSpec;

/// Each run's targets and `destroy_data_on` names that are `host`'s.
pub fn runs_for_host(
    runs: &[RunOptions],
    host: &HostSpec,
    hosts: &[HostSpec],
) -> Result<Vec<RunOptions>, String> {
    let names = |v: &[String]| iolab_spec::hosts::names_for_host(v, &host.name, hosts);
    let mut out = runs.to_vec();
    for r in &mut out {
        for w in std::iter::once(&mut r.run)
            .chain(r.workloads.iter_mut())
            .chain(std::iter::once(&mut r.overrides))
        {
            w.target = names(&w.target);
            w.destroy_data_on = names(&w.destroy_data_on);
        }
    }
    Ok(out)
}

/// One host's part of a run.
pub struct HostOutcome {
    pub host: String,
    pub info: Host,
    pub clock: HostClock,
    pub lost: Option<HostLoss>,
    pub raw: RunRaw,
    pub result: RunResult,
}

/// The run's record: every host's merged.
pub fn merge_hosts(hosts: Vec<HostOutcome>, start_skew_us: Option<f64>) -> RunResult {
    let mut raw = hosts[0].raw.clone();
    for h in &hosts[1..] {
        raw.ops.merge(&h.raw.ops);
        raw.intervals =
            iolab_raw::merge_by_index([raw.intervals.as_slice(), h.raw.intervals.as_slice()]);
    }
    let mut run = iolab_report::build_run(&raw);
    run.complete = hosts.iter().all(|h| h.result.complete);
    run.start_skew_us = start_skew_us;
    run.hosts = hosts
        .into_iter()
        .map(|h| HostRun {
            host: h.host,
            host_info: h.info,
            clock: h.clock,
            lost: h.lost,
            run: h.result,
        })
        .collect();
    run
}
