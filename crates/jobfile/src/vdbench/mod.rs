//! vdbench parameter files (docs/vdbench.md): raw storage definitions
//! (`sd`, `wd`, `rd`), file-system definitions (`fsd`, `fwd`, `rd`) and
//! their `for*` loops, mapped onto iolab's runs and workloads.
//!
//! Data flows one way: [`parse`] reads vdbench's syntax (comments,
//! continuation lines, `include=`, `eof`, `$var`/`!var` from the command
//! line's `NAME=VALUE`, `xx=default` entries) into a [`VdbFile`]: the
//! general parameters and every definition with every parameter that
//! applies to it (its defaults first, then its own), as text, with the
//! file and line each was written on. [`map`] turns the run definitions
//! into iolab's runs (`for*` loops expanded in vdbench's order), raw
//! workloads from `sd`/`wd` and file-system workloads from `fsd`/`fwd`,
//! and refuses what iolab cannot honour with the keyword, file and line.

pub mod keywords;
pub mod map;
pub mod parse;

use crate::frontend::{LoadOptions, Loaded};
use crate::resolve::JobError;

/// One parameter as written: `key=value` or `key=(v1,v2,...)`, after
/// variables were filled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VdbParam {
    /// The keyword, lower-cased (vdbench's keywords are not
    /// case-sensitive).
    pub key: String,
    /// The values in order: one for `key=value`, each element for a
    /// parenthesised list (`xfersize=(4k,10,8k,90)` gives four), the text
    /// inside quotes as one value.
    pub values: Vec<String>,
    /// The parameter file it was written in and its 1-based line (0 for
    /// what the command line gave).
    pub file: String,
    pub line: usize,
}

impl VdbParam {
    /// `file:line` for messages.
    pub fn place(&self) -> String {
        if self.line == 0 {
            self.file.clone()
        } else {
            format!("{}:{}", self.file, self.line)
        }
    }
}

/// What a definition defines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DefKind {
    /// `hd=`: a host (refused until multi-host runs exist).
    Host,
    /// `rg=`: a replication group.
    Replication,
    /// `sd=`: a storage definition (a LUN or file).
    Storage,
    /// `wd=`: a raw workload.
    Workload,
    /// `fsd=`: a file-system definition (an anchor and its tree).
    FileSystem,
    /// `fwd=`: a file-system workload.
    FsWorkload,
    /// `rd=`: a run.
    Run,
}

impl DefKind {
    /// The keyword that starts the definition (`sd`, `fwd`, ...).
    pub fn keyword(self) -> &'static str {
        match self {
            DefKind::Host => "hd",
            DefKind::Replication => "rg",
            DefKind::Storage => "sd",
            DefKind::Workload => "wd",
            DefKind::FileSystem => "fsd",
            DefKind::FsWorkload => "fwd",
            DefKind::Run => "rd",
        }
    }
}

/// One definition (`sd=sd1,lun=/dev/sdb,threads=32`) with every
/// parameter that applies to it: those of the `xx=default` entries of its
/// kind in force where it is written, then its own, in order (a later one
/// wins).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VdbDef {
    pub kind: DefKind,
    pub name: String,
    pub params: Vec<VdbParam>,
    /// Where its first line is.
    pub file: String,
    pub line: usize,
}

impl VdbDef {
    /// The last value given for `key`, if any.
    pub fn get(&self, key: &str) -> Option<&VdbParam> {
        self.params.iter().rev().find(|p| p.key == key)
    }

    /// `file:line` for messages.
    pub fn place(&self) -> String {
        format!("{}:{}", self.file, self.line)
    }
}

/// A parameter file read: general parameters, then definitions in order.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct VdbFile {
    /// Parameters outside any definition (`compratio=`, `data_errors=`,
    /// `validate=`, `journal=`, `messagescan=`, ...), in order.
    pub general: Vec<VdbParam>,
    pub defs: Vec<VdbDef>,
    /// `NAME=VALUE` pairs that no `$NAME` used (mentioned once).
    pub unused_vars: Vec<String>,
}

impl VdbFile {
    /// The definitions of one kind, in order.
    pub fn of(&self, kind: DefKind) -> impl Iterator<Item = &VdbDef> {
        self.defs.iter().filter(move |d| d.kind == kind)
    }
}

/// Whether `text` is a vdbench parameter file: see
/// [`crate::frontend::detect`].
pub fn looks_like_vdbench(text: &str) -> bool {
    parse::looks_like_vdbench(text)
}

/// Load a vdbench parameter file's text (`origin` is its path).
pub fn load(origin: &str, text: &str, lo: &LoadOptions) -> Result<Loaded, JobError> {
    let file = parse::parse(origin, text, &lo.vars)?;
    map::map(&file, lo)
}
