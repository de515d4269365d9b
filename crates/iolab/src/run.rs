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
    /// The progress lines of a fileset's creation.
    fileset_lines: crate::fileset_progress::FilesetLines,
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
            let fs = run.workloads.iter().any(|w| w.fs.is_some());
            if !self.header_done {
                outln!("{}", terminal::interval_header_of(&names, fs));
                self.header_done = true;
            }
            let ws: Vec<(&str, Option<&Interval>)> = names
                .iter()
                .copied()
                .zip(recs.iter().map(Option::as_ref))
                .collect();
            for line in terminal::interval_lines(&rec, &ws, fs) {
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

    fn fileset_progress(&mut self, anchor: &str, p: &iolab_core::FilesetProgress) {
        use crate::fileset_progress::Line;
        if self.quiet {
            return;
        }
        match self.fileset_lines.next(anchor, p, self.tty) {
            Some(Line::Live(t)) => eprint!("\r\x1b[K{t}"),
            Some(Line::Plain(t)) => {
                self.clear_progress();
                eprintln!("iolab: {t}");
            }
            Some(Line::Clear) => self.clear_progress(),
            None => {}
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
    if let Err(e) = check_args(&args) {
        return bad_input(&e);
    }
    if args.parse_only {
        iolab_jobfile::without_target_probes();
    }
    let mut got = match gather_runs(&args, pre) {
        Ok(g) => g,
        Err(e) => return bad_input(&e),
    };
    let hosts = match crate::multi::hosts_of(&args.remote, &got.hosts) {
        Ok(h) => h,
        Err(e) => return bad_input(&e),
    };
    got.notes
        .extend(iolab_jobfile::hosts::shared_files(&got.runs, &hosts));
    if !hosts.is_empty() && args.parse_only {
        return parse_only_hosts(&args, &got, &hosts);
    }
    if !hosts.is_empty() {
        return crate::multi::run(args, got.runs, got.notes, hosts, fio);
    }
    let plan = match plan_runs(&args, &got) {
        Ok(p) => p,
        Err(e) => return bad_input(&e),
    };
    // The notes of a fio job (engine mapping, options passed over, unused
    // NAME=VALUE pairs), once, before anything else is said about it.
    for n in &got.notes {
        outln!("{n}");
    }
    if args.parse_only {
        // Parsed and resolved: the plan, with no target or output looked at.
        out!("{}", iolab_plan::dry_run_text(&plan));
        return ExitCode::SUCCESS;
    }
    let out = Output {
        json: got.json,
        quiet: args.quiet,
        findings_log: args.findings_log.clone(),
        temp_file: got.temp_file,
        force: args.force,
        silent: false,
        fio,
        style: args.style.into(),
    };
    if args.plan.dry_run {
        return dry_run(&plan, &out);
    }
    execute(plan, out, &mut |_| {})
}

/// The command line's contradictions, before anything is read.
fn check_args(args: &RunArgs) -> Result<(), String> {
    if let Some(jf) = &args.jobfile {
        let j = jf.to_string_lossy();
        if (j == "true" || j == "false") && !jf.exists() {
            return Err(format!(
                "'{j}' is not a job file; flags that take true or false need '=' (--direct={j}, --prefill={j}), or use --buffered / --no-prefill"
            ));
        }
    }
    if args.jobfile.is_some() && !args.workload.is_empty() {
        return Err("--workload describes a run on the command line; give either a job file or --workload, not both".into());
    }
    Ok(())
}

/// The command's runs before they are planned, and what goes with them.
struct Gathered {
    runs: Vec<RunOptions>,
    /// The job file's notes, said before the runs.
    notes: Vec<String>,
    /// The job file's format when it is another tool's (vdbench, fio...).
    foreign: Option<iolab_jobfile::frontend::InputFormat>,
    /// The default job's file, removed at the end.
    temp_file: Option<PathBuf>,
    /// The result document (`--json`; the default job always writes one).
    json: Option<PathBuf>,
    /// The hosts the job file names (a multi-host run).
    hosts: Vec<iolab_spec::HostSpec>,
}

/// The runs of `pre` (`iolab fio`'s command line), of the job file, of
/// `--workload`s, of the flags, or else the default job's.
fn gather_runs(args: &RunArgs, pre: Option<Loaded>) -> Result<Gathered, String> {
    let mut got = Gathered {
        runs: Vec::new(),
        notes: Vec::new(),
        foreign: None,
        temp_file: None,
        json: args.json.clone(),
        hosts: Vec::new(),
    };
    if let Some(loaded) = pre {
        got.hosts = loaded.hosts;
        (got.notes, got.runs) = (loaded.notes, loaded.runs);
    } else if let Some(jf) = &args.jobfile {
        let loaded = load_job(args, jf)?;
        got.hosts = loaded.hosts;
        got.foreign =
            Some(loaded.format).filter(|f| *f != iolab_jobfile::frontend::InputFormat::Iolab);
        (got.notes, got.runs) = (loaded.notes, loaded.runs);
    } else if !args.workload.is_empty() {
        got.runs = vec![crate::workload_args::run_options(args)];
    } else if !args.opts.target.is_empty() || iolab_jobfile::fs::is_fs(&args.opts) {
        got.runs = vec![RunOptions::single(0, args.opts.clone())];
    } else {
        let (path, mut ws) = default_job(&args.opts)?;
        if !args.parse_only && path.exists() {
            return Err(format!(
                "{} already exists; remove it or give --target",
                path.display()
            ));
        }
        for w in ws.iter_mut() {
            w.destroy_data_on.push(path.to_string_lossy().into_owned());
        }
        got.temp_file = Some(path);
        got.json
            .get_or_insert_with(|| PathBuf::from("iolab-result.json"));
        got.runs = ws
            .into_iter()
            .enumerate()
            .map(|(i, w)| RunOptions::single(i, w))
            .collect();
    }
    Ok(got)
}

/// The plan of the runs, or the line that says what is wrong: in another
/// tool's job file, by the workload's section name; in iolab's, at its
/// line.
fn plan_runs(args: &RunArgs, got: &Gathered) -> Result<iolab_plan::Plan, String> {
    iolab_jobfile::hosts::check_local(&got.runs)?;
    let runs = iolab_jobfile::hosts::for_local(&got.runs);
    let e = match iolab_plan::build(&runs, &args.plan) {
        Ok(p) => return Ok(p),
        Err(e) => e,
    };
    Err(match &args.jobfile {
        // The workload is the fio job section (vdbench run, filebench
        // process) of the same name.
        Some(jf) if got.foreign.is_some() => {
            let format = got.foreign.map(|f| f.name()).unwrap_or_default();
            format!("{format} job file {}: {}", jf.display(), e.message)
        }
        Some(jf) => {
            let argv: Vec<String> = std::env::args().collect();
            iolab_plan::locate_in_job_file(&e, jf, &argv)
        }
        None => e.message,
    })
}

/// `--parse-only` of a multi-host job: the notes, the hosts with their
/// targets, then each host's plan (its own targets), nothing contacted.
fn parse_only_hosts(args: &RunArgs, got: &Gathered, hosts: &[iolab_spec::HostSpec]) -> ExitCode {
    let mut text = String::new();
    for h in hosts {
        let runs = match iolab_jobfile::hosts::runs_for_host(&got.runs, h, hosts) {
            Ok(r) => r,
            Err(e) => return bad_input(&e),
        };
        match iolab_plan::build(&runs, &args.plan) {
            Ok(p) => text.push_str(&format!(
                "host {}:\n{}",
                h.name,
                iolab_plan::dry_run_text(&p)
            )),
            Err(e) => return bad_input(&format!("host {}: {}", h.name, e.message)),
        }
    }
    for n in &got.notes {
        outln!("{n}");
    }
    outln!("{}", iolab_jobfile::hosts::describe(hosts, &got.runs));
    out!("{text}");
    ExitCode::SUCCESS
}

/// `--dry-run`: the same checks as the real run, targets and outputs, so
/// a dry run never plans what the run would refuse; nothing is created.
fn dry_run(plan: &iolab_plan::Plan, out: &Output) -> ExitCode {
    let checked = preflight(plan, out);
    cleanup(&out.temp_file);
    match checked {
        Ok(_) => {
            out!("{}", iolab_plan::dry_run_text(plan));
            ExitCode::SUCCESS
        }
        Err(e) => bad_input(&e),
    }
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
    let mut s = match Session::start(&plan, out, checked) {
        Ok(s) => s,
        Err(e) => return bad_input(&e),
    };
    if s.sweep && !s.silent {
        outln!("plan: {}", iolab_plan::describe(&plan));
    }
    for (i, planned) in plan.runs.into_iter().enumerate() {
        match s.one_run(i, planned, after_run) {
            Step::Next => {}
            Step::End => break,
            Step::Fail(code) => return code,
        }
    }
    s.finish()
}

/// What the plan does after a run.
enum Step {
    /// Go on with the next run.
    Next,
    /// Run no more (interrupted, an I/O error with `--on-error stop`,
    /// fio's `exitall`); the document is finished as usual.
    End,
    /// The run could not start (its setup failed): exit with this.
    Fail(ExitCode),
}

/// A plan as it runs: the document, the terminal, and what the runs so
/// far decided (curves' rates and stops, the exit code).
struct Session {
    doc: ResultDoc,
    term: Term,
    /// Set by SIGINT/SIGTERM: stop and keep what was measured.
    stop: Arc<AtomicBool>,
    /// Events marked during the runs (`iolab mark`, SIGUSR1): the mark
    /// listener pushes here, each run takes them on its own clock.
    events: Arc<EventLog>,
    marks: crate::marks::Marks,
    checked: crate::outputs::Checked,
    /// `--json` is a stream (`/dev/stdout`, a FIFO): one document, the last.
    stream: bool,
    json_path: Option<PathBuf>,
    temp_file: Option<PathBuf>,
    fio: Option<crate::fio_out::FioOut>,
    findings_log: FindingsLog,
    sweep: bool,
    silent: bool,
    /// The plan's runs and `--repeat`.
    n: usize,
    repeats: u32,
    exit: u8,
    /// A run ended with fio's `exitall`: the remaining runs do not run.
    exit_all: bool,
    /// Curves' rates and stops; the runs they leave out; the pause after
    /// the last run that ran (each run's own, or --pause).
    curves: crate::curves::Curves,
    skipped: usize,
    pause: std::time::Duration,
}

impl Session {
    /// Everything the runs share, set up before the first: signals, the
    /// mark listener, the document and its live copy, the terminal.
    fn start(
        plan: &iolab_plan::Plan,
        out: Output,
        checked: crate::outputs::Checked,
    ) -> Result<Session, String> {
        let stop = Arc::new(AtomicBool::new(false));
        for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
            // A second Ctrl-C exits at once; the first asks the run to stop
            // and keep what it measured.
            let _ = signal_hook::flag::register_conditional_shutdown(sig, 130, stop.clone());
            let _ = signal_hook::flag::register(sig, stop.clone());
        }
        let events = Arc::new(EventLog::new());
        let marks = crate::marks::start_for_run(events.clone());
        let mut doc = ResultDoc::new();
        let sweep = plan.is_sweep();
        if sweep {
            doc.plan = Some(plan.info.clone());
        }
        let findings_log = FindingsLog::new(out.findings_log, out.force);
        let stream = checked.json.as_ref().is_some_and(|o| o.is_stream());
        let live = crate::live::LiveDoc::new(checked.json.as_ref().filter(|_| !stream))?;
        let n = plan.runs.len();
        let silent = out.silent;
        let term = Term {
            quiet: out.quiet || silent,
            silent,
            tty: std::io::stderr().is_terminal(),
            header_done: false,
            run_no: 0,
            runs: n,
            planned_s: None,
            live,
            style: style::printer(out.style, iolab_report::host_info().cpus),
            fileset_lines: Default::default(),
        };
        Ok(Session {
            doc,
            term,
            stop,
            events,
            marks,
            checked,
            stream,
            json_path: out.json,
            temp_file: out.temp_file,
            fio: out.fio,
            findings_log,
            sweep,
            silent,
            n,
            repeats: plan.info.repeat,
            exit: 0,
            exit_all: false,
            curves: Default::default(),
            skipped: 0,
            pause: std::time::Duration::ZERO,
        })
    }

    fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// Save the document to `--json`, if given.
    fn save(&self) -> Result<(), String> {
        if let Some(o) = &self.checked.json {
            save_document(o, &self.doc).map_err(|e| e.0)?;
        }
        Ok(())
    }

    /// Run `planned`, the plan's run `i`: print it, record it, save.
    fn one_run(
        &mut self,
        i: usize,
        mut planned: iolab_plan::PlannedRun,
        after_run: &mut dyn FnMut(&mut ResultDoc),
    ) -> Step {
        let curve = match self.prepare(i, &mut planned) {
            Ok(c) => c,
            Err(step) => return step,
        };
        let mut spec = planned.spec.clone();
        let (mut run, exit_all) = match self.measure(&planned, &mut spec, &curve) {
            Ok(r) => r,
            Err(code) => return Step::Fail(code),
        };
        if self.sweep {
            run.point = Some(planned.point);
            run.repeat = Some(planned.repeat);
            run.params = planned.params_map();
        }
        run.curve = curve;
        self.report(&planned, &run);
        let error_stop = run.errors_total > 0 && !run.complete && !self.stopped();
        // fio's exitall with exit_what=all: the job ends here, complete.
        self.exit_all = exit_all && i + 1 < self.n;
        self.record(i, run, &spec, after_run);
        self.after(i, error_stop)
    }

    /// Before run `i`: whether it runs (a curve may leave it out, a
    /// signal stop the plan), the pause after the previous run, its
    /// sweep line. Its curve record if it runs.
    fn prepare(
        &mut self,
        i: usize,
        planned: &mut iolab_plan::PlannedRun,
    ) -> Result<Option<iolab_report::CurveRecord>, Step> {
        if self.stopped() {
            return Err(Step::End);
        }
        let curve = match self.curves.start(planned) {
            crate::curves::Start::Run(c) => c,
            crate::curves::Start::Skip(line) => {
                if let Some(l) = line {
                    self.term.clear_progress();
                    eprintln!("iolab: {l}");
                }
                self.skipped += 1;
                return Err(Step::Next);
            }
        };
        if !self.pause.is_zero() {
            pause_for(self.pause, &self.stop);
            if self.stopped() {
                return Err(Step::End);
            }
        }
        self.pause = std::time::Duration::from_secs_f64(planned.pause_after_s);
        self.term.run_no = i + 1;
        self.term.header_done = false;
        if self.sweep && !self.silent {
            self.term.clear_progress();
            let mut line = sweep_line(i, self.n, planned, self.repeats);
            if let Some(note) = curve.as_ref().and_then(crate::curves::Curves::note) {
                line.push_str(&format!(" {note}"));
            }
            outln!("{line}");
        }
        Ok(curve)
    }

    /// Run `spec` on the run core, the live document following it: its
    /// record and whether it ended with fio's `exitall`. A run whose setup
    /// failed ends the plan: the document is saved and the exit code
    /// returned.
    fn measure(
        &mut self,
        planned: &iolab_plan::PlannedRun,
        spec: &mut RunSpec,
        curve: &Option<iolab_report::CurveRecord>,
    ) -> Result<(iolab_report::RunResult, bool), ExitCode> {
        self.marks.set_name(&spec.name);
        self.term.planned_s = planned.planned_s();
        if let Some(l) = self.term.live.as_mut() {
            let tags = (self.sweep).then(|| (planned.point, planned.repeat, planned.params_map()));
            l.begin(&self.doc, tags, curve.clone());
        }
        let mut dev = crate::devstats::DevSampler::default();
        let default_job = self.temp_file.is_some();
        let raw = run_in_dirs(
            spec,
            &mut self.term,
            &mut dev,
            &self.stop,
            &self.events,
            default_job,
        );
        if let Some(l) = self.term.live.as_mut() {
            l.settle();
        }
        let raw = raw.map_err(|e| {
            self.term.clear_progress();
            eprintln!("iolab: {e}");
            self.doc.finished_at = Some(iolab_report::model_time_now());
            let _ = self.save();
            cleanup(&self.temp_file);
            ExitCode::from(EXIT_BAD_INPUT)
        })?;
        self.term.clear_progress();
        Ok((result_of(&raw, spec, dev), raw.exit_all))
    }

    /// Print a finished run: its summary (iolab's or `--style`'s), the
    /// line of a curve it ended, the line of the I/O error it ended on.
    fn report(&mut self, planned: &iolab_plan::PlannedRun, run: &iolab_report::RunResult) {
        let silent = self.silent;
        match self.term.style.as_mut().filter(|_| !silent) {
            Some(st) => st
                .finished(run, &LocalTime::now())
                .iter()
                .for_each(|l| outln!("{l}")),
            None if !silent => outln!("{}", terminal::summary(run)),
            None => {}
        }
        if let Some(line) = self.curves.finished(planned, run) {
            if !silent {
                outln!("{line}");
            }
        }
        if let Some(line) = failure_line(run) {
            eprintln!("iolab: {line}");
        }
    }

    /// Add run `i` to the document (its verification to the findings
    /// log, its failures to the exit code), let `after_run` see the
    /// document, and save it.
    fn record(
        &mut self,
        i: usize,
        run: iolab_report::RunResult,
        spec: &RunSpec,
        after_run: &mut dyn FnMut(&mut ResultDoc),
    ) {
        if !run.complete || run.errors_total > 0 {
            self.exit = self.exit.max(1);
        }
        if let Some(v) = &run.verify {
            if v.findings_total > 0 {
                self.exit = self.exit.max(1);
            }
            let journal = spec.workloads.iter().find_map(|w| w.journal.as_deref());
            if let Err(e) = self.findings_log.append(v, journal) {
                eprintln!("iolab: {e}");
            }
            self.doc.verify.get_or_insert_with(Default::default).add(v);
        }
        let doc = &mut self.doc;
        doc.runs.push(run);
        doc.complete = (i + 1 == self.n || self.exit_all) && doc.runs.iter().all(|r| r.complete);
        if self.sweep {
            doc.points = iolab_report::summarize_points(doc);
        }
        after_run(doc);
        let saved = if self.stream { Ok(()) } else { self.save() };
        if let Err(e) = saved {
            eprintln!("iolab: {e}");
            self.exit = self.exit.max(1);
        }
    }

    /// After run `i`: whether the plan goes on (an I/O error with
    /// `--on-error stop`, fio's `exitall` end it, with a line).
    fn after(&self, i: usize, error_stop: bool) -> Step {
        let left = self.n - i - 1;
        let s = if left == 1 { "" } else { "s" };
        if error_stop && i + 1 < self.n {
            let what = if self.sweep { "run" } else { "workload" };
            eprintln!(
                "iolab: skipping the remaining {left} {what}{s} after the I/O error (--on-error stop); use --on-error continue to run them anyway"
            );
            return Step::End;
        }
        if self.exit_all {
            if !self.silent {
                outln!(
                    "exitall: a workload with exit_what=all ended; the remaining {left} run{s} do not run"
                );
            }
            return Step::End;
        }
        Step::Next
    }

    /// After the last run: the document finished (complete or not) and
    /// saved, the points table, fio's outputs; the exit code.
    fn finish(mut self) -> ExitCode {
        let interrupted = self.stopped()
            && (self.doc.runs.iter())
                .any(|r| r.incomplete_reason.as_deref() == Some("interrupted"));
        let ran_all = self.complete_doc(interrupted);
        // A plan ends with its summary table, one row per point.
        if self.sweep && !self.silent && !self.doc.points.is_empty() {
            outln!("{}", terminal::points_table(&self.doc));
        }
        if let Err(e) = self.save() {
            if self.stream {
                eprintln!("iolab: {e}");
                self.exit = self.exit.max(1);
            }
        }
        let outputs = last_outputs(
            &self.doc,
            self.json_path.as_ref(),
            self.fio.as_mut(),
            &self.checked,
            &self.findings_log,
        );
        if !outputs {
            self.exit = self.exit.max(1);
        }
        cleanup(&self.temp_file);
        if interrupted || !ran_all && self.exit == 0 && !self.exit_all {
            return ExitCode::from(130);
        }
        ExitCode::from(self.exit)
    }

    /// The document's end time and whether it is complete; whether every
    /// run ran but those a curve left out.
    fn complete_doc(&mut self, interrupted: bool) -> bool {
        let doc = &mut self.doc;
        doc.finished_at = Some(iolab_report::model_time_now());
        let ran_all = doc.runs.len() + self.skipped >= self.n;
        if self.skipped > 0 && ran_all && !interrupted {
            doc.complete = doc.runs.iter().all(|r| r.complete);
        }
        if interrupted || (!ran_all && !self.exit_all) {
            doc.complete = false;
        }
        ran_all
    }
}

/// After a plan's document is final (local or on several hosts): where
/// it went, fio's outputs, the findings log. False when one of fio's
/// outputs failed (said on stderr).
pub(crate) fn last_outputs(
    doc: &ResultDoc,
    json: Option<&PathBuf>,
    fio: Option<&mut crate::fio_out::FioOut>,
    checked: &crate::outputs::Checked,
    findings_log: &FindingsLog,
) -> bool {
    if let Some(p) = json {
        eprintln!("iolab: results written to {}", p.display());
    }
    let fio = write_fio(doc, fio, checked.fio_json.as_ref(), &checked.rules);
    if let Err(e) = &fio {
        eprintln!("iolab: {e}");
    }
    if let Some(p) = findings_log.written() {
        eprintln!("iolab: data validation findings logged to {}", p.display());
    }
    fio.is_ok()
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
pub(crate) fn sweep_line(
    i: usize,
    n: usize,
    planned: &iolab_plan::PlannedRun,
    repeats: u32,
) -> String {
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

/// [`run_one`] with the directories of `spec`'s personalities made first
/// (and removed after, if the run left them empty): a local run's and an
/// agent's (crate::agent) way to run a spec.
pub(crate) fn run_in_dirs(
    spec: &mut RunSpec,
    obs: &mut dyn Observer,
    dev: &mut crate::devstats::DevSampler,
    stop: &Arc<AtomicBool>,
    events: &Arc<EventLog>,
    default_job: bool,
) -> Result<RunRaw, iolab_engine::RunError> {
    let made = crate::targets::make_personality_dirs(spec);
    let raw = match &made {
        Ok(_) => run_one(spec, obs, dev, stop, events, default_job),
        Err(e) => Err(iolab_engine::RunError::Setup(e.clone())),
    };
    crate::targets::remove_if_empty(made.as_deref().unwrap_or_default());
    raw
}

/// Run `spec` on the run core with the devices under its targets sampled
/// on the run's clock. The default job (`default_job`) runs buffered on a
/// file system without O_DIRECT: `spec` then says so.
fn run_one(
    spec: &mut RunSpec,
    term: &mut dyn Observer,
    dev: &mut crate::devstats::DevSampler,
    stop: &Arc<AtomicBool>,
    events: &Arc<EventLog>,
    default_job: bool,
) -> Result<RunRaw, iolab_engine::RunError> {
    let mut once = |spec: &RunSpec, term: &mut dyn Observer| {
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
pub(crate) fn result_of(
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
pub(crate) fn failure_line(run: &iolab_report::RunResult) -> Option<String> {
    if run.incomplete_reason.as_deref() == Some("interrupted") {
        return None;
    }
    let e = run.errors.first()?;
    // Only a transfer has an offset (an open, a stat, an fsync: none).
    let at = if iolab_raw::op_has_range(&e.op) {
        format!(" at offset {}", e.offset)
    } else {
        String::new()
    };
    let what = match run.incomplete_reason.as_deref() {
        Some(r) if r.starts_with("prefill") || r.starts_with("creating fileset") => r.to_string(),
        Some(r) => format!("{} of {}{at} failed: {} ({r})", e.op, e.target, e.error),
        None => format!(
            "{} I/O error{}, the first: {} of {}{at}: {}",
            run.errors_total,
            if run.errors_total == 1 { "" } else { "s" },
            e.op,
            e.target,
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
pub(crate) fn pause_for(d: std::time::Duration, stop: &AtomicBool) {
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
