//! fio's `exitall` / `exit_what`: when a workload with `exitall` ends
//! (all its workers done, whatever ended them but another workload's
//! `exitall`), the run core stops the workloads its scope names and
//! records why on each. The collector calls [`Exits::worker_done`] as
//! each worker reports its end: nothing per I/O.

use iolab_spec::{ExitWhat, RunSpec};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

pub(crate) struct Exits {
    /// Per workload: workers still running.
    left: Vec<u32>,
    /// Per workload: why another workload's `exitall` ended it.
    pub ended_by: Vec<Option<String>>,
    /// A workload with `exit_what = all` ended.
    pub exit_all: bool,
}

impl Exits {
    pub fn new(jobs: &[u32]) -> Exits {
        Exits {
            left: jobs.to_vec(),
            ended_by: vec![None; jobs.len()],
            exit_all: false,
        }
    }

    /// Worker of workload `wl` ended; when it was the workload's last and
    /// the workload has `exitall`, stop the others of its scope.
    pub fn worker_done(&mut self, wl: usize, spec: &RunSpec, stops: &[Arc<AtomicBool>]) {
        self.left[wl] = self.left[wl].saturating_sub(1);
        if self.left[wl] > 0 || self.ended_by[wl].is_some() {
            return;
        }
        let w = &spec.workloads[wl];
        let Some(what) = w.exitall else {
            return;
        };
        let group = |i: usize| spec.workloads[i].origin.as_ref().map(|o| o.group);
        for (i, stop) in stops.iter().enumerate() {
            let in_scope = what != ExitWhat::Group || group(i) == group(wl);
            if i == wl || !in_scope || self.left[i] == 0 || self.ended_by[i].is_some() {
                continue;
            }
            stop.store(true, Ordering::Relaxed);
            self.ended_by[i] = Some(format!(
                "ended by exitall: workload {} ended (exit_what={})",
                w.name,
                what.name()
            ));
        }
        self.exit_all |= what == ExitWhat::All;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use iolab_spec::{JobOrigin, WorkloadSpec};

    fn wl(name: &str, group: u32, exit: Option<ExitWhat>) -> WorkloadSpec {
        let mut w = WorkloadSpec::example(name, "t", "read");
        w.exitall = exit;
        w.origin = Some(JobOrigin {
            group,
            ..Default::default()
        });
        w
    }

    fn run(ws: Vec<WorkloadSpec>) -> RunSpec {
        let mut r = RunSpec::single(ws[0].clone());
        r.workloads = ws;
        r
    }

    #[test]
    fn group_scope_stops_only_the_same_group_after_the_last_worker() {
        let spec = run(vec![
            wl("a", 0, Some(ExitWhat::Group)),
            wl("b", 0, None),
            wl("c", 1, None),
        ]);
        let stops: Vec<_> = (0..3).map(|_| Arc::new(AtomicBool::new(false))).collect();
        let mut e = Exits::new(&[2, 1, 1]);
        e.worker_done(0, &spec, &stops);
        assert!(!stops[1].load(Ordering::Relaxed), "a still has a worker");
        e.worker_done(0, &spec, &stops);
        assert!(stops[1].load(Ordering::Relaxed));
        assert!(!stops[2].load(Ordering::Relaxed), "another group");
        assert!(e.ended_by[1].as_deref().unwrap().contains("workload a"));
        assert!(e.ended_by[2].is_none() && !e.exit_all);
    }

    #[test]
    fn stonewall_and_all_stop_every_group_and_a_stopped_one_ends_nobody() {
        let spec = run(vec![
            wl("a", 0, Some(ExitWhat::All)),
            wl("b", 1, Some(ExitWhat::Stonewall)),
            wl("c", 2, None),
        ]);
        let stops: Vec<_> = (0..3).map(|_| Arc::new(AtomicBool::new(false))).collect();
        let mut e = Exits::new(&[1, 1, 1]);
        e.worker_done(0, &spec, &stops);
        assert!(stops[1].load(Ordering::Relaxed) && stops[2].load(Ordering::Relaxed));
        assert!(e.exit_all);
        // b ends because a stopped it: it does not end others in turn.
        e.worker_done(1, &spec, &stops);
        assert!(e.ended_by[0].is_none());
    }
}
