//! Every example job file under examples/ parses and resolves, so the
//! documentation never shows a job iolab would reject (the binary's
//! tests/workloads.rs dry-runs each through the planner).

use iolab_jobfile::{load_job_file, resolve};

#[test]
fn example_job_files_resolve() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    let mut n = 0;
    let mut concurrent = 0;
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_none_or(|x| x != "toml") {
            continue;
        }
        let job = load_job_file(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        let runs = job
            .runs()
            .unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        assert!(!runs.is_empty(), "{}", p.display());
        if runs.iter().any(|r| r.workloads.len() > 1) {
            concurrent += 1;
        }
        let ws = job.workloads();
        assert!(!ws.is_empty(), "{}", p.display());
        for (i, w) in ws.iter().enumerate() {
            let spec =
                resolve(w, i).unwrap_or_else(|e| panic!("{} workload {}: {e}", p.display(), i + 1));
            assert!(
                !spec.targets.is_empty() || spec.fs.is_some(),
                "{}: no target and no --dir",
                p.display()
            );
        }
        n += 1;
    }
    assert!(n >= 8, "found {n} example job files");
    assert!(
        concurrent >= 3,
        "{concurrent} examples with workloads that run together"
    );
}
