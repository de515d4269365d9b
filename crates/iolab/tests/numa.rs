//! NUMA placement (fio `numa_cpu_nodes`, `numa_mem_policy`): a workload
//! on node 0 runs; a node this machine does not have plans (it is not a
//! parse-time question) but stops the run before any I/O, in one line.

mod common;
use common::*;

fn args<'a>(nodes: &'a str, policy: &'a str) -> Vec<&'a str> {
    vec![
        "--target",
        "n.dat",
        "--size",
        "4m",
        "--engine",
        "null",
        "--duration",
        "1s",
        "--numa-cpu-nodes",
        nodes,
        "--numa-mem-policy",
        policy,
    ]
}

#[test]
fn node_0_runs_and_a_missing_node_stops_before_any_io() {
    let d = tempfile::tempdir().unwrap();
    iolab_testutil::require!(
        std::path::Path::new("/sys/devices/system/node/node0").is_dir(),
        "no NUMA node 0 in /sys/devices/system/node (kernel without NUMA)"
    );
    let (out, doc) = run_json(&args("0", "bind:0"), d.path());
    assert!(out.status.success(), "{}", stderr(&out));
    let w = ptr(&doc, "runs.0.workloads.0");
    assert_eq!(w["spec"]["numa"]["cpu_nodes"][0], 0, "{}", w["spec"]);
    assert_eq!(w["spec"]["numa"]["mem"]["mode"], "bind");
    assert!(f(w, "summary.total.ops") > 0.0);

    let planned = iolab()
        .arg("run")
        .args(args("1000", "interleave:0"))
        .arg("--dry-run")
        .current_dir(d.path())
        .output()
        .unwrap();
    assert!(planned.status.success(), "{}", stderr(&planned));
    let out = iolab()
        .arg("run")
        .args(args("1000", "interleave:0"))
        .current_dir(d.path())
        .output()
        .unwrap();
    assert_bad_input(&out, "NUMA node 1000 does not exist");
    let out = iolab()
        .arg("run")
        .args(args("0", "prefer:1000"))
        .current_dir(d.path())
        .output()
        .unwrap();
    assert_bad_input(&out, "NUMA node 1000 does not exist");
}
