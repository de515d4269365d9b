//! Raw results are serialisable and mergeable exactly: serialising,
//! reading back and merging gives the same figures (percentiles, counts,
//! min, max, mean) as merging the originals.

use iolab_raw::{merge_by_index, CpuTime, IntervalRaw, Op, OpStats};
use proptest::prelude::*;

fn interval(index: u32, reads: &[u64], writes: &[u64], svc: bool, errors: u64) -> IntervalRaw {
    let mut iv = IntervalRaw::empty(
        index,
        index as u64 * 1000,
        index as u64 * 1000 + 1000,
        false,
    );
    iv.ops = OpStats::rw(svc);
    for (op, vals) in [(Op::Read, reads), (Op::Write, writes)] {
        let d = iv.ops.get_mut(op).unwrap();
        for &v in vals {
            d.ops += 1;
            d.bytes += 4096;
            d.lat.record(v);
            if let Some(h) = d.svc.as_mut() {
                h.record(v / 2);
            }
        }
    }
    iv.errors = errors;
    iv.fsyncs = errors / 2;
    iv.cpu = Some(CpuTime {
        user_us: errors * 3,
        sys_us: 7,
    });
    iv
}

fn round_trip(iv: &IntervalRaw) -> IntervalRaw {
    serde_json::from_str(&serde_json::to_string(iv).unwrap()).unwrap()
}

fn lat_vec() -> impl Strategy<Value = Vec<u64>> {
    prop::collection::vec(1u64..5_000_000_000, 0..200)
}

proptest! {
    #[test]
    fn serialise_read_back_merge_equals_merge_of_originals(
        r1 in lat_vec(), w1 in lat_vec(), r2 in lat_vec(), w2 in lat_vec(),
        svc in any::<bool>(), e1 in 0u64..100, e2 in 0u64..100,
    ) {
        let a = interval(3, &r1, &w1, svc, e1);
        let b = interval(3, &r2, &w2, svc, e2);
        let mut want = a.clone();
        want.merge(&b);
        let mut got = round_trip(&a);
        got.merge(&round_trip(&b));
        prop_assert!(got == want);
        for op in [Op::Read, Op::Write] {
            let (g, w) = (got.ops.get(op).unwrap(), want.ops.get(op).unwrap());
            prop_assert_eq!(g.ops, w.ops);
            prop_assert_eq!(g.lat.count(), w.lat.count());
            prop_assert_eq!(g.lat.min(), w.lat.min());
            prop_assert_eq!(g.lat.max(), w.lat.max());
            prop_assert_eq!(g.lat.mean(), w.lat.mean());
            prop_assert_eq!(g.lat.summary_us(), w.lat.summary_us());
            prop_assert_eq!(g.svc.as_ref().map(|h| h.summary_us()), w.svc.as_ref().map(|h| h.summary_us()));
        }
        // And the merged result itself survives a round trip.
        prop_assert!(round_trip(&got) == want);
        // The merge is exactly the single histogram of all values.
        let all: Vec<u64> = r1.iter().chain(&r2).copied().collect();
        let single = interval(3, &all, &[], false, 0);
        prop_assert!(got.ops.read().lat == single.ops.read().lat);
    }

    #[test]
    fn series_merge_by_index(r1 in lat_vec(), r2 in lat_vec()) {
        let a = vec![interval(0, &r1, &[], false, 1), interval(1, &r2, &[], false, 0)];
        let b = vec![interval(1, &r1, &[], false, 2)];
        let back: Vec<IntervalRaw> = serde_json::from_str(&serde_json::to_string(&b).unwrap()).unwrap();
        let m = merge_by_index([a.as_slice(), back.as_slice()]);
        prop_assert_eq!(m.len(), 2);
        prop_assert!(m[0] == a[0]);
        prop_assert_eq!(m[1].ops.read().ops, (r1.len() + r2.len()) as u64);
        prop_assert_eq!(m[1].errors, 2);
    }
}

#[test]
fn an_operation_table_serialises_as_a_map_of_names() {
    let mut s = OpStats::new(&[Op::Read, Op::Stat], false);
    s.get_mut(Op::Stat).unwrap().ops = 5;
    let j = serde_json::to_value(&s).unwrap();
    assert_eq!(j["stat"]["ops"], 5);
    assert!(j.get("write").is_none());
    let back: OpStats = serde_json::from_value(j).unwrap();
    assert_eq!(back, s);
}
