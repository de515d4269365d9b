//! Data validation of a file-system workload's files (`--verify` on a
//! file workload): every block written into a file is stamped with the
//! file's identity (fileset, file number, the file's generation) and the
//! offset; every read checks what it got. A byte changed behind iolab's
//! back, a block of another file or another place, or a file shorter than
//! iolab wrote it (truncated) is a finding.
//!
//! The format is the block workloads' ([`iolab_verify::stamp`]): every
//! 512-byte sector of a file (sector `k` covers bytes `512k..512k+512`)
//! carries the 48-byte stamp and the keyed payload, with
//! - `target` = the file's number in the workload (the files of fileset 0
//!   first, then those of fileset 1, ...),
//! - `gen` = the file's generation (1..=63), which changes each time the
//!   file is created again ([`FileVerify::created`]: a new, empty file),
//! - `offset` = the sector's offset in the file, `unit_sectors` = 1,
//! - `series` = derived from the workload's seed, so a kept fileset is
//!   recognised by the next run with the same seed,
//! - `time_ns` = 0: a file's content is a function of (file, offset,
//!   generation) alone, so rewriting a range in the same generation writes
//!   the same bytes (a read racing it cannot see a mix), and a partial
//!   sector (file sizes are arbitrary; appends start anywhere) can be
//!   rebuilt and compared byte for byte.
//!
//! A write may start or end inside a sector: it carries the bytes of the
//! stamped sector that fall in its range. A read checks whole sectors with
//! one CRC-32C each and partial ones against the rebuilt sector.
//!
//! Zeros: the driver never writes past a file's end, so a file created in
//! this run has no holes, and zeros read where iolab wrote are `zeroed`.
//! In a loose file (below) zeros are not checked: an earlier run or tool
//! may have left holes, and one byte per file cannot say where; a sector
//! where such a hole begins or ends must hold the file's bytes besides
//! the zeros.
//!
//! Memory: one byte per file ([`AtomicU8`]: bits 0-5 the generation, 0 =
//! nothing known; bit 6 LOOSE, bit 7 MOVED), plus the stamper's payload
//! pool (116 KiB) for the whole workload. One byte cannot say which
//! generation each block of a file holds, so a file's generation changes
//! only when it is created again (all its blocks then start anew); writes,
//! appends and rewrites in place keep it.
//!
//! Each damaged place is one finding. A finding's bad sectors (a
//! truncation: the file's end) in the file's generation are remembered
//! ([`iolab_verify::reported`], the last 1,024 places, 24 KiB): a later
//! read of the same place in the same generation is a repeat, counted in
//! `findings_repeated` and not a finding, as block workloads do for a
//! block read again before it is rewritten. A file created again starts
//! a new generation, so damage found in it is new. Findings number their
//! sectors within the file (`file_sector_first`, `file_sector_last`).
//!
//! Strict and loose files. A file created in this run (including by the
//! fileset's creation through [`FileVerify::fill`]) is strict: every
//! sector read must hold this file's stamp at its offset in the
//! generation the reader expects. A file iolab did not create in this run
//! (a kept fileset) is loose: its generation is unknown, any generation of
//! this series is accepted, and sectors without a stamp (a fileset made
//! without `--verify`) or of another series are counted as not checked
//! (`blocks_unwritten`); a stamped sector that fails its checksum, or a
//! stamp of another file or offset, is still a finding. A renamed file
//! (MOVED) accepts the stamps of any file of the workload.
//!
//! Concurrency. The executor may read a file while another thread
//! deletes and creates it again (a new inode, a new generation): a reader
//! passes the generation it saw when it opened the file ([`FileVerify::gen`]
//! to [`FileVerify::check_read`]), and data of either that generation or
//! the current one is accepted; the truncation check is skipped when the
//! file was created again since. [`FileVerify::check`] (no token) accepts
//! the current and the previous generation.
//!
//! The executor calls these hooks; [`FileVerify::off`] makes them free.
//! Per operation: no allocation, no lock, no clock read; one atomic load
//! (and on a file's first write in the run one compare-exchange) and one
//! atomic add; classification (which allocates) runs only on a finding.

use iolab_raw::{VerifyRaw, VerifyRunRaw};
use iolab_spec::DataPattern;
use iolab_verify::reported::END;
use iolab_verify::stamp::{parse, Sector, Stamp, Stamper, LAYOUT, MAGIC, MAX_GEN, SECTOR};
use iolab_verify::{next_gen, Class, Finding, HexWindow, Reported, VerifyTotals};
use std::sync::atomic::{AtomicU64, AtomicU8, Ordering::Relaxed};
use std::sync::Mutex;
use std::time::Instant;

const GEN: u8 = 0x3f;
/// The file may hold data of an earlier run (generation unknown).
const LOOSE: u8 = 0x40;
/// The file was renamed into this name: its stamps name another file.
const MOVED: u8 = 0x80;
const SEC: u64 = SECTOR as u64;
const SHARDS: usize = 8;

/// What a read found, if anything.
#[derive(Debug, Clone, PartialEq)]
pub enum ReadCheck {
    Ok,
    /// A finding: its one-line description (path, offset, what was found).
    Finding(String),
    /// Only a place already reported (`findings_repeated`, not a finding).
    Repeat,
}

/// Names a file for findings: (fileset, file number) -> its path.
pub type Namer = Box<dyn Fn(u32, u64) -> String + Send + Sync>;

/// Counters of one shard (files spread over shards by number, so threads
/// on different files rarely share a cache line).
#[derive(Default)]
#[repr(align(64))]
struct Shard {
    checked: AtomicU64,
    unknown: AtomicU64,
    prefilled: AtomicU64,
}

/// What findings need (taken only on a finding).
struct Cold {
    totals: VerifyTotals,
    t0: Option<Instant>,
    names: Option<Namer>,
    /// The places reported, so a damaged place read again is a repeat
    /// (bounded: [`iolab_verify::reported`]).
    reported: Reported,
}

struct Inner {
    stamper: Stamper,
    /// First workload file number of each fileset, and the total last.
    base: Vec<u64>,
    state: Box<[AtomicU8]>,
    shards: [Shard; SHARDS],
    findings: AtomicU64,
    cold: Mutex<Cold>,
}

/// A workload's validation state, shared by its threads.
pub struct FileVerify {
    inner: Option<Box<Inner>>,
}

/// Which stamps a read accepts.
#[derive(Clone, Copy)]
struct Accept {
    target: u32,
    now: u8,
    seen: Option<u8>,
    loose: bool,
    moved: bool,
}

impl Accept {
    fn new(now: u8, seen: Option<u8>) -> Accept {
        let flags = now | seen.unwrap_or(0);
        Accept {
            target: 0,
            now: now & GEN,
            seen: seen.map(|s| s & GEN),
            loose: flags & LOOSE != 0 || now & GEN == 0 || seen.is_some_and(|s| s & GEN == 0),
            moved: flags & MOVED != 0,
        }
    }

    #[inline]
    fn gen_ok(&self, g: u8) -> bool {
        if self.loose {
            return (1..=MAX_GEN).contains(&g);
        }
        match self.seen {
            Some(s) => g == self.now || g == s,
            None => g == self.now || g == prev_gen(self.now),
        }
    }

    /// Generations to try where the data does not say which it holds.
    fn candidates(&self) -> Vec<u8> {
        if self.loose {
            return (1..=MAX_GEN).collect();
        }
        let mut v = vec![self.now, self.seen.unwrap_or(prev_gen(self.now))];
        v.dedup();
        v
    }
}

fn prev_gen(g: u8) -> u8 {
    if g <= 1 {
        MAX_GEN
    } else {
        g - 1
    }
}

#[inline]
fn u64_at(s: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(s[at..at + 8].try_into().unwrap_or([0; 8]))
}

#[inline]
fn u32_at(s: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(s[at..at + 4].try_into().unwrap_or([0; 4]))
}

/// What one sector (or the part of it a read covered) held.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Verdict {
    Good,
    /// Not checked: a loose file's unstamped or foreign-series data.
    Unknown,
    /// This file's place, another generation (or series).
    Old {
        gen: u8,
        other_series: bool,
    },
    /// A stamp of another file or offset.
    Foreign {
        target: u32,
        offset: u64,
        gen: u8,
    },
    Zero,
    Corrupt,
}

/// The header fields a (possibly partial) sector shows, when its bytes
/// 8..40 were read and carry the magic.
fn header(part: &[u8], a: usize) -> Option<(u8, u64, u32, u64)> {
    if a > 8 || a + part.len() < 40 {
        return None;
    }
    let h = |i: usize| i - a;
    (part[h(8)..h(12)] == MAGIC && part[h(12)] == LAYOUT).then(|| {
        (
            part[h(13)],
            u64_at(part, h(16)),
            u32_at(part, h(24)),
            u64_at(part, h(32)),
        )
    })
}

impl FileVerify {
    /// No validation: every hook does nothing.
    pub fn off() -> FileVerify {
        FileVerify { inner: None }
    }

    /// Validation of `files_per_set[i]` files of each fileset `i`. `seed`
    /// (the workload's) fixes the series stamped into every sector, so a
    /// kept fileset is recognised by a later run with the same seed.
    pub fn new(files_per_set: &[u64], seed: u64) -> FileVerify {
        FileVerify::with_data(files_per_set, seed, DataPattern::Random)
    }

    /// Like [`FileVerify::new`], with the workload's `--data` pattern for
    /// the payloads.
    pub fn with_data(files_per_set: &[u64], seed: u64, data: DataPattern) -> FileVerify {
        let mut base = vec![0u64];
        for &n in files_per_set {
            base.push(base.last().copied().unwrap_or(0).saturating_add(n));
        }
        let total = base.last().copied().unwrap_or(0) as usize;
        let series = splitmix(seed ^ 0x6669_6c65_7365_7473);
        let inner = Inner {
            stamper: Stamper::new(series, data, series),
            base,
            state: (0..total).map(|_| AtomicU8::new(0)).collect(),
            shards: Default::default(),
            findings: AtomicU64::new(0),
            cold: Mutex::new(Cold {
                totals: VerifyTotals::default(),
                t0: None,
                names: None,
                reported: Reported::new(),
            }),
        };
        FileVerify {
            inner: Some(Box::new(inner)),
        }
    }

    pub fn on(&self) -> bool {
        self.inner.is_some()
    }

    /// How findings name files (default: `fileset S file N`).
    pub fn set_names(&self, names: Namer) {
        if let Some(v) = &self.inner {
            v.cold_lock().names = Some(names);
        }
    }

    /// The run's measured time starts now (findings carry `time_s` from it).
    pub fn started(&self, t0: Instant) {
        if let Some(v) = &self.inner {
            v.cold_lock().t0 = Some(t0);
        }
    }

    /// A file was (re)created empty: its contents start a new generation.
    pub fn created(&self, set: u32, file: u64) {
        if let Some((v, id)) = self.at(set, file) {
            let _ = v.state[id].fetch_update(Relaxed, Relaxed, |s| Some(next_gen(s & GEN)));
        }
    }

    /// File `from` was renamed onto the name of file `to` (which did not
    /// exist): `to` now holds data stamped for another file (any file of
    /// the workload is accepted there).
    pub fn renamed(&self, set: u32, from: u64, to: u64) {
        if let (Some((v, f)), Some((_, t))) = (self.at(set, from), self.at(set, to)) {
            let g = (v.state[f].load(Relaxed) & GEN).max(1);
            v.state[t].store(g | LOOSE | MOVED, Relaxed);
        }
    }

    /// The file's state now (its generation and flags): take it when the
    /// file is opened for reading and pass it to [`FileVerify::check_read`].
    pub fn gen(&self, set: u32, file: u64) -> u8 {
        self.at(set, file)
            .map_or(0, |(v, id)| v.state[id].load(Relaxed))
    }

    /// Fill `buf` (to be written at `off` of the file) with stamped data.
    pub fn stamp(&self, set: u32, file: u64, off: u64, buf: &mut [u8]) {
        if let Some((v, id)) = self.at(set, file) {
            let g = v.write_gen(id);
            v.fill(id as u32, g, off, buf);
        }
    }

    /// The fileset's creation fills `buf` at `off` of `file`: like
    /// [`FileVerify::stamp`], and a fill from offset 0 starts the file
    /// anew (it was created empty). Counted as prefilled sectors.
    pub fn fill(&self, set: u32, file: u64, off: u64, buf: &mut [u8]) {
        if let Some((v, id)) = self.at(set, file) {
            if off == 0 {
                self.created(set, file);
            }
            self.stamp(set, file, off, buf);
            v.shards[id % SHARDS]
                .prefilled
                .fetch_add(sectors(off, buf.len()), Relaxed);
        }
    }

    /// `buf` was read from `off` of the file, whose size iolab expects to
    /// be `expect_size`: check it. `buf` is what the read returned; an
    /// empty read before `expect_size` is a truncated file. Accepts the
    /// current and the previous generation (see [`FileVerify::check_read`]
    /// for the exact check).
    pub fn check(&self, set: u32, file: u64, off: u64, buf: &[u8], expect_size: u64) -> ReadCheck {
        let asked = if buf.is_empty() {
            usize::MAX
        } else {
            buf.len()
        };
        self.check_inner(set, file, None, off, asked, buf, expect_size)
    }

    /// [`FileVerify::check`] of a read that asked for `asked` bytes (the
    /// executor's: a truncation then says what the read asked for, as the
    /// error record of the same read does).
    pub fn check_piece(
        &self,
        (set, file): (u32, u64),
        off: u64,
        asked: usize,
        buf: &[u8],
        expect_size: u64,
    ) -> ReadCheck {
        self.check_inner(set, file, None, off, asked, buf, expect_size)
    }

    /// The exact check: `seen` is [`FileVerify::gen`] when the file was
    /// opened, `asked` the bytes the read asked for, `buf` what it
    /// returned, `expect_size` the size iolab knew the file to have when
    /// it issued the read (writes completed by then). A read that returned
    /// less than it asked while the file should have had more is a
    /// truncated file.
    #[allow(clippy::too_many_arguments)]
    pub fn check_read(
        &self,
        set: u32,
        file: u64,
        seen: u8,
        off: u64,
        asked: usize,
        buf: &[u8],
        expect_size: u64,
    ) -> ReadCheck {
        self.check_inner(set, file, Some(seen), off, asked, buf, expect_size)
    }

    /// Findings so far (for `--max-errors`).
    pub fn findings(&self) -> u64 {
        self.inner.as_ref().map_or(0, |v| v.findings.load(Relaxed))
    }

    /// Findings and counts so far, for the result. `blocks_*` count
    /// 512-byte sectors.
    pub fn totals(&self) -> VerifyRaw {
        let Some(v) = &self.inner else {
            return VerifyRaw::default();
        };
        let mut totals = v.cold_lock().totals.clone();
        for s in &v.shards {
            totals.blocks_checked += s.checked.load(Relaxed);
            totals.blocks_unwritten += s.unknown.load(Relaxed);
        }
        VerifyRaw {
            totals,
            ..VerifyRaw::default()
        }
    }

    /// The workload's `verify` record (block size 512: the sector; the
    /// driver sets `max_errors` and `stopped_on_max_errors`).
    pub fn run_raw(&self) -> Option<VerifyRunRaw> {
        let v = self.inner.as_ref()?;
        Some(VerifyRunRaw {
            block_size: SEC,
            series: v.stamper.series(),
            blocks_prefilled: v.shards.iter().map(|s| s.prefilled.load(Relaxed)).sum(),
            w: self.totals(),
            ..VerifyRunRaw::default()
        })
    }

    /// Forget the places reported (tests that damage one place in
    /// several ways).
    #[cfg(test)]
    fn forget_reported(&self) {
        if let Some(v) = &self.inner {
            v.cold_lock().reported = Reported::new();
        }
    }

    fn at(&self, set: u32, file: u64) -> Option<(&Inner, usize)> {
        let v = self.inner.as_deref()?;
        let b = *v.base.get(set as usize)?;
        let end = *v.base.get(set as usize + 1)?;
        (file < end - b).then_some((v, (b + file) as usize))
    }

    #[allow(clippy::too_many_arguments)]
    fn check_inner(
        &self,
        set: u32,
        file: u64,
        seen: Option<u8>,
        off: u64,
        asked: usize,
        buf: &[u8],
        expect_size: u64,
    ) -> ReadCheck {
        let Some((v, id)) = self.at(set, file) else {
            return ReadCheck::Ok;
        };
        let now = v.state[id].load(Relaxed);
        let acc = Accept {
            target: id as u32,
            ..Accept::new(now, seen)
        };
        let want = (asked as u64).min(expect_size.saturating_sub(off));
        let recreated = seen.is_some_and(|s| s & GEN != now & GEN);
        let mut out = ReadCheck::Ok;
        if (buf.len() as u64) < want && !recreated {
            let r = Truncation {
                off,
                got: buf.len() as u64,
                asked: asked as u64,
                want,
                expect_size,
            };
            let asked_known = asked != usize::MAX;
            // One place per file and generation: its end.
            out = v.report(set, file, (id, now & GEN), (END, END), || {
                r.finding(now & GEN, asked_known)
            });
        }
        let shard = &v.shards[id % SHARDS];
        if let Some(zeros) = v.fast_ok(&acc, off, buf) {
            shard.unknown.fetch_add(zeros, Relaxed);
            shard
                .checked
                .fetch_add(sectors(off, buf.len()) - zeros, Relaxed);
            return out;
        }
        let verdicts = v.verdicts(&acc, off, buf);
        let unknown = verdicts
            .iter()
            .filter(|(_, d)| *d == Verdict::Unknown)
            .count() as u64;
        shard.unknown.fetch_add(unknown, Relaxed);
        shard
            .checked
            .fetch_add(verdicts.len() as u64 - unknown, Relaxed);
        let Some(first) = verdicts.iter().find(|(_, d)| bad(d)).map(|x| x.0) else {
            return out;
        };
        let last = verdicts
            .iter()
            .rev()
            .find(|(_, d)| bad(d))
            .map_or(first, |x| x.0);
        let r = v.report(set, file, (id, acc.now), (first, last + SEC - 1), || {
            v.classify(&acc, off, buf, &verdicts)
                .unwrap_or_else(|| blank(Class::Corrupt, first, SEC, acc.now))
        });
        match (out, r) {
            (ReadCheck::Finding(l), _) => ReadCheck::Finding(l),
            (_, r) => r,
        }
    }
}

/// Sectors a range touches.
fn sectors(off: u64, len: usize) -> u64 {
    if len == 0 {
        return 0;
    }
    (off + len as u64).div_ceil(SEC) - off / SEC
}

fn splitmix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// A read that ended before the file's expected end.
struct Truncation {
    off: u64,
    got: u64,
    /// What the read asked for, and the part of it iolab wrote.
    asked: u64,
    want: u64,
    expect_size: u64,
}

impl Truncation {
    /// The finding; `asked_known`: the read's length is known (else only
    /// what iolab wrote there is said).
    fn finding(&self, gen: u8, asked_known: bool) -> Finding {
        let end = self.off + self.got;
        let mut f = blank(Class::Truncated, end, self.want - self.got, gen);
        let asked = if asked_known { self.asked } else { self.want };
        let wrote = if self.want < asked {
            format!(" of the {} iolab wrote there", self.want)
        } else {
            String::new()
        };
        f.summary = format!(
            "truncated: the file ends at byte {end} (or earlier) but iolab wrote {} bytes: a read of {asked} bytes at offset {} returned {}{wrote}",
            self.expect_size, self.off, self.got
        );
        f
    }
}

/// A piece's verdict that makes a finding.
fn bad(d: &Verdict) -> bool {
    !matches!(d, Verdict::Good | Verdict::Unknown)
}

fn blank(class: Class, offset: u64, len: u64, gen: u8) -> Finding {
    Finding {
        class,
        target: String::new(),
        offset,
        block_size: len,
        sector_first: 0,
        sector_last: 0,
        sectors_bad: 0,
        file_sector_first: None,
        file_sector_last: None,
        expected_gen: gen,
        found_gen: None,
        found_offset: None,
        found_target: None,
        found_series: None,
        found_written_at: None,
        first_bad_byte: None,
        hex: None,
        detected_by: "read".into(),
        time_s: None,
        summary: String::new(),
    }
}

/// Splits `[off, off + len)` into sector pieces: (sector offset, first
/// byte within the sector, bytes, position in the buffer).
fn pieces(off: u64, len: usize) -> impl Iterator<Item = (u64, usize, usize, usize)> {
    let mut pos = 0usize;
    std::iter::from_fn(move || {
        if pos >= len {
            return None;
        }
        let o = off + pos as u64;
        let sec = o - o % SEC;
        let a = (o - sec) as usize;
        let n = (SECTOR - a).min(len - pos);
        let p = pos;
        pos += n;
        Some((sec, a, n, p))
    })
}

impl Inner {
    fn cold_lock(&self) -> std::sync::MutexGuard<'_, Cold> {
        self.cold.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The generation a write stamps; a file with none known (not created
    /// in this run) starts at 1 and stays loose.
    #[inline]
    fn write_gen(&self, id: usize) -> u8 {
        let s = &self.state[id];
        let cur = s.load(Relaxed);
        if cur & GEN != 0 {
            return cur & GEN;
        }
        match s.compare_exchange(cur, cur | 1 | LOOSE, Relaxed, Relaxed) {
            Ok(_) => 1,
            Err(now) => (now & GEN).max(1),
        }
    }

    /// The stamp of sector `sec` of file `target` at generation `gen`:
    /// time 0, so the bytes depend on file, offset and generation only.
    #[inline]
    fn stamp_of(&self, target: u32, sec: u64, gen: u8) -> Stamp {
        Stamp {
            gen,
            index: 0,
            series: self.stamper.series(),
            target,
            unit_sectors: 1,
            offset: sec,
            time_ns: 0,
        }
    }

    #[inline]
    fn sector(&self, target: u32, sec: u64, gen: u8, out: &mut [u8; SECTOR]) {
        self.stamper
            .stamp_sector(out, &self.stamp_of(target, sec, gen));
    }

    #[inline]
    fn fill(&self, target: u32, gen: u8, off: u64, buf: &mut [u8]) {
        let mut tmp = [0u8; SECTOR];
        for (sec, a, n, p) in pieces(off, buf.len()) {
            if n == SECTOR {
                let st = self.stamp_of(target, sec, gen);
                self.stamper.stamp_sector(&mut buf[p..p + SECTOR], &st);
            } else {
                self.sector(target, sec, gen, &mut tmp);
                buf[p..p + n].copy_from_slice(&tmp[a..a + n]);
            }
        }
    }

    /// The fast check: every piece holds an accepted stamp, or (loose
    /// files) is a whole sector of zeros, not checked. Some(sectors of
    /// zeros), or None when the slow path must look.
    #[inline]
    fn fast_ok(&self, acc: &Accept, off: u64, buf: &[u8]) -> Option<u64> {
        let mut tmp = [0u8; SECTOR];
        let mut zeros = 0;
        let all = pieces(off, buf.len()).all(|(sec, a, n, p)| {
            let s = &buf[p..p + n];
            if n == SECTOR {
                let g = s[13];
                let t = if acc.moved { u32_at(s, 24) } else { acc.target };
                if acc.gen_ok(g) && self.stamper.sector_ok(s, t, sec, g, 1) {
                    return true;
                }
                zeros += 1;
                return acc.loose && s.iter().all(|&b| b == 0);
            }
            // A partial sector: rebuild it in the generation its header
            // shows, else the ones the reader expects.
            let (g0, t) = match header(s, a) {
                Some((g, _, t, _)) => (g, if acc.moved { t } else { acc.target }),
                None if acc.moved => return false,
                None => (acc.now, acc.target),
            };
            let g1 = acc.seen.unwrap_or(prev_gen(acc.now));
            [g0, g1].into_iter().any(|g| {
                g != 0 && acc.gen_ok(g) && {
                    self.sector(t, sec, g, &mut tmp);
                    tmp[a..a + n] == *s
                }
            })
        });
        all.then_some(zeros)
    }

    /// Each piece's verdict (the slow path).
    fn verdicts(&self, acc: &Accept, off: u64, buf: &[u8]) -> Vec<(u64, Verdict)> {
        pieces(off, buf.len())
            .map(|(sec, a, n, p)| (sec, self.verdict(acc, sec, a, &buf[p..p + n])))
            .collect()
    }

    fn verdict(&self, acc: &Accept, sec: u64, a: usize, s: &[u8]) -> Verdict {
        if s.iter().all(|&b| b == 0) {
            // Loose files: maybe a hole an earlier run left, not checked.
            return self.unknown_or(acc, Verdict::Zero);
        }
        let full = s.len() == SECTOR;
        let head = if full {
            match parse(s) {
                Sector::Stamped(t) => Some((t.gen, t.series, t.target, t.offset)),
                _ => None,
            }
        } else {
            header(s, a)
        };
        // The file's bytes, then zeros (or zeros, then its bytes): in a
        // loose file where a hole of an earlier run begins or ends, else
        // bytes lost to zeros.
        let zeros_beside = if acc.loose {
            Verdict::Good
        } else {
            Verdict::Zero
        };
        if let Some(h) = head {
            return match self.judge_stamp(acc, sec, h) {
                Verdict::Good if full || self.matches(h.2, sec, h.0, a, s, false) => Verdict::Good,
                Verdict::Good if self.matches(h.2, sec, h.0, a, s, true) => zeros_beside,
                Verdict::Good if acc.loose && self.split(acc, sec, a, s, h.0) => Verdict::Good,
                Verdict::Good => Verdict::Corrupt,
                v => v,
            };
        }
        let hdr_gen = (a <= 13 && a + s.len() > 13).then(|| s[13 - a]);
        if s[0] == 0 || s[s.len() - 1] == 0 {
            let gens = match hdr_gen {
                Some(g) if acc.gen_ok(g) => vec![g],
                _ => acc.candidates(),
            };
            if gens
                .iter()
                .any(|&g| self.matches(acc.target, sec, g, a, s, true))
            {
                return zeros_beside;
            }
        }
        if header_magic(s, a) {
            // The magic without a valid stamp: a changed byte, or (loose
            // files) two writes of different generations in one sector.
            let g = hdr_gen.unwrap_or(0);
            return match acc.loose && self.split(acc, sec, a, s, g) {
                true => Verdict::Good,
                false => Verdict::Corrupt,
            };
        }
        if full || (a <= 8 && a + s.len() >= 12) {
            // The header was read and is not a stamp: data iolab did not
            // write (or whose magic was changed).
            return self.unknown_or(acc, Verdict::Corrupt);
        }
        let gens = acc.candidates();
        match gens
            .iter()
            .any(|&g| self.matches(acc.target, sec, g, a, s, acc.loose))
        {
            true => Verdict::Good,
            false => self.unknown_or(acc, Verdict::Corrupt),
        }
    }

    /// Loose files: what cannot be told from foreign data is not checked.
    fn unknown_or(&self, acc: &Accept, v: Verdict) -> Verdict {
        if acc.loose {
            Verdict::Unknown
        } else {
            v
        }
    }

    /// A readable stamp (gen, series, target, offset) against what the
    /// file accepts.
    fn judge_stamp(
        &self,
        acc: &Accept,
        sec: u64,
        (gen, series, target, offset): (u8, u64, u32, u64),
    ) -> Verdict {
        let ours = series == self.stamper.series();
        if !ours {
            return if acc.loose {
                Verdict::Unknown
            } else {
                Verdict::Old {
                    gen,
                    other_series: true,
                }
            };
        }
        let total = *self.base.last().unwrap_or(&0);
        let target_ok = target == acc.target || (acc.moved && (target as u64) < total);
        if offset != sec || !target_ok {
            return Verdict::Foreign {
                target,
                offset,
                gen,
            };
        }
        if acc.gen_ok(gen) {
            Verdict::Good
        } else {
            Verdict::Old {
                gen,
                other_series: false,
            }
        }
    }

    /// The piece holds the stamped sector of (target, sec, gen) there
    /// (with `holes`, but for zeros before or after: where a hole begins
    /// or ends).
    fn matches(&self, target: u32, sec: u64, gen: u8, a: usize, s: &[u8], holes: bool) -> bool {
        let mut tmp = [0u8; SECTOR];
        self.sector(target, sec, gen, &mut tmp);
        if !holes {
            return tmp[a..a + s.len()] == *s;
        }
        let Some(i) = s.iter().position(|&b| b != 0) else {
            return true;
        };
        let j = s.iter().rposition(|&b| b != 0).unwrap_or(i);
        tmp[a + i..=a + j] == s[i..=j]
    }

    /// A loose file's sector where two writes of different generations
    /// meet (an append to a file of an earlier run): the bytes up to some
    /// point are generation `ga`'s, the rest another generation's.
    fn split(&self, acc: &Accept, sec: u64, a: usize, s: &[u8], ga: u8) -> bool {
        if !(1..=MAX_GEN).contains(&ga) {
            return false;
        }
        let mut first = [0u8; SECTOR];
        let mut second = [0u8; SECTOR];
        self.sector(acc.target, sec, ga, &mut first);
        let Some(k) = first[a..a + s.len()]
            .iter()
            .zip(s)
            .position(|(x, y)| x != y)
        else {
            return true;
        };
        (1..=MAX_GEN).any(|gb| {
            self.sector(acc.target, sec, gb, &mut second);
            second[a + k..a + s.len()] == s[k..]
        })
    }

    /// The finding a read's verdicts make, if any.
    fn classify(
        &self,
        acc: &Accept,
        off: u64,
        buf: &[u8],
        vs: &[(u64, Verdict)],
    ) -> Option<Finding> {
        let first = vs.iter().position(|(_, d)| bad(d))?;
        let last = vs.iter().rposition(|(_, d)| bad(d)).unwrap_or(first);
        let has = |f: fn(&Verdict) -> bool| vs.iter().any(|(_, d)| f(d));
        let class = if has(|d| *d == Verdict::Corrupt) {
            Class::Corrupt
        } else if has(|d| matches!(d, Verdict::Foreign { .. })) {
            Class::Misdirected
        } else if has(|d| *d == Verdict::Zero) {
            Class::Zeroed
        } else if has(|d| *d == Verdict::Good) {
            Class::Torn
        } else {
            Class::Stale
        };
        let key = vs
            .iter()
            .find(|(_, d)| class_of(d) == Some(class))
            .map_or(vs[first], |x| *x);
        let (sec0, sec1) = (vs[first].0, vs[last].0);
        let mut f = blank(class, sec0, sec1 + SEC - sec0, acc.now);
        f.sector_last = ((sec1 - sec0) / SEC) as u32;
        f.sectors_bad = vs.iter().filter(|(_, d)| bad(d)).count() as u32;
        self.found_fields(&mut f, key.1);
        self.diff(&mut f, acc, off, buf);
        f.summary = self.summary(&f, vs.len(), key.1);
        Some(f)
    }

    fn found_fields(&self, f: &mut Finding, d: Verdict) {
        match d {
            Verdict::Old { gen, other_series } => {
                f.found_gen = Some(gen);
                if other_series {
                    f.found_series = Some("another run".into());
                }
            }
            Verdict::Foreign {
                target,
                offset,
                gen,
            } => {
                f.found_gen = Some(gen);
                f.found_offset = Some(offset);
                f.found_target = Some(target);
                f.found_series = Some(format!("{:016x}", self.stamper.series()));
            }
            _ => {}
        }
    }

    /// The first differing byte of the first bad sector and a hex window.
    fn diff(&self, f: &mut Finding, acc: &Accept, off: u64, buf: &[u8]) {
        let sec = f.offset;
        let a = off.max(sec) - sec;
        let start = (sec + a - off) as usize;
        let end = buf.len().min((sec + SEC - off) as usize);
        let s = &buf[start..end];
        let mut exp = [0u8; SECTOR];
        self.sector(acc.target, sec, acc.now.max(1), &mut exp);
        let e = &exp[a as usize..a as usize + s.len()];
        if let Some(d) = e.iter().zip(s).position(|(x, y)| x != y) {
            let w0 = d & !15;
            let w1 = (w0 + 32).min(s.len());
            f.first_bad_byte = Some(a + d as u64);
            f.hex = Some(HexWindow {
                offset: a + w0 as u64,
                expected: hex(&e[w0..w1]),
                found: hex(&s[w0..w1]),
            });
        }
    }

    fn summary(&self, f: &Finding, n: usize, key: Verdict) -> String {
        let at = f.offset;
        match (f.class, key) {
            (Class::Misdirected, Verdict::Foreign { target, offset, .. }) => {
                let who = self.name_of(target);
                format!("misdirected: the sector at offset {at} holds data written for offset {offset} of {who}")
            }
            (Class::Stale, Verdict::Old { gen, other_series }) => format!(
                "stale: holds generation {gen}{} where generation {} was written: a lost write",
                if other_series { " of another run" } else { "" },
                f.expected_gen
            ),
            (Class::Zeroed, _) => format!(
                "zeroed: {} of {n} sectors read back as zeros from offset {at} where iolab wrote",
                f.sectors_bad
            ),
            (Class::Torn, Verdict::Old { gen, .. }) => format!(
                "torn: {} of {n} sectors read hold an older generation ({gen}) while the rest hold generation {}",
                f.sectors_bad, f.expected_gen
            ),
            _ => format!(
                "corrupt: {} of {n} sectors read do not hold what iolab wrote (first differing byte at offset {})",
                f.sectors_bad,
                at + f.first_bad_byte.unwrap_or(0)
            ),
        }
    }

    /// The path of workload file `id`.
    fn name_of(&self, id: u32) -> String {
        let set = self
            .base
            .partition_point(|&b| b <= id as u64)
            .saturating_sub(1);
        let file = id as u64 - self.base.get(set).copied().unwrap_or(0);
        let cold = self.cold_lock();
        name(&cold, set as u32, file)
    }

    /// A finding on bytes `first..=last` of workload file `id` in
    /// generation `gen` (`END` for its end): a repeat when that place was
    /// reported (counted, nothing built), else `make`'s finding recorded.
    fn report(
        &self,
        set: u32,
        file: u64,
        (id, gen): (usize, u8),
        (first, last): (u64, u64),
        make: impl FnOnce() -> Finding,
    ) -> ReadCheck {
        {
            let mut cold = self.cold_lock();
            if cold.reported.repeat(id as u32, gen, first, last) {
                cold.totals.findings_repeated += 1;
                return ReadCheck::Repeat;
            }
        }
        // Built without the lock: naming a misdirected block's owner takes it.
        self.finding(set, file, make())
    }

    /// Record a finding and say it in one line. Its sectors are also
    /// numbered within the file (`file_sector_first`, `_last`).
    fn finding(&self, set: u32, file: u64, mut f: Finding) -> ReadCheck {
        self.findings.fetch_add(1, Relaxed);
        f.file_sector_first = Some(f.offset / SEC);
        f.file_sector_last = Some((f.offset + f.block_size.max(1) - 1) / SEC);
        let mut cold = self.cold_lock();
        f.target = name(&cold, set, file);
        f.time_s = cold.t0.map(|t| t.elapsed().as_secs_f64());
        let line = format!("{}: {}", f.target, f.summary);
        cold.totals.add_finding(f);
        ReadCheck::Finding(line)
    }
}

fn name(cold: &Cold, set: u32, file: u64) -> String {
    match &cold.names {
        Some(n) => n(set, file),
        None => format!("fileset {set} file {file}"),
    }
}

fn header_magic(s: &[u8], a: usize) -> bool {
    a <= 8 && a + s.len() >= 13 && s[8 - a..12 - a] == MAGIC
}

fn class_of(d: &Verdict) -> Option<Class> {
    match d {
        Verdict::Corrupt => Some(Class::Corrupt),
        Verdict::Foreign { .. } => Some(Class::Misdirected),
        Verdict::Zero => Some(Class::Zeroed),
        Verdict::Old { .. } => Some(Class::Stale),
        _ => None,
    }
}

fn hex(b: &[u8]) -> String {
    b.iter()
        .map(|x| format!("{x:02x}"))
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two filesets (3 and 2 files), findings naming files `s<set>/f<file>`.
    fn fv(seed: u64) -> FileVerify {
        let v = FileVerify::new(&[3, 2], seed);
        v.set_names(Box::new(|s, f| format!("s{s}/f{f}")));
        v
    }

    /// A file of `len` bytes as iolab writes it: created, then stamped in
    /// writes of `chunk` bytes (sizes that cut sectors anywhere).
    fn write_file(v: &FileVerify, set: u32, file: u64, len: usize, chunk: usize) -> Vec<u8> {
        v.created(set, file);
        let mut data = vec![0u8; len];
        let mut off = 0;
        while off < len {
            let n = chunk.min(len - off);
            v.stamp(set, file, off as u64, &mut data[off..off + n]);
            off += n;
        }
        data
    }

    fn finding(v: &FileVerify, n: usize) -> Finding {
        v.totals().totals.findings[n].clone()
    }

    #[test]
    fn what_iolab_wrote_reads_back_clean_at_any_offset_and_length() {
        let v = fv(1);
        // 10,000 bytes: 19 whole sectors and a partial one of 272 bytes,
        // written in 1,000-byte pieces (every write starts mid-sector).
        let data = write_file(&v, 0, 1, 10_000, 1_000);
        let mut one = vec![0u8; 10_000];
        v.stamp(0, 1, 0, &mut one);
        assert!(
            data == one,
            "a file's bytes depend only on file, offset, generation"
        );
        let s = v.gen(0, 1);
        for (off, len) in [(0, 10_000), (700, 3_000), (9_990, 10), (512, 512), (0, 1)] {
            let r = v.check_read(0, 1, s, off, len, &data[off as usize..][..len], 10_000);
            assert_eq!(r, ReadCheck::Ok, "{off}+{len}");
        }
        assert_eq!(v.check(0, 1, 0, &data, 10_000), ReadCheck::Ok);
        let t = v.totals().totals;
        assert_eq!(t.findings_total, 0);
        assert_eq!(t.blocks_unwritten, 0);
        assert_eq!(t.blocks_checked, 20 + 7 + 1 + 1 + 1 + 20);
    }

    #[test]
    fn a_changed_byte_is_corrupt_with_its_path_and_offset() {
        let v = fv(1);
        let mut data = write_file(&v, 1, 0, 10_000, 4096);
        data[3000] ^= 0x20;
        match v.check(1, 0, 0, &data, 10_000) {
            ReadCheck::Finding(line) => assert!(line.starts_with("s1/f0: corrupt"), "{line}"),
            r => panic!("{r:?}"),
        }
        let f = finding(&v, 0);
        assert_eq!(
            (f.class, f.target.as_str(), f.offset),
            (Class::Corrupt, "s1/f0", 2560)
        );
        assert_eq!(f.first_bad_byte, Some(3000 - 2560));
        assert_eq!(f.sectors_bad, 1);
        assert!(f.hex.is_some());
        // A read that does not cover the byte finds nothing.
        assert_eq!(v.check(1, 0, 0, &data[..2560], 10_000), ReadCheck::Ok);
        // The partial last sector is checked byte for byte.
        let mut tail = data.clone();
        tail[3000] ^= 0x20;
        tail[9_990] ^= 1;
        assert!(matches!(
            v.check(1, 0, 9_728, &tail[9_728..], 10_000),
            ReadCheck::Finding(_)
        ));
        assert_eq!(finding(&v, 1).class, Class::Corrupt);
        assert_eq!(finding(&v, 1).offset, 9_728);
        assert_eq!(v.totals().totals.by_class["corrupt"], 2);
        assert_eq!(v.findings(), 2);
    }

    #[test]
    fn a_damaged_place_read_again_is_one_finding_until_the_file_is_made_again() {
        let v = fv(1);
        let mut data = write_file(&v, 0, 0, 16_384, 4096);
        data[3000] ^= 1;
        let s = v.gen(0, 0);
        assert!(matches!(
            v.check(0, 0, 0, &data, 16_384),
            ReadCheck::Finding(_)
        ));
        // The same sector through other reads: repeats, not findings.
        assert_eq!(v.check(0, 0, 0, &data[..4096], 16_384), ReadCheck::Repeat);
        assert_eq!(
            v.check_read(0, 0, s, 2560, 512, &data[2560..3072], 16_384),
            ReadCheck::Repeat
        );
        // Another damaged sector is a place of its own.
        data[9000] ^= 1;
        assert!(matches!(
            v.check(0, 0, 8192, &data[8192..12_288], 16_384),
            ReadCheck::Finding(_)
        ));
        let t = v.totals().totals;
        assert_eq!((t.findings_total, t.findings_repeated), (2, 2));
        assert_eq!(v.findings(), 2);
        // Sectors numbered within the file.
        let f = &t.findings[0];
        assert_eq!(
            (f.offset, f.file_sector_first, f.file_sector_last),
            (2560, Some(5), Some(5))
        );
        assert_eq!((f.sector_first, f.sector_last), (0, 0));
        // A truncation is one place per file and generation.
        let cut = &data[..10_000];
        let r = v.check_piece((0, 0), 8192, 4096, &cut[8192..], 16_384);
        assert!(
            matches!(&r, ReadCheck::Finding(l) if l.contains("a read of 4096 bytes at offset 8192 returned 1808")),
            "{r:?}"
        );
        assert_eq!(
            v.check_piece((0, 0), 12_288, 4096, &[], 16_384),
            ReadCheck::Repeat
        );
        assert_eq!(finding(&v, 2).file_sector_first, Some(19));
        // Made again: a new generation, whose damage is new.
        let mut data = write_file(&v, 0, 0, 4096, 4096);
        data[3000] ^= 1;
        assert!(matches!(
            v.check(0, 0, 0, &data, 4096),
            ReadCheck::Finding(_)
        ));
        assert_eq!(v.totals().totals.findings_total, 4);
    }

    #[test]
    fn a_block_of_another_file_is_misdirected_and_names_it() {
        let v = fv(1);
        let mut a = write_file(&v, 0, 1, 8192, 8192);
        let b = write_file(&v, 0, 2, 8192, 8192);
        a[4096..8192].copy_from_slice(&b[4096..8192]);
        let r = v.check(0, 1, 0, &a, 8192);
        let f = finding(&v, 0);
        assert_eq!(f.class, Class::Misdirected, "{r:?}");
        assert_eq!((f.offset, f.sectors_bad), (4096, 8));
        assert_eq!((f.found_target, f.found_offset), (Some(2), Some(4096)));
        assert!(f.summary.contains("of s0/f2"), "{}", f.summary);
        // The same offset of a file of the other fileset.
        let c = write_file(&v, 1, 1, 8192, 8192);
        a[..512].copy_from_slice(&c[..512]);
        v.check(0, 1, 0, &a[..512], 8192);
        assert_eq!(finding(&v, 1).found_target, Some(4));
        assert!(finding(&v, 1).summary.contains("s1/f1"));
    }

    #[test]
    fn a_file_shorter_than_written_is_truncated() {
        let v = fv(1);
        let data = write_file(&v, 0, 0, 12_000, 12_000);
        let s = v.gen(0, 0);
        // Truncated behind iolab's back to 10,000 bytes: the read of 4 KiB
        // at 8 KiB returns 1,808 bytes where iolab expects 3,808.
        let r = v.check_read(0, 0, s, 8192, 4096, &data[8192..10_000], 12_000);
        assert!(
            matches!(&r, ReadCheck::Finding(l) if l.contains("truncated")),
            "{r:?}"
        );
        let f = finding(&v, 0);
        assert_eq!(
            (f.class, f.offset, f.block_size),
            (Class::Truncated, 10_000, 2_000)
        );
        // An empty read before the end, through `check` too: the same
        // file's end in the same generation, a repeat (forgotten: a
        // finding).
        assert_eq!(v.check(0, 0, 10_240, &[], 12_000), ReadCheck::Repeat);
        v.forget_reported();
        assert!(matches!(
            v.check(0, 0, 10_240, &[], 12_000),
            ReadCheck::Finding(_)
        ));
        // The file's real end is no finding, nor a read past it.
        assert_eq!(
            v.check_read(0, 0, s, 8192, 4096, &data[8192..], 12_000),
            ReadCheck::Ok
        );
        assert_eq!(
            v.check_read(0, 0, s, 12_000, 4096, &[], 12_000),
            ReadCheck::Ok
        );
        assert_eq!(v.totals().totals.by_class["truncated"], 2);
    }

    #[test]
    fn an_older_generation_is_stale_a_mix_is_torn_zeros_are_zeroed() {
        let v = fv(1);
        let old = write_file(&v, 0, 0, 4096, 4096);
        let new = write_file(&v, 0, 0, 4096, 4096);
        let s = v.gen(0, 0);
        assert_eq!(v.check_read(0, 0, s, 0, 4096, &new, 4096), ReadCheck::Ok);
        v.check_read(0, 0, s, 0, 4096, &old, 4096);
        assert_eq!(finding(&v, 0).class, Class::Stale);
        assert_eq!(finding(&v, 0).found_gen, Some(1));
        let mut torn = new.clone();
        torn[2048..].copy_from_slice(&old[2048..]);
        // Each case damages the same place: forget the one before.
        v.forget_reported();
        v.check_read(0, 0, s, 0, 4096, &torn, 4096);
        assert_eq!(finding(&v, 1).class, Class::Torn);
        assert_eq!(
            (finding(&v, 1).offset, finding(&v, 1).sectors_bad),
            (2048, 4)
        );
        // The driver never writes past a file's end: zeros in a file
        // created in this run are data lost to zeros.
        let mut z = new.clone();
        z[1024..1536].fill(0);
        v.forget_reported();
        v.check_read(0, 0, s, 0, 4096, &z, 4096);
        assert_eq!(
            (finding(&v, 2).class, finding(&v, 2).offset),
            (Class::Zeroed, 1024)
        );
        let mut tail = new.clone();
        tail[3000..].fill(0);
        v.forget_reported();
        v.check_read(0, 0, s, 0, 4096, &tail, 4096);
        assert_eq!(finding(&v, 3).class, Class::Zeroed);
        assert_eq!(finding(&v, 3).offset, 2560);
    }

    #[test]
    fn a_hole_in_a_kept_file_is_no_finding_but_a_change_beside_it_is() {
        let before = fv(1);
        before.created(0, 0);
        // An earlier run wrote 2,780 bytes, then 4,096 at 4,096: a hole
        // from 2,780 to 4,096 (the sector at 2,560 holds the file's bytes,
        // then zeros).
        let mut f = vec![0u8; 8192];
        before.stamp(0, 0, 0, &mut f[..2780]);
        before.stamp(0, 0, 4096, &mut f[4096..]);
        let v = fv(1);
        assert_eq!(v.check(0, 0, 0, &f, 8192), ReadCheck::Ok);
        assert_eq!(v.check(0, 0, 2600, &f[2600..5000], 8192), ReadCheck::Ok);
        let t = v.totals().totals;
        assert_eq!((t.findings_total, t.blocks_unwritten), (0, 2 + 2));
        f[2700] ^= 1;
        assert!(matches!(v.check(0, 0, 0, &f, 8192), ReadCheck::Finding(_)));
        assert_eq!(
            (finding(&v, 0).class, finding(&v, 0).offset),
            (Class::Corrupt, 2560)
        );
        // In the run that made the file, the same zeros are zeroed.
        f[2700] ^= 1;
        assert!(matches!(
            before.check(0, 0, 0, &f, 8192),
            ReadCheck::Finding(_)
        ));
        assert_eq!(finding(&before, 0).class, Class::Zeroed);
    }

    #[test]
    fn a_reader_of_a_file_created_again_meanwhile_is_no_finding() {
        let v = fv(1);
        let old = write_file(&v, 0, 0, 8192, 8192);
        let seen = v.gen(0, 0);
        // Another thread deletes the file and creates it again (a new
        // inode): the reader's open file still holds the old data, and
        // is longer than the new file iolab knows.
        write_file(&v, 0, 0, 100, 100);
        assert_eq!(v.check_read(0, 0, seen, 0, 8192, &old, 100), ReadCheck::Ok);
        assert_eq!(
            v.check_read(0, 0, seen, 0, 8192, &old[..4096], 9000),
            ReadCheck::Ok
        );
        // Without the token the previous generation is accepted.
        assert_eq!(v.check(0, 0, 0, &old, 8192), ReadCheck::Ok);
        assert_eq!(v.totals().totals.findings_total, 0);
    }

    #[test]
    fn a_kept_fileset_is_checked_by_the_next_run() {
        let before = fv(7);
        for _ in 0..4 {
            before.created(0, 1);
        }
        let mut data = write_file(&before, 0, 1, 5_000, 5_000);
        // The next run (same seed) knows nothing of the file: any
        // generation is accepted, a changed byte is still found.
        let after = fv(7);
        assert_eq!(after.check(0, 1, 0, &data, 5_000), ReadCheck::Ok);
        // It appends 2,000 bytes in generation 1: the sector where the
        // two writes meet is no finding.
        data.resize(7_000, 0);
        after.stamp(0, 1, 5_000, &mut data[5_000..]);
        assert_eq!(after.check(0, 1, 0, &data, 7_000), ReadCheck::Ok);
        assert_eq!(
            after.check(0, 1, 4_900, &data[4_900..5_100], 7_000),
            ReadCheck::Ok
        );
        data[100] ^= 4;
        assert!(matches!(
            after.check(0, 1, 0, &data, 7_000),
            ReadCheck::Finding(_)
        ));
        assert_eq!(finding(&after, 0).class, Class::Corrupt);
        data[100] ^= 4;
        // Data iolab did not stamp (a fileset made without --verify) or of
        // another seed is counted as not checked, not a finding.
        let other = fv(8);
        let random: Vec<u8> = (0..4096u32)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
            .collect();
        assert_eq!(other.check(0, 1, 0, &random, 4096), ReadCheck::Ok);
        assert_eq!(other.check(0, 1, 0, &data[..4096], 4096), ReadCheck::Ok);
        let t = other.totals().totals;
        assert_eq!((t.findings_total, t.blocks_unwritten), (0, 16));
    }

    #[test]
    fn fill_starts_a_file_and_renamed_files_keep_their_stamps() {
        let v = fv(1);
        let mut a = vec![0u8; 3000];
        v.fill(0, 0, 0, &mut a[..2000]);
        v.fill(0, 0, 2000, &mut a[2000..]);
        assert_eq!(v.gen(0, 0), 1);
        assert_eq!(v.check(0, 0, 0, &a, 3000), ReadCheck::Ok);
        assert_eq!(v.run_raw().map(|r| r.blocks_prefilled), Some(7));
        v.renamed(0, 0, 2);
        assert_eq!(v.check(0, 2, 0, &a, 3000), ReadCheck::Ok);
        assert_eq!(v.totals().totals.findings_total, 0);
    }

    #[test]
    fn off_and_out_of_range_do_nothing() {
        let v = FileVerify::off();
        assert!(!v.on());
        let mut b = vec![7u8; 100];
        v.stamp(0, 0, 0, &mut b);
        assert_eq!(b, vec![7u8; 100]);
        assert_eq!(v.check(0, 0, 0, &[1, 2, 3], 10), ReadCheck::Ok);
        assert_eq!(v.totals(), VerifyRaw::default());
        assert!(v.run_raw().is_none());
        let on = fv(1);
        on.stamp(5, 0, 0, &mut b);
        on.stamp(0, 3, 0, &mut b);
        assert_eq!(b, vec![7u8; 100]);
        assert_eq!(on.check(0, 9, 0, &b, 100), ReadCheck::Ok);
    }
}
