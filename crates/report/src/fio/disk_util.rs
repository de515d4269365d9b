//! fio's `disk_util[]` from iolab's device statistics (`runs[].devices`,
//! the `iostat -x` figures over each run's measured time): one object per
//! device, runs added up. Counts are what the kernel counted over the
//! measured time (fio's span the whole job, ramp included); ticks and
//! `in_queue` (ms) are rebuilt from the averages (await x I/Os, aqu-sz x
//! time), so they are within rounding of /proc/diskstats' own.

use super::out::{Obj, J};
use crate::model::ResultDoc;

#[derive(Debug, Default, Clone)]
struct Disk {
    name: String,
    read_ios: u64,
    write_ios: u64,
    read_sectors: u64,
    write_sectors: u64,
    read_merges: f64,
    write_merges: f64,
    read_ticks: f64,
    write_ticks: f64,
    in_queue: f64,
    /// util x time and time, ms, to weigh `util` over runs.
    util_ms: f64,
    ms: f64,
}

/// `disk_util[]`: each device of the document's runs, in the order first
/// met.
pub fn disk_util(doc: &ResultDoc) -> Vec<J> {
    let mut disks: Vec<Disk> = Vec::new();
    for row in doc
        .runs
        .iter()
        .filter_map(|r| r.devices.as_ref())
        .flat_map(|d| &d.summary)
    {
        let i = match disks.iter().position(|d| d.name == row.device) {
            Some(i) => i,
            None => {
                disks.push(Disk {
                    name: row.device.clone(),
                    ..Default::default()
                });
                disks.len() - 1
            }
        };
        let d = &mut disks[i];
        let s = &row.stats;
        let secs = s.interval_ms / 1000.0;
        d.read_ios += s.counts.reads;
        d.write_ios += s.counts.writes;
        d.read_sectors += s.counts.read_bytes / 512;
        d.write_sectors += s.counts.write_bytes / 512;
        d.read_merges += s.rrqm_s * secs;
        d.write_merges += s.wrqm_s * secs;
        d.read_ticks += s.r_await * s.counts.reads as f64;
        d.write_ticks += s.w_await * s.counts.writes as f64;
        d.in_queue += s.aqu_sz * s.interval_ms;
        d.util_ms += s.util_pct * s.interval_ms;
        d.ms += s.interval_ms;
    }
    disks.iter().map(|d| J::O(disk_object(d))).collect()
}

fn disk_object(d: &Disk) -> Obj {
    let n = |x: f64| x.round().max(0.0) as u64;
    let util = if d.ms > 0.0 {
        (d.util_ms / d.ms).min(100.0)
    } else {
        0.0
    };
    let mut o = Obj::new();
    o.put("name", d.name.as_str())
        .put("read_ios", d.read_ios)
        .put("write_ios", d.write_ios)
        .put("read_sectors", d.read_sectors)
        .put("write_sectors", d.write_sectors)
        .put("read_merges", n(d.read_merges))
        .put("write_merges", n(d.write_merges))
        .put("read_ticks", n(d.read_ticks))
        .put("write_ticks", n(d.write_ticks))
        .put("in_queue", n(d.in_queue))
        .put("util", util);
    o
}
