//! The monitor's clock: sample the devices at every interval boundary and
//! time events on the same t0, until the duration is reached or a stop is
//! asked (Ctrl-C). Kept small and free of printing so it can move onto the
//! run core (a run with no workloads) without change to its callers: what
//! it sees goes to a [`Sink`].

use iolab_core::EventLog;
use iolab_devices::{DeviceRow, Sampler};
use iolab_raw::EventRaw;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// How often the loop looks at the stop flag and the event log while it
/// waits for the next boundary: the delay before a mark shows.
const SLICE: Duration = Duration::from_millis(20);

/// One interval of the monitor: its place on the clock and one row per
/// device, as `iostat -x` computes it.
pub struct Tick {
    pub index: u32,
    pub start_ns: u64,
    pub end_ns: u64,
    pub rows: Vec<DeviceRow>,
}

/// Receives what the monitor sees, in time order.
pub trait Sink {
    /// The clock started: time 0 of intervals and events, and the wall
    /// clock time it was.
    fn started(&mut self, t0: Instant, wall: std::time::SystemTime);
    fn event(&mut self, ev: &EventRaw);
    fn interval(&mut self, tick: &Tick);
}

/// The clock of one monitor.
pub struct Clock {
    pub interval: Duration,
    /// `None`: until stopped.
    pub duration: Option<Duration>,
}

/// What the loop ended with.
pub struct Ended {
    /// The last interval's end, nanoseconds since t0.
    pub end_ns: u64,
    /// A stop was asked before the duration was reached.
    pub interrupted: bool,
}

/// Run the monitor: the first sample and the event clock start now.
pub fn run(
    sampler: &mut Sampler,
    events: &EventLog,
    clock: &Clock,
    stop: &AtomicBool,
    sink: &mut dyn Sink,
) -> Ended {
    sampler.restart();
    let t0 = Instant::now();
    events.start(t0);
    sink.started(t0, std::time::SystemTime::now());
    let mut start_ns = 0u64;
    let mut index = 0u32;
    loop {
        let mut next = clock.interval.saturating_mul(index + 1);
        if let Some(d) = clock.duration {
            next = next.min(d);
        }
        wait_until(t0 + next, events, stop, sink);
        let rows = sampler.sample();
        let end_ns = t0.elapsed().as_nanos() as u64;
        sink.interval(&Tick {
            index,
            start_ns,
            end_ns,
            rows,
        });
        index += 1;
        start_ns = end_ns;
        let stopped = stop.load(Ordering::Relaxed);
        let done = clock
            .duration
            .is_some_and(|d| end_ns >= d.as_nanos() as u64);
        if stopped || done {
            for ev in events.take() {
                sink.event(&ev);
            }
            return Ended {
                end_ns,
                interrupted: stopped && !done,
            };
        }
    }
}

/// Sleep until `at` in short slices, handing events over as they come;
/// return early on a stop.
fn wait_until(at: Instant, events: &EventLog, stop: &AtomicBool, sink: &mut dyn Sink) {
    loop {
        for ev in events.take() {
            sink.event(&ev);
        }
        let now = Instant::now();
        if stop.load(Ordering::Relaxed) || now >= at {
            return;
        }
        std::thread::sleep((at - now).min(SLICE));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use iolab_devices::Sysroot;

    #[derive(Default)]
    struct Seen {
        t0: Option<Instant>,
        ticks: Vec<(u32, u64, u64)>,
        events: Vec<EventRaw>,
    }
    impl Sink for Seen {
        fn started(&mut self, t0: Instant, _wall: std::time::SystemTime) {
            self.t0 = Some(t0);
        }
        fn event(&mut self, ev: &EventRaw) {
            self.events.push(ev.clone());
        }
        fn interval(&mut self, t: &Tick) {
            self.ticks.push((t.index, t.start_ns, t.end_ns));
        }
    }

    #[test]
    fn intervals_tile_the_duration_and_events_share_the_clock() {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(d.path().join("proc")).unwrap();
        std::fs::write(d.path().join("proc/diskstats"), "").unwrap();
        let mut s = Sampler::new(&Sysroot::new(d.path()), &[]);
        let log = std::sync::Arc::new(EventLog::new());
        let stop = AtomicBool::new(false);
        let clock = Clock {
            interval: Duration::from_millis(100),
            duration: Some(Duration::from_millis(250)),
        };
        let l2 = log.clone();
        let t = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(120));
            let before = Instant::now();
            l2.push("half way", "mark");
            (before, Instant::now())
        });
        let mut seen = Seen::default();
        let end = run(&mut s, &log, &clock, &stop, &mut seen);
        let (before, after) = t.join().unwrap();
        assert!(!end.interrupted);
        assert_eq!(seen.ticks.len(), 3, "{:?}", seen.ticks);
        assert_eq!(seen.ticks[0].1, 0);
        for w in seen.ticks.windows(2) {
            assert_eq!(w[0].2, w[1].1, "intervals tile: {:?}", seen.ticks);
        }
        assert!(end.end_ns >= 250_000_000, "{}", end.end_ns);
        // The event is timed on the intervals' t0.
        assert_eq!(seen.events.len(), 1);
        let at = seen.events[0].time_ns as u128;
        let t0 = seen.t0.unwrap();
        let lo = before.duration_since(t0).as_nanos();
        let hi = after.duration_since(t0).as_nanos();
        assert!(lo <= at && at <= hi, "{lo} <= {at} <= {hi}");
    }
}
