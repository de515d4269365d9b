//! `iolab study NAME --target ...`: named studies (docs/studies.md).

use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// bs-ladder, qd-ladder, corners, streams or iozone
    #[arg(value_name = "NAME")]
    pub name: String,
}

pub fn run(_args: Args) -> ExitCode {
    eprintln!("iolab: study is not built yet");
    ExitCode::from(crate::cli::EXIT_BAD_INPUT)
}
