//! The `iolab` binary: parse arguments, build the workloads, run them, hand
//! the results to the exporters. Nothing else lives here.

/// `println!` for iolab's own output, which never panics on a closed
/// stdout (`iolab fio ... | head`): Rust ignores SIGPIPE, so the write
/// fails with EPIPE, and a run must go on to keep its result document,
/// outputs and clean-up. What was not printed is in the document.
macro_rules! outln {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout(), $($t)*);
    }};
}

/// `print!` for iolab's own output; see [`outln!`].
macro_rules! out {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        let _ = write!(std::io::stdout(), $($t)*);
    }};
}

mod agent;
mod anchor_trees;
mod cli;
mod compare_cmd;
mod curves;
mod default_job;
mod devstats;
mod doctor;
mod exit;
mod fileset_progress;
mod fio_cmd;
mod fio_out;
mod fio_text;
mod iozone_cmd;
mod live;
mod manual;
mod mark_cmd;
mod marks;
mod monitor;
mod multi;
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
