//! cargo-fuzz target for the `result_doc` parser family: see
//! `iolab_fuzzing::targets::result_doc` for what it parses and checks.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| iolab_fuzzing::targets::result_doc(data));
