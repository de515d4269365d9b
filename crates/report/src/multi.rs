//! A multi-host run as one result record: every host's raw results merged
//! exactly (counts add, histograms merge bucket by bucket, interval series
//! merge by index) into the run's own summary, intervals, workloads and
//! targets (`HOST:PATH`), with each host's own record in `hosts[]`
//! (docs/results.md, "Several hosts"). Pure computation: the controller
//! gathers [`HostOutcome`]s and calls [`merge_hosts`].

use crate::build::interval_record;
use crate::model::{Host, HostClock, HostLoss, HostRun, Interval, RunResult};
use iolab_raw::{merge_runs, CpuTime, IntervalRaw, OpStats, RunRaw, StallsRaw};
use std::time::SystemTime;

/// What one host of a multi-host run brought back.
#[derive(Debug, Clone)]
pub struct HostOutcome {
    /// The host as the user named it.
    pub host: String,
    /// The machine the agent ran on.
    pub info: Host,
    pub clock: HostClock,
    /// Set when the host stopped answering during the run.
    pub lost: Option<HostLoss>,
    /// The agent's raw results (every histogram); for a lost host, a raw
    /// run the controller rebuilt from the intervals it received.
    pub raw: RunRaw,
    /// The agent's own record (with its device statistics); for a lost
    /// host, `build_run(&raw)`.
    pub result: RunResult,
}

/// `host h2 lost at 3.2 s: no message for 10 s`.
pub fn loss_text(host: &str, l: &HostLoss) -> String {
    format!("host {host} lost at {:.1} s: {}", l.at_s, l.reason)
}

/// The run's completion: complete when every host completed and none was
/// lost; the reasons are each lost host's loss and every other host's own
/// reason, `host NAME: ...`.
fn completion<'a>(
    hosts: impl Iterator<Item = (&'a HostOutcome, bool, Option<&'a str>)>,
) -> (bool, Option<String>) {
    let mut complete = true;
    let mut why = Vec::new();
    for (h, c, r) in hosts {
        match &h.lost {
            Some(l) => {
                complete = false;
                why.push(loss_text(&h.host, l));
            }
            None => {
                complete &= c;
                if let Some(r) = r {
                    why.push(format!("host {}: {r}", h.host));
                }
            }
        }
    }
    (complete, (!why.is_empty()).then(|| why.join("; ")))
}

/// A run of nothing (no host answered): the record of an empty run.
fn empty_raw() -> RunRaw {
    RunRaw {
        name: String::new(),
        started_at: SystemTime::UNIX_EPOCH,
        warmup_ns: 0,
        interval_ns: 0,
        measured_ns: 0,
        workloads: Vec::new(),
        intervals: Vec::new(),
        ops: OpStats::default(),
        fsyncs: 0,
        cpu: CpuTime::default(),
        stalls: StallsRaw::default(),
        events: Vec::new(),
        complete: false,
        incomplete_reason: Some("no host took part in the run".into()),
        notes: Vec::new(),
        exit_all: false,
    }
}

/// The merged raw run of `hosts`, with its completion (and each merged
/// workload's) decided by host: a workload a lost host ran is incomplete
/// with the loss as its reason.
pub fn merged_raw(hosts: &[HostOutcome]) -> RunRaw {
    if hosts.is_empty() {
        return empty_raw();
    }
    let parts: Vec<(&str, &RunRaw)> = hosts.iter().map(|h| (h.host.as_str(), &h.raw)).collect();
    let mut raw = merge_runs(&parts);
    (raw.complete, raw.incomplete_reason) = completion(
        hosts
            .iter()
            .map(|h| (h, h.raw.complete, h.raw.incomplete_reason.as_deref())),
    );
    for w in &mut raw.workloads {
        let name = &w.spec.name;
        (w.complete, w.incomplete_reason) = completion(hosts.iter().flat_map(|h| {
            h.raw
                .workloads
                .iter()
                .filter(|x| &x.spec.name == name)
                .map(move |x| (h, x.complete, x.incomplete_reason.as_deref()))
        }));
    }
    raw
}

/// The record of a run on several hosts: the aggregate (every host's
/// figures together, percentiles from the merged histograms, workloads of
/// one name merged, targets `HOST:PATH`) with `hosts[]` holding each
/// host's own record in the given order, and `start_skew_us`. The plan
/// fields (`point`, `repeat`, `params`, `curve`) are the first host's;
/// advice is every host's, its device named `HOST:DEVICE`.
pub fn merge_hosts(hosts: Vec<HostOutcome>, start_skew_us: Option<f64>) -> RunResult {
    let mut r = crate::build_run(&merged_raw(&hosts));
    if let Some(first) = hosts.first() {
        r.point = first.result.point;
        r.repeat = first.result.repeat;
        r.params = first.result.params.clone();
        r.curve = first.result.curve.clone();
    }
    for h in &hosts {
        r.advice.extend(h.result.advice.iter().map(|a| {
            let mut a = a.clone();
            a.device = format!("{}:{}", h.host, a.device);
            a
        }));
    }
    r.hosts = hosts
        .into_iter()
        .map(|h| HostRun {
            host: h.host,
            host_info: h.info,
            clock: h.clock,
            lost: h.lost,
            run: h.result,
        })
        .collect();
    r.start_skew_us = start_skew_us;
    r
}

/// Interval `k` of a multi-host run as the controller shows it, from each
/// host's raw interval `k` (`None` for a host that sent none, as a lost
/// one): the hosts' intervals merged exactly (the total) and the terminal
/// lines, a line per host and the total's, under
/// [`crate::terminal::host_interval_header`] given the same `fs` (the run
/// has a file-system workload).
pub fn host_interval(
    hosts: &[(&str, Option<&IntervalRaw>)],
    fs: bool,
) -> (Option<IntervalRaw>, Vec<String>) {
    let total = iolab_raw::merge_by_index(
        hosts
            .iter()
            .filter_map(|(_, iv)| iv.map(std::slice::from_ref)),
    )
    .into_iter()
    .next();
    let Some(t) = &total else {
        return (None, Vec::new());
    };
    let own: Vec<Option<Interval>> = hosts
        .iter()
        .map(|(_, iv)| iv.map(interval_record))
        .collect();
    let named: Vec<(&str, Option<&Interval>)> = hosts
        .iter()
        .zip(&own)
        .map(|((h, _), iv)| (*h, iv.as_ref()))
        .collect();
    let lines = crate::terminal::host_interval_lines(&interval_record(t), &named, fs);
    (total, lines)
}

#[cfg(test)]
#[path = "multi_tests.rs"]
mod tests;
