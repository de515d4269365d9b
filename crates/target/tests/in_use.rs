//! Issue 14, finding 3 ("a mounted device named with --destroy-data-on is
//! overwritten live"): a device in use (mounted, a partition of it mounted,
//! active swap, exclusively claimed) is refused even when named with
//! `--destroy-data-on`, with a message naming the mount point (or swap,
//! or claim) and both flags; `--allow-mounted-write` together with the
//! name lifts it; `--allow-mounted-write` alone does not.

use iolab_target::{prepare, PrepareOptions, TargetError};
use iolab_testutil::{require, require_root, LoopDevice, MountedFs};
use std::fs::OpenOptions;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;
use std::process::Command;

const MIB: u64 = 1024 * 1024;

fn opts(destroy: &[&Path], allow_mounted_write: bool) -> PrepareOptions {
    PrepareOptions {
        write: true,
        size: None,
        destroy_data_on: destroy.iter().map(|p| p.to_path_buf()).collect(),
        allow_mounted_write,
    }
}

/// Named with --destroy-data-on alone: refused as in use; the one-line
/// message contains `want` and names both flags.
fn in_use_even_when_named(dev: &Path, want: &str) -> String {
    match prepare(dev, &opts(&[dev], false)) {
        Err(e @ TargetError::InUse { .. }) => {
            let msg = e.to_string();
            eprintln!("{msg}");
            assert!(!msg.contains('\n'), "{msg}");
            assert!(msg.contains(want), "{want:?} not in {msg}");
            assert!(
                msg.contains(&format!("--destroy-data-on {}", dev.display())),
                "{msg}"
            );
            assert!(msg.contains("--allow-mounted-write"), "{msg}");
            msg
        }
        other => panic!("expected an in-use refusal, got {other:?}"),
    }
}

#[test]
fn finding3_mounted_device_named_with_destroy_data_on_alone_is_refused() {
    require_root!();
    require!(
        Command::new("mkfs.ext4").arg("-V").output().is_ok(),
        "mkfs.ext4 is not installed (e2fsprogs)"
    );
    let fs = MountedFs::new("ext4", 64 * MIB).unwrap();
    let dev = fs.dev.path.clone();
    in_use_even_when_named(&dev, &format!("it is mounted on {}", fs.path().display()));
    // Unnamed, the same refusal (in use is checked first).
    assert!(matches!(
        prepare(&dev, &opts(&[], false)),
        Err(TargetError::InUse { .. })
    ));
    // --allow-mounted-write alone does not name the device.
    match prepare(&dev, &opts(&[], true)) {
        Err(e @ TargetError::Refused { .. }) => {
            let msg = e.to_string();
            assert!(msg.contains("mounted on"), "{msg}");
            assert!(msg.contains("ext4"), "{msg}");
        }
        other => panic!("expected a refusal, got {other:?}"),
    }
    // Both: allowed.
    let info = prepare(&dev, &opts(&[&dev], true)).unwrap();
    assert_eq!(info.size, 64 * MIB);
}

#[test]
fn finding3_active_swap_named_with_destroy_data_on_alone_is_refused() {
    require_root!();
    iolab_testutil::require_tool!("mkswap", "swapon", "swapoff");
    let dev = LoopDevice::new(16 * MIB, false).unwrap();
    let ok = |c: &mut Command| c.output().is_ok_and(|o| o.status.success());
    assert!(ok(Command::new("mkswap").args(["-q", dev.path_str()])));
    struct SwapOff<'a>(&'a str);
    impl Drop for SwapOff<'_> {
        fn drop(&mut self) {
            let _ = Command::new("swapoff").arg(self.0).output();
        }
    }
    let _off = SwapOff(dev.path_str());
    require!(
        ok(Command::new("swapon").arg(dev.path_str())),
        "swapon failed (no swap support in this kernel or container)"
    );
    in_use_even_when_named(&dev.path, "it is active swap");
    prepare(&dev.path, &opts(&[&dev.path], true)).unwrap();
}

#[test]
fn finding3_exclusively_claimed_device_named_alone_is_refused() {
    require_root!();
    let dev = LoopDevice::new(16 * MIB, false).unwrap();
    let claim = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_EXCL)
        .open(&dev.path)
        .unwrap();
    in_use_even_when_named(&dev.path, "it is in use");
    prepare(&dev.path, &opts(&[&dev.path], true)).unwrap();
    drop(claim);
    // Released: a blank device needs neither flag.
    prepare(&dev.path, &opts(&[], false)).unwrap();
}

#[test]
fn finding3_signature_only_device_needs_only_destroy_data_on() {
    require_root!();
    let dev = LoopDevice::new(16 * MIB, false).unwrap();
    let f = OpenOptions::new().write(true).open(&dev.path).unwrap();
    std::os::unix::fs::FileExt::write_all_at(&f, b"ORCLDISKDATA", 32).unwrap();
    f.sync_all().unwrap();
    drop(f);
    assert!(matches!(
        prepare(&dev.path, &opts(&[], false)),
        Err(TargetError::Refused { .. })
    ));
    prepare(&dev.path, &opts(&[&dev.path], false)).unwrap();
}
