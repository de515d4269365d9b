//! Concurrent workloads on the command line (docs/jobfile.md, "Several
//! workloads on the command line"):
//!
//! ```text
//! iolab run [RUN OPTIONS] --workload NAME [ITS OPTIONS] --workload NAME [ITS OPTIONS] ...
//! ```
//!
//! Options before the first `--workload` are the run's (`--name`,
//! `--duration`, `--warmup`, `--interval`, `--rate`, and the plan and
//! output flags) and the defaults of every workload; each `--workload
//! NAME` starts a workload that runs together with the others, and the
//! workload options after it, up to the next `--workload`, are its own.
//! The command line is split here, before clap, because clap cannot give
//! one flag a different value per workload; each part is then parsed by
//! clap with the same workload flags as everywhere else.

use crate::cli::{Cli, Cmd};
use clap::error::ErrorKind;
use iolab_jobfile::{RunOptions, WorkloadOptions};
use std::ffi::OsString;

/// The flag that starts a workload.
pub const FLAG: &str = "--workload";

/// One `--workload NAME` and the arguments after it.
#[derive(Debug)]
pub struct Segment {
    name: String,
    args: Vec<OsString>,
}

fn error(msg: String) -> clap::Error {
    clap::Error::raw(ErrorKind::ValueValidation, msg)
}

/// The flags of the whole run (plan, output and the run's clock) that may
/// also be written after a `--workload`: whether the flag takes a
/// separate value.
fn whole_run_flag(arg: &str) -> Option<bool> {
    const BOOLS: &[&str] = &[
        "--dry-run",
        "--parse-only",
        "--yes",
        "--quiet",
        "-q",
        "--force",
        "--fio-json-plus",
    ];
    // --warmup and --interval too: the run has one clock; and its curve.
    const VALUES: &[&str] = &[
        "--json",
        "--fio-json",
        "--repeat",
        "--pause",
        "--findings-log",
        "--warmup",
        "--interval",
        "--curve",
        "--stop-curve",
    ];
    if BOOLS.contains(&arg) {
        return Some(false);
    }
    if VALUES.contains(&arg) {
        return Some(true);
    }
    let flag = arg.split_once('=').map(|(f, _)| f)?;
    VALUES.contains(&flag).then_some(false)
}

fn is_help(a: &OsString) -> bool {
    a == "-h" || a == "--help"
}

/// The arguments up to the first `--workload` (what clap parses as the
/// `run` command), and each workload's part. Only `iolab run` is split;
/// with `--help` anywhere, the help of `iolab run` is shown.
pub fn split(argv: Vec<OsString>) -> Result<(Vec<OsString>, Vec<Segment>), clap::Error> {
    if argv.get(1).is_none_or(|a| a != "run") {
        return Ok((argv, Vec::new()));
    }
    let mut head = Vec::new();
    let mut segments: Vec<Segment> = Vec::new();
    let mut it = argv.into_iter();
    while let Some(a) = it.next() {
        let text = a.to_string_lossy().into_owned();
        let name =
            if text == FLAG {
                match it.next() {
                    Some(n) if !n.to_string_lossy().starts_with('-') => {
                        Some(n.to_string_lossy().into_owned())
                    }
                    _ => return Err(error(
                        "--workload needs a name: --workload NAME, then that workload's options"
                            .into(),
                    )),
                }
            } else {
                text.strip_prefix("--workload=").map(str::to_string)
            };
        match (name, segments.last_mut()) {
            (Some(n), _) => {
                if n.trim().is_empty() {
                    return Err(error("--workload needs a name that is not empty".into()));
                }
                if segments.iter().any(|s| s.name == n) {
                    return Err(error(format!(
                        "two workloads are named '{n}'; give each --workload a name of its own"
                    )));
                }
                segments.push(Segment {
                    name: n,
                    args: Vec::new(),
                })
            }
            (None, Some(s)) => match whole_run_flag(&text) {
                // `--dry-run` or `--json F` at the end belongs to the run.
                Some(takes_value) => {
                    head.push(a);
                    if takes_value {
                        head.extend(it.next());
                    }
                }
                None => s.args.push(a),
            },
            (None, None) => head.push(a),
        }
    }
    if segments.iter().any(|s| s.args.iter().any(is_help)) {
        head.push("--help".into());
    }
    Ok((head, segments))
}

/// One workload's flags: the same definitions as `iolab run`'s.
#[derive(clap::Parser, Debug)]
#[command(
    no_binary_name = true,
    allow_negative_numbers = true,
    disable_help_flag = true
)]
struct One {
    #[command(flatten)]
    opts: WorkloadOptions,
}

/// Parse each workload's part into `cli`'s `run` arguments.
pub fn attach(cli: &mut Cli, segments: Vec<Segment>) -> Result<(), clap::Error> {
    let Some(Cmd::Run(args)) = cli.cmd.as_mut() else {
        return Ok(());
    };
    if segments.is_empty() {
        return Ok(());
    }
    args.workload = segments.iter().map(|s| s.name.clone()).collect();
    for s in segments {
        let who = format!("--workload {}: ", s.name);
        use clap::Parser;
        let one = One::try_parse_from(&s.args).map_err(|e| {
            let text = e.render().to_string();
            let first = text.lines().next().unwrap_or("invalid arguments");
            let first = first.trim_start_matches("error: ");
            let hint = if e.kind() == ErrorKind::UnknownArgument {
                "; the job file and options of the whole run go before the first --workload"
            } else {
                ""
            };
            error(format!("{who}{first}{hint}"))
        })?;
        if one.opts.name.is_some() {
            return Err(error(format!(
                "{who}--name: the workload is named by --workload {0}; drop --name or put it before the first --workload to name the run",
                s.name
            )));
        }
        let mut opts = one.opts;
        opts.name = Some(s.name);
        args.workload_opts.push(opts);
    }
    Ok(())
}

/// The run the command line describes.
pub fn run_options(args: &crate::cli::RunArgs) -> RunOptions {
    let mut run = args.opts.clone();
    // Unnamed, the run is named after its workloads: `db+backup`.
    run.name.get_or_insert_with(|| args.workload.join("+"));
    RunOptions {
        index: 0,
        single: false,
        run,
        workloads: args.workload_opts.clone(),
        overrides: WorkloadOptions::default(),
        origins: Vec::new(),
        ..Default::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(s: &str) -> Vec<OsString> {
        s.split_whitespace().map(OsString::from).collect()
    }

    #[test]
    fn splits_at_each_workload() {
        let (head, segs) = split(argv(
            "iolab run --target /x --duration 5s --workload a --rw read --workload=b --bs 1m",
        ))
        .unwrap();
        assert_eq!(head, argv("iolab run --target /x --duration 5s"));
        assert_eq!(segs.len(), 2);
        assert_eq!(
            (segs[0].name.as_str(), segs[0].args.clone()),
            ("a", argv("--rw read"))
        );
        assert_eq!(
            (segs[1].name.as_str(), segs[1].args.clone()),
            ("b", argv("--bs 1m"))
        );
        // Other commands are left alone.
        let (head, segs) = split(argv("iolab study streams --workload x")).unwrap();
        assert_eq!(head.len(), 5);
        assert!(segs.is_empty());
    }

    #[test]
    fn bad_workload_flags_are_refused() {
        for (line, needle) in [
            ("iolab run --workload", "needs a name"),
            ("iolab run --workload --rw read", "needs a name"),
            (
                "iolab run --workload a --workload a",
                "two workloads are named 'a'",
            ),
        ] {
            let e = split(argv(line)).unwrap_err().to_string();
            assert!(e.contains(needle), "{line}: {e}");
        }
    }

    #[test]
    fn start_delay_and_skew_are_workload_flags() {
        use clap::Parser;
        let one =
            One::try_parse_from(argv("--rw read --start-delay 5s --skew=25 --bs 4k")).unwrap();
        assert_eq!(one.opts.start_delay, Some("5s".into()));
        assert_eq!(one.opts.skew, Some("25".into()));
        assert_eq!(one.opts.bs, Some("4k".into()));
        assert!(One::try_parse_from(argv("--skew")).is_err());
    }
}
