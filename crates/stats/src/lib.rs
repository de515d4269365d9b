//! Statistics kept per I/O and summarised per interval and per run.
//!
//! [`LatHist`] is the canonical latency record: every I/O's latency goes
//! into one, interval snapshots are merged into run summaries (so the time
//! series and the summary come from the same data), and the buckets are
//! exported so runs can be merged later across workers, repetitions or
//! hosts.

mod hist;

pub use hist::{u128_any, LatHist, LatSummary, MAX_TRACKABLE_NS, SIGFIG};
