//! fio's `job options` for a workload, and the options of fio's that
//! change what fio reports (`percentile_list`, `clat_percentiles`,
//! `lat_percentiles`, `unified_rw_reporting`, `continue_on_error`, the
//! `write_*_log` family). A workload that came from a fio job carries its
//! options as written (`spec.origin`); for iolab's own workloads the fio
//! options that would run the same workload are derived from the spec.

use super::lat::{DEFAULT_PERCENTILES, MAX_PERCENTILES};
use iolab_spec::{Distribution, SyncMode, WorkloadSpec};

/// How fio reports directions (`unified_rw_reporting`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Unified {
    /// `read`, `write` and `trim` apart (fio's default).
    #[default]
    None,
    /// One `mixed` object instead.
    Mixed,
    /// Both: the directions, then `mixed`.
    Both,
}

/// What fio's options say about reporting, for one workload.
#[derive(Debug, Clone, Default)]
pub struct Reporting {
    /// fio's `job options`: (option, value as written).
    pub options: Vec<(String, String)>,
    /// The percentiles to list (`percentile_list`, or fio's default).
    pub percentiles: Vec<f64>,
    /// List them in `clat_ns` (`clat_percentiles`, fio's default).
    pub clat_percentiles: bool,
    /// List them in `lat_ns` (`lat_percentiles=1`).
    pub lat_percentiles: bool,
    pub unified: Unified,
    pub continue_on_error: bool,
    pub logs: LogOptions,
}

/// The `write_*_log` family: a prefix per log kind when asked for.
#[derive(Debug, Clone, Default)]
pub struct LogOptions {
    pub bw: Option<String>,
    pub lat: Option<String>,
    pub iops: Option<String>,
    /// One file per job (`per_job_logs`, fio's default true).
    pub per_job: bool,
    /// `log_offset=1`: an offset column (0 here: averaged samples).
    pub offset: bool,
    /// `log_max_value`: 0 mean, 1 max, 2 mean and max.
    pub max_value: u8,
    pub disable_lat: bool,
    pub disable_clat: bool,
    pub disable_slat: bool,
}

/// fio's reading of a boolean option: a bare option is true; numbers are
/// true when not zero.
pub fn fio_bool(v: &str) -> bool {
    match v.trim().to_ascii_lowercase().as_str() {
        "" | "true" | "yes" | "on" => true,
        "false" | "no" | "off" => false,
        n => n.parse::<f64>().map(|x| x != 0.0).unwrap_or(true),
    }
}

/// fio's `percentile_list` (`99:99.9`, also with commas): sorted, at most
/// 20, each in (0, 100]; `None` when it does not read as such a list.
pub fn percentile_list(v: &str) -> Option<Vec<f64>> {
    let mut out = Vec::new();
    for p in v.split([':', ',']).map(str::trim).filter(|p| !p.is_empty()) {
        let x: f64 = p.trim_end_matches('%').parse().ok()?;
        if !(x > 0.0 && x <= 100.0) {
            return None;
        }
        out.push(x);
    }
    if out.is_empty() {
        return None;
    }
    out.sort_by(|a, b| a.total_cmp(b));
    out.truncate(MAX_PERCENTILES);
    Some(out)
}

impl Reporting {
    /// The reporting options of `spec`: its fio job's when it came from
    /// one, else fio's defaults with options derived from the spec.
    pub fn of(spec: &WorkloadSpec, qd: u32, jobs: u32) -> Reporting {
        let Some(origin) = spec.origin.as_ref().filter(|o| o.format == "fio") else {
            return Reporting {
                options: derived_options(spec, qd, jobs),
                percentiles: DEFAULT_PERCENTILES.to_vec(),
                clat_percentiles: true,
                logs: LogOptions {
                    per_job: true,
                    ..Default::default()
                },
                ..Default::default()
            };
        };
        let opt = |k: &str| origin.option(k);
        let on = |k: &str, default: bool| opt(k).map_or(default, fio_bool);
        let list = opt("percentile_list")
            .and_then(percentile_list)
            .unwrap_or_else(|| DEFAULT_PERCENTILES.to_vec());
        let lat_percentiles = on("lat_percentiles", false);
        // fio turns clat percentiles off when lat percentiles are asked
        // for and clat's are not named.
        let clat_on = on("clat_percentiles", !lat_percentiles);
        let log = |k: &str| opt(k).map(|v| v.trim().to_string());
        let name_or = |p: Option<String>| {
            p.map(|p| {
                if p.is_empty() {
                    origin.section.clone()
                } else {
                    p
                }
            })
        };
        Reporting {
            options: origin.options.clone(),
            percentiles: list,
            clat_percentiles: clat_on,
            lat_percentiles,
            unified: match opt("unified_rw_reporting").map(|v| v.trim().to_ascii_lowercase()) {
                Some(v) if v == "1" || v == "mixed" => Unified::Mixed,
                Some(v) if v == "2" || v == "both" => Unified::Both,
                _ => Unified::None,
            },
            continue_on_error: opt("continue_on_error")
                .is_some_and(|v| !matches!(v.trim(), "none" | "0" | "false")),
            logs: LogOptions {
                bw: name_or(log("write_bw_log")),
                lat: name_or(log("write_lat_log")),
                iops: name_or(log("write_iops_log")),
                per_job: on("per_job_logs", true),
                offset: on("log_offset", false),
                max_value: match opt("log_max_value").map(str::trim) {
                    Some("2") | Some("both") => 2,
                    Some(v) if fio_bool(v) => 1,
                    _ => 0,
                },
                disable_lat: on("disable_lat", false),
                disable_clat: on("disable_clat", false),
                disable_slat: on("disable_slat", false),
            },
        }
    }
}

/// A size as fio reads it (kb_base 1024): `4k`, `1m`, `3g`, else bytes;
/// iolab's flags write sizes the same way.
pub fn size_text(b: u64) -> String {
    crate::study::short_size(b)
}

/// A time in seconds as fio reads it: whole seconds, else milliseconds,
/// else microseconds.
fn time_text(s: f64) -> String {
    let us = (s * 1e6).round() as u64;
    if us.is_multiple_of(1_000_000) {
        format!("{}", us / 1_000_000)
    } else if us.is_multiple_of(1000) {
        format!("{}ms", us / 1000)
    } else {
        format!("{us}us")
    }
}

/// fio's `rw` for a read share and a random share.
fn fio_rw(read_pct: u32, random_pct: u32) -> &'static str {
    let rand = random_pct > 0;
    match (read_pct, rand) {
        (100, false) => "read",
        (100, true) => "randread",
        (0, false) => "write",
        (0, true) => "randwrite",
        (_, false) => "rw",
        (_, true) => "randrw",
    }
}

/// The fio options that would run `spec` (an iolab workload that did not
/// come from fio), in the order a fio user would write them. `qd` and
/// `jobs` are the ones that took effect.
pub fn derived_options(spec: &WorkloadSpec, qd: u32, jobs: u32) -> Vec<(String, String)> {
    let mut o: Vec<(String, String)> = Vec::new();
    let mut put = |k: &str, v: String| o.push((k.to_string(), v));
    if spec.fs.is_none() {
        put("rw", fio_rw(spec.read_pct, spec.random_pct).into());
        if spec.read_pct > 0 && spec.read_pct < 100 {
            put("rwmixread", spec.read_pct.to_string());
        }
        if spec.random_pct > 0 && spec.random_pct < 100 {
            put("percentage_random", spec.random_pct.to_string());
        }
        match spec.bs.as_slice() {
            [one] => put("bs", size_text(one.bytes)),
            many => {
                let split: Vec<String> = many
                    .iter()
                    .map(|b| format!("{}/{}", size_text(b.bytes), b.weight))
                    .collect();
                put("bssplit", split.join(":"));
            }
        }
    }
    put("iodepth", qd.to_string());
    put("numjobs", jobs.to_string());
    put("ioengine", spec.engine.name().into());
    put("direct", if spec.direct { "1" } else { "0" }.into());
    if spec.sync == SyncMode::Dsync {
        put("sync", "dsync".into());
    }
    if spec.fsync_every > 0 {
        put("fsync", spec.fsync_every.to_string());
    }
    if !spec.targets.is_empty() {
        let names: Vec<&str> = spec.targets.iter().map(|t| t.path.as_str()).collect();
        put("filename", names.join(":"));
        let t = &spec.targets[0];
        if t.offset > 0 {
            put("offset", size_text(t.offset));
        }
        if let Some(n) = t.range.or(t.size) {
            put("size", size_text(n));
        }
    }
    if let Some(b) = spec.io_size {
        put("io_size", size_text(b));
    }
    if let Some(n) = spec.ops {
        put("number_ios", n.to_string());
    }
    if let Some(d) = spec.duration_s {
        put("runtime", time_text(d));
        put("time_based", String::new());
    }
    if spec.warmup_s > 0.0 {
        put("ramp_time", time_text(spec.warmup_s));
    }
    if spec.start_delay_s > 0.0 {
        put("startdelay", time_text(spec.start_delay_s));
    }
    if let Some(r) = spec.rate_iops {
        put("rate_iops", format!("{}", r.round() as u64));
    }
    match &spec.distribution {
        Distribution::Uniform => {}
        Distribution::Hotspot { io_pct, space_pct } => put(
            "random_distribution",
            format!(
                "zoned:{io_pct}/{space_pct}:{}/{}",
                100.0 - io_pct,
                100.0 - space_pct
            ),
        ),
        // zipf, pareto, normal, zoned, zoned_abs: iolab's text is fio's.
        d => put("random_distribution", d.to_string()),
    }
    if !spec.cpus.is_empty() {
        let c: Vec<String> = spec.cpus.iter().map(u32::to_string).collect();
        put("cpus_allowed", c.join(","));
        put("cpus_allowed_policy", "split".into());
    }
    if let Some(s) = &spec.steady {
        let pct = if s.percent { "%" } else { "" };
        put("steadystate", format!("{}:{}{pct}", s.criterion(), s.limit));
        put("steadystate_duration", time_text(s.duration_s));
        if s.ramp_s > 0.0 {
            put("steadystate_ramp_time", time_text(s.ramp_s));
        }
    }
    put("randseed", spec.seed.to_string());
    o
}

#[cfg(test)]
mod tests {
    use super::*;
    use iolab_spec::JobOrigin;

    #[test]
    fn derived_from_an_iolab_spec() {
        let mut s = WorkloadSpec::example("w", "/tmp/f", "randrw");
        s.read_pct = 70;
        s.targets[0].size = Some(16 << 20);
        let o = derived_options(&s, 8, 2);
        let get = |k: &str| o.iter().find(|(x, _)| x == k).map(|(_, v)| v.as_str());
        assert_eq!(get("rw"), Some("randrw"));
        assert_eq!(get("rwmixread"), Some("70"));
        assert_eq!(get("bs"), Some("4k"));
        assert_eq!(get("iodepth"), Some("8"));
        assert_eq!(get("numjobs"), Some("2"));
        assert_eq!(get("ioengine"), Some("io_uring"));
        assert_eq!(get("direct"), Some("1"));
        assert_eq!(get("filename"), Some("/tmp/f"));
        assert_eq!(get("size"), Some("16m"));
        assert_eq!(get("runtime"), Some("1"));
        assert_eq!(get("time_based"), Some(""));
    }

    #[test]
    fn fio_origin_options_and_reporting() {
        let mut s = WorkloadSpec::example("j", "/tmp/f", "read");
        s.origin = Some(JobOrigin {
            format: "fio".into(),
            file: None,
            section: "j".into(),
            options: vec![
                ("rw".into(), "read".into()),
                ("percentile_list".into(), "99.9:50".into()),
                ("write_bw_log".into(), "".into()),
                ("write_lat_log".into(), "lat".into()),
                ("unified_rw_reporting".into(), "both".into()),
                ("log_max_value".into(), "1".into()),
            ],
            group: 3,
            group_reporting: true,
        });
        let r = Reporting::of(&s, 1, 1);
        assert_eq!(r.options, s.origin.as_ref().unwrap().options);
        assert_eq!(r.percentiles, vec![50.0, 99.9]);
        assert!(r.clat_percentiles && !r.lat_percentiles);
        assert_eq!(r.unified, Unified::Both);
        assert_eq!(r.logs.bw.as_deref(), Some("j"));
        assert_eq!(r.logs.lat.as_deref(), Some("lat"));
        assert_eq!(r.logs.iops, None);
        assert!(r.logs.per_job);
        assert_eq!(r.logs.max_value, 1);
    }

    #[test]
    fn percentile_lists() {
        assert_eq!(percentile_list("99,1:50"), Some(vec![1.0, 50.0, 99.0]));
        assert_eq!(percentile_list("0"), None);
        assert_eq!(percentile_list("x"), None);
        let long: Vec<String> = (1..=30).map(|i| i.to_string()).collect();
        assert_eq!(percentile_list(&long.join(":")).unwrap().len(), 20);
        assert!(fio_bool("") && fio_bool("1") && !fio_bool("0") && !fio_bool("false"));
    }
}
