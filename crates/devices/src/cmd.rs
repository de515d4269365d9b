//! External tools (`zpool`, `zfs`, `multipathd`) behind a trait, so tests
//! feed captured outputs instead of running anything. With a sysroot other
//! than `/`, commands are never run: their output is read from
//! `<sysroot>/commands/<program>_<arg>_<arg>....txt`, and a missing file
//! means the tool is not installed.

use crate::sysroot::Sysroot;
use std::path::PathBuf;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CmdError {
    /// The program is not installed (or not on PATH).
    NotInstalled(String),
    /// It ran and failed: the first line of what it said.
    Failed(String),
}

impl std::fmt::Display for CmdError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CmdError::NotInstalled(p) => write!(f, "{p} is not installed"),
            CmdError::Failed(m) => write!(f, "{m}"),
        }
    }
}

pub trait CommandRunner {
    /// Run `program args...` and return its standard output.
    fn run(&self, program: &str, args: &[&str]) -> Result<String, CmdError>;
}

/// Runs real commands (read-only queries only are ever asked for).
pub struct SystemRunner;

impl CommandRunner for SystemRunner {
    fn run(&self, program: &str, args: &[&str]) -> Result<String, CmdError> {
        let out = std::process::Command::new(program)
            .args(args)
            .stdin(std::process::Stdio::null())
            .output()
            .map_err(|e| match e.kind() {
                std::io::ErrorKind::NotFound => CmdError::NotInstalled(program.to_string()),
                _ => CmdError::Failed(format!("{program}: {e}")),
            })?;
        if !out.status.success() {
            let err = String::from_utf8_lossy(&out.stderr);
            let first = err.lines().next().unwrap_or("").trim();
            return Err(CmdError::Failed(format!(
                "{program} {}: {}",
                args.join(" "),
                if first.is_empty() { "failed" } else { first }
            )));
        }
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    }
}

/// Reads captured outputs from a directory (see the module comment).
pub struct FixtureRunner {
    pub dir: PathBuf,
}

/// The file name a command's captured output is kept under.
pub fn fixture_name(program: &str, args: &[&str]) -> String {
    let mut s = program.to_string();
    for a in args {
        s.push('_');
        s.push_str(&a.replace('/', "%"));
    }
    s.push_str(".txt");
    s
}

impl CommandRunner for FixtureRunner {
    fn run(&self, program: &str, args: &[&str]) -> Result<String, CmdError> {
        std::fs::read_to_string(self.dir.join(fixture_name(program, args)))
            .map_err(|_| CmdError::NotInstalled(program.to_string()))
    }
}

/// The runner that belongs with a sysroot: real commands on the live
/// system, captured outputs under any other root.
pub fn runner_for(sysroot: &Sysroot) -> Box<dyn CommandRunner + Send + Sync> {
    if sysroot.is_live() {
        Box::new(SystemRunner)
    } else {
        Box::new(FixtureRunner {
            dir: sysroot.path("/commands"),
        })
    }
}
