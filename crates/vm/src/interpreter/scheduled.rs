//! Batches whose agents tick on their own schedules.
//!
//! [`Interpreter::tick_batch`] ticks every agent of a batch with one frame.
//! A crowd whose agents join and leave, or tick at different rates (level
//! of detail), needs to skip some agents and to give each agent that ticks
//! a frame of its own: one whose `dt` covers the time since that agent's
//! previous tick. [`Interpreter::tick_batch_scheduled`] leaves both
//! decisions to its caller, agent by agent, and costs a batch of agents
//! that all tick one call of the caller's schedule more per agent.

use super::Interpreter;
use crate::actor::ActorsMut;
use crate::compiled;
use crate::frame::Frame;
use crate::program::Program;
use crate::request::{AgentId, Request};
use crate::trace::Quiet;

impl Interpreter {
    /// Ticks a batch of agents like [`Interpreter::tick_batch`], each on its
    /// own schedule. For each agent in order, `schedule` runs first, with
    /// the agent's blackboard (the place for the world step of an agent
    /// that ticks), and returns the frame to tick the agent with, or `None`
    /// to leave it alone this time: a skipped agent's actor is neither read
    /// nor written and it makes no requests. Agent `i` of the batch is
    /// `AgentId(first.0 + i)`; requests are appended in agent order.
    ///
    /// Leaves see the frame `schedule` returned (`Args::frame`), and the
    /// tree's timers run on it: `Wait` and `Timeout` add its `dt`,
    /// `Cooldown`, `IfTime`, stimuli and Spore deciders read its `time`.
    ///
    /// # Panics
    /// If `blackboards` and `actors` differ in length, or the actors are too
    /// small for the program.
    pub fn tick_batch_scheduled<B>(
        &mut self,
        program: &Program<B>,
        first: AgentId,
        actors: ActorsMut<'_>,
        blackboards: &mut [B],
        requests: &mut Vec<Request>,
        mut schedule: impl FnMut(AgentId, &mut B) -> Option<Frame>,
    ) {
        let (words, layout) = actors.into_parts();
        if let Some(tree) = program.compiled_tick(layout) {
            let (buffers, cells) = self.parts(program);
            compiled::tick_batch(
                tree,
                program,
                cells,
                first,
                words,
                layout,
                blackboards,
                requests,
                None,
                schedule,
                &mut super::interpreting(buffers, cells, program, layout),
            );
            return;
        }
        let stride = layout.words();
        assert_eq!(
            words.len(),
            stride * blackboards.len(),
            "one actor per blackboard"
        );
        let mut batch = self.batch(program, &Frame::default(), layout, Quiet);
        let mut agent = first;
        for (actor, blackboard) in words.chunks_exact_mut(stride).zip(blackboards) {
            if let Some(frame) = schedule(agent, blackboard) {
                batch.args.frame = frame;
                batch.tick(actor, layout, blackboard, agent, requests);
            }
            agent.0 += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::{ActorLayout, Actors, AgentId, Frame, Interpreter, Leaves, Program, Status};
    use treebeard_shape::tree::act;

    /// Counts its calls and adds up the `dt`s it saw.
    #[derive(Default)]
    struct Clock {
        calls: u32,
        seen: f32,
    }

    fn program() -> Program<Clock> {
        let mut leaves = Leaves::<Clock>::new();
        leaves.action("look", |c, call| {
            c.calls += 1;
            c.seen += call.frame().dt;
            Status::Running
        });
        leaves
            .compile(&act("look"))
            .unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn skipped_agents_are_untouched_and_ticked_ones_see_their_frames() {
        let program = program();
        let layout = ActorLayout::for_shape(program.shape());
        let mut actors = Actors::new(layout, 4);
        let mut clocks: Vec<Clock> = (0..4).map(|_| Clock::default()).collect();
        let mut interpreter = Interpreter::new();
        let mut requests = Vec::new();
        let mut asked = Vec::new();
        interpreter.tick_batch_scheduled(
            &program,
            AgentId(10),
            actors.as_mut(),
            &mut clocks,
            &mut requests,
            |agent, _| {
                asked.push(agent.0);
                (agent.0 % 2 == 0).then_some(Frame {
                    index: 3,
                    time: 2.0,
                    dt: agent.0 as f32,
                })
            },
        );
        assert_eq!(asked, [10, 11, 12, 13]);
        let seen: Vec<(u32, f32)> = clocks.iter().map(|c| (c.calls, c.seen)).collect();
        assert_eq!(seen, [(1, 10.0), (0, 0.0), (1, 12.0), (0, 0.0)]);
        assert!(actors.get(1).is_idle() && actors.get(3).is_idle());
        assert!(!actors.get(0).is_idle() && !actors.get(2).is_idle());
        assert!(requests.is_empty());
    }
}
