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

fn fio(text: &str) -> crate::frontend::Loaded {
    let files = [("j.fio".to_string(), text.to_string())];
    crate::frontend::load_text(&files, &LoadOptions::default()).unwrap()
}

/// Each host's targets of run `r`'s workloads.
fn host_targets(l: &crate::frontend::Loaded, hosts: &[HostSpec], h: usize) -> Vec<Vec<String>> {
    let runs = runs_for_host(&l.runs, &hosts[h], hosts).unwrap();
    runs[0].workloads.iter().map(|w| w.target.clone()).collect()
}

#[test]
fn a_fio_job_s_files_under_its_directory_are_each_host_s_own() {
    let hosts = vec![HostSpec::named("h1"), HostSpec::named("h2")];
    let l = fio(
        "[w]\nrw=randwrite\ndirectory=/mnt/nfs\nnrfiles=2\nsize=1m\n\
                 [f]\nrw=read\ndirectory=/mnt/nfs\nfilename=a.dat:/dev/sdb\nsize=1m\n",
    );
    assert_eq!(
        host_targets(&l, &hosts, 0),
        vec![
            vec!["/mnt/nfs/h1.w.0.0", "/mnt/nfs/h1.w.0.1"],
            vec!["/mnt/nfs/h1.a.dat", "/dev/sdb"]
        ]
    );
    assert_eq!(
        host_targets(&l, &hosts, 1)[0],
        vec!["/mnt/nfs/h2.w.0.0", "/mnt/nfs/h2.w.0.1"]
    );
    // The parse-only line shows each host's own names.
    let d = describe(&hosts, &l.runs);
    assert!(d.contains("h2 (/mnt/nfs/h2.w.0.0, "), "{d}");
    // unique_filename=0 keeps fio's shared names; without directory= fio
    // puts no address before a name either.
    let l = fio(
        "[w]\nrw=randwrite\ndirectory=/mnt/nfs\nunique_filename=0\nsize=1m\n\
                 [v]\nrw=randwrite\nsize=1m\n",
    );
    assert_eq!(
        host_targets(&l, &hosts, 1),
        vec![vec!["/mnt/nfs/w.0.0"], vec!["v.0.0"]]
    );
    // A local run is unchanged.
    assert_eq!(l.runs[0].workloads[0].target, vec!["/mnt/nfs/w.0.0"]);
}

#[test]
fn a_vdbench_rate_is_every_host_s_together() {
    let text = include_str!("../../tests/vdbench/hosts-iorate.vdb");
    let l = crate::vdbench::load("hosts-iorate.vdb", text, &LoadOptions::default()).unwrap();
    // (run rate, [(workload, skew)]) of each host, as numbers.
    let shares = |h: usize| {
        let r = &runs_for_host(&l.runs, &l.hosts[h], &l.hosts).unwrap()[0];
        let n = |v: &Option<crate::options::Values>| -> f64 {
            crate::resolve::text(v).unwrap().parse().unwrap()
        };
        let ws: Vec<(String, f64)> = r
            .workloads
            .iter()
            .map(|w| (w.name.clone().unwrap(), n(&w.skew)))
            .collect();
        (n(&r.run.rate), ws)
    };
    let near = |a: f64, b: f64| (a - b).abs() < 0.01;
    let (r1, w1) = shares(0);
    let (r2, w2) = shares(1);
    // vdbench: wd1 (60%) on 2 hosts: 300/s each; wd2 (40%) on 3
    // (sd, host) pairs: 133.33/s each.
    assert!(near(r1, 566.67) && near(r2, 433.33), "{r1} {r2}");
    assert!(near(r1 + r2, 1000.0));
    let rate = |r: f64, ws: &[(String, f64)], name: &str| {
        r * ws.iter().find(|(n, _)| n == name).unwrap().1 / 100.0
    };
    assert!(near(rate(r1, &w1, "wd1/sd1"), 300.0), "{w1:?}");
    assert!(near(rate(r1, &w1, "wd2/sd2"), 133.33), "{w1:?}");
    assert!(near(rate(r2, &w2, "wd1/sd1"), 300.0), "{w2:?}");
    assert!(near(rate(r2, &w2, "wd2/sd1"), 133.33), "{w2:?}");
    assert!(w1.iter().map(|(_, s)| s).sum::<f64>() <= 100.0);
    // One workload on a lun of every host: half the rate each.
    let one =
        "hd=h1\nhd=h2\nsd=sd1,lun=/dev/sdb\nwd=wd1,sd=sd1\nrd=rd1,wd=wd1,iorate=1000,elapsed=10\n";
    let l = crate::vdbench::load("one.vdb", one, &LoadOptions::default()).unwrap();
    for h in &l.hosts {
        let r = &runs_for_host(&l.runs, h, &l.hosts).unwrap()[0];
        assert_eq!(crate::resolve::text(&r.run.rate), Some("500"));
    }
}

#[test]
fn a_file_on_several_hosts_is_noted() {
    let hosts = vec![
        HostSpec::named("h1"),
        HostSpec::named("h2"),
        HostSpec::named("h3"),
    ];
    let l = job(TWO);
    // h2's host-file target /dev/sdz takes the place of /srv/log there.
    assert!(shared_files(&l.runs, &l.hosts).is_empty());
    // /srv/log is every host's; the devices are not files.
    let n = shared_files(&l.runs, &hosts[..2]);
    assert_eq!(n.len(), 1, "{n:?}");
    assert!(
        n[0].starts_with("the same file is a target on several hosts: /srv/log (h1, h2); "),
        "{n:?}"
    );
    assert!(!n[0].contains("/dev/") && !n[0].contains('\n'), "{n:?}");
    // fio's unique_filename gives each host its own file.
    let l = fio("[w]\nrw=randwrite\ndirectory=/mnt/nfs\nsize=1m\n");
    assert!(shared_files(&l.runs, &hosts).is_empty());
    let l = fio("[w]\nrw=randwrite\ndirectory=/mnt/nfs\nunique_filename=0\nsize=1m\n");
    let n = shared_files(&l.runs, &hosts);
    assert!(n[0].contains("/mnt/nfs/w.0.0 (h1, h2, h3)"), "{n:?}");
    assert!(shared_files(&l.runs, &hosts[..1]).is_empty());
}

#[test]
fn an_anchor_on_several_hosts_is_noted_unless_it_names_the_host() {
    let hosts = vec![HostSpec::named("h1"), HostSpec::named("h2")];
    let l = job("[global]\ndir = '/mnt/nfs/fs'\nmix = 'read:1'\n\n[[workload]]\nname = 'w'\n");
    let n = shared_files(&l.runs, &hosts);
    assert_eq!(n.len(), 1, "{n:?}");
    assert!(
        n[0].starts_with(
            "the same directory is the anchor (--dir) on several hosts: /mnt/nfs/fs (h1, h2); "
        ),
        "{n:?}"
    );
    assert!(n[0].contains("--dir /mnt/nfs/fs/{host}"), "{n:?}");
    assert!(shared_files(&l.runs, &hosts[..1]).is_empty());
    let l = job("[global]\ndir = '/mnt/nfs/{host}'\nmix = 'read:1'\n\n[[workload]]\nname = 'w'\n");
    assert!(shared_files(&l.runs, &hosts).is_empty());
    // --parse-only's hosts line names each host's anchor.
    assert_eq!(
        describe(&hosts, &l.runs),
        "hosts: h1 (/mnt/nfs/h1), h2 (/mnt/nfs/h2)"
    );
}

#[test]
fn host_in_a_path_is_each_host_s_name_and_localhost_alone() {
    let l = job(r#"
hosts = ["h1", "h2"]

[global]
dir = "/mnt/shared/{host}"
mix = "read:1"

[[workload]]
name = "blocks"
target = "/mnt/shared/{host}.dat"
destroy_data_on = "/mnt/shared/{host}.dat"

[[workload]]
name = "sets"
filesets = "a(files=10 path=/mnt/other/{host})|b(files=5)"
"#);
    // Each [[workload]] is a run of its own, [global] in its workload.
    for h in &l.hosts {
        let runs = runs_for_host(&l.runs, h, &l.hosts).unwrap();
        let want = format!("/mnt/shared/{}", h.name);
        let w = &runs[0].workloads[0];
        assert_eq!(w.dir.as_ref().unwrap().0, vec![want.clone()]);
        assert_eq!(w.target, vec![format!("{want}.dat")]);
        assert_eq!(w.destroy_data_on, vec![format!("{want}.dat")]);
        let sets = runs[1].workloads[0].filesets.as_deref().unwrap();
        assert!(
            sets.contains(&format!("path=/mnt/other/{}", h.name)),
            "{sets}"
        );
        assert!(!sets.contains(HOST_WORD), "{sets}");
    }
    let local = for_local(&l.runs);
    assert_eq!(
        local[0].workloads[0].dir.as_ref().unwrap().0,
        vec!["/mnt/shared/localhost"]
    );
    assert_eq!(
        local[0].workloads[0].target,
        vec!["/mnt/shared/localhost.dat"]
    );
    // The runs as loaded keep the word, for each host to name.
    let loaded = &l.runs[0].workloads[0];
    assert_eq!(loaded.dir.as_ref().unwrap().0, vec!["/mnt/shared/{host}"]);
}
