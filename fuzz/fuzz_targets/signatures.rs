//! cargo-fuzz target for the `signatures` parser family: see
//! `iolab_fuzzing::targets::signatures` for what it parses and checks.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| iolab_fuzzing::targets::signatures(data));
