//! Issue 16 items 1 and 7 on ext4 and xfs (loop devices of the test's
//! own): a tree without the marker is refused untouched; a fileset that
//! does not fit is refused with the numbers; ENOSPC in the middle of a run
//! stops it cleanly (exit 1, results kept, errno and path) or, under
//! `--on-error continue`, is counted while the run goes on; a file
//! deleted by someone else during the run is counted, not fatal; an
//! anchor iolab may not write is one line. And the audit of issue 16:
//! clean-up of mkdir's side directories, read-only and foreign anchors,
//! ENOSPC while making the fileset, sweeps and workloads over one anchor.

mod common;
mod fs_support;

use common::*;
use fs_support::*;
use std::os::unix::fs::PermissionsExt;
use std::time::Duration;

const SMALL: [&str; 6] = ["--files", "8", "--file-size", "64k", "--depth", "0"];

fn with<'a>(dir: &'a str, rest: &[&'a str]) -> Vec<&'a str> {
    let mut a = vec!["run", "--dir", dir];
    a.extend_from_slice(rest);
    a
}

fn unmarked_tree(kind: &str) {
    let Some(fs) = mount(kind) else { return };
    let dir = fs.path().join("users");
    std::fs::create_dir_all(dir.join("alice")).unwrap();
    std::fs::write(dir.join("alice/thesis.tex"), b"years of work").unwrap();
    std::fs::write(dir.join("notes"), b"keep").unwrap();
    let before = snapshot(&dir);
    let mut a = with(s(&dir), &["--mix", "write:50,delete:50", "--ops", "100"]);
    a.extend_from_slice(&SMALL);
    let o = iolab().args(&a).output().unwrap();
    assert_bad_input(&o, s(&dir));
    assert_eq!(snapshot(&dir), before, "{kind}: the tree was touched");
}

fn does_not_fit(kind: &str) {
    let Some(fs) = mount(kind) else { return };
    let dir = fs.path().join("big");
    let before = snapshot(fs.path());
    // 100 files of 10 MiB: twice the file system.
    let a = with(
        s(&dir),
        &[
            "--mix",
            "read:100",
            "--ops",
            "10",
            "--files",
            "100",
            "--file-size",
            "10m",
        ],
    );
    let o = iolab().args(&a).output().unwrap();
    assert_bad_input(&o, s(&dir));
    let err = stderr(&o);
    let numbers = err
        .split(|c: char| !c.is_ascii_digit() && c != '.')
        .filter(|w| !w.is_empty())
        .count();
    assert!(
        err.contains("MiB") || err.contains("GiB"),
        "{kind}: no sizes: {err}"
    );
    assert!(numbers >= 2, "{kind}: not the numbers: {err}");
    assert!(!dir.exists(), "{kind}: a refused fileset left its anchor");
    assert_eq!(
        snapshot(fs.path()),
        before,
        "{kind}: the file system was touched"
    );
}

fn enospc(kind: &str, continue_on_error: bool) {
    let Some(fs) = mount(kind) else { return };
    let out = scratch();
    let dir = fs.path().join("full");
    ballast(fs.path(), 24 << 20);
    // 8 files of 64 KiB fit; appends of 1 MiB fill the rest.
    let mut rest = vec![
        "--mix",
        "append:1m:50,read:50",
        "--ops",
        "400",
        "--jobs",
        "1",
    ];
    rest.extend_from_slice(&SMALL);
    if continue_on_error {
        rest.extend_from_slice(&["--on-error", "continue"]);
    }
    let (o, doc) = run_json(&with(s(&dir), &rest)[1..], out.path());
    assert_eq!(
        o.status.code(),
        Some(1),
        "{kind}: exit code; {}",
        stderr(&o)
    );
    assert!(!stderr(&o).contains("panicked"), "{}", stderr(&o));
    let (n, paths) = errno_seen(&doc, libc::ENOSPC);
    assert!(
        n >= 1,
        "{kind}: ENOSPC not counted: {}",
        wl(&doc)["error_counts"]
    );
    assert!(
        paths.iter().any(|p| p.starts_with(s(&dir))),
        "{kind}: ENOSPC without a path in the anchor: {paths:?}"
    );
    // Results gathered before the error are kept.
    assert!(
        ops(&doc, "append") > 0 || ops(&doc, "read") > 0,
        "{kind}: no results kept"
    );
    let total: u64 = all_ops(&doc).iter().map(|(_, n)| n).sum();
    if continue_on_error {
        assert!(n >= 2, "{kind}: the run stopped at the first ENOSPC: {n}");
        // Every operation of the 400 either succeeded or failed (ENOSPC,
        // or a write cut short at the file system's end).
        let errors = u(wl(&doc), "errors_total");
        assert_eq!(
            total + errors,
            400,
            "{kind}: {total} operations and {errors} errors"
        );
        assert!(ops(&doc, "read") > 100, "{kind}: reads did not go on");
    } else {
        assert_eq!(n, 1, "{kind}: the run went on after ENOSPC");
        assert!(total < 400, "{kind}: the run went on after ENOSPC");
    }
}

fn enospc_stops(kind: &str) {
    enospc(kind, false)
}
fn enospc_continue(kind: &str) {
    enospc(kind, true)
}

fn deleted_by_someone_else(kind: &str) {
    let Some(fs) = mount(kind) else { return };
    let out = scratch();
    let dir = fs.path().join("shared");
    let shape = ["--files", "40", "--file-size", "16k", "--depth", "0"];
    let mut a = vec!["--dir", s(&dir), "--mix", "stat:100", "--ops", "10"];
    a.extend_from_slice(&shape);
    let (o, _) = run_json(&a, out.path());
    assert_eq!(o.status.code(), Some(0), "{kind}: {}", stderr(&o));
    let mut a = vec![
        "--dir",
        s(&dir),
        "--mix",
        "read:whole:80,stat:20",
        "--duration",
        "2s",
    ];
    a.extend_from_slice(&shape);
    let bg = run_json_bg(&a, out.path());
    std::thread::sleep(Duration::from_millis(700));
    let mut gone = 0;
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_file() && !p.ends_with(".iolab-fileset") && gone < 20 {
            std::fs::remove_file(&p).unwrap();
            gone += 1;
        }
    }
    assert_eq!(gone, 20);
    let (o, doc) = bg.join().unwrap();
    let err = stderr(&o);
    assert!(matches!(o.status.code(), Some(0 | 1)), "{kind}: {err}");
    assert!(!err.contains("panicked"), "{err}");
    let (n, _) = errno_seen(&doc, libc::ENOENT);
    assert!(n >= 1, "{kind}: the deleted files were not counted");
    let measured = f(wl(&doc), "measured_s");
    assert!(measured > 1.8, "{kind}: the run ended at {measured} s");
    eprintln!(
        "{kind}: {n} ENOENT, exit {:?}, {:?}",
        o.status.code(),
        all_ops(&doc)
    );
}

fn permission_denied(kind: &str) {
    let Some(fs) = mount(kind) else { return };
    if !iolab_testutil::have_tool("setpriv") {
        iolab_testutil::skip_or_fail(module_path!(), &iolab_testutil::missing_tool("setpriv"));
        return;
    }
    let dir = fs.path().join("ro");
    std::fs::create_dir(&dir).unwrap();
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o555)).unwrap();
    // Root without CAP_DAC_OVERRIDE: the mode applies to it.
    for anchor in [dir.clone(), dir.join("sub")] {
        let mut a = vec![
            "--bounding-set=-dac_override,-dac_read_search".to_string(),
            "--".to_string(),
            assert_cmd::cargo::cargo_bin("iolab").display().to_string(),
        ];
        a.extend(
            with(s(&anchor), &["--mix", "read:100", "--ops", "10"])
                .iter()
                .map(|x| x.to_string()),
        );
        a.extend(SMALL.iter().map(|x| x.to_string()));
        let o = std::process::Command::new("setpriv")
            .args(&a)
            .output()
            .unwrap();
        assert_bad_input(&o, s(&anchor));
        assert!(
            stderr(&o).to_lowercase().contains("permission denied"),
            "{kind}: {}",
            stderr(&o)
        );
    }
    assert_eq!(snapshot(&dir), Vec::new(), "{kind}: something was made");
}

on_both!(
    a_tree_without_the_marker_is_refused_untouched,
    super::unmarked_tree
);
on_both!(
    a_fileset_that_does_not_fit_is_refused_with_the_numbers,
    super::does_not_fit
);
on_both!(
    enospc_mid_run_stops_cleanly_and_keeps_the_results,
    super::enospc_stops
);
on_both!(
    enospc_under_on_error_continue_is_counted_and_the_run_goes_on,
    super::enospc_continue
);
on_both!(
    a_file_deleted_by_someone_else_is_counted_not_fatal,
    super::deleted_by_someone_else
);
on_both!(
    an_anchor_iolab_may_not_write_is_one_line,
    super::permission_denied
);

// Issue 16 audit.

/// Item 1: `--cleanup` removes the side directories `NAME.d` a `mkdir`
/// run left beside the files (kept between runs without it), then the
/// layout's directories: only the anchor and its marker stay.
fn cleanup_takes_the_side_directories(kind: &str) {
    let Some(fs) = mount(kind) else { return };
    let out = scratch();
    let dir = fs.path().join("m");
    let shape = ["--files", "200", "--file-size", "16k"];
    // 100 of the 200 side directories: a mkdir-only mix that has made
    // them all stops, incomplete (nothing left it could do).
    let mut a = vec!["--dir", s(&dir), "--mix", "mkdir:1", "--ops", "100"];
    a.extend_from_slice(&shape);
    let (o, _) = run_json(&a, out.path());
    assert_eq!(o.status.code(), Some(0), "{kind}: {}", stderr(&o));
    let (files, dirs) = find_counts(&dir);
    assert!(
        files == 200 && dirs >= 100,
        "{kind}: no side directories: {dirs}"
    );
    let mut a = vec![
        "--dir",
        s(&dir),
        "--mix",
        "stat:1",
        "--ops",
        "10",
        "--cleanup",
    ];
    a.extend_from_slice(&shape);
    let (o, _) = run_json(&a, out.path());
    assert_eq!(o.status.code(), Some(0), "{kind}: {}", stderr(&o));
    assert_eq!(find_counts(&dir), (0, 0), "{kind}: left behind");
    assert!(dir.join(".iolab-fileset").is_file());
}

/// Item 5: a marked anchor on a file system remounted read-only takes a
/// workload that only reads or stats (its marker is not written again);
/// one that writes is refused before any I/O in one line, by `--dry-run`
/// too.
fn read_only_anchor(kind: &str) {
    let Some(fs) = mount(kind) else { return };
    let out = scratch();
    let dir = fs.path().join("ro");
    let run = |mix: &str, extra: &[&str]| {
        let mut a = with(s(&dir), &["--mix", mix, "--ops", "20"]);
        a.extend_from_slice(&SMALL);
        a.extend_from_slice(extra);
        iolab().args(&a).current_dir(out.path()).output().unwrap()
    };
    assert_eq!(run("stat:1", &[]).status.code(), Some(0));
    let remount = |how: &str| {
        let st = std::process::Command::new("mount")
            .args(["-o", &format!("remount,{how}")])
            .arg(fs.path())
            .status()
            .unwrap();
        assert!(st.success(), "remount,{how}");
    };
    remount("ro");
    for mix in ["read:1", "stat:1"] {
        let o = run(mix, &[]);
        assert_eq!(o.status.code(), Some(0), "{kind} {mix}: {}", stderr(&o));
    }
    for extra in [&[][..], &["--dry-run"][..]] {
        let o = run("write:1", extra);
        assert_bad_input(&o, "read-only");
        assert!(stderr(&o).contains(s(&dir)), "{}", stderr(&o));
    }
    remount("rw");
}

/// Item 5: a marked fileset of another owner (0755), run by root without
/// CAP_DAC_OVERRIDE: reads run, writes are refused in one line, exit 2.
fn marked_anchor_of_another_owner(kind: &str) {
    let Some(fs) = mount(kind) else { return };
    if !iolab_testutil::have_tool("setpriv") {
        iolab_testutil::skip_or_fail(module_path!(), &iolab_testutil::missing_tool("setpriv"));
        return;
    }
    let dir = fs.path().join("theirs");
    let mut a = with(s(&dir), &["--mix", "stat:1", "--ops", "10"]);
    a.extend_from_slice(&SMALL);
    assert_eq!(iolab().args(&a).output().unwrap().status.code(), Some(0));
    let st = std::process::Command::new("chown")
        .args(["-R", "65534:65534"])
        .arg(&dir)
        .status()
        .unwrap();
    assert!(st.success());
    let before = snapshot(&dir);
    let as_other = |mix: &str| {
        let mut args = vec![
            "--bounding-set=-dac_override,-dac_read_search".to_string(),
            "--".to_string(),
            assert_cmd::cargo::cargo_bin("iolab").display().to_string(),
        ];
        let mut a = with(s(&dir), &["--mix", mix, "--ops", "10"]);
        a.extend_from_slice(&SMALL);
        args.extend(a.iter().map(|x| x.to_string()));
        std::process::Command::new("setpriv")
            .args(&args)
            .output()
            .unwrap()
    };
    let o = as_other("read:1");
    assert_eq!(o.status.code(), Some(0), "{kind}: {}", stderr(&o));
    let o = as_other("write:1");
    assert_bad_input(&o, "Permission denied");
    assert_eq!(snapshot(&dir), before, "{kind}: the fileset was touched");
}

on_both!(
    cleanup_removes_the_side_directories_mkdir_made,
    super::cleanup_takes_the_side_directories
);
on_both!(
    a_read_only_anchor_runs_reads_and_refuses_writes,
    super::read_only_anchor
);
on_both!(
    a_marked_anchor_iolab_may_not_write_is_one_line_before_any_io,
    super::marked_anchor_of_another_owner
);

/// Item 6: ENOSPC while the fileset is made is an error of the run (op
/// `fileset`, its errno and path in `errors`, counted, exit 1), and the
/// summary counts the files made. 5000 empty files in one directory: the
/// capacity check counts no data, the directory's own blocks run out
/// (ext4 without reserved blocks, so root meets the end too).
#[test]
fn enospc_while_making_the_fileset_is_an_error_of_the_run() {
    let Some(fs) = mount("ext4") else { return };
    let st = std::process::Command::new("tune2fs")
        .args(["-m", "0", fs.dev.path_str()])
        .output()
        .unwrap();
    assert!(st.status.success(), "tune2fs");
    let out = scratch();
    let dir = fs.path().join("tight");
    ballast(fs.path(), 16 << 10);
    let a = [
        "--dir",
        s(&dir),
        "--files",
        "5000",
        "--file-size",
        "0",
        "--dir-width",
        "100000",
        "--mix",
        "stat:1",
        "--ops",
        "10",
    ];
    let (o, doc) = run_json(&a, out.path());
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let (n, paths) = errno_seen(&doc, libc::ENOSPC);
    assert_eq!(n, 1, "{}", wl(&doc)["error_counts"]);
    assert!(paths[0].starts_with(s(&dir)), "{paths:?}");
    assert_eq!(wl(&doc)["errors"][0]["op"], "fileset");
    assert_eq!(u(&doc, "runs.0.errors_total"), 1);
    let made = find_counts(&dir).0;
    assert!(made > 0 && made < 5000, "{made}");
    assert_eq!(u(wl(&doc), "filesets.0.files_at_end"), made);
    assert_eq!(u(wl(&doc), "filesets.0.files_made"), made);
}

/// Item 4: a sweep over a fileset's shape on one anchor under
/// `format=no` is refused before its first run, nothing made; with
/// `--format restart` each point reshapes the tree. Two personalities on
/// one --dir likewise.
#[test]
fn a_sweep_over_the_fileset_shape_on_one_dir_is_refused_before_the_first_run() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("s");
    let a = [
        "run",
        "--dir",
        s(&dir),
        "--mix",
        "read:1",
        "--files",
        "50",
        "--file-size",
        "16k,64k",
        "--duration",
        "0.2s",
    ];
    let o = iolab().args(a).output().unwrap();
    assert_bad_input(&o, "run 2/2");
    assert!(stderr(&o).contains("--format restart"), "{}", stderr(&o));
    assert!(!dir.exists(), "a refused plan made its anchor");
    let (o, doc) = run_json(&[&a[1..], &["--format", "restart"]].concat(), t.path());
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(u(&doc, "runs.1.workloads.0.filesets.0.files_resized"), 50);
    let p = t.path().join("p");
    let o = iolab()
        .args(["run", "--personality", "fileserver,varmail", "--dir", s(&p)])
        .args(["--files", "20", "--duration", "0.2s"])
        .output()
        .unwrap();
    assert_bad_input(&o, "run 2/2");
    assert!(!p.exists());
}

/// Item 4: two workloads of one job on one anchor with the same fileset
/// keys lay out one tree (sizes from the base seed, not the workload's),
/// so the second, under `format=restart`, rewrites nothing.
#[test]
fn two_workloads_of_a_job_on_one_anchor_share_one_tree() {
    let t = tempfile::tempdir().unwrap();
    let job = t.path().join("two.toml");
    std::fs::write(
        &job,
        format!(
            "[global]\ndir = \"{}\"\nfiles = 40\nfile_size = \"gamma:8k\"\nformat = \"restart\"\nduration = \"0.2s\"\n\n[[workload]]\nname = \"w\"\nflow = \"open,write:whole,close\"\n\n[[workload]]\nname = \"r\"\nmix = \"read:1\"\n",
            t.path().join("a").display()
        ),
    )
    .unwrap();
    let (o, doc) = run_json(&[s(&job)], t.path());
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(u(&doc, "runs.0.workloads.0.filesets.0.files_made"), 40);
    assert_eq!(u(&doc, "runs.1.workloads.0.filesets.0.files_resized"), 0);
    assert_eq!(u(&doc, "runs.1.workloads.0.filesets.0.bytes_written"), 0);
}
