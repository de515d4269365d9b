//! `iolab doctor`: the report (a versioned document, docs/doctor.md) and
//! its text rendering. Read-only; whatever cannot be read becomes a note.

use crate::blockdev::{BlockIndex, Kind};
use crate::cmd::CommandRunner;
use crate::context::mem_total;
use crate::discover::{discover, Discovery};
use crate::findings::{self, Finding};
use crate::inventory::{self, DeviceInfo, FcHost, MultipathMap};
use crate::mountinfo;
use crate::sysroot::Sysroot;
use crate::units::bytes;
use crate::zfs::{self, ZfsInfo};
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;

/// Version of the doctor document; bumped when a field changes meaning or
/// goes away (new fields may appear without a bump).
pub const DOCTOR_SCHEMA_VERSION: u32 = 1;

/// The port queue assumed when checking this host's own LUN queue depths
/// against a target port (studies section 7: a target port takes 2048).
pub const DEFAULT_PORT_QUEUE: u64 = 2048;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DoctorReport {
    pub schema_version: u32,
    pub tool: String,
    pub tool_version: String,
    pub sysroot: String,
    pub memory_bytes: Option<u64>,
    /// One entry per target named, with the devices found under it.
    pub targets: Vec<Discovery>,
    pub devices: Vec<DeviceInfo>,
    pub multipath: Vec<MultipathMap>,
    pub fc_hosts: Vec<FcHost>,
    pub zfs: Option<ZfsInfo>,
    pub findings: Vec<Finding>,
    pub notes: Vec<String>,
}

/// Build the report for `targets` (all devices when empty).
pub fn doctor(root: &Sysroot, runner: &dyn CommandRunner, targets: &[String]) -> DoctorReport {
    let mut notes = Vec::new();
    let ix = BlockIndex::read(root);
    if ix.disks.is_empty() {
        notes.push(format!(
            "{} lists no block devices",
            root.path("/sys/block").display()
        ));
    }
    let mounts = mountinfo::parse(&root.read("/proc/self/mountinfo").unwrap_or_default());
    let discoveries: Vec<Discovery> = targets.iter().map(|t| discover(root, runner, t)).collect();

    let mut names: Vec<String> = Vec::new();
    if targets.is_empty() {
        let mut skipped = Vec::new();
        for d in &ix.disks {
            let size = root.read_u64(&format!("/sys/block/{d}/size")).unwrap_or(0);
            let k = ix.kind(root, d);
            if size == 0 && matches!(k, Kind::Loop | Kind::Zram) || d.starts_with("ram") {
                skipped.push(d.clone());
            } else {
                names.push(d.clone());
            }
        }
        if !skipped.is_empty() {
            notes.push(format!(
                "not shown (unused, size 0, or RAM disks): {}",
                skipped.join(", ")
            ));
        }
    } else {
        for d in &discoveries {
            for n in &d.devices {
                if !names.contains(n) {
                    names.push(n.clone());
                }
            }
        }
    }
    let devices: Vec<DeviceInfo> = names
        .iter()
        .map(|n| inventory::device_info(root, &ix, &mounts, n))
        .collect();
    let multipath = inventory::multipath_maps(root, &ix, runner, &mut notes)
        .into_iter()
        .filter(|m| targets.is_empty() || names.contains(&m.device))
        .collect::<Vec<_>>();
    let fc_hosts = inventory::fc_hosts(root);
    let zfs = zfs::read(root, runner, &mut notes);
    let mut fs = Vec::new();
    for d in &devices {
        fs.extend(findings::partition_alignment(d));
    }
    fs.extend(findings::multipath_paths(&multipath));
    fs.extend(findings::fc_ports(&fc_hosts));
    fs.extend(findings::local_port_oversubscription(
        &devices,
        DEFAULT_PORT_QUEUE,
    ));
    if let Some(z) = &zfs {
        fs.extend(findings::zfs_config(z, &devices));
    }
    findings::sort(&mut fs);
    DoctorReport {
        schema_version: DOCTOR_SCHEMA_VERSION,
        tool: "iolab".into(),
        tool_version: env!("CARGO_PKG_VERSION").into(),
        sysroot: root.root().to_string_lossy().into_owned(),
        memory_bytes: mem_total(root),
        targets: discoveries,
        devices,
        multipath,
        fc_hosts,
        zfs,
        findings: fs,
        notes,
    }
}

fn opt<T: std::fmt::Display>(v: &Option<T>) -> String {
    match v {
        Some(v) => v.to_string(),
        None => "?".into(),
    }
}

fn yes(v: Option<bool>) -> &'static str {
    match v {
        Some(true) => "yes",
        Some(false) => "no",
        None => "?",
    }
}

fn list(v: &[String]) -> String {
    if v.is_empty() {
        "-".into()
    } else {
        v.join(", ")
    }
}

/// The report as text for a terminal.
pub fn render_text(r: &DoctorReport) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "iolab doctor {} (sysroot {})", r.tool_version, r.sysroot);
    if let Some(m) = r.memory_bytes {
        let _ = writeln!(o, "memory {}", bytes(m));
    }
    for t in &r.targets {
        let _ = writeln!(o, "\ntarget {}", t.target);
        let mut tree = String::new();
        t.tree.render(2, &mut tree);
        // The root line carries no arrow; indent it like the rest.
        o.push_str(&tree.replacen("  -> ", "  ", 1));
        let _ = writeln!(o, "  sampled: {}", list(&t.sample_set()));
        for n in &t.notes {
            let _ = writeln!(o, "  note: {n}");
        }
    }
    for d in &r.devices {
        render_device(&mut o, d);
    }
    for m in &r.multipath {
        let _ = writeln!(o, "\nmultipath {} ({}, {})", m.name, m.device, m.uuid);
        for p in &m.paths {
            let _ = writeln!(
                o,
                "  path {} {}{} (from {})",
                p.device,
                p.state,
                p.checker
                    .as_ref()
                    .map(|c| format!(" {c}"))
                    .unwrap_or_default(),
                p.source
            );
        }
    }
    for h in &r.fc_hosts {
        let _ = writeln!(
            o,
            "\nFC {}: port_state {}, speed {}, port_name {}",
            h.host,
            opt(&h.port_state),
            opt(&h.speed),
            opt(&h.port_name)
        );
        let c: Vec<String> = h
            .counters
            .named()
            .iter()
            .map(|(n, v)| format!("{n} {}", opt(v)))
            .collect();
        let _ = writeln!(o, "  {}", c.join(", "));
    }
    if let Some(z) = &r.zfs {
        let _ = writeln!(o, "\nZFS");
        for p in &z.pools {
            let _ = writeln!(
                o,
                "  pool {} {}: size {}, allocated {}, ashift {}",
                p.name,
                p.health,
                p.size_bytes.map(bytes).unwrap_or("?".into()),
                p.alloc_bytes.map(bytes).unwrap_or("?".into()),
                opt(&p.ashift)
            );
            for v in &p.vdevs {
                let _ = writeln!(o, "    vdev {} {}", v.path, v.state);
            }
        }
        for d in &z.datasets {
            let bs = match (d.recordsize, d.volblocksize) {
                (_, Some(v)) if d.kind == "volume" => format!("volblocksize {}", bytes(v)),
                (Some(r), _) => format!("recordsize {}", bytes(r)),
                _ => "block size ?".into(),
            };
            let _ = writeln!(
                o,
                "  {} {}: {bs}, sync {}, logbias {}, compression {}, primarycache {}, secondarycache {}",
                d.kind, d.name, d.sync, d.logbias, d.compression, d.primarycache, d.secondarycache
            );
        }
        if !z.module_parameters.is_empty() {
            let p: Vec<String> = z
                .module_parameters
                .iter()
                .map(|(k, v)| format!("{k} {v}"))
                .collect();
            let _ = writeln!(o, "  module: {}", p.join(", "));
        }
    }
    if r.findings.is_empty() {
        let _ = writeln!(o, "\nfindings: none");
    } else {
        let _ = writeln!(o, "\nfindings ({})", r.findings.len());
        for f in &r.findings {
            let _ = writeln!(
                o,
                "  {} {} [{}]",
                f.severity.as_str().to_uppercase(),
                f.code,
                f.device
            );
            let _ = writeln!(o, "    seen: {}", f.seen);
            let _ = writeln!(o, "    why:  {}", f.why);
            let _ = writeln!(o, "    fix:  {}", f.fix);
        }
    }
    if !r.notes.is_empty() {
        let _ = writeln!(o, "\nnotes");
        for n in &r.notes {
            let _ = writeln!(o, "  - {n}");
        }
    }
    o
}

fn render_device(o: &mut String, d: &DeviceInfo) {
    let kind = d.kind.map(|k| k.as_str()).unwrap_or("?");
    let ident: Vec<&str> = [&d.vendor, &d.model]
        .iter()
        .filter_map(|v| v.as_deref())
        .collect();
    let _ = writeln!(
        o,
        "\ndevice {} ({kind}{}{})",
        d.name,
        if ident.is_empty() {
            String::new()
        } else {
            format!(", {}", ident.join(" "))
        },
        d.size_bytes
            .map(|s| format!(", {}", bytes(s)))
            .unwrap_or_default()
    );
    let ids: Vec<String> = [("serial", &d.serial), ("firmware", &d.firmware)]
        .iter()
        .filter_map(|(k, v)| v.as_ref().map(|v| format!("{k} {v}")))
        .collect();
    if !ids.is_empty() {
        let _ = writeln!(o, "  {}", ids.join(", "));
    }
    let _ = writeln!(
        o,
        "  blocks: logical {}, physical {}, minimum I/O {}, optimal I/O {}",
        opt(&d.logical_block_size),
        opt(&d.physical_block_size),
        opt(&d.minimum_io_size),
        opt(&d.optimal_io_size)
    );
    let _ = writeln!(
        o,
        "  rotational {}, scheduler {}{}, nr_requests {}",
        yes(d.rotational),
        opt(&d.scheduler),
        if d.schedulers_available.len() > 1 {
            format!(" (of {})", d.schedulers_available.join(" "))
        } else {
            String::new()
        },
        opt(&d.nr_requests)
    );
    if let Some(a) = &d.scsi_address {
        let _ = writeln!(
            o,
            "  SCSI {a}, state {}, queue_depth {}",
            opt(&d.scsi_state),
            opt(&d.queue_depth)
        );
    }
    let _ = writeln!(
        o,
        "  max_sectors_kb {} (hardware {}), read_ahead_kb {}",
        opt(&d.max_sectors_kb),
        opt(&d.max_hw_sectors_kb),
        opt(&d.read_ahead_kb)
    );
    let discard = match &d.discard {
        Some(x) if x.supported => format!(
            "yes (granularity {}, max {})",
            x.granularity_bytes.map(bytes).unwrap_or("?".into()),
            x.max_bytes.map(bytes).unwrap_or("?".into())
        ),
        Some(_) => "no".into(),
        None => "?".into(),
    };
    let _ = writeln!(
        o,
        "  write cache {}, FUA {}, discard {discard}",
        opt(&d.write_cache),
        yes(d.fua)
    );
    if let Some(n) = &d.nvme {
        let _ = writeln!(
            o,
            "  NVMe controller {} ({}, {}), namespace {}, {} hardware queues",
            opt(&n.controller),
            opt(&n.transport),
            opt(&n.state),
            opt(&n.nsid),
            opt(&n.hw_queues)
        );
    }
    if let Some(b) = &d.loop_backing_file {
        let _ = writeln!(o, "  backing file {b}");
    }
    if let Some(n) = &d.dm_name {
        let _ = writeln!(
            o,
            "  dm name {n}{}",
            d.dm_uuid
                .as_ref()
                .map(|u| format!(", uuid {u}"))
                .unwrap_or_default()
        );
    }
    for p in &d.partitions {
        let opt_al = match p.aligned_optimal_io {
            Some(b) => yes(Some(b)),
            None => "-",
        };
        let _ = writeln!(
            o,
            "  partition {} start sector {} size {}: aligned to physical {}, optimal I/O {opt_al}, 1 MiB {}{}",
            p.name,
            p.start_sector,
            p.size_bytes.map(bytes).unwrap_or("?".into()),
            yes(Some(p.aligned_physical)),
            yes(Some(p.aligned_1mib)),
            if p.holders.is_empty() { String::new() } else { format!("; holders {}", p.holders.join(", ")) }
        );
    }
    for m in &d.mounts {
        let _ = writeln!(
            o,
            "  mounted {} on {} ({}, {})",
            m.device, m.mount_point, m.fstype, m.options
        );
    }
    let _ = writeln!(
        o,
        "  holders {}; slaves {}",
        list(&d.holders),
        list(&d.slaves)
    );
    for n in &d.notes {
        let _ = writeln!(o, "  note: {n}");
    }
}
