//! On-disk signatures: the magic numbers of file systems, partition tables,
//! volume managers, RAID and swap that say a device holds data.
//!
//! iolab refuses to write to a device that carries any of them. They come
//! from libblkid (see `blkid`) when the system's `libblkid.so.1` loads; this
//! module's hand-kept list is the fallback when it does not, and the
//! refusal then says so. Names follow libblkid's `TYPE`/`PTTYPE` values in
//! both cases ("ext4", "dos", "LVM2_member"), so messages read the same.
//!
//! The hand-kept table follows the offsets libblkid probes (util-linux `libblkid/src/`), trimmed
//! to the magic itself plus the few checks that keep common layouts apart
//! (a FAT boot sector also ends in 0x55AA; an md superblock names its major
//! version). Reads are 4 KiB-aligned into 4 KiB-aligned buffers, so the
//! probe also works through an O_DIRECT descriptor.

use crate::{blkid, Signature};
use std::collections::HashMap;
use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;

const BLOCK: u64 = 4096;
const KIB: u64 = 1024;

/// One 4 KiB block with the alignment O_DIRECT needs.
#[repr(C, align(4096))]
struct Block([u8; BLOCK as usize]);

/// Reads byte ranges through a cache of aligned 4 KiB blocks.
struct Reader<'a> {
    f: &'a File,
    size: u64,
    cache: HashMap<u64, Box<Block>>,
}

impl<'a> Reader<'a> {
    fn new(f: &'a File, size: u64) -> Self {
        Reader {
            f,
            size,
            cache: HashMap::new(),
        }
    }

    fn block(&mut self, index: u64) -> io::Result<&Block> {
        if !self.cache.contains_key(&index) {
            let mut b = Box::new(Block([0; BLOCK as usize]));
            let base = index * BLOCK;
            let mut done = 0usize;
            while done < b.0.len() {
                match self.f.read_at(&mut b.0[done..], base + done as u64) {
                    Ok(0) => break,
                    Ok(n) => done += n,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) => return Err(e),
                }
            }
            self.cache.insert(index, b);
        }
        self.cache
            .get(&index)
            .map(|b| &**b)
            .ok_or_else(|| io::Error::other("signature block cache lost a block"))
    }

    /// `len` bytes at `off`, or `None` when the range ends beyond the size
    /// the caller gave (short files read as zeros past their end).
    fn bytes(&mut self, off: u64, len: usize) -> io::Result<Option<Vec<u8>>> {
        match off.checked_add(len as u64) {
            Some(end) if end <= self.size => {}
            _ => return Ok(None),
        }
        let mut out = Vec::with_capacity(len);
        let mut pos = off;
        while out.len() < len {
            let within = (pos % BLOCK) as usize;
            let take = (BLOCK as usize - within).min(len - out.len());
            let b = self.block(pos / BLOCK)?;
            out.extend_from_slice(&b.0[within..within + take]);
            pos += take as u64;
        }
        Ok(Some(out))
    }

    fn has(&mut self, off: u64, magic: &[u8]) -> io::Result<bool> {
        Ok(self.bytes(off, magic.len())?.as_deref() == Some(magic))
    }

    fn le32(&mut self, off: u64) -> io::Result<Option<u32>> {
        Ok(self
            .bytes(off, 4)?
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]])))
    }
}

/// Plain magic strings: (name, offset, bytes).
const SIMPLE: &[(&str, u64, &[u8])] = &[
    ("xfs", 0, b"XFSB"),
    // Oracle ASM disk label (libblkid ocfs.c: "ORCLDISK" at 32).
    ("oracleasm", 32, b"ORCLDISK"),
    // Ceph BlueStore block device label (libblkid bluestore.c).
    ("ceph_bluestore", 0, b"bluestore block device"),
    // VMFS volume (LVM) header at 1 MiB and file system at 2 MiB
    // (libblkid vmfs.c).
    ("VMFS_volume_member", 1024 * KIB, &[0x0d, 0xd0, 0x01, 0xc0]),
    ("VMFS", 2048 * KIB, &[0x5e, 0xf1, 0xab, 0x2f]),
    ("btrfs", 65600, b"_BHRfS_M"),
    ("ntfs", 3, b"NTFS    "),
    ("exfat", 3, b"EXFAT   "),
    ("BitLocker", 3, b"-FVE-FS-"),
    ("vfat", 54, b"FAT12"),
    ("vfat", 54, b"FAT16"),
    ("vfat", 82, b"FAT32"),
    ("crypto_LUKS", 0, b"LUKS\xba\xbe"),
    ("iso9660", 32769, b"CD001"),
    ("f2fs", 1024, &[0x10, 0x20, 0xf5, 0xf2]),
    ("jfs", 32768, b"JFS1"),
    ("squashfs", 0, b"hsqs"),
    ("reiserfs", 65536 + 52, b"ReIsErFs"),
    ("reiserfs", 65536 + 52, b"ReIsEr2Fs"),
    ("reiserfs", 65536 + 52, b"ReIsEr3Fs"),
    (
        "bcache",
        4096 + 24,
        &[
            0xc6, 0x85, 0x73, 0xf6, 0x4e, 0x1a, 0x45, 0xca, 0x82, 0x65, 0xf5, 0x7f, 0x48, 0xba,
            0x6d, 0x81,
        ],
    ),
];

/// LUKS2 secondary header offsets (cryptsetup `luks2.h`).
const LUKS2_SECONDARY: &[u64] = &[
    0x4000, 0x8000, 0x10000, 0x20000, 0x40000, 0x80000, 0x100000, 0x200000, 0x400000,
];

/// Page sizes whose last 10 bytes hold the swap signature.
const PAGE_SIZES: &[u64] = &[4096, 8192, 16384, 65536];

const MD_MAGIC: u32 = 0xa92b_4efc;
const ZFS_UB_MAGIC: u64 = 0x00ba_b10c;
const ZFS_LABEL: u64 = 256 * KIB;

/// Where a set of signatures came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    Libblkid,
    /// The hand-kept list, because libblkid was not available (why).
    HandList(String),
}

/// Every signature on the first `size` bytes of `f`: from libblkid when it
/// loads, else from the hand-kept list (and why libblkid was not used).
pub fn detect(f: &File, size: u64) -> io::Result<(Vec<Signature>, Source)> {
    match blkid::available() {
        Ok(()) => Ok((blkid::detect(f, size)?, Source::Libblkid)),
        Err(why) => Ok((detect_hand_list(f, size)?, Source::HandList(why))),
    }
}

/// Every signature of the hand-kept list found in the first `size` bytes
/// of `f` (and at the offsets near its end that md 0.90/1.0 and ZFS use).
pub fn detect_hand_list(f: &File, size: u64) -> io::Result<Vec<Signature>> {
    let mut r = Reader::new(f, size);
    let mut hits = Vec::new();
    let mut hit = |name: &str, offset: u64| {
        hits.push(Signature {
            name: name.to_string(),
            offset,
        })
    };

    for &(name, off, magic) in SIMPLE {
        if r.has(off, magic)? {
            hit(name, off);
        }
    }
    for &off in LUKS2_SECONDARY {
        if r.has(off, b"SKUL\xba\xbe")? {
            hit("crypto_LUKS", off);
        }
    }
    if let Some(name) = ext(&mut r)? {
        hit(name, 1080);
    }
    for &ps in PAGE_SIZES {
        let off = ps - 10;
        for (magic, name) in [
            (&b"SWAPSPACE2"[..], "swap"),
            (b"SWAP-SPACE", "swap"),
            (b"S1SUSPEND", "swsuspend"),
            (b"S2SUSPEND", "swsuspend"),
            (b"ULSUSPEND", "swsuspend"),
            (b"LINHIB0001", "swsuspend"),
        ] {
            if r.has(off, magic)? {
                hit(name, off);
            }
        }
    }
    let mut gpt = false;
    for off in [512, 1024, 2048, 4096] {
        if r.has(off, b"EFI PART")? {
            gpt = true;
            hit("gpt", off);
        }
    }
    if let Some(protective) = dos(&mut r)? {
        if !(protective && gpt) {
            hit("dos", 510);
        }
    }
    for sector in 0..4u64 {
        let off = sector * 512;
        if r.has(off, b"LABELONE")? && r.has(off + 24, b"LVM2 001")? {
            hit("LVM2_member", off);
        }
    }
    for off in md_offsets(size) {
        if md(&mut r, off)? {
            hit("linux_raid_member", off);
        }
    }
    for label in zfs_labels(size) {
        if let Some(off) = zfs(&mut r, label)? {
            hit("zfs_member", off);
        }
    }
    Ok(hits)
}

/// ext2/3/4 by the superblock magic at 1024 + 0x38, named by its feature
/// flags as libblkid does: a journal device, ext4 when it uses a feature
/// ext3 lacks, ext3 when it has a journal, else ext2.
fn ext(r: &mut Reader) -> io::Result<Option<&'static str>> {
    let Some(sb) = r.bytes(1024, 0x68)? else {
        return Ok(None);
    };
    if sb[0x38..0x3a] != [0x53, 0xef] {
        return Ok(None);
    }
    let le = |o: usize| u32::from_le_bytes([sb[o], sb[o + 1], sb[o + 2], sb[o + 3]]);
    let (compat, incompat, ro_compat) = (le(0x5c), le(0x60), le(0x64));
    const HAS_JOURNAL: u32 = 0x4;
    const JOURNAL_DEV: u32 = 0x8;
    // Incompat features ext3 knows: FILETYPE, RECOVER, META_BG.
    const EXT3_INCOMPAT: u32 = 0x2 | 0x4 | 0x10;
    // Ro-compat features ext3 knows: SPARSE_SUPER, LARGE_FILE, BTREE_DIR.
    const EXT3_RO_COMPAT: u32 = 0x1 | 0x2 | 0x4;
    Ok(Some(if incompat & JOURNAL_DEV != 0 {
        "jbd"
    } else if incompat & !EXT3_INCOMPAT != 0 || ro_compat & !EXT3_RO_COMPAT != 0 {
        "ext4"
    } else if compat & HAS_JOURNAL != 0 {
        "ext3"
    } else {
        "ext2"
    }))
}

/// A DOS (MBR) partition table: 0x55AA at 510, sane boot flags, at least one
/// used entry, and not a FAT/NTFS/exFAT boot sector (which also end in
/// 0x55AA). `Some(true)` when every used entry is a GPT protective one.
fn dos(r: &mut Reader) -> io::Result<Option<bool>> {
    let Some(s) = r.bytes(0, 512)? else {
        return Ok(None);
    };
    if s[510..512] != [0x55, 0xaa] {
        return Ok(None);
    }
    let boot_sector = [b"FAT12".as_slice(), b"FAT16"]
        .iter()
        .any(|m| &s[54..59] == *m)
        || &s[82..87] == b"FAT32"
        || [b"NTFS    ".as_slice(), b"EXFAT   ", b"-FVE-FS-"]
            .iter()
            .any(|m| &s[3..11] == *m);
    if boot_sector {
        return Ok(None);
    }
    let entries: Vec<&[u8]> = s[446..510].chunks(16).collect();
    if entries.iter().any(|e| e[0] != 0 && e[0] != 0x80) {
        return Ok(None);
    }
    let used: Vec<u8> = entries.iter().map(|e| e[4]).filter(|&t| t != 0).collect();
    if used.is_empty() {
        return Ok(None);
    }
    Ok(Some(used.iter().all(|&t| t == 0xee)))
}

/// Where md superblocks live: v1.1 at 0, v1.2 at 4 KiB, v1.0 8 KiB before
/// the end (4 KiB aligned), v0.90 in the last 64 KiB-aligned 64 KiB.
fn md_offsets(size: u64) -> Vec<u64> {
    let mut v = vec![0, 4096];
    if size >= 8192 {
        v.push((size - 8192) / 4096 * 4096);
    }
    if size >= 65536 {
        v.push((size / 65536 - 1) * 65536);
    }
    v.sort_unstable();
    v.dedup();
    v
}

/// An md superblock at `off`: the magic (in either byte order, since 0.90
/// is written in the host's) and a major version of 0 or 1.
fn md(r: &mut Reader, off: u64) -> io::Result<bool> {
    let (Some(magic), Some(major)) = (r.le32(off)?, r.le32(off + 4)?) else {
        return Ok(false);
    };
    let major_ok = |le: u32| le == 0 || le == 1 || le.swap_bytes() == 1;
    Ok((magic == MD_MAGIC || magic.swap_bytes() == MD_MAGIC) && major_ok(major))
}

/// ZFS vdev labels: two at the start and two at the end of the device.
fn zfs_labels(size: u64) -> Vec<u64> {
    let mut v = vec![0, ZFS_LABEL];
    let end = size / ZFS_LABEL * ZFS_LABEL;
    if end >= 4 * ZFS_LABEL {
        v.push(end - 2 * ZFS_LABEL);
        v.push(end - ZFS_LABEL);
    }
    v
}

/// The offset of the first uberblock carrying the ZFS magic (either byte
/// order) among the first 32 KiB of the uberblock array of the label at
/// `label` (entries are 1 KiB or larger, so 1 KiB steps cover them).
fn zfs(r: &mut Reader, label: u64) -> io::Result<Option<u64>> {
    for k in 0..32 {
        let off = label + 128 * KIB + k * KIB;
        if let Some(b) = r.bytes(off, 8)? {
            let v = u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]);
            if v == ZFS_UB_MAGIC || v.swap_bytes() == ZFS_UB_MAGIC {
                return Ok(Some(off));
            }
        }
    }
    Ok(None)
}

/// The signature's name as a noun phrase with its article, for messages:
/// "an ext4 file system".
pub fn describe(name: &str) -> String {
    let s = match name {
        "ext2" => "an ext2 file system",
        "ext3" => "an ext3 file system",
        "ext4" => "an ext4 file system",
        "jbd" => "an ext3/ext4 external journal",
        "xfs" => "an xfs file system",
        "btrfs" => "a btrfs file system",
        "swap" => "a swap space",
        "swsuspend" => "a hibernation image",
        "gpt" => "a GPT partition table",
        "dos" | "dos partition table" => "a DOS partition table",
        "PMBR" => "a protective MBR (of a GPT disk)",
        "vfat" => "a vfat file system",
        "ntfs" => "an NTFS file system",
        "exfat" => "an exFAT file system",
        "BitLocker" => "a BitLocker volume",
        "LVM2_member" | "LVM2 physical volume" => "an LVM2 physical volume",
        "LVM1_member" => "an LVM1 physical volume",
        "oracleasm" => "an Oracle ASM disk",
        "ceph_bluestore" => "a Ceph BlueStore device",
        "VMFS" => "a VMware VMFS file system",
        "VMFS_volume_member" => "a VMware VMFS volume",
        "crypto_LUKS" => "a LUKS encrypted volume",
        "linux_raid_member" => "an md RAID member",
        "zfs_member" => "a ZFS pool member",
        "iso9660" => "an ISO 9660 file system",
        "f2fs" => "an f2fs file system",
        "jfs" => "a jfs file system",
        "squashfs" => "a squashfs file system",
        "reiserfs" => "a reiserfs file system",
        "bcache" => "a bcache device",
        "udf" => "a UDF file system",
        "hfsplus" => "an HFS+ file system",
        "apfs" => "an APFS container",
        "drbd" => "a DRBD device",
        "VDO" => "a VDO volume",
        "stratis" => "a Stratis pool member",
        other => {
            // libblkid's other firmware RAID members: "isw_raid_member", ...
            if let Some(kind) = other.strip_suffix("_raid_member") {
                return format!("a firmware RAID member ({kind})");
            }
            return format!("a {other}");
        }
    };
    s.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIB: u64 = 1024 * 1024;

    /// A sparse temp file of `size` bytes with each (offset, bytes) written.
    fn image(size: u64, writes: &[(u64, &[u8])]) -> (tempfile::NamedTempFile, File) {
        let t = tempfile::NamedTempFile::new().unwrap();
        let f = t.reopen().unwrap();
        f.set_len(size).unwrap();
        for (off, b) in writes {
            f.write_all_at(b, *off).unwrap();
        }
        (t, f)
    }

    fn names(size: u64, writes: &[(u64, &[u8])]) -> Vec<(String, u64)> {
        let (_t, f) = image(size, writes);
        detect_hand_list(&f, size)
            .unwrap()
            .into_iter()
            .map(|s| (s.name, s.offset))
            .collect()
    }

    fn one(size: u64, writes: &[(u64, &[u8])], name: &str, offset: u64) {
        let got = names(size, writes);
        assert_eq!(
            got,
            vec![(name.to_string(), offset)],
            "writes at {:?}",
            writes.iter().map(|w| w.0).collect::<Vec<_>>()
        );
    }

    #[test]
    fn blank_image_has_no_signature() {
        assert!(names(4 * MIB, &[]).is_empty());
        assert!(names(0, &[]).is_empty());
        assert!(names(100, &[]).is_empty());
    }

    #[test]
    fn every_simple_magic_is_found() {
        for &(name, off, magic) in SIMPLE {
            one(4 * MIB, &[(off, magic)], name, off);
        }
    }

    #[test]
    fn magic_beyond_size_is_skipped() {
        // btrfs at 65600 on a 64 KiB "device" is out of range.
        let (_t, f) = image(MIB, &[(65600, b"_BHRfS_M")]);
        assert!(detect_hand_list(&f, 65536).unwrap().is_empty());
        assert_eq!(detect_hand_list(&f, 65608).unwrap().len(), 1);
    }

    fn ext_sb(compat: u32, incompat: u32, ro: u32) -> Vec<u8> {
        let mut sb = vec![0u8; 0x68];
        sb[0x38..0x3a].copy_from_slice(&[0x53, 0xef]);
        sb[0x5c..0x60].copy_from_slice(&compat.to_le_bytes());
        sb[0x60..0x64].copy_from_slice(&incompat.to_le_bytes());
        sb[0x64..0x68].copy_from_slice(&ro.to_le_bytes());
        sb
    }

    #[test]
    fn ext_variants_by_feature_flags() {
        one(MIB, &[(1024, &ext_sb(0, 0x2, 0x3))], "ext2", 1080);
        one(MIB, &[(1024, &ext_sb(0x4, 0x2, 0x3))], "ext3", 1080);
        // extents | 64bit | flex_bg, metadata_csum
        one(MIB, &[(1024, &ext_sb(0x4, 0x2c2, 0x46b))], "ext4", 1080);
        one(MIB, &[(1024, &ext_sb(0, 0x8, 0))], "jbd", 1080);
    }

    #[test]
    fn swap_at_each_page_size() {
        for ps in PAGE_SIZES {
            one(MIB, &[(ps - 10, b"SWAPSPACE2")], "swap", ps - 10);
        }
        one(MIB, &[(4086, b"SWAP-SPACE")], "swap", 4086);
        one(MIB, &[(4086, b"S1SUSPEND")], "swsuspend", 4086);
    }

    #[test]
    fn gpt_at_512_and_4096() {
        one(MIB, &[(512, b"EFI PART")], "gpt", 512);
        one(MIB, &[(4096, b"EFI PART")], "gpt", 4096);
    }

    fn mbr(entries: &[(u8, u8)]) -> Vec<u8> {
        let mut s = vec![0u8; 512];
        for (i, &(boot, ty)) in entries.iter().enumerate() {
            s[446 + 16 * i] = boot;
            s[446 + 16 * i + 4] = ty;
        }
        s[510] = 0x55;
        s[511] = 0xaa;
        s
    }

    #[test]
    fn dos_partition_table() {
        one(MIB, &[(0, &mbr(&[(0x80, 0x83), (0, 0x82)]))], "dos", 510);
        // 0x55AA without entries, or with a bad boot flag, is not a table.
        assert!(names(MIB, &[(0, &mbr(&[]))]).is_empty());
        assert!(names(MIB, &[(0, &mbr(&[(0x12, 0x83)]))]).is_empty());
    }

    #[test]
    fn fat_and_ntfs_boot_sectors_are_not_dos_tables() {
        let mut s = mbr(&[(0, 0x83)]);
        s[82..87].copy_from_slice(b"FAT32");
        one(MIB, &[(0, &s)], "vfat", 82);
        let mut s = mbr(&[(0, 0x83)]);
        s[54..59].copy_from_slice(b"FAT16");
        one(MIB, &[(0, &s)], "vfat", 54);
        let mut s = mbr(&[(0, 0x07)]);
        s[3..11].copy_from_slice(b"NTFS    ");
        one(MIB, &[(0, &s)], "ntfs", 3);
    }

    #[test]
    fn protective_mbr_is_reported_as_gpt_only() {
        let s = mbr(&[(0, 0xee)]);
        one(MIB, &[(0, &s), (512, b"EFI PART")], "gpt", 512);
        // Without the GPT header the protective MBR still counts.
        one(MIB, &[(0, &s)], "dos", 510);
    }

    #[test]
    fn lvm2_label_in_each_of_the_first_four_sectors() {
        for sector in 0..4u64 {
            let off = sector * 512;
            one(
                MIB,
                &[(off, b"LABELONE"), (off + 24, b"LVM2 001")],
                "LVM2_member",
                off,
            );
        }
        assert!(names(MIB, &[(0, b"LABELONE")]).is_empty());
    }

    #[test]
    fn luks1_and_luks2_secondary_header() {
        one(MIB, &[(0, b"LUKS\xba\xbe")], "crypto_LUKS", 0);
        one(MIB, &[(0x4000, b"SKUL\xba\xbe")], "crypto_LUKS", 0x4000);
    }

    fn md_sb(major: u32, big_endian: bool) -> Vec<u8> {
        let mut v = Vec::new();
        if big_endian {
            v.extend_from_slice(&MD_MAGIC.to_be_bytes());
            v.extend_from_slice(&major.to_be_bytes());
        } else {
            v.extend_from_slice(&MD_MAGIC.to_le_bytes());
            v.extend_from_slice(&major.to_le_bytes());
        }
        v
    }

    #[test]
    fn md_superblocks_v0_90_v1_0_v1_1_v1_2() {
        let size = 10 * MIB + 3 * 512;
        one(size, &[(4096, &md_sb(1, false))], "linux_raid_member", 4096);
        one(size, &[(0, &md_sb(1, false))], "linux_raid_member", 0);
        let v10 = (size - 8192) / 4096 * 4096;
        one(size, &[(v10, &md_sb(1, false))], "linux_raid_member", v10);
        let v090 = (size / 65536 - 1) * 65536;
        one(size, &[(v090, &md_sb(0, false))], "linux_raid_member", v090);
        one(size, &[(v090, &md_sb(0, true))], "linux_raid_member", v090);
        // The magic with a nonsense major version is not a superblock.
        assert!(names(size, &[(4096, &md_sb(7, false))]).is_empty());
    }

    #[test]
    fn zfs_uberblock_in_either_byte_order() {
        let le = ZFS_UB_MAGIC.to_le_bytes();
        let be = ZFS_UB_MAGIC.to_be_bytes();
        one(4 * MIB, &[(128 * KIB, &le)], "zfs_member", 128 * KIB);
        one(
            4 * MIB,
            &[(128 * KIB + 3 * KIB, &be)],
            "zfs_member",
            128 * KIB + 3 * KIB,
        );
        let l1 = 256 * KIB + 128 * KIB + 8 * KIB;
        one(4 * MIB, &[(l1, &le)], "zfs_member", l1);
        let l3 = 4 * MIB - 256 * KIB + 128 * KIB;
        one(4 * MIB, &[(l3, &le)], "zfs_member", l3);
    }

    #[test]
    fn iso9660_and_f2fs_at_their_offsets() {
        one(MIB, &[(32769, b"CD001")], "iso9660", 32769);
        one(MIB, &[(1024, &0xF2F5_2010u32.to_le_bytes())], "f2fs", 1024);
    }

    #[test]
    fn several_signatures_are_all_returned() {
        let got = names(
            MIB,
            &[(0, b"XFSB"), (4086, b"SWAPSPACE2"), (65600, b"_BHRfS_M")],
        );
        let n: Vec<&str> = got.iter().map(|g| g.0.as_str()).collect();
        assert_eq!(n, vec!["xfs", "btrfs", "swap"]);
    }

    #[test]
    fn reads_span_block_boundaries() {
        // "EFI PART" straddling 4096 is not at a probed offset, but a read
        // that crosses a block edge must still assemble the bytes.
        let (_t, f) = image(MIB, &[(4090, b"abcdefghijkl")]);
        let mut r = Reader::new(&f, MIB);
        assert_eq!(r.bytes(4090, 12).unwrap().unwrap(), b"abcdefghijkl");
        assert_eq!(r.bytes(MIB - 4, 8).unwrap(), None);
    }

    #[test]
    fn works_through_an_o_direct_descriptor() {
        use std::os::unix::fs::OpenOptionsExt;
        let (t, _f) = image(MIB, &[(1024, &ext_sb(0, 0x2c2, 0)), (65600, b"_BHRfS_M")]);
        let direct = match std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_DIRECT)
            .open(t.path())
        {
            Ok(f) => f,
            Err(e) => {
                iolab_testutil::print_skip(
                    module_path!(),
                    &format!("no O_DIRECT on the temp file system: {e}"),
                );
                return;
            }
        };
        let got: Vec<String> = detect_hand_list(&direct, MIB)
            .unwrap()
            .into_iter()
            .map(|s| s.name)
            .collect();
        assert_eq!(got, vec!["btrfs", "ext4"]);
    }

    #[test]
    fn describe_names_the_kind() {
        assert_eq!(describe("ext4"), "an ext4 file system");
        assert_eq!(describe("gpt"), "a GPT partition table");
        assert_eq!(describe("something"), "a something");
        assert_eq!(describe("oracleasm"), "an Oracle ASM disk");
        assert_eq!(describe("dos"), "a DOS partition table");
        assert_eq!(describe("LVM2_member"), "an LVM2 physical volume");
        assert_eq!(describe("isw_raid_member"), "a firmware RAID member (isw)");
    }
}
