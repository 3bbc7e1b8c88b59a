//! Hostile headers cannot make the decoder allocate more than the input's
//! size justifies. A global allocator records the largest single request
//! made by the current thread.

mod common;

use common::wire::Wire;
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use treebeard_shape::{FieldDecl, Import, ImportParam, Shape, ShapeItem, Undecodable};

struct Recording;

thread_local! {
    static LARGEST: Cell<usize> = const { Cell::new(0) };
}

fn record(size: usize) {
    let _ = LARGEST.try_with(|l| l.set(l.get().max(size)));
}

// SAFETY: every call is forwarded unchanged to the system allocator; the
// recording touches only a const-initialised thread-local `Cell`.
unsafe impl GlobalAlloc for Recording {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        record(layout.size());
        // SAFETY: the caller upholds `GlobalAlloc::alloc`'s contract.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` was allocated by `System` with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        record(new_size);
        // SAFETY: the caller upholds `GlobalAlloc::realloc`'s contract.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Recording = Recording;

/// The largest allocation made while decoding, and whether it was truncated.
fn largest_while_decoding(bytes: &[u8]) -> (usize, bool) {
    LARGEST.with(|l| l.set(0));
    let result = Shape::from_bytes(bytes);
    let largest = LARGEST.with(Cell::get);
    let truncated = matches!(
        result.as_ref().map_err(|e| e.what()),
        Err(Undecodable::Truncated { .. })
    );
    (largest, truncated)
}

/// A prefix before each counted section of the format, with the smallest
/// encoding of one of its entries and the in-memory size of one.
fn counted_sections() -> Vec<(&'static str, Wire, usize, usize)> {
    vec![
        ("items", Wire::header(), 8, size_of::<ShapeItem>()),
        ("params", Wire::header().u32(0), 8, size_of::<u64>()),
        (
            "condition imports",
            Wire::header().u32(0).u32(0),
            9,
            size_of::<Import>(),
        ),
        (
            "action imports",
            Wire::header().u32(0).u32(0).u32(0),
            9,
            size_of::<Import>(),
        ),
        (
            "deferred imports",
            Wire::header().u32(0).u32(0).u32(0).u32(0),
            9,
            size_of::<Import>(),
        ),
        (
            "import params",
            Wire::up_to_import_params(),
            5,
            size_of::<ImportParam>(),
        ),
        (
            "enum variants",
            Wire::up_to_import_params().u32(1).string("mode").u8(5),
            4,
            size_of::<Box<str>>(),
        ),
        ("strings", Wire::up_to_strings(), 4, size_of::<Box<str>>()),
        (
            "files",
            Wire::up_to_strings().u32(0),
            4,
            size_of::<Box<str>>(),
        ),
        (
            "fields",
            Wire::up_to_strings().u32(0).u32(0),
            5,
            size_of::<FieldDecl>(),
        ),
    ]
}

#[test]
fn huge_counts_allocate_no_more_than_the_input() {
    for (section, prefix, _, _) in counted_sections() {
        let bytes = prefix.u32(u32::MAX).zeros(64).done();
        let (largest, truncated) = largest_while_decoding(&bytes);
        assert!(truncated, "{section}");
        assert!(
            largest <= 4 * bytes.len(),
            "{section}: allocated {largest} bytes for {}",
            bytes.len()
        );
    }
}

#[test]
fn counts_the_bytes_can_hold_allocate_only_for_entries_that_fit() {
    // Zero bytes are the smallest entries (empty names, type or field type
    // 0), so every entry the count claims decodes (and decoding then fails
    // later). The decoder may hold them all, and no more: `count` entries of
    // `size` bytes each, where `count * smallest` bytes are present.
    let body = 4096;
    for (section, prefix, smallest, size) in counted_sections() {
        let count = body / smallest;
        let bytes = prefix.u32(count as u32).zeros(body).done();
        let (largest, _) = largest_while_decoding(&bytes);
        assert!(
            largest <= count * size,
            "{section}: allocated {largest} bytes for {count} entries of {size}"
        );
    }
}

#[test]
fn items_reserve_no_node_entries_for_bytes_that_are_not_there() {
    // The items fit, but the node table they imply (one entry per item, at
    // least 9 bytes each) is missing: nothing beyond the items themselves is
    // worth reserving.
    let items = 1000;
    let bytes = Wire::header()
        .u32(items)
        .zeros(8 * items as usize)
        .u32(0)
        .u32(0)
        .u32(0)
        .u32(0)
        .done();
    let (largest, truncated) = largest_while_decoding(&bytes);
    assert!(truncated);
    assert!(
        largest <= bytes.len(),
        "allocated {largest} bytes for {}",
        bytes.len()
    );
}

#[test]
fn the_recorder_sees_large_allocations() {
    LARGEST.with(|l| l.set(0));
    let v = std::hint::black_box(Vec::<u64>::with_capacity(1 << 20));
    assert!(LARGEST.with(Cell::get) >= 8 << 20);
    drop(v);
}
