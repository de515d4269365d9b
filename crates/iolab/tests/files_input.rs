//! File-system workloads from the command line and job files, up to the
//! plan: `--dir` with `--mix`, `--flow` or `--personality` is accepted
//! without `--target`, `--dry-run` shows the filesets and flows and
//! creates nothing, sweeps over fileset and mix parameters plan one run
//! each, and bad input is one line, exit 2.

mod common;
use common::*;

fn run_in(dir: &std::path::Path, args: &[&str]) -> std::process::Output {
    iolab()
        .current_dir(dir)
        .arg("run")
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn dry_runs_show_the_file_system_workload_and_create_nothing() {
    let d = tempfile::tempdir().unwrap();
    let anchor = d.path().join("a");
    let a = anchor.to_str().unwrap();
    let o = run_in(
        d.path(),
        &[
            "--dir",
            a,
            "--mix",
            "read:60,write:20,stat:10,create:5,delete:5",
            "--ops",
            "10000",
            "--dry-run",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("mix-1: files, mix, 1 thread"), "{out}");
    assert!(
        out.contains(&format!(
            "fileset fs at {a}: 1000 files of 64 KiB, 100 a directory, 100% created before the run"
        )),
        "{out}"
    );
    assert!(
        out.contains("mix: read:60,write:20,stat:10,create:5,delete:5"),
        "{out}"
    );
    let p = d.path().to_str().unwrap();
    let o = run_in(
        d.path(),
        &[
            "--personality",
            "fileserver",
            "--dir",
            p,
            "--files",
            "500",
            "--jobs",
            "8",
            "--duration",
            "1s",
            "--dry-run",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("filebench personality fileserver"), "{out}");
    assert!(out.contains("500 files of gamma mean 128 KiB"), "{out}");
    assert!(
        out.contains("flow filereader(8): create,write:whole:1m,close,open,append:rand:16k,close,open,read:whole:1m,close,delete,stat"),
        "{out}"
    );
    assert!(
        !anchor.exists() && !d.path().join("bigfileset").exists(),
        "a dry run created a fileset"
    );
}

#[test]
fn fileset_and_mix_parameters_sweep() {
    let d = tempfile::tempdir().unwrap();
    let a = d.path().join("a");
    let o = run_in(
        d.path(),
        &[
            "--dir",
            a.to_str().unwrap(),
            "--mix",
            "read:1;stat:1;create:1",
            "--files",
            "100,1000",
            "--duration",
            "1s",
            "--format",
            "restart",
            "--dry-run",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains("6 runs") && out.contains("sweeping mix then files"),
        "{out}"
    );
    assert!(out.contains("mix=create:1 files=1000"), "{out}");
    // 100 files sit in the anchor, 1000 in ten directories: under the
    // default format=no the second point would use the first's files.
    let o = run_in(
        d.path(),
        &[
            "--dir",
            a.to_str().unwrap(),
            "--mix",
            "read:1",
            "--files",
            "100,1000",
            "--dry-run",
        ],
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("run 2/2 (files=1000)"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn bad_file_system_input_is_one_line_and_exit_2() {
    let d = tempfile::tempdir().unwrap();
    let a = d.path().join("a");
    let a = a.to_str().unwrap();
    let f = d.path().join("file");
    std::fs::write(&f, b"x").unwrap();
    for (args, needle) in [
        (vec!["--mix", "read:1"], "give --dir DIR"),
        (vec!["--dir", a], "give --mix, --flow or --personality"),
        (
            vec!["--dir", a, "--mix", "read:60,write"],
            "'write' has no weight",
        ),
        (
            vec!["--dir", a, "--mix", "raed:1"],
            "'raed' is not an operation",
        ),
        (
            vec!["--dir", a, "--flow", "read:whole,close"],
            "needs an open file",
        ),
        (vec!["--dir", a, "--flow", "open,read"], "end it with close"),
        (
            vec!["--dir", a, "--flow", "open,semblock,close"],
            "filebench semblock is not an operation",
        ),
        (
            vec!["--dir", a, "--personality", "fileserv"],
            "--personality fileserv is not known",
        ),
        (
            vec![
                "--dir", a, "--mix", "read:1", "--files", "55", "--depth", "1",
            ],
            "give 50 or 60 files",
        ),
        (
            vec!["--dir", a, "--mix", "read:1", "--target", "/tmp/x"],
            "--target is for block targets",
        ),
        (
            vec!["--dir", "/nonexistent-iolab/x", "--mix", "read:1"],
            "create /nonexistent-iolab",
        ),
        (
            vec!["--dir", f.to_str().unwrap(), "--mix", "read:1"],
            "is not a directory",
        ),
        (
            vec!["--dir", "/nonexistent-iolab/fb", "--personality", "varmail"],
            "--dir /nonexistent-iolab/fb does not exist and neither does its parent",
        ),
        (vec!["--dir", a, "--mix", "read:1;;stat:1"], "empty value"),
        (
            vec!["--dir", a, "--mix", "read:1", "--file-select", "zipf"],
            "--file-select zipf is not known",
        ),
        (
            vec!["--dir", a, "--mix", "read:1", "--format", "only"],
            "--format only",
        ),
        (
            vec![
                "--dir",
                a,
                "--mix",
                "stat:1",
                "--io-size",
                "1m",
                "--files",
                "20",
            ],
            "--io-size ends a workload on bytes moved",
        ),
        (
            vec![
                "--dir",
                a,
                "--mix",
                "read:1",
                "--io-size",
                "1m",
                "--file-size",
                "0",
            ],
            "--io-size ends a workload on bytes moved",
        ),
        (
            vec![
                "--dir",
                a,
                "--mix",
                "read:1",
                "--depth",
                "32",
                "--width",
                "4294967295",
                "--files",
                "1",
            ],
            "make more than 100000000 leaf directories",
        ),
        (
            vec!["--dir", a, "--mix", "read:99999999999999999999"],
            "is out of range; give 1 to",
        ),
        // A non-empty directory without the marker is refused by the dry
        // run too, as the run refuses it.
        (
            vec!["--dir", d.path().to_str().unwrap(), "--mix", "read:1"],
            "is not empty and has no .iolab-fileset marker",
        ),
    ] {
        let mut args = args.clone();
        args.push("--dry-run");
        let o = run_in(d.path(), &args);
        assert_bad_input(&o, needle);
    }
    // The same through a job file names the file's key.
    let job = d.path().join("j.toml");
    std::fs::write(
        &job,
        format!("[global]\ndir = '{a}'\nflow = 'create,close,fsync'\n"),
    )
    .unwrap();
    let o = run_in(d.path(), &[job.to_str().unwrap(), "--dry-run"]);
    assert_bad_input(
        &o,
        "line 3: --flow: flow 'flow', step 3 (fsync) needs an open file",
    );
}

/// The command reaches the engine: a personality with no
/// `--target` runs, and the device statistics cover the loop device
/// under the anchor's file system.
#[test]
fn a_personality_runs_and_its_device_is_the_one_under_the_anchor() {
    iolab_testutil::require_root!();
    iolab_testutil::require_tool!("mkfs.ext4");
    let fs = match iolab_testutil::MountedFs::new("ext4", 256 << 20) {
        Ok(f) => f,
        Err(e) => {
            iolab_testutil::skip_or_fail("files_input", &e);
            return;
        }
    };
    let d = tempfile::tempdir().unwrap();
    // A --dir that does not exist yet (its parent does) is made.
    let dir = fs.path().join("fb");
    let dir = dir.to_str().unwrap();
    let (o, v) = run_json(
        &[
            "--personality",
            "fileserver",
            "--dir",
            dir,
            "--files",
            "200",
            "--jobs",
            "4",
            "--file-size",
            "16k",
            "--duration",
            "1s",
        ],
        d.path(),
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let t = ptr(&v, "runs.0.devices.targets.0");
    let anchor = fs.path().join("fb/bigfileset");
    assert_eq!(t["target"], anchor.to_str().unwrap());
    assert_eq!(t["top"][0], fs.dev.name(), "{t}");
    assert_eq!(ptr(&v, "runs.0.spec.fs.personality"), "fileserver");
    assert!(
        anchor.join(".iolab-fileset").exists(),
        "the anchor is marked"
    );
    // A run refused before its filesets are made (videoserver's 2.2 TiB
    // on 256 MiB) leaves no --dir behind.
    let vs = fs.path().join("vs");
    let o = run_in(
        d.path(),
        &[
            "--personality",
            "videoserver",
            "--dir",
            vs.to_str().unwrap(),
            "--duration",
            "1s",
        ],
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("needs"), "{}", stderr(&o));
    assert!(!vs.exists(), "the refused run left {}", vs.display());
}
