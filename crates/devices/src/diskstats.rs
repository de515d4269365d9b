//! /proc/diskstats samples and the `iostat -x` arithmetic over two of them.
//!
//! The formulas are sysstat's (iostat.c `write_ext_stat` and rd_stats.c
//! `compute_ext_disk_stats`, sysstat 12.x), so iolab's figures and
//! `iostat -x` agree when they cover the same interval:
//!
//! - rates (`r/s`, `rkB/s`, `rrqm/s`, ...) are counter deltas divided by the
//!   interval; kB are sectors / 2;
//! - `r_await` = delta read ticks / delta reads (ms), likewise `w_`, `d_`,
//!   `f_await`; `await` adds reads, writes and discards (flushes are not in
//!   it, as in sysstat);
//! - `rareq-sz` = delta sectors read / delta reads / 2 (kB);
//! - `%rrqm` = merges / (merges + requests) x 100;
//! - `aqu-sz` = delta weighted ticks (field 11) / interval (ms / ms);
//! - `%util` = delta io_ticks (field 10) / interval x 100, and 0 when the
//!   counter went backwards.
//!
//! The kernel prints the tick fields as 32-bit unsigned and the others as
//! 64-bit unsigned (`unsigned long`); deltas wrap in the same widths, as
//! sysstat's do.

use crate::sysroot::Sysroot;
use serde::{Deserialize, Serialize};
use std::time::Instant;

/// The counters of one /proc/diskstats line (fields 4-20, see the kernel's
/// Documentation/admin-guide/iostats.rst). Discard and flush fields are 0
/// on kernels that do not print them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sample {
    pub rd_ios: u64,
    pub rd_merges: u64,
    pub rd_sectors: u64,
    pub rd_ticks: u64,
    pub wr_ios: u64,
    pub wr_merges: u64,
    pub wr_sectors: u64,
    pub wr_ticks: u64,
    /// I/Os in flight when sampled (not a counter).
    pub ios_pgr: u64,
    /// Milliseconds the device had I/O in flight (io_ticks).
    pub tot_ticks: u64,
    /// Weighted milliseconds: in-flight count x time (time_in_queue).
    pub rq_ticks: u64,
    pub dc_ios: u64,
    pub dc_merges: u64,
    pub dc_sectors: u64,
    pub dc_ticks: u64,
    pub fl_ios: u64,
    pub fl_ticks: u64,
}

/// Parse the counters after the device name on one diskstats line
/// (`11`, `15` or `17` numbers). `None` for fewer than 11.
pub fn parse_fields(fields: &str) -> Option<Sample> {
    let mut n = [0u64; 17];
    let mut count = 0;
    for (i, f) in fields.split_ascii_whitespace().enumerate() {
        if i >= 17 {
            break;
        }
        n[i] = f.parse().ok()?;
        count = i + 1;
    }
    if count < 11 {
        return None;
    }
    Some(Sample {
        rd_ios: n[0],
        rd_merges: n[1],
        rd_sectors: n[2],
        rd_ticks: n[3],
        wr_ios: n[4],
        wr_merges: n[5],
        wr_sectors: n[6],
        wr_ticks: n[7],
        ios_pgr: n[8],
        tot_ticks: n[9],
        rq_ticks: n[10],
        dc_ios: n[11],
        dc_merges: n[12],
        dc_sectors: n[13],
        dc_ticks: n[14],
        fl_ios: n[15],
        fl_ticks: n[16],
    })
}

/// The sample for `name` in diskstats text.
pub fn find(text: &str, name: &str) -> Option<Sample> {
    text.lines().find_map(|line| {
        let mut it = line.split_ascii_whitespace();
        let (_maj, _min, dev) = (it.next()?, it.next()?, it.next()?);
        if dev != name {
            return None;
        }
        let rest = line.split_once(dev)?.1;
        parse_fields(rest)
    })
}

/// What a device did over an interval, as plain counts (bytes, not sectors).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeviceCounts {
    pub reads: u64,
    pub read_bytes: u64,
    pub writes: u64,
    pub write_bytes: u64,
    pub discards: u64,
    pub discard_bytes: u64,
    pub flushes: u64,
}

impl DeviceCounts {
    pub fn add(&mut self, o: &DeviceCounts) {
        self.reads += o.reads;
        self.read_bytes += o.read_bytes;
        self.writes += o.writes;
        self.write_bytes += o.write_bytes;
        self.discards += o.discards;
        self.discard_bytes += o.discard_bytes;
        self.flushes += o.flushes;
    }
}

/// One device over one interval, with the columns of `iostat -x` (sysstat
/// 12 names in the comments) and the raw counts behind them.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct IostatRow {
    pub interval_ms: f64,
    /// r/s
    pub r_s: f64,
    /// w/s
    pub w_s: f64,
    /// d/s (discards)
    pub d_s: f64,
    /// f/s (flush requests)
    pub f_s: f64,
    /// rkB/s
    pub rkb_s: f64,
    /// wkB/s
    pub wkb_s: f64,
    /// dkB/s
    pub dkb_s: f64,
    /// rrqm/s
    pub rrqm_s: f64,
    /// wrqm/s
    pub wrqm_s: f64,
    /// drqm/s
    pub drqm_s: f64,
    /// %rrqm
    pub rrqm_pct: f64,
    /// %wrqm
    pub wrqm_pct: f64,
    /// %drqm
    pub drqm_pct: f64,
    /// r_await (ms)
    pub r_await: f64,
    /// w_await (ms)
    pub w_await: f64,
    /// d_await (ms)
    pub d_await: f64,
    /// f_await (ms)
    pub f_await: f64,
    /// await (ms): reads, writes and discards together (`iostat -s`)
    pub await_ms: f64,
    /// rareq-sz (kB)
    pub rareq_sz: f64,
    /// wareq-sz (kB)
    pub wareq_sz: f64,
    /// dareq-sz (kB)
    pub dareq_sz: f64,
    /// areq-sz (kB): reads, writes and discards together
    pub areq_sz: f64,
    /// aqu-sz: the average number of requests in flight (the active queue)
    pub aqu_sz: f64,
    /// %util: share of the interval with at least one request in flight
    pub util_pct: f64,
    /// Requests in flight at the end of the interval (a snapshot)
    pub in_flight: u64,
    pub counts: DeviceCounts,
}

/// 32-bit delta, as the kernel prints tick fields as `unsigned int`.
fn d32(cur: u64, prev: u64) -> f64 {
    (cur as u32).wrapping_sub(prev as u32) as f64
}

/// 64-bit delta for the `unsigned long` counters.
fn d64(cur: u64, prev: u64) -> u64 {
    cur.wrapping_sub(prev)
}

fn ratio(num: f64, den: u64) -> f64 {
    if den == 0 {
        0.0
    } else {
        num / den as f64
    }
}

fn pct_merged(merges: u64, ios: u64) -> f64 {
    let all = merges.wrapping_add(ios);
    if all == 0 {
        0.0
    } else {
        merges as f64 / all as f64 * 100.0
    }
}

/// The `iostat -x` row for the interval from `prev` to `cur`, which lasted
/// `interval_ms` milliseconds.
pub fn iostat(prev: &Sample, cur: &Sample, interval_ms: f64) -> IostatRow {
    let secs = if interval_ms > 0.0 {
        interval_ms / 1000.0
    } else {
        f64::INFINITY
    };
    let rate = |d: u64| d as f64 / secs;
    let rd = d64(cur.rd_ios, prev.rd_ios);
    let wr = d64(cur.wr_ios, prev.wr_ios);
    let dc = d64(cur.dc_ios, prev.dc_ios);
    let fl = d64(cur.fl_ios, prev.fl_ios);
    let rs = d64(cur.rd_sectors, prev.rd_sectors);
    let ws = d64(cur.wr_sectors, prev.wr_sectors);
    let ds = d64(cur.dc_sectors, prev.dc_sectors);
    let rm = d64(cur.rd_merges, prev.rd_merges);
    let wm = d64(cur.wr_merges, prev.wr_merges);
    let dm = d64(cur.dc_merges, prev.dc_merges);
    let rt = d32(cur.rd_ticks, prev.rd_ticks);
    let wt = d32(cur.wr_ticks, prev.wr_ticks);
    let dt = d32(cur.dc_ticks, prev.dc_ticks);
    let ft = d32(cur.fl_ticks, prev.fl_ticks);
    // Deltas wrap (a counter that went backwards gives a huge delta, as in
    // sysstat), so sums and byte counts wrap too rather than overflow.
    let nr = rd.wrapping_add(wr).wrapping_add(dc);
    let util_ticks = if (cur.tot_ticks as u32) < (prev.tot_ticks as u32) {
        0.0
    } else {
        d32(cur.tot_ticks, prev.tot_ticks)
    };
    let ms = if interval_ms > 0.0 {
        interval_ms
    } else {
        f64::INFINITY
    };
    IostatRow {
        interval_ms,
        r_s: rate(rd),
        w_s: rate(wr),
        d_s: rate(dc),
        f_s: rate(fl),
        rkb_s: rate(rs) / 2.0,
        wkb_s: rate(ws) / 2.0,
        dkb_s: rate(ds) / 2.0,
        rrqm_s: rate(rm),
        wrqm_s: rate(wm),
        drqm_s: rate(dm),
        rrqm_pct: pct_merged(rm, rd),
        wrqm_pct: pct_merged(wm, wr),
        drqm_pct: pct_merged(dm, dc),
        r_await: ratio(rt, rd),
        w_await: ratio(wt, wr),
        d_await: ratio(dt, dc),
        f_await: ratio(ft, fl),
        await_ms: ratio(rt + wt + dt, nr),
        rareq_sz: ratio(rs as f64, rd) / 2.0,
        wareq_sz: ratio(ws as f64, wr) / 2.0,
        dareq_sz: ratio(ds as f64, dc) / 2.0,
        areq_sz: ratio(rs.wrapping_add(ws).wrapping_add(ds) as f64, nr) / 2.0,
        aqu_sz: d32(cur.rq_ticks, prev.rq_ticks) / ms,
        util_pct: util_ticks / ms * 100.0,
        in_flight: cur.ios_pgr,
        counts: DeviceCounts {
            reads: rd,
            read_bytes: rs.wrapping_mul(512),
            writes: wr,
            write_bytes: ws.wrapping_mul(512),
            discards: dc,
            discard_bytes: ds.wrapping_mul(512),
            flushes: fl,
        },
    }
}

/// One device's row for one interval, as the sampler returns it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DeviceRow {
    /// Kernel name (`sda`, `dm-0`, `nvme0n1`, `loop3`).
    pub device: String,
    #[serde(flatten)]
    pub stats: IostatRow,
}

/// Samples a fixed set of devices from `<sysroot>/proc/diskstats`. Meant to
/// be owned by one thread (it is `Send`) and called once per interval; the
/// file is read into a buffer that is reused.
pub struct Sampler {
    sysroot: Sysroot,
    devices: Vec<String>,
    buf: String,
    first: Vec<Option<Sample>>,
    prev: Vec<Option<Sample>>,
    t_first: Instant,
    t_prev: Instant,
    missing: Vec<String>,
}

impl Sampler {
    /// Start sampling `devices` (kernel names); the first sample is taken
    /// now. Devices not in diskstats are listed by [`Sampler::missing`].
    pub fn new(sysroot: &Sysroot, devices: &[String]) -> Sampler {
        let now = Instant::now();
        let mut s = Sampler {
            sysroot: sysroot.clone(),
            devices: devices.to_vec(),
            buf: String::with_capacity(16 * 1024),
            first: vec![None; devices.len()],
            prev: vec![None; devices.len()],
            t_first: now,
            t_prev: now,
            missing: Vec::new(),
        };
        s.prev = s.read();
        s.first = s.prev.clone();
        for (d, p) in s.devices.iter().zip(&s.prev) {
            if p.is_none() {
                s.missing.push(d.clone());
            }
        }
        s
    }

    /// The devices being sampled.
    pub fn devices(&self) -> &[String] {
        &self.devices
    }

    /// Devices that were not in /proc/diskstats when sampling started.
    pub fn missing(&self) -> &[String] {
        &self.missing
    }

    fn read(&mut self) -> Vec<Option<Sample>> {
        if !self.sysroot.read_into("/proc/diskstats", &mut self.buf) {
            return vec![None; self.devices.len()];
        }
        self.devices.iter().map(|d| find(&self.buf, d)).collect()
    }

    /// Take a sample now and return one row per device for the interval
    /// since the previous call (or since `new`/`restart`). A device that
    /// vanished has no row.
    pub fn sample(&mut self) -> Vec<DeviceRow> {
        let now = Instant::now();
        let ms = now.duration_since(self.t_prev).as_secs_f64() * 1000.0;
        self.sample_with_interval(ms, now)
    }

    /// Like [`Sampler::sample`] with the interval length given (tests,
    /// or a caller that keeps its own clock).
    pub fn sample_ms(&mut self, interval_ms: f64) -> Vec<DeviceRow> {
        self.sample_with_interval(interval_ms, Instant::now())
    }

    fn sample_with_interval(&mut self, ms: f64, now: Instant) -> Vec<DeviceRow> {
        let cur = self.read();
        let rows = rows(&self.devices, &self.prev, &cur, ms);
        for (p, c) in self.prev.iter_mut().zip(cur) {
            if c.is_some() {
                *p = c;
            }
        }
        self.t_prev = now;
        rows
    }

    /// One row per device from the first sample to the latest one: the
    /// summary of the run.
    pub fn summary(&self) -> Vec<DeviceRow> {
        let ms = self.t_prev.duration_since(self.t_first).as_secs_f64() * 1000.0;
        rows(&self.devices, &self.first, &self.prev, ms)
    }

    /// Forget what was sampled so far and start again from now (for
    /// example at the end of warm-up).
    pub fn restart(&mut self) {
        let now = Instant::now();
        self.prev = self.read();
        self.first = self.prev.clone();
        self.t_first = now;
        self.t_prev = now;
    }
}

fn rows(
    devices: &[String],
    prev: &[Option<Sample>],
    cur: &[Option<Sample>],
    ms: f64,
) -> Vec<DeviceRow> {
    devices
        .iter()
        .zip(prev.iter().zip(cur))
        .filter_map(|(d, (p, c))| match (p, c) {
            (Some(p), Some(c)) => Some(DeviceRow {
                device: d.clone(),
                stats: iostat(p, c, ms),
            }),
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    // Two samples of one device, one second apart, worked by hand.
    const A: &str =
        "   8       0 sda 1000 10 80000 500 2000 100 160000 4000 0 900 4500 4 0 64 8 20 30";
    const B: &str =
        "   8       0 sda 1100 30 96000 600 2400 300 192000 4800 3 1400 5700 6 1 96 10 30 45";

    #[test]
    fn iostat_by_hand() {
        let p = find(A, "sda").unwrap();
        let c = find(B, "sda").unwrap();
        let r = iostat(&p, &c, 2000.0);
        // 100 reads, 400 writes, 2 discards, 10 flushes in 2 s.
        assert_eq!(r.r_s, 50.0);
        assert_eq!(r.w_s, 200.0);
        assert_eq!(r.d_s, 1.0);
        assert_eq!(r.f_s, 5.0);
        // 16000 sectors read = 8000 kB in 2 s.
        assert_eq!(r.rkb_s, 4000.0);
        assert_eq!(r.wkb_s, 8000.0);
        assert_eq!(r.dkb_s, 8.0);
        assert_eq!(r.rrqm_s, 10.0);
        assert_eq!(r.rrqm_pct, 20.0 / 120.0 * 100.0);
        assert_eq!(r.wrqm_pct, 200.0 / 600.0 * 100.0);
        assert_eq!(r.r_await, 1.0);
        assert_eq!(r.w_await, 2.0);
        assert_eq!(r.d_await, 1.0);
        assert_eq!(r.f_await, 1.5);
        assert_eq!(r.await_ms, 902.0 / 502.0);
        assert_eq!(r.rareq_sz, 80.0);
        assert_eq!(r.wareq_sz, 40.0);
        assert_eq!(r.dareq_sz, 8.0);
        assert_eq!(r.areq_sz, (16000.0 + 32000.0 + 32.0) / 502.0 / 2.0);
        assert_eq!(r.aqu_sz, 0.6);
        assert_eq!(r.util_pct, 25.0);
        assert_eq!(r.in_flight, 3);
        assert_eq!(r.counts.read_bytes, 16000 * 512);
        assert_eq!(r.counts.flushes, 10);
    }

    #[test]
    fn old_kernel_eleven_fields() {
        let s = parse_fields("1 2 3 4 5 6 7 8 9 10 11").unwrap();
        assert_eq!((s.rq_ticks, s.dc_ios, s.fl_ios), (11, 0, 0));
        assert!(parse_fields("1 2 3").is_none());
    }

    #[test]
    fn idle_interval_is_all_zero_not_nan() {
        let s = parse_fields("1 2 3 4 5 6 7 8 0 10 11").unwrap();
        let r = iostat(&s, &s, 1000.0);
        assert_eq!(
            r,
            IostatRow {
                interval_ms: 1000.0,
                ..Default::default()
            }
        );
        let r = iostat(&s, &s, 0.0);
        assert!(r.r_s == 0.0 && r.util_pct == 0.0 && r.aqu_sz == 0.0);
    }

    #[test]
    fn tick_counters_wrap_at_32_bits_and_util_never_goes_negative() {
        let p = Sample {
            rd_ios: 1,
            rd_ticks: u32::MAX as u64 - 1,
            tot_ticks: 500,
            ..Default::default()
        };
        let c = Sample {
            rd_ios: 2,
            rd_ticks: 3,
            tot_ticks: 400,
            ..Default::default()
        };
        let r = iostat(&p, &c, 1000.0);
        assert_eq!(r.r_await, 5.0);
        assert_eq!(r.util_pct, 0.0);
    }

    /// Found by the fuzz pass: counters lower than the previous sample's
    /// (a device removed and re-created under the same name) made
    /// `iostat` overflow adding the wrapped deltas (a panic in debug).
    #[test]
    fn counters_that_went_backwards_do_not_overflow() {
        let p = Sample {
            rd_ios: 10,
            wr_ios: 10,
            rd_merges: 5,
            rd_sectors: 1 << 40,
            wr_sectors: 1 << 40,
            ..Default::default()
        };
        let c = Sample {
            rd_ios: 1,
            wr_ios: 1,
            rd_sectors: 8,
            wr_sectors: 8,
            ..Default::default()
        };
        let r = iostat(&p, &c, 1000.0);
        assert_eq!(r.counts.reads, 1u64.wrapping_sub(10));
        assert!(r.await_ms.is_finite() && r.areq_sz.is_finite());
    }

    #[test]
    fn sampler_over_fixture_file() {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(d.path().join("proc")).unwrap();
        std::fs::write(d.path().join("proc/diskstats"), format!("{A}\n")).unwrap();
        let root = Sysroot::new(d.path());
        let mut s = Sampler::new(&root, &["sda".to_string(), "sdz".to_string()]);
        assert_eq!(s.missing(), ["sdz"]);
        std::fs::write(d.path().join("proc/diskstats"), format!("{B}\n")).unwrap();
        let rows = s.sample_ms(2000.0);
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0].device, "sda");
        assert_eq!(rows[0].stats.r_s, 50.0);
        let sum = s.summary();
        assert_eq!(sum[0].stats.counts.reads, 100);
    }
}
