//! Advice that cites its reason. Every finding has a stable `code`, a
//! severity, the device (or target) it is about, what was seen, why it
//! matters and the fix. Configuration findings come from a doctor report;
//! run-time findings are pure functions of plain inputs (the workload, the
//! device rows of a run), so `iolab run` can call them after each run.

use crate::diskstats::{DeviceCounts, IostatRow};
use crate::inventory::{DeviceInfo, FcHost, MultipathMap};
use crate::qdepth;
use crate::units::bytes;
use crate::zfs::ZfsInfo;
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Info,
    Warning,
    Critical,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Critical => "critical",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Finding {
    /// Stable identifier (`partition-misaligned`); see docs/doctor.md.
    pub code: String,
    pub severity: Severity,
    /// Kernel device name, FC host, pool, dataset or target path.
    pub device: String,
    pub seen: String,
    pub why: String,
    pub fix: String,
}

/// `s` as a sentence: trimmed, ending in a full stop unless it already
/// ends in `.`, `!` or `?`.
pub fn sentence(s: &str) -> String {
    let s = s.trim();
    if s.is_empty() || s.ends_with(['.', '!', '?']) {
        s.to_string()
    } else {
        format!("{s}.")
    }
}

impl Finding {
    /// What was seen, why it matters and the fix as one paragraph, each
    /// part a sentence of its own: `SEEN. WHY Fix: FIX.` (the parts are
    /// stored without a guaranteed full stop, so joining them bare ran
    /// them together: "no flush did Acknowledged writes").
    pub fn text(&self) -> String {
        let parts = [
            sentence(&self.seen),
            sentence(&self.why),
            format!("Fix: {}", sentence(&self.fix)),
        ];
        parts
            .iter()
            .filter(|p| !p.is_empty() && p.as_str() != "Fix: ")
            .cloned()
            .collect::<Vec<_>>()
            .join(" ")
    }
}

fn f(code: &str, sev: Severity, device: &str, seen: String, why: &str, fix: String) -> Finding {
    Finding {
        code: code.into(),
        severity: sev,
        device: device.into(),
        seen,
        why: why.into(),
        fix,
    }
}

/// Most severe first, then by code and device: a stable order.
pub fn sort(v: &mut [Finding]) {
    v.sort_by(|a, b| {
        b.severity
            .cmp(&a.severity)
            .then(a.code.cmp(&b.code))
            .then(a.device.cmp(&b.device))
    });
}

// ---------------------------------------------------------------------
// Configuration findings (doctor).
// ---------------------------------------------------------------------

/// `partition-misaligned`: a partition whose start is not a multiple of the
/// physical block or optimal I/O size (warning: every aligned write
/// becomes a read-modify-write on this device), or not on a 1 MiB boundary
/// (info: an array's block size behind a LUN, 8 KiB to 1 MiB, is not
/// visible to the host, and 1 MiB is a multiple of all of them).
pub fn partition_alignment(dev: &DeviceInfo) -> Vec<Finding> {
    let phys = dev.physical_block_size.unwrap_or(512);
    let opt = dev.optimal_io_size.unwrap_or(0);
    let mut out = Vec::new();
    for p in &dev.partitions {
        if p.aligned_1mib && p.aligned_physical && p.aligned_optimal_io != Some(false) {
            continue;
        }
        let start = format!(
            "{} starts at sector {} (byte {})",
            p.name,
            p.start_sector,
            p.start_sector * 512
        );
        let (sev, seen) = if !p.aligned_physical {
            (
                Severity::Warning,
                format!(
                    "{start}, not a multiple of the {phys}-byte physical block size of {}",
                    dev.name
                ),
            )
        } else if p.aligned_optimal_io == Some(false) {
            (
                Severity::Warning,
                format!(
                    "{start}, not a multiple of the {} optimal I/O size of {}",
                    bytes(opt),
                    dev.name
                ),
            )
        } else {
            (Severity::Info, format!("{start}, not on a 1 MiB boundary"))
        };
        out.push(f(
            "partition-misaligned",
            sev,
            &p.name,
            seen,
            "A partition that does not start on a multiple of the storage block size splits aligned writes across two blocks, so each becomes a read-modify-write; old DOS (63) and default EFI (34) starts are misaligned. Industry practice is 1 MiB (sector 2048), a multiple of every block size from 512 bytes to 1 MiB.",
            format!("Back up {}, recreate it starting at sector 2048 or another multiple of 2048 (sfdisk: start=2048; parted: mkpart ... 1MiB), and restore; a start cannot be moved in place.", p.name),
        ));
    }
    out
}

/// `multipath-path-failed`: a path of a multipath map is failed or faulty.
pub fn multipath_paths(maps: &[MultipathMap]) -> Vec<Finding> {
    let mut out = Vec::new();
    for m in maps {
        let failed: Vec<_> = m.paths.iter().filter(|p| p.failed()).collect();
        if failed.is_empty() {
            continue;
        }
        let list: Vec<String> = failed
            .iter()
            .map(|p| match &p.checker {
                Some(c) => format!("{} {} ({c})", p.device, p.state),
                None => format!("{} {}", p.device, p.state),
            })
            .collect();
        out.push(f(
            "multipath-path-failed",
            if failed.len() == m.paths.len() { Severity::Critical } else { Severity::Warning },
            &m.name,
            format!("{} of {} paths of {} ({}) are down: {}", failed.len(), m.paths.len(), m.name, m.device, list.join(", ")),
            "A failed path halves (or worse) the bandwidth and outstanding commands the map can use, and leaves no redundancy: a benchmark now measures the degraded map, and one more failure loses access.",
            "Check cabling, switch zoning and the array port for the failed path (multipathd show paths; dmesg), fix it, then confirm every path is active ready before benchmarking.".into(),
        ));
    }
    out
}

/// `fc-port-not-online` and `fc-link-errors` (non-zero counters since the
/// HBA's statistics were last reset).
pub fn fc_ports(hosts: &[FcHost]) -> Vec<Finding> {
    let mut out = Vec::new();
    for h in hosts {
        if let Some(st) = &h.port_state {
            if st != "Online" {
                out.push(f(
                    "fc-port-not-online",
                    Severity::Warning,
                    &h.host,
                    format!("{} port_state is {st}", h.host),
                    "LUNs reached through this port have lost a path; the remaining paths carry the load.",
                    format!("Check the link of {} (cable, SFP, switch port, zoning) and its port_state in /sys/class/fc_host/{}.", h.host, h.host),
                ));
            }
        }
        let nonzero: Vec<String> = h
            .counters
            .named()
            .iter()
            .filter_map(|(n, v)| v.filter(|v| *v > 0).map(|v| format!("{n} {v}")))
            .collect();
        if !nonzero.is_empty() {
            out.push(f(
                "fc-link-errors",
                Severity::Info,
                &h.host,
                format!("{}: {}", h.host, nonzero.join(", ")),
                "Link failures, loss of sync or signal and CRC errors since the counters were last reset point at a bad cable, SFP or switch port; growing counters cause retries and latency spikes.",
                format!("Note the counters, run a test and compare (iolab run reports counters that grow during a run); if they grow, replace the cable or SFP of {} or move it to another switch port.", h.host),
            ));
        }
    }
    out
}

/// `zfs-pool-not-online`, `zfs-sync-disabled` and `zfs-ashift-small`
/// (pool ashift below the vdevs' physical block size).
pub fn zfs_config(z: &ZfsInfo, devices: &[DeviceInfo]) -> Vec<Finding> {
    let mut out = Vec::new();
    for p in &z.pools {
        if p.health != "ONLINE" {
            out.push(f(
                "zfs-pool-not-online",
                Severity::Warning,
                &p.name,
                format!("pool {} is {}", p.name, p.health),
                "A degraded pool serves reads by reconstruction and may be resilvering: results measure the degraded state.",
                format!("zpool status {} shows which vdev is affected; replace or online it and let the resilver finish before benchmarking.", p.name),
            ));
        }
        if let Some(a) = p.ashift.filter(|a| *a > 0) {
            for v in &p.vdevs {
                let name = v.path.trim_start_matches("/dev/");
                let phys = devices
                    .iter()
                    .find(|d| d.name == name || d.partitions.iter().any(|q| q.name == name))
                    .and_then(|d| d.physical_block_size);
                if let Some(phys) = phys {
                    if (1u64 << a.min(63)) < phys {
                        out.push(f(
                            "zfs-ashift-small",
                            Severity::Warning,
                            &p.name,
                            format!("pool {} has ashift {a} ({} blocks) on {} with {phys}-byte physical blocks", p.name, 1u64 << a, v.path),
                            "Blocks smaller than the physical block turn every write into a read-modify-write inside the drive.",
                            format!("ashift is fixed when a vdev is added: recreate the pool (or add new vdevs) with -o ashift={}", phys.trailing_zeros()),
                        ));
                        break;
                    }
                }
            }
        }
    }
    for d in &z.datasets {
        if d.sync == "disabled" {
            out.push(f(
                "zfs-sync-disabled",
                Severity::Warning,
                &d.name,
                format!("{} has sync=disabled", d.name),
                "Synchronous writes are acknowledged before they are on stable storage: fast, and the last seconds of acknowledged writes are lost on a crash or power loss.",
                format!("zfs set sync=standard {} (and give sync writes a log device if they are slow)", d.name),
            ));
        }
    }
    out
}

/// `qdepth-oversubscribed` from this host's own LUNs: the SCSI queue
/// depths of the LUNs behind one target port add up to more than the port
/// takes. Other hosts on the same port only make it worse.
pub fn local_port_oversubscription(devices: &[DeviceInfo], port_queue: u64) -> Vec<Finding> {
    use std::collections::BTreeMap;
    let mut ports: BTreeMap<String, (u64, Vec<String>)> = BTreeMap::new();
    for d in devices {
        let (Some(addr), Some(qd)) = (&d.scsi_address, d.queue_depth) else {
            continue;
        };
        let port = addr
            .rsplit_once(':')
            .map(|x| x.0)
            .unwrap_or(addr)
            .to_string();
        let e = ports.entry(port).or_default();
        e.0 += qd;
        e.1.push(format!("{} {qd}", d.name));
    }
    let mut out = Vec::new();
    for (port, (sum, luns)) in ports {
        if sum > port_queue {
            let per = qdepth::plan(port_queue, 1, luns.len() as u64, false)
                .map(|p| p.per_lun)
                .unwrap_or(0);
            out.push(f(
                "qdepth-oversubscribed",
                Severity::Warning,
                &format!("target {port}"),
                format!("LUN queue depths behind target {port} add up to {sum} ({}), more than a {port_queue}-command port queue", luns.join(", ")),
                "When the target port's queue is full it answers QUEUE FULL/TASK SET FULL; hosts back off and throughput and latency collapse for every host on that port.",
                format!("Set each LUN's queue depth to at most {per} (iolab qdepth --port-queue {port_queue} --luns {} --hosts 1; add the other hosts on the port) in /sys/block/sdX/device/queue_depth or a udev rule.", luns.len()),
            ));
        }
    }
    out
}

// ---------------------------------------------------------------------
// Run-time findings: plain inputs, so the runner can call them.
// ---------------------------------------------------------------------

/// What a workload did, as plain values.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct WorkloadFacts {
    /// The target as the user named it.
    pub target: String,
    pub reads: bool,
    pub writes: bool,
    /// Random (not sequential) offsets.
    pub random: bool,
    /// The (largest) block size in bytes.
    pub bs: u64,
    /// O_DIRECT.
    pub direct: bool,
    /// Writes were O_SYNC/O_DSYNC or followed by fsync.
    pub sync_writes: bool,
    /// The data written is all zeros.
    pub zero_data: bool,
    /// Bytes the workload's offsets cover.
    pub working_set_bytes: u64,
    /// Every byte read was written before (prefill or earlier writes).
    pub written_before_read: bool,
    /// I/Os the workload keeps outstanding (queue depth x jobs).
    #[serde(default)]
    pub outstanding: u64,
}

/// `working-set-in-ram`: a buffered test whose working set is smaller than
/// twice RAM measures the page cache, not the device.
pub fn working_set_vs_ram(w: &WorkloadFacts, mem_total_bytes: u64) -> Option<Finding> {
    if w.direct || !w.reads || mem_total_bytes == 0 || w.working_set_bytes >= 2 * mem_total_bytes {
        return None;
    }
    Some(f(
        "working-set-in-ram",
        Severity::Warning,
        &w.target,
        format!("buffered I/O over {} with {} of RAM (less than twice RAM)", bytes(w.working_set_bytes), bytes(mem_total_bytes)),
        "The page cache can hold most or all of the working set, so reads are answered from memory and the figures describe RAM, not storage.",
        format!("Use --direct, or a working set of at least {} (twice RAM).", bytes(2 * mem_total_bytes)),
    ))
}

/// `zero-data-compressed`: zero-filled data on storage that compresses
/// (`compression` names it: btrfs compress=, a ZFS compression property,
/// zram, VDO).
pub fn zero_data_on_compressing(w: &WorkloadFacts, compression: Option<&str>) -> Option<Finding> {
    let c = compression?;
    if !w.zero_data || !(w.writes || w.reads) {
        return None;
    }
    Some(f(
        "zero-data-compressed",
        Severity::Warning,
        &w.target,
        format!("zero-filled data on compressing storage ({c})"),
        "Zeros compress to almost nothing: writes and reads move a fraction of the bytes the test reports, so throughput is overstated by the compression ratio.",
        "Write random data (the default --data random), or a compressibility that matches the application's data.".into(),
    ))
}

/// `read-unwritten-space`: reading space that was never written on thin or
/// copy-on-write storage (`thin` says why it is thin: zram, a sparse loop
/// backing file, a ZFS volume, dm-thin) returns zeros without touching the
/// media.
pub fn read_unwritten(w: &WorkloadFacts, thin: Option<&str>) -> Option<Finding> {
    let t = thin?;
    if !w.reads || w.written_before_read {
        return None;
    }
    Some(f(
        "read-unwritten-space",
        Severity::Warning,
        &w.target,
        format!("reads of space that was never written on thin or copy-on-write storage ({t})"),
        "Unallocated blocks are answered with zeros from metadata alone: no media access, so read latency and throughput are far better than real data would give.",
        "Write the whole range first (iolab's prefill does this for files; for a device run a sequential write pass), then read.".into(),
    ))
}

/// `record-size-mismatch`: the ZFS recordsize or volblocksize (`what`)
/// of `name` is far from the workload's I/O size: small random I/O into
/// large records reads and rewrites whole records; large I/O into tiny
/// records costs per-record overhead.
pub fn record_size_mismatch(
    w: &WorkloadFacts,
    what: &str,
    name: &str,
    size: u64,
) -> Option<Finding> {
    if w.bs == 0 || size == 0 {
        return None;
    }
    let (sev, seen) = if w.random && size >= 4 * w.bs {
        (
            Severity::Warning,
            format!(
                "{what} {} of {name} with random {} I/O: each I/O touches a {}x larger record",
                bytes(size),
                bytes(w.bs),
                size / w.bs
            ),
        )
    } else if w.bs >= 8 * size {
        (
            Severity::Info,
            format!(
                "{what} {} of {name} with {} I/O: each I/O spans {} records",
                bytes(size),
                bytes(w.bs),
                w.bs / size
            ),
        )
    } else {
        return None;
    };
    Some(f(
        "record-size-mismatch",
        sev,
        name,
        seen,
        "ZFS reads, checksums and (on write) rewrites whole records: random I/O smaller than the record is amplified, and I/O much larger than the record pays per-record overhead. The record or volume block size should match the application's I/O size (8 KiB OLTP, 128 KiB or 1 MiB for streams and redo).",
        if what == "volblocksize" {
            format!("volblocksize is fixed at creation: create a new volume with -o volblocksize={} and copy the data.", bytes(w.bs).replace(' ', "").replace("iB", ""))
        } else {
            format!("zfs set recordsize={} {name} (applies to files written afterwards; rewrite the test file).", bytes(w.bs.clamp(4096, 1 << 20)).replace(' ', "").replace("iB", ""))
        },
    ))
}

/// `device-queue-at-limit` (the active queue sat at the device's queue
/// limit: raise it) or `device-queue-idle` (it stayed well under: more
/// LUNs or outstanding I/O will not help). `limit` is the SCSI
/// queue_depth, else nr_requests.
pub fn queue_pressure(device: &str, rows: &[IostatRow], limit: Option<u64>) -> Option<Finding> {
    let limit = limit.filter(|l| *l > 0)? as f64;
    let busy: Vec<&IostatRow> = rows
        .iter()
        .filter(|r| r.util_pct > 0.0 || r.aqu_sz > 0.0)
        .collect();
    if busy.is_empty() {
        return None;
    }
    let pinned = busy.iter().filter(|r| r.aqu_sz >= 0.9 * limit).count();
    let mean = busy.iter().map(|r| r.aqu_sz).sum::<f64>() / busy.len() as f64;
    let peak = busy.iter().map(|r| r.aqu_sz).fold(0.0, f64::max);
    if pinned * 2 >= busy.len() {
        // The studies' steps from a limit of 10: 35, then 50.
        let next = [
            (limit as u64 * 7 / 2).max(limit as u64 + 1),
            limit as u64 * 5,
        ];
        return Some(f(
            "device-queue-at-limit",
            Severity::Warning,
            device,
            format!("aqu-sz at or above 90 % of the queue limit {limit:.0} in {pinned} of {} busy intervals (mean {mean:.1}, peak {peak:.1})", busy.len()),
            "Requests wait in the host for a free slot: the device (or array) could take more, and latency grows in the host queue rather than in storage.",
            format!("Raise the queue limit step by step (for example {} then {}) in /sys/block/{device}/device/queue_depth (SCSI) or queue/nr_requests, and re-run; stop when throughput no longer improves or the array's port queue would be oversubscribed (iolab qdepth).", next[0], next[1]),
        ));
    }
    if peak < 0.25 * limit {
        return Some(f(
            "device-queue-idle",
            Severity::Info,
            device,
            format!("aqu-sz stayed well under the queue limit {limit:.0} (mean {mean:.1}, peak {peak:.1})"),
            "The device queue is not what limits this run: more LUNs or more outstanding I/O at the device will not help; the limit is elsewhere (the workload's own queue depth, the CPU, or the device's speed).",
            "Leave the queue limit as it is; raise the workload's --qd or --jobs if the aim is more outstanding I/O.".into(),
        ));
    }
    None
}

/// `volatile-cache-no-flush`: writes to a device with a volatile write
/// cache (`write back`) and no flush reached it.
pub fn volatile_cache_no_flush(
    w: &WorkloadFacts,
    device: &str,
    write_cache: Option<&str>,
    dev: &DeviceCounts,
) -> Option<Finding> {
    if write_cache != Some("write back")
        || !w.writes
        || dev.writes == 0
        || dev.flushes > 0
        || w.sync_writes
    {
        return None;
    }
    Some(f(
        "volatile-cache-no-flush",
        Severity::Warning,
        device,
        format!("{} writes ({}) reached {device}, whose write cache is volatile (write back), and no flush did", dev.writes, bytes(dev.write_bytes)),
        "Acknowledged writes sit in a cache that loses them on power loss unless the host flushes; the figures are cache speed, which an application that syncs will not see.",
        "Measure what the application does: add --fsync-every N or --sync dsync if it syncs; trust write-back numbers only for a battery- or capacitor-backed cache.".into(),
    ))
}

/// `qdepth-oversubscribed` for planned or current settings: `hosts` x
/// `luns` x `queue_depth` (x 2 after a failover in an active/active
/// cluster) against the port's queue.
pub fn port_oversubscription(
    port: &str,
    port_queue: u64,
    hosts: u64,
    luns: u64,
    queue_depth: u64,
    cluster: bool,
) -> Option<Finding> {
    let load = hosts * luns * queue_depth * if cluster { 2 } else { 1 };
    if load <= port_queue {
        return None;
    }
    let per = qdepth::plan(port_queue, hosts.max(1), luns.max(1), cluster)
        .map(|p| p.per_lun)
        .unwrap_or(0);
    Some(f(
        "qdepth-oversubscribed",
        Severity::Warning,
        port,
        format!("{hosts} hosts x {luns} LUNs x queue depth {queue_depth}{} = {load} commands against a {port_queue}-command port queue", if cluster { " x 2 (failover)" } else { "" }),
        "When the port's queue is full it answers QUEUE FULL; every host backs off and throughput and latency collapse for all of them.",
        format!("Set each LUN's queue depth to {per} (iolab qdepth --port-queue {port_queue} --luns {luns} --hosts {hosts}{}).", if cluster { " --cluster" } else { "" }),
    ))
}

/// `fc-link-errors-growing`: FC link error counters that grew between two
/// snapshots taken before and after a run.
pub fn fc_errors_grew(before: &[FcHost], after: &[FcHost]) -> Vec<Finding> {
    let mut out = Vec::new();
    for a in after {
        let Some(b) = before.iter().find(|b| b.host == a.host) else {
            continue;
        };
        let grew: Vec<String> = a
            .counters
            .named()
            .iter()
            .zip(b.counters.named())
            .filter_map(|((n, av), (_, bv))| match (av, bv) {
                (Some(av), Some(bv)) if *av > bv => {
                    Some(format!("{n} +{} ({bv} -> {av})", av - bv))
                }
                _ => None,
            })
            .collect();
        if !grew.is_empty() {
            out.push(f(
                "fc-link-errors-growing",
                Severity::Warning,
                &a.host,
                format!("during the run on {}: {}", a.host, grew.join(", ")),
                "Errors that grow under load mean frames are being lost and retried: latency spikes and lower throughput come from the link, not the storage.",
                format!("Replace the cable or SFP of {} or move it to another switch port, check the switch port's error counters, and re-run.", a.host),
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w() -> WorkloadFacts {
        WorkloadFacts {
            target: "/t".into(),
            reads: true,
            bs: 8192,
            random: true,
            ..Default::default()
        }
    }

    /// One finding of every kind that takes plain inputs.
    fn every_finding() -> Vec<Finding> {
        let wr = WorkloadFacts {
            writes: true,
            zero_data: true,
            ..w()
        };
        let c = DeviceCounts {
            writes: 10,
            write_bytes: 40960,
            ..Default::default()
        };
        let seq = WorkloadFacts {
            random: false,
            bs: 1 << 20,
            ..w()
        };
        let mut v: Vec<Finding> = [
            working_set_vs_ram(&w(), 1 << 30),
            zero_data_on_compressing(&wr, Some("zstd")),
            read_unwritten(&w(), Some("zram")),
            record_size_mismatch(&w(), "recordsize", "tank/db", 128 << 10),
            record_size_mismatch(&w(), "volblocksize", "tank/vol", 128 << 10),
            record_size_mismatch(&seq, "recordsize", "t", 8192),
            queue_pressure("sdb", &[row(9.8), row(10.0)], Some(10)),
            queue_pressure("sdb", &[row(1.0)], Some(32)),
            volatile_cache_no_flush(&wr, "sdb", Some("write back"), &c),
            port_oversubscription("p", 2048, 2, 4, 256, true),
        ]
        .into_iter()
        .flatten()
        .collect();
        let z = ZfsInfo {
            pools: vec![crate::zfs::Pool {
                name: "tank".into(),
                health: "DEGRADED".into(),
                ..Default::default()
            }],
            datasets: vec![crate::zfs::Dataset {
                name: "tank/db".into(),
                sync: "disabled".into(),
                ..Default::default()
            }],
            ..Default::default()
        };
        v.extend(zfs_config(&z, &[]));
        v
    }

    #[test]
    fn advice_sentences_do_not_run_together() {
        let all = every_finding();
        assert!(all.len() >= 12, "{}", all.len());
        for f in &all {
            let t = f.text();
            // Each part ends as a sentence before the next one starts.
            for part in [&f.seen, &f.why, &f.fix] {
                let p = part.trim();
                let at = t.find(p).unwrap_or_else(|| panic!("{p:?} not in {t:?}"));
                let rest = &t[at + p.len()..];
                assert!(
                    p.ends_with(['.', '!', '?']) || rest.starts_with('.'),
                    "{}: a sentence runs on after {p:?} in {t:?}",
                    f.code
                );
            }
            assert!(t.ends_with('.'), "{t}");
            assert!(!t.contains("  ") && !t.contains(".."), "{t}");
            assert!(t.contains(". Fix: "), "{t}");
        }
        let v = all
            .iter()
            .find(|f| f.code == "volatile-cache-no-flush")
            .unwrap();
        assert!(
            v.text().contains("no flush did. Acknowledged"),
            "{}",
            v.text()
        );
    }

    #[test]
    fn working_set() {
        assert!(working_set_vs_ram(
            &WorkloadFacts {
                working_set_bytes: 1 << 30,
                ..w()
            },
            1 << 30
        )
        .is_some());
        assert!(working_set_vs_ram(
            &WorkloadFacts {
                working_set_bytes: 2 << 30,
                ..w()
            },
            1 << 30
        )
        .is_none());
        assert!(working_set_vs_ram(
            &WorkloadFacts {
                working_set_bytes: 1 << 20,
                direct: true,
                ..w()
            },
            1 << 30
        )
        .is_none());
    }

    #[test]
    fn record_size() {
        let r = record_size_mismatch(&w(), "recordsize", "tank/db", 128 << 10).unwrap();
        assert_eq!(r.severity, Severity::Warning);
        assert!(r.fix.contains("recordsize=8K"), "{}", r.fix);
        assert!(record_size_mismatch(&w(), "recordsize", "tank/db", 16 << 10).is_none());
        let seq = WorkloadFacts {
            random: false,
            bs: 1 << 20,
            ..w()
        };
        assert_eq!(
            record_size_mismatch(&seq, "recordsize", "t", 8192)
                .unwrap()
                .severity,
            Severity::Info
        );
    }

    fn row(aqu: f64) -> IostatRow {
        IostatRow {
            aqu_sz: aqu,
            util_pct: 100.0,
            ..Default::default()
        }
    }

    #[test]
    fn queue() {
        let pinned = [row(9.8), row(10.0), row(4.0)];
        assert_eq!(
            queue_pressure("sdb", &pinned, Some(10)).unwrap().code,
            "device-queue-at-limit"
        );
        assert_eq!(
            queue_pressure("sdb", &[row(1.0), row(2.0)], Some(32))
                .unwrap()
                .code,
            "device-queue-idle"
        );
        assert!(queue_pressure("sdb", &[row(16.0)], Some(32)).is_none());
        assert!(queue_pressure("sdb", &[IostatRow::default()], Some(32)).is_none());
        assert!(queue_pressure("sdb", &pinned, None).is_none());
    }

    #[test]
    fn oversubscription() {
        assert!(port_oversubscription("p", 2048, 2, 4, 128, true).is_none());
        let o = port_oversubscription("p", 2048, 2, 4, 256, true).unwrap();
        assert!(o.fix.contains("to 128"), "{}", o.fix);
    }

    #[test]
    fn cache_and_zero_and_thin() {
        let wr = WorkloadFacts {
            writes: true,
            reads: false,
            ..w()
        };
        let c = DeviceCounts {
            writes: 10,
            write_bytes: 40960,
            ..Default::default()
        };
        assert!(volatile_cache_no_flush(&wr, "sdb", Some("write back"), &c).is_some());
        assert!(volatile_cache_no_flush(&wr, "sdb", Some("write through"), &c).is_none());
        assert!(volatile_cache_no_flush(
            &wr,
            "sdb",
            Some("write back"),
            &DeviceCounts { flushes: 1, ..c }
        )
        .is_none());
        assert!(zero_data_on_compressing(
            &WorkloadFacts {
                zero_data: true,
                ..wr.clone()
            },
            Some("zstd")
        )
        .is_some());
        assert!(zero_data_on_compressing(&wr, Some("zstd")).is_none());
        assert!(read_unwritten(&w(), Some("zram")).is_some());
        assert!(read_unwritten(
            &WorkloadFacts {
                written_before_read: true,
                ..w()
            },
            Some("zram")
        )
        .is_none());
    }
}
