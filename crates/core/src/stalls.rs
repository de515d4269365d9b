//! Stall detection: a time no worker completed anything while I/O was
//! outstanding is the intersection of every worker's gaps. A worker that
//! had not started yet or had already ended says nothing about that time:
//! its silence there is neutral (it neither hides nor makes a stall), so
//! before intersecting, each worker's gaps are extended with the times
//! before its first I/O and after its end. What is left is then kept only
//! where some worker really had I/O outstanding.

use crate::port::{WorkerEnd, GAP_RECORD_NS};
use iolab_raw::{Gap, IntervalRaw, StallsRaw};

/// One worker's view for the analysis.
pub(crate) struct Span<'a> {
    pub gaps: &'a [Gap],
    pub longest: Option<Gap>,
    /// First I/O issued (`None`: it issued nothing) and its end.
    pub first_ns: Option<u64>,
    pub end_ns: u64,
}

impl<'a> Span<'a> {
    pub fn of(e: &'a WorkerEnd) -> Span<'a> {
        Span {
            gaps: &e.gaps.gaps,
            longest: e.gaps.longest,
            first_ns: e.gaps.first_ns(),
            end_ns: e.end_ns,
        }
    }
}

/// The worker's gaps with the neutral times before its first I/O and
/// after its end added.
fn extended(s: &Span) -> Vec<Gap> {
    let Some(first) = s.first_ns else {
        return vec![Gap {
            start_ns: 0,
            end_ns: u64::MAX,
        }];
    };
    let mut v = Vec::with_capacity(s.gaps.len() + 2);
    if first > 0 {
        v.push(Gap {
            start_ns: 0,
            end_ns: first,
        });
    }
    v.extend(s.gaps.iter().copied());
    v.push(Gap {
        start_ns: s.end_ns,
        end_ns: u64::MAX,
    });
    v
}

pub(crate) fn intersect(a: &[Gap], b: &[Gap]) -> Vec<Gap> {
    let mut out = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        let s = a[i].start_ns.max(b[j].start_ns);
        let e = a[i].end_ns.min(b[j].end_ns);
        if s < e {
            out.push(Gap {
                start_ns: s,
                end_ns: e,
            });
        }
        if a[i].end_ns < b[j].end_ns {
            i += 1;
        } else {
            j += 1;
        }
    }
    out
}

/// The union of sorted gap lists, as sorted disjoint gaps.
fn union(lists: &[&[Gap]]) -> Vec<Gap> {
    let mut all: Vec<Gap> = lists.iter().flat_map(|l| l.iter().copied()).collect();
    all.sort_by_key(|g| g.start_ns);
    let mut out: Vec<Gap> = Vec::new();
    for g in all {
        match out.last_mut() {
            Some(l) if g.start_ns <= l.end_ns => l.end_ns = l.end_ns.max(g.end_ns),
            _ => out.push(g),
        }
    }
    out
}

/// Times no worker of `spans` completed anything while some had I/O
/// outstanding.
pub(crate) fn common_gaps(spans: &[Span]) -> Vec<Gap> {
    let mut common: Option<Vec<Gap>> = None;
    for s in spans {
        let e = extended(s);
        common = Some(match common {
            None => e,
            Some(c) => intersect(&c, &e),
        });
    }
    let real = union(&spans.iter().map(|s| s.gaps).collect::<Vec<_>>());
    intersect(&common.unwrap_or_default(), &real)
}

/// Stalls of a set of workers (one workload's, or a whole run's).
pub(crate) fn analyse(
    spans: &[Span],
    intervals: &[IntervalRaw],
    threshold_s: f64,
    warmup_ns: u64,
) -> StallsRaw {
    let zero_intervals = intervals
        .iter()
        .filter(|iv| !iv.warmup && iv.ops.total_ops() + iv.errors == 0 && iv.end_ns > iv.start_ns)
        .map(|iv| iv.index)
        .collect();
    let threshold = (threshold_s * 1e9) as u64;
    let active: Vec<&Span> = spans.iter().filter(|s| s.first_ns.is_some()).collect();
    let common: Vec<Gap> = common_gaps(spans)
        .into_iter()
        .filter(|g| g.len() >= GAP_RECORD_NS && g.end_ns > warmup_ns)
        .collect();
    let (longest, exact) = if active.len() == 1 {
        (active[0].longest, true)
    } else if let Some(g) = common.iter().max_by_key(|g| g.len()) {
        (Some(*g), true)
    } else {
        (
            active
                .iter()
                .filter_map(|s| s.longest)
                .min_by_key(|g| g.len()),
            active.len() <= 1,
        )
    };
    let events = if active.len() == 1 {
        active[0]
            .gaps
            .iter()
            .copied()
            .filter(|g| g.len() >= threshold)
            .collect()
    } else {
        common
            .iter()
            .copied()
            .filter(|g| g.len() >= threshold)
            .collect()
    };
    StallsRaw {
        longest,
        exact,
        events,
        zero_intervals,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn g(s: u64, e: u64) -> Gap {
        Gap {
            start_ns: s,
            end_ns: e,
        }
    }

    #[test]
    fn gap_intersection() {
        let a = [g(0, 10), g(20, 40)];
        let b = [g(5, 25), g(30, 35)];
        assert_eq!(intersect(&a, &b), vec![g(5, 10), g(20, 25), g(30, 35)]);
    }

    #[test]
    fn an_ended_or_not_started_worker_does_not_hide_a_common_gap() {
        let ms = 1_000_000;
        // A stalls 100..300 ms; B ended at 50 ms; C starts at 400 ms.
        let a = [g(100 * ms, 300 * ms)];
        let spans = [
            Span {
                gaps: &a,
                longest: Some(a[0]),
                first_ns: Some(0),
                end_ns: 1000 * ms,
            },
            Span {
                gaps: &[],
                longest: None,
                first_ns: Some(0),
                end_ns: 50 * ms,
            },
            Span {
                gaps: &[],
                longest: None,
                first_ns: Some(400 * ms),
                end_ns: 1000 * ms,
            },
        ];
        assert_eq!(common_gaps(&spans), vec![g(100 * ms, 300 * ms)]);
        // While B still ran (completing), the same gap of A is no stall.
        let spans2 = [
            Span {
                gaps: &a,
                longest: Some(a[0]),
                first_ns: Some(0),
                end_ns: 1000 * ms,
            },
            Span {
                gaps: &[],
                longest: None,
                first_ns: Some(0),
                end_ns: 1000 * ms,
            },
        ];
        assert!(common_gaps(&spans2).is_empty());
        // Nobody running is no stall either.
        let idle = [Span {
            gaps: &[],
            longest: None,
            first_ns: None,
            end_ns: 0,
        }];
        assert!(common_gaps(&idle).is_empty());
    }
}
