//! One entry point per parser family: raw bytes in, every parser of the
//! family run on them, and what iolab does next with a parsed value (a job
//! file is expanded and resolved, a result document rendered and compared,
//! a journal header checked against its maps), so the fuzzers reach the
//! code bad input really flows into. An entry point returns nothing: a
//! panic is the failure, and the drivers add the time and memory limits.
//!
//! Text parsers get the bytes as lossy UTF-8, so every input counts. Where
//! a parser is handed a file name for its messages, the name is fixed.

use iolab_core::mark_protocol;
use iolab_devices::{diskstats, inventory, mountinfo, sysroot, zfs};
use iolab_jobfile::{parse_job_text, resolve_run, Values};
use iolab_report::{compare, html, parse_document, tables, terminal};
use iolab_spec::{
    format_bytes, format_duration, parse_bs, parse_cpu_list, parse_data, parse_distribution,
    parse_duration, parse_engine, parse_rw, parse_size, DataPattern,
};
use iolab_verify::journal::{self, parse_header, parse_map, TargetIdent};
use iolab_verify::stamp::{self, Stamp, Stamper, SECTOR};
use iolab_verify::{check_block, Expect};
use std::path::Path;

/// Lines of a text input that the line-wise parsers see one by one.
const MAX_LINES: usize = 64;

/// Runs expanded from a job file's lists before they are resolved; above
/// this the fuzz target resolves the unexpanded workload only (the real
/// plan refuses more than `MAX_RUNS` before expanding).
const MAX_EXPANSIONS: u128 = 64;

/// The words of a line, as a command line's arguments.
fn words_of(s: &str) -> Vec<String> {
    s.split_whitespace().map(String::from).collect()
}

/// Sizes, durations, block-size mixes, CPU lists, `--rw`, `--distribution`,
/// `--data`, `--engine`, a fileset's `sizes` mix, `--p99-bound`, `--steady`,
/// I/O priorities, data patterns, curves, NUMA nodes and policies, `NAME=VALUE` arguments, iozone's command line, the list
/// syntax of sweepable flags,
/// sysfs numbers and the lines of the mark protocol: the whole input, then each of its lines.
pub fn units(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    for s in std::iter::once(text.as_ref()).chain(text.lines().take(MAX_LINES)) {
        if let Ok(v) = parse_size(s) {
            assert_eq!(parse_size(&v.to_string()), Ok(v), "size {s:?}");
            let _ = format_bytes(v);
        }
        if let Ok(d) = parse_duration(s) {
            let _ = format_duration(d);
        }
        let _ = parse_bs(s);
        let _ = parse_cpu_list(s);
        let _ = parse_rw(s);
        let _ = parse_distribution(s);
        let _ = parse_data(s);
        let _ = parse_engine(s);
        if let Ok(mix) = iolab_fileset::parse_size_mix(s) {
            assert!(mix.iter().any(|&(_, w)| w > 0), "size mix {s:?}");
        }
        let _ = Values::parse_text(s);
        let _ = Values::parse_arg(s);
        let _ = Values::parse_text_semi(s);
        let _ = Values::parse_arg_semi(s);
        file_system_text(s);
        let _ = iolab_report::study::P99Bound::parse(s);
        let _ = iolab_spec::steady::parse_steady(s, Some(2.0), 0.0);
        let _ = iolab_spec::prio::parse_class(s);
        let _ = iolab_spec::prio::parse_cmdprio(Some(s), None, None, None);
        let _ = iolab_spec::prio::parse_cmdprio(None, Some("be"), Some("4"), Some(s));
        let _ = iolab_spec::pattern::parse_pattern(s);
        let _ = iolab_spec::parse_curve(s);
        let _ = iolab_spec::numa::parse_nodes(s, "numa-cpu-nodes");
        let _ = iolab_spec::numa::parse_mem_policy(s);
        let _ = iolab_jobfile::frontend::parse_vars(&words_of(s));
        // iozone's command line (`iolab iozone`), the line's words.
        let _ = iolab_plan::study::iozone_cli::parse(&words_of(s));
        let _ = sysroot::parse_u64(s);
        // The mark protocol's two directions: a request as the listener
        // reads it, and an answer as `iolab mark` reads it; a parsed
        // answer must survive its own line.
        if let Ok(label) = mark_protocol::parse_request(s) {
            assert_eq!(
                mark_protocol::parse_request(mark_protocol::request(label).trim_end_matches('\n')),
                Ok(label)
            );
        }
        if let Some(r) = mark_protocol::Reply::parse(s) {
            let _ = mark_protocol::Reply::parse(&r.line());
        }
    }
}

/// The text forms of a file-system workload (`--mix`, `--flow`,
/// `--filesets`, `--file-select`, `--file-size`, `--format`, `--personality`): a mix or
/// flow parsed must render to text that parses back to itself.
fn file_system_text(s: &str) {
    use iolab_spec::fs_parse as fp;
    let sets = ["fs", "logs"];
    if let Ok(m) = fp::parse_mix(s, &sets) {
        assert_eq!(
            fp::parse_mix(&fp::mix_text(&m, &sets), &sets),
            Ok(m),
            "mix {s:?}"
        );
    }
    if let Ok(f) = fp::parse_flows(s, &sets, 2) {
        let t: Vec<String> = f.iter().map(|f| fp::flow_text(f, &sets)).collect();
        assert_eq!(
            fp::parse_flows(&t.join(" | "), &sets, 2),
            Ok(f),
            "flow {s:?}"
        );
    }
    if let Ok(f) = fp::parse_filesets(s) {
        assert_eq!(
            fp::parse_filesets(&fp::filesets_text(&f)),
            Ok(f),
            "filesets {s:?}"
        );
    }
    let _ = fp::parse_file_select(s);
    let _ = fp::parse_file_size(s);
    let _ = fp::parse_format(s);
    let _ = iolab_spec::personality::personality(
        s,
        Path::new("/fuzz"),
        &iolab_spec::personality::Overrides::default(),
    );
}

/// A TOML job file: parsed, its workloads expanded into runs (small plans)
/// and each run resolved into a validated spec.
pub fn jobfile(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let job = match parse_job_text(&text, "fuzz.toml") {
        Ok(j) => j,
        Err(e) => {
            assert!(!e.0.contains('\n'), "a job-file error is one line: {e}");
            return;
        }
    };
    // The runs of a file of [[run]] tables (or the refusal of its keys).
    if let Err(e) = job.runs() {
        assert!(!e.0.contains('\n'), "a job-file error is one line: {e}");
    }
    // Its hosts (the top-level `hosts` key, host-file lines), and the
    // text as a host file and as one host per line.
    match (job.hosts(), job.runs()) {
        (Err(e), _) => assert!(!e.0.contains('\n'), "a job-file error is one line: {e}"),
        // Each host's runs (a few hosts), the local check, the hosts line.
        (Ok(hosts), Ok(runs)) => {
            use iolab_jobfile::hosts::{check_local, describe, runs_for_host, shared_files};
            if let Err(e) = check_local(&runs) {
                assert!(!e.contains('\n'), "a host error is one line: {e}");
            }
            for h in hosts.iter().take(4) {
                if let Err(e) = runs_for_host(&runs, h, &hosts) {
                    assert!(!e.contains('\n'), "a host error is one line: {e}");
                }
            }
            let few = &hosts[..hosts.len().min(4)];
            let _ = describe(few, &runs);
            for n in shared_files(&runs, few) {
                assert!(!n.contains('\n'), "a note is one line: {n}");
            }
        }
        (Ok(_), Err(_)) => {}
    }
    if let Err(e) = iolab_spec::hosts::parse_hosts_file(&text) {
        assert!(!e.contains('\n'), "a host file error is one line: {e}");
    }
    for line in text.lines().take(MAX_LINES) {
        if let Err(e) = iolab_spec::hosts::parse_host(line) {
            assert!(!e.contains('\n'), "a host error is one line: {e}");
        }
    }
    for (i, w) in job.workloads().iter().enumerate() {
        let _ = w.axes();
        if w.expansion_count() <= MAX_EXPANSIONS {
            for (seed, (o, _params)) in w.expand().iter().enumerate() {
                let _ = resolve_run(o, i, seed);
            }
        } else {
            let _ = resolve_run(w, i, i);
        }
    }
}

/// A fio job file: recognised or not, parsed with a fixed environment,
/// fixed built-in variables and one includable file (`inc.fio`; never the
/// machine's files), mapped to iolab's runs; every option value and every
/// line through fio's value readers. Errors are one line.
pub fn fio(data: &[u8]) {
    use iolab_jobfile::fio::parse::{parse_files_with, Builtins, Host};
    let text = String::from_utf8_lossy(data);
    let _ = iolab_jobfile::fio::looks_like_fio(&text);
    let env = |n: &str| (n.len() < 8 && n.starts_with('V')).then(|| "4k".to_string());
    let read = |p: &Path| {
        if p.file_name().is_some_and(|n| n == "inc.fio") {
            Ok("bs=8k\n; c\nrw=randrw # t\ntime_based\nsize=${SIZE}\n".to_string())
        } else {
            Err("no files in the fuzz target".to_string())
        }
    };
    let host = Host {
        env: &env,
        builtins: Builtins {
            ncpus: 2,
            mb_memory: 4096,
            pagesize: 4096,
        },
        read: &read,
    };
    let vars = [
        ("SIZE".to_string(), "1m".to_string()),
        ("OFFSET".to_string(), "(2*4k)".to_string()),
    ];
    let files = [("fuzz.fio".to_string(), text.to_string())];
    if !text.contains("include") && !text.contains("${") {
        // Reads no file and no environment without these.
        if let Err(e) = iolab_jobfile::fio::parse::parse_files(&files, &vars) {
            assert!(!e.0.contains('\n'), "a fio job error is one line: {e}");
        }
    }
    match parse_files_with(&files, &vars, &host) {
        Err(e) => assert!(!e.0.contains('\n'), "a fio job error is one line: {e}"),
        Ok(f) => {
            for job in f.jobs.iter().take(MAX_LINES) {
                for o in job.options.iter().take(MAX_LINES) {
                    fio_value(o.value.as_deref().unwrap_or(""));
                }
            }
            let lo = iolab_jobfile::frontend::LoadOptions::default();
            if let Err(e) = iolab_jobfile::fio::map::map(&f, &lo) {
                assert!(!e.0.contains('\n'), "a fio job error is one line: {e}");
            }
        }
    }
    for line in text.lines().take(MAX_LINES) {
        fio_value(line);
        // fio's --client=HOST.
        if let Err(e) = iolab_jobfile::fio::client::parse_client(line) {
            assert!(!e.contains('\n'), "a --client error is one line: {e}");
        }
    }
    // fio's host list (--client=FILE).
    if let Err(e) = iolab_jobfile::fio::client::parse_client_list(&text) {
        assert!(!e.contains('\n'), "a host list error is one line: {e}");
    }
}

/// A vdbench parameter file: recognised or not, parsed with fixed
/// `NAME=VALUE` pairs and one includable file (`inc.vdb`; never the
/// machine's files), mapped to iolab's runs. Errors are one line.
pub fn vdbench(data: &[u8]) {
    use iolab_jobfile::vdbench::{looks_like_vdbench, map, parse};
    let text = String::from_utf8_lossy(data);
    let _ = looks_like_vdbench(&text);
    let read = |p: &Path| {
        if p.file_name().is_some_and(|n| n == "inc.vdb") {
            Ok("* inc\nsd=default,threads=$t,\n  size=1m\neof\n".to_string())
        } else {
            Err("no files in the fuzz target".to_string())
        }
    };
    let vars = [
        ("lun".to_string(), "/dev/fuzz".to_string()),
        ("t".to_string(), "(1,2)".to_string()),
    ];
    if !text.to_ascii_lowercase().contains("include") {
        // Reads no file without it.
        if let Err(e) = parse::parse("fuzz.vdb", &text, &vars) {
            assert!(!e.0.contains('\n'), "a vdbench error is one line: {e}");
        }
    }
    match parse::parse_with("fuzz.vdb", &text, &vars, &read) {
        Err(e) => assert!(!e.0.contains('\n'), "a vdbench error is one line: {e}"),
        Ok(f) => {
            let lo = iolab_jobfile::frontend::LoadOptions::default();
            if let Err(e) = map::map(&f, &lo) {
                assert!(!e.0.contains('\n'), "a vdbench error is one line: {e}");
            }
        }
    }
}

/// A filebench WML file: recognised or not, parsed, mapped onto iolab's
/// keys with fixed `NAME=VALUE` pairs, and the keys read into iolab's
/// options. Errors are one line naming the file.
pub fn filebench(data: &[u8]) {
    use iolab_jobfile::filebench::{looks_like_filebench, map, parse::parse};
    let text = String::from_utf8_lossy(data);
    let _ = looks_like_filebench(&text);
    let one_line = |e: &iolab_jobfile::JobError| {
        assert!(!e.0.contains('\n'), "a filebench error is one line: {e}");
        assert!(
            e.0.starts_with("fuzz.f"),
            "a filebench error names the file: {e}"
        );
    };
    match parse("fuzz.f", &text) {
        Err(e) => one_line(&e),
        Ok(w) => {
            let lo = iolab_jobfile::frontend::LoadOptions {
                vars: vec![
                    ("dir".to_string(), "/fuzz".to_string()),
                    ("nthreads".to_string(), "2".to_string()),
                ],
                ..Default::default()
            };
            if let Err(e) = map::translate(&w, &lo) {
                one_line(&e);
            }
            // A build without a key the mapping uses refuses in one line too.
            if let Err(e) = map::map(&w, &lo) {
                one_line(&e);
            }
        }
    }
}

/// One text through every reader of fio's values; a size read must read
/// back from its number.
fn fio_value(s: &str) {
    use iolab_jobfile::fio::values::{self as v, Expr, TimeUnit, Units};
    for units in [Units::default(), Units { kb_base: 1000 }] {
        if let Ok(b) = v::parse_size(s, &units) {
            assert_eq!(
                v::parse_size(&b.to_string(), &units),
                Ok(b),
                "fio size {s:?}"
            );
        }
        let _ = v::parse_size_or_percent(s, &units);
        let _ = v::parse_range(s, &units);
    }
    let _ = Units::from_kb_base(s);
    let _ = v::parse_int(s);
    for unit in [TimeUnit::Seconds, TimeUnit::Millis, TimeUnit::Micros] {
        let _ = v::parse_time_us(s, unit);
        let _ = v::eval(s, Expr::Time(unit));
    }
    let _ = v::parse_bool(Some(s));
    let _ = v::parse_percent(s);
    if let Ok(dirs) = v::split_dirs(s) {
        for d in dirs.iter().flatten() {
            let _ = v::parse_size(d, &Units::default());
        }
    }
    let _ = v::eval(s, Expr::Bytes);
    let _ = v::eval(s, Expr::Plain);
    let _ = v::eval_bc(s);
}

/// What the terminal shows of a run on several hosts (the HTML report,
/// the tables and compare reach the rest): the interval lines per host
/// and the per-host summary.
fn multi_host_lines(r: &iolab_report::model::RunResult) {
    if r.hosts.is_empty() {
        return;
    }
    let fs = r.workloads.iter().any(|w| w.io_summary.is_some());
    let _ = terminal::host_interval_header(fs);
    let _ = terminal::hosts_summary(r);
    let _ = tables::hosts_table(r);
    for (i, iv) in r.intervals.iter().enumerate().take(MAX_LINES) {
        let hs: Vec<(&str, Option<&iolab_report::model::Interval>)> = r
            .hosts
            .iter()
            .take(MAX_LINES)
            .map(|h| (h.host.as_str(), h.run.intervals.get(i)))
            .collect();
        let _ = terminal::host_interval_lines(iv, &hs, fs);
    }
}

/// A result document: parsed, then everything `iolab report` and
/// `iolab compare` make of it (HTML, Markdown, CSV, terminal text, a
/// comparison of the document with itself).
pub fn result_doc(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let Ok(doc) = parse_document(&text, "fuzz.json") else {
        return;
    };
    let _ = html::document_report(&doc);
    let _ = tables::document_markdown(&doc);
    let _ = tables::document_csv(&doc);
    let _ = terminal::points_table(&doc);
    for r in &doc.runs {
        for w in &r.workloads {
            let _ = terminal::run_heading(&w.spec);
        }
        let _ = terminal::summary(r);
        let names: Vec<&str> = r.workloads.iter().map(|w| w.name.as_str()).collect();
        let fs = r.workloads.iter().any(|w| w.io_summary.is_some());
        let _ = terminal::interval_header_of(&names, fs);
        for (i, iv) in r.intervals.iter().enumerate().take(MAX_LINES) {
            let _ = terminal::interval_line(iv, fs);
            let ws: Vec<(&str, Option<&iolab_report::model::Interval>)> = r
                .workloads
                .iter()
                .take(MAX_LINES)
                .map(|w| (w.name.as_str(), w.intervals.get(i)))
                .collect();
            let _ = terminal::interval_lines(iv, &ws, fs);
        }
        for e in r.events.iter().take(MAX_LINES) {
            let _ = terminal::event_line(e);
        }
        if let Some(d) = &r.devices {
            let _ = terminal::device_summary(d);
        }
        multi_host_lines(r);
    }
    if let Some(v) = &doc.verify {
        let _ = terminal::verify_summary(v);
        for f in v.findings.iter().take(MAX_LINES) {
            let _ = terminal::finding_line(f);
            let _ = terminal::finding_log_entry(f);
        }
    }
    let docs = [
        ("before".to_string(), "before.json".to_string(), &doc),
        ("after".to_string(), "after.json".to_string(), &doc),
    ];
    let res = compare::compare(&docs, &[]);
    let _ = compare::render::text(&res);
    let _ = compare::render::markdown(&res);
    let _ = compare::render::csv(&res);
    let _ = compare::render::html(&res);
}

/// Journal maps the fuzz target checks per input (each gets a copy).
const MAX_MAPS: usize = 4;

/// A journal: `journal.json`, a NUL byte, then the bytes every target's map
/// file holds. Map bytes that start with `FIX` get a map header that
/// matches the journal (the fuzzer cannot forge its checksum), so the
/// checks behind it are reached too.
pub fn journal(data: &[u8]) {
    let (head, map) = match data.iter().position(|&b| b == 0) {
        Some(i) => (&data[..i], &data[i + 1..]),
        None => (data, &[][..]),
    };
    let text = String::from_utf8_lossy(head);
    let Ok(h) = parse_header(&text, Path::new("journal.json")) else {
        return;
    };
    let _ = h.crashed();
    for i in 0..h.targets.len().min(MAX_MAPS) {
        let bytes = match map.strip_prefix(b"FIX") {
            Some(rest) => {
                let t = &h.targets[i];
                let mut b =
                    journal::map_header(h.series_u64(), i as u32, h.block_size, t.blocks).to_vec();
                b.resize(iolab_verify::map::MAP_HEADER, 0);
                b.extend_from_slice(rest);
                b
            }
            None => map.to_vec(),
        };
        let _ = parse_map(bytes, &h, i, Path::new("map-0.bin"));
    }
    let t = &h.targets[0];
    let ident = TargetIdent {
        path: t.path.clone(),
        kind: t.kind.clone(),
        dev: t.dev,
        ino: t.ino,
        size: t.size,
    };
    let _ = journal::match_targets(Path::new("journal"), &h, &[ident]);
    let _ = Stamper::new(h.series_u64(), h.data, h.data_seed);
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    let mut w = [0u8; 8];
    for (i, x) in w.iter_mut().enumerate() {
        *x = b.get(at + i).copied().unwrap_or(0);
    }
    u64::from_le_bytes(w)
}

/// Bytes of the block description before the sector recipes.
const STAMP_CONFIG: usize = 24;
/// Bytes of one sector recipe.
const STAMP_RECIPE: usize = 24;

/// A block read back from a verified target: the stamp parser on every
/// sector and the check that classifies what was found. The input
/// describes the block so a fuzzer reaches stamps with valid checksums:
///
/// - 24 bytes of expectation: sectors per block (1..=8), generation,
///   old-or-new, series, offset, target, data pattern;
/// - then one 24-byte recipe per sector: a zero sector, raw bytes, a valid
///   stamp with fields taken from the recipe (the run's series or another,
///   any generation, index, target, offset, block size), or such a stamp
///   with one byte changed after stamping.
pub fn stamps(data: &[u8]) {
    let cfg = |i: usize| data.get(i).copied().unwrap_or(0);
    let unit_sectors = 1 + cfg(0) as usize % 8;
    let unit = unit_sectors * SECTOR;
    let series = u64_at(data, 3);
    // A block of a real target: below 2^56 bytes (64 PiB), sector aligned.
    let offset = u64_at(data, 11) & ((1 << 56) - 1) & !(SECTOR as u64 - 1);
    let pattern = match cfg(20) % 3 {
        0 => DataPattern::Random,
        1 => DataPattern::Zero,
        _ => DataPattern::Compress {
            ratio: 1.0 + cfg(21) as f64 / 16.0,
        },
    };
    let st = if cfg(22) & 1 == 0 {
        Stamper::new(series, pattern, u64::from(cfg(23)))
    } else {
        Stamper::unknown(series)
    };
    let e = Expect {
        target: u32::from(cfg(19) % 4),
        offset,
        unit,
        gen: cfg(1),
        old_or_new: cfg(2) & 1 == 1,
    };
    let recipes = data.get(STAMP_CONFIG..).unwrap_or(&[]);
    let mut block = vec![0u8; unit];
    for (i, s) in block.chunks_exact_mut(SECTOR).enumerate() {
        let r = recipes
            .get(i * STAMP_RECIPE..(i + 1) * STAMP_RECIPE)
            .unwrap_or(&[0u8; STAMP_RECIPE]);
        match r[0] % 4 {
            0 => {}
            1 => {
                for (j, b) in s.iter_mut().enumerate() {
                    *b = r[1 + j % (STAMP_RECIPE - 1)];
                }
            }
            k => {
                let delta = u64_at(r, 8) as i64 >> 40;
                let t = Stamp {
                    gen: r[1],
                    index: u16::from_le_bytes([r[2], r[3]]),
                    series: if r[4] & 1 == 0 { series } else { u64_at(r, 16) },
                    target: u32::from(r[5] % 4),
                    unit_sectors: if r[6] & 1 == 0 {
                        unit_sectors as u32
                    } else {
                        u32::from(r[6])
                    },
                    offset: (offset + (i * SECTOR) as u64).wrapping_add_signed(delta),
                    time_ns: u64_at(r, 12),
                };
                st.stamp_sector(s, &t);
                if k == 3 {
                    s[r[7] as usize * 2] ^= r[4] | 1;
                }
            }
        }
        let _ = stamp::parse(s);
    }
    let _ = check_block(&st, &block, &e);
}

/// Text from /proc and /sys: mountinfo (both parsers), /proc/swaps, the
/// octal escapes, diskstats (the first and second half of the lines as
/// two samples of each device, then the `iostat -x` arithmetic between
/// them), bracketed sysfs choices, `multipathd show paths`,
/// `zpool status -P` and sysfs numbers.
pub fn procfs(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let _ = iolab_target::parse_mountinfo(&text);
    let _ = iolab_target::parse_swaps(&text);
    let _ = iolab_target::unescape(&text);
    let mounts = mountinfo::parse(&text);
    for m in mounts.iter().take(MAX_LINES) {
        let _ = m.option("compress");
        let _ = mountinfo::mount_of(&mounts, &m.mount_point);
    }
    let _ = mountinfo::mount_of(&mounts, "/mnt/data/file");
    let lines: Vec<&str> = text.lines().take(MAX_LINES).collect();
    let (a, b) = lines.split_at(lines.len() / 2);
    let (a, b) = (a.join("\n"), b.join("\n"));
    for name in lines
        .iter()
        .filter_map(|l| l.split_ascii_whitespace().nth(2))
        .take(4)
    {
        let prev = diskstats::find(&a, name);
        let cur = diskstats::find(&b, name);
        if let (Some(p), Some(c)) = (prev, cur) {
            for ms in [1000.0, 0.0, 1e-9] {
                let _ = diskstats::iostat(&p, &c, ms);
                let _ = diskstats::iostat(&c, &p, ms);
            }
        }
    }
    for l in &lines {
        let _ = diskstats::parse_fields(l);
        let _ = inventory::active_choice(l);
        let _ = sysroot::parse_u64(l);
    }
    for w in lines.windows(2) {
        let _ = sysroot::natural_cmp(w[0], w[1]);
    }
    let _ = inventory::parse_multipathd_paths(&text);
    let _ = zfs::parse_status(&text);
}

/// Sizes the `signatures` target gives its device image: the input's own
/// length, then sparse images large enough for the signatures kept near
/// the end of a device (md 0.90/1.0, ZFS labels).
const IMAGE_SIZES: [u64; 4] = [0, 1 << 20, 16 << 20, 4 << 30];

/// Signatures on a device image: the first input byte picks the image size
/// (see [`IMAGE_SIZES`]), the rest is written at its start and again at
/// its end, in a sparse in-memory file (memfd), and the signature probe
/// reads it as it reads a device before writing to it.
pub fn signatures(data: &[u8]) {
    use std::io::{Seek, SeekFrom, Write};
    use std::os::fd::FromRawFd;
    let (class, body) = match data.split_first() {
        Some((c, b)) => (*c as usize % IMAGE_SIZES.len(), b),
        None => (0, data),
    };
    let size = IMAGE_SIZES[class].max(body.len() as u64);
    // SAFETY: memfd_create with a valid C string; the fd is owned by the
    // File from here on.
    let fd = unsafe { libc::memfd_create(c"iolab-fuzz".as_ptr(), libc::MFD_CLOEXEC) };
    assert!(fd >= 0, "memfd_create: {}", std::io::Error::last_os_error());
    // SAFETY: a fresh fd nothing else owns.
    let mut f = unsafe { std::fs::File::from_raw_fd(fd) };
    f.set_len(size).expect("memfd set_len");
    f.write_all(body).expect("memfd write");
    f.seek(SeekFrom::Start(size - body.len() as u64))
        .expect("memfd seek");
    f.write_all(body).expect("memfd write");
    let _ = iolab_target::detect_signatures(&f, size);
}

/// The agent protocol (iolab_remote::proto): the agent's parser of the
/// controller's frames (`parse_agent_stream`) and the controller's of an
/// agent's (`FromAgent` frames), and the input as one payload of either.
/// A message read must write and read back: the same message from the
/// controller, a readable one from an agent. Host files and host names
/// (`--hosts`, `--hosts-file`) too.
pub fn remote(data: &[u8]) {
    use iolab_remote::proto::{self, FromAgent, ToAgent};
    for m in proto::parse_agent_stream(data).into_iter().flatten() {
        let mut b = Vec::new();
        proto::write_frame(&mut b, &m).expect("a message read writes");
        let back = proto::parse_agent_stream(&b);
        assert!(
            matches!(back.as_slice(), [Ok(x)] if *x == m),
            "{m:?} reads back as {back:?}"
        );
    }
    let mut r = data;
    while let Ok(m) = proto::read_message::<_, FromAgent>(&mut r) {
        let mut b = Vec::new();
        proto::write_frame(&mut b, &m).expect("a message read writes");
        if let Err(e) = proto::read_message::<_, FromAgent>(&mut b.as_slice()) {
            panic!("an agent's message does not read back: {e}");
        }
    }
    let _ = proto::decode::<ToAgent>(data);
    let _ = proto::decode::<FromAgent>(data);
    // Where the agents run: a host file, and each line as a host name.
    let text = String::from_utf8_lossy(data);
    let _ = iolab_spec::hosts::parse_hosts_file(&text);
    for l in text.lines().take(MAX_LINES) {
        let _ = iolab_spec::hosts::parse_host(l);
    }
}
