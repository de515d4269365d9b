//! What the corpus tests of the three front ends (fio, vdbench,
//! filebench) share: listing a corpus directory and comparing each file's
//! rendering with its golden text, reviewed by hand. `IOLAB_BLESS=1`
//! rewrites the golden files instead of comparing.

use std::path::{Path, PathBuf};

/// The files of `dir` whose extension is `ext`, sorted.
pub fn files_with(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == ext))
        .collect();
    files.sort();
    files
}

/// The corpus in `tests/SUB` (files ending `.EXT`), at least `min` files.
pub fn corpus(sub: &str, ext: &str, min: usize) -> Vec<PathBuf> {
    let files = files_with(
        &Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests")
            .join(sub),
        ext,
    );
    assert!(files.len() >= min, "the corpus is in tests/{sub}");
    files
}

/// Each file's `render`ed text must equal its golden file (`golden_of`);
/// with `IOLAB_BLESS` set the golden files are written instead. One
/// failure lists every file that differs.
pub fn check_goldens(
    files: &[PathBuf],
    golden_of: impl Fn(&Path) -> PathBuf,
    render: impl Fn(&Path) -> String,
) {
    let bless = std::env::var_os("IOLAB_BLESS").is_some();
    let mut wrong = Vec::new();
    for p in files {
        let got = render(p);
        let golden = golden_of(p);
        if bless {
            std::fs::write(&golden, &got).unwrap();
            continue;
        }
        let want = std::fs::read_to_string(&golden).unwrap_or_default();
        if want != got {
            wrong.push(format!(
                "{}:\n--- want\n{want}\n--- got\n{got}",
                p.display()
            ));
        }
    }
    assert!(
        wrong.is_empty(),
        "differs from the golden text (IOLAB_BLESS=1 to rewrite after review):\n{}",
        wrong.join("\n")
    );
}
