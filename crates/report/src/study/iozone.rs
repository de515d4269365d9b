//! iozone: record size x file size for write, rewrite, read, reread,
//! random read and random write, as iozone's table in KB/s (`iozone -a`).

use super::{fig, groups, mean_of, short_size, SpreadNote};
use crate::model::{Chart, RunResult, Series, StudyResult, Table};
use serde_json::Value;

/// One iozone test: the workload name its runs carry, its column, and
/// iozone's test number (`-i N`) that selects it with its pair.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IozoneTest {
    pub name: &'static str,
    pub column: &'static str,
    pub write: bool,
    pub random: bool,
    /// iozone's `-i` number: 0 write/rewrite, 1 read/reread, 2 random.
    pub number: u8,
    /// The second pass over the same file (rewrite, reread): what
    /// iozone's `-+n` leaves out.
    pub retest: bool,
}

const fn test(
    name: &'static str,
    column: &'static str,
    (write, random): (bool, bool),
    (number, retest): (u8, bool),
) -> IozoneTest {
    IozoneTest {
        name,
        column,
        write,
        random,
        number,
        retest,
    }
}

/// The tests in the order they run on each new file (iozone `-i 0 -i 1
/// -i 2`): write creates the file, rewrite writes it again, read and
/// reread read it twice, then random read and random write.
pub const IOZONE_TESTS: [IozoneTest; 6] = [
    test("write", "write", (true, false), (0, false)),
    test("rewrite", "rewrite", (true, false), (0, true)),
    test("read", "read", (false, false), (1, false)),
    test("reread", "reread", (false, false), (1, true)),
    test("random-read", "random read", (false, true), (2, false)),
    test("random-write", "random write", (true, true), (2, false)),
];

/// A cell of the matrix: (file size, record size) and KB/s per test.
pub type Cell = ((u64, u64), [Option<f64>; 6]);

/// The tests a study selected (its `tests` setting: test names joined by
/// commas), as indices into [`IOZONE_TESTS`]; every test when unset.
pub fn selected(settings: &std::collections::BTreeMap<String, String>) -> Vec<usize> {
    match settings.get("tests") {
        Some(t) => IOZONE_TESTS
            .iter()
            .enumerate()
            .filter(|(_, x)| t.split(',').any(|n| n.trim() == x.name))
            .map(|(i, _)| i)
            .collect(),
        None => (0..IOZONE_TESTS.len()).collect(),
    }
}

/// KB/s as iozone counts it: 1024 bytes per KB.
fn kbps(r: &RunResult) -> f64 {
    r.summary.total.mbps * 1e6 / 1024.0
}

/// The matrix from a document's runs: KB/s of every (file size, record
/// size) and test, repetitions averaged, cells in ascending order; and
/// the spread of each point for the large-spread note.
pub(crate) fn cells(runs: &[RunResult]) -> (Vec<Cell>, Vec<SpreadNote>) {
    let mut notes = Vec::new();
    // (file size, record size) -> KB/s per test.
    let mut cells: Vec<Cell> = Vec::new();
    let g = groups(runs, |r| {
        let ti = super::iozone_test(&r.name)?;
        let file = r.targets.first()?.size;
        Some((ti, file, super::bs_of(r)))
    });
    for ((ti, file, rec), rs) in &g {
        let (v, n, cv) = mean_of(rs, kbps);
        notes.push((
            format!(
                "{} {}/{}",
                IOZONE_TESTS[*ti].name,
                short_size(*file),
                short_size(*rec)
            ),
            n,
            cv,
        ));
        let k = (*file, *rec);
        match cells.iter_mut().find(|c| c.0 == k) {
            Some(c) => c.1[*ti] = Some(v),
            None => {
                let mut row = [None; 6];
                row[*ti] = Some(v);
                cells.push((k, row));
            }
        }
    }
    cells.sort_by_key(|c| c.0);
    (cells, notes)
}

pub(super) fn iozone(runs: &[RunResult], r: &mut StudyResult) -> Vec<SpreadNote> {
    let (cells, notes) = cells(runs);
    let shown = selected(&r.settings);
    // iozone's column names, each with its unit (iozone leaves them to
    // its title line).
    let mut columns = vec!["KB".to_string(), "reclen KB".to_string()];
    columns.extend(
        shown
            .iter()
            .map(|&i| format!("{} KB/s", IOZONE_TESTS[i].column)),
    );
    let mut table = Table {
        title: "iozone: KB/s by file size (KB) and record size (reclen, KB)".into(),
        columns,
        rows: Vec::new(),
    };
    for ((file, rec), vals) in &cells {
        let mut row = vec![Value::from(file / 1024), Value::from(rec / 1024)];
        row.extend(
            shown
                .iter()
                .map(|&i| vals[i].map_or(Value::Null, |x| Value::from(x.round() as u64))),
        );
        table.rows.push(row);
    }
    r.tables.push(table);
    let mut files: Vec<u64> = cells.iter().map(|c| c.0 .0).collect();
    files.dedup();
    for &file in &files {
        let mine: Vec<&Cell> = cells.iter().filter(|c| c.0 .0 == file).collect();
        r.charts.push(Chart {
            kind: "line".into(),
            title: format!("iozone: KB/s by record size, file {}", short_size(file)),
            x_label: "record size".into(),
            y_label: "KB/s".into(),
            log_x: true,
            x: mine.iter().map(|c| short_size(c.0 .1)).collect(),
            x_values: mine.iter().map(|c| c.0 .1 as f64).collect(),
            series: IOZONE_TESTS
                .iter()
                .enumerate()
                .filter(|(ti, _)| mine.iter().any(|c| c.1[*ti].is_some()))
                .map(|(ti, t)| Series {
                    name: t.column.into(),
                    values: mine.iter().map(|c| c.1[ti]).collect(),
                })
                .collect(),
            marks: Vec::new(),
        });
    }
    for (ti, t) in IOZONE_TESTS.iter().enumerate() {
        let best = cells
            .iter()
            .filter_map(|c| c.1[ti].map(|v| (c.0, v)))
            .reduce(|a, b| if b.1 > a.1 { b } else { a });
        if let Some(((file, rec), v)) = best {
            r.figures
                .insert(format!("best_{}_kbps", t.name.replace('-', "_")), v);
            if matches!(t.name, "write" | "read") {
                r.conclusions.push(format!(
                    "Best {}: {} KB/s (file {}, record {}).",
                    t.column,
                    fig(v),
                    short_size(file),
                    short_size(rec)
                ));
            }
        }
    }
    let ratio = |a: usize, b: usize| {
        let pairs: Vec<f64> = cells
            .iter()
            .filter_map(|c| match (c.1[a], c.1[b]) {
                (Some(x), Some(y)) if y > 0.0 => Some(x / y),
                _ => None,
            })
            .collect();
        (!pairs.is_empty()).then(|| pairs.iter().sum::<f64>() / pairs.len() as f64)
    };
    if let Some(x) = ratio(3, 2) {
        r.figures.insert("reread_over_read".into(), x);
        if x > 1.5 {
            r.conclusions.push(format!(
                "Reread averages {x:.1}x read: the page cache served the second read; file sizes of 2x RAM or more (or --direct) measure the storage."
            ));
        }
    }
    if let Some(x) = ratio(1, 0) {
        r.figures.insert("rewrite_over_write".into(), x);
        if x > 1.2 {
            r.conclusions.push(format!(
                "Rewrite averages {x:.1}x write: first writes pay for block allocation."
            ));
        }
    }
    notes
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use super::super::*;

    #[test]
    fn iozone_matrix_in_kb_per_s() {
        let mut runs = Vec::new();
        for file in [4u64 << 20, 8 << 20] {
            for rec in [64u64 << 10, 128 << 10] {
                for (i, t) in IOZONE_TESTS.iter().enumerate() {
                    let mut s = spec(&iozone_name(t.name, file, rec));
                    s.bs[0].bytes = rec;
                    s.targets[0].size = Some(file);
                    // MB/s chosen so KB/s is a round number: 1024 KB/s x k.
                    let k = (i + 1) as f64 * if t.name == "reread" { 10.0 } else { 1.0 };
                    runs.push(run(s, 1.0, 1024.0 * k * 1024.0 / 1e6, 1.0));
                }
            }
        }
        let st = Study {
            kind: Kind::Iozone,
            settings: Default::default(),
        };
        let r = compute(&st, &doc(runs));
        let t = &r.tables[0];
        assert_units(&r.tables);
        assert_eq!(
            t.columns,
            [
                "KB",
                "reclen KB",
                "write KB/s",
                "rewrite KB/s",
                "read KB/s",
                "reread KB/s",
                "random read KB/s",
                "random write KB/s"
            ]
        );
        assert_eq!(t.rows.len(), 4);
        assert_eq!(t.rows[0][0], 4096);
        assert_eq!(t.rows[0][1], 64);
        assert_eq!(t.rows[1][1], 128);
        assert_eq!(t.rows[3][0], 8192);
        assert_eq!(t.rows[0][2], 1024);
        assert_eq!(t.rows[0][5], 40960);
        assert_eq!(r.charts.len(), 2);
        assert_eq!(r.charts[0].series.len(), 6);
        let text = r.conclusions.join(" ");
        assert!(text.contains("Reread averages 13.3x read"), "{text}");
        assert!(text.contains("Rewrite averages 2.0x write"), "{text}");
        assert!(
            text.contains("Best write: 1024 KB/s (file 4m, record 64k)"),
            "{text}"
        );
    }
}
