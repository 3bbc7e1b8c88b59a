//! The byte format: round trips, the documented layout, every `Undecodable`
//! variant from a crafted corruption at the right offset, truncation and
//! hostile counts.
//!
//! Offsets come from [`common::wire::layout`], a reading of the layout
//! documented in bytes.rs written independently of the decoder.

mod common;

use common::wire::{ImportAt, Layout, Str, Wire, get_u32, layout, put_u32};
use common::{build, catalog, creature, samples, typed};
use treebeard_shape::tree::{act, sequence};
use treebeard_shape::{
    DecodeError, FieldType, Invalid, Kind, NodeId, NodeIdx, Options, ParamType, Shape, Source,
    Undecodable, compile_with, item_offset,
};

/// The creature's shape and its encoding.
fn sample() -> (Shape, Vec<u8>) {
    let shape = build(&creature());
    let bytes = shape.to_bytes();
    (shape, bytes)
}

/// A shape with every parameter type, node sources and two files, and its
/// encoding: every section of the format is non-empty.
fn rich() -> (Shape, Vec<u8>) {
    let tree = sequence([
        typed().at(Source::new(1, 4, 3)),
        act("Shoot").named("fire").at(Source::new(0, 9, 1)),
    ])
    .at(Source::new(0, 1, 1));
    let options = Options {
        files: vec!["main.tree".into(), "combat.tree".into()],
        ..Options::default()
    };
    let shape = compile_with(&tree, &catalog(), &options).unwrap_or_else(|e| panic!("{e}"));
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

fn truncated(section: &'static str, needed: u64, available: usize) -> Undecodable {
    Undecodable::Truncated {
        section,
        needed,
        available,
    }
}

fn tag(what: &'static str, found: u8) -> Undecodable {
    Undecodable::Tag { what, found }
}

/// The import of `kind` named `name` in the layout.
fn import<'l>(l: &'l Layout, kind: Kind, name: &str) -> &'l ImportAt {
    let slot = kind.leaf_slot().unwrap();
    l.imports[slot]
        .iter()
        .find(|i| i.name.text == name)
        .unwrap_or_else(|| panic!("no {kind} import {name}"))
}

// Round trips.

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
fn every_param_type_survives_the_round_trip() {
    let (shape, bytes) = rich();
    let again = Shape::from_bytes(&bytes).unwrap();
    assert_eq!(again, shape);
    let configure = again.import(again.find("Configure").unwrap()).unwrap();
    let types: Vec<&ParamType> = configure.params.iter().map(|p| &p.ty).collect();
    let gait = ParamType::enumeration(&["walk", "run", "sneak"]);
    assert_eq!(
        types,
        [
            &ParamType::Int,
            &ParamType::Float,
            &ParamType::Bool,
            &ParamType::Duration,
            &ParamType::Str,
            &gait,
        ]
    );
    let remember = again.import(again.find("Remember").unwrap()).unwrap();
    let types: Vec<&ParamType> = remember.params.iter().map(|p| &p.ty).collect();
    assert_eq!(
        types,
        [
            &ParamType::Output(FieldType::Str),
            &ParamType::Input(FieldType::Str),
            &ParamType::Input(FieldType::Bool),
        ]
    );
    assert_eq!(again.param_table(), shape.param_table());
    assert_eq!(again.strings(), &["hello".into(), "note".into()]);
    let fields: Vec<(&str, FieldType)> = again.fields().iter().map(|f| (&*f.name, f.ty)).collect();
    assert_eq!(
        fields,
        [
            ("hunger", FieldType::Int),
            ("speed", FieldType::Float),
            ("alert", FieldType::Bool),
            ("target", FieldType::Str),
        ]
    );
}

#[test]
fn negative_input_literals_survive_the_round_trip_as_constants() {
    let again = Shape::from_bytes(&build(&typed()).to_bytes()).unwrap();
    // An input literal's word is the offset of its constant in the table.
    let constant = |node: u32, param: usize| {
        let offset = again.params(NodeIdx::new(node))[param];
        again.param_table()[offset as usize]
    };
    // Compare({hunger}, -0.5) and Compare(-12, {speed}).
    assert_eq!(constant(1, 1), (-0.5f64).to_bits());
    assert_eq!(constant(2, 0), -12i64 as u64);
}

#[test]
fn sources_and_files_survive_the_round_trip() {
    let (shape, bytes) = rich();
    let again = Shape::from_bytes(&bytes).unwrap();
    assert_eq!(again.files(), &["main.tree".into(), "combat.tree".into()]);
    let fire = again.find("fire").unwrap();
    assert_eq!(again.node(fire).source, Some(Source::new(0, 9, 1)));
    assert_eq!(again.location(fire).as_deref(), Some("main.tree:9:1"));
    assert_eq!(
        again.location(NodeIdx::new(1)).as_deref(),
        Some("combat.tree:4:3")
    );
    // Nodes written without a source keep none.
    assert_eq!(again.node(NodeIdx::new(2)).source, None);
    assert_eq!(again.nodes(), shape.nodes());
}

// The layout.

#[test]
fn encoding_follows_the_documented_layout() {
    let (shape, bytes) = rich();
    assert_eq!(&bytes[..8], b"TBSHAPE\0");
    let l = layout(&bytes);
    assert_eq!(l.end, bytes.len(), "the layout accounts for every byte");
    let items: Vec<u64> = shape.items().iter().map(|i| i.bits()).collect();
    assert_eq!(l.items, items);
    assert_eq!(l.params, shape.param_table());
    for (slot, &kind) in Kind::LEAVES.iter().enumerate() {
        let imports = shape.imports(kind);
        assert_eq!(l.imports[slot].len(), imports.len(), "{kind}");
        for (at, import) in l.imports[slot].iter().zip(imports) {
            assert_eq!(at.name.text, &*import.name);
            assert_eq!(bytes[at.persistent_at], u8::from(import.persistent));
            let names: Vec<&str> = at.params.iter().map(|p| &*p.name.text).collect();
            let want: Vec<&str> = import.params.iter().map(|p| &*p.name).collect();
            assert_eq!(names, want);
        }
    }
    for (at, node) in l.nodes.iter().zip(shape.nodes()) {
        assert_eq!(get_u32(&bytes, at.id_at), node.id.0);
        assert_eq!(at.name.text, &*node.name);
        let source = at.file_at.map(|f| {
            let file = u16::from_le_bytes([bytes[f], bytes[f + 1]]);
            let line = get_u32(&bytes, f + 2);
            let column = get_u32(&bytes, f + 6);
            Source::new(file, line, column)
        });
        assert_eq!(source, node.source);
    }
    let texts = |t: &[Str]| t.iter().map(|s| s.text.clone()).collect::<Vec<_>>();
    assert_eq!(texts(&l.strings), ["hello", "note"]);
    assert_eq!(texts(&l.files), ["main.tree", "combat.tree"]);
    let fields: Vec<(&str, u8)> = l
        .fields
        .iter()
        .map(|f| (&*f.name.text, bytes[f.ty_at]))
        .collect();
    assert_eq!(
        fields,
        [("hunger", 1), ("speed", 2), ("alert", 0), ("target", 3)]
    );
}

#[test]
fn header_is_magic_version_two_and_a_zero_word() {
    let (_, bytes) = sample();
    assert_eq!(&bytes[..8], b"TBSHAPE\0");
    assert_eq!(get_u32(&bytes, 8), 2);
    assert_eq!(get_u32(&bytes, 12), 0);
}

#[test]
fn item_offset_matches_the_layout() {
    let (shape, bytes) = sample();
    let l = layout(&bytes);
    for (i, item) in shape.items().iter().enumerate() {
        let at = item_offset(i as u32);
        assert_eq!(at, l.item_at(i));
        assert_eq!(bytes[at..at + 8], item.bits().to_le_bytes());
    }
}

#[test]
fn param_types_have_the_documented_tags() {
    let (_, bytes) = rich();
    let l = layout(&bytes);
    let tags = |kind, name| -> Vec<u8> {
        let i = import(&l, kind, name);
        i.params.iter().map(|p| bytes[p.ty.at]).collect()
    };
    let field_types = |kind, name| -> Vec<u8> {
        let i = import(&l, kind, name);
        i.params
            .iter()
            .map(|p| bytes[p.ty.field_type_at.unwrap()])
            .collect()
    };
    assert_eq!(tags(Kind::Action, "Configure"), [0, 1, 2, 3, 4, 5]);
    assert_eq!(tags(Kind::Condition, "Compare"), [6, 6]);
    assert_eq!(field_types(Kind::Condition, "Compare"), [1, 2]);
    assert_eq!(tags(Kind::Deferred, "Remember"), [7, 6, 6]);
    assert_eq!(field_types(Kind::Deferred, "Remember"), [3, 3, 0]);
    let gait = &import(&l, Kind::Action, "Configure").params[5].ty;
    let variants: Vec<&str> = gait.variants.iter().map(|v| &*v.text).collect();
    assert_eq!(variants, ["walk", "run", "sneak"]);
}

// Header errors.

#[test]
fn wrong_magic() {
    let (_, mut bytes) = sample();
    bytes[3] ^= 0x20;
    assert_eq!(failure(&bytes), (0, Undecodable::Magic));
}

#[test]
fn version_one_is_no_longer_read() {
    let (_, mut bytes) = sample();
    put_u32(&mut bytes, 8, 1);
    assert_eq!(failure(&bytes), (8, Undecodable::Version { found: 1 }));
}

#[test]
fn reserved_header_word_not_zero() {
    let (_, mut bytes) = sample();
    bytes[15] = 1;
    assert_eq!(failure(&bytes), (12, Undecodable::Reserved));
}

#[test]
fn error_display_names_the_byte() {
    let (_, mut bytes) = sample();
    put_u32(&mut bytes, 8, 9);
    let text = decode_err(&bytes).to_string();
    assert!(text.starts_with("byte 8: "), "{text}");
    assert!(text.contains("version 9"), "{text}");
}

// Truncation.

#[test]
fn empty_input_is_truncated_at_the_magic() {
    assert_eq!(failure(&[]), (0, truncated("magic", 8, 0)));
}

#[test]
fn short_header_is_truncated_at_the_missing_field() {
    let (_, bytes) = sample();
    assert_eq!(failure(&bytes[..14]), (12, truncated("header", 4, 2)));
}

#[test]
fn item_count_past_the_bytes_left_is_truncated_at_the_count() {
    let (shape, bytes) = sample();
    let l = layout(&bytes);
    let cut = &bytes[..l.item_at(2) + 3];
    let want = truncated("item stream", 8 * shape.len() as u64, 2 * 8 + 3);
    assert_eq!(failure(cut), (l.items_count_at, want));
}

#[test]
fn string_cut_short_is_truncated_at_its_bytes() {
    let (_, bytes) = sample();
    let l = layout(&bytes);
    let name = &l.nodes[2].name;
    let len = name.text.len();
    let cut = &bytes[..name.at + len - 1];
    let want = truncated("node table", len as u64, len - 1);
    assert_eq!(failure(cut), (name.at, want));
}

#[test]
fn node_table_has_one_entry_per_item_without_a_count() {
    // One item, no params, no imports, and nothing after: the node table
    // the item implies is missing.
    let bytes = Wire::header()
        .u32(1)
        .u64(0x03)
        .u32(0)
        .u32(0)
        .u32(0)
        .u32(0)
        .done();
    let at = bytes.len();
    assert_eq!(failure(&bytes), (at, truncated("node table", 4, 0)));
}

#[test]
fn missing_last_byte_is_truncated_in_the_field_table() {
    let (_, bytes) = rich();
    let l = layout(&bytes);
    let last = l.fields.last().unwrap();
    let cut = &bytes[..bytes.len() - 1];
    assert_eq!(failure(cut), (last.ty_at, truncated("field table", 1, 0)));
}

#[test]
fn every_truncation_is_an_error() {
    let mut encodings: Vec<Vec<u8>> = samples().iter().map(|t| build(t).to_bytes()).collect();
    encodings.push(rich().1);
    for bytes in encodings {
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

// Hostile counts: each counted section with a count of u32::MAX and nothing
// after it fails at the count, having checked count x smallest entry against
// the bytes left.

fn huge_count_fails_at_the_count(prefix: Wire, section: &'static str, smallest: u64) {
    let at = prefix.len();
    let bytes = prefix.u32(u32::MAX).done();
    let want = truncated(section, u64::from(u32::MAX) * smallest, 0);
    assert_eq!(failure(&bytes), (at, want), "{section}");
}

#[test]
fn huge_item_count() {
    huge_count_fails_at_the_count(Wire::header(), "item stream", 8);
}

#[test]
fn huge_param_count() {
    huge_count_fails_at_the_count(Wire::header().u32(0), "parameter table", 8);
}

#[test]
fn huge_import_count_in_each_kind() {
    // An import is at least a name length, a persistent byte and a count.
    let mut prefix = Wire::header().u32(0).u32(0);
    for _ in Kind::LEAVES {
        huge_count_fails_at_the_count(prefix.clone(), "import table", 9);
        prefix = prefix.u32(0);
    }
}

#[test]
fn huge_import_param_count() {
    // A parameter is at least a name length and a type byte.
    huge_count_fails_at_the_count(Wire::up_to_import_params(), "import table", 5);
}

#[test]
fn huge_enum_variant_count() {
    let prefix = Wire::up_to_import_params().u32(1).string("mode").u8(5);
    huge_count_fails_at_the_count(prefix, "import table", 4);
}

#[test]
fn huge_string_count() {
    huge_count_fails_at_the_count(Wire::up_to_strings(), "string table", 4);
}

#[test]
fn huge_file_count() {
    huge_count_fails_at_the_count(Wire::up_to_strings().u32(0), "file table", 4);
}

#[test]
fn huge_field_count() {
    huge_count_fails_at_the_count(Wire::up_to_strings().u32(0).u32(0), "field table", 5);
}

#[test]
fn huge_string_length() {
    let bytes = Wire::up_to_strings().u32(1).u32(u32::MAX).done();
    let at = bytes.len();
    let want = truncated("string table", u64::from(u32::MAX), 0);
    assert_eq!(failure(&bytes), (at, want));
}

// Strings that are not UTF-8, reported at their first byte.

fn not_utf8_at(pick: impl Fn(&Layout) -> &Str) {
    let (_, mut bytes) = rich();
    let l = layout(&bytes);
    let s = pick(&l);
    assert!(!s.text.is_empty());
    bytes[s.at] = 0xFF;
    assert_eq!(failure(&bytes), (s.at, Undecodable::NotUtf8), "{}", s.text);
}

#[test]
fn import_name_not_utf8() {
    not_utf8_at(|l| &l.imports[1][0].name);
}

#[test]
fn import_param_name_not_utf8() {
    not_utf8_at(|l| &import(l, Kind::Action, "Configure").params[2].name);
}

#[test]
fn enum_variant_not_utf8() {
    not_utf8_at(|l| &import(l, Kind::Action, "Configure").params[5].ty.variants[1]);
}

#[test]
fn node_name_not_utf8() {
    not_utf8_at(|l| &l.nodes[3].name);
}

#[test]
fn string_table_entry_not_utf8() {
    not_utf8_at(|l| &l.strings[1]);
}

#[test]
fn file_name_not_utf8() {
    not_utf8_at(|l| &l.files[0]);
}

#[test]
fn field_name_not_utf8() {
    not_utf8_at(|l| &l.fields[2].name);
}

#[test]
fn a_lead_byte_without_its_continuation_is_not_utf8() {
    let (_, mut bytes) = sample();
    let l = layout(&bytes);
    let name = &l.nodes[3].name;
    bytes[name.at + name.text.len() - 1] = 0xC3;
    assert_eq!(failure(&bytes), (name.at, Undecodable::NotUtf8));
}

// Bytes that must be one of a few values.

#[test]
fn persistent_byte_other_than_zero_or_one() {
    let (_, mut bytes) = sample();
    let at = layout(&bytes).imports[1][1].persistent_at;
    // Bit 0 is the persistent flag, bit 1 the scope flag; no other bit.
    bytes[at] = 4;
    assert_eq!(failure(&bytes), (at, tag("import flags", 4)));
}

#[test]
fn source_byte_other_than_zero_or_one() {
    let (_, bytes) = rich();
    let l = layout(&bytes);
    // One node with a source, one without.
    for node in [&l.nodes[0], &l.nodes[2]] {
        let mut bytes = bytes.clone();
        bytes[node.source_flag_at] = 0x80;
        let want = (node.source_flag_at, tag("source flag", 0x80));
        assert_eq!(failure(&bytes), want);
    }
}

#[test]
fn unknown_param_type() {
    let (_, mut bytes) = rich();
    let at = import(&layout(&bytes), Kind::Action, "Configure").params[3]
        .ty
        .at;
    bytes[at] = 9;
    assert_eq!(failure(&bytes), (at, tag("parameter type", 9)));
}

#[test]
fn unknown_field_type_of_an_input() {
    let (_, mut bytes) = rich();
    let l = layout(&bytes);
    let at = import(&l, Kind::Condition, "Compare").params[1]
        .ty
        .field_type_at
        .unwrap();
    bytes[at] = 4;
    assert_eq!(failure(&bytes), (at, tag("field type", 4)));
}

#[test]
fn unknown_field_type_of_an_output() {
    let (_, mut bytes) = rich();
    let l = layout(&bytes);
    let at = import(&l, Kind::Deferred, "Remember").params[0]
        .ty
        .field_type_at
        .unwrap();
    bytes[at] = 0xFF;
    assert_eq!(failure(&bytes), (at, tag("field type", 0xFF)));
}

#[test]
fn unknown_field_type_in_the_field_table() {
    let (_, mut bytes) = rich();
    let at = layout(&bytes).fields[3].ty_at;
    bytes[at] = 7;
    assert_eq!(failure(&bytes), (at, tag("field type", 7)));
}

#[test]
fn bytes_after_the_field_table() {
    let (_, mut bytes) = sample();
    let end = bytes.len();
    bytes.extend_from_slice(&[0, 0, 0]);
    assert_eq!(failure(&bytes), (end, Undecodable::Trailing { bytes: 3 }));
}

// Shapes that decode but are invalid.

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
    let (_, mut bytes) = sample();
    let at = layout(&bytes).nodes[4].id_at;
    put_u32(&mut bytes, at, 2);
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
    // No items and empty tables: decodes, then fails validation.
    let bytes = Wire::up_to_strings().u32(0).u32(0).u32(0).done();
    assert_eq!(invalid(&bytes), (0, None, Invalid::Empty));
}

#[test]
fn persistent_import_flag_must_match_the_items() {
    let (_, mut bytes) = sample();
    // The first action import is Shoot; marking it persistent disagrees with
    // its item's flag.
    let l = layout(&bytes);
    let shoot = import(&l, Kind::Action, "Shoot");
    assert!(std::ptr::eq(shoot, &l.imports[1][0]));
    bytes[shoot.persistent_at] = 1;
    let (offset, item, what) = invalid(&bytes);
    assert_eq!((offset, item), (item_offset(3), Some(3)));
    let want = Invalid::PersistentFlag {
        leaf: "Shoot".into(),
        declared: true,
    };
    assert_eq!(what, want);
}

#[test]
fn source_file_past_the_file_table() {
    let (shape, mut bytes) = rich();
    let fire = shape.find("fire").unwrap().index();
    let at = layout(&bytes).nodes[fire].file_at.unwrap();
    bytes[at..at + 2].copy_from_slice(&2u16.to_le_bytes());
    let want = Invalid::SourceFile { file: 2, files: 2 };
    assert_eq!(
        invalid(&bytes),
        (item_offset(fire as u32), Some(fire as u32), want)
    );
}

#[test]
fn bool_word_other_than_zero_or_one_in_the_bytes() {
    let (shape, mut bytes) = rich();
    let node = shape.find("Configure").unwrap();
    let loud = shape.item(node).params().offset as usize + 2;
    let at = layout(&bytes).param_at(loud);
    bytes[at] = 2;
    let (offset, item, what) = invalid(&bytes);
    assert_eq!((offset, item), (item_offset(node.get()), Some(node.get())));
    assert!(
        matches!(&what, Invalid::ParamWord { leaf, param, word: 2, .. }
            if &**leaf == "Configure" && &**param == "loud"),
        "{what:?}"
    );
}

#[test]
fn field_table_type_changed_under_a_field_param() {
    // `hunger` becomes a bool; the first `Compare` reads it as an int.
    let (shape, mut bytes) = rich();
    let at = layout(&bytes).fields[0].ty_at;
    bytes[at] = 0;
    let compare = shape.find("Compare").unwrap();
    let (offset, item, what) = invalid(&bytes);
    assert_eq!(
        (offset, item),
        (item_offset(compare.get()), Some(compare.get()))
    );
    let Invalid::ParamWord { param, reason, .. } = what else {
        panic!("{what:?}");
    };
    assert_eq!(&*param, "left");
    assert_eq!(reason, "refers to a field of another type");
}
