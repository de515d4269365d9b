//! `iolab agent --stdio`: the host side of a multi-host run
//! (docs/multi-host.md). Started by the controller through ssh or a
//! remote shell, it speaks `iolab_remote::proto` on stdin and stdout and
//! runs what the controller sends on this host, under this host's safety
//! rules.

use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Speak the protocol on stdin and stdout (the only mode)
    #[arg(long, required = true)]
    pub stdio: bool,
}

pub fn run(_args: Args) -> ExitCode {
    eprintln!("iolab: the agent is not built yet");
    ExitCode::from(crate::exit::EXIT_BAD_INPUT)
}
