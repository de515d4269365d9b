//! The journal: what a verified run wrote, kept on stable storage so a
//! later run can carry on and `iolab verify` can check a target after a
//! crash.
//!
//! A journal is a directory:
//! - `journal.json`: the header (format, series, block size, data pattern,
//!   targets with their identity and size, state `open` or `closed`, and a
//!   checksum of each map when closed). Replaced atomically.
//! - `map-N.bin`: target N's generation map: a 4 KiB header (magic
//!   `iOLjmap1`, series, target number, block size, block count, xxh3 of
//!   those) and one byte per block (see [`crate::map`]).
//! - `journal.lock`: held (flock) while a run or a verify uses the journal.
//!
//! Nothing is written to a journal that fails a check: bad input leaves
//! it untouched.
//!
//! A journal is read through iolab_target's bounded reads: `journal.json`
//! must be a regular file of at most 64 MiB, and each map a regular file in
//! the journal directory of exactly its expected length, at most
//! [`MAP_LIMIT`] bytes.

use crate::check::rfc3339;
use crate::map::{GenMap, GEN, LOCK, MAP_HEADER, UNSURE};
use iolab_spec::DataPattern;
use serde::{Deserialize, Serialize};
use std::fs::{File, OpenOptions};
use std::io::{self, Read, Write};
use std::os::unix::fs::{FileExt, FileTypeExt, MetadataExt};
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use xxhash_rust::xxh3::xxh3_64;

pub const FORMAT: &str = "iolab-journal";
pub const VERSION: u32 = 1;
const MAP_MAGIC: &[u8; 8] = b"iOLjmap1";

/// The largest map file a journal may have: 16 GiB of map, one byte per
/// block, covers 64 TiB of target at 4 KiB blocks (a larger target needs a
/// larger block size). `iolab verify` holds the maps in memory.
pub const MAP_LIMIT: u64 = MAP_HEADER as u64 + (16 << 30);

/// A journal problem: bad input, reported in one line, exit code 2.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct JournalError(pub String);

fn jerr(s: impl Into<String>) -> JournalError {
    JournalError(s.into())
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JournalTarget {
    pub path: String,
    /// `file` or `block_device`.
    pub kind: String,
    /// st_dev and st_ino of a file; st_rdev (and 0) of a block device.
    pub dev: u64,
    pub ino: u64,
    /// Target size in bytes when the journal was made.
    pub size: u64,
    pub blocks: u64,
    pub map_file: String,
    /// xxh3-64 of the map bytes, set when the journal is closed cleanly.
    #[serde(default)]
    pub map_xxh3: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JournalHeader {
    pub format: String,
    pub version: u32,
    /// The series every stamp carries (hex).
    pub series: String,
    pub created_at: String,
    pub updated_at: String,
    /// `open` while a run uses it (or after a crash), `closed` after a
    /// clean end.
    pub state: String,
    pub runs: u32,
    /// Block size of the generation map, bytes.
    pub block_size: u64,
    pub data: DataPattern,
    pub data_seed: u64,
    /// The last run promised durability (O_DSYNC or --fsync-every), so
    /// the journal was synced before its writes were issued. Without it,
    /// the journal can lag the data after a power cut (not after kill -9).
    #[serde(default)]
    pub last_run_durable: bool,
    pub targets: Vec<JournalTarget>,
}

impl JournalHeader {
    pub fn series_u64(&self) -> u64 {
        u64::from_str_radix(&self.series, 16).unwrap_or(0)
    }
    pub fn crashed(&self) -> bool {
        self.state != "closed"
    }
}

/// Who a target is, to match it with a journal.
#[derive(Debug, Clone, PartialEq)]
pub struct TargetIdent {
    pub path: String,
    pub kind: String,
    pub dev: u64,
    pub ino: u64,
    pub size: u64,
}

impl TargetIdent {
    /// Identify `path` whose usable size is `size` bytes.
    pub fn of(path: &Path, size: u64) -> io::Result<TargetIdent> {
        let m = std::fs::metadata(path)?;
        let block = m.file_type().is_block_device();
        let abs = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        Ok(TargetIdent {
            path: abs.to_string_lossy().into_owned(),
            kind: if block { "block_device" } else { "file" }.into(),
            dev: if block { m.rdev() } else { m.dev() },
            ino: if block { 0 } else { m.ino() },
            size,
        })
    }
    fn same(&self, t: &JournalTarget) -> bool {
        self.kind == t.kind && self.dev == t.dev && self.ino == t.ino
    }
}

fn now_ns() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0)
}

/// A fresh series identity: random, so two runs never share one.
pub fn new_series() -> u64 {
    let mut b = [0u8; 8];
    if File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut b))
        .is_ok()
    {
        let v = u64::from_le_bytes(b);
        if v != 0 {
            return v;
        }
    }
    now_ns() ^ ((std::process::id() as u64) << 40) | 1
}

/// The first 40 bytes of target `target`'s map file: magic, series, target
/// number, block size, block count and the xxh3 of those (the rest of the
/// 4 KiB header is zero).
pub fn map_header(series: u64, target: u32, block_size: u64, blocks: u64) -> [u8; 40] {
    let mut h = [0u8; 40];
    h[0..8].copy_from_slice(MAP_MAGIC);
    h[8..16].copy_from_slice(&series.to_le_bytes());
    h[16..20].copy_from_slice(&target.to_le_bytes());
    h[20..24].copy_from_slice(&(block_size as u32).to_le_bytes());
    h[24..32].copy_from_slice(&blocks.to_le_bytes());
    let sum = xxh3_64(&h[0..32]);
    h[32..40].copy_from_slice(&sum.to_le_bytes());
    h
}

fn lock_dir(dir: &Path) -> Result<File, JournalError> {
    let p = dir.join("journal.lock");
    let f = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&p)
        .map_err(|e| jerr(format!("cannot open {}: {e}", p.display())))?;
    // SAFETY: flock on an fd we own.
    if unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } != 0 {
        return Err(jerr(format!(
            "journal {} is in use by another iolab; wait for it to finish or give another --journal",
            dir.display()
        )));
    }
    Ok(f)
}

fn write_header(dir: &Path, h: &JournalHeader) -> io::Result<()> {
    let tmp = dir.join("journal.json.tmp");
    let mut f = File::create(&tmp)?;
    let text = serde_json::to_string_pretty(h).map_err(io::Error::other)?;
    f.write_all(text.as_bytes())?;
    f.write_all(b"\n")?;
    f.sync_all()?;
    std::fs::rename(&tmp, dir.join("journal.json"))?;
    File::open(dir)?.sync_all()
}

/// Read and check a journal without changing it: the header and each
/// target's map bytes (lock bits cleared).
pub fn load(dir: &Path) -> Result<(JournalHeader, Vec<Vec<u8>>), JournalError> {
    let hp = dir.join("journal.json");
    if !dir.is_dir() {
        return Err(jerr(format!(
            "journal {} does not exist; give the --journal directory of an earlier `iolab run --verify --journal`",
            dir.display()
        )));
    }
    let text = iolab_target::read_text_bounded(&hp, iolab_target::TEXT_LIMIT).map_err(|e| {
        jerr(format!(
            "{} is not an iolab journal ({e}); give the directory an `iolab run --journal` wrote",
            dir.display(),
        ))
    })?;
    let h = parse_header(&text, &hp)?;
    let mut maps = Vec::new();
    for (i, t) in h.targets.iter().enumerate() {
        // parse_header checked that the name is plain and the length
        // bounded.
        let want = MAP_HEADER as u64 + t.blocks;
        let mp = dir.join(&t.map_file);
        let bytes = iolab_target::read_exact_len(&mp, want).map_err(|e| match e {
            iolab_target::InputError::NotFound { .. } => jerr(format!(
                "journal {} is missing {}; restore it or start a new journal",
                dir.display(),
                t.map_file
            )),
            iolab_target::InputError::WrongLength { size, .. } => jerr(format!(
                "{} is truncated or damaged: {size} bytes where {want} were expected; restore it or start a new journal",
                mp.display(),
            )),
            e => jerr(format!(
                "journal {} has a bad map: {e}; restore it or start a new journal",
                dir.display()
            )),
        })?;
        maps.push(parse_map(bytes, &h, i, &mp)?);
    }
    Ok((h, maps))
}

/// Parse and check the text of `journal.json` (`hp` names it in errors).
/// The pure step of [`load`], also what the fuzz targets exercise.
pub fn parse_header(text: &str, hp: &Path) -> Result<JournalHeader, JournalError> {
    let h: JournalHeader = serde_json::from_str(text).map_err(|e| {
        jerr(format!(
            "{} is corrupted ({e}); restore it from a copy or start a new journal directory",
            hp.display()
        ))
    })?;
    if h.format != FORMAT || h.version != VERSION {
        return Err(jerr(format!(
            "{} is format {} version {}, this iolab reads {FORMAT} version {VERSION}; use the iolab that wrote it",
            hp.display(),
            h.format,
            h.version
        )));
    }
    if h.block_size == 0 || !h.block_size.is_multiple_of(512) || h.targets.is_empty() {
        return Err(jerr(format!(
            "{} is corrupted (block size {} with {} targets); restore it or start a new journal",
            hp.display(),
            h.block_size,
            h.targets.len()
        )));
    }
    for t in &h.targets {
        // A map is a file of the journal directory itself, never a path
        // elsewhere (`/dev/zero`, `../x`), and of a bounded length.
        let plain = !t.map_file.is_empty()
            && !t.map_file.contains('/')
            && t.map_file != "."
            && t.map_file != "..";
        let want = (MAP_HEADER as u64).saturating_add(t.blocks);
        if !plain || t.blocks != t.size / h.block_size || want > MAP_LIMIT {
            return Err(jerr(format!(
                "{} is corrupted (target {}: map file '{}' of {} blocks for {} bytes at {}-byte blocks); restore it or start a new journal",
                hp.display(),
                t.path,
                t.map_file,
                t.blocks,
                t.size,
                h.block_size
            )));
        }
    }
    Ok(h)
}

/// Check the bytes of target `i`'s map file `mp` against header `h`: the
/// map bytes, lock bits cleared. The pure step of [`load`], also what the
/// fuzz targets exercise.
pub fn parse_map(
    mut bytes: Vec<u8>,
    h: &JournalHeader,
    i: usize,
    mp: &Path,
) -> Result<Vec<u8>, JournalError> {
    let t = &h.targets[i];
    let series = h.series_u64();
    // Saturating: a damaged header may claim up to u64::MAX blocks.
    let want = (MAP_HEADER as u64).saturating_add(t.blocks);
    if (bytes.len() as u64) != want {
        return Err(jerr(format!(
            "{} is truncated or damaged: {} bytes where {want} were expected; restore it or start a new journal",
            mp.display(),
            bytes.len()
        )));
    }
    let hdr = map_header(series, i as u32, h.block_size, t.blocks);
    if bytes[..8] != *MAP_MAGIC || bytes[32..40] != hdr[32..40] {
        return Err(jerr(format!(
            "{} belongs to another journal or target (its header does not match its journal.json); give the journal's own map files",
            mp.display()
        )));
    }
    let map = bytes.split_off(MAP_HEADER);
    if !h.crashed() {
        let sum = format!("{:016x}", xxh3_64(&map));
        if t.map_xxh3.as_deref() != Some(sum.as_str()) {
            return Err(jerr(format!(
                "{} is corrupted (checksum {sum}, journal.json says {}); restore it or start a new journal",
                mp.display(),
                t.map_xxh3.as_deref().unwrap_or("none")
            )));
        }
    }
    Ok(map.into_iter().map(|b| b & !LOCK).collect())
}

/// Whether `dir` can be a run's journal: a new path below a writable
/// directory, an empty directory, or a directory holding a journal; never
/// a block device, a file, or a directory of other things. Checked before
/// a run's first I/O and again when the journal is opened.
pub fn check_dir(dir: &Path) -> Result<(), JournalError> {
    iolab_target::check_journal_dir("--journal", dir).map_err(|e| jerr(e.0))?;
    if !dir.is_dir() || dir.join("journal.json").exists() {
        return Ok(());
    }
    let entries = std::fs::read_dir(dir)
        .map_err(|e| jerr(format!("cannot read {}: {e}", dir.display())))?
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name() != "journal.lock")
        .count();
    if entries > 0 {
        return Err(jerr(format!(
            "{} is not empty and holds no journal.json; give an empty or new directory for --journal",
            dir.display()
        )));
    }
    Ok(())
}

/// Match a run's targets with a journal's: the journal index of each.
pub fn match_targets(
    dir: &Path,
    h: &JournalHeader,
    targets: &[TargetIdent],
) -> Result<Vec<u32>, JournalError> {
    let mut out = Vec::new();
    for t in targets {
        let Some(i) = h.targets.iter().position(|j| t.same(j)) else {
            return Err(jerr(not_this_target(dir, h, t)));
        };
        let j = &h.targets[i];
        if t.size < j.size {
            return Err(jerr(format!(
                "{} is {} bytes but journal {} recorded {} bytes; the target shrank or is another device: check it, or start a new journal",
                t.path,
                t.size,
                dir.display(),
                j.size
            )));
        }
        out.push(i as u32);
    }
    Ok(out)
}

/// `major:minor` of a device number.
fn dev_text(dev: u64) -> String {
    let major = ((dev >> 32) & 0xffff_f000) | ((dev >> 8) & 0xfff);
    let minor = ((dev >> 12) & 0xffff_ff00) | (dev & 0xff);
    format!("{major}:{minor}")
}

/// Who a target is, in words: "block device 7:7" or "file inode 12 on
/// device 8:1".
fn identity_text(kind: &str, dev: u64, ino: u64) -> String {
    if kind == "block_device" {
        format!("block device {}", dev_text(dev))
    } else {
        format!("file inode {ino} on device {}", dev_text(dev))
    }
}

/// Why `t` is none of the journal's targets: what differs when the journal
/// has a target of the same name (another device or file now carries that
/// name), else which targets the journal was written for.
fn not_this_target(dir: &Path, h: &JournalHeader, t: &TargetIdent) -> String {
    let now = identity_text(&t.kind, t.dev, t.ino);
    let fix = format!(
        "give the target journal {} was written for, or start a new journal with --journal NEW_DIR",
        dir.display()
    );
    if let Some(j) = h.targets.iter().find(|j| j.path == t.path) {
        let what = if j.kind != t.kind {
            format!(
                "it was a {} then and is a {} now",
                j.kind.replace('_', " "),
                t.kind.replace('_', " ")
            )
        } else if t.kind == "block_device" {
            format!(
                "its device number was {} and is {} now: another device has that name",
                dev_text(j.dev),
                dev_text(t.dev)
            )
        } else if j.dev != t.dev {
            format!(
                "it was on device {} and is on {} now: another file system is mounted there",
                dev_text(j.dev),
                dev_text(t.dev)
            )
        } else {
            format!(
                "it was inode {} and is inode {} now: the file was replaced",
                j.ino, t.ino
            )
        };
        return format!(
            "journal {} was written for {} ({} bytes), but {what}; {fix}",
            dir.display(),
            j.path,
            j.size
        );
    }
    let names: Vec<String> = h
        .targets
        .iter()
        .map(|j| format!("{} ({})", j.path, identity_text(&j.kind, j.dev, j.ino)))
        .collect();
    format!(
        "journal {} was written for {}, not {} ({now}); {fix}",
        dir.display(),
        names.join(", "),
        t.path
    )
}

/// A journal in use by a run.
pub struct Journal {
    dir: PathBuf,
    header: JournalHeader,
    maps: Vec<Arc<GenMap>>,
    _lock: File,
    /// Index in the journal of each of the run's targets.
    pub index_of: Vec<u32>,
    /// True when the journal existed before this run.
    pub resumed: bool,
    /// Blocks whose content was unknown when the journal was opened (a
    /// write without durability promise when the previous run ended
    /// abruptly); they are not checked until written again.
    pub reset_unsure: u64,
}

impl Journal {
    /// Open `dir` for a run on `targets`: create it when it is missing or
    /// empty, otherwise load it and check it describes these targets.
    pub fn open_for_run(
        dir: &Path,
        targets: &[TargetIdent],
        block_size: u64,
        data: DataPattern,
        data_seed: u64,
        durable: bool,
    ) -> Result<Journal, JournalError> {
        check_dir(dir)?;
        let exists = dir.join("journal.json").exists();
        if !exists {
            if !dir.exists() {
                std::fs::create_dir_all(dir).map_err(|e| {
                    jerr(format!(
                        "cannot create journal directory {}: {e}",
                        dir.display()
                    ))
                })?;
            }
            return Self::create(dir, targets, block_size, data, data_seed, durable);
        }
        let lock = lock_dir(dir)?;
        let (mut h, _) = load(dir)?;
        let index_of = match_targets(dir, &h, targets)?;
        if !block_size.is_multiple_of(h.block_size) {
            return Err(jerr(format!(
                "journal {} tracks {}-byte blocks; this workload's block sizes, alignment and offsets must be multiples of {} (or use a new journal)",
                dir.display(),
                h.block_size,
                h.block_size
            )));
        }
        if h.data != data {
            return Err(jerr(format!(
                "journal {} was written with --data {:?}, this run asks for {:?}; give the same --data or a new journal",
                dir.display(),
                h.data,
                data
            )));
        }
        let crashed = h.crashed();
        let mut maps = Vec::new();
        let mut reset = 0u64;
        for t in h.targets.iter() {
            let f = OpenOptions::new()
                .read(true)
                .write(true)
                .open(dir.join(&t.map_file))
                .map_err(|e| jerr(format!("cannot open {}: {e}", t.map_file)))?;
            let m = GenMap::shared(f, t.blocks as usize)
                .map_err(|e| jerr(format!("cannot map {}: {e}", t.map_file)))?;
            for b in m.entries() {
                let v = b.load(Ordering::Relaxed);
                if v & (LOCK | UNSURE) != 0 {
                    let nv = if v & UNSURE != 0 && crashed {
                        reset += 1;
                        0
                    } else {
                        v & GEN
                    };
                    b.store(nv, Ordering::Relaxed);
                }
            }
            maps.push(Arc::new(m));
        }
        h.state = "open".into();
        h.runs += 1;
        h.last_run_durable = durable;
        h.updated_at = rfc3339(now_ns());
        for t in h.targets.iter_mut() {
            t.map_xxh3 = None;
        }
        for m in &maps {
            m.sync()
                .map_err(|e| jerr(format!("cannot sync the journal map: {e}")))?;
        }
        write_header(dir, &h).map_err(|e| jerr(format!("cannot write the journal header: {e}")))?;
        Ok(Journal {
            dir: dir.to_path_buf(),
            header: h,
            maps,
            _lock: lock,
            index_of,
            resumed: true,
            reset_unsure: reset,
        })
    }

    fn create(
        dir: &Path,
        targets: &[TargetIdent],
        block_size: u64,
        data: DataPattern,
        data_seed: u64,
        durable: bool,
    ) -> Result<Journal, JournalError> {
        let lock = lock_dir(dir)?;
        let series = new_series();
        let now = rfc3339(now_ns());
        let mut jt = Vec::new();
        let mut maps = Vec::new();
        for (i, t) in targets.iter().enumerate() {
            let blocks = t.size / block_size;
            if MAP_HEADER as u64 + blocks > MAP_LIMIT {
                return Err(jerr(format!(
                    "{} has {blocks} blocks of {block_size} bytes, more than a journal map holds ({} blocks); give a larger --bs or a smaller --size",
                    t.path,
                    MAP_LIMIT - MAP_HEADER as u64
                )));
            }
            let name = format!("map-{i}.bin");
            let p = dir.join(&name);
            let io = |e: io::Error| jerr(format!("cannot create {}: {e}", p.display()));
            let f = OpenOptions::new()
                .read(true)
                .write(true)
                .create_new(true)
                .open(&p)
                .map_err(io)?;
            f.set_len(MAP_HEADER as u64 + blocks).map_err(io)?;
            f.write_all_at(&map_header(series, i as u32, block_size, blocks), 0)
                .map_err(io)?;
            let m = GenMap::shared(f, blocks as usize).map_err(io)?;
            m.sync().map_err(io)?;
            maps.push(Arc::new(m));
            jt.push(JournalTarget {
                path: t.path.clone(),
                kind: t.kind.clone(),
                dev: t.dev,
                ino: t.ino,
                size: t.size,
                blocks,
                map_file: name,
                map_xxh3: None,
            });
        }
        let h = JournalHeader {
            format: FORMAT.into(),
            version: VERSION,
            series: format!("{series:016x}"),
            created_at: now.clone(),
            updated_at: now,
            state: "open".into(),
            runs: 1,
            block_size,
            data,
            data_seed,
            last_run_durable: durable,
            targets: jt,
        };
        write_header(dir, &h).map_err(|e| jerr(format!("cannot write the journal header: {e}")))?;
        Ok(Journal {
            dir: dir.to_path_buf(),
            header: h,
            maps,
            _lock: lock,
            index_of: (0..targets.len() as u32).collect(),
            resumed: false,
            reset_unsure: 0,
        })
    }

    pub fn header(&self) -> &JournalHeader {
        &self.header
    }
    pub fn dir(&self) -> &Path {
        &self.dir
    }
    pub fn series(&self) -> u64 {
        self.header.series_u64()
    }
    /// The map of each journal target (by journal index).
    pub fn maps(&self) -> &[Arc<GenMap>] {
        &self.maps
    }

    /// Close after the run. `clean` means every completed write is known
    /// durable (the targets were synced): UNSURE bits are cleared and the
    /// maps checksummed. Otherwise the journal stays `open` and a later
    /// verify treats unsure blocks as old-or-new.
    pub fn close(mut self, clean: bool) -> io::Result<()> {
        for m in &self.maps {
            if clean {
                for b in m.entries() {
                    let v = b.load(Ordering::Relaxed);
                    if v & (LOCK | UNSURE) != 0 {
                        b.store(v & GEN, Ordering::Relaxed);
                    }
                }
            }
            m.sync()?;
        }
        self.header.updated_at = rfc3339(now_ns());
        if clean {
            for (t, m) in self.header.targets.iter_mut().zip(&self.maps) {
                let bytes = m.snapshot();
                t.map_xxh3 = Some(format!("{:016x}", xxh3_64(&bytes)));
            }
            self.header.state = "closed".into();
        }
        write_header(&self.dir, &self.header)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ident(f: &Path, size: u64) -> TargetIdent {
        TargetIdent::of(f, size).unwrap()
    }

    #[test]
    fn create_close_reload_and_resume() {
        let d = tempfile::tempdir().unwrap();
        let t = d.path().join("t");
        std::fs::write(&t, vec![0u8; 65536]).unwrap();
        let jd = d.path().join("j");
        let j = Journal::open_for_run(&jd, &[ident(&t, 65536)], 4096, DataPattern::Random, 9, true)
            .unwrap();
        assert!(!j.resumed);
        j.maps()[0].entries()[3].store(UNSURE | 5, Ordering::Relaxed);
        j.maps()[0].entries()[4].store(7, Ordering::Relaxed);
        let series = j.series();
        j.close(true).unwrap();
        let (h, maps) = load(&jd).unwrap();
        assert_eq!(h.state, "closed");
        assert_eq!(h.series_u64(), series);
        assert_eq!(maps[0].len(), 16);
        assert_eq!((maps[0][3], maps[0][4]), (5, 7));
        let j = Journal::open_for_run(&jd, &[ident(&t, 65536)], 8192, DataPattern::Random, 1, true)
            .unwrap();
        assert!(j.resumed);
        assert_eq!(j.series(), series);
        assert_eq!(j.header().runs, 2);
    }

    #[test]
    fn a_crashed_journal_forgets_unsure_blocks_when_resumed() {
        let d = tempfile::tempdir().unwrap();
        let t = d.path().join("t");
        std::fs::write(&t, vec![0u8; 8192]).unwrap();
        let jd = d.path().join("j");
        let j = Journal::open_for_run(&jd, &[ident(&t, 8192)], 4096, DataPattern::Random, 9, true)
            .unwrap();
        j.maps()[0].entries()[0].store(LOCK | UNSURE | 5, Ordering::Relaxed);
        j.maps()[0].entries()[1].store(LOCK | 6, Ordering::Relaxed);
        drop(j); // no close: a crash
        let (h, maps) = load(&jd).unwrap();
        assert!(h.crashed());
        assert_eq!(maps[0], vec![UNSURE | 5, 6]);
        let j = Journal::open_for_run(&jd, &[ident(&t, 8192)], 4096, DataPattern::Random, 9, true)
            .unwrap();
        assert_eq!(j.reset_unsure, 1);
        assert_eq!(j.maps()[0].snapshot(), vec![0, 6]);
    }

    #[test]
    fn bad_journals_are_refused_and_left_untouched() {
        let d = tempfile::tempdir().unwrap();
        let a = d.path().join("a");
        let b = d.path().join("b");
        std::fs::write(&a, vec![0u8; 8192]).unwrap();
        std::fs::write(&b, vec![0u8; 8192]).unwrap();
        let jd = d.path().join("j");
        Journal::open_for_run(&jd, &[ident(&a, 8192)], 4096, DataPattern::Random, 9, true)
            .unwrap()
            .close(true)
            .unwrap();
        let snapshot = |p: &Path| {
            let mut v: Vec<(String, Vec<u8>)> = std::fs::read_dir(p)
                .unwrap()
                .map(|e| e.unwrap())
                .filter(|e| e.file_name() != "journal.lock")
                .map(|e| {
                    (
                        e.file_name().to_string_lossy().into(),
                        std::fs::read(e.path()).unwrap(),
                    )
                })
                .collect();
            v.sort();
            v
        };
        let before = snapshot(&jd);
        let e = Journal::open_for_run(&jd, &[ident(&b, 8192)], 4096, DataPattern::Random, 9, true)
            .err()
            .unwrap();
        assert!(e.0.contains("was written for"), "{e}");
        assert!(e.0.contains("--journal NEW_DIR"), "{e}");
        let e = Journal::open_for_run(&jd, &[ident(&a, 4096)], 4096, DataPattern::Random, 9, true)
            .err()
            .unwrap();
        assert!(e.0.contains("recorded 8192 bytes"), "{e}");
        assert_eq!(snapshot(&jd), before);
        // A truncated map, a corrupted map, a corrupted header.
        let mp = jd.join("map-0.bin");
        let orig = std::fs::read(&mp).unwrap();
        std::fs::write(&mp, &orig[..orig.len() - 1]).unwrap();
        assert!(load(&jd).err().unwrap().0.contains("truncated"));
        let mut flipped = orig.clone();
        *flipped.last_mut().unwrap() ^= 1;
        std::fs::write(&mp, &flipped).unwrap();
        assert!(load(&jd).err().unwrap().0.contains("corrupted"));
        std::fs::write(&mp, &orig).unwrap();
        let hp = jd.join("journal.json");
        let h = std::fs::read(&hp).unwrap();
        std::fs::write(&hp, &h[..h.len() / 2]).unwrap();
        assert!(load(&jd).err().unwrap().0.contains("corrupted"));
    }

    #[test]
    fn maps_must_be_plain_files_of_the_journal_of_their_exact_length() {
        let d = tempfile::tempdir().unwrap();
        let t = d.path().join("t");
        std::fs::write(&t, vec![0u8; 8192]).unwrap();
        let jd = d.path().join("j");
        Journal::open_for_run(&jd, &[ident(&t, 8192)], 4096, DataPattern::Random, 9, true)
            .unwrap()
            .close(true)
            .unwrap();
        let hp = jd.join("journal.json");
        let h = std::fs::read_to_string(&hp).unwrap();
        for bad in ["/dev/zero", "../t", ".", ""] {
            std::fs::write(&hp, h.replace("\"map-0.bin\"", &format!("{bad:?}"))).unwrap();
            let e = load(&jd).err().unwrap();
            assert!(e.0.contains("is corrupted"), "{bad}: {e}");
        }
        // More blocks than the target's size holds.
        std::fs::write(&hp, h.replace("\"blocks\": 2", "\"blocks\": 3")).unwrap();
        assert!(load(&jd)
            .err()
            .unwrap()
            .0
            .contains("3 blocks for 8192 bytes"));
        std::fs::write(&hp, &h).unwrap();
        let mp = jd.join("map-0.bin");
        std::fs::remove_file(&mp).unwrap();
        std::os::unix::fs::symlink("/dev/zero", &mp).unwrap();
        let t0 = std::time::Instant::now();
        let e = load(&jd).err().unwrap();
        assert!(e.0.contains("character device"), "{e}");
        assert!(t0.elapsed() < std::time::Duration::from_secs(1));
        // A journal path that is a file is refused before anything is made.
        let e = check_dir(&t).err().unwrap();
        assert!(e.0.contains("is a regular file, not a directory"), "{e}");
    }

    #[test]
    fn a_journal_for_another_device_of_the_same_name_says_what_differs() {
        let d = tempfile::tempdir().unwrap();
        let a = d.path().join("a");
        std::fs::write(&a, vec![0u8; 8192]).unwrap();
        let jd = d.path().join("j");
        let then = ident(&a, 8192);
        Journal::open_for_run(
            &jd,
            std::slice::from_ref(&then),
            4096,
            DataPattern::Random,
            9,
            true,
        )
        .unwrap()
        .close(true)
        .unwrap();
        let (h, _) = load(&jd).unwrap();
        // The same name, now another block device (7:8 instead of 7:7).
        let mut h_dev = h.clone();
        h_dev.targets[0].kind = "block_device".into();
        h_dev.targets[0].dev = (7 << 8) | 7;
        h_dev.targets[0].ino = 0;
        let now = TargetIdent {
            kind: "block_device".into(),
            dev: (7 << 8) | 8,
            ino: 0,
            ..then.clone()
        };
        let e = match_targets(&jd, &h_dev, std::slice::from_ref(&now))
            .unwrap_err()
            .0;
        assert!(e.contains("device number was 7:7 and is 7:8 now"), "{e}");
        assert!(e.contains("new journal"), "{e}");
        // The same name, now another file (replaced: a new inode).
        let replaced = TargetIdent {
            ino: then.ino + 1,
            ..then.clone()
        };
        let e = match_targets(&jd, &h, &[replaced]).unwrap_err().0;
        assert!(e.contains("the file was replaced"), "{e}");
        // A file where a block device was.
        let e = match_targets(&jd, &h_dev, std::slice::from_ref(&then))
            .unwrap_err()
            .0;
        assert!(
            e.contains("was a block device then and is a file now"),
            "{e}"
        );
    }

    /// Found by the fuzz pass: a header claiming u64::MAX blocks made the
    /// expected map length overflow (a panic in debug builds) instead of
    /// refusing the map.
    #[test]
    fn a_block_count_near_u64_max_is_refused_not_an_overflow() {
        let text = r#"{"format":"iolab-journal","version":1,"series":"ab","created_at":"","updated_at":"","state":"open","runs":1,"block_size":4096,"data":{"kind":"random"},"data_seed":1,"targets":[{"path":"/t","kind":"file","dev":1,"ino":2,"size":65536,"blocks":18446744073709551615,"map_file":"map-0.bin"}]}"#;
        // The header check refuses it (more blocks than the size holds) ...
        let e = parse_header(text, Path::new("journal.json")).unwrap_err();
        assert!(e.0.contains("is corrupted"), "{e}");
        // ... and the map check, given such a header anyway, does not overflow.
        let h: JournalHeader = serde_json::from_str(text).unwrap();
        let e = parse_map(vec![0u8; 4112], &h, 0, Path::new("map-0.bin")).unwrap_err();
        assert!(e.0.contains("truncated or damaged"), "{e}");
    }
}
