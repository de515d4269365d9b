//! The latency histogram.
//!
//! Built on HdrHistogram (the `hdrhistogram` crate) with 2 significant
//! decimal digits over 1 ns .. 1 hour, in nanoseconds. Error bound: a
//! recorded value is reported as the highest value equivalent to it within
//! its bucket, so any percentile is within 1 % of the true value
//! (HdrHistogram keeps 256 sub-buckets per power of two for 2 digits, a
//! worst-case relative error of 1/128 = 0.78 %). Values above 1 hour are
//! clamped to 1 hour. Memory: about 37 KiB per histogram, fixed, allocated
//! once; recording never allocates.
//!
//! Min, max and the sum (for the mean) are kept exactly beside the buckets.
//! Merging is exact (bucket counts add), so merge is associative and
//! commutative.

use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};

/// Significant decimal digits kept by the buckets.
pub const SIGFIG: u8 = 2;
/// Largest latency tracked: one hour, in nanoseconds.
pub const MAX_TRACKABLE_NS: u64 = 3_600_000_000_000;

/// A latency histogram in nanoseconds with exact min, max and mean.
///
/// Serialised exactly (see [`LatHistWire`]): the recorded buckets as
/// (value, count) pairs plus the exact min, max and sum, so a histogram
/// read back merges and reports the same percentiles, counts, min, max
/// and mean as the original.
#[derive(Clone, Serialize, Deserialize)]
#[serde(into = "LatHistWire", from = "LatHistWire")]
pub struct LatHist {
    h: Histogram<u64>,
    min: u64,
    max: u64,
    sum: u128,
}

impl std::fmt::Debug for LatHist {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "LatHist(n={}, min={}, max={})",
            self.count(),
            self.min(),
            self.max
        )
    }
}

/// The serialised form of a [`LatHist`]: exact, and small (only the
/// non-empty buckets).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct LatHistWire {
    pub count: u64,
    pub min: u64,
    pub max: u64,
    #[serde(deserialize_with = "u128_any")]
    pub sum: u128,
    /// (highest equivalent value in ns, count), ascending.
    pub buckets: Vec<(u64, u64)>,
}

/// A `u128` read with `deserialize_any`, so that it reads inside serde's
/// buffered content too (an internally tagged enum, such as the messages
/// of the agent protocol, iolab_remote::proto), which has no `u128`: an
/// integer up to `u64::MAX` exactly, a larger one through its float.
pub fn u128_any<'de, D: serde::Deserializer<'de>>(d: D) -> Result<u128, D::Error> {
    use serde::de::{Error, Unexpected, Visitor};
    struct V;
    impl Visitor<'_> for V {
        type Value = u128;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a non-negative integer")
        }
        fn visit_u64<E: Error>(self, v: u64) -> Result<u128, E> {
            Ok(v as u128)
        }
        fn visit_u128<E: Error>(self, v: u128) -> Result<u128, E> {
            Ok(v)
        }
        fn visit_i64<E: Error>(self, v: i64) -> Result<u128, E> {
            u128::try_from(v).map_err(|_| E::invalid_value(Unexpected::Signed(v), &self))
        }
        fn visit_f64<E: Error>(self, v: f64) -> Result<u128, E> {
            if v >= 0.0 && v.fract() == 0.0 && v < u128::MAX as f64 {
                Ok(v as u128)
            } else {
                Err(E::invalid_value(Unexpected::Float(v), &self))
            }
        }
    }
    d.deserialize_any(V)
}

impl From<LatHist> for LatHistWire {
    fn from(h: LatHist) -> Self {
        LatHistWire {
            count: h.count(),
            min: h.min(),
            max: h.max(),
            sum: h.sum(),
            buckets: h.buckets(),
        }
    }
}

impl From<LatHistWire> for LatHist {
    fn from(w: LatHistWire) -> Self {
        LatHist::from_buckets(&w.buckets, w.min, w.max, w.sum)
    }
}

/// Equal when they hold the same buckets and the same exact min, max and
/// sum: every figure they report is then the same.
impl PartialEq for LatHist {
    fn eq(&self, o: &Self) -> bool {
        self.count() == o.count()
            && self.min() == o.min()
            && self.max() == o.max()
            && self.sum() == o.sum()
            && self.buckets() == o.buckets()
    }
}

impl Default for LatHist {
    fn default() -> Self {
        Self::new()
    }
}

/// Latency figures in microseconds, as the result document reports them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct LatSummary {
    pub min: f64,
    pub mean: f64,
    pub max: f64,
    pub p50: f64,
    pub p90: f64,
    pub p99: f64,
    pub p99_9: f64,
    pub p99_99: f64,
    /// Sample standard deviation (n - 1), within the histogram's error
    /// bound (0 in documents written before it was kept).
    #[serde(default)]
    pub stddev: f64,
}

impl LatHist {
    pub fn new() -> Self {
        LatHist {
            // Bounds are constants that satisfy hdrhistogram's rules
            // (low >= 1, high >= 2 * low, sigfig <= 5), so this cannot fail.
            h: Histogram::new_with_bounds(1, MAX_TRACKABLE_NS, SIGFIG)
                .expect("valid constant bounds"),
            min: u64::MAX,
            max: 0,
            sum: 0,
        }
    }

    /// Record one latency. Never allocates.
    #[inline]
    pub fn record(&mut self, ns: u64) {
        let v = ns.clamp(1, MAX_TRACKABLE_NS);
        // Within bounds by the clamp above, so this cannot fail.
        let _ = self.h.record(v);
        self.min = self.min.min(ns);
        self.max = self.max.max(ns);
        self.sum += ns as u128;
    }

    /// Add every count of `other` to this histogram.
    pub fn merge(&mut self, other: &LatHist) {
        if other.count() == 0 {
            return;
        }
        // Same bounds on both sides, so add cannot fail.
        let _ = self.h.add(&other.h);
        self.min = self.min.min(other.min);
        self.max = self.max.max(other.max);
        self.sum += other.sum;
    }

    pub fn reset(&mut self) {
        self.h.reset();
        self.min = u64::MAX;
        self.max = 0;
        self.sum = 0;
    }

    pub fn count(&self) -> u64 {
        self.h.len()
    }

    /// Exact minimum (0 when empty).
    pub fn min(&self) -> u64 {
        if self.count() == 0 {
            0
        } else {
            self.min
        }
    }

    /// Exact maximum (0 when empty).
    pub fn max(&self) -> u64 {
        self.max
    }

    /// Exact mean in nanoseconds (0 when empty).
    pub fn mean(&self) -> f64 {
        let n = self.count();
        if n == 0 {
            0.0
        } else {
            self.sum as f64 / n as f64
        }
    }

    /// Sum of all recorded latencies in nanoseconds.
    pub fn sum(&self) -> u128 {
        self.sum
    }

    /// The value at quantile `q` (0..=1) in nanoseconds, within the error
    /// bound, never above the exact maximum.
    pub fn quantile(&self, q: f64) -> u64 {
        if self.count() == 0 {
            return 0;
        }
        self.h.value_at_quantile(q).min(self.max).max(self.min())
    }

    /// min, mean, max and the standard percentiles in microseconds.
    pub fn summary_us(&self) -> LatSummary {
        let us = |ns: u64| ns as f64 / 1000.0;
        LatSummary {
            min: us(self.min()),
            mean: self.mean() / 1000.0,
            max: us(self.max),
            p50: us(self.quantile(0.50)),
            p90: us(self.quantile(0.90)),
            p99: us(self.quantile(0.99)),
            p99_9: us(self.quantile(0.999)),
            p99_99: us(self.quantile(0.9999)),
            stddev: self.stddev() / 1000.0,
        }
    }

    /// Sample standard deviation (n - 1) in nanoseconds around the exact
    /// mean, each bucket counted at the middle of its range: within the
    /// histogram's error bound. 0 with fewer than two values.
    pub fn stddev(&self) -> f64 {
        let n = self.count();
        if n < 2 {
            return 0.0;
        }
        let mean = self.mean();
        let ss: f64 = self
            .h
            .iter_recorded()
            .map(|v| {
                let mid = self.h.median_equivalent(v.value_iterated_to()) as f64;
                let d = mid.clamp(self.min as f64, self.max as f64) - mean;
                d * d * v.count_at_value() as f64
            })
            .sum();
        (ss / (n - 1) as f64).sqrt()
    }

    /// The non-empty buckets as (highest equivalent value in ns, count),
    /// ascending: enough to rebuild the histogram with `from_buckets`.
    pub fn buckets(&self) -> Vec<(u64, u64)> {
        self.h
            .iter_recorded()
            .map(|v| {
                (
                    self.h.highest_equivalent(v.value_iterated_to()),
                    v.count_at_value(),
                )
            })
            .collect()
    }

    /// (percentile, latency in µs) points for a percentile curve.
    pub fn percentile_curve_us(&self) -> Vec<(f64, f64)> {
        const QS: [f64; 14] = [
            0.0, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99, 0.995, 0.999, 0.9995, 0.9999, 0.99999, 1.0,
        ];
        if self.count() == 0 {
            return Vec::new();
        }
        QS.iter()
            .map(|&q| (q * 100.0, self.quantile(q) as f64 / 1000.0))
            .collect()
    }

    /// Rebuild from `buckets()` output plus the exact min, max and sum.
    pub fn from_buckets(buckets: &[(u64, u64)], min: u64, max: u64, sum: u128) -> LatHist {
        let mut h = LatHist::new();
        for &(v, n) in buckets {
            let _ = h.h.record_n(v.clamp(1, MAX_TRACKABLE_NS), n);
        }
        if h.count() > 0 {
            h.min = min;
            h.max = max;
            h.sum = sum;
        }
        h
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn exact_quantile(sorted: &[u64], q: f64) -> u64 {
        // Same rank definition as HdrHistogram: the smallest value with at
        // least ceil(q * n) values at or below it (at least one).
        let n = sorted.len();
        let rank = ((q * n as f64).ceil() as usize).clamp(1, n);
        sorted[rank - 1]
    }

    #[test]
    fn empty() {
        let h = LatHist::new();
        assert_eq!(h.count(), 0);
        assert_eq!(h.min(), 0);
        assert_eq!(h.quantile(0.99), 0);
        assert_eq!(h.summary_us(), LatSummary::default());
    }

    #[test]
    fn exact_min_max_mean() {
        let mut h = LatHist::new();
        for v in [1000, 2000, 3000, 123_456_789] {
            h.record(v);
        }
        assert_eq!(h.min(), 1000);
        assert_eq!(h.max(), 123_456_789);
        assert_eq!(h.mean(), (1000.0 + 2000.0 + 3000.0 + 123_456_789.0) / 4.0);
    }

    #[test]
    fn stddev_within_the_error_bound() {
        let mut h = LatHist::new();
        let vals: Vec<u64> = (0..5000).map(|i| 10_000 + (i * 37) % 90_000).collect();
        for &v in &vals {
            h.record(v);
        }
        let n = vals.len() as f64;
        let mean = vals.iter().sum::<u64>() as f64 / n;
        let ss: f64 = vals.iter().map(|&v| (v as f64 - mean).powi(2)).sum();
        let exact = (ss / (n - 1.0)).sqrt();
        assert!(
            (h.stddev() - exact).abs() < exact * 0.01,
            "{} vs {exact}",
            h.stddev()
        );
        assert!((h.summary_us().stddev - exact / 1000.0).abs() < exact / 1000.0 * 0.01);
        let mut one = LatHist::new();
        one.record(5000);
        assert_eq!(one.stddev(), 0.0);
        // Equal values: no spread, whatever bucket they share.
        let mut same = LatHist::new();
        for _ in 0..10 {
            same.record(123_456);
        }
        assert_eq!(same.stddev(), 0.0);
    }

    #[test]
    fn clamps_out_of_range() {
        let mut h = LatHist::new();
        h.record(0);
        h.record(u64::MAX);
        assert_eq!(h.count(), 2);
        assert_eq!(h.max(), u64::MAX);
        assert!(h.quantile(1.0) >= MAX_TRACKABLE_NS / 100 * 99);
        assert!(h.quantile(0.0) <= 1);
    }

    proptest! {
        #[test]
        fn percentile_error_within_bound(values in prop::collection::vec(1u64..10_000_000_000, 1..2000),
                                         q in 0.0f64..1.0) {
            let mut h = LatHist::new();
            for &v in &values { h.record(v); }
            let mut sorted = values.clone();
            sorted.sort_unstable();
            let exact = exact_quantile(&sorted, q) as f64;
            let got = h.quantile(q) as f64;
            prop_assert!((got - exact).abs() <= exact * 0.01 + 1.0,
                "q={q} exact={exact} got={got}");
        }

        #[test]
        fn merge_is_associative_and_matches_single(a in prop::collection::vec(1u64..1_000_000_000, 0..300),
                                                   b in prop::collection::vec(1u64..1_000_000_000, 0..300),
                                                   c in prop::collection::vec(1u64..1_000_000_000, 0..300)) {
            let mk = |v: &[u64]| { let mut h = LatHist::new(); for &x in v { h.record(x); } h };
            let (ha, hb, hc) = (mk(&a), mk(&b), mk(&c));
            let mut left = ha.clone(); left.merge(&hb); left.merge(&hc);
            let mut bc = hb.clone(); bc.merge(&hc);
            let mut right = ha.clone(); right.merge(&bc);
            let all: Vec<u64> = a.iter().chain(&b).chain(&c).copied().collect();
            let single = mk(&all);
            prop_assert_eq!(left.buckets(), right.buckets());
            prop_assert_eq!(left.buckets(), single.buckets());
            prop_assert_eq!(left.min(), single.min());
            prop_assert_eq!(left.max(), single.max());
            prop_assert_eq!(left.sum(), single.sum());
        }

        #[test]
        fn serde_round_trip_is_exact(values in prop::collection::vec(1u64..10_000_000_000, 0..500)) {
            let mut h = LatHist::new();
            for &v in &values { h.record(v); }
            let back: LatHist = serde_json::from_str(&serde_json::to_string(&h).unwrap()).unwrap();
            prop_assert!(back == h);
            prop_assert_eq!(back.summary_us(), h.summary_us());
        }

        #[test]
        fn buckets_round_trip(values in prop::collection::vec(1u64..10_000_000_000, 0..500)) {
            let mut h = LatHist::new();
            for &v in &values { h.record(v); }
            let r = LatHist::from_buckets(&h.buckets(), h.min(), h.max(), h.sum());
            prop_assert_eq!(r.buckets(), h.buckets());
            prop_assert_eq!(r.summary_us(), h.summary_us());
        }
    }
}
