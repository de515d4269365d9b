//! Fuzzing iolab's parsers: one entry point per parser family, their seed
//! inputs and the mutations the suite's fuzz pass applies to them.
//!
//! Every parser that reads something a user or the system hands iolab
//! (job files, flags, result documents, journals, verify stamps, /proc and
//! /sys text, signatures on a device) is reached from one function in [`targets`] that takes raw
//! bytes. Two drivers call them:
//!
//! - `fuzz/` at the repository root: cargo-fuzz targets for libFuzzer
//!   (nightly), one per family, each a one-line call into [`targets`];
//! - `tests/fuzz_pass.rs`: the stable pass in the normal test suite, a few
//!   thousand generated and mutated inputs per family, with a time limit
//!   per case and a counting allocator that bounds the memory a case may
//!   use.
//!
//! A parser added later gets its call in the family it belongs to (or a
//! new entry in [`FAMILIES`], a seed directory and a `fuzz/` target), and
//! both drivers pick it up.

pub mod mutate;
pub mod seeds;
pub mod targets;

/// A parser family: its name (also the cargo-fuzz target's) and entry point.
pub type Family = (&'static str, fn(&[u8]));

/// Every family, in the order the fuzz pass runs them.
pub const FAMILIES: &[Family] = &[
    ("units", targets::units),
    ("jobfile", targets::jobfile),
    ("fio", targets::fio),
    ("vdbench", targets::vdbench),
    ("filebench", targets::filebench),
    ("result_doc", targets::result_doc),
    ("journal", targets::journal),
    ("stamps", targets::stamps),
    ("procfs", targets::procfs),
    ("signatures", targets::signatures),
    ("remote", targets::remote),
];
