//! One run on every host: `Run` to each agent with its own spec, every
//! `Ready` awaited, one start instant told to each in its own clock, the
//! intervals printed when every host has given them (a line per host and
//! the total), every `Done` collected, a host lost or a Ctrl-C handled.
//! What comes out is each host's outcome, ready to be merged.

use super::bounds;
use crate::cli::OnHostLoss;
use iolab_raw::{EventRaw, IntervalRaw, RunRaw};
use iolab_remote::link::{ClockOffset, Fleet, LinkEvent};
use iolab_remote::series::{rebuild, Correction};
use iolab_remote::text::untrusted;
use iolab_remote::{FromAgent, ToAgent};
use iolab_report::model::{DeviceInterval, HostClock, HostLoss, RunResult};
use iolab_report::HostOutcome;
use iolab_spec::RunSpec;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant, SystemTime};

/// One interval of a host: its total and each workload's.
type HostInterval = iolab_remote::series::HostInterval;

/// What every run of the session shares.
pub struct Ctx<'a> {
    pub fleet: &'a Fleet,
    pub names: &'a [String],
    /// Set by SIGINT/SIGTERM.
    pub stop: &'a AtomicBool,
    pub on_loss: OnHostLoss,
    /// `--host-timeout`: how long stopped agents get to send their results.
    pub timeout: Duration,
    pub quiet: bool,
    /// Hosts whose loss was said already.
    pub said_lost: &'a mut Vec<bool>,
    pub live: &'a mut Option<crate::live::LiveDoc>,
}

/// One host's part of the run as it goes.
#[derive(Default)]
struct Leg {
    /// The host takes part (it was not lost before the run).
    active: bool,
    skeleton: Option<RunRaw>,
    ready: bool,
    /// When its clock started, ns on the controller's clock.
    started_ns: Option<i64>,
    intervals: Vec<HostInterval>,
    events: Vec<EventRaw>,
    /// Its device statistics' intervals, sent ahead of its `Done`.
    devices: Vec<DeviceInterval>,
    done: Option<(RunRaw, RunResult)>,
    lost: Option<(SystemTime, String)>,
    refused: bool,
    stopped: bool,
    /// The interval indexes its run can reach and its workloads.
    limit: u32,
    n_workloads: usize,
    /// Notes it sent in this run.
    notes: usize,
    /// Progress lines it sent in this run.
    progress: usize,
}

impl Leg {
    fn finished(&self) -> bool {
        !self.active || self.done.is_some() || self.lost.is_some() || self.refused
    }

    fn last_index(&self) -> Option<u32> {
        self.intervals.last().map(|(iv, _)| iv.index)
    }

    fn interval(&self, k: u32) -> Option<&HostInterval> {
        self.intervals.iter().rev().find(|(iv, _)| iv.index == k)
    }
}

/// How a run ended.
pub enum Ended {
    /// Each host's outcome (lost hosts' rebuilt from what they sent) and
    /// the start skew, µs.
    Ran {
        outcomes: Vec<HostOutcome>,
        skew_us: Option<f64>,
        lost: bool,
    },
    /// A host refused the run: the line to say (exit 2).
    Refused(String),
}

/// Run `specs` (one per host; None: a host lost before) as run `index`.
pub struct Exchange<'a, 'c> {
    ctx: &'c mut Ctx<'a>,
    index: u32,
    legs: Vec<Leg>,
    clocks: Vec<Option<ClockOffset>>,
    /// The start instant, ns on the controller's clock.
    instant_ns: Option<i64>,
    refused: Option<String>,
    stop_sent: bool,
    deadline: Option<Instant>,
    next_iv: u32,
    header_done: bool,
    /// The run has a file-system workload: the interval lines' columns.
    fs: bool,
}

fn now_ns() -> i64 {
    ns_of(SystemTime::now())
}

fn ns_of(t: SystemTime) -> i64 {
    match t.duration_since(SystemTime::UNIX_EPOCH) {
        Ok(d) => d.as_nanos() as i64,
        Err(e) => -(e.duration().as_nanos() as i64),
    }
}

impl<'a, 'c> Exchange<'a, 'c> {
    pub fn new(ctx: &'c mut Ctx<'a>, index: u32, clocks: Vec<Option<ClockOffset>>) -> Self {
        let n = ctx.names.len();
        Exchange {
            ctx,
            index,
            legs: (0..n).map(|_| Leg::default()).collect(),
            clocks,
            instant_ns: None,
            refused: None,
            stop_sent: false,
            deadline: None,
            next_iv: 0,
            header_done: false,
            fs: false,
        }
    }

    /// The whole run: set up, start, collect.
    pub fn run(mut self, specs: Vec<Option<RunSpec>>) -> Ended {
        self.fs = (specs.iter().flatten()).any(|s| s.workloads.iter().any(|w| w.fs.is_some()));
        for (h, spec) in specs.into_iter().enumerate() {
            let Some(spec) = spec else { continue };
            let leg = &mut self.legs[h];
            leg.active = true;
            leg.limit = bounds::interval_limit(&spec);
            leg.n_workloads = spec.workloads.len();
            let m = ToAgent::Run {
                index: self.index,
                spec,
            };
            if let Err(e) = self.ctx.fleet.send(h, &m) {
                self.lose(h, SystemTime::now(), e);
            }
        }
        self.wait(|l| l.ready || l.finished());
        if !self.stop_sent && self.refused.is_none() {
            self.start();
        }
        self.wait(Leg::finished);
        self.flush(true);
        if let Some(l) = self.ctx.live.as_mut() {
            l.settle();
        }
        match self.refused.take() {
            Some(line) => Ended::Refused(line),
            None => self.outcomes(),
        }
    }

    /// Handle events until every active leg satisfies `until`; a stop
    /// (Ctrl-C, a loss with `--on-host-loss stop`, a refusal) sends Stop
    /// and gives the agents `--host-timeout` (and a little) to answer.
    fn wait(&mut self, until: fn(&Leg) -> bool) {
        while !self.legs.iter().all(|l| !l.active || until(l)) {
            if self.ctx.stop.load(Ordering::Relaxed) && !self.stop_sent {
                self.stop_all();
            }
            if self.deadline.is_some_and(|d| Instant::now() >= d) {
                let why = format!(
                    "no results within {:.0} s of the stop",
                    self.ctx.timeout.as_secs_f64() + 2.0
                );
                for h in 0..self.legs.len() {
                    if !self.legs[h].finished() {
                        self.lose(h, SystemTime::now(), why.clone());
                    }
                }
                return;
            }
            if let Some((h, ev)) = self.ctx.fleet.recv_timeout(Duration::from_millis(100)) {
                self.on_event(h, ev);
            }
        }
    }

    /// Stop every leg still running.
    fn stop_all(&mut self) {
        self.stop_sent = true;
        self.deadline
            .get_or_insert_with(|| Instant::now() + self.ctx.timeout + Duration::from_secs(2));
        for h in 0..self.legs.len() {
            let l = &mut self.legs[h];
            if l.finished() || l.stopped {
                continue;
            }
            l.stopped = true;
            if let Err(e) = self.ctx.fleet.send(h, &ToAgent::Stop) {
                self.lose(h, SystemTime::now(), e);
            }
        }
    }

    /// Host `h`'s clock: as measured before this run, else its last good
    /// measurement (never none: a host without one does not start).
    fn clock(&self, h: usize) -> Option<ClockOffset> {
        host_clock(
            self.clocks.get(h).copied().flatten(),
            self.ctx.fleet.clock(h),
        )
    }

    /// Tell every ready host the start instant in its own clock: now plus
    /// a lead that covers the messages' way (50 ms, or 4 round trips).
    fn start(&mut self) {
        let rtt = (self.clocks.iter().flatten())
            .map(|c| c.rtt_ns)
            .max()
            .unwrap_or(0);
        let lead = (4 * rtt as i64).max(50_000_000);
        let instant = now_ns() + lead;
        self.instant_ns = Some(instant);
        for h in 0..self.legs.len() {
            if !self.legs[h].ready || self.legs[h].finished() {
                continue;
            }
            let Some(at_ns) = start_at(instant, self.clock(h)) else {
                let why = "its clock could not be measured".to_string();
                self.lose(h, SystemTime::now(), why);
                continue;
            };
            let m = ToAgent::Start {
                index: self.index,
                at_ns,
            };
            if let Err(e) = self.ctx.fleet.send(h, &m) {
                self.lose(h, SystemTime::now(), e);
            }
        }
    }
}

impl Exchange<'_, '_> {
    fn on_event(&mut self, h: usize, ev: LinkEvent) {
        let m = match ev {
            LinkEvent::Lost { at, reason } => return self.lose(h, at, reason),
            LinkEvent::Message(m) => m,
        };
        if self.legs[h].lost.is_some() {
            // Nothing of a host follows its loss.
            return;
        }
        let name = &self.ctx.names[h];
        let ours = |i: u32| i == self.index;
        let leg = &mut self.legs[h];
        match *m {
            FromAgent::Measuring { index, raw } if ours(index) => {
                // The first host's skeleton heads the live document.
                let first = self.legs.iter().all(|l| l.skeleton.is_none());
                if let Some(live) = self.ctx.live.as_mut().filter(|_| first) {
                    live.measuring(&raw);
                }
                self.legs[h].skeleton = Some(raw);
            }
            FromAgent::Ready { index } if ours(index) => leg.ready = true,
            FromAgent::Refused { index, message } if index.is_none_or(ours) => {
                leg.refused = true;
                if self.refused.is_none() {
                    self.refused = Some(format!("host {name}: {}", untrusted(&message)));
                }
                self.stop_all();
            }
            FromAgent::Started { index, at_ns } if ours(index) => {
                if let Some(off) = self.clock(h) {
                    self.legs[h].started_ns = Some(at_ns - off.offset_ns);
                }
            }
            FromAgent::Note { message, .. } => {
                let line = bounds::capped(&mut leg.notes, bounds::MAX_NOTES, &message, "notes");
                line.inspect(|l| eprintln!("iolab: host {name}: {l}"));
            }
            FromAgent::Progress { message, .. } => {
                let max = bounds::MAX_PROGRESS;
                let line = bounds::capped(&mut leg.progress, max, &message, "progress lines");
                line.filter(|_| !self.ctx.quiet)
                    .inspect(|l| eprintln!("iolab: host {name}: {l}"));
            }
            FromAgent::Error { message } => {
                eprintln!("iolab: host {name}: {}", untrusted(&message))
            }
            FromAgent::Interval {
                index,
                total,
                workloads,
            } if ours(index) => {
                let last = leg.last_index();
                let ok =
                    bounds::check_interval(&total, &workloads, last, leg.limit, leg.n_workloads);
                if let Err(e) = ok {
                    return self.protocol_error(h, e);
                }
                leg.intervals.push((total, workloads));
                self.flush(false);
            }
            FromAgent::Event { index, event } if ours(index) => {
                if leg.events.len() >= bounds::MAX_EVENTS {
                    let e = format!("more than {} events", bounds::MAX_EVENTS);
                    return self.protocol_error(h, e);
                }
                leg.events.push(event);
            }
            FromAgent::Devices { index, intervals } if ours(index) => {
                if leg.devices.len() + intervals.len() > leg.limit as usize {
                    let e = format!("more device intervals than the run's {}", leg.limit);
                    return self.protocol_error(h, e);
                }
                leg.devices.extend(intervals);
            }
            FromAgent::Done {
                index,
                raw,
                result,
                streamed,
                corrections,
            } if ours(index) => {
                if let Err(e) = self.done(h, raw, result, streamed, corrections) {
                    return self.protocol_error(h, e);
                }
                // Its results hold every interval: keep only those still
                // to be shown.
                let next = self.next_iv;
                self.legs[h].intervals.retain(|(iv, _)| iv.index >= next);
            }
            _ => {}
        }
    }

    /// Host `h`'s results: kept with their interval series put back from
    /// what it streamed (when it left them out), their text cleaned.
    fn done(
        &mut self,
        h: usize,
        mut raw: RunRaw,
        mut result: RunResult,
        streamed: bool,
        fixes: Vec<Correction>,
    ) -> Result<(), String> {
        let leg = &mut self.legs[h];
        if fixes.len() > leg.limit as usize {
            return Err(format!("{} corrected intervals", fixes.len()));
        }
        if let Some(c) = (fixes.iter()).find(|c| c.index >= leg.limit) {
            return Err(format!("interval {} is beyond the run's end", c.index));
        }
        if streamed {
            rebuild(&mut raw, &mut result, &leg.intervals, fixes);
            if let Some(d) = result.devices.as_mut().filter(|_| !leg.devices.is_empty()) {
                d.intervals = std::mem::take(&mut leg.devices);
            }
        }
        bounds::clean_record(&mut raw, &mut result);
        leg.done = Some((raw, result));
        self.flush(false);
        Ok(())
    }

    /// Host `h` broke the protocol (`what`): dropped, said in one line.
    fn protocol_error(&mut self, h: usize, what: String) {
        let why = format!("a protocol error: {}", untrusted(&what));
        self.legs[h].intervals = Vec::new();
        self.legs[h].events = Vec::new();
        self.legs[h].devices = Vec::new();
        // Its agent stops its I/O; the host takes no further part.
        let _ = self.ctx.fleet.send(h, &ToAgent::Stop);
        self.lose(h, SystemTime::now(), why);
    }

    /// Host `h` was lost at `at`: said once; its run ends with what it
    /// sent; with `--on-host-loss stop` the others are stopped.
    fn lose(&mut self, h: usize, at: SystemTime, reason: String) {
        if !self.ctx.said_lost[h] {
            self.ctx.said_lost[h] = true;
            let when = match self.instant_ns {
                Some(i) => format!(" at {:.1} s", (ns_of(at) - i).max(0) as f64 / 1e9),
                None => " before the run started".into(),
            };
            eprintln!("iolab: host {} lost{when} ({reason})", self.ctx.names[h]);
        }
        let leg = &mut self.legs[h];
        if leg.finished() {
            return;
        }
        leg.lost = Some((at, reason));
        if self.ctx.on_loss == OnHostLoss::Stop {
            self.stop_all();
        }
        self.flush(false);
    }

    /// Print every interval every host has given (or never will: lost,
    /// done); at the end (`all`), whatever is left.
    fn flush(&mut self, all: bool) {
        loop {
            let k = self.next_iv;
            let waiting = (self.legs.iter())
                .any(|l| !all && l.active && !l.finished() && l.last_index().is_none_or(|i| i < k));
            if waiting {
                return;
            }
            let later = self
                .legs
                .iter()
                .any(|l| l.last_index().is_some_and(|i| i >= k));
            if !later {
                return;
            }
            self.next_iv += 1;
            self.show(k);
        }
    }

    /// Interval `k`: a line per host, the total (every host's merged
    /// exactly), the live document following the total.
    fn show(&mut self, k: u32) {
        let got: Vec<(&str, Option<&HostInterval>)> = (self.ctx.names.iter())
            .zip(&self.legs)
            .filter(|(_, l)| l.active)
            .map(|(n, l)| (n.as_str(), l.interval(k)))
            .collect();
        let rows: Vec<(&str, Option<&IntervalRaw>)> =
            got.iter().map(|(n, g)| (*n, g.map(|(iv, _)| iv))).collect();
        let (Some(total), lines) = iolab_report::multi::host_interval(&rows, self.fs) else {
            return;
        };
        let rec = iolab_report::interval_record(&total);
        if let Some(l) = self.ctx.live.as_mut() {
            let ws = merged_workloads(got.iter().filter_map(|(_, g)| g.map(|(_, w)| w)));
            let recs: Vec<_> = (ws.iter())
                .map(|w| w.as_ref().map(iolab_report::interval_record))
                .collect();
            l.interval(&total, &rec, &ws, &recs);
        }
        if self.ctx.quiet {
            return;
        }
        if !self.header_done {
            self.header_done = true;
            outln!("{}", iolab_report::terminal::host_interval_header(self.fs));
        }
        for line in lines {
            outln!("{line}");
        }
        use std::io::Write;
        let _ = std::io::stdout().flush();
    }
}

/// Each workload's interval over the hosts: the same position's merged.
fn merged_workloads<'a>(
    hosts: impl Iterator<Item = &'a Vec<Option<IntervalRaw>>>,
) -> Vec<Option<IntervalRaw>> {
    let mut ws: Vec<Option<IntervalRaw>> = Vec::new();
    for w in hosts {
        if ws.len() < w.len() {
            ws.resize(w.len(), None);
        }
        for (m, x) in ws.iter_mut().zip(w) {
            match (m.as_mut(), x) {
                (Some(m), Some(x)) => m.merge(x),
                (None, Some(x)) => *m = Some(x.clone()),
                _ => {}
            }
        }
    }
    ws
}

impl Exchange<'_, '_> {
    /// Each host's outcome: its own record, or for a host lost before its
    /// results came, the record rebuilt from its skeleton and intervals.
    fn outcomes(self) -> Ended {
        let instant = self.instant_ns;
        let starts: Vec<i64> = (self.legs.iter())
            .filter(|l| l.active)
            .filter_map(|l| l.started_ns)
            .collect();
        let skew_us = match (starts.iter().max(), starts.iter().min()) {
            (Some(a), Some(b)) => Some((a - b) as f64 / 1e3),
            _ => None,
        };
        let any_skeleton = (self.legs.iter()).find_map(|l| {
            l.skeleton
                .clone()
                .or_else(|| l.done.as_ref().map(|d| d.0.clone()))
        });
        let mut outcomes = Vec::new();
        let mut lost = false;
        for (h, leg) in self.legs.into_iter().enumerate() {
            if !leg.active {
                continue;
            }
            let name = &self.ctx.names[h];
            // Lost before it had any clock: it did not start, and its
            // record says 0 (not measured).
            let off = host_clock(
                self.clocks.get(h).copied().flatten(),
                self.ctx.fleet.clock(h),
            )
            .unwrap_or_default();
            let clock = HostClock {
                offset_us: off.offset_ns as f64 / 1e3,
                rtt_us: off.rtt_ns as f64 / 1e3,
                start_us: match (leg.started_ns, instant) {
                    (Some(s), Some(i)) => Some((s - i) as f64 / 1e3),
                    _ => None,
                },
            };
            let loss = leg.lost.as_ref().map(|(at, reason)| HostLoss {
                at_s: instant.map_or(0.0, |i| (ns_of(*at) - i).max(0) as f64 / 1e9),
                at: rfc3339(*at),
                reason: reason.clone(),
            });
            let (raw, result) = match leg.done {
                Some(d) => d,
                None => {
                    let Some(sk) = leg.skeleton.as_ref().or(any_skeleton.as_ref()) else {
                        continue;
                    };
                    let why = loss.as_ref().map_or("", |l| l.reason.as_str());
                    crate::live::record_so_far(
                        sk,
                        &leg.intervals,
                        &leg.events,
                        format!("host {name} lost: {why}"),
                        "rebuilt from the intervals the host sent before it was lost",
                    )
                }
            };
            lost |= loss.is_some();
            outcomes.push(HostOutcome {
                host: name.clone(),
                info: bounds::clean_host(&self.ctx.fleet.info(h).host),
                clock,
                lost: loss,
                raw,
                result,
            });
        }
        Ended::Ran {
            outcomes,
            skew_us,
            lost,
        }
    }
}

/// A host's clock for a run: as `measured` before it, else the `last`
/// good measurement (the fleet's); none only when it never had one.
fn host_clock(measured: Option<ClockOffset>, last: Option<ClockOffset>) -> Option<ClockOffset> {
    measured.or(last)
}

/// The start instant `instant` (controller's clock) in the clock of a
/// host whose clock is `c`; none for a host without a clock.
fn start_at(instant: i64, c: Option<ClockOffset>) -> Option<i64> {
    c.map(|c| instant + c.offset_ns)
}

/// `t` in RFC 3339, UTC, to the millisecond.
pub fn rfc3339(t: SystemTime) -> String {
    let ms = ns_of(t).div_euclid(1_000_000);
    let (secs, milli) = (ms.div_euclid(1000), ms.rem_euclid(1000));
    let (days, sod) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{milli:03}Z",
        sod / 3600,
        sod / 60 % 60,
        sod % 60
    )
}

#[cfg(test)]
mod tests {
    use super::{host_clock, rfc3339, start_at};
    use iolab_remote::link::ClockOffset;
    use std::time::{Duration, SystemTime};

    #[test]
    fn a_failed_clock_measurement_keeps_the_last_good_one_never_zero() {
        let last = ClockOffset {
            offset_ns: 2_500_000_000,
            rtt_ns: 80_000,
        };
        let now = ClockOffset {
            offset_ns: 2_500_001_000,
            rtt_ns: 60_000,
        };
        assert_eq!(host_clock(Some(now), Some(last)), Some(now));
        // The re-measurement failed: the host's clock is still 2.5 s
        // ahead, and its start instant says so.
        let c = host_clock(None, Some(last));
        assert_eq!(c, Some(last));
        assert_eq!(start_at(1_000, c), Some(2_500_001_000));
        // Never measured: no start instant at all (not offset 0).
        assert_eq!(start_at(1_000, host_clock(None, None)), None);
    }

    #[test]
    fn rfc3339_is_utc_with_milliseconds() {
        let t = SystemTime::UNIX_EPOCH + Duration::from_millis(1_709_251_199_123);
        assert_eq!(rfc3339(t), "2024-02-29T23:59:59.123Z");
        assert_eq!(rfc3339(SystemTime::UNIX_EPOCH), "1970-01-01T00:00:00.000Z");
    }
}
