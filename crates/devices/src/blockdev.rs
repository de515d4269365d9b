//! The block devices in /sys/block: names, device numbers, partitions and
//! what kind of device each one is.

use crate::sysroot::Sysroot;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    Disk,
    Nvme,
    Partition,
    Dm,
    Multipath,
    Md,
    Loop,
    Zram,
    Zvol,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Disk => "disk",
            Kind::Nvme => "nvme",
            Kind::Partition => "partition",
            Kind::Dm => "dm",
            Kind::Multipath => "multipath",
            Kind::Md => "md",
            Kind::Loop => "loop",
            Kind::Zram => "zram",
            Kind::Zvol => "zvol",
        }
    }
}

/// Every block device and partition the sysroot shows.
#[derive(Clone, Debug, Default)]
pub struct BlockIndex {
    /// `major:minor` -> kernel name.
    pub by_devno: BTreeMap<String, String>,
    /// Partition name -> whole-disk name.
    pub parent: BTreeMap<String, String>,
    /// Whole disks, in natural order.
    pub disks: Vec<String>,
}

impl BlockIndex {
    pub fn read(root: &Sysroot) -> BlockIndex {
        let mut ix = BlockIndex::default();
        for disk in root.list("/sys/block") {
            if let Some(dev) = root.read(&format!("/sys/block/{disk}/dev")) {
                ix.by_devno.insert(dev, disk.clone());
            }
            for sub in root.list(&format!("/sys/block/{disk}")) {
                if root.exists(&format!("/sys/block/{disk}/{sub}/partition")) {
                    if let Some(dev) = root.read(&format!("/sys/block/{disk}/{sub}/dev")) {
                        ix.by_devno.insert(dev, sub.clone());
                    }
                    ix.parent.insert(sub, disk.clone());
                }
            }
            ix.disks.push(disk);
        }
        ix
    }

    /// True when `name` is a disk or partition here.
    pub fn knows(&self, name: &str) -> bool {
        self.parent.contains_key(name) || self.disks.iter().any(|d| d == name)
    }

    /// The sysfs directory of a disk or partition.
    pub fn sys_dir(&self, name: &str) -> String {
        match self.parent.get(name) {
            Some(p) => format!("/sys/block/{p}/{name}"),
            None => format!("/sys/block/{name}"),
        }
    }

    /// What kind of device `name` is.
    pub fn kind(&self, root: &Sysroot, name: &str) -> Kind {
        if self.parent.contains_key(name) {
            return Kind::Partition;
        }
        let dir = format!("/sys/block/{name}");
        if root.exists(&format!("{dir}/dm")) || name.starts_with("dm-") {
            let uuid = root.read(&format!("{dir}/dm/uuid")).unwrap_or_default();
            return if uuid.starts_with("mpath-") {
                Kind::Multipath
            } else {
                Kind::Dm
            };
        }
        if root.exists(&format!("{dir}/md")) || name.starts_with("md") {
            return Kind::Md;
        }
        if name.starts_with("loop") {
            return Kind::Loop;
        }
        if name.starts_with("zram") {
            return Kind::Zram;
        }
        if name.starts_with("zd") {
            return Kind::Zvol;
        }
        if name.starts_with("nvme") {
            return Kind::Nvme;
        }
        Kind::Disk
    }

    /// Map a device path or name to a kernel name: `sda`, `/dev/sda1`,
    /// `/dev/mapper/mpatha`, `/dev/disk/by-id/...`, `/dev/md/data`.
    pub fn resolve(&self, root: &Sysroot, dev: &str) -> Option<String> {
        if self.knows(dev) {
            return Some(dev.to_string());
        }
        if root.is_live() {
            if let Some(devno) = devno_of_block_device(dev) {
                if let Some(n) = self.by_devno.get(&devno) {
                    return Some(n.clone());
                }
            }
        }
        let rest = dev.strip_prefix("/dev/")?;
        if self.knows(rest) {
            return Some(rest.to_string());
        }
        if let Some(map) = rest.strip_prefix("mapper/") {
            for d in &self.disks {
                if root.read(&format!("/sys/block/{d}/dm/name")).as_deref() == Some(map) {
                    return Some(d.clone());
                }
            }
        }
        // A symbolic link such as /dev/disk/by-id/x -> ../../sdb.
        let link = root.read_link(dev)?;
        let name = link.file_name()?.to_string_lossy().into_owned();
        self.knows(&name).then_some(name)
    }
}

/// `major:minor` of a block device node (live system only).
pub fn devno_of_block_device(path: &str) -> Option<String> {
    use std::os::unix::fs::{FileTypeExt, MetadataExt};
    let md = std::fs::metadata(path).ok()?;
    if !md.file_type().is_block_device() {
        return None;
    }
    let rdev = md.rdev();
    Some(format!("{}:{}", libc::major(rdev), libc::minor(rdev)))
}
