//! The line protocol between `iolab mark` and a running iolab's mark
//! listener (docs/monitor.md): the client sends `mark <label>\n`, at most
//! [`MAX_MESSAGE`] bytes, the label at most [`MAX_LABEL`] bytes of UTF-8
//! without control characters; the listener answers one line, `ok
//! <seconds> <run name>`, `ok - <run name>` (before the run's clock
//! started) or `err <why>`. Both directions are untrusted input, so both
//! parsers are here, apart from the sockets, where the fuzz pass reaches
//! them.

use crate::events::Marked;

/// The longest label, in bytes.
pub const MAX_LABEL: usize = 200;
/// The longest message a client may send, newline included.
pub const MAX_MESSAGE: usize = 1024;
/// Why a label cannot be a mark; `Ok` when it can.
pub fn check_label(label: &str) -> Result<(), String> {
    if label.trim().is_empty() {
        return Err("the label is empty; give a few words saying what happened".into());
    }
    if label.len() > MAX_LABEL {
        return Err(format!(
            "the label is {} bytes long, at most {MAX_LABEL} are kept; shorten it",
            label.len()
        ));
    }
    if label.chars().any(char::is_control) {
        return Err(
            "the label holds a control character (newline, tab, ...); give plain text".into(),
        );
    }
    Ok(())
}

/// The line a client sends.
pub fn request(label: &str) -> String {
    format!("mark {label}\n")
}

/// The label of a client's line (without its newline).
pub fn parse_request(line: &str) -> Result<&str, String> {
    let label = line
        .strip_prefix("mark ")
        .ok_or_else(|| "unknown request; send 'mark LABEL'".to_string())?;
    check_label(label)?;
    Ok(label)
}

/// The listener's answer to a mark.
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    /// Kept at this time (seconds on the run clock) of the named run.
    At(f64, String),
    /// Kept before the named run's clock started.
    BeforeStart(String),
    /// Refused, and why.
    Refused(String),
}

impl Reply {
    /// The answer to a mark that the event log took as `m`.
    pub fn of(m: Marked, name: &str) -> Reply {
        match m {
            Marked::At(ns) => Reply::At(ns as f64 / 1e9, name.to_string()),
            Marked::BeforeStart => Reply::BeforeStart(name.to_string()),
            Marked::Dropped => Reply::Refused(format!(
                "the run already holds {} events; this mark was not kept",
                crate::events::MAX_EVENTS
            )),
        }
    }

    /// The answer as one line.
    pub fn line(&self) -> String {
        match self {
            Reply::At(s, n) => format!("ok {s:.6} {n}\n"),
            Reply::BeforeStart(n) => format!("ok - {n}\n"),
            Reply::Refused(why) => format!("err {why}\n"),
        }
    }

    /// Read an answer line.
    pub fn parse(line: &str) -> Option<Reply> {
        let line = line.strip_suffix('\n').unwrap_or(line);
        if let Some(why) = line.strip_prefix("err ") {
            return Some(Reply::Refused(why.to_string()));
        }
        let (time, name) = line.strip_prefix("ok ")?.split_once(' ')?;
        if time == "-" {
            return Some(Reply::BeforeStart(name.to_string()));
        }
        let s: f64 = time.parse().ok().filter(|s: &f64| s.is_finite())?;
        Some(Reply::At(s, name.to_string()))
    }
}
