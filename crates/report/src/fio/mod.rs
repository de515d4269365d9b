//! fio's output formats from a result document: the JSON fio 3.x writes
//! (`--output-format=json` and `json+`) and fio's per-interval log files
//! (`write_bw_log`, `write_lat_log`, `write_iops_log`), so tools that read
//! fio's output read iolab's. Computation only: the caller writes the
//! text where the user asked. docs/fio.md ("fio's JSON from iolab") maps
//! every field.
//!
//! - [`out`]: an ordered JSON value and its text in fio's layout;
//! - [`entry`]: `jobs[]` entries from workloads (groups merged);
//! - [`job`]: one `jobs[]` object;
//! - [`lat`]: latency objects, percentiles, json+ bins, latency ranges;
//! - [`options`]: `job options` and the options that shape the report;
//! - [`disk_util`]: `disk_util[]` from the device statistics;
//! - [`logs`]: fio's log files.

mod disk_util;
mod entry;
mod job;
pub mod lat;
mod logs;
pub mod options;
mod out;
#[cfg(test)]
mod tests;

use crate::model::ResultDoc;
use out::{Obj, J};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// One fio log file: the name fio would give it and its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FioLog {
    pub path: String,
    pub text: String,
}

/// fio's JSON for `doc` (`plus`: `json+`, with the latency bins), as a
/// value (object keys sorted; [`json_text`] keeps fio's order).
pub fn json(doc: &ResultDoc, plus: bool) -> serde_json::Value {
    serde_json::to_value(document(doc, plus)).unwrap_or_default()
}

/// fio's JSON for `doc` as the text to write: fio's key order and layout,
/// numbers exact. What `--fio-json` and `iolab fio --output-format=json`
/// write.
pub fn json_text(doc: &ResultDoc, plus: bool) -> String {
    out::text(&document(doc, plus))
}

/// fio's log files for the workloads of `doc` whose fio job asked for
/// them (`write_bw_log=PREFIX`, ...).
pub fn logs(doc: &ResultDoc) -> Vec<FioLog> {
    logs::logs(doc)
}

/// The paths [`logs`] will write for a plan's workloads (`(spec, qd,
/// jobs)` in run order), to check them before the run.
pub fn log_paths(workloads: &[(&iolab_spec::WorkloadSpec, u32, u32)]) -> Vec<String> {
    logs::log_paths(workloads)
}

fn parse_time(s: &str) -> Option<SystemTime> {
    humantime::parse_rfc3339_weak(s).ok()
}

/// When the document's last run ended: `finished_at`, else the end of
/// the last run's measured time.
fn end_time(doc: &ResultDoc) -> SystemTime {
    if let Some(t) = doc.finished_at.as_deref().and_then(parse_time) {
        return t;
    }
    doc.runs
        .iter()
        .filter_map(|r| {
            parse_time(&r.started_at)
                .map(|t| t + Duration::from_secs_f64((r.warmup_s + r.measured_s).max(0.0)))
        })
        .max()
        .or_else(|| parse_time(&doc.started_at))
        .unwrap_or(UNIX_EPOCH)
}

/// `t` as C's `ctime` writes it in local time, without the newline (fio's
/// `time`).
fn ctime(t: SystemTime) -> String {
    let secs = t.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs()) as libc::time_t;
    // SAFETY: localtime_r writes only into `tm`, which outlives the call.
    let mut tm: libc::tm = unsafe { std::mem::zeroed() };
    if unsafe { libc::localtime_r(&secs, &mut tm) }.is_null() {
        return String::new();
    }
    const DAYS: [&str; 7] = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    format!(
        "{} {} {:2} {:02}:{:02}:{:02} {}",
        DAYS[tm.tm_wday.clamp(0, 6) as usize],
        MONTHS[tm.tm_mon.clamp(0, 11) as usize],
        tm.tm_mday,
        tm.tm_hour,
        tm.tm_min,
        tm.tm_sec,
        tm.tm_year as i64 + 1900
    )
}

/// Aggregate bandwidth (bytes/s) of read, write, trim and all together
/// for each (run, group): bytes over the longest runtime, as fio's
/// `agg` that `bw_agg` is a share of.
fn aggregates(es: &[entry::Entry]) -> Vec<job::Agg> {
    es.iter()
        .map(|e| {
            let peers = es
                .iter()
                .filter(|o| o.run == e.run && o.groupid == e.groupid);
            let mut bytes = [0u64; 4];
            let mut secs = [0f64; 4];
            for p in peers {
                for (i, d) in [&p.read, &p.write, &p.trim].iter().enumerate() {
                    bytes[i] += d.bytes;
                    secs[i] = secs[i].max(if d.ops > 0 { d.secs } else { 0.0 });
                    bytes[3] += d.bytes;
                    secs[3] = secs[3].max(if d.ops > 0 { d.secs } else { 0.0 });
                }
            }
            let mut agg = [0.0; 4];
            for i in 0..4 {
                if secs[i] > 0.0 {
                    agg[i] = bytes[i] as f64 / secs[i];
                }
            }
            agg
        })
        .collect()
}

fn document(doc: &ResultDoc, plus: bool) -> J {
    let end = end_time(doc);
    let end_ms = end
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64);
    let start = parse_time(&doc.started_at).unwrap_or(end);
    let elapsed = end
        .duration_since(start)
        .map_or(0, |d| d.as_secs_f64().round() as u64);
    let es = entry::entries(doc);
    let aggs = aggregates(&es);
    let jobs: Vec<J> = es
        .iter()
        .zip(&aggs)
        .map(|(e, a)| J::O(job::job_object(e, a, plus, elapsed)))
        .collect();
    let mut o = Obj::new();
    o.put("fio version", format!("iolab-{}", doc.tool_version))
        .put("timestamp", end_ms / 1000)
        .put("timestamp_ms", end_ms)
        .put("time", ctime(end))
        .put("jobs", jobs)
        .put("disk_util", disk_util::disk_util(doc));
    J::O(o)
}
