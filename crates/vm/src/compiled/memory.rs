//! The nodes of an agent's tree memory in compiled code: scripts over its
//! variables, the time tests of its timestamps, events sent and stimuli
//! posted (see the interpreter's `memory` module, whose helpers these
//! share).
//!
//! A script runs on the agent's variable words in place: they are stored
//! `^` their initial values, so the tick turns them into their values
//! before the script and back after it (the interpreter copies them into a
//! scratch buffer instead, which a compiled tick does not have). Both
//! leave the same words, whether the script assigns, faults, or is a
//! read-only condition.

use super::Tick;
use crate::interpreter::{event_target, posted_stimulus, time_test};
use crate::leaves::EventId;
use crate::request::{Request, RequestKind};
use crate::script::{Fault, Memory, ScriptValue};
use crate::status::Status;
use treebeard_shape::{ActionId, NodeIdx};

impl<B> Tick<'_, '_, B> {
    /// `Script`: runs the script the parameter word `word` names; succeeds
    /// unless it faults.
    #[inline]
    pub fn script(&mut self, word: u64) -> Status {
        match self.run_script(word, false) {
            Ok(_) => Status::Success,
            Err(_) => Status::Failure,
        }
    }

    /// Whether the bool script the parameter word `word` names holds (a
    /// fault is false): the test of `AssertScript` and `ScriptGate`, or,
    /// `read_only`, a condition's (`AssertCondition`, `IfCondition`).
    #[inline]
    pub fn test(&mut self, word: u64, read_only: bool) -> bool {
        self.run_script(word, read_only) == Ok(ScriptValue::Bool(true))
    }

    /// Runs a script over the agent's blackboard and variables (see the
    /// module): out of line, as the evaluator is.
    #[inline(never)]
    fn run_script(&mut self, word: u64, read_only: bool) -> Result<ScriptValue, Fault> {
        self.keep_cells();
        let program = self.program;
        let initial = &*program.initial;
        let at = self.layout.memory_at();
        let memory = &mut self.words[at..at + self.layout.variable_words()];
        let (variables, entries) = memory.split_at_mut(initial.len());
        let flip = |variables: &mut [u32]| {
            for (v, &i) in variables.iter_mut().zip(initial) {
                *v ^= i;
            }
        };
        flip(variables);
        let memory = Memory { variables, entries };
        let code = program.shape().script(word);
        let value = program
            .script_access()
            .run(code, self.bb, memory, read_only);
        flip(variables);
        if !read_only {
            self.tell_cells();
        }
        value
    }

    /// Copies the agent's tree variables and entries from its memory into
    /// the cells its leaves read and write (inputs and outputs naming
    /// entries, `Args::variable`): at the start of its tick, in a tree
    /// with variables or entries, and after each script that may assign.
    #[inline]
    pub fn tell_cells(&self) {
        let at = self.layout.memory_at();
        let words = self.words.get(at..).unwrap_or_default();
        for (cell, &word) in self.cells().zip(words) {
            cell.set(word);
        }
    }

    /// Stores the agent's leaf cells, which its leaves may have written,
    /// back into its memory: before each script, and when the tick ends,
    /// in a tree with variables or entries.
    #[inline]
    pub fn keep_cells(&mut self) {
        let at = self.layout.memory_at();
        let cells = self.base.variables.iter().chain(self.base.entries);
        let words = self.words.get_mut(at..).unwrap_or_default();
        for (word, cell) in words.iter_mut().zip(cells) {
            *word = cell.get();
        }
    }

    /// The leaf cells: the variables' words, then the entries'.
    fn cells(&self) -> impl Iterator<Item = &std::cell::Cell<u32>> {
        self.base.variables.iter().chain(self.base.entries)
    }

    /// The time test of an `IfTime` or `WaitUntilTime` over the agent's
    /// timestamp `since`, with the node's `seconds`, `less_than` and
    /// `or_never` parameter words.
    #[inline]
    pub fn time_test(&self, since: usize, params: [u64; 3]) -> bool {
        let at = self.layout.memory_at() + self.layout.variable_words() + since;
        time_test(self.words.get(at).copied(), self.frame.time, params)
    }

    /// `SendEvent` at `node`: sends `event` to the agent its `to` input
    /// (parameter word) names, delivered after the tick; fails for a value
    /// no agent has.
    #[inline(never)]
    pub fn send_event(&mut self, node: u32, event: u32, to: u64) -> Status {
        let to = self.program.input_int(to, self.bb);
        let Some(to) = event_target(to, self.agent) else {
            return Status::Failure;
        };
        if self.sent == usize::MAX {
            self.sent = self.requests.len();
        }
        self.requests.push(Request {
            agent: self.agent,
            node: NodeIdx::new(node),
            action: ActionId(0),
            kind: RequestKind::Event {
                event: EventId(event),
                to,
            },
        });
        Status::Success
    }

    /// `PostStimulus`: posts the agent's stimulus `stimulus` with the datum
    /// its `data` input (parameter word) gives, for the stimulus's seconds
    /// from the frame's time; fails, posting nothing, for a datum that is
    /// not a 32-bit value.
    #[inline(never)]
    pub fn post_stimulus(&mut self, stimulus: usize, data: u64) -> Status {
        let data = self.program.input_int(data, self.bb);
        let shape = self.program.shape();
        let Some(words) = posted_stimulus(shape, stimulus, data, self.frame.time) else {
            return Status::Failure;
        };
        let at = self.layout.memory_at() + self.layout.stimuli_in_memory() + 2 * stimulus;
        match self.words.get_mut(at..at + 2) {
            Some(to) => {
                to.copy_from_slice(&words);
                Status::Success
            }
            None => Status::Failure,
        }
    }
}
