//! `iolab agent --stdio`: the host side of a multi-host run
//! (docs/multi-host.md, "The protocol"). Started by the controller through
//! ssh or a remote shell, it speaks `iolab_remote::proto` on stdin and
//! stdout and runs what the controller sends on this host, under this
//! host's safety rules.
//!
//! - [`wire`]: stdout kept for the frames alone, the one writer every
//!   thread sends through, the reader thread (which answers pings itself);
//! - [`session`]: the hello, the sequence of messages, heartbeats and the
//!   controller's silence, the way out;
//! - [`runner`]: one run on its own thread, its target checks, the start
//!   gate and the observer that forwards the run to the controller.

mod runner;
mod session;
mod wire;

use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Speak the protocol on stdin and stdout (the only mode)
    #[arg(long, required = true)]
    pub stdio: bool,
}

pub fn run(_args: Args) -> ExitCode {
    let out = match wire::protect_stdout() {
        Ok(f) => f,
        Err(e) => {
            eprintln!("iolab agent: cannot keep stdout for the protocol: {e}");
            return ExitCode::from(crate::exit::EXIT_BAD_INPUT);
        }
    };
    ExitCode::from(session::serve(out, std::io::stdin()))
}
