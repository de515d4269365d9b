//! fio job files and command lines (docs/fio.md).
//!
//! Data flows one way: [`parse`] reads fio's INI syntax (sections,
//! `[global]`, `include`, comments, `${VAR}` and fio's built-in
//! variables) into a [`FioFile`]: every job with every option that
//! applies to it, as text, with the file and line it was written on.
//! [`map`] turns each option into iolab's job keys (one workload per
//! job section, one run per stonewall group) with [`values`] reading
//! fio's value syntax (units with `kb_base`, arithmetic, ranges,
//! per-direction lists), and refuses what iolab cannot honour with the
//! option's file and line.

pub mod client;
pub mod map;
pub mod parse;
pub mod values;

/// One option line of a job, as written after variables were filled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FioOpt {
    /// The option's name as written, trimmed (fio matches names
    /// case-sensitively, so `Direct` is not `direct`; aliases kept).
    pub key: String,
    /// The value; `None` for a bare boolean (`direct`, `time_based`).
    pub value: Option<String>,
    /// The job file it was written in (`command line` for `iolab fio`'s
    /// arguments), and its 1-based line (0 on the command line).
    pub file: String,
    pub line: usize,
}

impl FioOpt {
    /// `file:line` (or `the command line`) for messages.
    pub fn place(&self) -> String {
        if self.line == 0 {
            self.file.clone()
        } else {
            format!("{}:{}", self.file, self.line)
        }
    }
}

/// One job section with every option that applies to it: the
/// `[global]` options in force where the section starts, then its own,
/// in order (a later one wins, as in fio).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FioJob {
    pub name: String,
    pub options: Vec<FioOpt>,
    /// Where the section header is (`file`, 1-based `line`).
    pub file: String,
    pub line: usize,
}

impl FioJob {
    /// The last value given for `key` (or any of `aliases`), if any:
    /// `Some(None)` for a bare boolean.
    pub fn get(&self, key: &str) -> Option<&FioOpt> {
        self.options.iter().rev().find(|o| o.key == key)
    }
}

/// Every job of the files read, in order.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FioFile {
    pub jobs: Vec<FioJob>,
    /// `NAME=VALUE` pairs that no `${NAME}` used (mentioned once on
    /// stdout, not an error).
    pub unused_vars: Vec<String>,
}

/// Whether `text` is a fio job file rather than iolab's TOML: see
/// [`crate::frontend::detect`].
pub fn looks_like_fio(text: &str) -> bool {
    parse::looks_like_fio(text)
}
