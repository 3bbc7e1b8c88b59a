//! The scripting language's compiler, verifier and disassembler: parsing,
//! precedence and typing (through the exact words and the disassembly),
//! errors at exact offsets, limits, `check` on compiled and corrupted code,
//! and disassembly that compiles back to the same words.

use proptest::prelude::*;
use treebeard_shape::script::op::{self, Op, encode};
use treebeard_shape::script::{
    self, Code, MAX_DEPTH, MAX_SOURCE, MAX_STACK, MAX_WORDS, Name, Names, ScriptError, ScriptType,
    Symbol,
};
use treebeard_shape::{FieldDecl, FieldType};

/// hunger: float (0), ammo: int (1), alert: bool (2), name: string (3),
/// enemy.distance: float (4).
fn fields() -> Vec<FieldDecl> {
    vec![
        FieldDecl::new("hunger", FieldType::Float),
        FieldDecl::new("ammo", FieldType::Int),
        FieldDecl::new("alert", FieldType::Bool),
        FieldDecl::new("name", FieldType::Str),
        FieldDecl::new("enemy.distance", FieldType::Float),
    ]
}

const VARIABLES: [&str; 2] = ["tired", "seen"];

fn compile(source: &str) -> Result<Code, ScriptError> {
    let fields = fields();
    script::compile(
        source,
        &Names {
            fields: &fields,
            variables: &VARIABLES,
            ..Names::default()
        },
    )
}

#[track_caller]
fn code(source: &str) -> Code {
    let code = compile(source).unwrap_or_else(|e| panic!("{source:?}: {e}"));
    assert_eq!(
        script::check(&code.words, &fields(), 2),
        Ok(code.ty),
        "{source:?}"
    );
    code
}

#[track_caller]
fn error(source: &str) -> ScriptError {
    match compile(source) {
        Ok(code) => panic!("{source:?} compiled to {:?}", code.words),
        Err(e) => e,
    }
}

/// The error's (offset, len, message).
#[track_caller]
fn at(source: &str) -> (usize, usize, String) {
    let e = error(source);
    (e.offset, e.len, e.message)
}

fn field_name(i: u32) -> String {
    fields()
        .get(i as usize)
        .map_or_else(|| format!("field{i}"), |f| f.name.to_string())
}

fn var_name(i: u32) -> String {
    VARIABLES
        .get(i as usize)
        .map_or_else(|| format!("var{i}"), |v| (*v).to_owned())
}

/// Names of the test's fields and variables; strings and entries by index.
fn symbol(s: Symbol) -> String {
    match s {
        Symbol::Field(i) => field_name(i),
        Symbol::Variable(i) => var_name(i),
        Symbol::Entry(i) => format!("entry{i}"),
        Symbol::Str(i) => format!("text{i}"),
    }
}

fn disassemble(words: &[u64]) -> String {
    script::disassemble(words, &symbol)
}

/// The disassembly of `source`, after checking that it compiles back to
/// the same words.
#[track_caller]
fn shown(source: &str) -> String {
    let first = code(source);
    let text = disassemble(&first.words);
    let again = code(&text);
    assert_eq!(again, first, "{source:?} shown as {text:?}");
    text
}

fn w(op: Op) -> u64 {
    encode(op, 0)
}

fn int(v: i64) -> u64 {
    op::push_int(v).unwrap()
}

fn float(v: f64) -> u64 {
    op::push_float(v).unwrap()
}

// ---------------------------------------------------------------- words

#[test]
fn literals_compile_inline_or_wide() {
    assert_eq!(code("42").words, [int(42), w(Op::ReturnInt)]);
    assert_eq!(code("-3").words, [int(-3), w(Op::ReturnInt)]);
    assert_eq!(code("0.5").words, [float(0.5), w(Op::ReturnFloat)]);
    assert_eq!(code("1e3").words, [float(1000.0), w(Op::ReturnFloat)]);
    assert_eq!(
        code("true").words,
        [encode(Op::PushBool, 1), w(Op::ReturnBool)]
    );
    assert_eq!(
        code("false").words,
        [encode(Op::PushBool, 0), w(Op::ReturnBool)]
    );
    assert_eq!(
        code("0.1").words,
        [w(Op::PushFloatWide), 0.1f64.to_bits(), w(Op::ReturnFloat)]
    );
    assert_eq!(
        code("9223372036854775807").words,
        [w(Op::PushIntWide), i64::MAX as u64, w(Op::ReturnInt)]
    );
    assert_eq!(
        code("-9223372036854775808").words,
        [w(Op::PushIntWide), i64::MIN as u64, w(Op::ReturnInt)]
    );
    // The largest inline integers.
    let max = (1i64 << 55) - 1;
    assert_eq!(op::push_int(max).map(op::inline_int), Some(max));
    assert_eq!(op::push_int(-max - 1).map(op::inline_int), Some(-max - 1));
    assert_eq!(op::push_int(max + 1), None);
}

#[test]
fn names_load_fields_and_variables() {
    assert_eq!(
        code("hunger").words,
        [encode(Op::LoadFloat, 0), w(Op::ReturnFloat)]
    );
    assert_eq!(
        code("ammo").words,
        [encode(Op::LoadInt, 1), w(Op::ReturnInt)]
    );
    assert_eq!(
        code("alert").words,
        [encode(Op::LoadBool, 2), w(Op::ReturnBool)]
    );
    assert_eq!(
        code("enemy.distance").words,
        [encode(Op::LoadFloat, 4), w(Op::ReturnFloat)]
    );
    assert_eq!(
        code("seen").words,
        [encode(Op::LoadVar, 1), w(Op::ReturnBool)]
    );
}

#[test]
fn a_variable_hides_a_field_of_the_same_name() {
    let fields = fields();
    let names = Names {
        fields: &fields,
        variables: &["ammo"],
        ..Names::default()
    };
    let code = script::compile("ammo", &names).unwrap();
    assert_eq!(code.words, [encode(Op::LoadVar, 0), w(Op::ReturnBool)]);
}

#[test]
fn any_closure_is_a_scope() {
    let scope = |name: &str| {
        (name == "x").then_some(Name::Field {
            index: 7,
            ty: FieldType::Int,
        })
    };
    let code = script::compile("x * 2", &scope).unwrap();
    assert_eq!(
        code.words,
        [
            encode(Op::LoadInt, 7),
            int(2),
            w(Op::MulInt),
            w(Op::ReturnInt)
        ]
    );
    // No suggestions from a closure.
    assert_eq!(script::compile("y", &scope).unwrap_err().help, None);
}

#[test]
fn multiplication_binds_tighter_than_addition() {
    let c = code("1 + 2 * 3");
    let want = [
        int(1),
        int(2),
        int(3),
        w(Op::MulInt),
        w(Op::AddInt),
        w(Op::ReturnInt),
    ];
    assert_eq!(c.words, want);
    assert_eq!(c.stack, 3);
    let c = code("(1 + 2) * 3");
    let want = [
        int(1),
        int(2),
        w(Op::AddInt),
        int(3),
        w(Op::MulInt),
        w(Op::ReturnInt),
    ];
    assert_eq!(c.words, want);
    assert_eq!(c.stack, 2);
}

#[test]
fn binary_operators_are_left_associative() {
    let want = [
        int(8),
        int(4),
        w(Op::SubInt),
        int(2),
        w(Op::SubInt),
        w(Op::ReturnInt),
    ];
    assert_eq!(code("8 - 4 - 2").words, want);
    assert_eq!(code("8 / 4 % 3").words[2], w(Op::DivInt));
}

#[test]
fn ints_and_floats_promote_to_float() {
    assert_eq!(
        code("ammo + 0.5").words,
        [
            encode(Op::LoadInt, 1),
            float(0.5),
            w(Op::IntToFloatUnder),
            w(Op::AddFloat),
            w(Op::ReturnFloat),
        ]
    );
    assert_eq!(
        code("hunger * 2").words,
        [
            encode(Op::LoadFloat, 0),
            int(2),
            w(Op::IntToFloat),
            w(Op::MulFloat),
            w(Op::ReturnFloat),
        ]
    );
    assert_eq!(code("ammo < hunger").ty, ScriptType::Bool);
    assert_eq!(code("ammo == 1.0").words[3], w(Op::EqFloat));
    assert_eq!(code("ammo / 2").ty, ScriptType::Int);
    assert_eq!(code("-ammo").words[1], w(Op::NegInt));
    assert_eq!(code("-hunger").words[1], w(Op::NegFloat));
    assert_eq!(code("alert == !tired").words[3], w(Op::EqBool));
    assert_eq!(code("alert != seen").words[2], w(Op::NeBool));
}

#[test]
fn and_and_or_jump_forward_past_their_right_operand() {
    let c = code("hunger > 0.5 && !tired");
    assert_eq!(
        c.words,
        [
            encode(Op::LoadFloat, 0),
            float(0.5),
            w(Op::GtFloat),
            encode(Op::AndThen, 6),
            encode(Op::LoadVar, 0),
            w(Op::Not),
            w(Op::ReturnBool),
        ]
    );
    // `||` binds looser than `&&`: the inner jump lands first.
    let c = code("alert || tired && seen");
    assert_eq!(
        c.words,
        [
            encode(Op::LoadBool, 2),
            encode(Op::OrElse, 5),
            encode(Op::LoadVar, 0),
            encode(Op::AndThen, 5),
            encode(Op::LoadVar, 1),
            w(Op::ReturnBool),
        ]
    );
    assert_eq!(c.stack, 1);
}

#[test]
fn assignments_store_and_keep_the_value() {
    let c = code("ammo = 3");
    assert_eq!(c.words, [int(3), encode(Op::StoreInt, 1), w(Op::ReturnInt)]);
    assert_eq!(c.stack, 1);
    // Int into a float field converts.
    assert_eq!(
        code("hunger = ammo").words,
        [
            encode(Op::LoadInt, 1),
            w(Op::IntToFloat),
            encode(Op::StoreFloat, 0),
            w(Op::ReturnFloat)
        ]
    );
    assert_eq!(
        code("ammo -= 1").words,
        [
            encode(Op::LoadInt, 1),
            int(1),
            w(Op::SubInt),
            encode(Op::StoreInt, 1),
            w(Op::ReturnInt)
        ]
    );
    assert_eq!(
        code("hunger += 1").words,
        [
            encode(Op::LoadFloat, 0),
            int(1),
            w(Op::IntToFloat),
            w(Op::AddFloat),
            encode(Op::StoreFloat, 0),
            w(Op::ReturnFloat)
        ]
    );
    assert_eq!(
        code("tired = alert").words,
        [
            encode(Op::LoadBool, 2),
            encode(Op::StoreVar, 0),
            w(Op::ReturnBool)
        ]
    );
    // Right-associative, and looser than everything.
    assert_eq!(
        code("tired = seen = alert || true").words,
        [
            encode(Op::LoadBool, 2),
            encode(Op::OrElse, 3),
            encode(Op::PushBool, 1),
            encode(Op::StoreVar, 1),
            encode(Op::StoreVar, 0),
            w(Op::ReturnBool)
        ]
    );
    assert_eq!(code("hunger = ammo = 2").ty, ScriptType::Float);
}

#[test]
fn statements_pop_all_values_but_the_last() {
    let c = code("ammo = 1; hunger");
    assert_eq!(
        c.words,
        [
            int(1),
            encode(Op::StoreInt, 1),
            w(Op::Pop),
            encode(Op::LoadFloat, 0),
            w(Op::ReturnFloat),
        ]
    );
    assert_eq!(c.ty, ScriptType::Float);
    assert_eq!(code("ammo = 1; hunger;").words, c.words);
    assert_eq!(code(" tired ; ").ty, ScriptType::Bool);
}

#[test]
fn whitespace_is_free() {
    assert_eq!(code("\t1+2*ammo\n").words, code("1 + 2 * ammo").words);
    assert_eq!(code("1-2").words, code("1 - 2").words);
    assert_eq!(code("1--2").words, code("1 - -2").words);
}

// ---------------------------------------------------------------- errors

#[test]
fn syntax_errors_point_at_the_token() {
    let e = error("hunger > ");
    assert_eq!((e.offset, e.len), (9, 0));
    assert_eq!(
        e.to_string(),
        "column 10: expected an expression, found the end of the script"
    );
    assert_eq!(
        at("(ammo + 1"),
        (9, 0, "expected `)`, found the end of the script".into())
    );
    assert_eq!(
        error("(ammo + 1").help.as_deref(),
        Some("to close the `(` at column 1")
    );
    assert_eq!(at("ammo )"), (5, 1, "unmatched `)`".into()));
    assert_eq!(
        at("ammo 1"),
        (
            5,
            1,
            "expected an operator, `;` or the end of the script, found `1`".into()
        )
    );
    assert_eq!(
        at("ammo * * 2"),
        (7, 1, "expected an expression, found `*`".into())
    );
    assert_eq!(
        at("1;;2"),
        (2, 1, "expected an expression, found `;`".into())
    );
    assert_eq!(at(";"), (0, 1, "expected an expression, found `;`".into()));
    assert_eq!(at(""), (0, 0, "empty script".into()));
    assert_eq!(at("   "), (3, 0, "empty script".into()));
    assert_eq!(at("ammo & 1"), (5, 1, "unexpected `&`".into()));
    assert_eq!(
        error("ammo | 1").help.as_deref(),
        Some("write `||` for \"or\"")
    );
    assert_eq!(at("ammo $ 1"), (5, 1, "unexpected character `$`".into()));
    assert_eq!(at("é"), (0, 2, "unexpected character `é`".into()));
    assert_eq!(at("tired == \"hi"), (9, 1, "unterminated string".into()));
    assert_eq!(
        at("'hi' + 1"),
        (0, 4, "`+` needs numbers, found a string".into())
    );
    assert_eq!(
        at("ammo ! 1"),
        (
            5,
            1,
            "expected an operator, `;` or the end of the script, found `!`".into()
        )
    );
}

#[test]
fn bad_numbers_point_at_the_literal() {
    assert_eq!(at("1 + 2x"), (4, 2, "invalid number `2x`".into()));
    assert_eq!(at("1.5.2"), (0, 5, "invalid number `1.5.2`".into()));
    assert_eq!(
        at("ammo + 99999999999999999999"),
        (7, 20, "integer literal out of range".into())
    );
    assert_eq!(
        at("9223372036854775808"),
        (0, 19, "integer literal out of range".into())
    );
    assert_eq!(
        at("-9223372036854775809"),
        (0, 20, "integer literal out of range".into())
    );
    assert_eq!(at("1e400"), (0, 5, "float literal out of range".into()));
    // An exponent without digits is no exponent: `e` starts a name.
    assert_eq!(at("1e"), (0, 2, "invalid number `1e`".into()));
}

#[test]
fn unknown_names_suggest_a_close_one() {
    let e = error("hungr > 1");
    assert_eq!((e.offset, e.len), (0, 5));
    assert_eq!(e.message, "unknown name `hungr`");
    assert_eq!(e.help.as_deref(), Some("did you mean `hunger`?"));
    let e = error("alert && tird");
    assert_eq!((e.offset, e.len), (9, 4));
    assert_eq!(e.help.as_deref(), Some("did you mean `tired`?"));
    assert_eq!(error("teleport").help, None);
    let e = error("alert and tired");
    assert_eq!((e.offset, e.len), (6, 3));
    assert_eq!(
        e.message,
        "expected an operator, `;` or the end of the script, found `and`"
    );
    assert_eq!(e.help.as_deref(), Some("write `&&` for \"and\""));
    assert_eq!(
        error("ammo = 1 hunger = 2").help.as_deref(),
        Some("write `;` between statements")
    );
    assert_eq!(
        error("not alert").help.as_deref(),
        Some("write `!` for \"not\"")
    );
}

#[test]
fn string_fields_are_refused() {
    let e = error("ammo + name");
    assert_eq!((e.offset, e.len), (7, 4));
    assert_eq!(e.message, "`name` is a string field");
}

#[test]
fn type_errors_point_at_the_operand() {
    assert_eq!(
        at("ammo + true"),
        (7, 4, "`+` needs numbers, found a bool".into())
    );
    assert_eq!(
        at("alert * 2"),
        (0, 5, "`*` needs numbers, found a bool".into())
    );
    assert_eq!(
        at("(alert || seen) < 2"),
        (0, 15, "`<` needs numbers, found a bool".into())
    );
    assert_eq!(at("!ammo"), (1, 4, "`!` needs a bool, found an int".into()));
    assert_eq!(
        at("-alert"),
        (1, 5, "`-` needs a number, found a bool".into())
    );
    assert_eq!(
        at("ammo && alert"),
        (0, 4, "`&&` needs bools, found an int".into())
    );
    assert_eq!(
        at("alert || hunger + 1"),
        (9, 10, "`||` needs bools, found a float".into())
    );
    assert_eq!(
        at("ammo == alert"),
        (8, 5, "`==` compares an int with a bool".into())
    );
    assert_eq!(
        at("ammo < 1 < 2"),
        (9, 1, "comparisons cannot be chained".into())
    );
}

#[test]
fn assignment_errors() {
    let e = error("ammo = 0.5");
    assert_eq!((e.offset, e.len), (7, 3));
    assert_eq!(e.message, "the int field `ammo` cannot take a float");
    assert_eq!(e.help.as_deref(), Some("use an int expression"));
    assert_eq!(
        at("ammo += hunger"),
        (8, 6, "the int field `ammo` cannot take a float".into())
    );
    assert_eq!(
        at("alert = 1"),
        (8, 1, "the bool field `alert` cannot take an int".into())
    );
    assert_eq!(
        at("hunger = alert"),
        (9, 5, "the float field `hunger` cannot take a bool".into())
    );
    assert_eq!(
        at("tired = 1.5"),
        (8, 3, "the bool variable `tired` cannot take a float".into())
    );
    assert_eq!(
        at("tired += 1"),
        (6, 2, "`+=` needs a number, but `tired` is a bool".into())
    );
    let e = error("1 = 2");
    assert_eq!((e.offset, e.len), (0, 1));
    assert_eq!(e.message, "only a field or a variable can be assigned");
    assert_eq!(e.help.as_deref(), Some("write `==` to compare"));
    // `=` is the loosest operator: the left side here is `alert || tired`.
    assert_eq!(
        at("alert || tired = true"),
        (0, 14, "only a field or a variable can be assigned".into())
    );
    assert_eq!(
        at("(ammo) = 1"),
        (0, 6, "only a field or a variable can be assigned".into())
    );
}

// ---------------------------------------------------------------- limits

#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    for open in ["(", "!", "-", "tired = "] {
        let source = open.repeat(10_000 / open.len().max(1));
        let source = &source[..source.len().min(MAX_SOURCE - 8)];
        let source = if open == "tired = " {
            format!("{source}true")
        } else {
            source.to_owned()
        };
        let e = error(&source);
        assert!(
            e.message.starts_with("expression nested too deeply"),
            "{open}: {e}"
        );
    }
    let e = error(&"(".repeat(10_000));
    assert_eq!(e.message, "script is longer than 4096 bytes");
    assert_eq!(e.offset, MAX_SOURCE);
    let e = error(&"(".repeat(MAX_SOURCE));
    assert_eq!(e.offset, MAX_DEPTH);
    // Within the limit, deep nesting compiles.
    let n = MAX_DEPTH / 2 - 1;
    let source = format!("{}ammo{}", "(".repeat(n), ")".repeat(n));
    assert_eq!(code(&source).words, code("ammo").words);
}

#[test]
fn long_flat_chains_are_loops_not_nesting() {
    let terms = vec!["ammo"; 400];
    let c = code(&terms.join(" + "));
    assert_eq!(c.stack, 2);
    assert_eq!(c.words.len(), 800);
    let e = error(&vec!["ammo"; 600].join("+"));
    assert_eq!(e.message, "script compiles to more than 1024 words");
}

#[test]
fn the_stack_is_bounded() {
    // Each group leaves two values on the stack and nests three levels.
    let nest = |groups: usize| format!("{}1{}", "1 + 1 * (".repeat(groups), ")".repeat(groups));
    let c = code(&nest(15));
    assert_eq!(c.stack, 31);
    let e = error(&nest(16));
    assert_eq!(
        e.message,
        format!("expression too complex: it needs more than {MAX_STACK} stack slots")
    );
    assert_eq!((e.offset, e.len), (16 * 9, 1));
}

#[test]
fn long_sources_are_refused() {
    let source = format!("{}1", " ".repeat(MAX_SOURCE));
    assert_eq!(at(&source).0, MAX_SOURCE);
    let source = format!("{}1", " ".repeat(MAX_SOURCE - 1));
    assert_eq!(code(&source).words, code("1").words);
    // A multi-byte character across the limit: the error starts before it.
    let source = format!("{}é", " ".repeat(MAX_SOURCE - 1));
    assert_eq!(at(&source).0, MAX_SOURCE - 1);
}

// ---------------------------------------------------------------- check

#[test]
fn check_returns_the_result_type() {
    assert_eq!(
        script::check(&code("ammo").words, &fields(), 2),
        Ok(ScriptType::Int)
    );
    assert_eq!(
        script::check(&code("tired").words, &fields(), 2),
        Ok(ScriptType::Bool)
    );
}

#[test]
fn check_rejects_unsound_code() {
    let fields = fields();
    let check = |words: &[u64]| script::check(words, &fields, 2);
    let bool_ = encode(Op::PushBool, 1);
    let ret_b = w(Op::ReturnBool);
    let ret_i = w(Op::ReturnInt);
    let cases: Vec<(Vec<u64>, &str)> = vec![
        (vec![], "the code is empty"),
        (vec![0, ret_i], "unknown op code"),
        (vec![0xff, ret_i], "unknown op code"),
        (
            vec![encode(Op::PushBool, 2), ret_b],
            "a bool literal is neither 0 nor 1",
        ),
        (
            vec![int(1), encode(Op::NegInt, 1), ret_i],
            "reserved operand bits are set",
        ),
        (
            vec![encode(Op::PushIntWide, 1), 5, ret_i],
            "reserved operand bits are set",
        ),
        (vec![w(Op::PushIntWide)], "a wide literal's word is missing"),
        (
            vec![encode(Op::LoadInt, 5), ret_i],
            "field index out of range",
        ),
        (
            vec![encode(Op::LoadInt, 1 << 40), ret_i],
            "field index out of range",
        ),
        (
            vec![encode(Op::LoadInt, 0), ret_i],
            "a field op names a field of another type",
        ),
        (
            vec![encode(Op::LoadInt, 3), ret_i],
            "a script names a string field",
        ),
        (
            vec![encode(Op::LoadVar, 2), ret_b],
            "variable index out of range",
        ),
        (
            vec![int(1), w(Op::AddInt), ret_i],
            "an op pops an empty stack",
        ),
        (
            vec![int(1), int(2), ret_i],
            "values are left on the stack at the return",
        ),
        (
            vec![bool_, w(Op::NegInt), ret_i],
            "an op takes a value of another type",
        ),
        (vec![int(1), ret_b], "an op takes a value of another type"),
        (vec![int(1), ret_i, ret_i], "words follow the return"),
        (vec![int(1)], "the code does not end with a return"),
        (
            vec![bool_, encode(Op::AndThen, 0), ret_b],
            "a jump goes backward or out of the code",
        ),
        (
            vec![bool_, encode(Op::AndThen, 1), ret_b],
            "a jump goes backward or out of the code",
        ),
        (
            vec![bool_, encode(Op::AndThen, 3), ret_b],
            "a jump goes backward or out of the code",
        ),
        (
            vec![bool_, encode(Op::AndThen, u64::MAX >> 8), ret_b],
            "a jump goes backward or out of the code",
        ),
        (
            vec![int(1), encode(Op::AndThen, 2), ret_b],
            "an op takes a value of another type",
        ),
        (
            // The jump lands on the wide push's literal word.
            vec![
                bool_,
                encode(Op::AndThen, 3),
                w(Op::PushIntWide),
                7,
                w(Op::Pop),
                ret_b,
            ],
            "a jump lands on a literal word",
        ),
        (
            // The jump path keeps the bool, the other path holds an int.
            vec![bool_, encode(Op::AndThen, 3), int(1), w(Op::ReturnInt)],
            "a jump lands with another stack than the code before its target",
        ),
        (
            vec![
                bool_,
                bool_,
                encode(Op::AndThen, 4),
                encode(Op::OrElse, 4),
                w(Op::EqBool),
                ret_b,
            ],
            "two jumps land on one op with different stacks",
        ),
        (
            [vec![int(1); MAX_STACK + 1], vec![ret_i]].concat(),
            "the stack grows deeper than the limit",
        ),
        (
            [vec![w(Op::Pop); MAX_WORDS], vec![ret_i]].concat(),
            "the code has more words than the limit",
        ),
    ];
    for (words, want) in cases {
        assert_eq!(check(&words), Err(want), "{words:x?}");
        // The disassembly of unsound code is a listing, never a panic.
        let _ = disassemble(&words);
        let _ = script::listing(&words, &symbol);
    }
}

#[test]
fn check_accepts_the_deepest_stack() {
    let words = [
        vec![int(1); MAX_STACK],
        vec![w(Op::AddInt); MAX_STACK - 1],
        vec![w(Op::ReturnInt)],
    ]
    .concat();
    assert_eq!(script::check(&words, &fields(), 0), Ok(ScriptType::Int));
}

#[test]
fn writes_finds_stores() {
    assert!(!script::writes(&code("ammo > 1 && !tired").words));
    assert!(script::writes(&code("ammo -= 1").words));
    assert!(script::writes(&code("alert || (tired = true)").words));
    // A wide literal that looks like a store is skipped.
    let words = [
        w(Op::PushIntWide),
        encode(Op::StoreInt, 1),
        w(Op::ReturnInt),
    ];
    assert!(!script::writes(&words));
}

// ---------------------------------------------------------------- disassembly

#[test]
fn disassembly_reads_like_the_source() {
    for source in [
        "hunger > 0.5 && !tired",
        "1 + 2 * 3",
        "(1 + 2) * 3",
        "8 - (4 - 2)",
        "8 - 4 - 2",
        "alert || tired && seen",
        "(alert || tired) && seen",
        "!(alert && tired)",
        "-ammo * 2",
        "-(ammo + 1)",
        "-(-3)",
        "ammo = 3; hunger",
        "ammo += 2",
        "hunger -= ammo",
        "tired = seen = alert",
        "alert || (tired = true)",
        "enemy.distance <= 2.5",
        "0.1 + 1e300 + -0.0",
        "-9223372036854775808 % 7",
        "hunger = ammo",
        "ammo = ammo + 1 - 2",
    ] {
        assert_eq!(shown(source), source);
    }
}

#[test]
fn disassembly_normalizes_spacing_and_parentheses() {
    assert_eq!(shown("((ammo))+(1*2)"), "ammo + 1 * 2");
    assert_eq!(shown("1e3"), "1000.0");
    assert_eq!(shown("ammo = ammo + 5"), "ammo += 5");
    assert_eq!(shown("--ammo"), "-(-ammo)");
    assert_eq!(shown("ammo;"), "ammo");
    assert_eq!(shown("alert == (ammo < 2)"), "alert == ammo < 2");
}

#[test]
fn listing_shows_one_op_a_line() {
    let c = code("hunger > 0.5 && !tired; ammo = 123456789012345678");
    let listing = script::listing(&c.words, &symbol);
    assert_eq!(
        listing,
        "   0 load_float hunger\n   1 push_float 0.5\n   2 gt_float\n   3 and_then -> 6\n   4 load_var tired\n   5 not\n   6 pop\n   7 push_int_wide 123456789012345678\n   9 store_int ammo\n  10 return_int\n"
    );
    assert_eq!(
        disassemble(&[w(Op::Pop), 0]),
        "<unsound script: 0 pop; 1 0x0000000000000000>"
    );
}

#[test]
fn op_codes_are_dense_and_decode_back() {
    for (i, &op) in Op::ALL.iter().enumerate() {
        assert_eq!(op as usize, i + 1);
        assert_eq!(Op::decode(op as u64 | 0xabcd00), Some(op));
    }
    assert_eq!(Op::decode(0), None);
    assert_eq!(Op::decode(Op::ALL.len() as u64 + 1), None);
}

// ---------------------------------------------------------------- properties

/// A small deterministic generator of well-typed sources.
struct Gen(u64);

impl Gen {
    fn next(&mut self) -> u64 {
        // splitmix64
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len() as u64) as usize]
    }

    /// An expression of type `ty` (for numbers, int or float at random).
    fn expr(&mut self, ty: ScriptType, depth: u32) -> String {
        let leaf = depth == 0 || self.below(4) == 0;
        match ty {
            ScriptType::Bool if leaf => self
                .pick(&["true", "false", "alert", "tired", "seen"])
                .into(),
            ScriptType::Bool => match self.below(7) {
                0 => format!("!{}", self.paren(ScriptType::Bool, depth)),
                1 | 2 => {
                    let op = self.pick(&["&&", "||", "==", "!="]);
                    let l = self.paren(ScriptType::Bool, depth);
                    let r = self.paren(ScriptType::Bool, depth);
                    format!("{l} {op} {r}")
                }
                3 | 4 => {
                    let op = self.pick(&["<", "<=", ">", ">=", "==", "!="]);
                    let l = self.any_number(depth);
                    let r = self.any_number(depth);
                    format!("{l} {op} {r}")
                }
                5 => {
                    let target = self.pick(&["alert", "tired", "seen"]);
                    format!("({target} = {})", self.expr(ScriptType::Bool, depth - 1))
                }
                _ => format!("({})", self.expr(ScriptType::Bool, depth - 1)),
            },
            ScriptType::Int if leaf => match self.below(3) {
                0 => (self.next() as i64 >> self.below(64)).to_string(),
                1 => "ammo".into(),
                _ => self.below(10).to_string(),
            },
            ScriptType::Float if leaf => match self.below(3) {
                0 => {
                    let scale = (1u64 << self.below(53)) as f64;
                    format!("{:?}", (self.next() >> 11) as f64 / scale)
                }
                1 => "hunger".into(),
                _ => "enemy.distance".into(),
            },
            _ => match self.below(6) {
                0 => format!("-{}", self.paren(ty, depth)),
                1 => {
                    // An int field takes ints, a float field any number.
                    let (target, value) = match ty {
                        ScriptType::Int => ("ammo", ScriptType::Int),
                        _ => ("hunger", self.number()),
                    };
                    let op = self.pick(&["=", "+=", "-="]);
                    format!("({target} {op} {})", self.expr(value, depth - 1))
                }
                _ => {
                    // Both operands ints for an int, at least the left one
                    // a float for a float.
                    let op = self.pick(&["+", "-", "*", "/", "%"]);
                    let l = self.paren(ty, depth);
                    let r = match ty {
                        ScriptType::Int => self.paren(ty, depth),
                        _ => self.any_number(depth),
                    };
                    format!("{l} {op} {r}")
                }
            },
        }
    }

    fn number(&mut self) -> ScriptType {
        if self.below(2) == 0 {
            ScriptType::Int
        } else {
            ScriptType::Float
        }
    }

    fn any_number(&mut self, depth: u32) -> String {
        let ty = self.number();
        self.paren(ty, depth)
    }

    fn paren(&mut self, ty: ScriptType, depth: u32) -> String {
        format!("({})", self.expr(ty, depth - 1))
    }

    fn script(&mut self) -> String {
        let statements = 1 + self.below(3);
        let mut parts = Vec::new();
        for _ in 0..statements {
            let ty = match self.below(3) {
                0 => ScriptType::Bool,
                _ => self.number(),
            };
            parts.push(self.expr(ty, 4));
        }
        parts.join("; ")
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn compiled_scripts_check_and_disassemble_back(seed in any::<u64>()) {
        let source = Gen(seed).script();
        let first = match compile(&source) {
            Ok(code) => code,
            // Random sources may hit the stack limit; nothing else.
            Err(e) => {
                prop_assert!(e.message.contains("stack"), "{source:?}: {e}");
                return Ok(());
            }
        };
        prop_assert!(first.stack <= MAX_STACK);
        prop_assert_eq!(script::check(&first.words, &fields(), 2), Ok(first.ty));
        let text = disassemble(&first.words);
        let again = compile(&text);
        prop_assert_eq!(again.as_ref(), Ok(&first), "{:?} shown as {:?}", source, text);
    }

    #[test]
    fn check_never_panics_on_random_words(
        words in proptest::collection::vec(
            prop_oneof![
                any::<u64>(),
                // Known ops with small operands, to get past decoding.
                (1u64..=Op::ALL.len() as u64, 0u64..8).prop_map(|(op, x)| x << 8 | op),
            ],
            0..40,
        ),
        variables in 0u32..4,
    ) {
        if let Ok(ty) = script::check(&words, &fields(), variables) {
            // What passes has a return of that type last.
            let last = Op::decode(*words.last().unwrap());
            let want = match ty {
                ScriptType::Bool => Op::ReturnBool,
                ScriptType::Int => Op::ReturnInt,
                ScriptType::Float => Op::ReturnFloat,
                ScriptType::Str => Op::ReturnStr,
            };
            prop_assert_eq!(last, Some(want));
        }
        let _ = disassemble(&words);
        let _ = script::listing(&words, &symbol);
        let _ = script::writes(&words);
    }

    #[test]
    fn check_never_panics_on_corrupted_code(
        seed in any::<u64>(),
        flips in proptest::collection::vec((any::<prop::sample::Index>(), 0u32..64), 1..4),
    ) {
        let Ok(code) = compile(&Gen(seed).script()) else { return Ok(()) };
        let mut words = code.words;
        for (i, bit) in flips {
            let i = i.index(words.len());
            words[i] ^= 1 << bit;
        }
        if script::check(&words, &fields(), 2).is_ok() {
            // Sound corrupted code still renders as source or a listing.
            prop_assert!(!disassemble(&words).is_empty());
        }
    }

    #[test]
    fn compile_never_panics_on_any_text(source in "\\PC{0,40}") {
        if let Err(e) = compile(&source) {
            prop_assert!(e.offset + e.len <= source.len());
            prop_assert!(source.is_char_boundary(e.offset));
            prop_assert!(source.is_char_boundary(e.offset + e.len));
        }
    }

    #[test]
    fn compile_never_panics_on_random_text(
        source in "[a-z0-9 .()!<>=&|+*/%;-]{0,60}",
    ) {
        if let Err(e) = compile(&source) {
            prop_assert!(e.offset + e.len <= source.len());
            prop_assert!(source.is_char_boundary(e.offset));
        }
    }
}
