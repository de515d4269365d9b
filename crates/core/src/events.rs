//! Events marked during a run or a monitor: `iolab mark "controller A
//! failed"` from another shell, SIGUSR1. Any thread pushes; the run core
//! takes them at interval boundaries and puts them in the result, timed
//! on the run's clock.

use iolab_raw::EventRaw;
use std::sync::{Mutex, MutexGuard};
use std::time::Instant;

/// The most events one run keeps; later ones are counted, not stored, so
/// a script marking in a loop cannot grow memory without bound.
pub const MAX_EVENTS: usize = 10_000;

/// Events of the current run, shared by the mark listener (which pushes)
/// and the run core (which takes). Pushing is a short lock, never on the
/// per-I/O path.
#[derive(Default)]
pub struct EventLog {
    inner: Mutex<Inner>,
}

#[derive(Default)]
struct Inner {
    /// The run's clock start; events before it are timed 0.
    t0: Option<Instant>,
    pending: Vec<(Instant, String, String)>,
    dropped: u64,
}

impl EventLog {
    pub fn new() -> EventLog {
        EventLog::default()
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        // A panicking pusher leaves plain data behind; keep using it.
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Record an event now. `source` says where it came from ("mark",
    /// "signal").
    pub fn push(&self, label: &str, source: &str) {
        let now = Instant::now();
        let mut g = self.lock();
        if g.pending.len() >= MAX_EVENTS {
            g.dropped += 1;
            return;
        }
        g.pending.push((now, label.to_string(), source.to_string()));
    }

    /// A run's clock starts at `t0`: events are timed from it.
    pub fn start(&self, t0: Instant) {
        self.lock().t0 = Some(t0);
    }

    /// Take the events pushed since the last call, timed in nanoseconds
    /// since the clock start, oldest first.
    pub fn take(&self) -> Vec<EventRaw> {
        let mut g = self.lock();
        let t0 = g.t0;
        let mut out: Vec<EventRaw> = g
            .pending
            .drain(..)
            .map(|(at, label, source)| EventRaw {
                time_ns: t0.map_or(0, |t| at.saturating_duration_since(t).as_nanos() as u64),
                label,
                source,
            })
            .collect();
        out.sort_by_key(|e| e.time_ns);
        out
    }

    /// Events refused because the run already held [`MAX_EVENTS`].
    pub fn dropped(&self) -> u64 {
        self.lock().dropped
    }

    /// Like [`EventLog::push`], and says when the event was taken on the
    /// run's clock, so the mark listener can tell its client.
    pub fn push_timed(&self, label: &str, source: &str) -> Marked {
        let now = Instant::now();
        let mut g = self.lock();
        if g.pending.len() >= MAX_EVENTS {
            g.dropped += 1;
            return Marked::Dropped;
        }
        g.pending.push((now, label.to_string(), source.to_string()));
        match g.t0 {
            Some(t0) => Marked::At(now.saturating_duration_since(t0).as_nanos() as u64),
            None => Marked::BeforeStart,
        }
    }
}

/// What became of an event pushed with [`EventLog::push_timed`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Marked {
    /// Kept, at this many nanoseconds since the run's clock start.
    At(u64),
    /// Kept; the run's clock had not started yet (it is timed 0).
    BeforeStart,
    /// Refused: the run already held [`MAX_EVENTS`].
    Dropped,
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn events_are_timed_from_the_clock_start_in_order() {
        let log = EventLog::new();
        let t0 = Instant::now();
        log.start(t0);
        std::thread::sleep(Duration::from_millis(20));
        log.push("controller A failed", "mark");
        let ev = log.take();
        assert_eq!(ev.len(), 1);
        assert_eq!(ev[0].label, "controller A failed");
        assert!(ev[0].time_ns >= 20_000_000, "{}", ev[0].time_ns);
        assert!(log.take().is_empty());
    }

    #[test]
    fn a_flood_of_marks_is_counted_not_stored() {
        let log = EventLog::new();
        for _ in 0..MAX_EVENTS + 5 {
            log.push("x", "mark");
        }
        assert_eq!(log.push_timed("y", "mark"), Marked::Dropped);
        assert_eq!(log.take().len(), MAX_EVENTS);
        assert_eq!(log.dropped(), 6);
    }

    #[test]
    fn a_timed_push_says_when_on_the_run_clock() {
        let log = EventLog::new();
        assert_eq!(log.push_timed("early", "mark"), Marked::BeforeStart);
        log.start(Instant::now());
        std::thread::sleep(Duration::from_millis(10));
        let Marked::At(ns) = log.push_timed("late", "mark") else {
            panic!("not timed");
        };
        let ev = log.take();
        assert_eq!(ev.len(), 2);
        assert_eq!(ev[0].time_ns, 0);
        assert_eq!(ev[1].time_ns, ns);
        assert!(ns >= 10_000_000, "{ns}");
    }
}
