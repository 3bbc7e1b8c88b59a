//! Typed parameters: the words the compiler encodes for each `ParamType`
//! (input literals as constants after the leaf's words, strings in the
//! string table, fields as `FIELD_REF` references), names and defaults, and
//! the validator's rejection of words that do not fit their types.

mod common;

use common::{build, catalog, typed};
use std::time::Duration;
use treebeard_shape::params::{FIELD_REF, field};
use treebeard_shape::tree::{act, cond, sequence};
use treebeard_shape::{
    Catalog, FieldDecl, FieldType, Invalid, LeafSchema, NodeIdx, ParamSpec, ParamType, Shape,
    ShapeParts, compile,
};

// In `typed()`: 0 Sequence, 1 Compare({hunger}, -0.5), 2 Compare(-12,
// {speed}), 3 Configure(-7, -1.25, true, 1.5s, "hello", sneak),
// 4 Remember({target}, "note", false).
const COMPARE_FIELD_FIRST: u32 = 1;
const COMPARE_LITERAL_FIRST: u32 = 2;
const CONFIGURE: u32 = 3;
const REMEMBER: u32 = 4;

fn words(shape: &Shape, node: u32) -> Vec<u64> {
    shape.params(NodeIdx::new(node)).to_vec()
}

/// The constant an input literal's word points at.
fn constant(shape: &Shape, node: u32, param: usize) -> u64 {
    shape.param_table()[words(shape, node)[param] as usize]
}

// Encoding.

#[test]
fn scalar_params_encode_as_documented() {
    let shape = build(&typed());
    let want = [
        -7i64 as u64,
        (-1.25f64).to_bits(),
        1,
        1.5f64.to_bits(),
        0, // "hello": the first string
        2, // sneak: the third variant
    ];
    assert_eq!(words(&shape, CONFIGURE), want);
}

#[test]
fn string_params_index_the_string_table() {
    let shape = build(&typed());
    assert_eq!(shape.strings(), &["hello".into(), "note".into()]);
    let label = words(&shape, CONFIGURE)[4];
    assert_eq!(&*shape.strings()[label as usize], "hello");
}

#[test]
fn enum_params_are_the_variant_index() {
    let gait = |g: &str| {
        let tree = act("Configure")
            .param(0)
            .param(0.0)
            .param(false)
            .param(0)
            .param("")
            .param(g);
        build(&tree).params(NodeIdx::ROOT)[5]
    };
    assert_eq!([gait("walk"), gait("run"), gait("sneak")], [0, 1, 2]);
}

#[test]
fn durations_are_seconds_as_float_bits_whatever_the_unit() {
    let wait = |d: treebeard_shape::ParamValue| {
        let tree = act("Configure")
            .arg("wait", d)
            .arg("count", 0)
            .arg("ratio", 0)
            .arg("loud", false)
            .arg("label", "")
            .arg("gait", "walk");
        f64::from_bits(build(&tree).params(NodeIdx::ROOT)[3])
    };
    assert_eq!(wait(Duration::from_millis(250).into()), 0.25);
    assert_eq!(wait("500ms".into()), 0.5);
    assert_eq!(wait("2s".into()), 2.0);
    assert_eq!(wait("1m".into()), 60.0);
    assert_eq!(wait(3.into()), 3.0);
}

#[test]
fn field_params_are_field_refs_by_declaration_order() {
    let shape = build(&typed());
    assert_eq!(words(&shape, COMPARE_FIELD_FIRST)[0], FIELD_REF); // hunger
    assert_eq!(words(&shape, COMPARE_LITERAL_FIRST)[1], FIELD_REF | 1); // speed
    assert_eq!(words(&shape, REMEMBER)[0], FIELD_REF | 3); // target
    let names: Vec<&str> = shape.fields().iter().map(|f| &*f.name).collect();
    assert_eq!(names, ["hunger", "speed", "alert", "target"]);
}

#[test]
fn fields_can_be_named_in_braces_in_text() {
    let shape = build(&cond("Compare").param("{hunger}").param("{ speed }"));
    assert_eq!(shape.params(NodeIdx::ROOT), &[FIELD_REF, FIELD_REF | 1]);
}

#[test]
fn input_literals_are_constants_after_the_leaf_words() {
    let shape = build(&typed());
    let node = NodeIdx::new(COMPARE_LITERAL_FIRST);
    let range = shape.item(node).params();
    assert_eq!(range.len, 2, "constants are not the leaf's own words");
    let words = words(&shape, COMPARE_LITERAL_FIRST);
    assert_eq!(words[0], u64::from(range.offset) + 2);
    assert_eq!(constant(&shape, COMPARE_LITERAL_FIRST, 0), -12i64 as u64);
}

#[test]
fn negative_float_input_literal_is_a_constant() {
    let shape = build(&typed());
    assert_eq!(
        constant(&shape, COMPARE_FIELD_FIRST, 1),
        (-0.5f64).to_bits()
    );
}

#[test]
fn input_literals_of_any_i64_and_f64_stay_representable() {
    // A word with the FIELD_REF bit set is a literal when it is a constant.
    let shape = build(&cond("Compare").param(i64::MIN).param(f64::MIN));
    let constants: Vec<u64> = (0..2).map(|p| constant(&shape, 0, p)).collect();
    assert_eq!(constants, [i64::MIN as u64, f64::MIN.to_bits()]);
    assert_eq!(Shape::from_bytes(&shape.to_bytes()).unwrap(), shape);
}

#[test]
fn string_and_bool_input_literals_are_constants_too() {
    let shape = build(&typed());
    let text = constant(&shape, REMEMBER, 1);
    assert_eq!(&*shape.strings()[text as usize], "note");
    assert_eq!(constant(&shape, REMEMBER, 2), 0);
}

#[test]
fn params_by_name_encode_like_params_by_position() {
    let by_position = act("Configure")
        .param(4)
        .param(0.5)
        .param(true)
        .param("2s")
        .param("x")
        .param("run");
    let by_name = act("Configure")
        .arg("gait", "run")
        .arg("label", "x")
        .arg("wait", "2s")
        .arg("loud", true)
        .arg("ratio", 0.5)
        .arg("count", 4);
    assert_eq!(
        build(&by_name).param_table(),
        build(&by_position).param_table()
    );
}

#[test]
fn omitted_params_take_their_defaults() {
    let mut c = Catalog::new();
    c.declare(
        "Wander",
        LeafSchema::action()
            .param("radius", ParamType::Float)
            .with(ParamSpec::new("pause", ParamType::Duration).default("250ms"))
            .with(ParamSpec::new("steps", ParamType::Int).default(3)),
    );
    let shape = compile(&act("Wander").param(8.0).arg("steps", 5), &c).unwrap();
    let want = [8.0f64.to_bits(), 0.25f64.to_bits(), 5];
    assert_eq!(shape.params(NodeIdx::ROOT), &want);
}

#[test]
fn text_values_convert_to_the_declared_type() {
    let tree = act("Configure")
        .param("-7")
        .param("2.5")
        .param("true")
        .param("1.5s")
        .param("hello")
        .param(" walk ");
    let words = build(&tree).params(NodeIdx::ROOT).to_vec();
    let want = [-7i64 as u64, 2.5f64.to_bits(), 1, 1.5f64.to_bits(), 0, 0];
    assert_eq!(words, want);
}

// The validator: words that do not fit their types, reported at the leaf
// with the parameter's name.

/// The typed sample's parts with `edit` applied to its parameter table,
/// given the offset of each node's words.
fn edited(edit: impl FnOnce(&mut Vec<u64>, &dyn Fn(u32, usize) -> usize)) -> ShapeParts {
    let shape = build(&typed());
    let offsets: Vec<usize> = (0..shape.len() as u32)
        .map(|i| shape.item(NodeIdx::new(i)).params().offset as usize)
        .collect();
    let mut parts = shape.into_parts();
    edit(&mut parts.params, &|node, param| {
        offsets[node as usize] + param
    });
    parts
}

/// The parts with one word of one leaf replaced.
fn with_word(node: u32, param: usize, word: u64) -> ShapeParts {
    edited(|table, at| table[at(node, param)] = word)
}

/// The rejection: item, leaf, parameter, word and reason.
fn rejected(parts: ShapeParts) -> (Option<u32>, String, String, u64, &'static str) {
    let e = match parts.validate() {
        Ok(shape) => panic!("accepted:\n{}", shape.disassemble()),
        Err(e) => e,
    };
    let Invalid::ParamWord {
        leaf,
        param,
        word,
        reason,
    } = e.what().clone()
    else {
        panic!("not a parameter word: {e}");
    };
    (e.item(), leaf.into(), param.into(), word, reason)
}

fn reason(parts: ShapeParts) -> &'static str {
    rejected(parts).4
}

#[test]
fn the_typed_sample_validates_again() {
    let shape = build(&typed());
    assert_eq!(shape.clone().into_parts().validate(), Ok(shape));
}

#[test]
fn bool_word_two_is_rejected_at_its_leaf() {
    let want = (
        Some(CONFIGURE),
        "Configure".into(),
        "loud".into(),
        2,
        "is not 0 or 1",
    );
    assert_eq!(rejected(with_word(CONFIGURE, 2, 2)), want);
}

#[test]
fn duration_words_must_be_finite_non_negative_seconds() {
    for bad in [-1.0f64, f64::NAN, f64::INFINITY] {
        let want = "is not a finite, non-negative number of seconds";
        assert_eq!(
            reason(with_word(CONFIGURE, 3, bad.to_bits())),
            want,
            "{bad}"
        );
    }
    assert!(with_word(CONFIGURE, 3, 0.0f64.to_bits()).validate().is_ok());
}

#[test]
fn string_index_past_the_string_table() {
    let parts = with_word(CONFIGURE, 4, 2);
    assert_eq!(reason(parts), "is past the shape's string table");
}

#[test]
fn enum_index_past_the_variants() {
    let parts = with_word(CONFIGURE, 5, 3);
    assert_eq!(reason(parts), "is not one of the enumeration's variants");
}

#[test]
fn output_without_field_ref() {
    let parts = with_word(REMEMBER, 0, 3);
    let (item, _, param, word, why) = rejected(parts);
    assert_eq!((item, &*param, word), (Some(REMEMBER), "into", 3));
    assert_eq!(why, "is not a field reference");
}

#[test]
fn field_ref_with_an_index_beyond_32_bits() {
    let parts = with_word(REMEMBER, 0, FIELD_REF | 1 << 32 | 3);
    assert_eq!(reason(parts), "is not a field reference");
}

#[test]
fn field_index_past_the_fields() {
    let parts = with_word(REMEMBER, 0, FIELD_REF | 4);
    assert_eq!(reason(parts), "refers past the shape's blackboard fields");
}

#[test]
fn output_field_of_the_wrong_type() {
    // `hunger` is an int; `into` writes a string.
    let parts = with_word(REMEMBER, 0, FIELD_REF);
    assert_eq!(reason(parts), "refers to a field of another type");
}

#[test]
fn input_field_of_the_wrong_type() {
    // `speed` is a float; `left` reads an int.
    let parts = with_word(COMPARE_FIELD_FIRST, 0, FIELD_REF | 1);
    let (_, _, param, _, why) = rejected(parts);
    assert_eq!(
        (&*param, why),
        ("left", "refers to a field of another type")
    );
}

#[test]
fn input_constant_offset_past_the_table() {
    let len = build(&typed()).param_table().len() as u64;
    let parts = with_word(COMPARE_LITERAL_FIRST, 0, len);
    let (item, _, param, word, why) = rejected(parts);
    assert_eq!(
        (item, &*param, word),
        (Some(COMPARE_LITERAL_FIRST), "left", len)
    );
    assert_eq!(why, "refers past the parameter table");
}

#[test]
fn string_input_constant_past_the_string_table() {
    let parts = edited(|table, at| {
        let constant = table[at(REMEMBER, 1)] as usize;
        table[constant] = 2;
    });
    let (_, _, param, _, why) = rejected(parts);
    assert_eq!(
        (&*param, why),
        ("text", "refers to a literal past the shape's string table")
    );
}

#[test]
fn bool_input_constant_other_than_zero_or_one() {
    let parts = edited(|table, at| {
        let constant = table[at(REMEMBER, 2)] as usize;
        table[constant] = 2;
    });
    let (_, _, param, _, why) = rejected(parts);
    assert_eq!(
        (&*param, why),
        ("flag", "refers to a literal that is not 0 or 1")
    );
}

#[test]
fn an_int_input_may_point_at_any_word() {
    // Int and float constants have no invalid values; the offset only has
    // to be inside the table.
    let parts = with_word(COMPARE_LITERAL_FIRST, 0, 0);
    assert!(parts.validate().is_ok());
}

#[test]
fn param_word_error_names_the_leaf_and_param() {
    let e = with_word(CONFIGURE, 2, 2).validate().unwrap_err();
    assert_eq!(
        e.to_string(),
        "item 3 (Action): parameter `loud` of `Configure`: word 0x2 is not 0 or 1"
    );
}

#[test]
fn fields_declared_in_the_catalog_travel_with_the_shape() {
    let mut c = catalog();
    c.field(FieldDecl::new("extra", FieldType::Float));
    let shape = compile(
        &sequence([cond("Compare").param(1).param(field("extra"))]),
        &c,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(shape.fields().len(), 5);
    assert_eq!(shape.params(NodeIdx::new(1))[1], FIELD_REF | 4);
}
