//! fio's token-based flow control (`flow`, `flow_id`, `flow_sleep`)
//! between the block workloads of one run: each flow id has one shared
//! count of I/Os and the sum of its running workers' weights; a worker
//! whose own count, as a share of the flow's, is above its weight's share
//! of the total is ahead, issues nothing and (once its I/O in flight has
//! completed) sleeps `flow_sleep` before it looks again. As in fio, the
//! count starts at 1 and a worker that ends takes its I/Os and weight
//! back out, so the others are not held to a ratio with a finished one.
//!
//! Cost: only a worker of a workload with a flow touches this, with two
//! relaxed loads before each I/O and one add after it.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// One flow id's shared figures.
#[derive(Debug)]
pub(crate) struct FlowShared {
    count: AtomicU64,
    total_weight: AtomicU64,
}

/// The flows of a run's block workloads, by id.
pub(crate) fn flows_of(spec: &iolab_spec::RunSpec) -> BTreeMap<u32, Arc<FlowShared>> {
    spec.workloads
        .iter()
        .filter(|w| w.fs.is_none())
        .filter_map(|w| w.flow_ctl.map(|f| f.id))
        .map(|id| {
            let f = FlowShared {
                count: AtomicU64::new(1),
                total_weight: AtomicU64::new(0),
            };
            (id, Arc::new(f))
        })
        .collect()
}

/// One worker's part in its flow.
#[derive(Debug)]
pub(crate) struct FlowCtl {
    shared: Arc<FlowShared>,
    weight: u64,
    own: u64,
    pub sleep_ns: u64,
}

impl FlowCtl {
    /// Join the flow (its weight counts from now on).
    pub fn join(shared: Arc<FlowShared>, weight: u32, sleep_us: u64) -> FlowCtl {
        shared
            .total_weight
            .fetch_add(weight as u64, Ordering::Relaxed);
        FlowCtl {
            shared,
            weight: weight as u64,
            own: 0,
            sleep_ns: sleep_us.saturating_mul(1000),
        }
    }

    /// This worker is ahead of its share: own / count > weight / total.
    #[inline(always)]
    pub fn ahead(&self) -> bool {
        let count = self.shared.count.load(Ordering::Relaxed);
        let total = self.shared.total_weight.load(Ordering::Relaxed);
        (self.own as u128) * (total as u128) > (self.weight as u128) * (count as u128)
    }

    /// One I/O issued.
    #[inline(always)]
    pub fn count(&mut self) {
        self.shared.count.fetch_add(1, Ordering::Relaxed);
        self.own += 1;
    }
}

impl Drop for FlowCtl {
    /// Leave the flow: take this worker's I/Os and weight back out.
    fn drop(&mut self) {
        self.shared.count.fetch_sub(self.own, Ordering::Relaxed);
        self.shared
            .total_weight
            .fetch_sub(self.weight, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shared() -> Arc<FlowShared> {
        Arc::new(FlowShared {
            count: AtomicU64::new(1),
            total_weight: AtomicU64::new(0),
        })
    }

    /// Two workers taking turns as fast as the flow lets them keep the
    /// ratio of their weights.
    #[test]
    fn workers_keep_the_ratio_of_their_weights() {
        let s = shared();
        let mut a = FlowCtl::join(s.clone(), 8, 0);
        let mut b = FlowCtl::join(s.clone(), 1, 0);
        for _ in 0..9000 {
            if !a.ahead() {
                a.count();
            }
            if !b.ahead() {
                b.count();
            }
        }
        let r = a.own as f64 / b.own as f64;
        assert!((7.5..8.5).contains(&r), "ratio {r} ({} / {})", a.own, b.own);
    }

    #[test]
    fn a_worker_that_leaves_frees_the_others() {
        let s = shared();
        let mut a = FlowCtl::join(s.clone(), 1, 0);
        {
            let mut b = FlowCtl::join(s.clone(), 1, 0);
            a.count();
            b.count();
            a.count();
            a.count();
            // 3 of the flow's 5 (it starts at 1) with half the weight.
            assert!(a.ahead());
            assert!(!b.ahead());
        }
        assert!(!a.ahead(), "alone in the flow, a is never ahead");
        a.count();
        assert!(!a.ahead());
        drop(a);
        assert_eq!(s.count.load(Ordering::Relaxed), 1);
        assert_eq!(s.total_weight.load(Ordering::Relaxed), 0);
    }
}
