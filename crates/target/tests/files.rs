//! File targets: creation and the ownership mark, refusal to write, extend
//! or delete files iolab did not create, the one-line errors, and O_DIRECT
//! on the file systems at hand.

use iolab_target::{
    mark_prefilled, open, prepare, remove_created, Kind, PrepareOptions, TargetError,
};
use iolab_testutil::{require_root, TmpfsMount};
use std::ffi::CString;
use std::fs;
use std::io::Write;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

fn opts(write: bool, size: Option<u64>, destroy: &[&Path]) -> PrepareOptions {
    PrepareOptions {
        write,
        size,
        destroy_data_on: destroy.iter().map(|p| p.to_path_buf()).collect(),
    }
}

/// The value of a user xattr, or None.
fn xattr(path: &Path, name: &str) -> Option<Vec<u8>> {
    let p = CString::new(path.as_os_str().as_bytes()).unwrap();
    let n = CString::new(name).unwrap();
    let mut buf = [0u8; 64];
    // SAFETY: both strings are NUL-terminated and live across the call; buf
    // is writable for the length passed.
    let r = unsafe { libc::getxattr(p.as_ptr(), n.as_ptr(), buf.as_mut_ptr().cast(), buf.len()) };
    (r >= 0).then(|| buf[..r as usize].to_vec())
}

fn one_line(e: &TargetError) -> String {
    let s = e.to_string();
    assert!(!s.contains('\n'), "{s}");
    s
}

#[test]
fn missing_file_with_size_is_created_sparse_and_owned() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("data.bin");
    let info = prepare(&p, &opts(true, Some(8 << 20), &[])).unwrap();
    assert!(info.created && info.owned);
    assert_eq!(info.kind, Kind::File);
    assert_eq!(info.size, 8 << 20);
    assert_eq!(info.prefilled_bytes, 0);
    assert_eq!(info.rdev, None);
    assert_eq!(info.canonical, fs::canonicalize(&p).unwrap());
    assert!(info.logical_block_size >= 512);
    let meta = fs::metadata(&p).unwrap();
    assert_eq!(meta.len(), 8 << 20);
    use std::os::unix::fs::MetadataExt;
    assert!(meta.blocks() * 512 < 8 << 20, "not sparse");
    assert_eq!(
        xattr(&p, "user.iolab.owner").as_deref(),
        Some(&b"iolab"[..])
    );

    mark_prefilled(&info, 8 << 20).unwrap();
    assert_eq!(
        xattr(&p, "user.iolab.prefilled").as_deref(),
        Some(&b"8388608"[..])
    );
    let again = prepare(&p, &opts(true, None, &[])).unwrap();
    assert!(!again.created && again.owned);
    assert_eq!(again.prefilled_bytes, 8 << 20);
}

#[test]
fn file_iolab_did_not_create_is_refused_and_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("precious.txt");
    fs::write(&p, b"precious data\n").unwrap();

    for o in [
        opts(true, None, &[]),
        opts(true, Some(4), &[]),
        // Extending is a write even when the workload only reads.
        opts(false, Some(1 << 20), &[]),
    ] {
        match prepare(&p, &o) {
            Err(e @ TargetError::Refused { .. }) => {
                let s = one_line(&e);
                assert!(
                    s.contains("it is a regular file iolab did not create"),
                    "{s}"
                );
                assert!(
                    s.contains(&format!("--destroy-data-on {}", p.display())),
                    "{s}"
                );
            }
            other => panic!("{o:?}: {other:?}"),
        }
    }
    assert_eq!(fs::read(&p).unwrap(), b"precious data\n");
    assert_eq!(xattr(&p, "user.iolab.owner"), None);

    // Reading is fine.
    let ro = prepare(&p, &opts(false, None, &[])).unwrap();
    assert!(!ro.created && !ro.owned);
    assert_eq!(ro.size, 14);
    let ro4 = prepare(&p, &opts(false, Some(4), &[])).unwrap();
    assert_eq!(ro4.size, 4);
    assert_eq!(fs::metadata(&p).unwrap().len(), 14);

    // Named with --destroy-data-on, directly or in another spelling.
    let link = dir.path().join("link");
    std::os::unix::fs::symlink(&p, &link).unwrap();
    let dotted: PathBuf = dir.path().join(".").join("precious.txt");
    for named in [&p, &link, &dotted] {
        let info = prepare(&p, &opts(true, None, &[named])).unwrap();
        assert!(!info.owned && !info.created);
    }
    let grown = prepare(&link, &opts(true, Some(4096), &[&p])).unwrap();
    assert_eq!(grown.size, 4096);
    assert_eq!(fs::metadata(&p).unwrap().len(), 4096);
    // Never marked as iolab's, so never deleted.
    remove_created(&grown).unwrap();
    assert!(p.exists());
    assert_eq!(&fs::read(&p).unwrap()[..14], b"precious data\n");
}

#[test]
fn remove_created_removes_only_created_files() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("new");
    let created = prepare(&p, &opts(true, Some(4096), &[])).unwrap();
    let reopened = prepare(&p, &opts(true, None, &[])).unwrap();
    assert!(reopened.owned && !reopened.created);
    remove_created(&reopened).unwrap();
    assert!(p.exists());
    remove_created(&created).unwrap();
    assert!(!p.exists());
    // Already gone is fine.
    remove_created(&created).unwrap();
}

#[test]
fn not_found_messages() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("missing");
    let e = prepare(&p, &opts(false, None, &[])).unwrap_err();
    assert!(matches!(e, TargetError::NotFound { .. }), "{e:?}");
    assert_eq!(
        one_line(&e),
        format!(
            "target {} does not exist; check the path, or give --size to have iolab create a file there",
            p.display()
        )
    );
    // With --size, the directory that is missing is named (not "give
    // --size", which was given).
    let deep = dir.path().join("no/such/dir/file");
    let e = prepare(&deep, &opts(true, Some(4096), &[])).unwrap_err();
    assert!(
        one_line(&e).contains("no/such/dir is not an existing directory"),
        "{e}"
    );
    assert!(!dir.path().join("no").exists());
    // A path through a regular file.
    let f = dir.path().join("plain");
    fs::write(&f, b"x").unwrap();
    let e = prepare(&f.join("x"), &opts(true, Some(4096), &[])).unwrap_err();
    assert!(one_line(&e).contains("is not an existing directory"), "{e}");
}

#[test]
fn not_a_file_or_device() {
    let dir = tempfile::tempdir().unwrap();
    let e = prepare(dir.path(), &opts(false, None, &[])).unwrap_err();
    assert_eq!(
        one_line(&e),
        format!(
            "target {} is a directory, not a regular file or block device; name a file or a block device",
            dir.path().display()
        )
    );
    // --size does not turn a directory into a file.
    let e = prepare(dir.path(), &opts(true, Some(4096), &[])).unwrap_err();
    assert!(matches!(e, TargetError::NotFileOrDevice { .. }), "{e:?}");

    let e = prepare(Path::new("/dev/null"), &opts(true, None, &[])).unwrap_err();
    assert!(one_line(&e).contains("is a character device"), "{e}");

    let fifo = dir.path().join("fifo");
    let st = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(st.success());
    let e = prepare(&fifo, &opts(false, None, &[])).unwrap_err();
    assert!(one_line(&e).contains("is a named pipe (FIFO)"), "{e}");

    let dangling = dir.path().join("dangling");
    std::os::unix::fs::symlink(dir.path().join("nothing"), &dangling).unwrap();
    let e = prepare(&dangling, &opts(true, Some(4096), &[])).unwrap_err();
    assert!(
        one_line(&e).contains("symbolic link to a missing file"),
        "{e}"
    );
    assert!(!dir.path().join("nothing").exists());
}

#[test]
fn empty_file_and_zero_size_are_one_line_errors() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("empty");
    fs::File::create(&p).unwrap();
    let e = prepare(&p, &opts(false, None, &[])).unwrap_err();
    let s = one_line(&e);
    assert!(s.contains("empty") && s.contains("--size"), "{s}");
    let e = prepare(&dir.path().join("new"), &opts(true, Some(0), &[])).unwrap_err();
    assert!(one_line(&e).contains("--size 0"), "{e}");
    assert!(!dir.path().join("new").exists());
}

#[test]
fn failed_creation_leaves_no_file_behind() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("huge");
    let e = prepare(&p, &opts(true, Some(u64::MAX), &[])).unwrap_err();
    assert!(one_line(&e).contains("give a smaller --size"), "{e}");
    assert!(!p.exists());
}

#[test]
fn open_never_creates_or_truncates() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("f");
    let info = prepare(&p, &opts(true, Some(1 << 20), &[])).unwrap();
    {
        let f = open(&info, true, false, true).unwrap();
        f.write_all_at(b"hello", 4096).unwrap();
    }
    let f = open(&info, true, false, false).unwrap();
    let mut b = [0u8; 5];
    f.read_exact_at(&mut b, 4096).unwrap();
    assert_eq!(&b, b"hello");
    assert_eq!(fs::metadata(&p).unwrap().len(), 1 << 20);

    // Read-only opens refuse writes.
    let mut ro = open(&info, false, false, false).unwrap();
    assert!(ro.write_all(b"x").is_err());

    // Gone: NotFound, not re-created.
    fs::remove_file(&p).unwrap();
    let e = open(&info, true, false, false).unwrap_err();
    assert!(matches!(e, TargetError::NotFound { .. }), "{e:?}");
    assert!(!p.exists());

    // Replaced by a directory: an error, not a surprise.
    fs::create_dir(&p).unwrap();
    let e = open(&info, false, false, false).unwrap_err();
    assert!(one_line(&e).contains("changed since it was checked"), "{e}");
}

/// O_DIRECT on the temp directory's file system and on tmpfs: it either
/// opens with the alignment statx reported, or fails as DirectUnsupported.
fn direct_open_on(dir: &Path) -> Result<(u32, u32), String> {
    let p = dir.join("direct");
    let info = prepare(&p, &opts(true, Some(1 << 20), &[])).unwrap();
    let r = match open(&info, true, true, false) {
        Ok(_) => Ok((info.dio_mem_align, info.dio_offset_align)),
        Err(e @ TargetError::DirectUnsupported { .. }) => Err(one_line(&e)),
        Err(e) => panic!("unexpected error from O_DIRECT open: {e}"),
    };
    remove_created(&info).unwrap();
    r
}

#[test]
fn direct_open_on_the_temp_file_system() {
    let dir = tempfile::tempdir().unwrap();
    eprintln!(
        "O_DIRECT on {}: {:?}",
        dir.path().display(),
        direct_open_on(dir.path())
    );
}

#[test]
fn direct_open_on_tmpfs() {
    require_root!();
    let t = TmpfsMount::new("16m").unwrap();
    let r = direct_open_on(t.path());
    // tmpfs takes O_DIRECT since Linux 6.6; older kernels say EINVAL.
    eprintln!("O_DIRECT on tmpfs: {r:?}");
    if let Ok((mem, off)) = r {
        assert!(mem == 0 || mem.is_power_of_two());
        assert!(off == 0 || off.is_power_of_two());
    }
}
