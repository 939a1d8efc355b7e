//! Builds a program's candidate executions in po ∪ rf order: threads take
//! steps in every order; a read chooses any write already made to its
//! location, a write any place in its location's modification order.
//!
//! Every candidate whose `po ∪ rf` is acyclic is built this way, since its
//! events can be added in an order where each read comes after the write it
//! reads; the others break no-thin-air, so no RC11-consistent execution is
//! missed (`enumerate_candidates` builds those too, for programs of fixed
//! shape, and the tests compare the two). Values flow from the writes read,
//! so compare-and-swaps and guarded operations need no special case.
//!
//! With [`Policy::Interleaving`] a read reads the latest write and a write
//! goes last in modification order: the executions of the interleavings.
//! Equal partial states reached in different orders are explored once.

use crate::litmus::ProgramError;
use crate::ops::{Code, Compiled, Kind, Observations};
use crate::trace::{Source, Step, Trace};
use std::collections::{BTreeMap, HashSet};

/// Which choices reads and writes may make.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Policy {
    /// Any write already made; any place in modification order.
    AnyChoice,
    /// The latest write; the end of modification order.
    Interleaving,
}

/// A finished candidate and what its run observed.
pub(crate) struct Finished {
    pub trace: Trace,
    pub seen: Observations,
}

/// Every distinct finished candidate of `code`, ordered by trace.
pub(crate) fn explore(code: &Code, policy: Policy) -> Result<Vec<Finished>, ProgramError> {
    let mut explorer = Explorer {
        code,
        policy,
        visited: HashSet::new(),
        finished: BTreeMap::new(),
        deadlock: false,
    };
    let start = State {
        pcs: vec![0; code.threads.len()],
        started: code.spawned.iter().map(|s| !s).collect(),
        trace: Trace::new(code.threads.len(), code.locations.len()),
        seen: Observations::default(),
    };
    explorer.visit(start);
    if explorer.deadlock {
        return Err(ProgramError::Deadlock);
    }
    Ok(explorer
        .finished
        .into_iter()
        .map(|(trace, seen)| Finished { trace, seen })
        .collect())
}

#[derive(Clone, PartialEq, Eq, Hash)]
struct State {
    pcs: Vec<usize>,
    started: Vec<bool>,
    trace: Trace,
    seen: Observations,
}

struct Explorer<'c> {
    code: &'c Code,
    policy: Policy,
    visited: HashSet<State>,
    finished: BTreeMap<Trace, Observations>,
    deadlock: bool,
}

impl Explorer<'_> {
    fn visit(&mut self, state: State) {
        if !self.visited.insert(state.clone()) {
            return;
        }
        let enabled: Vec<usize> = (0..self.code.threads.len())
            .filter(|&t| self.enabled(&state, t))
            .collect();
        if enabled.is_empty() {
            let done =
                (0..self.code.threads.len()).all(|t| state.pcs[t] == self.code.threads[t].len());
            if done {
                self.finished.entry(state.trace).or_insert(state.seen);
            } else {
                self.deadlock = true;
            }
            return;
        }
        for t in enabled {
            for next in self.successors(&state, t) {
                self.visit(next);
            }
        }
    }

    fn finished(&self, state: &State, t: usize) -> bool {
        state.started[t] && state.pcs[t] == self.code.threads[t].len()
    }

    fn enabled(&self, state: &State, t: usize) -> bool {
        let Some(op) = self.code.threads[t].get(state.pcs[t]) else {
            return false;
        };
        state.started[t]
            && match op.kind {
                Kind::Join(c) => self.finished(state, c),
                _ => true,
            }
    }

    /// The writes a read of `loc` may read from.
    fn sources(&self, state: &State, loc: usize) -> Vec<Source> {
        let all = std::iter::once(Source::Init(loc)).chain(state.trace.mo[loc].iter().copied());
        match self.policy {
            Policy::AnyChoice => all.collect(),
            Policy::Interleaving => all.last().into_iter().collect(),
        }
    }

    /// The places in `loc`'s modification order a new write may take.
    fn places(&self, state: &State, loc: usize) -> Vec<usize> {
        let len = state.trace.mo[loc].len();
        match self.policy {
            Policy::AnyChoice => (0..=len).collect(),
            Policy::Interleaving => vec![len],
        }
    }

    /// The states after thread `t` runs its next operation.
    fn successors(&self, state: &State, t: usize) -> Vec<State> {
        let i = state.pcs[t];
        let op: &Compiled = &self.code.threads[t][i];
        let mut base = state.clone();
        base.pcs[t] += 1;
        if !state.seen.guard_holds(op) {
            return vec![base];
        }
        let name = |loc: usize| self.code.locations[loc].0.as_str();
        let mut out = Vec::new();
        match op.kind {
            Kind::Load { loc, mode } => {
                for from in self.sources(state, loc) {
                    let value = state.trace.written(&self.code.locations, from);
                    let mut next = base.clone();
                    next.trace.steps[t].push(Step::Read {
                        loc,
                        value,
                        mode,
                        from,
                    });
                    next.seen.record(t, i, op, name(loc), value);
                    out.push(next);
                }
            }
            Kind::Store { loc, value, mode } => {
                for place in self.places(state, loc) {
                    let mut next = base.clone();
                    push_write(&mut next.trace, t, loc, value, mode, false, place);
                    out.push(next);
                }
            }
            Kind::Update { loc, update, modes } => {
                for from in self.sources(state, loc) {
                    let old = state.trace.written(&self.code.locations, from);
                    for place in self.places(state, loc) {
                        let mut next = base.clone();
                        next.trace.steps[t].push(Step::Read {
                            loc,
                            value: old,
                            mode: modes.0,
                            from,
                        });
                        let new = update.apply(old);
                        push_write(&mut next.trace, t, loc, new, modes.1, true, place);
                        next.seen.record(t, i, op, name(loc), old);
                        out.push(next);
                    }
                }
            }
            Kind::Cas {
                loc,
                expected,
                desired,
                modes,
                failure,
            } => {
                for from in self.sources(state, loc) {
                    let old = state.trace.written(&self.code.locations, from);
                    let read = |mode| Step::Read {
                        loc,
                        value: old,
                        mode,
                        from,
                    };
                    if old != expected {
                        let mut next = base.clone();
                        next.trace.steps[t].push(read(failure));
                        next.seen.record(t, i, op, name(loc), old);
                        out.push(next);
                        continue;
                    }
                    for place in self.places(state, loc) {
                        let mut next = base.clone();
                        next.trace.steps[t].push(read(modes.0));
                        push_write(&mut next.trace, t, loc, desired, modes.1, true, place);
                        next.seen.record(t, i, op, name(loc), old);
                        out.push(next);
                    }
                }
            }
            Kind::Fence(mode) => {
                base.trace.steps[t].push(Step::Fence(mode));
                out.push(base);
            }
            Kind::Spawn(c) => {
                base.trace.steps[t].push(Step::Spawn(c));
                base.trace.steps[c].push(Step::Start);
                base.started[c] = true;
                out.push(base);
            }
            Kind::Join(c) => {
                base.trace.steps[c].push(Step::End);
                base.trace.steps[t].push(Step::Join(c));
                out.push(base);
            }
        }
        out
    }
}

/// Appends a write to thread `t` and puts it at `place` in `loc`'s
/// modification order.
fn push_write(
    trace: &mut Trace,
    t: usize,
    loc: usize,
    value: crate::graph::Value,
    mode: crate::graph::Mode,
    update: bool,
    place: usize,
) {
    trace.steps[t].push(Step::Write {
        loc,
        value,
        mode,
        update,
    });
    let at = Source::At(t, trace.steps[t].len() - 1);
    trace.mo[loc].insert(place, at);
}
