//! What a reference tree asks of its world: [`RefLeaves`], the leaves it
//! calls by item, and [`ProgramLeaves`], any program's leaf functions
//! behind that interface.

use super::*;

/// The leaves a reference tree calls, by the leaf's item: the scripted
/// [`crate::World`], or any program's leaf functions ([`ProgramLeaves`]).
pub trait RefLeaves {
    /// Tests the condition at `node`.
    fn condition(&mut self, node: NodeIdx) -> bool;
    /// Calls the immediate action at `node`, with its persistent slot and
    /// memory block if it has them.
    fn action(
        &mut self,
        node: NodeIdx,
        signal: Signal,
        state: &mut u32,
        persistent: Option<&mut u32>,
        memory: Option<&mut MemoryBlock>,
    ) -> Status;
    /// Delivers `event` to the running action at `node`; whether a hook ran.
    fn event(
        &mut self,
        _node: NodeIdx,
        _event: EventId,
        _state: &mut u32,
        _persistent: Option<&mut u32>,
        _memory: Option<&mut MemoryBlock>,
    ) -> bool {
        false
    }
    /// Calls the hooks of the scope at `node`: enter (`how` is `None`) or
    /// exit.
    fn scope(&mut self, _node: NodeIdx, _how: Option<Ending>) {}
    /// The agent's tree variables' values (variable `i` is bit `i % 32` of
    /// word `i / 32`) and its entries (two words each) as they are now,
    /// which the leaves called from here on may read: told before a tick,
    /// after each script, and before an event's hooks.
    fn tell(&mut self, _variables: &[u32], _entries: &[u32]) {}
    /// Copies into `variables` and `entries` the agent's tree variables
    /// and entries as the leaves left them: after each leaf call.
    fn written(&self, _variables: &mut [u32], _entries: &mut [u32]) {}
    /// Whether the passes from here on are a tick's passes after its first
    /// (a loop asked for the tree to be ticked again at once): they cover
    /// no time, so the clock the leaves see has a `dt` of 0.
    fn again(&mut self, _again: bool) {}
    /// The tick's clock, for waits, timeouts, cool-downs and time tests;
    /// between ticks (for [`Reference::send_event`]), the last tick's.
    fn clock(&self) -> Frame {
        Frame::default()
    }
    /// Runs the shape's script `index` (the word of a script parameter)
    /// over the agent's tree memory (its variables' values and its
    /// entries), which it may change unless `read_only`.
    ///
    /// # Panics
    /// By default: leaves that know no program run no scripts.
    fn script(
        &mut self,
        index: u64,
        _memory: TreeMemory<'_>,
        _read_only: bool,
    ) -> Result<ScriptValue, Fault> {
        panic!("these leaves cannot run script {index}: they know no program")
    }
    /// The value of an int input parameter's `word` (a literal's offset in
    /// the parameter table, or a blackboard field reference), as
    /// `SendEvent` reads its `to`; `None` if the field holds no int.
    ///
    /// # Panics
    /// By default: leaves that know no program read no inputs.
    fn input_int(&self, word: u64) -> Option<i64> {
        panic!("these leaves cannot read input word {word:#x}: they know no program")
    }
    /// Calls the Decide leaf at `node`: its score and decider block. The
    /// agent's stimuli are `stimuli`, as the VM keeps them (per declared
    /// stimulus its expiry, `f32` bits, and its datum).
    ///
    /// # Panics
    /// By default: leaves that know no Decide functions.
    fn decide(
        &mut self,
        node: NodeIdx,
        _stimuli: &[u32],
        _memory: Option<&mut MemoryBlock>,
    ) -> (f32, u32) {
        panic!("these leaves cannot call the Decide leaf {node}")
    }
    /// The agent's decision flags (0 by default, as without
    /// `Leaves::decision_flags`).
    fn decision_flags(&self) -> u32 {
        0
    }
    /// The state of the crowd the agent is in, as the last settling left
    /// it (see [`CrowdState`]); `None` (by default) for a crowd that has not
    /// run the tree yet: every gate empty, every cool-down ready.
    fn crowd(&self) -> Option<&CrowdState> {
        None
    }
}

/// The words of the initial bits of `shape`'s variables, which an actor
/// stores each variable's `^`.
fn initial_words(shape: &Shape) -> impl Iterator<Item = u32> + '_ {
    shape.variables().chunks(32).map(|word| {
        word.iter()
            .enumerate()
            .fold(0, |w, (i, v)| w | u32::from(v.initial) << i)
    })
}

/// Words as the cells a program's leaf calls read entries from.
fn cells(words: &mut [u32]) -> &[std::cell::Cell<u32>] {
    std::cell::Cell::from_mut(words).as_slice_of_cells()
}

/// A program's leaf functions for one agent's blackboard, as [`RefLeaves`].
pub struct ProgramLeaves<'a, B> {
    /// The program whose leaves run.
    pub program: &'a treebeard_vm::Program<B>,
    /// The agent's blackboard.
    pub blackboard: &'a mut B,
    /// The agent.
    pub agent: AgentId,
    /// The tick's clock.
    pub frame: &'a treebeard_vm::Frame,
    /// The agent's crowd, if any.
    pub crowd: Option<&'a CrowdState>,
    /// The agent's leaf words as the reference last told them (see
    /// [`treebeard_vm::ActorRef::leaf_words`]): its variables' words
    /// stored `^` their initial values, then its entries' words.
    pub cells: Vec<u32>,
    /// Whether the tick is past its first pass (see [`RefLeaves::again`]).
    pub again: bool,
}

impl<'a, B> ProgramLeaves<'a, B> {
    /// The leaves of `program` for the agent `agent` with `blackboard`, in
    /// the tick at `frame`, of a crowd `crowd` if any.
    pub fn new(
        program: &'a treebeard_vm::Program<B>,
        blackboard: &'a mut B,
        agent: AgentId,
        frame: &'a Frame,
        crowd: Option<&'a CrowdState>,
    ) -> ProgramLeaves<'a, B> {
        ProgramLeaves {
            program,
            blackboard,
            agent,
            frame,
            crowd,
            cells: Vec::new(),
            again: false,
        }
    }

    /// The clock the leaves see: the tick's, covering no time after its
    /// first pass.
    fn frame(&self) -> Frame {
        let mut frame = *self.frame;
        if self.again {
            frame.dt = 0.0;
        }
        frame
    }
}

impl<B> RefLeaves for ProgramLeaves<'_, B> {
    fn condition(&mut self, node: NodeIdx) -> bool {
        self.program.call_condition(
            node,
            self.blackboard,
            self.agent,
            &self.frame(),
            cells(&mut self.cells),
        )
    }

    fn action(
        &mut self,
        node: NodeIdx,
        signal: Signal,
        state: &mut u32,
        persistent: Option<&mut u32>,
        memory: Option<&mut MemoryBlock>,
    ) -> Status {
        self.program.call_action(
            node,
            self.blackboard,
            self.agent,
            &self.frame(),
            signal,
            state,
            persistent,
            memory,
            cells(&mut self.cells),
        )
    }

    fn event(
        &mut self,
        node: NodeIdx,
        event: EventId,
        state: &mut u32,
        persistent: Option<&mut u32>,
        memory: Option<&mut MemoryBlock>,
    ) -> bool {
        self.program.call_event(
            node,
            self.blackboard,
            self.agent,
            &self.frame(),
            event,
            state,
            persistent,
            memory,
            cells(&mut self.cells),
        )
    }

    fn scope(&mut self, node: NodeIdx, how: Option<Ending>) {
        self.program.call_scope(
            node,
            self.blackboard,
            self.agent,
            &self.frame(),
            how,
            cells(&mut self.cells),
        );
    }

    fn tell(&mut self, variables: &[u32], entries: &[u32]) {
        let initial = initial_words(self.program.shape());
        self.cells.clear();
        self.cells
            .extend(variables.iter().zip(initial).map(|(&v, i)| v ^ i));
        self.cells.extend_from_slice(entries);
    }

    fn written(&self, variables: &mut [u32], entries: &mut [u32]) {
        if self.cells.len() != variables.len() + entries.len() {
            return;
        }
        let (stored, words) = self.cells.split_at(variables.len());
        let initial = initial_words(self.program.shape());
        for ((v, &stored), i) in variables.iter_mut().zip(stored).zip(initial) {
            *v = stored ^ i;
        }
        entries.copy_from_slice(words);
    }

    fn again(&mut self, again: bool) {
        self.again = again;
    }

    fn clock(&self) -> Frame {
        self.frame()
    }

    fn script(
        &mut self,
        index: u64,
        memory: TreeMemory<'_>,
        read_only: bool,
    ) -> Result<ScriptValue, Fault> {
        self.program
            .run_script(index, self.blackboard, memory, read_only)
    }

    fn input_int(&self, word: u64) -> Option<i64> {
        self.program.input_int(word, self.blackboard)
    }

    fn decide(
        &mut self,
        node: NodeIdx,
        stimuli: &[u32],
        memory: Option<&mut MemoryBlock>,
    ) -> (f32, u32) {
        self.program.call_decide(
            node,
            self.blackboard,
            self.agent,
            self.frame,
            stimuli,
            memory,
        )
    }

    fn decision_flags(&self) -> u32 {
        self.program.decision_flags(self.blackboard)
    }

    fn crowd(&self) -> Option<&CrowdState> {
        self.crowd
    }
}
