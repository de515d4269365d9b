//! The shared state of a fileset's files while a workload runs, and how
//! an operation chooses a file in the state it needs.
//!
//! Memory: one file costs 10 bytes here (an `AtomicU16` of state bits
//! and an `AtomicU64` size), beside the layout's 8 bytes and the
//! verifier's byte: about 19 bytes per file, 19 MB for a million files.
//!
//! The state word holds: the file exists, its side directory (`f17.d`,
//! what mkdir/rmdir work on) exists, a busy claim, and a count of shared
//! claims. A thread claims a file (compare-and-swap of the busy bit,
//! expecting the state it needs) before working on it and releases it
//! with the state it left, so two threads never work on one file at once
//! and the table always says what is on disk, as far as iolab did it.
//! The one exception is appending: a flow that opens a file only to
//! append to it (webserver's log, shared by every thread as in filebench)
//! takes a shared claim, which keeps exclusive claims (delete, rename,
//! reads) away; each append reserves its range of the file atomically.

use iolab_spec::fs::FileSelect;
use std::sync::atomic::{AtomicU16, AtomicU64, Ordering::*};

pub const EXISTS: u8 = 1;
pub const DIR: u8 = 2;
const BUSY: u16 = 4;
/// One shared claim (the count sits in bits 3-15).
const SHARE: u16 = 8;
const STATE: u16 = (EXISTS | DIR) as u16;

/// Draws tried before probing for a file in the right state.
const RANDOM_TRIES: u32 = 16;
/// Files probed one after another from a random point after that (a
/// bounded scan: a few microseconds at worst).
const PROBE: u64 = 1024;

/// The state and size of every file of one fileset.
pub struct FileTable {
    state: Box<[AtomicU16]>,
    size: Box<[AtomicU64]>,
}

impl FileTable {
    pub fn new(files: u64) -> FileTable {
        FileTable {
            state: (0..files).map(|_| AtomicU16::new(0)).collect(),
            size: (0..files).map(|_| AtomicU64::new(0)).collect(),
        }
    }

    pub fn files(&self) -> u64 {
        self.state.len() as u64
    }

    /// Set before the run (no claims yet).
    pub fn init(&self, i: u64, bits: u8, size: u64) {
        self.state[i as usize].store(bits as u16, Relaxed);
        self.size[i as usize].store(size, Relaxed);
    }

    /// Claim file `i` when `state & mask == want` and nobody holds it.
    #[inline]
    pub fn try_claim(&self, i: u64, mask: u8, want: u8) -> bool {
        let s = &self.state[i as usize];
        let cur = s.load(Relaxed);
        cur & !STATE == 0
            && cur & mask as u16 == want as u16
            && s.compare_exchange(cur, cur | BUSY, Acquire, Relaxed)
                .is_ok()
    }

    /// A shared claim of an existing file (appends only).
    #[inline]
    pub fn try_share(&self, i: u64) -> bool {
        let s = &self.state[i as usize];
        s.fetch_update(Acquire, Relaxed, |cur| {
            (cur & BUSY == 0 && cur & EXISTS as u16 != 0 && cur < u16::MAX - SHARE)
                .then_some(cur + SHARE)
        })
        .is_ok()
    }

    /// Drop a shared claim.
    #[inline]
    pub fn unshare(&self, i: u64) {
        self.state[i as usize].fetch_sub(SHARE, Release);
    }

    /// Release a claimed file, leaving the state bits `bits`.
    #[inline]
    pub fn release(&self, i: u64, bits: u8) {
        self.state[i as usize].store(bits as u16 & STATE, Release);
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
        self.state[i as usize].store(bits as u16 & STATE | BUSY, Release);
    }

    /// The state bits of file `i` (without the claim).
    #[inline]
    pub fn bits(&self, i: u64) -> u8 {
        (self.state[i as usize].load(Relaxed) & STATE) as u8
    }

    #[inline]
    pub fn size(&self, i: u64) -> u64 {
        self.size[i as usize].load(Relaxed)
    }

    /// Only the claim holder writes a size.
    #[inline]
    pub fn set_size(&self, i: u64, v: u64) {
        self.size[i as usize].store(v, Relaxed);
    }

    /// Files that exist now.
    pub fn existing(&self) -> u64 {
        self.state
            .iter()
            .filter(|s| s.load(Relaxed) & EXISTS as u16 != 0)
            .count() as u64
    }

    /// Side directories that exist now.
    pub fn side_dirs(&self) -> impl Iterator<Item = u64> + '_ {
        (0..self.files()).filter(|&i| self.bits(i) & DIR != 0)
    }
}

/// One thread's way of choosing files.
pub enum Picker {
    /// The next file in layout order after the last one chosen.
    Sequential(u64),
    Uniform,
    Zipf(crate::gen::Zipf),
}

impl Picker {
    /// The picker of thread `w` of `threads` over `files` files.
    pub fn new(sel: FileSelect, files: u64, w: u32, threads: u32, seed: u64) -> Picker {
        match sel {
            FileSelect::Sequential => Picker::Sequential(files * w as u64 / threads.max(1) as u64),
            FileSelect::Uniform => Picker::Uniform,
            FileSelect::Zipf(theta) => {
                Picker::Zipf(crate::gen::Zipf::new(files.max(1), theta, seed))
            }
        }
    }

    #[inline]
    fn draw(&mut self, n: u64, rng: &mut fastrand::Rng) -> u64 {
        match self {
            Picker::Sequential(c) => {
                let i = *c % n;
                *c = i + 1;
                i
            }
            Picker::Uniform => rng.u64(0..n),
            Picker::Zipf(z) => z.sample(rng.f64()) % n,
        }
    }

    /// A shared claim of an existing file of `t` (draws, then a probe,
    /// like [`Picker::claim`]).
    pub fn share(&mut self, t: &FileTable, rng: &mut fastrand::Rng) -> Option<u64> {
        let n = t.files();
        if n == 0 {
            return None;
        }
        for _ in 0..RANDOM_TRIES {
            let i = self.draw(n, rng);
            if t.try_share(i) {
                return Some(i);
            }
        }
        let from = rng.u64(0..n);
        (0..PROBE.min(n))
            .map(|k| (from + k) % n)
            .find(|&j| t.try_share(j))
    }

    /// Claim a file of `t` whose `state & mask == want`: a few draws, then
    /// a bounded probe from a random point; `None` when none was found (the
    /// operation is skipped, not retried in a loop).
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
        for _ in 0..RANDOM_TRIES {
            let i = self.draw(n, rng);
            if t.try_claim(i, mask, want) {
                return Some(i);
            }
        }
        let from = rng.u64(0..n);
        (0..PROBE.min(n))
            .map(|k| (from + k) % n)
            .find(|&j| t.try_claim(j, mask, want))
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
        let mut p = Picker::Uniform;
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
        assert!(t.try_share(got) && t.try_share(got));
        assert!(!t.try_claim(got, EXISTS, EXISTS));
        t.unshare(got);
        t.unshare(got);
        assert!(t.try_claim(got, EXISTS, EXISTS));
        assert!(!t.try_share(got));
        assert_eq!(t.bits(got), EXISTS | DIR);
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
