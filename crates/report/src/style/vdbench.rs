//! vdbench's terminal layout (`iolab run --style vdbench`): the
//! `Starting RD=` line, a header every 30 intervals, one line per
//! interval and the average line over the measured intervals (vdbench's
//! `avg_2-N`), in vdbench's column widths: for block workloads its raw
//! columns (i/o rate, MB/sec in 1024**2, bytes/io, read pct, resp time,
//! read and write resp, resp max and stddev, queue depth, cpu% sys+u and
//! sys), for file-system workloads its file-system columns (ReqstdOps,
//! cpu%, read pct, read and write rate and resp, MB/sec, xfer size and a
//! rate/resp pair per operation) and its `Miscellaneous statistics`
//! (the fileset counters) at the end. Pure functions of the result
//! model; docs/report.md says where a figure differs from vdbench's.

use super::{merge_dir, named_ops, LocalTime, Styled};
use crate::model::{Cpu, DirResult, FilesetCounts, Interval, RunResult};
use iolab_spec::{thousands, Op, RunSpec};
use std::collections::BTreeMap;

/// vdbench repeats its header every this many intervals.
pub const HEADER_EVERY: u32 = 30;

/// The figures of one line: an interval's, or the measured time's.
#[derive(Debug, Clone, Default)]
pub struct Figures {
    pub read: DirResult,
    pub write: DirResult,
    /// Operations other than read and write, by iolab's name.
    pub ops: BTreeMap<String, DirResult>,
    /// Every operation together (fsync included).
    pub all: DirResult,
    pub cpu: Option<Cpu>,
}

/// `d` with vdbench's response time: from when the I/O was issued. In a
/// run with a rate that is iolab's service time (`svc_lat_us`); iolab's
/// own response time (`lat_us`) then counts from each I/O's scheduled
/// start, waiting to be issued included. Without a rate the two are the
/// same.
fn from_issue(d: &DirResult) -> DirResult {
    let mut d = d.clone();
    if let Some(svc) = d.svc_lat_us.take() {
        d.lat_us = svc;
    }
    d
}

impl Figures {
    pub fn of_interval(iv: &Interval) -> Figures {
        Figures {
            read: from_issue(&iv.read),
            write: from_issue(&iv.write),
            ops: iv
                .ops
                .iter()
                .map(|(k, d)| (k.clone(), from_issue(d)))
                .collect(),
            all: from_issue(iv.all.as_ref().unwrap_or(&iv.total)),
            cpu: iv.cpu.clone(),
        }
    }

    /// The run's measured time (its summary: every measured interval).
    pub fn of_run(r: &RunResult) -> Figures {
        Figures {
            read: from_issue(&r.summary.read),
            write: from_issue(&r.summary.write),
            ops: (r.summary.ops.iter())
                .map(|(k, d)| (k.clone(), from_issue(d)))
                .collect(),
            all: from_issue(&r.summary.total),
            cpu: Some(r.summary.cpu.clone()),
        }
    }

    fn op(&self, op: Op) -> DirResult {
        self.ops.get(op.name()).cloned().unwrap_or_default()
    }

    /// vdbench's writes of a file-system workload: iolab's writes,
    /// appends and rewrites.
    fn fs_writes(&self) -> DirResult {
        let w = merge_dir(&self.write, &self.op(Op::Append));
        merge_dir(&w, &self.op(Op::Rewrite))
    }
}

/// `cpu% sys+u` and `cpu% sys`: iolab's process CPU as a share of all the
/// machine's `cpus` (vdbench's is the whole machine's).
fn cpu_pcts(cpu: &Option<Cpu>, cpus: u32) -> Option<(f64, f64)> {
    let c = cpu.as_ref()?;
    let n = cpus.max(1) as f64;
    Some(((c.user_pct + c.sys_pct) / n, c.sys_pct / n))
}

/// The `interval` label of interval `index` (vdbench counts from 1).
pub fn label(iv: &Interval) -> String {
    (iv.index + 1).to_string()
}

/// The average line's label: `avg_A-B`, A the first interval after
/// warm-up, B the last (`None` without a measured interval).
pub fn avg_label(ivs: &[Interval]) -> Option<String> {
    let first = ivs.iter().find(|i| !i.warmup)?;
    let last = ivs.last()?;
    Some(format!("avg_{}-{}", first.index + 1, last.index + 1))
}

/// The raw header's two lines, the first after an empty line.
pub fn raw_header(date: &str) -> [String; 3] {
    let h = |c: [&str; 13]| {
        format!(
            "{:>10} {:>10} {:>8} {:>7} {:>6} {:>8} {:>8} {:>8} {:>8} {:>8} {:>5} {:>5} {:>5}",
            c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8], c[9], c[10], c[11], c[12]
        )
    };
    let top = [
        "interval", "i/o", "MB/sec", "bytes", "read", "resp", "read", "write", "resp", "resp",
        "queue", "cpu%", "cpu%",
    ];
    let bottom = [
        "", "rate", "1024**2", "i/o", "pct", "time", "resp", "resp", "max", "stddev", "depth",
        "sys+u", "sys",
    ];
    [
        String::new(),
        format!("{date}{}", h(top)),
        format!("{:12}{}", "", h(bottom)),
    ]
}

/// One raw line: reads and writes of `f` (trims are not vdbench's).
pub fn raw_line(tod: &str, label: &str, f: &Figures, cpus: u32) -> String {
    let rw = merge_dir(&f.read, &f.write);
    let bytes_io = rw.bytes.checked_div(rw.ops).unwrap_or(0);
    let read_pct = if rw.ops > 0 {
        f.read.ops as f64 * 100.0 / rw.ops as f64
    } else {
        0.0
    };
    let ms = |us: f64| us / 1000.0;
    // Little's law over the time from issue: the I/Os outstanding.
    let qdepth = rw.iops * rw.lat_us.mean / 1e6;
    let cpu = match cpu_pcts(&f.cpu, cpus) {
        Some((both, sys)) => format!("{both:5.1} {sys:5.1}"),
        None => format!("{:>5} {:>5}", "n/a", "n/a"),
    };
    format!(
        "{tod}{label:>10} {:10.2} {:8.2} {bytes_io:7} {read_pct:6.2} {:8.3} {:8.3} {:8.3} {:8.3} {:8.3} {qdepth:5.1} {cpu}",
        rw.iops,
        f.read.mibps + f.write.mibps,
        ms(rw.lat_us.mean),
        ms(f.read.lat_us.mean),
        ms(f.write.lat_us.mean),
        ms(rw.lat_us.max),
        ms(rw.lat_us.stddev),
    )
}

/// A column of the file-system layout: its title over one or two
/// sub-columns of (title, width, decimals).
struct Col {
    title: &'static str,
    subs: &'static [(&'static str, usize, usize)],
}

const RATE_RESP: &[(&str, usize, usize)] = &[("rate", 6, 1), ("resp", 6, 3)];
const OP_RATE_RESP: &[(&str, usize, usize)] = &[("rate", 5, 1), ("resp", 6, 3)];

/// The columns before the operations', in vdbench's order.
const FS_COLS: [Col; 8] = [
    Col {
        title: "ReqstdOps.",
        subs: RATE_RESP,
    },
    Col {
        title: "cpu%",
        subs: &[("total", 5, 1), ("sys", 4, 2)],
    },
    Col {
        title: " read",
        subs: &[("pct", 5, 1)],
    },
    Col {
        title: "read",
        subs: RATE_RESP,
    },
    Col {
        title: "write",
        subs: RATE_RESP,
    },
    Col {
        title: "mb/sec",
        subs: &[("read", 5, 2), ("write", 5, 2)],
    },
    Col {
        title: "mb/sec",
        subs: &[("total", 6, 2)],
    },
    Col {
        title: "xfer",
        subs: &[("size", 7, 0)],
    },
];

/// vdbench's operation columns, always shown, and iolab's operation for
/// each.
const OPS_ALWAYS: [(&str, Op); 6] = [
    ("mkdir", Op::Mkdir),
    ("rmdir", Op::Rmdir),
    ("create", Op::Create),
    ("open", Op::Open),
    ("close", Op::Close),
    ("delete", Op::Delete),
];

/// Operation columns shown when a workload names the operation:
/// vdbench's (`move` is iolab's rename), then iolab's operations vdbench
/// has no column for.
const OPS_IF_USED: [(&str, Op); 8] = [
    ("getattr", Op::Getattr),
    ("setattr", Op::Setattr),
    ("access", Op::Access),
    ("move", Op::Rename),
    ("stat", Op::Stat),
    ("fsync", Op::Fsync),
    ("fdatasync", Op::Fdatasync),
    ("readdir", Op::Readdir),
];

/// The operation columns for workloads naming `used`.
pub fn fs_op_columns(used: &[Op]) -> Vec<(&'static str, Op)> {
    let mut cols = OPS_ALWAYS.to_vec();
    cols.extend(OPS_IF_USED.iter().filter(|(_, o)| used.contains(o)));
    cols
}

/// `lbl` centred in `width` between dots (vdbench's column titles).
fn dotted(lbl: &str, width: usize) -> String {
    let extra = width.saturating_sub(lbl.len());
    let left = extra / 2;
    format!("{}{lbl}{}", ".".repeat(left), ".".repeat(extra - left))
}

fn col_titles(c: &Col) -> (String, String) {
    let width: usize = c.subs.iter().map(|s| s.1).sum::<usize>() + c.subs.len() - 1;
    let top = format!(" {}", dotted(c.title, width));
    let bottom: String = c.subs.iter().map(|(t, w, _)| format!(" {t:>w$}")).collect();
    (top, bottom)
}

/// The file-system header's lines (after an empty line) for the
/// operation columns `ops`.
pub fn fs_header(date: &str, ops: &[(&'static str, Op)]) -> [String; 3] {
    let mut top = format!("{date} {}", dotted("Interval", 10));
    let mut bottom = format!("{:12} {:>10}", "", "");
    let op_cols = ops.iter().map(|(t, _)| Col {
        title: t,
        subs: OP_RATE_RESP,
    });
    for c in FS_COLS.into_iter().chain(op_cols) {
        let (t, b) = col_titles(&c);
        top.push_str(&t);
        bottom.push_str(&b);
    }
    [String::new(), top, bottom]
}

/// `v` in `width` characters with `decimals` decimals; a value too wide
/// loses decimals (truncated) until it fits, as vdbench's `%F` does.
pub fn fit(v: f64, width: usize, decimals: usize) -> String {
    let s = format!("{v:width$.decimals$}");
    if s.len() <= width || decimals == 0 {
        return s;
    }
    let mut t = s.as_str();
    loop {
        t = &t[..t.len() - 1];
        if t.ends_with('.') {
            continue;
        }
        if !t.contains('.') || t.len() <= width {
            return format!("{t:>width$}");
        }
    }
}

/// One file-system line.
pub fn fs_line(tod: &str, label: &str, f: &Figures, cpus: u32, ops: &[(&str, Op)]) -> String {
    let w = f.fs_writes();
    let rw_ops = f.read.ops + w.ops;
    let xfer = (f.read.bytes + w.bytes).checked_div(rw_ops).unwrap_or(0) as f64;
    let read_pct = if rw_ops > 0 {
        f.read.ops as f64 * 100.0 / rw_ops as f64
    } else {
        0.0
    };
    let ms = |d: &DirResult| d.lat_us.mean / 1000.0;
    let (rmb, wmb) = (f.read.mibps, w.mibps);
    let mut line = format!("{tod} {label:>10}");
    let l = &mut line;
    put(l, f.all.iops, 6, 1);
    put(l, ms(&f.all), 6, 3);
    match cpu_pcts(&f.cpu, cpus) {
        Some((both, sys)) => {
            put(l, both, 5, 1);
            put(l, sys, 4, 2);
        }
        // No CPU sample: said in the CPU columns' place.
        None => l.push_str(&format!(" {:>5} {:>4}", "n/a", "n/a")),
    }
    put(l, read_pct, 5, 1);
    put(l, f.read.iops, 6, 1);
    put(l, ms(&f.read), 6, 3);
    put(l, w.iops, 6, 1);
    put(l, ms(&w), 6, 3);
    put(l, rmb, 5, 2);
    put(l, wmb, 5, 2);
    put(l, rmb + wmb, 6, 2);
    put(l, xfer, 7, 0);
    for (_, op) in ops {
        let d = f.op(*op);
        put(l, d.iops, 5, 1);
        put(l, ms(&d), 6, 3);
    }
    line
}

/// A space and `v` fitted in `width` (see [`fit`]).
fn put(line: &mut String, v: f64, width: usize, decimals: usize) {
    line.push(' ');
    line.push_str(&fit(v, width, decimals));
}

/// vdbench's `Miscellaneous statistics`: the fileset counters that are
/// not zero, each with its rate over `secs`.
pub fn counters(tod: &str, c: &FilesetCounts, secs: f64) -> Vec<String> {
    let rows = [
        ("FILE_CREATES        Files created", c.files_created),
        ("DIRECTORY_CREATES   Directories created", c.dirs_created),
        ("FILE_DELETES        Files deleted", c.files_deleted),
        ("DIRECTORY_DELETES   Directories deleted", c.dirs_deleted),
        (
            "READ_OPENS          Files opened for read activity",
            c.opens_read,
        ),
        (
            "WRITE_OPENS         Files opened for write activity",
            c.opens_write,
        ),
        ("FILE_CLOSES         Close requests", c.closes),
    ];
    if rows.iter().all(|r| r.1 == 0) {
        return vec![format!(
            "{tod} Miscellaneous statistics: All counters are zero"
        )];
    }
    let mut out = vec![
        format!("{tod} "),
        format!("{tod} Miscellaneous statistics:"),
    ];
    for (lbl, n) in rows.into_iter().filter(|r| r.1 > 0) {
        let per_s = if secs > 0.0 {
            (n as f64 / secs).floor() as u64
        } else {
            0
        };
        out.push(format!(
            "{tod} {:<60} {:>10} {:>10}/sec",
            format!("{lbl}:"),
            thousands(n),
            thousands(per_s)
        ));
    }
    out.push(format!("{tod} "));
    out
}

/// The fileset counters of every workload of `r` together; `None` for a
/// run without a file-system workload.
pub fn run_counters(r: &RunResult) -> Option<FilesetCounts> {
    let mut any = false;
    let mut t = FilesetCounts::default();
    for c in r.workloads.iter().filter_map(|w| w.fileset) {
        any = true;
        t.files_created += c.files_created;
        t.dirs_created += c.dirs_created;
        t.files_deleted += c.files_deleted;
        t.dirs_deleted += c.dirs_deleted;
        t.opens_read += c.opens_read;
        t.opens_write += c.opens_write;
        t.closes += c.closes;
    }
    any.then_some(t)
}

/// `Starting RD=NAME; I/O rate: ...; elapsed=...` (file-system runs:
/// `fwdrate=`).
pub fn starting(tod: &str, run: &RunSpec, fs: bool) -> String {
    let rate = run.rate_iops.or_else(|| {
        run.workloads
            .iter()
            .filter_map(|w| w.rate_iops)
            .reduce(|a, b| a + b)
    });
    let secs = |s: f64| format!("{}", (s * 1000.0).round() / 1000.0);
    let duration = run.duration_s.or_else(|| {
        run.workloads
            .iter()
            .filter_map(|w| w.duration_s)
            .reduce(f64::max)
    });
    let elapsed = match duration {
        None => "; elapsed=(none); ".to_string(),
        Some(d) if run.warmup_s > 0.0 => {
            format!("; elapsed={} warmup={}; ", secs(d), secs(run.warmup_s))
        }
        Some(d) => format!("; elapsed={}; ", secs(d)),
    };
    if fs {
        let r = rate.map_or("max. ".to_string(), |r| format!("{}; ", r as u64));
        format!("{tod} Starting RD={}{elapsed}fwdrate={r}", run.name)
    } else {
        let r = rate.map_or("Uncontrolled MAX".to_string(), |r| format!("{}", r as u64));
        format!(
            "{tod} Starting RD={}; I/O rate: {r}{}",
            run.name,
            elapsed.trim_end()
        )
    }
}

/// The vdbench printer of one `iolab run`.
pub struct Printer {
    cpus: u32,
    fs: bool,
    ops: Vec<(&'static str, Op)>,
    intervals: Vec<Interval>,
}

impl Printer {
    pub fn new(cpus: u32) -> Printer {
        Printer {
            cpus,
            fs: false,
            ops: Vec::new(),
            intervals: Vec::new(),
        }
    }

    fn line(&self, tod: &str, label: &str, f: &Figures) -> String {
        if self.fs {
            fs_line(tod, label, f, self.cpus, &self.ops)
        } else {
            raw_line(tod, label, f, self.cpus)
        }
    }
}

impl Styled for Printer {
    fn started(&mut self, run: &RunSpec, now: &LocalTime) -> Vec<String> {
        self.fs = run.workloads.iter().any(|w| w.fs.is_some());
        self.ops = fs_op_columns(&named_ops(run));
        self.intervals.clear();
        vec![String::new(), starting(&now.tod(), run, self.fs)]
    }

    fn interval(&mut self, iv: &Interval, now: &LocalTime) -> Vec<String> {
        let mut out = Vec::new();
        let n = iv.index + 1;
        if n % HEADER_EVERY == 1 {
            out.extend(if self.fs {
                fs_header(&now.date(), &self.ops)
            } else {
                raw_header(&now.date())
            });
        }
        out.push(self.line(&now.tod(), &label(iv), &Figures::of_interval(iv)));
        self.intervals.push(iv.clone());
        out
    }

    fn finished(&mut self, run: &RunResult, now: &LocalTime) -> Vec<String> {
        let tod = now.tod();
        // The record's intervals are the whole run's (the printer's when
        // a record was built without them).
        let ivs = if run.intervals.is_empty() {
            &self.intervals
        } else {
            &run.intervals
        };
        let mut out = Vec::new();
        if let Some(lbl) = avg_label(ivs) {
            out.push(self.line(&tod, &lbl, &Figures::of_run(run)));
        }
        if let Some(c) = run_counters(run) {
            out.extend(counters(&tod, &c, run.measured_s));
        }
        out
    }
}

#[cfg(test)]
mod tests;
