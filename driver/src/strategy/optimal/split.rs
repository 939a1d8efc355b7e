//! Optimal DPOR over several workers (`--jobs N`, [`crate::parallel`]).
//!
//! A subtree handed to a worker is one branch of a node's wakeup tree: the
//! worker's search starts with a copy of the path up to that node and the
//! branch's wakeup subtree, and explores it as Algorithm 2 explores
//! `Explore(E.p, Sleep', WuT')`; the branch counts as started at its node
//! from then on, so later siblings carry it in their sleep sets, as if it
//! had been explored first.
//!
//! A race whose first event lies at or above the subtree's root is the
//! owner's: the worker reports the reversing sequence and the branch it
//! came from, and the owner places it ([`super::place`]). Sequentially, a
//! sequence found from one branch may belong in the wakeup subtree of a
//! later sibling; if that sibling was given away, the owner forwards the
//! rest of the sequence to the worker exploring it, which places it below
//! its root as if it had been there from the start. A forward that finds
//! the subtree finished comes back, and the owner explores that branch
//! again with the sequence; the owner keeps the node until every forward
//! from it is settled. So no trace is lost, and one job and many explore
//! the same traces (`driver/tests/optimal_model.rs`, `tests/tests/parallel.rs`).
//!
//! Under `--memory-model rc11` a node's step also has reads-from choices
//! that one job tries after the branch's first run, each with the sleep
//! set the branch started with and no wakeup sequence below it. The next
//! of them goes to a worker together with the ones after it
//! ([`super::choices::Choices::hand_over`]), which tries them at its root;
//! the branch stays the owner's (sequences that follow it are placed in
//! the owner's path, as one job places them below the branch's first run),
//! so nothing is forwarded to that worker. A branch explored again tries
//! only the choice its sequence carries: its other choices were tried when
//! it first ran (`tests/tests/memory_model_dpor.rs` compares the
//! reads-from graphs of one job and two).

use super::choices::Choices;
use super::place::Sequence;
use super::wakeup::{Branch, Step};
use super::OptimalDpor;
use crate::exec::Request;
use crate::strategy::split::Splittable;
use reach_channel::ThreadSet;

/// A fact about a node of a worker's path, for the search that owns it.
#[derive(Clone, Debug)]
pub enum Report {
    /// Place `sequence`, found from branch `from`, at the node at `depth`.
    Insert {
        depth: usize,
        from: usize,
        sequence: Sequence,
    },
    /// The thread's step from the node at this depth crashed the process.
    Crashed(usize, u32),
    /// Downwards, to the subtree given away as branch `branch` of the node
    /// at `depth`: place `rest` below its root. Sent back to the owner if
    /// that subtree is finished: explore the branch again, `head` then
    /// `rest`.
    Forward {
        depth: usize,
        branch: usize,
        head: Step,
        rest: Sequence,
    },
    /// A forward from the node at this depth was taken in.
    Settled(usize),
}

impl OptimalDpor {
    /// Gives away `branch` of node `i` (with sleep set `sleep` if it is
    /// explored again): a search of its own, with a copy of the path up to
    /// the node, whose wakeup trees stay here.
    fn give_away(
        &mut self,
        i: usize,
        branch: Branch,
        again: Option<(ThreadSet, usize)>,
    ) -> (Request, OptimalDpor) {
        self.keep_subtrees = true;
        let (k, candidate) = self.nodes[i].take(&branch, again, true, true);
        let mut nodes = self.nodes[..=i].to_vec();
        for node in &mut nodes {
            node.wut = Default::default();
            node.revisits.clear();
        }
        nodes[i].branches[k].lent = false;
        nodes[i].current = k;
        let mut search = OptimalDpor {
            nodes,
            started: true,
            cancel: self.cancel.clone(),
            root: Some(i),
            keep_subtrees: true,
            ..OptimalDpor::default()
        };
        let request = if again.is_some() {
            search.launch_again(i, branch, candidate)
        } else {
            search.launch(i, branch, candidate)
        };
        (request, search)
    }

    /// Gives away the reads-from choices left of the step node `i` takes
    /// on the path (`rest`: the next one, taken, and those after it), as
    /// a search of its own that tries them at its root, each with the
    /// sleep set the node's branch started with, as this search would
    /// have ([`OptimalDpor::next_choice`]). The branch stays this
    /// search's: sequences that follow it are placed here.
    fn give_away_choices(&mut self, i: usize, rest: Choices) -> (Request, OptimalDpor) {
        self.keep_subtrees = true;
        let node = &self.nodes[i];
        let candidate = node
            .branches
            .get(node.current)
            .map_or(node.sleep, |b| b.candidate);
        let mut nodes = self.nodes[..=i].to_vec();
        for node in &mut nodes {
            node.wut = Default::default();
            node.revisits.clear();
        }
        let mut search = OptimalDpor {
            nodes,
            started: true,
            cancel: self.cancel.clone(),
            root: Some(i),
            root_choices: true,
            keep_subtrees: true,
            ..OptimalDpor::default()
        };
        let request = search.launch_choice(i, rest, candidate);
        (request, search)
    }

    /// Gives away the first thing to explore from node `i`: the choices
    /// left of its step (tried before its next branch, as one search
    /// does), else its next branch.
    fn give_away_first(&mut self, i: usize) -> Option<(Request, OptimalDpor)> {
        if self.choices_known(i) && self.nodes[i].own_branch().is_some() {
            if let Some(rest) = self.nodes[i].read.hand_over() {
                return Some(self.give_away_choices(i, rest));
            }
        }
        let (branch, sleep) = self.nodes[i].next_branch()?;
        Some(self.give_away(i, branch, sleep))
    }

    /// The first node, in `order`, with a branch or a reads-from choice to
    /// explore.
    fn with_work(&self, mut order: impl Iterator<Item = usize>) -> Option<usize> {
        order.find(|&i| {
            self.nodes[i].has_branch() || (self.choices_known(i) && self.nodes[i].has_choice())
        })
    }

    /// True unless node `i` is where the request in flight branched (a
    /// worker asked to share has its next request ready): a step taken
    /// anew there learns how many choices it has only when it runs.
    fn choices_known(&self, i: usize) -> bool {
        self.in_flight.as_ref().is_none_or(|f| f.branch != i)
    }

    /// Removes one unsettled forward from the node at `depth`.
    fn settle(&mut self, depth: usize) {
        if let Some(k) = self.pending.iter().position(|&d| d == depth) {
            self.pending.swap_remove(k);
        }
    }
}

impl Splittable for OptimalDpor {
    type Report = Report;

    fn take_subtree(&mut self) -> Option<(Request, OptimalDpor)> {
        let first = self.root.map_or(0, |r| r + 1);
        let i = self.with_work((first..self.nodes.len()).rev())?;
        self.give_away_first(i)
    }

    fn split(&mut self) -> Option<(Request, OptimalDpor)> {
        let first = self.root.map_or(0, |r| r + 1);
        let i = self.with_work(first..self.nodes.len())?;
        let given = self.give_away_first(i)?;
        self.lent.push(i);
        Some(given)
    }

    fn subtree_done(&mut self, depth: usize) {
        if let Some(k) = self.lent.iter().position(|&d| d == depth) {
            self.lent.swap_remove(k);
        }
    }

    fn paused(&self) -> bool {
        self.waiting
    }

    fn waiting(&self) -> bool {
        self.waiting
            && self
                .nodes
                .len()
                .checked_sub(1)
                .is_some_and(|i| self.lent.contains(&i) || self.pending.contains(&i))
    }

    fn root(&self) -> Option<usize> {
        self.root
    }

    fn lent_branch(&self) -> Option<usize> {
        self.root
            .filter(|_| !self.root_choices)
            .and_then(|r| self.nodes.get(r))
            .map(|node| node.current)
    }

    fn apply_reports(&mut self, reports: Vec<Report>) {
        for report in reports {
            match report {
                Report::Insert {
                    depth,
                    from,
                    sequence,
                } => self.place_sequence(depth, &sequence, Some(from)),
                Report::Crashed(depth, thread) => {
                    if let Some(node) = self.nodes.get_mut(depth) {
                        node.crashed.insert(thread);
                    }
                }
                Report::Forward {
                    depth,
                    branch,
                    head,
                    rest,
                } => {
                    if self.root == Some(depth) {
                        if self.live_below(depth) {
                            self.place_sequence(depth + 1, &rest, None);
                        } else if let Some(k) = self.nodes.get(depth).map(|n| n.current) {
                            // Finished already: explore the root branch again.
                            self.revisit(depth, k, head, &rest);
                        }
                    } else {
                        // The subtree was finished: it came back.
                        self.revisit(depth, branch, head, &rest);
                        self.settle(depth);
                    }
                }
                Report::Settled(depth) => self.settle(depth),
            }
        }
    }

    fn take_reports(&mut self) -> Vec<Report> {
        std::mem::take(&mut self.reports)
    }

    fn report_depth(report: &Report) -> usize {
        match *report {
            Report::Insert { depth, .. }
            | Report::Forward { depth, .. }
            | Report::Crashed(depth, _)
            | Report::Settled(depth) => depth,
        }
    }

    fn forward_to(report: &Report) -> Option<(usize, usize)> {
        match *report {
            Report::Forward { depth, branch, .. } => Some((depth, branch)),
            _ => None,
        }
    }

    fn settled(report: &Report) -> Option<Report> {
        match *report {
            Report::Forward { depth, .. } => Some(Report::Settled(depth)),
            _ => None,
        }
    }
}
