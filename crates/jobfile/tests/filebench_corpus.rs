//! The filebench corpus: every `tests/filebench/*.f` (WML written for
//! these tests) is parsed and mapped onto iolab's keys, and the result
//! (the equivalent iolab job file with the origin and the notes as
//! comments, or the one-line refusal) must equal
//! `tests/filebench/NAME.golden`, reviewed by hand.
//! `IOLAB_BLESS=1 cargo test -p iolab-jobfile --test filebench_corpus`
//! rewrites the golden files.
//!
//! A corpus file's lines starting `#% var NAME=VALUE` give what the user
//! put after the file on the command line.

use iolab_jobfile::filebench::{looks_like_filebench, map::translate, parse::parse};
use iolab_jobfile::frontend::LoadOptions;
use std::path::{Path, PathBuf};

mod common;

fn corpus() -> Vec<PathBuf> {
    common::corpus("filebench", "f", 10)
}

fn load_options(text: &str) -> LoadOptions {
    let mut lo = LoadOptions::default();
    for l in text.lines().filter_map(|l| l.strip_prefix("#% ")) {
        let (k, v) = l.split_once(' ').unwrap_or((l, ""));
        match k {
            "var" => {
                let (n, x) = v.split_once('=').expect("#% var NAME=VALUE");
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
    let lo = load_options(&text);
    let out = parse(&name, &text).and_then(|w| translate(&w, &lo));
    match out {
        Ok(t) => t.to_toml(),
        Err(e) => {
            assert!(
                !e.0.contains('\n'),
                "{}: a refusal is one line: {}",
                path.display(),
                e.0
            );
            assert!(
                e.0.starts_with(&format!("{name}:")),
                "{}: a refusal names the file (and line): {}",
                path.display(),
                e.0
            );
            format!("error: {}\n", e.0)
        }
    }
}

#[test]
fn corpus_maps_to_its_golden_plans() {
    let files = corpus();
    for p in &files {
        let text = std::fs::read_to_string(p).unwrap();
        assert!(looks_like_filebench(&text), "{} is recognised", p.display());
    }
    common::check_goldens(&files, |p| p.with_extension("golden"), render);
}

/// Every refusal in the corpus (`refuse-*.f`) is one line naming the
/// file and the line of the word at fault.
#[test]
fn refusals_name_file_and_line() {
    let mut n = 0;
    for p in corpus() {
        let name = p.file_name().unwrap().to_string_lossy().to_string();
        if !name.starts_with("refuse-") {
            continue;
        }
        n += 1;
        let got = render(&p);
        let rest = got
            .strip_prefix(&format!("error: {name}:"))
            .unwrap_or_else(|| panic!("{name} is refused with its name: {got}"));
        let line: String = rest.chars().take_while(char::is_ascii_digit).collect();
        assert!(!line.is_empty(), "{name}: the refusal gives a line: {got}");
    }
    assert!(n >= 5, "{n} refusal cases");
}

/// The corpus's six personality shapes (`fb-NAME.f`, our own WML) give
/// the flows of `--personality NAME` step for step (rates and think
/// times included) and its filesets' counts, widths, sizes and prealloc.
#[test]
fn personality_shapes_give_the_built_in_flows_and_filesets() {
    use iolab_spec::fileset::{FileSize, Shape};
    use iolab_spec::fs::FsWork;
    use iolab_spec::fs_parse::{flow_text, size_text};
    use iolab_spec::personality::{personality, Overrides, NAMES};
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/filebench");
    for name in NAMES {
        let f = dir.join(format!("fb-{name}.f"));
        let text = std::fs::read_to_string(&f).unwrap();
        let lo = LoadOptions {
            vars: vec![("dir".into(), "/d".into())],
            ..Default::default()
        };
        let t = translate(&parse("x.f", &text).unwrap(), &lo).unwrap();
        let p = personality(name, Path::new("/d"), &Overrides::default()).unwrap();
        let names: Vec<&str> = p.fs.filesets.iter().map(|f| f.name.as_str()).collect();
        let FsWork::Flows(flows) = &p.fs.work else {
            panic!("{name} has flows")
        };
        let want: Vec<String> = flows.iter().map(|f| flow_text(f, &names)).collect();
        assert_eq!(
            t.workload["flow"].as_str().unwrap(),
            want.join(" | "),
            "{name}"
        );
        assert_eq!(t.workload["dir"].as_str().unwrap(), "/d");
        let sets: Vec<String> =
            p.fs.filesets
                .iter()
                .map(|s| {
                    let Shape::Entries(e) = &s.spec.shape else {
                        panic!("filebench's shape")
                    };
                    let size = match e.size {
                        FileSize::Fixed(b) => size_text(b),
                        FileSize::Gamma { mean, .. } => format!("gamma:{}", size_text(mean)),
                    };
                    assert_eq!(s.spec.anchor, Path::new("/d").join(&s.name));
                    format!(
                        "{}(files={} dir_width={} size={size} prealloc={}",
                        s.name, e.entries, e.dir_width, e.prealloc
                    )
                })
                .collect();
        let got: Vec<String> = t.workload["filesets"]
            .as_str()
            .unwrap()
            .split(" | ")
            .map(|s| {
                s.split(" reuse")
                    .next()
                    .unwrap()
                    .split(" readonly")
                    .next()
                    .unwrap()
            })
            .map(|s| s.trim_end_matches(')').to_string())
            .collect();
        assert_eq!(got, sets, "{name}");
        assert_eq!(t.workload.get("sync").is_some(), p.dsync, "{name}");
        assert_eq!(t.workload["duration"].as_str(), Some("60s"), "{name}");
    }
}

/// Every corpus file that is not a refusal loads through the front end
/// (`iolab run FILE.f`'s path: the keys exist in this build) and its one
/// workload resolves into a plan (the flows valid: one open file per
/// thread, steps and threads within bounds).
#[test]
fn every_mapped_file_resolves_into_a_plan() {
    let mut n = 0;
    for p in corpus() {
        let name = p.file_name().unwrap().to_string_lossy().to_string();
        if name.starts_with("refuse-") {
            continue;
        }
        n += 1;
        let text = std::fs::read_to_string(&p).unwrap();
        let mut lo = load_options(&text);
        if !lo.vars.iter().any(|(k, _)| k == "dir") {
            lo.vars.push(("dir".into(), "/mnt/iolab-fb-corpus".into()));
        }
        let loaded =
            iolab_jobfile::frontend::load(&p, &lo).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(loaded.runs.len(), 1, "{name}");
        let r = &loaded.runs[0];
        assert_eq!(r.workloads.len(), 1, "{name}");
        assert_eq!(r.origins[0].as_ref().unwrap().format, "filebench", "{name}");
        let o = r.run.overlay(&r.workloads[0]).overlay(&r.overrides);
        let points = o.expand();
        assert_eq!(points.len(), 1, "{name}");
        let spec =
            iolab_jobfile::resolve(&points[0].0, 0).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(spec.fs.is_some(), "{name} is a file-system workload");
    }
    assert!(n >= 15, "{n} mapped files");
}
