//! Issue 14, findings 1, 4 and 7 (the unwritable `--json`): every path
//! iolab writes goes through one check before the first I/O, and every file
//! it is given is read bounded. Each test is named after what it proves;
//! each failed on the code before the check (outputs went straight over
//! block devices, foreign files and the run's own target, `/dev/zero` was
//! read forever, an unwritable `--json` was found after the run).

mod common;
use common::*;
use iolab_testutil::{require, require_root, LoopDevice};
use std::os::unix::fs::{FileTypeExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::{Duration, Instant};

fn in_dir(dir: &Path, args: &[&str]) -> Output {
    iolab()
        .args(args)
        .current_dir(dir)
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn has(tool: &str) -> bool {
    std::process::Command::new("sh")
        .args(["-c", &format!("command -v {tool}")])
        .output()
        .is_ok_and(|o| o.status.success())
}

/// A loop device holding an ext4 file system (not mounted).
fn ext4_loop() -> LoopDevice {
    let dev = LoopDevice::new(32 << 20, false).expect("loop device");
    let out = std::process::Command::new("mkfs.ext4")
        .args(["-q", "-F", dev.path_str()])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    dev
}

/// A result document written by a real (null engine) run.
fn result_doc(dir: &Path, name: &str) -> PathBuf {
    let p = dir.join(name);
    let out = in_dir(
        dir,
        &[
            "run",
            "--target",
            "nul.dat",
            "--size",
            "1m",
            "--engine",
            "null",
            "--ops",
            "100",
            "-q",
            "--json",
            s(&p),
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    p
}

/// `iolab run` of a quick real workload on DIR/t.dat (created) with ARGS.
fn quick_run(dir: &Path, args: &[&str]) -> Output {
    let mut a = vec![
        "run", "--target", "t.dat", "--size", "4m", "--rw", "read", "--bs", "4k", "--ops", "200",
        "-q",
    ];
    a.extend_from_slice(args);
    in_dir(dir, &a)
}

#[test]
fn json_to_a_loop_device_holding_ext4_is_refused_and_it_stays_byte_identical() {
    require_root!();
    require!(has("mkfs.ext4"), "needs mkfs.ext4 (e2fsprogs)");
    let dev = ext4_loop();
    let before = iolab_testutil::read_all(&dev.path);
    let d = tempfile::tempdir().unwrap();
    for force in [false, true] {
        let mut args = vec!["--json", dev.path_str()];
        if force {
            args.push("--force");
        }
        let out = quick_run(d.path(), &args);
        assert_bad_input(
            &out,
            &format!("--json {} is a block device", dev.path_str()),
        );
        // Refused before any I/O: the target was not even created.
        assert!(!d.path().join("t.dat").exists());
    }
    assert!(
        iolab_testutil::read_all(&dev.path) == before,
        "the device changed"
    );
}

#[test]
fn report_to_a_loop_device_holding_ext4_is_refused_and_it_stays_byte_identical() {
    require_root!();
    require!(has("mkfs.ext4"), "needs mkfs.ext4 (e2fsprogs)");
    let dev = ext4_loop();
    let before = iolab_testutil::read_all(&dev.path);
    let d = tempfile::tempdir().unwrap();
    let r = result_doc(d.path(), "r.json");
    let r2 = result_doc(d.path(), "r2.json");
    let p = dev.path_str();
    for format in ["html", "md", "csv"] {
        let out = in_dir(
            d.path(),
            &["report", s(&r), "-o", p, "--format", format, "--force"],
        );
        assert_bad_input(&out, &format!("-o {p} is a block device"));
    }
    // Every other writer, too.
    for args in [
        vec!["compare", s(&r), s(&r2), "--html", p],
        vec!["compare", s(&r), s(&r2), "--json", p, "--force"],
        vec!["doctor", "--json", p],
        vec![
            "verify",
            "--target",
            s(&d.path().join("nul.dat")),
            "--json",
            p,
        ],
        vec![
            "study",
            "qd-ladder",
            "--target",
            "s.dat",
            "--size",
            "1m",
            "--engine",
            "null",
            "--qd",
            "1,2",
            "--duration",
            "1s",
            "--warmup",
            "0s",
            "--json",
            p,
        ],
    ] {
        let out = in_dir(d.path(), &args);
        assert_bad_input(&out, "is a block device");
    }
    assert!(!d.path().join("s.dat").exists());
    assert!(
        iolab_testutil::read_all(&dev.path) == before,
        "the device changed"
    );
}

#[test]
fn json_over_a_foreign_file_is_refused_and_it_is_unchanged() {
    let d = tempfile::tempdir().unwrap();
    let foreign = d.path().join("data.bin");
    let bytes: Vec<u8> = (0..16u32 << 20)
        .map(|i| (i.wrapping_mul(2654435761) >> 13) as u8)
        .collect();
    std::fs::write(&foreign, &bytes).unwrap();
    std::fs::set_permissions(&foreign, std::fs::Permissions::from_mode(0o600)).unwrap();
    let out = quick_run(d.path(), &["--json", "data.bin"]);
    assert_bad_input(
        &out,
        "--json data.bin already holds 16777216 bytes that are not an iolab result document",
    );
    assert!(stderr(&out).contains("--force"), "{}", stderr(&out));
    assert!(std::fs::read(&foreign).unwrap() == bytes, "content changed");
    let m = std::fs::metadata(&foreign).unwrap();
    assert_eq!(m.permissions().mode() & 0o7777, 0o600, "mode changed");
    // The same for a report, a comparison and a findings log.
    let r = result_doc(d.path(), "r.json");
    for args in [
        vec!["report", s(&r), "-o", "data.bin"],
        vec!["compare", s(&r), s(&r), "--json", "data.bin"],
        vec!["doctor", "--json", "data.bin"],
    ] {
        assert_bad_input(&in_dir(d.path(), &args), "data.bin already holds");
    }
    let out = quick_run(d.path(), &["--verify", "--findings-log", "data.bin"]);
    assert_bad_input(&out, "--findings-log data.bin already holds");
    assert!(std::fs::read(&foreign).unwrap() == bytes, "content changed");
}

#[test]
fn json_over_the_runs_own_target_is_refused() {
    let d = tempfile::tempdir().unwrap();
    // A target the run is about to create, and one that exists (iolab's).
    for force in [false, true] {
        let mut args = vec!["--json", "t.dat"];
        if force {
            args.push("--force");
        }
        let out = quick_run(d.path(), &args);
        assert_bad_input(&out, "--json t.dat is a target of this run");
        assert!(!d.path().join("t.dat").exists());
    }
    let out = quick_run(d.path(), &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let before = std::fs::read(d.path().join("t.dat")).unwrap();
    std::fs::hard_link(d.path().join("t.dat"), d.path().join("hard")).unwrap();
    std::fs::create_dir(d.path().join("sub")).unwrap();
    for json in ["t.dat", "./sub/../t.dat", "hard"] {
        let out = quick_run(d.path(), &["--json", json, "--force"]);
        assert_bad_input(&out, &format!("--json {json} is a target of this run"));
    }
    assert!(std::fs::read(d.path().join("t.dat")).unwrap() == before);
}

#[test]
fn json_to_an_unwritable_directory_is_refused_before_any_io() {
    let d = tempfile::tempdir().unwrap();
    // A run of 30 s that must not start: refused at once.
    let long = [
        "run",
        "--target",
        "t.dat",
        "--size",
        "4m",
        "--rw",
        "write",
        "--duration",
        "30s",
        "-q",
    ];
    let t0 = Instant::now();
    let mut a = long.to_vec();
    a.extend_from_slice(&["--json", "no/such/dir/r.json"]);
    let out = in_dir(d.path(), &a);
    assert_bad_input(
        &out,
        "--json no/such/dir/r.json cannot be written: the directory no/such/dir does not exist",
    );
    assert!(t0.elapsed() < Duration::from_secs(10), "{:?}", t0.elapsed());
    assert!(!d.path().join("t.dat").exists());
    // A directory that exists but is read-only (a read-only mount: root
    // may write anywhere else).
    require_root!();
    let m = iolab_testutil::TmpfsMount::new("1m").expect("tmpfs");
    let ro = std::process::Command::new("mount")
        .args(["-o", "remount,ro", s(m.path())])
        .output()
        .unwrap();
    assert!(
        ro.status.success(),
        "{}",
        String::from_utf8_lossy(&ro.stderr)
    );
    let json = m.path().join("r.json");
    let t0 = Instant::now();
    let mut a = long.to_vec();
    a.extend_from_slice(&["--json", s(&json)]);
    let out = in_dir(d.path(), &a);
    assert_bad_input(&out, "is not writable (Read-only file system");
    assert!(t0.elapsed() < Duration::from_secs(10), "{:?}", t0.elapsed());
    assert!(!d.path().join("t.dat").exists());
}

#[test]
fn force_replaces_a_foreign_file_but_never_a_block_device() {
    let d = tempfile::tempdir().unwrap();
    let foreign = d.path().join("old.json");
    std::fs::write(&foreign, b"{\"someone\": \"else\"}\n").unwrap();
    std::fs::set_permissions(&foreign, std::fs::Permissions::from_mode(0o640)).unwrap();
    let out = quick_run(d.path(), &["--json", "old.json", "--force"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&foreign).unwrap()).unwrap();
    assert_eq!(doc["tool"], "iolab");
    let m = std::fs::metadata(&foreign).unwrap();
    assert_eq!(m.permissions().mode() & 0o7777, 0o640, "mode changed");
    require_root!();
    let dev = LoopDevice::new(8 << 20, false).expect("loop device");
    std::fs::write(&dev.path, vec![0xa5u8; 8 << 20]).unwrap();
    let out = quick_run(d.path(), &["--json", dev.path_str(), "--force"]);
    assert_bad_input(&out, "not even with --force");
    assert!(iolab_testutil::read_all(&dev.path)
        .iter()
        .all(|&b| b == 0xa5));
}

#[test]
fn json_to_dev_null_and_a_fifo_still_work() {
    let d = tempfile::tempdir().unwrap();
    let out = quick_run(d.path(), &["--json", "/dev/null"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(std::fs::metadata("/dev/null")
        .unwrap()
        .file_type()
        .is_char_device());
    let fifo = d.path().join("pipe");
    let c = std::ffi::CString::new(s(&fifo)).unwrap();
    // SAFETY: mkfifo on a path in our own temporary directory.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || {
            // One open per document written: read until the run is done.
            let mut all = String::new();
            while !all.contains("\"finished_at\": \"") {
                all.push_str(&std::fs::read_to_string(&fifo).unwrap());
            }
            all
        })
    };
    let out = quick_run(d.path(), &["--json", "pipe"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo());
    assert!(reader.join().unwrap().contains("\"schema_version\""));
    // Standard output too.
    let r = result_doc(d.path(), "r.json");
    let out = in_dir(
        d.path(),
        &["report", s(&r), "--format", "csv", "-o", "/dev/stdout"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(!stdout(&out).is_empty());
}

#[test]
fn rerunning_with_the_same_json_path_replaces_iolabs_own_document() {
    let d = tempfile::tempdir().unwrap();
    let json = d.path().join("r.json");
    let out = quick_run(d.path(), &["--json", "r.json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    std::fs::set_permissions(&json, std::fs::Permissions::from_mode(0o640)).unwrap();
    let first = std::fs::read_to_string(&json).unwrap();
    std::thread::sleep(Duration::from_millis(20));
    let out = quick_run(d.path(), &["--json", "r.json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let second = std::fs::read_to_string(&json).unwrap();
    assert_ne!(first, second);
    assert_eq!(
        std::fs::metadata(&json).unwrap().permissions().mode() & 0o7777,
        0o640
    );
    // Every other writer replaces its own earlier output as well.
    let r2 = result_doc(d.path(), "r2.json");
    for args in [
        vec!["report", "r.json", "-o", "r.html"],
        vec!["report", "r.json", "-o", "r.md", "--format", "md"],
        vec![
            "compare",
            "r.json",
            s(&r2),
            "--json",
            "c.json",
            "--html",
            "c.html",
        ],
        vec!["doctor", "--json", "doctor.json"],
    ] {
        for _ in 0..2 {
            let out = in_dir(d.path(), &args);
            assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
        }
    }
    // No temporary files left behind.
    let stray: Vec<String> = std::fs::read_dir(d.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tmp"))
        .collect();
    assert!(stray.is_empty(), "{stray:?}");
}

#[test]
fn a_foreign_default_result_document_is_never_clobbered() {
    let d = tempfile::tempdir().unwrap();
    for name in ["iolab-result.json", "iolab-study-qd-ladder.json"] {
        std::fs::write(d.path().join(name), b"mine\n").unwrap();
    }
    // The default job (no target) writes iolab-result.json.
    let out = in_dir(d.path(), &[]);
    assert_bad_input(&out, "iolab-result.json already holds 5 bytes");
    let out = in_dir(
        d.path(),
        &[
            "study",
            "qd-ladder",
            "--target",
            "s.dat",
            "--size",
            "1m",
            "--engine",
            "null",
            "--qd",
            "1,2",
            "--duration",
            "1s",
            "--warmup",
            "0s",
        ],
    );
    assert_bad_input(&out, "iolab-study-qd-ladder.json already holds 5 bytes");
    for name in ["iolab-result.json", "iolab-study-qd-ladder.json"] {
        assert_eq!(std::fs::read(d.path().join(name)).unwrap(), b"mine\n");
    }
    assert!(!d.path().join("s.dat").exists());
}

#[test]
fn a_findings_log_iolab_did_not_start_is_not_appended_to() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("iolab-findings.log"), b"someone's notes\n").unwrap();
    // The default findings log of a verified run.
    let out = quick_run(d.path(), &["--verify"]);
    assert_bad_input(&out, "the findings log iolab-findings.log already holds");
    assert!(!d.path().join("t.dat").exists());
    assert_eq!(
        std::fs::read(d.path().join("iolab-findings.log")).unwrap(),
        b"someone's notes\n"
    );
}

fn assert_quick_refusal(out: &Output, t0: Instant, needle: &str) {
    assert_bad_input(out, needle);
    assert!(
        t0.elapsed() < Duration::from_secs(1),
        "took {:?}",
        t0.elapsed()
    );
}

#[test]
fn dev_zero_as_job_file_exits_2_within_a_second() {
    let d = tempfile::tempdir().unwrap();
    let t0 = Instant::now();
    let out = in_dir(d.path(), &["run", "/dev/zero"]);
    assert_quick_refusal(
        &out,
        t0,
        "/dev/zero is a character device, not a regular file",
    );
    // A FIFO nobody writes to does not hang either.
    let fifo = d.path().join("job.toml");
    let c = std::ffi::CString::new(s(&fifo)).unwrap();
    // SAFETY: mkfifo on a path in our own temporary directory.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let t0 = Instant::now();
    let out = in_dir(d.path(), &["run", "job.toml"]);
    assert_quick_refusal(&out, t0, "is a named pipe (FIFO), not a regular file");
}

#[test]
fn dev_zero_as_result_document_exits_2_within_a_second() {
    let d = tempfile::tempdir().unwrap();
    let r = result_doc(d.path(), "r.json");
    for args in [
        vec!["report", "/dev/zero"],
        vec!["report", "/dev/urandom", "--format", "csv"],
        vec!["compare", s(&r), "/dev/zero"],
    ] {
        let t0 = Instant::now();
        let out = in_dir(d.path(), &args);
        assert_quick_refusal(&out, t0, "is a character device, not a regular file");
    }
    // Larger than the 64 MiB limit (sparse: nothing is written).
    let big = d.path().join("big.json");
    std::fs::File::create(&big)
        .unwrap()
        .set_len(65 << 20)
        .unwrap();
    let t0 = Instant::now();
    let out = in_dir(d.path(), &["report", s(&big)]);
    assert_quick_refusal(&out, t0, "more than the 67108864-byte limit");
}

/// A closed journal of one 1 MiB target, written by a verified run.
fn journal(dir: &Path) -> PathBuf {
    let out = in_dir(
        dir,
        &[
            "run",
            "--target",
            "v.dat",
            "--size",
            "1m",
            "--rw",
            "randwrite",
            "--bs",
            "4k",
            "--ops",
            "300",
            "--journal",
            "j",
            "-q",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    dir.join("j")
}

#[test]
fn journal_map_of_wrong_length_or_dev_zero_exits_2_within_a_second() {
    let d = tempfile::tempdir().unwrap();
    let j = journal(d.path());
    let map = j.join("map-0.bin");
    let orig = std::fs::read(&map).unwrap();
    let verify = |needle: &str| {
        let t0 = Instant::now();
        let out = in_dir(d.path(), &["verify", "--journal", "j"]);
        assert_quick_refusal(&out, t0, needle);
        // A run that resumes the journal refuses it the same way.
        let t0 = Instant::now();
        let out = in_dir(
            d.path(),
            &[
                "run",
                "--target",
                "v.dat",
                "--rw",
                "randwrite",
                "--bs",
                "4k",
                "--ops",
                "10",
                "--journal",
                "j",
                "-q",
            ],
        );
        assert_quick_refusal(&out, t0, needle);
    };
    // One byte too many.
    let mut longer = orig.clone();
    longer.push(0);
    std::fs::write(&map, &longer).unwrap();
    verify("is truncated or damaged");
    // The map replaced by a link to /dev/zero.
    std::fs::remove_file(&map).unwrap();
    std::os::unix::fs::symlink("/dev/zero", &map).unwrap();
    verify("is a character device, not a regular file");
    std::fs::remove_file(&map).unwrap();
    std::fs::write(&map, &orig).unwrap();
    // The header naming /dev/zero as the map file.
    let hp = j.join("journal.json");
    let h = std::fs::read_to_string(&hp).unwrap();
    std::fs::write(&hp, h.replace("\"map-0.bin\"", "\"/dev/zero\"")).unwrap();
    verify("map file '/dev/zero'");
    // The header itself replaced by /dev/zero.
    std::fs::remove_file(&hp).unwrap();
    std::os::unix::fs::symlink("/dev/zero", &hp).unwrap();
    verify("is a character device, not a regular file");
}

#[test]
fn a_journal_path_that_is_a_file_or_a_block_device_is_refused_before_any_io() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("notes"), b"mine\n").unwrap();
    let args = |j: &str| {
        vec![
            "run".to_string(),
            "--target".into(),
            "v.dat".into(),
            "--size".into(),
            "1m".into(),
            "--rw".into(),
            "randwrite".into(),
            "--ops".into(),
            "10".into(),
            "--journal".into(),
            j.to_string(),
            "-q".into(),
        ]
    };
    let a = args("notes");
    let out = in_dir(d.path(), &a.iter().map(String::as_str).collect::<Vec<_>>());
    assert_bad_input(&out, "--journal notes is a regular file, not a directory");
    assert!(!d.path().join("v.dat").exists());
    assert_eq!(std::fs::read(d.path().join("notes")).unwrap(), b"mine\n");
    require_root!();
    let dev = LoopDevice::new(8 << 20, false).expect("loop device");
    std::fs::write(&dev.path, vec![0x5au8; 8 << 20]).unwrap();
    let a = args(dev.path_str());
    let out = in_dir(d.path(), &a.iter().map(String::as_str).collect::<Vec<_>>());
    assert_bad_input(&out, "is a block device, not a directory");
    assert!(!d.path().join("v.dat").exists());
    assert!(iolab_testutil::read_all(&dev.path)
        .iter()
        .all(|&b| b == 0x5a));
}

#[test]
fn dry_run_checks_its_outputs_like_the_real_run() {
    let d = tempfile::tempdir().unwrap();
    let foreign = d.path().join("data.bin");
    std::fs::write(&foreign, b"not iolab's").unwrap();
    let out = quick_run(d.path(), &["--json", "data.bin", "--dry-run"]);
    assert_bad_input(
        &out,
        "--json data.bin already holds 11 bytes that are not an iolab result document",
    );
    assert_eq!(std::fs::read(&foreign).unwrap(), b"not iolab's");
    // A dry run with a good output plans and creates nothing.
    let out = quick_run(d.path(), &["--json", "new.json", "--dry-run"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!d.path().join("new.json").exists());
    assert!(!d.path().join("t.dat").exists());
}

/// A closed stdout (`iolab fio ... | head`) does not stop the run: the
/// lines that could not be printed are in the result document, which is
/// written, and the exit is 0 (before, the first interval line panicked
/// with "failed printing to stdout" and exit 101, no document).
#[test]
fn a_closed_stdout_does_not_stop_the_run_or_lose_the_document() {
    let dir = tempfile::tempdir().unwrap();
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let doc = dir.path().join("doc.json");
    let target = dir.path().join("t");
    let out = std::process::Command::new(assert_cmd::cargo::cargo_bin("iolab"))
        .args(["fio", "--name=x", "--rw=read", "--size=64k", "--json"])
        .arg(&doc)
        .arg(format!("--filename={}", target.display()))
        .stdout(writer)
        .stderr(std::process::Stdio::piped())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = std::fs::read_to_string(&doc).expect("the document is written");
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["runs"][0]["summary"]["read"]["bytes"], 65536);
}
