//! Device statistics beside a run: find the devices under each target of
//! every workload, or under each anchor of a file-system workload (the
//! union), sample them at every interval as `iostat
//! -x` would, compare iolab's counts with theirs per device where the
//! counts can be told apart, and give the advice that applies
//! (docs/doctor.md).
//! The run core ticks it ([`DevSampler`], an `iolab_core::Sampler`): on
//! its collector thread, at t0 and whenever it closes an interval, never
//! on an I/O path. `iolab monitor` samples its devices the same way, in
//! a run with no workloads ([`DevRun::for_devices`]).

use iolab_core::Tick;
use iolab_devices::{
    compare, inventory, run_findings, runner_for, target_context, AppCounts, DeviceRow, Sampler,
    Sysroot, TargetContext, WorkloadFacts,
};
use iolab_report::model::{DeviceInterval, DeviceStats, DeviceTarget, RunResult, Summary};
use iolab_spec::{DataPattern, RunSpec, SyncMode, WorkloadSpec};

pub struct DevRun {
    root: Sysroot,
    contexts: Vec<TargetContext>,
    sampler: Sampler,
    stats: DeviceStats,
    warmup_ns: u64,
}

impl DevRun {
    /// Find the devices under the run's targets, every workload's, each
    /// path once (before the clock starts).
    pub fn new(run: &RunSpec) -> DevRun {
        let root = Sysroot::new("/");
        let runner = runner_for(&root);
        let mut contexts = Vec::new();
        let mut set: Vec<String> = Vec::new();
        let mut targets = Vec::new();
        let mut paths: Vec<&str> = Vec::new();
        let all: Vec<String> = run.workloads.iter().flat_map(workload_paths).collect();
        for p in &all {
            if !paths.contains(&p.as_str()) {
                paths.push(p);
            }
        }
        for path in paths {
            let ctx = target_context(&root, runner.as_ref(), path);
            let sampled = ctx.discovery.sample_set();
            for d in &sampled {
                if !set.contains(d) {
                    set.push(d.clone());
                }
            }
            targets.push(DeviceTarget {
                target: path.to_string(),
                top: ctx.discovery.top.clone(),
                sampled,
                notes: ctx.discovery.notes.clone(),
            });
            contexts.push(ctx);
        }
        let mut d = DevRun::for_devices(root, &set, targets);
        d.contexts = contexts;
        d.warmup_ns = (run.warmup_s * 1e9) as u64;
        d
    }

    /// Sample `devices` (kernel names), found for `targets`, with no
    /// workload to compare with (`iolab monitor`).
    pub fn for_devices(root: Sysroot, devices: &[String], targets: Vec<DeviceTarget>) -> DevRun {
        let sampler = Sampler::new(&root, devices);
        let missing = sampler.missing().to_vec();
        DevRun {
            root,
            contexts: Vec::new(),
            sampler,
            stats: DeviceStats {
                targets,
                missing,
                ..Default::default()
            },
            warmup_ns: 0,
        }
    }

    /// The statistics so far (no summary until [`DevRun::into_stats`]).
    pub fn stats(&self) -> &DeviceStats {
        &self.stats
    }

    /// The statistics with the summary over the measured time (after
    /// the last interval).
    pub fn final_stats(&mut self) -> DeviceStats {
        self.stats.summary = self.sampler.summary();
        self.stats.missing = self.sampler.missing().to_vec();
        self.stats.clone()
    }

    /// Time 0 of the run: the first sample.
    pub fn start(&mut self) {
        self.sampler.restart();
    }

    /// An interval ended: one row per device.
    pub fn interval(&mut self, iv: &Tick) {
        // The sampler's own clock: the time between two samples.
        let rows = self.sampler.sample();
        if iv.warmup && iv.end_ns >= self.warmup_ns {
            // The summary covers the measured time only.
            self.sampler.restart();
        }
        self.stats.intervals.push(DeviceInterval {
            index: iv.index,
            warmup: iv.warmup,
            rows,
        });
    }

    /// After the run: the summary, the count comparison and the advice.
    pub fn finish(mut self, spec: &RunSpec, run: &mut RunResult) {
        self.stats.summary = self.sampler.summary();
        self.stats.missing = self.sampler.missing().to_vec();
        if !spec
            .workloads
            .iter()
            .any(|w| iolab_engine::engines::caps(w.engine).moves_data)
        {
            // An engine that moves no data (null) does no I/O: comparing
            // its counts with the devices', or advising on them, would be
            // about nothing.
            run.devices = Some(self.stats);
            return;
        }
        self.compare_counts(spec, run);
        let measured: Vec<DeviceRow> = self
            .stats
            .intervals
            .iter()
            .filter(|i| !i.warmup)
            .flat_map(|i| i.rows.iter().cloned())
            .collect();
        let fc_after = inventory::fc_hosts(&self.root);
        for (ctx, t) in self.contexts.iter().zip(&self.stats.targets) {
            // The advice is about the first workload that drives the target.
            let Some(spec) = spec
                .workloads
                .iter()
                .find(|w| workload_paths(w).contains(&t.target))
            else {
                continue;
            };
            if spec.fs.is_some() {
                // The advice reasons about block workloads (pattern,
                // region, prefill); files have none of these.
                continue;
            }
            let region = run
                .targets
                .iter()
                .find(|r| r.path == t.target)
                .map_or(0, |r| r.region_len);
            let facts = WorkloadFacts {
                target: t.target.clone(),
                reads: spec.reads(),
                writes: spec.writes(),
                random: spec.random_pct > 50,
                bs: spec.max_bs(),
                direct: spec.direct,
                sync_writes: spec.sync == SyncMode::Dsync || spec.fsync_every > 0,
                zero_data: spec.data == DataPattern::Zero,
                working_set_bytes: region,
                written_before_read: run
                    .targets
                    .iter()
                    .find(|r| r.path == t.target)
                    .is_some_and(|r| r.created || r.prefilled_bytes > 0),
                outstanding: u64::from(spec.qd) * u64::from(spec.jobs),
            };
            for f in run_findings(ctx, &facts, &measured, &self.stats.summary, &fc_after) {
                if !run.advice.contains(&f) {
                    run.advice.push(f);
                }
            }
        }
        run.devices = Some(self.stats);
    }

    /// Compare iolab's counts with each device's where they can be told
    /// apart: one target (every workload's I/O goes there), or a device
    /// that is the only top device of each target on it and whose
    /// targets' workloads drive no other target (their summaries added
    /// up are what the device received).
    fn compare_counts(&mut self, spec: &RunSpec, run: &RunResult) {
        if self.contexts.len() == 1 {
            let direct = spec.workloads.iter().all(|w| w.direct);
            for top in self.contexts[0].discovery.top.clone() {
                self.compare_one(&top, &run.summary, direct);
            }
            return;
        }
        let views = run.workload_views();
        let (groups, skipped) = device_groups(&self.stats.targets, spec);
        for (top, users) in groups {
            let mut total = Summary::default();
            let mut found = true;
            for &wi in &users {
                let name = &spec.workloads[wi].name;
                match views.iter().find(|v| &v.name == name) {
                    Some(v) => {
                        total.read.ops += v.summary.read.ops;
                        total.read.bytes += v.summary.read.bytes;
                        let (ops, bytes) = written(&v.summary);
                        total.write.ops += ops;
                        total.write.bytes += bytes;
                    }
                    None => found = false,
                }
            }
            if found {
                let direct = users.iter().all(|&wi| spec.workloads[wi].direct);
                self.compare_one(&top, &total, direct);
            }
        }
        if !skipped.is_empty() {
            self.stats.notes.push(format!(
                "iolab's counts are not compared with {}: a workload there also drives other targets, or a target spans several devices (the summary rows are still the devices' own)",
                skipped.join(", ")
            ));
        }
    }

    fn compare_one(&mut self, top: &str, s: &Summary, direct: bool) {
        let (write_ops, write_bytes) = written(s);
        let app = AppCounts {
            read_ops: s.read.ops,
            read_bytes: s.read.bytes,
            write_ops,
            write_bytes,
            direct,
        };
        if let Some(row) = self.stats.summary.iter().find(|r| r.device == top) {
            self.stats
                .count_notes
                .extend(compare(&app, top, &row.stats.counts));
        }
    }
}

/// Writes and bytes written: `write`, and a file-system workload's
/// `append` and `rewrite` (in `summary.ops`).
fn written(s: &Summary) -> (u64, u64) {
    ["append", "rewrite"]
        .iter()
        .filter_map(|k| s.ops.get(*k))
        .fold((s.write.ops, s.write.bytes), |(o, b), d| {
            (o + d.ops, b + d.bytes)
        })
}

/// [`DevRun`] on the run core's clock: found when the run passed its
/// checks (the run as it will run), started at t0, sampled whenever the
/// core closes an interval. What it found stays in `dev` for the end.
#[derive(Default)]
pub struct DevSampler {
    pub dev: Option<DevRun>,
}

impl iolab_core::Sampler for DevSampler {
    fn prepare(&mut self, run: &RunSpec) {
        self.dev = Some(DevRun::new(run));
    }
    fn start(&mut self) {
        if let Some(d) = self.dev.as_mut() {
            d.start();
        }
    }
    fn sample(&mut self, tick: &Tick) {
        if let Some(d) = self.dev.as_mut() {
            d.interval(tick);
        }
    }
}

/// The paths whose devices a workload drives: its targets, or the
/// anchors of its filesets (the device under the anchor's mount).
pub fn workload_paths(w: &WorkloadSpec) -> Vec<String> {
    match &w.fs {
        Some(fs) => fs
            .filesets
            .iter()
            .map(|f| f.spec.anchor.to_string_lossy().into_owned())
            .collect(),
        None => w.targets.iter().map(|t| t.path.clone()).collect(),
    }
}

/// Per top device whose counts can be told apart, the workloads (indexes
/// into `spec.workloads`) whose I/O all lands there: every target on it
/// has it as its only top device, and every workload driving one of those
/// targets drives none elsewhere. The other top devices come second.
fn device_groups(
    targets: &[DeviceTarget],
    spec: &RunSpec,
) -> (Vec<(String, Vec<usize>)>, Vec<String>) {
    let mut groups = Vec::new();
    let mut skipped = Vec::new();
    let mut done: Vec<&String> = Vec::new();
    for top in targets.iter().flat_map(|t| &t.top) {
        if done.contains(&top) {
            continue;
        }
        done.push(top);
        let on: Vec<&DeviceTarget> = targets.iter().filter(|t| t.top.contains(top)).collect();
        let is_on = |path: &str| on.iter().any(|t| t.target == path);
        let alone = on.iter().all(|t| t.top.len() == 1);
        let users: Vec<usize> = (0..spec.workloads.len())
            .filter(|&i| workload_paths(&spec.workloads[i]).iter().any(|x| is_on(x)))
            .collect();
        let only_here = users
            .iter()
            .all(|&i| workload_paths(&spec.workloads[i]).iter().all(|x| is_on(x)));
        if alone && only_here && !users.is_empty() {
            groups.push((top.clone(), users));
        } else {
            skipped.push(top.clone());
        }
    }
    (groups, skipped)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn appends_and_rewrites_count_as_written() {
        let mut s = Summary::default();
        s.write.ops = 2;
        s.write.bytes = 8192;
        for (k, ops, bytes) in [("append", 3, 300), ("rewrite", 1, 4096), ("stat", 9, 0)] {
            let d = iolab_report::model::DirResult {
                ops,
                bytes,
                ..Default::default()
            };
            s.ops.insert(k.into(), d);
        }
        assert_eq!(written(&s), (6, 8192 + 300 + 4096));
    }

    fn target(path: &str, top: &[&str]) -> DeviceTarget {
        DeviceTarget {
            target: path.into(),
            top: top.iter().map(|s| s.to_string()).collect(),
            ..Default::default()
        }
    }

    fn run(workloads: &[&[&str]]) -> RunSpec {
        let mut r = RunSpec::single(WorkloadSpec::example("w0", "/x", "read"));
        r.workloads = workloads
            .iter()
            .enumerate()
            .map(|(i, paths)| {
                let mut w = WorkloadSpec::example(&format!("w{i}"), paths[0], "read");
                w.targets = paths
                    .iter()
                    .map(|p| WorkloadSpec::example("", p, "read").targets[0].clone())
                    .collect();
                w
            })
            .collect();
        r
    }

    #[test]
    fn each_device_is_compared_with_the_workloads_whose_io_lands_only_there() {
        let targets = [
            target("/dev/loop1", &["loop1"]),
            target("/dev/loop2", &["loop2"]),
            target("/mnt/a/f", &["loop3"]),
            target("/dev/md0", &["sda", "sdb"]),
        ];
        // w0 and w1 on loop1 and loop2 each; w2 on loop3 and md0; w3 on
        // loop1 too.
        let spec = run(&[
            &["/dev/loop1"],
            &["/dev/loop2"],
            &["/mnt/a/f", "/dev/md0"],
            &["/dev/loop1"],
        ]);
        let (groups, skipped) = device_groups(&targets, &spec);
        assert_eq!(
            groups,
            [
                ("loop1".to_string(), vec![0, 3]),
                ("loop2".to_string(), vec![1])
            ]
        );
        assert_eq!(skipped, ["loop3", "sda", "sdb"]);
    }
}
