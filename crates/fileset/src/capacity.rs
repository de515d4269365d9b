//! The capacity check made before anything is created: free bytes and
//! free inodes of the anchor's file system (fstatvfs) against what the
//! layout still needs, refused with the numbers.

use crate::anchor::{is_kind, lstatat, Anchor, AnchorState, DirCache, FsError};
use crate::create::Format;
use crate::layout::Layout;
use iolab_spec::thousands;

/// What creating a layout still needs on the anchor's file system.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Needs {
    /// Bytes, each file and directory rounded up to the fragment size.
    pub bytes: u64,
    pub inodes: u64,
    /// The count stopped once it exceeded what is free (the need only
    /// grows as the layout is walked, so the refusal is certain): the
    /// figures are a lower bound.
    pub at_least: bool,
    /// Existing files creation rewrites: of another size under
    /// `restart` (extended or truncated), every one under `yes`.
    pub rewrites: u64,
}

impl Needs {
    /// Creation writes something: a directory or file to make, bytes to
    /// add, a file to rewrite.
    pub fn writes(&self) -> bool {
        self.bytes > 0 || self.inodes > 0 || self.rewrites > 0
    }
}

/// Free space of the file system holding the anchor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Free {
    pub bytes: u64,
    pub inodes: u64,
    /// The file system counts inodes (btrfs reports 0 and has no limit).
    pub counts_inodes: bool,
    pub block: u64,
}

/// fstatvfs of the anchor.
pub fn free(anchor: &Anchor) -> Result<Free, FsError> {
    // SAFETY: statvfs is plain data filled in by the kernel.
    let mut s: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: the anchor's descriptor is open; s is valid for the call.
    if unsafe { libc::fstatvfs(anchor.raw(), &mut s) } != 0 {
        return Err(FsError::os(
            &anchor.path,
            "statvfs",
            &std::io::Error::last_os_error(),
        ));
    }
    let block = (s.f_frsize as u64).max(1);
    Ok(Free {
        bytes: (s.f_bavail as u64).saturating_mul(block),
        inodes: s.f_favail as u64,
        counts_inodes: s.f_files != 0,
        block,
    })
}

impl Needs {
    /// What is missing in the anchor for `layout` under `format`: files and
    /// directories absent, and the blocks existing files lack (under
    /// `Format::No` an existing file is kept as it is and needs nothing).
    /// An anchor iolab just made or adopted is empty, so the need is
    /// counted from the layout alone, without a stat per entry. Past
    /// [`EXACT_ENTRIES`] entries the count stops as soon as it exceeds
    /// what is free ([`Needs::at_least`]): a fileset of 10^8 files on a
    /// small file system is refused at once, not after 10^8 steps.
    pub fn of(anchor: &Anchor, layout: &Layout, format: Format) -> Result<Needs, FsError> {
        let f = free(anchor)?;
        let block = f.block;
        // What check_capacity may add back (the marker and the anchor).
        let (room_bytes, room_inodes) = (f.bytes.saturating_add(2 * block), f.inodes + 2);
        let mut walked = 0u64;
        let mut over = |n: &mut Needs| {
            walked += 1;
            let out = n.bytes > room_bytes || (f.counts_inodes && n.inodes > room_inodes);
            n.at_least = out && walked > EXACT_ENTRIES;
            n.at_least
        };
        let round = |b: u64| b.div_ceil(block).saturating_mul(block);
        let mut n = Needs::default();
        let empty = anchor.state != AnchorState::Marked;
        let mut cache = DirCache::new(anchor);
        for d in 0..layout.dirs() {
            if over(&mut n) {
                return Ok(n);
            }
            if empty || !exists(&mut cache, &layout.dir_path(d), &anchor.path)? {
                n.bytes = n.bytes.saturating_add(block);
                n.inodes += 1;
            }
        }
        for i in (0..layout.files()).filter(|&i| layout.prealloc(i)) {
            if over(&mut n) {
                return Ok(n);
            }
            let want = round(layout.size(i));
            let st = if empty {
                None
            } else {
                let rel = layout.file_path(i);
                match cache.parent(&rel) {
                    Ok((dir, name)) => lstatat(dir, name)
                        .map_err(|e| FsError::os(&anchor.path.join(&rel), "stat", &e))?,
                    Err(_) => None,
                }
            };
            match st {
                Some(st) if is_kind(&st, libc::S_IFREG) => {
                    if format != Format::No {
                        n.bytes = n
                            .bytes
                            .saturating_add(want.saturating_sub(st.st_blocks as u64 * 512));
                    }
                    let resize = format == Format::Restart && st.st_size as u64 != layout.size(i);
                    if resize || format == Format::Yes {
                        n.rewrites += 1;
                    }
                }
                _ => {
                    n.bytes = n.bytes.saturating_add(want);
                    n.inodes += 1;
                }
            }
        }
        Ok(n)
    }
}

/// Entries (directories and files) the capacity count always walks in
/// full, so a refusal of an ordinary fileset gives its exact need.
pub const EXACT_ENTRIES: u64 = 1 << 16;

fn exists(
    cache: &mut DirCache,
    rel: &std::path::Path,
    anchor: &std::path::Path,
) -> Result<bool, FsError> {
    match cache.parent(rel) {
        Ok((dir, name)) => Ok(lstatat(dir, name)
            .map_err(|e| FsError::os(&anchor.join(rel), "stat", &e))?
            .is_some()),
        Err(_) => Ok(false),
    }
}

/// Refuses, with the numbers, when `needs` does not fit in what the
/// anchor's file system has free.
pub fn check_capacity(anchor: &Anchor, needs: &Needs) -> Result<(), FsError> {
    let mut f = free(anchor)?;
    // What preparing the anchor just took (the marker, and the anchor if
    // iolab made it) counts as needed, and as free as it was before, so
    // the numbers are those of the file system the user looked at.
    let own = match anchor.state {
        AnchorState::Created => 2,
        AnchorState::Adopted => 1,
        AnchorState::Marked => 0,
    };
    f.inodes += own;
    f.bytes = f.bytes.saturating_add(own * f.block);
    let needs = &Needs {
        bytes: needs.bytes.saturating_add(own * f.block),
        inodes: needs.inodes + own,
        ..*needs
    };
    let short_inodes = f.counts_inodes && needs.inodes > f.inodes;
    if !needs.at_least && needs.bytes <= f.bytes && !short_inodes {
        return Ok(());
    }
    Err(FsError::refuse(
        &anchor.path,
        format!(
            "the fileset needs {}{} and {} inodes; the file system has {} and {} inodes free; shrink the fileset or free space",
            if needs.at_least { "more than " } else { "" },
            iolab_spec::format_bytes(needs.bytes),
            thousands(needs.inodes),
            iolab_spec::format_bytes(f.bytes),
            if f.counts_inodes { thousands(f.inodes) } else { "unlimited".into() },
        ),
    ))
}
