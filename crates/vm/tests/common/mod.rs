//! One agent ticking one tree, for the tests that need no more: its
//! program, actor, blackboard and interpreter, and a clock of one second a
//! tick.

use treebeard_shape::compile;
use treebeard_shape::tree::Node;
use treebeard_vm::{Actor, AgentId, Frame, Interpreter, Leaves, Program, Status};

/// One agent running one tree.
pub struct Agent<B> {
    pub program: Program<B>,
    pub actor: Actor,
    pub bb: B,
    pub interpreter: Interpreter,
    pub frame: Frame,
}

impl<B: Default> Agent<B> {
    /// The agent running `tree` over `leaves`, from a default blackboard.
    pub fn new(tree: &Node, leaves: &Leaves<B>) -> Agent<B> {
        let shape = compile(tree, leaves).unwrap_or_else(|e| panic!("{e}"));
        let program = Program::link(shape, leaves).unwrap_or_else(|e| panic!("{e}"));
        Agent {
            actor: Actor::for_shape(program.shape()),
            program,
            bb: B::default(),
            interpreter: Interpreter::new(),
            frame: Frame::default(),
        }
    }

    /// A tick one second after the last.
    pub fn tick(&mut self) -> Status {
        self.frame = self.frame.next(1.0);
        let mut requests = Vec::new();
        self.interpreter.tick(
            &self.program,
            &self.frame,
            AgentId(0),
            &mut self.actor.as_mut(),
            &mut self.bb,
            &mut requests,
        )
    }
}
