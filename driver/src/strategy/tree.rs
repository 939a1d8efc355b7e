//! The current path of the exploration tree, shared by the depth-first
//! strategies: one node per scheduling point of the current execution.

use super::Divergence;
use crate::trace::Trace;
use reach_channel::{Op, ThreadSet};

/// One scheduling point on the current path.
#[derive(Clone, Debug)]
pub struct Node {
    /// Threads enabled at this state.
    pub enabled: ThreadSet,
    /// Thread chosen here on the current path.
    pub chosen: u32,
    /// Operation the chosen thread executed (to detect divergence).
    pub op: Op,
    /// Threads whose transition from here must still be explored (DPOR) or
    /// may be explored (exhaustive: all enabled).
    pub backtrack: ThreadSet,
    /// Threads already explored from here.
    pub done: ThreadSet,
    /// Sleep set at this state (paper Sec. IV-D).
    pub sleep: ThreadSet,
    /// Threads whose transition from here crashed the process: such a
    /// transition conflicts with everything, so it never sleeps.
    pub crashed: ThreadSet,
}

/// The path from the initial state to the current execution's end.
#[derive(Default, Debug)]
pub struct Path {
    /// Nodes, one per event of the current execution.
    pub nodes: Vec<Node>,
}

impl Path {
    /// Checks that `trace` replayed the path's first `upto` nodes exactly.
    pub fn check_prefix(&self, trace: &Trace, upto: usize) -> Result<(), Divergence> {
        for (step, node) in self.nodes.iter().enumerate().take(upto) {
            let Some(event) = trace.events.get(step) else {
                return Err(Divergence {
                    step,
                    expected: describe(node.chosen, &node.op),
                    got: "the end of the execution".into(),
                    predicted: false,
                });
            };
            let same = event.thread == node.chosen
                && event.op.kind == node.op.kind
                && event.op.object == node.op.object
                && event.op.aux == node.op.aux;
            if !same {
                return Err(Divergence {
                    step,
                    expected: describe(node.chosen, &node.op),
                    got: describe(event.thread, &event.op),
                    predicted: false,
                });
            }
        }
        Ok(())
    }

    /// True if choosing `thread` at node `i` is a preemption: the thread
    /// that ran the step before is still enabled there and is not chosen
    /// (Musuvathi & Qadeer, PLDI 2007, Sec. 2).
    pub fn is_preemption(&self, i: usize, thread: u32) -> bool {
        let Some(before) = i.checked_sub(1).map(|j| self.nodes[j].chosen) else {
            return false;
        };
        before != thread && self.nodes[i].enabled.contains(before)
    }

    /// Preemptions of the path's choices at nodes `0..i`.
    pub fn preemptions_before(&self, i: usize) -> u32 {
        (1..i.min(self.nodes.len()))
            .filter(|&j| self.is_preemption(j, self.nodes[j].chosen))
            .count() as u32
    }

    /// The schedule prefix leading to node `i` and choosing `thread` there.
    pub fn prefix_to(&self, i: usize, thread: u32) -> Vec<u32> {
        self.nodes[..i]
            .iter()
            .map(|n| n.chosen)
            .chain(std::iter::once(thread))
            .collect()
    }
}

/// `T<thread> <OP> <object>` for divergence messages.
pub fn describe(thread: u32, op: &Op) -> String {
    format!("T{thread} {} {:#x}", op.kind.name(), op.object)
}
