//! filebench workload files in WML (docs/filebench.md): variables,
//! filesets, processes, threads and their flowops, mapped onto iolab's
//! file-system workloads.
//!
//! [`parse::parse`] reads the text into a [`WmlFile`] (statements with
//! their lines, values unresolved: a `$var` is looked up when the file is
//! mapped, so composite flowops can bind their own); [`map::map`] turns
//! it into one file-system workload (its filesets, one flow per thread
//! definition, the run's end) the way `--personality` maps filebench's
//! own files (crates/spec/src/personality.rs).

pub mod flows;
pub mod map;
pub mod parse;
pub mod values;

use crate::frontend::{LoadOptions, Loaded};
use crate::resolve::JobError;

/// Most bytes of a WML file.
pub const MAX_TEXT: usize = 1 << 20;
/// Most statements, definitions and flowops of one file.
pub const MAX_ITEMS: usize = 10_000;
/// Deepest nesting of composite flowops.
pub const MAX_DEPTH: usize = 8;

/// A value as written: a word (`16k`, `/tmp`, `cvar-gamma`), a quoted
/// string, a `$variable`, or `randtable`'s rows.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Word(String),
    Quoted(String),
    Var(String),
    /// `{{weight, low, high}, ...}` of a tabular random variable.
    Table(Vec<[Value; 3]>),
}

/// `name=value`, a bare `name` (true) or a composite's `$param[=value]`.
#[derive(Debug, Clone, PartialEq)]
pub struct Attr {
    /// The name as written (a composite parameter keeps its `$`).
    pub name: String,
    pub value: Option<Value>,
    pub line: usize,
}

/// `flowop TYPE name=...,ATTRS`.
#[derive(Debug, Clone, PartialEq)]
pub struct Flowop {
    pub kind: String,
    pub attrs: Vec<Attr>,
    pub line: usize,
}

impl Flowop {
    pub fn attr(&self, name: &str) -> Option<&Attr> {
        self.attrs.iter().rev().find(|a| a.name == name)
    }
}

/// `thread ATTRS { flowop ... }`.
#[derive(Debug, Clone, PartialEq)]
pub struct Thread {
    pub attrs: Vec<Attr>,
    pub flowops: Vec<Flowop>,
    pub line: usize,
}

/// `define process ATTRS { thread ... }`.
#[derive(Debug, Clone, PartialEq)]
pub struct Process {
    pub attrs: Vec<Attr>,
    pub threads: Vec<Thread>,
    pub line: usize,
}

/// `define flowop name=N[,$param...] { flowop ... }`: a composite flowop.
#[derive(Debug, Clone, PartialEq)]
pub struct Composite {
    pub attrs: Vec<Attr>,
    pub flowops: Vec<Flowop>,
    pub line: usize,
}

/// What `set $NAME=...` and `define randvar name=$NAME` give a variable.
#[derive(Debug, Clone, PartialEq)]
pub enum VarDef {
    Plain(Value),
    /// `cvar(type=...,parameters=...)`.
    Cvar(Vec<Attr>),
    /// `randvar(...)` or `define randvar`.
    Randvar(Vec<Attr>),
}

/// One `set $NAME` (or `define randvar`).
#[derive(Debug, Clone, PartialEq)]
pub struct SetVar {
    pub name: String,
    pub def: VarDef,
    pub line: usize,
}

/// `define file` (one file) or `define fileset`.
#[derive(Debug, Clone, PartialEq)]
pub struct FilesetDef {
    pub single_file: bool,
    pub attrs: Vec<Attr>,
    pub line: usize,
}

/// `run [N]` or `psrun [-P|P] [N]`.
#[derive(Debug, Clone, PartialEq)]
pub struct RunCmd {
    pub duration: Option<Value>,
    /// psrun's period (negative: statistics reset each period).
    pub period: Option<i64>,
    pub psrun: bool,
    pub line: usize,
}

/// A WML file parsed: what iolab maps, and what it only notes.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct WmlFile {
    pub file: String,
    pub vars: Vec<SetVar>,
    pub filesets: Vec<FilesetDef>,
    pub processes: Vec<Process>,
    pub composites: Vec<Composite>,
    /// `eventgen rate=N`.
    pub eventgen: Option<(Value, usize)>,
    pub runs: Vec<RunCmd>,
    /// `set mode quit timeout|alldone|firstdone`.
    pub quit_mode: Option<(String, usize)>,
    /// `echo: TEXT` and `usage: TEXT`, in order.
    pub echoes: Vec<String>,
    /// Commands accepted with nothing to do, for the notes (`enable
    /// lathist`, `create files`, `debug 1`, ...), once each.
    pub accepted: Vec<String>,
}

/// The first word of a WML statement, with what must follow it on the
/// line for a file to be recognised as WML.
fn wml_start(line: &str) -> bool {
    let mut w = line.split_whitespace();
    let (Some(first), second) = (w.next(), w.next()) else {
        return false;
    };
    match first {
        "set" => second.is_some_and(|s| s.starts_with('$') || s == "mode"),
        "define" => second.is_some_and(|s| {
            let s = s.split(',').next().unwrap_or("");
            matches!(
                s,
                "file" | "fileset" | "filesets" | "process" | "processes" | "flowop" | "randvar"
            )
        }),
        "eventgen" => second.is_some_and(|s| s.starts_with("rate")),
        "enable" => second.is_some_and(|s| s == "lathist" || s == "multi"),
        "debug" => second.is_some_and(|s| s.bytes().all(|b| b.is_ascii_digit())),
        "run" | "psrun" => second.is_none_or(|s| {
            s.starts_with('$')
                || s.trim_start_matches('-')
                    .bytes()
                    .all(|b| b.is_ascii_digit())
        }),
        "echo" | "usage" => second.is_some_and(|s| s.starts_with('"')),
        _ => false,
    }
}

/// Whether `text` is a filebench WML file: its first line that is not
/// blank or a `#` comment is a WML statement (`set $var=...`, `set mode
/// ...`, `define fileset|file|process|flowop|randvar ...`, `eventgen
/// rate=...`, `enable lathist`, `debug N`, `run [N]`, `psrun`, `echo
/// "..."`). See [`crate::frontend::detect`].
pub fn looks_like_filebench(text: &str) -> bool {
    text.lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with('#'))
        .is_some_and(wml_start)
}

/// Load a WML file's text (`origin` is its path).
pub fn load(origin: &str, text: &str, lo: &LoadOptions) -> Result<Loaded, JobError> {
    let file = parse::parse(origin, text)?;
    map::map(&file, lo)
}

/// `file:line: what` (one line: control characters the file's own text
/// brought in are escaped).
pub(crate) fn at(file: &str, line: usize, what: impl std::fmt::Display) -> JobError {
    JobError(one_line(&format!("{file}:{line}: {what}")))
}

/// `s` with control characters escaped (`\n`), so it prints on one line.
pub(crate) fn one_line(s: &str) -> String {
    s.chars()
        .flat_map(|c| {
            let esc: Vec<char> = if c.is_control() {
                c.escape_default().collect()
            } else {
                vec![c]
            };
            esc
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recognises_wml_and_not_the_other_formats() {
        for t in [
            "# a comment\n\nset $dir=/tmp\n",
            "define fileset name=a,path=/tmp,entries=1\n",
            "set mode quit firstdone\n",
            "eventgen rate=10\n",
            "debug 1\n",
            "run 60\n",
            "run\n",
            "enable lathist\n",
            "echo \"hello\"\n",
        ] {
            assert!(looks_like_filebench(t), "{t:?}");
        }
        for t in [
            "[global]\nbs=4k\n",
            "[job]\nrw=read\n",
            "sd=sd1,lun=/dev/sdb\n",
            "* vdbench\nwd=wd1,sd=sd1\n",
            "[global]\ndir = '/mnt/x'\n",
            "run = 1\n",
            "set = 1\n",
            "debug=io\n",
            "define = 1\n",
            "",
        ] {
            assert!(!looks_like_filebench(t), "{t:?}");
        }
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut seen = 0;
        for sub in ["../../examples", "tests/fio"] {
            for e in std::fs::read_dir(dir.join(sub)).unwrap() {
                let p = e.unwrap().path();
                if let Ok(t) = std::fs::read_to_string(&p) {
                    assert!(!looks_like_filebench(&t), "{}", p.display());
                    seen += 1;
                }
            }
        }
        assert!(seen > 20, "{seen}");
    }
}
