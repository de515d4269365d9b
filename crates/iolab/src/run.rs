//! `iolab run`: resolve every workload first (bad input fails before any
//! I/O), run them in order, print interval lines and summaries, and keep
//! the result document up to date during and after every run (crate::live
//! keeps it while a run is in progress).

use crate::cli::RunArgs;
use crate::default_job::default_job;
use crate::exit::{bad_input, EXIT_BAD_INPUT};
use iolab_core::{EventLog, Observer};
use iolab_engine::{IntervalRaw, RunRaw};
use iolab_jobfile::frontend::Loaded;
use iolab_jobfile::RunOptions;
use iolab_raw::EventRaw;
use iolab_report::model::Interval;
use iolab_report::style::{self, LocalTime, Style, Styled};
use iolab_report::{build_run, interval_record, save_document, terminal, ResultDoc};
use iolab_spec::RunSpec;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

struct Term {
    quiet: bool,
    /// Nothing of iolab's own on stdout (`Output::silent`).
    silent: bool,
    tty: bool,
    header_done: bool,
    run_no: usize,
    runs: usize,
    planned_s: Option<f64>,
    /// The document kept up to date while a run is in progress.
    live: Option<crate::live::LiveDoc>,
    /// Another tool's layout (`--style`) instead of iolab's lines.
    style: Option<Box<dyn Styled>>,
}

impl Term {
    fn clear_progress(&self) {
        if self.tty {
            eprint!("\r\x1b[K");
        }
    }

    /// Print `--style`'s lines for an interval; false with iolab's own
    /// style (nothing printed).
    fn styled_interval(&mut self, rec: &Interval) -> bool {
        let Some(st) = self.style.as_mut() else {
            return false;
        };
        let lines = st.interval(rec, &LocalTime::now());
        self.clear_progress();
        for line in lines {
            outln!("{line}");
        }
        let _ = std::io::stdout().flush();
        true
    }
}

impl Observer for Term {
    fn started(&mut self, run: &RunSpec) {
        self.clear_progress();
        if self.silent {
            return;
        }
        if let Some(st) = self.style.as_mut() {
            for line in st.started(run, &LocalTime::now()) {
                outln!("{line}");
            }
            return;
        }
        if run.workloads.len() > 1 {
            outln!("{}: {} workloads at once", run.name, run.workloads.len());
        }
        for w in &run.workloads {
            match &w.fs {
                Some(fs) => {
                    outln!("{}", w.fs_heading().unwrap_or_default());
                    for line in fs.describe() {
                        outln!("  {line}");
                    }
                }
                None => outln!("{}", terminal::run_heading(w)),
            }
        }
    }

    fn measuring(&mut self, run: &RunRaw) {
        if let Some(l) = self.live.as_mut() {
            l.measuring(run);
        }
    }

    fn note(&mut self, msg: &str) {
        // `iolab iozone` makes a file per cell: not worth a line each.
        if self.silent && msg.starts_with("created ") {
            return;
        }
        self.clear_progress();
        eprintln!("iolab: {msg}");
    }

    fn interval(&mut self, run: &RunSpec, iv: &IntervalRaw, workloads: &[Option<IntervalRaw>]) {
        let rec = interval_record(iv);
        let recs: Vec<Option<Interval>> = workloads
            .iter()
            .map(|w| w.as_ref().map(interval_record))
            .collect();
        if let Some(l) = self.live.as_mut() {
            l.interval(iv, &rec, workloads, &recs);
        }
        if !self.quiet && !self.styled_interval(&rec) {
            self.clear_progress();
            let names: Vec<&str> = run.workloads.iter().map(|w| w.name.as_str()).collect();
            if !self.header_done {
                let fs = run.workloads.iter().any(|w| w.fs.is_some());
                outln!("{}", terminal::interval_header_of(&names, fs));
                self.header_done = true;
            }
            let ws: Vec<(&str, Option<&Interval>)> = names
                .iter()
                .copied()
                .zip(recs.iter().map(Option::as_ref))
                .collect();
            for line in terminal::interval_lines(&rec, &ws) {
                outln!("{line}");
            }
            let _ = std::io::stdout().flush();
        }
        if self.tty {
            let eta = match self.planned_s {
                Some(p) => format!(", about {:.0} s left", (p - rec.end_s).max(0.0)),
                None => String::new(),
            };
            eprint!(
                "\r\x1b[K[run {}/{}] {} {:.0} s{}",
                self.run_no, self.runs, run.name, rec.end_s, eta
            );
        }
    }

    fn event(&mut self, ev: &EventRaw) {
        if let Some(l) = self.live.as_mut() {
            l.event(ev);
        }
        self.clear_progress();
        if !self.silent {
            outln!("{}", terminal::event_line(&iolab_report::event_record(ev)));
        }
        let _ = std::io::stdout().flush();
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

pub fn run_command(args: RunArgs) -> ExitCode {
    let fio = args.fio_json.clone().map(|path| crate::fio_out::FioOut {
        dest: crate::fio_out::FioDest::File {
            flag: "--fio-json",
            path,
        },
        plus: args.fio_json_plus,
    });
    run_loaded(args, None, fio)
}

/// `iolab run`, with the runs of a job already loaded (`iolab fio`'s
/// command line) or from `args`, and fio's JSON going where `fio` says
/// (`--fio-json`, or `iolab fio`'s output).
pub fn run_loaded(
    args: RunArgs,
    pre: Option<Loaded>,
    fio: Option<crate::fio_out::FioOut>,
) -> ExitCode {
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
    if args.jobfile.is_some() && !args.workload.is_empty() {
        return bad_input("--workload describes a run on the command line; give either a job file or --workload, not both");
    }
    if args.parse_only {
        iolab_jobfile::without_target_probes();
    }
    let mut notes: Vec<String> = Vec::new();
    let mut foreign: Option<iolab_jobfile::frontend::InputFormat> = None;
    let runs: Vec<RunOptions> = if let Some(loaded) = pre {
        notes = loaded.notes;
        loaded.runs
    } else if let Some(jf) = &args.jobfile {
        let loaded = match load_job(&args, jf) {
            Ok(l) => l,
            Err(e) => return bad_input(&e),
        };
        foreign = Some(loaded.format).filter(|f| *f != iolab_jobfile::frontend::InputFormat::Iolab);
        notes = loaded.notes;
        loaded.runs
    } else if !args.workload.is_empty() {
        vec![crate::workload_args::run_options(&args)]
    } else if !args.opts.target.is_empty() || iolab_jobfile::fs::is_fs(&args.opts) {
        vec![RunOptions::single(0, args.opts.clone())]
    } else {
        match default_job(&args.opts) {
            Ok((path, mut ws)) => {
                if !args.parse_only && path.exists() {
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
                ws.into_iter()
                    .enumerate()
                    .map(|(i, w)| RunOptions::single(i, w))
                    .collect()
            }
            Err(e) => return bad_input(&e),
        }
    };
    let plan = match iolab_plan::build(&runs, &args.plan) {
        Ok(p) => p,
        Err(e) => match &args.jobfile {
            // The workload is the fio job section (vdbench run, filebench
            // process) of the same name.
            Some(jf) if foreign.is_some() => {
                let format = foreign.map(|f| f.name()).unwrap_or_default();
                return bad_input(&format!(
                    "{format} job file {}: {}",
                    jf.display(),
                    e.message
                ));
            }
            Some(jf) => {
                let argv: Vec<String> = std::env::args().collect();
                return bad_input(&iolab_plan::locate_in_job_file(&e, jf, &argv));
            }
            None => return bad_input(&e.message),
        },
    };
    // The notes of a fio job (engine mapping, options passed over, unused
    // NAME=VALUE pairs), once, before anything else is said about it.
    for n in &notes {
        outln!("{n}");
    }
    if args.parse_only {
        // Parsed and resolved: the plan, with no target or output looked at.
        out!("{}", iolab_plan::dry_run_text(&plan));
        return ExitCode::SUCCESS;
    }
    let out = Output {
        json: json_path,
        quiet: args.quiet,
        findings_log: args.findings_log.clone(),
        temp_file,
        force: args.force,
        silent: false,
        fio,
        style: args.style.into(),
    };
    if args.plan.dry_run {
        // The same checks as the real run, targets and outputs, so a dry
        // run never plans what the run would refuse; nothing is created.
        let checked = preflight(&plan, &out);
        cleanup(&out.temp_file);
        return match checked {
            Ok(_) => {
                out!("{}", iolab_plan::dry_run_text(&plan));
                ExitCode::SUCCESS
            }
            Err(e) => bad_input(&e),
        };
    }
    execute(plan, out, &mut |_| {})
}

/// The job file's runs and notes (iolab's TOML or fio's INI, by content
/// or `--input-format`), with the command line's flags over every layer.
fn load_job(args: &RunArgs, jf: &std::path::Path) -> Result<Loaded, String> {
    use iolab_jobfile::frontend::{load, InputFormat, LoadOptions};
    let format = match &args.input_format {
        Some(f) => Some(InputFormat::from_name(f).map_err(|e| e.0)?),
        None => None,
    };
    let lo = LoadOptions {
        format,
        vars: iolab_jobfile::frontend::parse_vars(&args.vars)?,
        ignore_unsupported: args.ignore_unsupported,
        vdbench_flags: args
            .vdbench_flags
            .as_deref()
            .map(|f| f.split_whitespace().map(str::to_string).collect())
            .unwrap_or_default(),
        ..Default::default()
    };
    let mut loaded = load(jf, &lo).map_err(|e| e.0)?;
    for r in loaded.runs.iter_mut() {
        r.overrides = args.opts.clone();
    }
    Ok(loaded)
}

/// Where a plan's results go.
pub struct Output {
    pub json: Option<PathBuf>,
    pub quiet: bool,
    pub findings_log: Option<PathBuf>,
    /// The default job's file, removed at the end.
    pub temp_file: Option<PathBuf>,
    /// `--force`: an output may replace a file iolab did not write.
    pub force: bool,
    /// Print nothing of iolab's own on stdout (no headings, interval
    /// lines, summaries or plan lines): `iolab iozone` prints iozone's
    /// output there, and the document keeps iolab's.
    pub silent: bool,
    /// fio's JSON of the runs (`--fio-json`, `iolab fio`), if asked for.
    pub fio: Option<crate::fio_out::FioOut>,
    /// The terminal output's layout (`--style`).
    pub style: Style,
}

/// Everything a run checks before its first I/O, the dry run too: every
/// output, then every run's targets (nothing is created). The checked
/// result document output, if any.
fn preflight(plan: &iolab_plan::Plan, out: &Output) -> Result<crate::outputs::Checked, String> {
    let checked = crate::outputs::check_run(plan, out).map_err(|e| e.0)?;
    crate::targets::check_targets(plan)?;
    Ok(checked)
}

/// Run a plan: every run in order, the document saved after each (so a
/// crash keeps the finished runs), `after_run` called on the document
/// first (a study recomputes its tables there).
pub fn execute(
    plan: iolab_plan::Plan,
    out: Output,
    after_run: &mut dyn FnMut(&mut ResultDoc),
) -> ExitCode {
    let checked = match preflight(&plan, &out) {
        Ok(c) => c,
        Err(e) => {
            cleanup(&out.temp_file);
            return bad_input(&e);
        }
    };
    let json_out = checked.json;
    let mut fio = out.fio;
    let temp_file = out.temp_file;
    let json_path = out.json;
    let stop = Arc::new(AtomicBool::new(false));
    for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        // A second Ctrl-C exits at once; the first asks the run to stop and
        // keep what it measured.
        let _ = signal_hook::flag::register_conditional_shutdown(sig, 130, stop.clone());
        let _ = signal_hook::flag::register(sig, stop.clone());
    }

    // Events marked during the runs (`iolab mark`, SIGUSR1): the mark
    // listener pushes here, each run takes them on its own clock.
    let events = Arc::new(EventLog::new());
    let marks = crate::marks::start_for_run(events.clone());
    let mut doc = ResultDoc::new();
    let sweep = plan.is_sweep();
    if sweep {
        doc.plan = Some(plan.info.clone());
    }
    let mut findings_log = FindingsLog::new(out.findings_log, out.force);
    let save = |doc: &ResultDoc| -> Result<(), String> {
        if let Some(o) = &json_out {
            save_document(o, doc).map_err(|e| e.0)?;
        }
        Ok(())
    };
    // A stream (`--json /dev/stdout`, a FIFO) gets one document, the last.
    let stream = json_out.as_ref().is_some_and(|o| o.is_stream());
    let live = match crate::live::LiveDoc::new(json_out.as_ref().filter(|_| !stream)) {
        Ok(l) => l,
        Err(e) => return bad_input(&e),
    };
    let n = plan.runs.len();
    let silent = out.silent;
    let mut term = Term {
        quiet: out.quiet || silent,
        silent,
        tty: std::io::stderr().is_terminal(),
        header_done: false,
        run_no: 0,
        runs: n,
        planned_s: None,
        live,
        style: style::printer(out.style, iolab_report::host_info().cpus),
    };
    if sweep && !silent {
        outln!("plan: {}", iolab_plan::describe(&plan));
    }
    let pause = std::time::Duration::from_secs_f64(plan.info.pause_s);
    let repeats = plan.info.repeat;
    let mut exit: u8 = 0;
    let mut exit_all = false;
    for (i, planned) in plan.runs.into_iter().enumerate() {
        if stop.load(Ordering::Relaxed) {
            break;
        }
        if i > 0 && !pause.is_zero() {
            pause_for(pause, &stop);
            if stop.load(Ordering::Relaxed) {
                break;
            }
        }
        term.run_no = i + 1;
        term.header_done = false;
        if sweep && !silent {
            term.clear_progress();
            outln!("{}", sweep_line(i, n, &planned, repeats));
        }
        let mut spec = planned.spec.clone();
        marks.set_name(&spec.name);
        term.planned_s = planned.planned_s();
        if let Some(l) = term.live.as_mut() {
            let tags = sweep.then(|| (planned.point, planned.repeat, planned.params_map()));
            l.begin(&doc, tags);
        }
        let mut dev = crate::devstats::DevSampler::default();
        let default_job = temp_file.is_some();
        let made = crate::targets::make_personality_dirs(&spec);
        let raw = match &made {
            Ok(_) => run_one(&mut spec, &mut term, &mut dev, &stop, &events, default_job),
            Err(e) => Err(iolab_engine::RunError::Setup(e.clone())),
        };
        crate::targets::remove_if_empty(made.as_deref().unwrap_or_default());
        if let Some(l) = term.live.as_mut() {
            l.settle();
        }
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
        let mut run = result_of(&raw, &spec, dev);
        if sweep {
            run.point = Some(planned.point);
            run.repeat = Some(planned.repeat);
            run.params = planned.params_map();
        }
        match term.style.as_mut().filter(|_| !silent) {
            Some(st) => st
                .finished(&run, &LocalTime::now())
                .iter()
                .for_each(|l| outln!("{l}")),
            None if !silent => outln!("{}", terminal::summary(&run)),
            None => {}
        }
        if let Some(line) = failure_line(&run) {
            eprintln!("iolab: {line}");
        }
        if !run.complete || run.errors_total > 0 {
            exit = exit.max(1);
        }
        if let Some(v) = &run.verify {
            if v.findings_total > 0 {
                exit = exit.max(1);
            }
            let journal = spec.workloads.iter().find_map(|w| w.journal.as_deref());
            if let Err(e) = findings_log.append(v, journal) {
                eprintln!("iolab: {e}");
            }
            doc.verify.get_or_insert_with(Default::default).add(v);
        }
        let error_stop = run.errors_total > 0 && !run.complete && !stop.load(Ordering::Relaxed);
        // fio's exitall with exit_what=all: the job ends here, complete.
        exit_all = raw.exit_all && i + 1 < n;
        doc.runs.push(run);
        doc.complete = (i + 1 == n || exit_all) && doc.runs.iter().all(|r| r.complete);
        if sweep {
            doc.points = iolab_report::summarize_points(&doc);
        }
        after_run(&mut doc);
        let saved = if stream { Ok(()) } else { save(&doc) };
        if let Err(e) = saved {
            eprintln!("iolab: {e}");
            exit = exit.max(1);
        }
        if error_stop && i + 1 < n {
            let what = if sweep { "run" } else { "workload" };
            eprintln!(
                "iolab: skipping the remaining {} {what}{} after the I/O error (--on-error stop); use --on-error continue to run them anyway",
                n - i - 1,
                if n - i - 1 == 1 { "" } else { "s" }
            );
            break;
        }
        if exit_all {
            if !silent {
                outln!(
                    "exitall: a workload with exit_what=all ended; the remaining {} run{} do not run",
                    n - i - 1,
                    if n - i - 1 == 1 { "" } else { "s" }
                );
            }
            break;
        }
    }
    let interrupted = stop.load(Ordering::Relaxed)
        && doc
            .runs
            .iter()
            .any(|r| r.incomplete_reason.as_deref() == Some("interrupted"));
    doc.finished_at = Some(iolab_report::model_time_now());
    if interrupted || (doc.runs.len() < n && !exit_all) {
        doc.complete = false;
    }
    // A plan ends with its summary table, one row per point.
    if sweep && !silent && !doc.points.is_empty() {
        outln!("{}", terminal::points_table(&doc));
    }
    if let Err(e) = save(&doc) {
        if stream {
            eprintln!("iolab: {e}");
            exit = exit.max(1);
        }
    }
    if let Some(p) = &json_path {
        eprintln!("iolab: results written to {}", p.display());
    }
    if let Err(e) = write_fio(
        &doc,
        fio.as_mut(),
        checked.fio_json.as_ref(),
        &checked.rules,
    ) {
        eprintln!("iolab: {e}");
        exit = exit.max(1);
    }
    if let Some(p) = findings_log.written() {
        eprintln!("iolab: data validation findings logged to {}", p.display());
    }
    cleanup(&temp_file);
    if interrupted || doc.runs.len() < n && exit == 0 && !exit_all {
        return ExitCode::from(130);
    }
    ExitCode::from(exit)
}

/// fio's outputs after the runs: its JSON if asked for, and the log
/// files fio jobs asked for. The first failure, if any (the others are
/// said at once).
fn write_fio(
    doc: &ResultDoc,
    fio: Option<&mut crate::fio_out::FioOut>,
    checked: Option<&iolab_target::OutputPath>,
    rules: &iolab_target::OutputRules,
) -> Result<(), String> {
    let mut failed = Vec::new();
    if let Some(f) = fio {
        match crate::fio_out::write_json(doc, f, checked) {
            Ok(Some(p)) => eprintln!("iolab: fio's JSON written to {}", p.display()),
            Ok(None) => {}
            Err(e) => failed.push(e),
        }
    }
    let (written, errors) = crate::fio_out::write_logs(doc, rules);
    if !written.is_empty() {
        eprintln!("iolab: fio logs written: {}", written.join(", "));
    }
    failed.extend(errors);
    let first = failed.pop();
    for e in failed {
        eprintln!("iolab: {e}");
    }
    first.map_or(Ok(()), Err)
}

/// The line that heads run `i` of `n` in a sweep: its point's parameters
/// and its repetition.
fn sweep_line(i: usize, n: usize, planned: &iolab_plan::PlannedRun, repeats: u32) -> String {
    let mut line = format!("[run {}/{}]", i + 1, n);
    if !planned.params.is_empty() {
        line.push(' ');
        line.push_str(&planned.params_text());
    }
    if repeats > 1 {
        line.push_str(&format!(" (repeat {}/{})", planned.repeat, repeats));
    }
    line
}

/// Run `spec` on the run core with the devices under its targets sampled
/// on the run's clock. The default job (`default_job`) runs buffered on a
/// file system without O_DIRECT: `spec` then says so.
fn run_one(
    spec: &mut RunSpec,
    term: &mut Term,
    dev: &mut crate::devstats::DevSampler,
    stop: &Arc<AtomicBool>,
    events: &Arc<EventLog>,
    default_job: bool,
) -> Result<RunRaw, iolab_engine::RunError> {
    let mut once = |spec: &RunSpec, term: &mut Term| {
        iolab_engine::run_with(spec, term, stop.clone(), events.clone(), &mut [&mut *dev])
    };
    match once(spec, term) {
        Err(iolab_engine::RunError::Target(terr))
            if default_job && is_direct_unsupported(&terr) =>
        {
            term.note("this file system does not support O_DIRECT; the default job runs buffered");
            for w in &mut spec.workloads {
                w.direct = false;
            }
            once(spec, term)
        }
        r => r,
    }
}

/// The result record of a run, with its devices' figures compared with
/// the workloads as they ran (an io_uring fallback to psync changes
/// engine, jobs and qd).
fn result_of(
    raw: &RunRaw,
    spec: &RunSpec,
    mut dev: crate::devstats::DevSampler,
) -> iolab_report::RunResult {
    let mut run = build_run(raw);
    if let Some(d) = dev.dev.take() {
        let ran = RunSpec {
            workloads: raw.workloads.iter().map(|w| w.spec.clone()).collect(),
            ..spec.clone()
        };
        d.finish(&ran, &mut run);
    }
    run
}

/// One stderr line for a run that ended on an I/O error or failed its
/// prefill: where (path, offset), the errno and what to do. The summary on
/// stdout and the result document keep the details.
fn failure_line(run: &iolab_report::RunResult) -> Option<String> {
    if run.incomplete_reason.as_deref() == Some("interrupted") {
        return None;
    }
    let e = run.errors.first()?;
    let what = match run.incomplete_reason.as_deref() {
        Some(r) if r.starts_with("prefill") => r.to_string(),
        Some(r) => format!(
            "{} of {} at offset {} failed: {} ({r})",
            e.op, e.target, e.offset, e.error
        ),
        None => format!(
            "{} I/O error{}, the first: {} of {} at offset {}: {}",
            run.errors_total,
            if run.errors_total == 1 { "" } else { "s" },
            e.op,
            e.target,
            e.offset,
            e.error
        ),
    };
    let files = run.spec.as_ref().is_some_and(|s| s.fs.is_some());
    let todo = match e.errno {
        libc::ENOSPC | libc::EDQUOT if files => {
            "free space under the anchor, or give fewer --files or a smaller --file-size"
        }
        libc::ENOSPC | libc::EDQUOT => {
            "free space on the target's file system or give a smaller --size"
        }
        libc::EROFS => "the target is read-only; remount it read-write or choose another target",
        _ => "see the errors in the summary and the result document",
    };
    Some(format!("{}: {what}; {todo}", run.name))
}

/// Sleep, waking early when asked to stop.
fn pause_for(d: std::time::Duration, stop: &AtomicBool) {
    let end = std::time::Instant::now() + d;
    while !stop.load(Ordering::Relaxed) {
        let now = std::time::Instant::now();
        if now >= end {
            break;
        }
        std::thread::sleep((end - now).min(std::time::Duration::from_millis(100)));
    }
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
/// Appended to only when iolab created it (its first line); a new log is
/// started with that line; any other file is refused unless `--force`.
pub struct FindingsLog {
    path: Option<PathBuf>,
    opened: Option<PathBuf>,
    force: bool,
}

impl FindingsLog {
    pub fn new(path: Option<PathBuf>, force: bool) -> Self {
        FindingsLog {
            path,
            opened: None,
            force,
        }
    }

    pub fn append(
        &mut self,
        v: &iolab_report::model::VerifyResult,
        journal: Option<&str>,
    ) -> Result<(), String> {
        if v.findings.is_empty() {
            return Ok(());
        }
        let p = self
            .opened
            .clone()
            .unwrap_or_else(|| crate::outputs::findings_log_path(self.path.as_deref(), journal));
        let flag = if self.path.is_some() {
            "--findings-log"
        } else {
            "the findings log"
        };
        let rules = iolab_target::OutputRules::new(self.force);
        let out =
            iolab_target::check_output(flag, &p, iolab_target::OutputKind::FindingsLog, &rules)
                .map_err(|e| e.0)?;
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
        out.append(text.as_bytes()).map_err(|e| e.0)?;
        self.opened = Some(p);
        Ok(())
    }

    pub fn written(&self) -> Option<&PathBuf> {
        self.opened.as_ref()
    }
}
