//! The byte format: round trips, every `Undecodable` variant from a crafted
//! corruption at the right offset, truncation and hostile headers.

mod common;

use common::{build, creature, samples};
use treebeard_shape::tree::{act, sequence};
use treebeard_shape::{DecodeError, Invalid, Kind, NodeId, Shape, Undecodable, item_offset};

/// Where the sections of an encoding start, from the layout in bytes.rs.
struct Sections {
    imports: usize,
    nodes: usize,
    strings: usize,
}

fn sections(shape: &Shape) -> Sections {
    let imports = item_offset(shape.len() as u32) + 8 * shape.param_table().len();
    let import_count: usize = Kind::LEAVES.iter().map(|&k| shape.imports(k).len()).sum();
    let nodes = imports + 12 * import_count;
    Sections {
        imports,
        nodes,
        strings: nodes + 12 * shape.len(),
    }
}

fn put_u32(bytes: &mut [u8], at: usize, v: u32) {
    bytes[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

fn get_u32(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap())
}

/// The creature's shape and its encoding.
fn sample() -> (Shape, Vec<u8>) {
    let shape = build(&creature());
    let bytes = shape.to_bytes();
    (shape, bytes)
}

fn decode_err(bytes: &[u8]) -> DecodeError {
    match Shape::from_bytes(bytes) {
        Ok(shape) => panic!("decoded:\n{}", shape.disassemble()),
        Err(e) => e,
    }
}

/// The error's offset and what.
fn failure(bytes: &[u8]) -> (usize, Undecodable) {
    let e = decode_err(bytes);
    (e.offset(), e.what().clone())
}

/// A bare header with the given counts: items, params, imports, strings.
fn header(items: u32, params: u32, imports: [u32; 3], strings: u32) -> Vec<u8> {
    let mut out = b"TBSHAPE\0".to_vec();
    for v in [
        1, items, params, imports[0], imports[1], imports[2], strings, 0,
    ] {
        out.extend_from_slice(&v.to_le_bytes());
    }
    out
}

#[test]
fn samples_round_trip_to_equal_shapes() {
    for tree in samples() {
        let shape = build(&tree);
        let bytes = shape.to_bytes();
        let again = Shape::from_bytes(&bytes).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(again, shape);
        assert_eq!(again.spec(), shape.spec());
        assert_eq!(again.persistent_map(), shape.persistent_map());
        assert_eq!(again.to_bytes(), bytes, "encoding is canonical");
    }
}

#[test]
fn explicit_ids_and_names_survive_the_round_trip() {
    let tree = sequence([act("Shoot").named("fire!").with_id(4_000_000_000)]).with_id(3);
    let again = Shape::from_bytes(&build(&tree).to_bytes()).unwrap();
    assert_eq!(
        again.node(again.find("fire!").unwrap()).id,
        NodeId(4_000_000_000)
    );
    assert_eq!(again.nodes()[0].id, NodeId(3));
}

#[test]
fn header_matches_the_documented_layout() {
    let (shape, bytes) = sample();
    assert_eq!(&bytes[..8], b"TBSHAPE\0");
    assert_eq!(get_u32(&bytes, 8), 1);
    assert_eq!(get_u32(&bytes, 12) as usize, shape.len());
    assert_eq!(get_u32(&bytes, 16) as usize, shape.param_table().len());
    for (slot, &kind) in Kind::LEAVES.iter().enumerate() {
        assert_eq!(
            get_u32(&bytes, 20 + 4 * slot) as usize,
            shape.imports(kind).len()
        );
    }
    let s = sections(&shape);
    assert_eq!(bytes.len(), s.strings + get_u32(&bytes, 32) as usize);
    assert_eq!(get_u32(&bytes, 36), 0);
    for (i, item) in shape.items().iter().enumerate() {
        let at = item_offset(i as u32);
        assert_eq!(bytes[at..at + 8], item.bits().to_le_bytes());
    }
}

#[test]
fn wrong_magic() {
    let (_, mut bytes) = sample();
    bytes[3] ^= 0x20;
    assert_eq!(failure(&bytes), (0, Undecodable::Magic));
}

#[test]
fn unsupported_version() {
    let (_, mut bytes) = sample();
    put_u32(&mut bytes, 8, 2);
    assert_eq!(failure(&bytes), (8, Undecodable::Version { found: 2 }));
}

#[test]
fn reserved_header_word_not_zero() {
    let (_, mut bytes) = sample();
    bytes[39] = 1;
    assert_eq!(failure(&bytes), (36, Undecodable::Reserved));
}

#[test]
fn empty_input_is_truncated_at_the_magic() {
    let want = Undecodable::Truncated {
        section: "magic",
        needed: 8,
        available: 0,
    };
    assert_eq!(failure(&[]), (0, want));
}

#[test]
fn short_header_is_truncated_at_the_missing_field() {
    let (_, bytes) = sample();
    let want = Undecodable::Truncated {
        section: "header",
        needed: 4,
        available: 2,
    };
    assert_eq!(failure(&bytes[..22]), (20, want));
}

#[test]
fn missing_string_table_bytes() {
    let (shape, bytes) = sample();
    let s = sections(&shape);
    let strings = bytes.len() - s.strings;
    let want = Undecodable::Truncated {
        section: "string table",
        needed: strings as u64,
        available: strings - 1,
    };
    assert_eq!(failure(&bytes[..bytes.len() - 1]), (s.strings, want));
}

#[test]
fn every_truncation_is_an_error() {
    for tree in samples() {
        let bytes = build(&tree).to_bytes();
        for len in 0..bytes.len() {
            let e = decode_err(&bytes[..len]);
            assert!(
                matches!(e.what(), Undecodable::Truncated { .. }),
                "length {len}: {e}"
            );
            assert!(e.offset() <= len, "length {len}: {e}");
        }
    }
}

#[test]
fn huge_counts_on_a_tiny_input_fail_as_truncated() {
    let max = u32::MAX;
    let cases = [
        (header(max, 0, [0; 3], 0), "item stream", 8),
        (header(0, max, [0; 3], 0), "parameter table", 8),
        (header(0, 0, [0, max, 0], 0), "import table", 12),
        (header(0, 0, [0; 3], max), "string table", 1),
    ];
    for (bytes, section, width) in cases {
        let want = Undecodable::Truncated {
            section,
            needed: u64::from(max) * width,
            available: 0,
        };
        assert_eq!(failure(&bytes), (40, want), "{section}");
    }
}

#[test]
fn node_table_count_comes_from_the_item_count() {
    let mut bytes = header(1, 0, [0; 3], 0);
    bytes.extend_from_slice(&0x81u64.to_le_bytes());
    let want = Undecodable::Truncated {
        section: "node table",
        needed: 12,
        available: 0,
    };
    assert_eq!(failure(&bytes), (48, want));
}

#[test]
fn import_padding_not_zero() {
    let (shape, mut bytes) = sample();
    let at = sections(&shape).imports;
    bytes[at + 10] = 1;
    assert_eq!(failure(&bytes), (at + 10, Undecodable::Reserved));
    bytes[at + 10] = 0;
    bytes[at + 11] = 1;
    let (offset, what) = failure(&bytes);
    assert_eq!(what, Undecodable::Reserved);
    assert!((at + 10..at + 12).contains(&offset), "{offset}");
}

#[test]
fn unknown_import_flags() {
    let (shape, mut bytes) = sample();
    let second = sections(&shape).imports + 12;
    bytes[second + 9] = 0x83;
    assert_eq!(
        failure(&bytes),
        (second + 9, Undecodable::ImportFlags { flags: 0x83 })
    );
}

#[test]
fn import_name_outside_the_string_table() {
    let (shape, mut bytes) = sample();
    let s = sections(&shape);
    let table = bytes.len() - s.strings;
    let len = get_u32(&bytes, s.imports + 4);
    put_u32(&mut bytes, s.imports, table as u32);
    let want = Undecodable::StringOutOfRange {
        offset: table as u32,
        len,
        table,
    };
    assert_eq!(failure(&bytes), (s.imports, want));
}

#[test]
fn node_name_reference_that_overflows_u32() {
    let (shape, mut bytes) = sample();
    let s = sections(&shape);
    let third = s.nodes + 2 * 12;
    put_u32(&mut bytes, third + 4, u32::MAX);
    put_u32(&mut bytes, third + 8, u32::MAX);
    let (offset, what) = failure(&bytes);
    assert_eq!(offset, third + 4);
    assert!(matches!(
        what,
        Undecodable::StringOutOfRange {
            offset: u32::MAX,
            len: u32::MAX,
            ..
        }
    ));
}

#[test]
fn import_name_not_utf8() {
    let (shape, mut bytes) = sample();
    let s = sections(&shape);
    let name_at = s.strings + get_u32(&bytes, s.imports) as usize;
    bytes[name_at] = 0xFF;
    assert_eq!(failure(&bytes), (s.imports, Undecodable::NotUtf8));
}

#[test]
fn node_name_not_utf8() {
    let (shape, mut bytes) = sample();
    let s = sections(&shape);
    let node = s.nodes + 3 * 12;
    let name_at = s.strings + get_u32(&bytes, node + 4) as usize;
    bytes[name_at] = 0xC3; // a lead byte without its continuation
    assert_eq!(failure(&bytes), (node + 4, Undecodable::NotUtf8));
}

#[test]
fn bytes_after_the_string_table() {
    let (_, mut bytes) = sample();
    let end = bytes.len();
    bytes.extend_from_slice(&[0, 0, 0]);
    assert_eq!(failure(&bytes), (end, Undecodable::Trailing { bytes: 3 }));
}

fn invalid(bytes: &[u8]) -> (usize, Option<u32>, Invalid) {
    let e = decode_err(bytes);
    let Undecodable::Invalid(v) = e.what() else {
        panic!("not a validation error: {e}");
    };
    (e.offset(), v.item(), v.what().clone())
}

#[test]
fn invalid_item_is_reported_at_its_byte_offset() {
    let (_, mut bytes) = sample();
    bytes[item_offset(6)] = 0x7F;
    assert_eq!(
        invalid(&bytes),
        (item_offset(6), Some(6), Invalid::UnknownKind { tag: 0x7F })
    );
}

#[test]
fn duplicate_node_id_is_reported_at_the_item() {
    let (shape, mut bytes) = sample();
    let nodes = sections(&shape).nodes;
    put_u32(&mut bytes, nodes + 4 * 12, 2);
    assert_eq!(
        invalid(&bytes),
        (
            item_offset(4),
            Some(4),
            Invalid::DuplicateId { id: NodeId(2) }
        )
    );
}

#[test]
fn whole_shape_errors_are_reported_at_offset_zero() {
    assert_eq!(invalid(&header(0, 0, [0; 3], 0)), (0, None, Invalid::Empty));
}

#[test]
fn persistent_import_flag_must_match_the_items() {
    let (shape, mut bytes) = sample();
    // The first action import is Shoot; marking it persistent disagrees with
    // its item's flag.
    let shoot = sections(&shape).imports + 12 * shape.imports(Kind::Condition).len();
    bytes[shoot + 9] = 1;
    let (offset, item, what) = invalid(&bytes);
    assert_eq!((offset, item), (item_offset(3), Some(3)));
    let want = Invalid::PersistentFlag {
        leaf: "Shoot".into(),
        declared: true,
    };
    assert_eq!(what, want);
}

#[test]
fn error_display_names_the_byte() {
    let (_, mut bytes) = sample();
    put_u32(&mut bytes, 8, 9);
    let text = decode_err(&bytes).to_string();
    assert!(text.starts_with("byte 8: "), "{text}");
    assert!(text.contains("version 9"), "{text}");
}
