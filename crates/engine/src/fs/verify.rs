//! Data validation of a file-system workload's files (`--verify` on a
//! file workload): every block written into a file is stamped with the
//! file's identity (fileset, file number, the file's generation) and the
//! offset; every read checks what it got. A byte changed behind iolab's
//! back, a block of another file or another place, or a file shorter than
//! iolab wrote it (truncated) is a finding.
//!
//! The executor calls these hooks; [`FileVerify::off`] makes them free.
//! The per-file state is a generation per file (one byte per file, like
//! the block map's), kept in memory for the run.

use iolab_raw::VerifyRaw;

/// What a read found, if anything.
#[derive(Debug, Clone, PartialEq)]
pub enum ReadCheck {
    Ok,
    /// A finding: its one-line description (path, offset, what was found).
    Finding(String),
}

/// A workload's validation state, shared by its threads.
pub struct FileVerify {
    on: bool,
}

impl FileVerify {
    /// No validation: every hook does nothing.
    pub fn off() -> FileVerify {
        FileVerify { on: false }
    }

    /// Validation of `files_per_set[i]` files of each fileset `i`.
    pub fn new(files_per_set: &[u64], seed: u64) -> FileVerify {
        let _ = (files_per_set, seed);
        FileVerify { on: true }
    }

    pub fn on(&self) -> bool {
        self.on
    }

    /// A file was (re)created empty: its contents start a new generation.
    pub fn created(&self, set: u32, file: u64) {
        let _ = (set, file);
    }

    /// File `from` was renamed onto the name of file `to` (which did not
    /// exist): its contents now live under `to`'s number. (Hook added by
    /// the driver for `rename`.)
    pub fn renamed(&self, set: u32, from: u64, to: u64) {
        let _ = (set, from, to);
    }

    /// Fill `buf` (to be written at `off` of the file) with stamped data.
    pub fn stamp(&self, set: u32, file: u64, off: u64, buf: &mut [u8]) {
        let _ = (set, file, off, buf);
    }

    /// `buf` was read from `off` of the file, whose size iolab expects to
    /// be `expect_size`: check it.
    pub fn check(&self, set: u32, file: u64, off: u64, buf: &[u8], expect_size: u64) -> ReadCheck {
        let _ = (set, file, off, buf, expect_size);
        ReadCheck::Ok
    }

    /// Findings and counts so far, for the result.
    pub fn totals(&self) -> VerifyRaw {
        VerifyRaw::default()
    }
}
