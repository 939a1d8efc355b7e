//! Optimal DPOR split over shards (`--shard i/N`, [`crate::shard`]).
//!
//! Shards do not talk to each other, so what one learns must never be
//! needed by another. Sequentially, a sequence found below one branch of a
//! node may be placed into the wakeup subtree of a later branch (Algorithm
//! 2, lines 5–8, and `insert_[E]`, Sec. 6.2), and a sequence may be dropped
//! because a sleeping thread's branch will place the rest; across shards
//! neither message arrives. So the nodes of the shared part are *forced*:
//!
//! * every enabled thread not asleep there is a branch (the search's own
//!   branches first, with the wakeup subtrees the shared executions gave
//!   them, the same in every shard; then the others, as leaves);
//! * nothing is ever placed at a forced node: each thread not asleep is a
//!   branch, and each branch covers every sequence it starts, because
//! * each branch is explored on its own: the threads of its sleep set are
//!   *foreign* below it ([`super::Node::foreign`]). They still keep their
//!   steps from running (so no trace is explored under two branches, and
//!   the shards' traces are disjoint), but a sequence is dropped for a
//!   foreign sleeper only if the sleeper starts it, not merely because it
//!   commutes with it; the search below the branch then finds by itself
//!   what a sibling would have placed there.
//!
//! Below the forced nodes, each frontier subtree is one branch's search,
//! exactly Algorithm 2 with the foreign sleepers above. A forced branch
//! that no race called for may end blocked by its sleep set: that is the
//! price of sharding, bounded by the plan's forcing budget. Tested against
//! the exhaustive oracle in 2, 3 and 4 shards on random simulated programs
//! (`driver/tests/optimal_model.rs`).

use super::wakeup::{Branch, Step};
use super::OptimalDpor;
use crate::exec::Request;
use crate::strategy::partition::{PathPlan, Shardable, Subtree};
use crate::trace::Trace;
use reach_channel::ThreadSet;

impl OptimalDpor {
    /// This search split for [`crate::shard::Sharded`] into about `split`
    /// frontier subtrees per shard, `count` shards ([`PathPlan`]; one
    /// shard needs no partition).
    pub fn with_shard_plan(self, split: u32, count: u32) -> OptimalDpor {
        OptimalDpor {
            shard_plan: (count > 1).then(|| PathPlan::new(split, count)),
            ..self
        }
    }

    /// After an execution (`trace`) whose nodes from `first_new` on are new
    /// (nothing to do, and no schedule built, without a plan): tells
    /// the plan what the search branches on there, and forces the nodes
    /// the plan keeps in the shared part.
    pub(super) fn plan_shared_part(&mut self, first_new: usize, trace: &Trace) {
        let Some(plan) = &mut self.shard_plan else {
            return;
        };
        let schedule = trace.schedule();
        let new = self.nodes.get(first_new..).unwrap_or_default();
        let natural: Vec<ThreadSet> = new
            .iter()
            .map(|n| {
                let mut branches = n.done;
                for child in &n.wut.children {
                    branches.insert(child.step.thread);
                }
                branches.minus(&n.sleep)
            })
            .collect();
        let extra: Vec<u32> = new
            .iter()
            .zip(&natural)
            .map(|(n, branches)| n.enabled.minus(&n.sleep).minus(branches).len() as u32)
            .collect();
        let forced = plan.observed(first_new, &natural, &extra, &schedule);
        for (node, branches) in self.nodes[first_new..forced].iter_mut().zip(natural) {
            node.forced = true;
            for q in node.enabled.minus(&node.sleep).minus(&branches).iter() {
                let Some(op) = node.next.get(q as usize).copied().flatten() else {
                    continue;
                };
                node.wut.children.push(Branch {
                    step: Step {
                        thread: q,
                        op: crate::trace::as_pending(op),
                        choice: 0,
                    },
                    children: Vec::new(),
                    origin: 0,
                });
            }
        }
    }
}

impl Shardable for OptimalDpor {
    fn path_plan(&mut self) -> Option<&mut PathPlan> {
        self.shard_plan.as_mut()
    }

    /// The request's subtree is named by its prefix up to the node it
    /// branches at (its wakeup subtree's further steps are one request).
    fn subtree_of(&mut self, request: &Request) -> Option<Subtree> {
        let plan = self.shard_plan.as_mut()?;
        let branch = self.in_flight.as_ref().map_or(0, |f| f.branch);
        if self.in_flight.is_none() {
            return plan.subtree_of(&[]);
        }
        plan.subtree_of(request.prefix.get(..=branch)?)
    }

    fn skip(&mut self, _request: &Request) {
        // The branch stays recorded as started at its node (later branches
        // carry it in their sleep sets, as in the shard that explores it).
        self.in_flight = None;
    }
}
