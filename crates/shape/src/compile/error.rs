//! Why a tree description does not compile: each problem at its node
//! (path, source position) and what to do about it.

use crate::error::ValidationError;
use crate::ids::NodeId;
use crate::kinds::{Kind, MAX_CHILDREN};
use crate::params::{Mismatch, ParamType};
use crate::script::ScriptError;
use crate::source::Source;
use std::fmt;

/// What is wrong with a tree description that cannot be compiled.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Unbuildable {
    /// No leaf is registered under the name.
    UnknownLeaf {
        /// The name used.
        name: Box<str>,
        /// A registered name close to it.
        suggestion: Option<Box<str>>,
    },
    /// A leaf reference has an empty name.
    EmptyLeafName,
    /// The leaf is registered, but as another kind than the reference expects.
    WrongLeafKind {
        /// The name used.
        name: Box<str>,
        /// What the reference expects ("a condition", "an action").
        expected: &'static str,
        /// What is registered.
        found: Kind,
    },
    /// More parameters are given by position than the leaf declares.
    TooManyParams {
        /// The leaf.
        leaf: Box<str>,
        /// Declared parameters.
        expected: usize,
        /// Parameters given by position.
        found: usize,
    },
    /// A parameter name the leaf does not declare.
    UnknownParam {
        /// The leaf.
        leaf: Box<str>,
        /// The name given.
        name: Box<str>,
        /// A declared name close to it.
        suggestion: Option<Box<str>>,
    },
    /// A required parameter is not given.
    MissingParam {
        /// The leaf.
        leaf: Box<str>,
        /// The parameter.
        name: Box<str>,
        /// Its type.
        ty: ParamType,
    },
    /// A parameter is given twice (by name, or by position and by name).
    DuplicateParam {
        /// The leaf.
        leaf: Box<str>,
        /// The parameter.
        name: Box<str>,
    },
    /// A parameter's value does not fit its type.
    BadParam {
        /// The leaf.
        leaf: Box<str>,
        /// The parameter.
        name: Box<str>,
        /// Why.
        problem: Mismatch,
    },
    /// A `Scope` node written as such: a scope is written with its hook's
    /// name (`Boost(factor: 2) { Run }`).
    BareScope,
    /// A decider was given parameters.
    ParamsOnDecider {
        /// How many.
        count: usize,
    },
    /// A leaf was given children.
    ChildrenOnLeaf {
        /// How many.
        count: usize,
    },
    /// A decider has too few or too many children.
    ChildCount {
        /// The decider's kind.
        kind: Kind,
        /// Its children.
        count: usize,
        /// Fewest allowed.
        min: u32,
        /// Most allowed.
        max: u32,
    },
    /// A concurrent policy asks for more children than there are, or none.
    Threshold {
        /// "succeed" or "fail".
        field: &'static str,
        /// The count asked for.
        value: u16,
        /// The children there are.
        children: usize,
    },
    /// Deciders nest deeper than the limit.
    TooDeep {
        /// The limit.
        max: u32,
    },
    /// The tree has more nodes than one shape may hold.
    TooManyItems {
        /// The limit.
        max: usize,
    },
    /// The tree's parameters exceed the parameter table's limit.
    ParamTableFull {
        /// The limit.
        max: usize,
    },
    /// More distinct leaves of one kind than an import table can index.
    TooManyImports {
        /// The leaf kind.
        kind: Kind,
    },
    /// Two nodes have the same stable identity.
    DuplicateId {
        /// The identity.
        id: NodeId,
    },
    /// A script parameter does not compile.
    Script {
        /// The kind whose parameter it is.
        kind: Kind,
        /// The parameter.
        param: &'static str,
        /// What is wrong, and where in the script.
        error: ScriptError,
    },
    /// A declaration or a parameter names an event, variable or timestamp
    /// that is not declared.
    Undeclared {
        /// `event`, `variable`, `timestamp` or `stimulus`.
        what: &'static str,
        /// The name.
        name: Box<str>,
        /// A declared name close to it.
        suggestion: Option<Box<str>>,
    },
    /// A variable, timestamp or stimulus is declared twice.
    DeclaredTwice {
        /// `variable`, `timestamp` or `stimulus`.
        what: &'static str,
        /// The name.
        name: Box<str>,
    },
    /// A timestamp is declared exclusive to itself, or to one exclusive to
    /// another.
    Exclusive {
        /// The timestamp.
        name: Box<str>,
        /// The one it names.
        other: Box<str>,
    },
    /// More variables or timestamps are declared than a shape holds.
    TooManyDeclared {
        /// `"variable"` or `"timestamp"`.
        what: &'static str,
        /// The first past the limit (the rest are not reported).
        name: Box<str>,
        /// The limit.
        max: usize,
    },
    /// More stimuli are declared than an agent's stimulus flags (a `u32`)
    /// hold.
    TooManyStimuli {
        /// A stimulus past the limit (each one is reported).
        name: Box<str>,
        /// The limit.
        max: usize,
    },
    /// A stimulus's seconds are negative, not a number, or too large to
    /// keep.
    StimulusSeconds {
        /// The stimulus.
        name: Box<str>,
        /// The seconds declared.
        seconds: f64,
    },
    /// A node that can keep running inside a `Monitor`, whose query must
    /// finish in the tick it starts.
    RunsInMonitor {
        /// The node's kind.
        kind: Kind,
    },
    /// A Spore kind (`Group`, `Decider`, `Decide`) out of its place, or its
    /// children out of theirs.
    Misplaced {
        /// The node's kind.
        kind: Kind,
        /// The rule broken.
        rule: &'static str,
    },
    /// The compiled parts failed validation (a compiler bug if it happens).
    Invalid(ValidationError),
}

impl fmt::Display for Unbuildable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Unbuildable::UnknownLeaf { name, suggestion } => {
                write!(f, "no leaf is registered as `{name}`")?;
                match suggestion {
                    Some(s) => write!(f, "; did you mean `{s}`?"),
                    None => write!(f, "; register it in the leaf table before compiling"),
                }
            }
            Unbuildable::EmptyLeafName => write!(f, "a leaf needs the name it is registered under"),
            Unbuildable::WrongLeafKind {
                name,
                expected,
                found,
            } => write!(
                f,
                "`{name}` is registered as a {found}, but is used as {expected}"
            ),
            Unbuildable::TooManyParams {
                leaf,
                expected,
                found,
            } => write!(
                f,
                "`{leaf}` takes {expected} parameters, but {found} are given by position"
            ),
            Unbuildable::UnknownParam {
                leaf,
                name,
                suggestion,
            } => {
                write!(f, "`{leaf}` has no parameter `{name}`")?;
                match suggestion {
                    Some(s) => write!(f, "; did you mean `{s}`?"),
                    None => Ok(()),
                }
            }
            Unbuildable::MissingParam { leaf, name, ty } => {
                write!(
                    f,
                    "`{leaf}` needs parameter `{name}` ({ty}), which is not given"
                )
            }
            Unbuildable::DuplicateParam { leaf, name } => {
                write!(f, "parameter `{name}` of `{leaf}` is given twice")
            }
            Unbuildable::BadParam {
                leaf,
                name,
                problem,
            } => write!(f, "parameter `{name}` of `{leaf}`: {problem}"),
            Unbuildable::BareScope => write!(
                f,
                "a scope is written with the name of its hooks (registered with `Leaves::scope`), as in `Boost(factor: 2) {{ Run }}`"
            ),
            Unbuildable::ParamsOnDecider { count } => {
                write!(f, "deciders take no parameters, but {count} were given")
            }
            Unbuildable::ChildrenOnLeaf { count } => {
                write!(f, "leaves have no children, but {count} were given")
            }
            Unbuildable::ChildCount {
                kind,
                count,
                min,
                max,
            } => {
                let children = |n: u32| if n == 1 { "child" } else { "children" };
                if min == max {
                    write!(f, "`{kind}` takes exactly {min} {}", children(*min))?;
                } else if *count > *max as usize {
                    write!(f, "`{kind}` takes at most {max} children")?;
                } else if *max == MAX_CHILDREN {
                    write!(f, "`{kind}` takes at least {min} {}", children(*min))?;
                } else {
                    write!(f, "`{kind}` takes {min} to {max} children")?;
                }
                write!(f, ", but has {count}")
            }
            Unbuildable::Threshold {
                field,
                value,
                children,
            } => write!(
                f,
                "the policy needs {value} children to {field}, but the concurrent has {children}"
            ),
            Unbuildable::TooDeep { max } => {
                write!(f, "deciders nest deeper than the limit of {max}")
            }
            Unbuildable::TooManyItems { max } => {
                write!(f, "the tree has more than {max} nodes")
            }
            Unbuildable::ParamTableFull { max } => {
                write!(f, "the tree has more than {max} parameter words")
            }
            Unbuildable::TooManyImports { kind } => {
                write!(f, "more than 65536 distinct {kind} leaves")
            }
            Unbuildable::DuplicateId { id } => {
                write!(f, "{id} is given to two nodes; identities must be unique")
            }
            Unbuildable::Script { kind, param, error } => {
                write!(f, "parameter `{param}` of `{kind}`, {error}")?;
                match &error.help {
                    Some(help) => write!(f, "; {help}"),
                    None => Ok(()),
                }
            }
            Unbuildable::Undeclared {
                what,
                name,
                suggestion,
            } => {
                write!(f, "no {what} is declared as `{name}`")?;
                match (suggestion, *what) {
                    (Some(s), _) => write!(f, "; did you mean `{s}`?"),
                    (None, "event") => {
                        write!(f, "; the application declares events (`Leaves::event`)")
                    }
                    (None, "stimulus") => write!(f, "; declare it in the tree's stimuli"),
                    (None, _) => write!(f, "; declare it in the tree's {what}s"),
                }
            }
            Unbuildable::DeclaredTwice { what, name } => {
                write!(f, "{what} `{name}` is declared twice")
            }
            Unbuildable::Exclusive { name, other } => write!(
                f,
                "timestamp `{name}` cannot be exclusive to `{other}`: a timestamp is exclusive to one other, and not to itself"
            ),
            Unbuildable::TooManyDeclared { what, name, max } => write!(
                f,
                "{what} `{name}` is past the limit: a tree declares at most {max} {what}s"
            ),
            Unbuildable::TooManyStimuli { name, max } => write!(
                f,
                "stimulus `{name}` is past the limit: a tree declares at most {max} stimuli (an agent's stimulus flags are 32 bits)"
            ),
            Unbuildable::StimulusSeconds { name, seconds }
                if seconds.is_finite() && *seconds >= 0.0 =>
            {
                write!(
                    f,
                    "stimulus `{name}` lasts {seconds:e} seconds, longer than a stimulus can (at most {:e})",
                    f32::MAX
                )
            }
            Unbuildable::StimulusSeconds { name, seconds } => write!(
                f,
                "stimulus `{name}` lasts {seconds} seconds; its seconds must be a finite number, 0 or more"
            ),
            Unbuildable::RunsInMonitor { kind } => write!(
                f,
                "this {kind} can keep running, but it is inside a Monitor, whose query must finish \
                 in the tick it starts: use conditions, scripts and composites of them"
            ),
            Unbuildable::Misplaced { kind, rule } => {
                write!(f, "this {kind} is out of place: {rule}")
            }
            Unbuildable::Invalid(e) => write!(f, "compiled shape is invalid: {e}"),
        }
    }
}

/// One problem of a tree description: what is wrong, and where.
#[derive(Clone, Debug, PartialEq)]
pub struct BuildProblem {
    pub(super) path: String,
    pub(super) node_type: Box<str>,
    pub(super) source: Option<Source>,
    pub(super) what: Unbuildable,
}

impl BuildProblem {
    /// The node's path from the root, e.g. `PrioritySelector/eat[1]/FindFood[1]`:
    /// each segment is a node's name (or leaf name, or kind) and its position
    /// among its siblings.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The node's type: its kind, or for a leaf its registered name.
    pub fn node_type(&self) -> &str {
        &self.node_type
    }

    /// Where the problem was written: the parameter's source for a parameter
    /// problem, else the node's.
    pub fn source(&self) -> Option<Source> {
        self.source
    }

    /// What is wrong.
    pub fn what(&self) -> &Unbuildable {
        &self.what
    }
}

impl fmt::Display for BuildProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path, self.what)
    }
}

/// A tree description that failed to compile: every problem found, in tree
/// order.
#[derive(Clone, Debug, PartialEq)]
pub struct BuildError {
    pub(super) problems: Vec<BuildProblem>,
}

impl BuildError {
    /// Every problem; never empty.
    pub fn problems(&self) -> &[BuildProblem] {
        &self.problems
    }

    // In range: both places that make a `BuildError` give it a problem.
    #[allow(clippy::indexing_slicing)]
    fn first(&self) -> &BuildProblem {
        &self.problems[0]
    }

    /// The first problem's node path.
    pub fn path(&self) -> &str {
        self.first().path()
    }

    /// What the first problem is.
    pub fn what(&self) -> &Unbuildable {
        self.first().what()
    }
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, p) in self.problems.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{p}")?;
        }
        Ok(())
    }
}

impl std::error::Error for BuildError {}
