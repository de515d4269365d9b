//! A file-system workload on several hosts without ssh: the agents are
//! this build's binary started through a local remote shell (`--remote-shell
//! 'env IOLAB_HOST={host}'`). Both "hosts" share this machine's file
//! system, as hosts on NFS or a cluster file system share one: `{host}` in
//! `--dir` gives each its own anchor. Checked: each host's tree against
//! `find`, the aggregate against the hosts' sum, and the hosts' fileset
//! creation shown on the controller. No root needed.

mod common;
use common::*;
use serde_json::Value;
use std::path::Path;
use std::process::Command;

fn bin() -> String {
    assert_cmd::cargo::cargo_bin("iolab")
        .to_string_lossy()
        .into_owned()
}

/// Files under `dir` as `find -type f` counts them, the marker left out.
fn find_files(dir: &Path) -> u64 {
    let o = Command::new("find")
        .arg(dir)
        .args(["-type", "f", "!", "-name", ".iolab-fileset"])
        .output()
        .expect("find");
    assert!(o.status.success(), "find {}", dir.display());
    String::from_utf8_lossy(&o.stdout).lines().count() as u64
}

fn ops(w: &Value, op: &str) -> u64 {
    w["operations"][op]["ops"].as_u64().unwrap_or(0)
}

#[test]
fn host_in_dir_gives_each_host_its_own_fileset_and_the_total_is_their_sum() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("{host}");
    let json = t.path().join("r.json");
    let o = Command::new(bin())
        .current_dir(t.path())
        .args(["run", "--remote-shell", "env IOLAB_HOST={host}"])
        .args(["--agent-path", &bin(), "--hosts", "h1,h2"])
        .args(["--dir", dir.to_str().unwrap()])
        .args(["--mix", "read:40,create:20,delete:20,stat:20"])
        .args(["--files", "60", "--file-size", "8k", "--prealloc", "50"])
        .args(["--ops", "4000", "--interval", "0.5s"])
        .args(["--json", json.to_str().unwrap()])
        .output()
        .unwrap();
    let (err, out) = (stderr(&o), stdout(&o));
    assert_eq!(o.status.code(), Some(0), "{err}");
    let doc: Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let run = &doc["runs"][0];
    let hosts = run["hosts"].as_array().unwrap();
    assert_eq!(hosts.len(), 2);
    let mut sum = [0u64; 4];
    for h in hosts {
        let name = h["host"].as_str().unwrap();
        let anchor = t.path().join(name);
        let a = anchor.display();
        // Its own anchor, marked, and the heading names it.
        assert!(anchor.join(".iolab-fileset").is_file(), "{a}: no marker");
        assert!(out.contains(&format!("{name} {a}")), "{out}");
        // The agent's creation line reached the controller.
        assert!(
            err.contains(&format!("host {name}: fileset at {a}: 60 of 60 files")),
            "{err}"
        );
        let w = &h["workloads"][0];
        let at_end = u(w, "filesets.0.files_at_end");
        assert_eq!(find_files(&anchor), at_end, "{a}");
        assert_eq!(w["filesets"][0]["anchor"], a.to_string().as_str());
        for (i, op) in ["read", "create", "delete", "stat"].iter().enumerate() {
            sum[i] += ops(w, op);
        }
        assert!(ops(w, "create") > 0 && ops(w, "delete") > 0, "{name}");
    }
    assert!(
        !t.path().join("{host}").exists(),
        "an anchor named {{host}}"
    );
    let total = &run["workloads"][0];
    for (i, op) in ["read", "create", "delete", "stat"].iter().enumerate() {
        assert_eq!(ops(total, op), sum[i], "{op}: total against the hosts' sum");
    }
    assert_eq!(sum.iter().sum::<u64>(), 8000, "--ops 4000 on each host");
}
