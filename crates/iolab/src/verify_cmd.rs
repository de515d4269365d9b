//! `iolab verify`: read what was written and check it, offline.

use crate::exit::EXIT_BAD_INPUT;
use crate::run::FindingsLog;
use iolab_report::model::{ResultDoc, VerifyResult};
use iolab_report::{save_document, terminal};
use iolab_target::PrepareOptions;
use iolab_verify::journal::{load, match_targets};
use iolab_verify::scan::{scan, ScanOptions, ScanTarget};
use iolab_verify::stamp::{parse, Sector};
use iolab_verify::{Class, Stamper, TargetIdent, VerifyTotals, SECTOR};
use std::io::IsTerminal;
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

#[derive(clap::Args, Debug, Default)]
pub struct VerifyArgs {
    /// A target to check (repeatable). With --journal, the default is every target of the journal
    #[arg(long, value_name = "PATH")]
    pub target: Vec<PathBuf>,

    /// The journal of the runs that wrote the targets (`iolab run --verify --journal DIR`): every block is checked against the generation it was last given; without it, stamps are only checked against each other and their place
    #[arg(long, value_name = "DIR")]
    pub journal: Option<PathBuf>,

    /// Write the result document here (docs/results.md, `verify`)
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,

    /// Stop after N findings (0: check everything)
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub max_errors: u64,

    /// Log findings here (default: findings.log in the journal directory, else iolab-findings.log)
    #[arg(long, value_name = "FILE")]
    pub findings_log: Option<PathBuf>,

    /// No progress line
    #[arg(long, short = 'q')]
    pub quiet: bool,

    /// Let --json or --findings-log replace an existing file that iolab did not write (never a block device or a target; see docs/results.md)
    #[arg(long)]
    pub force: bool,
}

fn bad(msg: &str) -> ExitCode {
    eprintln!("iolab: {msg}");
    ExitCode::from(EXIT_BAD_INPUT)
}

struct Opened {
    path: String,
    file: std::fs::File,
    size: u64,
}

/// Open a target read-only, O_DIRECT where the kernel allows it, so the
/// check reads the medium rather than the page cache (dirty pages of a
/// file are written back first).
fn open_target(p: &Path) -> Result<Opened, String> {
    let info = iolab_target::prepare(
        p,
        &PrepareOptions {
            write: false,
            size: None,
            destroy_data_on: Vec::new(),
            allow_mounted_write: false,
        },
    )
    .map_err(|e| e.to_string())?;
    let file = match iolab_target::open(&info, false, true, false) {
        Ok(f) => f,
        Err(_) => iolab_target::open(&info, false, false, false).map_err(|e| e.to_string())?,
    };
    Ok(Opened {
        path: p.to_string_lossy().into_owned(),
        file,
        size: info.size,
    })
}

/// Without a journal: the block size from the first stamp found.
fn detect_block_size(o: &Opened) -> Option<usize> {
    let mut buf = vec![0u8; 1 << 20];
    let mut off = 0u64;
    let limit = o.size.min(256 << 20);
    // Buffered reads here (the block size only), so any alignment works.
    let f = std::fs::File::open(format!("/proc/self/fd/{}", o.file.as_raw_fd())).ok()?;
    use std::os::unix::fs::FileExt;
    while off < limit {
        let n = f.read_at(&mut buf, off).ok()?;
        if n == 0 {
            break;
        }
        for s in buf[..n - n % SECTOR].chunks_exact(SECTOR) {
            if let Sector::Stamped(t) = parse(s) {
                return Some(t.unit_sectors as usize * SECTOR);
            }
        }
        off += n as u64;
    }
    None
}

pub fn verify_command(args: VerifyArgs) -> ExitCode {
    if args.journal.is_none() && args.target.is_empty() {
        return bad("iolab verify needs --target PATH, --journal DIR, or both");
    }
    // The outputs are checked before anything is read.
    let mut rules = iolab_target::OutputRules::new(args.force);
    for t in &args.target {
        rules.protect(t, "a target of this verify");
    }
    let jdir = args
        .journal
        .as_ref()
        .map(|d| d.to_string_lossy().into_owned());
    let log_path = crate::outputs::findings_log_path(args.findings_log.as_deref(), jdir.as_deref());
    let log_flag = if args.findings_log.is_some() {
        "--findings-log"
    } else {
        "the findings log"
    };
    let mut list = Vec::new();
    if let Some(p) = &args.json {
        list.push(("--json", p.as_path(), iolab_target::OutputKind::ResultJson));
    }
    // A missing journal is said by the journal check below.
    if args.findings_log.is_some() || args.journal.as_ref().is_none_or(|j| j.is_dir()) {
        list.push((
            log_flag,
            log_path.as_path(),
            iolab_target::OutputKind::FindingsLog,
        ));
    }
    let json_out = match iolab_target::check_outputs(&list, &rules) {
        Ok(v) => v.into_iter().next().filter(|_| args.json.is_some()),
        Err(e) => return crate::outputs::refused(&e),
    };
    let tty = std::io::stderr().is_terminal() && !args.quiet;
    let mut totals = VerifyTotals::default();
    let mut read_errors = Vec::new();
    let mut result = VerifyResult {
        max_errors: args.max_errors,
        ..Default::default()
    };
    let t0 = Instant::now();
    let started_at = iolab_report::model_time_now();
    let progress = |path: &str, done: u64, total: u64| {
        if tty {
            let mib = done as f64 / 1048576.0;
            eprint!(
                "\r\x1b[Kverify: {path} {:.0}% ({mib:.0} of {:.0} MiB, {:.0} MiB/s)",
                done as f64 * 100.0 / total.max(1) as f64,
                total as f64 / 1048576.0,
                mib / t0.elapsed().as_secs_f64().max(1e-3)
            );
        }
    };
    let mut bytes = 0u64;
    match &args.journal {
        Some(dir) => {
            // Read-only: nothing in the journal is changed. Locked first,
            // so a run cannot start changing it while it is read.
            let _lock = match share_lock(dir) {
                Ok(l) => l,
                Err(e) => return bad(&e),
            };
            let (h, maps) = match load(dir) {
                Ok(x) => x,
                Err(e) => return bad(&e.0),
            };
            let paths: Vec<PathBuf> = if args.target.is_empty() {
                h.targets.iter().map(|t| PathBuf::from(&t.path)).collect()
            } else {
                args.target.clone()
            };
            let mut opened = Vec::new();
            for p in &paths {
                match open_target(p) {
                    Ok(o) => opened.push(o),
                    Err(e) => return bad(&e),
                }
            }
            let idents: Vec<TargetIdent> = match opened
                .iter()
                .map(|o| TargetIdent::of(Path::new(&o.path), o.size))
                .collect::<Result<_, _>>()
            {
                Ok(v) => v,
                Err(e) => return bad(&format!("cannot identify a target: {e}")),
            };
            let index = match match_targets(dir, &h, &idents) {
                Ok(i) => i,
                Err(e) => return bad(&e.0),
            };
            let opts = ScanOptions {
                stamper: Stamper::new(h.series_u64(), h.data, h.data_seed),
                block_size: h.block_size as usize,
                crashed: h.crashed(),
                max_findings: args.max_errors,
            };
            result.block_size = h.block_size;
            result.series = h.series.clone();
            result.journal = Some(dir.to_string_lossy().into_owned());
            result.journal_crashed = h.crashed();
            if h.crashed() && !args.quiet {
                eprintln!("iolab: journal {} was not closed (the run crashed or was killed): blocks whose last write was in flight or not yet durable may hold their old data", dir.display());
                if !h.last_run_durable {
                    eprintln!("iolab: the last run promised no durability (no --sync dsync or --fsync-every), so its journal was not synced before writes: after a power cut (not after kill -9) a block may hold newer data than the journal knows and show as stale");
                }
            }
            for (o, &i) in opened.iter().zip(&index) {
                let map = &maps[i as usize];
                scan(
                    &ScanTarget {
                        path: o.path.clone(),
                        file: &o.file,
                        index: i,
                        size: o.size,
                        map: Some(map),
                    },
                    &opts,
                    &mut totals,
                    &mut read_errors,
                    &mut |d, t| progress(&o.path, d, t),
                );
                bytes += map.iter().filter(|v| *v & 0x3f != 0).count() as u64 * h.block_size;
            }
        }
        None => {
            for p in &args.target {
                let o = match open_target(p) {
                    Ok(o) => o,
                    Err(e) => return bad(&e),
                };
                let Some(bs) = detect_block_size(&o) else {
                    // Without a journal only stamps say what to expect:
                    // none is the wrong target, not a clean one.
                    return bad(&format!(
                        "{} holds no iolab stamps in its first 256 MiB, so nothing can be verified; give a target written by iolab run --verify (or its --journal)",
                        o.path
                    ));
                };
                result.block_size = bs as u64;
                let opts = ScanOptions {
                    stamper: Stamper::unknown(0),
                    block_size: bs,
                    crashed: false,
                    max_findings: args.max_errors,
                };
                scan(
                    &ScanTarget {
                        path: o.path.clone(),
                        file: &o.file,
                        index: 0,
                        size: o.size,
                        map: None,
                    },
                    &opts,
                    &mut totals,
                    &mut read_errors,
                    &mut |d, t| progress(&o.path, d, t),
                );
                bytes += o.size / bs as u64 * bs as u64;
            }
        }
    }
    if tty {
        eprint!("\r\x1b[K");
    }
    result.blocks_checked = totals.blocks_checked;
    result.blocks_unwritten = totals.blocks_unwritten;
    result.blocks_old_accepted = totals.blocks_old_accepted;
    result.findings_total = totals.findings_total;
    for c in Class::ALL {
        result.by_class.insert(
            c.name().into(),
            totals.by_class.get(c.name()).copied().unwrap_or(0),
        );
    }
    result.findings = totals.findings;
    result.stopped_on_max_errors = args.max_errors > 0 && result.findings_total >= args.max_errors;
    result.read_errors = read_errors;
    result.bytes_scanned = bytes;
    out!("{}", terminal::verify_summary(&result));
    for e in result.read_errors.iter().take(10) {
        outln!(
            "  read error on {} at offset {}: {}",
            e.target,
            e.offset,
            iolab_engine::errno_name(e.errno)
        );
    }
    let secs = t0.elapsed().as_secs_f64();
    outln!(
        "verified {:.1} MiB in {secs:.1} s",
        bytes as f64 / 1048576.0
    );
    let mut log = FindingsLog::new(args.findings_log.clone(), args.force);
    if let Err(e) = log.append(&result, jdir.as_deref()) {
        eprintln!("iolab: {e}");
    }
    if let Some(p) = log.written() {
        eprintln!("iolab: findings logged to {}", p.display());
    }
    let failed = result.findings_total > 0 || !result.read_errors.is_empty();
    if let Some(out) = &json_out {
        let doc = ResultDoc {
            started_at,
            finished_at: Some(iolab_report::model_time_now()),
            complete: !result.stopped_on_max_errors,
            verify: Some(result),
            ..ResultDoc::new()
        };
        if let Err(e) = save_document(out, &doc) {
            eprintln!("iolab: {e}");
            return ExitCode::from(1);
        }
    }
    ExitCode::from(failed as u8)
}

/// A shared lock on the journal while checking, so a run cannot change
/// it underneath (a missing lock file is not created: verify changes
/// nothing in the journal).
fn share_lock(dir: &Path) -> Result<Option<std::fs::File>, String> {
    let p = dir.join("journal.lock");
    let Ok(f) = std::fs::File::open(&p) else {
        return Ok(None);
    };
    // SAFETY: flock on an fd we own.
    if unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_SH | libc::LOCK_NB) } != 0 {
        return Err(format!(
            "journal {} is in use by a running iolab; verify after it ends",
            dir.display()
        ));
    }
    Ok(Some(f))
}
