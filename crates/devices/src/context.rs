//! Everything the run-time advice needs to know about one target, gathered
//! once before a run: its devices (with their queue limits and write
//! cache), whether the storage compresses or is thin, the ZFS record or
//! volume block size, RAM and the FC counters. After the run,
//! [`run_findings`] turns it, the workload and the device rows into advice.

use crate::blockdev::{BlockIndex, Kind};
use crate::cmd::CommandRunner;
use crate::discover::{discover, Discovery, Node, NodeKind};
use crate::diskstats::{DeviceCounts, DeviceRow, IostatRow};
use crate::findings::{self, Finding, WorkloadFacts};
use crate::inventory::{fc_hosts, FcHost};
use crate::mountinfo;
use crate::sysroot::Sysroot;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DeviceLimits {
    pub device: String,
    /// SCSI queue_depth, else queue/nr_requests.
    pub queue_limit: Option<u64>,
    pub write_cache: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TargetContext {
    pub discovery: Discovery,
    /// The file system the target is on, if it is a file.
    pub fstype: Option<String>,
    /// Why the storage compresses (`btrfs compress=zstd:3`, `zram lzo-rle`,
    /// `zfs compression=lz4`), if it does.
    pub compression: Option<String>,
    /// Why never-written space reads without touching media, if it does.
    pub thin: Option<String>,
    /// (`recordsize` or `volblocksize`, dataset, bytes) for ZFS targets.
    pub zfs_block: Option<(String, String, u64)>,
    pub devices: Vec<DeviceLimits>,
    pub mem_total_bytes: Option<u64>,
    /// FC counters when the context was taken (the "before" snapshot).
    pub fc_hosts: Vec<FcHost>,
}

fn walk<'a>(n: &'a Node, out: &mut Vec<&'a Node>) {
    out.push(n);
    for c in &n.children {
        walk(c, out);
    }
}

/// MemTotal from /proc/meminfo, in bytes.
pub fn mem_total(root: &Sysroot) -> Option<u64> {
    let t = root.read("/proc/meminfo")?;
    let l = t.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kb: u64 = l.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

fn sparse_file(root: &Sysroot, path: &str) -> bool {
    use std::os::unix::fs::MetadataExt;
    if !root.is_live() {
        return false;
    }
    match std::fs::metadata(path) {
        Ok(m) => m.is_file() && m.blocks() * 512 < m.size(),
        Err(_) => false,
    }
}

/// Gather the context of `target` (see the module comment).
pub fn target_context(root: &Sysroot, runner: &dyn CommandRunner, target: &str) -> TargetContext {
    let d = discover(root, runner, target);
    let ix = BlockIndex::read(root);
    let mounts = mountinfo::parse(&root.read("/proc/self/mountinfo").unwrap_or_default());
    let mut nodes = Vec::new();
    walk(&d.tree, &mut nodes);
    let mut ctx = TargetContext {
        fstype: None,
        compression: None,
        thin: None,
        zfs_block: None,
        devices: Vec::new(),
        mem_total_bytes: mem_total(root),
        fc_hosts: fc_hosts(root),
        discovery: d.clone(),
    };
    let mut zfs_ds: Option<String> = None;
    for n in &nodes {
        match n.kind {
            NodeKind::Mount => {
                let Some(m) = mounts.iter().rev().find(|m| m.mount_point == n.name) else {
                    continue;
                };
                if ctx.fstype.is_none() {
                    ctx.fstype = Some(m.fstype.clone());
                }
                if m.fstype == "btrfs" {
                    for o in ["compress-force", "compress"] {
                        if let Some(v) = m.option(o) {
                            ctx.compression.get_or_insert(format!("btrfs {o}={v}"));
                        }
                    }
                    ctx.thin.get_or_insert(
                        "btrfs: copy-on-write, unwritten file ranges are holes".into(),
                    );
                }
                if m.fstype == "zfs" {
                    zfs_ds.get_or_insert(m.source.clone());
                    ctx.thin.get_or_insert(
                        "ZFS: copy-on-write, unwritten file ranges are holes".into(),
                    );
                }
            }
            NodeKind::File if sparse_file(root, &n.name) => {
                ctx.thin
                    .get_or_insert(format!("{} is sparse (holes read as zeros)", n.name));
            }
            NodeKind::BackingFile if sparse_file(root, &n.name) => {
                ctx.thin
                    .get_or_insert(format!("loop backing file {} is sparse", n.name));
            }
            NodeKind::Block => match n.device_kind {
                Some(Kind::Zram) => {
                    let alg = root
                        .read(&format!("/sys/block/{}/comp_algorithm", n.name))
                        .and_then(|a| crate::inventory::active_choice(&a));
                    let what = match alg {
                        Some(a) => format!("zram {} ({a})", n.name),
                        None => format!("zram {}", n.name),
                    };
                    ctx.compression.get_or_insert(what.clone());
                    ctx.thin
                        .get_or_insert(format!("{what}: unwritten pages are not stored"));
                }
                Some(Kind::Zvol) => {
                    ctx.thin.get_or_insert(format!("ZFS volume {}", n.name));
                }
                Some(Kind::Dm) => {
                    let dm = n.detail.clone();
                    if let Ok(t) = runner.run("dmsetup", &["table", &dm]) {
                        if t.split_whitespace().any(|w| w == "thin") {
                            ctx.thin.get_or_insert(format!("dm-thin volume {dm}"));
                        }
                        if t.split_whitespace().any(|w| w == "vdo") {
                            ctx.compression.get_or_insert(format!("VDO volume {dm}"));
                        }
                    }
                }
                _ => {}
            },
            _ => {}
        }
    }
    // ZFS: properties of the dataset (file) or volume (zdN) under the target.
    let zvol = nodes
        .iter()
        .find(|n| n.device_kind == Some(Kind::Zvol))
        .map(|n| n.name.clone());
    if zfs_ds.is_some() || zvol.is_some() {
        let mut notes = Vec::new();
        if let Some(z) = crate::zfs::read(root, runner, &mut notes) {
            for ds in &z.datasets {
                let hit = if zfs_ds.as_deref() == Some(&ds.name) {
                    ds.recordsize.map(|r| ("recordsize", r))
                } else if ds.kind == "volume"
                    && zvol.is_some()
                    && ix.resolve(root, &format!("/dev/zvol/{}", ds.name)) == zvol
                {
                    ds.volblocksize.map(|r| ("volblocksize", r))
                } else {
                    None
                };
                if let Some((what, size)) = hit {
                    ctx.zfs_block = Some((what.into(), ds.name.clone(), size));
                    if ds.compression != "off" && !ds.compression.is_empty() {
                        ctx.compression
                            .get_or_insert(format!("zfs compression={}", ds.compression));
                    }
                }
            }
        }
    }
    for dev in d.sample_set() {
        let whole = ix.parent.get(&dev).cloned().unwrap_or(dev.clone());
        let wdir = format!("/sys/block/{whole}");
        ctx.devices.push(DeviceLimits {
            queue_limit: root
                .read_u64(&format!("{wdir}/device/queue_depth"))
                .or_else(|| root.read_u64(&format!("{wdir}/queue/nr_requests"))),
            write_cache: root.read(&format!("{wdir}/queue/write_cache")),
            device: dev,
        });
    }
    ctx
}

/// Whether `device-queue-idle` is worth saying for this workload (see
/// [`run_findings`]).
fn idle_queue_tells(w: &WorkloadFacts, limit: Option<u64>) -> bool {
    w.direct && limit.is_some_and(|l| w.outstanding.saturating_mul(4) >= l)
}

/// The advice that applies to one finished run on this target. `rows` are
/// the per-interval device rows of the run, `summary` the whole-run rows,
/// `fc_after` a fresh [`fc_hosts`] snapshot taken at the end.
pub fn run_findings(
    ctx: &TargetContext,
    w: &WorkloadFacts,
    rows: &[DeviceRow],
    summary: &[DeviceRow],
    fc_after: &[FcHost],
) -> Vec<Finding> {
    let mut out = Vec::new();
    if let Some(mem) = ctx.mem_total_bytes {
        out.extend(findings::working_set_vs_ram(w, mem));
    }
    out.extend(findings::zero_data_on_compressing(
        w,
        ctx.compression.as_deref(),
    ));
    out.extend(findings::read_unwritten(w, ctx.thin.as_deref()));
    if let Some((what, name, size)) = &ctx.zfs_block {
        out.extend(findings::record_size_mismatch(w, what, name, *size));
    }
    // An idle device queue is said once per target, for the device nearest
    // to it, and only when it tells something: the I/O went to the device
    // directly (buffered I/O reaches it by write-back, on the kernel's
    // schedule) and the workload kept enough I/Os outstanding to fill a
    // quarter of the queue (otherwise its own --qd explains the idle queue).
    let mut idle_said = false;
    for d in &ctx.devices {
        let mine: Vec<IostatRow> = rows
            .iter()
            .filter(|r| r.device == d.device)
            .map(|r| r.stats.clone())
            .collect();
        if let Some(q) = findings::queue_pressure(&d.device, &mine, d.queue_limit) {
            if q.code != "device-queue-idle" {
                out.push(q);
            } else if !idle_said && idle_queue_tells(w, d.queue_limit) {
                idle_said = true;
                out.push(q);
            }
        }
        let counts = summary
            .iter()
            .find(|r| r.device == d.device)
            .map(|r| r.stats.counts)
            .unwrap_or(DeviceCounts::default());
        out.extend(findings::volatile_cache_no_flush(
            w,
            &d.device,
            d.write_cache.as_deref(),
            &counts,
        ));
    }
    out.extend(findings::fc_errors_grew(&ctx.fc_hosts, fc_after));
    findings::sort(&mut out);
    out
}
