//! The steady-state judge (fio `ss`): fed a workload's finalized
//! intervals as the run goes, it sums them into one-second samples (or
//! takes each interval as a sample when the run's interval is longer),
//! keeps the last window of them, and says when the criterion holds over
//! a full window. A sample's latency is the mean of its I/Os' latencies
//! (every operation, as fio's `lat` takes every direction's). It reads only the figures the run core already
//! collects: nothing per I/O.
//!
//! fio judges the same way (steadystate.c): the window's mean, the
//! largest |sample - mean| (`iops`, `bw`) or the least-squares slope per
//! sample (`iops_slope`, `bw_slope`), as a percentage of the mean when
//! the limit is one, and the criterion holds when that is below the
//! limit.

use crate::timeline::Timeline;
use iolab_raw::{IntervalRaw, SteadyRaw};
use iolab_spec::{SteadyCheck, SteadyMetric, SteadySpec};
use std::collections::VecDeque;

pub(crate) struct SteadyJudge {
    spec: SteadySpec,
    /// Intervals summed into one sample.
    per_sample: u32,
    /// Samples in a window.
    window: usize,
    /// Intervals starting before this are not sampled (warm-up, the
    /// workload's start delay, `steady_ramp`).
    begin_ns: u64,
    /// The workload's measured start (what `reached_at_ns` counts from).
    start_ns: u64,
    /// The sample being summed: (intervals, ops, bytes, ns).
    acc: (u32, u64, u64, u64),
    /// Its latencies: (sum in ns, count).
    acc_lat: (u128, u64),
    iops: VecDeque<f64>,
    bw: VecDeque<f64>,
    lat: VecDeque<f64>,
    pub raw: SteadyRaw,
    /// Intervals of the workload's list already fed.
    pub fed: usize,
}

impl SteadyJudge {
    /// A judge for a workload whose measured time starts at `start_ns`.
    pub fn new(spec: SteadySpec, tl: Timeline, start_ns: u64) -> SteadyJudge {
        let iv = tl.interval_ns.max(1) as f64;
        let per_sample = (1e9 / iv).round().max(1.0) as u32;
        let sample_s = per_sample as f64 * iv / 1e9;
        let window = ((spec.duration_s / sample_s).round() as usize).max(2);
        SteadyJudge {
            spec,
            per_sample,
            window,
            begin_ns: start_ns + (spec.ramp_s * 1e9) as u64,
            start_ns,
            acc: (0, 0, 0, 0),
            acc_lat: (0, 0),
            iops: VecDeque::with_capacity(window + 1),
            bw: VecDeque::with_capacity(window + 1),
            lat: VecDeque::with_capacity(window + 1),
            raw: SteadyRaw {
                sample_s,
                ..Default::default()
            },
            fed: 0,
        }
    }

    /// Feed the workload's intervals not fed yet; true when the
    /// criterion was reached (now or before).
    pub fn feed(&mut self, intervals: &[IntervalRaw]) -> bool {
        while self.fed < intervals.len() && !self.raw.reached {
            let iv = &intervals[self.fed];
            self.fed += 1;
            if iv.warmup || iv.start_ns < self.begin_ns {
                continue;
            }
            self.acc.0 += 1;
            self.acc.1 += iv.ops.total_ops();
            self.acc.2 += iv.ops.total_bytes();
            self.acc.3 += iv.end_ns.saturating_sub(iv.start_ns);
            for (_, d) in iv.ops.iter() {
                self.acc_lat.0 += d.lat.sum();
                self.acc_lat.1 += d.lat.count();
            }
            if self.acc.0 == self.per_sample {
                let (_, ops, bytes, ns) = std::mem::take(&mut self.acc);
                let (lsum, ln) = std::mem::take(&mut self.acc_lat);
                let lat = if ln == 0 {
                    0.0
                } else {
                    lsum as f64 / ln as f64
                };
                self.sample(ops, bytes, ns, lat, iv.end_ns);
            }
        }
        self.raw.reached
    }

    fn sample(&mut self, ops: u64, bytes: u64, ns: u64, lat: f64, end_ns: u64) {
        let secs = (ns.max(1)) as f64 / 1e9;
        self.iops.push_back(ops as f64 / secs);
        self.bw.push_back(bytes as f64 / secs);
        self.lat.push_back(lat);
        if self.iops.len() > self.window {
            self.iops.pop_front();
            self.bw.pop_front();
            self.lat.pop_front();
        }
        if self.iops.len() < self.window {
            return;
        }
        let ys = match self.spec.metric {
            SteadyMetric::Iops => &self.iops,
            SteadyMetric::Bw => &self.bw,
            SteadyMetric::Lat => &self.lat,
        };
        let v = judge(&self.spec, ys);
        self.raw.value = Some(v);
        self.keep_samples();
        if v < self.spec.limit {
            self.raw.reached = true;
            self.raw.reached_at_ns = Some(end_ns.saturating_sub(self.start_ns));
        }
    }

    /// At the workload's end: the last window as far as it got.
    pub fn finish(mut self) -> SteadyRaw {
        if self.raw.value.is_none() {
            self.keep_samples();
        }
        self.raw
    }

    fn keep_samples(&mut self) {
        self.raw.samples_iops = self.iops.iter().copied().collect();
        self.raw.samples_bw = self.bw.iter().copied().collect();
        self.raw.samples_lat_ns = self.lat.iter().copied().collect();
    }
}

/// The judged value of window `ys`: the largest deviation from the mean,
/// or the absolute least-squares slope per sample; in percent of the mean
/// when the limit is a percentage (a zero mean judges as infinite).
pub(crate) fn judge(spec: &SteadySpec, ys: &VecDeque<f64>) -> f64 {
    let n = ys.len() as f64;
    let mean = ys.iter().sum::<f64>() / n;
    let v = match spec.check {
        SteadyCheck::Deviation => ys.iter().map(|y| (y - mean).abs()).fold(0.0, f64::max),
        SteadyCheck::Slope => {
            let xm = (n - 1.0) / 2.0;
            let (mut sxy, mut sxx) = (0.0, 0.0);
            for (i, y) in ys.iter().enumerate() {
                let dx = i as f64 - xm;
                sxy += dx * (y - mean);
                sxx += dx * dx;
            }
            (sxy / sxx).abs()
        }
    };
    if !spec.percent {
        v
    } else if mean > 0.0 {
        100.0 * v / mean
    } else {
        f64::INFINITY
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use iolab_raw::{Op, OpStats};

    fn spec(s: &str, dur: f64) -> SteadySpec {
        iolab_spec::steady::parse_steady(s, Some(dur), 0.0).unwrap()
    }

    fn iv(k: u32, ops: u64, interval_ns: u64) -> IntervalRaw {
        let mut i = IntervalRaw::empty(
            k,
            k as u64 * interval_ns,
            (k as u64 + 1) * interval_ns,
            false,
        );
        let mut o = OpStats::rw(false);
        o.get_mut(Op::Read).unwrap().ops = ops;
        o.get_mut(Op::Read).unwrap().bytes = ops * 4096;
        i.ops = o;
        i
    }

    fn tl(interval_ns: u64) -> Timeline {
        Timeline {
            warmup_ns: 0,
            interval_ns,
        }
    }

    #[test]
    fn deviation_and_slope_as_fio_computes_them() {
        let ys: VecDeque<f64> = [90.0, 100.0, 110.0].into_iter().collect();
        assert!((judge(&spec("iops:1%", 3.0), &ys) - 10.0).abs() < 1e-9);
        assert!((judge(&spec("iops:1", 3.0), &ys) - 10.0).abs() < 1e-9);
        // Slope 10 per sample over a mean of 100.
        assert!((judge(&spec("iops_slope:1%", 3.0), &ys) - 10.0).abs() < 1e-9);
        let flat: VecDeque<f64> = [5.0, 7.0, 5.0, 7.0].into_iter().collect();
        assert!(judge(&spec("iops_slope:1%", 4.0), &flat) < 100.0 * 0.41 / 6.0);
        let zero: VecDeque<f64> = [0.0, 0.0].into_iter().collect();
        assert!(judge(&spec("iops:5%", 2.0), &zero).is_infinite());
    }

    #[test]
    fn a_constant_rate_levels_after_one_window_a_step_does_not() {
        let mut j = SteadyJudge::new(spec("iops:5%", 2.0), tl(1_000_000_000), 0);
        let ivs: Vec<IntervalRaw> = (0..3).map(|k| iv(k, 1000, 1_000_000_000)).collect();
        assert!(!j.feed(&ivs[..1]));
        assert!(j.feed(&ivs[..2]));
        let r = j.finish();
        assert_eq!(r.reached_at_ns, Some(2_000_000_000));
        assert_eq!(r.samples_iops, vec![1000.0, 1000.0]);
        let mut j = SteadyJudge::new(spec("iops:5%", 2.0), tl(1_000_000_000), 0);
        let ivs: Vec<IntervalRaw> = (0..4)
            .map(|k| iv(k, 1000 * (k as u64 + 1), 1_000_000_000))
            .collect();
        assert!(!j.feed(&ivs));
        let r = j.finish();
        assert!(!r.reached && r.value.unwrap() > 5.0);
    }

    #[test]
    fn lat_judges_the_mean_latency_of_each_sample() {
        let lat_iv = |k: u32, lat_ns: u64| {
            let mut i = iv(k, 100, 1_000_000_000);
            let d = i.ops.get_mut(Op::Read).unwrap();
            for _ in 0..100 {
                d.lat.record(lat_ns);
            }
            i
        };
        // 100 us then 102 us: 1% from the mean, within 5%.
        let mut j = SteadyJudge::new(spec("lat:5%", 2.0), tl(1_000_000_000), 0);
        assert!(j.feed(&[lat_iv(0, 100_000), lat_iv(1, 102_000)]));
        let r = j.finish();
        assert!((r.value.unwrap() - 1.0).abs() < 0.1, "{:?}", r.value);
        assert_eq!(r.samples_lat_ns.len(), 2);
        // 100 us then 200 us: a third off the mean, not levelled.
        let mut j = SteadyJudge::new(spec("lat:5%", 2.0), tl(1_000_000_000), 0);
        assert!(!j.feed(&[lat_iv(0, 100_000), lat_iv(1, 200_000)]));
    }

    #[test]
    fn long_intervals_are_one_sample_each_and_the_window_counts_them() {
        // 2 s intervals, a 4 s window: two samples of 2 s.
        let mut j = SteadyJudge::new(spec("bw:1%", 4.0), tl(2_000_000_000), 0);
        let ivs: Vec<IntervalRaw> = (0..2).map(|k| iv(k, 2000, 2_000_000_000)).collect();
        assert!(j.feed(&ivs));
        let r = j.finish();
        assert_eq!(r.sample_s, 2.0);
        assert_eq!(r.samples_iops, vec![1000.0, 1000.0]);
        assert_eq!(r.samples_bw, vec![4_096_000.0, 4_096_000.0]);
        assert_eq!(r.reached_at_ns, Some(4_000_000_000));
    }

    #[test]
    fn short_intervals_sum_into_one_second_samples_after_the_ramp() {
        let mut s = spec("iops:0%", 2.0);
        s.ramp_s = 1.0;
        let mut j = SteadyJudge::new(s, tl(100_000_000), 0);
        // 10 per 100 ms in the ramp, then 100 per 100 ms: samples of 1000/s.
        let ivs: Vec<IntervalRaw> = (0..30)
            .map(|k| iv(k, if k < 10 { 10 } else { 100 }, 100_000_000))
            .collect();
        assert!(!j.feed(&ivs), "0% is never strictly beaten");
        let r = j.finish();
        assert_eq!(r.sample_s, 1.0);
        assert_eq!(r.samples_iops.len(), 2);
        assert!(r.samples_iops.iter().all(|&v| (v - 1000.0).abs() < 1e-6));
        assert_eq!(r.value, Some(0.0));
    }
}
