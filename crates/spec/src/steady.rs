//! Steady state (fio `ss`, `ss_dur`, `ss_ramp`): a workload ends as soon
//! as its IOPS, bandwidth or mean latency has levelled, judged over a sliding window of
//! one-second samples, and the result says whether it got there.

use serde::{Deserialize, Serialize};

/// What is sampled once a second.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SteadyMetric {
    Iops,
    /// Bytes per second.
    Bw,
    /// The mean latency of the sample's I/Os, nanoseconds (fio `lat`).
    Lat,
}

/// How the window is judged (fio's two criteria).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SteadyCheck {
    /// Every sample lies within `limit` of the window's mean.
    Deviation,
    /// The least-squares slope of the window is within `limit`.
    Slope,
}

/// The criterion and its window.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SteadySpec {
    pub metric: SteadyMetric,
    pub check: SteadyCheck,
    /// The limit: a share of the window's mean in percent when `percent`,
    /// else in the metric's own unit (I/Os or bytes per second, or
    /// nanoseconds of latency).
    pub limit: f64,
    pub percent: bool,
    /// The window, seconds (fio `ss_dur`).
    pub duration_s: f64,
    /// Seconds at the start that are not sampled (fio `ss_ramp`).
    pub ramp_s: f64,
}

impl SteadySpec {
    /// fio's name of the criterion: `iops`, `iops_slope`, `bw`, `bw_slope`.
    pub fn criterion(&self) -> &'static str {
        match (self.metric, self.check) {
            (SteadyMetric::Iops, SteadyCheck::Deviation) => "iops",
            (SteadyMetric::Iops, SteadyCheck::Slope) => "iops_slope",
            (SteadyMetric::Bw, SteadyCheck::Deviation) => "bw",
            (SteadyMetric::Bw, SteadyCheck::Slope) => "bw_slope",
            (SteadyMetric::Lat, SteadyCheck::Deviation) => "lat",
            (SteadyMetric::Lat, SteadyCheck::Slope) => "lat_slope",
        }
    }
}

/// fio's criterion when only the window (`ss_dur`) is given.
pub const FIO_DEFAULT_CRITERION: &str = "iops_slope:0.01%";

/// The shortest window: fio needs at least two samples to judge.
pub const MIN_STEADY_DURATION_S: f64 = 2.0;
/// The longest window (a day): the samples are kept in memory.
pub const MAX_STEADY_DURATION_S: f64 = 86_400.0;

/// `steady`, `steady_duration` and `steady_ramp` as given (fio's `ss`
/// syntax: `iops:10%`, `iops_slope:0.1%`, `bw:5%`, `bw_slope:10m`,
/// `lat:5%`, `lat_slope:50us`; an absolute bandwidth limit is a size per
/// second, an absolute latency limit a time, in microseconds when it has
/// no unit, as fio reads it).
pub fn parse_steady(
    criterion: &str,
    duration_s: Option<f64>,
    ramp_s: f64,
) -> Result<SteadySpec, crate::SpecError> {
    let e = |s: String| Err(crate::SpecError(s));
    let t = criterion.trim();
    let Some((name, limit)) = t.split_once(':') else {
        return e(format!(
            "--steady {t} has no limit; give CRITERION:LIMIT, e.g. iops:10% or iops_slope:0.1%"
        ));
    };
    let (metric, check) = match name.trim() {
        "iops" => (SteadyMetric::Iops, SteadyCheck::Deviation),
        "iops_slope" => (SteadyMetric::Iops, SteadyCheck::Slope),
        "bw" => (SteadyMetric::Bw, SteadyCheck::Deviation),
        "bw_slope" => (SteadyMetric::Bw, SteadyCheck::Slope),
        "lat" => (SteadyMetric::Lat, SteadyCheck::Deviation),
        "lat_slope" => (SteadyMetric::Lat, SteadyCheck::Slope),
        other => {
            return e(format!(
                "--steady {other} is not a criterion; use iops, iops_slope, bw, bw_slope, lat or lat_slope"
            ))
        }
    };
    let limit = limit.trim();
    let (value, percent) = match limit.strip_suffix('%') {
        Some(p) => (p.trim().parse::<f64>().ok(), true),
        None if metric == SteadyMetric::Iops => (limit.parse::<f64>().ok(), false),
        None if metric == SteadyMetric::Lat => (lat_limit_ns(limit), false),
        None => (crate::parse_size(limit).ok().map(|b| b as f64), false),
    };
    let Some(limit_v) = value.filter(|v| v.is_finite() && *v >= 0.0) else {
        let eg = match metric {
            SteadyMetric::Iops => "10% or 50 (I/Os per second)",
            SteadyMetric::Bw => "5% or 10m (bytes per second)",
            SteadyMetric::Lat => "5% or 200us (latency)",
        };
        return e(format!(
            "--steady {t}: '{limit}' is not a limit; give a number of 0 or more, e.g. {name}:{eg}"
        ));
    };
    let Some(d) = duration_s else {
        return e(format!(
            "--steady {t} needs its window: give --steady-duration, e.g. 30s (fio ss_dur)"
        ));
    };
    if !(MIN_STEADY_DURATION_S..=MAX_STEADY_DURATION_S).contains(&d) || d.fract() != 0.0 {
        return e(format!(
            "--steady-duration {d}s is not a whole number of seconds from 2 to 86400; give e.g. 30s"
        ));
    }
    if !ramp_s.is_finite() || ramp_s < 0.0 {
        return e("--steady-ramp must be 0 or more, e.g. 10s".into());
    }
    Ok(SteadySpec {
        metric,
        check,
        limit: limit_v,
        percent,
        duration_s: d,
        ramp_s,
    })
}

/// An absolute latency limit in nanoseconds: a time, microseconds when
/// it has no unit (fio's default unit for its latency limit).
fn lat_limit_ns(s: &str) -> Option<f64> {
    let bare = s.parse::<f64>().ok();
    match bare {
        Some(us) => Some(us * 1e3),
        None => crate::parse_duration(s).ok().map(|d| d.as_nanos() as f64),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_fio_criteria() {
        let s = parse_steady("iops_slope:0.1%", Some(30.0), 5.0).unwrap();
        assert_eq!(s.criterion(), "iops_slope");
        assert_eq!(
            (s.limit, s.percent, s.duration_s, s.ramp_s),
            (0.1, true, 30.0, 5.0)
        );
        let s = parse_steady("bw:10m", Some(2.0), 0.0).unwrap();
        assert_eq!(s.criterion(), "bw");
        assert_eq!((s.limit, s.percent), (10.0 * 1024.0 * 1024.0, false));
        let s = parse_steady("iops:25", Some(2.0), 0.0).unwrap();
        assert_eq!((s.limit, s.percent), (25.0, false));
        let s = parse_steady("bw_slope:2 %", Some(3.0), 0.0).unwrap();
        assert_eq!((s.criterion(), s.limit, s.percent), ("bw_slope", 2.0, true));
        let s = parse_steady("lat:5%", Some(2.0), 0.0).unwrap();
        assert_eq!((s.criterion(), s.limit, s.percent), ("lat", 5.0, true));
        let s = parse_steady("lat_slope:50", Some(2.0), 0.0).unwrap();
        assert_eq!(
            (s.criterion(), s.limit, s.percent),
            ("lat_slope", 50_000.0, false)
        );
        let s = parse_steady("lat:2ms", Some(2.0), 0.0).unwrap();
        assert_eq!((s.limit, s.percent), (2_000_000.0, false));
    }

    #[test]
    fn refuses_bad_criteria_with_one_line() {
        for (c, d, what) in [
            ("iops", Some(2.0), "no limit"),
            ("clat:5%", Some(2.0), "not a criterion"),
            ("lat:5xs", Some(2.0), "not a limit"),
            ("iops:x%", Some(2.0), "not a limit"),
            ("iops:-1%", Some(2.0), "not a limit"),
            ("iops:5%", None, "needs its window"),
            ("iops:5%", Some(1.0), "whole number"),
            ("iops:5%", Some(2.5), "whole number"),
        ] {
            let e = parse_steady(c, d, 0.0).unwrap_err().0;
            assert!(e.contains(what) && !e.contains('\n'), "{c}: {e}");
        }
    }
}
