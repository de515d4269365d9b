//! Offset, size and direction of each I/O.
//!
//! One generator per worker, seeded from the run seed and the worker index,
//! so a run is reproducible. Every worker keeps its own sequential cursor
//! per target (eight sequential workers are eight dd streams, started at
//! evenly spaced points of the region). `random_pct` is vdbench's `seekpct`:
//! the chance that an I/O jumps to a random offset; the stream then
//! continues sequentially from there. With a hit area, the `*_hit_pct`
//! share of reads or writes goes to the leading `hit_area` bytes of the
//! region and the rest to the region after it.
//!
//! Each direction draws its size from its own table (`bs`, `bs_write`,
//! `bs_trim`). Trims come alone (`rw = trim`) or as fio's trimwrite pairs:
//! a trim, then a write of the same block. A sequential stream skips
//! `hole` bytes after each I/O; with `random_every` N only every N-th I/O
//! may jump. Random offsets follow the workload's [`Distribution`]
//! (`dist` module).

use iolab_spec::{Distribution, TrimMode};

mod dist;
mod prio;
use dist::DistState;
pub use dist::Zipf;
use prio::PrioPick;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dir {
    Read = 0,
    Write = 1,
    Trim = 2,
}

/// One planned I/O.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IoPlan {
    pub dir: Dir,
    /// Index into the worker's target list.
    pub target: u32,
    pub offset: u64,
    pub len: u32,
}

/// Where a worker's I/O to one target may go.
#[derive(Debug, Clone)]
pub struct Region {
    /// Index of the target (in the worker's fd table).
    pub target: u32,
    pub start: u64,
    pub len: u64,
    /// Leading bytes of the region that hit-area I/O goes to (0: none).
    pub hit_len: u64,
    /// Where this worker's sequential stream starts, relative to the
    /// (non-hit) area start.
    pub stream_start: u64,
}

struct RegionState {
    r: Region,
    /// Non-hit area: [miss_start, miss_start + miss_len).
    miss_start: u64,
    miss_len: u64,
    cursor: u64,
    hit_cursor: u64,
    miss_blocks: u64,
    hit_blocks: u64,
    dist: DistState,
}

impl RegionState {
    fn new(
        r: Region,
        cfg: &GenConfig,
        max_bs: u64,
        align: u64,
        rng: &mut fastrand::Rng,
    ) -> RegionState {
        let blocks = |len: u64| {
            if len < max_bs {
                0
            } else {
                (len - max_bs) / align + 1
            }
        };
        let (miss_start, miss_len) = if r.hit_len > 0 && r.hit_len < r.len {
            (r.start + r.hit_len, r.len - r.hit_len)
        } else {
            (r.start, r.len)
        };
        let miss_blocks = blocks(miss_len);
        let dist = DistState::new(&cfg.distribution, miss_blocks, align, rng);
        let cursor =
            miss_start + align_down(r.stream_start.min(miss_len.saturating_sub(max_bs)), align);
        RegionState {
            hit_blocks: blocks(r.hit_len.min(r.len)),
            hit_cursor: r.start,
            miss_start,
            miss_len,
            cursor,
            miss_blocks,
            dist,
            r,
        }
    }
}

#[derive(Debug, Clone)]
pub struct GenConfig {
    pub read_pct: u32,
    pub random_pct: u32,
    pub read_hit_pct: u32,
    pub write_hit_pct: u32,
    /// Sizes of reads (and of writes and trims without their own).
    pub bs: Vec<(u64, u32)>,
    pub bs_write: Option<Vec<(u64, u32)>>,
    pub bs_trim: Option<Vec<(u64, u32)>>,
    pub trim: TrimMode,
    /// Bytes a stream skips after each I/O; negative, it steps back.
    pub hole: i64,
    /// Only every N-th I/O may jump (0 or 1: every I/O).
    pub random_every: u64,
    pub align: u64,
    pub distribution: Distribution,
    /// Every I/O's priority without one of `cmdprio`'s (0: the thread's).
    pub ioprio: u16,
    pub cmdprio: Option<iolab_spec::prio::CmdPrio>,
}

impl Default for GenConfig {
    /// Sequential 4 KiB reads, uniform.
    fn default() -> Self {
        GenConfig {
            read_pct: 100,
            random_pct: 0,
            read_hit_pct: 0,
            write_hit_pct: 0,
            bs: vec![(4096, 1)],
            bs_write: None,
            bs_trim: None,
            trim: TrimMode::None,
            hole: 0,
            random_every: 0,
            align: 4096,
            distribution: Distribution::Uniform,
            ioprio: 0,
            cmdprio: None,
        }
    }
}

/// One direction's sizes and weights.
#[derive(Debug, Clone)]
struct BsTable {
    sizes: Vec<(u32, u32)>,
    total: u32,
}

impl BsTable {
    fn new(bs: &[(u64, u32)]) -> BsTable {
        let sizes: Vec<(u32, u32)> = bs.iter().map(|&(b, w)| (b as u32, w)).collect();
        BsTable {
            total: sizes.iter().map(|b| b.1).sum(),
            sizes,
        }
    }
}

pub struct IoGen {
    rng: fastrand::Rng,
    regions: Vec<RegionState>,
    next_region: usize,
    /// Indexed by [`Dir`].
    bs: [BsTable; 3],
    /// Each direction's size when it has one only, else 0 (the common
    /// case without a look at the table).
    single: [u32; 3],
    align: u64,
    read_pct: u32,
    random_pct: u32,
    read_hit_pct: u32,
    write_hit_pct: u32,
    trim: TrimMode,
    hole: i64,
    random_every: u64,
    /// I/Os left until the next one that may jump (`random_every`).
    every_left: u64,
    /// trimwrite: the write that follows the trim just planned.
    then_write: Option<IoPlan>,
    base_prio: u16,
    prio: Option<Box<PrioPick>>,
}

/// Where a sequential stream goes on after an I/O that ended at `past`:
/// `hole` bytes further. A negative hole steps back; one that would pass
/// the area's `start` wraps to `end + hole`, as fio's backwards streams do
/// (io_u.c, get_next_seq_offset). A forward stream past `end` is wrapped
/// by the caller before its next I/O.
#[inline]
fn step_on(past: u64, hole: i64, start: u64, end: u64) -> u64 {
    if hole >= 0 {
        return past + hole as u64;
    }
    match past.checked_add_signed(hole) {
        Some(next) if next >= start => next,
        _ => end.saturating_add_signed(hole).max(start),
    }
}

fn align_down(v: u64, a: u64) -> u64 {
    v - v % a
}

impl IoGen {
    pub fn new(cfg: &GenConfig, regions: Vec<Region>, seed: u64) -> IoGen {
        let bs = [
            BsTable::new(&cfg.bs),
            BsTable::new(cfg.bs_write.as_deref().unwrap_or(&cfg.bs)),
            BsTable::new(cfg.bs_trim.as_deref().unwrap_or(&cfg.bs)),
        ];
        let max_bs = bs
            .iter()
            .flat_map(|t| t.sizes.iter().map(|b| b.0 as u64))
            .max()
            .unwrap_or(4096);
        let align = cfg.align.max(1);
        let mut rng = fastrand::Rng::with_seed(seed);
        let regions = regions
            .into_iter()
            .map(|r| RegionState::new(r, cfg, max_bs, align, &mut rng))
            .collect();
        let single = bs.each_ref().map(|t| match t.sizes[..] {
            [(b, _)] => b,
            _ => 0,
        });
        IoGen {
            rng,
            regions,
            next_region: 0,
            single,
            bs,
            align,
            read_pct: cfg.read_pct,
            random_pct: cfg.random_pct,
            read_hit_pct: cfg.read_hit_pct,
            write_hit_pct: cfg.write_hit_pct,
            trim: cfg.trim,
            hole: cfg.hole,
            random_every: cfg.random_every,
            every_left: 1,
            then_write: None,
            base_prio: cfg.ioprio,
            prio: cfg
                .cmdprio
                .as_ref()
                .map(|c| Box::new(PrioPick::new(c, seed))),
        }
    }

    /// The priority `plan` carries (fio cmdprio draws its own numbers).
    #[inline]
    pub fn ioprio(&mut self, plan: &IoPlan) -> u16 {
        match &mut self.prio {
            None => self.base_prio,
            Some(p) => p.pick(plan.dir, plan.len, self.base_prio),
        }
    }

    /// Whether this generator plans trims.
    /// Offset and length alignment in bytes.
    pub fn align(&self) -> u64 {
        self.align
    }

    pub fn trims(&self) -> bool {
        self.trim != TrimMode::None
    }

    pub fn rng(&mut self) -> &mut fastrand::Rng {
        &mut self.rng
    }

    #[inline]
    fn chance(&mut self, pct: u32) -> bool {
        match pct {
            0 => false,
            100.. => true,
            p => self.rng.u32(0..100) < p,
        }
    }

    #[inline]
    fn pick_bs(&mut self, dir: Dir) -> u32 {
        let one = self.single[dir as usize];
        if one != 0 {
            return one;
        }
        let t = &self.bs[dir as usize];
        let mut x = self.rng.u32(0..t.total);
        for &(b, w) in &t.sizes {
            if x < w {
                return b;
            }
            x -= w;
        }
        t.sizes[t.sizes.len() - 1].0
    }

    /// Whether this I/O jumps to a random offset: `random_pct`'s chance,
    /// tried on every `random_every`-th I/O only.
    #[inline]
    fn jumps(&mut self) -> bool {
        if self.random_every > 1 {
            self.every_left -= 1;
            if self.every_left > 0 {
                return false;
            }
            self.every_left = self.random_every;
        }
        self.chance(self.random_pct)
    }

    /// The next I/O. No allocation.
    #[inline]
    pub fn next_io(&mut self) -> IoPlan {
        if self.trim != TrimMode::None {
            return self.next_trim_io();
        }
        let dir = if self.chance(self.read_pct) {
            Dir::Read
        } else {
            Dir::Write
        };
        self.plan(dir)
    }

    /// The next I/O of a trim workload: a trim, or the write of the
    /// block trimmed just before (trimwrite). Off the read/write path.
    #[cold]
    fn next_trim_io(&mut self) -> IoPlan {
        if let Some(w) = self.then_write.take() {
            return w;
        }
        let plan = self.plan(Dir::Trim);
        if self.trim == TrimMode::ThenWrite {
            self.then_write = Some(IoPlan {
                dir: Dir::Write,
                ..plan
            });
        }
        plan
    }

    /// Size and place an I/O of direction `dir`.
    #[inline(always)]
    fn plan(&mut self, dir: Dir) -> IoPlan {
        let len = self.pick_bs(dir);
        let ri = self.next_region;
        self.next_region += 1;
        if self.next_region == self.regions.len() {
            self.next_region = 0;
        }
        let hit_pct = match dir {
            Dir::Read => self.read_hit_pct,
            Dir::Write | Dir::Trim => self.write_hit_pct,
        };
        let hit = self.regions[ri].hit_blocks > 0 && self.chance(hit_pct);
        let random = self.jumps();
        let offset = if hit {
            self.hit_offset(ri, random, len as u64)
        } else {
            self.miss_offset(ri, random, len as u64)
        };
        IoPlan {
            dir,
            target: self.regions[ri].r.target,
            offset,
            len,
        }
    }

    /// An offset in the hit area; the stream goes on `hole` bytes after.
    #[inline]
    fn hit_offset(&mut self, ri: usize, random: bool, len: u64) -> u64 {
        let hb = self.regions[ri].hit_blocks;
        let off = if random {
            let b = self.rng.u64(0..hb);
            self.regions[ri].r.start + b * self.align
        } else {
            let rs = &mut self.regions[ri];
            let end = rs.r.start + rs.r.hit_len.min(rs.r.len);
            if rs.hit_cursor + len > end {
                rs.hit_cursor = rs.r.start;
            }
            rs.hit_cursor
        };
        let rs = &mut self.regions[ri];
        let end = rs.r.start + rs.r.hit_len.min(rs.r.len);
        rs.hit_cursor = step_on(off + len, self.hole, rs.r.start, end);
        off
    }

    /// An offset outside the hit area; the stream goes on `hole` bytes after.
    #[inline(always)]
    fn miss_offset(&mut self, ri: usize, random: bool, len: u64) -> u64 {
        let b = if random { self.sample_block(ri) } else { 0 };
        let (align, hole) = (self.align, self.hole);
        let rs = &mut self.regions[ri];
        let off = if random {
            rs.miss_start + b * align
        } else {
            if rs.cursor + len > rs.miss_start + rs.miss_len {
                rs.cursor = rs.miss_start;
            }
            rs.cursor
        };
        rs.cursor = step_on(off + len, hole, rs.miss_start, rs.miss_start + rs.miss_len);
        off
    }

    /// A random block of the region's non-hit area: uniform inline, the
    /// other distributions in [`DistState::sample`].
    #[inline(always)]
    fn sample_block(&mut self, ri: usize) -> u64 {
        let rs = &self.regions[ri];
        let n = rs.miss_blocks.max(1);
        match &rs.dist {
            DistState::Uniform => self.rng.u64(0..n),
            d => d.sample(&mut self.rng, n),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::dist::zeta;
    use super::*;
    use proptest::prelude::*;

    fn cfg(read_pct: u32, random_pct: u32, bs: Vec<(u64, u32)>, align: u64) -> GenConfig {
        GenConfig {
            read_pct,
            random_pct,
            bs,
            align,
            ..GenConfig::default()
        }
    }

    fn region(start: u64, len: u64) -> Region {
        Region {
            target: 0,
            start,
            len,
            hit_len: 0,
            stream_start: 0,
        }
    }

    proptest! {
        #[test]
        fn offsets_stay_in_range_and_aligned(start in 0u64..1<<20, len in 1u64<<16..1<<30,
                                             random_pct in 0u32..=100, seed in any::<u64>()) {
            let start = start / 4096 * 4096;
            let c = cfg(50, random_pct, vec![(4096, 60), (8192, 30), (65536, 10)], 4096);
            let mut g = IoGen::new(&c, vec![region(start, len)], seed);
            for _ in 0..2000 {
                let io = g.next_io();
                prop_assert!(io.offset >= start);
                prop_assert!(io.offset + io.len as u64 <= start + len);
                prop_assert_eq!(io.offset % 4096, 0);
            }
        }
    }

    #[test]
    fn sequential_is_contiguous_and_wraps() {
        let c = cfg(100, 0, vec![(4096, 1)], 4096);
        let mut g = IoGen::new(&c, vec![region(8192, 4 * 4096)], 1);
        let offs: Vec<u64> = (0..6).map(|_| g.next_io().offset).collect();
        assert_eq!(offs, vec![8192, 12288, 16384, 20480, 8192, 12288]);
    }

    #[test]
    fn read_pct_and_bs_mix_shares() {
        let c = cfg(75, 100, vec![(4096, 60), (8192, 30), (65536, 10)], 4096);
        let mut g = IoGen::new(&c, vec![region(0, 1 << 30)], 7);
        let n = 200_000;
        let (mut reads, mut b4, mut b64) = (0, 0, 0);
        for _ in 0..n {
            let io = g.next_io();
            reads += (io.dir == Dir::Read) as u32;
            b4 += (io.len == 4096) as u32;
            b64 += (io.len == 65536) as u32;
        }
        let share = |x: u32| x as f64 / n as f64;
        assert!((share(reads) - 0.75).abs() < 0.01);
        assert!((share(b4) - 0.60).abs() < 0.01);
        assert!((share(b64) - 0.10).abs() < 0.01);
    }

    #[test]
    fn uniform_covers_the_region_evenly() {
        let c = cfg(100, 100, vec![(4096, 1)], 4096);
        let mut g = IoGen::new(&c, vec![region(0, 64 * 4096)], 3);
        let mut hist = [0u32; 64];
        for _ in 0..64_000 {
            hist[(g.next_io().offset / 4096) as usize] += 1;
        }
        for h in hist {
            assert!((800..1200).contains(&h), "{hist:?}");
        }
    }

    #[test]
    fn random_pct_is_the_jump_chance() {
        let c = cfg(100, 20, vec![(4096, 1)], 4096);
        let mut g = IoGen::new(&c, vec![region(0, 1 << 30)], 5);
        let mut prev = g.next_io();
        let mut jumps = 0;
        let n = 100_000;
        for _ in 0..n {
            let io = g.next_io();
            if io.offset != prev.offset + 4096 {
                jumps += 1;
            }
            prev = io;
        }
        let share = jumps as f64 / n as f64;
        assert!((share - 0.20).abs() < 0.01, "{share}");
    }

    #[test]
    fn hit_area_takes_its_share() {
        let mut c = cfg(100, 100, vec![(8192, 1)], 8192);
        c.read_hit_pct = 30;
        let mut r = region(0, 1 << 30);
        r.hit_len = 1 << 20;
        let mut g = IoGen::new(&c, vec![r], 9);
        let n = 100_000;
        let hits = (0..n).filter(|_| g.next_io().offset < 1 << 20).count();
        assert!((hits as f64 / n as f64 - 0.30).abs() < 0.01);
    }

    #[test]
    fn hotspot_shape() {
        let mut c = cfg(100, 100, vec![(4096, 1)], 4096);
        c.distribution = Distribution::Hotspot {
            io_pct: 90.0,
            space_pct: 10.0,
        };
        let mut g = IoGen::new(&c, vec![region(0, 1000 * 4096)], 11);
        let n = 100_000;
        let hot = (0..n).filter(|_| g.next_io().offset < 100 * 4096).count();
        assert!((hot as f64 / n as f64 - 0.90).abs() < 0.01);
    }

    #[test]
    fn zipf_shape_matches_theory() {
        // With theta 1.2 over 10^4 blocks, the hottest rank's share is
        // 1 / zeta(n, theta).
        let n = 10_000;
        let z = Zipf::new(n, 1.2, 0);
        let mut rng = fastrand::Rng::with_seed(1);
        let draws = 200_000;
        let mut top = 0;
        let mut counts = std::collections::HashMap::new();
        for _ in 0..draws {
            let r = z.rank(rng.f64());
            assert!(r < n);
            top += (r == 0) as u32;
            *counts.entry(z.sample(rng.f64())).or_insert(0u32) += 1;
        }
        let expect = 1.0 / zeta(n, 1.2);
        let got = top as f64 / draws as f64;
        assert!((got - expect).abs() < 0.02, "top share {got} vs {expect}");
        // Skewed: the 1 % most-hit blocks take far more than 1 % of I/O.
        let mut v: Vec<u32> = counts.values().copied().collect();
        v.sort_unstable_by(|a, b| b.cmp(a));
        let top1: u32 = v.iter().take((n / 100) as usize).sum();
        assert!(top1 as f64 / draws as f64 > 0.5);
    }

    #[test]
    fn zeta_tail_approximation() {
        let exact: f64 = (1..=3_000_000u64).map(|i| 1.0 / (i as f64).powf(0.8)).sum();
        let approx = zeta(3_000_000, 0.8);
        assert!(((approx - exact) / exact).abs() < 1e-6);
    }

    #[test]
    fn seeded_is_reproducible() {
        let c = cfg(50, 100, vec![(4096, 1)], 4096);
        let mut a = IoGen::new(&c, vec![region(0, 1 << 30)], 42);
        let mut b = IoGen::new(&c, vec![region(0, 1 << 30)], 42);
        for _ in 0..1000 {
            assert_eq!(a.next_io(), b.next_io());
        }
    }

    #[test]
    fn each_direction_draws_its_own_size() {
        let mut c = cfg(50, 100, vec![(4096, 1)], 4096);
        c.bs_write = Some(vec![(65536, 3), (16384, 1)]);
        let mut g = IoGen::new(&c, vec![region(0, 1 << 30)], 2);
        let (mut w64, mut w16, mut writes) = (0, 0, 0);
        for _ in 0..40_000 {
            let io = g.next_io();
            match io.dir {
                Dir::Read => assert_eq!(io.len, 4096),
                Dir::Write => {
                    writes += 1;
                    w64 += (io.len == 65536) as u32;
                    w16 += (io.len == 16384) as u32;
                }
                Dir::Trim => panic!("no trims asked for"),
            }
        }
        assert_eq!(w64 + w16, writes);
        assert!(
            (w64 as f64 / writes as f64 - 0.75).abs() < 0.02,
            "{w64}/{writes}"
        );
    }

    #[test]
    fn trim_modes_plan_trims_and_trimwrite_writes_each_trimmed_block() {
        let mut c = cfg(0, 0, vec![(4096, 1)], 4096);
        c.trim = TrimMode::Only;
        c.bs_trim = Some(vec![(8192, 1)]);
        let mut g = IoGen::new(&c, vec![region(0, 1 << 20)], 1);
        for i in 0..10 {
            let io = g.next_io();
            assert_eq!((io.dir, io.offset, io.len), (Dir::Trim, i * 8192, 8192));
        }
        c.trim = TrimMode::ThenWrite;
        c.random_pct = 100;
        let mut g = IoGen::new(&c, vec![region(0, 1 << 20)], 1);
        for _ in 0..1000 {
            let t = g.next_io();
            let w = g.next_io();
            assert_eq!(t.dir, Dir::Trim);
            assert_eq!(w.dir, Dir::Write);
            assert_eq!((w.offset, w.len, w.target), (t.offset, t.len, t.target));
        }
    }

    #[test]
    fn a_hole_skips_bytes_after_each_sequential_io_and_wraps() {
        let mut c = cfg(0, 0, vec![(4096, 1)], 4096);
        c.hole = 4096;
        let mut g = IoGen::new(&c, vec![region(0, 8 * 4096)], 1);
        let offs: Vec<u64> = (0..6).map(|_| g.next_io().offset / 4096).collect();
        assert_eq!(offs, vec![0, 2, 4, 6, 0, 2]);
    }

    #[test]
    fn a_negative_hole_steps_back_and_wraps_to_the_end_as_fio() {
        // fio rw=read:-8k with bs=4k: 0, then the end less 8k, going down.
        let mut c = cfg(100, 0, vec![(4096, 1)], 4096);
        c.hole = -8192;
        let mut g = IoGen::new(&c, vec![region(0, 8 * 4096)], 1);
        let offs: Vec<u64> = (0..9).map(|_| g.next_io().offset / 4096).collect();
        assert_eq!(offs, vec![0, 6, 5, 4, 3, 2, 1, 0, 6]);
    }

    #[test]
    fn a_negative_hole_smaller_than_the_block_moves_forward_overlapping() {
        let mut c = cfg(100, 0, vec![(8192, 1)], 4096);
        c.hole = -4096;
        let mut g = IoGen::new(&c, vec![region(4096, 4 * 4096)], 1);
        let offs: Vec<u64> = (0..5).map(|_| g.next_io().offset / 4096).collect();
        assert_eq!(offs, vec![1, 2, 3, 1, 2]);
    }

    #[test]
    fn random_every_jumps_every_nth_io_and_runs_on_in_between() {
        let mut c = cfg(100, 100, vec![(4096, 1)], 4096);
        c.random_every = 8;
        let mut g = IoGen::new(&c, vec![region(0, 1 << 34)], 4);
        let mut prev = g.next_io();
        let mut steps = Vec::new();
        for _ in 0..64 {
            let io = g.next_io();
            steps.push(io.offset == prev.offset + 4096);
            prev = io;
        }
        // After the first I/O (a jump), 7 sequential, then a jump: a
        // random jump landing right after the last block is 1 in 2^22.
        for (i, seq) in steps.iter().enumerate() {
            assert_eq!(*seq, (i + 1) % 8 != 0, "I/O {}: {steps:?}", i + 1);
        }
    }

    /// The share of `n` random offsets that `pred` holds for.
    fn share(d: Distribution, blocks: u64, n: u32, pred: impl Fn(u64) -> bool) -> f64 {
        let mut c = cfg(100, 100, vec![(4096, 1)], 4096);
        c.distribution = d;
        let mut g = IoGen::new(&c, vec![region(0, blocks * 4096)], 13);
        (0..n).filter(|_| pred(g.next_io().offset / 4096)).count() as f64 / n as f64
    }

    #[test]
    fn zoned_puts_each_zones_share_of_io_in_its_part_of_the_region() {
        let d = iolab_spec::parse_distribution("zoned:60/10:30/20:10/70").unwrap();
        let first = share(d.clone(), 10_000, 100_000, |b| b < 1000);
        assert!((first - 0.60).abs() < 0.02, "{first}");
        let second = share(d.clone(), 10_000, 100_000, |b| (1000..3000).contains(&b));
        assert!((second - 0.30).abs() < 0.02, "{second}");
        let rest = share(d, 10_000, 100_000, |b| b >= 3000);
        assert!((rest - 0.10).abs() < 0.02, "{rest}");
    }

    #[test]
    fn zoned_abs_zones_are_bytes_from_the_start() {
        // 80 % to the first 1 MiB (256 blocks), 20 % to the next 3 MiB.
        let d = iolab_spec::parse_distribution("zoned_abs:80/1m:20/3m").unwrap();
        let first = share(d.clone(), 10_000, 100_000, |b| b < 256);
        assert!((first - 0.80).abs() < 0.02, "{first}");
        let beyond = share(d, 10_000, 100_000, |b| b >= 1024);
        assert_eq!(beyond, 0.0);
    }

    #[test]
    fn normal_is_a_gaussian_of_dev_percent_of_the_region_around_its_centre() {
        let d = Distribution::Normal {
            dev: 10.0,
            center: 0.3,
        };
        // Mean 3000 of 10 000 blocks, sd 1000: 68.3 % within one sd,
        // 95.4 % within two.
        let one = share(d.clone(), 10_000, 100_000, |b| (2000..4000).contains(&b));
        assert!((one - 0.683).abs() < 0.02, "{one}");
        let two = share(d, 10_000, 100_000, |b| (1000..5000).contains(&b));
        assert!((two - 0.954).abs() < 0.02, "{two}");
    }

    #[test]
    fn pareto_and_centred_zipf_are_skewed_where_asked() {
        // fio's pareto:0.2 is the 80/20 rule's shape: the hottest 20 % of
        // the blocks get most of the I/O (rank = n u^(ln h / ln(1-h))).
        let h = 0.2f64;
        let p = dist::Pareto::new(10_000, h, 0);
        let mut rng = fastrand::Rng::with_seed(3);
        let n = 100_000;
        let hot = (0..n).filter(|_| p.rank(rng.f64()) < 2_000).count() as f64 / n as f64;
        let expect = (0.2f64).powf((1.0 - h).ln() / h.ln());
        assert!((hot - expect).abs() < 0.02, "{hot} vs {expect}");
        // zipf with a centre: rank 0 (the hottest block) sits there.
        let d = Distribution::Zipf {
            theta: 1.2,
            center: Some(0.25),
        };
        let at = share(d, 10_000, 100_000, |b| b == 2_500);
        assert!(at > 0.15, "{at}");
    }
}
