//! Hostile headers cannot make the decoder allocate more than the input's
//! size justifies. A global allocator records the largest single request
//! made by the current thread.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use treebeard_shape::{Shape, Undecodable};

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

/// A header with the given counts and `body` zero bytes after it.
fn hostile(items: u32, params: u32, imports: [u32; 3], strings: u32, body: usize) -> Vec<u8> {
    let mut out = b"TBSHAPE\0".to_vec();
    for v in [
        1, items, params, imports[0], imports[1], imports[2], strings, 0,
    ] {
        out.extend_from_slice(&v.to_le_bytes());
    }
    out.resize(out.len() + body, 0);
    out
}

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

#[test]
fn huge_counts_allocate_no_more_than_the_input() {
    let max = u32::MAX;
    let cases = [
        hostile(max, 0, [0; 3], 0, 64),
        hostile(0, max, [0; 3], 0, 64),
        hostile(0, 0, [max, 0, 0], 0, 64),
        hostile(0, 0, [0, 0, max], 0, 64),
        hostile(0, 0, [0; 3], max, 64),
        // Items fit, but the node table they imply does not.
        hostile(8, 0, [0; 3], 0, 64),
    ];
    for bytes in cases {
        let (largest, truncated) = largest_while_decoding(&bytes);
        assert!(truncated);
        assert!(
            largest <= 4 * bytes.len(),
            "allocated {largest} bytes for {}",
            bytes.len()
        );
    }
}

#[test]
fn the_recorder_sees_large_allocations() {
    LARGEST.with(|l| l.set(0));
    let v = std::hint::black_box(Vec::<u64>::with_capacity(1 << 20));
    assert!(LARGEST.with(Cell::get) >= 8 << 20);
    drop(v);
}
