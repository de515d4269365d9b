//! `iolab man` and `iolab completions`: the manual page (clap_mangen) and
//! the shell completions (clap_complete), both made from the command line
//! itself (`cli::command()`), so every flag, its help and its default (from
//! the parameter definitions in `iolab_spec::params`) appear as
//! `--help` shows them.

use crate::exit::EXIT_BAD_INPUT;
use std::io::Write;
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct ManArgs {
    /// Only the page of this command (run, study, ...); without it, iolab(1) and the page of every command
    #[arg(value_name = "COMMAND")]
    pub command: Option<String>,
}

/// The shells `iolab completions` writes for.
#[derive(clap::ValueEnum, Clone, Copy, Debug)]
pub enum Shell {
    Bash,
    Zsh,
    Fish,
}

#[derive(clap::Args, Debug)]
pub struct CompletionsArgs {
    /// bash, zsh or fish, e.g. `source <(iolab completions bash)`
    #[arg(value_name = "SHELL")]
    pub shell: Shell,
}

/// Write `bytes` to stdout; a closed pipe (`iolab man | head`) is not an
/// error worth a message.
fn emit(bytes: &[u8]) -> ExitCode {
    let mut out = std::io::stdout().lock();
    match out.write_all(bytes).and_then(|_| out.flush()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("iolab: cannot write to standard output: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The roff source of iolab(1) followed by iolab-COMMAND(1) for every
/// command (`man -l` shows them one after the other), or of one command.
pub fn man_page(only: Option<&str>) -> Result<Vec<u8>, String> {
    let mut cmd = crate::cli::command().disable_help_subcommand(true);
    cmd.build();
    let mut pages = Vec::new();
    if only.is_none() {
        pages.push(cmd.clone());
    }
    for sub in cmd.get_subcommands() {
        if only.is_none_or(|o| o == sub.get_name()) {
            pages.push(sub.clone());
        }
    }
    if pages.is_empty() {
        let names: Vec<&str> = cmd.get_subcommands().map(|s| s.get_name()).collect();
        return Err(format!(
            "no command '{}'; give one of {} or none for every page",
            only.unwrap_or_default(),
            names.join(", ")
        ));
    }
    let mut out = Vec::new();
    for page in pages {
        let man = clap_mangen::Man::new(page);
        man.render(&mut out).map_err(|e| e.to_string())?;
    }
    Ok(out)
}

pub fn man(args: ManArgs) -> ExitCode {
    match man_page(args.command.as_deref()) {
        Ok(page) => emit(&page),
        Err(e) => {
            eprintln!("iolab man: {e}");
            ExitCode::from(EXIT_BAD_INPUT)
        }
    }
}

pub fn completions(args: CompletionsArgs) -> ExitCode {
    use clap_complete::Shell as S;
    let shell = match args.shell {
        Shell::Bash => S::Bash,
        Shell::Zsh => S::Zsh,
        Shell::Fish => S::Fish,
    };
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut crate::cli::command(), "iolab", &mut out);
    emit(&out)
}
