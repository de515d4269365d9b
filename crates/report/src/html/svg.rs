//! Charts as inline SVG: line charts (linear or log-2 x, linear or log-10
//! y) and grouped bar charts, with axes, ticks, a legend, error bars,
//! marked x positions and shaded x ranges.
//!
//! Hand-rolled rather than an embedded chart library: the report must open
//! without a network and print well, and SVG does both with no script; the
//! geometry below is all a chart needs. Every colour is an attribute, not
//! CSS, so a printed or screenshotted chart looks the same everywhere.
//!
//! The drawing is 600 units wide (`viewBox`); the page scales it to its
//! column (`width: 100%`), and on a phone the chart keeps a minimum width
//! inside a scrolling box so its 13-unit text stays readable.

use super::esc;
use crate::model::Chart;
use std::fmt::Write;

/// What a chart needs beyond the model's [`Chart`] (which is what a study
/// stores): error bars, shaded ranges, a log y axis, a fixed x domain and
/// custom ticks.
#[derive(Debug, Clone, Default)]
pub struct ChartExtras {
    /// Per series (same order as `chart.series`), per x: the low and high
    /// end of an error bar (min-max or mean ± sd).
    pub errors: Vec<Vec<Option<(f64, f64)>>>,
    /// Shaded x ranges (numeric x only): stalls, warm-up.
    pub bands: Vec<Band>,
    /// Draw the y axis on a log-10 scale (latencies spanning decades).
    pub log_y: bool,
    /// The x range to show (numeric x); default: the data's.
    pub x_domain: Option<(f64, f64)>,
    /// Ticks on the x axis (numeric x) with their labels; default: at the
    /// data's x when there are few, else evenly spaced round numbers.
    pub x_ticks: Option<Vec<(f64, String)>>,
    /// Evenly spaced round-number ticks on a linear x even with few points
    /// (time series).
    pub nice_x: bool,
}

/// A shaded x range with its kind (colour) and a legend label.
#[derive(Debug, Clone)]
pub struct Band {
    pub from: f64,
    pub to: f64,
    pub kind: BandKind,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BandKind {
    /// No completion: a stall or an interval without one (red).
    Stall,
    /// Warm-up, not measured (grey).
    Warmup,
}

impl BandKind {
    fn fill(self) -> &'static str {
        match self {
            BandKind::Stall => "#d62728",
            BandKind::Warmup => "#888888",
        }
    }
    fn opacity(self) -> &'static str {
        match self {
            BandKind::Stall => "0.22",
            BandKind::Warmup => "0.16",
        }
    }
    fn label(self) -> &'static str {
        match self {
            BandKind::Stall => "no completion (stall)",
            BandKind::Warmup => "warm-up",
        }
    }
}

/// Line colours: the Okabe-Ito palette (distinguishable with the common
/// colour-vision deficiencies), without its yellow, which vanishes on
/// white. Series beyond these repeat the colours with dashes.
pub const PALETTE: [&str; 7] = [
    "#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9", "#000000",
];
const DASHES: [&str; 3] = ["", "7 4", "2 3"];

const W: f64 = 600.0;
const FONT: f64 = 13.0;
const CHAR_W: f64 = FONT * 0.6;
const PLOT_H: f64 = 250.0;
const TOP: f64 = 14.0;
const RIGHT: f64 = 18.0;

fn color(i: usize) -> &'static str {
    PALETTE[i % PALETTE.len()]
}

fn dash(i: usize) -> &'static str {
    DASHES[(i / PALETTE.len()) % DASHES.len()]
}

/// A number for an axis: `250k`, `1.5M`, `0.25`.
fn tick_label(v: f64, step: f64) -> String {
    let a = v.abs();
    let trim = |s: String| -> String {
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s
        }
    };
    if a >= 1e9 {
        format!("{}G", trim(format!("{:.2}", v / 1e9)))
    } else if a >= 1e6 {
        format!("{}M", trim(format!("{:.2}", v / 1e6)))
    } else if a >= 1e4 {
        format!("{}k", trim(format!("{:.1}", v / 1e3)))
    } else {
        let d = if step > 0.0 && step < 1.0 {
            ((-step.log10()).ceil() as usize).min(6)
        } else {
            0
        };
        trim(format!("{v:.d$}"))
    }
}

/// A round step that splits `range` into about `target` parts.
fn nice_step(range: f64, target: f64) -> f64 {
    if range <= 0.0 || !range.is_finite() {
        return 1.0;
    }
    let raw = range / target;
    let mag = 10f64.powf(raw.log10().floor());
    let n = raw / mag;
    let s = if n <= 1.0 {
        1.0
    } else if n <= 2.0 {
        2.0
    } else if n <= 2.5 {
        2.5
    } else if n <= 5.0 {
        5.0
    } else {
        10.0
    };
    s * mag
}

/// Ticks from `lo` to at least `hi` in round steps; returns the ticks and
/// the step.
fn linear_ticks(lo: f64, hi: f64, target: f64) -> (Vec<f64>, f64) {
    let step = nice_step(hi - lo, target);
    let start = (lo / step).floor() * step;
    let mut t = Vec::new();
    let mut k = 0;
    loop {
        let v = start + step * k as f64;
        t.push(if v.abs() < step * 1e-9 { 0.0 } else { v });
        if v >= hi - step * 1e-9 || k > 100 {
            break;
        }
        k += 1;
    }
    (t, step)
}

struct YScale {
    lo: f64,
    hi: f64,
    log: bool,
    top: f64,
    bottom: f64,
}

impl YScale {
    fn y(&self, v: f64) -> f64 {
        let f = if self.log {
            (v.max(self.lo).log10() - self.lo.log10()) / (self.hi.log10() - self.lo.log10())
        } else {
            (v - self.lo) / (self.hi - self.lo)
        };
        self.bottom - f.clamp(-0.02, 1.02) * (self.bottom - self.top)
    }
}

enum XKind {
    /// Evenly spaced categories (bar charts, line charts without numbers).
    Cat(usize),
    /// Numeric positions, linear or log 2.
    Num { lo: f64, hi: f64, log: bool },
}

struct XScale {
    kind: XKind,
    left: f64,
    right: f64,
}

impl XScale {
    fn cat(&self, i: usize) -> f64 {
        match self.kind {
            XKind::Cat(n) => self.left + (i as f64 + 0.5) * (self.right - self.left) / n as f64,
            XKind::Num { .. } => self.left,
        }
    }
    fn num(&self, v: f64) -> f64 {
        match self.kind {
            XKind::Num { lo, hi, log } => {
                let t = |x: f64| {
                    if log {
                        x.max(f64::MIN_POSITIVE).log2()
                    } else {
                        x
                    }
                };
                let f = (t(v) - t(lo)) / (t(hi) - t(lo));
                self.left + f * (self.right - self.left)
            }
            XKind::Cat(_) => self.left,
        }
    }
    fn step(&self) -> f64 {
        match self.kind {
            XKind::Cat(n) => (self.right - self.left) / n.max(1) as f64,
            XKind::Num { .. } => 0.0,
        }
    }
}

fn f1(v: f64) -> String {
    let s = format!("{v:.1}");
    s.strip_suffix(".0").map(str::to_string).unwrap_or(s)
}

/// Legend entries laid out in rows across the drawing: (x, row) per entry
/// and the number of rows.
fn legend_layout(labels: &[String], left: f64) -> (Vec<(f64, usize)>, usize) {
    let mut pos = Vec::new();
    let mut x = left;
    let mut row = 0;
    for l in labels {
        let w = 30.0 + l.chars().count() as f64 * CHAR_W + 16.0;
        if x + w > W - 4.0 && x > left {
            row += 1;
            x = left;
        }
        pos.push((x, row));
        x += w;
    }
    (pos, if labels.is_empty() { 0 } else { row + 1 })
}

/// The chart as one `<svg>` element.
pub fn render(c: &Chart, ex: &ChartExtras) -> String {
    let bar = c.kind == "bar";
    let numeric_x = !bar && !c.x_values.is_empty() && c.x_values.len() == c.x.len();
    let log_x = numeric_x && c.log_x && c.x_values.iter().all(|v| *v > 0.0);
    let npts =
        c.x.len()
            .max(c.series.iter().map(|s| s.values.len()).max().unwrap_or(0));

    // y range over values and error bars.
    let mut vals: Vec<f64> = Vec::new();
    for (si, s) in c.series.iter().enumerate() {
        for (i, v) in s.values.iter().enumerate() {
            if let Some(v) = v.filter(|v| v.is_finite()) {
                vals.push(v);
                if let Some(Some((lo, hi))) = ex.errors.get(si).and_then(|e| e.get(i)) {
                    vals.push(*lo);
                    vals.push(*hi);
                }
            }
        }
    }
    let log_y = ex.log_y && !bar && vals.iter().any(|v| *v > 0.0);
    let (y_lo, y_hi, y_ticks, y_step) = if log_y {
        let pos: Vec<f64> = vals.iter().copied().filter(|v| *v > 0.0).collect();
        let mn = pos.iter().copied().fold(f64::INFINITY, f64::min);
        let mx = pos.iter().copied().fold(0.0, f64::max);
        let lo = 10f64.powf(mn.log10().floor());
        let mut hi = 10f64.powf(mx.log10().ceil());
        if hi <= lo {
            hi = lo * 10.0;
        }
        let decades = (hi.log10() - lo.log10()).round() as i32;
        let mut t = Vec::new();
        for d in 0..=decades {
            let base = lo * 10f64.powi(d);
            t.push(base);
            if decades <= 2 && d < decades {
                t.push(base * 2.0);
                t.push(base * 5.0);
            }
        }
        (lo, hi, t, 1.0)
    } else {
        let mx = vals.iter().copied().fold(0.0, f64::max);
        let mn = vals.iter().copied().fold(0.0, f64::min);
        let hi = if mx <= mn { mn + 1.0 } else { mx };
        let (t, step) = linear_ticks(mn, hi, 5.0);
        (t[0], *t.last().unwrap(), t, step)
    };
    let y_labels: Vec<String> = y_ticks.iter().map(|v| tick_label(*v, y_step)).collect();
    let label_w = y_labels
        .iter()
        .map(|l| l.chars().count())
        .max()
        .unwrap_or(1) as f64
        * CHAR_W;
    let left = (label_w + 34.0).max(48.0);
    let bottom = TOP + PLOT_H;

    // x scale and ticks.
    let (xs, x_ticks): (XScale, Vec<(f64, String)>) = if numeric_x {
        let mut lo = c.x_values.iter().copied().fold(f64::INFINITY, f64::min);
        let mut hi = c.x_values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        if let Some((a, b)) = ex.x_domain {
            lo = a;
            hi = b;
        } else if log_x {
            // Half a doubling of room on each side.
            lo /= 2f64.sqrt();
            hi *= 2f64.sqrt();
        } else if lo == hi {
            lo -= 1.0;
            hi += 1.0;
        } else {
            let pad = (hi - lo) * 0.04;
            lo -= pad;
            hi += pad;
        }
        if log_x && lo == hi {
            lo /= 2.0;
            hi *= 2.0;
        }
        // A range given empty, reversed or not finite would put NaN in the
        // drawing, which browsers reject.
        if hi <= lo || !lo.is_finite() || !hi.is_finite() || (log_x && lo <= 0.0) {
            let (a, b) = (
                c.x_values.iter().copied().fold(f64::INFINITY, f64::min),
                c.x_values.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            );
            (lo, hi) = if log_x {
                (a / 2.0, b * 2.0)
            } else {
                (a - 1.0, b + 1.0)
            };
        }
        let xs = XScale {
            kind: XKind::Num { lo, hi, log: log_x },
            left,
            right: W - RIGHT,
        };
        let ticks = if let Some(t) = &ex.x_ticks {
            t.clone()
        } else if log_x || (!ex.nice_x && c.x.len() <= 12) {
            c.x_values
                .iter()
                .copied()
                .zip(c.x.iter().cloned())
                .collect()
        } else {
            let (t, step) = linear_ticks(lo, hi, 6.0);
            t.into_iter()
                .filter(|v| *v >= lo - 1e-9 && *v <= hi + 1e-9)
                .map(|v| (v, tick_label(v, step)))
                .collect()
        };
        (xs, ticks)
    } else {
        let xs = XScale {
            kind: XKind::Cat(npts.max(1)),
            left,
            right: W - RIGHT,
        };
        let t =
            c.x.iter()
                .enumerate()
                .map(|(i, l)| (i as f64, l.clone()))
                .collect();
        (xs, t)
    };
    let tick_px = |v: f64| {
        if numeric_x {
            xs.num(v)
        } else {
            xs.cat(v as usize)
        }
    };

    // Tick labels that would overlap are thinned; long category labels
    // are turned 35 degrees.
    let max_label = x_ticks
        .iter()
        .map(|(_, l)| l.chars().count())
        .max()
        .unwrap_or(0) as f64
        * CHAR_W;
    let min_gap = x_ticks
        .windows(2)
        .map(|w| (tick_px(w[1].0) - tick_px(w[0].0)).abs())
        .fold(f64::INFINITY, f64::min);
    let rotate = !numeric_x && max_label + 6.0 > min_gap && x_ticks.len() > 1;
    let mut shown: Vec<bool> = vec![true; x_ticks.len()];
    {
        let need = if rotate { FONT + 2.0 } else { max_label + 8.0 };
        let mut last = f64::NEG_INFINITY;
        for (i, (v, _)) in x_ticks.iter().enumerate() {
            let p = tick_px(*v);
            if p - last < need {
                shown[i] = false;
            } else {
                last = p;
            }
        }
        // The last label (the largest value, or "max") wins over its
        // neighbour.
        if let Some(n) = x_ticks.len().checked_sub(1) {
            if n > 0 && !shown[n] {
                shown[n] = true;
                let pn = tick_px(x_ticks[n].0);
                for i in (0..n).rev() {
                    if shown[i] {
                        if pn - tick_px(x_ticks[i].0) < need {
                            shown[i] = false;
                        }
                        break;
                    }
                }
            }
        }
    }
    let x_label_h = if rotate {
        (max_label * 0.57 + FONT).min(110.0)
    } else {
        FONT + 6.0
    };

    // Legend: series with a name, then band kinds present.
    let mut legend: Vec<String> = c.series.iter().map(|s| s.name.clone()).collect();
    let named = c.series.len() > 1 || c.series.iter().any(|s| !s.name.is_empty());
    if !named {
        legend.clear();
    }
    let mut band_kinds: Vec<BandKind> = Vec::new();
    for b in &ex.bands {
        if !band_kinds.contains(&b.kind) {
            band_kinds.push(b.kind);
        }
    }
    let n_series_legend = legend.len();
    legend.extend(band_kinds.iter().map(|k| k.label().to_string()));
    let (lpos, lrows) = legend_layout(&legend, 8.0);
    let axis_title_y = bottom + 8.0 + x_label_h + FONT + 4.0;
    let legend_top = axis_title_y + 22.0;
    let h = legend_top + lrows as f64 * 20.0 + 6.0;

    let ys = YScale {
        lo: y_lo,
        hi: y_hi,
        log: log_y,
        top: TOP,
        bottom,
    };

    let mut s = String::new();
    let _ = write!(
        s,
        "<svg class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {W} {h}\" role=\"img\" aria-label=\"{}\" font-family=\"system-ui, sans-serif\" font-size=\"{FONT}\">",
        esc(&c.title)
    );
    let _ = write!(s, "<title>{}</title>", esc(&c.title));
    let _ = write!(s, "<rect width=\"{W}\" height=\"{h}\" fill=\"#ffffff\"/>");

    // Bands under everything.
    for b in &ex.bands {
        if !numeric_x {
            break;
        }
        let x0 = xs.num(b.from).clamp(left, W - RIGHT);
        let x1 = xs.num(b.to).clamp(left, W - RIGHT);
        let w = (x1 - x0).max(1.5);
        let _ = write!(
            s,
            "<rect class=\"band\" x=\"{}\" y=\"{TOP}\" width=\"{}\" height=\"{PLOT_H}\" fill=\"{}\" fill-opacity=\"{}\"><title>{}: {} to {}</title></rect>",
            f1(x0),
            f1(w),
            b.kind.fill(),
            b.kind.opacity(),
            b.kind.label(),
            fmt_plain(b.from),
            fmt_plain(b.to)
        );
    }

    // Grid and y axis labels.
    for (v, l) in y_ticks.iter().zip(&y_labels) {
        let y = ys.y(*v);
        let _ = write!(
            s,
            "<line x1=\"{}\" x2=\"{}\" y1=\"{}\" y2=\"{}\" stroke=\"#e3e3e3\" stroke-width=\"1\"/>",
            f1(left),
            f1(W - RIGHT),
            f1(y),
            f1(y)
        );
        let _ = write!(
            s,
            "<text x=\"{}\" y=\"{}\" text-anchor=\"end\" fill=\"#333333\">{}</text>",
            f1(left - 6.0),
            f1(y + FONT * 0.35),
            esc(l)
        );
    }
    // Axes.
    let _ = write!(
        s,
        "<path d=\"M{l} {t}V{b}H{r}\" fill=\"none\" stroke=\"#555555\" stroke-width=\"1\"/>",
        l = f1(left),
        t = f1(TOP),
        b = f1(bottom),
        r = f1(W - RIGHT)
    );
    // x ticks.
    for (i, (v, l)) in x_ticks.iter().enumerate() {
        let x = tick_px(*v);
        if !(left - 0.5..=W - RIGHT + 0.5).contains(&x) {
            continue;
        }
        let _ = write!(
            s,
            "<line x1=\"{}\" x2=\"{}\" y1=\"{}\" y2=\"{}\" stroke=\"#555555\"/>",
            f1(x),
            f1(x),
            f1(bottom),
            f1(bottom + 5.0)
        );
        if !shown[i] {
            continue;
        }
        if rotate {
            let _ = write!(
                s,
                "<text transform=\"translate({} {}) rotate(-35)\" text-anchor=\"end\" fill=\"#333333\">{}</text>",
                f1(x + 3.0),
                f1(bottom + 16.0),
                esc(l)
            );
        } else {
            let _ = write!(
                s,
                "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" fill=\"#333333\">{}</text>",
                f1(x),
                f1(bottom + 8.0 + FONT),
                esc(l)
            );
        }
    }
    // Axis titles.
    let _ = write!(
        s,
        "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" fill=\"#222222\">{}</text>",
        f1((left + W - RIGHT) / 2.0),
        f1(axis_title_y),
        esc(&c.x_label)
    );
    let _ = write!(
        s,
        "<text transform=\"translate({} {}) rotate(-90)\" text-anchor=\"middle\" fill=\"#222222\">{}</text>",
        f1(FONT + 1.0),
        f1((TOP + bottom) / 2.0),
        esc(&c.y_label)
    );

    if vals.is_empty() {
        let _ = write!(
            s,
            "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" fill=\"#777777\">no data</text>",
            f1((left + W - RIGHT) / 2.0),
            f1((TOP + bottom) / 2.0)
        );
    }

    let px = |i: usize| -> Option<f64> {
        if numeric_x {
            c.x_values.get(i).map(|v| xs.num(*v))
        } else {
            Some(xs.cat(i))
        }
    };

    if bar {
        let n = c.series.len().max(1) as f64;
        let group = xs.step() * 0.8;
        let bw = group / n;
        for (si, ser) in c.series.iter().enumerate() {
            for (i, v) in ser.values.iter().enumerate() {
                let Some(v) = v.filter(|v| v.is_finite()) else {
                    continue;
                };
                let x = xs.cat(i) - group / 2.0 + bw * si as f64;
                let (y0, y1) = (ys.y(0.0f64.max(y_lo)), ys.y(v));
                let _ = write!(
                    s,
                    "<rect class=\"bar\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\"><title>{}{}: {}</title></rect>",
                    f1(x + 0.5),
                    f1(y0.min(y1)),
                    f1((bw - 1.0).max(1.0)),
                    f1((y0 - y1).abs().max(0.5)),
                    color(si),
                    esc(&ser.name),
                    esc(&c.x.get(i).map(|l| format!(" {l}")).unwrap_or_default()),
                    esc(&fmt_plain(v))
                );
                if let Some(Some((lo, hi))) = ex.errors.get(si).and_then(|e| e.get(i)) {
                    error_bar(&mut s, x + bw / 2.0, ys.y(*lo), ys.y(*hi));
                }
            }
        }
    } else {
        for (si, ser) in c.series.iter().enumerate() {
            let mut d = String::new();
            let mut pen = false;
            let mut points: Vec<(f64, f64, f64, usize)> = Vec::new();
            for (i, v) in ser.values.iter().enumerate() {
                match (v.filter(|v| v.is_finite() && (!log_y || *v > 0.0)), px(i)) {
                    (Some(v), Some(x)) => {
                        let y = ys.y(v);
                        let _ = write!(d, "{}{} {}", if pen { "L" } else { "M" }, f1(x), f1(y));
                        pen = true;
                        points.push((x, y, v, i));
                    }
                    _ => pen = false,
                }
            }
            if !d.is_empty() {
                let dash_attr = match dash(si) {
                    "" => String::new(),
                    dd => format!(" stroke-dasharray=\"{dd}\""),
                };
                let _ = write!(
                    s,
                    "<path class=\"series\" d=\"{d}\" fill=\"none\" stroke=\"{}\" stroke-width=\"2.5\" stroke-linejoin=\"round\" stroke-linecap=\"round\"{dash_attr}/>",
                    color(si)
                );
            }
            for (i, e) in ex.errors.get(si).into_iter().flatten().enumerate() {
                if let (Some((lo, hi)), Some(x), Some(Some(_))) = (e, px(i), ser.values.get(i)) {
                    error_bar(&mut s, x, ys.y(*lo), ys.y(*hi));
                }
            }
            // Markers with a tooltip when there are few points; a lone
            // point between gaps always gets one, or it would not show.
            let few = points.len() <= 40;
            for (k, (x, y, v, i)) in points.iter().enumerate() {
                let alone = (k == 0 || points[k - 1].3 + 1 != *i)
                    && (k + 1 == points.len() || points[k + 1].3 != i + 1);
                if !few && !alone {
                    continue;
                }
                let _ = write!(
                    s,
                    "<circle cx=\"{}\" cy=\"{}\" r=\"3.5\" fill=\"{}\"><title>{}{}: {}</title></circle>",
                    f1(*x),
                    f1(*y),
                    color(si),
                    esc(&ser.name),
                    esc(&c.x.get(*i).map(|l| format!(" at {l}")).unwrap_or_default()),
                    esc(&fmt_plain(*v))
                );
            }
        }
    }

    // Marks: a dashed vertical line and its label at the top.
    for (mi, m) in c.marks.iter().enumerate() {
        let x = match c.x.iter().position(|l| *l == m.x) {
            Some(i) => px(i),
            None if numeric_x => m.x.parse::<f64>().ok().map(|v| xs.num(v)),
            None => None,
        };
        let Some(x) = x else { continue };
        let _ = write!(
            s,
            "<line class=\"mark\" x1=\"{x}\" x2=\"{x}\" y1=\"{}\" y2=\"{}\" stroke=\"#222222\" stroke-width=\"1.5\" stroke-dasharray=\"5 3\"/>",
            f1(TOP),
            f1(bottom),
            x = f1(x)
        );
        let lw = m.label.chars().count() as f64 * CHAR_W * 0.9;
        let anchor_end = x + lw > W - RIGHT;
        let _ = write!(
            s,
            "<text x=\"{}\" y=\"{}\" text-anchor=\"{}\" font-size=\"{}\" fill=\"#222222\" stroke=\"#ffffff\" stroke-width=\"3\" paint-order=\"stroke\">{}</text>",
            f1(if anchor_end { x - 4.0 } else { x + 4.0 }),
            f1(TOP + FONT + mi as f64 * (FONT + 2.0)),
            if anchor_end { "end" } else { "start" },
            f1(FONT * 0.9),
            esc(&m.label)
        );
    }

    // Legend.
    for (k, (label, (x, row))) in legend.iter().zip(&lpos).enumerate() {
        let y = legend_top + *row as f64 * 20.0;
        if k < n_series_legend {
            let dash_attr = match dash(k) {
                "" => String::new(),
                dd => format!(" stroke-dasharray=\"{dd}\""),
            };
            if bar {
                let _ = write!(
                    s,
                    "<rect x=\"{}\" y=\"{}\" width=\"22\" height=\"11\" fill=\"{}\"/>",
                    f1(*x),
                    f1(y - 10.0),
                    color(k)
                );
            } else {
                let _ = write!(
                    s,
                    "<line x1=\"{}\" x2=\"{}\" y1=\"{}\" y2=\"{}\" stroke=\"{}\" stroke-width=\"2.5\"{dash_attr}/>",
                    f1(*x),
                    f1(x + 22.0),
                    f1(y - 4.5),
                    f1(y - 4.5),
                    color(k)
                );
            }
        } else {
            let kind = band_kinds[k - n_series_legend];
            let _ = write!(
                s,
                "<rect x=\"{}\" y=\"{}\" width=\"22\" height=\"11\" fill=\"{}\" fill-opacity=\"{}\"/>",
                f1(*x),
                f1(y - 10.0),
                kind.fill(),
                kind.opacity()
            );
        }
        let _ = write!(
            s,
            "<text x=\"{}\" y=\"{}\" fill=\"#222222\">{}</text>",
            f1(x + 28.0),
            f1(y),
            esc(label)
        );
    }
    s.push_str("</svg>");
    s
}

fn error_bar(s: &mut String, x: f64, y_lo: f64, y_hi: f64) {
    let _ = write!(
        s,
        "<path class=\"err\" d=\"M{x} {a}V{b}M{l} {a}H{r}M{l} {b}H{r}\" fill=\"none\" stroke=\"#444444\" stroke-width=\"1.2\"/>",
        x = f1(x),
        a = f1(y_lo),
        b = f1(y_hi),
        l = f1(x - 4.0),
        r = f1(x + 4.0)
    );
}

/// A value for a tooltip: up to three decimals, no exponent.
fn fmt_plain(v: f64) -> String {
    crate::tables::fmt_num(v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Mark, Series};

    fn chart(kind: &str) -> Chart {
        Chart {
            kind: kind.into(),
            title: "t".into(),
            x_label: "bs".into(),
            y_label: "MB/s".into(),
            log_x: true,
            x: vec!["4k".into(), "64k".into(), "1m".into()],
            x_values: vec![4096.0, 65536.0, 1048576.0],
            series: vec![Series {
                name: "read".into(),
                values: vec![Some(10.0), None, Some(30.0)],
            }],
            marks: vec![Mark {
                x: "64k".into(),
                label: "flattens".into(),
            }],
        }
    }

    #[test]
    fn ticks_are_round_and_cover_the_range() {
        let (t, step) = linear_ticks(0.0, 937.0, 5.0);
        assert_eq!(step, 200.0);
        assert_eq!(t, vec![0.0, 200.0, 400.0, 600.0, 800.0, 1000.0]);
        assert_eq!(tick_label(250_000.0, 50_000.0), "250k");
        assert_eq!(tick_label(1_500_000.0, 500_000.0), "1.5M");
        assert_eq!(tick_label(0.25, 0.05), "0.25");
    }

    #[test]
    fn log2_x_puts_doublings_at_equal_distances() {
        let xs = XScale {
            kind: XKind::Num {
                lo: 1.0,
                hi: 256.0,
                log: true,
            },
            left: 0.0,
            right: 800.0,
        };
        assert!((xs.num(2.0) - 100.0).abs() < 1e-9);
        assert!((xs.num(16.0) - 400.0).abs() < 1e-9);
    }

    #[test]
    fn a_gap_breaks_the_line_and_marks_and_labels_are_drawn() {
        let svg = render(&chart("line"), &ChartExtras::default());
        // Two separate pieces: the None in the middle lifts the pen.
        let d = svg.split("class=\"series\" d=\"").nth(1).unwrap();
        let d = &d[..d.find('"').unwrap()];
        assert_eq!(d.matches('M').count(), 2, "{d}");
        assert!(!d.contains('L'), "{d}");
        assert!(svg.contains("class=\"mark\""));
        assert!(svg.contains(">flattens</text>"));
        assert!(svg.contains(">64k</text>"));
        assert!(svg.contains("viewBox=\"0 0 600 "));
    }

    #[test]
    fn degenerate_input_draws_no_nan() {
        let mut c = chart("line");
        c.log_x = false;
        c.x = vec!["a".into(), "b".into()];
        c.x_values = vec![2.0, 2.0];
        c.series[0].values = vec![Some(f64::NAN), Some(0.0)];
        c.marks.clear();
        for ex in [
            ChartExtras::default(),
            ChartExtras {
                x_domain: Some((3.0, 3.0)),
                log_y: true,
                ..Default::default()
            },
        ] {
            let svg = render(&c, &ex);
            assert!(!svg.contains("NaN") && !svg.contains("inf"), "{svg}");
        }
        let mut empty = chart("bar");
        empty.series.clear();
        let svg = render(&empty, &ChartExtras::default());
        assert!(
            svg.contains(">no data</text>") && !svg.contains("NaN"),
            "{svg}"
        );
    }

    #[test]
    fn text_is_escaped() {
        let mut c = chart("bar");
        c.title = "<b>&\"".into();
        c.series[0].name = "<script>".into();
        let svg = render(&c, &ChartExtras::default());
        assert!(!svg.contains("<script>"));
        assert!(!svg.contains("<b>"));
        assert!(svg.contains("&lt;script&gt;"));
        assert!(svg.contains("aria-label=\"&lt;b&gt;&amp;&quot;\""));
    }

    #[test]
    fn bands_and_error_bars_are_drawn() {
        let mut c = chart("line");
        c.log_x = false;
        c.x_values = vec![0.5, 1.5, 2.5];
        let ex = ChartExtras {
            errors: vec![vec![Some((8.0, 12.0)), None, Some((25.0, 35.0))]],
            bands: vec![Band {
                from: 1.0,
                to: 2.0,
                kind: BandKind::Stall,
            }],
            ..Default::default()
        };
        let svg = render(&c, &ex);
        assert_eq!(svg.matches("class=\"err\"").count(), 2);
        assert_eq!(svg.matches("class=\"band\"").count(), 1);
        assert!(svg.contains("no completion (stall)"));
    }
}
