//! Text for a terminal: a heading per run, one line per interval while it
//! runs, and a summary table at the end. Functions return strings; the
//! binary decides where they go.

use crate::model::{DirResult, Event, Interval, RunResult, WorkloadResult};
use iolab_raw::errno_name;
use iolab_spec::{format_bytes, DataPattern, Distribution, SyncMode, WorkloadSpec};
use std::fmt::Write;

/// One line describing what is about to run.
pub fn run_heading(spec: &WorkloadSpec) -> String {
    let bs = if spec.bs.len() == 1 {
        format_bytes(spec.bs[0].bytes)
    } else {
        spec.bs
            .iter()
            .map(|b| format!("{}:{}", format_bytes(b.bytes).replace(' ', ""), b.weight))
            .collect::<Vec<_>>()
            .join(",")
    };
    let mut s = format!(
        "{}: {} {} ({}% read, {}% random), qd {} x {} job{}, {}",
        spec.name,
        spec.rw,
        bs,
        spec.read_pct,
        spec.random_pct,
        spec.qd,
        spec.jobs,
        if spec.jobs == 1 { "" } else { "s" },
        spec.engine.name()
    );
    if spec.batch_complete.min(spec.qd) > 1 {
        write!(
            s,
            ", refill per {} completions",
            spec.batch_complete.min(spec.qd)
        )
        .unwrap();
    }
    if spec.direct {
        s.push_str(", O_DIRECT");
    }
    if spec.sync == SyncMode::Dsync {
        s.push_str(", O_DSYNC");
    }
    if spec.distribution != Distribution::Uniform {
        write!(s, ", {}", spec.distribution).unwrap();
    }
    match spec.data {
        DataPattern::Random => {}
        DataPattern::Zero => s.push_str(", zero data"),
        DataPattern::Compress { ratio } => write!(s, ", compress:{ratio}").unwrap(),
        DataPattern::Pattern { bytes } => write!(s, ", pattern:{}", bytes.to_hex()).unwrap(),
    }
    if let Some(r) = spec.rate_iops {
        write!(s, ", rate {r} IOPS").unwrap();
        if spec.arrival == iolab_spec::Arrival::Poisson {
            s.push_str(" (poisson)");
        }
    }
    extras_heading(&mut s, spec);
    if spec.hit_area > 0 {
        write!(
            s,
            ", hit area {} ({}% of reads, {}% of writes)",
            format_bytes(spec.hit_area),
            spec.read_hit_pct,
            spec.write_hit_pct
        )
        .unwrap();
    }
    blockx_heading(&mut s, spec);
    prio_heading(&mut s, spec);
    let targets: Vec<&str> = spec.targets.iter().map(|t| t.path.as_str()).collect();
    write!(s, ", on {}", targets.join(", ")).unwrap();
    s
}

/// The heading's part for think time, syncs, cache and clean-up keys and
/// the steady-state criterion.
fn extras_heading(s: &mut String, spec: &WorkloadSpec) {
    if spec.think_s > 0.0 && spec.fs.is_none() {
        let t = iolab_spec::format_duration_exact(spec.think_s);
        match spec.think_blocks {
            1 => write!(s, ", think {t} after each I/O").unwrap(),
            n => write!(s, ", think {t} every {n} I/Os").unwrap(),
        }
    }
    if spec.fdatasync_every > 0 {
        write!(s, ", fdatasync every {} writes", spec.fdatasync_every).unwrap();
    }
    for (on, what) in [
        (spec.end_fsync, ", fsync at the end"),
        (spec.invalidate, ", cache dropped first"),
        (spec.unlink, ", files removed at the end"),
        (spec.fill, ", until full"),
        (spec.atomic, ", atomic writes"),
    ] {
        if on {
            s.push_str(what);
        }
    }
    if let Some(st) = &spec.steady {
        let unit = if st.percent { "%" } else { "" };
        write!(
            s,
            ", until steady ({}:{}{unit} over {} s)",
            st.criterion(),
            st.limit,
            st.duration_s
        )
        .unwrap();
    }
}

/// The heading's part for per-direction sizes, holes, jumps and
/// per-worker regions, where set.
fn blockx_heading(s: &mut String, spec: &WorkloadSpec) {
    let mix = |bs: &[iolab_spec::BsWeight]| match bs {
        [one] => format_bytes(one.bytes).replace(' ', ""),
        _ => bs
            .iter()
            .map(|b| format!("{}:{}", format_bytes(b.bytes).replace(' ', ""), b.weight))
            .collect::<Vec<_>>()
            .join(","),
    };
    if let Some(b) = &spec.bs_write {
        write!(s, ", writes {}", mix(b)).unwrap();
    }
    if let Some(b) = &spec.bs_trim {
        write!(s, ", trims {}", mix(b)).unwrap();
    }
    if spec.hole > 0 {
        write!(s, ", hole {}", format_bytes(spec.hole as u64)).unwrap();
    } else if spec.hole < 0 {
        let back = format_bytes(spec.hole.unsigned_abs());
        write!(
            s,
            ", hole -{back} (each I/O starts bs - {back} after the last)"
        )
        .unwrap();
    }
    if spec.random_every > 1 {
        write!(s, ", a jump every {} I/Os", spec.random_every).unwrap();
    }
    if spec.offset_increment > 0 {
        write!(
            s,
            ", worker regions {} apart",
            format_bytes(spec.offset_increment)
        )
        .unwrap();
    }
}

/// The heading's part for I/O priorities (fio prioclass/prio, cmdprio).
fn prio_heading(s: &mut String, spec: &WorkloadSpec) {
    let name = |p: u16| {
        let class = ["none", "rt", "be", "idle"][(p >> 13) as usize & 3];
        match (p >> 3) & 0x3ff {
            0 => format!("{class}/{}", p & 7),
            hint => format!("{class}/{} hint {hint}", p & 7),
        }
    };
    if spec.ioprio != 0 {
        write!(s, ", priority {}", name(spec.ioprio)).unwrap();
    }
    let Some(c) = &spec.cmdprio else { return };
    for (dir, list) in [("reads", &c.read), ("writes", &c.write)] {
        for b in list {
            let size = match b.bs {
                0 => String::new(),
                n => format!(" of {}", format_bytes(n).replace(' ', "")),
            };
            for p in &b.prios {
                write!(s, ", {}% of {dir}{size} at {}", p.pct, name(p.ioprio)).unwrap();
            }
        }
    }
}

/// Column heads for interval lines.
pub fn interval_header() -> String {
    format!(
        "{:>8} {:>10} {:>9} {:>10} {:>10} {:>8} {:>6}",
        "time", "IOPS", "MB/s", "mean us", "p99 us", "r/w %", "CPU %"
    )
}

/// Seconds of a run's length: a tenth of a second from 1 s on, three
/// decimals below (a run that ended on `--ops` after 27 ms says 0.027,
/// not 0.0).
pub fn fmt_secs(s: f64) -> String {
    if s < 0.9995 {
        format!("{s:.3}")
    } else {
        format!("{s:.1}")
    }
}

fn fmt_us(v: f64) -> String {
    if v >= 100_000.0 {
        format!("{:.0}", v)
    } else if v >= 100.0 {
        format!("{:.1}", v)
    } else {
        format!("{:.2}", v)
    }
}

/// One line per interval, vdbench style, in the columns of
/// [`interval_header_of`] given the same `fs`: a block run's (read and
/// write shares) or, for a run with a file-system workload, every
/// operation together. The run decides, not the interval: a read-only
/// mix has no operation but reads, and still gets the header's columns.
pub fn interval_line(iv: &Interval, fs: bool) -> String {
    let mut line = interval_cols(iv, fs);
    line.push_str(&interval_flags(iv));
    line
}

/// Column heads for the interval lines of a file-system workload: every
/// operation together instead of read and write shares.
pub fn interval_header_fs() -> String {
    format!(
        "{:>8} {:>10} {:>9} {:>10} {:>10} {:>6}",
        "time", "ops/s", "MB/s", "mean us", "p99 us", "CPU %"
    )
}

fn cpu_cell(iv: &Interval) -> String {
    iv.cpu
        .as_ref()
        .map(|c| format!("{:.1}", c.user_pct + c.sys_pct))
        .unwrap_or_else(|| "-".into())
}

/// The figures of a file-system interval line: every operation (`all`).
fn interval_cols_fs(iv: &Interval, a: &DirResult) -> String {
    let tp = if iv.end_s - iv.start_s < 0.0995 { 3 } else { 1 };
    format!(
        "{:>7.tp$}s {:>10.1} {:>9.1} {:>10} {:>10} {:>6}",
        iv.end_s,
        a.iops,
        a.mbps,
        fmt_us(a.lat_us.mean),
        fmt_us(a.lat_us.p99),
        cpu_cell(iv)
    )
}

/// The figures of an interval line, without its flags: with `fs`, every
/// operation together (`all`; `total` when the interval held only reads
/// and writes, which is the same figure).
fn interval_cols(iv: &Interval, fs: bool) -> String {
    if fs {
        return interval_cols_fs(iv, iv.all.as_ref().unwrap_or(&iv.total));
    }
    let t = &iv.total;
    let rpct = if t.ops > 0 {
        iv.read.ops as f64 * 100.0 / t.ops as f64
    } else {
        0.0
    };
    let cpu = cpu_cell(iv);
    // Intervals shorter than 0.1 s (--interval down to 1ms) need ms.
    let tp = if iv.end_s - iv.start_s < 0.0995 { 3 } else { 1 };
    format!(
        "{:>7.tp$}s {:>10.0} {:>9.1} {:>10} {:>10} {:>3.0}/{:<4.0} {:>6}",
        iv.end_s,
        t.iops,
        t.mbps,
        fmt_us(t.lat_us.mean),
        fmt_us(t.lat_us.p99),
        rpct,
        if t.ops > 0 { 100.0 - rpct } else { 0.0 },
        cpu
    )
}

/// What an interval line says after its figures: warm-up, no completions,
/// errors, blocked workers.
fn interval_flags(iv: &Interval) -> String {
    let mut line = String::new();
    if iv.warmup {
        line.push_str("  warm-up");
    }
    if iv.total.ops == 0 && iv.all.as_ref().is_none_or(|a| a.ops == 0) && !iv.warmup {
        line.push_str("  NO COMPLETIONS");
    }
    if iv.errors > 0 {
        write!(line, "  {} errors", iv.errors).unwrap();
    }
    if iv.workers_late > 0 {
        write!(line, "  ({} workers blocked)", iv.workers_late).unwrap();
    }
    line
}

/// With more workloads than this, an interval is one total line with a
/// short column per workload instead of a line per workload.
pub const COMPACT_AFTER: usize = 4;

/// Width of the workload column of interval lines (names are cut to it).
const NAME_W: usize = 12;
/// Width of a workload's column in the compact form.
const COL_W: usize = 9;

fn cut(name: &str, w: usize) -> String {
    if name.chars().count() <= w {
        name.to_string()
    } else {
        let mut s: String = name.chars().take(w - 1).collect();
        s.push('~');
        s
    }
}

/// Column heads for the interval lines of a run of `names` workloads:
/// [`interval_header`] for one; a workload column first for a few; the
/// total's columns then one IOPS column per workload when there are more
/// than [`COMPACT_AFTER`].
pub fn interval_header_for(names: &[&str]) -> String {
    interval_header_of(names, false)
}

/// [`interval_header_for`] of a run with a file-system workload (`fs`):
/// the columns of [`interval_header_fs`].
pub fn interval_header_of(names: &[&str], fs: bool) -> String {
    let head = if fs {
        interval_header_fs()
    } else {
        interval_header()
    };
    match names.len() {
        0 | 1 => head,
        n if n <= COMPACT_AFTER => format!("{:<NAME_W$} {head}", "workload"),
        _ => {
            let mut h = format!("{head}  |");
            for n in names {
                write!(h, " {:>COL_W$}", cut(n, COL_W)).unwrap();
            }
            h.push_str("  (IOPS per workload)");
            h
        }
    }
}

/// The lines of one interval of a run: the total's line alone for a run
/// of one workload (or none); for a few workloads, a line per workload
/// (`-` for one not running in that interval) and a total line; for more
/// than [`COMPACT_AFTER`], the total line with each workload's IOPS. `fs`
/// as for [`interval_header_of`]: every line has the header's columns.
pub fn interval_lines(
    total: &Interval,
    workloads: &[(&str, Option<&Interval>)],
    fs: bool,
) -> Vec<String> {
    match workloads.len() {
        0 | 1 => vec![interval_line(total, fs)],
        n if n <= COMPACT_AFTER => {
            let mut out: Vec<String> = workloads
                .iter()
                .map(|(name, iv)| match iv {
                    Some(iv) => format!("{:<NAME_W$} {}", cut(name, NAME_W), interval_line(iv, fs)),
                    None => format!(
                        "{:<NAME_W$} {:>7.1}s {:>10}",
                        cut(name, NAME_W),
                        total.end_s,
                        "-"
                    ),
                })
                .collect();
            out.push(format!("{:<NAME_W$} {}", "total", interval_line(total, fs)));
            out
        }
        _ => {
            let mut line = format!("{}  |", interval_cols(total, fs));
            for (_, iv) in workloads {
                match iv {
                    Some(iv) => {
                        let ops_s = iv.all.as_ref().map_or(iv.total.iops, |a| a.iops);
                        write!(line, " {:>COL_W$.0}", ops_s).unwrap()
                    }
                    None => write!(line, " {:>COL_W$}", "-").unwrap(),
                }
            }
            line.push_str(&interval_flags(total));
            vec![line]
        }
    }
}

/// Column heads for the interval lines of a multi-host run: a host
/// column, then [`interval_header`] (or [`interval_header_fs`]).
pub fn host_interval_header(fs: bool) -> String {
    let head = if fs {
        interval_header_fs()
    } else {
        interval_header()
    };
    format!("{:<NAME_W$} {head}", "host")
}

/// The lines of one interval of a multi-host run: a line per host (its
/// own interval; `-` for a host that sent none for it, a lost one) and
/// the total of every host, under [`host_interval_header`] given the
/// same `fs`.
pub fn host_interval_lines(
    total: &Interval,
    hosts: &[(&str, Option<&Interval>)],
    fs: bool,
) -> Vec<String> {
    let mut out: Vec<String> = hosts
        .iter()
        .map(|(name, iv)| match iv {
            Some(iv) => format!("{:<NAME_W$} {}", cut(name, NAME_W), interval_line(iv, fs)),
            None => format!(
                "{:<NAME_W$} {:>7.1}s {:>10}",
                cut(name, NAME_W),
                total.end_s,
                "-"
            ),
        })
        .collect();
    out.push(format!("{:<NAME_W$} {}", "total", interval_line(total, fs)));
    out
}

/// The per-host part of a multi-host run's summary: a line per host
/// (IOPS, MB/s, mean and p99 latency, errors, when it was lost) and the
/// start skew line. Empty for a run on one host.
pub fn hosts_summary(run: &RunResult) -> String {
    let mut s = String::new();
    if run.hosts.is_empty() {
        return s;
    }
    let w = run
        .hosts
        .iter()
        .map(|h| h.host.chars().count())
        .max()
        .unwrap_or(0)
        .max(4);
    writeln!(
        s,
        "{:<w$} {:>10} {:>9} {:>10} {:>10} {:>7}  lost",
        "host", "IOPS", "MB/s", "mean us", "p99 us", "errors"
    )
    .unwrap();
    for h in &run.hosts {
        let t = &h.run.summary.total;
        let lost = match &h.lost {
            Some(l) => format!("at {:.1} s: {}", l.at_s, l.reason),
            None => "-".into(),
        };
        writeln!(
            s,
            "{:<w$} {:>10.0} {:>9.1} {:>10} {:>10} {:>7}  {lost}",
            h.host,
            t.iops,
            t.mbps,
            fmt_us(t.lat_us.mean),
            fmt_us(t.lat_us.p99),
            h.run.errors_total
        )
        .unwrap();
    }
    if let Some(k) = crate::tables::skew_text(run) {
        writeln!(s, "{k}").unwrap();
    }
    s
}

/// An event in the interval stream, at its time:
/// `   12.345 s  mark: controller A failed`.
pub fn event_line(e: &Event) -> String {
    format!("{:>9.3} s  {}: {}", e.time_s, e.source, e.label)
}

/// A run's events in time order, to find the last one before a time by
/// binary search (a stall list against many marks stays linear).
pub struct EventIndex<'a> {
    sorted: Vec<&'a Event>,
}

impl<'a> EventIndex<'a> {
    pub fn new(events: &'a [Event]) -> EventIndex<'a> {
        let mut sorted: Vec<&Event> = events.iter().collect();
        sorted.sort_by(|a, b| a.time_s.total_cmp(&b.time_s));
        EventIndex { sorted }
    }

    /// The last event at or before `t` (seconds of run time).
    pub fn before(&self, t: f64) -> Option<&'a Event> {
        let n = self.sorted.partition_point(|e| e.time_s <= t);
        n.checked_sub(1).map(|i| self.sorted[i])
    }
}

/// One stall of the stall list, with the nearest mark before it:
/// `I/O paused 1.23 s, 0.4 s after mark 'controller A failed'`.
pub fn stall_line(st: &crate::model::StallEvent, events: &EventIndex) -> String {
    let mut s = format!(
        "I/O paused {:.2} s (no completion from {:.3} s to {:.3} s)",
        st.duration_ms / 1e3,
        st.start_s,
        st.end_s
    );
    if let Some(e) = events.before(st.start_s) {
        write!(
            s,
            ", {:.1} s after {} '{}'",
            st.start_s - e.time_s,
            e.source,
            e.label
        )
        .unwrap();
    }
    s
}

fn dir_row(name: &str, d: &DirResult) -> String {
    let l = &d.lat_us;
    format!(
        "{:<6} {:>11} {:>10.0} {:>9.1} {:>9.1} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9}",
        name,
        d.ops,
        d.iops,
        d.mbps,
        d.mibps,
        fmt_us(l.min),
        fmt_us(l.mean),
        fmt_us(l.p50),
        fmt_us(l.p90),
        fmt_us(l.p99),
        fmt_us(l.p99_9),
        fmt_us(l.p99_99),
        fmt_us(l.max)
    )
}

/// The figure table (read, write, total), the service-time line and the
/// rate line of a summary.
fn figures(s: &mut String, s_: &crate::model::Summary, reads: bool, writes: bool) {
    let c = &crate::tables::FIGURE_COLUMNS;
    writeln!(
        s,
        "{:<6} {:>11} {:>10} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9}",
        c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8], c[9], c[10], c[11], c[12]
    )
    .unwrap();
    if reads {
        writeln!(s, "{}", dir_row("read", &s_.read)).unwrap();
    }
    if writes {
        writeln!(s, "{}", dir_row("write", &s_.write)).unwrap();
    }
    if let Some(t) = &s_.trim {
        writeln!(s, "{}", dir_row("trim", t)).unwrap();
    }
    writeln!(s, "{}", dir_row("total", &s_.total)).unwrap();
    for (name, d) in &s_.ops {
        writeln!(s, "{}", dir_row(name, d)).unwrap();
    }
    if let Some(svc) = s_.total.svc_lat_us {
        writeln!(
            s,
            "service time (submission to completion): mean {} us, p99 {} us, max {} us; the table shows response time from each I/O's scheduled start",
            fmt_us(svc.mean),
            fmt_us(svc.p99),
            fmt_us(svc.max)
        )
        .unwrap();
    }
    if let Some(r) = &s_.rate {
        writeln!(
            s,
            "rate: requested {:.0} IOPS, achieved {:.0} IOPS ({:.1}%)",
            r.requested_iops,
            r.achieved_iops,
            if r.requested_iops > 0.0 {
                r.achieved_iops / r.requested_iops * 100.0
            } else {
                0.0
            }
        )
        .unwrap();
    }
}

/// The table of one workload of a run of several: when it ran and its
/// figures over its own measured time.
pub fn workload_summary(run: &str, w: &WorkloadResult) -> String {
    let mut s = String::new();
    writeln!(
        s,
        "{run}/{}: {} s measured, active from {:.3} s to {:.3} s{}",
        w.name,
        fmt_secs(w.measured_s),
        w.start_s,
        w.end_s,
        match &w.incomplete_reason {
            Some(r) => format!("  [INCOMPLETE: {r}]"),
            None => String::new(),
        }
    )
    .unwrap();
    let sm = &w.summary;
    if w.io_summary.is_some() {
        s.push_str(&crate::fs::text::fs_summary(w));
    } else {
        figures(
            &mut s,
            sm,
            sm.read.ops > 0 || w.spec.read_pct > 0,
            sm.write.ops > 0 || w.spec.data_writes(),
        );
    }
    if w.errors_total > 0 {
        writeln!(s, "errors: {}", w.errors_total).unwrap();
    }
    if let Some(l) = steady_line(w) {
        writeln!(s, "{l}").unwrap();
    }
    s
}

/// Samples in a steady-state window: one a second (whole intervals), or
/// one an interval when intervals are longer (as the run core takes them).
fn steady_window(interval_s: f64, duration_s: f64) -> usize {
    let iv = interval_s.max(iolab_spec::MIN_INTERVAL_S);
    let sample_s = (1.0 / iv).round().max(1.0) * iv;
    ((duration_s / sample_s).round() as usize).max(2)
}

/// Whether a workload with a steady-state criterion (fio `ss`) levelled:
/// "steady state reached after 12.0 s (iops_slope 0.08% < 0.1%)".
pub fn steady_line(w: &WorkloadResult) -> Option<String> {
    let st = w.steady_state.as_ref()?;
    let unit = if st.percent { "%" } else { "" };
    let fig = |v: f64| {
        let t = if v.abs() >= 100.0 {
            format!("{v:.0}")
        } else if v.abs() >= 1.0 {
            format!("{v:.2}")
        } else {
            format!("{v:.3}")
        };
        format!("{t}{unit}")
    };
    let judged = |op: &str| format!("{} {} {op} {}", st.criterion, fig(st.value), fig(st.limit));
    Some(match (st.reached, st.reached_at_s) {
        (true, Some(t)) => format!("steady state reached after {t:.1} s ({})", judged("<")),
        (true, None) => format!("steady state reached ({})", judged("<")),
        (false, _) if st.samples_iops.len() < steady_window(w.spec.interval_s, st.duration_s) => {
            format!(
                "steady state not reached ({} {}: no full {} s window was sampled)",
                st.criterion,
                fig(st.limit),
                st.duration_s
            )
        }
        (false, _) => format!("steady state not reached ({})", judged(">=")),
    })
}

/// A run's figure table and CPU line; for a run of one file-system
/// workload its per-operation table and IO summary instead (which gives
/// the CPU per operation).
fn run_figures(s: &mut String, run: &RunResult) {
    let s_ = &run.summary;
    let per_io = match run.workloads.as_slice() {
        [w] if w.io_summary.is_some() => {
            s.push_str(&crate::fs::text::fs_summary(w));
            String::new()
        }
        _ => {
            figures(s, s_, run.shows_reads(), run.shows_writes());
            format!("; {:.2} us of CPU per I/O", s_.cpu.usec_per_io)
        }
    };
    writeln!(
        s,
        "CPU: user {:.1}%, system {:.1}% of one CPU{per_io}",
        s_.cpu.user_pct, s_.cpu.sys_pct
    )
    .unwrap();
}

/// The summary table of one run.
pub fn summary(run: &RunResult) -> String {
    let mut s = String::new();
    if run.workloads.len() > 1 {
        for w in &run.workloads {
            s.push_str(&workload_summary(&run.name, w));
        }
    }
    writeln!(
        s,
        "{}{}: {} s measured{}{}",
        run.name,
        match (run.hosts.len(), run.workloads.len()) {
            (0 | 1, 0 | 1) => String::new(),
            (0 | 1, n) => format!(" (total of {n} workloads)"),
            (h, 0 | 1) => format!(" (total of {h} hosts)"),
            (h, n) => format!(" (total of {n} workloads on {h} hosts)"),
        },
        fmt_secs(run.measured_s),
        if run.warmup_s > 0.0 {
            format!(" after {:.1} s warm-up", run.warmup_s)
        } else {
            String::new()
        },
        match &run.incomplete_reason {
            Some(r) => format!("  [INCOMPLETE: {r}]"),
            None => String::new(),
        }
    )
    .unwrap();
    // A run with no workload (a monitor) has device figures only.
    let workload = run.spec.is_some() || !run.workloads.is_empty();
    if workload {
        run_figures(&mut s, run);
        if let [w] = run.workloads.as_slice() {
            if let Some(l) = steady_line(w) {
                writeln!(s, "{l}").unwrap();
            }
        }
    }
    let st = &run.stalls;
    if workload && !run.intervals.is_empty() {
        let mut stall = if st.provisional {
            "stalls: longest gap not known (gaps are analysed when a run ends)".to_string()
        } else {
            format!(
                "stalls: longest gap with no completion {}{:.1} ms",
                if st.exact { "" } else { "at most " },
                st.longest_gap_ms
            )
        };
        if let (Some(a), Some(b)) = (st.longest_gap_start_s, st.longest_gap_end_s) {
            write!(stall, " (from {a:.3} s to {b:.3} s)").unwrap();
        }
        if st.zero_intervals.is_empty() {
            stall.push_str("; every interval had completions");
        } else {
            let list: Vec<String> = st.zero_intervals.iter().map(|z| z.to_string()).collect();
            write!(stall, "; intervals with no completion: {}", list.join(", ")).unwrap();
        }
        writeln!(s, "{stall}").unwrap();
        let marks = EventIndex::new(&run.events);
        for e in &st.events {
            writeln!(s, "  stall: {}", stall_line(e, &marks)).unwrap();
        }
    }
    if !run.events.is_empty() {
        writeln!(s, "events:").unwrap();
        for e in &run.events {
            writeln!(s, "{}", event_line(e)).unwrap();
        }
    }
    if run.errors_total > 0 {
        let counts: Vec<String> = run
            .error_counts
            .iter()
            .map(|c| format!("{} x {}", c.count, c.error))
            .collect();
        writeln!(s, "errors: {} ({})", run.errors_total, counts.join(", ")).unwrap();
        for e in run.errors.iter().take(5) {
            writeln!(s, "  {}", error_line(e)).unwrap();
        }
        if run.errors_total > 5 {
            writeln!(
                s,
                "  ... {} more (the result document lists the first {} with offsets; all are counted above)",
                run.errors_total - 5,
                run.errors.len()
            )
            .unwrap();
        }
    }
    if let Some(v) = &run.verify {
        s.push_str(&verify_summary(v));
    }
    s.push_str(&hosts_summary(run));
    if let Some(d) = &run.devices {
        s.push_str(&device_summary(d));
    }
    for a in &run.advice {
        writeln!(
            s,
            "advice [{}] {} on {}: {}",
            a.severity.as_str(),
            a.code,
            a.device,
            a.text()
        )
        .unwrap();
    }
    s
}

/// The heads of the device columns (`iostat -x`'s, with units): the
/// device summary's and `iolab monitor`'s lines share them.
pub fn device_head() -> String {
    let c = &crate::tables::DEVICE_COLUMNS;
    format!(
        "{:<10} {:>9} {:>9} {:>10} {:>10} {:>11} {:>11} {:>10} {:>10} {:>7} {:>6}",
        c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8], c[9], c[10]
    )
}

/// One device's row under [`device_head`].
pub fn device_cells(r: &iolab_devices::DeviceRow) -> String {
    let t = &r.stats;
    format!(
        "{:<10} {:>9.1} {:>9.1} {:>10.1} {:>10.1} {:>11.1} {:>11.1} {:>10.2} {:>10.2} {:>7.2} {:>6.1}",
        r.device,
        t.r_s,
        t.w_s,
        t.rkb_s,
        t.wkb_s,
        t.rareq_sz,
        t.wareq_sz,
        t.r_await,
        t.w_await,
        t.aqu_sz,
        t.util_pct
    )
}

/// The devices under the targets over the measured time, as `iostat -x`
/// shows them, and what iolab's counts against theirs mean.
pub fn device_summary(d: &crate::model::DeviceStats) -> String {
    let mut s = String::new();
    if d.summary.is_empty() {
        return s;
    }
    writeln!(s, "{}", device_head()).unwrap();
    for r in &d.summary {
        writeln!(s, "{}", device_cells(r)).unwrap();
    }
    for n in &d.count_notes {
        writeln!(s, "  {} ({}): {}", n.device, n.code, n.text).unwrap();
    }
    s
}

/// The data validation lines of a summary (runs and `iolab verify`).
pub fn verify_summary(v: &crate::model::VerifyResult) -> String {
    let mut s = String::new();
    let mut line = format!(
        "verify: {} blocks of {} bytes checked, {} finding{}",
        v.blocks_checked,
        v.block_size,
        v.findings_total,
        if v.findings_total == 1 { "" } else { "s" }
    );
    if v.findings_total > 0 {
        let by: Vec<String> = v
            .by_class
            .iter()
            .filter(|(_, &n)| n > 0)
            .map(|(k, n)| format!("{n} {k}"))
            .collect();
        write!(line, " ({})", by.join(", ")).unwrap();
    }
    if v.findings_repeated > 0 {
        write!(
            line,
            "; {} more reads of places already reported (not counted again)",
            v.findings_repeated
        )
        .unwrap();
    }
    if v.blocks_unwritten > 0 {
        write!(
            line,
            "; {} never-written blocks read (not checked)",
            v.blocks_unwritten
        )
        .unwrap();
    }
    if v.reads_after > 0 {
        write!(line, "; {} writes re-read", v.reads_after).unwrap();
    }
    if v.blocks_old_accepted > 0 {
        write!(
            line,
            "; {} blocks in flight at the crash held their old data (allowed)",
            v.blocks_old_accepted
        )
        .unwrap();
    }
    writeln!(s, "{line}").unwrap();
    if let Some(j) = &v.journal {
        let mut jl = format!(
            "journal: {j} ({}series {})",
            if v.journal_resumed {
                "carried on, "
            } else {
                ""
            },
            v.series
        );
        if v.journal_sync {
            write!(
                jl,
                "; {} syncs before writes took {:.1} ms",
                v.journal_syncs, v.journal_sync_ms
            )
            .unwrap();
        }
        writeln!(s, "{jl}").unwrap();
    }
    for f in v.findings.iter().take(10) {
        writeln!(s, "  {}", finding_line(f)).unwrap();
    }
    if v.findings_total > 10 {
        writeln!(
            s,
            "  ... {} more findings (see the result document and the findings log)",
            v.findings_total - 10
        )
        .unwrap();
    }
    if v.stopped_on_max_errors {
        writeln!(
            s,
            "  stopped after {} findings (--max-errors)",
            v.findings_total
        )
        .unwrap();
    }
    s
}

/// One error record on one line: path and operation, the offset and
/// length for an operation that moves data (open, stat, fsync, ... have
/// none), the time and the errno.
pub fn error_line(e: &crate::model::IoError) -> String {
    let at = if iolab_raw::op_has_range(&e.op) {
        format!(" at offset {} ({} bytes)", e.offset, e.len)
    } else {
        String::new()
    };
    format!(
        "{} {}{at} at {:.3} s: {}",
        e.target,
        e.op,
        e.time_s,
        errno_name(e.errno)
    )
}

/// One finding on one line: a block workload's sectors numbered within
/// the block, a file workload's within the file.
pub fn finding_line(f: &iolab_verify::Finding) -> String {
    let place = match (f.file_sector_first, f.file_sector_last) {
        (Some(a), Some(b)) => format!("{} bytes, sectors {a}-{b} of the file", f.block_size),
        _ => format!(
            "block of {} bytes, sectors {}-{}",
            f.block_size, f.sector_first, f.sector_last
        ),
    };
    format!(
        "{} {} at offset {} ({place}): {}",
        f.class.name().to_uppercase(),
        f.target,
        f.offset,
        f.summary
    )
}

/// The sectors of a finding for the findings log: within the file for a
/// file workload's.
fn log_sectors(f: &iolab_verify::Finding) -> String {
    match (f.file_sector_first, f.file_sector_last) {
        (Some(a), Some(b)) => format!("file_sectors={a}-{b}"),
        _ => format!("sectors={}-{}", f.sector_first, f.sector_last),
    }
}

/// A finding as the findings log records it: one line, then the hex
/// window of expected and found bytes.
pub fn finding_log_entry(f: &iolab_verify::Finding) -> String {
    let mut s = format!(
        "{} {} offset={} block_size={} {} bad_sectors={} expected_gen={} found_gen={} found_offset={} written_at={} first_bad_byte={} detected_by={}{}\n  {}\n",
        f.class.name(),
        f.target,
        f.offset,
        f.block_size,
        log_sectors(f),
        f.sectors_bad,
        f.expected_gen,
        f.found_gen.map_or("-".into(), |g| g.to_string()),
        f.found_offset.map_or("-".into(), |g| g.to_string()),
        f.found_written_at.as_deref().unwrap_or("-"),
        f.first_bad_byte.map_or("-".into(), |g| g.to_string()),
        f.detected_by,
        f.time_s.map_or(String::new(), |t| format!(" time_s={t:.3}")),
        f.summary
    );
    if let Some(h) = &f.hex {
        write!(
            s,
            "  expected @{:>5}: {}\n  found    @{:>5}: {}\n",
            h.offset, h.expected, h.offset, h.found
        )
        .unwrap();
    }
    s
}

#[cfg(test)]
mod error_and_finding_line_tests {
    use super::*;
    use crate::model::IoError;

    fn err(op: &str, offset: u64, len: u32) -> IoError {
        IoError {
            target: "/mnt/t/a/d0/f3".into(),
            offset,
            len,
            op: op.into(),
            errno: libc::ENOENT,
            error: errno_name(libc::ENOENT),
            time_s: 0.25,
            worker: 0,
        }
    }

    #[test]
    fn an_error_without_an_offset_names_the_operation_and_path_only() {
        let l = error_line(&err("stat", 0, 0));
        assert!(
            l.starts_with("/mnt/t/a/d0/f3 stat at 0.250 s: ENOENT"),
            "{l}"
        );
        assert!(!l.contains("offset"), "{l}");
        let l = error_line(&err("read", 4096, 4096));
        assert!(
            l.contains("read at offset 4096 (4096 bytes) at 0.250 s"),
            "{l}"
        );
    }

    #[test]
    fn a_file_findings_sectors_are_numbered_in_the_file() {
        let f = iolab_verify::Finding {
            class: iolab_verify::Class::Corrupt,
            target: "/mnt/t/a/d0/f1".into(),
            offset: 2560,
            block_size: 512,
            sector_first: 0,
            sector_last: 0,
            sectors_bad: 1,
            file_sector_first: Some(5),
            file_sector_last: Some(5),
            expected_gen: 1,
            found_gen: None,
            found_offset: None,
            found_target: None,
            found_series: None,
            found_written_at: None,
            first_bad_byte: Some(440),
            hex: None,
            detected_by: "read".into(),
            time_s: None,
            summary: "corrupt".into(),
        };
        let l = finding_line(&f);
        assert!(
            l.contains("at offset 2560 (512 bytes, sectors 5-5 of the file)"),
            "{l}"
        );
        assert!(finding_log_entry(&f).contains(" file_sectors=5-5 "));
        let block = iolab_verify::Finding {
            file_sector_first: None,
            file_sector_last: None,
            ..f
        };
        assert!(finding_line(&block).contains("(block of 512 bytes, sectors 0-0)"));
    }
}

/// The summary table of a plan, one row per point: with repetitions each
/// figure as mean ± standard deviation, the IOPS min-max and coefficient
/// of variation (a large spread is marked); with one run per point the
/// figures themselves.
pub fn points_table(doc: &crate::model::ResultDoc) -> String {
    let mut s = String::new();
    let axes: Vec<&str> = doc
        .plan
        .as_ref()
        .map(|p| p.axes.iter().map(|a| a.name.as_str()).collect())
        .unwrap_or_default();
    let pw = doc
        .points
        .iter()
        .map(|p| point_label(p, &axes).chars().count())
        .max()
        .unwrap_or(5)
        .max(5);
    let repeats = doc.points.iter().any(|p| p.iops.n > 1);
    if !repeats {
        let _ = writeln!(
            s,
            "{:<pw$}  {:>10}  {:>9}  {:>10}  {:>10}",
            "point", "IOPS", "MB/s", "mean us", "p99 us"
        );
        for p in &doc.points {
            let _ = writeln!(
                s,
                "{:<pw$}  {:>10.0}  {:>9.1}  {:>10}  {:>10}",
                point_label(p, &axes),
                p.iops.mean,
                p.mbps.mean,
                fmt_us(p.lat_mean_us.mean),
                fmt_us(p.lat_p99_us.mean)
            );
        }
        return s.trim_end().to_string();
    }
    let _ = writeln!(
        s,
        "{:<pw$}  {:>3}  {:>22}  {:>21}  {:>9}  {:>19}  {:>19}",
        "point",
        "n",
        "IOPS mean ± sd",
        "IOPS min - max",
        "IOPS CV %",
        "MB/s mean ± sd",
        "p99 us mean ± sd"
    );
    for p in &doc.points {
        let _ = writeln!(
            s,
            "{:<pw$}  {:>3}  {:>22}  {:>21}  {:>9.1}  {:>19}  {:>19}{}",
            point_label(p, &axes),
            p.iops.n,
            format!("{:.0} ± {:.0}", p.iops.mean, p.iops.sd),
            format!("{:.0} - {:.0}", p.iops.min, p.iops.max),
            p.iops.cv_pct,
            format!("{:.1} ± {:.1}", p.mbps.mean, p.mbps.sd),
            format!(
                "{} ± {}",
                fmt_us(p.lat_p99_us.mean),
                fmt_us(p.lat_p99_us.sd)
            ),
            if p.spread_large { "  spread large" } else { "" }
        );
    }
    s.trim_end().to_string()
}

/// `name bs=16k qd=4`, the swept values in plan order.
pub fn point_label(p: &crate::model::PointSummary, axes: &[&str]) -> String {
    let mut l = p.name.clone();
    for a in axes {
        if let Some(v) = p.params.get(*a) {
            let _ = write!(l, " {a}={v}");
        }
    }
    l
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testraw;

    /// The numbers of a line, in order (`-` and words skipped).
    fn numbers(line: &str) -> Vec<f64> {
        line.split_whitespace()
            .filter_map(|w| w.trim_end_matches('s').parse().ok())
            .collect()
    }

    #[test]
    fn a_multi_host_interval_is_a_line_per_host_and_a_total() {
        let r = testraw::two_hosts();
        let iv = 1;
        let hosts: Vec<(&str, Option<&Interval>)> = r
            .hosts
            .iter()
            .map(|h| (h.host.as_str(), h.run.intervals.get(iv)))
            .collect();
        let lines = host_interval_lines(&r.intervals[iv], &hosts, false);
        assert_eq!(lines.len(), 3);
        let head = host_interval_header(false);
        let head: Vec<&str> = head.split_whitespace().collect();
        assert_eq!(head[..3], ["host", "time", "IOPS"]);
        assert!(lines[0].starts_with("h1 ") && lines[1].starts_with("h2 "));
        assert!(lines[2].starts_with("total "));
        // time, IOPS of each line: the total's IOPS is the hosts' sum.
        let iops: Vec<f64> = lines.iter().map(|l| numbers(l)[1]).collect();
        assert_eq!(iops, [100.0, 300.0, 400.0]);
        assert!(lines.iter().all(|l| numbers(l)[0] == 2.0));
        // A lost host that sent no interval: a dash.
        let lost =
            host_interval_lines(&r.intervals[iv], &[("h1", hosts[0].1), ("h2", None)], false);
        assert_eq!(lost[1].split_whitespace().nth(2), Some("-"));
    }

    #[test]
    fn a_multi_host_summary_has_the_aggregate_a_row_per_host_and_the_skew() {
        let mut r = testraw::two_hosts();
        r.hosts[1].lost = Some(crate::model::HostLoss {
            at_s: 3.25,
            at: String::new(),
            reason: "no message for 10 s".into(),
        });
        let text = summary(&r);
        assert!(text.contains("shared (total of 2 hosts)"), "{text}");
        let row = |h: &str| {
            text.lines()
                .find(|l| l.split_whitespace().next() == Some(h))
                .unwrap_or_else(|| panic!("no row of {h} in {text}"))
                .to_string()
        };
        for (h, run) in [("h1", &r.hosts[0].run), ("h2", &r.hosts[1].run)] {
            let n = numbers(&row(h));
            assert!((n[0] - run.summary.total.iops).abs() < 0.5, "{h}: {n:?}");
            assert!(
                (n[2] - run.summary.total.lat_us.mean).abs() < 0.01 * n[2],
                "{h}"
            );
            assert!(
                (n[3] - run.summary.total.lat_us.p99).abs() < 0.01 * n[3],
                "{h}"
            );
        }
        assert!(
            row("h2").contains("at 3.2 s: no message for 10 s"),
            "{text}"
        );
        assert!(row("h1").ends_with(" -"), "{text}");
        let skew = text
            .lines()
            .find(|l| l.starts_with("hosts started"))
            .unwrap();
        assert_eq!(
            skew,
            "hosts started within 0.21 ms of each other (clock offsets known within ±0.04 ms)"
        );
        // A run on one host says nothing of hosts.
        let local = crate::build_run(&testraw::host_run(2, 10, 1000, 2000));
        assert!(hosts_summary(&local).is_empty());
        assert!(!summary(&local).contains("hosts"));
    }
    use iolab_devices::findings::{volatile_cache_no_flush, WorkloadFacts};

    fn lines_of(r: &RunResult, i: usize) -> Vec<String> {
        let ws: Vec<(&str, Option<&Interval>)> = r
            .workloads
            .iter()
            .map(|w| {
                let iv = w.intervals.iter().find(|x| x.index == i as u32);
                (w.name.as_str(), iv)
            })
            .collect();
        interval_lines(&r.intervals[i], &ws, false)
    }

    #[test]
    fn a_few_workloads_get_a_line_each_and_a_total_line() {
        let r = crate::build_run(&testraw::two_workloads());
        let l = lines_of(&r, 1);
        assert_eq!(l.len(), 3, "{l:?}");
        assert!(
            l[0].starts_with("reader ") && l[0].contains(" 100 "),
            "{l:?}"
        );
        assert!(
            l[1].starts_with("writer ") && l[1].contains(" 50 "),
            "{l:?}"
        );
        assert!(
            l[2].starts_with("total ") && l[2].contains(" 150 "),
            "{l:?}"
        );
        // Before the writer started, its line says it was not running.
        let l0 = lines_of(&r, 0);
        assert!(l0[1].starts_with("writer ") && l0[1].trim_end().ends_with('-'));
        assert!(interval_header_for(&["reader", "writer"]).starts_with("workload "));
    }

    #[test]
    fn many_workloads_get_one_line_with_a_column_each() {
        let mut raw = testraw::two_workloads();
        let extra: Vec<_> = (0..4)
            .map(|i| {
                testraw::workload(
                    &format!("stream-number-{i}"),
                    "read",
                    vec![(1, testraw::ops(iolab_raw::Op::Read, 7, 1000))],
                )
            })
            .collect();
        raw.workloads.extend(extra);
        let r = crate::build_run(&raw);
        let l = lines_of(&r, 1);
        assert_eq!(l.len(), 1, "{l:?}");
        let cols: Vec<&str> = l[0].split('|').nth(1).unwrap().split_whitespace().collect();
        assert_eq!(cols, ["100", "50", "7", "7", "7", "7"], "{l:?}");
        let names = ["reader", "writer", "stream-number-0", "b", "c", "d"];
        let h = interval_header_for(&names);
        assert!(h.contains("stream-n~"), "{h}");
    }

    #[test]
    fn an_event_prints_at_its_time_and_stalls_name_the_mark_before_them() {
        let r = crate::build_run(&testraw::two_workloads());
        assert_eq!(
            event_line(&r.events[0]),
            "    1.500 s  mark: controller A failed"
        );
        let s = summary(&r);
        assert!(
            s.contains("I/O paused 1.23 s (no completion from 1.900 s to 3.130 s), 0.4 s after mark 'controller A failed'"),
            "{s}"
        );
        // A stall before any mark names none.
        let st = crate::model::StallEvent {
            start_s: 1.0,
            end_s: 2.0,
            duration_ms: 1000.0,
        };
        let marks = EventIndex::new(&r.events);
        assert!(!stall_line(&st, &marks).contains("after"));
        assert!(marks.before(1.5).is_some() && marks.before(1.49).is_none());
        // A table per workload, then the total.
        let a = s.find("pair/reader:").unwrap();
        let b = s
            .find("pair/writer: 1.0 s measured, active from 1.000 s to 2.000 s")
            .unwrap();
        let t = s.find("pair (total of 2 workloads)").unwrap();
        assert!(a < b && b < t, "{s}");
    }

    #[test]
    fn an_fs_interval_line_shows_every_operation_together() {
        let raw = iolab_raw::RunRaw::single(testraw::fs_workload("fs"));
        let r = crate::build_run(&raw);
        let line = interval_line(&r.intervals[0], true);
        let cols: Vec<&str> = line.split_whitespace().collect();
        // time, ops/s (fsync-free flow: every op), MB/s, mean, p99, CPU.
        assert_eq!(cols[..3], ["1.0s", "10997.0", "278.5"], "{line}");
        assert_eq!(
            cols[3],
            fmt_us(r.workloads[0].io_summary.unwrap().lat_mean_us)
        );
        assert_eq!(cols.len(), 6, "{line}");
        let h = interval_header_of(&["fs"], true);
        assert_eq!(h.split_whitespace().collect::<Vec<_>>()[1], "ops/s");
        assert_eq!(h.len(), line.len(), "{h}\n{line}");
        // A block run keeps its read/write columns.
        let b = crate::build_run(&testraw::two_workloads());
        assert!(b.intervals[0].all.is_none());
        assert!(interval_header_for(&["a"]).contains("r/w %"));
        let bl = interval_line(&b.intervals[1], false);
        assert_eq!(interval_header().len(), bl.len(), "{bl}");
    }

    /// Regression: a read-only (or write-only) mix has no operation but
    /// reads, so its intervals have no `all`; its lines printed the block
    /// columns (a `100/0` share) under the file-system header.
    #[test]
    fn a_read_only_mix_gets_the_columns_of_its_header() {
        for op in [iolab_raw::Op::Read, iolab_raw::Op::Write] {
            let mut w = testraw::fs_workload("fs");
            let o = testraw::ops(op, 1000, 10_000);
            w.ops = o.clone();
            w.intervals[0].ops = o;
            let r = crate::build_run(&iolab_raw::RunRaw::single(w));
            assert!(r.intervals[0].all.is_none());
            let h = interval_header_of(&["fs"], true);
            let line = interval_line(&r.intervals[0], true);
            assert_eq!(h.len(), line.len(), "{h}\n{line}");
            assert!(!line.contains('/'), "{line}");
            assert_eq!(line.split_whitespace().count(), 6, "{line}");
            // Beside other workloads, every line has the header's columns.
            let b = crate::build_run(&testraw::two_workloads());
            let ws = [("fs", Some(&r.intervals[0])), ("b", Some(&b.intervals[1]))];
            let h = interval_header_of(&["fs", "b"], true);
            for l in interval_lines(&b.intervals[1], &ws, true) {
                assert_eq!(l.len(), h.len(), "{h}\n{l}");
            }
        }
    }

    /// Regression: a run of 27 ms said "0.0 s measured".
    #[test]
    fn a_short_run_says_how_long_it_was() {
        assert_eq!(fmt_secs(0.027), "0.027");
        assert_eq!(fmt_secs(0.9996), "1.0");
        assert_eq!(fmt_secs(12.34), "12.3");
        let mut raw = iolab_raw::RunRaw::single(testraw::fs_workload("fs"));
        raw.measured_ns = 27_000_000;
        raw.workloads[0].measured_ns = 27_000_000;
        let s = summary(&crate::build_run(&raw));
        assert!(s.starts_with("fs: 0.027 s measured\n"), "{s}");
        assert!(s.contains("IO summary: 10997 ops in 0.027 s,"), "{s}");
    }

    #[test]
    fn a_monitor_summary_has_no_workload_figures() {
        let r = crate::build_run(&testraw::monitor());
        let s = summary(&r);
        assert!(!s.contains("total ") && !s.contains("stalls:"), "{s}");
        assert!(s.contains("2.000 s  signal: cable pulled"), "{s}");
    }

    #[test]
    fn advice_sentences_do_not_run_together() {
        let w = WorkloadFacts {
            target: "/t".into(),
            writes: true,
            ..Default::default()
        };
        let counts = iolab_devices::DeviceCounts {
            writes: 10,
            write_bytes: 40960,
            ..Default::default()
        };
        let mut run = crate::study::testing::run(crate::study::testing::spec("w"), 1.0, 1.0, 1.0);
        run.advice.extend(volatile_cache_no_flush(
            &w,
            "sdb",
            Some("write back"),
            &counts,
        ));
        let text = summary(&run);
        let line = text
            .lines()
            .find(|l| l.starts_with("advice ["))
            .unwrap_or_else(|| panic!("no advice in {text}"));
        assert!(
            line.contains("and no flush did. Acknowledged writes"),
            "{line}"
        );
        assert!(line.contains(". Fix: Measure"), "{line}");
        assert!(line.ends_with('.'), "{line}");
    }
}
