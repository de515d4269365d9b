//! `iolab run`: resolve every workload first (bad input fails before any
//! I/O), run them in order, print interval lines and summaries, and keep
//! the result document up to date after every run.

use crate::cli::{RunArgs, EXIT_BAD_INPUT};
use crate::default_job::default_job;
use iolab_engine::{IntervalRaw, Observer};
use iolab_jobfile::{load_job_file, resolve, WorkloadOptions};
use iolab_report::{
    build_run, host_info, interval_record, terminal, write_document, ResultDoc, SCHEMA_VERSION,
};
use iolab_spec::WorkloadSpec;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

struct Term {
    quiet: bool,
    tty: bool,
    header_done: bool,
    run_no: usize,
    runs: usize,
    planned_s: f64,
    dev: Option<crate::devstats::DevRun>,
}

impl Term {
    fn clear_progress(&self) {
        if self.tty {
            eprint!("\r\x1b[K");
        }
    }
}

impl Observer for Term {
    fn started(&mut self, spec: &WorkloadSpec) {
        self.clear_progress();
        println!("{}", terminal::run_heading(spec));
        self.dev = Some(crate::devstats::DevRun::new(spec));
    }

    fn clock_started(&mut self) {
        if let Some(d) = self.dev.as_mut() {
            d.start();
        }
    }

    fn note(&mut self, msg: &str) {
        self.clear_progress();
        eprintln!("iolab: {msg}");
    }

    fn interval(&mut self, spec: &WorkloadSpec, iv: &IntervalRaw) {
        if let Some(d) = self.dev.as_mut() {
            d.interval(iv);
        }
        let rec = interval_record(iv);
        if !self.quiet {
            self.clear_progress();
            if !self.header_done {
                println!("{}", terminal::interval_header());
                self.header_done = true;
            }
            println!("{}", terminal::interval_line(&rec));
            let _ = std::io::stdout().flush();
        }
        if self.tty {
            let left = (self.planned_s - rec.end_s).max(0.0);
            let eta = if spec.duration_s.is_some() {
                format!(", about {left:.0} s left")
            } else {
                String::new()
            };
            eprint!(
                "\r\x1b[K[run {}/{}] {} {:.0} s{}",
                self.run_no, self.runs, spec.name, rec.end_s, eta
            );
        }
    }

    fn prefill(&mut self, path: &str, done: u64, total: u64) {
        if self.tty {
            eprint!(
                "\r\x1b[Kprefilling {path}: {:.0}%",
                done as f64 * 100.0 / total.max(1) as f64
            );
        }
    }
}

fn bad_input(msg: &str) -> ExitCode {
    eprintln!("iolab: {msg}");
    ExitCode::from(EXIT_BAD_INPUT)
}

pub fn run_command(args: RunArgs) -> ExitCode {
    let mut temp_file: Option<PathBuf> = None;
    let mut json_path = args.json.clone();
    if let Some(jf) = &args.jobfile {
        let j = jf.to_string_lossy();
        if (j == "true" || j == "false") && !jf.exists() {
            return bad_input(&format!(
                "'{j}' is not a job file; flags that take true or false need '=' (--direct={j}, --prefill={j}), or use --buffered / --no-prefill"
            ));
        }
    }
    let workloads: Vec<WorkloadOptions> = if let Some(jf) = &args.jobfile {
        let job = match load_job_file(jf) {
            Ok(j) => j,
            Err(e) => return bad_input(&e.0),
        };
        job.workloads()
            .iter()
            .map(|w| w.overlay(&args.opts))
            .collect()
    } else if !args.opts.target.is_empty() {
        vec![args.opts.clone()]
    } else {
        match default_job(&args.opts) {
            Ok((path, mut ws)) => {
                if path.exists() {
                    return bad_input(&format!(
                        "{} already exists; remove it or give --target",
                        path.display()
                    ));
                }
                for w in ws.iter_mut() {
                    w.destroy_data_on.push(path.to_string_lossy().into_owned());
                }
                temp_file = Some(path);
                json_path.get_or_insert_with(|| PathBuf::from("iolab-result.json"));
                ws
            }
            Err(e) => return bad_input(&e),
        }
    };
    let mut specs = Vec::new();
    for (i, w) in workloads.iter().enumerate() {
        match resolve(w, i) {
            Ok(s) => specs.push(s),
            Err(e) => {
                let which = if workloads.len() > 1 {
                    format!("workload {}: ", i + 1)
                } else {
                    String::new()
                };
                return bad_input(&format!("{which}{}", e.0));
            }
        }
    }

    let stop = Arc::new(AtomicBool::new(false));
    for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        // A second Ctrl-C exits at once; the first asks the run to stop and
        // keep what it measured.
        let _ = signal_hook::flag::register_conditional_shutdown(sig, 130, stop.clone());
        let _ = signal_hook::flag::register(sig, stop.clone());
    }

    let mut doc = ResultDoc {
        schema_version: SCHEMA_VERSION,
        tool: "iolab".into(),
        tool_version: env!("CARGO_PKG_VERSION").into(),
        host: host_info(),
        started_at: iolab_report::model_time_now(),
        finished_at: None,
        command: std::env::args().collect(),
        complete: false,
        runs: Vec::new(),
        verify: None,
    };
    let mut findings_log = FindingsLog::new(args.findings_log.clone());
    let save = |doc: &ResultDoc| -> Result<(), String> {
        if let Some(p) = &json_path {
            write_document(p, doc).map_err(|e| format!("cannot write {}: {e}", p.display()))?;
        }
        Ok(())
    };
    let mut term = Term {
        quiet: args.quiet,
        tty: std::io::stderr().is_terminal(),
        header_done: false,
        run_no: 0,
        runs: specs.len(),
        planned_s: 0.0,
        dev: None,
    };
    let mut exit: u8 = 0;
    let n = specs.len();
    for (i, spec) in specs.into_iter().enumerate() {
        if stop.load(Ordering::Relaxed) {
            break;
        }
        term.run_no = i + 1;
        term.header_done = false;
        term.planned_s = spec.warmup_s + spec.duration_s.unwrap_or(0.0);
        let mut spec = spec;
        let raw = match iolab_engine::run_workload(&spec, &mut term, stop.clone()) {
            Err(iolab_engine::RunError::Target(terr))
                if temp_file.is_some() && is_direct_unsupported(&terr) =>
            {
                term.note(
                    "this file system does not support O_DIRECT; the default job runs buffered",
                );
                spec.direct = false;
                iolab_engine::run_workload(&spec, &mut term, stop.clone())
            }
            r => r,
        };
        let raw = match raw {
            Ok(r) => r,
            Err(e) => {
                term.clear_progress();
                eprintln!("iolab: {e}");
                doc.finished_at = Some(iolab_report::model_time_now());
                let _ = save(&doc);
                cleanup(&temp_file);
                return ExitCode::from(EXIT_BAD_INPUT);
            }
        };
        term.clear_progress();
        let mut run = build_run(&raw);
        if let Some(d) = term.dev.take() {
            d.finish(&raw.spec, &mut run);
        }
        println!("{}", terminal::summary(&run));
        if !run.complete || run.errors_total > 0 {
            exit = exit.max(1);
        }
        if let Some(v) = &run.verify {
            if v.findings_total > 0 {
                exit = exit.max(1);
            }
            if let Err(e) = findings_log.append(v, spec.journal.as_deref()) {
                eprintln!("iolab: {e}");
            }
            doc.verify.get_or_insert_with(Default::default).add(v);
        }
        let error_stop = run.errors_total > 0 && !run.complete && !stop.load(Ordering::Relaxed);
        doc.runs.push(run);
        doc.complete = i + 1 == n && doc.runs.iter().all(|r| r.complete);
        if let Err(e) = save(&doc) {
            eprintln!("iolab: {e}");
            exit = exit.max(1);
        }
        if error_stop && i + 1 < n {
            eprintln!(
                "iolab: skipping the remaining {} workload{} after the I/O error (--on-error stop); use --on-error continue to run them anyway",
                n - i - 1,
                if n - i - 1 == 1 { "" } else { "s" }
            );
            break;
        }
    }
    let interrupted = stop.load(Ordering::Relaxed)
        && doc
            .runs
            .iter()
            .any(|r| r.incomplete_reason.as_deref() == Some("interrupted"));
    doc.finished_at = Some(iolab_report::model_time_now());
    if interrupted || doc.runs.len() < n {
        doc.complete = false;
    }
    let _ = save(&doc);
    if let Some(p) = &json_path {
        eprintln!("iolab: results written to {}", p.display());
    }
    if let Some(p) = findings_log.written() {
        eprintln!("iolab: data validation findings logged to {}", p.display());
    }
    cleanup(&temp_file);
    if interrupted || doc.runs.len() < n && exit == 0 {
        return ExitCode::from(130);
    }
    ExitCode::from(exit)
}

fn is_direct_unsupported(e: &iolab_engine::TargetError) -> bool {
    matches!(e, iolab_engine::TargetError::DirectUnsupported { .. })
}

fn cleanup(temp: &Option<PathBuf>) {
    if let Some(p) = temp {
        let _ = std::fs::remove_file(p);
    }
}

/// The findings log: every finding of every run, with its hex window.
/// Written only when there are findings: to `--findings-log FILE`, else
/// `findings.log` in the journal directory, else `iolab-findings.log`.
pub struct FindingsLog {
    path: Option<PathBuf>,
    opened: Option<PathBuf>,
}

impl FindingsLog {
    pub fn new(path: Option<PathBuf>) -> Self {
        FindingsLog { path, opened: None }
    }

    pub fn append(
        &mut self,
        v: &iolab_report::model::VerifyResult,
        journal: Option<&str>,
    ) -> Result<(), String> {
        if v.findings.is_empty() {
            return Ok(());
        }
        let p = self.opened.clone().unwrap_or_else(|| {
            self.path.clone().unwrap_or_else(|| match journal {
                Some(j) => PathBuf::from(j).join("findings.log"),
                None => PathBuf::from("iolab-findings.log"),
            })
        });
        use std::io::Write;
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&p)
            .map_err(|e| format!("cannot write the findings log {}: {e}", p.display()))?;
        let mut text = String::new();
        for fd in &v.findings {
            text.push_str(&terminal::finding_log_entry(fd));
        }
        if v.findings_total > v.findings.len() as u64 {
            text.push_str(&format!(
                "... {} more findings were counted but not recorded\n",
                v.findings_total - v.findings.len() as u64
            ));
        }
        f.write_all(text.as_bytes())
            .map_err(|e| format!("cannot write the findings log {}: {e}", p.display()))?;
        self.opened = Some(p);
        Ok(())
    }

    pub fn written(&self) -> Option<&PathBuf> {
        self.opened.as_ref()
    }
}
