//! Exhaustive depth-first search over every schedule: the brute-force oracle
//! the reduced strategies are checked against. Every maximal interleaving of
//! visible operations is run exactly once; under `--memory-model rc11`,
//! once per reads-from choice of each of its atomic loads (every store each
//! load may read).

use super::read_choice::{prefix_with_choices, ReadChoice};
use super::tree::{Node, Path};
use super::{Divergence, Strategy};
use crate::exec::Request;
use crate::trace::Trace;
use reach_channel::{Policy, ThreadSet};

/// Depth-first enumeration of all interleavings (with a preemption bound:
/// of those with at most that many preemptions).
#[derive(Default)]
pub struct Exhaustive {
    path: Path,
    /// The reads-from choice at each node of `path`.
    reads: Vec<ReadChoice>,
    started: bool,
    /// Explore only schedules with at most this many preemptions.
    preemption_bound: Option<u32>,
    /// Some choice was left out because of the bound.
    pruned: bool,
    /// For a shard (`--shard`): the partition into a shared part and
    /// frontier subtrees.
    shard_plan: Option<crate::strategy::partition::PathPlan>,
}

impl Exhaustive {
    /// Every schedule with at most `bound` preemptions (a preemption: a
    /// switch away from a thread that is still enabled). The "continue"
    /// policy after the prefix never preempts, so each execution has as
    /// many preemptions as its prefix.
    pub fn bounded(bound: u32) -> Exhaustive {
        Exhaustive {
            preemption_bound: Some(bound),
            ..Exhaustive::default()
        }
    }
}

impl Exhaustive {
    /// This search split for [`crate::shard::Sharded`] into about `split`
    /// frontier subtrees per shard, `count` shards
    /// ([`crate::strategy::partition::PathPlan`]; one shard needs no partition).
    pub fn with_shard_plan(self, split: u32, count: u32) -> Exhaustive {
        Exhaustive {
            shard_plan: (count > 1)
                .then(|| crate::strategy::partition::PathPlan::new(split, count)),
            ..self
        }
    }
}

impl crate::strategy::partition::Shardable for Exhaustive {
    fn path_plan(&mut self) -> Option<&mut crate::strategy::partition::PathPlan> {
        self.shard_plan.as_mut()
    }
}

impl super::bounded::BoundedSearch for Exhaustive {
    fn pruned(&self) -> bool {
        self.pruned
    }
}

impl Exhaustive {
    /// The schedule prefix leading to node `i` along the path (with each
    /// node's reads-from choice) and running `thread` there with node
    /// `i`'s choice.
    fn prefix_to(&self, i: usize, thread: u32) -> Vec<u32> {
        prefix_with_choices(&self.path.nodes, &self.reads, i, thread)
    }
}

impl Strategy for Exhaustive {
    fn name(&self) -> &'static str {
        "exhaustive"
    }

    fn next_request(&mut self) -> Option<Request> {
        if !self.started {
            self.started = true;
            return Some(Request {
                prefix: Vec::new(),
                policy: Policy::ContinueThenLowest,
                seed: 0,
                sleep_set: ThreadSet::EMPTY,
                sleep_sets: false,
                change_points: Vec::new(),
                inputs: Vec::new(),
            });
        }
        while let Some(i) = self.path.nodes.len().checked_sub(1) {
            if self.reads[i].advance() {
                let thread = self.path.nodes[i].chosen;
                return Some(Request::continuing(self.prefix_to(i, thread)));
            }
            let node = &mut self.path.nodes[i];
            if let Some(next) = node.enabled.minus(&node.done).first() {
                node.done.insert(next);
                if let Some(bound) = self.preemption_bound {
                    if self.path.is_preemption(i, next) && self.path.preemptions_before(i) >= bound
                    {
                        self.pruned = true;
                        continue;
                    }
                }
                let node = &mut self.path.nodes[i];
                node.chosen = next;
                self.reads[i] = ReadChoice::NONE;
                return Some(Request::continuing(self.prefix_to(i, next)));
            }
            self.path.nodes.pop();
            self.reads.pop();
        }
        None
    }

    fn observe(&mut self, request: &Request, trace: &Trace) -> Result<(), Divergence> {
        let known = request.prefix.len().saturating_sub(1);
        self.path.check_prefix(trace, known)?;
        if let (Some(node), Some(event)) = (self.path.nodes.last_mut(), trace.events.get(known)) {
            if !request.prefix.is_empty() {
                node.op = event.op;
                if let Some(read) = self.reads.get_mut(known) {
                    read.candidates = trace.read(known).map_or(1, |r| r.candidates.max(1));
                }
            }
        }
        for (i, event) in trace.events.iter().enumerate().skip(self.path.nodes.len()) {
            self.reads.push(ReadChoice::of(trace, i));
            let mut done = ThreadSet::EMPTY;
            done.insert(event.thread);
            self.path.nodes.push(Node {
                enabled: event.enabled,
                chosen: event.thread,
                op: event.op,
                backtrack: event.enabled,
                done,
                sleep: ThreadSet::EMPTY,
                crashed: ThreadSet::EMPTY,
            });
        }
        if let Some(plan) = &mut self.shard_plan {
            let first_new = request.prefix.len();
            let new = self.path.nodes.get(first_new..).unwrap_or_default();
            let natural: Vec<ThreadSet> = new.iter().map(|n| n.enabled).collect();
            let extra = vec![0; natural.len()];
            plan.observed(first_new, &natural, &extra, &trace.schedule());
        }
        Ok(())
    }
}
