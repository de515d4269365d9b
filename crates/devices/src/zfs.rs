//! ZFS pools, their vdevs and dataset properties from `zpool` and `zfs`
//! (through a [`CommandRunner`]), and the zfs module's tunables from sysfs.

use crate::cmd::{CmdError, CommandRunner};
use crate::sysroot::Sysroot;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ZfsInfo {
    pub pools: Vec<Pool>,
    pub datasets: Vec<Dataset>,
    /// /sys/module/zfs/parameters that bear on I/O scheduling and caching.
    pub module_parameters: BTreeMap<String, String>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Pool {
    pub name: String,
    pub size_bytes: Option<u64>,
    pub alloc_bytes: Option<u64>,
    pub free_bytes: Option<u64>,
    pub health: String,
    /// The pool's ashift property (0: chosen per vdev when it was added).
    pub ashift: Option<u64>,
    pub vdevs: Vec<Vdev>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Vdev {
    /// As `zpool status -P` prints it (`/dev/sdb1`).
    pub path: String,
    pub state: String,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Dataset {
    pub name: String,
    /// `filesystem` or `volume`.
    pub kind: String,
    pub recordsize: Option<u64>,
    pub volblocksize: Option<u64>,
    pub sync: String,
    pub logbias: String,
    pub compression: String,
    pub primarycache: String,
    pub secondarycache: String,
}

/// The module parameters reported (those present are shown).
pub const MODULE_PARAMETERS: &[&str] = &[
    "zfs_vdev_max_active",
    "zfs_vdev_sync_read_max_active",
    "zfs_vdev_sync_write_max_active",
    "zfs_vdev_async_read_max_active",
    "zfs_vdev_async_write_max_active",
    "zfs_vdev_aggregation_limit",
    "zfs_arc_max",
    "zfs_txg_timeout",
    "zfs_dirty_data_max",
    "zfs_prefetch_disable",
    "zfs_vdev_scheduler",
];

/// Vdevs of every pool from `zpool status -P` text: pool name -> vdevs.
pub fn parse_status(text: &str) -> BTreeMap<String, Vec<Vdev>> {
    let mut out: BTreeMap<String, Vec<Vdev>> = BTreeMap::new();
    let mut pool = String::new();
    for line in text.lines() {
        let t = line.trim();
        if let Some(p) = t.strip_prefix("pool:") {
            pool = p.trim().to_string();
            out.entry(pool.clone()).or_default();
            continue;
        }
        let mut f = t.split_whitespace();
        if let (Some(path), Some(state)) = (f.next(), f.next()) {
            if path.starts_with('/') && !pool.is_empty() {
                out.entry(pool.clone()).or_default().push(Vdev {
                    path: path.to_string(),
                    state: state.to_string(),
                });
            }
        }
    }
    out
}

fn num(s: &str) -> Option<u64> {
    s.trim().parse().ok()
}

/// Everything about ZFS, or `Ok(None)` when ZFS is not in use here (no
/// module loaded and no `zpool`). Problems along the way become notes.
pub fn read(
    root: &Sysroot,
    runner: &dyn CommandRunner,
    notes: &mut Vec<String>,
) -> Option<ZfsInfo> {
    let module = root.exists("/sys/module/zfs");
    let list = runner.run(
        "zpool",
        &["list", "-H", "-p", "-o", "name,size,alloc,free,health"],
    );
    let list = match list {
        Ok(t) => t,
        Err(CmdError::NotInstalled(_)) => {
            if module {
                notes.push("the zfs module is loaded but zpool is not installed: ZFS pools and datasets are not reported".into());
            }
            return None;
        }
        Err(e) => {
            // Without the module, a zpool that cannot be run (not on this
            // user's PATH, say) just means there is no ZFS to report.
            if module {
                notes.push(format!("ZFS pools not reported: {e}"));
            }
            return None;
        }
    };
    let mut info = ZfsInfo::default();
    for line in list.lines() {
        let f: Vec<&str> = line.split('\t').collect();
        if f.len() < 5 {
            continue;
        }
        info.pools.push(Pool {
            name: f[0].to_string(),
            size_bytes: num(f[1]),
            alloc_bytes: num(f[2]),
            free_bytes: num(f[3]),
            health: f[4].trim().to_string(),
            ..Default::default()
        });
    }
    match runner.run("zpool", &["get", "-H", "-p", "-o", "name,value", "ashift"]) {
        Ok(t) => {
            for line in t.lines() {
                if let Some((n, v)) = line.split_once('\t') {
                    if let Some(p) = info.pools.iter_mut().find(|p| p.name == n) {
                        p.ashift = num(v);
                    }
                }
            }
        }
        Err(e) => notes.push(format!("pool ashift not reported: {e}")),
    }
    match runner.run("zpool", &["status", "-P", "-L"]) {
        Ok(t) => {
            let v = parse_status(&t);
            for p in &mut info.pools {
                p.vdevs = v.get(&p.name).cloned().unwrap_or_default();
            }
        }
        Err(e) => notes.push(format!("pool vdevs not reported: {e}")),
    }
    let props = "type,recordsize,volblocksize,sync,logbias,compression,primarycache,secondarycache";
    match runner.run(
        "zfs",
        &["get", "-H", "-p", "-o", "name,property,value", props],
    ) {
        Ok(t) => {
            let mut by_name: BTreeMap<String, Dataset> = BTreeMap::new();
            for line in t.lines() {
                let f: Vec<&str> = line.split('\t').collect();
                if f.len() < 3 {
                    continue;
                }
                let d = by_name.entry(f[0].to_string()).or_insert_with(|| Dataset {
                    name: f[0].to_string(),
                    ..Default::default()
                });
                let v = f[2].trim().to_string();
                match f[1] {
                    "type" => d.kind = v,
                    "recordsize" => d.recordsize = num(&v),
                    "volblocksize" => d.volblocksize = num(&v),
                    "sync" => d.sync = v,
                    "logbias" => d.logbias = v,
                    "compression" => d.compression = v,
                    "primarycache" => d.primarycache = v,
                    "secondarycache" => d.secondarycache = v,
                    _ => {}
                }
            }
            info.datasets = by_name
                .into_values()
                .filter(|d| d.kind == "filesystem" || d.kind == "volume")
                .collect();
        }
        Err(e) => notes.push(format!("ZFS dataset properties not reported: {e}")),
    }
    for p in MODULE_PARAMETERS {
        if let Some(v) = root.read(&format!("/sys/module/zfs/parameters/{p}")) {
            info.module_parameters.insert(p.to_string(), v);
        }
    }
    if module && info.module_parameters.is_empty() {
        notes.push(
            "/sys/module/zfs/parameters is not readable: ZFS module parameters not reported".into(),
        );
    }
    Some(info)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_vdevs() {
        let t = "  pool: tank\n state: ONLINE\nconfig:\n\n\tNAME          STATE     READ WRITE CKSUM\n\ttank          ONLINE       0     0     0\n\t  mirror-0    ONLINE       0     0     0\n\t    /dev/sdb1  ONLINE       0     0     0\n\t    /dev/sdc1  FAULTED      3     0     0\n";
        let v = parse_status(t);
        assert_eq!(v["tank"].len(), 2);
        assert_eq!(v["tank"][1].state, "FAULTED");
    }
}
