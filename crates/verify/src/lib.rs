//! Data validation for iolab (`--verify`, `--journal`, `iolab verify`).
//!
//! - [`stamp`]: the 48-byte stamp at the start of every 512-byte sector
//!   of a verified write, and the payload after it.
//! - [`map`]: one byte per block: the generation last written, and
//!   whether the write is in flight or not yet durable.
//! - [`journal`]: the map and a header on stable storage, so verification
//!   carries on across runs and survives a crash.
//! - [`check`]: one block against its expected generation, and the class
//!   of what was found instead (corrupt, misdirected, stale, zeroed, torn).
//! - [`scan`]: `iolab verify`, reading a whole target.
//! - [`reported`]: the places a run already reported, so a damaged place
//!   read again is a repeat, not a new finding.

pub mod check;
pub mod journal;
pub mod map;
pub mod reported;
pub mod scan;
pub mod stamp;

pub use check::{check_block, pattern_finding, Class, Expect, Finding, HexWindow, Outcome};
pub use journal::{Journal, JournalError, JournalHeader, TargetIdent};
pub use map::GenMap;
pub use reported::Reported;
pub use scan::{ReadError, ScanOptions, ScanTarget, VerifyTotals};
pub use stamp::{next_gen, Stamper, SECTOR};

/// The block size of a verified workload: the largest multiple of 512
/// that divides every block size, the alignment and the region offsets.
pub fn block_size_for(sizes: &[u64]) -> Option<u64> {
    fn gcd(a: u64, b: u64) -> u64 {
        if b == 0 {
            a
        } else {
            gcd(b, a % b)
        }
    }
    let g = sizes.iter().copied().filter(|&s| s > 0).fold(0, gcd);
    (g >= SECTOR as u64 && g % SECTOR as u64 == 0).then_some(g)
}
