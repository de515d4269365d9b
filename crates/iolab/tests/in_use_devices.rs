//! Issue 14, findings 2 and 3 through the binary: a mounted device named
//! with `--destroy-data-on` alone is refused (exit 2, one line naming the
//! mount point and both flags) and stays byte-identical, and with
//! `--allow-mounted-write` too the run goes ahead; without libblkid
//! (`IOLAB_LIBBLKID=off`) a signature of the hand-kept list is still
//! refused, and the refusal says libblkid was not available.

mod common;
use common::*;
use iolab_testutil::{require, require_root, LoopDevice};
use std::path::{Path, PathBuf};
use std::process::Command;

const MIB: u64 = 1024 * 1024;

fn sh(cmd: &str, args: &[&str]) -> bool {
    Command::new(cmd)
        .args(args)
        .output()
        .is_ok_and(|o| o.status.success())
}

/// ext4 made on a loop device (inode tables and journal initialised now,
/// so the idle file system does not write in the background) and mounted
/// on a temp dir; unmounted before the device is detached.
struct Mounted {
    dir: tempfile::TempDir,
    dev: LoopDevice,
}

impl Mounted {
    fn new() -> Mounted {
        let dev = LoopDevice::new(64 * MIB, false).unwrap();
        assert!(sh(
            "mkfs.ext4",
            &[
                "-q",
                "-F",
                "-E",
                "lazy_itable_init=0,lazy_journal_init=0",
                dev.path_str()
            ]
        ));
        let dir = tempfile::tempdir().unwrap();
        let m = Mounted { dir, dev };
        assert!(sh(
            "mount",
            &["-o", "noatime", m.dev.path_str(), m.mount_point()]
        ));
        assert!(sh("sync", &[]));
        m
    }

    fn mount_point(&self) -> &str {
        self.dir.path().to_str().unwrap()
    }
}

impl Drop for Mounted {
    fn drop(&mut self) {
        if !sh("umount", &[self.mount_point()]) {
            let _ = sh("umount", &["-l", self.mount_point()]);
        }
    }
}

/// The whole device, read through the block device.
fn content(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap()
}

/// Where the writes of [`write_args`] may land: from `--offset 60m` to the
/// end of the 64 MiB device. Only this is compared on the mounted device:
/// the mounted ext4 may itself write its superblock and journal at any
/// time (CI once saw the whole device change without any write of
/// iolab's), and the test is about iolab's writes.
fn reach(path: &Path) -> Vec<u8> {
    use std::os::unix::fs::FileExt;
    let mut buf = vec![0u8; (4 * MIB) as usize];
    (std::fs::File::open(path).unwrap())
        .read_exact_at(&mut buf, 60 * MIB)
        .unwrap();
    buf
}

fn write_args<'a>(dev: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut v = vec![
        "run", "--target", dev, "--rw", "write", "--bs", "4k", "--offset", "60m", "--ops", "1",
    ];
    v.extend_from_slice(extra);
    v
}

#[test]
fn finding3_mounted_device_named_with_destroy_data_on_alone_is_refused() {
    require_root!();
    require!(
        sh("mkfs.ext4", &["-V"]),
        "mkfs.ext4 is not installed (e2fsprogs)"
    );
    let m = Mounted::new();
    let dev = m.dev.path_str().to_string();
    let d = tempfile::tempdir().unwrap();
    let before = reach(&m.dev.path);

    let o = iolab()
        .args(write_args(&dev, &["--destroy-data-on", &dev]))
        .current_dir(d.path())
        .output()
        .unwrap();
    assert_bad_input(&o, &format!("mounted on {}", m.mount_point()));
    let err = stderr(&o);
    assert!(err.contains(&format!("--destroy-data-on {dev}")), "{err}");
    assert!(err.contains("--allow-mounted-write"), "{err}");
    assert!(reach(&m.dev.path) == before, "a refused device changed");

    // The same through a job file's destroy_data_on.
    let job = d.path().join("job.toml");
    std::fs::write(
        &job,
        format!(
            "[global]\ntarget = '{dev}'\nrw = 'write'\nbs = '4k'\noffset = '60m'\nops = 1\ndestroy_data_on = '{dev}'\n"
        ),
    )
    .unwrap();
    let o = iolab()
        .args(["run", job.to_str().unwrap()])
        .current_dir(d.path())
        .output()
        .unwrap();
    assert_bad_input(&o, "--allow-mounted-write");
    assert!(reach(&m.dev.path) == before, "a refused device changed");

    // With both flags the check passes and the run writes its one block
    // (into space the 64 MiB file system does not use; the device is this
    // test's own).
    let (out, doc) = run_json(
        &write_args(&dev, &["--destroy-data-on", &dev, "--allow-mounted-write"])[1..],
        d.path(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(ptr(&doc, "runs/0/spec/allow_mounted_write"), true);
    // ... where the refused runs were checked not to write.
    assert!(
        reach(&m.dev.path) != before,
        "the allowed write did not land where the refusals were checked"
    );

    // And through the job file key.
    let mut text = std::fs::read_to_string(&job).unwrap();
    text.push_str("allow_mounted_write = true\n");
    std::fs::write(&job, text).unwrap();
    let o = iolab()
        .args(["run", job.to_str().unwrap(), "-q"])
        .current_dir(d.path())
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
}

/// Header bytes to write: (offset, bytes).
type Writes<'a> = &'a [(u64, &'a [u8])];

#[test]
fn finding2_without_libblkid_the_hand_list_refuses_and_says_so() {
    require_root!();
    let vmfs_volume = 0xc001_d00du32.to_le_bytes();
    let vmfs_fs = 0x2fab_f15eu32.to_le_bytes();
    let cases: [(Writes, &str); 3] = [
        (
            &[(32, b"ORCLDISKDATA_0001")],
            "it carries an Oracle ASM disk signature (at byte 32)",
        ),
        (
            &[(0, b"bluestore block device\n")],
            "it carries a Ceph BlueStore device signature (at byte 0)",
        ),
        (
            &[(MIB, &vmfs_volume), (2 * MIB, &vmfs_fs)],
            "it carries a VMware VMFS file system signature (at byte 2097152)",
        ),
    ];
    let d = tempfile::tempdir().unwrap();
    for (writes, phrase) in cases {
        let dev = LoopDevice::new(16 * MIB, false).unwrap();
        let f = std::fs::OpenOptions::new()
            .write(true)
            .open(&dev.path)
            .unwrap();
        for (off, b) in writes {
            std::os::unix::fs::FileExt::write_all_at(&f, b, *off).unwrap();
        }
        f.sync_all().unwrap();
        drop(f);
        let before = content(&dev.path);
        let path: PathBuf = dev.path.clone();
        let p = path.to_str().unwrap();
        for (env, libblkid) in [(Some("off"), false), (None, true)] {
            let mut c = iolab();
            c.args(["run", "--target", p, "--rw", "randwrite", "--ops", "1"])
                .current_dir(d.path());
            match env {
                Some(v) => c.env("IOLAB_LIBBLKID", v),
                None => c.env_remove("IOLAB_LIBBLKID"),
            };
            let o = c.output().unwrap();
            assert_bad_input(&o, phrase);
            let says = stderr(&o).contains("libblkid was not available");
            if libblkid {
                // Only when this machine has libblkid; otherwise both runs
                // fall back.
                if iolab_target::libblkid_available().is_ok() {
                    assert!(!says, "{}", stderr(&o));
                }
            } else {
                assert!(says, "{}", stderr(&o));
                assert!(stderr(&o).contains("IOLAB_LIBBLKID=off"), "{}", stderr(&o));
            }
            assert!(content(&dev.path) == before, "a refused device changed");
        }
    }
}
