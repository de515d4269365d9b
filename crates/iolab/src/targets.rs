//! A plan's targets checked with the engine before its first I/O (and by
//! `--dry-run`): the bridge from the planner (iolab-plan, which does no
//! I/O) to the engine's checks.

use iolab_plan::Plan;

/// Check the targets of every run of the plan as the runs will
/// (`iolab_engine::PlanCheck`: existence, ownership, the write-safety checks
/// of devices, free space, regions), creating and writing nothing: a plan
/// that would be refused is refused before its first I/O, and `--dry-run`
/// refuses what the real run would.
pub fn check_targets(plan: &Plan) -> Result<(), String> {
    let mut check = iolab_engine::PlanCheck::new();
    let n = plan.runs.len();
    for (i, r) in plan.runs.iter().enumerate() {
        for w in &r.spec.workloads {
            check.check(w).map_err(|e| {
                // A run of several workloads names the one refused.
                let e = if r.is_concurrent() {
                    format!("workload '{}': {e}", w.name)
                } else {
                    e.to_string()
                };
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
            })?;
        }
    }
    Ok(())
}
