//! The hosts of a multi-host run as the front ends name them, checked
//! with `--parse-only` (no host is contacted, no target looked at): an
//! iolab job file's `hosts` key and per-host target maps, `--hosts` and a
//! host file's targets, fio's `--client`, vdbench's `hd=`; and the
//! one-line refusals of what names hosts wrongly.

mod common;
use common::*;
use std::path::Path;

const JOB: &str = r#"
hosts = ["h1", "root@h2:2222"]

[global]
rw = "randread"
size = "16m"
duration = "2s"

[[run]]
name = "shared"
[[run.workload]]
name = "db"
target = { h1 = "/dev/sdb", h2 = "/dev/mapper/mpatha" }
"#;

fn write(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

/// The plan lines printed after `host NAME:`, up to the next host.
fn plan_of<'a>(out: &'a str, host: &str) -> &'a str {
    let start = out
        .find(&format!("host {host}:\n"))
        .unwrap_or_else(|| panic!("no plan of host {host} in {out}"));
    let rest = &out[start + 1..];
    let end = rest.find("\nhost ").map_or(rest.len(), |i| i + 1);
    &out[start..start + 1 + end]
}

#[test]
fn job_file_hosts_and_target_maps_plan_each_host_on_its_own_device() {
    let dir = tempfile::tempdir().unwrap();
    let job = write(dir.path(), "j.toml", JOB);
    let o = iolab()
        .args(["run", &job, "--parse-only"])
        .output()
        .unwrap();
    let out = stdout(&o);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        out.contains("hosts: h1 (/dev/sdb), h2 via root@h2:2222 (/dev/mapper/mpatha)\n"),
        "{out}"
    );
    assert!(plan_of(&out, "h1").contains("on /dev/sdb"), "{out}");
    assert!(!plan_of(&out, "h1").contains("mpatha"), "{out}");
    assert!(
        plan_of(&out, "h2").contains("on /dev/mapper/mpatha"),
        "{out}"
    );
}

#[test]
fn hosts_flags_replace_the_job_s_and_a_host_file_s_targets_are_that_host_s() {
    let dir = tempfile::tempdir().unwrap();
    let job = write(dir.path(), "j.toml", JOB);
    let hf = write(dir.path(), "hosts", "# two hosts\nh1 /dev/sdq\nh2\n");
    let o = iolab()
        .args(["run", &job, "--parse-only", "--hosts-file", &hf])
        .output()
        .unwrap();
    let out = stdout(&o);
    assert!(o.status.success(), "{}", stderr(&o));
    // h1's host-file target acts as --target h1:/dev/sdq.
    assert!(plan_of(&out, "h1").contains("on /dev/sdq"), "{out}");
    assert!(!plan_of(&out, "h1").contains("/dev/sdb"), "{out}");
    assert!(
        plan_of(&out, "h2").contains("on /dev/mapper/mpatha"),
        "{out}"
    );
    // --hosts naming a host the map does not know, and one without a
    // target.
    let o = iolab()
        .args(["run", &job, "--parse-only", "--hosts", "h1,h3"])
        .output()
        .unwrap();
    assert_bad_input(&o, "target 'h2:/dev/mapper/mpatha' names host h2, which is not one of the run's hosts (h1, h3)");
    let job2 = write(
        dir.path(),
        "k.toml",
        &JOB.replace(", h2 = \"/dev/mapper/mpatha\"", ""),
    );
    let o = iolab()
        .args(["run", &job2, "--parse-only"])
        .output()
        .unwrap();
    assert_bad_input(
        &o,
        "workload 'db' has no target on host h2; give --target h2:PATH or a target map entry for h2",
    );
}

#[test]
fn a_run_on_this_host_alone_refuses_a_target_map() {
    let dir = tempfile::tempdir().unwrap();
    let job = write(
        dir.path(),
        "j.toml",
        &JOB.replace("hosts = [\"h1\", \"root@h2:2222\"]", ""),
    );
    let o = iolab()
        .args(["run", &job, "--parse-only"])
        .output()
        .unwrap();
    assert_bad_input(
        &o,
        "target 'h1:/dev/sdb' names host h1; give --hosts h1,... to run on hosts",
    );
    // And on the command line.
    let o = iolab()
        .args(["run", "--target", "h1:/dev/sdb", "--parse-only"])
        .output()
        .unwrap();
    assert_bad_input(&o, "names host h1; give --hosts h1,...");
}

#[test]
fn bad_hosts_in_a_job_file_are_one_line_with_the_line() {
    let dir = tempfile::tempdir().unwrap();
    for (text, needle) in [
        (
            "hosts = [\"h1\", \"h1\"]\n",
            "line 1: hosts[1] 'h1': host 'h1' is named twice",
        ),
        ("[global]\ntarget = { }\n", "line 2"),
        (
            "[global]\ntarget = { \"a/b\" = \"/x\" }\n",
            "'a/b' is not a host's name",
        ),
        (
            "[global]\ntarget = { h1 = 1 }\n",
            "host h1: expected a path as a string",
        ),
    ] {
        let job = write(dir.path(), "j.toml", text);
        let o = iolab()
            .args(["run", &job, "--parse-only"])
            .output()
            .unwrap();
        assert_bad_input(&o, needle);
    }
}

#[test]
fn fio_client_flags_and_host_lists_are_the_run_s_hosts() {
    let dir = tempfile::tempdir().unwrap();
    let job = write(
        dir.path(),
        "a.fio",
        "[db]\nrw=randread\nfilename=/dev/sdb\nsize=16m\nruntime=2\ntime_based\n",
    );
    let o = iolab()
        .args([
            "fio",
            "--client=h1",
            "--client=ip:h2,8765",
            &job,
            "--parse-only",
        ])
        .output()
        .unwrap();
    let out = stdout(&o);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        out.contains("hosts: h1 (/dev/sdb), h2 (/dev/sdb)\n"),
        "{out}"
    );
    assert!(
        out.contains("fio's server port is not used (h2,8765)"),
        "{out}"
    );
    assert!(plan_of(&out, "h2").contains("on /dev/sdb"), "{out}");
    let list = write(dir.path(), "host.list", "web1\nweb2 web3\n");
    let o = iolab()
        .args(["fio", &format!("--client={list}"), &job, "--parse-only"])
        .output()
        .unwrap();
    let out = stdout(&o);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        out.contains("hosts: web1 (/dev/sdb), web2 (/dev/sdb), web3 (/dev/sdb)\n"),
        "{out}"
    );
    let o = iolab().args(["fio", "--server"]).output().unwrap();
    assert_bad_input(
        &o,
        "iolab runs no server: the controller starts `iolab agent --stdio` over ssh",
    );
    let o = iolab()
        .args(["fio", "--daemonize=/tmp/x.pid", &job])
        .output()
        .unwrap();
    assert_bad_input(&o, "docs/multi-host.md");
    let o = iolab()
        .args(["fio", "--client=sock:/tmp/fio.sock", &job])
        .output()
        .unwrap();
    assert_bad_input(&o, "fio's local socket is no host");
}

#[test]
fn vdbench_host_definitions_plan_each_host_on_its_luns() {
    let dir = tempfile::tempdir().unwrap();
    let text = include_str!("../../jobfile/tests/vdbench/hosts-luns.vdb");
    let f = write(dir.path(), "p.vdb", text);
    let o = iolab().args(["run", &f, "--parse-only"]).output().unwrap();
    let out = stdout(&o);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        out.contains("hosts: hd1 via root@san-a (/dev/sdb), hd2 via root@san-b (/dev/mapper/mpatha, /dev/sdc), hd3 via root@hd3 (/dev/sdd)\n"),
        "{out}"
    );
    let hd1 = plan_of(&out, "hd1");
    assert!(
        hd1.contains("on /dev/sdb") && !hd1.contains("/dev/sdc"),
        "{out}"
    );
    let hd2 = plan_of(&out, "hd2");
    assert!(
        hd2.contains("on /dev/mapper/mpatha") && hd2.contains("on /dev/sdc"),
        "{out}"
    );
    let bad = write(
        dir.path(),
        "q.vdb",
        "hd=hd1,shell=rsh\nsd=sd1,lun=/dev/sdb\nwd=wd1,sd=sd1\nrd=rd1,wd=wd1,iorate=max\n",
    );
    let o = iolab()
        .args(["run", &bad, "--parse-only"])
        .output()
        .unwrap();
    assert_bad_input(
        &o,
        "q.vdb:1: hd=hd1: shell=rsh: iolab reaches hosts only through ssh or --remote-shell",
    );
}

#[test]
fn command_line_targets_are_per_host_or_every_host_s() {
    let o = iolab()
        .args([
            "run",
            "--hosts",
            "h1,h2",
            "--target",
            "h1:/dev/sdb",
            "--target",
            "h2:/dev/sdc",
            "--target",
            "/srv/shared",
            "--rw",
            "randread",
            "--duration",
            "2s",
            "--parse-only",
        ])
        .output()
        .unwrap();
    let out = stdout(&o);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        out.contains("hosts: h1 (/dev/sdb, /srv/shared), h2 (/dev/sdc, /srv/shared)\n"),
        "{out}"
    );
    assert!(!plan_of(&out, "h1").contains("/dev/sdc"), "{out}");
    assert!(!plan_of(&out, "h2").contains("/dev/sdb"), "{out}");
}
