//! What `iolab doctor` reports about each device, read from sysfs: model,
//! size, block sizes, queue settings, write cache, discard, partitions and
//! their alignment, mounts, holders and slaves, NVMe controller and
//! namespace, multipath maps with path states, FC HBA ports.

use crate::blockdev::{BlockIndex, Kind};
use crate::cmd::CommandRunner;
use crate::mountinfo::Mount;
use crate::sysroot::Sysroot;
use serde::{Deserialize, Serialize};

const MIB: u64 = 1 << 20;

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DeviceInfo {
    pub name: String,
    pub kind: Option<Kind>,
    pub vendor: Option<String>,
    pub model: Option<String>,
    pub serial: Option<String>,
    pub firmware: Option<String>,
    pub size_bytes: Option<u64>,
    pub logical_block_size: Option<u64>,
    pub physical_block_size: Option<u64>,
    pub minimum_io_size: Option<u64>,
    pub optimal_io_size: Option<u64>,
    pub rotational: Option<bool>,
    /// The active I/O scheduler (the bracketed one in queue/scheduler).
    pub scheduler: Option<String>,
    pub schedulers_available: Vec<String>,
    pub nr_requests: Option<u64>,
    /// SCSI devices only: device/queue_depth.
    pub queue_depth: Option<u64>,
    pub max_sectors_kb: Option<u64>,
    pub max_hw_sectors_kb: Option<u64>,
    pub read_ahead_kb: Option<u64>,
    /// `write back` (volatile cache) or `write through`.
    pub write_cache: Option<String>,
    pub fua: Option<bool>,
    pub discard: Option<Discard>,
    /// SCSI `host:channel:target:lun`.
    pub scsi_address: Option<String>,
    /// SCSI device/state (`running`, `offline`, ...).
    pub scsi_state: Option<String>,
    pub partitions: Vec<Partition>,
    pub mounts: Vec<MountRef>,
    pub holders: Vec<String>,
    pub slaves: Vec<String>,
    pub loop_backing_file: Option<String>,
    pub dm_name: Option<String>,
    pub dm_uuid: Option<String>,
    pub nvme: Option<Nvme>,
    pub notes: Vec<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Discard {
    pub supported: bool,
    pub granularity_bytes: Option<u64>,
    pub max_bytes: Option<u64>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Partition {
    pub name: String,
    pub number: Option<u64>,
    /// First sector, in 512-byte units (sysfs `start`).
    pub start_sector: u64,
    pub size_bytes: Option<u64>,
    /// Start is a multiple of the physical block size.
    pub aligned_physical: bool,
    /// Start is a multiple of the optimal I/O size (null when the device
    /// reports none).
    pub aligned_optimal_io: Option<bool>,
    /// Start is a multiple of 1 MiB (sector 2048).
    pub aligned_1mib: bool,
    pub holders: Vec<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct MountRef {
    /// The disk or partition mounted.
    pub device: String,
    pub mount_point: String,
    pub fstype: String,
    pub options: String,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Nvme {
    pub controller: Option<String>,
    pub model: Option<String>,
    pub serial: Option<String>,
    pub firmware: Option<String>,
    pub transport: Option<String>,
    pub state: Option<String>,
    pub nsid: Option<u64>,
    pub wwid: Option<String>,
    /// Hardware queues the block layer uses for this namespace.
    pub hw_queues: Option<u64>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct MultipathMap {
    /// The map's name (`mpatha`).
    pub name: String,
    /// Its dm device (`dm-0`).
    pub device: String,
    pub uuid: String,
    pub paths: Vec<MultipathPath>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct MultipathPath {
    pub device: String,
    /// `active`/`failed` (multipathd's dm_st), else the SCSI device state.
    pub state: String,
    /// multipathd's path checker state (`ready`, `faulty`, ...).
    pub checker: Option<String>,
    /// `multipathd` or `sysfs`: where the state came from.
    pub source: String,
}

impl MultipathPath {
    pub fn failed(&self) -> bool {
        let bad = [
            "failed",
            "faulty",
            "offline",
            "shaky",
            "transport-offline",
            "blocked",
        ];
        bad.contains(&self.state.as_str())
            || self.checker.as_deref().is_some_and(|c| bad.contains(&c))
    }
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct FcHost {
    pub host: String,
    pub port_name: Option<String>,
    pub node_name: Option<String>,
    pub port_state: Option<String>,
    pub speed: Option<String>,
    pub supported_speeds: Option<String>,
    pub counters: FcCounters,
}

/// Link error counters from fc_host statistics; `None` when missing or
/// reported as unsupported (all ones).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FcCounters {
    pub link_failure_count: Option<u64>,
    pub loss_of_sync_count: Option<u64>,
    pub loss_of_signal_count: Option<u64>,
    pub invalid_crc_count: Option<u64>,
}

impl FcCounters {
    pub fn named(&self) -> [(&'static str, Option<u64>); 4] {
        [
            ("link_failure_count", self.link_failure_count),
            ("loss_of_sync_count", self.loss_of_sync_count),
            ("loss_of_signal_count", self.loss_of_signal_count),
            ("invalid_crc_count", self.invalid_crc_count),
        ]
    }
}

/// The bracketed choice of a sysfs list such as queue/scheduler or zram's
/// comp_algorithm (`lzo [lz4] zstd` -> `lz4`); a single word is the choice.
pub fn active_choice(s: &str) -> Option<String> {
    parse_scheduler(s).0
}

fn parse_scheduler(s: &str) -> (Option<String>, Vec<String>) {
    let mut active = None;
    let mut all = Vec::new();
    for w in s.split_whitespace() {
        if let Some(a) = w.strip_prefix('[').and_then(|w| w.strip_suffix(']')) {
            active = Some(a.to_string());
            all.push(a.to_string());
        } else {
            all.push(w.to_string());
        }
    }
    if active.is_none() && all.len() == 1 {
        active = all.first().cloned();
    }
    (active, all)
}

/// Read everything about one whole disk (or dm, md, loop ... device).
pub fn device_info(root: &Sysroot, ix: &BlockIndex, mounts: &[Mount], name: &str) -> DeviceInfo {
    let dir = format!("/sys/block/{name}");
    let q = |a: &str| root.read_u64(&format!("{dir}/queue/{a}"));
    let mut d = DeviceInfo {
        name: name.to_string(),
        kind: Some(ix.kind(root, name)),
        ..Default::default()
    };
    let mut missing = Vec::new();
    d.size_bytes = root.read_u64(&format!("{dir}/size")).map(|s| s * 512);
    if d.size_bytes.is_none() {
        missing.push("size".to_string());
    }
    let mut need = |v: Option<u64>, a: &str| {
        if v.is_none() {
            missing.push(format!("queue/{a}"));
        }
        v
    };
    d.logical_block_size = need(q("logical_block_size"), "logical_block_size");
    d.physical_block_size = need(q("physical_block_size"), "physical_block_size");
    d.minimum_io_size = need(q("minimum_io_size"), "minimum_io_size");
    d.optimal_io_size = need(q("optimal_io_size"), "optimal_io_size");
    d.rotational = need(q("rotational"), "rotational").map(|v| v != 0);
    d.nr_requests = need(q("nr_requests"), "nr_requests");
    d.max_sectors_kb = need(q("max_sectors_kb"), "max_sectors_kb");
    d.max_hw_sectors_kb = q("max_hw_sectors_kb");
    d.read_ahead_kb = need(q("read_ahead_kb"), "read_ahead_kb");
    d.fua = q("fua").map(|v| v != 0);
    match root.read(&format!("{dir}/queue/scheduler")) {
        Some(s) => (d.scheduler, d.schedulers_available) = parse_scheduler(&s),
        None => missing.push("queue/scheduler".into()),
    }
    d.write_cache = root.read(&format!("{dir}/queue/write_cache"));
    if d.write_cache.is_none() {
        missing.push("queue/write_cache".into());
    }
    let dmax = q("discard_max_bytes");
    if dmax.is_some() {
        d.discard = Some(Discard {
            supported: dmax.unwrap_or(0) > 0,
            granularity_bytes: q("discard_granularity"),
            max_bytes: dmax,
        });
    } else {
        missing.push("queue/discard_max_bytes".into());
    }

    // SCSI and other device attributes.
    let dev = format!("{dir}/device");
    let clean = |s: Option<String>| s.map(|v| v.trim().to_string()).filter(|v| !v.is_empty());
    d.vendor = clean(root.read(&format!("{dev}/vendor")));
    d.model = clean(root.read(&format!("{dev}/model")));
    d.firmware = clean(root.read(&format!("{dev}/rev")));
    d.serial = clean(root.read(&format!("{dir}/serial")));
    if let Some(addr) = root.list(&format!("{dev}/scsi_device")).into_iter().next() {
        d.scsi_address = Some(addr);
        d.queue_depth = root.read_u64(&format!("{dev}/queue_depth"));
        if d.queue_depth.is_none() {
            missing.push("device/queue_depth".into());
        }
        d.scsi_state = root.read(&format!("{dev}/state"));
    }
    if d.kind == Some(Kind::Nvme) {
        d.nvme = Some(nvme_info(root, name, &mut d.notes));
        if let Some(n) = &d.nvme {
            d.model = n.model.clone().or(d.model.take());
            d.serial = n.serial.clone().or(d.serial.take());
            d.firmware = n.firmware.clone().or(d.firmware.take());
        }
    }
    if let Some(b) = root.read(&format!("{dir}/loop/backing_file")) {
        d.loop_backing_file = Some(b);
    }
    d.dm_name = root.read(&format!("{dir}/dm/name"));
    d.dm_uuid = root
        .read(&format!("{dir}/dm/uuid"))
        .filter(|u| !u.is_empty());
    d.holders = root.list(&format!("{dir}/holders"));
    d.slaves = root.list(&format!("{dir}/slaves"));

    let phys = d.physical_block_size.unwrap_or(512).max(512);
    let opt = d.optimal_io_size.unwrap_or(0);
    for p in ix
        .parent
        .iter()
        .filter(|(_, disk)| *disk == name)
        .map(|(p, _)| p)
    {
        let pdir = format!("{dir}/{p}");
        let Some(start) = root.read_u64(&format!("{pdir}/start")) else {
            d.notes.push(format!("{pdir}/start is not readable"));
            continue;
        };
        let bytes = start * 512;
        d.partitions.push(Partition {
            name: p.clone(),
            number: root.read_u64(&format!("{pdir}/partition")),
            start_sector: start,
            size_bytes: root.read_u64(&format!("{pdir}/size")).map(|s| s * 512),
            aligned_physical: bytes % phys == 0,
            aligned_optimal_io: (opt > 0).then(|| bytes % opt == 0),
            aligned_1mib: bytes % MIB == 0,
            holders: root.list(&format!("{pdir}/holders")),
        });
    }
    d.partitions.sort_by(|a, b| {
        a.start_sector
            .cmp(&b.start_sector)
            .then(a.name.cmp(&b.name))
    });

    for m in mounts {
        let on = if !m.dev.starts_with("0:") {
            ix.by_devno.get(&m.dev).cloned()
        } else if m.source.starts_with("/dev/") {
            ix.resolve(root, &m.source)
        } else {
            None
        };
        if let Some(on) = on {
            if on == name || d.partitions.iter().any(|p| p.name == on) {
                d.mounts.push(MountRef {
                    device: on,
                    mount_point: m.mount_point.clone(),
                    fstype: m.fstype.clone(),
                    options: m.options.clone(),
                });
            }
        }
    }
    if !missing.is_empty() {
        d.notes
            .push(format!("not readable under {dir}: {}", missing.join(", ")));
    }
    d
}

fn nvme_info(root: &Sysroot, name: &str, notes: &mut Vec<String>) -> Nvme {
    let dir = format!("/sys/block/{name}");
    let ctrl = format!("{dir}/device");
    let mut n = Nvme {
        nsid: root.read_u64(&format!("{dir}/nsid")),
        wwid: root.read(&format!("{dir}/wwid")),
        hw_queues: {
            let q = root.list(&format!("{dir}/mq"));
            (!q.is_empty()).then_some(q.len() as u64)
        },
        ..Default::default()
    };
    if !root.exists(&ctrl) {
        notes.push(format!("{ctrl} is missing: NVMe controller not reported"));
        return n;
    }
    // The controller's name is the last part of the link target
    // (.../nvme/nvme0), or, in a fixture tree, the `name` file.
    n.controller = root
        .read_link(&ctrl)
        .and_then(|l| l.file_name().map(|f| f.to_string_lossy().into_owned()))
        .or_else(|| root.read(&format!("{ctrl}/name")));
    let r = |a: &str| {
        root.read(&format!("{ctrl}/{a}"))
            .map(|v| v.trim().to_string())
            .filter(|v| !v.is_empty())
    };
    n.model = r("model");
    n.serial = r("serial");
    n.firmware = r("firmware_rev");
    n.transport = r("transport");
    n.state = r("state");
    n
}

/// Multipath maps (dm devices whose uuid starts with `mpath-`) with each
/// path's state: from `multipathd show paths` when it answers, else from
/// the SCSI device state in sysfs.
pub fn multipath_maps(
    root: &Sysroot,
    ix: &BlockIndex,
    runner: &dyn CommandRunner,
    notes: &mut Vec<String>,
) -> Vec<MultipathMap> {
    let mut maps = Vec::new();
    for d in &ix.disks {
        if ix.kind(root, d) != Kind::Multipath {
            continue;
        }
        let dir = format!("/sys/block/{d}");
        maps.push(MultipathMap {
            name: root.read(&format!("{dir}/dm/name")).unwrap_or_default(),
            device: d.clone(),
            uuid: root.read(&format!("{dir}/dm/uuid")).unwrap_or_default(),
            paths: root
                .list(&format!("{dir}/slaves"))
                .into_iter()
                .map(|s| MultipathPath {
                    device: s,
                    ..Default::default()
                })
                .collect(),
        });
    }
    if maps.is_empty() {
        return maps;
    }
    let table = match runner.run("multipathd", &["show", "paths"]) {
        Ok(t) => Some(parse_multipathd_paths(&t)),
        Err(e) => {
            notes.push(format!(
                "multipathd did not answer ({e}); path states are the SCSI device states from sysfs"
            ));
            None
        }
    };
    for m in &mut maps {
        for p in &mut m.paths {
            let row = table
                .as_ref()
                .and_then(|t| t.iter().find(|r| r.0 == p.device));
            match row {
                Some((_, dm_st, chk_st)) => {
                    p.state = dm_st.clone();
                    p.checker = Some(chk_st.clone()).filter(|c| !c.is_empty());
                    p.source = "multipathd".into();
                }
                None => {
                    p.state = root
                        .read(&format!("/sys/block/{}/device/state", p.device))
                        .unwrap_or_else(|| "unknown".into());
                    p.source = "sysfs".into();
                }
            }
        }
    }
    maps
}

/// (device, dm_st, chk_st) rows of `multipathd show paths`, found by the
/// header's column names.
pub fn parse_multipathd_paths(text: &str) -> Vec<(String, String, String)> {
    let mut lines = text.lines().filter(|l| !l.trim().is_empty());
    let Some(header) = lines.next() else {
        return Vec::new();
    };
    let cols: Vec<&str> = header.split_whitespace().collect();
    let at = |n: &str| cols.iter().position(|c| *c == n);
    let (Some(dev), dm, chk) = (at("dev"), at("dm_st"), at("chk_st")) else {
        return Vec::new();
    };
    lines
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            let get = |i: Option<usize>| i.and_then(|i| f.get(i)).unwrap_or(&"").to_string();
            Some((f.get(dev)?.to_string(), get(dm), get(chk)))
        })
        .collect()
}

/// FC HBA ports from /sys/class/fc_host.
pub fn fc_hosts(root: &Sysroot) -> Vec<FcHost> {
    root.list("/sys/class/fc_host")
        .into_iter()
        .map(|h| {
            let dir = format!("/sys/class/fc_host/{h}");
            let c = |n: &str| {
                root.read_u64(&format!("{dir}/statistics/{n}"))
                    .filter(|v| *v != u64::MAX && *v != u32::MAX as u64)
            };
            FcHost {
                port_name: root.read(&format!("{dir}/port_name")),
                node_name: root.read(&format!("{dir}/node_name")),
                port_state: root.read(&format!("{dir}/port_state")),
                speed: root.read(&format!("{dir}/speed")),
                supported_speeds: root.read(&format!("{dir}/supported_speeds")),
                counters: FcCounters {
                    link_failure_count: c("link_failure_count"),
                    loss_of_sync_count: c("loss_of_sync_count"),
                    loss_of_signal_count: c("loss_of_signal_count"),
                    invalid_crc_count: c("invalid_crc_count"),
                },
                host: h,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scheduler() {
        assert_eq!(
            parse_scheduler("none [mq-deadline] kyber"),
            (
                Some("mq-deadline".into()),
                vec!["none".into(), "mq-deadline".into(), "kyber".into()]
            )
        );
        assert_eq!(parse_scheduler("none").0.as_deref(), Some("none"));
    }

    #[test]
    fn multipathd_columns() {
        let t = "hcil    dev dev_t pri dm_st  chk_st dev_st  next_check\n\
                 1:0:0:1 sdb 8:16  50  active ready  running XX........ 4/20\n\
                 2:0:0:1 sdc 8:32  10  failed faulty running orphan\n";
        let r = parse_multipathd_paths(t);
        assert_eq!(r[1], ("sdc".into(), "failed".into(), "faulty".into()));
    }
}
