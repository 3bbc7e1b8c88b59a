//! The batch loop of a compiled tree.
//!
//! A generated tree is one function, `fn(&mut Batch)`, that runs the loop
//! over a run of agents itself ([`Batch::run`]), with the tree inlined into
//! the loop body: one indirect call per run of agents rather than per
//! agent, and each agent's [`Tick`] a local the optimiser keeps in
//! registers. The loop walks the due agents in stretches of consecutive
//! ones (one stretch, the whole run, in a crowd whose agents all tick),
//! with pointers that step from one agent to the next, and reads the state
//! an agent's previous tick left running one agent ahead: the tree's
//! first branch dispatches on it, it is the tick's least predictable
//! branch, and with its operand loaded early a misprediction is resolved
//! early. (One loop only: with two, the optimiser would outline the tree
//! rather than inline it twice.)
//!
//! The world step (the crowd's `before`, or a schedule) cannot be inlined
//! into generated code, which is compiled before the closure exists; it
//! runs for a run of at most [`RUN`] agents just before their ticks, on
//! the same thread, so that each agent's blackboard is still in cache when
//! its tick reads it. An agent's tick reads and writes only its own actor
//! and blackboard, so stepping the run first changes nothing but the order
//! in which independent agents are visited.

use super::Tick;
use crate::actor::{ActorLayout, StateEntry};
use crate::frame::Frame;
use crate::interpreter::MAX_PASSES;
use crate::leaves::Args;
use crate::program::Program;
use crate::request::{AgentId, Request};
use crate::status::Status;
use std::cell::Cell;

/// The function a generated tree ticks a run of agents with.
pub type BatchFn<B> = for<'b, 'r> fn(&mut Batch<'b, 'r, B>);

/// The interpreter's tick of one agent, for the actors a generated tree
/// does not read itself (see [`Tick`]): the agent, its frame, actor,
/// blackboard and the request list; the root's status.
pub(crate) type Fallback<'b, B> =
    dyn FnMut(AgentId, &Frame, &mut [u32], &mut B, &mut Vec<Request>) -> Status + 'b;

/// Agents stepped, then ticked, at a time: their frames live on the stack,
/// and a `u64` says which tick. (64 rather than 32: the run's setup, about
/// 90 instructions, costs half as much per agent; 112 instructions per
/// agent-tick on the crowd workload against 115.)
const RUN: usize = 64;

/// A run of consecutive agents to tick with a generated tree: their actors,
/// blackboards and frames. Only generated code uses it, through
/// [`Batch::run`].
pub struct Batch<'b, 'r, B> {
    words: &'b mut [u32],
    layout: ActorLayout,
    blackboards: &'b mut [B],
    /// The agents that tick now: bit `i` for the run's agent `i`.
    due: u64,
    /// Each agent's frame (the same one for all, in a crowd without a
    /// schedule).
    frames: &'b [Frame; RUN],
    /// The first agent's leaf arguments.
    base: Args<'r>,
    program: &'r Program<B>,
    requests: &'b mut Vec<Request>,
    fallback: &'b mut Fallback<'b, B>,
    /// The root's status of the last agent ticked.
    status: Status,
}

impl<'r, B> Batch<'_, 'r, B> {
    /// Ticks every agent of the run that has a frame with `tree`, one
    /// generated tick: the tree's code is inlined here. `layout` is the
    /// generated code's constant, so that every offset into an actor is
    /// one too.
    ///
    /// # Panics
    /// If the run's actors have another layout (the engine runs those on
    /// the interpreter, and never gets here).
    ///
    /// `tree` returns `None`, before it calls any leaf, for an actor in a
    /// form the generated code does not read (see [`Tick`]): the
    /// interpreter ticks that one.
    #[inline(always)]
    pub fn run<const WORDS: usize>(
        &mut self,
        layout: ActorLayout,
        mut tree: impl FnMut(&mut Tick<'_, 'r, B>) -> Option<Status>,
    ) {
        assert!(
            self.layout == layout && layout.words() == WORDS,
            "the actors' layout is the tree's"
        );
        // Locals, not fields: the loop keeps them in registers.
        let Batch {
            words,
            blackboards,
            due,
            frames,
            base,
            program,
            requests,
            fallback,
            ..
        } = self;
        let (mut due, frames, base, program) = (*due, *frames, &*base, *program);
        // Actors as arrays: no offset into one needs a bounds check.
        let (actors, _) = words.as_chunks_mut::<WORDS>();
        let mut status = self.status;
        // The frame of a tick's passes after its first.
        let mut still;
        while due != 0 {
            let from = due.trailing_zeros() as usize;
            let to = from + (!(due >> from)).trailing_zeros() as usize;
            // Clears the lowest run of ones: the carry runs through it.
            due &= due.wrapping_add(due & due.wrapping_neg());
            let (Some(mut actors), Some(blackboards), Some(frames)) = (
                actors.get_mut(from..to),
                blackboards.get_mut(from..to),
                frames.get(from..to),
            ) else {
                break;
            };
            let mut agent = AgentId(base.agent.0 + from as u32);
            let mut left = Left::of::<WORDS>(layout, actors.first());
            for (bb, frame) in blackboards.iter_mut().zip(frames) {
                let Some((actor, rest)) = actors.split_first_mut() else {
                    break;
                };
                let next = Left::of::<WORDS>(layout, rest.first());
                // One call of the tree, in a loop for the passes a node may
                // ask for (none in a tree without such nodes, where the
                // loop folds away): a second call would outline the tree.
                let (mut pass, mut passes) = (frame, 1);
                status = loop {
                    let mut tick = Tick::new(
                        actor, layout, bb, agent, pass, base, program, requests, left.0,
                    );
                    match tree(&mut tick) {
                        Some(root) => {
                            if tick.finish() && root == Status::Running && passes < MAX_PASSES {
                                // At the tick's time, covering no time.
                                still = Frame { dt: 0.0, ..*frame };
                                (pass, passes) = (&still, passes + 1);
                                left = Left::of::<WORDS>(layout, Some(actor));
                                continue;
                            }
                            break root;
                        }
                        None => break interpret(fallback, agent, pass, actor, bb, requests),
                    }
                };
                (actors, left, agent.0) = (rest, next, agent.0 + 1);
            }
        }
        self.status = status;
    }
}

/// What an actor's previous tick left running: its first action state.
/// The batch loop reads it one agent ahead of the tick, so that the load
/// is done by the time the tree dispatches on it.
#[derive(Clone, Copy)]
struct Left(StateEntry);

impl Left {
    #[inline(always)]
    fn of<const WORDS: usize>(layout: ActorLayout, actor: Option<&[u32; WORDS]>) -> Left {
        // A tree without leaves that run has no action slot (and its code
        // asks only whether the actor is idle).
        let at = layout.actions_at();
        Left(match actor.and_then(|a| a.get(at..at + 2)) {
            Some(&[key, value]) => StateEntry::from_words(key, value),
            _ => StateEntry::new(0, 0, 0),
        })
    }
}

/// The interpreter's tick of an actor the generated code does not read:
/// out of the loop, which keeps its registers for the common case.
#[cold]
#[inline(never)]
fn interpret<B>(
    fallback: &mut Fallback<'_, B>,
    agent: AgentId,
    frame: &Frame,
    actor: &mut [u32],
    bb: &mut B,
    requests: &mut Vec<Request>,
) -> Status {
    fallback(agent, frame, actor, bb, requests)
}

/// The leaf arguments the compiled ticks of `program` start from, for
/// agents from `first` whose tree variables and entries the tick tells
/// `cells` (see [`Tick::tell_cells`]), after checking that actors of
/// `layout` hold its states.
fn base_args<'r, B>(
    program: &'r Program<B>,
    cells: &'r [Cell<u32>],
    layout: ActorLayout,
    first: AgentId,
) -> Args<'r> {
    assert!(
        layout.covers(program.spec()),
        "the actors were laid out for a smaller shape than the program's"
    );
    Args::of_shape(program.shape(), cells, first, Frame::default())
}

/// Ticks a batch with the compiled tree `tree` of `program`, as the
/// interpreter's `tick_batch` and `tick_batch_scheduled` do: in runs of
/// [`RUN`] agents, each stepped by `step`, then ticked. With `shared`, every
/// agent ticks with that frame (and what `step` returns is not read);
/// without, `step` is a schedule: an agent's frame, or `None` to skip it.
#[allow(clippy::too_many_arguments)]
pub(crate) fn tick_batch<B>(
    tree: BatchFn<B>,
    program: &Program<B>,
    cells: &[Cell<u32>],
    first: AgentId,
    words: &mut [u32],
    layout: ActorLayout,
    blackboards: &mut [B],
    requests: &mut Vec<Request>,
    shared: Option<Frame>,
    mut step: impl FnMut(AgentId, &mut B) -> Option<Frame>,
    fallback: &mut Fallback<'_, B>,
) {
    let stride = layout.words();
    assert_eq!(
        words.len(),
        stride * blackboards.len(),
        "one actor per blackboard"
    );
    let base = base_args(program, cells, layout, first);
    let mut own = [shared.unwrap_or_default(); RUN];
    let mut agent = first;
    let runs = words
        .chunks_mut(stride * RUN)
        .zip(blackboards.chunks_mut(RUN));
    for (words, blackboards) in runs {
        let n = blackboards.len() as u32;
        let mut due = u64::MAX >> (RUN as u32 - n);
        if shared.is_some() {
            for (i, bb) in blackboards.iter_mut().enumerate() {
                step(AgentId(agent.0 + i as u32), bb);
            }
        } else {
            for (i, bb) in blackboards.iter_mut().enumerate() {
                match step(AgentId(agent.0 + i as u32), bb) {
                    Some(frame) => own[i] = frame,
                    None => due &= !(1 << i),
                }
            }
        }
        tree(&mut Batch {
            words,
            layout,
            blackboards,
            due,
            frames: &own,
            base: Args { agent, ..base },
            program,
            requests,
            fallback,
            status: Status::Failure,
        });
        agent.0 += n;
    }
}

/// One agent's compiled tick (see [`tick_batch`]); the root's status.
#[allow(clippy::too_many_arguments)]
pub(crate) fn tick_one<B>(
    tree: BatchFn<B>,
    program: &Program<B>,
    cells: &[Cell<u32>],
    frame: &Frame,
    agent: AgentId,
    words: &mut [u32],
    layout: ActorLayout,
    bb: &mut B,
    requests: &mut Vec<Request>,
    fallback: &mut Fallback<'_, B>,
) -> Status {
    assert_eq!(words.len(), layout.words(), "one actor of the layout");
    let own = [*frame; RUN];
    let mut batch = Batch {
        words,
        layout,
        blackboards: std::slice::from_mut(bb),
        due: 1,
        frames: &own,
        base: base_args(program, cells, layout, agent),
        program,
        requests,
        fallback,
        status: Status::Failure,
    };
    tree(&mut batch);
    batch.status
}
