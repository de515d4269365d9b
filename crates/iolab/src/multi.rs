//! `iolab run --hosts`: one run on several hosts (docs/multi-host.md).
//! The controller plans each host's runs (its own targets), connects an
//! agent on every host, starts each run on all of them at one instant,
//! prints a line per host and a total per interval, and records one
//! document: every host's record in `hosts[]`, their merge as the run's.

mod connect;
mod exchange;
mod plan;
mod session;

use crate::cli::RemoteArgs;
use crate::cli::RunArgs;
use crate::exit::bad_input;
use iolab_jobfile::RunOptions;
use iolab_spec::HostSpec;
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

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

/// Run `runs` on `hosts`: plan every host's runs, check the local
/// outputs, connect the agents, run the plan, finish the document.
pub fn run(
    args: RunArgs,
    runs: Vec<RunOptions>,
    notes: Vec<String>,
    hosts: Vec<HostSpec>,
    fio: Option<crate::fio_out::FioOut>,
) -> ExitCode {
    let runs = match without_default_job(runs, &hosts, &args) {
        Ok(r) => r,
        Err(e) => return bad_input(&e),
    };
    let plans = match plan::plan_hosts(&runs, &hosts, &args.plan) {
        Ok(p) => p,
        Err(e) => return bad_input(&e),
    };
    for n in &notes {
        outln!("{n}");
    }
    let out = crate::run::Output {
        json: args.json.clone(),
        quiet: args.quiet,
        findings_log: args.findings_log.clone(),
        temp_file: None,
        force: args.force,
        silent: false,
        fio,
        style: args.style.into(),
    };
    // Every host's targets are protected from the local outputs (a run
    // on this host among them would write there).
    let mut all = plans[0].clone();
    all.runs = plans.iter().flat_map(|p| p.runs.clone()).collect();
    let checked = match crate::outputs::check_run(&all, &out) {
        Ok(c) => c,
        Err(e) => return crate::outputs::refused(&e),
    };
    if args.plan.dry_run {
        out!("{}", iolab_plan::dry_run_text(&plans[0]));
        outln!("{}", iolab_jobfile::hosts::describe(&hosts, &runs));
        outln!("(each host checks its own targets when the run starts)");
        return ExitCode::SUCCESS;
    }
    let stop = signals();
    let mut fleet = match connect::connect(&hosts, &args.remote) {
        Ok(f) => f,
        Err(e) => return bad_input(&e),
    };
    let mut s = match session(&args, &plans[0], out, checked, &hosts, stop) {
        Ok(s) => s,
        Err(e) => {
            for note in fleet.close() {
                eprintln!("iolab: {note}");
            }
            return bad_input(&e);
        }
    };
    if s.sweep && !s.out.quiet {
        outln!("plan: {}", iolab_plan::describe(&plans[0]));
    }
    let cut = s.run_plan(&mut fleet, &plans);
    s.finish(fleet, cut)
}

/// The runs, unless they are the default job's (no target, job file or
/// `--workload`), which writes a file in the current directory: on the
/// hosts that would be wherever the channel starts the agent. With the
/// hosts' own targets (a host file's paths), the command line's flags
/// run on them instead; without, a line saying what to give.
fn without_default_job(
    runs: Vec<RunOptions>,
    hosts: &[HostSpec],
    args: &RunArgs,
) -> Result<Vec<RunOptions>, String> {
    let mark = format!(".iolab-default-{}.tmp", std::process::id());
    let default = (runs.iter())
        .flat_map(|r| std::iter::once(&r.run).chain(&r.workloads))
        .any(|w| w.target.iter().any(|t| t.ends_with(&mark)));
    if !default {
        return Ok(runs);
    }
    if hosts.iter().any(|h| !h.targets.is_empty()) {
        return Ok(vec![RunOptions::single(0, args.opts.clone())]);
    }
    Err("a run on several hosts needs its targets: give --target [HOST:]PATH, a host file with each host's paths, or a job file (the default job runs on this host only)".into())
}

/// SIGINT and SIGTERM: the first stops the run (every agent stopped,
/// everything measured kept), a second exits at once.
fn signals() -> Arc<AtomicBool> {
    let stop = Arc::new(AtomicBool::new(false));
    for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        let _ = signal_hook::flag::register_conditional_shutdown(sig, 130, stop.clone());
        let _ = signal_hook::flag::register(sig, stop.clone());
    }
    stop
}

/// The session's document, live copy and settings.
fn session(
    args: &RunArgs,
    plan: &iolab_plan::Plan,
    out: crate::run::Output,
    checked: crate::outputs::Checked,
    hosts: &[HostSpec],
    stop: Arc<AtomicBool>,
) -> Result<session::Session, String> {
    let mut doc = iolab_report::ResultDoc::new();
    let sweep = plan.is_sweep();
    if sweep {
        doc.plan = Some(plan.info.clone());
    }
    let stream = checked.json.as_ref().is_some_and(|o| o.is_stream());
    let live = crate::live::LiveDoc::new(checked.json.as_ref().filter(|_| !stream))?;
    let findings_log = crate::run::FindingsLog::new(out.findings_log.clone(), out.force);
    Ok(session::Session {
        doc,
        live,
        checked,
        stream,
        out,
        findings_log,
        stop,
        names: hosts.iter().map(|h| h.name.clone()).collect(),
        said_lost: vec![false; hosts.len()],
        on_loss: args.remote.on_host_loss,
        timeout: args.remote.host_timeout,
        sweep,
        curves: hosts.iter().map(|_| Default::default()).collect(),
        repeats: plan.info.repeat,
        exit: 0,
    })
}
