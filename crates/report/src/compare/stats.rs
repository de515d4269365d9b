//! Is a change bigger than the run-to-run spread? Two-sided tests at 95 %
//! on the repetitions of a point: Welch's t-test when both sides have two
//! or more runs, and a prediction interval when one side has a single run.
//!
//! The Student t distribution is computed here (the regularized incomplete
//! beta function by its continued fraction, and log-gamma by Lanczos'
//! approximation) instead of through a statistics crate: it is the only
//! distribution iolab needs, some forty lines of textbook numerics, and the
//! tests below pin it to published table values.

use crate::model::Spread;
use serde::{Deserialize, Serialize};

/// Significance level: a change is significant when a two-sided test gives
/// p below this (95 % confidence).
pub const ALPHA: f64 = 0.05;

/// Which test judged a change.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TestKind {
    /// Both sides have 2 or more runs: Welch's unequal-variances t-test on
    /// the two means.
    Welch,
    /// One side has a single run: is it outside the 95 % prediction
    /// interval of the other side's runs (a new run from the same
    /// population would land inside it 95 % of the time)?
    Prediction,
    /// One run on each side: there is no spread to judge by.
    None,
}

/// A test's outcome: the t statistic, its degrees of freedom and the
/// two-sided p-value. `t` is infinite (and p 0) when both sides have no
/// spread at all and their means differ.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct TestResult {
    pub kind: TestKind,
    pub t: Option<f64>,
    pub df: Option<f64>,
    pub p: Option<f64>,
}

impl TestResult {
    pub fn significant(&self) -> bool {
        self.p.is_some_and(|p| p < ALPHA)
    }
}

/// Test whether `after`'s mean differs from `before`'s beyond their spread.
pub fn test_change(before: &Spread, after: &Spread) -> TestResult {
    let none = TestResult {
        kind: TestKind::None,
        t: None,
        df: None,
        p: None,
    };
    let (n1, n2) = (before.n as f64, after.n as f64);
    let diff = after.mean - before.mean;
    if before.n == 0 || after.n == 0 || !diff.is_finite() {
        return none;
    }
    if before.n >= 2 && after.n >= 2 {
        let (a, b) = (before.sd.powi(2) / n1, after.sd.powi(2) / n2);
        let se = (a + b).sqrt();
        if se == 0.0 {
            return degenerate(TestKind::Welch, diff);
        }
        // Welch-Satterthwaite degrees of freedom.
        let df = (a + b).powi(2) / (a * a / (n1 - 1.0) + b * b / (n2 - 1.0));
        let t = diff / se;
        return TestResult {
            kind: TestKind::Welch,
            t: Some(t),
            df: Some(df),
            p: Some(t_two_sided_p(t, df)),
        };
    }
    if before.n == 1 && after.n == 1 {
        return none;
    }
    // One run against several: the single run is a new observation; under
    // "no change" it comes from the other side's distribution, so
    // (x - mean) / (sd * sqrt(1 + 1/n)) follows t with n - 1 degrees of
    // freedom.
    let (sample, n) = if before.n >= 2 {
        (before, n1)
    } else {
        (after, n2)
    };
    let se = sample.sd * (1.0 + 1.0 / n).sqrt();
    if se == 0.0 {
        return degenerate(TestKind::Prediction, diff);
    }
    let df = n - 1.0;
    let t = diff / se;
    TestResult {
        kind: TestKind::Prediction,
        t: Some(t),
        df: Some(df),
        p: Some(t_two_sided_p(t, df)),
    }
}

/// No spread at all on the side(s) that give it: any difference is beyond
/// it, none is within it.
fn degenerate(kind: TestKind, diff: f64) -> TestResult {
    let (t, p) = if diff == 0.0 {
        (0.0, 1.0)
    } else {
        (diff.signum() * f64::INFINITY, 0.0)
    };
    TestResult {
        kind,
        t: Some(t).filter(|t| t.is_finite()),
        df: None,
        p: Some(p),
    }
}

/// P(|T| >= |t|) for Student's t with `df` (> 0, may be fractional)
/// degrees of freedom: I_x(df/2, 1/2) with x = df / (df + t^2).
pub fn t_two_sided_p(t: f64, df: f64) -> f64 {
    if !t.is_finite() {
        return 0.0;
    }
    if df.is_nan() || df <= 0.0 {
        return f64::NAN;
    }
    let x = df / (df + t * t);
    reg_inc_beta(df / 2.0, 0.5, x).clamp(0.0, 1.0)
}

/// ln Γ(x) for x > 0, Lanczos' approximation (g = 7, 9 terms), relative
/// error below 1e-13 over the range used here.
fn ln_gamma(x: f64) -> f64 {
    const G: f64 = 7.0;
    const C: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        // Reflection: Γ(x) Γ(1-x) = π / sin(πx).
        let pi = std::f64::consts::PI;
        return (pi / (pi * x).sin()).ln() - ln_gamma(1.0 - x);
    }
    let x = x - 1.0;
    let mut a = C[0];
    let t = x + G + 0.5;
    for (i, c) in C.iter().enumerate().skip(1) {
        a += c / (x + i as f64);
    }
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + a.ln()
}

/// The regularized incomplete beta function I_x(a, b).
fn reg_inc_beta(a: f64, b: f64, x: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    if x >= 1.0 {
        return 1.0;
    }
    let ln_front = ln_gamma(a + b) - ln_gamma(a) - ln_gamma(b) + a * x.ln() + b * (1.0 - x).ln();
    // The continued fraction converges fast for x < (a+1)/(a+b+2); use the
    // symmetry I_x(a,b) = 1 - I_{1-x}(b,a) on the other side.
    if x < (a + 1.0) / (a + b + 2.0) {
        ln_front.exp() * beta_cf(a, b, x) / a
    } else {
        1.0 - ln_front.exp() * beta_cf(b, a, 1.0 - x) / b
    }
}

/// The continued fraction of the incomplete beta function, by the modified
/// Lentz method.
fn beta_cf(a: f64, b: f64, x: f64) -> f64 {
    const TINY: f64 = 1e-300;
    const EPS: f64 = 1e-15;
    let (qab, qap, qam) = (a + b, a + 1.0, a - 1.0);
    let mut c = 1.0;
    let mut d = 1.0 - qab * x / qap;
    if d.abs() < TINY {
        d = TINY;
    }
    d = 1.0 / d;
    let mut h = d;
    for m in 1..=300 {
        let m = m as f64;
        let m2 = 2.0 * m;
        // Even step.
        let aa = m * (b - m) * x / ((qam + m2) * (a + m2));
        d = 1.0 + aa * d;
        if d.abs() < TINY {
            d = TINY;
        }
        c = 1.0 + aa / c;
        if c.abs() < TINY {
            c = TINY;
        }
        d = 1.0 / d;
        h *= d * c;
        // Odd step.
        let aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
        d = 1.0 + aa * d;
        if d.abs() < TINY {
            d = TINY;
        }
        c = 1.0 + aa / c;
        if c.abs() < TINY {
            c = TINY;
        }
        d = 1.0 / d;
        let del = d * c;
        h *= del;
        if (del - 1.0).abs() < EPS {
            break;
        }
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::points::spread;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn t_critical_values_from_the_tables_give_p_005() {
        // Two-sided 95 % critical values of Student's t.
        for (df, t) in [
            (1.0, 12.706_205),
            (2.0, 4.302_653),
            (3.0, 3.182_446),
            (4.0, 2.776_445),
            (5.0, 2.570_582),
            (10.0, 2.228_139),
            (30.0, 2.042_272),
            (1e6, 1.959_966),
        ] {
            let p = t_two_sided_p(t, df);
            assert!(close(p, 0.05, 2e-6), "df {df}: p {p}");
            assert!(close(t_two_sided_p(-t, df), p, 1e-15));
        }
        // 99 %: df 4, t 4.604095.
        assert!(close(t_two_sided_p(4.604_095, 4.0), 0.01, 1e-6));
        // Fractional df (Welch): df 1.5 lies between df 1 and df 2.
        let p = t_two_sided_p(4.302_653, 1.5);
        assert!(p > 0.05 && p < t_two_sided_p(4.302_653, 1.0), "{p}");
        assert_eq!(t_two_sided_p(0.0, 3.0), 1.0);
        assert_eq!(t_two_sided_p(f64::INFINITY, 3.0), 0.0);
    }

    #[test]
    fn ln_gamma_matches_factorials_and_sqrt_pi() {
        assert!(close(ln_gamma(1.0), 0.0, 1e-13));
        assert!(close(ln_gamma(5.0), 24f64.ln(), 1e-12));
        assert!(close(
            ln_gamma(0.5),
            std::f64::consts::PI.sqrt().ln(),
            1e-12
        ));
        assert!(close(ln_gamma(0.25), 3.625_609_908_221_908f64.ln(), 1e-12));
    }

    #[test]
    fn welch_matches_a_worked_example() {
        // Two samples of 3: [10, 11, 12] and [14, 15, 16]: means 11 and 15,
        // sd 1 each; se sqrt(2/3), t 4.898979, df 4, p 0.008050.
        let r = test_change(&spread(&[10.0, 11.0, 12.0]), &spread(&[14.0, 15.0, 16.0]));
        assert_eq!(r.kind, TestKind::Welch);
        assert!(close(r.t.unwrap(), 4.898_979, 1e-6));
        assert!(close(r.df.unwrap(), 4.0, 1e-12));
        assert!(close(r.p.unwrap(), 0.008_050, 1e-6), "{:?}", r.p);
        assert!(r.significant());
    }

    #[test]
    fn large_spread_hides_a_change_and_small_spread_shows_it() {
        // +10 % with 20 % run-to-run spread: not significant.
        let r = test_change(
            &spread(&[80.0, 100.0, 120.0]),
            &spread(&[90.0, 110.0, 130.0]),
        );
        assert!(!r.significant(), "{r:?}");
        // +10 % with 1 % spread: significant.
        let r = test_change(
            &spread(&[99.0, 100.0, 101.0]),
            &spread(&[109.0, 110.0, 111.0]),
        );
        assert!(r.significant(), "{r:?}");
    }

    #[test]
    fn one_run_against_repetitions_uses_the_prediction_interval() {
        // Baseline 100 ± 1 over 3 runs; t(0.975, 2) = 4.3027, sd * sqrt(4/3)
        // = 1.1547: the interval is 100 ± 4.97.
        let base = spread(&[99.0, 100.0, 101.0]);
        let inside = test_change(&base, &spread(&[104.0]));
        assert_eq!(inside.kind, TestKind::Prediction);
        assert!(!inside.significant(), "{inside:?}");
        let outside = test_change(&base, &spread(&[106.0]));
        assert!(outside.significant(), "{outside:?}");
        // Either side may be the single run.
        assert!(test_change(&spread(&[106.0]), &base).significant());
    }

    #[test]
    fn one_run_each_cannot_be_judged() {
        let r = test_change(&spread(&[100.0]), &spread(&[200.0]));
        assert_eq!(r.kind, TestKind::None);
        assert_eq!(r.p, None);
        assert!(!r.significant());
        assert_eq!(
            test_change(&spread(&[]), &spread(&[1.0, 2.0])).kind,
            TestKind::None
        );
    }

    #[test]
    fn no_spread_at_all() {
        let same = test_change(&spread(&[5.0, 5.0]), &spread(&[5.0, 5.0]));
        assert_eq!(same.p, Some(1.0));
        let moved = test_change(&spread(&[5.0, 5.0]), &spread(&[6.0, 6.0]));
        assert_eq!(moved.p, Some(0.0));
        assert!(moved.significant());
    }
}
