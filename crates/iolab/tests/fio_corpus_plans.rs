//! The fio corpus of crates/jobfile/tests/fio through the binary:
//! `iolab fio --parse-only FILE` (with the file's `#% ` directives as
//! fio's flags) plans every file whose golden text is a plan (exit 0,
//! touching no target), and refuses every other with exactly the golden
//! one-line reason on stderr (exit 2).

mod common;
use common::*;
use std::path::{Path, PathBuf};

fn corpus() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../jobfile/tests/fio");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "fio"))
        .collect();
    files.sort();
    assert!(files.len() >= 10);
    files
}

/// fio's flags for the file's directives; `None` when a directive has no
/// flag of `iolab fio`.
fn flags(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for l in text.lines().filter_map(|l| l.strip_prefix("#% ")) {
        let (k, v) = l.split_once(' ').unwrap_or((l, ""));
        match k {
            "readonly" => out.push("--readonly".into()),
            "ignore-unsupported" => out.push("--ignore-unsupported".into()),
            "section" => out.push(format!("--section={v}")),
            // NAME=VALUE fills ${NAME} through the environment here.
            "var" => {}
            other => panic!("unknown directive {other}"),
        }
    }
    out
}

#[test]
fn every_corpus_file_plans_or_is_refused_as_its_golden_says() {
    for p in corpus() {
        let text = std::fs::read_to_string(&p).unwrap();
        let golden = std::fs::read_to_string(p.with_extension("golden")).unwrap();
        let d = tempfile::tempdir().unwrap();
        let name = p.file_name().unwrap().to_string_lossy().to_string();
        std::fs::copy(&p, d.path().join(&name)).unwrap();
        let mut cmd = iolab();
        cmd.arg("fio")
            .arg("--parse-only")
            .args(flags(&text))
            .arg(&name);
        for l in text.lines().filter_map(|l| l.strip_prefix("#% var ")) {
            let (k, v) = l.split_once('=').unwrap();
            cmd.env(k, v);
        }
        let o = cmd.current_dir(d.path()).output().unwrap();
        let stderr = String::from_utf8_lossy(&o.stderr);
        match golden.strip_prefix("error: ") {
            Some(reason) => {
                assert_eq!(o.status.code(), Some(2), "{name}: {stderr}");
                assert!(
                    stderr.contains(reason.trim()),
                    "{name}: wanted {reason} in {stderr}"
                );
            }
            None => assert!(o.status.success(), "{name}: {stderr}"),
        }
        assert!(
            std::fs::read_dir(d.path()).unwrap().count() == 1,
            "{name}: --parse-only wrote a file"
        );
    }
}

/// A fio job run end to end: clones with their own files (fio's names,
/// fio's sizes), the amount `size x numjobs`, a stonewall, and the
/// `filecreate` engine on the file-system driver.
#[test]
fn a_fio_job_runs_its_clones_files_and_filecreate() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path().display().to_string();
    let job = format!(
        "[w]\ndirectory={dir}\nsize=256k\nbs=4k\nrw=write\nnumjobs=2\nnrfiles=2\n[fc]\ndirectory={dir}\nioengine=filecreate\nnrfiles=10\nstonewall\n"
    );
    std::fs::write(d.path().join("j.fio"), job).unwrap();
    let o = iolab()
        .args(["run", "j.fio", "--json", "out.json"])
        .current_dir(d.path())
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    for f in ["w.0.0", "w.0.1", "w.1.0", "w.1.1"] {
        let len = std::fs::metadata(d.path().join(f)).map(|m| m.len());
        assert_eq!(
            len.ok(),
            Some(128 << 10),
            "{f}: fio's size split over nrfiles"
        );
    }
    let created = std::fs::read_dir(d.path().join("fc"))
        .unwrap()
        .filter(|e| {
            !e.as_ref()
                .unwrap()
                .file_name()
                .to_string_lossy()
                .starts_with('.')
        })
        .count();
    assert_eq!(created, 10);
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.path().join("out.json")).unwrap()).unwrap();
    let runs = doc["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 2, "the stonewall makes two runs");
    let w = &runs[0]["workloads"][0];
    assert_eq!(
        w["summary"]["write"]["bytes"],
        2 * (256 << 10),
        "size x numjobs"
    );
    assert_eq!(w["spec"]["origin"]["section"], "w");
    let fc = &runs[1]["workloads"][0];
    assert_eq!(fc["spec"]["origin"]["group"], 1);
    assert_eq!(fc["summary"]["total"]["ops"], 10);
}
