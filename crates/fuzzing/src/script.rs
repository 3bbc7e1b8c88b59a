//! Target `script`: the expression language.
//!
//! The input is a script's source. Compiling it over a few fields,
//! variables, entries and strings, creating entries, must give code or an
//! error at a column inside the source; code must pass the verifier with
//! what it created, disassemble and evaluate to a value or a fault (fields
//! read through no access, as `false`), never a panic, whatever it
//! computes.

use treebeard_shape::script::{
    Context, Entry, Names, ScriptType, Symbol, check_in, compile, disassemble,
};
use treebeard_shape::{FieldDecl, FieldType};
use treebeard_vm::script::{FieldAccess, Memory, eval};

/// The variables scripts may name.
const VARIABLES: [&str; 3] = ["seen", "armed", "x"];

/// Checks one input (see the module docs); panics only on a bug.
pub fn run(data: &[u8]) {
    let source = String::from_utf8_lossy(data);
    let fields = [
        FieldDecl::new("hunger", FieldType::Int),
        FieldDecl::new("pace", FieldType::Float),
        FieldDecl::new("alert", FieldType::Bool),
        FieldDecl::new("goal", FieldType::Str),
    ];
    let mut entries = vec![
        Entry {
            name: "door".into(),
            ty: ScriptType::Str,
        },
        Entry {
            name: "count".into(),
            ty: ScriptType::Int,
        },
    ];
    let mut strings: Vec<Box<str>> = vec!["open".into()];
    let names = Names {
        fields: &fields,
        variables: &VARIABLES,
        entries: &entries,
        strings: &strings,
        create: true,
    };
    match compile(&source, &names) {
        Ok(code) => {
            entries.extend(code.created);
            strings.extend(code.strings);
            let cx = Context {
                fields: &fields,
                variables: VARIABLES.len() as u32,
                entries: &entries,
                strings: strings.len() as u64,
            };
            assert_eq!(
                check_in(&code.words, &cx),
                Ok(code.ty),
                "compiled code the verifier refuses: {source:?}"
            );
            let _ = disassemble(&code.words, &|s: Symbol| format!("{s:?}"));
            let mut vars = [0u32; 1];
            let mut words = vec![0u32; 2 * entries.len()];
            let memory = Memory {
                variables: &mut vars,
                entries: &mut words,
            };
            let _ = eval(&code.words, &mut (), &FieldAccess::none(), memory);
        }
        Err(e) => {
            assert!(
                e.column() <= source.len() + 1,
                "an error inside the source: {e:?} in {source:?}"
            );
        }
    }
}
