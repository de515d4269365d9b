//! The iozone study planned from its matrix: which file sizes, record
//! sizes and tests, where the files go, and how they are opened. `iolab
//! study iozone` builds the matrix from its flags ([`from_args`]),
//! `iolab iozone` from iozone's command line (`super::iozone_cli`).
//!
//! For every cell (file size x record size), the selected tests run in
//! iozone's order on a new file: write creates it, rewrite writes it
//! again, read and reread read it, random read and random write; after
//! the cell's last test the file is removed. With several processes
//! (iozone `-t N`) each test is one run of N workloads at once, each with
//! its own file.

use super::{Args, Planned, Scratch};
use crate::plan::PlanArgs;
use iolab_jobfile::{RunOptions, Values, WorkloadOptions};
use iolab_report::study::{iozone_name, short_size, Kind, Study, IOZONE_TESTS};
use iolab_spec::parse_size;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

const IOZONE_RECORDS: &str = "64k,128k,256k,512k";

/// Where the files go.
#[derive(Debug, Clone, PartialEq)]
pub enum Place {
    /// A file per file size in this directory (`iolab-iozone-SIZE.tmp`).
    Dir(PathBuf),
    /// These files: one, or one per process (iozone `-f`, `-F`).
    Files(Vec<PathBuf>),
}

/// Everything the study's plan follows.
#[derive(Debug, Clone)]
pub struct Matrix {
    /// File sizes, bytes, ascending.
    pub files: Vec<u64>,
    /// Record sizes, bytes, ascending.
    pub records: Vec<u64>,
    /// iozone `-a`'s crossover: files above 16 MiB skip records below
    /// 64 KiB (only when neither sizes nor records were given).
    pub crossover: bool,
    /// Indices into `IOZONE_TESTS`, in run order.
    pub tests: Vec<usize>,
    pub place: Place,
    /// Processes (workloads at once, each with its own file); 1 is
    /// iozone's ordinary mode.
    pub processes: u32,
    pub direct: bool,
    pub buffered: bool,
    /// O_DSYNC (iozone `-o`).
    pub dsync: bool,
    /// An fsync after each write test's last record, timed (iozone `-e`).
    pub fsync: bool,
    pub engine: String,
    /// Keep the last file (iozone `-w`).
    pub keep: bool,
    pub plan: PlanArgs,
}

/// iozone `-a`: above this file size records below [`LARGE_REC`] are skipped.
pub const CROSSOVER: u64 = 16 << 20;
pub const LARGE_REC: u64 = 64 << 10;

impl Matrix {
    /// The cells in run order: every file size, each record size that
    /// fits in it (and, with the crossover, is not too small for it).
    pub fn cells(&self) -> Vec<(u64, u64)> {
        let mut out = Vec::new();
        for &f in &self.files {
            for &r in &self.records {
                let small = self.crossover && f > CROSSOVER && r < LARGE_REC;
                if r <= f && !small {
                    out.push((f, r));
                }
            }
        }
        out
    }

    /// Each process's file for a file size.
    fn paths(&self, file: u64) -> Vec<PathBuf> {
        match &self.place {
            Place::Dir(d) => vec![d.join(format!("iolab-iozone-{}.tmp", short_size(file)))],
            Place::Files(f) => f.clone(),
        }
    }

    /// Every file the plan makes, once.
    pub fn all_paths(&self) -> Vec<PathBuf> {
        let mut out: Vec<PathBuf> = Vec::new();
        for &f in &self.files {
            for p in self.paths(f) {
                if !out.contains(&p) {
                    out.push(p);
                }
            }
        }
        out
    }
}

pub(super) fn size_list(flag: &str, s: &str) -> Result<Vec<u64>, String> {
    let mut out = Vec::new();
    for item in s.split(',') {
        let v = parse_size(item.trim()).map_err(|e| format!("--{flag}: {e}"))?;
        if v == 0 {
            return Err(format!("--{flag}: sizes must be above 0"));
        }
        if !out.contains(&v) {
            out.push(v);
        }
    }
    out.sort_unstable();
    Ok(out)
}

fn sizes_text(v: &[u64]) -> String {
    v.iter()
        .map(|&b| short_size(b))
        .collect::<Vec<_>>()
        .join(",")
}

/// iozone's default file sizes: 2x and 4x RAM, whole GiB, so no cache
/// serves the reads (as in `iozone -n 32G -g 64G` on a 16 GiB host).
fn iozone_default_sizes() -> String {
    let ram = iolab_report::host_info().memory_bytes.max(1 << 30);
    let g = ram.div_ceil(1 << 30);
    format!("{}g,{}g", 2 * g, 4 * g)
}

/// `--tests`: iozone's test numbers (0 write/rewrite, 1 read/reread, 2
/// random read/write), as indices into `IOZONE_TESTS` in run order.
pub fn tests_of(numbers: &[u8], no_retest: bool) -> Vec<usize> {
    IOZONE_TESTS
        .iter()
        .enumerate()
        .filter(|(_, t)| numbers.contains(&t.number) && !(no_retest && t.retest))
        .map(|(i, _)| i)
        .collect()
}

fn tests_flag(s: &str) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    for item in s.split(',') {
        match item.trim() {
            n @ ("0" | "1" | "2") => out.push(n.parse::<u8>().unwrap_or(0)),
            other => {
                return Err(format!(
                    "--tests: '{other}' is not one of iozone's tests iolab runs: 0 (write/rewrite), 1 (read/reread), 2 (random read/write)"
                ))
            }
        }
    }
    Ok(out)
}

/// `iolab study iozone`'s matrix from its flags.
pub(super) fn from_args(a: &Args) -> Result<Matrix, String> {
    if a.target.len() != 1 {
        return Err(
            "the iozone study takes one --target directory; it creates its files there".into(),
        );
    }
    let dir = Path::new(&a.target[0]);
    if !dir.is_dir() {
        return Err(format!(
            "{} is not a directory; the iozone study needs --target DIR and creates a file per file size there",
            dir.display()
        ));
    }
    let sizes_given = a.sizes.clone().unwrap_or_else(iozone_default_sizes);
    let numbers = tests_flag(a.tests.as_deref().unwrap_or("0,1,2"))?;
    Ok(Matrix {
        files: size_list("sizes", &sizes_given)?,
        records: size_list("records", a.records.as_deref().unwrap_or(IOZONE_RECORDS))?,
        crossover: false,
        tests: tests_of(&numbers, false),
        place: Place::Dir(dir.to_path_buf()),
        processes: 1,
        direct: a.direct,
        buffered: a.buffered,
        dsync: false,
        fsync: false,
        engine: a.engine.clone().unwrap_or_else(|| "psync".into()),
        keep: false,
        plan: a.plan.clone(),
    })
}

/// A read test needs the file the write test makes (iozone: "One will
/// always need to specify 0").
fn check_tests(m: &Matrix) -> Result<(), String> {
    if m.tests.is_empty() {
        return Err("no test selected; give iozone's -i 0 (write/rewrite) and others".into());
    }
    if !m.tests.contains(&0) {
        let n = IOZONE_TESTS[m.tests[0]].number;
        let pair = if n == 1 {
            "read/re-read"
        } else {
            "random read/write"
        };
        return Err(format!(
            "-i {n} ({pair}) needs -i 0 (write/rewrite): iozone's other tests measure the file test 0 writes (\"One will always need to specify 0\"); add -i 0 (iolab study iozone: --tests 0,{n})"
        ));
    }
    Ok(())
}

/// Free space for the largest file (times the processes), and no file
/// that exists: iolab writes only files it creates.
fn check_files(m: &Matrix) -> Result<(), String> {
    for p in m.all_paths() {
        if p.symlink_metadata().is_ok() {
            return Err(format!(
                "{} exists; iolab's iozone creates its own files and never writes over one; remove it or name another file",
                p.display()
            ));
        }
        let parent = p
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        if !parent.is_dir() {
            return Err(format!(
                "{} is not a directory, so {} cannot be created there; name a file in an existing directory",
                parent.display(),
                p.display()
            ));
        }
    }
    let largest = m.files.last().copied().unwrap_or(0);
    let need = largest.saturating_mul(m.processes as u64);
    let first = m.all_paths().into_iter().next().unwrap_or_default();
    let dir = first
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    if !m.plan.dry_run {
        if let Some(avail) = crate::space::free_space(dir) {
            if avail < need {
                return Err(format!(
                    "iozone needs {} free in {} for its largest file{}, and {} are free; give smaller file sizes",
                    iolab_spec::format_bytes(need),
                    dir.display(),
                    if m.processes > 1 { "s" } else { "" },
                    iolab_spec::format_bytes(avail)
                ));
            }
        }
    }
    Ok(())
}

/// One process's workload of test `ti` on (file, rec).
fn workload(m: &Matrix, ti: usize, (file, rec): (u64, u64), path: &Path) -> WorkloadOptions {
    let t = IOZONE_TESTS[ti];
    let rw = match (t.write, t.random) {
        (false, false) => "read",
        (true, false) => "write",
        (false, true) => "randread",
        (true, true) => "randwrite",
    };
    let records = (file / rec).max(1);
    WorkloadOptions {
        name: Some(iozone_name(t.name, file, rec)),
        target: vec![path.to_string_lossy().into_owned()],
        size: Some(Values(vec![file.to_string()])),
        io_size: Some(Values(vec![file.to_string()])),
        rw: Some(Values(vec![rw.into()])),
        bs: Some(Values(vec![short_size(rec)])),
        engine: Some(Values(vec![m.engine.clone()])),
        prefill: Some(false),
        direct: m.direct.then(|| true.into()),
        buffered: m.buffered,
        sync: m.dsync.then(|| Values(vec!["dsync".into()])),
        fsync_every: (m.fsync && t.write).then(|| Values(vec![records.to_string()])),
        ..Default::default()
    }
}

/// The iozone study's plan from its matrix.
pub fn plan(m: &Matrix) -> Result<Planned, String> {
    check_tests(m)?;
    check_files(m)?;
    if m.plan.repeat == 0 {
        return Err("--repeat 0 runs nothing; give --repeat 1 or more".into());
    }
    let cells = m.cells();
    if cells.is_empty() {
        return Err(format!(
            "no record size ({}) fits in a file size ({}); give smaller record sizes or larger file sizes",
            sizes_text(&m.records),
            sizes_text(&m.files)
        ));
    }
    let mut workloads = Vec::new();
    let mut groups = Vec::new();
    for _ in 0..m.plan.repeat {
        for &cell in &cells {
            let paths = m.paths(cell.0);
            for &ti in &m.tests {
                if m.processes > 1 {
                    groups.push(RunOptions {
                        index: groups.len(),
                        single: false,
                        run: WorkloadOptions {
                            name: Some(iozone_name(IOZONE_TESTS[ti].name, cell.0, cell.1)),
                            ..Default::default()
                        },
                        workloads: paths
                            .iter()
                            .enumerate()
                            .map(|(i, p)| WorkloadOptions {
                                name: Some(format!("process-{i}")),
                                ..workload(m, ti, cell, p)
                            })
                            .collect(),
                        ..Default::default()
                    });
                } else {
                    workloads.push(workload(m, ti, cell, &paths[0]));
                }
            }
        }
    }
    Ok(Planned {
        study: Study {
            kind: Kind::Iozone,
            settings: settings(m),
        },
        workloads,
        groups,
        // Repetitions are whole passes (each starts with a new file), so
        // the plan itself runs every workload once.
        plan_args: PlanArgs {
            repeat: 1,
            ..m.plan.clone()
        },
        scratch: Scratch {
            files: m.all_paths(),
            remove_after: m.tests.last().map(|&t| IOZONE_TESTS[t].name.to_string()),
            keep_last: m.keep,
        },
    })
}

fn settings(m: &Matrix) -> BTreeMap<String, String> {
    let mut s = BTreeMap::new();
    let targets: Vec<String> = match &m.place {
        Place::Dir(d) => vec![d.display().to_string()],
        Place::Files(f) => f.iter().map(|p| p.display().to_string()).collect(),
    };
    s.insert("targets".into(), targets.join(" "));
    s.insert("sizes".into(), sizes_text(&m.files));
    s.insert("records".into(), sizes_text(&m.records));
    s.insert("repeat".into(), m.plan.repeat.to_string());
    s.insert("engine".into(), m.engine.clone());
    let tests: Vec<&str> = m.tests.iter().map(|&t| IOZONE_TESTS[t].name).collect();
    s.insert("tests".into(), tests.join(","));
    let io = if m.direct { "direct" } else { "buffered" };
    s.insert("io".into(), io.into());
    if m.processes > 1 {
        s.insert("processes".into(), m.processes.to_string());
    }
    if m.dsync {
        s.insert("sync".into(), "dsync".into());
    }
    if m.fsync {
        s.insert("fsync".into(), "after each write test, timed".into());
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cli(line: &str) -> Matrix {
        let v: Vec<String> = line.split_whitespace().map(String::from).collect();
        super::super::iozone_cli::parse(&v).unwrap().unwrap().matrix
    }

    #[test]
    fn only_the_selected_tests_are_planned() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("f");
        let m = cli(&format!(
            "-i 0 -i 2 -s 1m -r 64k -r 256k -f {}",
            f.display()
        ));
        let p = plan(&m).unwrap();
        let names: Vec<&str> = p
            .workloads
            .iter()
            .filter_map(|w| w.name.as_deref())
            .collect();
        assert_eq!(
            names,
            [
                "write-1m/64k",
                "rewrite-1m/64k",
                "random-read-1m/64k",
                "random-write-1m/64k",
                "write-1m/256k",
                "rewrite-1m/256k",
                "random-read-1m/256k",
                "random-write-1m/256k"
            ]
        );
        assert_eq!(p.scratch.remove_after.as_deref(), Some("random-write"));
        assert_eq!(p.scratch.files, std::slice::from_ref(&f));
        assert_eq!(
            p.study.settings["tests"],
            "write,rewrite,random-read,random-write"
        );
        let plan = p.build().unwrap();
        assert_eq!(plan.runs.len(), 8);
        let w = &plan.runs[2].spec.workloads[0];
        assert_eq!((w.read_pct, w.random_pct), (100, 100));
        // -i 1 alone: iozone's rule.
        let e = plan_err(&cli(&format!("-i 1 -s 1m -f {}", f.display())));
        assert!(e.contains("needs -i 0"), "{e}");
    }

    fn plan_err(m: &Matrix) -> String {
        plan(m).err().unwrap()
    }

    #[test]
    fn throughput_mode_is_a_run_of_a_workload_per_process() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a"), dir.path().join("b"));
        let m = cli(&format!(
            "-t 2 -i 0 -e -s 1m -r 64k -F {} {}",
            a.display(),
            b.display()
        ));
        let p = plan(&m).unwrap();
        assert!(p.workloads.is_empty());
        let plan = p.build().unwrap();
        assert_eq!(plan.runs.len(), 2);
        let run = &plan.runs[0].spec;
        assert_eq!(run.name, "write-1m/64k");
        assert_eq!(run.workloads.len(), 2);
        assert_eq!(run.workloads[1].targets[0].path, b.to_str().unwrap());
        // -e: an fsync after the file's 16 records.
        assert_eq!(run.workloads[0].fsync_every, 16);
        assert_eq!(run.workloads[0].io_size, Some(1 << 20));
    }

    #[test]
    fn the_study_takes_iozone_s_test_numbers() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().to_str().unwrap();
        let args = |tests: &str| {
            use clap::Parser;
            #[derive(clap::Parser)]
            struct T {
                #[command(flatten)]
                a: Args,
            }
            T::try_parse_from([
                "t",
                "iozone",
                "--target",
                d,
                "--sizes",
                "1m",
                "--records",
                "64k",
                "--tests",
                tests,
            ])
            .unwrap()
            .a
        };
        let p = super::super::plan(&args("0")).unwrap();
        assert_eq!(p.workloads.len(), 2);
        let e = super::super::plan(&args("1")).err().unwrap();
        assert!(e.contains("--tests 0,1"), "{e}");
        let e = super::super::plan(&args("0,5")).err().unwrap();
        assert!(e.contains("--tests: '5'"), "{e}");
    }
}
