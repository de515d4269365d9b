//! cargo-fuzz target for the `procfs` parser family: see
//! `iolab_fuzzing::targets::procfs` for what it parses and checks.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| iolab_fuzzing::targets::procfs(data));
