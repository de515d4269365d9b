//! cargo-fuzz target for the `fio` parser family: see
//! `iolab_fuzzing::targets::fio` for what it parses and checks.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| iolab_fuzzing::targets::fio(data));
