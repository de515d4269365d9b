//! Writing and reading the result document. Writes go to a temporary file
//! that is renamed over the target, so a crash never leaves a torn
//! document: the file holds either the previous state or the new one.

use crate::model::{ResultDoc, SCHEMA_VERSION};
use std::io::Write;
use std::path::Path;

pub fn write_document(path: &Path, doc: &ResultDoc) -> std::io::Result<()> {
    let tmp = path.with_extension("json.tmp");
    {
        let mut f = std::fs::File::create(&tmp)?;
        serde_json::to_writer_pretty(&mut f, doc).map_err(std::io::Error::other)?;
        f.write_all(b"\n")?;
        f.sync_all()?;
    }
    std::fs::rename(&tmp, path)
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
    let v: serde_json::Value = serde_json::from_str(&text).map_err(|e| LoadError::Parse {
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
