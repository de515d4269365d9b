//! A plan's targets checked with the engine before its first I/O (and by
//! `--dry-run`): the bridge from the planner (iolab-plan, which does no
//! I/O) to the engine's checks; the anchors of file-system workloads too.

use crate::anchor_trees::Trees;
use iolab_plan::Plan;

/// Check the targets of every run of the plan as the runs will
/// (`iolab_engine::PlanCheck`: existence, ownership, the write-safety checks
/// of devices, free space, regions), creating and writing nothing: a plan
/// that would be refused is refused before its first I/O, and `--dry-run`
/// refuses what the real run would.
pub fn check_targets(plan: &Plan) -> Result<(), String> {
    let mut check = iolab_engine::PlanCheck::new();
    let mut trees = Trees::default();
    let n = plan.runs.len();
    for (i, r) in plan.runs.iter().enumerate() {
        let run = (n > 1).then(|| format!("run {}", i + 1));
        for w in &r.spec.workloads {
            check_workload(&mut check, &mut trees, run.clone(), w, r.is_concurrent()).map_err(
                |e| {
                    if n > 1 {
                        let params = r.params_text();
                        let what = if params.is_empty() {
                            r.spec.name.clone()
                        } else {
                            params
                        };
                        format!("run {}/{n} ({what}): {e}", i + 1)
                    } else {
                        e
                    }
                },
            )?;
        }
    }
    Ok(())
}

/// The targets of one run, checked as [`check_targets`] checks a plan's
/// (the same lines): what an agent checks, under its own host's rules,
/// before it runs what a controller sent (crate::agent).
pub fn check_run(spec: &iolab_spec::RunSpec) -> Result<(), String> {
    let mut check = iolab_engine::PlanCheck::new();
    let mut trees = Trees::default();
    for w in &spec.workloads {
        check_workload(&mut check, &mut trees, None, w, spec.workloads.len() > 1)?;
    }
    Ok(())
}

/// One workload's targets and anchors; a run of several workloads
/// (`concurrent`) names the one refused.
fn check_workload(
    check: &mut iolab_engine::PlanCheck,
    trees: &mut Trees,
    run: Option<String>,
    w: &iolab_spec::WorkloadSpec,
    concurrent: bool,
) -> Result<(), String> {
    check
        .check(w)
        .and_then(|_| {
            check_anchors(w, trees, run).map_err(|e| iolab_engine::RunError::Setup(from_file(w, e)))
        })
        .map_err(|e| {
            if concurrent {
                format!("workload '{}': {e}", w.name)
            } else {
                e.to_string()
            }
        })
}

/// A refused anchor of a workload another tool's file gave (a vdbench
/// fsd's `anchor=`), prefixed with that file and the definitions:
/// `t.vdb: vdbench rd1/fwd1/fsd1: --dir: ...`.
fn from_file(w: &iolab_spec::WorkloadSpec, e: String) -> String {
    match &w.origin {
        Some(o) if o.format != "iolab" => match &o.file {
            Some(f) => format!("{f}: {} {}: {e}", o.format, o.section),
            None => format!("{} {}: {e}", o.format, o.section),
        },
        _ => e,
    }
}

/// The anchors of a file-system workload, checked before anything is
/// created: an anchor that exists is a directory; one that does not has
/// a parent directory that does (iolab creates the anchor, never its
/// parents); one that is not empty holds iolab's marker (the rule the
/// driver applies, checked here without writing, so `--dry-run` refuses
/// what the run would); the tree it holds fits the run's layout under
/// `format=no`, and the run may write there if it would, taking the runs
/// before it in the plan into account (`trees`, crate::anchor_trees).
/// Free space and inodes are the driver's checks.
pub fn check_anchors(
    w: &iolab_spec::WorkloadSpec,
    trees: &mut Trees,
    run: Option<String>,
) -> Result<(), String> {
    let Some(fs) = &w.fs else {
        return Ok(());
    };
    for f in &fs.filesets {
        let a = &f.spec.anchor;
        // A `filesets` entry (a filebench file's fileset) may have a path
        // of its own that no --dir gave: name the fileset instead.
        let flag = if f.make_parent && fs.personality.is_none() {
            format!("fileset {}", f.name)
        } else {
            "--dir".to_string()
        };
        match std::fs::metadata(a) {
            Ok(m) if m.is_dir() => {
                check_marked_or_empty(a).map_err(|e| e.replacen("--dir", &flag, 1))?;
                trees.check(w, f, run.clone(), &flag)?;
                continue;
            }
            Ok(_) => {
                return Err(format!(
                    "{flag}: {} is not a directory; give a directory for the files",
                    a.display()
                ))
            }
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                return Err(format!("{flag}: cannot look at {}: {e}", a.display()))
            }
            Err(_) => {}
        }
        let parent = a
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(std::path::Path::new("."));
        if f.make_parent || fs.personality.is_some() {
            // A personality's or a `filesets` entry's DIR is made by the
            // run (one level, see `make_personality_dirs`); its parent
            // must exist.
            let up = parent
                .parent()
                .filter(|p| !p.as_os_str().is_empty())
                .unwrap_or(std::path::Path::new("."));
            if !parent.is_dir() && !up.is_dir() {
                if flag != "--dir" {
                    return Err(format!(
                        "{flag}: its directory {} does not exist and neither does its parent {}; create {} or give the fileset another path",
                        parent.display(),
                        up.display(),
                        up.display()
                    ));
                }
                return Err(format!(
                    "--dir {} does not exist and neither does its parent {}; create {} or give another --dir (the personality's filesets go to DIR/NAME)",
                    parent.display(),
                    up.display(),
                    up.display()
                ));
            }
            trees.check(w, f, run.clone(), &flag)?;
            continue;
        }
        if !parent.is_dir() {
            return Err(format!(
                "--dir: {} does not exist and neither does its parent {}; iolab creates the anchor but not its parents: create {} or give another --dir",
                a.display(),
                parent.display(),
                parent.display()
            ));
        }
        trees.check(w, f, run.clone(), &flag)?;
    }
    Ok(())
}

/// An existing anchor is empty or holds iolab's marker; otherwise the
/// run would refuse it untouched (iolab-fileset's `Anchor::prepare`).
fn check_marked_or_empty(a: &std::path::Path) -> Result<(), String> {
    let rd =
        std::fs::read_dir(a).map_err(|e| format!("--dir: cannot list {}: {e}", a.display()))?;
    let mut foreign = false;
    for e in rd {
        let e = e.map_err(|e| format!("--dir: cannot list {}: {e}", a.display()))?;
        if e.file_name() == iolab_fileset::MARKER {
            return Ok(());
        }
        foreign = true;
    }
    if foreign {
        return Err(format!(
            "--dir: {} is not empty and has no {} marker; iolab writes only into directories it created or adopted empty: name a new or empty directory",
            a.display(),
            iolab_fileset::MARKER
        ));
    }
    Ok(())
}

/// The `DIR` of each fileset at `DIR/NAME` (a personality's, a
/// `filesets` entry's) of `run` that does not exist yet, made (one
/// level: its parent exists, `check_anchors` saw to that) so that the
/// filesets can be made under it. Only a missing directory is made; the
/// anchor `DIR/NAME` itself then follows the marker rules. Returns what
/// was made, for [`remove_if_empty`] after the run.
pub fn make_personality_dirs(run: &iolab_spec::RunSpec) -> Result<Vec<std::path::PathBuf>, String> {
    let mut made = Vec::new();
    for w in &run.workloads {
        let Some(fs) = w.fs.as_ref() else {
            continue;
        };
        for f in &fs.filesets {
            if !(f.make_parent || fs.personality.is_some()) {
                continue;
            }
            let Some(dir) = f.spec.anchor.parent().filter(|p| !p.as_os_str().is_empty()) else {
                continue;
            };
            if dir.exists() || made.iter().any(|m| m == dir) {
                continue;
            }
            std::fs::create_dir(dir)
                .map_err(|e| format!("--dir: cannot create {}: {e}", dir.display()))?;
            made.push(dir.to_path_buf());
        }
    }
    Ok(made)
}

/// Remove the directories [`make_personality_dirs`] made when nothing
/// was put in them (a run refused before its filesets were made);
/// `remove_dir` leaves a directory that holds anything.
pub fn remove_if_empty(dirs: &[std::path::PathBuf]) {
    for d in dirs.iter().rev() {
        let _ = std::fs::remove_dir(d);
    }
}
