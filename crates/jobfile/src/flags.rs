//! The command-line flags of the workload parameters, built from their
//! definitions (`iolab_spec::params::PARAMS`): name, aliases, value type,
//! help with `[default: X]` appended, section. `WorkloadOptions` is a clap
//! `Args` through this module, so `#[command(flatten)]` works as with a
//! derived struct.
//!
//! The flags stay optional (an absent flag must not override a job file),
//! so clap's own `default_value` cannot be used: the default is shown in
//! the help only, and `resolve` applies it (a test in `defaults.rs` checks
//! that the two agree).

use crate::options::{Values, WorkloadOptions};
use clap::{Arg, ArgAction, ArgMatches, Command, FromArgMatches};
use iolab_spec::params::{Kind, Param, PARAMS};

/// The flag of one parameter.
pub fn arg(p: &Param) -> Arg {
    let help = match p.help_suffix() {
        Some(d) => format!("{} {d}", p.help),
        None => p.help.to_string(),
    };
    let mut a = Arg::new(p.name)
        .long(p.flag)
        .help(help)
        .help_heading(p.heading);
    if let Some(s) = p.short {
        a = a.short(s);
    }
    for alias in p.alias_flags() {
        a = a.alias(alias);
    }
    if p.kind != Kind::Switch {
        a = a.value_name(p.value_name).action(ArgAction::Set);
    }
    if p.value_after_equals() {
        // `--direct` alone is `--direct=true`; `--direct false` would take
        // `false` as the job file, so only `=` gives a value.
        a = a
            .num_args(0..=1)
            .require_equals(true)
            .default_missing_value("true");
    }
    match p.kind {
        Kind::Values | Kind::ValuesEq => a.value_parser(Values::parse_arg),
        Kind::ValuesSemi => a.value_parser(Values::parse_arg_semi),
        Kind::Text | Kind::TextOrNumber => a.value_parser(clap::value_parser!(String)),
        Kind::Bool => a.value_parser(clap::value_parser!(bool)),
        Kind::Uint => a.value_parser(clap::value_parser!(u64)),
        Kind::Paths => a
            .value_parser(clap::value_parser!(String))
            .action(ArgAction::Append)
            .value_hint(clap::ValueHint::AnyPath),
        Kind::Switch => a.action(ArgAction::SetTrue),
    }
}

impl clap::Args for WorkloadOptions {
    fn augment_args(cmd: Command) -> Command {
        PARAMS.iter().fold(cmd, |cmd, p| cmd.arg(arg(p)))
    }

    fn augment_args_for_update(cmd: Command) -> Command {
        Self::augment_args(cmd)
    }
}

impl FromArgMatches for WorkloadOptions {
    fn from_arg_matches(m: &ArgMatches) -> Result<Self, clap::Error> {
        let mut o = WorkloadOptions::default();
        o.update_from_matches(m);
        Ok(o)
    }

    fn update_from_arg_matches(&mut self, m: &ArgMatches) -> Result<(), clap::Error> {
        self.update_from_matches(m);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Flags {
        #[command(flatten)]
        o: WorkloadOptions,
    }

    fn parse(args: &[&str]) -> WorkloadOptions {
        let mut argv = vec!["t"];
        argv.extend_from_slice(args);
        Flags::try_parse_from(argv).unwrap().o
    }

    #[test]
    fn every_kind_of_flag_reaches_its_field() {
        let o = parse(&[
            "-t",
            "/a",
            "--targets",
            "/b",
            "--iodepth",
            "8",
            "--bs",
            "4k,8k",
            "--direct",
            "--verify=false",
            "--seed",
            "7",
            "--cpus-allowed",
            "0-1",
            "--buffered",
            "--skew",
            "25",
            "--startdelay",
            "1s",
        ]);
        assert_eq!(o.target, vec!["/a".to_string(), "/b".into()]);
        assert_eq!(o.qd, Some("8".into()));
        assert_eq!(o.bs, Some(Values(vec!["4k".into(), "8k".into()])));
        assert_eq!(o.direct, Some("true".into()));
        assert_eq!(o.verify, Some(false));
        assert_eq!(o.seed, Some(7));
        assert_eq!(o.cpus.as_deref(), Some("0-1"));
        assert!(o.buffered && !o.no_prefill);
        assert_eq!(o.start_delay, Some("1s".into()), "through its fio alias");
        assert_eq!(o.skew, Some("25".into()));
        assert!(parse(&[]).is_empty());
    }

    #[test]
    fn the_help_line_carries_the_default() {
        let cmd = Flags::command_for_test();
        let qd = cmd.get_arguments().find(|a| a.get_id() == "qd").unwrap();
        assert_eq!(
            qd.get_help().unwrap().to_string(),
            "Outstanding I/Os per worker [default: 1]"
        );
        let target = cmd
            .get_arguments()
            .find(|a| a.get_id() == "target")
            .unwrap();
        assert!(!target.get_help().unwrap().to_string().contains("default"));
    }

    impl Flags {
        fn command_for_test() -> Command {
            <Flags as clap::CommandFactory>::command()
        }
    }
}
