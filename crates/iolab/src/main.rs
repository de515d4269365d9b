//! The `iolab` binary: parse arguments, build the workloads, run them, hand
//! the results to the exporters. Nothing else lives here.

mod cli;
mod default_job;
mod devstats;
mod doctor;
mod qdepth;
mod run;
mod verify_cmd;

use std::process::ExitCode;

fn main() -> ExitCode {
    cli::main()
}
