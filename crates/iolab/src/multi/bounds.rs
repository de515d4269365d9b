//! What the controller keeps of an agent during one run, bounded: an
//! agent (buggy or hostile) cannot make the controller's memory grow
//! without end. Intervals beyond what the run can last, out of order or
//! of another shape, and events past a count, are protocol errors (the
//! host is dropped with one line); notes and progress lines past a count
//! are not shown.
//! Text an agent sends is cleaned before it is printed or kept
//! (iolab_remote::text).

use iolab_raw::{IntervalRaw, RunRaw};
use iolab_remote::text::{clean, untrusted};
use iolab_report::model::{Host, RunResult};
use iolab_spec::RunSpec;

/// The most intervals of one run kept of a host, whatever its plan.
pub const MAX_INTERVALS: u32 = 1_000_000;
/// The most events of one run kept of a host.
pub const MAX_EVENTS: usize = 100_000;
/// The most notes of one run shown of a host (one line says the rest are
/// not).
pub const MAX_NOTES: usize = 100;
/// The most progress lines of one run shown of a host (fileset creation
/// and prefill: a line every 5 s is more than an hour of them).
pub const MAX_PROGRESS: usize = 1000;
/// The line to show of an agent's `count`-th text of a kind (`what`,
/// plural) when at most `max` are shown: the text cleaned up to `max`,
/// one line saying the rest are not shown, then nothing.
pub fn capped(count: &mut usize, max: usize, text: &str, what: &str) -> Option<String> {
    *count += 1;
    match (*count).cmp(&(max + 1)) {
        std::cmp::Ordering::Less => Some(untrusted(text)),
        std::cmp::Ordering::Equal => Some(format!("more {what}, not shown")),
        std::cmp::Ordering::Greater => None,
    }
}

/// The most notes of a host's results kept.
const MAX_KEPT_NOTES: usize = 1000;

/// The interval indexes run `spec` can reach: its planned end (warm-up,
/// the latest workload's start delay and duration, or the run's
/// duration) twice over and a hundred more for the drain and a stop;
/// [`MAX_INTERVALS`] for a run with no planned end (a size, an op count).
pub fn interval_limit(spec: &RunSpec) -> u32 {
    let wl_end = (spec.workloads.iter())
        .map(|w| w.duration_s.map(|d| w.start_delay_s + w.warmup_s + d))
        .try_fold(0.0f64, |m, e| e.map(|e| m.max(e)));
    let end = match (spec.duration_s, wl_end) {
        (Some(r), Some(w)) => Some(r.min(w)),
        (r, w) => r.or(w),
    };
    let step = spec.interval_s;
    match end {
        Some(e) if e.is_finite() && step > 0.0 => {
            let n = (spec.warmup_s + e) / step;
            (n * 2.0 + 100.0).min(MAX_INTERVALS as f64) as u32
        }
        _ => MAX_INTERVALS,
    }
}

/// Interval `iv` (with `workloads`) may follow `last` in a run of
/// `n_workloads` that can reach `limit` indexes, or why not.
pub fn check_interval(
    iv: &IntervalRaw,
    workloads: &[Option<IntervalRaw>],
    last: Option<u32>,
    limit: u32,
    n_workloads: usize,
) -> Result<(), String> {
    if iv.index >= limit {
        return Err(format!(
            "interval {} is beyond the run's end (at most {limit})",
            iv.index
        ));
    }
    if let Some(l) = last.filter(|l| iv.index <= *l) {
        return Err(format!("interval {} came after interval {l}", iv.index));
    }
    if workloads.len() != n_workloads {
        return Err(format!(
            "an interval of {} workloads in a run of {n_workloads}",
            workloads.len()
        ));
    }
    Ok(())
}

/// A host's results with every text cleaned and its notes bounded.
pub fn clean_record(raw: &mut RunRaw, result: &mut RunResult) {
    let notes = |n: &mut Vec<String>| {
        n.truncate(MAX_KEPT_NOTES);
        n.iter_mut().for_each(clean);
    };
    notes(&mut raw.notes);
    notes(&mut result.notes);
    raw.incomplete_reason.iter_mut().for_each(clean);
    result.incomplete_reason.iter_mut().for_each(clean);
    for w in &mut raw.workloads {
        notes(&mut w.notes);
        w.incomplete_reason.iter_mut().for_each(clean);
    }
    for w in &mut result.workloads {
        notes(&mut w.notes);
        w.incomplete_reason.iter_mut().for_each(clean);
    }
    for e in &mut raw.events {
        clean(&mut e.label);
        clean(&mut e.source);
    }
}

/// A host's machine record with its text cleaned.
pub fn clean_host(h: &Host) -> Host {
    let mut h = h.clone();
    for s in [&mut h.hostname, &mut h.kernel, &mut h.os] {
        clean(s);
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capped_shows_max_texts_cleaned_then_one_line_then_nothing() {
        let mut n = 0;
        let lines: Vec<_> = (0..5)
            .map(|k| capped(&mut n, 2, &format!("\x1b[2Jt{k}"), "notes"))
            .collect();
        assert_eq!(lines[0].as_deref(), Some("?[2Jt0"));
        assert_eq!(lines[1].as_deref(), Some("?[2Jt1"));
        assert_eq!(lines[2].as_deref(), Some("more notes, not shown"));
        assert_eq!(lines[3..], [None, None]);
        assert_eq!(n, 5);
    }

    fn spec(duration: Option<f64>, interval: f64) -> RunSpec {
        let mut w = iolab_spec::WorkloadSpec::example("w", "/tmp/w", "randread");
        w.duration_s = duration;
        w.interval_s = interval;
        w.warmup_s = 0.0;
        RunSpec::single(w)
    }

    #[test]
    fn the_interval_limit_follows_the_planned_end() {
        // 60 s at 1 s: twice over and a hundred.
        assert_eq!(interval_limit(&spec(Some(60.0), 1.0)), 220);
        assert_eq!(interval_limit(&spec(Some(60.0), 0.5)), 340);
        // No planned end: the absolute bound.
        assert_eq!(interval_limit(&spec(None, 1.0)), MAX_INTERVALS);
        assert_eq!(interval_limit(&spec(Some(1e12), 1.0)), MAX_INTERVALS);
    }

    #[test]
    fn intervals_out_of_order_beyond_the_end_or_misshapen_are_refused() {
        let iv = |k| IntervalRaw::empty(k, 0, 1, false);
        let one = [None];
        assert!(check_interval(&iv(0), &one, None, 10, 1).is_ok());
        assert!(check_interval(&iv(3), &one, Some(2), 10, 1).is_ok());
        let e = check_interval(&iv(10), &one, Some(9), 10, 1).unwrap_err();
        assert!(e.contains("beyond the run's end"), "{e}");
        let e = check_interval(&iv(4_000_000_000), &one, None, MAX_INTERVALS, 1).unwrap_err();
        assert!(e.contains("beyond"), "{e}");
        assert!(check_interval(&iv(2), &one, Some(2), 10, 1).is_err());
        assert!(check_interval(&iv(3), &[None, None], Some(2), 10, 1).is_err());
    }

    #[test]
    fn a_records_text_is_cleaned_and_its_notes_bounded() {
        let mut raw = RunRaw {
            name: "r".into(),
            started_at: std::time::SystemTime::UNIX_EPOCH,
            warmup_ns: 0,
            interval_ns: 1,
            measured_ns: 0,
            workloads: Vec::new(),
            intervals: Vec::new(),
            ops: Default::default(),
            fsyncs: 0,
            cpu: Default::default(),
            stalls: Default::default(),
            events: Vec::new(),
            complete: false,
            incomplete_reason: None,
            notes: Vec::new(),
            exit_all: false,
        };
        raw.notes = vec!["\x1b]52;c;cGF5bG9hZA==\x07".into(); 5000];
        raw.incomplete_reason = Some("x".repeat(10_000));
        let mut result = iolab_report::build_run(&raw);
        clean_record(&mut raw, &mut result);
        assert_eq!(raw.notes.len(), MAX_KEPT_NOTES);
        assert_eq!(result.notes.len(), MAX_KEPT_NOTES);
        assert_eq!(raw.notes[0], "?]52;c;cGF5bG9hZA==?");
        assert!(raw.incomplete_reason.unwrap().len() < 2010);
        assert!(result.incomplete_reason.unwrap().ends_with("..."));
    }
}
