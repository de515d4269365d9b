//! Statistics keyed by operation: a small fixed table indexed by [`Op`],
//! so a worker records an operation with one array index (no map, no
//! allocation) and a new operation is one more enum variant.

use crate::raw::DirStats;
pub use iolab_spec::Op;
use serde::{Deserialize, Serialize, Serializer};
use std::collections::BTreeMap;
use std::sync::OnceLock;

/// Counts and latencies per operation. Only the operations a workload
/// can issue have a slot (set when it is made, or on first merge), so an
/// interval of a block workload holds two histograms, not thirteen.
///
/// Serialised as a map from the operation's name to its figures, with the
/// operations that have a slot only.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(from = "BTreeMap<Op, DirStats>")]
pub struct OpStats {
    slots: [Option<DirStats>; Op::COUNT],
}

impl Serialize for OpStats {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.iter())
    }
}

impl From<BTreeMap<Op, DirStats>> for OpStats {
    fn from(m: BTreeMap<Op, DirStats>) -> Self {
        let mut s = OpStats::default();
        for (op, d) in m {
            s.slots[op as usize] = Some(d);
        }
        s
    }
}

fn empty() -> &'static DirStats {
    static EMPTY: OnceLock<DirStats> = OnceLock::new();
    EMPTY.get_or_init(|| DirStats::new(false))
}

impl OpStats {
    /// A table with a slot for each of `ops`; `svc` keeps service times
    /// too (rate-limited workloads).
    pub fn new(ops: &[Op], svc: bool) -> OpStats {
        let mut s = OpStats::default();
        for &o in ops {
            s.slots[o as usize] = Some(DirStats::new(svc));
        }
        s
    }

    /// The block workload's table: reads and writes.
    pub fn rw(svc: bool) -> OpStats {
        OpStats::new(&[Op::Read, Op::Write], svc)
    }

    pub fn get(&self, op: Op) -> Option<&DirStats> {
        self.slots[op as usize].as_ref()
    }

    /// The slot of `op`; `None` when the table has none for it.
    #[inline]
    pub fn get_mut(&mut self, op: Op) -> Option<&mut DirStats> {
        self.slots[op as usize].as_mut()
    }

    /// The slot of `op`, made (empty) when missing. Allocates a histogram
    /// the first time: not for the per-I/O path.
    pub fn entry(&mut self, op: Op, svc: bool) -> &mut DirStats {
        self.slots[op as usize].get_or_insert_with(|| DirStats::new(svc))
    }

    /// Put `d` in the slot of `op` (replacing what was there): how a
    /// driver that keeps its own per-operation figures on the per-I/O
    /// path folds them into a table at an interval boundary.
    pub fn set(&mut self, op: Op, d: DirStats) {
        self.slots[op as usize] = Some(d);
    }

    /// Reads (empty when the table has none).
    pub fn read(&self) -> &DirStats {
        self.get(Op::Read).unwrap_or_else(|| empty())
    }

    /// Writes (empty when the table has none).
    pub fn write(&self) -> &DirStats {
        self.get(Op::Write).unwrap_or_else(|| empty())
    }

    /// The operations with a slot, in table order.
    pub fn iter(&self) -> impl Iterator<Item = (Op, &DirStats)> + '_ {
        Op::ALL
            .iter()
            .zip(self.slots.iter())
            .filter_map(|(&o, s)| s.as_ref().map(|s| (o, s)))
    }

    /// Add `o` into this table: counts and histogram buckets add, so the
    /// merge is exact, associative and commutative.
    pub fn merge(&mut self, o: &OpStats) {
        for (op, s) in o.iter() {
            match self.slots[op as usize].as_mut() {
                Some(d) => d.merge(s),
                None => self.slots[op as usize] = Some(s.clone()),
            }
        }
    }

    /// Operations of every kind.
    pub fn total_ops(&self) -> u64 {
        self.iter().map(|(_, s)| s.ops).sum()
    }

    /// Bytes moved by the data operations.
    pub fn total_bytes(&self) -> u64 {
        self.iter()
            .filter(|(o, _)| o.moves_data())
            .map(|(_, s)| s.bytes)
            .sum()
    }

    /// Whether any slot keeps service times.
    pub fn has_svc(&self) -> bool {
        self.iter().any(|(_, s)| s.svc.is_some())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merge_adds_slots_and_fills_missing_ones() {
        let mut a = OpStats::rw(false);
        a.get_mut(Op::Read).unwrap().ops = 3;
        let mut b = OpStats::new(&[Op::Read, Op::Stat], false);
        b.get_mut(Op::Read).unwrap().ops = 4;
        b.get_mut(Op::Stat).unwrap().ops = 5;
        a.merge(&b);
        assert_eq!(a.read().ops, 7);
        assert_eq!(a.get(Op::Stat).unwrap().ops, 5);
        assert_eq!(a.total_ops(), 12);
        assert_eq!(OpStats::default().write().ops, 0);
    }

    #[test]
    fn names_round_trip() {
        for o in Op::ALL {
            assert_eq!(Op::from_name(o.name()), Some(o));
        }
    }
}
