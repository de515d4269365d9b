//! A multi-host plan as it runs on the controller: the document (saved
//! after every run, kept live during one), the terminal, the findings
//! log, the exit code; the plan's runs one after another on the hosts
//! still there.

use super::exchange::{Ctx, Ended, Exchange};
use crate::cli::OnHostLoss;
use crate::run::{FindingsLog, Output};
use iolab_plan::{Plan, PlannedRun};
use iolab_remote::link::Fleet;
use iolab_report::{save_document, terminal, CurveRecord, ResultDoc, RunResult};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

pub struct Session {
    pub doc: ResultDoc,
    pub live: Option<crate::live::LiveDoc>,
    pub checked: crate::outputs::Checked,
    pub stream: bool,
    pub out: Output,
    pub findings_log: FindingsLog,
    pub stop: Arc<AtomicBool>,
    pub names: Vec<String>,
    pub said_lost: Vec<bool>,
    pub on_loss: OnHostLoss,
    pub timeout: Duration,
    pub sweep: bool,
    /// Each host's response-time curves (its points' rates from its own
    /// maximum).
    pub curves: Vec<crate::curves::Curves>,
    /// `--repeat`.
    pub repeats: u32,
    pub exit: u8,
}

/// Why the plan ended before its last run.
pub enum Cut {
    /// A host refused a run: exit 2.
    Refused,
    /// A host was lost with `--on-host-loss stop`, or every host.
    Lost,
    /// Ctrl-C, or an I/O error with `--on-error stop`.
    Stopped,
}

impl Session {
    fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    pub fn save(&self) -> Result<(), String> {
        match &self.checked.json {
            Some(o) => save_document(o, &self.doc).map_err(|e| e.0),
            None => Ok(()),
        }
    }

    /// Every run of `plans` (one plan per host, the same runs), in order.
    pub fn run_plan(&mut self, fleet: &mut Fleet, plans: &[Plan]) -> Option<Cut> {
        let n = plans[0].runs.len();
        for i in 0..n {
            if self.stopped() {
                return Some(Cut::Stopped);
            }
            self.between_runs(fleet);
            // A host said lost (by its link, or by the run: a protocol
            // error, no results) takes no further part.
            let live: Vec<bool> = (0..self.names.len())
                .map(|h| !fleet.is_lost(h) && !self.said_lost[h])
                .collect();
            let gone: Vec<&str> = (self.names.iter().zip(&live))
                .filter(|(_, l)| !**l)
                .map(|(n, _)| n.as_str())
                .collect();
            if gone.len() == live.len() || (!gone.is_empty() && self.on_loss == OnHostLoss::Stop) {
                let left = n - i;
                let policy = match self.on_loss {
                    OnHostLoss::Stop => "stop",
                    OnHostLoss::Continue => "continue",
                };
                let what = match left {
                    1 => "the remaining run does not run".to_string(),
                    n => format!("the remaining {n} runs do not run"),
                };
                eprintln!(
                    "iolab: {what}: {} lost (--on-host-loss {policy})",
                    gone.join(", ")
                );
                return Some(Cut::Lost);
            }
            let mut planned: Vec<PlannedRun> = plans.iter().map(|p| p.runs[i].clone()).collect();
            let pause = planned[0].pause_after_s;
            let Some((on, curves)) = self.curve_points(&mut planned, &live) else {
                continue;
            };
            let planned: Vec<&PlannedRun> = planned.iter().collect();
            if let Some(cut) = self.one_run(fleet, (i, n), &planned, &on, &curves) {
                return Some(cut);
            }
            if i + 1 < n && pause > 0.0 {
                crate::run::pause_for(Duration::from_secs_f64(pause), &self.stop);
            }
        }
        None
    }

    /// Between two runs: what the hosts said since the last run ended (a
    /// loss is said now; anything about an earlier run is past).
    fn between_runs(&mut self, fleet: &Fleet) {
        while let Some((h, ev)) = fleet.recv_timeout(Duration::ZERO) {
            match ev {
                iolab_remote::link::LinkEvent::Lost { reason, .. } if !self.said_lost[h] => {
                    self.said_lost[h] = true;
                    eprintln!("iolab: host {} lost between runs ({reason})", self.names[h]);
                }
                _ => {}
            }
        }
    }

    /// Run `i` of `n` on the live hosts: print, measure, merge, record.
    fn one_run(
        &mut self,
        fleet: &mut Fleet,
        (i, n): (usize, usize),
        planned: &[&PlannedRun],
        live: &[bool],
        curves: &[Option<CurveRecord>],
    ) -> Option<Cut> {
        let first = planned[0];
        self.heading(i, n, planned, live, curves);
        let clocks = fleet.sync_clocks();
        let specs = (planned.iter().zip(live))
            .map(|(p, l)| l.then(|| p.spec.clone()))
            .collect();
        let tags = self
            .sweep
            .then(|| (first.point, first.repeat, first.params_map()));
        if let Some(l) = self.live.as_mut() {
            l.begin(&self.doc, tags, curves.iter().flatten().next().cloned());
        }
        let mut ctx = Ctx {
            fleet,
            names: &self.names,
            stop: &self.stop,
            on_loss: self.on_loss,
            timeout: self.timeout,
            quiet: self.out.quiet,
            said_lost: &mut self.said_lost,
            live: &mut self.live,
        };
        let ended = Exchange::new(&mut ctx, i as u32, clocks).run(specs);
        let (outcomes, skew_us, lost) = match ended {
            Ended::Refused(line) => {
                eprintln!("iolab: {line}");
                return Some(Cut::Refused);
            }
            Ended::Ran {
                outcomes,
                skew_us,
                lost,
            } => (outcomes, skew_us, lost),
        };
        if outcomes.is_empty() {
            return Some(Cut::Lost);
        }
        let run = self.merge(outcomes, skew_us, lost, planned, curves);
        let error_stop = run.errors_total > 0 && !run.complete && !self.stopped();
        self.record(i, n, run, &first.spec);
        if error_stop && i + 1 < n {
            eprintln!(
                "iolab: skipping the remaining {} run(s) after the I/O error (--on-error stop); use --on-error continue to run them anyway",
                n - i - 1
            );
            return Some(Cut::Stopped);
        }
        None
    }

    /// Before a run: each live host's curve point (its rate from that
    /// host's own maximum) or why it does not run there; the hosts it
    /// runs on and their curve records, None when it runs on none.
    fn curve_points(
        &mut self,
        planned: &mut [PlannedRun],
        live: &[bool],
    ) -> Option<(Vec<bool>, Vec<Option<CurveRecord>>)> {
        let mut on = live.to_vec();
        let mut records = vec![None; live.len()];
        for h in (0..live.len()).filter(|h| live[*h]) {
            match self.curves[h].start(&mut planned[h]) {
                crate::curves::Start::Run(c) => records[h] = c,
                crate::curves::Start::Skip(line) => {
                    on[h] = false;
                    if let Some(l) = line {
                        eprintln!("iolab: host {}: {l}", self.names[h]);
                    }
                }
            }
        }
        on.contains(&true).then_some((on, records))
    }

    /// The run's record: the hosts' outcomes (each with its curve point)
    /// merged, incomplete when a host was lost, with the plan's tags; its
    /// summary said; each host's curve told what its run measured.
    fn merge(
        &mut self,
        mut outcomes: Vec<iolab_report::HostOutcome>,
        skew_us: Option<f64>,
        lost: bool,
        planned: &[&PlannedRun],
        curves: &[Option<CurveRecord>],
    ) -> RunResult {
        let index = |name: &str| self.names.iter().position(|n| n == name);
        for o in &mut outcomes {
            if let Some(h) = index(&o.host) {
                o.result.curve = curves[h].clone();
            }
        }
        let mut run = iolab_report::merge_hosts(outcomes, skew_us);
        if lost {
            run.complete = false;
            if run.incomplete_reason.is_none() {
                run.incomplete_reason = Some("a host was lost during the run".into());
            }
        }
        let first = planned[0];
        if self.sweep {
            run.point = Some(first.point);
            run.repeat = Some(first.repeat);
            run.params = first.params_map();
        }
        self.report(&run);
        for hr in &run.hosts {
            let Some(h) = index(&hr.host) else { continue };
            if let Some(line) = self.curves[h].finished(planned[h], &hr.run) {
                if !self.out.quiet {
                    outln!("host {}: {line}", hr.host);
                }
            }
        }
        run
    }

    /// The run's heading: its sweep line and each host's curve point, its
    /// hosts with their targets, its workloads (as the first host runs
    /// them).
    fn heading(
        &self,
        i: usize,
        n: usize,
        planned: &[&PlannedRun],
        live: &[bool],
        curves: &[Option<CurveRecord>],
    ) {
        if self.out.quiet {
            return;
        }
        let first = planned[0];
        if self.sweep {
            outln!("{}", crate::run::sweep_line(i, n, first, self.repeats));
        }
        for (name, c) in self.names.iter().zip(curves) {
            if let Some(note) = c.as_ref().and_then(crate::curves::Curves::note) {
                outln!("  {name}: {note}");
            }
        }
        let hosts: Vec<String> = (self.names.iter().zip(planned).zip(live))
            .filter(|(_, l)| **l)
            .map(|((name, p), _)| {
                // Each workload's targets, or its filesets' anchors.
                let mut ts: Vec<String> = Vec::new();
                for w in &p.spec.workloads {
                    let anchors = w.fs.iter().flat_map(|f| &f.filesets);
                    let paths = (w.targets.iter().map(|t| t.path.clone()))
                        .chain(anchors.map(|f| f.spec.anchor.display().to_string()));
                    for t in paths {
                        if !ts.contains(&t) {
                            ts.push(t);
                        }
                    }
                }
                format!("{name} {}", ts.join(" "))
            })
            .collect();
        let spec = &first.spec;
        outln!(
            "{}: on {} host{} at once: {}",
            spec.name,
            hosts.len(),
            if hosts.len() == 1 { "" } else { "s" },
            hosts.join(", ")
        );
        for w in &spec.workloads {
            match &w.fs {
                Some(_) => outln!("{}", w.fs_heading().unwrap_or_default()),
                None => outln!("{}", terminal::run_heading(w)),
            }
        }
    }

    /// The merged run's summary and the line of the I/O error it ended on.
    fn report(&self, run: &iolab_report::RunResult) {
        if !self.out.quiet {
            outln!("{}", terminal::summary(run));
        }
        if let Some(line) = crate::run::failure_line(run) {
            eprintln!("iolab: {line}");
        }
    }
}

impl Session {
    /// Add run `i` to the document (its verification to the findings
    /// log, its failures to the exit code) and save it.
    fn record(
        &mut self,
        i: usize,
        n: usize,
        run: iolab_report::RunResult,
        spec: &iolab_spec::RunSpec,
    ) {
        if !run.complete || run.errors_total > 0 {
            self.exit = self.exit.max(1);
        }
        for v in run.hosts.iter().filter_map(|h| h.run.verify.as_ref()) {
            if v.findings_total > 0 {
                self.exit = self.exit.max(1);
            }
            let journal = spec.workloads.iter().find_map(|w| w.journal.as_deref());
            if let Err(e) = self.findings_log.append(v, journal) {
                eprintln!("iolab: {e}");
            }
        }
        if let Some(v) = &run.verify {
            self.doc.verify.get_or_insert_with(Default::default).add(v);
        }
        let doc = &mut self.doc;
        doc.runs.push(run);
        doc.complete = i + 1 == n && doc.runs.iter().all(|r| r.complete);
        if self.sweep {
            doc.points = iolab_report::summarize_points(doc);
        }
        let saved = if self.stream { Ok(()) } else { self.save() };
        if let Err(e) = saved {
            eprintln!("iolab: {e}");
            self.exit = self.exit.max(1);
        }
    }

    /// After the plan (`cut`: why it ended early): the document finished
    /// and saved, fio's outputs, the agents' session closed; the exit
    /// code (130 when interrupted, 2 when a host refused a run).
    pub fn finish(mut self, fleet: Fleet, cut: Option<Cut>) -> ExitCode {
        let interrupted = self.stopped();
        self.doc.finished_at = Some(iolab_report::model_time_now());
        // A plan run to its end (a curve's points left out included) is
        // complete when its runs are.
        self.doc.complete =
            cut.is_none() && !interrupted && self.doc.runs.iter().all(|r| r.complete);
        if self.sweep && !self.out.quiet && !self.doc.points.is_empty() {
            outln!("{}", terminal::points_table(&self.doc));
        }
        if let Err(e) = self.save() {
            eprintln!("iolab: {e}");
            self.exit = self.exit.max(1);
        }
        for note in fleet.close() {
            eprintln!("iolab: {note}");
        }
        let outputs = crate::run::last_outputs(
            &self.doc,
            self.out.json.as_ref(),
            self.out.fio.as_mut(),
            &self.checked,
            &self.findings_log,
        );
        if !outputs {
            self.exit = self.exit.max(1);
        }
        // Interrupted first: a host may refuse a run a Ctrl-C cut short.
        match cut {
            _ if interrupted => ExitCode::from(130),
            Some(Cut::Refused) => ExitCode::from(crate::exit::EXIT_BAD_INPUT),
            Some(Cut::Lost) => ExitCode::from(self.exit.max(1)),
            _ => ExitCode::from(self.exit),
        }
    }
}
