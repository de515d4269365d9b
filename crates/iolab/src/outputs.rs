//! The outputs of `run` and `study`, checked before the first I/O: the
//! result document, the findings logs and the journal directories of a
//! plan, against the rules of iolab_target::output (never a block device,
//! never over a file iolab did not write unless `--force`, never over a
//! target of the same run). A refusal is one line on stderr and exit 2.

use crate::exit::EXIT_BAD_INPUT;
use iolab_target::{check_outputs, OutputError, OutputKind, OutputPath, OutputRules};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Print a refused output and return exit code 2.
pub fn refused(e: &OutputError) -> ExitCode {
    eprintln!("iolab: {e}");
    ExitCode::from(EXIT_BAD_INPUT)
}

/// The findings log a run or verify writes to: `--findings-log`, else
/// `findings.log` in the journal directory, else `iolab-findings.log`.
pub fn findings_log_path(flag: Option<&Path>, journal: Option<&str>) -> PathBuf {
    match (flag, journal) {
        (Some(p), _) => p.to_path_buf(),
        (None, Some(j)) => Path::new(j).join("findings.log"),
        (None, None) => PathBuf::from("iolab-findings.log"),
    }
}

/// A plan's outputs, checked before it runs.
pub struct Checked {
    /// The result document (`--json`).
    pub json: Option<OutputPath>,
    /// fio's JSON when it goes to a file (`--fio-json`, `fio --output`).
    pub fio_json: Option<OutputPath>,
    /// The rules the outputs were checked with (the run's targets
    /// protected): fio's log files, named only by the results, are
    /// checked with them when written.
    pub rules: OutputRules,
}

/// Check every output of a plan before it runs.
pub fn check_run(
    plan: &iolab_plan::Plan,
    out: &crate::run::Output,
) -> Result<Checked, OutputError> {
    let mut rules = OutputRules::new(out.force);
    let mut journals: Vec<&str> = Vec::new();
    let mut logs: Vec<PathBuf> = Vec::new();
    for w in plan.runs.iter().flat_map(|r| &r.spec.workloads) {
        for t in &w.targets {
            rules.protect(Path::new(&t.path), "a target of this run");
        }
        if let Some(j) = w.journal.as_deref() {
            if !journals.contains(&j) {
                journals.push(j);
            }
        }
        if w.verify {
            let j = w.journal.as_deref();
            // The default log in a journal directory the run creates is
            // new by construction.
            if out.findings_log.is_none() && j.is_some_and(|j| !Path::new(j).exists()) {
                continue;
            }
            let p = findings_log_path(out.findings_log.as_deref(), j);
            if !logs.contains(&p) {
                logs.push(p);
            }
        }
    }
    for j in journals {
        iolab_verify::journal::check_dir(Path::new(j)).map_err(|e| OutputError(e.0))?;
    }
    let mut list: Vec<(&str, &Path, OutputKind)> = Vec::new();
    if let Some(p) = &out.json {
        list.push(("--json", p, OutputKind::ResultJson));
    }
    let log_flag = if out.findings_log.is_some() {
        "--findings-log"
    } else {
        "the findings log"
    };
    let fio_file = out.fio.as_ref().and_then(|f| f.file());
    if let Some((flag, p, kind)) = fio_file {
        list.push((flag, p, kind));
    }
    for p in &logs {
        list.push((log_flag, p, OutputKind::FindingsLog));
    }
    let fio_logs = crate::fio_out::planned_logs(plan);
    for p in &fio_logs {
        list.push(("the fio log", p, OutputKind::FioLog));
    }
    let mut checked = check_outputs(&list, &rules)?.into_iter();
    let json = out.json.as_ref().and_then(|_| checked.next());
    let fio_json = fio_file.and_then(|_| checked.next());
    Ok(Checked {
        json,
        fio_json,
        rules,
    })
}
