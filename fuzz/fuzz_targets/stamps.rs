//! cargo-fuzz target for the `stamps` parser family: see
//! `iolab_fuzzing::targets::stamps` for what it parses and checks.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| iolab_fuzzing::targets::stamps(data));
