//! Latency figures in fio's shapes from iolab's histograms: the
//! `slat_ns`/`clat_ns`/`lat_ns` objects (min, max, mean, stddev, N,
//! `percentile` keyed like fio's "99.000000"), json+'s `bins`, and the
//! `latency_ns`/`latency_us`/`latency_ms` distribution.
//!
//! Percentiles are iolab's own (its HDR histogram, within 1 %), so they
//! equal the result document's. `bins` are fio's histogram buckets: fio
//! keeps 64 buckets per power of two (values below 128 ns exact) and names
//! each by the middle of its range; iolab's buckets (2 significant digits:
//! 128 per power of two, exact below 256 ns) each lie inside exactly one
//! of fio's, so re-bucketing them is exact: the counts are the ones fio's
//! histogram would hold for the same latencies.

use super::out::Obj;
use crate::model::HistogramData;
use iolab_stats::LatHist;

/// fio's default `percentile_list`.
pub const DEFAULT_PERCENTILES: [f64; 17] = [
    1.0, 5.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0, 90.0, 95.0, 99.0, 99.5, 99.9, 99.95,
    99.99,
];

/// fio keeps at most this many percentiles.
pub const MAX_PERCENTILES: usize = 20;

/// Bits of fio's histogram: 2^6 buckets per power of two.
const PLAT_BITS: u32 = 6;
const PLAT_VAL: u64 = 1 << PLAT_BITS;
/// fio's number of buckets (29 groups of 64); larger values share the last.
const PLAT_NR: u64 = 29 * PLAT_VAL;

/// The index of fio's histogram bucket that holds `ns`.
pub fn fio_bucket(ns: u64) -> u64 {
    if ns < 2 * PLAT_VAL {
        return ns;
    }
    let msb = 63 - ns.leading_zeros();
    let shift = msb - PLAT_BITS;
    let idx = ((shift as u64 + 1) << PLAT_BITS) + ((ns >> shift) & (PLAT_VAL - 1));
    idx.min(PLAT_NR - 1)
}

/// The value fio names bucket `idx` by: the middle of its range (the value
/// itself below 128 ns).
pub fn fio_bucket_value(idx: u64) -> u64 {
    if idx < 2 * PLAT_VAL {
        return idx;
    }
    let shift = (idx >> PLAT_BITS) - 1;
    let base = 1u64 << (shift + PLAT_BITS as u64);
    let k = idx % PLAT_VAL;
    // base + (k + 0.5) * 2^shift, in integers.
    base + (k << shift) + ((1u64 << shift) >> 1)
}

/// A stored histogram as a [`LatHist`] (exact: buckets, min, max, sum).
pub fn hist(h: &HistogramData) -> LatHist {
    LatHist::from_buckets(&h.buckets, h.min_ns, h.max_ns, h.sum_ns)
}

/// The middle of the iolab bucket whose highest value is `hi` (2
/// significant digits: exact below 256, then 128 buckets per power of two).
fn bucket_mid(hi: u64) -> f64 {
    if hi < 256 {
        return hi as f64;
    }
    let msb = 63 - hi.leading_zeros();
    let width = 1u64 << (msb - 7);
    hi as f64 - (width - 1) as f64 / 2.0
}

/// Sample standard deviation (n - 1, as fio) of the histogram around its
/// exact mean, each bucket counted at its middle: within the histogram's
/// error bound.
pub fn stddev(h: &LatHist) -> f64 {
    let n = h.count();
    if n < 2 {
        return 0.0;
    }
    let mean = h.mean();
    let s: f64 = h
        .buckets()
        .iter()
        .map(|&(v, c)| {
            let d = bucket_mid(v) - mean;
            d * d * c as f64
        })
        .sum();
    (s / (n - 1) as f64).sqrt()
}

/// fio's key for a percentile: `%f` (six decimals).
pub fn percentile_key(p: f64) -> String {
    format!("{p:.6}")
}

/// What one latency object holds besides min/max/mean/stddev/N.
#[derive(Debug, Clone, Copy, Default)]
pub struct LatShape<'a> {
    /// Percentiles to list (empty: none).
    pub percentiles: &'a [f64],
    /// json+: add fio's `bins`.
    pub bins: bool,
}

/// A `*_ns` object for `h` (empty: zeros and N 0, as fio writes for
/// latencies it did not measure).
pub fn lat_object(h: &LatHist, shape: LatShape) -> Obj {
    let n = h.count();
    let mut o = Obj::new();
    o.put("min", h.min())
        .put("max", h.max())
        .put("mean", h.mean())
        .put("stddev", stddev(h))
        .put("N", n);
    if n == 0 || shape.percentiles.is_empty() {
        return o;
    }
    let mut p = Obj::new();
    for &q in shape.percentiles {
        p.put(percentile_key(q), h.quantile(q / 100.0));
    }
    o.put("percentile", p);
    if shape.bins {
        o.put("bins", bins(h));
    }
    o
}

/// fio's `bins`: bucket value (ns, as text) -> count, non-empty buckets in
/// ascending order.
pub fn bins(h: &LatHist) -> Obj {
    let mut out: Vec<(u64, u64)> = Vec::new();
    for (v, c) in h.buckets() {
        let idx = fio_bucket(v);
        match out.last_mut() {
            Some((i, n)) if *i == idx => *n += c,
            _ => out.push((idx, c)),
        }
    }
    let mut o = Obj::new();
    for (idx, c) in out {
        o.put(fio_bucket_value(idx).to_string(), c);
    }
    o
}

/// fio's ranges: a latency below `bound` (in the object's unit) falls in
/// the first range whose key is above it.
const NS_US_KEYS: [u64; 10] = [2, 4, 10, 20, 50, 100, 250, 500, 750, 1000];
const MS_KEYS: [u64; 11] = [2, 4, 10, 20, 50, 100, 250, 500, 750, 1000, 2000];

/// `latency_ns`, `latency_us`, `latency_ms`: the share (percent) of I/Os
/// of `h` in each of fio's ranges. Each iolab bucket is counted at its
/// highest value (within 1 % of every latency in it). fio shows a share
/// that rounds below 0.01 % as 0.01 %; so does this.
pub fn latency_ranges(h: &LatHist) -> [Obj; 3] {
    let mut ns = [0u64; 10];
    let mut us = [0u64; 10];
    let mut ms = [0u64; 12];
    for (v, c) in h.buckets() {
        let (unit, slots): (u64, &mut [u64]) = if v < 1000 {
            (v, &mut ns)
        } else if v < 1_000_000 {
            (v / 1000, &mut us)
        } else {
            (v / 1_000_000, &mut ms)
        };
        let keys: &[u64] = if slots.len() == 12 {
            &MS_KEYS
        } else {
            &NS_US_KEYS
        };
        let i = keys.iter().position(|&k| unit < k).unwrap_or(keys.len());
        slots[i] += c;
    }
    let total = h.count();
    let pct = |c: u64| -> f64 {
        if total == 0 {
            return 0.0;
        }
        let p = c as f64 * 100.0 / total as f64;
        if p < 0.01 && c > 0 {
            0.01
        } else {
            p
        }
    };
    let obj = |keys: &[u64], counts: &[u64], last: Option<&str>| {
        let mut o = Obj::new();
        for (k, &c) in keys.iter().zip(counts) {
            o.put(k.to_string(), pct(c));
        }
        if let Some(l) = last {
            o.put(l, pct(counts[keys.len()]));
        }
        o
    };
    [
        obj(&NS_US_KEYS, &ns, None),
        obj(&NS_US_KEYS, &us, None),
        obj(&MS_KEYS, &ms, Some(">=2000")),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fio::out::J;
    use proptest::prelude::*;

    #[test]
    fn fio_buckets_match_fios_layout() {
        // Exact below 128; then 64 buckets per power of two named by
        // their middle.
        assert_eq!(fio_bucket(127), 127);
        assert_eq!(fio_bucket(128), 128);
        assert_eq!(fio_bucket(129), 128);
        assert_eq!(fio_bucket_value(128), 129);
        assert_eq!(fio_bucket(256), 192);
        assert_eq!(fio_bucket_value(192), 258);
        // Values fio itself printed as bins in a 3.33 json+ run.
        for v in [39680u64, 40192, 40704, 24960, 35584, 37120] {
            assert_eq!(fio_bucket_value(fio_bucket(v)), v);
        }
        assert_eq!(fio_bucket(u64::MAX), PLAT_NR - 1);
    }

    proptest! {
        #[test]
        fn every_iolab_bucket_lies_in_one_fio_bucket(v in 1u64..20_000_000_000) {
            let mut h = LatHist::new();
            h.record(v);
            let hi = h.buckets()[0].0;
            prop_assert_eq!(fio_bucket(v), fio_bucket(hi));
            let mid = bucket_mid(hi);
            prop_assert!(mid <= hi as f64 && (hi as f64 - mid) <= hi as f64 / 256.0 + 1.0);
        }
    }

    #[test]
    fn percentiles_and_ranges() {
        let mut h = LatHist::new();
        for i in 0..1000u64 {
            h.record(500 + i); // 500 ns .. 1.5 us
        }
        h.record(3_000_000); // 3 ms
        let o = lat_object(
            &h,
            LatShape {
                percentiles: &[50.0, 99.9],
                bins: true,
            },
        );
        let p = match o.get("percentile") {
            Some(J::O(p)) => p.clone(),
            x => panic!("{x:?}"),
        };
        assert_eq!(p.get("50.000000"), Some(&J::U(h.quantile(0.5))));
        assert_eq!(p.get("99.900000"), Some(&J::U(h.quantile(0.999))));
        let bins = match o.get("bins") {
            Some(J::O(b)) => b.clone(),
            x => panic!("{x:?}"),
        };
        let n: u64 = bins
            .0
            .iter()
            .map(|(_, c)| match c {
                J::U(c) => *c,
                _ => 0,
            })
            .sum();
        assert_eq!(n, 1001);
        let [ns, us, ms] = latency_ranges(&h);
        let f = |o: &Obj, k: &str| match o.get(k) {
            Some(J::F(f)) => *f,
            x => panic!("{k}: {x:?}"),
        };
        // 500..749 -> "750", 750..999 -> "1000", 1..1.5 us -> "2".
        assert!((f(&ns, "750") - 250.0 / 1001.0 * 100.0).abs() < 0.5);
        assert!(f(&ns, "1000") > 20.0);
        assert!(f(&us, "2") > 45.0);
        assert_eq!(f(&ms, "4"), 100.0 / 1001.0);
        let sum: f64 = [ns, us, ms]
            .iter()
            .flat_map(|o| o.0.iter())
            .map(|(_, v)| match v {
                J::F(f) => *f,
                _ => 0.0,
            })
            .sum();
        assert!((sum - 100.0).abs() < 1e-9, "{sum}");
    }

    #[test]
    fn stddev_close_to_exact() {
        let vals: Vec<u64> = (0..5000u64).map(|i| 10_000 + (i * 7919) % 90_000).collect();
        let mut h = LatHist::new();
        for &v in &vals {
            h.record(v);
        }
        let mean = vals.iter().sum::<u64>() as f64 / vals.len() as f64;
        let var =
            vals.iter().map(|&v| (v as f64 - mean).powi(2)).sum::<f64>() / (vals.len() - 1) as f64;
        let exact = var.sqrt();
        assert!(
            (stddev(&h) - exact).abs() < exact * 0.01,
            "{} {exact}",
            stddev(&h)
        );
    }
}
