//! cargo-fuzz target for the `remote` parser family: see
//! `iolab_fuzzing::targets::remote` for what it parses and checks.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| iolab_fuzzing::targets::remote(data));
