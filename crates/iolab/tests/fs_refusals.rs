//! Issue 16 items 1 and 7 on ext4 and xfs (loop devices of the test's
//! own): a tree without the marker is refused untouched; a fileset that
//! does not fit is refused with the numbers; ENOSPC in the middle of a run
//! stops it cleanly (exit 1, results kept, errno and path) or, under
//! `--on-error continue`, is counted while the run goes on; a file
//! deleted by someone else during the run is counted, not fatal; an
//! anchor iolab may not write is one line.

mod common;
mod fs_support;

use common::*;
use fs_support::*;
use std::os::unix::fs::PermissionsExt;
use std::time::Duration;

const SMALL: [&str; 4] = ["--files", "8", "--file-size", "64k"];

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
        assert!(
            total + n >= 400,
            "{kind}: {total} operations and {n} errors of 400"
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
