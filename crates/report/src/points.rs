//! Repetitions summarised per point of a plan: mean, standard deviation,
//! min, max and coefficient of variation.

use crate::model::{PointSummary, ResultDoc, RunResult, Spread};

/// Above this coefficient of variation of IOPS (percent) a point's spread
/// is called large, as the studies noted "when spread was large".
pub const LARGE_CV_PCT: f64 = 10.0;

/// The spread of a sample. The standard deviation is the sample one (n-1);
/// with one value it is 0. NaN values are left out.
pub fn spread(xs: &[f64]) -> Spread {
    let v: Vec<f64> = xs.iter().copied().filter(|x| x.is_finite()).collect();
    if v.is_empty() {
        return Spread::default();
    }
    let n = v.len() as f64;
    let mean = v.iter().sum::<f64>() / n;
    let sd = if v.len() > 1 {
        (v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt()
    } else {
        0.0
    };
    Spread {
        n: v.len() as u32,
        mean,
        sd,
        min: v.iter().copied().fold(f64::INFINITY, f64::min),
        max: v.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        cv_pct: if mean != 0.0 { 100.0 * sd / mean } else { 0.0 },
    }
}

fn of(runs: &[&RunResult], f: impl Fn(&RunResult) -> f64) -> Spread {
    spread(&runs.iter().map(|r| f(r)).collect::<Vec<_>>())
}

/// One summary per point that has runs, from the runs' `point` field, in
/// point order. Runs without a point are not summarised.
pub fn summarize_points(doc: &ResultDoc) -> Vec<PointSummary> {
    let mut out: Vec<PointSummary> = Vec::new();
    let mut idx: Vec<(u32, Vec<u32>)> = Vec::new();
    for (i, r) in doc.runs.iter().enumerate() {
        let Some(p) = r.point else { continue };
        match idx.iter_mut().find(|(q, _)| *q == p) {
            Some((_, v)) => v.push(i as u32),
            None => idx.push((p, vec![i as u32])),
        }
    }
    idx.sort_by_key(|(p, _)| *p);
    for (p, run_idx) in idx {
        let runs: Vec<&RunResult> = run_idx
            .iter()
            .map(|&i| &doc.runs[i as usize])
            .filter(|r| r.measured_s > 0.0)
            .collect();
        let first = &doc.runs[run_idx[0] as usize];
        let iops = of(&runs, |r| r.summary.total.iops);
        out.push(PointSummary {
            index: p,
            name: first.name.clone(),
            params: first.params.clone(),
            runs: run_idx,
            spread_large: iops.n > 1 && iops.cv_pct > LARGE_CV_PCT,
            iops,
            mbps: of(&runs, |r| r.summary.total.mbps),
            lat_mean_us: of(&runs, |r| r.summary.total.lat_us.mean),
            lat_p99_us: of(&runs, |r| r.summary.total.lat_us.p99),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spread_of_known_sample() {
        // 2, 4, 4, 4, 5, 5, 7, 9: mean 5, sample sd sqrt(32/7).
        let s = spread(&[2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]);
        assert_eq!(s.n, 8);
        assert!((s.mean - 5.0).abs() < 1e-12);
        assert!((s.sd - (32.0f64 / 7.0).sqrt()).abs() < 1e-12);
        assert_eq!((s.min, s.max), (2.0, 9.0));
        assert!((s.cv_pct - 100.0 * (32.0f64 / 7.0).sqrt() / 5.0).abs() < 1e-9);
    }

    #[test]
    fn one_value_has_no_spread_and_nan_is_left_out() {
        let s = spread(&[3.0, f64::NAN]);
        assert_eq!((s.n, s.mean, s.sd, s.cv_pct), (1, 3.0, 0.0, 0.0));
        assert_eq!(spread(&[]).n, 0);
    }
}
