//! One object of fio's `jobs[]` from an [`Entry`]: the keys fio 3.x's
//! `show_thread_status_json` writes, in its order, with its units
//! (bytes, KiB/s, ms, ns, percent).

use super::entry::{Dir, Entry};
use super::lat::{lat_object, latency_ranges, LatShape};
use super::options::Unified;
use super::out::{Obj, J};
use crate::model::SteadyState;
use iolab_stats::LatHist;

/// fio's `calc_lat` over samples: (min, max, mean, sample stddev), zeros
/// without samples.
fn sample_stats(s: &[f64]) -> (u64, u64, f64, f64) {
    if s.is_empty() {
        return (0, 0, 0.0, 0.0);
    }
    let min = s.iter().copied().fold(f64::INFINITY, f64::min);
    let max = s.iter().copied().fold(0.0, f64::max);
    let mean = s.iter().sum::<f64>() / s.len() as f64;
    let dev = if s.len() > 1 {
        (s.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (s.len() - 1) as f64).sqrt()
    } else {
        0.0
    };
    (min.round() as u64, max.round() as u64, mean, dev)
}

/// What a direction's object needs besides the direction.
pub struct DirCtx<'a> {
    pub percentiles: &'a [f64],
    pub clat_percentiles: bool,
    pub lat_percentiles: bool,
    pub plus: bool,
    /// The group's aggregate bandwidth of this direction, bytes/s.
    pub agg_bytes_s: f64,
}

/// A `read`/`write`/`trim`/`mixed` object.
pub fn dir_object(d: &Dir, c: &DirCtx) -> Obj {
    let bw_bytes = d.bw_bytes();
    let mut o = Obj::new();
    o.put("io_bytes", d.bytes)
        .put("io_kbytes", d.bytes >> 10)
        .put("bw_bytes", bw_bytes)
        .put("bw", bw_bytes / 1024)
        .put("iops", d.iops)
        .put("runtime", d.runtime_ms())
        .put("total_ios", d.ops)
        .put("short_ios", 0u64)
        .put("drop_ios", 0u64);
    // iolab does not time submission apart from completion: fio writes
    // this for its synchronous engines too.
    o.put("slat_ns", lat_object(&LatHist::new(), LatShape::default()));
    let shape = |on: bool| LatShape {
        percentiles: if on { c.percentiles } else { &[] },
        bins: c.plus,
    };
    o.put("clat_ns", lat_object(&d.hist, shape(c.clat_percentiles)));
    o.put("lat_ns", lat_object(&d.hist, shape(c.lat_percentiles)));
    let (min, max, mean, dev) = sample_stats(&d.bw_samples);
    let agg_kib = c.agg_bytes_s / 1024.0;
    let p_of_agg = if d.bw_samples.is_empty() || agg_kib <= 0.0 {
        0.0
    } else {
        (mean * 100.0 / agg_kib).min(100.0)
    };
    o.put("bw_min", min)
        .put("bw_max", max)
        .put("bw_agg", p_of_agg)
        .put("bw_mean", mean)
        .put("bw_dev", dev)
        .put("bw_samples", d.bw_samples.len() as u64);
    let (min, max, mean, dev) = sample_stats(&d.iops_samples);
    o.put("iops_min", min)
        .put("iops_max", max)
        .put("iops_mean", mean)
        .put("iops_stddev", dev)
        .put("iops_samples", d.iops_samples.len() as u64);
    o
}

/// Read, write and trim as one (`unified_rw_reporting`).
pub fn mixed(e: &Entry) -> Dir {
    let mut m = e.read.clone();
    for o in [&e.write, &e.trim] {
        m.ops += o.ops;
        m.bytes += o.bytes;
        m.secs = m.secs.max(o.secs);
        m.hist.merge(&o.hist);
        if m.bw_samples.is_empty() {
            m.bw_samples = o.bw_samples.clone();
            m.iops_samples = o.iops_samples.clone();
        } else if o.bw_samples.len() == m.bw_samples.len() {
            for (a, b) in m.bw_samples.iter_mut().zip(&o.bw_samples) {
                *a += b;
            }
            for (a, b) in m.iops_samples.iter_mut().zip(&o.iops_samples) {
                *a += b;
            }
        }
    }
    m.iops = if m.secs > 0.0 {
        m.ops as f64 / m.secs
    } else {
        0.0
    };
    m
}

/// fio's `sync` object: fsyncs and, where measured, their latency.
fn sync_object(e: &Entry) -> Obj {
    let mut o = Obj::new();
    o.put("total_ios", e.fsyncs);
    let mut l = Obj::new();
    match e.sync_lat {
        Some((n, s)) => {
            l.put("min", (s.min * 1000.0).round() as u64)
                .put("max", (s.max * 1000.0).round() as u64)
                .put("mean", s.mean * 1000.0)
                .put("stddev", 0.0)
                .put("N", n);
        }
        None => {
            l = lat_object(&LatHist::new(), LatShape::default());
        }
    }
    o.put("lat_ns", l);
    o
}

/// The distribution objects fio keys by depth: `iodepth_level` puts
/// every I/O at the configured depth (iolab keeps that many in flight;
/// it does not sample the depth); `iodepth_submit`/`iodepth_complete`
/// are exact at depth 1 (one I/O per call) and not measured otherwise
/// (zeros).
fn depth_objects(qd: u32, ios: u64) -> [Obj; 3] {
    let level_keys = ["1", "2", "4", "8", "16", "32", ">=64"];
    let level_idx = match qd {
        0 | 1 => 0,
        2..=3 => 1,
        4..=7 => 2,
        8..=15 => 3,
        16..=31 => 4,
        32..=63 => 5,
        _ => 6,
    };
    let mut level = Obj::new();
    for (i, k) in level_keys.iter().enumerate() {
        level.put(
            *k,
            if i == level_idx && ios > 0 {
                100.0
            } else {
                0.0
            },
        );
    }
    let sc_keys = ["0", "4", "8", "16", "32", "64", ">=64"];
    let sc = || {
        let mut o = Obj::new();
        for (i, k) in sc_keys.iter().enumerate() {
            o.put(
                *k,
                if i == 1 && qd <= 1 && ios > 0 {
                    100.0
                } else {
                    0.0
                },
            );
        }
        o
    };
    [level, sc(), sc()]
}

/// fio's `steadystate` object.
fn steady_object(s: &SteadyState) -> Obj {
    let pct = if s.percent { "%" } else { "" };
    let mean = if s.criterion.starts_with("iops") {
        s.iops_mean
    } else if s.criterion.starts_with("lat") {
        s.lat_mean_ns
    } else {
        s.bw_mean
    };
    let raw = if s.percent {
        s.value * mean / 100.0
    } else {
        s.value
    };
    let slope = s.criterion.ends_with("_slope");
    let mut o = Obj::new();
    o.put("ss", format!("{}:{:.6}{pct}", s.criterion, s.limit))
        .put("duration", s.duration_s.round() as u64)
        .put("attained", u64::from(s.reached))
        .put("criterion", format!("{:.6}{pct}", s.value))
        .put("max_deviation", if slope { 0.0 } else { raw })
        .put("slope", if slope { raw } else { 0.0 });
    let ints = |v: &[f64]| J::A(v.iter().map(|x| J::U(x.round().max(0.0) as u64)).collect());
    let mut data = Obj::new();
    data.put("bw_mean", s.bw_mean.round() as u64)
        .put("iops_mean", s.iops_mean.round() as u64);
    if s.criterion.starts_with("lat") {
        data.put("lat_mean", s.lat_mean_ns.round() as u64)
            .put("lat_ns", ints(&s.samples_lat_ns));
    }
    data.put("iops", ints(&s.samples_iops))
        .put("bw", ints(&s.samples_bw));
    o.put("data", data);
    o
}

/// Per-group aggregate bandwidths (bytes/s) of read, write, trim, mixed.
pub type Agg = [f64; 4];

/// The `jobs[]` object of `e`.
pub fn job_object(e: &Entry, agg: &Agg, plus: bool, elapsed_s: u64) -> Obj {
    let r = &e.reporting;
    let mut o = Obj::new();
    o.put("jobname", e.name.as_str())
        .put("groupid", e.groupid)
        .put("job_start", e.start_ms)
        .put("error", i64::from(e.first_errno))
        .put("eta", 0u64)
        .put("elapsed", elapsed_s);
    if !r.options.is_empty() {
        let mut jo = Obj::new();
        for (k, v) in &r.options {
            jo.put(k.as_str(), v.as_str());
        }
        o.put("job options", jo);
    }
    let ctx = |agg_bytes_s: f64| DirCtx {
        percentiles: &r.percentiles,
        clat_percentiles: r.clat_percentiles,
        lat_percentiles: r.lat_percentiles,
        plus,
        agg_bytes_s,
    };
    if r.unified == Unified::Mixed {
        o.put("mixed", dir_object(&mixed(e), &ctx(agg[3])));
    } else {
        o.put("read", dir_object(&e.read, &ctx(agg[0])));
        o.put("write", dir_object(&e.write, &ctx(agg[1])));
        o.put("trim", dir_object(&e.trim, &ctx(agg[2])));
    }
    o.put("sync", sync_object(e));
    if r.unified == Unified::Both {
        o.put("mixed", dir_object(&mixed(e), &ctx(agg[3])));
    }
    let runt = e.job_runtime_ms;
    o.put("job_runtime", runt)
        .put("usr_cpu", e.usr_cpu)
        .put("sys_cpu", e.sys_cpu)
        .put("ctx", 0u64)
        .put("majf", 0u64)
        .put("minf", 0u64);
    let ios = e.read.ops + e.write.ops + e.trim.ops;
    let [level, submit, complete] = depth_objects(e.qd, ios);
    o.put("iodepth_level", level)
        .put("iodepth_submit", submit)
        .put("iodepth_complete", complete);
    let mut all = e.read.hist.clone();
    all.merge(&e.write.hist);
    all.merge(&e.trim.hist);
    let [ns, us, ms] = latency_ranges(&all);
    o.put("latency_ns", ns)
        .put("latency_us", us)
        .put("latency_ms", ms);
    if r.continue_on_error {
        o.put("total_err", e.errors)
            .put("first_error", i64::from(e.first_errno));
    }
    o.put("latency_depth", e.qd.max(1))
        .put("latency_target", 0u64)
        .put("latency_target_ns", 0u64)
        .put("latency_percentile", 100.0)
        .put("latency_window", 0u64)
        .put("latency_window_us", 0u64);
    if let Some(s) = &e.steady {
        o.put("steadystate", steady_object(s));
    }
    o
}
