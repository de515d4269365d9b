//! A run's interval series sent once: the agent streams every interval in
//! `Interval` messages as the run goes, so its `Done` leaves the raw's and
//! the record's interval series out and carries only the intervals whose
//! final figures differ from those streamed (the run core merges a late
//! worker's figures into an interval after showing it): [`Correction`]s.
//! The controller puts the series back from what it received
//! ([`rebuild`]), so the host's record is exactly the agent's, and a
//! `Done` stays small however long the run (docs/multi-host.md).
//!
//! The device statistics, a row per device and interval, were not
//! streamed: the agent sends them before `Done` in `Devices` messages of
//! at most [`DEVICE_CHUNK`] intervals ([`device_chunks`]), and the
//! controller puts them back too.
//!
//! The agent remembers a digest of each interval it streamed
//! ([`Streamed`]), not the interval: its memory does not double.

use iolab_raw::{IntervalRaw, RunRaw};
use iolab_report::model::{DeviceInterval, RunResult};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::hash::{Hash, Hasher};

/// One interval of a host: its total and each workload's (in the run's
/// workload order; `None` for a workload without that interval).
pub type HostInterval = (IntervalRaw, Vec<Option<IntervalRaw>>);

/// The final figures of interval `index`, where they differ from those
/// streamed (or it was not streamed).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Correction {
    pub index: u32,
    pub total: IntervalRaw,
    pub workloads: Vec<Option<IntervalRaw>>,
}

/// A 128-bit digest of an interval as serialized (two SipHashes of the
/// JSON, keyed apart).
fn digest(total: &IntervalRaw, workloads: &[Option<IntervalRaw>]) -> u128 {
    use std::collections::hash_map::DefaultHasher;
    struct Feed(DefaultHasher, DefaultHasher);
    impl std::io::Write for Feed {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0.write(b);
            self.1.write(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut f = Feed(Default::default(), Default::default());
    0x0069_6f6c_6162_u64.hash(&mut f.1);
    // Serializing into a hasher cannot fail but for a non-finite float,
    // which then shows as a difference (a correction), never as a match.
    if serde_json::to_writer(&mut f, &(total, workloads)).is_err() {
        return 0;
    }
    (u128::from(f.0.finish()) << 64) | u128::from(f.1.finish())
}

/// What the agent streamed of a run: each interval's index and digest.
#[derive(Debug, Default)]
pub struct Streamed {
    sent: Vec<(u32, u128)>,
}

impl Streamed {
    /// Interval `total.index` was streamed as `(total, workloads)`.
    pub fn sent(&mut self, total: &IntervalRaw, workloads: &[Option<IntervalRaw>]) {
        self.sent.push((total.index, digest(total, workloads)));
    }

    /// Leave the interval series out of `raw` and `result` and return the
    /// corrections [`rebuild`] needs to put them back exactly; `None`
    /// (nothing left out) when the series cannot be told that way (an
    /// interval streamed but not in the results, series out of order).
    pub fn strip(&self, raw: &mut RunRaw, result: &mut RunResult) -> Option<Vec<Correction>> {
        let finals = final_intervals(raw)?;
        let sent: BTreeMap<u32, u128> = self.sent.iter().copied().collect();
        if sent.len() != self.sent.len() || sent.keys().any(|k| !finals.contains_key(k)) {
            return None;
        }
        let corrections = (finals.into_iter())
            .filter(|(k, (t, w))| sent.get(k) != Some(&digest(t, w)))
            .map(|(index, (total, workloads))| Correction {
                index,
                total,
                workloads,
            })
            .collect();
        raw.intervals = Vec::new();
        raw.workloads
            .iter_mut()
            .for_each(|w| w.intervals = Vec::new());
        result.intervals = Vec::new();
        result
            .workloads
            .iter_mut()
            .for_each(|w| w.intervals = Vec::new());
        Some(corrections)
    }
}

/// The most device intervals in one `Devices` message.
pub const DEVICE_CHUNK: usize = 1000;

/// `result`'s device statistics' intervals, taken out, in messages of at
/// most [`DEVICE_CHUNK`].
pub fn device_chunks(result: &mut RunResult) -> Vec<Vec<DeviceInterval>> {
    let Some(d) = result.devices.as_mut() else {
        return Vec::new();
    };
    let all = std::mem::take(&mut d.intervals);
    let mut out = Vec::new();
    let mut it = all.into_iter().peekable();
    while it.peek().is_some() {
        out.push(it.by_ref().take(DEVICE_CHUNK).collect());
    }
    out
}

/// `raw`'s intervals by index, each with every workload's of that index;
/// `None` unless every series is in strictly increasing order and every
/// workload's index is one of the run's.
fn final_intervals(raw: &RunRaw) -> Option<BTreeMap<u32, HostInterval>> {
    let increasing = |s: &[IntervalRaw]| s.windows(2).all(|p| p[0].index < p[1].index);
    if !increasing(&raw.intervals) || !raw.workloads.iter().all(|w| increasing(&w.intervals)) {
        return None;
    }
    let n = raw.workloads.len();
    let mut m: BTreeMap<u32, HostInterval> = (raw.intervals.iter())
        .map(|iv| (iv.index, (iv.clone(), vec![None; n])))
        .collect();
    for (k, w) in raw.workloads.iter().enumerate() {
        for iv in &w.intervals {
            m.get_mut(&iv.index)?.1[k] = Some(iv.clone());
        }
    }
    Some(m)
}

/// Put back the interval series of a `Done` whose series were left out:
/// `streamed` (the `Interval` messages received, in order) with
/// `corrections` applied, into `raw` and its record `result`.
pub fn rebuild(
    raw: &mut RunRaw,
    result: &mut RunResult,
    streamed: &[HostInterval],
    corrections: Vec<Correction>,
) {
    let mut m: BTreeMap<u32, HostInterval> = (streamed.iter())
        .map(|(t, w)| (t.index, (t.clone(), w.clone())))
        .collect();
    for c in corrections {
        m.insert(c.index, (c.total, c.workloads));
    }
    raw.intervals = m.values().map(|(t, _)| t.clone()).collect();
    for (k, w) in raw.workloads.iter_mut().enumerate() {
        w.intervals = m
            .values()
            .filter_map(|(_, ws)| ws.get(k).cloned().flatten())
            .collect();
    }
    let record = iolab_report::interval_record;
    result.intervals = raw.intervals.iter().map(record).collect();
    for (r, w) in result.workloads.iter_mut().zip(&raw.workloads) {
        r.intervals = w.intervals.iter().map(record).collect();
    }
}

#[cfg(test)]
#[path = "series_tests.rs"]
mod tests;
