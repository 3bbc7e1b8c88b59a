//! `cargo +nightly fuzz run shape_bytes`: see `treebeard_fuzzing::shape_bytes`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| treebeard_fuzzing::shape_bytes::run(data));
