//! Why a block device must not be written: it (or one of its partitions) is
//! mounted, is active swap, is held by another driver (device mapper, md,
//! bcache), has partitions, or carries a known signature (from libblkid, or
//! iolab's own list when libblkid is not available). The first four say the
//! device is in use, which `--destroy-data-on` alone does not lift.
//!
//! The sources are the kernel's own views: /proc/self/mountinfo (by device
//! number, and by mount source for file systems such as btrfs that report
//! an anonymous device number), /proc/swaps, and /sys/dev/block/MAJ:MIN
//! with its `holders/` and partition subdirectories. As a last resort an
//! exclusive open (O_EXCL) tells whether something we cannot see, such as a
//! mount in another mount namespace, has claimed the device.

use crate::signature;
use crate::sys;
use crate::Refusal;
use std::collections::BTreeMap;
use std::fs::{self, File, OpenOptions};
use std::io;
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

/// The device and its partitions: (partition name, or None for the device
/// itself; major:minor).
struct Family {
    members: Vec<(Option<String>, (u32, u32))>,
}

impl Family {
    fn find(&self, devno: (u32, u32)) -> Option<&Option<String>> {
        self.members.iter().find(|m| m.1 == devno).map(|m| &m.0)
    }

    fn partitions(&self) -> Vec<&str> {
        self.members.iter().filter_map(|m| m.0.as_deref()).collect()
    }
}

/// "it" for the device itself, "its partition loop0p1" for a partition.
fn subject(part: &Option<String>) -> String {
    match part {
        None => "it".to_string(),
        Some(p) => format!("its partition {p}"),
    }
}

pub fn sysfs_dir((major, minor): (u32, u32)) -> PathBuf {
    PathBuf::from(format!("/sys/dev/block/{major}:{minor}"))
}

/// "MAJ:MIN" as in sysfs `dev` files and mountinfo.
fn parse_devno(s: &str) -> Option<(u32, u32)> {
    let (a, b) = s.trim().split_once(':')?;
    Some((a.parse().ok()?, b.parse().ok()?))
}

/// The partitions under a device's sysfs directory: subdirectories with a
/// `partition` file, sorted by name.
fn partitions_in(dir: &Path) -> Vec<(String, (u32, u32))> {
    let Ok(rd) = fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut v: Vec<(String, (u32, u32))> = rd
        .filter_map(|e| e.ok())
        .filter(|e| e.path().join("partition").is_file())
        .filter_map(|e| {
            let devno = parse_devno(&fs::read_to_string(e.path().join("dev")).ok()?)?;
            Some((e.file_name().to_string_lossy().into_owned(), devno))
        })
        .collect();
    v.sort();
    v
}

/// Undo the octal escapes (`\040` for a space) of mountinfo and /proc/swaps.
pub fn unescape(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\'
            && i + 3 < b.len()
            && b[i + 1..i + 4].iter().all(|c| (b'0'..=b'7').contains(c))
        {
            let v = (b[i + 1] - b'0') as u32 * 64
                + (b[i + 2] - b'0') as u32 * 8
                + (b[i + 3] - b'0') as u32;
            out.push(v as u8);
            i += 4;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// One line of /proc/self/mountinfo, reduced to what the checks need.
#[derive(Debug, PartialEq, Eq)]
pub struct Mount {
    pub devno: (u32, u32),
    pub mount_point: String,
    pub source: String,
}

/// Parse mountinfo text; malformed lines are skipped.
pub fn parse_mountinfo(text: &str) -> Vec<Mount> {
    text.lines()
        .filter_map(|line| {
            let f: Vec<&str> = line.split(' ').collect();
            let devno = parse_devno(f.get(2)?)?;
            let mount_point = unescape(f.get(4)?);
            let sep = f.iter().position(|x| *x == "-")?;
            let source = unescape(f.get(sep + 2)?);
            Some(Mount {
                devno,
                mount_point,
                source,
            })
        })
        .collect()
}

/// The file names listed in /proc/swaps (header skipped).
pub fn parse_swaps(text: &str) -> Vec<String> {
    text.lines()
        .skip(1)
        .filter_map(|l| l.split_whitespace().next())
        .map(unescape)
        .collect()
}

/// The major:minor of `path` when it is a block device node.
fn block_devno(path: &Path) -> Option<(u32, u32)> {
    let m = fs::metadata(path).ok()?;
    m.file_type()
        .is_block_device()
        .then(|| sys::split_dev(m.rdev()))
}

fn mounted(fam: &Family, out: &mut Vec<Refusal>) {
    let Ok(text) = fs::read_to_string("/proc/self/mountinfo") else {
        return;
    };
    // Subject -> mount points, in the order of the family.
    let mut found: BTreeMap<usize, Vec<String>> = BTreeMap::new();
    for m in parse_mountinfo(&text) {
        let devno = if fam.find(m.devno).is_some() {
            Some(m.devno)
        } else if m.source.starts_with("/dev/") {
            block_devno(Path::new(&m.source)).filter(|d| fam.find(*d).is_some())
        } else {
            None
        };
        if let Some(d) = devno {
            if let Some(i) = fam.members.iter().position(|x| x.1 == d) {
                let v = found.entry(i).or_default();
                if !v.contains(&m.mount_point) {
                    v.push(m.mount_point);
                }
            }
        }
    }
    for (i, points) in found {
        out.push(Refusal(format!(
            "{} is mounted on {}",
            subject(&fam.members[i].0),
            points.join(", ")
        )));
    }
}

fn swap(fam: &Family, out: &mut Vec<Refusal>) {
    let Ok(text) = fs::read_to_string("/proc/swaps") else {
        return;
    };
    for name in parse_swaps(&text) {
        if let Some(part) = block_devno(Path::new(&name)).and_then(|d| fam.find(d)) {
            out.push(Refusal(format!("{} is active swap", subject(part))));
        }
    }
}

fn holders(fam: &Family, out: &mut Vec<Refusal>) {
    for (part, devno) in &fam.members {
        let Ok(rd) = fs::read_dir(sysfs_dir(*devno).join("holders")) else {
            continue;
        };
        let mut names: Vec<String> = rd
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        if !names.is_empty() {
            names.sort();
            out.push(Refusal(format!(
                "{} is held by {}",
                subject(part),
                names.join(", ")
            )));
        }
    }
}

/// One refusal per signature name, listing every offset it was found at.
pub fn signature_refusals(sigs: &[crate::Signature]) -> Vec<Refusal> {
    let mut by_name: Vec<(&str, Vec<u64>)> = Vec::new();
    for s in sigs {
        match by_name.iter_mut().find(|(n, _)| *n == s.name) {
            Some((_, offs)) => offs.push(s.offset),
            None => by_name.push((&s.name, vec![s.offset])),
        }
    }
    by_name
        .into_iter()
        .map(|(name, offs)| {
            let at = if offs.len() == 1 {
                format!("at byte {}", offs[0])
            } else {
                let o: Vec<String> = offs.iter().map(|o| o.to_string()).collect();
                format!("at bytes {}", o.join(", "))
            };
            Refusal(format!(
                "it carries {} signature ({at})",
                signature::describe(name)
            ))
        })
        .collect()
}

/// The reasons writing to a block device would destroy data, split by
/// whether naming the device with `--destroy-data-on` is enough.
#[derive(Debug, Default)]
pub struct Refusals {
    /// Mounted, active swap, held, exclusively claimed: also needs
    /// `--allow-mounted-write`.
    pub in_use: Vec<Refusal>,
    /// Partitions and signatures.
    pub data: Vec<Refusal>,
}

impl Refusals {
    pub fn all(self) -> Vec<Refusal> {
        let mut v = self.in_use;
        v.extend(self.data);
        v
    }
}

/// The reasons writing to the block device `dev` would destroy data.
pub fn write_refusals(dev: &Path) -> io::Result<Vec<Refusal>> {
    check(dev).map(Refusals::all)
}

/// The reasons writing to the block device `dev` would destroy data, split
/// into in-use and data reasons.
pub fn check(dev: &Path) -> io::Result<Refusals> {
    let meta = fs::metadata(dev)?;
    if !meta.file_type().is_block_device() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "not a block device",
        ));
    }
    let devno = sys::split_dev(meta.rdev());
    let mut members = vec![(None, devno)];
    members.extend(
        partitions_in(&sysfs_dir(devno))
            .into_iter()
            .map(|(n, d)| (Some(n), d)),
    );
    let fam = Family { members };

    let mut out = Refusals::default();
    mounted(&fam, &mut out.in_use);
    swap(&fam, &mut out.in_use);
    holders(&fam, &mut out.in_use);
    if out.in_use.is_empty() && exclusively_busy(dev) {
        out.in_use.push(Refusal(
            "it is in use (an exclusive open failed: mounted in another mount namespace or claimed by a driver)"
                .to_string(),
        ));
    }
    let parts = fam.partitions();
    if !parts.is_empty() {
        out.data
            .push(Refusal(format!("it has partitions ({})", parts.join(", "))));
    }
    let f = File::open(dev)?;
    let size = sys::block_size_bytes(&f)?;
    let (sigs, source) = signature::detect(&f, size)?;
    out.data.extend(signature_refusals(&sigs));
    if let (false, signature::Source::HandList(why)) = (sigs.is_empty(), source) {
        out.data.push(Refusal(hand_list_note(&why)));
    }
    Ok(out)
}

/// Said with signatures found by the hand-kept list.
fn hand_list_note(why: &str) -> String {
    format!("libblkid was not available ({why}), so signatures were checked against iolab's own list only")
}

/// True when an O_EXCL open of the device fails with EBUSY: the kernel says
/// someone (a file system, md, dm, swap) has claimed it.
fn exclusively_busy(dev: &Path) -> bool {
    match OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_EXCL | libc::O_CLOEXEC)
        .open(dev)
    {
        Ok(_) => false,
        Err(e) => e.raw_os_error() == Some(libc::EBUSY),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MOUNTINFO: &str = "\
22 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw
36 22 7:3 / /tmp/my\\040mnt rw,relatime shared:5 - ext4 /dev/loop3 rw
37 22 0:45 / /mnt/b rw,relatime shared:6 master:2 - btrfs /dev/loop4 rw,space_cache=v2
garbage line
";

    #[test]
    fn mountinfo_fields_and_escapes() {
        let m = parse_mountinfo(MOUNTINFO);
        assert_eq!(m.len(), 3);
        assert_eq!(
            m[1],
            Mount {
                devno: (7, 3),
                mount_point: "/tmp/my mnt".into(),
                source: "/dev/loop3".into()
            }
        );
        assert_eq!(m[2].devno, (0, 45));
        assert_eq!(m[2].source, "/dev/loop4");
    }

    #[test]
    fn swaps_file_names() {
        let t = "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n/dev/zram0                              partition\t4194300\t\t0\t\t100\n/swap\\040file file 10 0 -2\n";
        assert_eq!(parse_swaps(t), vec!["/dev/zram0", "/swap file"]);
    }

    #[test]
    fn unescape_leaves_other_backslashes() {
        assert_eq!(unescape("a\\040b\\134c\\x"), "a b\\c\\x");
        assert_eq!(unescape("end\\04"), "end\\04");
    }

    #[test]
    fn devno_parsing() {
        assert_eq!(parse_devno("259:3\n"), Some((259, 3)));
        assert_eq!(parse_devno("x:3"), None);
    }

    #[test]
    fn signature_refusals_group_offsets() {
        let s = |n: &str, o| crate::Signature {
            name: n.into(),
            offset: o,
        };
        let r = signature_refusals(&[
            s("gpt", 512),
            s("zfs_member", 131072),
            s("zfs_member", 393216),
        ]);
        assert_eq!(
            r,
            vec![
                Refusal("it carries a GPT partition table signature (at byte 512)".into()),
                Refusal("it carries a ZFS pool member signature (at bytes 131072, 393216)".into()),
            ]
        );
    }

    #[test]
    fn not_a_block_device_is_an_error() {
        let e = write_refusals(Path::new("/proc/self/mountinfo")).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidInput);
    }
}
