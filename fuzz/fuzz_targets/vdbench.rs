//! cargo-fuzz target for the `vdbench` parser family: see
//! `iolab_fuzzing::targets::vdbench` for what it parses and checks.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| iolab_fuzzing::targets::vdbench(data));
