//! filebench's terminal layout (`iolab run --style filebench`): nothing
//! per interval, then at the end of each run `Run took`, the
//! `Per-Operation Breakdown` (one line per operation: ops, ops/s, MB/s,
//! ms/op, min - max) and the `IO Summary` line, in filebench's formats
//! (its `stats.c`), each log line stamped with the seconds since the run
//! started. Operations take the names of the filebench flowops they came
//! from when the workload's origin records them (`flowop.N` options, N
//! the step's position among the workload's flow steps from 1, or
//! `flowop.OP` for iolab's operation OP), else iolab's names; block
//! workloads show `read` and `write`. Pure functions of the result model.

use super::{fs_ops, merge_dir, LocalTime, Styled};
use crate::model::{DirResult, Interval, RunResult, WorkloadResult};
use iolab_spec::{Op, RunSpec, WorkloadSpec};
use std::collections::BTreeMap;

const MIB: f64 = 1024.0 * 1024.0;

/// One line of the breakdown.
#[derive(Debug, Clone, PartialEq)]
pub struct OpLine {
    pub name: String,
    pub ops: u64,
    pub ops_per_s: f64,
    /// 2^20 bytes per second (filebench's `mb/s`).
    pub mb_per_s: f64,
    pub ms_per_op: f64,
    pub min_ms: f64,
    pub max_ms: f64,
}

impl OpLine {
    fn of(name: String, d: &DirResult) -> OpLine {
        OpLine {
            name,
            ops: d.ops,
            ops_per_s: d.iops,
            mb_per_s: d.mibps,
            ms_per_op: d.lat_us.mean / 1000.0,
            min_ms: d.lat_us.min / 1000.0,
            max_ms: d.lat_us.max / 1000.0,
        }
    }

    /// `%-20s %dops %8.0lfops/s %5.1lfmb/s %8.3fms/op [%.3fms - %5.3fms]`.
    pub fn text(&self) -> String {
        format!(
            "{:<20} {}ops {:8.0}ops/s {:5.1}mb/s {:8.3}ms/op [{:.3}ms - {:5.3}ms]",
            self.name,
            self.ops,
            self.ops_per_s,
            self.mb_per_s,
            self.ms_per_op,
            self.min_ms,
            self.max_ms
        )
    }
}

/// The IO Summary's figures: every operation of the run together.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Summary {
    pub ops: u64,
    pub ops_per_s: f64,
    pub read_per_s: f64,
    pub write_per_s: f64,
    pub mb_per_s: f64,
    pub ms_per_op: f64,
}

impl Summary {
    /// `IO Summary: %5d ops %5.3lf ops/s %0.0lf/%0.0lf rd/wr %5.1lfmb/s
    /// %5.3fms/op`.
    pub fn text(&self) -> String {
        format!(
            "IO Summary: {:5} ops {:5.3} ops/s {:.0}/{:.0} rd/wr {:5.1}mb/s {:5.3}ms/op",
            self.ops,
            self.ops_per_s,
            self.read_per_s,
            self.write_per_s,
            self.mb_per_s,
            self.ms_per_op
        )
    }

    fn add(&mut self, o: &Summary) {
        let n = self.ops + o.ops;
        if n > 0 {
            self.ms_per_op =
                (self.ms_per_op * self.ops as f64 + o.ms_per_op * o.ops as f64) / n as f64;
        }
        self.ops = n;
        self.ops_per_s += o.ops_per_s;
        self.read_per_s += o.read_per_s;
        self.write_per_s += o.write_per_s;
        self.mb_per_s += o.mb_per_s;
    }
}

/// The filebench flowop names of each operation of `spec`, from its
/// origin's `flowop.N` / `flowop.OP` options (a filebench file's).
pub fn flowop_names(spec: &WorkloadSpec) -> BTreeMap<Op, Vec<String>> {
    let mut out: BTreeMap<Op, Vec<String>> = BTreeMap::new();
    let Some(origin) = spec.origin.as_ref().filter(|o| o.format == "filebench") else {
        return out;
    };
    let steps = spec.fs.as_ref().map(fs_ops).unwrap_or_default();
    for (k, v) in &origin.options {
        let Some(rest) = k.strip_prefix("flowop.") else {
            continue;
        };
        let op = match rest.parse::<usize>() {
            Ok(n) => n.checked_sub(1).and_then(|i| steps.get(i).copied()),
            Err(_) => Op::from_name(rest),
        };
        let Some(op) = op else { continue };
        let names = out.entry(op).or_default();
        for name in v.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            if !names.iter().any(|x| x == name) {
                names.push(name.to_string());
            }
        }
    }
    out
}

/// The breakdown of one workload: its operations, last named first (as
/// filebench lists its flowops), those no step names after them. `prefix`
/// goes before iolab's names (the workload's, in a run of several).
pub fn workload_lines(w: &WorkloadResult, prefix: &str) -> Vec<OpLine> {
    let names = flowop_names(&w.spec);
    let name = |op: Op| match names.get(&op) {
        Some(n) if !n.is_empty() => n.join("+"),
        _ => format!("{prefix}{}", op.name()),
    };
    if w.spec.fs.is_none() {
        let mut out = Vec::new();
        for (op, d) in [(Op::Read, &w.summary.read), (Op::Write, &w.summary.write)] {
            if d.ops > 0 {
                out.push(OpLine::of(name(op), d));
            }
        }
        return out;
    }
    let mut order: Vec<Op> = Vec::new();
    for op in w.spec.fs.as_ref().map(fs_ops).unwrap_or_default() {
        if !order.contains(&op) {
            order.push(op);
        }
    }
    order.reverse();
    let mut rest: Vec<Op> = w
        .operations
        .keys()
        .filter_map(|k| Op::from_name(k))
        .filter(|o| !order.contains(o))
        .collect();
    rest.sort();
    order
        .into_iter()
        .chain(rest)
        .filter_map(|op| {
            let r = w.operations.get(op.name())?;
            Some(OpLine::of(name(op), &r.figures))
        })
        .collect()
}

/// The IO Summary of one workload: its `io_summary` (file-system) or its
/// reads and writes (block).
pub fn workload_summary(w: &WorkloadResult) -> Summary {
    if let Some(s) = &w.io_summary {
        return Summary {
            ops: s.ops,
            ops_per_s: s.ops_per_s,
            read_per_s: s.read_ops_per_s,
            write_per_s: s.write_ops_per_s,
            mb_per_s: s.mbps * 1e6 / MIB,
            ms_per_op: s.lat_mean_us / 1000.0,
        };
    }
    let rw = merge_dir(&w.summary.read, &w.summary.write);
    Summary {
        ops: rw.ops,
        ops_per_s: rw.iops,
        read_per_s: w.summary.read.iops,
        write_per_s: w.summary.write.iops,
        mb_per_s: rw.mibps,
        ms_per_op: rw.lat_us.mean / 1000.0,
    }
}

/// The lines filebench prints at the end of a run, stamped `t` seconds
/// after its start.
pub fn run_lines(r: &RunResult) -> Vec<String> {
    let t = r.warmup_s + r.measured_s;
    let ws = r.workload_views();
    let several = ws.len() > 1;
    let mut out = vec![
        format!("{t:4.3}: Run took {} seconds...", t.round() as u64),
        format!("{t:4.3}: Per-Operation Breakdown"),
    ];
    let mut sum = Summary::default();
    for w in &ws {
        let prefix = if several {
            format!("{}.", w.name)
        } else {
            String::new()
        };
        out.extend(workload_lines(w, &prefix).iter().map(OpLine::text));
        sum.add(&workload_summary(w));
    }
    out.push(format!("{t:4.3}: {}", sum.text()));
    out
}

/// The filebench printer: `Running...` at the start, nothing per
/// interval, the breakdown and summary at the end.
#[derive(Default)]
pub struct Printer;

impl Styled for Printer {
    fn started(&mut self, _run: &RunSpec, _now: &LocalTime) -> Vec<String> {
        vec![format!("{:4.3}: Running...", 0.0)]
    }

    fn interval(&mut self, _iv: &Interval, _now: &LocalTime) -> Vec<String> {
        Vec::new()
    }

    fn finished(&mut self, run: &RunResult, _now: &LocalTime) -> Vec<String> {
        run_lines(run)
    }
}

#[cfg(test)]
mod tests;
