//! The function of each node, by kind: the tree's control flow, as the
//! interpreter's update loop runs it (see `treebeard_vm::compiled`).

use super::{Emitter, TICK, goes_on, runs};
use treebeard_shape::{Kind, NodeIdx};

impl Emitter<'_, '_> {
    /// Writes the function of `node` (and, for a node that can run, its
    /// path's resume table before it).
    pub(super) fn node(&mut self, node: NodeIdx) {
        let shape = self.shape;
        let i = node.get();
        let kind = shape.kind(node);
        if runs(kind) {
            let entries = self.resume_entries(node);
            if !entries.is_empty() {
                self.line(
                    0,
                    &format!("/// The decider states of the path to item {i} while it runs."),
                );
                self.line(
                    0,
                    &format!(
                        "const RESUMES_{i}: &[StateEntry] = &[{}];",
                        entries
                            .iter()
                            .map(ToString::to_string)
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                );
                self.line(0, "");
            }
        }
        self.doc(node);
        let children: Vec<u32> = shape.children(node).map(NodeIdx::get).collect();
        // A constant status in a tree where nothing runs reads nothing of
        // the tick.
        let tick = if matches!(kind, Kind::AlwaysSuccess | Kind::AlwaysFailure) && !self.uses.runs {
            "_: &mut Tick<'_, '_, B>"
        } else {
            TICK
        };
        self.line(0, &format!("fn n{i}<const P: u32>({tick}) -> Status {{"));
        match kind {
            Kind::Sequence | Kind::Selector => {
                let go_on = goes_on(kind);
                // A child is passed over when the previous tick's running
                // leaf lies in a later child: the sequence resumes there,
                // after running again the `Repeat` children before it.
                let end = shape.subtree_end(node).get();
                for (k, &c) in children.iter().enumerate() {
                    let last = k + 1 == children.len();
                    let repeats = shape.kind(NodeIdx::new(c)) == Kind::Repeat;
                    let indent = if last || repeats {
                        1
                    } else {
                        let from = shape.subtree_end(NodeIdx::new(c)).get();
                        self.line(1, &format!("if !t.resumes_past::<P>({from}, {end}) {{"));
                        2
                    };
                    self.line(indent, &format!("let status = n{c}::<P>(t);"));
                    self.line(indent, &format!("if status != Status::{go_on} {{"));
                    self.line(indent + 1, "return status;");
                    self.line(indent, "}");
                    if !last && !repeats {
                        self.line(1, "}");
                    }
                }
                self.line(1, &format!("Status::{go_on}"));
            }
            Kind::PrioritySelector | Kind::ReactiveSequence => {
                let go_on = goes_on(kind);
                for &c in &children {
                    self.line(1, &format!("let status = n{c}::<P>(t);"));
                    self.line(1, &format!("if status != Status::{go_on} {{"));
                    self.line(2, "return status;");
                    self.line(1, "}");
                }
                self.line(1, &format!("Status::{go_on}"));
            }
            Kind::IfThenElse | Kind::WhileDoElse => {
                // An if-then-else resumes at the branch that ran, without
                // its condition; a while-do-else tests it on every tick.
                let (condition, then) = (children[0], children[1]);
                let branch_end = |c: u32| shape.subtree_end(NodeIdx::new(c)).get();
                if kind == Kind::IfThenElse {
                    for &b in &children[1..] {
                        let (from, to) = (b, branch_end(b));
                        self.line(1, &format!("if t.resumes_past::<P>({from}, {to}) {{"));
                        self.line(2, &format!("return n{b}::<P>(t);"));
                        self.line(1, "}");
                    }
                }
                self.line(1, &format!("match n{condition}::<P>(t) {{"));
                self.line(2, "Status::Running => Status::Running,");
                self.line(2, &format!("Status::Success => n{then}::<P>(t),"));
                match children.get(2) {
                    Some(otherwise) => {
                        self.line(2, &format!("Status::Failure => n{otherwise}::<P>(t),"));
                    }
                    None => self.line(2, "Status::Failure => Status::Failure,"),
                }
                self.line(1, "}");
            }
            Kind::Inverter => {
                let c = children[0];
                self.line(1, &format!("match n{c}::<P>(t) {{"));
                self.line(2, "Status::Success => Status::Failure,");
                self.line(2, "Status::Failure => Status::Success,");
                self.line(2, "Status::Running => Status::Running,");
                self.line(1, "}");
            }
            Kind::ForceSuccess | Kind::ForceFailure => {
                let c = children[0];
                let to = if kind == Kind::ForceSuccess {
                    "Success"
                } else {
                    "Failure"
                };
                self.line(1, &format!("match n{c}::<P>(t) {{"));
                self.line(2, "Status::Running => Status::Running,");
                self.line(2, &format!("_ => Status::{to},"));
                self.line(1, "}");
            }
            Kind::StoredState | Kind::Repeat => {
                let c = children[0];
                self.line(1, &format!("n{c}::<P>(t)"));
            }
            Kind::Timeout => {
                // As the interpreter's: the seconds its child has run (an
                // `f32`) are its decider state while the child runs; a
                // tick that starts at or past its seconds fails it, and
                // the running work inside it ends.
                let c = children[0];
                let seconds = shape.params(node).first().copied().unwrap_or(0);
                let end = shape.subtree_end(node).get();
                let at = self.resume_entries(node).len();
                self.line(
                    1,
                    &format!(
                        "let since = t.value_in::<P>({i}, {end}, {at}).map_or(0.0, f32::from_bits);"
                    ),
                );
                self.fail_if(
                    &format!("f64::from(since) >= f64::from_bits({seconds:#x})"),
                    end,
                );
                self.line(1, &format!("let status = n{c}::<P>(t);"));
                self.line(1, "if status == Status::Running {");
                self.line(
                    2,
                    &format!("t.keep_value({at}, (since + t.dt()).to_bits());"),
                );
                self.line(1, "}");
                self.line(1, "status");
            }
            Kind::Loop | Kind::LoopUntilSuccess => {
                // As the interpreter's: the runs so far are the loop's
                // action state between runs (it runs, and the next tick
                // starts the child again) and its decider state while the
                // child runs; a run that ends the other way ends the loop.
                let c = children[0];
                let limit = shape.params(node).first().copied().unwrap_or(0);
                let end = shape.subtree_end(node).get();
                let at = self.resume_entries(node).len();
                let (again, ends) = if kind == Kind::Loop {
                    ("Success", "Failure")
                } else {
                    ("Failure", "Success")
                };
                self.line(1, &format!("let runs = match t.take_action::<P>({i}) {{"));
                self.line(2, "Some(entry) => entry.value(),");
                self.line(
                    2,
                    &format!(
                        "None => t.value_in::<P>({}, {end}, {at}).unwrap_or(0),",
                        i + 1
                    ),
                );
                self.line(1, "};");
                self.line(1, &format!("match n{c}::<P>(t) {{"));
                self.line(2, "Status::Running => {");
                self.line(3, &format!("t.keep_value({at}, runs);"));
                self.line(3, "Status::Running");
                self.line(2, "}");
                self.line(2, &format!("Status::{ends} => Status::{ends},"));
                self.line(2, "_ => {");
                self.line(3, "let runs = runs.saturating_add(1);");
                let resumes = self.resumes(node);
                // With `again`, the next run starts in another pass of the
                // tick.
                let wakes = shape.params(node).get(1).is_some_and(|&w| w != 0);
                let between = |e: &mut Self, indent: usize| {
                    if wakes {
                        e.line(indent, "t.again();");
                    }
                    e.line(
                        indent,
                        &format!("t.ran::<P>({i}, Status::Running, runs, {resumes})"),
                    );
                };
                if limit == 0 {
                    between(self, 3);
                } else {
                    self.line(3, &format!("if u64::from(runs) >= {limit} {{"));
                    self.line(4, &format!("Status::{again}"));
                    self.line(3, "} else {");
                    between(self, 4);
                    self.line(3, "}");
                }
                self.line(2, "}");
                self.line(1, "}");
            }
            Kind::AsyncSequence | Kind::AsyncSelector => {
                // As the interpreter's: its place is its action state
                // after a step yielded (it runs, and the tick's next pass
                // goes on there) and its decider value while a child past
                // its first runs; a step that moves it on with children
                // after it yields.
                let n = children.len();
                let end = shape.subtree_end(node).get();
                let at = self.resume_entries(node).len();
                let moves_on = goes_on(kind);
                self.line(1, &format!("let mut at = match t.take_action::<P>({i}) {{"));
                self.line(2, "Some(entry) => entry.value(),");
                match children.get(1) {
                    Some(second) => self.line(
                        2,
                        &format!("None => t.value_in::<P>({second}, {end}, {at}).unwrap_or(0),"),
                    ),
                    None => self.line(2, "None => 0,"),
                }
                self.line(1, "};");
                self.line(1, &format!("if at >= {n} {{"));
                self.line(2, "at = 0;");
                self.line(1, "}");
                self.pass_to_child_at(&children);
                self.tick_child_at(1, &children);
                self.line(1, "match status {");
                self.line(2, "Status::Running => {");
                self.line(3, "if at > 0 {");
                self.line(4, &format!("t.keep_value({at}, at);"));
                self.line(3, "}");
                self.line(3, "Status::Running");
                self.line(2, "}");
                self.line(2, &format!("Status::{moves_on} if at + 1 < {n} => {{"));
                self.line(3, "t.again();");
                let resumes = self.resumes(node);
                self.line(
                    3,
                    &format!("t.ran::<P>({i}, Status::Running, at + 1, {resumes})"),
                );
                self.line(2, "}");
                self.line(2, "status => status,");
                self.line(1, "}");
            }
            Kind::SequenceWithMemory => {
                // As the interpreter's: the position of the child it is at
                // is its persistent slot, where it starts (cancelling the
                // passed-over work before it), and which it keeps when a
                // child runs or fails; back to 0 when the last succeeds.
                let slot = shape.persistent_slot(node).unwrap_or(0);
                let n = children.len();
                self.line(1, &format!("let mut at = t.persistent({slot});"));
                self.line(1, &format!("if at >= {n} {{"));
                self.line(2, "// A slot from another shape: it starts anew.");
                self.line(2, "at = 0;");
                self.line(2, &format!("t.set_persistent({slot}, 0);"));
                self.line(1, "}");
                if self.uses.runs {
                    self.pass_to_child_at(&children);
                }
                self.line(1, "loop {");
                self.tick_child_at(2, &children);
                self.line(2, "if status != Status::Success {");
                self.line(3, &format!("t.set_persistent({slot}, at);"));
                self.line(3, "return status;");
                self.line(2, "}");
                self.line(2, "at += 1;");
                self.line(2, &format!("if at == {n} {{"));
                self.line(3, &format!("t.set_persistent({slot}, 0);"));
                self.line(3, "return Status::Success;");
                self.line(2, "}");
                self.line(1, "}");
            }
            Kind::Cooldown => {
                // As the interpreter's: the time it is ready again (an
                // `f32`) is its persistent slot, set when its child
                // finishes; before it, the cooldown fails, and the running
                // work inside it that this tick passed over ends.
                let c = children[0];
                let slot = shape.persistent_slot(node).unwrap_or(0);
                let seconds = shape.params(node).first().copied().unwrap_or(0);
                let end = shape.subtree_end(node).get();
                self.fail_if(
                    &format!("t.time() < f64::from(f32::from_bits(t.persistent({slot})))"),
                    end,
                );
                self.line(1, &format!("let status = n{c}::<P>(t);"));
                self.line(1, "if status != Status::Running {");
                self.line(
                    2,
                    &format!("let ready = t.time() + f64::from_bits({seconds:#x});"),
                );
                self.line(
                    2,
                    &format!("t.set_persistent({slot}, (ready as f32).to_bits());"),
                );
                self.line(1, "}");
                self.line(1, "status");
            }
            Kind::Condition => {
                if self.uses.runs {
                    self.line(1, &format!("pass::<P>(t, {i});"));
                }
                let call = self.leaf_call(node, "t", "&args");
                self.line(1, &format!("let args = t.args({i}, {});", self.item(node)));
                self.call_line(1, "if ", call, " {");
                self.line(2, "Status::Success");
                self.line(1, "} else {");
                self.line(2, "Status::Failure");
                self.line(1, "}");
            }
            Kind::AlwaysSuccess | Kind::AlwaysFailure => {
                if self.uses.runs {
                    self.line(1, &format!("pass::<P>(t, {i});"));
                }
                let status = if kind == Kind::AlwaysSuccess {
                    "Success"
                } else {
                    "Failure"
                };
                self.line(1, &format!("Status::{status}"));
            }
            Kind::Action => {
                self.line(1, &format!("pass::<P>(t, {i});"));
                self.line(
                    1,
                    &format!("let (signal, state) = match t.take_action::<P>({i}) {{"),
                );
                self.line(2, "Some(entry) => (Signal::Tick, entry.value()),");
                self.line(2, "None => (Signal::Start, 0),");
                self.line(1, "};");
                self.action_call(1, node, "t", "signal", "state");
            }
            Kind::Deferred => {
                let import = shape.item(node).import();
                self.line(1, &format!("pass::<P>(t, {i});"));
                let resumes = self.resumes(node);
                self.line(1, &format!("t.deferred::<P>({i}, {import}, {resumes})"));
            }
            Kind::Wait => {
                // As the interpreter's wait: the seconds waited so far (an
                // `f32`) are its action state; it succeeds on the first
                // tick that starts with them at or past its seconds.
                let seconds = shape.params(node).first().copied().unwrap_or(0);
                self.line(1, &format!("pass::<P>(t, {i});"));
                self.line(
                    1,
                    &format!("let since = t.take_action::<P>({i}).map_or(0.0, |e| f32::from_bits(e.value()));"),
                );
                self.line(
                    1,
                    &format!("if f64::from(since) >= f64::from_bits({seconds:#x}) {{"),
                );
                self.line(2, "return Status::Success;");
                self.line(1, "}");
                let resumes = self.resumes(node);
                self.line(
                    1,
                    &format!(
                        "t.ran::<P>({i}, Status::Running, (since + t.dt()).to_bits(), {resumes})"
                    ),
                );
            }
            Kind::ScriptGate | Kind::IfCondition | Kind::IfTime => {
                // As the interpreter's gates: the work the tick passed over
                // before it ends first; a child still running from the
                // previous tick goes on without the test.
                let c = children[0];
                let end = shape.subtree_end(node).get();
                if self.uses.runs {
                    self.line(1, &format!("pass::<P>(t, {i});"));
                }
                let test = self.test(node);
                self.fail_if(
                    &format!("!t.runs_in::<P>({}, {end}) && !{test}", i + 1),
                    end,
                );
                self.line(1, &format!("n{c}::<P>(t)"));
            }
            Kind::Script
            | Kind::AssertScript
            | Kind::AssertCondition
            | Kind::SendEvent
            | Kind::PostStimulus => {
                if self.uses.runs {
                    self.line(1, &format!("pass::<P>(t, {i});"));
                }
                let params = shape.params(node);
                let word = |k: usize| params.get(k).copied().unwrap_or(0);
                match kind {
                    Kind::Script => self.line(1, &format!("t.script({:#x})", word(0))),
                    Kind::SendEvent => self.line(
                        1,
                        &format!("t.send_event({i}, {}, {:#x})", word(0), word(1)),
                    ),
                    Kind::PostStimulus => {
                        self.line(1, &format!("t.post_stimulus({}, {:#x})", word(0), word(1)))
                    }
                    _ => {
                        let test = self.test(node);
                        self.line(1, &format!("if {test} {{"));
                        self.line(2, "Status::Success");
                        self.line(1, "} else {");
                        self.line(2, "Status::Failure");
                        self.line(1, "}");
                    }
                }
            }
            Kind::WaitUntilTime | Kind::WaitForEvent => {
                // As the interpreter's: it runs, with the action state 0,
                // until the time test holds when a tick starts, or until
                // its event came (which sets the state to 1).
                self.line(1, &format!("pass::<P>(t, {i});"));
                let done = if kind == Kind::WaitUntilTime {
                    self.line(1, &format!("let _ = t.take_action::<P>({i});"));
                    self.test(node)
                } else {
                    format!("t.take_action::<P>({i}).is_some_and(|e| e.value() != 0)")
                };
                self.line(1, &format!("if {done} {{"));
                self.line(2, "return Status::Success;");
                self.line(1, "}");
                let resumes = self.resumes(node);
                self.line(
                    1,
                    &format!("t.ran::<P>({i}, Status::Running, 0, {resumes})"),
                );
            }
            _ => unreachable!("the generator compiles only kinds that `Kind::compiles`"),
        }
        self.line(0, "}");
    }

    /// In the function of a node that starts at the child at position
    /// `at`, a local: the work the tick passed over before that child ends.
    fn pass_to_child_at(&mut self, children: &[u32]) {
        let starts: Vec<String> = children.iter().map(u32::to_string).collect();
        self.line(
            1,
            &format!(
                "const STARTS: [u32; {}] = [{}];",
                children.len(),
                starts.join(", ")
            ),
        );
        self.line(1, "pass::<P>(t, STARTS[at as usize]);");
    }

    /// `let status = ...` at `indent`: the tick of the child at position
    /// `at`, a local (past the last: the last).
    fn tick_child_at(&mut self, indent: usize, children: &[u32]) {
        self.line(indent, "let status = match at {");
        for (k, &c) in children.iter().enumerate() {
            if k + 1 == children.len() {
                self.line(indent + 1, &format!("_ => n{c}::<P>(t),"));
            } else {
                self.line(indent + 1, &format!("{k} => n{c}::<P>(t),"));
            }
        }
        self.line(indent, "};");
    }

    /// `if {test} { ... }` in a decorator's function: it fails before its
    /// child, and the work the tick passed over up to `end` (the running
    /// work inside it included) ends, as the interpreter's flush does.
    fn fail_if(&mut self, test: &str, end: u32) {
        self.line(1, &format!("if {test} {{"));
        if self.uses.runs {
            self.line(2, &format!("pass::<P>(t, {end});"));
        }
        self.line(2, "return Status::Failure;");
        self.line(1, "}");
    }

    /// The test of the script, condition or time test at `node`: a bool
    /// expression on the tick `t`.
    fn test(&self, node: NodeIdx) -> String {
        let params = self.shape.params(node);
        let word = |k: usize| params.get(k).copied().unwrap_or(0);
        match self.shape.kind(node) {
            Kind::IfTime | Kind::WaitUntilTime => format!(
                "t.time_test({}, [{:#x}, {}, {}])",
                word(0),
                word(1),
                word(2),
                word(3)
            ),
            Kind::IfCondition | Kind::AssertCondition => {
                format!("t.test({:#x}, true)", word(0))
            }
            _ => format!("t.test({:#x}, false)", word(0)),
        }
    }
}
