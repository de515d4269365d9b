//! `iolab run --hosts`: one run on several hosts (docs/multi-host.md).
//! The controller plans each host's runs (its own targets), connects an
//! agent on every host, starts each run on all of them at one instant,
//! prints a line per host and a total per interval, and records one
//! document: every host's record in `hosts[]`, their merge as the run's.

use crate::cli::RemoteArgs;
use crate::cli::RunArgs;
use iolab_jobfile::RunOptions;
use iolab_spec::HostSpec;
use std::process::ExitCode;

/// The run's hosts: `--hosts` and `--hosts-file` (together, in that
/// order), else the job file's; empty for a run on this host alone.
pub fn hosts_of(remote: &RemoteArgs, from_job: &[HostSpec]) -> Result<Vec<HostSpec>, String> {
    let mut hosts = Vec::new();
    for h in &remote.hosts {
        iolab_spec::hosts::add_host(&mut hosts, iolab_spec::hosts::parse_host(h)?)?;
    }
    if let Some(f) = &remote.hosts_file {
        let text = read_hosts_file(f)?;
        let listed = iolab_spec::hosts::parse_hosts_file(&text)
            .map_err(|e| format!("--hosts-file {}: {e}", f.display()))?;
        for h in listed {
            iolab_spec::hosts::add_host(&mut hosts, h)?;
        }
    }
    if hosts.is_empty() {
        hosts = from_job.to_vec();
    }
    Ok(hosts)
}

/// A host file's text: at most 1 MiB of UTF-8.
fn read_hosts_file(f: &std::path::Path) -> Result<String, String> {
    use std::io::Read;
    const MAX: u64 = 1 << 20;
    let file = std::fs::File::open(f)
        .map_err(|e| format!("--hosts-file {}: {e}; give a readable file", f.display()))?;
    let mut bytes = Vec::new();
    file.take(MAX + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("--hosts-file {}: {e}", f.display()))?;
    if bytes.len() as u64 > MAX {
        return Err(format!(
            "--hosts-file {} is larger than 1 MiB; a host file lists one host a line",
            f.display()
        ));
    }
    String::from_utf8(bytes)
        .map_err(|_| format!("--hosts-file {} is not text (UTF-8)", f.display()))
}

/// Run `runs` on `hosts`.
pub fn run(
    _args: RunArgs,
    _runs: Vec<RunOptions>,
    _notes: Vec<String>,
    _hosts: Vec<HostSpec>,
    _fio: Option<crate::fio_out::FioOut>,
) -> ExitCode {
    eprintln!("iolab: multi-host runs are not built yet");
    ExitCode::from(crate::exit::EXIT_BAD_INPUT)
}
