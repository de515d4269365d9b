//! The fuzz pass of the normal test suite (stable Rust, no libFuzzer):
//! every parser family of `iolab_fuzzing::FAMILIES` gets a few thousand
//! inputs, mutated from its seeds (bit flips, truncations, splices, huge
//! numbers, deep nesting, long strings), generated to look like its format,
//! or random bytes, and each must
//!
//! - not panic (proptest reports the failing input, shrunk);
//! - not hang: a case using more CPU time than [`CASE_LIMIT`] fails, and
//!   a watchdog aborts the binary, printing the input, when one runs past
//!   [`HANG_LIMIT`];
//! - use bounded memory: a counting global allocator tracks the peak bytes
//!   each case holds above what was live when it started, which must stay
//!   under [`MEM_BASE`] plus [`MEM_PER_BYTE`] per input byte; past
//!   [`MEM_HARD`] the allocator aborts at once, printing the input.
//!
//! Each family prints its case count, time, slowest case and peak memory
//! (straight to stderr, so it shows without `--nocapture`). Other tests
//! here check that every family has valid seeds and a test, that every
//! `pub fn parse...` of the workspace is in a family, and that the limits
//! can fail.
//! The choices are the same on every run unless `IOLAB_FUZZ_SEED=random`
//! (then new ones, their seed printed; `IOLAB_FUZZ_SEED=HEX` replays it);
//! `IOLAB_FUZZ_CASES=N` sets the cases per family.

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

/// A single case using more CPU time than this fails the pass.
const CASE_LIMIT: Duration = Duration::from_secs(1);
/// A case still running after this (wall time) is a hang: the watchdog
/// aborts.
const HANG_LIMIT: Duration = Duration::from_secs(30);
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
                // The frames in iolab's own code: an overflow's location is
                // in the standard library.
                let bt = std::backtrace::Backtrace::force_capture().to_string();
                let ours: Vec<&str> = bt
                    .lines()
                    .map(str::trim)
                    .filter(|l| l.starts_with("at ") && l.contains("crates/"))
                    .take(4)
                    .collect();
                LAST_PANIC.with(|p| *p.borrow_mut() = format!("{at}, {}", ours.join(", ")));
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

/// CPU time of this thread: what a case costs, whatever else the machine
/// is busy with (wall time would fail a case on a loaded machine).
fn thread_cpu() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes the timespec we own.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
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
    let t0 = thread_cpu();
    f(input);
    let time = thread_cpu().saturating_sub(t0);
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
        1 => (at, 1..64usize, 1..300usize)
            .prop_map(|(at, len, times)| Mutation::Repeat { at, len, times }),
        1 => (at, 1..1000usize, any::<u8>())
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
        1 => (any::<usize>(), 1..8usize, any::<usize>())
            .prop_map(|(first, every, token)| Mutation::Numbers { first, every, token }),
        2 => (any::<usize>(), any::<usize>(), 1..1000usize)
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

/// A small fast generator (splitmix64) that expands one proptest-chosen
/// seed into a whole generated input: proptest's own collections build a
/// shrinkable tree per element, which costs more than the parsers do.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    fn pick<'a>(&mut self, from: &[&'a str]) -> &'a str {
        from[self.below(from.len())]
    }
}

/// Random bytes: a seed and a length (proptest shrinks the length).
fn random_bytes() -> impl Strategy<Value = Vec<u8>> {
    (any::<u64>(), 0..600usize).prop_map(|(seed, n)| {
        let mut r = Rng(seed);
        (0..n).map(|_| r.next() as u8).collect()
    })
}

/// Job files that look like job files: up to four sections, each key at
/// most once per section, with one value or a list of values; sometimes
/// every sweepable key with a long list (a sweep of more runs than a u128
/// counts).
fn job_text() -> impl Strategy<Value = Vec<u8>> {
    (any::<u64>(), 1..5usize).prop_map(|(seed, sections)| {
        let mut r = Rng(seed);
        let mut s = String::new();
        for i in 0..sections {
            s.push_str(match (i, r.below(2)) {
                (0, _) => "[global]\ntarget = \"/nonexistent/iolab-fuzz\"\n",
                (_, 0) => "[[workload]]\n",
                _ => "[[workload]]\nname = \"w\"\n",
            });
            let all = r.below(4) == 0;
            for key in SWEEPABLE {
                if !all && r.below(2) == 0 {
                    continue;
                }
                let n = if all || r.below(2) == 0 {
                    1 + r.below(80)
                } else {
                    0
                };
                // Valid TOML values (a parse error stops before the
                // expansion and resolution this generator is for).
                let mut value = || match r.below(6) {
                    0 => {
                        let t = r.pick(TOKENS);
                        let plain = !t.trim().is_empty()
                            && !t.contains(|c: char| {
                                matches!(c, '"' | '\\' | ',') || c.is_control()
                            });
                        format!("\"{}\"", if plain { t } else { "x" })
                    }
                    1 => format!("\"{}\"", r.pick(mutate::NUMBERS)),
                    2 => {
                        let n = r.pick(mutate::NUMBERS);
                        if n.parse::<i64>().is_ok() || n.contains('e') || n.contains('.') {
                            n.to_string()
                        } else {
                            "7".to_string()
                        }
                    }
                    3 => (r.next() as u32 % 1000).to_string(),
                    4 => format!("\"{}k\"", 1 << r.below(12)),
                    _ => "true".to_string(),
                };
                if n == 0 {
                    s.push_str(&format!("{key} = {}\n", value()));
                } else {
                    let vs: Vec<String> = (0..n).map(|_| value()).collect();
                    s.push_str(&format!("{key} = [{}]\n", vs.join(", ")));
                }
            }
        }
        s.into_bytes()
    })
}

/// Words of the family's format, joined by separators: a format's shape
/// with odd contents.
fn token_soup(words: &'static [&'static str]) -> impl Strategy<Value = Vec<u8>> {
    (any::<u64>(), 0..200usize).prop_map(move |(seed, n)| {
        let mut r = Rng(seed);
        let mut s = String::new();
        for _ in 0..n {
            s.push_str(if r.below(2) == 0 && !words.is_empty() {
                r.pick(words)
            } else {
                r.pick(TOKENS)
            });
            s.push_str(r.pick(&[" ", "\n", ",", ":", "", "\t"]));
        }
        s.into_bytes()
    })
}

const UNIT_WORDS: &[&str] = &[
    "4k", "8k:60", "1m", "1.5", "g", "KiB", "ms", "us", "s", "m", "h", "d", "0-3", "8", "1023",
    "1024", "zipf", "hotspot", "90/10", "compress", "2x", "randrw", "io_uring",
];
/// Words of filebench's WML for the token soup.
const WML_WORDS: &[&str] = &[
    "set $dir=/tmp\n",
    "set $n=",
    "$n",
    "$dir",
    "define fileset name=s,path=$dir,size=4k,entries=10,prealloc\n",
    "define file name=f,path=$dir,size=1m\n",
    "define process name=p,instances=2\n{\n",
    "thread name=t,instances=3\n{\n",
    "define flowop name=c, $x\n{\n",
    "flowop c name=k, $x=s, iters=3\n",
    "flowop openfile name=o,filesetname=s,fd=1\n",
    "flowop read name=r,fd=1,iosize=4k,random\n",
    "flowop read name=q,filesetname=s,iosize=8k\n",
    "flowop closefile name=c,fd=1\n",
    "flowop finishoncount name=z,value=10,target=r\n",
    "flowop bwlimit name=b\n",
    "eventgen rate=5\n",
    "cvar(type=cvar-gamma,parameters=mean:100;gamma:2)",
    "define randvar name=$v,type=tabular,randtable={{1,1k,2k}}\n",
    "}\n",
    ",",
    "=",
    "16k",
    "run 5\n",
    "psrun -2 4\n",
    "\"",
    "#",
];

const FIO_WORDS: &[&str] = &[
    "[global]",
    "[job]",
    "\n[j]\n",
    "include inc.fio",
    "include fuzz.fio",
    "${SIZE}",
    "${V}",
    "${",
    "}",
    "$ncpus",
    "$mb_memory",
    "$pagesize",
    "=",
    "bs=",
    "rw=randrw:8",
    "size=",
    ";",
    "#",
    "(",
    ")",
    "*",
    "/",
    "^",
    "%",
    "4k,64k,",
    "4k-64k",
    "1mib",
    "10s",
    "time_based",
    "stonewall",
    "numjobs=",
    "kb_base=1000",
    "bssplit=4k/50:64k/",
    "rate=1m,,",
    "0x",
];
const VDB_WORDS: &[&str] = &[
    "\nsd=sd1,lun=$lun",
    "\nsd=default",
    "\nwd=wd1,sd=(sd*)",
    "\nrd=rd1,wd=wd1",
    "\nfsd=fsd1,anchor=/a",
    "\nfwd=fwd1,fsd=fsd1",
    "\nhd=h1",
    "include=inc.vdb",
    "\neof",
    "\n*",
    "\n/",
    ",\n",
    "$t",
    "!lun",
    "$",
    "\"",
    "(",
    ")",
    "=",
    "xfersize=(4k,50,8k,50)",
    "forthreads=(1-64,d)",
    "iorate=curve",
    "fwdrate=max",
    "format=(restart,only)",
    "sizes=(1m,0)",
    "depth=2,width=3,files=4",
    "operation=read",
    "fileio=(random,shared)",
    "elapsed=1",
    "compratio=2",
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
    let random = random_bytes();
    let s = match family {
        "jobfile" => prop_oneof![6 => mutated, 2 => job_text(), 1 => random].boxed(),
        "units" => prop_oneof![4 => mutated, 3 => token_soup(UNIT_WORDS), 1 => random].boxed(),
        "fio" => prop_oneof![5 => mutated, 3 => token_soup(FIO_WORDS), 1 => random].boxed(),
        "vdbench" => prop_oneof![5 => mutated, 3 => token_soup(VDB_WORDS), 1 => random].boxed(),
        "filebench" => prop_oneof![5 => mutated, 3 => token_soup(WML_WORDS), 1 => random].boxed(),
        "procfs" => prop_oneof![4 => mutated, 3 => token_soup(PROC_WORDS), 1 => random].boxed(),
        // Frames: a length and a payload that must agree, so mostly
        // mutated seeds.
        "remote" => prop_oneof![8 => mutated, 1 => random].boxed(),
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

/// The seed of a family's random choices: fixed by default, so the suite
/// tests the same inputs on every machine and a failure reproduces;
/// `IOLAB_FUZZ_SEED=random` explores new ones (the seed is printed), and
/// `IOLAB_FUZZ_SEED=HEX` replays a printed one.
fn rng_seed(family: &str) -> [u8; 32] {
    let v: u128 = match std::env::var("IOLAB_FUZZ_SEED").as_deref().map(str::trim) {
        Ok("random") => {
            let t = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap_or_default();
            t.as_nanos() ^ ((std::process::id() as u128) << 64)
        }
        Ok(s) => u128::from_str_radix(s, 16).expect("IOLAB_FUZZ_SEED is hex or random"),
        // FNV-1a of the family's name.
        Err(_) => family
            .bytes()
            .fold(0x6c62_272e_07bb_0142_62b8_2175_6295_c58d, |h, b| {
                (h ^ b as u128).wrapping_mul(0x0000_0000_0100_0000_0000_0000_0000_013b)
            }),
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
    let seed = rng_seed(family);
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
    let stats = Mutex::new((0u64, Duration::ZERO, 0usize, 0usize, 0usize, Duration::ZERO));
    let t0 = Instant::now();
    let result = runner.run(&inputs(family), |Input(input)| {
        *watch.current.lock().unwrap() = Some((Instant::now(), input.clone()));
        let cost = measured(f, &input);
        *watch.current.lock().unwrap() = None;
        let mut s = stats.lock().unwrap();
        s.0 += 1;
        s.1 = s.1.max(cost.time);
        s.5 += cost.time;
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
    let (count, slowest, peak, peak_len, longest, in_parsers) = *stats.lock().unwrap();
    let _ = writeln!(
        std::io::stderr(),
        "fuzz pass {family}: {count} cases in {:.2} s ({:.2} s CPU in the parsers, slowest case {} ms; peak {} for a {peak_len}-byte input; inputs up to {longest} bytes; IOLAB_FUZZ_SEED={:x})",
        t0.elapsed().as_secs_f64(),
        in_parsers.as_secs_f64(),
        slowest.as_millis(),
        mib(peak),
        u128::from_le_bytes(seed[..16].try_into().unwrap()),
    );
    if let Err(e) = result {
        let at = LAST_PANIC.with(|p| p.borrow().clone());
        let mut saved = String::new();
        if let proptest::test_runner::TestError::Fail(_, Input(b)) = &e {
            let p = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
                .join(format!("fuzz-pass-{family}.bin"));
            if std::fs::write(&p, b).is_ok() {
                saved = format!("; the input is in {}", p.display());
            }
        }
        panic!("fuzz pass {family}: {e}\n(the last case's panic was at {at}{saved})");
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
fn fuzz_fio() {
    pass("fio");
}

#[test]
fn fuzz_vdbench() {
    pass("vdbench");
}

#[test]
fn fuzz_filebench() {
    pass("filebench");
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

#[test]
fn fuzz_signatures() {
    pass("signatures");
}

#[test]
fn fuzz_remote() {
    pass("remote");
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
    for (name, b) in seeds("fio") {
        let t = std::str::from_utf8(b).unwrap();
        assert!(
            iolab_jobfile::fio::looks_like_fio(t),
            "{name} is not taken for fio"
        );
        use iolab_jobfile::fio::parse::{parse_files_with, Builtins, Host};
        let host = Host {
            env: &|_| Some("1".to_string()),
            builtins: Builtins::of_this_machine(),
            read: &|_| Ok("bs=8k\n".to_string()),
        };
        parse_files_with(&[(name.to_string(), t.to_string())], &[], &host)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
    }
    for (name, b) in seeds("vdbench") {
        let t = std::str::from_utf8(b).unwrap();
        assert!(
            iolab_jobfile::vdbench::looks_like_vdbench(t),
            "{name} is not taken for vdbench"
        );
        let vars = [("lun".to_string(), "/dev/x".to_string())];
        let read = |_: &std::path::Path| Ok("sd=default,threads=2\n".to_string());
        iolab_jobfile::vdbench::parse::parse_with(name, t, &vars, &read)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
    }
    for (name, b) in seeds("filebench") {
        let t = std::str::from_utf8(b).unwrap();
        assert!(
            iolab_jobfile::filebench::looks_like_filebench(t),
            "{name} is not taken for filebench"
        );
        let w = iolab_jobfile::filebench::parse::parse(name, t)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let lo = iolab_jobfile::frontend::LoadOptions::default();
        iolab_jobfile::filebench::map::translate(&w, &lo).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
    let mut hosts = 0;
    for (name, b) in seeds("result_doc") {
        let t = std::str::from_utf8(b).unwrap();
        let d = iolab_report::parse_document(t, name).unwrap_or_else(|e| panic!("{name}: {e}"));
        hosts += d.runs.iter().map(|r| r.hosts.len()).sum::<usize>();
        // Mutations cut inputs at this length: a longer seed never parses.
        assert!(
            b.len() < iolab_fuzzing::mutate::MAX_LEN,
            "{name} is too long"
        );
    }
    // The multi-host rendering is reached from a seed with hosts, one lost.
    assert!(hosts >= 2, "no result_doc seed has hosts[]");
    for (name, b) in seeds("remote") {
        use iolab_remote::proto::{self, FromAgent, ToAgent};
        let mut r = &b[..];
        let mut n = 0;
        while !r.is_empty() {
            if name.starts_with("to-agent") {
                proto::read_message::<_, ToAgent>(&mut r)
            } else {
                proto::read_message::<_, FromAgent>(&mut r).map(|_| ToAgent::Bye)
            }
            .unwrap_or_else(|e| panic!("{name}, frame {n}: {e}"));
            n += 1;
        }
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

/// The limits can fail: a case that holds 32 MiB is seen holding it (over
/// the bound for a 1-byte input), and one that spins is seen spinning.
#[test]
fn the_pass_sees_memory_and_time_a_case_uses() {
    fn hog(_: &[u8]) {
        let v = vec![1u8; 32 << 20];
        std::hint::black_box(&v);
    }
    let c = measured(hog, b"x");
    assert!(c.peak >= 32 << 20, "peak {}", c.peak);
    assert!(
        c.peak > MEM_BASE + MEM_PER_BYTE,
        "over the bound for 1 byte"
    );
    fn spin(_: &[u8]) {
        let t = thread_cpu();
        while thread_cpu() - t < Duration::from_millis(50) {
            std::hint::spin_loop();
        }
    }
    let c = measured(spin, b"x");
    assert!(c.time >= Duration::from_millis(50), "time {:?}", c.time);
}

/// Crates whose parsers read no input of iolab's users: test tools.
const NOT_IOLAB_INPUT: &[&str] = &["faultfs", "testutil", "fuzzing"];

/// Every parser added later is fuzzed too: each `pub fn parse...` in the
/// workspace's crates must be called from a family in
/// `crates/fuzzing/src/targets.rs`.
#[test]
fn every_public_parser_is_fuzzed() {
    let targets = include_str!("../src/targets.rs");
    let crates = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut missing = Vec::new();
    let mut found = 0;
    let mut dirs: Vec<std::path::PathBuf> = std::fs::read_dir(&crates)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            !NOT_IOLAB_INPUT.contains(&name.as_str())
        })
        .map(|p| p.join("src"))
        .collect();
    while let Some(d) = dirs.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd {
            let p = e.unwrap().path();
            if p.is_dir() {
                dirs.push(p);
                continue;
            }
            if p.extension().is_none_or(|x| x != "rs") {
                continue;
            }
            let src = std::fs::read_to_string(&p).unwrap();
            for line in src.lines() {
                let Some(rest) = line.trim_start().strip_prefix("pub fn parse") else {
                    continue;
                };
                let name: String = "parse"
                    .chars()
                    .chain(
                        rest.chars()
                            .take_while(|c| c.is_alphanumeric() || *c == '_'),
                    )
                    .collect();
                found += 1;
                if !targets.contains(&format!("{name}(")) {
                    missing.push(format!("{name} in {}", p.display()));
                }
            }
        }
    }
    assert!(
        found >= 20,
        "only {found} parsers found; is the walk broken?"
    );
    assert!(
        missing.is_empty(),
        "call these parsers from a family in crates/fuzzing/src/targets.rs: {missing:?}"
    );
}
