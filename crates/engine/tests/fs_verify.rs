//! `--verify` on a fileset, without the driver: a fileset created with
//! the fileset crate's `fill` hook stamping through `FileVerify::fill`
//! (gamma sizes, so most files end inside a sector) reads back clean; a
//! byte changed and a file truncated behind iolab's back are findings with
//! their paths, also for the next run (a new `FileVerify`, same seed).

use iolab_engine::fs::verify::{FileVerify, ReadCheck};
use iolab_fileset::{create, CreateOptions, EntriesShape, FileSize, FilesetSpec, Layout, Shape};
use std::os::unix::fs::FileExt;
use std::path::Path;

fn spec(anchor: &Path) -> FilesetSpec {
    FilesetSpec {
        anchor: anchor.to_path_buf(),
        shape: Shape::Entries(EntriesShape {
            entries: 40,
            dir_width: 8,
            size: FileSize::Gamma {
                mean: 20_000,
                shape: 1.5,
            },
            prealloc: 100.0,
        }),
    }
}

/// Reads every file whole in 4 KiB transfers and checks each against
/// the layout's size; returns the findings' lines.
fn read_all(v: &FileVerify, anchor: &Path, layout: &Layout) -> Vec<String> {
    let mut out = Vec::new();
    let mut buf = vec![0u8; 4096];
    for i in 0..layout.files() {
        let f = std::fs::File::open(anchor.join(layout.file_path(i))).unwrap();
        let (size, seen) = (layout.size(i), v.gen(0, i));
        let mut off = 0;
        while off < size {
            let n = f.read_at(&mut buf, off).unwrap();
            if let ReadCheck::Finding(l) = v.check_read(0, i, seen, off, 4096, &buf[..n], size) {
                out.push(l);
            }
            if (n as u64) < 4096.min(size - off) {
                break; // the file ended early: one finding, not one per read
            }
            off += n as u64;
        }
    }
    out
}

#[test]
fn a_stamped_fileset_reads_clean_and_changes_behind_iolabs_back_are_found() {
    let tmp = tempfile::tempdir().unwrap();
    let anchor = tmp.path().join("fs");
    let spec = spec(&anchor);
    let layout = Layout::new(&spec, 3).unwrap();
    let names = |a: &Path, l: &Layout| {
        let (a, l) = (a.to_path_buf(), l.clone());
        Box::new(move |_s: u32, i: u64| a.join(l.file_path(i)).display().to_string())
    };
    let v = FileVerify::new(&[layout.files()], 3);
    v.set_names(names(&anchor, &layout));
    let fill = |i: u64, off: u64, buf: &mut [u8]| v.fill(0, i, off, buf);
    let opts = CreateOptions {
        fill: Some(&fill),
        ..CreateOptions::default()
    };
    create(&spec, 3, &layout, &opts).unwrap();
    let unaligned = (0..layout.files())
        .filter(|&i| !layout.size(i).is_multiple_of(512))
        .count();
    assert!(
        unaligned > 30,
        "gamma sizes end inside a sector: {unaligned}"
    );
    assert_eq!(read_all(&v, &anchor, &layout), Vec::<String>::new());
    let t = v.totals().totals;
    assert_eq!(t.findings_total, 0);
    let sectors: u64 = (0..layout.files())
        .map(|i| layout.size(i).div_ceil(512))
        .sum();
    assert_eq!(t.blocks_checked, sectors);
    assert_eq!(v.run_raw().unwrap().blocks_prefilled, sectors);

    // Behind iolab's back: a byte of file 5 changed, file 9 cut in half.
    let p5 = anchor.join(layout.file_path(5));
    let p9 = anchor.join(layout.file_path(9));
    let f5 = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(&p5)
        .unwrap();
    let at = layout.size(5) / 2;
    let mut b = [0u8; 1];
    f5.read_at(&mut b, at).unwrap();
    f5.write_at(&[b[0] ^ 0x40], at).unwrap();
    let f9 = std::fs::OpenOptions::new().write(true).open(&p9).unwrap();
    f9.set_len(layout.size(9) / 2).unwrap();

    for (who, v) in [("this run", v), ("the next run", FileVerify::new(&[40], 3))] {
        v.set_names(names(&anchor, &layout));
        let lines = read_all(&v, &anchor, &layout);
        assert_eq!(lines.len(), 2, "{who}: {lines:?}");
        assert!(
            lines[0].starts_with(&format!("{}: corrupt", p5.display())),
            "{who}: {}",
            lines[0]
        );
        assert!(
            lines[1].starts_with(&format!("{}: truncated", p9.display())),
            "{who}: {}",
            lines[1]
        );
        let t = v.totals().totals;
        assert_eq!(t.by_class["corrupt"], 1, "{who}");
        assert_eq!(t.by_class["truncated"], 1, "{who}");
        assert_eq!(t.findings[0].offset, at - at % 512, "{who}");
        assert_eq!(t.findings[1].offset, layout.size(9) / 2, "{who}");
    }
}
