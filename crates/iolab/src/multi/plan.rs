//! Each host's plan in a multi-host run: the runs with that host's own
//! targets and `destroy_data_on` names, planned as a local run would be
//! (the targets are the host's: nothing here looks at them). Every host
//! must have the same runs, so run `i` is the same run everywhere.

use iolab_jobfile::RunOptions;
use iolab_plan::{Plan, PlanArgs};
use iolab_spec::HostSpec;

/// One plan per host, in the hosts' order; Err: the one line that says
/// what is wrong.
pub fn plan_hosts(
    runs: &[RunOptions],
    hosts: &[HostSpec],
    pa: &PlanArgs,
) -> Result<Vec<Plan>, String> {
    // The targets are on the hosts: none is looked at here.
    iolab_jobfile::without_target_probes();
    let mut plans = Vec::with_capacity(hosts.len());
    for h in hosts {
        let mine = iolab_jobfile::hosts::runs_for_host(runs, h, hosts)
            .map_err(|e| format!("host {}: {e}", h.name))?;
        let plan =
            iolab_plan::build(&mine, pa).map_err(|e| format!("host {}: {}", h.name, e.message))?;
        plans.push(plan);
    }
    same_runs(hosts, &plans)?;
    Ok(plans)
}

/// Every plan has the first's runs: as many, of the same names (their
/// workloads may differ: a vdbench sd defined on some hosts only).
fn same_runs(hosts: &[HostSpec], plans: &[Plan]) -> Result<(), String> {
    let shape = |p: &Plan| -> Vec<String> { p.runs.iter().map(|r| r.spec.name.clone()).collect() };
    let first = shape(&plans[0]);
    for (h, p) in hosts.iter().zip(plans).skip(1) {
        let this = shape(p);
        if this != first {
            return Err(format!(
                "host {} would run {} run{} ({}) where host {} runs {} ({}); every host runs the same runs: give each host its targets for every run",
                h.name,
                this.len(),
                if this.len() == 1 { "" } else { "s" },
                names(&this),
                hosts[0].name,
                first.len(),
                names(&first)
            ));
        }
    }
    Ok(())
}

fn names(runs: &[String]) -> String {
    let all: Vec<&str> = runs.iter().map(String::as_str).collect();
    let mut s = all.iter().take(4).copied().collect::<Vec<_>>().join(", ");
    if all.len() > 4 {
        s.push_str(", ...");
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use iolab_jobfile::WorkloadOptions;

    fn runs(targets: &[&str]) -> Vec<RunOptions> {
        let w = WorkloadOptions {
            target: targets.iter().map(|t| t.to_string()).collect(),
            rw: Some("randread".into()),
            ..Default::default()
        };
        vec![RunOptions::single(0, w)]
    }

    fn hosts() -> Vec<HostSpec> {
        vec![HostSpec::named("h1"), HostSpec::named("h2")]
    }

    #[test]
    fn each_host_plans_its_own_targets() {
        let plans = plan_hosts(
            &runs(&["h1:/dev/sdb", "h2:/dev/sdc"]),
            &hosts(),
            &PlanArgs::default(),
        )
        .unwrap();
        let t = |i: usize| plans[i].runs[0].spec.workloads[0].targets[0].path.clone();
        assert_eq!(
            (t(0), t(1)),
            ("/dev/sdb".to_string(), "/dev/sdc".to_string())
        );
    }

    #[test]
    fn a_host_without_a_target_is_one_line() {
        let e = plan_hosts(&runs(&["h1:/dev/sdb"]), &hosts(), &PlanArgs::default()).unwrap_err();
        assert!(e.contains("h2"), "{e}");
        assert_eq!(e.lines().count(), 1);
    }
}
