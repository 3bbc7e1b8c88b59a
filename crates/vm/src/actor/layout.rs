//! The size and the parts of an actor block: [`ActorLayout`].

use treebeard_shape::{CapacitySpec, MAX_STIMULI, Shape};

/// The size of an actor block for a capacity specification.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ActorLayout {
    pub(super) deciders: u32,
    pub(super) actions: u32,
    pub(super) persistent: u32,
    pub(super) variables: u32,
    pub(super) timestamps: u32,
    pub(super) stimuli: u32,
}

impl ActorLayout {
    /// The layout that holds any state of shapes with this specification.
    ///
    /// # Panics
    /// If the specification allows more than 65535 decider or action states
    /// (the header's counts are 16-bit), which no tree of a sane size gets
    /// close to, or more than 32 stimuli, which no valid shape has.
    pub fn for_spec(spec: &CapacitySpec) -> ActorLayout {
        assert!(
            spec.decider_states <= u16::MAX as u32 && spec.action_states <= u16::MAX as u32,
            "a shape whose agents may hold over 65535 states cannot be given actors"
        );
        assert!(
            spec.stimuli as usize <= MAX_STIMULI,
            "an agent holds at most {MAX_STIMULI} stimuli (its stimulus flags are a u32)"
        );
        ActorLayout {
            deciders: spec.decider_states,
            actions: spec.action_states,
            persistent: spec.persistent_states,
            variables: spec.script_words(),
            timestamps: spec.timestamps,
            stimuli: spec.stimuli,
        }
    }

    /// The layout for one shape.
    pub fn for_shape(shape: &Shape) -> ActorLayout {
        ActorLayout::for_spec(shape.spec())
    }

    /// The layout's region sizes, in the order the actor holds them:
    /// decider states, action states, persistent slots, variable words,
    /// timestamps and stimuli. Generated code states its layout with
    /// them ([`ActorLayout::from_counts`]).
    pub const fn counts(&self) -> [u32; 6] {
        [
            self.deciders,
            self.actions,
            self.persistent,
            self.variables,
            self.timestamps,
            self.stimuli,
        ]
    }

    /// The layout of [`ActorLayout::counts`] `counts`: a constant in
    /// generated code, compared with the actors' layout before it runs.
    pub const fn from_counts(counts: [u32; 6]) -> ActorLayout {
        let [
            deciders,
            actions,
            persistent,
            variables,
            timestamps,
            stimuli,
        ] = counts;
        ActorLayout {
            deciders,
            actions,
            persistent,
            variables,
            timestamps,
            stimuli,
        }
    }

    /// Words per actor.
    #[inline]
    pub const fn words(&self) -> usize {
        self.stimuli_at() + 2 * self.stimuli as usize
    }

    /// Bytes per actor: the behaviour state each agent costs.
    #[inline]
    pub const fn bytes(&self) -> usize {
        self.words() * 4
    }

    /// Decider and action state capacity.
    #[inline]
    pub(crate) const fn entry_capacity(&self) -> (usize, usize) {
        (self.deciders as usize, self.actions as usize)
    }

    /// Whether actors of this layout can hold any state of `spec`.
    #[inline]
    pub fn covers(&self, spec: &CapacitySpec) -> bool {
        self.deciders >= spec.decider_states
            && self.actions >= spec.action_states
            && self.persistent >= spec.persistent_states
            && self.variables >= spec.script_words()
            && self.timestamps >= spec.timestamps
            && self.stimuli >= spec.stimuli
    }

    #[inline]
    pub(crate) const fn actions_at(&self) -> usize {
        1 + 2 * self.deciders as usize
    }

    #[inline]
    pub(crate) const fn persistent_at(&self) -> usize {
        self.actions_at() + 2 * self.actions as usize
    }

    /// Where the agent's memory (variables, then timestamps, then stimuli)
    /// starts: the words before it are the states a tick replaces.
    #[inline]
    pub(crate) const fn memory_at(&self) -> usize {
        1 + 2 * self.deciders as usize + 2 * self.actions as usize + self.persistent as usize
    }

    /// Words of the memory scripts see: the variables' bits, then the
    /// entries (where the timestamps start in the agent's memory).
    #[inline]
    pub(crate) const fn variable_words(&self) -> usize {
        self.variables as usize
    }

    /// Where the stimuli start in the agent's memory (after the variables
    /// and timestamps).
    #[inline]
    pub(crate) const fn stimuli_in_memory(&self) -> usize {
        self.variables as usize + self.timestamps as usize
    }

    /// Where the stimuli start in the block.
    #[inline]
    pub(super) const fn stimuli_at(&self) -> usize {
        self.memory_at() + self.stimuli_in_memory()
    }

    /// The stimuli an actor of this layout holds.
    #[inline]
    pub const fn stimuli(&self) -> usize {
        self.stimuli as usize
    }
}
