//! The `iolab` binary: parse arguments, build the workloads, run them, hand
//! the results to the exporters. Nothing else lives here.

mod cli;
mod compare_cmd;
mod default_job;
mod devstats;
mod doctor;
mod exit;
mod fio_cmd;
mod fio_out;
mod fio_text;
mod iozone_cmd;
mod live;
mod manual;
mod mark_cmd;
mod marks;
mod monitor;
mod outputs;
mod qdepth;
mod report_cmd;
mod run;
mod study;
mod targets;
mod verify_cmd;
mod workload_args;

use std::process::ExitCode;

fn main() -> ExitCode {
    cli::main()
}
