//! vdbench's rate over several hosts (docs/vdbench.md "Several hosts"):
//! an rd's `iorate=N` is the rate of the whole run, every host together.
//! vdbench makes a workload generator (WG) for each wd on each sd on each
//! slave, splits each wd's skew (and a wd's own `iorate=`) evenly over
//! that wd's WGs (HandleSkew.spreadWgSkew: `wg.skew = wd.skew /
//! slaves_running_this_wd`, `wg_iorate = wd_iorate / ...`), and each WG
//! runs at `iorate x wg.skew`. The mapping split a wd's share over its
//! sds (one host); here it is split again over the hosts that run each
//! workload, and each host's run gets the sum of its workloads' shares
//! as its rate, its workloads sharing it in the same proportions.

use super::RunOptions;
use crate::options::{Values, WorkloadOptions};
use crate::resolve::text;
use iolab_spec::HostSpec;
use std::collections::HashSet;

/// How many of `hosts` run workload `j` of `r`: those a name in any
/// layer is for (every host for a name without a host), and those with
/// targets of their own (a host file's).
fn hosts_running(r: &RunOptions, j: usize, hosts: &[HostSpec]) -> usize {
    let mut on: HashSet<&str> = hosts
        .iter()
        .filter(|h| !h.targets.is_empty())
        .map(|h| h.name.as_str())
        .collect();
    for layer in [&r.overrides, &r.workloads[j], &r.run] {
        for n in &layer.target {
            match iolab_spec::hosts::split_host(n, hosts).0 {
                Some(h) => {
                    on.insert(h);
                }
                None => return hosts.len(),
            }
        }
    }
    on.len()
}

/// The wd of workload `j` (its origin's section is `rd/wd/sd`).
fn wd_of(r: &RunOptions, j: usize) -> Option<&str> {
    let o = r.origins.get(j)?.as_ref()?;
    o.section.rsplit('/').nth(1)
}

fn number(v: &Option<Values>) -> Option<f64> {
    text(v)?
        .trim()
        .parse::<f64>()
        .ok()
        .filter(|x| x.is_finite())
}

/// `v` with at most 4 decimals, never above `v` (shares never add up to
/// more than 100).
fn fmt(v: f64) -> Values {
    Values::from(format!("{}", (v * 10_000.0).floor() / 10_000.0))
}

/// Each workload's factor: the mapping's share of its wd (wd's share /
/// its sds) to vdbench's (wd's share / the wd's WGs on every host).
fn factors(r: &RunOptions, hosts: &[HostSpec]) -> Option<Vec<f64>> {
    let wds: Vec<&str> = (0..r.workloads.len())
        .map(|j| wd_of(r, j))
        .collect::<Option<_>>()?;
    let k: Vec<usize> = (0..r.workloads.len())
        .map(|j| hosts_running(r, j, hosts))
        .collect();
    Some(
        wds.iter()
            .map(|wd| {
                let mine = || (0..wds.len()).filter(|&i| wds[i] == *wd);
                let wgs: usize = mine().map(|i| k[i]).sum();
                mine().count() as f64 / wgs.max(1) as f64
            })
            .collect(),
    )
}

/// `mine` (run `r` as one host runs it: the workloads at `keep`) with
/// its part of the rate of a vdbench run of fixed rate on `hosts`.
pub(super) fn share(r: &RunOptions, mine: &mut RunOptions, keep: &[usize], hosts: &[HostSpec]) {
    let given = |o: &WorkloadOptions| o.rate.is_some() || o.skew.is_some();
    if r.curve.is_some() || given(&r.overrides) {
        return;
    }
    let Some(f) = factors(r, hosts) else {
        return;
    };
    // A workload without a share takes an even part of what the shares
    // leave (one workload: the whole rate), as the run core gives it.
    let open = |w: &WorkloadOptions| w.skew.is_none() && w.rate.is_none();
    let unshared = r.workloads.iter().filter(|w| open(w)).count().max(1);
    let given: f64 = r.workloads.iter().filter_map(|w| number(&w.skew)).sum();
    let rest = (100.0 - given).max(0.0) / unshared as f64;
    // Each kept workload's part of the whole run's rate, in percent.
    let mut parts: Vec<Option<f64>> = Vec::with_capacity(keep.len());
    for (w, &j) in mine.workloads.iter_mut().zip(keep) {
        let skew = if open(w) { Some(rest) } else { number(&w.skew) };
        if let Some(rate) = number(&w.rate) {
            w.rate = Some(fmt(rate * f[j]));
        }
        parts.push(skew.map(|s| s * f[j]));
    }
    let Some(total) = number(&r.run.rate) else {
        return;
    };
    let sum: f64 = parts.iter().flatten().sum();
    if sum <= 0.0
        || parts
            .iter()
            .zip(&mine.workloads)
            .any(|(p, w)| p.is_none() && w.rate.is_none())
    {
        return;
    }
    mine.run.rate = Some(fmt(total * sum / 100.0));
    let several = mine.workloads.len() > 1;
    for (w, p) in mine.workloads.iter_mut().zip(&parts) {
        if let (Some(p), true) = (p, several) {
            w.skew = Some(fmt(p * 100.0 / sum));
        }
    }
}
