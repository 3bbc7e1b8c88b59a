//! `cargo +nightly fuzz run tree_text`: see `treebeard_fuzzing::tree_text`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| treebeard_fuzzing::tree_text::run(data));
