//! The crowd workload on bonsai-bt 0.14: one `BT` per agent, as bonsai is
//! used, with the page's reactive selectors emulated out of bonsai's own
//! nodes, so that it ends in the page's checksum.
//!
//! # What bonsai lacks
//!
//! The page's `PrioritySelector` and inner `Selector` are reactive: every
//! tick they try their children from the first, resume the running child,
//! and cancel it when a child before it returns Running or Success. bonsai
//! has two selectors and neither is that: `Select` resumes at its running
//! child without trying the ones before it, and `Select(..).memory(false)`
//! re-creates every child's state on every tick, so the `Sequence`s under it
//! would never resume (Eat would restart at FindFood). bonsai has no halt
//! either: nothing tells an action that it was abandoned.
//!
//! # How it is emulated
//!
//! The tree logic runs in bonsai: the root is a `Select` (with memory, so
//! the running branch and its `Sequence` resume as the page asks), every
//! leaf is an `Action` answered by `BT::tick`'s callback, and the emulation
//! adds leaves and nodes to the tree; beside it, the agent's tick only
//! resets the tree and ticks it again when the tree asks. Three pieces:
//!
//! * **Watch leaves.** Each branch after the first (eat, rest, social,
//!   wander) is `Race([Action(Watch), branch])`. `Race` ticks the watch
//!   first on every tick of the branch, started or resumed. The watch reads
//!   the guards of the branches before it: while none holds it returns
//!   Running and `Race` ticks the branch; when one holds it cancels its
//!   branch (below) and fails, so the `Race` fails without ticking the
//!   branch. This rests on a property of this tree, checked branch by
//!   branch: a branch that is not running returns Running or Success exactly
//!   when its guard condition holds (threat, hunger > 70, fatigue > 80,
//!   friend_near), because every action under a guard runs at least one tick
//!   and never fails, and the social selector always ends in Share or Chat.
//!   So "a branch before the running one would return Running or Success"
//!   is "a guard before it holds", and the watch is one leaf per branch.
//! * **Restart on interruption.** When a root watch fires, every later
//!   branch's watch fires too (it reads the same guard), so the root `Select`
//!   fails. The watch has set `restart` in the tree's blackboard; the agent's
//!   tick then calls `reset_bt` and ticks the tree again within the same
//!   agent tick, and the fresh `Select` tries the branches from the first:
//!   those before the guard that held fail on their conditions as they did a
//!   moment ago, and that branch starts. When the root finishes (Success, or
//!   a Failure that is no restart) the tree is reset too, so the next tick
//!   starts anew, as the page asks.
//! * **The inner selector** cannot restart the whole tree: the social
//!   sequence resumes its selector without re-checking `friend_near`, which a
//!   fresh tree would. So it is `Select([share, Race([Watch, Chat]), share])`
//!   with `share = Sequence([hunger > 40, Share])` written twice. Running
//!   Chat is watched by `hunger > 40` (share's guard, by the same property);
//!   when it holds the watch cancels Chat and fails, and the `Select` (with
//!   memory) moves on to the second share, which starts Share, then resumes
//!   it on later ticks.
//!
//! Cancelling: an action's "runs k ticks" count lives in the tree's
//! blackboard ([`Scratch`]), one count per action (at most one action of
//! this tree runs at a time), since bonsai's callback has no per-node state.
//! A count goes back to zero when its action succeeds, and when a watch
//! fires it zeroes the counts of the actions under the branch it watches:
//! that is the halt bonsai lacks.
//!
//! # What it costs
//!
//! Beyond bonsai's own costs (each node's state holds its running child in
//! a `Box`, and every child started is `State::new(behavior.clone())`, which
//! clones the child's description and allocates):
//!
//! * every tick of a branch after the first also ticks its watch leaf, which
//!   re-reads up to four guards (a branch that is tried and fails ticks its
//!   watch too);
//! * an interruption costs a wasted pass (the resumed root failing through
//!   the later branches' watches), a `reset_bt`, which rebuilds the whole
//!   `State` tree from a clone of the stored `Behavior`, and a second tick
//!   from the first branch;
//! * every finished root costs a `reset_bt` as well;
//! * the share sequence is in the tree twice.

use bonsai_bt::{
    Action, ActionArgs, BT, Behavior, Event, Failure, Float, RUNNING, Race, Running, Select,
    Sequence, Status, Success, UpdateArgs,
};
use treebeard_workload::{Act, Critter};

/// A condition of the workload tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Guard {
    Threat,
    HungerAbove(u8),
    FatigueAbove(u8),
    FriendNear,
}

impl Guard {
    fn holds(self, c: &Critter) -> bool {
        match self {
            Guard::Threat => c.threat,
            Guard::HungerAbove(n) => c.hunger > n,
            Guard::FatigueAbove(n) => c.fatigue > n,
            Guard::FriendNear => c.friend_near,
        }
    }
}

/// The root's guards, one per branch before wander, in priority order: the
/// watch of branch `k` reads `ROOT_GUARDS[..k]`.
static ROOT_GUARDS: [Guard; 4] = [
    Guard::Threat,
    Guard::HungerAbove(70),
    Guard::FatigueAbove(80),
    Guard::FriendNear,
];

/// Share's guard in the inner selector.
const SHARE_GUARD: Guard = Guard::HungerAbove(40);

/// A leaf of the bonsai tree: the `A` of `Behavior<A>`, answered by the
/// callback of `BT::tick`.
#[derive(Clone, Copy, Debug)]
enum Leaf {
    /// Success when the guard holds, else Failure.
    Condition(Guard),
    /// A timed action: "runs k ticks, then succeeds".
    Run(Act),
    /// Beside a lower-priority branch in a `Race`: Running while none of
    /// `higher` holds; when one does, cancels the actions of `branch`, asks
    /// for a restart of the tree if `restart`, and fails.
    Watch {
        higher: &'static [Guard],
        branch: &'static [Act],
        restart: bool,
    },
}

/// The tree's blackboard: what the emulation keeps beside the tree.
#[derive(Clone, Debug, Default)]
struct Scratch {
    /// Ticks each action (by [`Act`]) has run since it was started.
    ticks: [u8; 9],
    /// A root watch fired on this pass: reset the tree and tick it again.
    restart: bool,
}

/// The workload tree in bonsai's nodes, with the emulation's watches.
fn behavior() -> Behavior<Leaf> {
    use Act::*;
    let cond = |g| Action(Leaf::Condition(g));
    let run = |a| Action(Leaf::Run(a));
    let watched = |k: usize, branch: &'static [Act], body| {
        let watch = Leaf::Watch {
            higher: &ROOT_GUARDS[..k],
            branch,
            restart: true,
        };
        Race(vec![Action(watch), body])
    };
    let share = || Sequence(vec![cond(SHARE_GUARD), run(Share)]);
    let chat = Race(vec![
        Action(Leaf::Watch {
            higher: &[SHARE_GUARD],
            branch: &[Chat],
            restart: false,
        }),
        run(Chat),
    ]);
    Select(vec![
        Sequence(vec![cond(ROOT_GUARDS[0]), run(Flee)]),
        watched(
            1,
            &[FindFood, Eat],
            Sequence(vec![cond(ROOT_GUARDS[1]), run(FindFood), run(Eat)]),
        ),
        watched(
            2,
            &[Sleep],
            Sequence(vec![cond(ROOT_GUARDS[2]), run(Sleep)]),
        ),
        watched(
            3,
            &[Share, Chat],
            Sequence(vec![
                cond(ROOT_GUARDS[3]),
                Select(vec![share(), chat, share()]),
            ]),
        ),
        watched(
            4,
            &[PickSpot, Walk, LookAround],
            Sequence(vec![run(PickSpot), run(Walk), run(LookAround)]),
        ),
    ])
}

/// The callback's answer for one leaf. Returns the `dt` it was given
/// unspent, so a `Sequence` whose child succeeds ticks the next child in the
/// same tick (FindFood hands over to Eat).
#[inline]
fn leaf(c: &mut Critter, leaf: Leaf, dt: Float, s: &mut Scratch) -> (Status, Float) {
    match leaf {
        Leaf::Condition(g) => (if g.holds(c) { Success } else { Failure }, dt),
        Leaf::Run(act) => {
            let ticks = &mut s.ticks[act as usize];
            *ticks += 1;
            if u32::from(*ticks) < act.ticks() {
                return RUNNING;
            }
            *ticks = 0;
            c.succeed(act);
            (Success, dt)
        }
        Leaf::Watch {
            higher,
            branch,
            restart,
        } => {
            if !higher.iter().any(|g| g.holds(c)) {
                return RUNNING;
            }
            for &act in branch {
                s.ticks[act as usize] = 0;
            }
            s.restart |= restart;
            (Failure, dt)
        }
    }
}

/// One agent's bonsai-bt tree (one tree copy per agent, as bonsai is used)
/// and what the emulation keeps beside it (in the tree's blackboard).
pub struct BonsaiAgent {
    bt: BT<Leaf, Scratch>,
}

impl Default for BonsaiAgent {
    fn default() -> BonsaiAgent {
        BonsaiAgent::new()
    }
}

impl BonsaiAgent {
    /// Builds the workload tree as a bonsai `BT`.
    pub fn new() -> BonsaiAgent {
        BonsaiAgent {
            bt: BT::new(behavior(), Scratch::default()),
        }
    }

    /// One tree tick (the caller runs the world step before). One tick of
    /// the world is an update event of `dt = 1`.
    pub fn tick(&mut self, critter: &mut Critter) {
        let event: Event = UpdateArgs { dt: 1.0 }.into();
        let mut callback = |args: ActionArgs<Event, Leaf>, s: &mut Scratch| {
            leaf(critter, *args.action, args.dt, s)
        };
        for pass in 0..2 {
            let (status, _) = self
                .bt
                .tick(&event, &mut callback)
                .expect("a finished tree is reset before its next tick");
            if status == Running {
                return;
            }
            self.bt.reset_bt();
            let restart = std::mem::take(&mut self.bt.blackboard_mut().restart);
            if !restart {
                return;
            }
            // A fresh tree reaches the branch whose guard fired before any
            // watch, so the second pass never restarts.
            debug_assert_eq!(pass, 0, "a fresh tree restarted");
        }
    }

    /// The action running after the last tick, if any: the one whose count
    /// is not zero. For comparing with `Machine::running` in tests.
    #[allow(dead_code, reason = "used by the tests, not by the bench")]
    pub fn running(&self) -> Option<Act> {
        let ticks = &self.bt.blackboard().ticks;
        let mut running = Act::ALL.into_iter().filter(|&a| ticks[a as usize] > 0);
        let act = running.next();
        debug_assert!(running.next().is_none(), "two actions running");
        act
    }
}

/// `ticks` tick-major ticks of every agent (world step, then tree tick), on
/// the calling thread.
///
/// # Panics
/// If `critters` and `agents` differ in length.
pub fn run(critters: &mut [Critter], agents: &mut [BonsaiAgent], ticks: usize) {
    assert_eq!(critters.len(), agents.len(), "one bonsai agent per critter");
    for _ in 0..ticks {
        for (c, a) in critters.iter_mut().zip(agents.iter_mut()) {
            c.world_step();
            a.tick(c);
        }
    }
}
