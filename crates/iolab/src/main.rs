//! The `iolab` binary: parse arguments, build the workloads, run them, hand
//! the results to the exporters. Nothing else lives here.

mod cli;
mod default_job;
mod run;

use std::process::ExitCode;

fn main() -> ExitCode {
    cli::main()
}
