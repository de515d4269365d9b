//! `iolab doctor`: read-only report of the devices under the targets (all
//! devices when none is named), with findings that cite their reasons.
//! The work is in iolab-devices; this parses flags and writes output.

use crate::exit::bad_input;
use iolab_devices::{doctor, render_text, runner_for, Sysroot};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args, Debug, Default)]
pub struct Args {
    /// Files, directories or block devices to look under; all block devices when none is given
    #[arg(value_name = "TARGET")]
    pub targets: Vec<String>,

    /// Read sysfs and /proc under this directory instead of / (captured trees; commands are read from DIR/commands)
    #[arg(long, value_name = "DIR", default_value = "/")]
    pub sysroot: PathBuf,

    /// Also write the report as a JSON document (docs/doctor.md) to FILE
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,

    /// Let --json replace an existing file that iolab did not write (never a block device; see docs/results.md)
    #[arg(long)]
    pub force: bool,
}

pub fn run(args: Args) -> ExitCode {
    if !args.sysroot.is_dir() {
        return bad_input(&format!(
            "--sysroot {}: not a directory; give the root of a captured sysfs and /proc tree, or leave it out for /",
            args.sysroot.display()
        ));
    }
    let out = match &args.json {
        Some(p) => match iolab_target::check_output(
            "--json",
            p,
            iolab_target::OutputKind::DoctorJson,
            &iolab_target::OutputRules::new(args.force),
        ) {
            Ok(o) => Some(o),
            Err(e) => return crate::outputs::refused(&e),
        },
        None => None,
    };
    let root = Sysroot::new(&args.sysroot);
    let runner = runner_for(&root);
    let report = doctor(&root, runner.as_ref(), &args.targets);
    out!("{}", render_text(&report));
    if let Some(out) = &out {
        let mut text = match serde_json::to_string_pretty(&report) {
            Ok(t) => t,
            Err(e) => return bad_input(&format!("could not encode the report: {e}")),
        };
        text.push('\n');
        if let Err(e) = out.write_bytes(text.as_bytes()) {
            return bad_input(&e.0);
        }
    }
    ExitCode::SUCCESS
}
