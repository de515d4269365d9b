//! Filesets on disk: creation and its counts, the anchor's marker rules
//! (create, adopt, refuse), format modes, clean-up that leaves foreign
//! files and symlink targets alone, the capacity refusal and ENOSPC in the
//! middle of creation on a small ext4 (root).

use iolab_fileset::{
    create, remove, AnchorState, CreateOptions, EntriesShape, FileSize, FilesetSpec, Fit, Format,
    Layout, Progress, Shape, TreeShape, MARKER,
};
use iolab_testutil::require_root;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

fn tree(anchor: &Path, depth: u32, width: u32, files: u64, sizes: &str) -> FilesetSpec {
    FilesetSpec {
        anchor: anchor.to_path_buf(),
        shape: Shape::Tree(TreeShape {
            depth,
            width,
            files,
            sizes: sizes.into(),
        }),
    }
}

/// filebench's shape: `entries` files, `dir_width` a directory, each of
/// `size` bytes, `prealloc` per cent made up front.
fn entries(anchor: &Path, entries: u64, dir_width: u32, size: u64, prealloc: f64) -> FilesetSpec {
    FilesetSpec {
        anchor: anchor.to_path_buf(),
        shape: Shape::Entries(EntriesShape {
            entries,
            dir_width,
            size: FileSize::Fixed(size),
            prealloc,
        }),
    }
}

fn opts(format: Format) -> CreateOptions<'static> {
    CreateOptions {
        format,
        threads: 2,
        ..CreateOptions::default()
    }
}

/// Everything under `root`: kind and contents (or link target) by path.
fn snapshot(root: &Path) -> BTreeMap<PathBuf, String> {
    let mut out = BTreeMap::new();
    let mut todo = vec![root.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            let m = std::fs::symlink_metadata(&p).unwrap();
            let v = if m.is_symlink() {
                format!("link {:?}", std::fs::read_link(&p).unwrap())
            } else if m.is_dir() {
                todo.push(p.clone());
                "dir".into()
            } else {
                use std::hash::{Hash, Hasher};
                let mut h = std::collections::hash_map::DefaultHasher::new();
                std::fs::read(&p).unwrap().hash(&mut h);
                format!("file {:x}", h.finish())
            };
            out.insert(p.strip_prefix(root).unwrap().to_path_buf(), v);
        }
    }
    out
}

/// (directories, regular files but the marker, their sizes) under root.
fn count(root: &Path) -> (u64, u64, u64) {
    let (mut d, mut f, mut b) = (0, 0, 0);
    let mut todo = vec![root.to_path_buf()];
    while let Some(dir) = todo.pop() {
        for e in std::fs::read_dir(&dir).unwrap() {
            let e = e.unwrap();
            let m = std::fs::symlink_metadata(e.path()).unwrap();
            if m.is_dir() {
                d += 1;
                todo.push(e.path());
            } else if m.is_file() && e.file_name() != MARKER {
                f += 1;
                b += m.len();
            }
        }
    }
    (d, f, b)
}

#[test]
fn creates_a_missing_anchor_and_exactly_the_layout() {
    let tmp = tempfile::tempdir().unwrap();
    let anchor = tmp.path().join("fs1");
    let spec = tree(&anchor, 2, 3, 4, "4k:1,12k:1");
    let layout = Layout::new(&spec, 9).unwrap();
    let seen = Mutex::new(Vec::<Progress>::new());
    let cb = |p: &Progress| seen.lock().unwrap().push(*p);
    let o = CreateOptions {
        progress: Some(&cb),
        ..opts(Format::No)
    };
    let r = create(&spec, 9, &layout, &o).unwrap();
    assert_eq!(r.anchor, Some(AnchorState::Created));
    assert_eq!((r.dirs_created, r.files_created), (3 + 9, 36));
    assert_eq!(count(&anchor), (12, 36, layout.total_bytes()));
    for i in 0..layout.files() {
        let m = std::fs::metadata(anchor.join(layout.file_path(i))).unwrap();
        assert_eq!(m.len(), layout.size(i), "file {i}");
    }
    let last = *seen.lock().unwrap().last().unwrap();
    assert_eq!(
        (last.files_done, last.bytes_written, last.bytes_done),
        (36, layout.total_bytes(), layout.total_bytes())
    );
    let marker: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(anchor.join(MARKER)).unwrap()).unwrap();
    assert_eq!(marker["tool"], "iolab");
    assert!(marker["spec_hash"].as_str().unwrap().len() == 16);
    // Incompressible: a 12 KiB file uses nearly every byte value.
    let big = (0..layout.files())
        .find(|&i| layout.size(i) == 12 << 10)
        .unwrap();
    let data = std::fs::read(anchor.join(layout.file_path(big))).unwrap();
    let mut seen_bytes = [false; 256];
    data.iter().for_each(|&b| seen_bytes[b as usize] = true);
    assert!(seen_bytes.iter().filter(|&&s| s).count() > 240);
}

#[test]
fn a_missing_parent_is_one_clear_error_and_nothing_is_made() {
    let tmp = tempfile::tempdir().unwrap();
    let anchor = tmp.path().join("no/such/fs1");
    let spec = tree(&anchor, 1, 2, 2, "4k");
    let e = create(&spec, 1, &Layout::new(&spec, 1).unwrap(), &opts(Format::No)).unwrap_err();
    let msg = e.to_string();
    assert!(
        msg.contains("parent") && msg.contains("does not exist"),
        "{msg}"
    );
    assert!(!msg.contains('\n'));
    assert!(!tmp.path().join("no").exists());
}

#[test]
fn an_empty_directory_is_adopted_and_a_marked_one_reused() {
    let tmp = tempfile::tempdir().unwrap();
    let spec = tree(tmp.path(), 1, 2, 3, "1k");
    let layout = Layout::new(&spec, 1).unwrap();
    let r = create(&spec, 1, &layout, &opts(Format::No)).unwrap();
    assert_eq!(r.anchor, Some(AnchorState::Adopted));
    assert!(tmp.path().join(MARKER).is_file());
    let r = create(&spec, 1, &layout, &opts(Format::No)).unwrap();
    assert_eq!(r.anchor, Some(AnchorState::Marked));
    assert_eq!((r.files_created, r.files_kept, r.dirs_created), (0, 6, 0));
    assert_eq!(r.fit, Some(Fit::Same));
    // One size for every file: the seed draws nothing, the tree is the same.
    let r = create(&spec, 2, &Layout::new(&spec, 2).unwrap(), &opts(Format::No)).unwrap();
    assert_eq!(r.fit, Some(Fit::Same));
}

/// Issue 16 audit, item 4: under format=no a tree of another layout is
/// refused before any I/O, naming the anchor and what to do; one whose
/// files all keep their path and size (only the count changed) is used,
/// and its marker then records the larger tree; clean-up removes that.
#[test]
fn format_no_refuses_another_layout_and_uses_a_tree_of_more_or_fewer_files() {
    let tmp = tempfile::tempdir().unwrap();
    let spec = |n, size: &str| tree(tmp.path(), 0, 1, n, size);
    let layout = |n, size| Layout::new(&spec(n, size), 1).unwrap();
    create(&spec(8, "16k"), 1, &layout(8, "16k"), &opts(Format::No)).unwrap();
    let before = snapshot(tmp.path());
    for other in [
        spec(8, "64k"),
        spec(8, "16k:1,32k:1"),
        tree(tmp.path(), 1, 2, 4, "16k"),
    ] {
        let l = Layout::new(&other, 1).unwrap();
        let e = create(&other, 1, &l, &opts(Format::No)).unwrap_err();
        let msg = e.to_string();
        assert!(
            msg.starts_with(&tmp.path().display().to_string())
                && msg.contains("8 files of 16 KiB")
                && msg.contains("--format restart")
                && !msg.contains('\n'),
            "{msg}"
        );
        assert_eq!(snapshot(tmp.path()), before, "refused after I/O");
    }
    let r = create(&spec(12, "16k"), 1, &layout(12, "16k"), &opts(Format::No)).unwrap();
    assert_eq!(
        (r.fit, r.files_kept, r.files_created),
        (Some(Fit::Grows), 8, 4)
    );
    let r = create(&spec(4, "16k"), 1, &layout(4, "16k"), &opts(Format::No)).unwrap();
    assert_eq!((r.fit, r.files_kept), (Some(Fit::Shrinks), 4));
    let marker = || -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(tmp.path().join(MARKER)).unwrap()).unwrap()
    };
    assert_eq!(
        marker()["layout"]["files"],
        12,
        "the marker keeps the larger tree"
    );
    let r = remove(tmp.path(), &layout(4, "16k")).unwrap();
    assert_eq!((r.files_removed, count(tmp.path()).1), (12, 0));
    assert_eq!(marker()["spec_hash"], "empty");
    // An emptied anchor takes any layout.
    let r = create(&spec(8, "64k"), 1, &layout(8, "64k"), &opts(Format::No)).unwrap();
    assert_eq!((r.fit, r.files_created), (Some(Fit::Empty), 8));
    // restart reshapes, and the marker then records the new layout.
    let r = create(
        &spec(8, "16k"),
        1,
        &layout(8, "16k"),
        &opts(Format::Restart),
    )
    .unwrap();
    assert_eq!((r.fit, r.files_resized), (Some(Fit::Differs), 8));
    assert_eq!(marker()["layout"]["sizes"]["fixed"], 16384);
}

/// Issue 16 audit, item 5: a marker that is already right is not
/// written again, so a complete fileset is used on a read-only mount.
#[test]
fn a_complete_fileset_is_used_on_a_read_only_mount() {
    require_root!();
    let fs = iolab_testutil::TmpfsMount::new("1m").unwrap();
    let spec = tree(&fs.path().join("fs"), 1, 2, 2, "4k");
    let layout = Layout::new(&spec, 1).unwrap();
    create(&spec, 1, &layout, &opts(Format::No)).unwrap();
    let mtime = || {
        std::fs::metadata(fs.path().join("fs").join(MARKER))
            .unwrap()
            .modified()
            .unwrap()
    };
    let was = mtime();
    std::thread::sleep(std::time::Duration::from_millis(20));
    create(&spec, 1, &layout, &opts(Format::Restart)).unwrap();
    assert_eq!(mtime(), was, "the marker was rewritten");
    let status = std::process::Command::new("mount")
        .args(["-o", "remount,ro"])
        .arg(fs.path())
        .status()
        .unwrap();
    assert!(status.success());
    let r = create(&spec, 1, &layout, &opts(Format::No)).unwrap();
    assert_eq!((r.fit, r.files_kept), (Some(Fit::Same), 4));
}

/// Issue 16 audit, item 1: clean-up removes the side directories `NAME.d`
/// that `mkdir` makes beside a file when they are empty, then the layout's
/// directories; a side directory holding something, a link at a side
/// name and names the layout does not give stay.
#[test]
fn cleanup_removes_empty_side_directories_and_nothing_else() {
    let tmp = tempfile::tempdir().unwrap();
    let spec = tree(tmp.path(), 1, 2, 3, "1k");
    let layout = Layout::new(&spec, 1).unwrap();
    create(&spec, 1, &layout, &opts(Format::No)).unwrap();
    let a = tmp.path();
    for d in [
        "d0/f0.d", "d0/f1.d", "d1/f2.d", "d1/f1.d", "d1/x.d", "d1/f0.d",
    ] {
        std::fs::create_dir(a.join(d)).unwrap();
    }
    std::fs::write(a.join("d1/f1.d/mine"), b"user data").unwrap();
    std::os::unix::fs::symlink(a.join("d0"), a.join("d0/f2.d")).unwrap();
    std::fs::remove_file(a.join("d1/f0")).unwrap();
    let r = remove(a, &layout).unwrap();
    assert_eq!(r.files_removed, 5);
    // f0.d, f1.d of d0 and f2.d, f0.d of d1 (its file gone already).
    assert_eq!(r.dirs_removed, 4);
    let mut left: Vec<_> = snapshot(a).into_keys().collect();
    left.sort();
    let want: Vec<PathBuf> = [
        ".iolab-fileset",
        "d0",
        "d0/f2.d",
        "d1",
        "d1/f1.d",
        "d1/f1.d/mine",
        "d1/x.d",
    ]
    .iter()
    .map(PathBuf::from)
    .collect();
    assert_eq!(left, want);
    // d0 (a link) and d1 (f1.d, x.d) are not empty.
    assert_eq!(r.left, 1 + 1 + 2);
}

#[test]
fn an_anchor_that_cannot_be_written_is_one_clear_error() {
    require_root!();
    let fs = iolab_testutil::TmpfsMount::new("1m").unwrap();
    let status = std::process::Command::new("mount")
        .args(["-o", "remount,ro"])
        .arg(fs.path())
        .status()
        .unwrap();
    assert!(status.success());
    let spec = tree(&fs.path().join("fs"), 1, 2, 2, "4k");
    let e = create(&spec, 1, &Layout::new(&spec, 1).unwrap(), &opts(Format::No)).unwrap_err();
    assert_eq!(e.error.errno, Some(libc::EROFS), "{e}");
    assert!(e.to_string().contains("creating the anchor") && !e.to_string().contains('\n'));
    assert_eq!(std::fs::read_dir(fs.path()).unwrap().count(), 0);
}

#[test]
fn a_foreign_non_empty_directory_is_refused_and_untouched() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    std::fs::write(root.join("f0"), b"precious").unwrap();
    std::fs::create_dir(root.join("d0")).unwrap();
    std::fs::write(root.join("d0/f1"), b"also precious").unwrap();
    std::os::unix::fs::symlink("/etc/hostname", root.join("d1")).unwrap();
    let before = snapshot(root);
    let spec = tree(root, 1, 2, 2, "4k");
    let layout = Layout::new(&spec, 1).unwrap();
    for format in [Format::Yes, Format::No, Format::Restart] {
        let e = create(&spec, 1, &layout, &opts(format)).unwrap_err();
        assert!(e.to_string().contains("no .iolab-fileset marker"), "{e}");
    }
    let e = remove(root, &layout).unwrap_err();
    assert!(e.to_string().contains(MARKER), "{e}");
    assert_eq!(snapshot(root), before);
}

#[test]
fn format_no_restart_and_yes_do_what_the_docs_say() {
    let tmp = tempfile::tempdir().unwrap();
    let spec = tree(tmp.path(), 1, 2, 3, "8k");
    let layout = Layout::new(&spec, 1).unwrap();
    create(&spec, 1, &layout, &opts(Format::No)).unwrap();
    let p = |i| tmp.path().join(layout.file_path(i));
    std::fs::OpenOptions::new()
        .write(true)
        .open(p(0))
        .unwrap()
        .set_len(100)
        .unwrap();
    std::fs::OpenOptions::new()
        .write(true)
        .open(p(1))
        .unwrap()
        .set_len(20_000)
        .unwrap();
    std::fs::remove_file(p(2)).unwrap();
    let r = create(&spec, 1, &layout, &opts(Format::No)).unwrap();
    assert_eq!((r.files_created, r.files_kept, r.files_resized), (1, 5, 0));
    assert_eq!(
        std::fs::metadata(p(0)).unwrap().len(),
        100,
        "no keeps a short file"
    );
    let head = std::fs::read(p(0)).unwrap();
    let r = create(&spec, 1, &layout, &opts(Format::Restart)).unwrap();
    assert_eq!((r.files_created, r.files_kept, r.files_resized), (0, 4, 2));
    for i in 0..6 {
        assert_eq!(std::fs::metadata(p(i)).unwrap().len(), 8192, "file {i}");
    }
    assert_eq!(
        std::fs::read(p(0)).unwrap()[..100],
        head[..],
        "restart extends, keeps the start"
    );
    let old = snapshot(tmp.path());
    let r = create(&spec, 1, &layout, &opts(Format::Yes)).unwrap();
    assert_eq!((r.files_deleted, r.files_created, r.files_kept), (6, 6, 0));
    let new = snapshot(tmp.path());
    for i in 0..6 {
        let k = layout.file_path(i);
        assert_ne!(old[&k], new[&k], "yes rewrote file {i}");
    }
}

/// `seen` tells every file of the layout as creation leaves it, and
/// that is what is on disk, whatever the format and with files not made
/// up front (prealloc 50 %).
#[test]
fn seen_says_each_file_as_it_is_left_under_every_format() {
    let tmp = tempfile::tempdir().unwrap();
    let spec = entries(&tmp.path().join("a"), 40, 8, 4096, 50.0);
    let layout = Layout::new(&spec, 5).unwrap();
    let p = |i| spec.anchor.join(layout.file_path(i));
    let check = |format: Format| {
        let seen = Mutex::new(BTreeMap::<u64, Option<u64>>::new());
        let cb = |i: u64, size: Option<u64>| {
            assert!(
                seen.lock().unwrap().insert(i, size).is_none(),
                "file {i} told twice"
            );
        };
        let o = CreateOptions {
            seen: Some(&cb),
            ..opts(format)
        };
        create(&spec, 5, &layout, &o).unwrap();
        let seen = seen.into_inner().unwrap();
        assert_eq!(seen.len() as u64, layout.files(), "{format:?}");
        for (i, size) in seen {
            let disk = std::fs::symlink_metadata(p(i)).ok().map(|m| m.len());
            assert_eq!(size, disk, "{format:?}: file {i}");
        }
    };
    check(Format::No);
    // A file made during a run (not up front), one cut short, one gone.
    let absent = (0..layout.files()).find(|&i| !layout.prealloc(i)).unwrap();
    std::fs::write(p(absent), b"made by a run").unwrap();
    let made = (0..layout.files())
        .filter(|&i| layout.prealloc(i))
        .collect::<Vec<_>>();
    std::fs::OpenOptions::new()
        .write(true)
        .open(p(made[0]))
        .unwrap()
        .set_len(100)
        .unwrap();
    std::fs::remove_file(p(made[1])).unwrap();
    check(Format::No);
    check(Format::Restart);
    check(Format::Yes);
}

#[test]
fn a_non_regular_file_at_a_layout_name_stops_creation_with_its_path() {
    let tmp = tempfile::tempdir().unwrap();
    let spec = tree(tmp.path(), 0, 1, 3, "1k");
    let layout = Layout::new(&spec, 1).unwrap();
    create(&spec, 1, &layout, &opts(Format::No)).unwrap();
    std::fs::remove_file(tmp.path().join("f1")).unwrap();
    std::os::unix::fs::symlink("/etc/hostname", tmp.path().join("f1")).unwrap();
    let e = create(&spec, 1, &layout, &opts(Format::Yes)).unwrap_err();
    assert!(
        e.error.path.ends_with("f1") && e.to_string().contains("not a regular file"),
        "{e}"
    );
    assert!(tmp.path().join("f1").is_symlink());
}

/// A symbolic link where a layout directory belongs is named as such
/// (not "mkdir: File exists"), and nothing is followed through it.
#[test]
fn a_symlink_at_a_layout_directory_is_named_and_not_followed() {
    let tmp = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let spec = tree(tmp.path(), 1, 2, 1, "1k");
    let layout = Layout::new(&spec, 1).unwrap();
    create(&spec, 1, &layout, &opts(Format::No)).unwrap();
    std::fs::remove_dir_all(tmp.path().join("d1")).unwrap();
    std::os::unix::fs::symlink(outside.path(), tmp.path().join("d1")).unwrap();
    let e = create(&spec, 1, &layout, &opts(Format::No)).unwrap_err();
    assert!(
        e.error.path.ends_with("d1") && e.to_string().contains("symbolic link"),
        "{e}"
    );
    assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 0);
}

#[test]
fn remove_leaves_foreign_files_and_symlink_targets_alone() {
    let tmp = tempfile::tempdir().unwrap();
    let outside = tmp.path().join("outside");
    std::fs::create_dir(&outside).unwrap();
    for n in ["f0", "f1", "target"] {
        std::fs::write(outside.join(n), n).unwrap();
    }
    let anchor = tmp.path().join("fs");
    let spec = tree(&anchor, 2, 2, 2, "1k");
    let layout = Layout::new(&spec, 1).unwrap();
    create(&spec, 1, &layout, &opts(Format::No)).unwrap();
    // A foreign file in a leaf; a layout file swapped for a link out of the
    // anchor; a leaf directory swapped for a link to a directory holding
    // files of the layout's names.
    std::fs::write(anchor.join("d0/d0/mine.txt"), b"user data").unwrap();
    std::fs::remove_file(anchor.join("d0/d1/f0")).unwrap();
    std::os::unix::fs::symlink(outside.join("target"), anchor.join("d0/d1/f0")).unwrap();
    std::fs::remove_dir_all(anchor.join("d1/d1")).unwrap();
    std::os::unix::fs::symlink(&outside, anchor.join("d1/d1")).unwrap();
    let before = snapshot(&outside);
    let r = remove(&anchor, &layout).unwrap();
    assert_eq!(snapshot(&outside), before);
    assert_eq!(
        std::fs::read(anchor.join("d0/d0/mine.txt")).unwrap(),
        b"user data"
    );
    assert!(anchor.join("d0/d1/f0").is_symlink() && anchor.join("d1/d1").is_symlink());
    assert!(anchor.join(MARKER).is_file());
    // 8 files: 2 under the linked leaf not reached, 1 link left.
    assert_eq!(r.files_removed, 5);
    let mut left: Vec<_> = snapshot(&anchor).into_keys().collect();
    left.sort();
    let want: Vec<PathBuf> = [
        ".iolab-fileset",
        "d0",
        "d0/d0",
        "d0/d0/mine.txt",
        "d0/d1",
        "d0/d1/f0",
        "d1",
        "d1/d1",
    ]
    .iter()
    .map(PathBuf::from)
    .collect();
    assert_eq!(left, want);
    // Creating again meets the linked leaf and refuses it, writing nothing
    // through it.
    let e = create(&spec, 1, &layout, &opts(Format::Yes)).unwrap_err();
    assert_eq!(e.error.path, anchor.join("d1/d1"), "{e}");
    assert_eq!(e.error.errno, Some(libc::EEXIST), "{e}");
    assert_eq!(snapshot(&outside), before);
}

#[test]
fn a_fileset_that_does_not_fit_is_refused_with_the_numbers_and_leaves_no_trace() {
    let tmp = tempfile::tempdir().unwrap();
    let anchor = tmp.path().join("fs");
    let spec = tree(&anchor, 0, 1, 10, "1p");
    let e = create(&spec, 1, &Layout::new(&spec, 1).unwrap(), &opts(Format::No)).unwrap_err();
    let msg = e.to_string();
    // 10 files of 1 PiB, plus the anchor and its marker (a block each).
    let block = statvfs(tmp.path()).f_frsize as u64;
    let bytes = iolab_spec::format_bytes(10 * (1u64 << 50) + 2 * block);
    assert!(
        msg.contains(&format!("needs {bytes} and 12 inodes")),
        "{msg}"
    );
    assert!(
        msg.contains("inodes free; shrink the fileset or free space"),
        "{msg}"
    );
    assert!(
        !anchor.exists(),
        "a refused anchor iolab made is removed again"
    );
}

#[test]
fn a_huge_fileset_that_cannot_fit_is_refused_without_counting_every_file() {
    let tmp = tempfile::tempdir().unwrap();
    let anchor = tmp.path().join("fs");
    let spec = entries(&anchor, 2_000_000, 1000, 1 << 50, 100.0);
    let layout = Layout::new(&spec, 1).unwrap();
    let e = create(&spec, 1, &layout, &opts(Format::No)).unwrap_err();
    let msg = e.to_string();
    // The count stops a little past EXACT_ENTRIES entries: far below the
    // 2,000,000 PiB the whole fileset needs, said as a lower bound.
    assert!(msg.contains("needs more than "), "{msg}");
    let counted: u64 = msg
        .split(" and ")
        .nth(1)
        .and_then(|x| x.split(' ').next())
        .map(|x| x.replace(',', "").parse().unwrap())
        .unwrap();
    assert!(
        counted > iolab_fileset::capacity::EXACT_ENTRIES && counted < 200_000,
        "{msg}"
    );
    assert!(
        !anchor.exists(),
        "a refused anchor iolab made is removed again"
    );
}

fn statvfs(p: &Path) -> libc::statvfs {
    let c = std::ffi::CString::new(p.as_os_str().as_encoded_bytes()).unwrap();
    let mut s: libc::statvfs = unsafe { std::mem::zeroed() };
    assert_eq!(unsafe { libc::statvfs(c.as_ptr(), &mut s) }, 0);
    s
}

#[test]
fn too_few_inodes_on_a_small_ext4_is_refused_with_its_count() {
    require_root!();
    let fs = iolab_testutil::MountedFs::new("ext4", 16 << 20).unwrap();
    let anchor = fs.path().join("fs");
    std::fs::create_dir(&anchor).unwrap();
    let spec = entries(&anchor, 50_000, 100, 0, 100.0);
    let layout = Layout::new(&spec, 1).unwrap();
    let free = statvfs(&anchor).f_favail;
    let e = create(&spec, 1, &layout, &opts(Format::No)).unwrap_err();
    let msg = e.to_string();
    let want = format!("and {} inodes free", iolab_spec::thousands(free));
    assert!(
        msg.contains(&want) && msg.contains("50,") && msg.contains("inodes;"),
        "{msg}"
    );
    let left: Vec<_> = std::fs::read_dir(&anchor)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert!(left.is_empty(), "adopted dir left empty: {left:?}");
}

#[test]
fn enospc_mid_creation_stops_and_keeps_what_it_made() {
    require_root!();
    let fs = iolab_testutil::MountedFs::new("ext4", 32 << 20).unwrap();
    let anchor = fs.path().join("fs");
    let spec = tree(&anchor, 1, 4, 16, "1m");
    let layout = Layout::new(&spec, 1).unwrap();
    let o = CreateOptions {
        check_capacity: false,
        ..opts(Format::No)
    };
    let e = create(&spec, 1, &layout, &o).unwrap_err();
    assert_eq!(e.error.errno, Some(libc::ENOSPC), "{e}");
    assert!(e.error.path.starts_with(&anchor), "{e}");
    let made = e.report.files_created;
    assert!(made > 0 && made < 64, "{e}");
    let full = (0..64)
        .filter(|&i| {
            std::fs::metadata(anchor.join(layout.file_path(i))).is_ok_and(|m| m.len() == 1 << 20)
        })
        .count() as u64;
    assert_eq!(full, made, "every file reported created is there, whole");
    assert_eq!(e.report.dirs_created, 4);
    // The capacity check sees the rest does not fit either.
    let e = create(&spec, 1, &layout, &opts(Format::Restart)).unwrap_err();
    assert!(e.to_string().contains("shrink the fileset"), "{e}");
    let r = remove(&anchor, &layout).unwrap();
    assert_eq!(count(&anchor), (0, 0, 0));
    assert!(r.files_removed >= made);
}
