//! The combined execution tree of Saarikivi, Kähkönen, Heljanko:
//! "Improving Dynamic Partial Order Reductions for Concolic Testing",
//! Sec. III-B, explored depth-first by re-execution with a scheduling
//! search behind [`TreeSearch`] as the scheduling part: DPOR-CR with sleep
//! sets ([`Dpor`](crate::strategy::dpor::Dpor), Fig. 3 and Fig. 7) or optimal DPOR
//! ([`crate::strategy::optimal`], whose wakeup sequences carry the inputs
//! they were recorded under).
//!
//! The tree interleaves scheduling nodes (one per visible operation, the
//! DPOR path) with branch nodes: after the visible operation of scheduling
//! node `i` comes the "concolic subtree" of the path constraints its thread
//! records before its next visible operation (those whose `step` is
//! `i + 1`). One tree serves every input vector:
//!
//! * the current path is the DPOR path plus the branch nodes on it whose
//!   other outcome is still to be explored (`CombinedTree::open`), in
//!   execution order: a branch node of step `s` lies below scheduling node
//!   `s - 1` and above node `s`;
//! * the search is depth-first over both kinds of node: the scheduling
//!   nodes below the deepest open branch node are backtracked first
//!   ([`TreeSearch::next_request_below`]); once they are done, that branch node
//!   is flipped: its path constraint is negated under the constraints
//!   before it (the nodes "on the path from the root node to the selected
//!   node"; the scheduling nodes among them add none, Sec. III-B) and, if
//!   satisfiable, the next execution replays the schedule prefix up to the
//!   branch node with the new inputs ([`TreeSearch::resume_at`]) and continues
//!   freely from there: only the subtree below that branch node is
//!   explored for those inputs, the scheduling nodes above it are not
//!   explored again;
//! * the scheduling nodes above a flipped branch keep their backtrack, done
//!   and sleep sets, and the races of the executions below it add to their
//!   backtrack sets as in the DPOR of Sec. II: "because the past of the
//!   execution and the next visible operation for each process is still
//!   known during each call to Explore, the logic for updating the vector
//!   clocks and identifying the backtracking points stays the same"
//!   (Sec. III-B). The first path through the invisible operations after a
//!   visible operation is the one the current inputs take; the others are
//!   the flips.
//!
//! The inputs of an execution satisfy every path constraint above the node
//! it starts from: a flip's model keeps the constraints before the negated
//! one (inputs outside their slice keep the values that satisfied them), and
//! a scheduling request below a flipped branch uses the flip's inputs (a
//! search whose requests fix several steps names the inputs they were
//! recorded under: [`Launch::origin`]).
//!
//! Sleep sets carry over to the subtree below a flipped branch: a thread
//! asleep at the state where the branch's thread parks again was explored
//! from an ancestor whose subtree, flips included, covers every input
//! vector on this path, and every transition since is independent of it.
//! The flip's request passes that state's sleep set, recorded when the
//! branch node was created.
//!
//! A flip whose execution does not follow the path to the negated branch
//! (an input constraint the runtime could not record exactly) is counted
//! and reported as a gap in coverage; the tree is left as it was.

use super::solver::Solver;
use super::{ConcolicStats, SymTrace};
use crate::cancel::Cancel;
use crate::exec::{InputValue, Request};
use crate::strategy::tree_search::{Launch, TreeSearch};
use crate::strategy::{Divergence, Strategy};
use crate::trace::Trace;
use reach_channel::ThreadSet;
use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

/// A branch node on the current path whose other outcome is unexplored:
/// path constraint `index` of `trace`.
#[derive(Clone)]
struct OpenBranch {
    /// The execution that created the node (its constraints before the
    /// node are those of the path to it).
    trace: Arc<SymTrace>,
    /// The node's path constraint in `trace`.
    index: usize,
    /// Scheduling nodes above it: it lies after event `step - 1`.
    step: usize,
    /// Sleep set of state `step`, where the branch's thread parks at its
    /// next visible operation (Sec. IV-D).
    sleep: ThreadSet,
}

/// What the last request explores.
enum Pending {
    /// A scheduling choice (or the first execution), changing the path
    /// from state `first_new` on.
    Schedule { first_new: usize },
    /// The other outcome of a branch node; `previous` is the input vector
    /// to go back to if the execution does not reach it.
    Flip { branch: OpenBranch, previous: u32 },
}

/// Concolic testing over the combined execution tree, with a scheduling
/// search behind [`TreeSearch`] (`dpor` and its variants, or `optimal`).
pub struct CombinedTree {
    search: Box<dyn TreeSearch>,
    /// Branch nodes on the current path with an unexplored outcome, in
    /// execution order (steps ascending).
    open: Vec<OpenBranch>,
    /// The input vectors explored, by index ([`TreeSearch::set_origin`]).
    vectors: Vec<Vec<InputValue>>,
    /// Index of the inputs of the subtree being explored.
    inputs: u32,
    pending: Option<Pending>,
    /// Whole combined-tree paths run (for the repeated-path count).
    paths: HashSet<u64>,
    /// Input vectors (as executions reported them) in the model cache.
    remembered: HashSet<Vec<InputValue>>,
    solver: Solver,
    stats: ConcolicStats,
}

impl CombinedTree {
    /// Concolic testing over one combined tree explored with `search`;
    /// `initial` are the first execution's inputs, `timeout` bounds each
    /// solver query.
    pub fn new(
        search: Box<dyn TreeSearch>,
        initial: Vec<InputValue>,
        timeout: Duration,
    ) -> CombinedTree {
        CombinedTree {
            search,
            open: Vec::new(),
            vectors: vec![initial],
            inputs: 0,
            pending: None,
            paths: HashSet::new(),
            remembered: HashSet::new(),
            solver: Solver::new(timeout),
            stats: ConcolicStats {
                input_vectors: 1,
                ..ConcolicStats::default()
            },
        }
    }

    /// The counts so far.
    pub fn concolic_stats(&self) -> &ConcolicStats {
        &self.stats
    }

    /// Adds the branch nodes of `sym` that `new` selects (by index and
    /// step) to the current path: each negatable one has an unexplored
    /// outcome.
    fn open_branches(&mut self, sym: &Arc<SymTrace>, new: impl Fn(usize, usize) -> bool) {
        for (index, b) in sym.branches.iter().enumerate() {
            let step = usize::try_from(b.step).unwrap_or(usize::MAX);
            if !new(index, step) || !super::negatable(b) {
                continue;
            }
            self.stats.branch_nodes += 1;
            self.stats.targets += 1;
            self.open.push(OpenBranch {
                trace: sym.clone(),
                index,
                step,
                sleep: self.search.sleep_at(step),
            });
        }
    }
}

/// True if an execution that recorded `sym` followed the path to `branch`
/// and took its other outcome: the same path constraints before it (site,
/// kind, outcome, position), then the same branch the other way.
fn reaches_flip(sym: Option<&SymTrace>, branch: &OpenBranch) -> bool {
    let Some(sym) = sym else {
        return false;
    };
    let old = &branch.trace.branches[..=branch.index];
    let Some(new) = sym.branches.get(..=branch.index) else {
        return false;
    };
    old.iter().zip(new).enumerate().all(|(k, (a, b))| {
        let same_node = a.site == b.site && a.kind == b.kind && a.step == b.step;
        let flipped = k == branch.index;
        same_node && ((a.taken == b.taken) != flipped)
    })
}

impl Strategy for CombinedTree {
    fn name(&self) -> &'static str {
        self.search.name()
    }

    fn next_request(&mut self) -> Option<Request> {
        loop {
            // Scheduling nodes below the deepest open branch node first.
            let floor = self.open.last().map_or(0, |b| b.step);
            if let Some(launch) = self.search.next_request_below(floor) {
                let Launch {
                    mut request,
                    first_new,
                    origin,
                } = launch;
                if let Some(o) = origin.filter(|&o| (o as usize) < self.vectors.len()) {
                    self.inputs = o;
                }
                request.inputs = self.vectors[self.inputs as usize].clone();
                self.pending = Some(Pending::Schedule { first_new });
                return Some(request);
            }
            // Then that branch node's other outcome.
            let branch = self.open.pop()?;
            if self.search.depth() < branch.step {
                // Beyond the recorded events: cannot be replayed to.
                self.stats.diverged += 1;
                continue;
            }
            let Some(inputs) = self
                .solver
                .negate(&branch.trace, branch.index, &mut self.stats)
            else {
                continue;
            };
            self.stats.input_vectors += 1;
            let mut request = self.search.resume_at(branch.step, branch.sleep);
            request.inputs = inputs.clone();
            self.vectors.push(inputs);
            let previous = std::mem::replace(&mut self.inputs, self.vectors.len() as u32 - 1);
            self.pending = Some(Pending::Flip { branch, previous });
            return Some(request);
        }
    }

    fn observe(&mut self, request: &Request, trace: &Trace) -> Result<(), Divergence> {
        self.search.set_origin(self.inputs);
        match self.pending.take() {
            Some(Pending::Flip { branch, previous }) => {
                if !reaches_flip(trace.symbolic.as_deref(), &branch) {
                    self.stats.diverged += 1;
                    self.inputs = previous;
                    return Ok(());
                }
                self.search.observe(request, trace)?;
                if let Some(sym) = &trace.symbolic {
                    self.open_branches(sym, |index, _| index > branch.index);
                }
            }
            schedule => {
                let first_new = match schedule {
                    Some(Pending::Schedule { first_new }) => first_new,
                    _ => 0,
                };
                self.search.observe(request, trace)?;
                if let Some(sym) = &trace.symbolic {
                    self.open_branches(sym, |_, step| step >= first_new);
                }
            }
        }
        if let Some(sym) = &trace.symbolic {
            if sym.overflow != 0 {
                self.stats.overflowed += 1;
            }
            let mut key = sym.values();
            key.sort();
            if self.remembered.insert(key) {
                self.solver.remember(sym);
            }
            if !self.paths.insert(super::path_key(sym, trace)) {
                self.stats.repeated_paths += 1;
            }
        }
        Ok(())
    }

    fn set_cancel(&mut self, cancel: Cancel) {
        self.search.set_cancel(cancel);
    }

    fn incomplete(&self) -> Option<String> {
        let mut notes: Vec<String> = self.search.incomplete().into_iter().collect();
        if self.stats.unknown > 0 {
            notes.push(format!(
                "{} solver queries timed out or were undecided (raise --solver-timeout)",
                self.stats.unknown
            ));
        }
        if self.stats.diverged > 0 {
            notes.push(format!(
                "{} flipped branches were not reached with the solved inputs",
                self.stats.diverged
            ));
        }
        (!notes.is_empty()).then(|| notes.join("; "))
    }

    fn stats(&self) -> Vec<(&'static str, String)> {
        let mut out = self.search.stats();
        out.extend(super::stats_lines(&self.stats));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use reach_channel::symbolic::{BranchKind, BranchRecord};

    fn record(site: u64, taken: bool, step: u64) -> BranchRecord {
        BranchRecord {
            thread: 0,
            kind: BranchKind::Branch as u16,
            taken: u16::from(taken),
            site,
            expr: 1,
            _reserved: 0,
            step,
        }
    }

    fn sym(branches: Vec<BranchRecord>) -> SymTrace {
        SymTrace {
            branches,
            ..SymTrace::default()
        }
    }

    /// The second path constraint of `[a taken, b not taken, c]` to flip.
    fn open() -> OpenBranch {
        OpenBranch {
            trace: Arc::new(sym(vec![
                record(1, true, 0),
                record(2, false, 3),
                record(3, true, 3),
            ])),
            index: 1,
            step: 3,
            sleep: ThreadSet::EMPTY,
        }
    }

    #[test]
    fn the_same_prefix_and_the_other_outcome_reach_the_flip() {
        let new = sym(vec![record(1, true, 0), record(2, true, 3)]);
        assert!(reaches_flip(Some(&new), &open()));
        // What follows the flipped branch does not matter.
        let longer = sym(vec![
            record(1, true, 0),
            record(2, true, 3),
            record(9, false, 5),
        ]);
        assert!(reaches_flip(Some(&longer), &open()));
    }

    #[test]
    fn the_same_outcome_or_another_prefix_does_not() {
        let same = sym(vec![record(1, true, 0), record(2, false, 3)]);
        assert!(!reaches_flip(Some(&same), &open()));
        let other_before = sym(vec![record(1, false, 0), record(2, true, 3)]);
        assert!(!reaches_flip(Some(&other_before), &open()));
        let other_place = sym(vec![record(1, true, 0), record(2, true, 4)]);
        assert!(!reaches_flip(Some(&other_place), &open()));
        let other_site = sym(vec![record(1, true, 0), record(7, true, 3)]);
        assert!(!reaches_flip(Some(&other_site), &open()));
        let shorter = sym(vec![record(1, true, 0)]);
        assert!(!reaches_flip(Some(&shorter), &open()));
        assert!(!reaches_flip(None, &open()));
    }
}
