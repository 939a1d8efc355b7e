//! The partition of a path-based search (dpor, optimal, exhaustive) into a
//! shared part and frontier subtrees ([`PathPlan`]).

use super::{prefix_name, Probe, Subtree};
use reach_channel::ThreadSet;

/// Forced choices (dpor) a shared part may add per frontier subtree it
/// aims for: each costs at least one execution that an unsharded search
/// would not run.
const FORCING_PER_SUBTREE: u64 = 16;

/// Probes ([`super::Assignment::Probed`]) a shared part may run per frontier
/// subtree it aims for: each is an execution every shard runs. Past them,
/// subtrees are given by the estimate they were named with.
const PROBES_PER_SUBTREE: u32 = 4;

/// Where a node of a path-based search (dpor, exhaustive) stands in the
/// partition.
#[derive(Clone, Copy, Debug)]
enum Label {
    /// A node of the shared part: every enabled thread is a choice, and
    /// each choice other than the shared path's roots a candidate subtree.
    Shared {
        /// log2 of the estimated size of a choice's subtree here.
        below: f64,
        /// The choices the search itself found needed here (DPOR: from the
        /// races of the execution that reached the node); only these may
        /// be shared executions.
        natural: ThreadSet,
        /// Extras (choices only forcing added) named here so far.
        extras: u32,
        /// log2 share of the first extra's subtree, as its probe estimated
        /// it.
        first_extra: Option<f64>,
    },
    /// A node inside the frontier subtree of this name, estimated at this
    /// share (log2) of the search.
    In(u64, f64),
}

/// The partition of a depth-first search over schedules (dpor,
/// exhaustive) into a shared part and frontier subtrees, built as the
/// search goes, the same way in every shard.
///
/// Each execution of the shared part estimates, as Knuth's estimator does
/// along one path, the size of what hangs below each of its nodes: the
/// product of the nodes' widths below it (DPOR: the backtrack choices the
/// execution's races call for; exhaustive: the enabled threads). The first
/// execution's product estimates the whole search. From the node where a
/// shared execution branched off, its nodes are *forced* (every enabled
/// thread a choice) down to the deepest node that splits (two choices or
/// more) what is still estimated at more than `1/(K·N)` of the whole
/// search, as far as the forcing budget pays (`forced_end`);
/// the rest of its path is one frontier subtree. A choice of the search's
/// own at a forced node whose estimate is still above that share is run as
/// a shared execution in turn (split again); any other roots a frontier
/// subtree.
///
/// A choice only forcing added at a node (an *extra*) runs that part of the
/// program again with the search's own choices asleep, and mostly ends
/// sleep-blocked; what it costs is nothing like the search's own subtree
/// there. The extras of one node cost less and less in the order they are
/// explored, each with one more sibling asleep: about half the one before
/// on the examples (BENCHMARKS.md, section Shards). So, when probing, the
/// first extra of each forced node is probed (never split: forcing below it
/// would add choices no search calls for), and the `k`-th is estimated at
/// `2^-k` of it (of the search's own subtree below the node, unprobed).
/// Sizes are estimates: the partition is exact whatever they are, only the
/// balance depends on them.
#[derive(Clone, Debug)]
pub struct PathPlan {
    /// log2 of K·N: a frontier subtree is estimated at most `2^-target` of
    /// the search.
    target: f64,
    /// log2 of the estimated size of the whole search (after the first
    /// execution).
    root: Option<f64>,
    /// One label per node of the current path.
    labels: Vec<Label>,
    /// The frontier subtree of the request in flight (`None`: shared).
    pending: Option<u64>,
    /// Shared executions that may still be added by splitting.
    budget: u32,
    /// Forced choices the search would not have made itself (each costs
    /// at least one execution) that may still be added.
    forcing: u64,
    /// Every shard runs the first execution of a frontier subtree
    /// ([`super::Assignment::Probed`]).
    probing: bool,
    /// Probes that may still be run.
    probes: u32,
    /// The request in flight is the first of its frontier subtree.
    first_of_subtree: bool,
    /// The node whose first extra (a choice only forcing added) the request
    /// in flight probes.
    probing_extra_at: Option<usize>,
    /// What the last execution observed said of its frontier subtree, if
    /// it was the first.
    probe: Option<Probe>,
}

impl PathPlan {
    /// A plan aiming at `split` frontier subtrees per shard, `count` shards.
    pub fn new(split: u32, count: u32) -> PathPlan {
        let parts = f64::from(split.max(1)) * f64::from(count.max(1));
        PathPlan {
            target: parts.log2(),
            root: None,
            labels: Vec::new(),
            pending: None,
            budget: split.max(1).saturating_mul(count.max(1)).saturating_mul(2),
            forcing: u64::from(split.max(1)) * u64::from(count.max(1)) * FORCING_PER_SUBTREE,
            probing: false,
            probes: split
                .max(1)
                .saturating_mul(count.max(1))
                .saturating_mul(PROBES_PER_SUBTREE),
            first_of_subtree: false,
            probing_extra_at: None,
            probe: None,
        }
    }

    /// The subtree of a request branching at the last element of `prefix`
    /// (see [`super::Shardable::subtree_of`]); `None` if the request is shared.
    pub fn subtree_of(&mut self, prefix: &[u32]) -> Option<Subtree> {
        self.pending = None;
        self.first_of_subtree = false;
        self.probing_extra_at = None;
        let (i, &thread) = prefix.len().checked_sub(1).zip(prefix.last())?;
        let label = self.labels.get_mut(i)?;
        // Which choice forcing added here this is (0: the first), if it is one.
        let extra = match label {
            Label::Shared {
                natural, extras, ..
            } if !natural.contains(thread) => {
                *extras += 1;
                Some(*extras - 1)
            }
            _ => None,
        };
        match *label {
            Label::In(name, share) => {
                self.pending = Some(name);
                Some(Subtree {
                    name,
                    estimate: share.exp2(),
                    probe: false,
                })
            }
            Label::Shared {
                below,
                natural,
                first_extra,
                ..
            } => {
                let chosen = natural.contains(thread);
                let size = if chosen { below } else { 0.0 };
                let share = size - self.root.unwrap_or(0.0);
                if share > -self.target && self.budget > 0 {
                    self.budget -= 1;
                    return None;
                }
                let name = prefix_name(prefix);
                self.pending = Some(name);
                let probe_extra = extra == Some(0);
                self.first_of_subtree = (chosen || probe_extra) && self.probing && self.probes > 0;
                self.probes -= u32::from(self.first_of_subtree);
                if probe_extra && self.first_of_subtree {
                    self.probing_extra_at = Some(i);
                }
                let root = self.root.unwrap_or(0.0);
                let share = match extra {
                    None => below - root,
                    Some(k) => first_extra.unwrap_or(below - root) - f64::from(k),
                };
                Some(Subtree {
                    name,
                    estimate: share.exp2(),
                    probe: self.first_of_subtree,
                })
            }
        }
    }

    /// Every shard runs the first execution of each frontier subtree of a
    /// choice the search made itself, and of each forced node's first
    /// extra, as far as the probe budget lasts
    /// ([`super::Shardable::set_probing`]).
    pub fn set_probing(&mut self) {
        self.probing = true;
    }

    /// What the last execution observed, the first of its frontier
    /// subtree, says of it ([`super::Shardable::probe`]): shared if Knuth's
    /// estimator along it still gives more than `1/(K·N)` of the search
    /// (and the shared part may grow), else that estimate.
    pub fn probe(&self) -> Option<Probe> {
        self.probe
    }

    /// The search learnt the execution of the request in flight: nodes
    /// from `first_new` on are new; node `first_new + k` has the choices
    /// `natural[k]` and `extra[k]` more enabled threads that forcing it
    /// would add; `schedule` is the execution's schedule. Returns the end
    /// of the forced nodes (from `first_new`), whose choices must be every
    /// enabled thread.
    pub fn observed(
        &mut self,
        first_new: usize,
        natural: &[ThreadSet],
        extra: &[u32],
        schedule: &[u32],
    ) -> usize {
        let widths: Vec<f64> = natural.iter().map(|b| b.len() as f64).collect();
        self.labels.truncate(first_new);
        self.probe = None;
        let mut rest: f64 = widths.iter().map(|w| w.max(1.0).log2()).sum();
        let root = *self.root.get_or_insert(rest);
        let end = match self.pending {
            None => self.forced_end(rest - root, &widths, extra),
            Some(name) => {
                let probed = std::mem::take(&mut self.first_of_subtree);
                // A choice only forcing added is never split: forcing below
                // it would add choices no search of its own calls for.
                let end = if probed && self.budget > 0 && self.probing_extra_at.is_none() {
                    self.forced_end(rest - root, &widths, extra)
                } else {
                    0
                };
                if end == 0 {
                    let at = self.probing_extra_at.take();
                    if let Some(Label::Shared { first_extra, .. }) =
                        at.and_then(|i| self.labels.get_mut(i))
                    {
                        *first_extra = Some(rest - root);
                    }
                    self.probe = probed.then_some(Probe::Estimate((rest - root).exp2()));
                    let label = Label::In(name, f64::NEG_INFINITY);
                    self.labels.extend(std::iter::repeat_n(label, widths.len()));
                    return first_new;
                }
                // Run by every shard and still large: split below it as
                // below any shared execution.
                self.budget -= 1;
                self.pending = None;
                self.probe = Some(Probe::Shared);
                end
            }
        };
        for (k, w) in widths.iter().enumerate() {
            if k == end {
                let name = prefix_name(&schedule[..first_new + k]);
                let label = Label::In(name, rest - root);
                self.labels
                    .extend(std::iter::repeat_n(label, widths.len() - k));
                break;
            }
            self.forcing -= u64::from(extra.get(k).copied().unwrap_or(0));
            rest -= w.max(1.0).log2();
            self.labels.push(Label::Shared {
                below: rest,
                natural: natural.get(k).copied().unwrap_or(ThreadSet::EMPTY),
                extras: 0,
                first_extra: None,
            });
        }
        first_new + end
    }

    /// How many of a shared execution's new nodes (choices `widths`, and
    /// `extra` more enabled threads each) to force, the first estimated at
    /// `share` (log2) of the search: down to the deepest node that splits
    /// (two choices or more) while what hangs below stays above `1/(K·N)`
    /// of the search and the forcing budget lasts. The nodes after it would
    /// only add choices the search does not need (a node with one choice
    /// splits nothing); forcing them is paid only if a split follows.
    fn forced_end(&self, mut share: f64, widths: &[f64], extra: &[u32]) -> usize {
        let (mut end, mut spent) = (0, 0u64);
        for (k, w) in widths.iter().enumerate() {
            spent += u64::from(extra.get(k).copied().unwrap_or(0));
            if share <= -self.target || spent > self.forcing {
                break;
            }
            share -= w.max(1.0).log2();
            if *w >= 2.0 {
                end = k + 1;
            }
        }
        end
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn threads(ids: &[u32]) -> ThreadSet {
        let mut set = ThreadSet::EMPTY;
        for &t in ids {
            set.insert(t);
        }
        set
    }

    /// With enough budget the plan forces down to the deepest node that
    /// splits what is still large, never past it.
    #[test]
    fn forcing_stops_after_the_deepest_split_it_can_pay_for() {
        let plan = PathPlan::new(2, 2);
        // The whole search below the first node, target 1/4: the nodes
        // that split it in 2 and 4, not the one with one choice after them
        // (nor the last, whose subtrees are already small enough).
        assert_eq!(plan.forced_end(0.0, &[1.0, 2.0, 2.0, 1.0, 2.0], &[0; 5]), 3);
        // Not worth a split at all: nothing forced.
        assert_eq!(plan.forced_end(-2.0, &[2.0, 2.0], &[0, 0]), 0);
        // A node with one choice costs its extra threads and splits nothing:
        // with the budget (2·2·16) spent before the first split, no forcing.
        let costly = [3, u32::try_from(plan.forcing).unwrap_or(u32::MAX), 0];
        assert_eq!(plan.forced_end(0.0, &[1.0, 1.0, 2.0], &costly), 0);
    }

    /// The first extra of a forced node is probed, never split, and the
    /// later ones are estimated at half the one before.
    #[test]
    fn extras_are_estimated_from_the_first_one_probed() {
        let mut plan = PathPlan::new(1, 2);
        plan.set_probing();
        let (one, two) = (threads(&[0]), threads(&[0, 1]));
        // Two choices of the search's own at the first node, and threads 2
        // and 3 that forcing adds: the search is estimated at 2.
        assert_eq!(plan.observed(0, &[two, one], &[2, 0], &[0, 0]), 1);
        // Thread 2, the first extra: probed, estimated as the search's
        // own subtree there until its probe says more.
        let first = plan.subtree_of(&[2]);
        assert_eq!(first.map(|s| (s.probe, s.estimate)), Some((true, 0.5)));
        // Its probe finds two choices twice below: four executions, twice
        // the search's estimate, yet it is not split.
        assert_eq!(plan.observed(1, &[two, two], &[0, 0], &[2, 0, 0]), 1);
        assert_eq!(plan.probe(), Some(Probe::Estimate(2.0)));
        // Thread 3, the second extra: half the first, not probed.
        let second = plan.subtree_of(&[3]);
        assert_eq!(second.map(|s| (s.probe, s.estimate)), Some((false, 1.0)));
    }

    /// A subtree's first execution, with probing on: split further if it
    /// still looks large, else estimated from its own choices.
    #[test]
    fn a_probe_joins_the_shared_part_only_if_it_splits() {
        let mut plan = PathPlan::new(1, 2);
        plan.set_probing();
        let (one, two) = (threads(&[0]), threads(&[0, 1]));
        // The first execution: one choice, then two; the search is
        // estimated at 2 executions and the shared part forces both nodes.
        assert_eq!(plan.observed(0, &[one, two], &[0, 0], &[0, 0]), 2);
        // Thread 1 at the second node is a subtree of half the search...
        let subtree = plan.subtree_of(&[0, 1]);
        assert_eq!(subtree.map(|s| (s.probe, s.estimate)), Some((true, 0.5)));
        // ...whose first execution finds nothing more: a frontier subtree
        // of one execution.
        assert_eq!(plan.observed(2, &[one], &[0], &[0, 1, 0]), 2);
        assert_eq!(plan.probe(), Some(Probe::Estimate(0.5)));
        // A later execution of the same subtree is not a probe.
        assert_eq!(plan.subtree_of(&[0, 1, 0]).map(|s| s.probe), Some(false));
        plan.observed(3, &[], &[], &[0, 1, 0]);
        assert_eq!(plan.probe(), None);

        // A probe that finds its subtree larger than the search was
        // estimated at splits it.
        let mut plan = PathPlan::new(1, 2);
        plan.set_probing();
        plan.observed(0, &[one, two], &[0, 0], &[0, 0]);
        plan.subtree_of(&[0, 1]);
        assert_eq!(plan.observed(2, &[two, two], &[0, 0], &[0, 1, 0, 0]), 4);
        assert_eq!(plan.probe(), Some(Probe::Shared));
    }
}
