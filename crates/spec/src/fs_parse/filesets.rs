//! The `filesets` job key: several named filesets of one file-system
//! workload (filebench's `define fileset` lines, one after another), as
//! text. `|` separates the filesets; each is `NAME(OPTIONS)` with
//! space-separated options:
//!
//! ```text
//! FILESETS := FILESET { "|" FILESET }
//! FILESET  := NAME [ "(" { OPTION } ")" ]
//! OPTION   := files=N | dir_width=N | size=SIZE | size=gamma:MEAN[:SHAPE]
//!           | prealloc[=PCT] | path=DIR | reuse | readonly
//! ```
//!
//! e.g. `bigfileset(files=10000 dir_width=20 size=gamma:128k:1.5
//! prealloc=80) | logfile(files=1 size=10m)`. A value holding spaces, `|`
//! or parentheses (a `path`) is written in double quotes. What an option
//! leaves out is the single fileset's default (iolab-jobfile's `fs`
//! module fills it in); each fileset's anchor is `PATH/NAME`. Bounded:
//! [`MAX_TEXT`] bytes, [`MAX_FILESETS`] filesets; every error is one line
//! saying what to change.

use super::{parse_file_size, size_text, MAX_TEXT};
use crate::fileset::{FileSize, MAX_FILES};
use crate::fs::MAX_FILESETS;
use crate::SpecError;

/// One fileset of `filesets` as written: `None` where it says nothing.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FilesetDecl {
    pub name: String,
    /// `files=` (filebench `entries`).
    pub files: Option<u64>,
    /// `dir_width=` (filebench `dirwidth`).
    pub dir_width: Option<u32>,
    /// `size=`: fixed or `gamma:MEAN[:SHAPE]`.
    pub size: Option<FileSize>,
    /// `prealloc=` percent (a bare `prealloc` is 100).
    pub prealloc: Option<f64>,
    /// `path=`: where the fileset's directory `NAME` goes, instead of
    /// the workload's `dir`.
    pub path: Option<String>,
    /// filebench's `reuse`: iolab keeps a fileset anyway (`format=no`).
    pub reuse: bool,
    /// filebench's `readonly`: accepted; iolab's steps decide what is
    /// written.
    pub readonly: bool,
}

fn bad<T>(s: String) -> Result<T, SpecError> {
    Err(SpecError(s))
}

const SYNTAX: &str =
    "write NAME(files=N dir_width=N size=SIZE|gamma:MEAN prealloc=PCT path=DIR), separated by |";

/// `text` split at `sep` outside double quotes; an unclosed quote is an
/// error.
fn split_outside_quotes(text: &str, sep: impl Fn(char) -> bool) -> Result<Vec<&str>, SpecError> {
    let mut out = Vec::new();
    let (mut start, mut quoted) = (0, false);
    for (i, c) in text.char_indices() {
        if c == '"' {
            quoted = !quoted;
        } else if !quoted && sep(c) {
            out.push(&text[start..i]);
            start = i + c.len_utf8();
        }
    }
    if quoted {
        return bad(format!(
            "--filesets: a double quote in '{text}' is not closed; close it"
        ));
    }
    out.push(&text[start..]);
    Ok(out)
}

/// Whether `n` is a fileset name: letters, digits, `_`, `.` and `-`,
/// not `.` or `..`, at most 255 bytes.
pub fn valid_name(n: &str) -> bool {
    !n.is_empty()
        && n != "."
        && n != ".."
        && n.len() <= 255
        && n.chars()
            .all(|c| c.is_ascii_alphanumeric() || "_.-".contains(c))
}

/// `--filesets`: the filesets in order (steps name them `@NAME` or by
/// index). Names must be distinct.
pub fn parse_filesets(s: &str) -> Result<Vec<FilesetDecl>, SpecError> {
    if s.len() > MAX_TEXT {
        return bad(format!(
            "--filesets is {} bytes long, more than {MAX_TEXT}; give fewer filesets",
            s.len()
        ));
    }
    if s.trim().is_empty() {
        return bad(format!("--filesets is empty; {SYNTAX}"));
    }
    let mut out: Vec<FilesetDecl> = Vec::new();
    for part in split_outside_quotes(s, |c| c == '|')? {
        if out.len() == MAX_FILESETS {
            return bad(format!(
                "--filesets names more than {MAX_FILESETS} filesets; give fewer"
            ));
        }
        let d = parse_one(part.trim())?;
        if out.iter().any(|o| o.name == d.name) {
            return bad(format!(
                "--filesets: two filesets are named '{}'; give each its own name",
                d.name
            ));
        }
        out.push(d);
    }
    Ok(out)
}

/// One `NAME(OPTIONS)`.
fn parse_one(text: &str) -> Result<FilesetDecl, SpecError> {
    let (name, opts) = match text.find('(') {
        Some(open) => {
            let Some(body) = text[open + 1..].strip_suffix(')') else {
                return bad(format!(
                    "--filesets: '{text}' does not end with ')'; {SYNTAX}"
                ));
            };
            (text[..open].trim(), body)
        }
        None => (text, ""),
    };
    if !valid_name(name) {
        return bad(format!(
            "--filesets: '{name}' in '{text}' is not a fileset name; use letters, digits, _ . - ({SYNTAX})"
        ));
    }
    let mut d = FilesetDecl {
        name: name.to_string(),
        ..Default::default()
    };
    let mut seen: Vec<&str> = Vec::new();
    for o in split_outside_quotes(opts, char::is_whitespace)? {
        if o.is_empty() {
            continue;
        }
        let key = o.split_once('=').map_or(o, |(k, _)| k);
        if seen.contains(&key) {
            return bad(format!(
                "--filesets: fileset {name} gives {key} twice; give it once"
            ));
        }
        seen.push(key);
        option(&mut d, o)?;
    }
    Ok(d)
}

/// One option of a fileset, into `d`.
fn option(d: &mut FilesetDecl, o: &str) -> Result<(), SpecError> {
    let name = d.name.clone();
    let fail = |why: &str| {
        SpecError(format!(
            "--filesets: '{o}' of fileset {name} {why}; options are files=N, dir_width=N, size=SIZE or gamma:MEAN[:SHAPE], prealloc=PCT, path=DIR, reuse, readonly"
        ))
    };
    let (key, value) = match o.split_once('=') {
        Some((k, v)) => (k, Some(v.trim_matches('"'))),
        None => (o, None),
    };
    let need = || {
        value
            .filter(|v| !v.is_empty())
            .ok_or_else(|| fail("needs a value"))
    };
    match key {
        "files" | "entries" | "nfiles" => {
            d.files = Some(
                need()?
                    .parse::<u64>()
                    .ok()
                    .filter(|n| (1..=MAX_FILES).contains(n))
                    .ok_or_else(|| fail(&format!("is not a count from 1 to {MAX_FILES}")))?,
            )
        }
        "dir_width" | "dirwidth" => {
            d.dir_width = Some(
                need()?
                    .parse::<u32>()
                    .ok()
                    .filter(|n| *n >= 2)
                    .ok_or_else(|| fail("is not a width of 2 or more"))?,
            )
        }
        "size" | "filesize" => {
            d.size = Some(parse_file_size(need()?).map_err(|e| {
                fail(&format!(
                    "is not a size ({})",
                    e.0.trim_start_matches("--file-size")
                        .trim_start_matches(':')
                        .trim()
                ))
            })?)
        }
        "prealloc" => {
            d.prealloc = Some(match value {
                None => 100.0,
                Some(v) => v
                    .trim_end_matches('%')
                    .parse::<f64>()
                    .ok()
                    .filter(|p| (0.0..=100.0).contains(p))
                    .ok_or_else(|| fail("is not a percentage from 0 to 100"))?,
            })
        }
        "path" | "dir" => d.path = Some(need()?.to_string()),
        "reuse" | "readonly" if value.is_some() => return Err(fail("takes no value")),
        "reuse" => d.reuse = true,
        "readonly" => d.readonly = true,
        _ => return Err(fail("is not known")),
    }
    Ok(())
}

/// The filesets in the syntax [`parse_filesets`] reads.
pub fn filesets_text(sets: &[FilesetDecl]) -> String {
    let one = |d: &FilesetDecl| {
        let mut o: Vec<String> = Vec::new();
        if let Some(n) = d.files {
            o.push(format!("files={n}"));
        }
        if let Some(w) = d.dir_width {
            o.push(format!("dir_width={w}"));
        }
        match &d.size {
            Some(FileSize::Fixed(b)) => o.push(format!("size={}", size_text(*b))),
            Some(FileSize::Gamma { mean, shape }) => {
                o.push(format!("size=gamma:{}:{shape}", size_text(*mean)))
            }
            None => {}
        }
        if let Some(p) = d.prealloc {
            o.push(format!("prealloc={p}"));
        }
        if let Some(p) = &d.path {
            o.push(format!("path=\"{p}\""));
        }
        if d.reuse {
            o.push("reuse".into());
        }
        if d.readonly {
            o.push("readonly".into());
        }
        format!("{}({})", d.name, o.join(" "))
    };
    sets.iter().map(one).collect::<Vec<_>>().join(" | ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_keys_example_parses() {
        let f = parse_filesets(
            "bigfileset(files=10000 dir_width=20 size=gamma:128k:1.5 prealloc=80) | logfile(files=1 size=10m path=\"/mnt/a b\" reuse readonly)",
        )
        .unwrap();
        assert_eq!(f.len(), 2);
        assert_eq!(
            f[0],
            FilesetDecl {
                name: "bigfileset".into(),
                files: Some(10_000),
                dir_width: Some(20),
                size: Some(FileSize::Gamma {
                    mean: 128 << 10,
                    shape: 1.5
                }),
                prealloc: Some(80.0),
                ..Default::default()
            }
        );
        assert_eq!(f[1].size, Some(FileSize::Fixed(10 << 20)));
        assert_eq!(f[1].path.as_deref(), Some("/mnt/a b"));
        assert!(f[1].reuse && f[1].readonly && !f[0].reuse);
        let g = parse_filesets("a | b() | c(prealloc)").unwrap();
        assert_eq!(g[2].prealloc, Some(100.0));
        assert_eq!(
            g[1],
            FilesetDecl {
                name: "b".into(),
                ..Default::default()
            }
        );
        assert_eq!(parse_filesets(&filesets_text(&f)).unwrap(), f);
    }

    #[test]
    fn bad_filesets_say_what_to_change_in_one_line() {
        for (text, needle) in [
            ("", "is empty"),
            ("a(files=0)", "is not a count"),
            ("a(files=x)", "is not a count"),
            ("a(dir_width=1)", "width of 2"),
            ("a(size=12q)", "is not a size"),
            ("a(size=gamma:1k:-1)", "is not a size"),
            ("a(prealloc=101)", "percentage"),
            ("a(path=)", "needs a value"),
            ("a(reuse=1)", "takes no value"),
            ("a(color=red)", "is not known"),
            ("a(files=1 files=2)", "twice"),
            ("a(files=1", "does not end with ')'"),
            ("a(path=\"x)", "not closed"),
            ("a | a", "two filesets are named 'a'"),
            ("a/b(files=1)", "not a fileset name"),
            ("..", "not a fileset name"),
            ("a || b", "not a fileset name"),
        ] {
            let e = parse_filesets(text).unwrap_err().0;
            assert!(e.contains(needle) && !e.contains('\n'), "{text}: {e}");
        }
        let many = vec!["s"; MAX_FILESETS + 1]
            .iter()
            .enumerate()
            .map(|(i, s)| format!("{s}{i}"))
            .collect::<Vec<_>>()
            .join("|");
        assert!(parse_filesets(&many).unwrap_err().0.contains("more than"));
        let long = "a(".to_string() + &" ".repeat(MAX_TEXT) + ")";
        assert!(parse_filesets(&long).unwrap_err().0.contains("bytes long"));
    }
}
