//! What the file-system end-to-end tests share (tests/fs_*.rs): a file
//! system of each kind on a loop device of the test's own, counts of what
//! `find` sees, the loop device's byte counters, and readers of the
//! result document's per-operation and fileset fields.
#![allow(dead_code)]

use crate::common::ptr;
use iolab_testutil::MountedFs;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The file systems every test runs on.
pub const KINDS: [&str; 2] = ["ext4", "xfs"];

/// Run `$body(kind)` as two tests, `$name::ext4` and `$name::xfs`.
#[macro_export]
macro_rules! on_both {
    ($name:ident, $body:path) => {
        mod $name {
            #[test]
            fn ext4() {
                $body("ext4")
            }
            #[test]
            fn xfs() {
                $body("xfs")
            }
        }
    };
}

/// A file system of `kind` (512 MiB, sparse: xfs needs 300) on a loop
/// device of its own, mounted on a temporary directory; unmounted and
/// detached when dropped, also when the test fails. `None` (after a
/// `SKIP` line, or a failure under CI) without root or mkfs.
pub fn mount(kind: &str) -> Option<MountedFs> {
    let test = format!("{}::{kind}", module_path!());
    if !iolab_testutil::is_root() {
        iolab_testutil::skip_or_fail(&test, "needs root (loop devices, mkfs, mount)");
        return None;
    }
    let mkfs = format!("mkfs.{kind}");
    if !iolab_testutil::have_tool(&mkfs) {
        iolab_testutil::skip_or_fail(&test, &iolab_testutil::missing_tool(&mkfs));
        return None;
    }
    Some(MountedFs::new(kind, 512 << 20).unwrap_or_else(|e| panic!("{kind} on a loop device: {e}")))
}

/// A scratch directory for result documents (outside the file system
/// under test, so it does not count in the device's bytes).
pub fn scratch() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

/// (regular files, directories) under `dir` as `find` counts them, the
/// anchor itself and iolab's own files (`.iolab-*`: the marker, the sizes
/// record) left out.
pub fn find_counts(dir: &Path) -> (u64, u64) {
    let count = |args: &[&str]| -> u64 {
        let out = Command::new("find")
            .arg(dir)
            .args(["-mindepth", "1"])
            .args(args)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "find: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).lines().count() as u64
    };
    (
        count(&["-type", "f", "!", "-name", ".iolab-*"]),
        count(&["-type", "d"]),
    )
}

/// Bytes read and written by the loop device under `fs` so far
/// (/sys/block/loopN/stat, sectors of 512 bytes).
pub fn dev_bytes(fs: &MountedFs) -> (u64, u64) {
    let p = format!("/sys/block/{}/stat", fs.dev.name());
    let s = std::fs::read_to_string(&p).unwrap();
    let f: Vec<u64> = s.split_whitespace().map(|x| x.parse().unwrap()).collect();
    (f[2] * 512, f[6] * 512)
}

/// `sync -f` on the file system: what the page cache and the journal
/// hold reaches the device.
pub fn sync_fs(path: &Path) {
    let st = Command::new("sync").arg("-f").arg(path).status().unwrap();
    assert!(st.success());
}

/// The first workload of the first run.
pub fn wl(doc: &Value) -> &Value {
    ptr(doc, "runs.0.workloads.0")
}

/// `operations.<op>.<field>` of the first workload (0 when the operation
/// did not run).
pub fn op_u(doc: &Value, op: &str, field: &str) -> u64 {
    wl(doc)
        .pointer(&format!("/operations/{op}/{field}"))
        .and_then(Value::as_u64)
        .unwrap_or(0)
}

pub fn ops(doc: &Value, op: &str) -> u64 {
    op_u(doc, op, "ops")
}

/// Every operation's count: name -> ops.
pub fn all_ops(doc: &Value) -> Vec<(String, u64)> {
    let o = wl(doc)
        .get("operations")
        .and_then(Value::as_object)
        .unwrap_or_else(|| panic!("no operations in the workload: {}", wl(doc)));
    o.iter()
        .map(|(k, v)| (k.clone(), v["ops"].as_u64().unwrap_or(0)))
        .collect()
}

/// `fileset.<key>` of the first workload.
pub fn fileset(doc: &Value, key: &str) -> u64 {
    ptr(wl(doc), &format!("fileset.{key}"))
        .as_u64()
        .unwrap_or_else(|| panic!("fileset.{key} is not an integer"))
}

/// Errors of the workload with this errno: (count, paths of the
/// recorded ones). The count is the larger of `error_counts` (by number)
/// and the operations' `errors` (by name, e.g. `ENOSPC`).
pub fn errno_seen(doc: &Value, errno: i32) -> (u64, Vec<String>) {
    let w = wl(doc);
    let by_number: u64 = w["error_counts"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|c| c["errno"].as_i64() == Some(errno as i64))
        .map(|c| c["count"].as_u64().unwrap_or(0))
        .sum();
    let name = errno_name(errno);
    let by_name: u64 = w["operations"]
        .as_object()
        .into_iter()
        .flatten()
        .map(|(_, o)| o["errors"][name].as_u64().unwrap_or(0))
        .sum();
    let paths = w["errors"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|e| e["errno"].as_i64() == Some(errno as i64))
        .map(|e| e["target"].as_str().unwrap_or("").to_string())
        .collect();
    (by_number.max(by_name), paths)
}

fn errno_name(e: i32) -> &'static str {
    match e {
        libc::ENOENT => "ENOENT",
        libc::ENOSPC => "ENOSPC",
        libc::EACCES => "EACCES",
        _ => "?",
    }
}

/// Leave only `free` bytes free on the file system at `root` with a
/// preallocated file of the test's own (outside any anchor).
pub fn ballast(root: &Path, free: u64) -> PathBuf {
    let out = Command::new("stat")
        .args(["-f", "-c", "%a %S"])
        .arg(root)
        .output()
        .unwrap();
    let s = String::from_utf8_lossy(&out.stdout);
    let v: Vec<u64> = s.split_whitespace().map(|x| x.parse().unwrap()).collect();
    let avail = v[0] * v[1];
    assert!(avail > free, "only {avail} bytes free");
    let p = root.join("ballast");
    let st = Command::new("fallocate")
        .args(["-l", &(avail - free).to_string()])
        .arg(&p)
        .status()
        .unwrap();
    assert!(st.success(), "fallocate");
    p
}

/// Everything under `root` with its size and contents' hash, for "nothing
/// was touched".
pub fn snapshot(root: &Path) -> Vec<(PathBuf, u64, u64)> {
    let mut out = Vec::new();
    let mut todo = vec![root.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let e = e.unwrap();
            let m = std::fs::symlink_metadata(e.path()).unwrap();
            if m.is_dir() {
                todo.push(e.path());
                out.push((e.path(), 0, 0));
            } else {
                let data = std::fs::read(e.path()).unwrap_or_default();
                let h = data.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
                    (h ^ b as u64).wrapping_mul(0x100_0000_01b3)
                });
                out.push((e.path(), m.len(), h));
            }
        }
    }
    out.sort();
    out
}

/// The path argument as a &str.
pub fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}
