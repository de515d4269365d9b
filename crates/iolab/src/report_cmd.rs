//! `iolab report RESULT.json -o report.html`: one self-contained HTML file,
//! or the tables as Markdown or CSV (`--format md|csv`).

use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// A result document written by iolab run --json or iolab study
    #[arg(value_name = "RESULT.json")]
    pub result: PathBuf,

    /// Write the report here (default: standard output)
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,

    /// html (default), md or csv
    #[arg(long, value_name = "FORMAT", default_value = "html")]
    pub format: String,
}

pub fn run(_args: Args) -> ExitCode {
    eprintln!("iolab: report is not built yet");
    ExitCode::from(crate::cli::EXIT_BAD_INPUT)
}
