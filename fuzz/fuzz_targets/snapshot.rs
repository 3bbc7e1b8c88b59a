//! `cargo +nightly fuzz run snapshot`: see `treebeard_fuzzing::snapshot`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| treebeard_fuzzing::snapshot::run(data));
