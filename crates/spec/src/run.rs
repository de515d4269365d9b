//! One run: the workloads that run together on one clock.
//!
//! A `[[run]]` table of a job file (or a plain `[[workload]]`, which is a
//! run of one workload) resolves to a [`RunSpec`]. The run core starts every
//! workload's clock at the same instant; `start_delay_s` shifts a workload's
//! first I/O, and each workload ends on its own `duration_s`, `io_size` or
//! `ops`, or at the run's `duration_s`, whichever comes first.

use crate::workload::{SpecError, WorkloadSpec};
use serde::{Deserialize, Serialize};

/// Every parameter of one run, resolved and validated.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunSpec {
    pub name: String,
    /// The run ends this long after warm-up even if workloads are still
    /// running; `None`: when the last workload ends.
    pub duration_s: Option<f64>,
    /// Warm-up of the run's clock: intervals before it are marked warm-up
    /// and left out of every workload's summary.
    pub warmup_s: f64,
    /// Interval length of the run's time series (one clock for every
    /// workload, so their intervals line up and merge exactly).
    pub interval_s: f64,
    /// Total I/O rate shared by the workloads (vdbench `iorate` with
    /// `skew`); `None`: each workload keeps its own `rate_iops`.
    pub rate_iops: Option<f64>,
    /// In the job file's order; the result keeps this order.
    pub workloads: Vec<WorkloadSpec>,
}

impl RunSpec {
    /// A run of one workload, with the run's clock taken from it: what a
    /// top-level `[[workload]]` or a plain command line means.
    pub fn single(w: WorkloadSpec) -> RunSpec {
        RunSpec {
            name: w.name.clone(),
            duration_s: None,
            warmup_s: w.warmup_s,
            interval_s: w.interval_s,
            rate_iops: None,
            workloads: vec![w],
        }
    }

    /// The rate each workload runs at, in order: with a run-level rate,
    /// each workload's `skew_pct` share of it, and what the shares leave
    /// split evenly over workloads without one; without, each workload's
    /// own `rate_iops`.
    pub fn workload_rates(&self) -> Vec<Option<f64>> {
        let Some(total) = self.rate_iops else {
            return self.workloads.iter().map(|w| w.rate_iops).collect();
        };
        let given: f64 = self.workloads.iter().filter_map(|w| w.skew_pct).sum();
        let unshared = self
            .workloads
            .iter()
            .filter(|w| w.skew_pct.is_none())
            .count();
        let rest = if unshared > 0 {
            (100.0 - given).max(0.0) / unshared as f64
        } else {
            0.0
        };
        self.workloads
            .iter()
            .map(|w| {
                let pct = w.skew_pct.unwrap_or(rest);
                (pct > 0.0).then_some(total * pct / 100.0)
            })
            .collect()
    }

    /// Check the run as a whole and each workload in it.
    pub fn validate(&self) -> Result<(), SpecError> {
        let e = |s: String| Err(SpecError(s));
        if self.workloads.is_empty() {
            return e(format!(
                "run '{}' has no workload; add a [[run.workload]] table with at least a target",
                self.name
            ));
        }
        for w in &self.workloads {
            w.validate()
                .map_err(|x| SpecError(format!("workload '{}': {}", w.name, x.0)))?;
        }
        if let Some(r) = self.rate_iops {
            if !(r > 0.0 && r.is_finite()) {
                return e("the run's rate must be a finite number above 0 I/Os per second".into());
            }
        }
        let shares: f64 = self.workloads.iter().filter_map(|w| w.skew_pct).sum();
        if shares > 0.0 && self.rate_iops.is_none() {
            return e(format!(
                "run '{}' gives skew shares but no rate to share; give the [[run]] a rate, e.g. rate = 10000",
                self.name
            ));
        }
        if shares > 100.0 + 1e-9 {
            return e(format!(
                "the skew shares of run '{}' add up to {shares}%, more than 100%; lower them",
                self.name
            ));
        }
        if let Some(d) = self.duration_s {
            if !(d > 0.0 && d.is_finite()) {
                return e("the run's duration must be above 0, e.g. duration = \"60s\"".into());
            }
        } else if let Some(w) = self
            .workloads
            .iter()
            .find(|w| w.duration_s.is_none() && w.io_size.is_none() && w.ops.is_none() && !w.fill)
        {
            return e(format!(
                "workload '{}' has no end; give it a duration, io_size or ops, or give the run a duration",
                w.name
            ));
        }
        let mut names = std::collections::BTreeSet::new();
        for w in &self.workloads {
            if !names.insert(w.name.as_str()) {
                return e(format!(
                    "run '{}' has two workloads named '{}'; give each a name of its own",
                    self.name, w.name
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(skews: &[Option<f64>], rate: Option<f64>) -> RunSpec {
        let mut r = RunSpec::single(WorkloadSpec::example("w0", "/tmp/x", "randread"));
        r.workloads.clear();
        for (i, k) in skews.iter().enumerate() {
            let mut w = WorkloadSpec::example(&format!("w{i}"), "/tmp/x", "randread");
            w.skew_pct = *k;
            r.workloads.push(w);
        }
        r.rate_iops = rate;
        r
    }

    #[test]
    fn shares_take_their_part_and_the_rest_is_split_evenly() {
        let r = run(&[Some(25.0), None, None], Some(1000.0));
        r.validate().unwrap();
        assert_eq!(
            r.workload_rates(),
            vec![Some(250.0), Some(375.0), Some(375.0)]
        );
    }

    #[test]
    fn shares_over_100_or_without_a_rate_are_refused() {
        let over = run(&[Some(60.0), Some(50.0)], Some(1000.0));
        assert!(over.validate().unwrap_err().0.contains("110"));
        let no_rate = run(&[Some(50.0), None], None);
        assert!(no_rate.validate().unwrap_err().0.contains("no rate"));
    }

    #[test]
    fn duplicate_workload_names_are_refused() {
        let mut r = run(&[None, None], None);
        r.workloads[1].name = "w0".into();
        assert!(r.validate().unwrap_err().0.contains("two workloads named"));
    }
}
