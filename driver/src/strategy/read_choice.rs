//! The reads-from choices along a depth-first search's path under
//! `--memory-model rc11`: at each node, the candidate the chosen thread's
//! step took (the store an atomic load reads, the place a store takes in
//! modification order) and how many it had. The exhaustive search and
//! DPOR try every choice of a node's step before another thread there.

use super::tree::Node;
use crate::trace::Trace;
use reach_channel::memory_model::prefix_entry;

/// The reads-from choice at one node of the path: the candidate its
/// event took and how many it had (1 for an event without choices).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReadChoice {
    /// The candidate taken (0: the latest store, or the place after it).
    pub choice: u16,
    /// How many candidates the step had (at least 1).
    pub candidates: u16,
}

impl ReadChoice {
    /// The choice of a step without alternatives, and of a thread newly
    /// chosen at a node before its run says how many it has.
    pub const NONE: ReadChoice = ReadChoice {
        choice: 0,
        candidates: 1,
    };

    /// The choice event `i` of `trace` took.
    pub fn of(trace: &Trace, i: usize) -> ReadChoice {
        trace.read(i).map_or(ReadChoice::NONE, |r| ReadChoice {
            choice: r.choice,
            candidates: r.candidates.max(1),
        })
    }

    /// Moves to the next candidate; false if this was the last one.
    pub fn advance(&mut self) -> bool {
        if self.choice + 1 < self.candidates {
            self.choice += 1;
            true
        } else {
            false
        }
    }
}

/// The schedule prefix leading to node `i` along `nodes` (each with its
/// choice in `reads`) and running `thread` there with choice `reads[i]`
/// (the first candidate if `reads` has no entry for node `i`).
pub fn prefix_with_choices(
    nodes: &[Node],
    reads: &[ReadChoice],
    i: usize,
    thread: u32,
) -> Vec<u32> {
    let choice_at = |j: usize| reads.get(j).map_or(0, |r| r.choice);
    nodes[..i]
        .iter()
        .enumerate()
        .map(|(j, n)| prefix_entry(n.chosen, choice_at(j)))
        .chain(std::iter::once(prefix_entry(thread, choice_at(i))))
        .collect()
}
