//! `cargo +nightly fuzz run scenario`: see `treebeard_fuzzing::scenario`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| treebeard_fuzzing::scenario::run(data));
