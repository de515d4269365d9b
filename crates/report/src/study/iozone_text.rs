//! iozone's own output for `iolab iozone`, from the iozone study's
//! runs: the header block, the table of kB/s (a row per file size and
//! record size, iozone's column names and widths), `-R`'s report
//! sections (record sizes across, file sizes down) and throughput mode's
//! (`-t`) per-test sections. Text only: the binary prints it.
//!
//! iozone prints every column and leaves the tests it did not run blank;
//! this prints the selected tests' columns only, so that a row split on
//! whitespace reads the same values in the same order as iozone's.

use super::iozone::{cells, Cell, IOZONE_TESTS};
use crate::model::RunResult;
use std::fmt::Write;

/// What the text shows, from iozone's options.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Layout {
    /// The settings lines of the header block (iozone's "splash"), each
    /// printed after a tab.
    pub splash: Vec<String>,
    /// The `-i` numbers selected, ascending (0, 1, 2).
    pub numbers: Vec<u8>,
    /// `-+n`: the retests did not run; their columns show 0, as iozone's.
    pub no_retest: bool,
    /// `-R`: the report sections after the table.
    pub excel: bool,
    /// Every record size of the list, ascending: the report sections'
    /// header row.
    pub records: Vec<u64>,
    /// `-t N`: throughput mode with N processes (no table).
    pub throughput: Option<u32>,
}

/// Widths of a test pair's two header cells; the data cells are 9 wide
/// each, and each pair is 18 wide in both (iozone's alignment).
const HEAD_WIDTHS: [(usize, usize); 3] = [(9, 9), (8, 10), (8, 10)];

/// The titles of `-R`'s sections and throughput mode's, by test (index
/// into `IOZONE_TESTS`): report section, children line, summary label.
const TITLES: [(&str, &str, &str); 6] = [
    ("Writer report", "initial writers \t", "Initial write"),
    ("Re-writer report", "rewriters \t", "Rewrite"),
    ("Reader report", "readers \t\t", "Read"),
    ("Re-Reader report", "re-readers \t", "Re-read"),
    ("Random read report", "random readers \t", "Random read"),
    ("Random write report", "random writers \t", "Random write"),
];

impl Layout {
    /// The tests whose columns show, in column order.
    pub fn tests(&self) -> Vec<usize> {
        IOZONE_TESTS
            .iter()
            .enumerate()
            .filter(|(_, t)| self.numbers.contains(&t.number))
            .map(|(i, _)| i)
            .collect()
    }

    fn skipped(&self, ti: usize) -> bool {
        self.no_retest && IOZONE_TESTS[ti].retest
    }
}

/// The header block: what ran, where, and how, as iozone's opens.
pub fn header(l: &Layout, version: &str, began: &str, command: &str) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "\tIozone: Performance Test of File I/O");
    let _ = writeln!(s, "\t        iozone's tests run by iolab {version}");
    let _ = writeln!(s, "\n\tRun began: {began}\n");
    for line in &l.splash {
        let _ = writeln!(s, "\t{line}");
    }
    let _ = writeln!(s, "\tCommand line used: {command}");
    let _ = writeln!(s, "\tOutput is in kBytes/sec");
    if let Some(n) = l.throughput {
        let _ = writeln!(
            s,
            "\tThroughput test with {n} process{}",
            if n == 1 { "" } else { "es" }
        );
    }
    s
}

/// The table's two heading lines (none in throughput mode).
pub fn table_head(l: &Layout) -> String {
    let mut top = format!("{:>16}{:>8}", "", "");
    let mut names = format!("{:>16}{:>8}", "kB", "reclen");
    for &n in &l.numbers {
        let (a, b) = HEAD_WIDTHS[n as usize];
        let (up, low): ((&str, &str), (&str, &str)) = match n {
            0 => (("", ""), ("write", "rewrite")),
            1 => (("", ""), ("read", "reread")),
            _ => (("random", "random"), ("read", "write")),
        };
        // The random pair's second cell is a space and 9 (iozone's).
        let sep = if n == 2 { " " } else { "" };
        let _ = write!(top, "{:>a$}{sep}{:>w$}", up.0, up.1, w = b - sep.len());
        let _ = write!(names, "{:>a$}{sep}{:>w$}", low.0, low.1, w = b - sep.len());
    }
    format!("{}\n{}\n", top.trim_end(), names)
}

/// One row: file size and record size in kB, then kB/s of each column.
pub fn row(cell: &Cell, l: &Layout) -> String {
    let ((file, rec), vals) = cell;
    let mut s = format!("{:>16}{:>8}", file / 1024, rec / 1024);
    for ti in l.tests() {
        match vals[ti] {
            Some(v) => {
                let _ = write!(s, "{:>9}", v.round() as u64);
            }
            None if l.skipped(ti) => {
                let _ = write!(s, "{:>9}", 0);
            }
            None => s.push_str(&" ".repeat(9)),
        }
    }
    format!("{}\n", s.trim_end())
}

/// The row of the cell of (`file`, `rec`) once every selected test that
/// runs has a figure; `None` before that.
pub fn finished_row(runs: &[RunResult], file: u64, rec: u64, l: &Layout) -> Option<String> {
    let (cs, _) = cells(runs);
    let c = cs.iter().find(|c| c.0 == (file, rec))?;
    let done = l
        .tests()
        .iter()
        .all(|&ti| l.skipped(ti) || c.1[ti].is_some());
    done.then(|| row(c, l))
}

/// The end: iozone's closing line and, with `-R`, the report sections
/// (throughput mode: its summary of every test).
pub fn footer(runs: &[RunResult], l: &Layout) -> String {
    let mut s = String::new();
    if l.throughput.is_some() {
        s.push_str(&throughput_summary(runs, l));
        s.push_str("\n\niozone test complete.\n");
        return s;
    }
    s.push_str("\niozone test complete.\n");
    if l.excel {
        s.push_str(&excel(runs, l));
    }
    s
}

/// `-R`: one section per test, record sizes across, file sizes down.
fn excel(runs: &[RunResult], l: &Layout) -> String {
    let (cs, _) = cells(runs);
    let mut s = String::from("Excel output is below:\n");
    for ti in l.tests() {
        let _ = write!(s, "\n\"{}\"\n      ", TITLES[ti].0);
        for r in &l.records {
            let _ = write!(s, "  \"{}\"", r / 1024);
        }
        s.push('\n');
        let mut files: Vec<u64> = cs.iter().map(|c| c.0 .0).collect();
        files.dedup();
        for f in files {
            let _ = write!(s, "\"{}\"  ", f / 1024);
            // A record size the crossover skipped shows 0 (as iozone's
            // placeholder); the row ends at the largest that fits.
            for &r in l.records.iter().take_while(|&&r| r <= f) {
                let c = cs.iter().find(|c| c.0 == (f, r));
                let v = c.and_then(|c| c.1[ti]).map_or(0, |v| v.round() as u64);
                let _ = write!(s, " {v} ");
            }
            s.push('\n');
        }
    }
    s
}

/// The per-process figures of a throughput run: kB/s and kB of each
/// workload (process), and of the whole run.
fn per_process(r: &RunResult) -> (Vec<(f64, f64)>, f64) {
    let each = r
        .workloads
        .iter()
        .map(|w| {
            (
                w.summary.total.mbps * 1e6 / 1024.0,
                w.summary.total.bytes as f64 / 1024.0,
            )
        })
        .collect();
    (each, r.summary.total.mbps * 1e6 / 1024.0)
}

/// Throughput mode: one run's section, as iozone prints it when a test
/// has run on every process ("Children see": the sum of the processes'
/// rates; "Parent sees": every byte over the run's time).
pub fn throughput_section(r: &RunResult, n: u32) -> Option<String> {
    let ti = super::iozone_test(&r.name)?;
    let (each, parent) = per_process(r);
    if each.is_empty() {
        return None;
    }
    let children: f64 = each.iter().map(|e| e.0).sum();
    let min = each.iter().map(|e| e.0).fold(f64::INFINITY, f64::min);
    let max = each.iter().map(|e| e.0).fold(0.0, f64::max);
    let xfer = each.iter().map(|e| e.1).fold(f64::INFINITY, f64::min);
    let who = TITLES[ti].1;
    // iozone pads the count to two places for its first three kinds.
    let n = if ti < 3 {
        format!("{n:2}")
    } else {
        n.to_string()
    };
    let mut s = String::new();
    let _ = writeln!(
        s,
        "\tChildren see throughput for {n} {who}= {children:10.2} kB/sec"
    );
    let _ = writeln!(
        s,
        "\tParent sees throughput for {n} {who}= {parent:10.2} kB/sec"
    );
    let _ = writeln!(s, "\tMin throughput per process \t\t\t= {min:10.2} kB/sec ");
    let _ = writeln!(s, "\tMax throughput per process \t\t\t= {max:10.2} kB/sec");
    let avg = children / each.len() as f64;
    let _ = writeln!(s, "\tAvg throughput per process \t\t\t= {avg:10.2} kB/sec");
    let _ = writeln!(s, "\tMin xfer \t\t\t\t\t= {xfer:10.2} kB");
    Some(format!("\n{s}"))
}

/// Throughput mode's closing summary with `-R`: each test's "Children
/// see" figure.
fn throughput_summary(runs: &[RunResult], l: &Layout) -> String {
    if !l.excel {
        return String::new();
    }
    let rec = l.records.first().copied().unwrap_or(0) / 1024;
    let mut s = format!(
        "\n\n\"Throughput report Y-axis is type of test X-axis is number of processes\"\n\"Record size = {rec} kBytes \"\n\"Output is in kBytes/sec\"\n\n"
    );
    for r in runs {
        let Some(ti) = super::iozone_test(&r.name) else {
            continue;
        };
        let (each, _) = per_process(r);
        let children: f64 = each.iter().map(|e| e.0).sum();
        let _ = write!(s, "\"{:>15} \" {children:10.2} \n\n", TITLES[ti].2);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layout(numbers: &[u8]) -> Layout {
        Layout {
            numbers: numbers.to_vec(),
            records: vec![64 << 10, 128 << 10],
            ..Default::default()
        }
    }

    #[test]
    fn head_and_rows_line_up_as_iozone_s() {
        let l = layout(&[0, 1]);
        let head = table_head(&l);
        let names = head.lines().nth(1).unwrap();
        assert_eq!(
            names,
            "              kB  reclen    write  rewrite    read    reread"
        );
        let c: Cell = (
            (8192 << 10, 64 << 10),
            [
                Some(1.0e6),
                Some(2.0e6),
                Some(3.0e6),
                Some(4.0e6),
                None,
                None,
            ],
        );
        let r = row(&c, &l);
        assert_eq!(
            r,
            "            8192      64  1000000  2000000  3000000  4000000\n"
        );
        // Every column ends where its heading ends.
        assert_eq!(r.trim_end().len(), names.len());
        let l = layout(&[0, 2]);
        let head = table_head(&l);
        let mut lines = head.lines();
        let top = lines.next().unwrap();
        let names = lines.next().unwrap();
        assert_eq!(top.trim(), "random    random");
        assert!(
            names.ends_with("write  rewrite    read     write"),
            "{names}"
        );
        let c: Cell = (
            (1024 << 10, 64 << 10),
            [Some(1.0), Some(2.0), None, None, Some(5.0), Some(6.0)],
        );
        assert_eq!(row(&c, &l).trim_end().len(), names.len());
        assert_eq!(top.len(), names.len());
    }

    #[test]
    fn no_retest_shows_zero_and_excel_sections_follow_the_tests() {
        let mut l = layout(&[0]);
        l.no_retest = true;
        let c: Cell = (
            (512 << 10, 64 << 10),
            [Some(7.0), None, None, None, None, None],
        );
        assert_eq!(
            row(&c, &l).split_whitespace().collect::<Vec<_>>(),
            ["512", "64", "7", "0"]
        );
        l.excel = true;
        let text = footer(&[], &l);
        assert!(
            text.contains("\"Writer report\"\n        \"64\"  \"128\"\n"),
            "{text}"
        );
        assert!(text.contains("\"Re-writer report\""), "{text}");
        assert!(!text.contains("Reader report"), "{text}");
    }

    #[test]
    fn report_rows_keep_their_columns_across_the_crossover() {
        use super::super::iozone_name;
        use super::super::testing::{run, spec};
        let mut l = layout(&[0]);
        l.records = vec![4 << 10, 64 << 10, 128 << 10];
        // 64k file: 4k and 64k records; 32m file: 64k and 128k (the
        // crossover skipped 4k). MB/s chosen for whole kB/s.
        let mut runs = Vec::new();
        for (file, rec, k) in [
            (64u64 << 10, 4u64 << 10, 1.0),
            (64 << 10, 64 << 10, 2.0),
            (32 << 20, 64 << 10, 3.0),
            (32 << 20, 128 << 10, 4.0),
        ] {
            let mut s = spec(&iozone_name("write", file, rec));
            s.bs[0].bytes = rec;
            s.targets[0].size = Some(file);
            runs.push(run(s, 1.0, k * 1024.0 / 1e6, 1.0));
        }
        let text = excel(&runs, &l);
        assert!(
            text.contains("\"Writer report\"\n        \"4\"  \"64\"  \"128\"\n\"64\"   1  2 \n\"32768\"   0  3  4 \n"),
            "{text}"
        );
    }
}
