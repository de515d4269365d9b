//! Bad input: one line saying what to change, exit code 2, never a panic.

mod common;
use common::*;

fn run(args: &[&str]) -> std::process::Output {
    let d = tempfile::tempdir().unwrap();
    iolab()
        .arg("run")
        .args(args)
        .current_dir(d.path())
        .output()
        .unwrap()
}

#[test]
fn unknown_flag() {
    assert_bad_input(&run(&["--target", "x", "--blocksize", "4k"]), "--blocksize");
    let o = iolab().arg("frobnicate").output().unwrap();
    assert_bad_input(&o, "frobnicate");
}

#[test]
fn impossible_parameters() {
    assert_bad_input(
        &run(&["--target", "f", "--size", "1m", "--read-pct", "150"]),
        "--read-pct 150",
    );
    assert_bad_input(
        &run(&["--target", "f", "--size", "2k", "--bs", "4k"]),
        "smaller than the block size",
    );
    assert_bad_input(
        &run(&["--target", "f", "--size", "1m", "--bs", "4q"]),
        "--bs",
    );
    assert_bad_input(
        &run(&["--target", "f", "--size", "1m", "--duration", "soon"]),
        "--duration",
    );
    assert_bad_input(
        &run(&["--target", "f", "--size", "1m", "--rw", "trim"]),
        "--rw trim",
    );
    assert_bad_input(
        &run(&["--target", "f", "--size", "1m", "--qd", "0"]),
        "--qd",
    );
    assert_bad_input(
        &run(&["--target", "f", "--size", "1m", "--distribution", "zipf:1"]),
        "zipf",
    );
    assert_bad_input(
        &run(&[
            "--target", "f", "--size", "1m", "--engine", "psync", "--qd", "8",
        ]),
        "psync",
    );
    assert_bad_input(
        &run(&["--target", "f", "--size", "1m", "--hit-area", "2m"]),
        "--hit-area",
    );
    assert_bad_input(
        &run(&["--target", "f", "--size", "1m", "--cpus", "0-x"]),
        "--cpus 0-x",
    );
    assert_bad_input(
        &run(&["--target", "f", "--size", "1m", "--cpus", "5000"]),
        "CPU numbers go up to 1023",
    );
    assert_bad_input(
        &run(&["--target", "f", "--size", "1m", "--clock", "hpet"]),
        "--clock hpet is not known",
    );
    // A CPU this process may not use (1023 exists on no machine here).
    assert_bad_input(
        &run(&["--target", "f", "--size", "1m", "--cpus", "1023"]),
        "CPU 1023 is not available to iolab",
    );
}

#[test]
fn block_size_not_a_multiple_of_the_logical_block_size_with_o_direct() {
    assert_bad_input(
        &run(&["--target", "f", "--size", "1m", "--bs", "1000", "--direct"]),
        "logical block size",
    );
}

#[test]
fn missing_target_and_device() {
    assert_bad_input(
        &run(&["--target", "/nonexistent/dir/f", "--rw", "read"]),
        "does not exist",
    );
    assert_bad_input(
        &run(&["--target", "/dev/iolab-no-such-disk", "--rw", "read"]),
        "does not exist",
    );
    assert_bad_input(
        &run(&["--target", "/tmp", "--rw", "read"]),
        "not a regular file or block device",
    );
}

#[test]
fn no_permission() {
    iolab_testutil::require!(
        iolab_testutil::is_root() && std::path::Path::new("/usr/bin/setpriv").exists(),
        "needs root and setpriv to run as another user"
    );
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("secret");
    std::fs::write(&p, vec![0u8; 1 << 20]).unwrap();
    std::fs::set_permissions(
        d.path(),
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    std::fs::set_permissions(&p, std::os::unix::fs::PermissionsExt::from_mode(0o600)).unwrap();
    let o = std::process::Command::new("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
        .arg(assert_cmd::cargo::cargo_bin("iolab"))
        .args([
            "run",
            "--target",
            p.to_str().unwrap(),
            "--rw",
            "read",
            "--ops",
            "10",
        ])
        .current_dir("/")
        .output()
        .unwrap();
    assert_bad_input(&o, "no permission");
}

#[test]
fn bad_job_files() {
    let d = tempfile::tempdir().unwrap();
    let j = d.path().join("j.toml");
    std::fs::write(
        &j,
        "[global]\ntarget = 'f'\nsize = '1m'\n\n[[workload]]\nrw = 'read'\nblocksize = '4k'\n",
    )
    .unwrap();
    assert_bad_input(&run(&[j.to_str().unwrap()]), "line 7");
    std::fs::write(&j, "[global\n").unwrap();
    assert_bad_input(&run(&[j.to_str().unwrap()]), "job file");
    std::fs::write(
        &j,
        "[[workload]]\ntarget='f'\nsize='1m'\n[[workload]]\ntarget='f'\nread_pct=101\n",
    )
    .unwrap();
    assert_bad_input(&run(&[j.to_str().unwrap()]), "workload 2");
    assert_bad_input(&run(&["/nonexistent/job.toml"]), "cannot read job file");
}

#[test]
fn help_and_version_succeed() {
    let o = iolab().args(["run", "--help"]).output().unwrap();
    assert!(o.status.success());
    let h = stdout(&o);
    for flag in [
        "--target",
        "--rw",
        "--read-pct",
        "--random-pct",
        "--bs",
        "--jobs",
        "--qd",
        "--seed",
        "--duration",
        "--io-size",
        "--ops",
        "--warmup",
        "--interval",
        "--rate",
        "--direct",
        "--sync",
        "--fsync-every",
        "--data",
        "--dedupe",
        "--engine",
        "--hit-area",
        "--destroy-data-on",
        "--on-error",
        "--no-prefill",
        "--json",
    ] {
        assert!(h.contains(flag), "help lacks {flag}");
    }
    assert!(iolab().arg("--version").output().unwrap().status.success());
}

#[test]
fn bad_input_leaves_no_file_behind() {
    let d = tempfile::tempdir().unwrap();
    let o = iolab()
        .args([
            "run", "--target", "f", "--size", "1m", "--bs", "1000", "--direct",
        ])
        .current_dir(d.path())
        .output()
        .unwrap();
    assert_bad_input(&o, "logical block size");
    assert!(stdout(&o).is_empty(), "{}", stdout(&o));
    assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 0);
}

#[test]
fn boolean_flag_with_a_space_is_explained() {
    assert_bad_input(
        &run(&["--target", "f", "--size", "1m", "--direct", "false"]),
        "--direct=false",
    );
}
