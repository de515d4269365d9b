//! `iolab study NAME --target ...`: named studies (docs/studies.md).
//!
//! A study is a plan of ordinary runs with role names (`seq-read`,
//! `rand-write-cached`, `rewrite`, ...). The runs go through the same plan
//! and execution as `iolab run`; after every run the study's tables are
//! recomputed into the result document (`iolab_report::study`), and the
//! tables and conclusions are printed at the end.

use crate::exit::bad_input;
use iolab_report::study::{compute, study_text, Study};
use iolab_report::StudyResult;
use std::path::PathBuf;
use std::process::ExitCode;

pub use iolab_plan::study::Args;
use iolab_plan::study::{Planned, Scratch};

pub fn run(args: Args) -> ExitCode {
    let planned = match iolab_plan::study::plan(&args) {
        Ok(p) => p,
        Err(e) => return bad_input(&e),
    };
    let plan = match planned.build() {
        Ok(p) => p,
        Err(e) => return bad_input(&e.message),
    };
    if args.plan.dry_run {
        return dry_run(&planned, &plan);
    }
    let json = args.json.clone().unwrap_or_else(|| {
        PathBuf::from(format!("iolab-study-{}.json", planned.study.kind.name()))
    });
    let out = crate::run::Output {
        json: Some(json),
        quiet: args.quiet,
        findings_log: None,
        temp_file: None,
        force: args.force,
        silent: false,
        fio: None,
        style: Default::default(),
    };
    let (code, last) = execute(planned, plan, out, &mut |_| {});
    if let Some(s) = last {
        outln!();
        out!("{}", study_text(&s));
    }
    code
}

/// `--dry-run`: the same target checks as the real study, creating
/// nothing, and the plan.
pub fn dry_run(planned: &Planned, plan: &iolab_plan::Plan) -> ExitCode {
    if let Err(e) = crate::targets::check_targets(plan) {
        return bad_input(&e);
    }
    outln!(
        "study {}: {}",
        planned.study.kind.name(),
        planned.study.kind.title()
    );
    out!("{}", iolab_plan::dry_run_text(plan));
    ExitCode::SUCCESS
}

/// Run a planned study: after every run its tables are recomputed into
/// the document, `each` sees the document, and the study's scratch files
/// are removed once their cell is done (and at the end, unless the last
/// is to be kept). Returns the exit code and the study's last result.
pub fn execute(
    planned: Planned,
    plan: iolab_plan::Plan,
    out: crate::run::Output,
    each: &mut dyn FnMut(&iolab_report::ResultDoc),
) -> (ExitCode, Option<StudyResult>) {
    let study: Study = planned.study;
    let scratch = planned.scratch;
    let total = plan.runs.len();
    let mut created: Vec<String> = Vec::new();
    let mut last = None;
    let mut done = 0;
    let code = crate::run::execute(plan, out, &mut |doc| {
        let s = compute(&study, doc);
        doc.study = Some(s.clone());
        last = Some(s);
        done = doc.runs.len();
        let keep = scratch.keep_last && done == total;
        if let Some(r) = doc.runs.last() {
            remember_created(&scratch, r, &mut created);
            let test = r.name.rsplit_once('-').map(|(t, _)| t);
            if test.is_some() && scratch.remove_after.as_deref() == test && !keep {
                remove_created(&mut created);
            }
        }
        each(doc);
    });
    if !(scratch.keep_last && done == total) {
        remove_created(&mut created);
    }
    (code, last)
}

fn remember_created(s: &Scratch, r: &iolab_report::RunResult, created: &mut Vec<String>) {
    for t in r.targets.iter().filter(|t| t.created) {
        if s.files.iter().any(|f| f.to_string_lossy() == t.path) && !created.contains(&t.path) {
            created.push(t.path.clone());
        }
    }
}

fn remove_created(created: &mut Vec<String>) {
    for p in created.drain(..) {
        if let Err(e) = std::fs::remove_file(&p) {
            if e.kind() != std::io::ErrorKind::NotFound {
                eprintln!("iolab: cannot remove {p}: {e}");
            }
        }
    }
}
