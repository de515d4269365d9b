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

use iolab_spec::Distribution;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dir {
    Read,
    Write,
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

enum DistState {
    Uniform,
    Zipf(Zipf),
    Hotspot { io: u32, hot_blocks: u64 },
}

#[derive(Debug, Clone)]
pub struct GenConfig {
    pub read_pct: u32,
    pub random_pct: u32,
    pub read_hit_pct: u32,
    pub write_hit_pct: u32,
    pub bs: Vec<(u64, u32)>,
    pub align: u64,
    pub distribution: Distribution,
}

pub struct IoGen {
    rng: fastrand::Rng,
    regions: Vec<RegionState>,
    next_region: usize,
    bs: Vec<(u32, u32)>,
    bs_total: u32,
    max_bs: u64,
    align: u64,
    read_pct: u32,
    random_pct: u32,
    read_hit_pct: u32,
    write_hit_pct: u32,
}

fn align_down(v: u64, a: u64) -> u64 {
    v - v % a
}

impl IoGen {
    pub fn new(cfg: &GenConfig, regions: Vec<Region>, seed: u64) -> IoGen {
        let max_bs = cfg.bs.iter().map(|b| b.0).max().unwrap_or(4096);
        let align = cfg.align.max(1);
        let blocks = |len: u64| {
            if len < max_bs {
                0
            } else {
                (len - max_bs) / align + 1
            }
        };
        let mut rng = fastrand::Rng::with_seed(seed);
        let regions = regions
            .into_iter()
            .map(|r| {
                let (miss_start, miss_len) = if r.hit_len > 0 && r.hit_len < r.len {
                    (r.start + r.hit_len, r.len - r.hit_len)
                } else {
                    (r.start, r.len)
                };
                let miss_blocks = blocks(miss_len);
                let dist = match cfg.distribution {
                    Distribution::Uniform => DistState::Uniform,
                    Distribution::Zipf { theta } => {
                        DistState::Zipf(Zipf::new(miss_blocks.max(1), theta, rng.u64(..)))
                    }
                    Distribution::Hotspot { io_pct, space_pct } => DistState::Hotspot {
                        io: (io_pct * 100.0).round() as u32,
                        hot_blocks: ((miss_blocks as f64 * space_pct / 100.0).ceil() as u64)
                            .clamp(1, miss_blocks.max(1)),
                    },
                };
                let cursor = miss_start
                    + align_down(r.stream_start.min(miss_len.saturating_sub(max_bs)), align);
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
            })
            .collect();
        let bs: Vec<(u32, u32)> = cfg.bs.iter().map(|&(b, w)| (b as u32, w)).collect();
        IoGen {
            rng,
            regions,
            next_region: 0,
            bs_total: bs.iter().map(|b| b.1).sum(),
            bs,
            max_bs,
            align,
            read_pct: cfg.read_pct,
            random_pct: cfg.random_pct,
            read_hit_pct: cfg.read_hit_pct,
            write_hit_pct: cfg.write_hit_pct,
        }
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
    fn pick_bs(&mut self) -> u32 {
        if self.bs.len() == 1 {
            return self.bs[0].0;
        }
        let mut x = self.rng.u32(0..self.bs_total);
        for &(b, w) in &self.bs {
            if x < w {
                return b;
            }
            x -= w;
        }
        self.bs[self.bs.len() - 1].0
    }

    /// The next I/O. No allocation.
    #[inline]
    pub fn next_io(&mut self) -> IoPlan {
        let dir = if self.chance(self.read_pct) {
            Dir::Read
        } else {
            Dir::Write
        };
        let len = self.pick_bs();
        let ri = self.next_region;
        self.next_region += 1;
        if self.next_region == self.regions.len() {
            self.next_region = 0;
        }
        let hit_pct = match dir {
            Dir::Read => self.read_hit_pct,
            Dir::Write => self.write_hit_pct,
        };
        let hit = self.regions[ri].hit_blocks > 0 && self.chance(hit_pct);
        let random = self.chance(self.random_pct);
        let align = self.align;
        let len64 = len as u64;
        let offset = if hit {
            let hb = self.regions[ri].hit_blocks;
            let rs = &mut self.regions[ri];
            let end = rs.r.start + rs.r.hit_len.min(rs.r.len);
            let off = if random {
                rs.r.start + self.rng.u64(0..hb) * align
            } else {
                if rs.hit_cursor + len64 > end {
                    rs.hit_cursor = rs.r.start;
                }
                rs.hit_cursor
            };
            let rs = &mut self.regions[ri];
            rs.hit_cursor = off + len64;
            off
        } else {
            let off = if random {
                let b = self.sample_block(ri);
                self.regions[ri].miss_start + b * align
            } else {
                let rs = &mut self.regions[ri];
                if rs.cursor + len64 > rs.miss_start + rs.miss_len {
                    rs.cursor = rs.miss_start;
                }
                rs.cursor
            };
            self.regions[ri].cursor = off + len64;
            off
        };
        let _ = self.max_bs;
        IoPlan {
            dir,
            target: self.regions[ri].r.target,
            offset,
            len,
        }
    }

    #[inline]
    fn sample_block(&mut self, ri: usize) -> u64 {
        let n = self.regions[ri].miss_blocks.max(1);
        match &self.regions[ri].dist {
            DistState::Uniform => self.rng.u64(0..n),
            DistState::Zipf(z) => {
                let u = self.rng.f64();
                z.sample(u)
            }
            &DistState::Hotspot { io, hot_blocks } => {
                if hot_blocks >= n || self.rng.u32(0..10_000) < io {
                    self.rng.u64(0..hot_blocks)
                } else {
                    self.rng.u64(hot_blocks..n)
                }
            }
        }
    }
}

/// Zipf-distributed block numbers over `n` blocks (Gray et al., "Quickly
/// generating billion-record synthetic databases", SIGMOD 1994). Rank r
/// (0 = hottest) is scattered to block (r * P + shift) mod n with P a prime
/// that does not divide n, a bijection, so hot blocks are spread over the
/// region rather than packed at its start.
pub struct Zipf {
    n: u64,
    theta: f64,
    alpha: f64,
    zetan: f64,
    eta: f64,
    half_pow_theta: f64,
    prime: u64,
    shift: u64,
}

/// zeta(n, theta) = sum_{i=1..n} 1/i^theta: exact up to 2^20 terms, then
/// the Euler-Maclaurin integral for the tail (relative error < 1e-6).
fn zeta(n: u64, theta: f64) -> f64 {
    const EXACT: u64 = 1 << 20;
    let m = n.min(EXACT);
    let mut s = 0.0;
    for i in 1..=m {
        s += 1.0 / (i as f64).powf(theta);
    }
    if n > m {
        let (a, b) = (m as f64, n as f64);
        let integral = if (theta - 1.0).abs() < 1e-12 {
            (b / a).ln()
        } else {
            (b.powf(1.0 - theta) - a.powf(1.0 - theta)) / (1.0 - theta)
        };
        s += integral + 0.5 * (b.powf(-theta) - a.powf(-theta));
    }
    s
}

impl Zipf {
    pub fn new(n: u64, theta: f64, seed: u64) -> Zipf {
        const PRIMES: [u64; 6] = [
            2_305_843_009_213_693_951,
            1_000_000_007,
            998_244_353,
            2_147_483_647,
            4_294_967_291,
            67_280_421_310_721,
        ];
        let prime = PRIMES
            .iter()
            .copied()
            .find(|p| !n.is_multiple_of(*p))
            .unwrap_or(1);
        let zetan = zeta(n, theta);
        let zeta2 = zeta(2, theta);
        Zipf {
            n,
            theta,
            alpha: 1.0 / (1.0 - theta),
            zetan,
            eta: (1.0 - (2.0 / n as f64).powf(1.0 - theta)) / (1.0 - zeta2 / zetan),
            half_pow_theta: 0.5f64.powf(theta),
            prime,
            shift: seed % n.max(1),
        }
    }

    /// The rank (0 = hottest) for a uniform `u` in [0, 1).
    #[inline]
    pub fn rank(&self, u: f64) -> u64 {
        let uz = u * self.zetan;
        if uz < 1.0 {
            return 0;
        }
        if uz < 1.0 + self.half_pow_theta {
            return 1.min(self.n - 1);
        }
        let r = (self.n as f64 * (self.eta * u - self.eta + 1.0).powf(self.alpha)) as u64;
        r.min(self.n - 1)
    }

    #[inline]
    pub fn sample(&self, u: f64) -> u64 {
        let r = self.rank(u);
        ((r as u128 * self.prime as u128 + self.shift as u128) % self.n as u128) as u64
    }

    pub fn theta(&self) -> f64 {
        self.theta
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn cfg(read_pct: u32, random_pct: u32, bs: Vec<(u64, u32)>, align: u64) -> GenConfig {
        GenConfig {
            read_pct,
            random_pct,
            read_hit_pct: 0,
            write_hit_pct: 0,
            bs,
            align,
            distribution: Distribution::Uniform,
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
}
