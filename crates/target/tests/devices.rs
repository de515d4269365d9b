//! Live safety checks on loop devices: every signature a real mkfs, mkswap
//! or sfdisk writes is found and refused without changing a byte, naming
//! the device with `--destroy-data-on` (in any spelling) lifts the refusal,
//! and mounts, partitions, active swap and exclusive claims are reported.

use iolab_target::{detect_signatures, prepare, write_refusals, Kind, PrepareOptions, TargetError};
use iolab_testutil::{require_root, require_tool, LoopDevice, MountedFs};
use std::fs::{File, OpenOptions};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const MIB: u64 = 1024 * 1024;

fn run(cmd: &str, args: &[&str], stdin: Option<&str>) {
    let mut c = Command::new(cmd);
    c.args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = c.spawn().unwrap_or_else(|e| panic!("{cmd}: {e}"));
    {
        use std::io::Write;
        let mut input = child.stdin.take().unwrap();
        if let Some(s) = stdin {
            input.write_all(s.as_bytes()).unwrap();
        }
    }
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{cmd} {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Commands run in order when dropped (unmount, swapoff, partx -d), before
/// the loop device declared earlier is detached.
struct Cleanup(Vec<Vec<String>>);

impl Drop for Cleanup {
    fn drop(&mut self) {
        for c in &self.0 {
            let _ = Command::new(&c[0]).args(&c[1..]).output();
        }
    }
}

fn cleanup(cmds: &[&[&str]]) -> Cleanup {
    Cleanup(
        cmds.iter()
            .map(|c| c.iter().map(|s| s.to_string()).collect())
            .collect(),
    )
}

fn opts(write: bool, destroy: &[&Path]) -> PrepareOptions {
    PrepareOptions {
        write,
        size: None,
        destroy_data_on: destroy.iter().map(|p| p.to_path_buf()).collect(),
        allow_mounted_write: false,
    }
}

/// Prepare for writing and expect a refusal; return its one-line message.
fn refused(dev: &Path) -> String {
    match prepare(dev, &opts(true, &[])) {
        Err(e @ (TargetError::Refused { .. } | TargetError::InUse { .. })) => {
            let msg = e.to_string();
            eprintln!("{msg}");
            assert!(!msg.contains('\n'), "{msg}");
            assert!(msg.contains("--destroy-data-on"), "{msg}");
            msg
        }
        other => panic!("expected a refusal for {}, got {other:?}", dev.display()),
    }
}

/// The whole check for one signature-writing tool: detected by name,
/// refused naming it, allowed for reading and when named with
/// --destroy-data-on (directly and through a symlink), content unchanged.
fn signature_is_refused(size: u64, make: &dyn Fn(&str), name: &str, phrase: &str) {
    require_root!();
    let dev = LoopDevice::new(size, false).unwrap();
    make(dev.path_str());
    let before = iolab_testutil::nonzero_chunks(&dev.path);

    let f = File::open(&dev.path).unwrap();
    let sigs = detect_signatures(&f, size).unwrap();
    assert!(
        sigs.iter().any(|s| s.name == name),
        "{name} not in {sigs:?}"
    );
    // The probe also works through an O_DIRECT descriptor.
    let direct = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_DIRECT)
        .open(&dev.path)
        .unwrap();
    assert_eq!(detect_signatures(&direct, size).unwrap(), sigs);
    let reasons = write_refusals(&dev.path).unwrap();
    assert!(
        reasons.iter().any(|r| r.0.contains(phrase)),
        "{phrase} not in {reasons:?}"
    );
    let msg = refused(&dev.path);
    assert!(msg.contains(phrase), "{msg}");

    let ro = prepare(&dev.path, &opts(false, &[])).unwrap();
    assert_eq!(ro.kind, Kind::BlockDevice);
    assert_eq!(ro.size, size);
    assert!(ro.rdev.is_some());

    let ok = prepare(&dev.path, &opts(true, &[&dev.path])).unwrap();
    assert_eq!(ok.size, size);

    let links = tempfile::tempdir().unwrap();
    let link = links.path().join("disk");
    std::os::unix::fs::symlink(&dev.path, &link).unwrap();
    prepare(&dev.path, &opts(true, &[&link])).unwrap();
    let via_link = prepare(&link, &opts(true, &[&dev.path])).unwrap();
    assert_eq!(via_link.canonical, dev.path);
    // A different device named with --destroy-data-on does not count.
    assert!(matches!(
        prepare(&dev.path, &opts(true, &[Path::new("/dev/null")])),
        Err(TargetError::Refused { .. })
    ));

    assert!(
        before == iolab_testutil::nonzero_chunks(&dev.path),
        "device content changed"
    );
}

#[test]
fn ext4_is_refused() {
    require_root!();
    require_tool!("mkfs.ext4");
    signature_is_refused(
        64 * MIB,
        &|d| run("mkfs.ext4", &["-q", "-F", d], None),
        "ext4",
        "an ext4 file system signature (at byte 1080)",
    );
}

#[test]
fn xfs_is_refused() {
    require_root!();
    require_tool!("mkfs.xfs");
    signature_is_refused(
        300 * MIB,
        &|d| run("mkfs.xfs", &["-q", "-f", d], None),
        "xfs",
        "an xfs file system signature (at byte 0)",
    );
}

#[test]
fn btrfs_is_refused() {
    require_root!();
    require_tool!("mkfs.btrfs");
    signature_is_refused(
        128 * MIB,
        &|d| run("mkfs.btrfs", &["-q", "-f", d], None),
        "btrfs",
        "a btrfs file system signature (at byte 65600)",
    );
}

#[test]
fn swap_is_refused() {
    require_root!();
    require_tool!("mkswap");
    signature_is_refused(
        64 * MIB,
        &|d| run("mkswap", &["-q", d], None),
        "swap",
        "a swap space signature (at byte 4086)",
    );
}

#[test]
fn gpt_label_is_refused() {
    require_root!();
    require_tool!("sfdisk");
    signature_is_refused(
        64 * MIB,
        &|d| {
            run(
                "sfdisk",
                &["-q", "--no-reread", d],
                Some("label: gpt\n,16M\n"),
            )
        },
        "gpt",
        "a GPT partition table signature (at byte 512)",
    );
}

#[test]
fn dos_label_is_refused() {
    require_root!();
    require_tool!("sfdisk");
    signature_is_refused(
        64 * MIB,
        &|d| {
            run(
                "sfdisk",
                &["-q", "--no-reread", d],
                Some("label: dos\n,16M\n"),
            )
        },
        "dos",
        "a DOS partition table signature (at byte 510)",
    );
}

#[test]
fn blank_device_may_be_written() {
    require_root!();
    let dev = LoopDevice::new(64 * MIB, false).unwrap();
    let f = File::open(&dev.path).unwrap();
    assert_eq!(detect_signatures(&f, 64 * MIB).unwrap(), vec![]);
    assert_eq!(write_refusals(&dev.path).unwrap(), vec![]);
    let info = prepare(&dev.path, &opts(true, &[])).unwrap();
    assert_eq!(info.kind, Kind::BlockDevice);
    assert_eq!(info.size, 64 * MIB);
    assert_eq!(info.logical_block_size, 512);
    assert!(info.physical_block_size >= 512);
    assert!(!info.created && !info.owned);

    // A smaller --size limits the region; a larger one is an error.
    let mut o = opts(true, &[]);
    o.size = Some(MIB);
    assert_eq!(prepare(&dev.path, &o).unwrap().size, MIB);
    o.size = Some(65 * MIB);
    match prepare(&dev.path, &o) {
        Err(e @ TargetError::TooSmall { .. }) => {
            assert_eq!(
                e.to_string(),
                format!(
                    "--size {} is larger than {} ({} bytes); give a smaller --size",
                    65 * MIB,
                    dev.path.display(),
                    64 * MIB
                )
            )
        }
        other => panic!("{other:?}"),
    }

    // The device opens with O_DIRECT and reports its alignment.
    let h = iolab_target::open(&info, true, true, false).unwrap();
    drop(h);
    if info.dio_offset_align != 0 {
        assert_eq!(info.dio_offset_align, info.logical_block_size);
    }
}

#[test]
fn mounted_ext4_is_refused_as_mounted() {
    require_root!();
    require_tool!("mkfs.ext4");
    let fs = MountedFs::new("ext4", 64 * MIB).unwrap();
    let msg = refused(&fs.dev.path);
    let want = format!("it is mounted on {}", fs.path().display());
    assert!(msg.contains(&want), "{msg}");
    assert!(msg.contains("ext4"), "{msg}");
}

#[test]
fn mounted_btrfs_is_found_by_its_mount_source() {
    // btrfs reports an anonymous device number in mountinfo.
    require_root!();
    require_tool!("mkfs.btrfs");
    let fs = MountedFs::new("btrfs", 128 * MIB).unwrap();
    let msg = refused(&fs.dev.path);
    let want = format!("it is mounted on {}", fs.path().display());
    assert!(msg.contains(&want), "{msg}");
}

#[test]
fn partitions_and_a_mounted_partition_are_refused() {
    require_root!();
    require_tool!("sfdisk", "partx", "mkfs.ext4");
    let dev = LoopDevice::new(64 * MIB, false).unwrap();
    let d = dev.path_str().to_string();
    let name = dev.name();
    run(
        "sfdisk",
        &["-q", "--no-reread", &d],
        Some("label: dos\n,16M\n,16M\n"),
    );
    let mnt = tempfile::tempdir().unwrap();
    let m = mnt.path().to_str().unwrap().to_string();
    let _undo = cleanup(&[&["umount", &m], &["partx", "-d", &d]]);
    run("partx", &["-a", &d], None);
    let p1 = format!("{d}p1");
    run("mkfs.ext4", &["-q", "-F", &p1], None);
    run("mount", &[&p1, &m], None);

    let msg = refused(&dev.path);
    assert!(
        msg.contains(&format!("it has partitions ({name}p1, {name}p2)")),
        "{msg}"
    );
    assert!(
        msg.contains(&format!("its partition {name}p1 is mounted on {m}")),
        "{msg}"
    );
    assert!(msg.contains("DOS partition table"), "{msg}");
}

#[test]
fn active_swap_is_refused() {
    require_root!();
    require_tool!("mkswap", "swapon", "swapoff");
    let dev = LoopDevice::new(16 * MIB, false).unwrap();
    run("mkswap", &["-q", dev.path_str()], None);
    let _undo = cleanup(&[&["swapoff", dev.path_str()]]);
    run("swapon", &[dev.path_str()], None);
    let msg = refused(&dev.path);
    assert!(msg.contains("it is active swap"), "{msg}");
}

#[test]
fn exclusively_claimed_device_is_refused() {
    require_root!();
    let dev = LoopDevice::new(16 * MIB, false).unwrap();
    let _claim = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_EXCL)
        .open(&dev.path)
        .unwrap();
    let msg = refused(&dev.path);
    assert!(msg.contains("it is in use"), "{msg}");
}

#[test]
fn write_refusals_rejects_non_devices() {
    let dir = tempfile::tempdir().unwrap();
    assert!(write_refusals(dir.path()).is_err());
    let missing: PathBuf = dir.path().join("nope");
    assert!(write_refusals(&missing).is_err());
}
