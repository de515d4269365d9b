//! The fio corpus: every `tests/fio/*.fio` is parsed and mapped onto
//! iolab's keys, and the result (the equivalent iolab job file with each
//! job's fio group and the notes as comments, or the one-line refusal)
//! must equal `tests/fio/NAME.golden`, reviewed by hand.
//! `IOLAB_BLESS=1 cargo test -p iolab-jobfile --test fio_corpus`
//! rewrites the golden files.
//!
//! A corpus file's lines starting `#% ` set what the user gave:
//! `#% readonly`, `#% ignore-unsupported`, `#% section NAME`,
//! `#% var NAME=VALUE`.

use iolab_jobfile::fio::map::translate;
use iolab_jobfile::fio::parse::{parse_files_with, read_include, Builtins, Host};
use iolab_jobfile::fio::FioFile;
use iolab_jobfile::frontend::{load_text, LoadOptions};
use iolab_jobfile::JobError;
use std::path::{Path, PathBuf};

mod common;

fn corpus() -> Vec<PathBuf> {
    common::corpus("fio", "fio", 10)
}

fn load_options(text: &str) -> LoadOptions {
    let mut lo = LoadOptions::default();
    for l in text.lines().filter_map(|l| l.strip_prefix("#% ")) {
        let (k, v) = l.split_once(' ').unwrap_or((l, ""));
        match k {
            "readonly" => lo.readonly = true,
            "ignore-unsupported" => lo.ignore_unsupported = true,
            "section" => lo.sections.push(v.to_string()),
            "var" => {
                let (n, x) = v.split_once('=').expect("#% var NAME=VALUE");
                lo.vars.push((n.into(), x.into()));
            }
            other => panic!("unknown corpus directive {other}"),
        }
    }
    lo
}

/// Parse with a machine of fixed size (`$ncpus` and friends stable) and
/// no environment.
fn parse(files: &[(String, String)], vars: &[(String, String)]) -> Result<FioFile, JobError> {
    let host = Host {
        env: &|_| None,
        builtins: Builtins {
            ncpus: 4,
            mb_memory: 1024,
            pagesize: 4096,
        },
        read: &|p| read_include(p),
    };
    parse_files_with(files, vars, &host)
}

fn render(path: &Path) -> (String, Result<(), String>) {
    let name = path.file_name().unwrap().to_string_lossy().to_string();
    let text = std::fs::read_to_string(path).unwrap();
    let lo = load_options(&text);
    let files = [(name, text)];
    let parsed = parse(&files, &lo.vars);
    let out = parsed.and_then(|f| translate(&f, &lo));
    match out {
        Ok(t) => (t.to_toml(), Ok(())),
        Err(e) => {
            assert!(
                !e.0.contains('\n'),
                "{}: a refusal is one line: {}",
                path.display(),
                e.0
            );
            (format!("error: {}\n", e.0), Err(e.0))
        }
    }
}

#[test]
fn corpus_maps_to_its_golden_plans() {
    common::check_goldens(&corpus(), |p| p.with_extension("golden"), |p| render(p).0);
}

/// Keys the engine helpers' branches add (HELPERS-COMMON's contract); a
/// plan that needs one of them cannot be deserialised in a build without
/// it.
const CONTRACT_KEYS: &[&str] = &[
    "bs_write",
    "bs_trim",
    "hole",
    "random_every",
    "offset_increment",
    "distribution",
    "rw",
];

fn param_known(key: &str) -> bool {
    iolab_spec::params::PARAMS.iter().any(|p| p.name == key)
}

/// Every plan of the corpus deserialises into iolab's options: each key
/// the mapper writes is one iolab has, or one of the engine helpers'
/// contract keys (then the plan is checked once their branch is merged).
#[test]
fn corpus_plans_are_iolab_options() {
    for p in corpus() {
        let text = std::fs::read_to_string(&p).unwrap();
        let lo = load_options(&text);
        let files = [(p.file_name().unwrap().to_string_lossy().to_string(), text)];
        let Ok(f) = parse(&files, &lo.vars) else {
            continue;
        };
        let Ok(t) = translate(&f, &lo) else { continue };
        let mut missing = None;
        for (w, _) in t.runs.iter().flat_map(|r| &r.workloads) {
            for k in w.keys().filter(|k| !param_known(k)) {
                assert!(
                    CONTRACT_KEYS.contains(&k.as_str()),
                    "{}: the mapper writes {k}, which iolab does not have",
                    p.display()
                );
                missing = Some(k.clone());
            }
        }
        match (missing, iolab_jobfile::fio::map::map(&f, &lo)) {
            (Some(k), _) => eprintln!(
                "SKIP {}: needs the block driver's key {k}, not in this build",
                p.display()
            ),
            (None, Err(e)) => panic!("{}: {}", p.display(), e.0),
            (None, Ok(l)) => assert_eq!(l.runs.len(), t.runs.len()),
        }
    }
}

/// The front end reads a fio file end to end (parse, then map).
#[test]
fn load_text_maps_a_fio_file() {
    // (No global section here: the parser's tests take literals with one
    // for iolab's TOML.)
    let text = "[a]\nfilename=/tmp/iolab-fio-x\nsize=1m\nrw=read\n[b]\nfilename=/tmp/iolab-fio-x\nsize=1m\nrw=read\nstonewall\n";
    let l = load_text(&[("j.fio".into(), text.into())], &LoadOptions::default()).unwrap();
    assert_eq!(l.runs.len(), 2);
    assert_eq!(l.runs[1].workloads[0].name.as_deref(), Some("b"));
    let o = l.runs[1].origin(0).unwrap();
    assert_eq!(o.section, "b");
    assert_eq!(o.group, 1);
    assert_eq!(o.option("stonewall"), Some(""));
    assert_eq!(o.option("size"), Some("1m"));
}
