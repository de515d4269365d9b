//! Device statistics beside a run: find the devices under each target,
//! sample them at every interval as `iostat -x` would, compare iolab's
//! counts with theirs, and give the advice that applies (docs/doctor.md).
//! Sampling happens on the collector thread, once per interval, never on
//! an I/O path.

use iolab_devices::{
    compare, inventory, run_findings, runner_for, target_context, AppCounts, DeviceRow, Sampler,
    Sysroot, TargetContext, WorkloadFacts,
};
use iolab_engine::IntervalRaw;
use iolab_report::model::{DeviceInterval, DeviceStats, DeviceTarget, RunResult};
use iolab_spec::{DataPattern, EngineKind, SyncMode, WorkloadSpec};

pub struct DevRun {
    root: Sysroot,
    contexts: Vec<TargetContext>,
    sampler: Sampler,
    stats: DeviceStats,
    warmup_ns: u64,
}

impl DevRun {
    /// Find the devices under the run's targets (before the clock starts).
    pub fn new(spec: &WorkloadSpec) -> DevRun {
        let root = Sysroot::new("/");
        let runner = runner_for(&root);
        let mut contexts = Vec::new();
        let mut set: Vec<String> = Vec::new();
        let mut targets = Vec::new();
        for t in &spec.targets {
            let ctx = target_context(&root, runner.as_ref(), &t.path);
            let sampled = ctx.discovery.sample_set();
            for d in &sampled {
                if !set.contains(d) {
                    set.push(d.clone());
                }
            }
            targets.push(DeviceTarget {
                target: t.path.clone(),
                top: ctx.discovery.top.clone(),
                sampled,
                notes: ctx.discovery.notes.clone(),
            });
            contexts.push(ctx);
        }
        let sampler = Sampler::new(&root, &set);
        DevRun {
            root,
            contexts,
            sampler,
            stats: DeviceStats {
                targets,
                ..Default::default()
            },
            warmup_ns: (spec.warmup_s * 1e9) as u64,
        }
    }

    /// Time 0 of the run: the first sample.
    pub fn start(&mut self) {
        self.sampler.restart();
    }

    /// An interval ended: one row per device.
    pub fn interval(&mut self, iv: &IntervalRaw) {
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
    pub fn finish(mut self, spec: &WorkloadSpec, run: &mut RunResult) {
        self.stats.summary = self.sampler.summary();
        self.stats.missing = self.sampler.missing().to_vec();
        let s = &run.summary;
        if spec.engine == EngineKind::Null {
            // The null engine does no I/O: comparing its counts with the
            // devices', or advising on them, would be about nothing.
            run.devices = Some(self.stats);
            return;
        }
        if self.contexts.len() == 1 {
            let app = AppCounts {
                read_ops: s.read.ops,
                read_bytes: s.read.bytes,
                write_ops: s.write.ops,
                write_bytes: s.write.bytes,
                direct: spec.direct,
            };
            for top in &self.contexts[0].discovery.top {
                if let Some(row) = self.stats.summary.iter().find(|r| &r.device == top) {
                    self.stats
                        .count_notes
                        .extend(compare(&app, top, &row.stats.counts));
                }
            }
        } else if self.contexts.len() > 1 {
            self.stats.notes.push(
                "several targets: iolab's counts are not compared per device (the summary rows are still the devices' own)".into(),
            );
        }
        let measured: Vec<DeviceRow> = self
            .stats
            .intervals
            .iter()
            .filter(|i| !i.warmup)
            .flat_map(|i| i.rows.iter().cloned())
            .collect();
        let fc_after = inventory::fc_hosts(&self.root);
        for (ctx, t) in self.contexts.iter().zip(&spec.targets) {
            let region = run
                .targets
                .iter()
                .find(|r| r.path == t.path)
                .map_or(0, |r| r.region_len);
            let facts = WorkloadFacts {
                target: t.path.clone(),
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
                    .find(|r| r.path == t.path)
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
}
