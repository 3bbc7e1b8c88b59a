//! `cargo +nightly fuzz run files`: see `treebeard_fuzzing::files`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| treebeard_fuzzing::files::run(data));
