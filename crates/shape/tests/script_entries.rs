//! Tree entries and strings in the scripting language: `name := value`
//! creating an entry of the value's type, string literals kept once in the
//! shape's string table, the verifier's checks of entry and string
//! operands, disassembly back to the source, and the validator's rule that
//! no two string words a script pushes hold one text.

use treebeard_shape::script::op::{Op, encode};
use treebeard_shape::script::{
    self, Code, Context, Entry, Names, ScriptError, ScriptType, Symbol, check_in,
};
use treebeard_shape::tree::{decider_of, sequence};
use treebeard_shape::{Catalog, FieldDecl, FieldType, Kind, compile};

fn fields() -> Vec<FieldDecl> {
    vec![FieldDecl::new("ammo", FieldType::Int)]
}

fn entry(name: &str, ty: ScriptType) -> Entry {
    Entry {
        name: name.into(),
        ty,
    }
}

/// Compiles `source` where the tree has the entry `door` (a string) and
/// the string table holds `open`, creating entries.
fn compile_here(source: &str) -> Result<Code, ScriptError> {
    let fields = fields();
    let entries = [entry("door", ScriptType::Str)];
    let strings: [Box<str>; 1] = ["open".into()];
    let names = Names {
        fields: &fields,
        variables: &["tired"],
        entries: &entries,
        strings: &strings,
        create: true,
    };
    script::compile(source, &names)
}

fn w(op: Op) -> u64 {
    encode(op, 0)
}

#[test]
fn define_creates_an_entry_of_the_values_type_after_the_scopes() {
    let code = compile_here("n := ammo + 1; label := 'idle'; n").unwrap();
    assert_eq!(
        code.created,
        [entry("n", ScriptType::Int), entry("label", ScriptType::Str)]
    );
    // `open` is word 1; the new text takes the next word, 2.
    assert_eq!(code.strings, [Box::from("idle")]);
    assert_eq!(
        code.words,
        [
            encode(Op::LoadInt, 0),
            encode(Op::PushInt, 0) | 1 << 8,
            w(Op::AddInt),
            encode(Op::StoreEntry, 1),
            w(Op::Pop),
            encode(Op::PushStr, 2),
            encode(Op::StoreEntry, 2),
            w(Op::Pop),
            encode(Op::LoadEntry, 1),
            w(Op::ReturnInt),
        ]
    );
    assert_eq!(code.ty, ScriptType::Int);
}

#[test]
fn strings_the_scope_holds_and_the_empty_string_take_no_new_word() {
    let code = compile_here("door = 'open'; door == ''").unwrap();
    assert!(code.strings.is_empty());
    assert!(code.created.is_empty());
    assert_eq!(
        code.words,
        [
            encode(Op::PushStr, 1),
            encode(Op::StoreEntry, 0),
            w(Op::Pop),
            encode(Op::LoadEntry, 0),
            encode(Op::PushStr, 0),
            w(Op::EqStr),
            w(Op::ReturnBool),
        ]
    );
    // One new text used twice is one word.
    let code = compile_here("door = 'shut'; door != 'shut'").unwrap();
    assert_eq!(code.strings, [Box::from("shut")]);
}

#[test]
fn type_errors_and_misplaced_defines_point_at_their_spans() {
    let at = |source: &str| {
        let e = compile_here(source).unwrap_err();
        (e.offset, e.len, e.message)
    };
    assert_eq!(
        at("door == 1"),
        (8, 1, "`==` compares a string with an int".into())
    );
    assert_eq!(
        at("door = 2"),
        (7, 1, "the string entry `door` cannot take an int".into())
    );
    assert_eq!(
        at("-door"),
        (1, 4, "`-` needs a number, found a string".into())
    );
    assert_eq!(
        at("door += 'x'"),
        (5, 2, "`+=` needs a number, but `door` is a string".into())
    );
    assert_eq!(at("ammo + x := 1"), (7, 1, "unknown name `x`".into()));
    assert_eq!(
        at("'open' := 1"),
        (0, 6, "only a name can be created".into())
    );
    assert_eq!(at("door == 'open"), (8, 1, "unterminated string".into()));
}

#[test]
fn a_scope_that_creates_nothing_says_so() {
    let fields = fields();
    let names = Names {
        fields: &fields,
        ..Names::default()
    };
    let e = script::compile("fresh := true", &names).unwrap_err();
    assert_eq!(
        e.message,
        "unknown name `fresh`: this tree cannot create entries"
    );
}

#[test]
fn the_verifier_checks_entry_and_string_operands() {
    let fields = fields();
    let entries = [entry("door", ScriptType::Str), entry("n", ScriptType::Int)];
    let cx = Context {
        fields: &fields,
        variables: 1,
        entries: &entries,
        strings: 1,
    };
    let code = compile_here("door := 'open'; n := 3; door == 'open' && n > 2").unwrap();
    assert_eq!(check_in(&code.words, &cx), Ok(ScriptType::Bool));
    let check = |words: &[u64]| check_in(words, &cx);
    assert_eq!(
        check(&[encode(Op::LoadEntry, 2), w(Op::ReturnStr)]),
        Err("entry index out of range")
    );
    assert_eq!(
        check(&[encode(Op::PushStr, 2), w(Op::ReturnStr)]),
        Err("string index out of range")
    );
    // An int stored into the string entry, a string returned as an int.
    assert_eq!(
        check(&[
            encode(Op::PushInt, 0),
            encode(Op::StoreEntry, 0),
            w(Op::ReturnInt)
        ]),
        Err("an op takes a value of another type")
    );
    assert_eq!(
        check(&[encode(Op::LoadEntry, 0), w(Op::ReturnInt)]),
        Err("an op takes a value of another type")
    );
    assert!(script::writes(&[
        encode(Op::PushStr, 0),
        encode(Op::StoreEntry, 0),
        w(Op::ReturnStr)
    ]));
}

#[test]
fn disassembly_gives_the_source_back_with_quotes_the_text_lacks() {
    let code = compile_here("door := \"it's\"; door == 'open' || door == ''").unwrap();
    let names = |s: Symbol| match s {
        Symbol::Entry(0) => "door".to_string(),
        Symbol::Str(0) => "open".to_string(),
        Symbol::Str(1) => "it's".to_string(),
        other => format!("{other:?}"),
    };
    let text = script::disassemble(&code.words, &names);
    assert_eq!(text, "door = \"it's\"; door == 'open' || door == ''");
    assert_eq!(compile_here(&text).unwrap().words, code.words);
}

#[test]
fn the_validator_refuses_two_string_words_of_one_text() {
    let catalog = Catalog::new();
    let script = |source: &str| decider_of(Kind::Script, []).arg("script", source);
    let tree = sequence([script("a := 'x'"), script("b := 'y'")]);
    let shape = compile(&tree, &catalog).unwrap();
    assert_eq!(shape.strings(), [Box::from("x"), Box::from("y")]);
    // The second script's text made equal to the first's.
    let mut parts = shape.into_parts();
    parts.strings[1] = "x".into();
    let e = parts.validate().unwrap_err();
    assert!(
        e.to_string()
            .contains("names a string another string word holds too"),
        "{e}"
    );
}

#[test]
fn a_script_may_read_an_entry_a_later_script_creates() {
    let catalog = Catalog::new();
    let script = |source: &str| decider_of(Kind::Script, []).arg("script", source);
    let test = |source: &str| decider_of(Kind::AssertScript, []).arg("test", source);
    // `ran` is read before the script that creates it, and `b` by the
    // script that creates `a`, before `b`'s: numbered as the stream
    // creates them, `b` first.
    let tree = sequence([
        test("!ran"),
        script("a := b + 1"),
        script("b := 2; ran := true"),
    ]);
    let shape = compile(&tree, &catalog).unwrap();
    assert_eq!(
        shape.entries(),
        [
            entry("b", ScriptType::Int),
            entry("ran", ScriptType::Bool),
            entry("a", ScriptType::Int),
        ]
    );
    // An entry no script creates is unknown still, and so is one read with
    // another type than a script gives it.
    let unknown = compile(&sequence([test("!never")]), &catalog).unwrap_err();
    assert!(
        unknown.to_string().contains("unknown name `never`"),
        "{unknown}"
    );
    let mistyped = sequence([test("n"), script("n := 1")]);
    let e = compile(&mistyped, &catalog).unwrap_err();
    assert!(e.to_string().contains("bool"), "{e}");
}

#[test]
fn a_long_chain_of_entries_read_before_they_are_created_compiles_once_each() {
    // Script i reads the entry script i + 1 creates: each waits for the one
    // after it, and compiles again only when that one has created its
    // entry (a pass over every waiting script per entry found would be
    // quadratic: 8 million compilations here). 4000 entries: a tree's
    // scripts create at most `MAX_ENTRIES`, 4096.
    let n = 4000;
    let catalog = Catalog::new();
    let script = |source: &str| decider_of(Kind::Script, []).arg("script", source);
    let mut scripts: Vec<_> = (0..n)
        .map(|i| script(&format!("e{i} := e{} + 1", i + 1)))
        .collect();
    scripts.push(script(&format!("e{n} := 0")));
    let shape = compile(&sequence(scripts), &catalog).unwrap();
    assert_eq!(shape.entries().len(), n + 1);
    // Created from the end of the chain back.
    assert_eq!(&*shape.entries()[0].name, format!("e{n}"));
    assert_eq!(&*shape.entries()[n].name, "e0");
}
