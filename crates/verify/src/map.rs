//! The generation map: one byte per block of a target.
//!
//! | bits | meaning                                                       |
//! |------|---------------------------------------------------------------|
//! | 0-5  | generation last written (1..=63; 0 = never written or unknown) |
//! | 6    | UNSURE: a write to the block was issued and is not yet known durable (in flight, or completed without O_DSYNC and no fsync since) |
//! | 7    | LOCK: an I/O of this process is in flight on the block (cleared when a journal is loaded) |
//!
//! With a journal the map is a shared memory mapping of `DIR/map-N.bin`
//! (after a 4 KiB header), so every update is in the page cache the moment
//! it is made and survives `kill -9` of iolab; `sync` makes it durable
//! against a power cut. Without a journal it is anonymous memory.

use std::fs::File;
use std::io;
use std::os::unix::io::AsRawFd;
use std::sync::atomic::{AtomicU8, Ordering};

pub const LOCK: u8 = 0x80;
pub const UNSURE: u8 = 0x40;
pub const GEN: u8 = 0x3f;
/// Bytes before the map in a map file (one page, so the map can be mapped).
pub const MAP_HEADER: usize = 4096;

pub struct GenMap {
    base: *mut u8,
    mapped: usize,
    skip: usize,
    units: usize,
    file: Option<File>,
}

// SAFETY: the mapping is only accessed through atomics.
unsafe impl Send for GenMap {}
unsafe impl Sync for GenMap {}

impl GenMap {
    /// A map in anonymous memory, all zero.
    pub fn anonymous(units: usize) -> io::Result<GenMap> {
        let len = units.max(1);
        // SAFETY: a fresh private anonymous mapping; checked for failure.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
                -1,
                0,
            )
        };
        if p == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        Ok(GenMap {
            base: p as *mut u8,
            mapped: len,
            skip: 0,
            units,
            file: None,
        })
    }

    /// Map `units` bytes of `file` after its header, shared, read-write.
    /// The file must already be at least `MAP_HEADER + units` long.
    pub fn shared(file: File, units: usize) -> io::Result<GenMap> {
        let len = MAP_HEADER + units;
        if file.metadata()?.len() < len as u64 {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "map file shorter than its map",
            ));
        }
        // SAFETY: mapping a file we hold open, length checked above.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED,
                file.as_raw_fd(),
                0,
            )
        };
        if p == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        Ok(GenMap {
            base: p as *mut u8,
            mapped: len,
            skip: MAP_HEADER,
            units,
            file: Some(file),
        })
    }

    pub fn units(&self) -> usize {
        self.units
    }

    #[inline]
    pub fn entries(&self) -> &[AtomicU8] {
        // SAFETY: the mapping holds skip + units bytes and lives as long
        // as self; AtomicU8 has the layout of u8.
        unsafe {
            std::slice::from_raw_parts(self.base.add(self.skip) as *const AtomicU8, self.units)
        }
    }

    /// Lock blocks [first, first + n) for one I/O: all or none.
    #[inline]
    pub fn try_lock(&self, first: usize, n: usize) -> bool {
        let e = &self.entries()[first..first + n];
        for (i, b) in e.iter().enumerate() {
            if b.fetch_or(LOCK, Ordering::Acquire) & LOCK != 0 {
                for b in &e[..i] {
                    b.fetch_and(!LOCK, Ordering::Release);
                }
                return false;
            }
        }
        true
    }

    #[inline]
    pub fn unlock(&self, first: usize, n: usize) {
        for b in &self.entries()[first..first + n] {
            b.fetch_and(!LOCK, Ordering::Release);
        }
    }

    /// Make the map durable (journal maps; a no-op in memory).
    pub fn sync(&self) -> io::Result<()> {
        match &self.file {
            Some(f) => f.sync_data(),
            None => Ok(()),
        }
    }

    /// A copy of the map bytes.
    pub fn snapshot(&self) -> Vec<u8> {
        self.entries()
            .iter()
            .map(|b| b.load(Ordering::Relaxed))
            .collect()
    }
}

impl Drop for GenMap {
    fn drop(&mut self) {
        // SAFETY: unmapping what new/shared mapped.
        unsafe {
            libc::munmap(self.base as *mut libc::c_void, self.mapped);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lock_is_all_or_nothing() {
        let m = GenMap::anonymous(16).unwrap();
        assert!(m.try_lock(4, 4));
        assert!(!m.try_lock(0, 5));
        assert!(!m.try_lock(7, 3));
        // The failed attempts left nothing locked outside [4, 8).
        assert!(m.try_lock(0, 4));
        assert!(m.try_lock(8, 8));
        m.unlock(4, 4);
        assert!(m.try_lock(4, 4));
        assert!(m
            .entries()
            .iter()
            .all(|b| b.load(Ordering::Relaxed) == LOCK));
    }

    #[test]
    fn shared_map_reaches_the_file() {
        use std::io::{Read, Seek, SeekFrom};
        let mut f = tempfile::tempfile().unwrap();
        f.set_len((MAP_HEADER + 10) as u64).unwrap();
        let m = GenMap::shared(f.try_clone().unwrap(), 10).unwrap();
        m.entries()[3].store(0x45, Ordering::Relaxed);
        m.sync().unwrap();
        drop(m);
        let mut b = vec![0u8; 10];
        f.seek(SeekFrom::Start(MAP_HEADER as u64)).unwrap();
        f.read_exact(&mut b).unwrap();
        assert_eq!(b[3], 0x45);
    }
}
