//! Target `script`: the expression language.
//!
//! The input is a script's source. Compiling it over a few fields and
//! variables must give code or an error at a column inside the source;
//! code must disassemble and evaluate to a value or a fault (fields read
//! through no access, as `false`), never a panic, whatever it computes.

use treebeard_shape::script::{Names, compile, disassemble};
use treebeard_shape::{FieldDecl, FieldType};
use treebeard_vm::script::{FieldAccess, eval};

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
    let names = Names {
        fields: &fields,
        variables: &VARIABLES,
    };
    match compile(&source, &names) {
        Ok(code) => {
            let field = |i: u32| format!("field{i}");
            let variable = |i: u32| format!("var{i}");
            let _ = disassemble(&code.words, &field, &variable);
            let mut vars = [0u32; 1];
            let _ = eval(&code.words, &mut (), &FieldAccess::none(), &mut vars);
        }
        Err(e) => {
            assert!(
                e.column() <= source.len() + 1,
                "an error inside the source: {e:?} in {source:?}"
            );
        }
    }
}
