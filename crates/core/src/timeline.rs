//! Interval boundaries on the run's clock: during warm-up every
//! `interval` and at its end, then every `interval` after it, so no
//! interval straddles the warm-up. Every workload of a run uses the same
//! timeline, so their intervals line up and merge by index.

/// Interval boundaries of a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timeline {
    pub warmup_ns: u64,
    pub interval_ns: u64,
}

impl Timeline {
    fn warm_intervals(&self) -> u64 {
        self.warmup_ns.div_ceil(self.interval_ns)
    }
    /// End of interval `k` (nanoseconds since start).
    pub fn end(&self, k: u32) -> u64 {
        let k = k as u64;
        let nw = self.warm_intervals();
        if k < nw {
            ((k + 1) * self.interval_ns).min(self.warmup_ns)
        } else {
            self.warmup_ns + (k - nw + 1) * self.interval_ns
        }
    }
    pub fn start(&self, k: u32) -> u64 {
        if k == 0 {
            0
        } else {
            self.end(k - 1)
        }
    }
    pub fn is_warmup(&self, k: u32) -> bool {
        (k as u64) < self.warm_intervals()
    }
    /// The interval that time `ns` falls in (`start(k) <= ns < end(k)`).
    pub fn index_at(&self, ns: u64) -> u32 {
        let k = if ns < self.warmup_ns {
            ns / self.interval_ns
        } else {
            self.warm_intervals() + (ns - self.warmup_ns) / self.interval_ns
        };
        k.min(u32::MAX as u64) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timeline_boundaries() {
        let t = Timeline {
            warmup_ns: 2_500,
            interval_ns: 1_000,
        };
        let ends: Vec<u64> = (0..6).map(|k| t.end(k)).collect();
        assert_eq!(ends, vec![1000, 2000, 2500, 3500, 4500, 5500]);
        assert!(t.is_warmup(2) && !t.is_warmup(3));
        let t = Timeline {
            warmup_ns: 0,
            interval_ns: 1_000,
        };
        assert_eq!(t.end(0), 1000);
        assert!(!t.is_warmup(0));
    }

    #[test]
    fn index_at_finds_the_interval_holding_a_time() {
        let t = Timeline {
            warmup_ns: 2_500,
            interval_ns: 1_000,
        };
        for ns in [0, 999, 1000, 2499, 2500, 3499, 3500, 10_000] {
            let k = t.index_at(ns);
            assert!(t.start(k) <= ns && ns < t.end(k), "{ns} -> {k}");
        }
    }
}
