//! Writing and reading the result document. Writes go to a temporary file
//! that is renamed over the target, so a crash never leaves a torn
//! document: the file holds either the previous state or the new one.

use crate::model::{ResultDoc, SCHEMA_VERSION};
use std::io::Write;
use std::path::Path;

pub fn write_document(path: &Path, doc: &ResultDoc) -> std::io::Result<()> {
    // Something that is not a regular file (`--json /dev/null`, a FIFO, a
    // terminal) is written straight through: renaming over it would
    // replace a device node with a file.
    if let Ok(m) = std::fs::metadata(path) {
        if !m.file_type().is_file() {
            let mut f = std::fs::OpenOptions::new().write(true).open(path)?;
            serde_json::to_writer_pretty(&mut f, doc).map_err(std::io::Error::other)?;
            return f.write_all(b"\n");
        }
    }
    // A symlink stays a link: the document replaces the file it points to.
    let real = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let tmp = real.with_extension("json.tmp");
    {
        let mut f = std::fs::File::create(&tmp)?;
        serde_json::to_writer_pretty(&mut f, doc).map_err(std::io::Error::other)?;
        f.write_all(b"\n")?;
        f.sync_all()?;
    }
    std::fs::rename(&tmp, &real)
}

#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("cannot read {path}: {err}")]
    Read { path: String, err: std::io::Error },
    #[error("{path} is not an iolab result document ({err}); give a file written by iolab --json")]
    Parse { path: String, err: String },
    #[error("{path} has schema version {found}, this iolab reads version {SCHEMA_VERSION}; use the iolab version that wrote it")]
    Version { path: String, found: u64 },
}

pub fn load_document(path: &Path) -> Result<ResultDoc, LoadError> {
    let p = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|err| LoadError::Read {
        path: p.clone(),
        err,
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
        Some(n) if n == SCHEMA_VERSION as u64 => {}
        Some(n) => return Err(LoadError::Version { path: p, found: n }),
        None => {
            return Err(LoadError::Parse {
                path: p,
                err: "no schema_version".into(),
            })
        }
    }
    serde_json::from_value(v).map_err(|e| LoadError::Parse {
        path: p,
        err: e.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
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
        std::fs::write(&real, "old").unwrap();
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
