//! Tests of the runs per host, the local check and the parse-only line.

use super::*;
use crate::frontend::{load, LoadOptions};

fn job(text: &str) -> crate::frontend::Loaded {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("j.toml");
    std::fs::write(&p, text).unwrap();
    load(&p, &LoadOptions::default()).unwrap()
}

fn job_err(text: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("j.toml");
    std::fs::write(&p, text).unwrap();
    load(&p, &LoadOptions::default()).unwrap_err().0
}

const TWO: &str = r#"
hosts = ["h1", "root@h2:2222 /dev/sdz"]

[global]
rw = "randread"
destroy_data_on = { h1 = "/dev/sdb" }

[[run]]
name = "shared"
[[run.workload]]
name = "db"
target = { h1 = "/dev/sdb", h2 = ["/dev/mapper/mpatha", "/dev/sdc"] }
[[run.workload]]
name = "log"
target = "/srv/log"
"#;

#[test]
fn each_host_keeps_its_own_names_and_those_of_every_host() {
    let l = job(TWO);
    assert_eq!(l.hosts.len(), 2);
    assert_eq!(l.hosts[1].user.as_deref(), Some("root"));
    assert_eq!(l.hosts[1].port, Some(2222));
    assert_eq!(l.hosts[1].targets, vec!["/dev/sdz"]);
    let h1 = runs_for_host(&l.runs, &l.hosts[0], &l.hosts).unwrap();
    assert_eq!(h1[0].workloads[0].target, vec!["/dev/sdb"]);
    assert_eq!(h1[0].workloads[1].target, vec!["/srv/log"]);
    assert_eq!(h1[0].run.destroy_data_on, vec!["/dev/sdb"]);
    assert!(h1[0].overrides.target.is_empty());
    let h2 = runs_for_host(&l.runs, &l.hosts[1], &l.hosts).unwrap();
    assert_eq!(
        h2[0].workloads[0].target,
        vec!["/dev/mapper/mpatha", "/dev/sdc"]
    );
    assert!(h2[0].run.destroy_data_on.is_empty());
    // The host file's target is h2's --target: it replaces the file's.
    assert_eq!(h2[0].overrides.target, vec!["/dev/sdz"]);
}

#[test]
fn command_line_targets_go_to_their_host() {
    let mut l = job(TWO);
    l.runs[0].overrides.target = vec!["h1:/dev/sdq".into(), "/dev/all".into()];
    l.runs[0].overrides.destroy_data_on = vec!["h2:/dev/sdc".into()];
    let h1 = runs_for_host(&l.runs, &l.hosts[0], &l.hosts).unwrap();
    assert_eq!(h1[0].overrides.target, vec!["/dev/sdq", "/dev/all"]);
    assert!(h1[0].overrides.destroy_data_on.is_empty());
    let h2 = runs_for_host(&l.runs, &l.hosts[1], &l.hosts).unwrap();
    assert_eq!(h2[0].overrides.target, vec!["/dev/all", "/dev/sdz"]);
    assert_eq!(h2[0].overrides.destroy_data_on, vec!["/dev/sdc"]);
}

#[test]
fn a_workload_without_a_target_on_one_host_is_refused_by_name() {
    let text = r#"
hosts = ["h1", "h2"]
[[workload]]
name = "db"
target = { h1 = "/dev/sdb" }
"#;
    let l = job(text);
    assert!(runs_for_host(&l.runs, &l.hosts[0], &l.hosts).is_ok());
    let e = runs_for_host(&l.runs, &l.hosts[1], &l.hosts).unwrap_err();
    assert_eq!(
        e,
        "workload 'db' has no target on host h2; give --target h2:PATH or a target map entry for h2"
    );
    // Unnamed, in a run of several.
    let text = r#"
hosts = ["h1", "h2"]
[[run]]
name = "r"
[[run.workload]]
target = "/a"
[[run.workload]]
target = { h2 = "/b" }
"#;
    let l = job(text);
    let e = runs_for_host(&l.runs, &l.hosts[0], &l.hosts).unwrap_err();
    assert!(
        e.starts_with("workload 2 of run 'r' has no target on host h1"),
        "{e}"
    );
}

#[test]
fn a_name_of_a_host_not_in_the_run_is_refused() {
    let l = job("hosts = [\"h1\", \"h2\"]\n[global]\ntarget = { h3 = \"/dev/sdb\" }\n");
    let e = runs_for_host(&l.runs, &l.hosts[0], &l.hosts).unwrap_err();
    assert!(
        e.starts_with(
            "target 'h3:/dev/sdb' names host h3, which is not one of the run's hosts (h1, h2)"
        ),
        "{e}"
    );
}

#[test]
fn a_run_on_this_host_alone_refuses_a_host_map() {
    let l = job("[global]\ntarget = { h1 = \"/dev/sdb\" }\n");
    assert!(l.hosts.is_empty());
    let e = check_local(&l.runs).unwrap_err();
    assert!(
        e.starts_with("target 'h1:/dev/sdb' names host h1; give --hosts h1,... to run on hosts"),
        "{e}"
    );
    let l = job("[global]\ntarget = \"/tmp/x\"\ndestroy_data_on = { h1 = \"/tmp/x\" }\n");
    assert!(check_local(&l.runs)
        .unwrap_err()
        .starts_with("destroy-data-on 'h1:/tmp/x' names host h1"));
    // Paths, including one with ':' written ./NAME, pass.
    let l = job("[global]\ntarget = [\"/tmp/a:b\", \"./c:d\", \"/dev/sdb\"]\n");
    assert!(check_local(&l.runs).is_ok());
}

#[test]
fn describe_lists_each_host_its_reach_and_targets() {
    let l = job(TWO);
    assert_eq!(
        describe(&l.hosts, &l.runs),
        "hosts: h1 (/dev/sdb, /srv/log), h2 via root@h2:2222 (/dev/sdz)"
    );
    let hosts = vec![HostSpec {
        address: Some("fe80::1".into()),
        port: Some(22),
        ..HostSpec::named("a")
    }];
    assert_eq!(describe(&hosts, &[]), "hosts: a via [fe80::1]:22");
}

#[test]
fn bad_host_maps_and_hosts_are_one_line_with_the_line() {
    let e = job_err("[global]\ntarget = {}\n");
    assert!(
        e.contains("line 2") && e.contains("at least one host"),
        "{e}"
    );
    let e = job_err("[global]\ntarget = { \"root@h1\" = \"/x\" }\n");
    assert!(
        e.contains("line 2") && e.contains("'root@h1' is not a host's name"),
        "{e}"
    );
    let e = job_err("[global]\ntarget = { \"a b\" = \"/x\" }\n");
    assert!(e.contains("'a b' is not a host's name"), "{e}");
    let e = job_err("[global]\ntarget = { h1 = 3 }\n");
    assert!(
        e.contains("line 2") && e.contains("host h1: expected a path as a string"),
        "{e}"
    );
    let e = job_err("[global]\ntarget = { h1 = [] }\n");
    assert!(e.contains("host h1: give at least one path"), "{e}");
    let e = job_err("hosts = [\"h1\", \"h1 /dev/sdb\"]\n[global]\ntarget = \"/x\"\n");
    assert!(
        e.contains("line 1: hosts[1] 'h1 /dev/sdb': host 'h1' is named twice"),
        "{e}"
    );
    let e = job_err("\n\nhosts = [\"h1:0\"]\n");
    assert!(
        e.contains("line 3: hosts[0]") && e.contains("is not a port"),
        "{e}"
    );
    let e = job_err("[global]\nhosts = [\"h1\"]\n");
    assert!(
        e.contains("line 2") && e.contains("hosts is a key of the whole file"),
        "{e}"
    );
    let e = job_err("hosts = \"h1\"\n");
    assert!(
        e.contains("line 1") && e.contains("one host a string"),
        "{e}"
    );
    let e = job_err("hosts = [\"  \"]\n");
    assert!(e.contains("give a host"), "{e}");
    assert!(!e.contains('\n'), "{e}");
}

#[test]
fn a_vdbench_workload_runs_only_where_its_sd_has_a_lun() {
    let text = include_str!("../../tests/vdbench/hosts-luns.vdb");
    let l = crate::vdbench::load("hosts-luns.vdb", text, &LoadOptions::default()).unwrap();
    let names: Vec<&str> = l.hosts.iter().map(|h| h.name.as_str()).collect();
    assert_eq!(names, vec!["hd1", "hd2", "hd3"]);
    assert_eq!(l.hosts[0].address.as_deref(), Some("san-a"));
    assert_eq!(l.hosts[2].address, None);
    assert_eq!(l.hosts[2].user.as_deref(), Some("root"));
    let targets = |h: usize| -> Vec<Vec<String>> {
        let runs = runs_for_host(&l.runs, &l.hosts[h], &l.hosts).unwrap();
        assert_eq!(runs[0].origins.len(), runs[0].workloads.len());
        runs[0].workloads.iter().map(|w| w.target.clone()).collect()
    };
    assert_eq!(targets(0), vec![vec!["/dev/sdb"]]);
    assert_eq!(
        targets(1),
        vec![vec!["/dev/mapper/mpatha"], vec!["/dev/sdc"]]
    );
    assert_eq!(targets(2), vec![vec!["/dev/sdd"]]);
    // A host where none of the run's storage is.
    let mut hosts = l.hosts.clone();
    hosts.push(HostSpec::named("hd4"));
    let e = runs_for_host(&l.runs, &hosts[3], &hosts).unwrap_err();
    assert!(
        e.starts_with("run 'rd1' has no workload on host hd4"),
        "{e}"
    );
}
