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
        &run(&["--target", "f", "--size", "1m", "--rw", "readtrim"]),
        "--rw readtrim",
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
        iolab_testutil::is_root(),
        "needs root to run iolab as another user"
    );
    iolab_testutil::require_tool!("setpriv");
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

// Issue 14, finding 7: late and loose checks. Each test is named after the
// finding it covers and failed before the fix.

/// `iolab run ARGS` in DIR.
fn run_in(dir: &std::path::Path, args: &[&str]) -> std::process::Output {
    iolab()
        .arg("run")
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap()
}

#[test]
fn no_free_space_check_for_an_explicit_size() {
    iolab_testutil::require_root!();
    let fs = iolab_testutil::TmpfsMount::new("16m").expect("tmpfs");
    let f = fs.path().join("big");
    let fp = f.to_str().unwrap();
    for rw in ["write", "read"] {
        let o = run_in(
            fs.path(),
            &[
                "--target",
                fp,
                "--size",
                "64m",
                "--rw",
                rw,
                "--duration",
                "1",
            ],
        );
        assert_bad_input(&o, "--size 67108864 (64 MiB)");
        let err = stderr(&o);
        assert!(err.contains("free on its file system (tmpfs at"), "{err}");
        assert!(err.contains("give a smaller --size"), "{err}");
        assert!(!f.exists(), "the file was left behind");
        assert!(stdout(&o).is_empty(), "I/O began: {}", stdout(&o));
    }
    // Extending a file iolab owns beyond the free space is refused too.
    let (o, _) = run_json(
        &[
            "--target", fp, "--size", "4m", "--rw", "write", "--ops", "8",
        ],
        fs.path(),
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = run_in(
        fs.path(),
        &[
            "--target",
            fp,
            "--size",
            "64m",
            "--rw",
            "write",
            "--duration",
            "1",
        ],
    );
    assert_bad_input(&o, "free on its file system");
    assert_eq!(std::fs::metadata(&f).unwrap().len(), 4 << 20, "extended");
}

#[test]
fn enospc_and_prefill_failures_give_their_reason_only_on_stdout() {
    iolab_testutil::require_root!();
    // On a 16 MiB tmpfs: a sparse 10 MiB file the test made (named for
    // writing, so it is prefilled too) and a 10 MiB file iolab creates.
    // The new file fits the free space when checked; the prefill of the
    // sparse one then takes that space, and the new one runs out.
    let fs = iolab_testutil::TmpfsMount::new("16m").expect("tmpfs");
    let sparse = fs.path().join("sparse");
    let made = fs.path().join("made");
    std::fs::File::create(&sparse)
        .unwrap()
        .set_len(10 << 20)
        .unwrap();
    let (s, m) = (sparse.to_str().unwrap(), made.to_str().unwrap());
    let (o, doc) = run_json(
        &[
            "--target",
            s,
            "--target",
            m,
            "--destroy-data-on",
            s,
            "--size",
            "10m",
            "--prefill",
            "--rw",
            "read",
            "--ops",
            "8",
        ],
        fs.path(),
    );
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let err = stderr(&o);
    let line = err
        .lines()
        .find(|l| l.contains("ENOSPC"))
        .unwrap_or_else(|| panic!("no ENOSPC on stderr: {err}"));
    assert!(line.starts_with("iolab: "), "{line}");
    assert!(line.contains(m), "{line}");
    assert!(line.contains("free space"), "{line}");
    assert!(
        err.contains(&format!("removed {m}")),
        "no removal said: {err}"
    );
    assert!(
        !made.exists(),
        "the file that ran out of space was left behind"
    );
    assert!(sparse.exists(), "a file iolab did not create was removed");
    let reason = ptr(&doc, "runs.0.incomplete_reason").as_str().unwrap();
    assert!(reason.contains("ENOSPC"), "{reason}");
    assert_eq!(u(&doc, "runs.0.errors_total"), 1);
}

#[test]
fn files_on_one_file_system_are_checked_together_before_the_first_io() {
    iolab_testutil::require_root!();
    let fs = iolab_testutil::TmpfsMount::new("16m").expect("tmpfs");
    let (a, b) = (fs.path().join("a"), fs.path().join("b"));
    // Two targets of one run.
    let o = run_in(
        fs.path(),
        &[
            "--target",
            a.to_str().unwrap(),
            "--target",
            b.to_str().unwrap(),
            "--size",
            "10m",
            "--rw",
            "write",
        ],
    );
    assert_bad_input(
        &o,
        "of the files the plan creates or extends there before it",
    );
    assert!(!a.exists() && !b.exists(), "a file was created");
    // Two workloads of a job: refused before the first one runs.
    let job = fs.path().join("j.toml");
    std::fs::write(
        &job,
        format!(
            "[global]\nsize = '10m'\nrw = 'write'\nops = 8\n[[workload]]\ntarget = '{}'\n[[workload]]\ntarget = '{}'\n",
            a.display(),
            b.display()
        ),
    )
    .unwrap();
    let o = run_in(fs.path(), &[job.to_str().unwrap()]);
    assert_bad_input(&o, "run 2/2");
    assert!(
        stderr(&o).contains("free on its file system"),
        "{}",
        stderr(&o)
    );
    assert!(!a.exists(), "the first workload ran");
}

#[test]
fn dry_run_plans_a_write_to_a_device_the_real_run_refuses() {
    iolab_testutil::require_root!();
    iolab_testutil::require!(
        std::process::Command::new("mkfs.ext4")
            .arg("-V")
            .output()
            .is_ok(),
        "needs mkfs.ext4 (e2fsprogs)"
    );
    let dev = iolab_testutil::LoopDevice::new(32 << 20, false).expect("loop device");
    let st = std::process::Command::new("mkfs.ext4")
        .args(["-q", "-F", dev.path_str()])
        .status()
        .unwrap();
    assert!(st.success());
    let before = iolab_testutil::read_all(&dev.path);
    let d = tempfile::tempdir().unwrap();
    let args = [
        "--target",
        dev.path_str(),
        "--rw",
        "randwrite",
        "--duration",
        "1",
    ];
    let real = run_in(d.path(), &args);
    assert_bad_input(&real, "refusing to write");
    let mut dry_args = args.to_vec();
    dry_args.push("--dry-run");
    let dry = run_in(d.path(), &dry_args);
    assert_bad_input(&dry, "refusing to write");
    assert_eq!(stderr(&dry), stderr(&real), "not the same refusal");
    assert!(
        stdout(&dry).is_empty(),
        "a plan was printed: {}",
        stdout(&dry)
    );
    // A study's dry run makes the same checks.
    let study = iolab()
        .args(["study", "qd-ladder", "--target", dev.path_str()])
        .args(["--rw", "randwrite", "--dry-run"])
        .current_dir(d.path())
        .output()
        .unwrap();
    assert_bad_input(&study, "refusing to write");
    assert!(
        iolab_testutil::read_all(&dev.path) == before,
        "device changed"
    );
}

#[test]
fn dry_run_plans_a_write_over_a_file_iolab_did_not_create_and_creates_nothing() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("foreign"), vec![7u8; 1 << 20]).unwrap();
    let o = run_in(
        d.path(),
        &["--target", "foreign", "--rw", "write", "--dry-run"],
    );
    assert_bad_input(&o, "iolab did not create");
    // A dry run of a file iolab would create creates nothing.
    let o = run_in(
        d.path(),
        &[
            "--target",
            "new",
            "--size",
            "1m",
            "--rw",
            "write",
            "--dry-run",
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        !d.path().join("new").exists(),
        "the dry run created the file"
    );
    // Nor does it pass a --size the file system cannot hold.
    let o = run_in(
        d.path(),
        &["--target", "new", "--size", "16383p", "--dry-run"],
    );
    assert_bad_input(&o, "free on its file system");
}

#[test]
fn bs_mix_with_a_missing_weight_silently_becomes_a_sweep() {
    let o = run(&[
        "--target",
        "f",
        "--size",
        "1m",
        "--bs",
        "4k:60,8k",
        "--dry-run",
    ]);
    assert_bad_input(&o, "--bs 4k:60,8k");
    let err = stderr(&o);
    assert!(
        err.contains("4k:60,8k:40") && err.contains("4k,8k"),
        "{err}"
    );
}

#[test]
fn interval_below_the_minimum_is_silently_clamped() {
    let o = run(&["--target", "f", "--size", "1m", "--interval", "1us"]);
    assert_bad_input(&o, "--interval 1us is below the minimum of 1ms");
    // At the minimum and above, interval lines show their own times, not
    // 0.0s each.
    let o = run(&[
        "--target",
        "f",
        "--size",
        "1m",
        "--engine",
        "null",
        "--interval",
        "10ms",
        "--duration",
        "50ms",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    for t in ["0.010s", "0.020s", "0.030s"] {
        assert!(out.contains(t), "no interval line at {t}: {out}");
    }
}

#[test]
fn negative_qd_says_not_a_whole_number() {
    assert_bad_input(
        &run(&["--target", "f", "--size", "1m", "--qd", "-3"]),
        "--qd -3 is below the minimum 1; give 1 to 4096",
    );
    let d = tempfile::tempdir().unwrap();
    let j = d.path().join("j.toml");
    std::fs::write(&j, "[global]\ntarget = 'f'\nsize = '1m'\n\nqd = -3\n").unwrap();
    let o = run(&[j.to_str().unwrap()]);
    assert_bad_input(&o, "--qd -3 is below the minimum 1");
    assert!(stderr(&o).contains("j.toml: line 5"), "{}", stderr(&o));
}

#[test]
fn overflowing_sizes_and_durations_say_not_a_size() {
    assert_bad_input(
        &run(&["--target", "f", "--size", "99999999999999999999"]),
        "--size: '99999999999999999999' is too large (max 16383p",
    );
    assert_bad_input(
        &run(&[
            "--target",
            "f",
            "--size",
            "1m",
            "--duration",
            "99999999999999h",
        ]),
        "--duration: '99999999999999h' is too long (max",
    );
    assert_bad_input(
        &run(&[
            "--target",
            "f",
            "--size",
            "1m",
            "--ops",
            "99999999999999999999",
        ]),
        "--ops 99999999999999999999 is too large (max 18446744073709551615)",
    );
}

#[test]
fn toml_type_errors_say_did_not_match_any_variant_of_untagged_enum() {
    let d = tempfile::tempdir().unwrap();
    let j = d.path().join("j.toml");
    std::fs::write(&j, "[global]\ntarget = 'f'\nsize = '1m'\nqd = { n = 4 }\n").unwrap();
    let o = run(&[j.to_str().unwrap()]);
    assert_bad_input(&o, "line 4: key qd: expected");
    let err = stderr(&o);
    assert!(
        err.contains("found a table") && !err.contains("untagged"),
        "{err}"
    );
}

#[test]
fn a_journal_for_another_device_says_written_for_x_not_x() {
    let d = tempfile::tempdir().unwrap();
    let p = |n: &str| d.path().join(n).to_str().unwrap().to_string();
    let o = run_in(
        d.path(),
        &[
            "--target",
            &p("c"),
            "--size",
            "1m",
            "--rw",
            "write",
            "--verify",
            "--journal",
            &p("j"),
            "--ops",
            "16",
            "-q",
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // The same name, now another file (made while the first existed, so
    // its inode differs): the journal says what differs.
    std::fs::write(p("c2"), vec![0u8; 1 << 20]).unwrap();
    // Made now too, so that it cannot reuse the first c's inode.
    std::fs::write(p("other"), vec![1u8; 1 << 20]).unwrap();
    std::fs::rename(p("c2"), p("c")).unwrap();
    let o = run_in(
        d.path(),
        &[
            "--target",
            &p("c"),
            "--destroy-data-on",
            &p("c"),
            "--rw",
            "write",
            "--verify",
            "--journal",
            &p("j"),
            "--ops",
            "16",
            "-q",
        ],
    );
    assert_bad_input(&o, "the file was replaced");
    assert!(stderr(&o).contains("--journal NEW_DIR"), "{}", stderr(&o));
    // In a plan, a journal that does not fit a later run is found before
    // the first run does any I/O.
    let job = d.path().join("plan.toml");
    std::fs::write(
        &job,
        format!(
            "[global]\nops = 16\nrw = 'write'\n[[workload]]\ntarget = '{}'\nsize = '1m'\n[[workload]]\ntarget = '{}'\ndestroy_data_on = '{}'\nverify = true\njournal = '{}'\n",
            p("first"),
            p("other"),
            p("other"),
            p("j")
        ),
    )
    .unwrap();
    let o = run_in(d.path(), &[job.to_str().unwrap(), "-q"]);
    assert_bad_input(&o, "was written for");
    assert!(!d.path().join("first").exists(), "the first run did I/O");
}

/// clap's "use '-- --bogus'" tip for an unknown flag of a command that takes
/// files was turned into the note about negative numbers.
#[test]
fn an_unknown_flag_is_not_called_a_negative_number() {
    for sub in ["report", "compare", "completions"] {
        let o = iolab().args([sub, "--bogus"]).output().unwrap();
        assert_bad_input(&o, "--bogus");
        assert!(!stderr(&o).contains("negative"), "{}", stderr(&o));
        assert!(stderr(&o).contains(&format!("iolab {sub} --help")));
    }
}
