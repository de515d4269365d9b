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
    /// Run workloads from flags, an iolab (TOML) job file (docs/jobfile.md) or a fio job file (docs/fio.md); with no target, the default job
    // Negative numbers are values (`--qd -3` is told its minimum), not flags.
    #[command(allow_negative_numbers = true, after_help = RUN_AFTER_HELP)]
    Run(RunArgs),
    /// Run fio's command line (`--name=a --rw=randread --bs=4k ... [job files]`); fio's JSON with --output-format=json (docs/fio.md)
    #[command(disable_help_flag = true, after_help = crate::fio_cmd::AFTER_HELP)]
    Fio(crate::fio_cmd::Args),
    /// Report the devices under the targets (all when none): configuration, partitions, multipath, FC, NVMe, ZFS, and advice (docs/doctor.md)
    Doctor(crate::doctor::Args),
    /// Per-LUN host queue depth for a target port, with the arithmetic and how to set it
    Qdepth(crate::qdepth::Args),
    /// Read targets written with --verify and check every block (against the journal with --journal), e.g. after a crash (docs/validation.md)
    Verify(crate::verify_cmd::VerifyArgs),
    /// Run a named study: bs-ladder, qd-ladder, corners, streams, iozone (docs/studies.md)
    #[command(allow_negative_numbers = true)]
    Study(crate::study::Args),
    /// Run iozone's command line (`iolab iozone -a -i 0 -i 1 -f FILE`) as the iozone study, printing iozone's table (docs/iozone.md)
    #[command(disable_help_flag = true, after_help = iolab_plan::study::iozone_cli::USAGE)]
    Iozone(crate::iozone_cmd::Args),
    /// Turn a result document into one self-contained HTML report, or its tables as Markdown or CSV
    Report(crate::report_cmd::Args),
    /// Compare result documents run by run (before/after tuning), with the change in percent
    Compare(crate::compare_cmd::Args),
    /// Watch block devices as iostat -x does, one line per device per interval, with marked events; --json keeps a result document (docs/monitor.md)
    Monitor(crate::monitor::Args),
    /// Mark an event ("controller A failed") in the running iolab run or monitor (docs/monitor.md)
    Mark(crate::mark_cmd::Args),
    /// Print the manual page (roff): `iolab man > iolab.1`, or read it with `iolab man | man -l -`
    Man(crate::manual::ManArgs),
    /// Print shell completions: `source <(iolab completions bash)`; zsh and fish alike
    Completions(crate::manual::CompletionsArgs),
    /// Serve a multi-host controller on stdin and stdout (started by `iolab run --hosts` over ssh; docs/multi-host.md)
    Agent(crate::agent::Args),
}

/// `iolab run --help`: the syntax of concurrent workloads
/// (crate::workload_args).
const RUN_AFTER_HELP: &str = "Several workloads at once:

  iolab run [OPTIONS] --workload NAME [ITS OPTIONS] --workload NAME [ITS OPTIONS] ...

Options before the first --workload are the run's and the defaults of every workload: \
the run's own are its name (--name), its clock (--duration, --warmup, --interval), \
its total rate (--rate) that the workloads share by --skew, and the plan and output \
options (which may also come last). The options after --workload NAME, up to the next \
--workload, are that workload's own, including --start-delay TIME (start that long \
after the run) and --skew PCT (its share of the run's --rate). A workload without \
its own --duration, --io-size or --ops runs until the run ends. With a job file, \
[[run]] tables say the same (docs/jobfile.md).

  iolab run --target /dev/sdX --duration 60s --rate 10000 \\
    --workload db --rw randrw --bs 8k --qd 32 --skew 95 \\
    --workload backup --target /dev/sdY --rw read --bs 256k --start-delay 30s

Files instead of a target (docs/filesystem.md): --dir DIR with a filebench \
personality, a weighted --mix or --flow steps:

  iolab run --personality fileserver --dir /mnt/pool/fb --files 50000 --jobs 16
  iolab run --dir /mnt/test/fs1 --mix read:60,write:20,stat:10,create:5,delete:5 --ops 10000";

#[derive(clap::Args, Debug, Default)]
pub struct RunArgs {
    /// A job file: iolab's TOML ([global] defaults and [[workload]] entries run in order, or [[run]] tables whose [[run.workload]] entries run together), fio's INI, a vdbench parameter file or a filebench WML file, told apart by content; flags override it
    #[arg(value_name = "JOBFILE")]
    pub jobfile: Option<PathBuf>,

    /// After a fio, vdbench or filebench job file: fill ${NAME} (vdbench and filebench: $NAME) with VALUE; a pair no job uses is mentioned, not an error
    #[arg(value_name = "NAME=VALUE")]
    pub vars: Vec<String>,

    /// The job file's language, instead of telling it by content: iolab (TOML), fio, vdbench or filebench
    #[arg(
        long,
        value_name = "FORMAT",
        requires = "jobfile",
        help_heading = "Job file"
    )]
    pub input_format: Option<String>,

    /// Run a fio job even when it has options iolab cannot honour: they are listed and passed over instead of stopping the job
    #[arg(long, requires = "jobfile", help_heading = "Job file")]
    pub ignore_unsupported: bool,

    /// vdbench's own flags for a vdbench parameter file, in one string: -v (validate), -vr, -vw, -j, -jr, -jn, ... (docs/vdbench.md)
    #[arg(
        long,
        value_name = "FLAGS",
        requires = "jobfile",
        allow_hyphen_values = true,
        help_heading = "Job file"
    )]
    pub vdbench_flags: Option<String>,

    /// Read and resolve the job (any format) and print the plan, touching and checking no target or output; exit 0, or 2 with what is wrong
    #[arg(long, help_heading = "Plan")]
    pub parse_only: bool,

    #[command(flatten)]
    pub opts: WorkloadOptions,

    #[command(flatten)]
    pub plan: iolab_plan::PlanArgs,

    /// Start a workload that runs together with the others; the options after it, up to the next --workload, are its own (see "Several workloads at once" below)
    #[arg(
        long = "workload",
        value_name = "NAME",
        help_heading = "Concurrent workloads"
    )]
    pub workload: Vec<String>,

    /// Each `--workload`'s own options (crate::workload_args).
    #[arg(skip)]
    pub workload_opts: Vec<iolab_jobfile::WorkloadOptions>,

    /// Write the result document (docs/results.md) here; kept up to date while runs go (every 10 s)
    #[arg(long, value_name = "FILE", help_heading = "Output")]
    pub json: Option<PathBuf>,

    /// Also write the results as fio 3.x writes its JSON (--output-format=json), for tools that read fio's output; fio's log files (write_bw_log, ...) are written where a fio job asks for them
    #[arg(long, value_name = "FILE", help_heading = "Output")]
    pub fio_json: Option<PathBuf>,

    /// With --fio-json: fio's json+ (the latency bins too)
    #[arg(long, requires = "fio_json", help_heading = "Output")]
    pub fio_json_plus: bool,

    /// Print the run as another tool does: vdbench's interval and average lines, or filebench's Per-Operation Breakdown and IO Summary (docs/report.md)
    #[arg(
        long,
        value_enum,
        value_name = "STYLE",
        default_value = "iolab",
        help_heading = "Output"
    )]
    pub style: OutputStyle,

    /// No interval lines, only the summary
    #[arg(long, short = 'q', help_heading = "Output")]
    pub quiet: bool,

    /// Log data validation findings here (default: findings.log in the journal directory, else iolab-findings.log; written only when there are findings)
    #[arg(long, value_name = "FILE", help_heading = "Output")]
    pub findings_log: Option<PathBuf>,

    /// Let --json, --fio-json, fio's log files or --findings-log replace an existing file that iolab did not write (never a block device or a target of the run; see docs/results.md)
    #[arg(long, help_heading = "Output")]
    pub force: bool,

    #[command(flatten)]
    pub remote: RemoteArgs,
}

/// The hosts of a multi-host run and how their agents are reached
/// (docs/multi-host.md).
#[derive(clap::Args, Debug, Clone)]
pub struct RemoteArgs {
    /// Run on these hosts at once, each through `iolab agent --stdio` over ssh (names, ssh aliases or [USER@]HOST[:PORT], comma-separated); a target HOST:PATH is that host's only, one without HOST: is the same path on every host
    #[arg(
        long,
        value_name = "HOST,...",
        value_delimiter = ',',
        help_heading = "Hosts"
    )]
    pub hosts: Vec<String>,

    /// Read the hosts from FILE: one a line, `[USER@]HOST[:PORT] [PATH...] [start_delay=TIME]` with the host's own targets and start delay after it; # comments
    #[arg(long, value_name = "FILE", help_heading = "Hosts")]
    pub hosts_file: Option<PathBuf>,

    /// Start the agents with this command instead of ssh: {host} is replaced by the host, {user} and {port} by its USER@ and :PORT, the agent's command follows as arguments (e.g. 'kubectl exec -i {host} --', 'ssh -J jump -p {port} {user}@{host}')
    #[arg(long, value_name = "CMD {host}", help_heading = "Hosts")]
    pub remote_shell: Option<String>,

    /// The agent's binary on the hosts (default: iolab from the remote PATH)
    #[arg(long, value_name = "PATH", help_heading = "Hosts")]
    pub agent_path: Option<String>,

    /// Copy this iolab to a private temporary path on each host (same architecture only) and remove it after the run
    #[arg(long, help_heading = "Hosts")]
    pub push: bool,

    /// ssh's configuration file instead of ~/.ssh/config (ssh -F FILE)
    #[arg(long, value_name = "FILE", help_heading = "Hosts")]
    pub ssh_config: Option<PathBuf>,

    /// An ssh option (ssh -o OPTION), e.g. 'ConnectTimeout=5'; repeat for more
    #[arg(long, value_name = "OPTION", help_heading = "Hosts")]
    pub ssh_option: Vec<String>,

    /// When a host stops answering: stop the other hosts too, or let them go on; what every host measured is kept either way
    #[arg(
        long,
        value_enum,
        value_name = "WHAT",
        default_value = "stop",
        help_heading = "Hosts"
    )]
    pub on_host_loss: OnHostLoss,

    /// A host that sends nothing (not even a heartbeat) for this long is lost
    #[arg(long, value_name = "TIME", default_value = "10s", value_parser = parse_time, help_heading = "Hosts")]
    pub host_timeout: std::time::Duration,
}

impl Default for RemoteArgs {
    fn default() -> Self {
        RemoteArgs {
            hosts: Vec::new(),
            hosts_file: None,
            remote_shell: None,
            agent_path: None,
            push: false,
            ssh_config: None,
            ssh_option: Vec::new(),
            on_host_loss: OnHostLoss::Stop,
            host_timeout: std::time::Duration::from_secs(10),
        }
    }
}

/// `--on-host-loss`.
#[derive(clap::ValueEnum, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum OnHostLoss {
    #[default]
    Stop,
    Continue,
}

fn parse_time(s: &str) -> Result<std::time::Duration, String> {
    iolab_spec::parse_duration(s).map_err(|e| e.to_string())
}

/// `iolab run --style`: the layout of the terminal output.
#[derive(clap::ValueEnum, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum OutputStyle {
    // No doc comments here: clap would list the values one a line and
    // turn every flag's help into the long layout.
    #[default]
    Iolab,
    Vdbench,
    Filebench,
}

impl From<OutputStyle> for iolab_report::style::Style {
    fn from(s: OutputStyle) -> Self {
        use iolab_report::style::Style;
        match s {
            OutputStyle::Iolab => Style::Iolab,
            OutputStyle::Vdbench => Style::Vdbench,
            OutputStyle::Filebench => Style::Filebench,
        }
    }
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
    // `iolab run ... --workload NAME ...`: split before clap.
    let (argv, workloads) = crate::workload_args::split(std::env::args_os().collect())?;
    let mut cmd = command();
    let m = cmd.try_get_matches_from_mut(argv)?;
    let mut cli = Cli::from_arg_matches(&m).map_err(|e| e.format(&mut cmd))?;
    crate::workload_args::attach(&mut cli, workloads)?;
    Ok(cli)
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
        Some(Cmd::Fio(args)) => crate::fio_cmd::run(args),
        Some(Cmd::Doctor(args)) => crate::doctor::run(args),
        Some(Cmd::Qdepth(args)) => crate::qdepth::run(args),
        Some(Cmd::Verify(args)) => crate::verify_cmd::verify_command(args),
        Some(Cmd::Study(args)) => crate::study::run(args),
        Some(Cmd::Iozone(args)) => crate::iozone_cmd::run(args),
        Some(Cmd::Report(args)) => crate::report_cmd::run(args),
        Some(Cmd::Compare(args)) => crate::compare_cmd::run(args),
        Some(Cmd::Monitor(args)) => crate::monitor::run(args),
        Some(Cmd::Mark(args)) => crate::mark_cmd::run(args),
        Some(Cmd::Man(args)) => crate::manual::man(args),
        Some(Cmd::Completions(args)) => crate::manual::completions(args),
        Some(Cmd::Agent(args)) => crate::agent::run(args),
    }
}
