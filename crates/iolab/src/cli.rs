//! Command-line definition and dispatch. Errors in the arguments become one
//! line on stderr and exit code 2.

use clap::{Parser, Subcommand};
use iolab_jobfile::WorkloadOptions;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser, Debug)]
#[command(
    name = "iolab",
    version,
    about = "Storage characterisation, tuning and data integrity: fio/vdbench-class workloads on io_uring with honest latency and versioned results.",
    after_help = "With no command, iolab runs its default job: a quick characterisation of the current directory's storage (see `iolab run --help`)."
)]
pub struct Cli {
    #[command(subcommand)]
    pub cmd: Option<Cmd>,
}

// Parsed once per process: the size of the largest variant does not matter.
#[allow(clippy::large_enum_variant)]
#[derive(Subcommand, Debug)]
pub enum Cmd {
    /// Run workloads from flags or a TOML job file (docs/jobfile.md); with no target, the default job
    // Negative numbers are values (`--qd -3` is told its minimum), not flags.
    #[command(allow_negative_numbers = true)]
    Run(RunArgs),
    /// Report the devices under the targets (all when none): configuration, partitions, multipath, FC, NVMe, ZFS, and advice (docs/doctor.md)
    Doctor(crate::doctor::Args),
    /// Per-LUN host queue depth for a target port, with the arithmetic and how to set it
    Qdepth(crate::qdepth::Args),
    /// Read targets written with --verify and check every block (against the journal with --journal), e.g. after a crash (docs/validation.md)
    Verify(crate::verify_cmd::VerifyArgs),
    /// Run a named study: bs-ladder, qd-ladder, corners, streams, iozone (docs/studies.md)
    #[command(allow_negative_numbers = true)]
    Study(crate::study::Args),
    /// Turn a result document into one self-contained HTML report, or its tables as Markdown or CSV
    Report(crate::report_cmd::Args),
    /// Compare result documents run by run (before/after tuning), with the change in percent
    Compare(crate::compare_cmd::Args),
    /// Print the manual page (roff): `iolab man > iolab.1`, or read it with `iolab man | man -l -`
    Man(crate::manual::ManArgs),
    /// Print shell completions: `source <(iolab completions bash)`; zsh and fish alike
    Completions(crate::manual::CompletionsArgs),
}

#[derive(clap::Args, Debug, Default)]
pub struct RunArgs {
    /// A TOML job file: [global] defaults and [[workload]] entries run in order; flags override it
    #[arg(value_name = "JOBFILE")]
    pub jobfile: Option<PathBuf>,

    #[command(flatten)]
    pub opts: WorkloadOptions,

    #[command(flatten)]
    pub plan: crate::plan::PlanArgs,

    /// Write the result document (docs/results.md) here; kept up to date while runs go (every 10 s)
    #[arg(long, value_name = "FILE", help_heading = "Output")]
    pub json: Option<PathBuf>,

    /// No interval lines, only the summary
    #[arg(long, short = 'q', help_heading = "Output")]
    pub quiet: bool,

    /// Log data validation findings here (default: findings.log in the journal directory, else iolab-findings.log; written only when there are findings)
    #[arg(long, value_name = "FILE", help_heading = "Output")]
    pub findings_log: Option<PathBuf>,

    /// Let --json or --findings-log replace an existing file that iolab did not write (never a block device or a target of the run; see docs/results.md)
    #[arg(long, help_heading = "Output")]
    pub force: bool,
}

/// One line from a clap error: its first line plus its tip, if any.
fn one_line(e: &clap::Error) -> String {
    let text = e.render().to_string();
    let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty());
    let mut first = lines.next().unwrap_or("invalid arguments").to_string();
    // "the following required arguments were not provided:" names them on
    // the next line.
    if first.ends_with(':') {
        first = format!("{first} {}", lines.next().unwrap_or_default());
    }
    let tip = text
        .lines()
        .map(str::trim)
        .find(|l| l.starts_with("tip:"))
        .map(|t| format!("; {}", t.trim_start_matches("tip:").trim()))
        .unwrap_or_default();
    // An argument with a fixed set of values: say them on the same line.
    let tip = match text
        .lines()
        .map(str::trim)
        .find(|l| l.starts_with("[possible values:"))
    {
        Some(p) => format!(
            "; give one of: {}{tip}",
            p.trim_start_matches("[possible values:")
                .trim_end_matches(']')
                .trim()
        ),
        None => tip,
    };
    // clap's "to pass '-1m' as a value, use '-- -1m'" does not apply to
    // option values: say what is wrong with a negative one instead (not
    // for an unknown flag, `use '-- --bogus'`).
    let negative = tip
        .split("use '-- -")
        .nth(1)
        .is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_digit() || c == '.'));
    let tip = if negative {
        "; sizes, times and counts cannot be negative (a leading '-' starts a flag)".to_string()
    } else {
        tip
    };
    // Point at the help of the subcommand that was typed.
    let sub = std::env::args()
        .nth(1)
        .filter(|a| command().get_subcommands().any(|s| s.get_name() == a))
        .unwrap_or_else(|| "run".into());
    format!("{first}{tip}; see 'iolab {sub} --help'")
}

/// The whole command line: what is parsed, and what `iolab man` and
/// `iolab completions` describe. The workload flags and their help (with
/// `[default: X]`) come from the parameter definitions
/// (`iolab_jobfile::flags`).
pub fn command() -> clap::Command {
    use clap::CommandFactory;
    Cli::command()
}

fn parse() -> Result<Cli, clap::Error> {
    use clap::FromArgMatches;
    let mut cmd = command();
    let m = cmd.try_get_matches_from_mut(std::env::args_os())?;
    Cli::from_arg_matches(&m).map_err(|e| e.format(&mut cmd))
}

pub fn main() -> ExitCode {
    let cli = match parse() {
        Ok(c) => c,
        Err(e) => {
            use clap::error::ErrorKind::*;
            if matches!(
                e.kind(),
                DisplayHelp | DisplayVersion | DisplayHelpOnMissingArgumentOrSubcommand
            ) {
                let _ = e.print();
                return ExitCode::SUCCESS;
            }
            eprintln!("iolab: {}", one_line(&e).trim_start_matches("error: "));
            return ExitCode::from(crate::exit::EXIT_BAD_INPUT);
        }
    };
    match cli.cmd {
        None => crate::run::run_command(RunArgs::default()),
        Some(Cmd::Run(args)) => crate::run::run_command(args),
        Some(Cmd::Doctor(args)) => crate::doctor::run(args),
        Some(Cmd::Qdepth(args)) => crate::qdepth::run(args),
        Some(Cmd::Verify(args)) => crate::verify_cmd::verify_command(args),
        Some(Cmd::Study(args)) => crate::study::run(args),
        Some(Cmd::Report(args)) => crate::report_cmd::run(args),
        Some(Cmd::Compare(args)) => crate::compare_cmd::run(args),
        Some(Cmd::Man(args)) => crate::manual::man(args),
        Some(Cmd::Completions(args)) => crate::manual::completions(args),
    }
}
