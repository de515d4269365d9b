//! The fuzz pass of the normal test suite (stable Rust, no libFuzzer):
//! every parser family of `iolab_fuzzing::FAMILIES` gets a few thousand
//! inputs, mutated from its seeds (bit flips, truncations, splices, huge
//! numbers, deep nesting, long strings), generated to look like its format,
//! or random bytes, and each must
//!
//! - not panic (proptest reports the failing input, shrunk);
//! - not hang: a case slower than [`CASE_LIMIT`] fails, and a watchdog
//!   aborts the binary, printing the input, when one runs past
//!   [`HANG_LIMIT`];
//! - use bounded memory: a counting global allocator tracks the peak bytes
//!   each case holds above what was live when it started, which must stay
//!   under [`MEM_BASE`] plus [`MEM_PER_BYTE`] per input byte; past
//!   [`MEM_HARD`] the allocator aborts at once, printing the input.
//!
//! Each family prints its case count, time, slowest case and peak memory
//! (straight to stderr, so it shows without `--nocapture`).
//! `IOLAB_FUZZ_CASES=N` sets the cases per family; `IOLAB_FUZZ_SEED=HEX`
//! replays the random choices of an earlier pass (its seed is printed).

use iolab_fuzzing::mutate::{self, Mutation, TOKENS};
use iolab_fuzzing::seeds::seeds;
use iolab_fuzzing::FAMILIES;
use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestCaseError, TestRng, TestRunner};
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A single case slower than this fails the pass.
const CASE_LIMIT: Duration = Duration::from_secs(1);
/// A case still running after this is a hang: the watchdog aborts.
const HANG_LIMIT: Duration = Duration::from_secs(20);
/// Memory a case may hold whatever its input.
const MEM_BASE: usize = 16 << 20;
/// And per byte of its input.
const MEM_PER_BYTE: usize = 64;
/// An allocation that takes a case past this aborts the pass at once.
const MEM_HARD: usize = 1 << 30;

// ---------------------------------------------------------------------
// The counting allocator: per thread, so the families can run in
// parallel test threads. Only cases run with `GUARD` set are limited.

struct Counting;

thread_local! {
    static LIVE: Cell<isize> = const { Cell::new(0) };
    static PEAK: Cell<isize> = const { Cell::new(0) };
    static GUARD: Cell<Option<isize>> = const { Cell::new(None) };
    static INPUT: Cell<(*const u8, usize)> = const { Cell::new((std::ptr::null(), 0)) };
}

fn write_stderr(b: &[u8]) {
    // SAFETY: write(2) of a valid buffer; no allocation, so it is safe to
    // call from inside the allocator.
    unsafe { libc::write(2, b.as_ptr().cast(), b.len()) };
}

/// Account `delta` bytes to this thread; abort when a guarded case would
/// pass `MEM_HARD` above its start.
fn account(delta: isize) {
    let _ = LIVE.try_with(|live| {
        let now = live.get() + delta;
        live.set(now);
        let _ = PEAK.try_with(|p| p.set(p.get().max(now)));
        if let Ok(Some(base)) = GUARD.try_with(Cell::get) {
            if now - base > MEM_HARD as isize {
                write_stderr(b"\nfuzz pass: a parser allocated more than 1 GiB for one input; the input follows (up to 4 KiB):\n");
                if let Ok((p, n)) = INPUT.try_with(Cell::get) {
                    if !p.is_null() {
                        // SAFETY: the case's input, alive while it runs.
                        let s = unsafe { std::slice::from_raw_parts(p, n.min(4096)) };
                        write_stderr(s);
                    }
                }
                write_stderr(b"\n");
                std::process::abort();
            }
        }
    });
}

// SAFETY: every call goes to the system allocator; the bookkeeping only
// touches const-initialised thread locals without destructors.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        account(l.size() as isize);
        System.alloc(l)
    }
    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        account(l.size() as isize);
        System.alloc_zeroed(l)
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        System.dealloc(p, l);
        account(-(l.size() as isize));
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        account(new as isize - l.size() as isize);
        System.realloc(p, l, new)
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

thread_local! {
    /// Set while a case runs: its panics are reported by proptest, once,
    /// not printed by the panic hook at every shrinking step.
    static IN_CASE: Cell<bool> = const { Cell::new(false) };
    /// Where the last case's panic happened, for the report.
    static LAST_PANIC: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
}

fn quiet_panics_in_cases() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if IN_CASE.with(Cell::get) {
                let at = info.location().map(|l| l.to_string()).unwrap_or_default();
                LAST_PANIC.with(|p| *p.borrow_mut() = at);
            } else {
                default(info);
            }
        }));
    });
}

/// What one case cost.
struct Cost {
    time: Duration,
    peak: usize,
}

/// Run `f` on `input` with the memory guard and the clock.
fn measured(f: fn(&[u8]), input: &[u8]) -> Cost {
    let base = LIVE.with(Cell::get);
    PEAK.with(|p| p.set(base));
    INPUT.with(|i| i.set((input.as_ptr(), input.len())));
    GUARD.with(|g| g.set(Some(base)));
    /// Lifts the guard when the case ends, also when it panics (the
    /// panic unwinds to proptest, which reports it).
    struct Lift;
    impl Drop for Lift {
        fn drop(&mut self) {
            IN_CASE.with(|c| c.set(false));
            GUARD.with(|g| g.set(None));
            INPUT.with(|i| i.set((std::ptr::null(), 0)));
        }
    }
    let lift = Lift;
    IN_CASE.with(|c| c.set(true));
    let t0 = Instant::now();
    f(input);
    let time = t0.elapsed();
    drop(lift);
    Cost {
        time,
        peak: (PEAK.with(Cell::get) - base).max(0) as usize,
    }
}

// ---------------------------------------------------------------------
// The watchdog: aborts, with the input, when a case hangs.

struct Watch {
    current: Mutex<Option<(Instant, Vec<u8>)>>,
    done: AtomicBool,
}

fn watchdog(family: &'static str) -> Arc<Watch> {
    let w = Arc::new(Watch {
        current: Mutex::new(None),
        done: AtomicBool::new(false),
    });
    let w2 = w.clone();
    std::thread::spawn(move || {
        while !w2.done.load(Ordering::Relaxed) {
            std::thread::sleep(Duration::from_millis(200));
            let cur = w2.current.lock().unwrap_or_else(|e| e.into_inner());
            if let Some((t0, input)) = cur.as_ref() {
                if t0.elapsed() > HANG_LIMIT {
                    let _ = writeln!(
                        std::io::stderr(),
                        "fuzz pass {family}: one case has run for {:?} (a hang); its input: {:?}",
                        t0.elapsed(),
                        String::from_utf8_lossy(input)
                    );
                    std::process::abort();
                }
            }
        }
    });
    w
}

// ---------------------------------------------------------------------
// Inputs.

fn mutation() -> impl Strategy<Value = Mutation> {
    let at = any::<usize>();
    prop_oneof![
        1 => (at, any::<u8>()).prop_map(|(at, bit)| Mutation::FlipBit { at, bit }),
        1 => (at, any::<u8>()).prop_map(|(at, byte)| Mutation::SetByte { at, byte }),
        1 => (at, prop::collection::vec(any::<u8>(), 1..16))
            .prop_map(|(at, bytes)| Mutation::Insert { at, bytes }),
        1 => (at, any::<usize>()).prop_map(|(at, token)| Mutation::Token { at, token }),
        1 => (at, 1..64usize).prop_map(|(at, len)| Mutation::Delete { at, len }),
        1 => at.prop_map(|at| Mutation::Truncate { at }),
        1 => (at, 1..64usize, 1..4000usize)
            .prop_map(|(at, len, times)| Mutation::Repeat { at, len, times }),
        1 => (at, 1..3000usize, any::<u8>())
            .prop_map(|(at, depth, kind)| Mutation::Nest { at, depth, kind }),
        1 => (at, any::<usize>(), any::<usize>(), 1..512usize).prop_map(|(at, seed, from, len)| {
            Mutation::Splice {
                at,
                seed,
                from,
                len,
            }
        }),
        3 => (any::<usize>(), any::<usize>()).prop_map(|(nth, token)| Mutation::Number { nth, token }),
        2 => (any::<usize>(), any::<usize>(), 1..3000usize)
            .prop_map(|(nth, token, times)| Mutation::Quoted { nth, token, times }),
    ]
}

/// Keys of a job file whose values may be lists (a sweep).
const SWEEPABLE: &[&str] = &[
    "rw",
    "read_pct",
    "random_pct",
    "bs",
    "align",
    "distribution",
    "engine",
    "jobs",
    "qd",
    "batch_complete",
    "rate",
    "direct",
    "sync",
    "fsync_every",
    "data",
    "dedupe",
    "size",
    "offset",
    "range",
    "hit_area",
    "read_hit_pct",
    "write_hit_pct",
    "duration",
    "io_size",
    "ops",
    "warmup",
];

/// Job files that look like job files: sections, keys with values and
/// lists of values (many and long lists too: sweeps that expand to more
/// runs than a u128 counts).
fn job_text() -> impl Strategy<Value = Vec<u8>> {
    let value = prop_oneof![
        any::<usize>().prop_map(|t| format!("\"{}\"", TOKENS[t % TOKENS.len()].escape_default())),
        any::<u64>().prop_map(|n| n.to_string()),
        any::<i64>().prop_map(|n| n.to_string()),
        Just("\"4k\"".to_string()),
        Just("true".to_string()),
    ];
    let entry = (
        0..SWEEPABLE.len(),
        prop::collection::vec(value, 1..40),
        any::<bool>(),
    )
        .prop_map(|(k, vs, list)| {
            if list {
                format!("{} = [{}]\n", SWEEPABLE[k], vs.join(", "))
            } else {
                format!("{} = {}\n", SWEEPABLE[k], vs[0])
            }
        });
    (
        prop::collection::vec(entry, 0..30),
        prop::collection::vec(0..3u8, 0..4),
    )
        .prop_map(|(entries, sections)| {
            let mut s = String::from("[global]\ntarget = \"/nonexistent/iolab-fuzz\"\n");
            let per = entries.len() / (sections.len() + 1) + 1;
            let mut chunks = entries.chunks(per);
            if let Some(c) = chunks.next() {
                s.extend(c.iter().cloned());
            }
            for (sec, c) in sections.iter().zip(chunks) {
                s.push_str(match sec {
                    0 => "[[workload]]\n",
                    1 => "[[workload]]\nname = \"w\"\n",
                    _ => "[global]\n",
                });
                s.extend(c.iter().cloned());
            }
            s.into_bytes()
        })
}

/// Words of the family's format, joined by separators: a format's shape
/// with odd contents.
fn token_soup(words: &'static [&'static str]) -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec((any::<usize>(), any::<bool>(), 0..6u8), 0..200).prop_map(move |parts| {
        let mut s = String::new();
        for (w, from_words, sep) in parts {
            s.push_str(if from_words && !words.is_empty() {
                words[w % words.len()]
            } else {
                TOKENS[w % TOKENS.len()]
            });
            s.push_str([" ", "\n", ",", ":", "", "\t"][sep as usize]);
        }
        s.into_bytes()
    })
}

const UNIT_WORDS: &[&str] = &[
    "4k", "8k:60", "1m", "1.5", "g", "KiB", "ms", "us", "s", "m", "h", "d", "0-3", "8", "1023",
    "1024", "zipf", "hotspot", "90/10", "compress", "2x", "randrw", "io_uring",
];
const PROC_WORDS: &[&str] = &[
    "22",
    "1",
    "254:1",
    "/",
    "/mnt",
    "rw,relatime",
    "shared:1",
    "-",
    "ext4",
    "/dev/vda1",
    "sda",
    "nvme0n1",
    "4294967295",
    "18446744073709551615",
    "[none]",
    "pool:",
    "ONLINE",
    "dev",
    "dm_st",
    "chk_st",
    "\\040",
    "0x1f",
];
const JSON_WORDS: &[&str] = &[
    "{",
    "}",
    "[",
    "]",
    "\"schema_version\":1",
    "\"runs\":",
    "\"buckets\":[[1,18446744073709551615]]",
    "\"targets\":",
    "\"blocks\":",
    "\"format\":\"iolab-journal\"",
    "\"version\":1",
    "\"block_size\":512",
    "null",
    "\"\"",
];

/// An input, shown as an escaped byte string when proptest reports it.
#[derive(Clone)]
struct Input(Vec<u8>);

impl std::fmt::Debug for Input {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "b\"{}\"", self.0.escape_ascii())
    }
}

fn inputs(family: &'static str) -> BoxedStrategy<Input> {
    let seeds: Vec<&'static [u8]> = seeds(family).iter().map(|(_, b)| *b).collect();
    let n = seeds.len().max(1);
    let mutated = (0..n, prop::collection::vec(mutation(), 1..8)).prop_map(move |(i, muts)| {
        let base: &[u8] = seeds.get(i).copied().unwrap_or(b"");
        mutate::apply(base, &muts, &seeds)
    });
    let random = prop::collection::vec(any::<u8>(), 0..600);
    let s = match family {
        "jobfile" => prop_oneof![6 => mutated, 2 => job_text(), 1 => random].boxed(),
        "units" => prop_oneof![4 => mutated, 3 => token_soup(UNIT_WORDS), 1 => random].boxed(),
        "procfs" => prop_oneof![4 => mutated, 3 => token_soup(PROC_WORDS), 1 => random].boxed(),
        "result_doc" | "journal" => {
            prop_oneof![8 => mutated, 1 => token_soup(JSON_WORDS), 1 => random].boxed()
        }
        // The stamps input is a dense description: random bytes are valid.
        _ => prop_oneof![1 => mutated, 1 => random].boxed(),
    };
    s.prop_map(Input).boxed()
}

/// Cases per family: a few thousand, fewer where one case costs more.
fn cases(family: &str) -> u32 {
    if let Some(n) = std::env::var("IOLAB_FUZZ_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
    {
        return n;
    }
    match family {
        "result_doc" => 1500,
        "jobfile" => 2500,
        _ => 4000,
    }
}

fn rng_seed() -> [u8; 32] {
    let v: u128 = match std::env::var("IOLAB_FUZZ_SEED") {
        Ok(s) => u128::from_str_radix(s.trim(), 16).expect("IOLAB_FUZZ_SEED is hex"),
        Err(_) => {
            let t = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap_or_default();
            t.as_nanos() ^ ((std::process::id() as u128) << 64)
        }
    };
    let mut s = [0u8; 32];
    s[..16].copy_from_slice(&v.to_le_bytes());
    s
}

fn mib(b: usize) -> String {
    format!("{:.1} MiB", b as f64 / (1 << 20) as f64)
}

/// The pass over one family.
fn pass(family: &'static str) {
    let f = FAMILIES
        .iter()
        .find(|(n, _)| *n == family)
        .map(|(_, f)| *f)
        .expect("a family of iolab_fuzzing::FAMILIES");
    let seed = rng_seed();
    let n = cases(family);
    let config = Config {
        cases: n,
        failure_persistence: None,
        max_shrink_iters: 2000,
        ..Config::default()
    };
    let mut runner =
        TestRunner::new_with_rng(config, TestRng::from_seed(RngAlgorithm::ChaCha, &seed));
    quiet_panics_in_cases();
    let watch = watchdog(family);
    let stats = Mutex::new((0u64, Duration::ZERO, 0usize, 0usize, 0usize));
    let t0 = Instant::now();
    let result = runner.run(&inputs(family), |Input(input)| {
        *watch.current.lock().unwrap() = Some((Instant::now(), input.clone()));
        let cost = measured(f, &input);
        *watch.current.lock().unwrap() = None;
        let mut s = stats.lock().unwrap();
        s.0 += 1;
        s.1 = s.1.max(cost.time);
        if cost.peak > s.2 {
            (s.2, s.3) = (cost.peak, input.len());
        }
        s.4 = s.4.max(input.len());
        drop(s);
        if cost.time > CASE_LIMIT {
            return Err(TestCaseError::fail(format!(
                "one case took {:?} (limit {CASE_LIMIT:?})",
                cost.time
            )));
        }
        let bound = MEM_BASE + MEM_PER_BYTE * input.len();
        if cost.peak > bound {
            return Err(TestCaseError::fail(format!(
                "one case held {} for a {}-byte input (bound {})",
                mib(cost.peak),
                input.len(),
                mib(bound)
            )));
        }
        Ok(())
    });
    watch.done.store(true, Ordering::Relaxed);
    let (count, slowest, peak, peak_len, longest) = *stats.lock().unwrap();
    let _ = writeln!(
        std::io::stderr(),
        "fuzz pass {family}: {count} cases in {:.2} s (slowest {} ms; peak {} for a {peak_len}-byte input; inputs up to {longest} bytes; IOLAB_FUZZ_SEED={:x})",
        t0.elapsed().as_secs_f64(),
        slowest.as_millis(),
        mib(peak),
        u128::from_le_bytes(seed[..16].try_into().unwrap()),
    );
    if let Err(e) = result {
        let at = LAST_PANIC.with(|p| p.borrow().clone());
        panic!("fuzz pass {family}: {e}\n(the last case's panic was at {at})");
    }
}

#[test]
fn fuzz_units() {
    pass("units");
}

#[test]
fn fuzz_jobfile() {
    pass("jobfile");
}

#[test]
fn fuzz_result_doc() {
    pass("result_doc");
}

#[test]
fn fuzz_journal() {
    pass("journal");
}

#[test]
fn fuzz_stamps() {
    pass("stamps");
}

#[test]
fn fuzz_procfs() {
    pass("procfs");
}

/// Every family has seeds, and they are valid inputs, so the mutations
/// start from inputs that reach past the first check.
#[test]
fn every_family_has_valid_seeds() {
    for (family, _) in FAMILIES {
        assert!(!seeds(family).is_empty(), "{family} has no seeds");
    }
    for (name, b) in seeds("jobfile") {
        let t = std::str::from_utf8(b).unwrap();
        iolab_jobfile::parse_job_text(t, name).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
    for (name, b) in seeds("result_doc") {
        let t = std::str::from_utf8(b).unwrap();
        iolab_report::parse_document(t, name).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
    for (name, b) in seeds("journal") {
        let i = b.iter().position(|&c| c == 0).unwrap();
        let t = std::str::from_utf8(&b[..i]).unwrap();
        let p = std::path::Path::new(name);
        let h = iolab_verify::journal::parse_header(t, p).unwrap_or_else(|e| panic!("{name}: {e}"));
        if !b[i + 1..].starts_with(b"FIX") {
            iolab_verify::journal::parse_map(b[i + 1..].to_vec(), &h, 0, p)
                .unwrap_or_else(|e| panic!("{name}: {e}"));
        }
    }
}

/// Every family of the library has its test above.
#[test]
fn every_family_is_in_the_pass() {
    let src = include_str!("fuzz_pass.rs");
    for (family, _) in FAMILIES {
        assert!(
            src.contains(&format!("pass(\"{family}\");")),
            "add a #[test] calling pass(\"{family}\")"
        );
    }
}
