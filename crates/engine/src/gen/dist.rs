//! The random-offset distributions of the generator: block numbers in
//! `0..n` drawn from uniform, zipf, pareto, normal, hotspot, zoned and
//! zoned_abs shapes ([`iolab_spec::Distribution`]). Everything that can be
//! computed once (zeta sums, zone tables) is, in [`DistState::new`]; a
//! draw allocates nothing.
//!
//! Semantics follow fio (`lib/zipf.c`, `lib/gauss.c`, `io_u.c`) where
//! they are about the shape: zipf's and pareto's ranks are those formulas
//! (the rank is then scattered by a bijection of the blocks, as iolab's
//! zipf always did, where fio multiplies by a golden-ratio hash that is
//! not one; a CENTER puts rank 0 that far into the region as fio's
//! `rand_off` does); zoned and zoned_abs pick a zone by its share of I/O,
//! then a uniform block in it. `normal` is a Gaussian with standard
//! deviation DEV % of the region around CENTER, as fio's documentation
//! says (fio's own generator averages 12 uniform draws, adds a uniform
//! jitter of DEV % and then scatters the result by its hash).

use iolab_spec::Distribution;

pub(super) enum DistState {
    Uniform,
    Zipf(Zipf),
    Pareto(Pareto),
    Normal {
        mean: f64,
        sd: f64,
    },
    Hotspot {
        io: u32,
        hot_blocks: u64,
    },
    /// Zones in order: (cumulative share of I/O in millionths, first
    /// block, blocks).
    Zoned(Vec<(u32, u64, u64)>),
}

impl DistState {
    /// The state for `n` blocks of `align` bytes.
    pub(super) fn new(d: &Distribution, n: u64, align: u64, rng: &mut fastrand::Rng) -> DistState {
        let n1 = n.max(1);
        let shift = |c: Option<f64>, rng: &mut fastrand::Rng| match c {
            Some(c) => ((n1 as f64 * c) as u64).min(n1 - 1),
            None => rng.u64(..) % n1,
        };
        match d {
            Distribution::Uniform => DistState::Uniform,
            &Distribution::Zipf { theta, center } => {
                DistState::Zipf(Zipf::new(n1, theta, shift(center, rng)))
            }
            &Distribution::Pareto { h, center } => {
                DistState::Pareto(Pareto::new(n1, h, shift(center, rng)))
            }
            &Distribution::Normal { dev, center } => DistState::Normal {
                mean: n1 as f64 * center,
                sd: (n1 as f64 * dev / 100.0).max(0.5),
            },
            &Distribution::Hotspot { io_pct, space_pct } => DistState::Hotspot {
                io: (io_pct * 100.0).round() as u32,
                hot_blocks: ((n as f64 * space_pct / 100.0).ceil() as u64).clamp(1, n1),
            },
            Distribution::Zoned { zones } => DistState::Zoned(zone_table(
                zones.iter().map(|z| (z.io_pct, z.size * n1 as f64 / 100.0)),
                n1,
            )),
            Distribution::ZonedAbs { zones } => DistState::Zoned(zone_table(
                zones.iter().map(|z| (z.io_pct, z.size / align as f64)),
                n1,
            )),
        }
    }

    /// A block in `0..n`.
    #[inline]
    pub(super) fn sample(&self, rng: &mut fastrand::Rng, n: u64) -> u64 {
        match self {
            DistState::Uniform => rng.u64(0..n),
            DistState::Zipf(z) => z.sample(rng.f64()),
            DistState::Pareto(p) => p.sample(rng.f64()),
            &DistState::Normal { mean, sd } => normal(rng, mean, sd, n),
            &DistState::Hotspot { io, hot_blocks } => {
                if hot_blocks >= n || rng.u32(0..10_000) < io {
                    rng.u64(0..hot_blocks)
                } else {
                    rng.u64(hot_blocks..n)
                }
            }
            DistState::Zoned(t) => {
                let u = rng.u32(0..1_000_000);
                let i = t.partition_point(|z| z.0 <= u).min(t.len() - 1);
                let (_, first, len) = t[i];
                first + rng.u64(0..len)
            }
        }
    }
}

/// A Gaussian block number (Box-Muller); draws outside `0..n` are drawn
/// again (a few times at most in practice; after 64, the nearest end).
#[inline]
fn normal(rng: &mut fastrand::Rng, mean: f64, sd: f64, n: u64) -> u64 {
    let mut x = mean;
    for _ in 0..64 {
        let u1 = 1.0 - rng.f64();
        let u2 = rng.f64();
        x = mean + sd * (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos();
        if x >= 0.0 && x < n as f64 {
            return x as u64;
        }
    }
    (x.max(0.0) as u64).min(n - 1)
}

/// The zone table of (share of I/O, blocks) zones laid end to end from
/// block 0 of `n`: every zone has at least one block, none passes the
/// end (a zone that would is cut; `zoned_abs` zones that do not fit are
/// refused before the run, `iolab_engine` prepare).
fn zone_table(zones: impl Iterator<Item = (f64, f64)>, n: u64) -> Vec<(u32, u64, u64)> {
    let mut t = Vec::new();
    let (mut io, mut at) = (0.0f64, 0.0f64);
    for (pct, blocks) in zones {
        io += pct;
        let first = (at as u64).min(n - 1);
        at += blocks;
        let end = (at as u64).clamp(first + 1, n);
        t.push(((io * 10_000.0).round() as u32, first, end - first));
    }
    if let Some(last) = t.last_mut() {
        last.0 = 1_000_000;
    }
    t
}

/// Pareto ranks (fio `pareto:h`): rank = (n - 1) * u^(ln h / ln(1 - h)),
/// scattered over the blocks as [`Zipf`]'s are.
pub struct Pareto {
    n: u64,
    pow: f64,
    prime: u64,
    shift: u64,
}

impl Pareto {
    pub fn new(n: u64, h: f64, shift: u64) -> Pareto {
        Pareto {
            n,
            pow: h.ln() / (1.0 - h).ln(),
            prime: scatter_prime(n),
            shift,
        }
    }

    #[inline]
    pub fn rank(&self, u: f64) -> u64 {
        (((self.n - 1) as f64 * u.powf(self.pow)) as u64).min(self.n - 1)
    }

    #[inline]
    pub fn sample(&self, u: f64) -> u64 {
        scatter(self.rank(u), self.prime, self.shift, self.n)
    }
}

/// A prime that does not divide `n`: r -> r * P mod n is then a bijection.
fn scatter_prime(n: u64) -> u64 {
    const PRIMES: [u64; 6] = [
        2_305_843_009_213_693_951,
        1_000_000_007,
        998_244_353,
        2_147_483_647,
        4_294_967_291,
        67_280_421_310_721,
    ];
    PRIMES
        .iter()
        .copied()
        .find(|p| !n.is_multiple_of(*p))
        .unwrap_or(1)
}

#[inline]
fn scatter(r: u64, prime: u64, shift: u64, n: u64) -> u64 {
    ((r as u128 * prime as u128 + shift as u128) % n as u128) as u64
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
pub(super) fn zeta(n: u64, theta: f64) -> f64 {
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
    /// Zipf over `n` blocks; rank 0 lands on block `shift`.
    pub fn new(n: u64, theta: f64, shift: u64) -> Zipf {
        let prime = scatter_prime(n);
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
            shift: shift % n.max(1),
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
        scatter(self.rank(u), self.prime, self.shift, self.n)
    }

    pub fn theta(&self) -> f64 {
        self.theta
    }
}
