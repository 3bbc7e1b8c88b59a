//! `cargo +nightly fuzz run recording`: see `treebeard_fuzzing::recording`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| treebeard_fuzzing::recording::run(data));
