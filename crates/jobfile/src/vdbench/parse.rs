//! vdbench's parameter-file syntax into a [`VdbFile`] (docs/vdbench.md).
//!
//! What vdbench 5.04 does (`Vdb_scan`, `InsertHosts`, the `readParms` of
//! each definition class), and so what this does:
//! - Lines are trimmed; a line starting with `*`, `/` or `#`, or empty, is
//!   a comment; a line starting with `eof` ends the file (an included file:
//!   that file).
//! - `$NAME` and `!NAME` are replaced by the command line's `NAME=VALUE`
//!   (textually, as vdbench: `$lun` in `lun=$lun`); one that no pair
//!   gives is refused with its file and line (vdbench fails on `=$x`);
//!   pairs no line used are listed in [`VdbFile::unused_vars`].
//! - `include=FILE` reads FILE's lines in its place (a name without `/`
//!   from the including file's directory, else as written).
//! - On a line, everything from the first blank outside double quotes is
//!   a comment (vdbench cuts the line there); quotes keep blanks, commas,
//!   `=` and parentheses in a value and are removed.
//! - A line ending with `,` continues on the next. Lines are one stream
//!   of `keyword=value` parameters separated by commas; a value is a word
//!   or a parenthesised list `(a,b,c)` (nested parentheses kept inside an
//!   element). Keywords are lower-cased and written out
//!   ([`super::keywords::canonical`]).
//! - `hd=`, `rg=`, `fsd=`, `sd=`, `wd=`, `fwd=`, `rd=` start a definition
//!   in vdbench's order (general, hd, rg, fsd, sd, wd, fwd, rd); where a
//!   definition takes one of them as a parameter (`sd=` in a `wd`, `fsd=`
//!   in an `fwd`, `wd=`/`sd=`/`fsd=`/`fwd=` in an `rd`) it is one.
//!   `xx=default` collects parameters every later `xx` starts with.
//!
//! Bounded: [`MAX_TOTAL_BYTES`] of text with includes, [`MAX_LINES`]
//! lines, lines of [`MAX_LINE`] bytes (after variables),
//! [`MAX_INCLUDE_DEPTH`] levels of [`MAX_INCLUDES`] includes (a file that
//! includes itself is refused), [`MAX_VALUES`] values a parameter,
//! [`MAX_DEFS`] definitions and [`MAX_PARAMS`] parameters in all
//! (defaults counted once per definition they apply to).

use super::keywords::{self, Unknown};
use super::{DefKind, VdbDef, VdbFile, VdbParam};
use crate::resolve::JobError;
use std::path::{Path, PathBuf};

/// How much text a load reads, includes too.
pub const MAX_TOTAL_BYTES: usize = 16 << 20;
/// How many lines a load reads, includes too.
pub const MAX_LINES: usize = 200_000;
/// The longest line, after variables and with its continuations.
pub const MAX_LINE: usize = 64 << 10;
/// How deep includes nest.
pub const MAX_INCLUDE_DEPTH: usize = 16;
/// How many includes one load reads.
pub const MAX_INCLUDES: usize = 256;
/// Values in one parameter's list.
pub const MAX_VALUES: usize = 4096;
/// Definitions in one load.
pub const MAX_DEFS: usize = 4096;
/// Parameters of all definitions together.
pub const MAX_PARAMS: usize = 200_000;

/// The definition keywords.
const DEF_KEYWORDS: &[&str] = &["hd", "host", "rg", "fsd", "sd", "wd", "fwd", "rd"];

/// Whether `text` is a vdbench parameter file: its first line that is
/// not a vdbench comment is `KEYWORD=VALUE` with no blank before the `=`
/// or after it, the keyword a definition's or a general one (exactly),
/// and a value that is not TOML's (`"`, `[`, `{`, `'`). A fio file starts
/// with `[section]` or `;`, iolab's TOML with `[global]` or `key = value`,
/// filebench's WML with `set $x=` or `define` (blanks in the keyword).
pub fn looks_like_vdbench(text: &str) -> bool {
    for raw in text.lines().take(10_000) {
        let line = raw.trim();
        if line.is_empty() || line.starts_with(['*', '/', '#']) {
            continue;
        }
        let Some((key, value)) = line.split_once('=') else {
            return false;
        };
        let key = key.to_ascii_lowercase();
        let word = !key.is_empty() && key.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
        let known = DEF_KEYWORDS.contains(&key.as_str()) || keywords::is_general(&key);
        let toml = value.starts_with(|c: char| c.is_whitespace() || "\"[{'".contains(c));
        return word && known && !value.is_empty() && !toml;
    }
    false
}

/// Read a parameter file's text; `vars` are the command line's
/// `NAME=VALUE` pairs (they fill `$NAME` and `!NAME`).
pub fn parse(origin: &str, text: &str, vars: &[(String, String)]) -> Result<VdbFile, JobError> {
    parse_with(origin, text, vars, &read_include)
}

/// An included file, bounded like a parameter file.
pub fn read_include(path: &Path) -> Result<String, String> {
    iolab_target::read_text_bounded(path, MAX_TOTAL_BYTES as u64).map_err(|e| e.to_string())
}

/// [`parse`] with the reader of included files given (tests and the
/// fuzz target read no files).
pub fn parse_with(
    origin: &str,
    text: &str,
    vars: &[(String, String)],
    read: &dyn Fn(&Path) -> Result<String, String>,
) -> Result<VdbFile, JobError> {
    let mut lines = Lines {
        vars,
        used: vec![false; vars.len()],
        read,
        out: Vec::new(),
        bytes: 0,
        includes: 0,
        stack: vec![origin.to_string()],
    };
    lines.count_bytes(origin, text.len())?;
    lines.read(origin, text)?;
    let unused_vars = lines.unused();
    let params = split_params(&lines.out)?;
    let mut b = Builder::default();
    for p in params {
        b.add(p)?;
    }
    Ok(VdbFile {
        general: b.general,
        defs: b.defs,
        unused_vars,
    })
}

/// `file:line: message`.
fn err_at(file: &str, line: usize, msg: impl std::fmt::Display) -> JobError {
    JobError(format!("{file}:{line}: {msg}"))
}

/// One line that holds parameters: comments gone, variables filled, cut
/// at its first blank outside quotes.
struct Line {
    file: String,
    line: usize,
    text: String,
}

/// Reading the lines of a file and its includes.
struct Lines<'a> {
    vars: &'a [(String, String)],
    used: Vec<bool>,
    read: &'a dyn Fn(&Path) -> Result<String, String>,
    out: Vec<Line>,
    bytes: usize,
    includes: usize,
    /// The files being read, outermost first (cycles are refused).
    stack: Vec<String>,
}

impl Lines<'_> {
    fn count_bytes(&mut self, origin: &str, n: usize) -> Result<(), JobError> {
        self.bytes += n;
        if self.bytes > MAX_TOTAL_BYTES {
            return Err(JobError(format!(
                "{origin}: the parameter file and its includes are more than {} MiB of text together; split it",
                MAX_TOTAL_BYTES >> 20
            )));
        }
        Ok(())
    }

    /// Every line of `text` (the file `origin`) into `out`.
    fn read(&mut self, origin: &str, text: &str) -> Result<(), JobError> {
        for (i, raw) in text.split('\n').enumerate() {
            let n = i + 1;
            if self.out.len() >= MAX_LINES {
                return Err(err_at(
                    origin,
                    n,
                    format!("more than {MAX_LINES} parameter lines; split the file"),
                ));
            }
            if raw.len() > MAX_LINE {
                return Err(err_at(
                    origin,
                    n,
                    format!(
                        "the line is {} bytes long; at most {MAX_LINE} are read",
                        raw.len()
                    ),
                ));
            }
            if raw.contains('\0') {
                return Err(err_at(
                    origin,
                    n,
                    "a NUL byte; a vdbench parameter file is text",
                ));
            }
            let line = raw.trim();
            if line.starts_with("eof") {
                break;
            }
            if line.is_empty() || line.starts_with(['*', '/', '#']) {
                continue;
            }
            // The comment after the first blank goes before variables are
            // filled: a `$` there is the user's prose.
            let line = cut_at_blank(line).map_err(|e| err_at(origin, n, e))?;
            let line = self.substitute(&line).map_err(|e| err_at(origin, n, e))?;
            let head = line.get(..8).filter(|h| h.eq_ignore_ascii_case("include="));
            if head.is_some() && line.len() > 8 {
                self.include(origin, n, &line[8..])?;
                continue;
            }
            self.out.push(Line {
                file: origin.to_string(),
                line: n,
                text: line,
            });
        }
        Ok(())
    }

    /// `include=NAME` on line `n` of `origin`.
    fn include(&mut self, origin: &str, n: usize, name: &str) -> Result<(), JobError> {
        if self.stack.len() > MAX_INCLUDE_DEPTH {
            return Err(err_at(
                origin,
                n,
                format!("include={name} nests more than {MAX_INCLUDE_DEPTH} deep"),
            ));
        }
        self.includes += 1;
        if self.includes > MAX_INCLUDES {
            return Err(err_at(
                origin,
                n,
                format!("more than {MAX_INCLUDES} includes in one parameter file"),
            ));
        }
        let path = include_path(origin, name);
        let shown = path.display().to_string();
        if self.stack.contains(&shown) {
            return Err(err_at(origin, n, format!("include={name} includes {shown}, which is already being read; remove the cycle")));
        }
        let text =
            (self.read)(&path).map_err(|e| err_at(origin, n, format!("include={name}: {e}")))?;
        self.count_bytes(&shown, text.len())?;
        self.stack.push(shown.clone());
        self.read(&shown, &text)?;
        self.stack.pop();
        Ok(())
    }

    /// `$NAME` and `!NAME` filled from the pairs: the longest pair's name
    /// the text after `$`/`!` starts with (vdbench replaces text, so
    /// `$dir_a` with `dir=x` is `x_a`). An unfilled `$NAME`, or `!NAME`
    /// right after `=`, is refused.
    fn substitute(&mut self, line: &str) -> Result<String, String> {
        if !line.contains(['$', '!']) {
            return Ok(line.to_string());
        }
        let mut out = String::with_capacity(line.len());
        let mut rest = line;
        while let Some(at) = rest.find(['$', '!']) {
            out.push_str(&rest[..at]);
            let sigil = &rest[at..at + 1];
            let after = &rest[at + 1..];
            let name_len = after
                .bytes()
                .take_while(|b| b.is_ascii_alphanumeric() || *b == b'_')
                .count();
            let found = self.lookup(&after[..name_len]);
            match found {
                Some((i, len)) => {
                    self.used[i] = true;
                    out.push_str(&self.vars[i].1);
                    rest = &after[len..];
                }
                None if name_len > 0 && (sigil == "$" || out.ends_with('=')) => {
                    let name = &after[..name_len];
                    return Err(format!(
                        "{sigil}{name} has no value; give it on the command line after the file as {name}=VALUE"
                    ));
                }
                None => {
                    out.push_str(sigil);
                    rest = after;
                }
            }
            if out.len() > MAX_LINE {
                return Err(format!(
                    "the line is longer than {MAX_LINE} bytes once its variables are filled"
                ));
            }
        }
        out.push_str(rest);
        if out.len() > MAX_LINE {
            return Err(format!(
                "the line is longer than {MAX_LINE} bytes once its variables are filled"
            ));
        }
        Ok(out)
    }

    /// The pair (index, name length) whose name `word` starts with, the
    /// longest; of equal names the last given.
    fn lookup(&self, word: &str) -> Option<(usize, usize)> {
        let mut best: Option<(usize, usize)> = None;
        for (i, (name, _)) in self.vars.iter().enumerate() {
            if !name.is_empty()
                && word.starts_with(name.as_str())
                && best.is_none_or(|(_, l)| name.len() >= l)
            {
                best = Some((i, name.len()));
            }
        }
        best
    }

    /// The names of the pairs no line used, once each.
    fn unused(&self) -> Vec<String> {
        let mut v: Vec<String> = Vec::new();
        for (name, _) in self.vars {
            let used = self
                .vars
                .iter()
                .zip(&self.used)
                .any(|((n, _), u)| n == name && *u);
            if !used && !v.contains(name) {
                v.push(name.clone());
            }
        }
        v
    }
}

/// The line up to its first blank outside double quotes (vdbench ignores
/// the rest), quotes kept for the splitter. An unclosed quote is refused.
fn cut_at_blank(line: &str) -> Result<String, String> {
    let mut quoted = false;
    for (i, c) in line.char_indices() {
        match c {
            '"' => quoted = !quoted,
            ' ' | '\t' | '\r' if !quoted => return Ok(line[..i].to_string()),
            _ => {}
        }
    }
    if quoted {
        return Err("a double quote is not closed; close it on the same line".into());
    }
    Ok(line.to_string())
}

/// Where `include=NAME` in `origin` reads from: a name without `/` from
/// `origin`'s directory, else as written (vdbench also tries the current
/// directory when the first is missing).
fn include_path(origin: &str, name: &str) -> PathBuf {
    let p = Path::new(name);
    if !name.contains('/') {
        if let Some(dir) = Path::new(origin)
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
        {
            let joined = dir.join(p);
            if joined.exists() || !p.exists() {
                return joined;
            }
        }
    }
    p.to_path_buf()
}

/// One `keyword=value` as split from the lines, before it is placed.
struct RawParam {
    key: String,
    values: Vec<String>,
    file: String,
    line: usize,
}

/// The parameters of every line, continuation lines joined.
fn split_params(lines: &[Line]) -> Result<Vec<RawParam>, JobError> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        // A logical line: this one and those after a trailing comma.
        let mut pieces: Vec<&Line> = vec![&lines[i]];
        while pieces.last().is_some_and(|l| l.text.ends_with(',')) && i + 1 < lines.len() {
            i += 1;
            pieces.push(&lines[i]);
        }
        i += 1;
        split_logical(&pieces, &mut out)?;
    }
    Ok(out)
}

/// Split a logical line (its physical lines in order) at commas outside
/// parentheses and quotes; each piece is one parameter, on the line its
/// keyword starts.
fn split_logical(pieces: &[&Line], out: &mut Vec<RawParam>) -> Result<(), JobError> {
    let total: usize = pieces.iter().map(|l| l.text.len()).sum();
    let first = pieces[0];
    if total > MAX_LINE {
        return Err(err_at(
            &first.file,
            first.line,
            format!("the parameter runs over continuation lines to more than {MAX_LINE} bytes"),
        ));
    }
    let mut cur = String::new();
    let mut at: Option<&Line> = None; // the line `cur` started on
    let (mut depth, mut quoted) = (0usize, false);
    for l in pieces {
        for c in l.text.chars() {
            if at.is_none() && c != ',' {
                at = Some(l);
            }
            match c {
                '"' => {
                    quoted = !quoted;
                    continue;
                }
                _ if quoted => {}
                '(' => depth += 1,
                ')' if depth == 0 => {
                    return Err(err_at(&l.file, l.line, "a ')' without its '('"));
                }
                ')' => depth -= 1,
                ',' if depth == 0 => {
                    if let Some(pl) = at.take() {
                        out.push(param_of(&std::mem::take(&mut cur), pl)?);
                    }
                    continue;
                }
                _ => {}
            }
            // Quoted characters are marked so the value splitter keeps them.
            cur.push(if quoted { protect(c) } else { c });
        }
    }
    if depth > 0 {
        let l = pieces[pieces.len() - 1];
        return Err(err_at(&l.file, l.line, "a '(' is not closed; close the list with ')' (a list may run over lines that end with ',')"));
    }
    if let Some(pl) = at {
        if !cur.is_empty() {
            out.push(param_of(&cur, pl)?);
        }
    }
    Ok(())
}

/// Quoted characters that would split: moved to the Private Use Area
/// while the value is split, then back ([`unprotect`]).
fn protect(c: char) -> char {
    match c {
        ',' => '\u{F02C}',
        '=' => '\u{F03D}',
        '(' => '\u{F028}',
        ')' => '\u{F029}',
        _ => c,
    }
}

fn unprotect(s: &str) -> String {
    s.chars()
        .map(|c| match c {
            '\u{F02C}' => ',',
            '\u{F03D}' => '=',
            '\u{F028}' => '(',
            '\u{F029}' => ')',
            _ => c,
        })
        .collect()
}

/// `keyword=value` or `keyword=(v1,v2,...)` into a parameter.
fn param_of(text: &str, l: &Line) -> Result<RawParam, JobError> {
    let shown = unprotect(text);
    let Some((key, rest)) = text.split_once('=') else {
        return Err(err_at(&l.file, l.line, format!("'{shown}' is not keyword=value; vdbench parameters are keyword=value separated by commas")));
    };
    let key = key.to_ascii_lowercase();
    if key.len() < 2 || !key.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
        return Err(err_at(
            &l.file,
            l.line,
            format!(
                "'{}' is not a vdbench keyword (letters, digits and '_', two at least)",
                unprotect(&key)
            ),
        ));
    }
    let values = values_of(rest).map_err(|e| {
        err_at(
            &l.file,
            l.line,
            format!("{key}={}: {e}", shorten(&unprotect(rest))),
        )
    })?;
    Ok(RawParam {
        key,
        values,
        file: l.file.clone(),
        line: l.line,
    })
}

/// A value or a parenthesised list's elements (split at its top-level
/// commas; nested parentheses stay in their element; empty elements
/// dropped, as vdbench does).
fn values_of(rest: &str) -> Result<Vec<String>, String> {
    if rest.is_empty() {
        return Err("no value after '='; give one, or a list (a,b)".into());
    }
    let Some(inner) = rest.strip_prefix('(') else {
        return Ok(vec![unprotect(rest)]);
    };
    let Some(inner) = inner.strip_suffix(')') else {
        return Err("text after the list's ')'; separate parameters with ','".into());
    };
    let mut out = Vec::new();
    let (mut depth, mut start) = (0usize, 0usize);
    for (i, c) in inner.char_indices() {
        match c {
            '(' => depth += 1,
            ')' if depth == 0 => {
                return Err("text after the list's ')'; separate parameters with ','".into())
            }
            ')' => depth -= 1,
            ',' if depth == 0 => {
                push_value(&mut out, &inner[start..i])?;
                start = i + 1;
            }
            _ => {}
        }
    }
    push_value(&mut out, &inner[start..])?;
    if out.is_empty() {
        return Err("an empty list; give its values".into());
    }
    Ok(out)
}

/// A value for a message: at most 60 characters of it.
fn shorten(v: &str) -> String {
    const MAX: usize = 60;
    match v.char_indices().nth(MAX) {
        Some((at, _)) => format!("{}...", &v[..at]),
        None => v.to_string(),
    }
}

fn push_value(out: &mut Vec<String>, v: &str) -> Result<(), String> {
    if v.is_empty() {
        return Ok(());
    }
    if out.len() >= MAX_VALUES {
        return Err(format!("more than {MAX_VALUES} values in one list"));
    }
    out.push(unprotect(v));
    Ok(())
}

/// The kind a definition keyword starts, and its place in vdbench's
/// order.
fn def_kind(key: &str) -> Option<(DefKind, u8)> {
    Some(match key {
        "hd" | "host" => (DefKind::Host, 1),
        "rg" => (DefKind::Replication, 2),
        "fsd" => (DefKind::FileSystem, 3),
        "sd" => (DefKind::Storage, 4),
        "wd" => (DefKind::Workload, 5),
        "fwd" => (DefKind::FsWorkload, 6),
        "rd" => (DefKind::Run, 7),
        _ => return None,
    })
}

fn order_of(kind: DefKind) -> u8 {
    def_kind(kind.keyword()).map_or(0, |(_, o)| o)
}

/// Whether a definition of `kind` takes `key` (a definition keyword) as
/// a parameter.
fn takes_as_param(kind: DefKind, key: &str) -> bool {
    match kind {
        DefKind::Workload => matches!(key, "sd" | "host" | "hd"),
        DefKind::FsWorkload => matches!(key, "fsd" | "host" | "hd"),
        DefKind::Run => matches!(key, "wd" | "sd" | "fsd" | "fwd"),
        DefKind::Storage | DefKind::FileSystem => matches!(key, "host" | "hd"),
        DefKind::Host | DefKind::Replication => false,
    }
}

/// Where parameters go.
#[derive(Clone, Copy)]
enum At {
    General,
    /// The definition at this index of `defs`.
    Def(usize),
    /// The `xx=default` entry of this kind.
    Default(DefKind),
}

/// Placing parameters into the general list and the definitions.
#[derive(Default)]
struct Builder {
    general: Vec<VdbParam>,
    defs: Vec<VdbDef>,
    defaults: Vec<(DefKind, Vec<VdbParam>)>,
    at: Option<At>,
    params: usize,
}

impl Builder {
    fn kind(&self) -> Option<DefKind> {
        match self.at.unwrap_or(At::General) {
            At::General => None,
            At::Def(i) => Some(self.defs[i].kind),
            At::Default(k) => Some(k),
        }
    }

    /// `sd=NAME` / `sd=default` and so on.
    fn label(&self) -> String {
        match self.at.unwrap_or(At::General) {
            At::General => "the general parameters (before the first definition)".into(),
            At::Def(i) => format!("{}={}", self.defs[i].kind.keyword(), self.defs[i].name),
            At::Default(k) => format!("{}=default", k.keyword()),
        }
    }

    fn add(&mut self, p: RawParam) -> Result<(), JobError> {
        let kind = self.kind();
        if let Some((new_kind, order)) = def_kind(&p.key) {
            let is_param = kind.is_some_and(|k| takes_as_param(k, &p.key));
            if !is_param {
                let cur = kind.map_or(0, order_of);
                if kind.is_none() || kind == Some(new_kind) || order > cur {
                    return self.start(new_kind, p);
                }
                return Err(err_at(&p.file, p.line, format!(
                    "{}= after {}: vdbench reads definitions in the order general, hd, rg, fsd, sd, wd, fwd, rd; move it before the first {}=",
                    p.key, self.label(), kind.map_or("", DefKind::keyword)
                )));
            }
        }
        let key = match keywords::canonical(kind, &p.key) {
            Ok(k) => k,
            Err(e) => return Err(self.unknown(&p, kind, e)),
        };
        self.count(&p)?;
        let param = VdbParam {
            key: key.to_string(),
            values: p.values,
            file: p.file,
            line: p.line,
        };
        match self.at.unwrap_or(At::General) {
            At::General => self.general.push(param),
            At::Def(i) => self.defs[i].params.push(param),
            At::Default(k) => self.defaults_of(k).push(param),
        }
        Ok(())
    }

    fn count(&mut self, p: &RawParam) -> Result<(), JobError> {
        self.params += 1;
        if self.params > MAX_PARAMS {
            return Err(err_at(&p.file, p.line, format!("more than {MAX_PARAMS} parameters in all (defaults count once per definition); split the file")));
        }
        Ok(())
    }

    fn defaults_of(&mut self, k: DefKind) -> &mut Vec<VdbParam> {
        let i = match self.defaults.iter().position(|d| d.0 == k) {
            Some(i) => i,
            None => {
                self.defaults.push((k, Vec::new()));
                self.defaults.len() - 1
            }
        };
        &mut self.defaults[i].1
    }

    /// A definition keyword: a new definition, or its kind's defaults.
    fn start(&mut self, kind: DefKind, p: RawParam) -> Result<(), JobError> {
        let [name] = p.values.as_slice() else {
            return Err(err_at(
                &p.file,
                p.line,
                format!(
                    "{}= names one definition, not a list ({}); write one {}= per definition",
                    p.key,
                    p.values.join(","),
                    p.key
                ),
            ));
        };
        if name == "default" {
            self.at = Some(At::Default(kind));
            return Ok(());
        }
        if let Some(d) = self.defs.iter().find(|d| d.kind == kind && d.name == *name) {
            return Err(err_at(
                &p.file,
                p.line,
                format!(
                    "{}={name} is defined twice (first at {}); give each a name of its own",
                    kind.keyword(),
                    d.place()
                ),
            ));
        }
        if self.defs.len() >= MAX_DEFS {
            return Err(err_at(
                &p.file,
                p.line,
                format!("more than {MAX_DEFS} definitions; split the file"),
            ));
        }
        let params = self.defaults_of(kind).clone();
        self.params += params.len();
        if self.params > MAX_PARAMS {
            return Err(err_at(&p.file, p.line, format!("more than {MAX_PARAMS} parameters in all (defaults count once per definition); split the file")));
        }
        self.defs.push(VdbDef {
            kind,
            name: name.clone(),
            params,
            file: p.file,
            line: p.line,
        });
        self.at = Some(At::Def(self.defs.len() - 1));
        Ok(())
    }

    /// The message for a keyword the kind does not know.
    fn unknown(&self, p: &RawParam, kind: Option<DefKind>, e: Unknown) -> JobError {
        let what = match kind {
            None => "general".to_string(),
            Some(k) => k.keyword().to_string(),
        };
        match e {
            Unknown::Ambiguous(names) => err_at(&p.file, p.line, format!(
                "'{}' in {} abbreviates several vdbench keywords ({}); write the one meant in full",
                p.key, self.label(), names.join(", ")
            )),
            Unknown::Unknown => err_at(&p.file, p.line, format!(
                "unknown vdbench keyword '{}' in {}; the {what} keywords are {}: fix the spelling or remove it (docs/vdbench.md)",
                p.key, self.label(), keywords::names(kind).join(", ")
            )),
        }
    }
}

#[cfg(test)]
#[path = "parse_tests.rs"]
mod tests;
