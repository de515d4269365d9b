//! Which priority each I/O carries (fio's cmdprio): per direction, per
//! block size (or any size), cumulative shares drawn from a random stream
//! of its own, so that turning priorities on leaves the offsets and sizes
//! of a seeded workload as they were. Tables are built once; a pick only
//! reads them.

use super::Dir;
use iolab_spec::prio::CmdPrio;

/// One size's (0: any size) cumulative shares and priorities.
struct SizePrios {
    bs: u64,
    /// (cumulative percent, ioprio), ascending.
    cum: Vec<(u32, u16)>,
}

pub(crate) struct PrioPick {
    rng: fastrand::Rng,
    /// Reads, writes.
    dirs: [Vec<SizePrios>; 2],
}

impl PrioPick {
    pub(crate) fn new(c: &CmdPrio, seed: u64) -> PrioPick {
        let table = |list: &[iolab_spec::prio::BsPrio]| {
            list.iter()
                .map(|b| {
                    let mut sum = 0;
                    let cum = b
                        .prios
                        .iter()
                        .map(|p| {
                            sum += p.pct;
                            (sum, p.ioprio)
                        })
                        .collect();
                    SizePrios { bs: b.bs, cum }
                })
                .collect()
        };
        PrioPick {
            rng: fastrand::Rng::with_seed(seed ^ 0x7072_696f),
            dirs: [table(&c.read), table(&c.write)],
        }
    }

    /// The priority of an I/O of `len` bytes in `dir`: one of the table's
    /// with its share, else `base`. Trims always carry `base`.
    #[inline]
    pub(crate) fn pick(&mut self, dir: Dir, len: u32, base: u16) -> u16 {
        let sizes = match dir {
            Dir::Read => &self.dirs[0],
            Dir::Write => &self.dirs[1],
            Dir::Trim => return base,
        };
        let Some(s) = sizes.iter().find(|s| s.bs == 0 || s.bs == len as u64) else {
            return base;
        };
        let r = self.rng.u32(0..100);
        s.cum
            .iter()
            .find(|&&(c, _)| r < c)
            .map_or(base, |&(_, p)| p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use iolab_spec::prio::{ioprio, parse_cmdprio};

    #[test]
    fn shares_follow_the_table_per_direction_and_size() {
        let c = parse_cmdprio(None, None, None, Some("64k/25/1/1:64k/75/3/2,1m/10/2/0"))
            .unwrap()
            .unwrap();
        let mut p = PrioPick::new(&c, 7);
        let base = ioprio(2, 7, 0);
        let (mut rt, mut idle) = (0, 0);
        for _ in 0..10_000 {
            match p.pick(Dir::Read, 65536, base) {
                v if v == ioprio(1, 1, 0) => rt += 1,
                v if v == ioprio(3, 2, 0) => idle += 1,
                v => panic!("64k read got {v:#x}"),
            }
            assert_eq!(
                p.pick(Dir::Read, 1 << 20, base),
                base,
                "no entry for 1m reads"
            );
            assert_eq!(p.pick(Dir::Trim, 65536, base), base);
        }
        assert!((2200..2800).contains(&rt), "rt {rt}");
        assert!((7200..7800).contains(&idle), "idle {idle}");
        let be = (0..10_000)
            .filter(|_| p.pick(Dir::Write, 1 << 20, base) == ioprio(2, 0, 0))
            .count();
        assert!((800..1200).contains(&be), "writes' share {be}");
    }
}
