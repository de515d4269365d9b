//! The file system through its mount, without a loop device: data reaches
//! the backing file at the right offset, ctl commands take effect on
//! disk.img and are counted, bad commands are refused, and dropping the
//! guard unmounts and removes everything.

mod common;

use std::fs::OpenOptions;
use std::os::unix::fs::FileExt;

use common::*;

#[test]
fn write_read_land_in_backing_file() {
    require_fuse!();
    let fs = start(1 << 20);
    let disk = fs.disk_path();
    assert_eq!(std::fs::metadata(&disk).unwrap().len(), 1 << 20);

    let f = OpenOptions::new()
        .read(true)
        .write(true)
        .open(&disk)
        .unwrap();
    let data = pattern(7, 10_000);
    f.write_all_at(&data, 12_345).unwrap();
    let mut back = vec![0u8; data.len()];
    f.read_exact_at(&mut back, 12_345).unwrap();
    assert_eq!(back, data, "read through the mount");
    f.sync_all().unwrap();
    assert_eq!(backing_at(&fs, 12_345, data.len()), data, "backing file");
    assert_eq!(backing_at(&fs, 12_344, 1), [0], "byte before untouched");

    // Offline injection shows through at once (no page cache on disk.img).
    poke_backing(&fs, 4096, b"offline");
    let mut b = [0u8; 7];
    f.read_exact_at(&mut b, 4096).unwrap();
    assert_eq!(&b, b"offline");

    // A fixed-size device: no writes past the end.
    let err = f.write_at(b"x", 1 << 20).unwrap_err();
    assert_eq!(err.raw_os_error(), Some(libc::ENOSPC));
    let names: Vec<String> = std::fs::read_dir(fs.mount_path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(names.contains(&"disk.img".to_string()) && names.contains(&"ctl".to_string()));

    let state = fs.state().unwrap();
    assert!(state.starts_with("totals reads="), "{state}");
    assert!(state.contains("write_bytes=10000"), "{state}");

    let mount = fs.mount_path().to_path_buf();
    assert!(in_proc_mounts(&mount));
    drop(f);
    drop(fs);
    assert!(!in_proc_mounts(&mount), "still mounted after drop");
    assert!(!mount.exists(), "temp dir left behind");
}

#[test]
fn ctl_commands_on_disk_img() {
    require_fuse!();
    let fs = start(256 << 10);
    let f = OpenOptions::new()
        .read(true)
        .write(true)
        .open(fs.disk_path())
        .unwrap();
    let errno = |r: std::io::Result<usize>| r.err().and_then(|e| e.raw_os_error());
    let mut buf = [0u8; 512];

    fs.control("fail EIO").unwrap();
    assert_eq!(errno(f.read_at(&mut buf, 0)), Some(libc::EIO));
    assert_eq!(errno(f.write_at(&buf, 0)), Some(libc::EIO));
    fs.control("heal").unwrap();
    assert!(f.read_at(&mut buf, 0).is_ok());

    fs.control("fail-reads ENOSPC").unwrap();
    assert_eq!(errno(f.read_at(&mut buf, 0)), Some(libc::ENOSPC));
    assert!(f.write_at(&buf, 0).is_ok());
    fs.control("heal\nfail-writes 61").unwrap(); // 61 = ENODATA
    assert!(f.read_at(&mut buf, 0).is_ok());
    assert_eq!(errno(f.write_at(&buf, 0)), Some(61));
    fs.control("heal").unwrap();

    fs.control("fail-range 8192 4096 EIO once").unwrap();
    assert!(f.read_at(&mut buf, 4096).is_ok(), "outside the range");
    assert_eq!(errno(f.read_at(&mut buf, 8192 + 100)), Some(libc::EIO));
    assert!(f.read_at(&mut buf, 8192).is_ok(), "once: spent");

    let state = fs.state().unwrap();
    assert!(
        state.contains("fault 4: fail-range 8192 4096 EIO once hits=1 spent"),
        "{state}"
    );
    assert!(state.contains("failed_reads=3"), "{state}");

    // Bad commands are refused with the daemon's reason, and change nothing.
    let err = fs.control("explode now").unwrap_err();
    assert!(err.contains("unknown command"), "{err}");
    assert!(fs.control("fail EWHAT").is_err());
    fs.control("clear").unwrap();
    assert_eq!(
        fs.state().unwrap().lines().count(),
        1,
        "only the totals line"
    );

    // The shell way works too (O_TRUNC on ctl is ignored).
    let ok = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("echo 'fail EIO' > {}", fs.ctl_path().display()))
        .status()
        .unwrap();
    assert!(ok.success());
    assert_eq!(errno(f.read_at(&mut buf, 0)), Some(libc::EIO));
}

#[test]
fn start_reports_a_daemon_that_cannot_mount() {
    let err =
        match iolab_faultfs::FaultFs::start_with(std::path::Path::new("/bin/false"), 4096, false) {
            Ok(_) => panic!("/bin/false mounted something"),
            Err(e) => e,
        };
    assert!(err.contains("exited"), "{err}");
}

#[test]
fn binary_is_found() {
    let bin = iolab_faultfs::binary_path().unwrap();
    assert_eq!(
        bin.file_name().unwrap(),
        "iolab-faultfs",
        "{}",
        bin.display()
    );
    assert!(bin.is_file());
}

#[test]
fn direct_io_mode_serves_aligned_and_unaligned_io() {
    require_fuse!();
    let bin = std::path::Path::new(env!("CARGO_BIN_EXE_iolab-faultfs"));
    let fs = iolab_faultfs::FaultFs::start_with(bin, 1 << 20, true).unwrap();
    assert!(
        fs.daemon_log().contains("with O_DIRECT"),
        "{}",
        fs.daemon_log()
    );
    let f = OpenOptions::new()
        .read(true)
        .write(true)
        .open(fs.disk_path())
        .unwrap();
    let aligned = pattern(11, 8192);
    f.write_all_at(&aligned, 8192).unwrap();
    f.write_all_at(b"odd", 3).unwrap();
    let mut back = vec![0u8; 8192];
    f.read_exact_at(&mut back, 8192).unwrap();
    assert_eq!(back, aligned);
    let mut odd = [0u8; 3];
    f.read_exact_at(&mut odd, 3).unwrap();
    assert_eq!(&odd, b"odd");
    assert_eq!(backing_at(&fs, 8192, 8192), aligned);
    assert_eq!(backing_at(&fs, 3, 3), b"odd");
}
