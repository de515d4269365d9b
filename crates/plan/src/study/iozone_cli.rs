//! iozone's command line (`iolab iozone -a -i 0 -i 1 -s 8m ...`) read
//! into the iozone study's matrix and the layout of iozone's output.
//!
//! The syntax is iozone's (getopt): single-letter options, clustered
//! (`-Ra`) or not, values joined (`-s8m`) or separate (`-s 8m`), `-+n`,
//! and `-F` taking one file name per process. Sizes are iozone's: a plain
//! number is kB (1024 bytes), `k`, `m` or `g` (either case) multiply. The
//! semantics are iozone's too (auto mode's file and record size ranges
//! and crossover, `-t` and `-F`'s rules); where iozone would silently fix
//! a bad value, iolab refuses it. iolab's own options are long ones:
//! `--json FILE`, `--force`, `--dry-run`, anywhere on the line.

use super::iozone::{tests_of, Matrix, Place};
use crate::plan::PlanArgs;
use iolab_report::study::iozone_text::Layout;
use std::path::PathBuf;

/// iozone `-a`'s defaults: file sizes 64 kB to 512 MB, records 4 kB to
/// 16 MB, each step doubling.
const AUTO_FILES: (u64, u64) = (64 << 10, 512 << 20);
const AUTO_RECORDS: (u64, u64) = (4 << 10, 16 << 20);
/// Without `-a`: iozone's one file of 512 kB in 4 kB records.
const ONE_FILE: u64 = 512 << 10;
const ONE_RECORD: u64 = 4 << 10;
/// iozone's largest record (its buffer) and most processes.
const MAX_RECORD: u64 = 16 << 20;
const MAX_PROCESSES: u32 = 256;

/// What `iolab iozone` runs and prints.
#[derive(Debug)]
pub struct IozoneCmd {
    pub matrix: Matrix,
    pub layout: Layout,
    /// `--json FILE`: iolab's result document.
    pub json: Option<PathBuf>,
    pub force: bool,
}

/// iozone's options iolab does not run, with what they do (for the one
/// line that refuses them).
const OTHERS: [(char, &str, bool); 32] = [
    ('A', "auto mode 2 (give -a -z -i 0 -i 1)", false),
    ('B', "mmap files", false),
    ('C', "bytes per child", false),
    ('d', "barrier delay", true),
    ('D', "msync(MS_ASYNC) on mmap files", false),
    ('E', "extension tests", false),
    ('G', "msync(MS_SYNC) on mmap files", false),
    ('H', "POSIX async I/O", true),
    ('j', "stride", true),
    ('J', "compute delay", true),
    ('k', "POSIX async I/O without copy", true),
    ('K', "random accesses injected", false),
    ('l', "lower process limit", true),
    ('L', "cache line size", true),
    ('m', "multiple buffers", false),
    ('M', "uname in the output", false),
    ('N', "microseconds per operation", false),
    ('O', "operations per second", false),
    ('p', "purge the processor cache", false),
    ('P', "CPU binding", true),
    ('Q', "offset/latency files", false),
    ('S', "processor cache size", true),
    ('T', "POSIX threads", false),
    ('u', "upper process limit", true),
    ('U', "unmount and remount", true),
    ('v', "version", false),
    ('V', "verify pattern", true),
    ('W', "file locking", false),
    ('x', "no stone-walling", false),
    ('X', "write telemetry file", true),
    ('Y', "read telemetry file", true),
    ('Z', "mmap and file I/O mixed", false),
];

/// iozone's tests by `-i` number.
const TEST_NAMES: [&str; 13] = [
    "write/rewrite",
    "read/re-read",
    "random read/write",
    "read backwards",
    "record rewrite",
    "stride read",
    "fwrite/re-fwrite",
    "fread/re-fread",
    "random mix",
    "pwrite/re-pwrite",
    "pread/re-pread",
    "pwritev/re-pwritev",
    "preadv/re-preadv",
];

/// The options as given, before iozone's rules combine them.
#[derive(Debug, Default)]
struct Given {
    auto: bool,
    sizes: Vec<u64>,
    records: Vec<u64>,
    numbers: Vec<u8>,
    file: Option<PathBuf>,
    files: Vec<PathBuf>,
    processes: Option<u32>,
    min_file: Option<u64>,
    max_file: Option<u64>,
    min_rec: Option<u64>,
    max_rec: Option<u64>,
    no_cross: bool,
    direct: bool,
    fsync: bool,
    excel: bool,
    keep: bool,
    dsync: bool,
    no_retest: bool,
    json: Option<PathBuf>,
    force: bool,
    dry_run: bool,
    help: bool,
    splash: Vec<String>,
}

/// iozone's size: a number of kB, or with `k`, `m`, `g`.
fn size(opt: char, v: &str) -> Result<u64, String> {
    let v = v.trim();
    let (num, mult) = match v.char_indices().last() {
        Some((i, c)) if c.is_ascii_alphabetic() => {
            let m = match c.to_ascii_lowercase() {
                'k' => 1u64 << 10,
                'm' => 1 << 20,
                'g' => 1 << 30,
                _ => 0,
            };
            (&v[..i], m)
        }
        _ => (v, 1 << 10),
    };
    let n = num.parse::<u64>().ok().filter(|_| mult > 0);
    match n.and_then(|n| n.checked_mul(mult)) {
        Some(b) if b > 0 => Ok(b),
        _ => Err(format!(
            "-{opt} {v}: give a size above 0 in kB, or with k, m or g (e.g. -{opt} 64k, -{opt} 1g)"
        )),
    }
}

fn kb(b: u64) -> u64 {
    b / 1024
}

/// Parse iozone's command line (without `iolab iozone`); `None` for
/// `-h` (print [`USAGE`]).
pub fn parse(args: &[String]) -> Result<Option<IozoneCmd>, String> {
    if args.is_empty() {
        // iozone prints a usage hint too rather than run with no options.
        return Err("give iozone's options, e.g. iolab iozone -a -i 0 -i 1 -f FILE; 'iolab iozone -h' lists them".into());
    }
    let g = scan(args)?;
    if g.help {
        return Ok(None);
    }
    let matrix = combine(&g)?;
    let mut numbers = if g.numbers.is_empty() {
        vec![0, 1, 2]
    } else {
        g.numbers.clone()
    };
    numbers.sort_unstable();
    numbers.dedup();
    let mut splash = g.splash.clone();
    if g.numbers.is_empty() {
        splash.push(
            "Tests 0 (write/rewrite), 1 (read/re-read) and 2 (random read/write): iozone's others are not iolab's".into(),
        );
    }
    splash.push(format!(
        "iolab: engine {}, one record per I/O, {} I/O",
        matrix.engine,
        if matrix.direct {
            "O_DIRECT"
        } else {
            "buffered"
        }
    ));
    if let Some(n) = g.processes {
        let (f, r) = (matrix.files[0], matrix.records[0]);
        splash.push(format!(
            "Each process writes a {} kByte file in {} kByte records ({n} at once)",
            kb(f),
            kb(r)
        ));
    }
    Ok(Some(IozoneCmd {
        layout: Layout {
            splash,
            numbers,
            no_retest: g.no_retest,
            excel: g.excel,
            records: matrix.records.clone(),
            throughput: g.processes,
        },
        matrix,
        json: g.json,
        force: g.force,
    }))
}

/// Read the words into `Given`, one option at a time.
fn scan(args: &[String]) -> Result<Given, String> {
    let mut g = Given::default();
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        i += 1;
        if let Some(long) = a.strip_prefix("--") {
            i = long_option(&mut g, long, args, i)?;
            continue;
        }
        let Some(body) = a.strip_prefix('-').filter(|b| !b.is_empty()) else {
            return Err(format!(
                "'{a}' is not an iozone option; options start with '-' (e.g. -a -i 0 -i 1 -f FILE)"
            ));
        };
        if let Some(plus) = body.strip_prefix('+') {
            match plus {
                "n" => {
                    g.no_retest = true;
                    g.splash.push("No retest option selected".into());
                }
                _ => {
                    return Err(format!(
                        "-+{plus} is not an iozone option iolab runs (of the -+ options only -+n, no retests)"
                    ))
                }
            }
            continue;
        }
        let chars: Vec<char> = body.chars().collect();
        let mut k = 0;
        while k < chars.len() {
            let c = chars[k];
            k += 1;
            if takes_value(c) {
                let rest: String = chars[k..].iter().collect();
                k = chars.len();
                let v = if !rest.is_empty() {
                    rest
                } else if let Some(v) = args.get(i) {
                    i += 1;
                    v.clone()
                } else {
                    return Err(format!("-{c} needs a value; see 'iolab iozone -h'"));
                };
                i = valued(&mut g, c, &v, args, i)?;
            } else {
                flag(&mut g, c)?;
            }
        }
    }
    Ok(g)
}

/// iolab's own options among iozone's.
fn long_option(g: &mut Given, long: &str, args: &[String], mut i: usize) -> Result<usize, String> {
    let (name, inline) = match long.split_once('=') {
        Some((n, v)) => (n, Some(v.to_string())),
        None => (long, None),
    };
    match name {
        "json" => {
            let v = match inline {
                Some(v) => v,
                None => {
                    i += 1;
                    args.get(i - 1)
                        .cloned()
                        .ok_or("--json needs a file name: --json FILE")?
                }
            };
            g.json = Some(PathBuf::from(v));
        }
        "force" if inline.is_none() => g.force = true,
        "dry-run" if inline.is_none() => g.dry_run = true,
        "help" if inline.is_none() => g.help = true,
        _ => {
            return Err(format!(
                "--{name} is not an option of iolab iozone; it takes iozone's options and --json FILE, --force, --dry-run"
            ))
        }
    }
    Ok(i)
}

fn takes_value(c: char) -> bool {
    matches!(
        c,
        's' | 'r' | 'i' | 'f' | 'F' | 't' | 'n' | 'g' | 'y' | 'q' | 'b'
    ) || OTHERS.iter().any(|o| o.0 == c && o.2)
}

fn flag(g: &mut Given, c: char) -> Result<(), String> {
    let line = match c {
        'a' => {
            g.auto = true;
            "Auto Mode"
        }
        'z' => {
            g.no_cross = true;
            "Cross over of record size disabled."
        }
        'I' => {
            g.direct = true;
            "O_DIRECT feature enabled"
        }
        'e' => {
            g.fsync = true;
            "Include fsync in write timing"
        }
        'c' => {
            "Include close in write timing (iolab: close() is not timed; on a local file system it writes nothing, -e times the flush)"
        }
        'R' => {
            g.excel = true;
            "Excel chart generation enabled"
        }
        'w' => {
            g.keep = true;
            "Setting no_unlink"
        }
        'o' => {
            g.dsync = true;
            "SYNC Mode. (iolab opens the file with O_DSYNC: every write's data is durable when it completes)"
        }
        'h' => {
            g.help = true;
            return Ok(());
        }
        _ => return Err(refusal(c)),
    };
    g.splash.push(line.into());
    Ok(())
}

fn refusal(c: char) -> String {
    match OTHERS.iter().find(|o| o.0 == c) {
        Some((_, what, _)) => format!(
            "-{c} ({what}) is an iozone option iolab iozone does not run; see 'iolab iozone -h' for the ones it does"
        ),
        None => format!("-{c} is not an iozone option; see 'iolab iozone -h'"),
    }
}

/// An option with its value; returns where the next word is (`-F` takes
/// one word per process).
fn valued(g: &mut Given, c: char, v: &str, args: &[String], mut i: usize) -> Result<usize, String> {
    match c {
        's' => {
            let b = size(c, v)?;
            g.sizes.push(b);
            g.splash.push(format!("File size set to {} kB", kb(b)));
        }
        'r' => {
            let b = record(c, v)?;
            g.records.push(b);
            g.splash.push(format!("Record Size {} kB", kb(b)));
        }
        'i' => test_number(g, v)?,
        'f' => {
            if !g.files.is_empty() {
                return Err("-f and -F cannot be given together (iozone's rule): -f names the file, -F one per process with -t".into());
            }
            g.file = Some(PathBuf::from(v));
        }
        'F' => i = throughput_files(g, v, args, i)?,
        't' => {
            let n = v.trim().parse::<u32>().ok().filter(|n| (1..=MAX_PROCESSES).contains(n));
            let Some(n) = n else {
                return Err(format!(
                    "-t {v}: give the number of processes, 1 to {MAX_PROCESSES}"
                ));
            };
            g.processes = Some(n);
        }
        'n' | 'g' => {
            let b = size(c, v)?;
            let what = if c == 'n' { "minimum" } else { "maximum" };
            g.splash
                .push(format!("Using {what} file size of {} kilobytes.", kb(b)));
            if c == 'n' {
                g.min_file = Some(b);
            } else {
                g.max_file = Some(b);
            }
        }
        'y' | 'q' => {
            let b = record(c, v)?;
            let what = if c == 'y' { "Minimum" } else { "Maximum" };
            g.splash
                .push(format!("Using {what} Record Size {} kB", kb(b)));
            if c == 'y' {
                g.min_rec = Some(b);
            } else {
                g.max_rec = Some(b);
            }
        }
        'b' => {
            return Err(format!(
                "-b {v}: iozone's Excel workbook file is out of scope for iolab iozone; -R prints the same report tables on stdout, --json FILE keeps iolab's result document"
            ))
        }
        _ => return Err(refusal(c)),
    }
    Ok(i)
}

/// `-F`: a file per process (-t before it), the first given as its value.
fn throughput_files(
    g: &mut Given,
    v: &str,
    args: &[String],
    mut i: usize,
) -> Result<usize, String> {
    let Some(n) = g.processes else {
        return Err("-F needs -t N before it (iozone's rule): -t 4 -F f1 f2 f3 f4".into());
    };
    if g.file.is_some() {
        return Err("-f and -F cannot be given together (iozone's rule): -f names the file, -F one per process with -t".into());
    }
    g.files = vec![PathBuf::from(v)];
    while g.files.len() < n as usize {
        let Some(next) = args.get(i) else {
            return Err(format!(
                "-F names {} file{} for -t {n}: give one file per process",
                g.files.len(),
                if g.files.len() == 1 { "" } else { "s" }
            ));
        };
        g.files.push(PathBuf::from(next));
        i += 1;
    }
    Ok(i)
}

/// A record size: iozone's limits (4 kB is iolab's smallest sensible,
/// iozone's largest buffer 16 MB).
fn record(c: char, v: &str) -> Result<u64, String> {
    let b = size(c, v)?;
    if b > MAX_RECORD {
        return Err(format!(
            "-{c} {v}: the largest record size is {} kB (iozone's)",
            kb(MAX_RECORD)
        ));
    }
    Ok(b)
}

fn test_number(g: &mut Given, v: &str) -> Result<(), String> {
    match v.trim().parse::<usize>() {
        Ok(n @ 0..=2) => g.numbers.push(n as u8),
        Ok(n) if n < TEST_NAMES.len() => {
            return Err(format!(
                "-i {n} ({}) is an iozone test iolab does not run; it runs -i 0 (write/rewrite), -i 1 (read/re-read) and -i 2 (random read/write)",
                TEST_NAMES[n]
            ))
        }
        _ => {
            return Err(format!(
                "-i {v} is not an iozone test; give 0 (write/rewrite), 1 (read/re-read) or 2 (random read/write)"
            ))
        }
    }
    Ok(())
}

/// Sizes from `lo` to `hi`, doubling (iozone's ranges).
fn doubling(lo: u64, hi: u64) -> Vec<u64> {
    let mut out = Vec::new();
    let mut s = lo;
    while s <= hi {
        out.push(s);
        s = match s.checked_mul(2) {
            Some(x) => x,
            None => break,
        };
    }
    out
}

fn sorted(v: &[u64]) -> Vec<u64> {
    let mut v = v.to_vec();
    v.sort_unstable();
    v.dedup();
    v
}

/// Throughput mode's limits (iozone's): one file size, one record size,
/// and a file per process with -F.
fn check_throughput(g: &Given, auto: bool) -> Result<(), String> {
    let Some(n) = g.processes else {
        return Ok(());
    };
    let ranges = [g.min_file, g.max_file, g.min_rec, g.max_rec];
    if auto || ranges.iter().any(Option::is_some) {
        return Err("-t (throughput mode) cannot be mixed with auto mode (-a, -n, -g, -y, -q, several -s or -r), as in iozone; give one -s and one -r".into());
    }
    if g.file.is_some() {
        return Err(format!(
            "-t {n} needs -F with a file per process, not -f (iozone's rule): -t {n} -F f1 ..."
        ));
    }
    Ok(())
}

/// Auto mode's file and record sizes: the lists given, or the ranges
/// (-n/-g, -y/-q, one -s or -r as both ends, else iozone's defaults).
fn auto_sizes(g: &Given) -> Result<(Vec<u64>, Vec<u64>), String> {
    let files = if g.sizes.len() > 1 {
        sorted(&g.sizes)
    } else {
        let one = g.sizes.first().copied();
        let lo = g.min_file.or(one).unwrap_or(AUTO_FILES.0);
        let hi = g.max_file.or(one).unwrap_or(AUTO_FILES.1);
        doubling(lo, hi)
    };
    let records = if g.records.len() > 1 {
        sorted(&g.records)
    } else {
        let one = g.records.first().copied();
        let lo = g.min_rec.or(one).unwrap_or(AUTO_RECORDS.0);
        let hi = g.max_rec.or(one).unwrap_or(AUTO_RECORDS.1);
        if lo > hi {
            return Err(format!(
                "the minimum record size ({} kB) is above the maximum ({} kB); give -y below -q",
                kb(lo),
                kb(hi)
            ));
        }
        doubling(lo, hi)
    };
    if files.is_empty() {
        return Err(
            "the minimum file size (-n) is above the maximum (-g); give -n below -g".into(),
        );
    }
    Ok((files, records))
}

/// The files: -F's, iozone's `iozone.DUMMY.N` per process, or -f's
/// (default `iozone.tmp`), in the working directory unless a path says.
fn place(g: &Given) -> Place {
    match g.processes {
        Some(n) if g.files.is_empty() => Place::Files(
            (0..n)
                .map(|i| PathBuf::from(format!("iozone.DUMMY.{i}")))
                .collect(),
        ),
        Some(_) => Place::Files(g.files.clone()),
        None => Place::Files(vec![g
            .file
            .clone()
            .unwrap_or_else(|| PathBuf::from("iozone.tmp"))]),
    }
}

/// iozone's rules: auto mode's ranges, throughput mode's limits.
fn combine(g: &Given) -> Result<Matrix, String> {
    let auto = g.auto || g.sizes.len() > 1 || g.records.len() > 1;
    check_throughput(g, auto)?;
    let (files, records) = if auto {
        auto_sizes(g)?
    } else {
        let f = g.sizes.first().copied().unwrap_or(ONE_FILE);
        let r = g.records.first().copied().unwrap_or(ONE_RECORD);
        if r > f {
            return Err(format!(
                "the record size ({} kB) is larger than the file ({} kB); give -r below -s",
                kb(r),
                kb(f)
            ));
        }
        (vec![f], vec![r])
    };
    // iozone -a skips small records on large files unless sizes or
    // records were given, or -z.
    let crossover = auto
        && !g.no_cross
        && g.sizes.is_empty()
        && g.records.is_empty()
        && g.min_rec.is_none()
        && g.max_rec.is_none();
    let numbers = if g.numbers.is_empty() {
        vec![0, 1, 2]
    } else {
        g.numbers.clone()
    };
    Ok(Matrix {
        files,
        records,
        crossover,
        tests: tests_of(&numbers, g.no_retest),
        place: place(g),
        processes: g.processes.unwrap_or(1),
        direct: g.direct,
        buffered: !g.direct,
        dsync: g.dsync,
        fsync: g.fsync,
        engine: "psync".into(),
        keep: g.keep,
        plan: PlanArgs {
            dry_run: g.dry_run,
            yes: true,
            ..Default::default()
        },
    })
}

/// `iolab iozone -h`: what it takes.
pub const USAGE: &str = "Usage: iolab iozone [iozone options] [--json FILE] [--force] [--dry-run]

Runs iozone's tests with iolab (psync: pread/pwrite, one record per I/O)
and prints iozone's output. Sizes are kB, or with k, m or g.

  -a            auto mode: file sizes 64k to 512m (-n, -g), records 4k to 16m (-y, -q)
  -i N          test: 0 write/rewrite (needed by the others), 1 read/re-read,
                2 random read/write; repeat for several (default 0, 1 and 2)
  -s SIZE       file size (default 512k); repeat for several (auto mode)
  -r SIZE       record size (default 4k); repeat for several (auto mode)
  -n/-g SIZE    auto mode's smallest/largest file size
  -y/-q SIZE    auto mode's smallest/largest record size
  -z            auto mode: every record size on every file size (no crossover)
  -f FILE       the test file (default iozone.tmp); iolab creates and removes it,
                and refuses a file that exists
  -t N          throughput mode: N processes, each with its own file
  -F F1 F2 ...  throughput mode's files, one per process (default iozone.DUMMY.N)
  -I            O_DIRECT
  -o            synchronous writes (iolab: O_DSYNC)
  -e            include the flush (fsync) in the write tests' timing
  -c            include close in the timing (iolab does not time close)
  -w            keep the file at the end
  -+n           no retests (rewrite, re-read)
  -R            Excel-style report tables after the results
  --json FILE   iolab's result document (docs/results.md) too
  --force       let --json replace a file iolab did not write
  --dry-run     print the plan and exit

Other iozone options are refused with one line naming them (docs/iozone.md).
";

#[cfg(test)]
mod tests {
    use super::*;

    fn p(line: &str) -> Result<IozoneCmd, String> {
        let v: Vec<String> = line.split_whitespace().map(String::from).collect();
        parse(&v).map(|c| c.expect("not -h"))
    }

    #[test]
    fn the_issue_s_line_is_auto_mode_in_its_ranges() {
        let c = p("-a -i 0 -i 1 -y 64k -q 512k -n 32g -g 64g -f /mnt/pool/iozone.tmp").unwrap();
        let m = &c.matrix;
        assert_eq!(m.files, [32 << 30, 64 << 30]);
        assert_eq!(m.records, [64 << 10, 128 << 10, 256 << 10, 512 << 10]);
        assert_eq!(m.cells().len(), 8);
        assert_eq!(m.tests, [0, 1, 2, 3]);
        assert_eq!(m.place, Place::Files(vec!["/mnt/pool/iozone.tmp".into()]));
        assert_eq!(c.layout.numbers, [0, 1]);
    }

    #[test]
    fn sizes_are_kb_unless_suffixed_and_clusters_split() {
        let c = p("-Ra -s8m -r 64 -i0 -i 2 -+n -e").unwrap();
        let m = &c.matrix;
        assert_eq!(m.files, [8 << 20]);
        assert_eq!(m.records, [64 << 10]);
        assert!(c.layout.excel && m.fsync && c.layout.no_retest);
        // -+n: write, random read, random write.
        assert_eq!(m.tests, [0, 4, 5]);
        // Plain -a: 64k to 512m, 4k to 16m, no record above its file, and
        // above 16m files nothing below 64k records.
        let m = p("-a").unwrap().matrix;
        assert_eq!(m.files.len(), 14);
        let cells = m.cells();
        assert!(cells.contains(&(64 << 10, 4 << 10)));
        assert!(!cells.contains(&(32 << 20, 4 << 10)));
        assert!(cells.contains(&(32 << 20, 64 << 10)));
        assert!(cells.iter().all(|&(f, r)| r <= f));
        // Several -s: those sizes only, and no crossover.
        let m = p("-s 1m -s 64k -r 4k -r 64k").unwrap().matrix;
        assert_eq!(m.files, [64 << 10, 1 << 20]);
        assert_eq!(m.cells().len(), 4);
    }

    #[test]
    fn throughput_mode_takes_a_file_per_process() {
        let c = p("-t 3 -i 0 -s 1m -r 64k -F a b c --json out.json").unwrap();
        assert_eq!(c.matrix.processes, 3);
        assert_eq!(
            c.matrix.place,
            Place::Files(vec!["a".into(), "b".into(), "c".into()])
        );
        assert_eq!(c.json, Some(PathBuf::from("out.json")));
        assert_eq!(c.layout.throughput, Some(3));
        let m = p("-t 2 -i 0").unwrap().matrix;
        assert_eq!(
            m.place,
            Place::Files(vec!["iozone.DUMMY.0".into(), "iozone.DUMMY.1".into()])
        );
    }

    #[test]
    fn any_words_parse_or_refuse_in_one_line() {
        let words = [
            "-",
            "--",
            "-a",
            "-i",
            "0",
            "1",
            "-+",
            "-+n",
            "-F",
            "-t",
            "2",
            "-s",
            "8m",
            "-r",
            "-é",
            "-sé",
            "-s18446744073709551615g",
            "--json",
            "-Rai",
            "-f",
            "x",
            "-t0",
            "-q",
            "-y1",
            "-h",
            "-n",
            "-g",
            "99999999999999999999",
            "-iq",
        ];
        for a in words {
            for b in words {
                for c in words {
                    let v = vec![a.to_string(), b.to_string(), c.to_string()];
                    if let Err(e) = parse(&v) {
                        assert!(!e.is_empty() && !e.contains('\n'), "{v:?}: {e}");
                    }
                }
            }
        }
    }

    #[test]
    fn refusals_are_one_line_naming_the_option() {
        let cases = [
            ("-i 3", "-i 3 (read backwards)"),
            ("-i 14", "not an iozone test"),
            ("-B", "-B (mmap files)"),
            ("-+m x", "-+m"),
            ("-b out.xls", "out of scope"),
            ("-s 8q", "-s 8q"),
            ("-s 0", "above 0"),
            ("-r 32m", "largest record"),
            ("-t 2 -a", "cannot be mixed"),
            ("-t 2 -f x", "needs -F"),
            ("-F a b", "needs -t"),
            ("-t 3 -F a b", "one file per process"),
            ("-s", "needs a value"),
            ("x", "not an iozone option"),
            ("--bogus", "--bogus"),
            ("-s 64k -r 1m", "larger than the file"),
            ("-a -y 1m -q 64k", "above the maximum"),
            ("-Z", "-Z (mmap and file I/O mixed)"),
            ("-1", "-1 is not an iozone option"),
            ("", "give iozone's options"),
        ];
        for (line, needle) in cases {
            let e = p(line).err().unwrap_or_else(|| panic!("{line} was taken"));
            assert!(e.contains(needle) && !e.contains('\n'), "{line}: {e}");
        }
    }
}
