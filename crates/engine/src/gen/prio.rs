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
