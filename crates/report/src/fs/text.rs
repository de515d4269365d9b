//! A file-system workload for the terminal: filebench's per-operation
//! table (in the order the workload issues its operations), the IO
//! Summary line, vdbench's fileset counters, errors by operation, and
//! the operations that fell back to system calls.

use crate::model::{CpuBasis, FilesetCounts, FilesetResult, IoSummary, OpResult, WorkloadResult};
use iolab_spec::fs::FsWork;
use iolab_spec::{format_bytes, Op, WorkloadSpec};
use std::fmt::Write;

/// Column heads of the per-operation table (latencies in milliseconds
/// per operation, as filebench shows them): mean, p50, p90, p99, p99.9
/// and max of each operation; CPU in µs per operation.
pub const OP_COLUMNS: [&str; 12] = [
    "operation",
    "ops",
    "ops/s",
    "MB/s",
    "mean ms",
    "p50 ms",
    "p90 ms",
    "p99 ms",
    "p99.9 ms",
    "max ms",
    "errors",
    "CPU us/op",
];

/// Milliseconds from microseconds, with the digits a reader needs: four
/// decimals below 1 ms (metadata operations take microseconds), three
/// up to 100 ms, one above.
pub fn fmt_ms(us: f64) -> String {
    let ms = us / 1000.0;
    if ms >= 100.0 {
        format!("{ms:.1}")
    } else if ms >= 1.0 {
        format!("{ms:.3}")
    } else {
        format!("{ms:.4}")
    }
}

/// The workload's operations in the order it issues them (flow steps,
/// or mix entries, first seen first), then any other in table order.
pub fn op_order(w: &WorkloadResult) -> Vec<(&str, &OpResult)> {
    let mut names: Vec<&str> = spec_ops(&w.spec).iter().map(|o| o.name()).collect();
    for o in Op::ALL {
        if !names.contains(&o.name()) {
            names.push(o.name());
        }
    }
    names
        .into_iter()
        .filter_map(|n| w.operations.get_key_value(n))
        .map(|(k, v)| (k.as_str(), v))
        .collect()
}

/// The operations of a workload's mix or flows, first seen first.
fn spec_ops(spec: &WorkloadSpec) -> Vec<Op> {
    let steps: Vec<Op> = match spec.fs.as_ref().map(|f| &f.work) {
        Some(FsWork::Mix(m)) => m.iter().map(|e| e.step.op).collect(),
        Some(FsWork::Flows(f)) => f
            .iter()
            .flat_map(|f| f.steps.iter().map(|s| s.op))
            .collect(),
        None => Vec::new(),
    };
    let mut out = Vec::new();
    for o in steps {
        if !out.contains(&o) {
            out.push(o);
        }
    }
    out
}

fn op_row(name: &str, o: &OpResult) -> String {
    let (f, l) = (&o.figures, &o.figures.lat_us);
    format!(
        "{:<10} {:>10} {:>10.1} {:>8.1} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>7} {:>9}",
        name,
        f.ops,
        f.iops,
        f.mbps,
        fmt_ms(l.mean),
        fmt_ms(l.p50),
        fmt_ms(l.p90),
        fmt_ms(l.p99),
        fmt_ms(l.p99_9),
        fmt_ms(l.max),
        o.errors_total(),
        o.cpu_us_per_op.map_or("-".into(), crate::tables::fmt_num)
    )
}

/// filebench's per-operation table of a file-system workload.
pub fn op_table(w: &WorkloadResult) -> String {
    let c = &OP_COLUMNS;
    let mut s = format!(
        "{:<10} {:>10} {:>10} {:>8} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>7} {:>9}
",
        c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8], c[9], c[10], c[11]
    );
    for (name, o) in op_order(w) {
        writeln!(s, "{}", op_row(name, o)).unwrap();
    }
    s
}

/// filebench's IO Summary in iolab's words: `IO summary: 11566 ops in
/// 1.0 s, 11566.0 ops/s (read 1834.0/s, write 1834.0/s), 286.0 MB/s,
/// mean 14.812 ms/op, CPU 52.1 us/op`.
pub fn io_summary_line(s: &IoSummary, measured_s: f64) -> String {
    // A run shorter than a second (ended on --ops) keeps its milliseconds.
    format!(
        "IO summary: {} ops in {} s, {:.1} ops/s (read {:.1}/s, write {:.1}/s), {:.1} MB/s, mean {} ms/op, CPU {:.1} us/op",
        s.ops,
        crate::terminal::fmt_secs(measured_s),
        s.ops_per_s,
        s.read_ops_per_s,
        s.write_ops_per_s,
        s.mbps,
        fmt_ms(s.lat_mean_us),
        s.cpu_us_per_op
    )
}

/// What a workload's `cpu_basis` means, in a phrase.
pub fn cpu_basis_text(basis: CpuBasis) -> &'static str {
    match basis {
        CpuBasis::Sampled => "the workload's CPU split by count x the mean CPU of sampled operations",
        CpuBasis::Latency => "the workload's CPU split by count x mean latency (operations overlap on a thread, so CPU is not measured per operation)",
    }
}

/// The operations sampled too rarely to have a CPU figure, if any.
pub fn few_samples(w: &WorkloadResult) -> Option<String> {
    if w.cpu_basis != Some(CpuBasis::Sampled) || w.operations.len() < 2 {
        return None;
    }
    let few: Vec<&str> = op_order(w)
        .into_iter()
        .filter(|(_, o)| o.figures.ops > 0 && o.cpu_us_per_op.is_none())
        .map(|(n, _)| n)
        .collect();
    (!few.is_empty()).then(|| {
        format!(
            "fewer than {} sampled: {}",
            super::MIN_CPU_SAMPLES,
            few.join(", ")
        )
    })
}

/// The line under the table when its CPU column needs one: split by
/// latency (not measured), or some operations too rarely sampled. None
/// when every figure comes from samples, or one operation has it all.
pub fn cpu_line(w: &WorkloadResult) -> Option<String> {
    if w.operations.len() < 2 {
        return None;
    }
    match w.cpu_basis {
        Some(b @ CpuBasis::Latency) => Some(format!("CPU us/op: {}", cpu_basis_text(b))),
        _ => few_samples(w).map(|f| format!("CPU us/op: {f}")),
    }
}

/// vdbench's counters on one line.
pub fn counters_line(c: &FilesetCounts) -> String {
    let parts: Vec<String> = crate::compare::ops::counter_list(c)
        .iter()
        .map(|(k, v)| format!("{k} {v}"))
        .collect();
    format!("fileset: {}", parts.join(", "))
}

/// `fileset bigfileset at /mnt/fb: 10000 files in 500 dirs, 1.2 GiB (1000
/// MiB made before the run); made 8000 files and 500 dirs (1000 MiB
/// written) in 4.50 s; 10000 files at the end`. What creation did is
/// said as it was: made, resized (`format=restart`), or `used as found`.
pub fn fileset_line(f: &FilesetResult) -> String {
    let mut s = format!(
        "fileset {} at {}: {} files in {} dirs, {}",
        f.name,
        f.anchor,
        f.files,
        f.dirs,
        format_bytes(f.bytes)
    );
    if f.bytes_prealloc != f.bytes {
        write!(
            s,
            " ({} made before the run)",
            format_bytes(f.bytes_prealloc)
        )
        .unwrap();
    }
    let mut did = Vec::new();
    if f.files_made + f.dirs_made > 0 {
        did.push(format!(
            "made {} files and {} dirs",
            f.files_made, f.dirs_made
        ));
    }
    if f.files_resized > 0 {
        did.push(format!("resized {} files", f.files_resized));
    }
    if did.is_empty() && f.bytes_written == 0 {
        s.push_str("; used as found");
    } else {
        write!(
            s,
            "; {} ({} written) in {:.2} s",
            did.join(", "),
            format_bytes(f.bytes_written),
            f.create_s
        )
        .unwrap();
    }
    match f.files_at_end {
        Some(n) => write!(s, "; {n} files at the end").unwrap(),
        None => s.push_str("; files at the end not known"),
    }
    if f.removed {
        s.push_str(", then removed");
    }
    s
}

/// `errors: stat 3 ENOENT; write 1 ENOSPC`, or nothing without errors.
fn errors_line(w: &WorkloadResult) -> Option<String> {
    let parts: Vec<String> = op_order(w)
        .into_iter()
        .filter(|(_, o)| o.errors_total() > 0)
        .map(|(n, o)| {
            let by: Vec<String> = o.errors.iter().map(|(e, k)| format!("{k} {e}")).collect();
            format!("{n} {}", by.join(", "))
        })
        .collect();
    (!parts.is_empty()).then(|| format!("errors by operation: {}", parts.join("; ")))
}

/// Everything the terminal shows of a file-system workload: the table,
/// the IO Summary, the counters, errors, fallbacks. Empty for a block
/// workload.
pub fn fs_summary(w: &WorkloadResult) -> String {
    let Some(io) = &w.io_summary else {
        return String::new();
    };
    let mut s = op_table(w);
    writeln!(s, "{}", io_summary_line(io, w.measured_s)).unwrap();
    if let Some(c) = cpu_line(w) {
        writeln!(s, "{c}").unwrap();
    }
    if let Some(c) = &w.fileset {
        writeln!(s, "{}", counters_line(c)).unwrap();
    }
    for f in &w.filesets {
        writeln!(s, "{}", fileset_line(f)).unwrap();
    }
    if let Some(e) = errors_line(w) {
        writeln!(s, "{e}").unwrap();
    }
    if let Some(b) = backend_line(w) {
        writeln!(s, "{b}").unwrap();
    }
    s
}

/// The backend the operations really ran on and why system calls; with
/// io_uring, the operations that fell back for lack of an opcode. None
/// for a document from before `backend` with no fallbacks.
pub fn backend_line(w: &WorkloadResult) -> Option<String> {
    let ops = w.sync_ops.join(", ");
    match (w.backend.as_deref(), w.backend_reason.as_deref()) {
        (Some("io_uring") | None, _) if !ops.is_empty() => Some(format!(
            "backend: io_uring; by system calls (no io_uring opcode on this kernel): {ops}"
        )),
        (Some("io_uring"), _) => Some("backend: io_uring".into()),
        (Some(_), Some(why)) => Some(format!("backend: system calls ({why})")),
        (Some(b), None) => Some(format!("backend: {b}")),
        (None, _) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testraw;
    use iolab_raw::RunRaw;

    /// Compare `text` with the file `name` under tests/data, or write it
    /// with `IOLAB_BLESS=1`.
    fn golden(name: &str, text: &str) {
        let path = format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"));
        if std::env::var_os("IOLAB_BLESS").is_some() {
            std::fs::write(&path, text).unwrap();
            return;
        }
        let want = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            want == text,
            "{path} differs from what iolab prints; check the output below and regenerate it with IOLAB_BLESS=1 cargo test -p iolab-report --lib fs::text\n{text}"
        );
    }

    #[test]
    fn golden_per_operation_table_and_io_summary() {
        let r = crate::build_run(&RunRaw::single(testraw::fs_workload("fileserver")));
        let text = fs_summary(&r.workloads[0]);
        golden("fs-summary.txt", &text);
        // The run's summary shows the same table instead of read/write rows.
        let whole = crate::terminal::summary(&r);
        assert!(whole.contains(&text), "{whole}");
        assert!(!whole.contains("\ntotal "), "{whole}");
    }

    #[test]
    fn operations_follow_the_flow_then_table_order() {
        let r = crate::build_run(&RunRaw::single(testraw::fs_workload("fs")));
        let names: Vec<&str> = op_order(&r.workloads[0]).into_iter().map(|x| x.0).collect();
        assert_eq!(
            names,
            ["create", "write", "close", "open", "append", "read", "delete", "stat"]
        );
    }

    #[test]
    fn a_short_run_keeps_its_milliseconds() {
        let s = IoSummary {
            ops: 900,
            ..Default::default()
        };
        assert!(io_summary_line(&s, 0.0364).starts_with("IO summary: 900 ops in 0.036 s,"));
        assert!(io_summary_line(&s, 60.04).starts_with("IO summary: 900 ops in 60.0 s,"));
    }

    #[test]
    fn milliseconds_keep_microsecond_digits() {
        assert_eq!(fmt_ms(5.2), "0.0052");
        assert_eq!(fmt_ms(14_812.4), "14.812");
        assert_eq!(fmt_ms(123_456.0), "123.5");
    }
}
