//! A worker's side of `--verify`: lock the blocks of each I/O in the
//! shared generation map (so overlapping I/O is never in flight at once,
//! and a check can never race a write), stamp writes with the next
//! generation, check reads against the map, and keep the map's
//! durability flags honest for the journal.
//!
//! Per I/O this costs one atomic OR per block to lock, one store per block
//! to release, and for each 512-byte sector of the data one CRC-32C (plus the
//! payload fill on writes). No allocation, no lock, no clock read; the
//! classification of a finding (which allocates) runs only when a check
//! fails. A block found bad is reported once per generation: reads of it
//! before a write gives it a new one are repeats (`findings_repeated`).

use crate::gen::{Dir, IoPlan};
use iolab_raw::VerifyRaw;
use iolab_verify::map::{GenMap, GEN, LOCK, UNSURE};
use iolab_verify::{
    check_block, next_gen, pattern_finding, Expect, Outcome, Reported, Stamper, VerifyTotals,
};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// What the worker loop calls around each I/O. [`NoVerify`] (no
/// `--verify`) does nothing and has `ON == false`, so the loop compiles
/// without any of it; [`WorkerVerify`] locks, stamps and checks.
pub trait Hooks {
    const ON: bool;
    fn start(&mut self, t0: Instant);
    fn try_lock(&self, p: &IoPlan) -> bool;
    fn stamp(&self, buf: &mut [u8], p: &IoPlan, now_ns: u64);
    fn write_done(&mut self, target: u32, offset: u64, len: u32, ok: bool, keep_lock: bool);
    fn fsync_done(&mut self, target: u32);
    fn unlock(&self, target: u32, offset: u64, len: u32);
    fn check_read(
        &mut self,
        data: &[u8],
        io: (u32, u64, u32),
        path: &str,
        after: bool,
        now_ns: u64,
    ) -> bool;
    fn before_submit(&mut self, has_writes: bool);
    fn wants_after(&self) -> bool;
    fn into_raw(self) -> Option<VerifyRaw>;
}

/// No `--verify`.
pub struct NoVerify;

impl Hooks for NoVerify {
    const ON: bool = false;
    #[inline(always)]
    fn start(&mut self, _: Instant) {}
    #[inline(always)]
    fn try_lock(&self, _: &IoPlan) -> bool {
        true
    }
    #[inline(always)]
    fn stamp(&self, _: &mut [u8], _: &IoPlan, _: u64) {}
    #[inline(always)]
    fn write_done(&mut self, _: u32, _: u64, _: u32, _: bool, _: bool) {}
    #[inline(always)]
    fn fsync_done(&mut self, _: u32) {}
    #[inline(always)]
    fn unlock(&self, _: u32, _: u64, _: u32) {}
    #[inline(always)]
    fn check_read(&mut self, _: &[u8], _: (u32, u64, u32), _: &str, _: bool, _: u64) -> bool {
        false
    }
    #[inline(always)]
    fn before_submit(&mut self, _: bool) {}
    #[inline(always)]
    fn wants_after(&self) -> bool {
        false
    }
    fn into_raw(self) -> Option<VerifyRaw> {
        None
    }
}

/// What all workers of a verified run share.
pub struct VerifyShared {
    pub stamper: Stamper,
    /// `data = pattern:...`: writes carry the pattern instead of stamps
    /// and every read is compared with it, wherever it lands.
    pub pattern: Option<iolab_spec::PatternBytes>,
    /// Block size of the map, bytes.
    pub unit: u64,
    /// Map and stamp target number of each run target.
    pub maps: Vec<Arc<GenMap>>,
    pub ids: Vec<u32>,
    /// Writes are O_DSYNC: durable when they complete.
    pub durable_writes: bool,
    /// Sync the journal's maps before issuing a batch with writes, so a
    /// power cut cannot lose the record of an in-flight write.
    pub journal_sync: bool,
    /// `--verify-after`: re-read every write once it completes.
    pub after: bool,
    /// `--max-errors`: stop the run after this many findings (0: never).
    pub max_findings: u64,
    pub findings: AtomicU64,
    /// Set when the run stopped on `--max-errors`.
    pub stopped: AtomicBool,
    /// The blocks reported so far (taken only on a finding).
    pub reported: Mutex<Reported>,
}

impl VerifyShared {
    fn reported_lock(&self) -> std::sync::MutexGuard<'_, Reported> {
        self.reported.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// One worker's verification state and counters.
pub struct WorkerVerify {
    sh: Arc<VerifyShared>,
    /// Run target index of each of the worker's targets.
    local: Vec<usize>,
    unit: u64,
    /// Non-durable writes since this worker's last fsync: (local target,
    /// first block, blocks, generation of the first block; the others of
    /// one write may differ and are left unsure, which is only cautious).
    pending: Vec<(u32, usize, u32, u8)>,
    pending_cap: usize,
    pub totals: VerifyTotals,
    pub reads_after: u64,
    pub journal_syncs: u64,
    pub journal_sync_ns: u64,
    epoch0_ns: u64,
}

impl WorkerVerify {
    pub fn new(sh: Arc<VerifyShared>, local: Vec<usize>, fsync_every: u64, qd: u32) -> Self {
        let unit = sh.unit;
        let pending_cap = if fsync_every > 0 {
            (fsync_every as usize + qd as usize).min(1 << 20)
        } else {
            0
        };
        WorkerVerify {
            sh,
            local,
            unit,
            pending: Vec::with_capacity(pending_cap),
            pending_cap,
            totals: VerifyTotals::default(),
            reads_after: 0,
            journal_syncs: 0,
            journal_sync_ns: 0,
            epoch0_ns: 0,
        }
    }

    /// Called once the run clock starts: stamps carry wall-clock time.
    pub fn start(&mut self, t0: Instant) {
        let wall = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(0);
        self.epoch0_ns = wall.saturating_sub(t0.elapsed().as_nanos() as u64);
    }

    #[inline]
    fn span(&self, target: u32, offset: u64, len: u32) -> (&GenMap, usize, usize) {
        let ti = self.local[target as usize];
        let first = (offset / self.unit) as usize;
        let n = (len as u64 / self.unit) as usize;
        (&self.sh.maps[ti], first, n)
    }

    /// Lock the blocks of a planned I/O; false when another I/O holds one
    /// of them (the plan is then held back and retried).
    #[inline]
    pub fn try_lock(&self, p: &IoPlan) -> bool {
        let (m, first, n) = self.span(p.target, p.offset, p.len);
        if !m.try_lock(first, n) {
            return false;
        }
        if p.dir == Dir::Write {
            // The write's blocks take their next generation now, marked
            // unsure until the write is known durable.
            for b in &m.entries()[first..first + n] {
                let v = b.load(Ordering::Relaxed);
                b.store(LOCK | UNSURE | next_gen(v & GEN), Ordering::Relaxed);
            }
        }
        true
    }

    /// Stamp a locked write's buffer with its blocks' new generations.
    #[inline]
    pub fn stamp(&self, buf: &mut [u8], p: &IoPlan, now_ns: u64) {
        if let Some(pat) = &self.sh.pattern {
            pat.fill(&mut buf[..p.len as usize]);
            return;
        }
        let (m, first, _) = self.span(p.target, p.offset, p.len);
        let e = &m.entries()[first..];
        let id = self.sh.ids[self.local[p.target as usize]];
        self.sh.stamper.stamp_write(
            &mut buf[..p.len as usize],
            id,
            p.offset,
            self.unit as usize,
            self.epoch0_ns + now_ns,
            |k| e[k].load(Ordering::Relaxed) & GEN,
        );
    }

    /// A write completed (`ok`) or failed. `keep_lock` when a verify-after
    /// read follows.
    #[inline]
    pub fn write_done(&mut self, target: u32, offset: u64, len: u32, ok: bool, keep_lock: bool) {
        let (m, first, n) = self.span(target, offset, len);
        let lock = if keep_lock { LOCK } else { 0 };
        let entries = &m.entries()[first..first + n];
        if !ok {
            // Unknown content: not checked until written again.
            for b in entries {
                b.store(lock, Ordering::Release);
            }
            return;
        }
        if self.sh.durable_writes {
            for b in entries {
                let v = b.load(Ordering::Relaxed);
                b.store(lock | (v & GEN), Ordering::Release);
            }
            return;
        }
        for b in entries {
            let v = b.load(Ordering::Relaxed);
            b.store(lock | UNSURE | (v & GEN), Ordering::Release);
        }
        if self.pending.len() < self.pending_cap {
            let gen = entries[0].load(Ordering::Relaxed) & GEN;
            self.pending.push((target, first, n as u32, gen));
        }
    }

    /// An fsync of `target` completed: the writes to it before the fsync
    /// are durable (unless a later write has taken their blocks since).
    pub fn fsync_done(&mut self, target: u32) {
        let sh = &self.sh;
        let local = &self.local;
        self.pending.retain(|&(t, first, n, gen)| {
            if t != target {
                return true;
            }
            let m = &sh.maps[local[t as usize]];
            for b in &m.entries()[first..first + n as usize] {
                let v = b.load(Ordering::Relaxed);
                // Only if no write has taken the block since (another
                // worker's write may be in flight or not yet synced).
                if v & (LOCK | UNSURE) == UNSURE && v & GEN == gen {
                    let _ = b.compare_exchange(v, v & GEN, Ordering::AcqRel, Ordering::Relaxed);
                }
            }
            false
        });
    }

    /// Release a read's blocks without checking (the read failed).
    #[inline]
    pub fn unlock(&self, target: u32, offset: u64, len: u32) {
        let (m, first, n) = self.span(target, offset, len);
        m.unlock(first, n);
    }

    /// Check the data of a completed read (or verify-after read) against
    /// the map, then release its blocks. Returns true when the run should
    /// stop (`--max-errors` reached).
    #[inline]
    pub fn check_read(
        &mut self,
        data: &[u8],
        (target, offset, len): (u32, u64, u32),
        path: &str,
        after: bool,
        now_ns: u64,
    ) -> bool {
        let (first, n) = (
            (offset / self.unit) as usize,
            (len as u64 / self.unit) as usize,
        );
        let ti = self.local[target as usize];
        let id = self.sh.ids[ti];
        let unit = self.unit as usize;
        let mut stop = false;
        if after {
            self.reads_after += 1;
        }
        if let Some(pat) = self.sh.pattern {
            for k in 0..n {
                let block = &data[k * unit..(k + 1) * unit];
                self.totals.blocks_checked += 1;
                if let Some(mut f) =
                    pattern_finding(pat.as_slice(), block, offset + (k * unit) as u64)
                {
                    let gen = self.sh.maps[ti].entries()[first + k].load(Ordering::Relaxed) & GEN;
                    f.target = path.to_string();
                    f.detected_by = if after { "verify-after" } else { "read" }.into();
                    f.time_s = Some(now_ns as f64 / 1e9);
                    stop |= self.found(id, gen, f);
                }
            }
            self.sh.maps[ti].unlock(first, n);
            return stop;
        }
        for k in 0..n {
            let v = self.sh.maps[ti].entries()[first + k].load(Ordering::Relaxed);
            let gen = v & GEN;
            if gen == 0 {
                self.totals.blocks_unwritten += 1;
                continue;
            }
            self.totals.blocks_checked += 1;
            let e = Expect {
                target: id,
                offset: offset + (k * unit) as u64,
                unit,
                gen,
                old_or_new: false,
            };
            if let Outcome::Finding(mut f) =
                check_block(&self.sh.stamper, &data[k * unit..(k + 1) * unit], &e)
            {
                f.target = path.to_string();
                f.detected_by = if after { "verify-after" } else { "read" }.into();
                f.time_s = Some(now_ns as f64 / 1e9);
                stop |= self.found(id, gen, *f);
            }
        }
        self.sh.maps[ti].unlock(first, n);
        stop
    }

    /// Record a finding of block generation `gen` of target `id`; true
    /// when the run must stop (`--max-errors`). A block already reported
    /// in that generation (read again before a write gave it a new one)
    /// is a repeat: counted, not a finding ([`iolab_verify::reported`]).
    #[cold]
    fn found(&mut self, id: u32, gen: u8, f: iolab_verify::Finding) -> bool {
        let last = f.offset + f.block_size.max(1) - 1;
        if self.sh.reported_lock().repeat(id, gen, f.offset, last) {
            self.totals.findings_repeated += 1;
            return false;
        }
        self.totals.add_finding(f);
        let total = self.sh.findings.fetch_add(1, Ordering::Relaxed) + 1;
        if self.sh.max_findings > 0 && total >= self.sh.max_findings {
            self.sh.stopped.store(true, Ordering::Relaxed);
            return true;
        }
        false
    }

    /// Make the journal's record of this batch's writes durable before
    /// they are issued (journal with a durability promise only).
    #[inline]
    pub fn before_submit(&mut self, has_writes: bool) {
        if !self.sh.journal_sync || !has_writes {
            return;
        }
        let t = Instant::now();
        let mut done = [false; 64];
        for &ti in &self.local {
            if ti < 64 {
                if done[ti] {
                    continue;
                }
                done[ti] = true;
            }
            let _ = self.sh.maps[ti].sync();
        }
        self.journal_syncs += 1;
        self.journal_sync_ns += t.elapsed().as_nanos() as u64;
    }

    pub fn wants_after(&self) -> bool {
        self.sh.after
    }
}

impl Hooks for WorkerVerify {
    const ON: bool = true;
    fn start(&mut self, t0: Instant) {
        WorkerVerify::start(self, t0)
    }
    #[inline]
    fn try_lock(&self, p: &IoPlan) -> bool {
        WorkerVerify::try_lock(self, p)
    }
    #[inline]
    fn stamp(&self, buf: &mut [u8], p: &IoPlan, now_ns: u64) {
        WorkerVerify::stamp(self, buf, p, now_ns)
    }
    #[inline]
    fn write_done(&mut self, target: u32, offset: u64, len: u32, ok: bool, keep_lock: bool) {
        WorkerVerify::write_done(self, target, offset, len, ok, keep_lock)
    }
    fn fsync_done(&mut self, target: u32) {
        WorkerVerify::fsync_done(self, target)
    }
    #[inline]
    fn unlock(&self, target: u32, offset: u64, len: u32) {
        WorkerVerify::unlock(self, target, offset, len)
    }
    #[inline]
    fn check_read(
        &mut self,
        data: &[u8],
        io: (u32, u64, u32),
        path: &str,
        after: bool,
        now_ns: u64,
    ) -> bool {
        WorkerVerify::check_read(self, data, io, path, after, now_ns)
    }
    #[inline]
    fn before_submit(&mut self, has_writes: bool) {
        WorkerVerify::before_submit(self, has_writes)
    }
    #[inline]
    fn wants_after(&self) -> bool {
        WorkerVerify::wants_after(self)
    }
    fn into_raw(self) -> Option<VerifyRaw> {
        Some(VerifyRaw {
            totals: self.totals,
            reads_after: self.reads_after,
            journal_syncs: self.journal_syncs,
            journal_sync_ns: self.journal_sync_ns,
        })
    }
}
