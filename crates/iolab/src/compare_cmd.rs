//! `iolab compare BEFORE.json AFTER.json [MORE.json ...]`: runs matched by
//! their parameters, figures side by side with the change in percent.

use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Result documents, the first is the baseline
    #[arg(value_name = "RESULT.json", num_args = 2..)]
    pub results: Vec<PathBuf>,

    /// Also write the comparison as a self-contained HTML report with overlaid curves
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
}

pub fn run(_args: Args) -> ExitCode {
    eprintln!("iolab: compare is not built yet");
    ExitCode::from(crate::cli::EXIT_BAD_INPUT)
}
