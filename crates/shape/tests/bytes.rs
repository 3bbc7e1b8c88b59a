//! The byte format: round trips, the documented layout, every `Undecodable`
//! variant from a crafted corruption at the right offset, truncation and
//! hostile counts.
//!
//! Offsets come from [`common::wire::layout`], a reading of the layout
//! documented in bytes.rs written independently of the decoder.

mod common;

use common::wire::{ImportAt, Layout, Str, Wire, get_u32, layout, put_u32};
use common::{
    SCRIPTS, build, build_declared, catalog, creature, declared_catalog, samples, scripted, typed,
};
use treebeard_shape::tree::{act, concurrent, cond, priority, sequence};
use treebeard_shape::{
    Declarations, DecodeError, FieldType, Invalid, Kind, LogEvent, NodeId, NodeIdx, Options,
    ParamType, Shape, Signal, Source, Timestamp, Undecodable, Variable, compile_with, item_offset,
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

/// A shape with every section of the format non-empty, the declaration
/// and script tables included: the eleven kinds of the declarations and
/// scripts, compiled with two variables, two signals, two exclusive
/// timestamps and two stimuli (see `common::scripted`). Its encoding beside
/// it.
fn declared() -> (Shape, Vec<u8>) {
    let shape = build_declared(&scripted());
    let bytes = shape.to_bytes();
    (shape, bytes)
}

/// The creature (see `common::creature`) with log messages on four nodes:
/// the root (start), `fight` (all three), its condition (start) and
/// `MoveTo` (success and failure); and its encoding.
fn logged() -> (Shape, Vec<u8>) {
    use LogEvent::{Failure, Start, Success};
    let tree = priority([
        sequence([
            cond("enemy_visible").log(Start, "looking"),
            act("Shoot"),
            act("Counter"),
        ])
        .named("fight")
        .log(Start, "a")
        .log(Success, "b")
        .log(Failure, "c"),
        sequence([cond("hunger_above").param(50), act("FindFood"), act("Eat")]).named("eat"),
        concurrent([act("Walk").param(-3), act("Timer").param(2.5f64)]).named("wander"),
        act("MoveTo")
            .param(1)
            .param(2)
            .log(Success, "done")
            .log(Failure, "gave up: \u{1F4A5}"),
    ])
    .log(Start, "thinking");
    let shape = build(&tree);
    let bytes = shape.to_bytes();
    (shape, bytes)
}

/// The item of the first node of `kind` in `shape`.
fn first(shape: &Shape, kind: Kind) -> NodeIdx {
    (0..shape.len() as u32)
        .map(NodeIdx::new)
        .find(|&n| shape.kind(n) == kind)
        .unwrap_or_else(|| panic!("no {kind}"))
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
fn header_is_magic_version_seven_and_a_zero_word() {
    let (_, bytes) = sample();
    assert_eq!(&bytes[..8], b"TBSHAPE\0");
    assert_eq!(get_u32(&bytes, 8), 7);
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
fn version_two_without_the_declaration_sections_is_refused() {
    // A version 2 encoding ended after the field table.
    let (_, bytes) = sample();
    let l = layout(&bytes);
    let mut old = bytes[..l.events_count_at].to_vec();
    put_u32(&mut old, 8, 2);
    assert_eq!(failure(&old), (8, Undecodable::Version { found: 2 }));
    let text = decode_err(&old).to_string();
    assert_eq!(
        text,
        "byte 8: format version 2 is not supported; this build reads versions 6 to 7"
    );
}

#[test]
fn version_four_without_the_log_section_is_refused() {
    // A version 4 encoding ended with the script table.
    let (_, bytes) = logged();
    let l = layout(&bytes);
    let mut old = bytes[..l.logs_count_at].to_vec();
    put_u32(&mut old, 8, 4);
    assert_eq!(failure(&old), (8, Undecodable::Version { found: 4 }));
}

#[test]
fn version_three_without_the_stimulus_section_is_refused() {
    // A version 3 encoding had no stimulus table: its script table
    // followed the timestamps.
    let (_, bytes) = declared();
    let l = layout(&bytes);
    let mut old = bytes[..l.stimuli_count_at].to_vec();
    old.extend_from_slice(&bytes[l.scripts_count_at..]);
    put_u32(&mut old, 8, 3);
    assert_eq!(failure(&old), (8, Undecodable::Version { found: 3 }));
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
        .u32(0)
        .done();
    let at = bytes.len();
    assert_eq!(failure(&bytes), (at, truncated("node table", 4, 0)));
}

#[test]
fn missing_last_byte_of_the_field_table_is_truncated_there() {
    let (_, bytes) = rich();
    let l = layout(&bytes);
    let last = l.fields.last().unwrap();
    let cut = &bytes[..last.ty_at];
    assert_eq!(failure(cut), (last.ty_at, truncated("field table", 1, 0)));
}

#[test]
fn missing_last_byte_is_truncated_in_the_script_table() {
    // Without declarations and logs, the encoding ends with the script
    // count and the log count.
    let (_, bytes) = rich();
    let l = layout(&bytes);
    assert_eq!(l.scripts_count_at, bytes.len() - 8);
    assert_eq!(l.logs_count_at, bytes.len() - 4);
    let cut = &bytes[..l.logs_count_at - 1];
    let want = truncated("script table", 4, 3);
    assert_eq!(failure(cut), (l.scripts_count_at, want));
    let cut = &bytes[..bytes.len() - 1];
    assert_eq!(
        failure(cut),
        (l.logs_count_at, truncated("log table", 4, 3))
    );
    // With them, with the last code word of the last script.
    let (_, bytes) = declared();
    let l = layout(&bytes);
    let script = l.scripts.last().unwrap();
    let last = script.word_at(script.words.len() - 1);
    assert_eq!(last + 8, l.logs_count_at);
    let cut = &bytes[..l.logs_count_at - 1];
    // The word count is checked against the bytes left before the words
    // are read.
    let n = script.words.len();
    let want = truncated("script table", 8 * n as u64, 8 * n - 1);
    assert_eq!(failure(cut), (script.words_count_at, want));
}

#[test]
fn every_truncation_is_an_error() {
    let mut encodings: Vec<Vec<u8>> = samples().iter().map(|t| build(t).to_bytes()).collect();
    encodings.push(rich().1);
    encodings.push(declared().1);
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
    // Bit 0 is the persistent flag, bit 1 the scope flag, bit 2 a memory
    // block's; no other bit.
    bytes[at] = 8;
    assert_eq!(failure(&bytes), (at, tag("import flags", 8)));
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
fn bytes_after_the_script_table() {
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
    let bytes = Wire::up_to_logs().u32(0).done();
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

// Declarations and scripts.

#[test]
fn declared_shapes_round_trip_to_equal_shapes() {
    let (shape, bytes) = declared();
    assert_eq!(shape.scripts().len(), SCRIPTS.len());
    let again = Shape::from_bytes(&bytes).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(again, shape);
    assert_eq!(again.to_bytes(), bytes, "encoding is canonical");
    assert_eq!(again.spec(), shape.spec());
    assert_eq!(again.script_types(), shape.script_types());
    let events: Vec<&str> = again.events().iter().map(|e| &**e).collect();
    assert_eq!(events, ["OnEnemySeen", "OnLostSightOfTarget", "Alarm"]);
    assert_eq!(
        again.variables(),
        [
            Variable {
                name: "TargetVisible".into(),
                initial: false
            },
            Variable {
                name: "Fleeing".into(),
                initial: true
            },
        ]
    );
    assert_eq!(
        again.signals(),
        [
            Signal {
                event: 0,
                variable: 0,
                value: true
            },
            Signal {
                event: 1,
                variable: 0,
                value: false
            },
        ]
    );
    assert_eq!(
        again.timestamps(),
        [
            Timestamp {
                name: "TargetSpotted".into(),
                event: 0,
                exclusive: Some(1)
            },
            Timestamp {
                name: "TargetLost".into(),
                event: 1,
                exclusive: Some(0)
            },
        ]
    );
    let sources: Vec<&str> = again.scripts().iter().map(|s| &*s.source).collect();
    assert_eq!(sources, SCRIPTS);
    for (a, b) in again.scripts().iter().zip(shape.scripts()) {
        assert_eq!(a.words, b.words, "{}", a.source);
    }
    // A configured item's script word survives: the gate's test is script 1.
    let gate = first(&again, Kind::ScriptGate);
    assert_eq!(again.params(gate), [1]);
    assert_eq!(again.script(1), &*shape.scripts()[1].words);
}

#[test]
fn declaration_tables_follow_the_documented_layout() {
    let (shape, bytes) = declared();
    let l = layout(&bytes);
    assert_eq!(l.end, bytes.len(), "the layout accounts for every byte");
    assert_eq!(l.events_count_at, l.fields.last().unwrap().ty_at + 1);
    let texts = |t: &[Str]| t.iter().map(|s| s.text.clone()).collect::<Vec<_>>();
    assert_eq!(
        texts(&l.events),
        ["OnEnemySeen", "OnLostSightOfTarget", "Alarm"]
    );
    let variables: Vec<(&str, u8)> = l
        .variables
        .iter()
        .map(|v| (&*v.name.text, bytes[v.initial_at]))
        .collect();
    assert_eq!(variables, [("TargetVisible", 0), ("Fleeing", 1)]);
    let signals: Vec<(u32, u32, u8)> = l
        .signals
        .iter()
        .map(|s| {
            (
                get_u32(&bytes, s.at),
                get_u32(&bytes, s.variable_at),
                bytes[s.value_at],
            )
        })
        .collect();
    assert_eq!(signals, [(0, 0, 1), (1, 0, 0)]);
    let timestamps: Vec<(&str, u32, u32)> = l
        .timestamps
        .iter()
        .map(|t| {
            let event = get_u32(&bytes, t.event_at);
            (&*t.name.text, event, get_u32(&bytes, t.exclusive_at))
        })
        .collect();
    assert_eq!(timestamps, [("TargetSpotted", 0, 1), ("TargetLost", 1, 0)]);
    let stimuli: Vec<(&str, f32)> = l
        .stimuli
        .iter()
        .map(|s| (&*s.name.text, f32::from_bits(get_u32(&bytes, s.seconds_at))))
        .collect();
    assert_eq!(stimuli, [("Hit", 2.0), ("Invited", 0.5)]);
    assert_eq!(l.stimuli_count_at, l.timestamps[1].exclusive_at + 4);
    assert_eq!(l.scripts_count_at, l.stimuli[1].seconds_at + 4);
    assert_eq!(l.scripts.len(), shape.scripts().len());
    for (at, script) in l.scripts.iter().zip(shape.scripts()) {
        assert_eq!(at.source.text, &*script.source);
        assert_eq!(
            get_u32(&bytes, at.words_count_at) as usize,
            script.words.len()
        );
        assert_eq!(at.words, &*script.words);
    }
}

#[test]
fn a_timestamp_exclusive_to_none_is_written_as_u32_max() {
    let declarations = Declarations::new().timestamp("Seen", "Alarm");
    let options = Options {
        declarations,
        ..Options::default()
    };
    let shape = compile_with(&act("Shoot"), &declared_catalog(), &options).unwrap();
    let bytes = shape.to_bytes();
    let l = layout(&bytes);
    assert_eq!(get_u32(&bytes, l.timestamps[0].event_at), 2);
    assert_eq!(get_u32(&bytes, l.timestamps[0].exclusive_at), u32::MAX);
    let again = Shape::from_bytes(&bytes).unwrap();
    assert_eq!(again.timestamps()[0].exclusive, None);
    assert_eq!(again, shape);
}

#[test]
fn truncation_in_each_declaration_section_names_it() {
    // Where a count of fixed-size entries (signals, code words) does not
    // fit, the count is at fault; otherwise the entry being read.
    let (_, bytes) = declared();
    let l = layout(&bytes);
    let script = &l.scripts[2];
    let cases = [
        (l.events[1].at + 2, l.events[1].at, "event table"),
        (
            l.variables[1].initial_at,
            l.variables[1].initial_at,
            "variable table",
        ),
        (l.signals[1].variable_at, l.signals_count_at, "signal table"),
        (
            l.timestamps[0].exclusive_at + 3,
            l.timestamps[0].exclusive_at,
            "timestamp table",
        ),
        (script.source.at + 1, script.source.at, "script table"),
        (script.word_at(0) + 5, script.words_count_at, "script table"),
    ];
    for (len, at, section) in cases {
        let e = decode_err(&bytes[..len]);
        let Undecodable::Truncated { section: found, .. } = e.what() else {
            panic!("length {len}: {e}");
        };
        assert_eq!((e.offset(), *found), (at, section), "length {len}: {e}");
    }
}

#[test]
fn truncations_past_the_field_table_name_their_section() {
    // `every_truncation_is_an_error` covers every prefix of the declared
    // shape; here each cut past the field table must name the section it
    // falls in, and an offset inside that section.
    let (_, bytes) = declared();
    let l = layout(&bytes);
    let sections = [
        (l.events_count_at, "event table"),
        (l.variables_count_at, "variable table"),
        (l.entries_count_at, "entry table"),
        (l.signals_count_at, "signal table"),
        (l.timestamps_count_at, "timestamp table"),
        (l.stimuli_count_at, "stimulus table"),
        (l.scripts_count_at, "script table"),
        (l.logs_count_at, "log table"),
        (bytes.len(), ""),
    ];
    for pair in sections.windows(2) {
        let ((start, section), (end, _)) = (pair[0], pair[1]);
        for len in start..end {
            let e = decode_err(&bytes[..len]);
            match e.what() {
                Undecodable::Truncated { section: s, .. } => {
                    assert_eq!(*s, section, "length {len}: {e}");
                }
                _ => panic!("length {len}: {e}"),
            }
            assert!(
                e.offset() >= start && e.offset() <= len,
                "length {len}: {e}"
            );
        }
    }
}

#[test]
fn huge_event_count() {
    huge_count_fails_at_the_count(Wire::up_to_events(), "event table", 4);
}

#[test]
fn huge_variable_count() {
    // A variable is at least a name length and its initial value.
    huge_count_fails_at_the_count(Wire::up_to_events().u32(0), "variable table", 5);
}

#[test]
fn huge_entry_count() {
    // An entry is at least a name length and its type.
    let prefix = Wire::up_to_events().u32(0).u32(0);
    huge_count_fails_at_the_count(prefix, "entry table", 5);
}

#[test]
fn huge_signal_count() {
    // A signal is an event, a variable and a value.
    let prefix = Wire::up_to_events().u32(0).u32(0).u32(0);
    huge_count_fails_at_the_count(prefix, "signal table", 9);
}

#[test]
fn huge_timestamp_count() {
    // A timestamp is at least a name length, an event and an exclusive.
    let prefix = Wire::up_to_events().u32(0).u32(0).u32(0).u32(0);
    huge_count_fails_at_the_count(prefix, "timestamp table", 12);
}

#[test]
fn huge_stimulus_count() {
    // A stimulus is at least a name length and its seconds.
    huge_count_fails_at_the_count(Wire::up_to_stimuli(), "stimulus table", 8);
}

#[test]
fn huge_script_count() {
    // A script is at least a source length and a word count.
    huge_count_fails_at_the_count(Wire::up_to_scripts(), "script table", 8);
}

#[test]
fn huge_script_word_count() {
    let prefix = Wire::up_to_scripts().u32(1).string("x");
    huge_count_fails_at_the_count(prefix, "script table", 8);
}

#[test]
fn huge_script_source_length() {
    // Four bytes more than the length, so that the script count fits.
    let bytes = Wire::up_to_scripts().u32(1).u32(u32::MAX).zeros(4).done();
    let at = bytes.len() - 4;
    let want = truncated("script table", u64::from(u32::MAX), 4);
    assert_eq!(failure(&bytes), (at, want));
}

#[test]
fn variable_initial_byte_other_than_zero_or_one() {
    let (_, mut bytes) = declared();
    let at = layout(&bytes).variables[1].initial_at;
    bytes[at] = 2;
    assert_eq!(failure(&bytes), (at, tag("variable initial value", 2)));
    let text = decode_err(&bytes).to_string();
    assert_eq!(
        text,
        format!("byte {at}: 2 is not a valid variable initial value")
    );
}

#[test]
fn signal_value_byte_other_than_zero_or_one() {
    let (_, mut bytes) = declared();
    let at = layout(&bytes).signals[0].value_at;
    bytes[at] = 0xFF;
    assert_eq!(failure(&bytes), (at, tag("signal value", 0xFF)));
}

fn declared_not_utf8_at(pick: impl Fn(&Layout) -> &Str) {
    let (_, mut bytes) = declared();
    let l = layout(&bytes);
    let s = pick(&l);
    assert!(!s.text.is_empty());
    bytes[s.at] = 0xFF;
    assert_eq!(failure(&bytes), (s.at, Undecodable::NotUtf8), "{}", s.text);
}

#[test]
fn event_name_not_utf8() {
    declared_not_utf8_at(|l| &l.events[2]);
}

#[test]
fn variable_name_not_utf8() {
    declared_not_utf8_at(|l| &l.variables[0].name);
}

#[test]
fn timestamp_name_not_utf8() {
    declared_not_utf8_at(|l| &l.timestamps[1].name);
}

#[test]
fn stimulus_name_not_utf8() {
    declared_not_utf8_at(|l| &l.stimuli[1].name);
}

#[test]
fn script_source_not_utf8() {
    declared_not_utf8_at(|l| &l.scripts[3].source);
}

// Declaration tables that decode but are invalid: reported at their entry.

fn declaration(what: &'static str, index: usize, reason: &str) -> Invalid {
    Invalid::Declaration {
        what,
        index,
        reason: reason.into(),
    }
}

#[test]
fn signal_naming_a_variable_past_the_table_is_reported_at_the_signal() {
    let (_, mut bytes) = declared();
    let signal = layout(&bytes).signals[1].clone();
    put_u32(&mut bytes, signal.variable_at, 2);
    let want = declaration("signal", 1, "names an event or variable past its table");
    assert_eq!(invalid(&bytes), (signal.at, None, want));
    let text = decode_err(&bytes).to_string();
    assert_eq!(
        text,
        format!(
            "byte {}: signal 1 names an event or variable past its table",
            signal.at
        )
    );
}

#[test]
fn signal_naming_an_event_past_the_table() {
    let (_, mut bytes) = declared();
    let signal = layout(&bytes).signals[0].clone();
    put_u32(&mut bytes, signal.at, 3);
    let want = declaration("signal", 0, "names an event or variable past its table");
    assert_eq!(invalid(&bytes), (signal.at, None, want));
}

#[test]
fn exclusive_index_out_of_range_is_reported_at_the_timestamp() {
    let (_, mut bytes) = declared();
    let stamp = layout(&bytes).timestamps[0].clone();
    put_u32(&mut bytes, stamp.exclusive_at, 7);
    let want = declaration(
        "timestamp",
        0,
        "is exclusive to one that is not exclusive to it",
    );
    assert_eq!(invalid(&bytes), (stamp.at, None, want));
}

#[test]
fn exclusion_one_way_only_is_invalid() {
    // TargetLost no longer names TargetSpotted back.
    let (_, mut bytes) = declared();
    let l = layout(&bytes);
    put_u32(&mut bytes, l.timestamps[1].exclusive_at, u32::MAX);
    let want = declaration(
        "timestamp",
        0,
        "is exclusive to one that is not exclusive to it",
    );
    assert_eq!(invalid(&bytes), (l.timestamps[0].at, None, want));
}

#[test]
fn timestamp_set_by_an_event_past_the_events() {
    let (_, mut bytes) = declared();
    let stamp = layout(&bytes).timestamps[1].clone();
    put_u32(&mut bytes, stamp.event_at, 3);
    let want = declaration("timestamp", 1, "is set by an event past the events");
    assert_eq!(invalid(&bytes), (stamp.at, None, want));
}

#[test]
fn stimuli_survive_the_round_trip() {
    let (shape, bytes) = declared();
    let again = Shape::from_bytes(&bytes).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(again.stimuli(), shape.stimuli());
    let names: Vec<(&str, f32)> = again
        .stimuli()
        .iter()
        .map(|s| (&*s.name, s.seconds))
        .collect();
    assert_eq!(names, [("Hit", 2.0), ("Invited", 0.5)]);
    assert_eq!(again.spec().stimuli, 2);
    // PostStimulus(Invited, data: {ally}) keeps its words.
    let post = first(&again, Kind::PostStimulus);
    assert_eq!(again.params(post), shape.params(post));
    assert_eq!(again.params(post)[0], 1);
    assert_eq!(again.to_bytes(), bytes, "encoding is canonical");
}

#[test]
fn stimulus_seconds_not_finite_or_negative_are_reported_at_the_stimulus() {
    for bad in [-1.0f32, f32::NAN, f32::INFINITY] {
        let (_, mut bytes) = declared();
        let hit = layout(&bytes).stimuli[0].clone();
        put_u32(&mut bytes, hit.seconds_at, bad.to_bits());
        let want = declaration(
            "stimulus",
            0,
            "lasts a number of seconds that is not finite and 0 or more",
        );
        assert_eq!(invalid(&bytes), (hit.at, None, want), "{bad}");
    }
}

#[test]
fn repeated_stimulus_name_is_reported_at_the_stimulus() {
    // The second stimulus, `Invited`, is renamed `Hit` like the first.
    let (_, bytes) = declared();
    let l = layout(&bytes);
    let second = &l.stimuli[1].name;
    let mut renamed = bytes[..second.len_at].to_vec();
    renamed.extend_from_slice(&3u32.to_le_bytes());
    renamed.extend_from_slice(b"Hit");
    renamed.extend_from_slice(&bytes[second.at + second.text.len()..]);
    let want = declaration("stimulus", 1, "has an empty or repeated name");
    assert_eq!(invalid(&renamed), (l.stimuli[1].at, None, want));
}

#[test]
fn more_than_32_stimuli_are_reported_at_the_33rd() {
    let declarations = (0..32).fold(Declarations::new(), |d, i| {
        d.stimulus(&format!("s{i:02}"), 1.0)
    });
    let options = Options {
        declarations,
        ..Options::default()
    };
    let shape = compile_with(&act("Shoot"), &declared_catalog(), &options).unwrap();
    let bytes = shape.to_bytes();
    let l = layout(&bytes);
    assert_eq!(l.stimuli.len(), 32);
    // One more entry, spliced in before the script table.
    let extra = l.scripts_count_at;
    let mut more = bytes[..extra].to_vec();
    more.extend_from_slice(&3u32.to_le_bytes());
    more.extend_from_slice(b"s32");
    more.extend_from_slice(&1.0f32.to_bits().to_le_bytes());
    more.extend_from_slice(&bytes[extra..]);
    put_u32(&mut more, l.stimuli_count_at, 33);
    let want = declaration(
        "stimulus",
        32,
        "is past the limit of 32 stimuli (stimulus flags are a u32)",
    );
    assert_eq!(invalid(&more), (extra, None, want));
}

#[test]
fn stimulus_word_past_the_stimuli_is_reported_at_the_item() {
    let (shape, mut bytes) = declared();
    let node = first(&shape, Kind::PostStimulus);
    let at = layout(&bytes).param_at(shape.item(node).params().offset as usize);
    bytes[at..at + 8].copy_from_slice(&2u64.to_le_bytes());
    let (offset, item, what) = invalid(&bytes);
    assert_eq!((offset, item), (item_offset(node.get()), Some(node.get())));
    assert!(
        matches!(&what, Invalid::ParamWord { param, word: 2, reason: "is not a stimulus", .. } if &**param == "stimulus"),
        "{what:?}"
    );
}

#[test]
fn repeated_variable_name_is_reported_at_the_variable() {
    let declarations = Declarations::new().variable("a", false).variable("b", true);
    let options = Options {
        declarations,
        ..Options::default()
    };
    let shape = compile_with(&act("Shoot"), &declared_catalog(), &options).unwrap();
    let mut bytes = shape.to_bytes();
    let l = layout(&bytes);
    bytes[l.variables[1].name.at] = b'a';
    let want = declaration("variable", 1, "has an empty or repeated name");
    assert_eq!(invalid(&bytes), (l.variables[1].at, None, want));
}

#[test]
fn script_that_fails_the_check_is_reported_at_the_script() {
    let (shape, mut bytes) = declared();
    let script = layout(&bytes).scripts[2].clone();
    // An unknown op code in the first word.
    bytes[script.word_at(0)] = 0xFF;
    let (offset, item, what) = invalid(&bytes);
    assert_eq!((offset, item), (script.at, None));
    let Invalid::Declaration {
        what,
        index,
        reason,
    } = what
    else {
        panic!("{what:?}");
    };
    assert_eq!((what, index), ("script", 2));
    let mut words = shape.scripts()[2].words.to_vec();
    words[0] |= 0xFF;
    let check = treebeard_shape::script::check(&words, shape.fields(), 2).unwrap_err();
    assert_eq!(reason, check);
    assert_eq!(reason, "unknown op code");
}

#[test]
fn script_whose_return_disagrees_with_its_code_fails_the_check() {
    // Script 1, the gate's test, is `hunger > 3 && !alert`; its last word
    // becomes the first script's typed return, an int's.
    let (shape, mut bytes) = declared();
    let l = layout(&bytes);
    let int_return = *shape.scripts()[0].words.last().unwrap();
    let gate_script = &l.scripts[1];
    let last = gate_script.word_at(gate_script.words.len() - 1);
    bytes[last..last + 8].copy_from_slice(&int_return.to_le_bytes());
    let (offset, item, what) = invalid(&bytes);
    assert_eq!((offset, item), (gate_script.at, None), "{what:?}");
    assert!(
        matches!(
            &what,
            Invalid::Declaration {
                what: "script",
                index: 1,
                ..
            }
        ),
        "{what:?}"
    );
}

#[test]
fn test_param_naming_an_int_script_is_reported_at_the_item() {
    let (shape, mut bytes) = declared();
    let gate = first(&shape, Kind::ScriptGate);
    let at = layout(&bytes).param_at(shape.item(gate).params().offset as usize);
    // Script 0 is an int.
    bytes[at..at + 8].copy_from_slice(&0u64.to_le_bytes());
    let want = Invalid::ParamWord {
        leaf: "ScriptGate".into(),
        param: "test".into(),
        word: 0,
        reason: "is a script whose value is not a bool",
    };
    assert_eq!(
        invalid(&bytes),
        (item_offset(gate.get()), Some(gate.get()), want)
    );
}

#[test]
fn condition_param_naming_a_script_that_assigns_is_reported_at_the_item() {
    let (shape, mut bytes) = declared();
    let node = first(&shape, Kind::IfCondition);
    let at = layout(&bytes).param_at(shape.item(node).params().offset as usize);
    // Script 3 is `Fleeing = true`.
    bytes[at..at + 8].copy_from_slice(&3u64.to_le_bytes());
    let want = Invalid::ParamWord {
        leaf: "IfCondition".into(),
        param: "condition".into(),
        word: 3,
        reason: "is a script that assigns, not a condition",
    };
    assert_eq!(
        invalid(&bytes),
        (item_offset(node.get()), Some(node.get()), want)
    );
}

#[test]
fn script_word_past_the_script_table_is_reported_at_the_item() {
    let (shape, mut bytes) = declared();
    let node = first(&shape, Kind::Script);
    let at = layout(&bytes).param_at(shape.item(node).params().offset as usize);
    bytes[at..at + 8].copy_from_slice(&(SCRIPTS.len() as u64).to_le_bytes());
    let (offset, item, what) = invalid(&bytes);
    assert_eq!((offset, item), (item_offset(node.get()), Some(node.get())));
    assert!(
        matches!(&what, Invalid::ParamWord { param, reason: "is not a script", .. } if &**param == "script"),
        "{what:?}"
    );
}

#[test]
fn event_word_past_the_events_is_reported_at_the_item() {
    let (shape, mut bytes) = declared();
    let node = first(&shape, Kind::WaitForEvent);
    let at = layout(&bytes).param_at(shape.item(node).params().offset as usize);
    bytes[at..at + 8].copy_from_slice(&3u64.to_le_bytes());
    let (offset, item, what) = invalid(&bytes);
    assert_eq!((offset, item), (item_offset(node.get()), Some(node.get())));
    assert!(
        matches!(&what, Invalid::ParamWord { param, word: 3, reason: "is not an event", .. } if &**param == "event"),
        "{what:?}"
    );
}

#[test]
fn dropping_events_invalidates_the_signals_naming_them() {
    // The event table is cut to its first event: the second signal (and
    // the second timestamp) name event 1, past it. Signals are checked
    // first.
    let (_, bytes) = declared();
    let l = layout(&bytes);
    let mut cut = bytes[..l.events[1].len_at].to_vec();
    cut.extend_from_slice(&bytes[l.variables_count_at..]);
    put_u32(&mut cut, l.events_count_at, 1);
    let signals = l.signals[1].at - (l.variables_count_at - l.events[1].len_at);
    let want = declaration("signal", 1, "names an event or variable past its table");
    assert_eq!(invalid(&cut), (signals, None, want));
}

// The log table (version 5).

#[test]
fn log_messages_survive_the_round_trip() {
    let (shape, bytes) = logged();
    assert_eq!(shape.logs().len(), 4, "{}", shape.disassemble());
    let again = Shape::from_bytes(&bytes).unwrap();
    assert_eq!(again, shape);
    assert_eq!(again.logs(), shape.logs());
    let root = again.logs_of(NodeIdx::ROOT).unwrap();
    assert_eq!(root.get(LogEvent::Start), Some("thinking"));
    assert_eq!(root.get(LogEvent::Failure), None);
}

#[test]
fn log_table_follows_the_documented_layout() {
    let (shape, bytes) = logged();
    let l = layout(&bytes);
    assert_eq!(l.end, bytes.len());
    assert_eq!(l.logs.len(), shape.logs().len());
    for (at, entry) in l.logs.iter().zip(shape.logs()) {
        assert_eq!(get_u32(&bytes, at.at), entry.node);
        let mask: u8 = entry
            .messages
            .iter()
            .map(|(e, _)| match e {
                LogEvent::Start => 1,
                LogEvent::Success => 2,
                LogEvent::Failure => 4,
            })
            .sum();
        assert_eq!(bytes[at.events_at], mask);
        let texts: Vec<&str> = at.messages.iter().map(|m| &*m.text).collect();
        let want: Vec<&str> = entry.messages.iter().map(|(_, m)| m).collect();
        assert_eq!(texts, want);
    }
    // The entry with all three messages writes them in bit order.
    let all = l.logs.iter().find(|e| bytes[e.events_at] == 7).unwrap();
    let texts: Vec<&str> = all.messages.iter().map(|m| &*m.text).collect();
    assert_eq!(texts, ["a", "b", "c"]);
}

#[test]
fn log_event_mask_with_unknown_bits_is_a_tag_error() {
    let (_, mut bytes) = logged();
    let at = layout(&bytes).logs[0].events_at;
    bytes[at] = 9;
    assert_eq!(failure(&bytes), (at, tag("log event mask", 9)));
}

#[test]
fn log_entry_past_the_stream_is_reported_at_its_entry() {
    let (shape, mut bytes) = logged();
    let l = layout(&bytes);
    let last = l.logs.last().unwrap();
    put_u32(&mut bytes, last.at, shape.len() as u32);
    let index = l.logs.len() - 1;
    let reason = "names an item past the stream";
    assert_eq!(
        invalid(&bytes),
        (last.at, None, Invalid::Log { index, reason })
    );
}

#[test]
fn log_entries_out_of_order_are_reported_at_the_later_entry() {
    let (shape, mut bytes) = logged();
    let l = layout(&bytes);
    // The second entry names the first's node again.
    put_u32(&mut bytes, l.logs[1].at, shape.logs()[0].node);
    let (offset, item, what) = invalid(&bytes);
    assert_eq!((offset, item), (l.logs[1].at, None));
    assert!(matches!(what, Invalid::Log { index: 1, .. }), "{what:?}");
}

#[test]
fn log_entry_without_messages_or_with_an_empty_one_is_invalid() {
    // No message: the mask cleared and the entry's strings dropped.
    let (shape, bytes) = logged();
    let l = layout(&bytes);
    let entry = &l.logs[1];
    let node = shape.logs()[1].node;
    let mut none = bytes[..entry.events_at].to_vec();
    none.push(0);
    let after = entry
        .messages
        .last()
        .map_or(entry.events_at + 1, |m| m.at + m.text.len());
    none.extend_from_slice(&bytes[after..]);
    let reason = "has no message";
    assert_eq!(
        invalid(&none),
        (entry.at, Some(node), Invalid::Log { index: 1, reason })
    );
    // An empty message: the first entry's first message emptied.
    let first = &l.logs[0].messages[0];
    let mut empty = bytes[..first.len_at].to_vec();
    empty.extend_from_slice(&0u32.to_le_bytes());
    empty.extend_from_slice(&bytes[first.at + first.text.len()..]);
    let reason = "has an empty message";
    let node = shape.logs()[0].node;
    assert_eq!(
        invalid(&empty),
        (l.logs[0].at, Some(node), Invalid::Log { index: 0, reason })
    );
}

#[test]
fn truncation_in_the_log_table_names_it() {
    let (_, bytes) = logged();
    let l = layout(&bytes);
    for len in l.logs_count_at..bytes.len() {
        let e = decode_err(&bytes[..len]);
        let Undecodable::Truncated { section, .. } = e.what() else {
            panic!("length {len}: {e}");
        };
        assert_eq!(*section, "log table", "length {len}: {e}");
        assert!(e.offset() >= l.logs_count_at && e.offset() <= len);
    }
}

#[test]
fn huge_log_count() {
    // A log entry is at least a node and its event mask.
    huge_count_fails_at_the_count(Wire::up_to_logs(), "log table", 5);
}

#[test]
fn log_lines_show_in_the_disassembly() {
    let (shape, _) = logged();
    let text = shape.disassemble().to_string();
    let logs: Vec<&str> = text.lines().skip_while(|l| *l != "logs:").skip(1).collect();
    assert_eq!(
        logs,
        [
            r#"    0  start "thinking""#,
            r#"    1  start "a", success "b", failure "c""#,
            r#"    2  start "looking""#,
            "   12  success \"done\", failure \"gave up: \u{1F4A5}\"",
        ],
        "{text}"
    );
    // Without messages, no section.
    let plain = build(&creature()).disassemble().to_string();
    assert!(!plain.contains("logs:"), "{plain}");
}

/// A leaf whose parameters have defaults of every encoding: a plain word
/// (an int, a string) and an input's literal.
fn defaulted() -> Shape {
    use treebeard_shape::{Catalog, LeafSchema, ParamSpec, ParamValue, compile};
    let mut c = Catalog::new();
    c.field(treebeard_shape::FieldDecl::new("hunger", FieldType::Int));
    c.declare(
        "Look",
        LeafSchema::action()
            .with(ParamSpec::new("times", ParamType::Int).default(ParamValue::Int(3)))
            .with(ParamSpec::new("what", ParamType::Str).default(ParamValue::Str("around".into())))
            .with(
                ParamSpec::new("above", ParamType::Input(FieldType::Int))
                    .default(ParamValue::Int(70)),
            ),
    );
    let tree = sequence([
        act("Look"),
        act("Look").arg("times", 4).arg("what", "around"),
        act("Look").arg("above", "{hunger}"),
    ]);
    compile(&tree, &c).unwrap()
}

#[test]
fn parameter_defaults_survive_the_round_trip_and_leave_labels() {
    let shape = defaulted();
    let back = Shape::from_bytes(&shape.to_bytes()).unwrap();
    assert_eq!(back, shape);
    let look = &shape.imports(Kind::Action)[0];
    assert!(look.params.iter().all(|p| p.default.is_some()));
    // Labels show a parameter only where it is not at its default; the
    // disassembly shows every one.
    let d = shape.disassemble();
    let node = |i: u32| NodeIdx::new(i);
    assert_eq!(d.label(node(1)), "Look");
    assert_eq!(d.label(node(2)), "Look(times=4)");
    assert_eq!(d.label(node(3)), "Look(above={hunger})");
    assert_eq!(
        d.payload(node(1)),
        r#"Look(times=3, what="around", above=70)"#
    );
}

#[test]
fn version_six_still_decodes_without_defaults() {
    // Shapes whose imports have no parameters encode the same in version 6
    // (which had no defaults) but for the version.
    let shape = build(&sequence([cond("ready"), act("Shoot")]));
    let mut bytes = shape.to_bytes();
    put_u32(&mut bytes, 8, 6);
    assert_eq!(Shape::from_bytes(&bytes).unwrap(), shape);
    // A default's tag is 0, 1 or 2.
    let with = defaulted().to_bytes();
    let l = layout(&with);
    let p = &import(&l, Kind::Action, "Look").params[0];
    let tag_at = p.ty.at + 1;
    let mut bad = with.clone();
    bad[tag_at] = 3;
    assert_eq!(
        failure(&bad),
        (
            tag_at,
            Undecodable::Tag {
                what: "parameter default",
                found: 3
            }
        )
    );
}
