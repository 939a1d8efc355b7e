//! Where a reversing sequence goes (Algorithm 2, lines 5–8, and
//! `insert_[E]` of Sec. 6.2), when a node's branches may be explored out of
//! their sequential order by several workers.
//!
//! Sequentially, a sequence `v` found from the branch `x` of a node `E` is
//! dropped if a thread asleep at `E`, or a branch explored before `x`, is
//! a weak initial of `v` (it is in `sleep(E)`); otherwise `insert_[E]`
//! walks `wut(E)`, whose branches are all still unexplored, into the first
//! one that is a weak initial of `v`, and adds the rest as a new leaf. With
//! workers, a branch started after `x` may already be running (on this
//! path, or given away) or even be finished. The walk then follows that
//! branch as the sequential search would have found it, unexplored:
//!
//! * a branch that started as a leaf of the wakeup tree (or as a free
//!   step) ends the walk: `insert_[E]` leaves the tree unchanged there;
//! * the branch on the current path: the walk goes on at the next node,
//!   where every branch counts as started after it;
//! * a branch given away: the rest of `v` is forwarded to the worker that
//!   explores it ([`super::split`]);
//! * a finished branch: it is explored again from `E` with the rest of `v`
//!   as its wakeup sequence, the sleep set it first had, and its place
//!   among the node's branches (those started after it stay later). Its earlier
//!   exploration already covers part of what follows, so this may repeat
//!   some executions, never miss one.
//!
//! Without workers, the branches started after `x` are always still in
//! the wakeup tree, and this is exactly the sequential algorithm.

use super::wakeup::{weak_initial, Branch, Order, Step, WakeupTree};
use super::{Node, OptimalDpor, Report, Revisit, CRASH};
use reach_channel::Op;

/// A sequence with the happens-before order of its steps, independent of
/// the trace it came from (sent to another worker, or kept for later).
#[derive(Clone, Debug)]
pub struct Sequence {
    pub(super) steps: Vec<Step>,
    /// For each step, its rank among its thread's steps.
    ranks: Vec<u32>,
    /// For each step and thread, how many of that thread's steps (the
    /// first ones) happen before it.
    preceded_by: Vec<Vec<u32>>,
}

impl Sequence {
    /// Records `steps` with the order `order` gives them.
    pub(super) fn of(steps: Vec<Step>, order: &Order<'_>) -> Sequence {
        let threads = steps
            .iter()
            .map(|s| s.thread as usize + 1)
            .max()
            .unwrap_or(0);
        let mut counts = vec![0u32; threads];
        let mut by_thread: Vec<Vec<usize>> = vec![Vec::new(); threads];
        let mut ranks = Vec::with_capacity(steps.len());
        let mut preceded_by = Vec::with_capacity(steps.len());
        for (b, step) in steps.iter().enumerate() {
            // Happens-before is closed under program order: the latest
            // step of a thread that precedes `b` says how many do.
            let before: Vec<u32> = by_thread
                .iter()
                .map(|positions| {
                    positions
                        .iter()
                        .rposition(|&a| (order.precedes)(a, b))
                        .map_or(0, |k| k as u32 + 1)
                })
                .collect();
            preceded_by.push(before);
            let t = step.thread as usize;
            ranks.push(counts[t]);
            counts[t] += 1;
            by_thread[t].push(b);
        }
        Sequence {
            steps,
            ranks,
            preceded_by,
        }
    }

    /// Does step `a` happen before step `b`?
    pub(super) fn precedes(&self, a: usize, b: usize) -> bool {
        a < b
            && self.preceded_by[b]
                .get(self.steps[a].thread as usize)
                .is_some_and(|&n| self.ranks[a] < n)
    }

    /// The sequence without the step at `position`.
    fn without(&self, position: usize) -> Sequence {
        let kept: Vec<usize> = (0..self.steps.len()).filter(|&s| s != position).collect();
        let precedes = |a: usize, b: usize| self.precedes(kept[a], kept[b]);
        Sequence::of(
            kept.iter().map(|&s| self.steps[s]).collect(),
            &Order {
                precedes: &precedes,
                independent: &independent,
            },
        )
    }

    /// Splits off `thread`'s first step (its next step `next` if it has
    /// none here): the step, and the rest.
    fn split_first(&self, thread: u32, next: Op) -> (Step, Sequence) {
        match self.steps.iter().position(|s| s.thread == thread) {
            Some(k) => (self.steps[k], self.without(k)),
            None => (
                Step {
                    thread,
                    op: next,
                    choice: 0,
                },
                self.clone(),
            ),
        }
    }
}

/// Two operations commute.
fn independent(x: &Op, y: &Op) -> bool {
    !x.conflicts(y)
}

/// Runs `f` with the order of `sequence`.
fn with_order<R>(sequence: &Sequence, f: impl FnOnce(&Order<'_>) -> R) -> R {
    let precedes = |a: usize, b: usize| sequence.precedes(a, b);
    f(&Order {
        precedes: &precedes,
        independent: &independent,
    })
}

/// The operation `q` performs next at `node`, as the analysis sees it.
fn next_op(node: &Node, q: u32) -> Option<Op> {
    if node.crashed.contains(q) {
        Some(CRASH)
    } else {
        node.next.get(q as usize).copied().flatten()
    }
}

/// Is `q` a weak initial of `steps` at `node`?
fn initial(node: &Node, q: u32, steps: &[Step], all: &[usize], order: &Order<'_>) -> bool {
    next_op(node, q).is_some_and(|op| weak_initial(q, &op, steps, all, order).is_some())
}

/// True if a thread asleep at `node` (not a foreign one), a thread whose
/// step from it crashed,
/// or a branch started there up to and including `from` (`None`: before
/// every branch) is a weak initial of `steps`.
pub(super) fn covered_up_to(
    node: &Node,
    steps: &[Step],
    order: &Order<'_>,
    from: Option<usize>,
) -> bool {
    let all: Vec<usize> = (0..steps.len()).collect();
    covered_among(node, steps, &all, order, from)
}

/// [`covered_up_to`] with the positions of `steps` at hand.
fn covered_among(
    node: &Node,
    steps: &[Step],
    all: &[usize],
    order: &Order<'_>,
    from: Option<usize>,
) -> bool {
    let earlier = from.map_or(0, |f| f + 1).min(node.branches.len());
    // A thread whose step from here crashed covers the sequences it
    // starts (they end in the same crash), and no other.
    let trusted = node
        .sleep
        .minus(&node.foreign)
        .iter()
        .chain(node.crashed.iter())
        .chain(node.branches[..earlier].iter().map(|b| b.thread))
        .any(|q| initial(node, q, steps, all, order));
    // A foreign sleeper covers the sequences it starts (its branch
    // explores every trace it starts), not those it only commutes with.
    trusted
        || node.foreign.iter().any(|q| {
            next_op(node, q)
                .is_some_and(|op| matches!(weak_initial(q, &op, steps, all, order), Some(Some(_))))
        })
}

/// What to do with a sequence at a node.
enum Decision {
    /// Drop it: explored, or to be explored, from a sleeping or earlier
    /// branch, or below a leaf.
    Covered,
    /// Insert it into the node's wakeup tree.
    Insert,
    /// It follows branch `k`, started after the branch it came from.
    Later(usize),
}

/// Decides where `steps`, found from branch `from` of `node`, goes.
fn decide(node: &Node, steps: &[Step], order: &Order<'_>, from: Option<usize>) -> Decision {
    let all: Vec<usize> = (0..steps.len()).collect();
    if covered_among(node, steps, &all, order, from) {
        return Decision::Covered;
    }
    let earlier = from.map_or(0, |f| f + 1).min(node.branches.len());
    let later = (earlier..node.branches.len())
        .find(|&k| initial(node, node.branches[k].thread, steps, &all, order));
    match later {
        Some(k) if node.branches[k].leaf => Decision::Covered,
        Some(k) => Decision::Later(k),
        None => Decision::Insert,
    }
}

impl OptimalDpor {
    /// Places `steps` (ordered by `order`), found from branch `from` of the
    /// node at `depth` (`None`: before all of them), as described in the
    /// module documentation.
    pub(super) fn place(
        &mut self,
        depth: usize,
        steps: &[Step],
        order: &Order<'_>,
        from: Option<usize>,
    ) {
        if steps.is_empty() {
            return;
        }
        if depth == self.nodes.len() {
            self.place_in_flight(depth, steps, order);
            return;
        }
        let Some(node) = self.nodes.get(depth) else {
            return;
        };
        if node.forced {
            // Each branch of a forced node covers every sequence it starts,
            // and every thread not asleep there is a branch ([`super::shard`]).
            return;
        }
        match decide(node, steps, order, from) {
            Decision::Covered => {}
            Decision::Insert => {
                let origin = self.origin;
                self.nodes[depth].wut.insert(steps, order, origin);
            }
            Decision::Later(k) => {
                let sequence = Sequence::of(steps.to_vec(), order);
                self.place_after(depth, k, &sequence);
            }
        }
    }

    /// [`OptimalDpor::place`] for a recorded sequence.
    pub(super) fn place_sequence(
        &mut self,
        depth: usize,
        sequence: &Sequence,
        from: Option<usize>,
    ) {
        with_order(sequence, |order| {
            self.place(depth, &sequence.steps, order, from)
        });
    }

    /// `sequence` follows branch `k` of the node at `depth`, a non-leaf
    /// branch started after the one it came from.
    fn place_after(&mut self, depth: usize, k: usize, sequence: &Sequence) {
        let node = &self.nodes[depth];
        let (thread, lent, current) =
            (node.branches[k].thread, node.branches[k].lent, node.current);
        let Some(next) = next_op(node, thread) else {
            return;
        };
        let (head, rest) = sequence.split_first(thread, next);
        if rest.steps.is_empty() {
            // Used up on the way: `insert_[E]` leaves the tree unchanged.
            return;
        }
        // Its subtree is no longer a leaf: later sequences follow it in.
        self.nodes[depth].branches[k].leaf = false;
        if lent {
            self.pending.push(depth);
            self.reports.push(Report::Forward {
                depth,
                branch: k,
                head,
                rest,
            });
        } else if k == current && self.live_below(depth) {
            self.place_sequence(depth + 1, &rest, None);
        } else {
            self.revisit(depth, k, head, &rest);
        }
    }

    /// True if the path goes on below the node at `depth` (built, or in
    /// flight): its current branch is still being explored.
    pub(super) fn live_below(&self, depth: usize) -> bool {
        depth + 1 < self.nodes.len() || self.in_flight.as_ref().is_some_and(|f| f.branch == depth)
    }

    /// Explores again the finished branch `k` of the node at `depth`: its
    /// step `head`, then `rest`, with the sleep set it first had — unless
    /// `insert_[E]` into the subtree the branch started with leaves it
    /// unchanged (`rest` ends at one of its leaves, or is used up).
    pub(super) fn revisit(&mut self, depth: usize, k: usize, head: Step, rest: &Sequence) {
        let origin = self.origin;
        let Some(node) = self.nodes.get_mut(depth) else {
            return;
        };
        let Some(started) = node.branches.get(k) else {
            return;
        };
        if let Some(subtree) = &started.subtree {
            let mut tree = WakeupTree::of(subtree.clone());
            if !subtree.is_empty()
                && !with_order(rest, |order| tree.insert(&rest.steps, order, origin))
            {
                return;
            }
        }
        let mut chain = Branch {
            step: head,
            children: Vec::new(),
            origin,
        };
        if !rest.steps.is_empty() {
            let mut below = WakeupTree::default();
            with_order(rest, |order| below.insert(&rest.steps, order, origin));
            chain.children = below.children;
        }
        node.revisits.push(Revisit {
            sleep: started.candidate,
            branch: chain,
            index: k,
        });
    }

    /// The node at `depth` is not built yet: the execution in flight
    /// branched at the node above, and `steps` follows that branch's step.
    /// They go into the wakeup subtree it follows (unchanged if that is a
    /// leaf).
    fn place_in_flight(&mut self, depth: usize, steps: &[Step], order: &Order<'_>) {
        let origin = self.origin;
        let Some(flight) = self.in_flight.as_mut() else {
            return;
        };
        if flight.branch + 1 != depth || flight.subtree.is_empty() {
            return;
        }
        let mut tree = WakeupTree::of(std::mem::take(&mut flight.subtree));
        tree.insert(steps, order, origin);
        flight.subtree = tree.children;
    }
}
