//! `iolab monitor [DEVICE|PATH ...]`: sample block devices as `iostat -x`
//! does, one line per device per interval: a run with no workloads on the
//! run core (iolab_engine::run_with), its devices sampled by the run's
//! device sampler (crate::devstats) on the core's clock, events marked meanwhile (`iolab mark`, SIGUSR1) in
//! the lines at their time, and with `--json` a result document of one run
//! with no workloads that `report` and `compare` read (docs/monitor.md).

use crate::devstats::DevRun;
use crate::exit::bad_input;
use iolab_core::{EventLog, Observer};
use iolab_devices::blockdev::BlockIndex;
use iolab_devices::{discover, diskstats, runner_for, Sysroot};
use iolab_raw::{EventRaw, IntervalRaw, RunRaw};
use iolab_report::model::{DeviceStats, DeviceTarget};
use iolab_report::{save_document, ResultDoc};
use iolab_spec::units::parse_duration;
use iolab_spec::RunSpec;
use iolab_target::{check_output, OutputKind, OutputPath, OutputRules};
use std::cell::RefCell;
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The shortest interval: diskstats' tick counters are in milliseconds,
/// so shorter intervals give await and %util figures of a few ticks.
const MIN_INTERVAL_S: f64 = 0.1;
/// How often the document is rewritten while the monitor goes on.
const SAVE_EVERY: Duration = Duration::from_secs(10);

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Block devices (sdb, /dev/sdb, /dev/mapper/x: sampled as named, partitions included) or paths (the devices under them, as a run samples them); none: every whole block device that has done I/O since boot, like iostat
    #[arg(value_name = "DEVICE|PATH")]
    pub targets: Vec<String>,

    /// Stop after this long (30s, 5m, 1h); default: until Ctrl-C
    #[arg(long, value_name = "TIME")]
    pub duration: Option<String>,

    /// Time between lines, at least 100ms
    #[arg(long, value_name = "TIME", default_value = "1s")]
    pub interval: String,

    /// Leave out the lines of devices that did no I/O in the interval (iostat -z); the document keeps them
    #[arg(long, short = 'z')]
    pub skip_idle: bool,

    /// No lines (for --json /dev/stdout); events and the document are kept
    #[arg(long, short = 'q')]
    pub quiet: bool,

    /// Write the result document (docs/results.md) here: one run with no workloads, its device intervals and events; kept up to date every 10 s
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,

    /// Let --json replace an existing file that iolab did not write (never a block device)
    #[arg(long)]
    pub force: bool,
}

/// What to sample: kernel names, and per named target what is under it.
pub struct Selection {
    pub devices: Vec<String>,
    pub targets: Vec<DeviceTarget>,
}

/// The devices to sample for the names given (see [`Args::targets`]).
pub fn select(root: &Sysroot, names: &[String]) -> Result<Selection, String> {
    let ix = BlockIndex::read(root);
    let mut sel = Selection {
        devices: Vec::new(),
        targets: Vec::new(),
    };
    if names.is_empty() {
        let stats = root.read("/proc/diskstats").unwrap_or_default();
        // iostat's default: whole devices that did I/O since boot.
        sel.devices = ix
            .disks
            .iter()
            .filter(|d| diskstats::find(&stats, d).is_some_and(|s| used(&s)))
            .cloned()
            .collect();
        if sel.devices.is_empty() {
            return Err(
                "no block device has done I/O since boot; name the devices to watch".into(),
            );
        }
        return Ok(sel);
    }
    let runner = runner_for(root);
    for n in names {
        let sampled = if let Some(dev) = ix.resolve(root, n) {
            vec![dev]
        } else if path_exists(root, n) {
            let d = discover(root, runner.as_ref(), n);
            let s = d.sample_set();
            if s.is_empty() {
                let why = d
                    .notes
                    .first()
                    .map(|w| format!(" ({w})"))
                    .unwrap_or_default();
                return Err(format!(
                    "no block device found under {n}{why}; name a device or a path on a block device"
                ));
            }
            s
        } else {
            return Err(format!(
                "'{n}' is neither a block device nor an existing path; give a device (sdb, /dev/sdb, /dev/mapper/NAME) or a path (see 'iolab monitor --help')"
            ));
        };
        for d in &sampled {
            if !sel.devices.contains(d) {
                sel.devices.push(d.clone());
            }
        }
        sel.targets.push(DeviceTarget {
            target: n.clone(),
            top: sampled.first().cloned().into_iter().collect(),
            sampled,
            notes: Vec::new(),
        });
    }
    Ok(sel)
}

/// Whether a path exists on this system; in a captured tree (tests) any
/// absolute path is taken as one, and discovery says what is under it.
fn path_exists(root: &Sysroot, p: &str) -> bool {
    if root.is_live() {
        std::path::Path::new(p).exists()
    } else {
        p.starts_with('/')
    }
}

fn used(s: &diskstats::Sample) -> bool {
    s.rd_ios + s.wr_ios + s.dc_ios + s.fl_ios > 0
}

fn parse_time(flag: &str, v: &str) -> Result<Duration, String> {
    let d = parse_duration(v).map_err(|e| format!("{flag}: {e}"))?;
    if d.is_zero() {
        return Err(format!("{flag} {v}: must be more than 0"));
    }
    Ok(d)
}

/// What the monitor's flags resolved to, checked before anything starts.
struct Checked {
    interval: Duration,
    duration: Option<Duration>,
    root: Sysroot,
    sel: Selection,
    json: Option<OutputPath>,
}

/// Check every flag and output before anything starts: one line, exit 2
/// on the first that is wrong.
fn check(args: &Args) -> Result<Checked, ExitCode> {
    let interval = match parse_time("--interval", &args.interval) {
        Ok(d) if d.as_secs_f64() < MIN_INTERVAL_S => {
            return Err(bad_input(&format!(
                "--interval {}: at least 100ms (the kernel counts device time in milliseconds)",
                args.interval
            )))
        }
        Ok(d) => d,
        Err(e) => return Err(bad_input(&e)),
    };
    let duration = match args
        .duration
        .as_deref()
        .map(|v| parse_time("--duration", v))
    {
        Some(Err(e)) => return Err(bad_input(&e)),
        Some(Ok(d)) => Some(d),
        None => None,
    };
    let root = Sysroot::new("/");
    let sel = select(&root, &args.targets).map_err(|e| bad_input(&e))?;
    let json = match &args.json {
        Some(p) => Some(
            check_output(
                "--json",
                p,
                OutputKind::ResultJson,
                &OutputRules::new(args.force),
            )
            .map_err(|e| crate::outputs::refused(&e))?,
        ),
        None => None,
    };
    Ok(Checked {
        interval,
        duration,
        root,
        sel,
        json,
    })
}

pub fn run(args: Args) -> ExitCode {
    let Checked {
        interval,
        duration,
        root,
        sel,
        json,
    } = match check(&args) {
        Ok(c) => c,
        Err(code) => return code,
    };
    let stop = Arc::new(AtomicBool::new(false));
    for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        // The first Ctrl-C ends the monitor and keeps everything; a second
        // one exits at once.
        let _ = signal_hook::flag::register_conditional_shutdown(sig, 130, stop.clone());
        let _ = signal_hook::flag::register(sig, stop.clone());
    }
    let events = Arc::new(EventLog::new());
    let marks = crate::marks::listen(events.clone(), "monitor");
    if let Some(n) = marks.note() {
        eprintln!("iolab: {n}");
    }
    eprintln!("{}", start_line(&sel, interval, duration, marks.socket()));
    // A run with no workloads: the run core's clock, intervals and events,
    // with the devices sampled on it.
    let spec = RunSpec {
        name: "monitor".into(),
        duration_s: duration.map(|d| d.as_secs_f64()),
        warmup_s: 0.0,
        interval_s: interval.as_secs_f64(),
        rate_iops: None,
        workloads: Vec::new(),
    };
    let dev = Rc::new(RefCell::new(DevRun::for_devices(
        root,
        &sel.devices,
        sel.targets.clone(),
    )));
    let mut out = Out::new(args.skip_idle, args.quiet, json, dev.clone(), &spec);
    let mut sampler = Shared(dev.clone());
    let ran = iolab_engine::run_with(
        &spec,
        &mut out,
        stop.clone(),
        events.clone(),
        &mut [&mut sampler],
    );
    let mut raw = match ran {
        Ok(r) => r,
        Err(e) => return bad_input(&e.to_string()),
    };
    // No more marks after this; the last ones pushed are still kept.
    drop(marks);
    for ev in events.take() {
        out.event(&ev);
        raw.events.push(ev);
    }
    // Stopped before the requested duration: incomplete, as `iolab run`.
    let last_end = raw.intervals.last().map_or(0, |iv| iv.end_ns);
    let interrupted = stop.load(Ordering::Relaxed)
        && duration.is_some_and(|d| u128::from(last_end) < d.as_nanos());
    raw.complete = !interrupted;
    raw.incomplete_reason = interrupted.then(|| "interrupted".to_string());
    let stats = dev.borrow_mut().final_stats();
    let mut exit = 0u8;
    if let Some(j) = &out.json {
        match save_document(j, &document(&raw, stats)) {
            Ok(()) => eprintln!("iolab: results written to {}", j.path().display()),
            Err(e) => {
                eprintln!("iolab: {e}");
                exit = 1;
            }
        }
    }
    if interrupted {
        exit = exit.max(130);
    }
    ExitCode::from(exit)
}

fn start_line(
    sel: &Selection,
    interval: Duration,
    duration: Option<Duration>,
    socket: Option<&std::path::Path>,
) -> String {
    let mut s = format!(
        "iolab: monitoring {} every {} s",
        sel.devices.join(", "),
        interval.as_secs_f64()
    );
    match duration {
        Some(d) => write!(s, " for {} s", d.as_secs_f64()).unwrap(),
        None => s.push_str(" until Ctrl-C"),
    }
    if socket.is_some() {
        s.push_str("; mark events with: iolab mark LABEL");
    }
    s
}

/// The monitor's device sampler on the run core's clock, shared with
/// [`Out`], which prints each interval's rows when the core shows it.
struct Shared(Rc<RefCell<DevRun>>);

impl iolab_core::Sampler for Shared {
    fn start(&mut self) {
        self.0.borrow_mut().start();
    }
    fn sample(&mut self, tick: &iolab_core::Tick) {
        self.0.borrow_mut().interval(tick);
    }
}

/// The monitor's outputs while it goes: terminal lines, the document.
struct Out {
    skip_idle: bool,
    quiet: bool,
    header_done: bool,
    json: Option<OutputPath>,
    last_save: Instant,
    dev: Rc<RefCell<DevRun>>,
    /// The run so far (no workloads): its intervals and events.
    raw: RunRaw,
}

impl Out {
    fn new(
        skip_idle: bool,
        quiet: bool,
        json: Option<OutputPath>,
        dev: Rc<RefCell<DevRun>>,
        spec: &RunSpec,
    ) -> Out {
        Out {
            skip_idle,
            quiet,
            header_done: false,
            json,
            last_save: Instant::now(),
            dev,
            raw: RunRaw {
                name: spec.name.clone(),
                started_at: std::time::SystemTime::now(),
                warmup_ns: 0,
                interval_ns: (spec.interval_s * 1e9) as u64,
                measured_ns: 0,
                workloads: Vec::new(),
                intervals: Vec::new(),
                ops: Default::default(),
                fsyncs: 0,
                cpu: Default::default(),
                stalls: Default::default(),
                events: Vec::new(),
                complete: false,
                incomplete_reason: None,
                notes: Vec::new(),
                exit_all: false,
            },
        }
    }

    /// Rewrite the document every [`SAVE_EVERY`], so a monitor that is
    /// killed keeps most of what it saw.
    fn save_now(&mut self) {
        let Some(j) = &self.json else { return };
        if j.is_stream() || self.last_save.elapsed() < SAVE_EVERY {
            return;
        }
        self.last_save = Instant::now();
        let mut stats = self.dev.borrow().stats().clone();
        stats
            .notes
            .push("provisional: the monitor was still going".into());
        if let Err(e) = save_document(j, &document(&self.raw, stats)) {
            eprintln!("iolab: {e}");
        }
    }

    /// The column heads, once, before the first line of any kind.
    fn header_once(&mut self) -> bool {
        let first = !self.header_done;
        if first {
            outln!("{}", header());
            self.header_done = true;
        }
        first
    }
}

impl Observer for Out {
    fn measuring(&mut self, run: &RunRaw) {
        self.raw.started_at = run.started_at;
    }

    fn event(&mut self, ev: &EventRaw) {
        self.raw.events.push(ev.clone());
        if self.quiet {
            return;
        }
        self.header_once();
        outln!("{}", event_line(ev));
        let _ = std::io::stdout().flush();
    }

    /// The core closed an interval; the sampler has just sampled it.
    fn interval(&mut self, _run: &RunSpec, iv: &IntervalRaw, _: &[Option<IntervalRaw>]) {
        self.raw.intervals.push(iv.clone());
        self.raw.measured_ns = iv.end_ns;
        self.save_now();
        if self.quiet {
            return;
        }
        let dev = self.dev.clone();
        let dev = dev.borrow();
        let Some(rows) = dev
            .stats()
            .intervals
            .last()
            .filter(|d| d.index == iv.index)
            .map(|d| &d.rows)
        else {
            return;
        };
        if !self.header_once() && iv.index > 0 && rows.len() > 1 && !self.skip_idle {
            outln!(); // as iostat: one block per interval
        }
        for r in rows {
            if !(self.skip_idle && idle(r)) {
                outln!("{}", device_line(iv.end_ns, r));
            }
        }
        let _ = std::io::stdout().flush();
    }
}

fn idle(r: &iolab_devices::DeviceRow) -> bool {
    let c = &r.stats.counts;
    c.reads + c.writes + c.discards + c.flushes == 0
}

/// The column heads: the time, then `iostat -x`'s columns with units.
pub fn header() -> String {
    format!("{:>9} {}", "time s", iolab_report::terminal::device_head())
}

/// One device over one interval ending `end_ns` after the start.
pub fn device_line(end_ns: u64, r: &iolab_devices::DeviceRow) -> String {
    format!(
        "{:>9.1} {}",
        end_ns as f64 / 1e9,
        iolab_report::terminal::device_cells(r)
    )
}

/// An event, at its time, between the device lines: the same line as
/// during a run.
pub fn event_line(ev: &EventRaw) -> String {
    iolab_report::terminal::event_line(&iolab_report::model::Event {
        time_s: ev.time_ns as f64 / 1e9,
        label: ev.label.clone(),
        source: ev.source.clone(),
    })
}

/// The result document of a monitor: one run with no workloads, its
/// device statistics and its events.
fn document(raw: &RunRaw, stats: DeviceStats) -> ResultDoc {
    let mut run = iolab_report::build_run(raw);
    run.devices = Some(stats);
    let mut doc = ResultDoc::new();
    doc.started_at = run.started_at.clone();
    doc.complete = run.complete;
    doc.runs.push(run);
    doc.finished_at = Some(iolab_report::model_time_now());
    doc
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The captured tree of a machine with one NVMe disk and a partition
    /// mounted on /srv/db (crates/devices' fixture).
    fn nvme() -> Sysroot {
        Sysroot::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../devices/tests/fixtures/nvme"
        ))
    }

    fn names(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn devices_are_chosen_as_iostat_does_or_as_named() {
        let root = nvme();
        // None named: whole devices used since boot, no partitions.
        assert_eq!(select(&root, &[]).unwrap().devices, ["nvme0n1"]);
        // A partition named is watched as named, by name or node.
        assert_eq!(
            select(&root, &names(&["nvme0n1p1"])).unwrap().devices,
            ["nvme0n1p1"]
        );
        assert_eq!(
            select(&root, &names(&["/dev/nvme0n1"])).unwrap().devices,
            ["nvme0n1"]
        );
        // A path: the device its file system is on, then the disk under it.
        let s = select(&root, &names(&["/srv/db", "nvme0n1"])).unwrap();
        assert_eq!(s.devices, ["nvme0n1p1", "nvme0n1"]);
        assert_eq!(s.targets[0].top, ["nvme0n1p1"]);
        let e = select(&root, &names(&["sdq"])).err().unwrap();
        assert!(
            e.contains("'sdq' is neither a block device nor an existing path"),
            "{e}"
        );
    }

    #[test]
    fn a_line_has_the_time_and_iostat_columns_under_their_heads() {
        let row = iolab_devices::DeviceRow {
            device: "sdb".into(),
            stats: iolab_devices::IostatRow {
                w_s: 4113.0,
                wkb_s: 16452.0,
                util_pct: 78.4,
                ..Default::default()
            },
        };
        let (h, l) = (header(), device_line(1_000_000_000, &row));
        assert_eq!(h.len(), l.len(), "{h}\n{l}");
        let end = |col: &str| h.find(col).unwrap() + col.len();
        assert_eq!(&l[..end("time s")].trim(), &"1.0");
        assert_eq!(&l[end("r/s")..end("w/s")].trim(), &"4113.0");
        assert_eq!(&l[end("rkB/s")..end("wkB/s")].trim(), &"16452.0");
        assert_eq!(&l[end("aqu-sz")..].trim(), &"78.4");
        let ev = EventRaw {
            time_ns: 1_412_000_000,
            label: "controller A failed".into(),
            source: "mark".into(),
        };
        assert_eq!(event_line(&ev), "    1.412 s  mark: controller A failed");
    }
}
