//! Writing and reading the result document.
//!
//! Writing goes through iolab_target's output check (never a block device,
//! never over a file that is not an iolab result document unless forced,
//! never over a target of the run): a regular file is replaced through a
//! temporary file renamed over it, so a crash never leaves a torn document;
//! a FIFO, /dev/null or standard output is written straight through.
//! Reading is bounded: a regular file of at most 64 MiB.

use crate::model::{ResultDoc, WorkloadResult, SCHEMA_VERSION, SCHEMA_VERSION_MIN};
use iolab_target::{check_output, OutputError, OutputKind, OutputPath, OutputRules};
use std::path::Path;

/// Write `doc` to `path` after the output check with no `--force` and no
/// targets to protect. Commands check their outputs up front and use
/// [`save_document`].
pub fn write_document(path: &Path, doc: &ResultDoc) -> std::io::Result<()> {
    let out = check_output(
        "--json",
        path,
        OutputKind::ResultJson,
        &OutputRules::default(),
    )
    .map_err(std::io::Error::other)?;
    save_document(&out, doc).map_err(std::io::Error::other)
}

/// Write `doc` to an output checked before the run (checked again now).
pub fn save_document(out: &OutputPath, doc: &ResultDoc) -> Result<(), OutputError> {
    out.write_with(&mut |w| {
        serde_json::to_writer_pretty(&mut *w, doc).map_err(std::io::Error::other)?;
        w.write_all(b"\n")
    })
}

#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("cannot read {path}: {err}")]
    Read { path: String, err: std::io::Error },
    #[error("{path} is not an iolab result document ({err}); give a file written by iolab --json")]
    Parse { path: String, err: String },
    #[error("{msg}; give a result document written by iolab run --json")]
    Input { msg: String },
    #[error("{path} has schema version {found}, this iolab reads versions {SCHEMA_VERSION_MIN} to {SCHEMA_VERSION}; use the iolab version that wrote it")]
    Version { path: String, found: u64 },
}

pub fn load_document(path: &Path) -> Result<ResultDoc, LoadError> {
    let p = path.display().to_string();
    let text = iolab_target::read_text_bounded(path, iolab_target::TEXT_LIMIT).map_err(|e| {
        use iolab_target::InputError as E;
        match e {
            E::NotFound { .. } => LoadError::Read {
                path: p.clone(),
                err: std::io::ErrorKind::NotFound.into(),
            },
            E::Io { source, .. } => LoadError::Read {
                path: p.clone(),
                err: source,
            },
            e => LoadError::Input { msg: e.to_string() },
        }
    })?;
    parse_document(&text, &p)
}

/// Parse the text of a result document; `p` names it in errors. The pure
/// step of [`load_document`], also what the fuzz targets exercise.
pub fn parse_document(text: &str, p: &str) -> Result<ResultDoc, LoadError> {
    let p = p.to_string();
    let v: serde_json::Value = serde_json::from_str(text).map_err(|e| LoadError::Parse {
        path: p.clone(),
        err: e.to_string(),
    })?;
    match v.get("schema_version").and_then(|x| x.as_u64()) {
        Some(n) if (SCHEMA_VERSION_MIN as u64..=SCHEMA_VERSION as u64).contains(&n) => {}
        Some(n) => return Err(LoadError::Version { path: p, found: n }),
        None => {
            return Err(LoadError::Parse {
                path: p,
                err: "no schema_version".into(),
            })
        }
    }
    let mut doc: ResultDoc = serde_json::from_value(v).map_err(|e| LoadError::Parse {
        path: p,
        err: e.to_string(),
    })?;
    upgrade(&mut doc);
    Ok(doc)
}

/// Bring a document of an older schema to the current one in memory, so
/// readers see one shape: a version-1 run (one workload, no `workloads[]`)
/// becomes a run whose `workloads[]` holds that workload, from time 0 to
/// the end of its measured time.
fn upgrade(doc: &mut ResultDoc) {
    if doc.schema_version >= SCHEMA_VERSION {
        return;
    }
    for r in &mut doc.runs {
        if r.workloads.is_empty() && r.spec.is_some() {
            r.workloads = vec![WorkloadResult::from_run(r)];
        }
    }
    doc.schema_version = SCHEMA_VERSION;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_version_1_document_loads_as_runs_of_one_workload() {
        let p = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/schema1-run.json");
        let text = std::fs::read_to_string(p).unwrap();
        assert!(text.contains("\"schema_version\": 1,"), "not a v1 fixture");
        let doc = parse_document(&text, p).unwrap();
        assert_eq!(doc.schema_version, SCHEMA_VERSION);
        let r = &doc.runs[0];
        assert_eq!(r.workloads.len(), 1);
        let w = &r.workloads[0];
        assert_eq!(Some(&w.spec), r.spec.as_ref());
        assert_eq!(w.summary.total.ops, r.summary.total.ops);
        assert!(w.summary.total.ops > 0);
        assert_eq!(w.intervals.len(), r.intervals.len());
        assert_eq!(w.end_s, r.warmup_s + r.measured_s);
        assert!(r.events.is_empty());
        // A version this iolab does not know is refused with a clear line.
        let future = text.replacen("\"schema_version\": 1,", "\"schema_version\": 99,", 1);
        let e = parse_document(&future, "f.json").unwrap_err().to_string();
        assert!(e.contains("reads versions 1 to 2"), "{e}");
    }
    use std::os::unix::fs::FileTypeExt;

    #[test]
    fn a_fifo_stays_a_fifo_and_a_symlink_stays_a_link() {
        let dir = tempfile::tempdir().unwrap();
        let doc = ResultDoc::new();
        // A FIFO (as /dev/null or /dev/stdout would be a device): written
        // through, never replaced.
        let fifo = dir.path().join("pipe");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: mkfifo on a path in our own temporary directory.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let reader = {
            let fifo = fifo.clone();
            std::thread::spawn(move || std::fs::read_to_string(fifo).unwrap())
        };
        write_document(&fifo, &doc).unwrap();
        // Checked before joining: had the FIFO been replaced, the reader
        // would wait for a writer forever.
        assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo());
        let text = reader.join().unwrap();
        assert!(text.contains("\"schema_version\""), "{text}");
        // A symlink: the file it points to gets the document.
        let real = dir.path().join("real.json");
        write_document(&real, &doc).unwrap();
        let link = dir.path().join("link.json");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        write_document(&link, &doc).unwrap();
        assert!(std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert!(std::fs::read_to_string(&real)
            .unwrap()
            .contains("schema_version"));
    }
}
