//! `cargo +nightly fuzz run differential`: see `treebeard_fuzzing::differential`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| treebeard_fuzzing::differential::run(data));
