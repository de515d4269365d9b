//! The shared state of a fileset's files while a workload runs, and how
//! an operation chooses a file in the state it needs.
//!
//! Sizes: the size iolab knows for each file, as its own operations left
//! it; a reader that finds the file shorter (someone else truncated it)
//! lowers it to what fstat says ([`FileTable::shrink`]), so later
//! transfers stay within the file.
//!
//! Memory: one file costs 12 bytes here (an `AtomicU32` of state bits
//! and an `AtomicU64` size), beside the layout's 8 bytes and the
//! verifier's byte: about 21 bytes per file, 21 MB for a million files.
//!
//! The state word holds: the file exists, its side directory (`f17.d`,
//! what mkdir/rmdir work on) exists, the file sits at its rename side
//! name (`f17.r`), an exclusive claim (busy), an
//! exclusive claim waiting (pending), the kind of the shared claims and
//! their count. A thread claims a file before working on it and releases
//! it with the state it left, so the table always says what is on disk,
//! as far as iolab did it.
//!
//! Two kinds of claim ([`Claim`], decided per step when the workload is
//! planned, `setup.rs`):
//! - exclusive (compare-and-swap of the busy bit, expecting the state the
//!   operation needs): create, delete, rename, mkdir, rmdir, whole-file
//!   writes, a flow's `open` followed by any of those or by setattr, and,
//!   under `--verify`, anything that writes data in place. One thread at a
//!   time; it may change the file's existence and size.
//! - shared, which many threads hold at once and which never change a
//!   file's existence: [`Claim::Data`] for operations that leave the size
//!   alone or only grow it by one transfer (one-transfer or whole reads,
//!   one-transfer writes and rewrites, fsync, fdatasync, getattr, stat,
//!   access, and a flow's `open` followed only by those until its close:
//!   oltp's readers and writers on 10 files, videoserver's readers);
//!   [`Claim::Append`] for appends (a flow's `open` followed only by
//!   appends and syncs: webserver's log, shared by every thread as in
//!   filebench), each reserving its range of the file atomically. The two
//!   kinds do not mix on one file (a read could meet a range reserved by
//!   an append and not written yet); a file's size only grows under a
//!   shared claim (atomic maximum), after the bytes are written.
//!
//! Exclusive claims wait for shared holders to leave without starving:
//! when a thread's exclusive claims found no free file 8 times in a row
//! and its draws met a file in the right state held only by sharers, it
//! marks that file pending (one per thread and fileset, in its
//! [`Picker`]); a pending file takes no new shared claim, so its holders
//! drain (each at the end of its operation, or its flow's close: oltp's
//! readers after their 100 reads), and the thread takes it on a later try
//! (or a free file it finds first, dropping the mark). Until then its
//! operation is skipped (a flow's step is tried again, for up to 100 ms),
//! under the skip rules of `action.rs`: a back-off,
//! and, since files in the state it needs exist ([`Picker::busy`]), no
//! stop for starvation (which takes 10,000 skips in a row or a second of
//! nothing else with no such file).

use iolab_spec::fs::FileSelect;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::*};

pub const EXISTS: u8 = 1;
pub const DIR: u8 = 2;
/// The file sits at its side name `f17.r` (a rename moved it there; the
/// next rename of the file moves it back); its layout name is then free
/// but not created on (create wants neither bit).
pub const MOVED: u8 = 4;
const BUSY: u32 = 8;
/// An exclusive claim waits for the sharers to leave: no new shared claim.
const PENDING: u32 = 16;
/// The shared claims are appends ([`Claim::Append`]).
const APPENDS: u32 = 32;
/// One shared claim (the count sits in bits 6-31).
const SHARE: u32 = 64;
const STATE: u32 = (EXISTS | DIR | MOVED) as u32;

/// Draws tried before probing for a file in the right state.
const RANDOM_TRIES: u32 = 16;
/// Files probed one after another from a random point after that (a
/// bounded scan: a few microseconds at worst).
const PROBE: u64 = 1024;
/// Exclusive claims in a row that found no free file before the next one
/// marks a shared file pending (where sharers leave gaps, waiting for one
/// costs the readers more than it gains).
const PATIENCE: u32 = 8;

/// How an operation holds its file (see the module doc).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Claim {
    /// Alone: it may create, delete, rename or resize the file.
    Excl,
    /// Beside other readers and in-place writers.
    Data,
    /// Beside other appenders.
    Append,
}

/// What became of a thread's pending exclusive claim.
#[derive(Debug, PartialEq, Eq)]
enum Pend {
    /// The sharers left: the file is claimed.
    Taken,
    /// Sharers still hold it.
    Wait,
    /// The file is not in the state wanted any more (the mark is gone).
    Gone,
}

/// The state and size of every file of one fileset.
pub struct FileTable {
    state: Box<[AtomicU32]>,
    size: Box<[AtomicU64]>,
}

impl FileTable {
    pub fn new(files: u64) -> FileTable {
        FileTable {
            state: (0..files).map(|_| AtomicU32::new(0)).collect(),
            size: (0..files).map(|_| AtomicU64::new(0)).collect(),
        }
    }

    pub fn files(&self) -> u64 {
        self.state.len() as u64
    }

    /// Set before the run (no claims yet).
    pub fn init(&self, i: u64, bits: u8, size: u64) {
        self.state[i as usize].store(bits as u32, Relaxed);
        self.size[i as usize].store(size, Relaxed);
    }

    /// Claim file `i` alone when `state & mask == want` and nobody holds
    /// it or waits for it.
    #[inline]
    pub fn try_claim(&self, i: u64, mask: u8, want: u8) -> bool {
        let s = &self.state[i as usize];
        let cur = s.load(Relaxed);
        cur & !STATE == 0
            && cur & mask as u32 == want as u32
            && s.compare_exchange(cur, cur | BUSY, Acquire, Relaxed)
                .is_ok()
    }

    /// A shared claim of `kind` on an existing file: none while it is
    /// held alone, an exclusive claim waits for it, or sharers of the
    /// other kind hold it.
    #[inline]
    pub fn try_share(&self, i: u64, kind: Claim) -> bool {
        let mode = if kind == Claim::Append { APPENDS } else { 0 };
        let s = &self.state[i as usize];
        s.fetch_update(Acquire, Relaxed, |cur| {
            let free = cur & (BUSY | PENDING) == 0 && cur & EXISTS as u32 != 0;
            let same = cur < SHARE || cur & APPENDS == mode;
            (free && same && cur < u32::MAX - SHARE).then_some((cur & !APPENDS | mode) + SHARE)
        })
        .is_ok()
    }

    /// Drop a shared claim (the last one takes the kind with it).
    #[inline]
    pub fn unshare(&self, i: u64) {
        let _ = self.state[i as usize].fetch_update(Release, Relaxed, |cur| {
            let n = cur - SHARE;
            Some(if n < SHARE { n & !APPENDS } else { n })
        });
    }

    /// File `i` is in the state wanted and held by sharers only.
    #[inline]
    fn shared_only(&self, i: u64, mask: u8, want: u8) -> bool {
        let cur = self.state[i as usize].load(Relaxed);
        cur >= SHARE && cur & (BUSY | PENDING) == 0 && cur & mask as u32 == want as u32
    }

    /// File `i` is in the state wanted and held (or marked) by a thread.
    #[inline]
    fn held(&self, i: u64, mask: u8, want: u8) -> bool {
        let cur = self.state[i as usize].load(Relaxed);
        cur & !STATE != 0 && cur & mask as u32 == want as u32
    }

    /// Mark file `i` pending for an exclusive claim (no new sharers).
    fn try_pend(&self, i: u64, mask: u8, want: u8) -> bool {
        self.state[i as usize]
            .fetch_update(Relaxed, Relaxed, |cur| {
                let ok =
                    cur >= SHARE && cur & (BUSY | PENDING) == 0 && cur & mask as u32 == want as u32;
                ok.then_some(cur | PENDING)
            })
            .is_ok()
    }

    /// Take the file this thread marked pending once its sharers left.
    /// Its state bits cannot change meanwhile (only an exclusive holder
    /// changes them, and none can come).
    fn take_pending(&self, i: u64, mask: u8, want: u8) -> Pend {
        let s = &self.state[i as usize];
        let cur = s.load(Relaxed);
        if cur & PENDING == 0 {
            return Pend::Gone;
        }
        if cur & mask as u32 != want as u32 {
            s.fetch_and(!PENDING, Relaxed);
            return Pend::Gone;
        }
        if cur >= SHARE {
            return Pend::Wait;
        }
        match s.compare_exchange(cur, cur & !PENDING | BUSY, Acquire, Relaxed) {
            Ok(_) => Pend::Taken,
            Err(_) => Pend::Wait,
        }
    }

    /// A sharer found the file gone (someone else deleted it: no thread
    /// of the workload can while it is shared).
    #[inline]
    pub fn gone(&self, i: u64) {
        self.state[i as usize].fetch_and(!(EXISTS as u32), Relaxed);
    }

    /// Give up a pending mark.
    fn unpend(&self, i: u64) {
        self.state[i as usize].fetch_and(!PENDING, Relaxed);
    }

    /// Release a claimed file, leaving the state bits `bits`.
    #[inline]
    pub fn release(&self, i: u64, bits: u8) {
        self.state[i as usize].store(bits as u32 & STATE, Release);
    }

    /// Reserve `len` bytes at the end of the file (an append): where they
    /// go.
    #[inline]
    pub fn reserve(&self, i: u64, len: u64) -> u64 {
        self.size[i as usize].fetch_add(len, Relaxed)
    }

    /// Change the state bits of a file this thread keeps claimed.
    #[inline]
    pub fn set_held(&self, i: u64, bits: u8) {
        self.state[i as usize].store(bits as u32 & STATE | BUSY, Release);
    }

    /// The state bits of file `i` (without the claims).
    #[inline]
    pub fn bits(&self, i: u64) -> u8 {
        (self.state[i as usize].load(Relaxed) & STATE) as u8
    }

    #[inline]
    pub fn size(&self, i: u64) -> u64 {
        self.size[i as usize].load(Relaxed)
    }

    /// Only the exclusive holder sets a size.
    #[inline]
    pub fn set_size(&self, i: u64, v: u64) {
        self.size[i as usize].store(v, Relaxed);
    }

    /// The file reaches at least `v` bytes (a write under any claim, once
    /// its bytes are there).
    #[inline]
    pub fn grow(&self, i: u64, v: u64) {
        self.size[i as usize].fetch_max(v, Relaxed);
    }

    /// The file turned out shorter than known, `v` bytes (someone else
    /// truncated it; a reader under any claim learns it): true when this
    /// lowered the size, false when it was already at most `v`.
    #[cold]
    pub fn shrink(&self, i: u64, v: u64) -> bool {
        self.size[i as usize].fetch_min(v, Relaxed) > v
    }

    /// Some file's state bits satisfy `f`, held or not (a scan of every
    /// file: the cold path only).
    #[cold]
    pub fn any(&self, f: impl Fn(u8) -> bool) -> bool {
        self.state
            .iter()
            .any(|s| f((s.load(Relaxed) & STATE) as u8))
    }

    /// Files that exist now.
    pub fn existing(&self) -> u64 {
        self.state
            .iter()
            .filter(|s| s.load(Relaxed) & EXISTS as u32 != 0)
            .count() as u64
    }

    /// Side directories that exist now.
    #[cfg(test)]
    pub fn side_dirs(&self) -> impl Iterator<Item = u64> + '_ {
        (0..self.files()).filter(|&i| self.bits(i) & DIR != 0)
    }
}

/// The order in which a thread draws files.
enum Draw {
    /// The next file in layout order after the last one chosen.
    Sequential(u64),
    Uniform,
    Zipf(crate::gen::Zipf),
}

/// One thread's way of choosing files of one fileset, and the file it
/// waits for (an exclusive claim marked pending, with the state it
/// wants).
pub struct Picker {
    draw: Draw,
    pending: Option<(u64, u8, u8)>,
    /// Exclusive claims in a row that found nothing.
    misses: u32,
    /// The last claim found nothing, but files in the state it wanted
    /// held by other threads (a wait, not starvation).
    busy: bool,
}

impl Picker {
    /// The picker of thread `w` of `threads` over `files` files.
    pub fn new(sel: FileSelect, files: u64, w: u32, threads: u32, seed: u64) -> Picker {
        let draw = match sel {
            FileSelect::Sequential => Draw::Sequential(files * w as u64 / threads.max(1) as u64),
            FileSelect::Uniform => Draw::Uniform,
            FileSelect::Zipf(theta) => Draw::Zipf(crate::gen::Zipf::new(files.max(1), theta, seed)),
        };
        Picker {
            draw,
            pending: None,
            misses: 0,
            busy: false,
        }
    }

    #[inline]
    fn draw(&mut self, n: u64, rng: &mut fastrand::Rng) -> u64 {
        match &mut self.draw {
            Draw::Sequential(c) => {
                let i = *c % n;
                *c = i + 1;
                i
            }
            Draw::Uniform => rng.u64(0..n),
            Draw::Zipf(z) => z.sample(rng.f64()) % n,
        }
    }

    /// Files to try: a few draws, then a bounded probe from a random
    /// point; the first for which `f` is true.
    #[inline]
    fn find(
        &mut self,
        n: u64,
        rng: &mut fastrand::Rng,
        mut f: impl FnMut(u64) -> bool,
    ) -> Option<u64> {
        for _ in 0..RANDOM_TRIES {
            let i = self.draw(n, rng);
            if f(i) {
                return Some(i);
            }
        }
        let from = rng.u64(0..n);
        (0..PROBE.min(n)).map(|k| (from + k) % n).find(|&j| f(j))
    }

    /// A shared claim of `kind` on an existing file of `t`.
    pub fn share(&mut self, t: &FileTable, kind: Claim, rng: &mut fastrand::Rng) -> Option<u64> {
        let n = t.files();
        if n == 0 {
            return None;
        }
        let mut busy = false;
        let got = self.find(n, rng, |i| {
            let ok = t.try_share(i, kind);
            busy |= !ok && t.held(i, EXISTS, EXISTS);
            ok
        });
        self.busy = got.is_none() && busy;
        got
    }

    /// The last claim or share found files in the state it wanted, all
    /// held by other threads.
    pub fn busy(&self) -> bool {
        self.busy
    }

    /// Claim a file of `t` alone whose `state & mask == want`: the file
    /// this thread waits for if its sharers left, else a free one; `None`
    /// when none was found (the operation is skipped, not retried in a
    /// loop), after marking pending a file held only by sharers.
    #[inline]
    pub fn claim(
        &mut self,
        t: &FileTable,
        mask: u8,
        want: u8,
        rng: &mut fastrand::Rng,
    ) -> Option<u64> {
        let n = t.files();
        if n == 0 {
            return None;
        }
        match self.pending {
            Some((i, m, w)) if (m, w) == (mask, want) => match t.take_pending(i, mask, want) {
                Pend::Taken => {
                    self.pending = None;
                    return Some(i);
                }
                Pend::Wait => {}
                Pend::Gone => self.pending = None,
            },
            _ => {}
        }
        let mut held = None;
        let mut busy = self.pending.is_some();
        let watch = self.pending.is_none();
        let got = self.find(n, rng, |i| {
            if t.try_claim(i, mask, want) {
                return true;
            }
            busy |= t.held(i, mask, want);
            if watch && held.is_none() && t.shared_only(i, mask, want) {
                held = Some(i);
            }
            false
        });
        self.misses = if got.is_some() { 0 } else { self.misses + 1 };
        self.busy = got.is_none() && busy;
        match (got, self.pending) {
            (Some(_), Some((p, _, _))) => {
                t.unpend(p);
                self.pending = None;
            }
            (None, None) if self.misses >= PATIENCE => {
                if let Some(h) = held.filter(|&h| t.try_pend(h, mask, want)) {
                    self.pending = Some((h, mask, want));
                }
            }
            _ => {}
        }
        got
    }

    /// Give up the file this thread waits for (at its end).
    pub fn forget(&mut self, t: &FileTable) {
        if let Some((i, _, _)) = self.pending.take() {
            t.unpend(i);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claims_exclude_each_other_and_follow_the_state() {
        let t = FileTable::new(4);
        t.init(1, EXISTS, 10);
        let mut rng = fastrand::Rng::with_seed(1);
        let mut p = Picker::new(FileSelect::Uniform, 4, 0, 1, 0);
        assert_eq!(p.claim(&t, EXISTS, EXISTS, &mut rng), Some(1));
        // Held: nobody else gets it, and no other file exists.
        assert_eq!(p.claim(&t, EXISTS, EXISTS, &mut rng), None);
        t.release(1, 0);
        assert_eq!(t.existing(), 0);
        let got = p.claim(&t, EXISTS, 0, &mut rng).unwrap();
        assert!(got < 4);
        t.release(got, EXISTS | DIR);
        assert_eq!(t.existing(), 1);
        assert_eq!(t.side_dirs().collect::<Vec<_>>(), vec![got]);
        // Shared claims stack and keep exclusive ones away.
        assert!(t.try_share(got, Claim::Data) && t.try_share(got, Claim::Data));
        assert!(!t.try_claim(got, EXISTS, EXISTS));
        t.unshare(got);
        t.unshare(got);
        assert!(t.try_claim(got, EXISTS, EXISTS));
        assert!(!t.try_share(got, Claim::Data));
        assert_eq!(t.bits(got), EXISTS | DIR);
    }

    #[test]
    fn appends_and_reads_do_not_share_one_file() {
        let t = FileTable::new(1);
        t.init(0, EXISTS, 0);
        assert!(t.try_share(0, Claim::Append) && t.try_share(0, Claim::Append));
        assert!(!t.try_share(0, Claim::Data));
        t.unshare(0);
        assert!(!t.try_share(0, Claim::Data));
        t.unshare(0);
        // The last appender took the kind with it.
        assert!(t.try_share(0, Claim::Data));
        assert!(!t.try_share(0, Claim::Append));
        t.unshare(0);
        assert!(t.try_claim(0, EXISTS, EXISTS));
        // No shared claim of a file that does not exist.
        t.release(0, 0);
        assert!(!t.try_share(0, Claim::Data));
    }

    #[test]
    fn an_exclusive_claim_waits_for_the_sharers_and_gets_the_file() {
        let t = FileTable::new(2);
        t.init(0, EXISTS, 0);
        t.init(1, EXISTS, 0);
        let mut rng = fastrand::Rng::with_seed(5);
        let mut p = Picker::new(FileSelect::Uniform, 2, 0, 1, 0);
        assert!(t.try_share(0, Claim::Data) && t.try_share(1, Claim::Data));
        // Every file is shared: nothing now, and after 8 misses in a row
        // one is marked pending.
        for _ in 0..PATIENCE - 1 {
            assert_eq!(p.claim(&t, EXISTS, EXISTS, &mut rng), None);
            assert_eq!(p.pending, None);
            // Files to wait for, not starvation.
            assert!(p.busy());
        }
        // No file missing: nothing to wait for.
        assert_eq!(p.claim(&t, EXISTS, 0, &mut rng), None);
        assert!(!p.busy());
        assert_eq!(p.claim(&t, EXISTS, EXISTS, &mut rng), None);
        let (i, _, _) = p.pending.expect("a file marked pending");
        // No new sharer on it; the other file still takes them.
        assert!(!t.try_share(i, Claim::Data));
        assert!(t.try_share(1 - i, Claim::Data));
        // Another thread's exclusive claim does not steal it.
        let mut q = Picker::new(FileSelect::Uniform, 2, 0, 1, 0);
        for _ in 0..PATIENCE {
            assert_eq!(q.claim(&t, EXISTS, EXISTS, &mut rng), None);
        }
        assert_eq!(q.pending.map(|p| p.0), Some(1 - i));
        q.forget(&t);
        // Its sharer leaves: the waiting thread takes it.
        t.unshare(i);
        assert_eq!(p.claim(&t, EXISTS, EXISTS, &mut rng), Some(i));
        assert_eq!(p.pending, None);
        assert_eq!(t.bits(i), EXISTS);
        t.release(i, EXISTS);
        assert!(t.try_share(i, Claim::Data));
        // The other file's two sharers leave: it is free.
        t.unshare(1 - i);
        t.unshare(1 - i);
        assert_eq!(p.claim(&t, EXISTS, EXISTS, &mut rng), Some(1 - i));
        t.release(1 - i, EXISTS);
        assert!(t.try_share(1 - i, Claim::Data));
        for _ in 0..PATIENCE {
            assert_eq!(p.claim(&t, EXISTS, EXISTS, &mut rng), None);
        }
        assert!(p.pending.is_some());
        // A mark given up lets sharers in again.
        p.forget(&t);
        assert!(t.try_share(0, Claim::Data) && t.try_share(1, Claim::Data));
    }
}

#[cfg(test)]
mod select_tests {
    use super::*;

    #[test]
    fn sequential_walks_in_order_and_zipf_favours_a_few_files() {
        let t = FileTable::new(100);
        for i in 0..100 {
            t.init(i, EXISTS, 0);
        }
        let mut rng = fastrand::Rng::with_seed(3);
        let mut p = Picker::new(FileSelect::Sequential, 100, 1, 2, 0);
        let got: Vec<u64> = (0..3)
            .map(|_| {
                let i = p.claim(&t, EXISTS, EXISTS, &mut rng).unwrap();
                t.release(i, EXISTS);
                i
            })
            .collect();
        assert_eq!(got, vec![50, 51, 52]);
        let mut p = Picker::new(FileSelect::Zipf(1.2), 100, 0, 1, 9);
        let mut hits = [0u32; 100];
        for _ in 0..10_000 {
            let i = p.claim(&t, EXISTS, EXISTS, &mut rng).unwrap();
            t.release(i, EXISTS);
            hits[i as usize] += 1;
        }
        hits.sort_unstable();
        let top10: u32 = hits[90..].iter().sum();
        assert!(top10 > 5_000, "the 10 hottest files got {top10} of 10,000");
    }
}
