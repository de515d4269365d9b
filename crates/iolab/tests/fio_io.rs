//! End-to-end runs of the fio engines and stream shapes added for fio's
//! examples, on files the tests create: a backwards stream (a negative
//! `hole`, fio's `rw=read:-8k`) checked by where its writes landed.

mod common;
use common::*;

/// Which 4 KiB blocks of the file at `path` hold data.
fn written_blocks(path: &std::path::Path) -> Vec<usize> {
    let data = std::fs::read(path).unwrap();
    (0..data.len() / 4096)
        .filter(|&i| data[i * 4096..(i + 1) * 4096].iter().any(|&b| b != 0))
        .collect()
}

#[test]
fn a_negative_hole_writes_backwards_from_the_end_as_fio_does() {
    let d = tempfile::tempdir().unwrap();
    let f = d.path().join("back");
    std::fs::File::create(&f)
        .unwrap()
        .set_len(64 << 10)
        .unwrap();
    let fs = f.to_str().unwrap();
    let (out, doc) = run_json(
        &[
            "--target",
            fs,
            "--destroy-data-on",
            fs,
            "--rw",
            "write",
            "--bs",
            "4k",
            "--hole=-8k",
            "--ops",
            "5",
        ],
        d.path(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(u(&doc, "runs.0.summary.write.ops"), 5);
    // 0, then the end less 8k (block 14) going down: 14, 13, 12, 11.
    assert_eq!(written_blocks(&f), vec![0, 11, 12, 13, 14]);
}
