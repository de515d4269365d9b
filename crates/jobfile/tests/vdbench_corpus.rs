//! The vdbench corpus: every `tests/vdbench/*.vdb` is parsed and mapped
//! onto iolab's keys, and the result (the equivalent iolab job file with
//! each run's pause and curve, each workload's vdbench section and the
//! notes as comments, or the one-line refusal) must equal
//! `tests/vdbench/NAME.golden`, reviewed by hand.
//! `IOLAB_BLESS=1 cargo test -p iolab-jobfile --test vdbench_corpus`
//! rewrites the golden files.
//!
//! A corpus file's comment lines starting `*% ` set what the user gave:
//! `*% var NAME=VALUE` (the command line's `lun=/dev/sdb`),
//! `*% flags -v -jn` (`--vdbench-flags`), `*% ignore-unsupported`.

use iolab_jobfile::frontend::LoadOptions;
use iolab_jobfile::vdbench::map::{map, translate};
use iolab_jobfile::vdbench::parse::parse;
use std::path::{Path, PathBuf};

mod common;

/// The corpus, then the parameter files of examples/vdbench (run with
/// `lun=/dev/sdb`; their goldens are `tests/vdbench/example-NAME.golden`).
fn corpus() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let files = common::corpus("vdbench", "vdb", 15);
    let examples = common::files_with(&root.join("../../examples/vdbench"), "vdb");
    assert!(!examples.is_empty(), "examples/vdbench has parameter files");
    files.into_iter().chain(examples).collect()
}

fn is_example(p: &Path) -> bool {
    p.parent().is_some_and(|d| d.ends_with("examples/vdbench"))
}

fn golden_of(p: &Path) -> PathBuf {
    if is_example(p) {
        let stem = p.file_stem().unwrap().to_string_lossy();
        Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/vdbench/example-{stem}.golden"))
    } else {
        p.with_extension("golden")
    }
}

fn load_options(path: &Path, text: &str) -> LoadOptions {
    let mut lo = LoadOptions::default();
    if is_example(path) {
        lo.vars.push(("lun".into(), "/dev/sdb".into()));
    }
    for l in text.lines().filter_map(|l| l.strip_prefix("*% ")) {
        let (k, v) = l.split_once(' ').unwrap_or((l, ""));
        match k {
            "ignore-unsupported" => lo.ignore_unsupported = true,
            "flags" => lo
                .vdbench_flags
                .extend(v.split_whitespace().map(str::to_string)),
            "var" => {
                let (n, x) = v.split_once('=').expect("*% var NAME=VALUE");
                lo.vars.push((n.into(), x.into()));
            }
            other => panic!("unknown corpus directive {other}"),
        }
    }
    lo
}

fn render(path: &Path) -> String {
    let name = path.file_name().unwrap().to_string_lossy().to_string();
    let text = std::fs::read_to_string(path).unwrap();
    let lo = load_options(path, &text);
    let out = parse(&name, &text, &lo.vars).and_then(|f| translate(&f, &lo));
    match out {
        Ok(t) => t.to_toml(),
        Err(e) => {
            assert!(
                !e.0.contains('\n'),
                "{}: a refusal is one line: {}",
                path.display(),
                e.0
            );
            format!("error: {}\n", e.0)
        }
    }
}

#[test]
fn corpus_maps_to_its_golden_plans() {
    common::check_goldens(&corpus(), golden_of, render);
}

/// A refusal names the file and line of what it refuses.
#[test]
fn refusals_name_file_and_line() {
    for p in corpus() {
        let name = p.file_name().unwrap().to_string_lossy().to_string();
        if !name.contains("refuse-") {
            continue;
        }
        let got = render(&p);
        let Some(msg) = got.strip_prefix("error: ") else {
            panic!("{name} should be refused: {got}");
        };
        // `name:LINE:`, `name: ` for the whole file or, for a flag,
        // `--vdbench-flags`.
        let placed = msg
            .strip_prefix(&format!("{name}:"))
            .is_some_and(|r| r.starts_with(|c: char| c.is_ascii_digit() || c == ' '));
        assert!(
            placed || msg.starts_with("--vdbench-flags"),
            "{name}: {msg}"
        );
    }
}

/// Every plan of the corpus deserialises into iolab's options.
#[test]
fn corpus_plans_are_iolab_options() {
    for p in corpus() {
        let name = p.file_name().unwrap().to_string_lossy().to_string();
        let text = std::fs::read_to_string(&p).unwrap();
        let lo = load_options(&p, &text);
        let Ok(f) = parse(&name, &text, &lo.vars) else {
            continue;
        };
        let Ok(t) = translate(&f, &lo) else { continue };
        let l = map(&f, &lo).unwrap_or_else(|e| panic!("{name}: {}", e.0));
        assert_eq!(l.runs.len(), t.runs.len(), "{name}");
        for (r, tr) in l.runs.iter().zip(&t.runs) {
            assert_eq!(r.name(), tr.name, "{name}");
            assert_eq!(r.workloads.len(), r.origins.len(), "{name}");
        }
    }
}
