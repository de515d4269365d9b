//! fio's options that couple a job to the others: `exitall` /
//! `exit_what` (one job's end ends others) and `flow` / `flow_id` /
//! `flow_sleep` (token-based flow control) onto iolab's `exitall`,
//! `exit_what`, `flow_weight`, `flow_id` and `flow_sleep`.

use super::job::Keys;
use super::{Job, RunTables};
use crate::resolve::JobError;

/// One job's coupling options.
pub(crate) fn coupling(job: &Job, k: &mut Keys) -> Result<(), JobError> {
    if job.flag("exitall")? == Some(true) {
        k.b("exitall", true);
    }
    if let Some(w) = job.val("exit_what") {
        if !matches!(w, "group" | "stonewall" | "all") {
            return Err(job.bad("exit_what", "fio's exit_what is group, stonewall or all"));
        }
        k.s("exit_what", w);
    }
    let weight = job.val("flow").map(|v| v.trim().parse::<i64>());
    match weight {
        None | Some(Ok(0)) => {}
        Some(Ok(w)) if (1..=u32::MAX as i64).contains(&w) => {
            k.n("flow_weight", w as u64);
            if let Some(id) = job.uint("flow_id")? {
                k.n("flow_id", id);
            }
            if let Some(us) = job.uint("flow_sleep")? {
                k.s("flow_sleep", format!("{us}us"));
            }
        }
        Some(_) => {
            return Err(job.bad(
                "flow",
                "iolab takes a flow weight from 0 (no flow control) to 4294967295",
            ))
        }
    }
    Ok(())
}

/// fio's `exitall` is the whole process's: once any job sets it, every
/// job's end ends the others of its `exit_what` scope.
pub(crate) fn exitall_everywhere(runs: &mut [RunTables]) {
    let any = runs
        .iter()
        .flat_map(|r| &r.workloads)
        .any(|(t, _)| t.get("exitall").and_then(|v| v.as_bool()) == Some(true));
    if any {
        for (t, _) in runs.iter_mut().flat_map(|r| r.workloads.iter_mut()) {
            t.insert("exitall".into(), toml::Value::Boolean(true));
        }
    }
}
