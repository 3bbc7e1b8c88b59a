//! Random specs from a seed or a fuzzer's bytes ([`Spec::random`],
//! [`Spec::from_bytes`]), for bulk runs.

use super::*;

/// A small deterministic random number generator (SplitMix64), so bulk
/// runs are reproducible from a seed without another dependency; or, made
/// with [`Rng::from_bytes`], a reader of a fuzzer's bytes, so that the
/// random trees become structured fuzz inputs.
#[derive(Clone, Debug)]
pub struct Rng {
    state: u64,
    tape: Vec<u8>,
    at: usize,
}

impl Rng {
    /// A generator seeded with `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng {
            state: seed,
            tape: Vec::new(),
            at: 0,
        }
    }

    /// A generator that draws from `bytes` first: `below` takes one byte
    /// (two for more than 256 choices), so each byte is one decision a
    /// fuzzer can mutate; past the end it goes on as [`Rng::new`]`(0)`.
    pub fn from_bytes(bytes: &[u8]) -> Rng {
        Rng {
            state: 0,
            tape: bytes.to_vec(),
            at: 0,
        }
    }

    fn tape_byte(&mut self) -> Option<u8> {
        let b = self.tape.get(self.at).copied()?;
        self.at += 1;
        Some(b)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        if self.at < self.tape.len() {
            return (0..8).fold(0, |x, _| x << 8 | u64::from(self.tape_byte().unwrap_or(0)));
        }
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        mix(self.state)
    }

    /// A number in `0..n` (`n` > 0).
    pub fn below(&mut self, n: usize) -> usize {
        if self.at < self.tape.len() {
            let mut x = usize::from(self.tape_byte().unwrap_or(0));
            if n > 256 {
                x = x << 8 | usize::from(self.tape_byte().unwrap_or(0));
            }
            return x % n;
        }
        (self.next_u64() % n as u64) as usize
    }

    /// A number in `lo..=hi`.
    pub fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi - lo + 1)
    }
}

fn random_count(rng: &mut Rng, children: usize) -> Count {
    if rng.below(3) == 0 {
        Count::All
    } else {
        let k = rng.range(1, children);
        Count::AtLeast(u16::try_from(k).expect("test trees have few children"))
    }
}

pub(super) fn random_spec(rng: &mut Rng, depth: usize, max_children: usize) -> Spec {
    // Leaves get likelier as the depth budget runs out; the root of a
    // deep budget is always a decider.
    let leaf = depth == 1 || rng.below(depth + 1) == 0;
    if leaf {
        // As the strategy weighs them.
        return match rng.below(24) {
            0..4 => Spec::Cond,
            4..8 => Spec::Act,
            8..10 => Spec::Persistent,
            10..16 => Spec::Deferred,
            16..22 => random_memory_leaf(rng),
            _ => Spec::Wait(random_duration(rng)),
        };
    }
    // The kind first: decorators, gates, wrappers and the configured
    // one-child kinds take exactly one child. The three decorators together
    // weigh half as much as one of the other deciders, so that they do not
    // thin the trees out, and so do the four one-child memory kinds; the
    // five configured one-child kinds together weigh as much as one, and
    // concurrent deciders weigh double.
    let kind = rng.below(21);
    if kind == 20 {
        let which = rng.below(4);
        let n = if which >= 2 {
            rng.range(1, max_children)
        } else {
            rng.range(2, 3)
        };
        let children = (0..n)
            .map(|_| random_spec(rng, depth - 1, max_children))
            .collect();
        return match which {
            0 => Spec::IfThenElse(children),
            1 => Spec::WhileDoElse(children),
            2 => Spec::WithMemory(children),
            _ => Spec::ParallelAll(rng.range(0, n) as u8, children),
        };
    }
    if kind >= 18 {
        return random_crowd(rng, depth, max_children);
    }
    if kind >= 16 && depth >= 3 {
        return random_group(rng, depth - 2, max_children);
    }
    if kind == 6 {
        let child = Box::new(random_spec(rng, depth - 1, max_children));
        return match rng.below(3) {
            0 => Spec::Inverter(child),
            1 => Spec::ForceSuccess(child),
            _ => Spec::ForceFailure(child),
        };
    }
    if kind == 12 {
        let which = rng.below(4);
        let (script, test, condition) = (
            rng.below(SCRIPTS.len()) as u8,
            rng.below(TESTS.len()) as u8,
            rng.below(CONDITIONS.len()) as u8,
        );
        let time = random_time(rng);
        let exit = rng.below(SCRIPTS.len()) as u8;
        let child = Box::new(random_spec(rng, depth - 1, max_children));
        return match which {
            0 => Spec::ScriptGate(test, child),
            1 => Spec::IfCondition(condition, child),
            2 => Spec::IfTime(time, child),
            _ => Spec::ScriptWrapper {
                enter: script,
                exit,
                child,
            },
        };
    }
    if kind == 15 {
        return match rng.below(3) {
            0 => Spec::StoredState(Box::new(random_spec(rng, depth - 1, max_children))),
            1 => Spec::Repeat(Box::new(random_spec(rng, depth - 1, max_children))),
            _ => Spec::Monitor(Box::new(random_query(rng, depth.min(3) - 1))),
        };
    }
    if kind >= 13 {
        let which = rng.below(5);
        let count = rng.range(0, usize::from(MAX_LOOPS)) as u8;
        // Loops that tick again: `Spec::loops_again` (the same draws).
        let again = false;
        let duration = random_duration(rng);
        let child = Box::new(random_spec(rng, depth - 1, max_children));
        return match which {
            0 => Spec::Loop(count, again, child),
            1 => Spec::LoopUntilSuccess(count, again, child),
            2 => Spec::Timeout(duration, child),
            3 => Spec::Cooldown(duration, child),
            _ => Spec::Scope(child),
        };
    }
    let n = rng.range(1, max_children);
    let children: Vec<Spec> = (0..n)
        .map(|_| random_spec(rng, depth - 1, max_children))
        .collect();
    match kind {
        0 | 1 => Spec::Sequence(children),
        2 | 3 => Spec::Priority(children),
        4 | 5 => Spec::Selector(children),
        7 | 16 | 17 => Spec::Reactive(children),
        _ => Spec::Concurrent {
            succeed: random_count(rng, n),
            fail: random_count(rng, n),
            children,
        },
    }
}

/// A random crowd node (a `Gate` or a `GlobalCooldown` of either mode, or
/// a `Team`) over random subtrees, or a `ChildTree` connector offering one
/// to three.
fn random_crowd(rng: &mut Rng, depth: usize, max_children: usize) -> Spec {
    let max = rng.range(1, usize::from(MAX_GATE)) as u8;
    let seconds = random_duration(rng);
    // A team and its branches' sequences take two levels over theirs.
    let which = rng.below(if depth >= 3 { 5 } else { 4 });
    if which == 3 {
        let n = rng.range(1, 3);
        return Spec::ChildTree(
            (0..n)
                .map(|_| random_spec(rng, depth - 1, max_children))
                .collect(),
        );
    }
    if which == 4 {
        let size = rng.range(2, 3) as u8;
        let per_role = rng.below(2) == 0;
        let branches = (0..3)
            .map(|_| {
                let before = random_spec(rng, depth - 2, max_children);
                let after = random_spec(rng, depth - 2, max_children);
                (before, after, rng.below(4) as u8)
            })
            .collect();
        return team_spec(size, per_role, branches);
    }
    let child = Box::new(random_spec(rng, depth - 1, max_children));
    match which {
        0 => Spec::Gate(max, child),
        1 => Spec::Gate(max | GATE_WAITS, child),
        _ => Spec::GlobalCooldown {
            seconds,
            on_enter: rng.below(2) == 0,
            child,
        },
    }
}

/// A random monitor query, as [`query_strategy`] makes them, and now and
/// then a `PostStimulus` among them (posting while the monitors are tested
/// before the tree).
fn random_query(rng: &mut Rng, depth: usize) -> Spec {
    if depth <= 1 || rng.below(2) == 0 {
        return match rng.below(7) {
            0..3 => Spec::Cond,
            3 => Spec::Script(rng.below(SCRIPTS.len()) as u8),
            4 => Spec::AssertScript(rng.below(TESTS.len()) as u8),
            5 => Spec::AssertCondition(rng.below(CONDITIONS.len()) as u8),
            _ => random_post(rng),
        };
    }
    let n = rng.range(1, 3);
    let children: Vec<Spec> = (0..n).map(|_| random_query(rng, depth - 1)).collect();
    match rng.below(5) {
        0 => Spec::Sequence(children),
        1 => Spec::Reactive(children),
        2 => Spec::Priority(children),
        3 => Spec::Selector(children),
        _ => Spec::Inverter(Box::new(random_query(rng, depth - 1))),
    }
}

fn random_duration(rng: &mut Rng) -> u8 {
    rng.below(DURATIONS.len()) as u8
}

pub(crate) fn random_time(rng: &mut Rng) -> TimeSpec {
    TimeSpec {
        since: rng.below(TIMESTAMPS.len()) as u8,
        halves: rng.below(7) as u8,
        less_than: rng.below(2) == 0,
        or_never: rng.below(2) == 0,
    }
}

fn random_post(rng: &mut Rng) -> Spec {
    Spec::PostStimulus {
        stimulus: rng.below(STIMULI.len()) as u8,
        data: DATA[rng.below(DATA.len())],
    }
}

/// A random childless node of the agent's memory (a script, an assertion,
/// a time test, a wait for an event, an event sent, a stimulus posted) or a
/// constant status.
pub(crate) fn random_memory_leaf(rng: &mut Rng) -> Spec {
    let events = crate::script::EVENTS.len();
    match rng.below(8) {
        7 => Spec::Always(rng.below(2) == 0),
        0 => Spec::Script(rng.below(SCRIPTS.len()) as u8),
        1 => Spec::AssertScript(rng.below(TESTS.len()) as u8),
        2 => Spec::AssertCondition(rng.below(CONDITIONS.len()) as u8),
        3 => Spec::WaitUntilTime(random_time(rng)),
        4 => Spec::WaitForEvent(rng.below(events) as u8),
        5 => random_post(rng),
        _ => Spec::SendEvent {
            event: rng.below(events) as u8,
            to: SEND_TO[rng.below(SEND_TO.len())],
        },
    }
}

/// A random spec `Group` whose deciders' children are at most `depth`
/// deep: sometimes groups themselves.
fn random_group(rng: &mut Rng, depth: usize, max_children: usize) -> Spec {
    let policy = rng.below(POLICIES.len()) as u8;
    // Small limits, which a broken subset rule passes (a decider whose
    // group finds nothing counts), now and then.
    let limit = if rng.below(3) == 0 { 0 } else { 8 };
    let behavior = rng.below(3) == 0;
    let n = rng.range(1, max_children.min(3));
    let deciders = (0..n)
        .map(|_| {
            let child = if depth >= 3 && rng.below(4) == 0 {
                random_group(rng, depth - 2, max_children)
            } else {
                random_spec(rng, depth, max_children)
            };
            let decide = rng.below(2) == 0;
            let every = if rng.below(5) == 0 {
                rng.range(1, DURATIONS.len() - 1) as u8
            } else {
                0
            };
            let flags = if rng.below(5) < 2 {
                rng.range(1, PRECONDITIONS.len() - 1) as u8
            } else {
                0
            };
            let (redecide, delegate) = (rng.below(2) == 0, rng.below(2) == 0);
            decider_spec(child, decide, every, flags, redecide, delegate)
        })
        .collect();
    group_spec(policy, limit, behavior, deciders)
}
