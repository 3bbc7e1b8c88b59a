//! `cargo +nightly fuzz run script`: see `treebeard_fuzzing::script`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| treebeard_fuzzing::script::run(data));
