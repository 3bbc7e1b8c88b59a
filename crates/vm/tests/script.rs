//! Script evaluation over a `blackboard!` blackboard: arithmetic, promotion,
//! wrapping, short-circuits, assignments to fields and variables, faults,
//! read-only evaluation, robustness on unsound words, and a differential
//! test against a direct interpretation of random expression trees.

use proptest::prelude::*;
use treebeard_shape::script::op::{Op, encode};
use treebeard_shape::script::{self as compiler, MAX_STACK, ScriptType};
use treebeard_vm::script::{self, Fault, FieldAccess, Memory, MemoryRef, ScriptValue};
use treebeard_vm::{Blackboard, FieldId, Value};

#[derive(Debug, Default, Clone, PartialEq)]
struct Npc {
    hunger: f64,
    ammo: i64,
    alert: bool,
    label: String,
    small: u8,
    speed: f32,
}
treebeard_vm::blackboard!(Npc {
    hunger,
    ammo,
    alert,
    label,
    small,
    speed
});

const VARIABLES: [&str; 3] = ["tired", "seen", "far"];

/// Compiles `source` over `Npc` and the variables; the code must check.
#[track_caller]
fn compile(source: &str) -> Vec<u64> {
    let code = script::compile_for::<Npc>(source, &VARIABLES)
        .unwrap_or_else(|e| panic!("{source:?}: {e}"));
    assert_eq!(
        compiler::check(&code.words, &Npc::fields(), VARIABLES.len() as u32),
        Ok(code.ty)
    );
    code.words
}

/// Runs `source` on `npc` with the variable bits `vars`.
#[track_caller]
fn run_on(source: &str, npc: &mut Npc, vars: &mut [u32]) -> Result<ScriptValue, Fault> {
    script::eval(
        &compile(source),
        npc,
        &FieldAccess::of(),
        Memory::variables(vars),
    )
}

/// Runs `source` on a default `Npc` with ammo 10 and hunger 0.5.
#[track_caller]
fn run(source: &str) -> Result<ScriptValue, Fault> {
    let mut npc = Npc {
        ammo: 10,
        hunger: 0.5,
        ..Npc::default()
    };
    run_on(source, &mut npc, &mut [0])
}

fn int(v: i64) -> Result<ScriptValue, Fault> {
    Ok(ScriptValue::Int(v))
}

fn float(v: f64) -> Result<ScriptValue, Fault> {
    Ok(ScriptValue::Float(v))
}

fn bool(v: bool) -> Result<ScriptValue, Fault> {
    Ok(ScriptValue::Bool(v))
}

#[test]
fn arithmetic_follows_precedence() {
    assert_eq!(run("1 + 2 * 3"), int(7));
    assert_eq!(run("(1 + 2) * 3"), int(9));
    assert_eq!(run("8 - 4 - 2"), int(2));
    assert_eq!(run("ammo * 2 - 1"), int(19));
    assert_eq!(run("-ammo + 3"), int(-7));
    assert_eq!(run("-(ammo + 3)"), int(-13));
    assert_eq!(run("hunger * 4 - 1"), float(1.0));
    assert_eq!(run("-hunger"), float(-0.5));
}

#[test]
fn integer_division_truncates_and_remainder_follows_the_dividend() {
    assert_eq!(run("7 / 2"), int(3));
    assert_eq!(run("-7 / 2"), int(-3));
    assert_eq!(run("-7 % 2"), int(-1));
    assert_eq!(run("7 % -2"), int(1));
    assert_eq!(run("7.0 / 2"), float(3.5));
    assert_eq!(run("7.5 % 2"), float(1.5));
}

#[test]
fn integers_wrap() {
    assert_eq!(run("9223372036854775807 + 1"), int(i64::MIN));
    assert_eq!(run("-9223372036854775808 - 1"), int(i64::MAX));
    assert_eq!(run("-9223372036854775808 / -1"), int(i64::MIN));
    assert_eq!(run("-9223372036854775808 % -1"), int(0));
    assert_eq!(run("-(-9223372036854775808)"), int(i64::MIN));
    assert_eq!(run("4611686018427387904 * 2"), int(i64::MIN));
}

#[test]
fn ints_promote_to_floats() {
    assert_eq!(run("ammo + 0.5"), float(10.5));
    assert_eq!(run("0.5 + ammo"), float(10.5));
    assert_eq!(run("ammo / 4.0"), float(2.5));
    assert_eq!(run("ammo == 10.0"), bool(true));
    assert_eq!(run("hunger < ammo"), bool(true));
    assert_eq!(run("1 / 2 + 0.5"), float(0.5));
}

#[test]
fn floats_follow_ieee() {
    assert_eq!(run("1 / 0.0"), float(f64::INFINITY));
    assert_eq!(run("-1.0 / 0"), float(f64::NEG_INFINITY));
    let Ok(ScriptValue::Float(nan)) = run("0.0 / 0.0") else {
        panic!("not a float")
    };
    assert!(nan.is_nan());
    assert_eq!(run("0.0 / 0.0 == 0.0 / 0.0"), bool(false));
    assert_eq!(run("0.0 / 0.0 != 0.0 / 0.0"), bool(true));
    assert_eq!(run("0.0 / 0.0 < 1"), bool(false));
    assert_eq!(run("0.0 / 0.0 >= 1"), bool(false));
    assert_eq!(run("0.0 == -0.0"), bool(true));
}

#[test]
fn comparisons_and_logic() {
    assert_eq!(run("ammo > 9 && ammo <= 10"), bool(true));
    assert_eq!(run("ammo >= 11 || ammo < 10"), bool(false));
    assert_eq!(run("ammo != 10"), bool(false));
    assert_eq!(run("!alert && !tired"), bool(true));
    assert_eq!(run("alert == tired"), bool(true));
    assert_eq!(run("alert != (ammo == 10)"), bool(true));
    assert_eq!(run("true || false && false"), bool(true));
    assert_eq!(run("(true || false) && false"), bool(false));
}

#[test]
fn and_and_or_short_circuit() {
    let mut npc = Npc::default();
    let mut vars = [0u32];
    // The right side of `&&` does not run when the left is false.
    assert_eq!(
        run_on("alert && (tired = true)", &mut npc, &mut vars),
        bool(false)
    );
    assert_eq!(vars, [0]);
    assert_eq!(
        run_on("false && (ammo = 5) > 0", &mut npc, &mut vars),
        bool(false)
    );
    assert_eq!(npc.ammo, 0);
    // Nor the right side of `||` when the left is true.
    assert_eq!(
        run_on("true || (alert = true)", &mut npc, &mut vars),
        bool(true)
    );
    assert!(!npc.alert);
    // They do run otherwise.
    assert_eq!(
        run_on("!alert && (tired = true)", &mut npc, &mut vars),
        bool(true)
    );
    assert_eq!(vars, [1]);
    assert_eq!(
        run_on("alert || (ammo = 5) > 4", &mut npc, &mut vars),
        bool(true)
    );
    assert_eq!(npc.ammo, 5);
    // A division by zero on the skipped side does not fault.
    assert_eq!(run("false && 1 / 0 > 0"), bool(false));
    assert_eq!(run("1 / 0 > 0 || true"), Err(Fault::DivisionByZero));
}

#[test]
fn assignments_write_fields_and_keep_the_value() {
    let mut npc = Npc::default();
    let vars = &mut [0u32];
    assert_eq!(run_on("ammo = 7", &mut npc, vars), int(7));
    assert_eq!(npc.ammo, 7);
    assert_eq!(run_on("ammo -= 2; ammo * 10", &mut npc, vars), int(50));
    assert_eq!(npc.ammo, 5);
    assert_eq!(run_on("ammo += ammo = 1", &mut npc, vars), int(6));
    assert_eq!(npc.ammo, 6);
    // An int into a float field converts.
    assert_eq!(run_on("hunger = ammo", &mut npc, vars), float(6.0));
    assert_eq!(npc.hunger, 6.0);
    assert_eq!(run_on("hunger -= 1", &mut npc, vars), float(5.0));
    // Narrower Rust types convert through the blackboard.
    assert_eq!(run_on("speed += 0.25", &mut npc, vars), float(0.25));
    assert_eq!(npc.speed, 0.25);
    assert_eq!(run_on("small = 200", &mut npc, vars), int(200));
    assert_eq!(npc.small, 200);
    assert_eq!(run_on("alert = ammo > 5", &mut npc, vars), bool(true));
    assert!(npc.alert);
    // Chains assign right to left.
    assert_eq!(run_on("hunger = ammo = 3", &mut npc, vars), float(3.0));
    assert_eq!((npc.ammo, npc.hunger), (3, 3.0));
}

#[test]
fn a_value_the_field_refuses_faults_after_earlier_writes() {
    let mut npc = Npc::default();
    assert_eq!(
        run_on("ammo = 1; small = 300; ammo = 2", &mut npc, &mut [0]),
        Err(Fault::Rejected(FieldId(4)))
    );
    assert_eq!((npc.ammo, npc.small), (1, 0));
    assert_eq!(
        run_on("small -= 1", &mut npc, &mut [0]),
        Err(Fault::Rejected(FieldId(4)))
    );
}

#[test]
fn variables_are_bits() {
    let mut npc = Npc::default();
    let mut vars = [0b100u32];
    assert_eq!(run_on("far && !seen", &mut npc, &mut vars), bool(true));
    assert_eq!(
        run_on("seen = true; tired = !far", &mut npc, &mut vars),
        bool(false)
    );
    assert_eq!(vars, [0b110]);
    assert_eq!(run_on("far = false", &mut npc, &mut vars), bool(false));
    assert_eq!(vars, [0b010]);
}

#[test]
fn variables_past_the_bits_read_false_and_ignore_writes() {
    let names: Vec<String> = (0..40).map(|i| format!("v{i}")).collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let code = script::compile_for::<Npc>("v33 = true; v1 = !v33; v33 || v1", &names).unwrap();
    let mut npc = Npc::default();
    let mut vars = [0u32];
    let value = script::eval(
        &code.words,
        &mut npc,
        &FieldAccess::of(),
        Memory::variables(&mut vars),
    );
    assert_eq!(value, bool(true));
    assert_eq!(vars, [0b10]);
    // With two words the variable is there.
    let mut vars = [0u32; 2];
    let value = script::eval(
        &code.words,
        &mut npc,
        &FieldAccess::of(),
        Memory::variables(&mut vars),
    );
    assert_eq!(value, bool(true));
    assert_eq!(vars, [0, 0b10]);
    // No variables at all.
    let value = script::eval(&code.words, &mut npc, &FieldAccess::of(), Memory::default());
    assert_eq!(value, bool(false));
}

#[test]
fn integer_division_by_zero_faults() {
    assert_eq!(run("ammo / 0"), Err(Fault::DivisionByZero));
    assert_eq!(run("ammo % (ammo - 10)"), Err(Fault::DivisionByZero));
    assert_eq!(run("-9223372036854775808 / 0"), Err(Fault::DivisionByZero));
    let mut npc = Npc::default();
    assert_eq!(
        run_on("ammo = 4; ammo / 0; ammo = 5", &mut npc, &mut [0]),
        Err(Fault::DivisionByZero)
    );
    assert_eq!(npc.ammo, 4);
    assert_eq!(
        Fault::DivisionByZero.to_string(),
        "integer division by zero"
    );
}

fn text_for_everything(_: &Npc, _: FieldId) -> Value<'_> {
    Value::Str("surprise")
}

#[test]
fn a_blackboard_that_breaks_its_schema_faults() {
    let access = FieldAccess {
        get: text_for_everything,
        set: Npc::set,
    };
    let mut npc = Npc::default();
    for (source, field) in [
        ("ammo", 1),
        ("hunger > 0", 0),
        ("alert", 2),
        ("ammo += 1", 1),
    ] {
        let value = script::eval(&compile(source), &mut npc, &access, Memory::default());
        assert_eq!(value, Err(Fault::FieldType(FieldId(field))), "{source}");
    }
}

#[test]
fn read_only_evaluation_refuses_writes() {
    let npc = Npc {
        ammo: 3,
        ..Npc::default()
    };
    let get = Npc::get;
    let read = |source: &str| {
        script::eval_read_only(&compile(source), &npc, get, MemoryRef::variables(&[0b1]))
    };
    assert_eq!(read("ammo > 2 && tired"), bool(true));
    assert_eq!(read("ammo * 1.5"), float(4.5));
    assert_eq!(read("ammo = 1"), Err(Fault::ReadOnly));
    assert_eq!(read("seen = true"), Err(Fault::ReadOnly));
    // A write on a path not taken is no fault.
    assert_eq!(read("tired || (seen = true)"), bool(true));
    assert!(!compiler::writes(&compile("ammo > 2 && tired")));
    assert!(compiler::writes(&compile("tired || (seen = true)")));
}

#[test]
fn values_convert_and_display() {
    assert_eq!(ScriptValue::Int(3).ty(), ScriptType::Int);
    assert_eq!(ScriptValue::Int(3).as_float(), Some(3.0));
    assert_eq!(ScriptValue::Bool(true).as_bool(), Some(true));
    assert_eq!(ScriptValue::Float(0.5).as_int(), None);
    assert_eq!(ScriptValue::Float(0.5).value(&[]), Value::Float(0.5));
    assert_eq!(ScriptValue::Float(0.5).to_string(), "0.5");
}

#[test]
fn unsound_words_fault_without_panicking() {
    let access = FieldAccess::of();
    let mut npc = Npc::default();
    let mut eval =
        |words: &[u64]| script::eval(words, &mut npc, &access, Memory::variables(&mut [0]));
    let ret = encode(Op::ReturnInt, 0);
    let one = encode(Op::PushInt, 1);
    assert_eq!(eval(&[]), Err(Fault::Malformed));
    assert_eq!(eval(&[0]), Err(Fault::Malformed));
    assert_eq!(eval(&[one]), Err(Fault::Malformed));
    assert_eq!(eval(&[ret]), Err(Fault::Malformed));
    assert_eq!(
        eval(&[one, encode(Op::AddInt, 0), ret]),
        Err(Fault::Malformed)
    );
    assert_eq!(
        eval(&[one, encode(Op::IntToFloatUnder, 0), ret]),
        Err(Fault::Malformed)
    );
    assert_eq!(eval(&[encode(Op::PushIntWide, 0)]), Err(Fault::Malformed));
    // A field index past u32, or past the blackboard's fields.
    assert_eq!(
        eval(&[encode(Op::LoadInt, 1 << 40), ret]),
        Err(Fault::Malformed)
    );
    assert_eq!(
        eval(&[encode(Op::LoadInt, 9), ret]),
        Err(Fault::FieldType(FieldId(9)))
    );
    assert_eq!(
        eval(&[one, encode(Op::StoreInt, 9), ret]),
        Err(Fault::Rejected(FieldId(9)))
    );
    // A backward jump would loop forever: it faults.
    let back = [
        encode(Op::PushBool, 1),
        encode(Op::PushBool, 1),
        encode(Op::OrElse, 0),
    ];
    assert_eq!(eval(&back), Err(Fault::Malformed));
    // Overflowing the stack.
    let deep = [vec![one; MAX_STACK + 1], vec![ret]].concat();
    assert_eq!(eval(&deep), Err(Fault::Malformed));
    let full = [
        vec![one; MAX_STACK],
        vec![encode(Op::AddInt, 0); MAX_STACK - 1],
        vec![ret],
    ]
    .concat();
    assert_eq!(eval(&full), int(MAX_STACK as i64));
}

// ---------------------------------------------------------------- differential

/// The state a script sees, as the model keeps it.
#[derive(Clone, Copy, Debug, PartialEq)]
struct State {
    hunger: f64,
    ammo: i64,
    alert: bool,
    vars: [bool; 3],
}

impl State {
    fn npc(&self) -> Npc {
        Npc {
            hunger: self.hunger,
            ammo: self.ammo,
            alert: self.alert,
            ..Npc::default()
        }
    }

    fn bits(&self) -> u32 {
        self.vars
            .iter()
            .enumerate()
            .map(|(i, &v)| u32::from(v) << i)
            .sum()
    }

    /// Whether the blackboard and bits hold this state (floats by bits).
    fn holds(&self, npc: &Npc, bits: u32) -> bool {
        (self.hunger.to_bits() == npc.hunger.to_bits()
            || self.hunger.is_nan() && npc.hunger.is_nan())
            && self.ammo == npc.ammo
            && self.alert == npc.alert
            && self.bits() == bits
    }
}

/// A value of the model.
#[derive(Clone, Copy, Debug)]
enum V {
    B(bool),
    I(i64),
    F(f64),
}

impl V {
    fn f(self) -> f64 {
        match self {
            V::I(v) => v as f64,
            V::F(v) => v,
            V::B(_) => unreachable!("typed"),
        }
    }

    fn i(self) -> i64 {
        match self {
            V::I(v) => v,
            _ => unreachable!("typed"),
        }
    }

    fn b(self) -> bool {
        match self {
            V::B(v) => v,
            _ => unreachable!("typed"),
        }
    }

    fn same(self, other: ScriptValue) -> bool {
        match (self, other) {
            (V::B(a), ScriptValue::Bool(b)) => a == b,
            (V::I(a), ScriptValue::Int(b)) => a == b,
            (V::F(a), ScriptValue::Float(b)) => {
                a.to_bits() == b.to_bits() || a.is_nan() && b.is_nan()
            }
            _ => false,
        }
    }
}

/// A place: hunger (float), ammo (int), alert (bool), or a variable.
#[derive(Clone, Copy, Debug)]
enum Place {
    Hunger,
    Ammo,
    Alert,
    Var(usize),
}

impl Place {
    fn ty(self) -> ScriptType {
        match self {
            Place::Hunger => ScriptType::Float,
            Place::Ammo => ScriptType::Int,
            _ => ScriptType::Bool,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Place::Hunger => "hunger",
            Place::Ammo => "ammo",
            Place::Alert => "alert",
            Place::Var(i) => VARIABLES[i],
        }
    }
}

/// An expression tree with its static type resolved.
#[derive(Clone, Debug)]
enum E {
    Lit(V),
    Load(Place),
    Not(Box<E>),
    Neg(Box<E>),
    /// An arithmetic or comparison operator.
    Bin(&'static str, Box<E>, Box<E>),
    And(Box<E>, Box<E>),
    Or(Box<E>, Box<E>),
    /// `=`, `+=` or `-=`.
    Assign(Place, &'static str, Box<E>),
}

impl E {
    fn ty(&self) -> ScriptType {
        match self {
            E::Lit(V::B(_)) => ScriptType::Bool,
            E::Lit(V::I(_)) => ScriptType::Int,
            E::Lit(V::F(_)) => ScriptType::Float,
            E::Load(p) | E::Assign(p, ..) => p.ty(),
            E::Not(_) | E::And(..) | E::Or(..) => ScriptType::Bool,
            E::Neg(e) => e.ty(),
            E::Bin(op, l, r) => match *op {
                "+" | "-" | "*" | "/" | "%" => {
                    if l.ty() == ScriptType::Float || r.ty() == ScriptType::Float {
                        ScriptType::Float
                    } else {
                        ScriptType::Int
                    }
                }
                _ => ScriptType::Bool,
            },
        }
    }

    /// Fully parenthesized source.
    fn source(&self) -> String {
        match self {
            E::Lit(V::B(v)) => v.to_string(),
            E::Lit(V::I(v)) => format!("({v})"),
            E::Lit(V::F(v)) => format!("({v:?})"),
            E::Load(p) => p.name().into(),
            E::Not(e) => format!("!{}", e.source()),
            E::Neg(e) => format!("-{}", e.source()),
            E::Bin(op, l, r) => format!("({} {op} {})", l.source(), r.source()),
            E::And(l, r) => format!("({} && {})", l.source(), r.source()),
            E::Or(l, r) => format!("({} || {})", l.source(), r.source()),
            E::Assign(p, op, e) => format!("({} {op} {})", p.name(), e.source()),
        }
    }

    /// The value, straight from the tree.
    fn eval(&self, s: &mut State) -> Result<V, Fault> {
        Ok(match self {
            E::Lit(v) => *v,
            E::Load(p) => read(s, *p),
            E::Not(e) => V::B(!e.eval(s)?.b()),
            E::Neg(e) => match e.eval(s)? {
                V::I(v) => V::I(v.wrapping_neg()),
                V::F(v) => V::F(-v),
                V::B(_) => unreachable!("typed"),
            },
            E::And(l, r) => V::B(l.eval(s)?.b() && r.eval(s)?.b()),
            E::Or(l, r) => V::B(l.eval(s)?.b() || r.eval(s)?.b()),
            E::Bin(op, l, r) => {
                let floats = l.ty() == ScriptType::Float || r.ty() == ScriptType::Float;
                let (a, b) = (l.eval(s)?, r.eval(s)?);
                if let (V::B(a), V::B(b)) = (a, b) {
                    V::B(if *op == "==" { a == b } else { a != b })
                } else if floats {
                    let (a, b) = (a.f(), b.f());
                    match *op {
                        "+" => V::F(a + b),
                        "-" => V::F(a - b),
                        "*" => V::F(a * b),
                        "/" => V::F(a / b),
                        "%" => V::F(a % b),
                        "==" => V::B(a == b),
                        "!=" => V::B(a != b),
                        "<" => V::B(a < b),
                        "<=" => V::B(a <= b),
                        ">" => V::B(a > b),
                        _ => V::B(a >= b),
                    }
                } else {
                    let (a, b) = (a.i(), b.i());
                    match *op {
                        "+" => V::I(a.wrapping_add(b)),
                        "-" => V::I(a.wrapping_sub(b)),
                        "*" => V::I(a.wrapping_mul(b)),
                        "/" | "%" if b == 0 => return Err(Fault::DivisionByZero),
                        "/" => V::I(a.wrapping_div(b)),
                        "%" => V::I(a.wrapping_rem(b)),
                        "==" => V::B(a == b),
                        "!=" => V::B(a != b),
                        "<" => V::B(a < b),
                        "<=" => V::B(a <= b),
                        ">" => V::B(a > b),
                        _ => V::B(a >= b),
                    }
                }
            }
            E::Assign(p, op, e) => {
                let old = read(s, *p);
                let rhs = e.eval(s)?;
                let new = match (*op, p.ty()) {
                    ("=", ScriptType::Float) => V::F(rhs.f()),
                    ("=", _) => rhs,
                    ("+=", ScriptType::Float) => V::F(old.f() + rhs.f()),
                    ("-=", ScriptType::Float) => V::F(old.f() - rhs.f()),
                    ("+=", _) => V::I(old.i().wrapping_add(rhs.i())),
                    _ => V::I(old.i().wrapping_sub(rhs.i())),
                };
                match (*p, new) {
                    (Place::Hunger, V::F(v)) => s.hunger = v,
                    (Place::Ammo, V::I(v)) => s.ammo = v,
                    (Place::Alert, V::B(v)) => s.alert = v,
                    (Place::Var(i), V::B(v)) => s.vars[i] = v,
                    _ => unreachable!("typed"),
                }
                new
            }
        })
    }
}

/// Equal results, floats by bits (any NaN equal to any NaN).
fn same(a: Result<ScriptValue, Fault>, b: Result<ScriptValue, Fault>) -> bool {
    match (a, b) {
        (Ok(ScriptValue::Float(a)), Ok(ScriptValue::Float(b))) => {
            a.to_bits() == b.to_bits() || a.is_nan() && b.is_nan()
        }
        (a, b) => a == b,
    }
}

fn read(s: &State, p: Place) -> V {
    match p {
        Place::Hunger => V::F(s.hunger),
        Place::Ammo => V::I(s.ammo),
        Place::Alert => V::B(s.alert),
        Place::Var(i) => V::B(s.vars[i]),
    }
}

/// Random typed expression trees.
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

    fn number(&mut self) -> ScriptType {
        if self.below(2) == 0 {
            ScriptType::Int
        } else {
            ScriptType::Float
        }
    }

    fn int(&mut self) -> i64 {
        match self.below(4) {
            0 => [0, 1, -1, i64::MAX, i64::MIN][self.below(5) as usize],
            1 => self.next() as i64,
            _ => self.below(21) as i64 - 10,
        }
    }

    fn float(&mut self) -> f64 {
        match self.below(3) {
            0 => [0.0, -0.0, 0.5, 1e300, -2.5][self.below(5) as usize],
            1 => (self.next() as i64 >> self.below(64)) as f64 / 1024.0,
            _ => self.below(41) as f64 / 4.0 - 5.0,
        }
    }

    fn expr(&mut self, ty: ScriptType, depth: u32) -> E {
        let boxed = |g: &mut Gen, ty| Box::new(g.expr(ty, depth - 1));
        if depth == 0 || self.below(4) == 0 {
            return match (ty, self.below(2)) {
                (ScriptType::Bool, 0) => E::Lit(V::B(self.below(2) == 0)),
                (ScriptType::Bool, _) => E::Load(match self.below(4) {
                    0 => Place::Alert,
                    i => Place::Var(i as usize - 1),
                }),
                (ScriptType::Int, 0) => E::Lit(V::I(self.int())),
                (ScriptType::Int, _) => E::Load(Place::Ammo),
                (ScriptType::Float, 0) => E::Lit(V::F(self.float())),
                (ScriptType::Float, _) => E::Load(Place::Hunger),
                (ScriptType::Str, _) => unreachable!("the model has no strings"),
            };
        }
        match ty {
            ScriptType::Bool => match self.below(6) {
                0 => E::Not(boxed(self, ScriptType::Bool)),
                1 => E::And(boxed(self, ScriptType::Bool), boxed(self, ScriptType::Bool)),
                2 => E::Or(boxed(self, ScriptType::Bool), boxed(self, ScriptType::Bool)),
                3 => {
                    let op = ["==", "!="][self.below(2) as usize];
                    E::Bin(
                        op,
                        boxed(self, ScriptType::Bool),
                        boxed(self, ScriptType::Bool),
                    )
                }
                4 => {
                    let op = ["==", "!=", "<", "<=", ">", ">="][self.below(6) as usize];
                    let (l, r) = (self.number(), self.number());
                    E::Bin(op, boxed(self, l), boxed(self, r))
                }
                _ => {
                    let place = match self.below(4) {
                        0 => Place::Alert,
                        i => Place::Var(i as usize - 1),
                    };
                    E::Assign(place, "=", boxed(self, ScriptType::Bool))
                }
            },
            number => match self.below(5) {
                0 => E::Neg(boxed(self, number)),
                1 => {
                    let op = ["=", "+=", "-="][self.below(3) as usize];
                    let (place, value) = match number {
                        ScriptType::Int => (Place::Ammo, ScriptType::Int),
                        _ => (Place::Hunger, self.number()),
                    };
                    E::Assign(place, op, boxed(self, value))
                }
                _ => {
                    let op = ["+", "-", "*", "/", "%"][self.below(5) as usize];
                    let r = match number {
                        ScriptType::Int => ScriptType::Int,
                        _ => self.number(),
                    };
                    E::Bin(op, boxed(self, number), boxed(self, r))
                }
            },
        }
    }

    fn state(&mut self) -> State {
        State {
            hunger: self.float(),
            ammo: self.int(),
            alert: self.below(2) == 0,
            vars: [self.below(2) == 0, self.below(2) == 0, self.below(2) == 0],
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1024))]

    #[test]
    fn eval_matches_a_direct_interpretation(seed in any::<u64>()) {
        let mut g = Gen(seed);
        let statements: Vec<E> = (0..1 + g.below(3))
            .map(|_| {
                let ty = match g.below(3) {
                    0 => ScriptType::Bool,
                    _ => g.number(),
                };
                g.expr(ty, 5)
            })
            .collect();
        let start = g.state();
        let source = statements.iter().map(E::source).collect::<Vec<_>>().join("; ");
        let code = match script::compile_for::<Npc>(&source, &VARIABLES) {
            Ok(code) => code,
            Err(e) => {
                // Random trees may outgrow the stack or the source limits.
                prop_assert!(
                    e.message.contains("stack") || e.message.contains("longer"),
                    "{source:?}: {e}"
                );
                return Ok(());
            }
        };
        prop_assert_eq!(code.ty, statements.last().unwrap().ty());

        let mut model = start;
        let mut want = Err(Fault::Malformed);
        for e in &statements {
            want = e.eval(&mut model);
            if want.is_err() {
                break;
            }
        }

        let mut npc = start.npc();
        let mut vars = [start.bits()];
        let got = script::eval(&code.words, &mut npc, &FieldAccess::of(), Memory::variables(&mut vars));
        match (want, got) {
            (Ok(w), Ok(g)) => prop_assert!(w.same(g), "{source:?}: {w:?} != {g:?}"),
            (w, g) => prop_assert_eq!(w.err(), g.err(), "{:?}", source),
        }
        prop_assert!(model.holds(&npc, vars[0]), "{source:?}: {model:?} vs {npc:?} {:b}", vars[0]);

        // Read-only evaluation agrees where the script does not write.
        if !compiler::writes(&code.words) {
            let npc = start.npc();
            let read = script::eval_read_only(&code.words, &npc, Npc::get, MemoryRef::variables(&[start.bits()]));
            prop_assert!(same(read, got), "{source:?}: {read:?} != {got:?}");
        }
    }

    #[test]
    fn eval_never_panics_on_random_words(
        words in proptest::collection::vec(
            prop_oneof![
                any::<u64>(),
                (1u64..=Op::ALL.len() as u64, 0u64..8).prop_map(|(op, x)| x << 8 | op),
            ],
            0..48,
        ),
    ) {
        let mut npc = Npc::default();
        let _ = script::eval(&words, &mut npc, &FieldAccess::of(), Memory::variables(&mut [0]));
        let _ = script::eval_read_only(&words, &npc, Npc::get, MemoryRef::default());
    }
}
