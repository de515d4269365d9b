//! Issue 16 item 6 and "How it is checked", on ext4 and xfs (loop devices
//! of the test's own): `--verify` on a file workload finds nothing on a
//! clean run (sizes that end inside a sector, appends, creates and
//! deletes), and finds a byte changed and a file truncated behind iolab's
//! back, whether that happens during a run or between two runs on a kept
//! fileset, naming the file.

mod common;
mod fs_support;

use common::*;
use fs_support::*;
use serde_json::Value;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// 8 files of 10,000 bytes (19 sectors and 272 bytes), in the anchor.
const SHAPE: [&str; 6] = ["--files", "8", "--file-size", "10000", "--depth", "0"];

fn args<'a>(dir: &'a str, rest: &[&'a str]) -> Vec<&'a str> {
    let mut a = vec!["--dir", dir, "--verify"];
    a.extend_from_slice(&SHAPE);
    a.extend_from_slice(rest);
    a
}

/// The workload's verification record.
fn verify(doc: &Value) -> &Value {
    wl(doc)
        .get("verify")
        .filter(|v| !v.is_null())
        .or_else(|| ptr(doc, "runs.0").get("verify"))
        .unwrap_or_else(|| panic!("no verify record: {}", wl(doc)))
}

/// The fileset's files (not the marker), sorted.
fn files(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        // iolab's own files in the anchor (the marker, the sizes record
        // a --verify run leaves) are not the fileset's.
        .filter(|p| {
            p.is_file()
                && !p
                    .file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with(".iolab-"))
        })
        .collect();
    v.sort();
    v
}

/// Change byte 5,000 of `a` and cut `b` to 4,000 bytes, behind iolab's back.
fn tamper(a: &Path, b: &Path) {
    let f = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(a)
        .unwrap();
    let mut x = [0u8; 1];
    f.read_at(&mut x, 5000).unwrap();
    f.write_at(&[x[0] ^ 0x08], 5000).unwrap();
    std::fs::OpenOptions::new()
        .write(true)
        .open(b)
        .unwrap()
        .set_len(4000)
        .unwrap();
}

/// The findings name `a` (corrupt, at the sector of byte 5,000) and `b`
/// (truncated at 4,000; required when `truncated`) and nothing else.
fn found(kind: &str, doc: &Value, a: &Path, b: &Path, truncated: bool) {
    let v = verify(doc);
    let list = v["findings"].as_array().unwrap();
    let by = &v["by_class"];
    assert!(by["corrupt"].as_u64().unwrap_or(0) >= 1, "{kind}: {v}");
    if truncated {
        assert!(by["truncated"].as_u64().unwrap_or(0) >= 1, "{kind}: {v}");
    }
    for f in list {
        let (t, c) = (f["target"].as_str().unwrap(), f["class"].as_str().unwrap());
        match c {
            "corrupt" => {
                assert_eq!(t, s(a), "{kind}: {f}");
                assert_eq!(f["offset"].as_u64(), Some(5000 / 512 * 512), "{kind}: {f}");
            }
            // Where the read that met the end stopped: 4,000, or the end
            // of a transfer that completed before the cut.
            "truncated" => {
                assert_eq!(t, s(b), "{kind}: {f}");
                let at = f["offset"].as_u64().unwrap();
                assert!((4000..10_000).contains(&at), "{kind}: {f}");
            }
            // A read racing the cut may see the page's tail zeroed.
            "zeroed" if truncated => {
                assert_eq!(t, s(b), "{kind}: {f}");
                assert_eq!(f["offset"].as_u64(), Some(4000 / 512 * 512), "{kind}: {f}");
            }
            _ => panic!("{kind}: unexpected finding {f}"),
        }
    }
}

/// Makes the fileset and writes every file whole under `--verify`.
fn written(kind: &str, dir: &Path, out: &Path) {
    let (o, doc) = run_json(
        &args(s(dir), &["--mix", "write:whole:100", "--ops", "64"]),
        out,
    );
    assert_eq!(o.status.code(), Some(0), "{kind}: {}", stderr(&o));
    assert_eq!(verify(&doc)["findings_total"].as_u64(), Some(0), "{kind}");
}

fn clean(kind: &str) {
    let Some(fs) = mount(kind) else { return };
    let out = scratch();
    let dir = fs.path().join("clean");
    let mix = "read:whole:30,read:rand:4k:10,write:rand:4k:15,append:rand:3000:10,rewrite:10,create:10,delete:10,stat:5";
    let (o, doc) = run_json(
        &args(s(&dir), &["--mix", mix, "--duration", "1s", "--jobs", "2"]),
        out.path(),
    );
    assert_eq!(o.status.code(), Some(0), "{kind}: {}", stderr(&o));
    let v = verify(&doc);
    assert_eq!(v["findings_total"].as_u64(), Some(0), "{kind}: {v}");
    assert!(v["blocks_checked"].as_u64().unwrap() > 1000, "{kind}: {v}");
    eprintln!(
        "{kind}: {} sectors checked, {:?}",
        v["blocks_checked"],
        all_ops(&doc)
    );
}

fn during_a_run(kind: &str) {
    let Some(fs) = mount(kind) else { return };
    let out = scratch();
    let dir = fs.path().join("during");
    written(kind, &dir, out.path());
    let fl = files(&dir);
    assert_eq!(fl.len(), 8);
    let bg = run_json_bg(
        &args(s(&dir), &["--mix", "read:whole:100", "--duration", "2s"]),
        out.path(),
    );
    std::thread::sleep(Duration::from_millis(800));
    tamper(&fl[2], &fl[5]);
    let (o, doc) = bg.join().unwrap();
    assert!(
        matches!(o.status.code(), Some(0 | 1)),
        "{kind}: {}",
        stderr(&o)
    );
    found(kind, &doc, &fl[2], &fl[5], true);
}

fn between_runs(kind: &str) {
    let Some(fs) = mount(kind) else { return };
    let out = scratch();
    let dir = fs.path().join("kept");
    written(kind, &dir, out.path());
    let fl = files(&dir);
    tamper(&fl[1], &fl[6]);
    let (o, doc) = run_json(
        &args(s(&dir), &["--mix", "read:whole:100", "--ops", "200"]),
        out.path(),
    );
    assert!(
        matches!(o.status.code(), Some(0 | 1)),
        "{kind}: {}",
        stderr(&o)
    );
    // A --verify run leaves the sizes it wrote beside the fileset, so the
    // next one knows file 6 was cut.
    found(kind, &doc, &fl[1], &fl[6], true);
}

/// The fileset's creation under `--verify` stamps what it writes: a
/// read-only run right after it checks every sector.
fn stamped_at_creation(kind: &str) {
    let Some(fs) = mount(kind) else { return };
    let out = scratch();
    let dir = fs.path().join("fresh");
    let (o, doc) = run_json(
        &args(s(&dir), &["--mix", "read:whole:100", "--ops", "80"]),
        out.path(),
    );
    assert_eq!(o.status.code(), Some(0), "{kind}: {}", stderr(&o));
    let v = verify(&doc);
    // 8 files of 10,000 bytes: 20 sectors each, the last partial.
    assert_eq!(v["blocks_prefilled"].as_u64(), Some(8 * 20), "{kind}: {v}");
    assert_eq!(v["blocks_checked"].as_u64(), Some(80 * 20), "{kind}: {v}");
    assert_eq!(v["blocks_unwritten"].as_u64(), Some(0), "{kind}: {v}");
    assert_eq!(v["findings_total"].as_u64(), Some(0), "{kind}: {v}");
}

/// fileserver and varmail (create, write whole, append, fsync, read
/// whole, delete) for a second each under `--verify`: nothing found.
fn personalities_clean(kind: &str) {
    let Some(fs) = mount(kind) else { return };
    let out = scratch();
    for name in ["fileserver", "varmail"] {
        let dir = fs.path().join(name);
        std::fs::create_dir(&dir).unwrap();
        let a = [
            "--personality",
            name,
            "--dir",
            s(&dir),
            "--files",
            "40",
            "--file-size",
            "gamma:12k",
            "--jobs",
            "4",
            "--duration",
            "1s",
            "--verify",
        ];
        let (o, doc) = run_json(&a, out.path());
        assert_eq!(o.status.code(), Some(0), "{kind} {name}: {}", stderr(&o));
        let v = verify(&doc);
        assert_eq!(v["findings_total"].as_u64(), Some(0), "{kind} {name}: {v}");
        assert!(
            v["blocks_checked"].as_u64().unwrap() > 1000,
            "{kind} {name}: {v}"
        );
        assert!(
            ops(&doc, "read") > 100 && ops(&doc, "append") > 100,
            "{kind} {name}"
        );
    }
}

on_both!(a_clean_run_finds_nothing, super::clean);
on_both!(
    personalities_under_verify_find_nothing,
    super::personalities_clean
);
on_both!(
    a_fileset_made_under_verify_is_stamped,
    super::stamped_at_creation
);
on_both!(changes_during_a_run_are_found, super::during_a_run);
on_both!(
    changes_between_runs_on_a_kept_fileset_are_found,
    super::between_runs
);
