//! vdbench's `iorate=curve`: a run at the maximum rate, then the same run
//! at each listed percentage of the I/O rate it measured, and
//! `stopcurve=` ending the curve early once the mean response time passes
//! a limit. The planner expands a run with a [`CurveSpec`] into those
//! runs; the executor sets each later run's rate from the first run's
//! result when it starts it.
//!
//! vdbench's own rules (Vdb/RD_entry.java, Vdb/Reporter.java): the
//! percentages are of the total I/O rate the maximum run measured (every
//! workload of the run together); a point's rate is the run's, shared by
//! its workloads as any run rate is; `stopcurve` compares a point's mean
//! response time, in milliseconds, after the point has run (the point
//! that crossed it is kept; the maximum run is never compared; vdbench's
//! response time counts from when the I/O was issued, iolab's service
//! time). A point's rate is rounded up as vdbench rounds it: to a
//! multiple of 100 above 1000 I/Os per second, else of 10; a point whose
//! rate would be under 10 even so (under 1 I/O per second before
//! rounding: vdbench's whole-number rate is 0) is not run, and neither
//! are the points after it (Vdb/For_loop.java).

use serde::{Deserialize, Serialize};

/// vdbench's default curve (`curve=(10,50,70,80,90,100)`).
pub const DEFAULT_CURVE: [f64; 6] = [10.0, 50.0, 70.0, 80.0, 90.0, 100.0];

/// A run's curve: percentages of its measured maximum rate.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CurveSpec {
    /// Percentages of the maximum, in the order they run (each > 0).
    pub pcts: Vec<f64>,
    /// vdbench `stopcurve=`: once a point's mean response time from issue
    /// (its service time) is above this many milliseconds, the points
    /// after it are not run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_ms: Option<f64>,
}

impl Default for CurveSpec {
    fn default() -> Self {
        CurveSpec {
            pcts: DEFAULT_CURVE.to_vec(),
            stop_ms: None,
        }
    }
}

/// The most points a curve may have (vdbench's default has 6).
pub const MAX_CURVE_POINTS: usize = 100;

/// A curve's percentages as given: `default` (vdbench's), or numbers
/// above 0 separated by commas (vdbench's parentheses allowed:
/// `(10,50,90)`), each may end in `%`. One line for the user when it is not.
pub fn parse_curve(text: &str) -> Result<Vec<f64>, String> {
    let t = text.trim();
    if t.eq_ignore_ascii_case("default") {
        return Ok(DEFAULT_CURVE.to_vec());
    }
    let inner = t.strip_prefix('(').and_then(|t| t.strip_suffix(')'));
    let t = inner.unwrap_or(t);
    let mut pcts = Vec::new();
    for part in t.split(',') {
        let p = part.trim();
        let v: f64 = p.strip_suffix('%').unwrap_or(p).trim().parse().map_err(|_| {
            format!("'{p}' is not a percentage; give numbers above 0 separated by commas, e.g. 10,50,90, or default")
        })?;
        if !(v > 0.0 && v.is_finite() && v <= 10_000.0) {
            return Err(format!(
                "{p}% is not a curve point; give percentages above 0 (at most 10000) of the maximum rate"
            ));
        }
        pcts.push(v);
        if pcts.len() > MAX_CURVE_POINTS {
            return Err(format!(
                "a curve has at most {MAX_CURVE_POINTS} points; give fewer percentages"
            ));
        }
    }
    Ok(pcts)
}

/// A percentage as a name shows it: `10`, `12.5`.
pub fn pct_text(pct: f64) -> String {
    let t = format!("{pct:.3}");
    t.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// The name of a curve's run: `NAME (max)`, `NAME (10%)`.
pub fn point_name(base: &str, pct: Option<f64>) -> String {
    match pct {
        None => format!("{base} (max)"),
        Some(p) => format!("{base} ({}%)", pct_text(p)),
    }
}

/// The rate of a point at `pct` of a maximum that measured `max_iops`,
/// rounded up as vdbench does (to 100s above 1000, else to 10s).
pub fn point_rate(max_iops: f64, pct: f64) -> f64 {
    let raw = max_iops * pct / 100.0;
    let step = if raw > 1000.0 { 100.0 } else { 10.0 };
    ((raw / step).ceil() * step).max(step)
}

/// Whether a point at `pct` of a maximum that measured `max_iops` runs:
/// vdbench ends a curve at the first point whose rate, rounded up to 10s,
/// is still under 10 I/Os per second (0 before rounding).
pub fn point_runs(max_iops: f64, pct: f64) -> bool {
    max_iops * pct / 100.0 >= 1.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn curves_as_written() {
        assert_eq!(parse_curve("default").unwrap(), DEFAULT_CURVE.to_vec());
        assert_eq!(parse_curve(" 10, 50,12.5").unwrap(), [10.0, 50.0, 12.5]);
        assert_eq!(parse_curve("(10,90)").unwrap(), [10.0, 90.0]);
        assert_eq!(parse_curve("10%, 90%").unwrap(), [10.0, 90.0]);
        for bad in ["", "10,,20", "0", "-5", "x", "nan", "inf", "%"] {
            let e = parse_curve(bad).unwrap_err();
            assert!(!e.contains('\n') && e.contains("give"), "{bad}: {e}");
        }
        let long = vec!["1"; MAX_CURVE_POINTS + 1].join(",");
        assert!(parse_curve(&long).unwrap_err().contains("at most"));
    }

    #[test]
    fn names_and_rates() {
        assert_eq!(point_name("rd1", None), "rd1 (max)");
        assert_eq!(point_name("rd1", Some(10.0)), "rd1 (10%)");
        assert_eq!(point_name("rd1", Some(12.5)), "rd1 (12.5%)");
        assert_eq!(point_rate(12345.0, 50.0), 6200.0);
        assert_eq!(point_rate(12345.0, 5.0), 620.0);
        assert_eq!(point_rate(1000.0, 100.0), 1000.0);
        assert_eq!(point_rate(3.0, 10.0), 10.0);
    }

    #[test]
    fn a_point_under_one_io_per_second_does_not_run() {
        // 0.9/s before rounding: vdbench's rate is 0, under its 10.
        assert!(!point_runs(9.0, 10.0));
        assert!(!point_runs(0.5, 100.0));
        // 1/s and more round up to 10/s and run.
        assert!(point_runs(10.0, 10.0));
        assert!(point_runs(95.0, 10.0));
        assert_eq!(point_rate(95.0, 10.0), 10.0);
    }
}
