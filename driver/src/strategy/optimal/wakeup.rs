//! Wakeup trees (Abdulla, Aronis, Jonsson, Sagonas: "Source Sets: A
//! Foundation for Optimal Dynamic Partial Order Reduction", JACM 64(4),
//! 2017, Sec. 6.1–6.2).
//!
//! A wakeup tree of a state holds the sequences that must still be explored
//! from it, as an ordered tree of steps: every leaf is a sequence that
//! reverses some race, and a sequence is only inserted if no sequence
//! already in the tree is a weak prefix of it (`insert_[E]`). Exploring the
//! leftmost branch first, and only then the rest, is what makes the search
//! explore one complete execution per Mazurkiewicz trace without ever being
//! blocked by its sleep sets.
//!
//! The relation `v ⊑_[E] w` is decided step by step, as in the paper's
//! inductive definition: `p.v ⊑ w` iff `p ∈ WI_[E](w)` and `v ⊑_[E.p] w\p`,
//! where the weak initials `WI_[E](w)` are the threads whose first step in
//! `w` has no predecessor in `w`, and the threads absent from `w` whose next
//! step is independent of every step of `w`.

use reach_channel::Op;

/// One step of a sequence: a thread and the operation it performs there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Step {
    /// The thread.
    pub thread: u32,
    /// Its operation at that point.
    pub op: Op,
    /// Under `--memory-model rc11`: the reads-from choice the step took in
    /// the execution it was seen in (0 otherwise, and for a step not yet
    /// run). In a reversal `notdep(e, E).e'` a step has the same stores
    /// before it and the same view as in `E`, so the same choice reads
    /// the same store.
    pub choice: u16,
}

/// A node of a wakeup tree: a step and the subtree after it.
///
/// A branch can be as deep as an execution is long (a race reversed across
/// a million steps inserts a million-step chain), so its drop, clone,
/// comparison and debug output walk the tree with an explicit stack
/// instead of recursing.
pub struct Branch {
    /// The step taken from the parent.
    pub step: Step,
    /// The sequences to explore after it, leftmost first.
    pub children: Vec<Branch>,
    /// The input vector of the execution whose race gave the step (0 but
    /// in concolic testing, [`crate::concolic::tree`]): the steps of a
    /// sequence are replayable under the inputs they were recorded with.
    pub origin: u32,
}

impl Drop for Branch {
    fn drop(&mut self) {
        let mut pending = std::mem::take(&mut self.children);
        while let Some(mut branch) = pending.pop() {
            pending.append(&mut branch.children);
        }
    }
}

impl Clone for Branch {
    fn clone(&self) -> Branch {
        // Nodes in pre-order; rebuilt in reverse, each node's children are
        // then the last ones built (first child last).
        let mut order = Vec::new();
        let mut stack = vec![self];
        while let Some(branch) = stack.pop() {
            order.push(branch);
            stack.extend(branch.children.iter().rev());
        }
        let mut built: Vec<Branch> = Vec::new();
        for branch in order.into_iter().rev() {
            let mut children = built.split_off(built.len() - branch.children.len());
            children.reverse();
            built.push(Branch {
                step: branch.step,
                children,
                origin: branch.origin,
            });
        }
        built
            .pop()
            .unwrap_or_else(|| unreachable!("the walk built the root"))
    }
}

impl PartialEq for Branch {
    fn eq(&self, other: &Branch) -> bool {
        let mut pairs = vec![(self, other)];
        while let Some((a, b)) = pairs.pop() {
            if a.step != b.step || a.origin != b.origin || a.children.len() != b.children.len() {
                return false;
            }
            pairs.extend(a.children.iter().zip(&b.children));
        }
        true
    }
}

impl Eq for Branch {}

impl std::fmt::Debug for Branch {
    /// The nodes in pre-order, each as `depth:thread`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut list = f.debug_list();
        let mut stack = vec![(0usize, self)];
        while let Some((depth, branch)) = stack.pop() {
            list.entry(&format_args!(
                "{depth}:T{}/{}",
                branch.step.thread, branch.origin
            ));
            stack.extend(branch.children.iter().rev().map(|c| (depth + 1, c)));
        }
        list.finish()
    }
}

impl Branch {
    /// The threads of the leftmost path below (and including) this node.
    pub fn leftmost_threads(&self) -> Vec<u32> {
        self.leftmost_steps().map(|s| s.thread).collect()
    }

    /// The schedule prefix entries of the leftmost sequence: each step's
    /// thread with its reads-from choice.
    pub fn leftmost_entries(&self) -> Vec<u32> {
        self.leftmost_steps()
            .map(|s| reach_channel::memory_model::prefix_entry(s.thread, s.choice))
            .collect()
    }

    /// The steps of the leftmost sequence, this node's first.
    fn leftmost_steps(&self) -> impl Iterator<Item = &Step> {
        std::iter::successors(Some(self), |n| n.children.first()).map(|n| &n.step)
    }

    /// The input vector of the leftmost leaf below (and including) this
    /// node: the sequence an execution of this branch follows.
    pub fn leftmost_origin(&self) -> u32 {
        let mut node = self;
        while let Some(first) = node.children.first() {
            node = first;
        }
        node.origin
    }
}

/// Nodes of the trees `branches`, counted without recursion up to
/// `limit` (a larger count is returned as `limit + 1`).
pub fn count_nodes(branches: &[Branch], limit: usize) -> usize {
    let mut count = 0usize;
    let mut stack: Vec<&Branch> = branches.iter().collect();
    while let Some(branch) = stack.pop() {
        count += 1;
        if count > limit {
            break;
        }
        stack.extend(branch.children.iter());
    }
    count
}

/// The order of the steps of a sequence being inserted: `precedes(a, b)`
/// for positions `a < b` says that step `a` happens before step `b`, and
/// `independent(x, y)` whether two operations commute.
pub struct Order<'a> {
    /// Happens-before between positions of the sequence.
    pub precedes: &'a dyn Fn(usize, usize) -> bool,
    /// Independence of two operations (of different threads).
    pub independent: &'a dyn Fn(&Op, &Op) -> bool,
}

/// Is `thread`, whose next step is `op`, a weak initial of the steps of
/// `seq` at positions `remaining` (in order)? `Some(Some(k))` if its first
/// step there, at index `k` of `remaining`, has no predecessor among them;
/// `Some(None)` if it has no step there and `op` is independent of all of
/// them; `None` otherwise.
pub fn weak_initial(
    thread: u32,
    op: &Op,
    seq: &[Step],
    remaining: &[usize],
    order: &Order<'_>,
) -> Option<Option<usize>> {
    match remaining.iter().position(|&s| seq[s].thread == thread) {
        Some(k) => {
            let b = remaining[k];
            let preceded = remaining[..k].iter().any(|&a| (order.precedes)(a, b));
            (!preceded).then_some(Some(k))
        }
        None => remaining
            .iter()
            .all(|&s| (order.independent)(op, &seq[s].op))
            .then_some(None),
    }
}

/// A wakeup tree: the ordered sequences still to explore from one state.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WakeupTree {
    /// The first steps of the sequences, leftmost first.
    pub children: Vec<Branch>,
}

impl WakeupTree {
    /// A tree of the given branches.
    pub fn of(children: Vec<Branch>) -> WakeupTree {
        WakeupTree { children }
    }

    /// True if nothing is left to explore.
    pub fn is_empty(&self) -> bool {
        self.children.is_empty()
    }

    /// Takes the leftmost branch out of the tree.
    pub fn pop_first(&mut self) -> Option<Branch> {
        (!self.children.is_empty()).then(|| self.children.remove(0))
    }

    /// `insert_[E](w, B)` (Sec. 6.2): adds `seq` unless a sequence of the
    /// tree that is a weak prefix of it ends in a leaf, or `seq` is used up
    /// on the way (it is then a weak prefix of a sequence in the tree).
    /// Otherwise the rest of `seq` becomes a new leaf after the longest
    /// matching node, to the right of its children, its steps tagged with
    /// `origin` ([`Branch::origin`]). Returns true if the
    /// tree changed.
    pub fn insert(&mut self, seq: &[Step], order: &Order<'_>, origin: u32) -> bool {
        let mut remaining: Vec<usize> = (0..seq.len()).collect();
        let mut level = &mut self.children;
        loop {
            if remaining.is_empty() {
                return false;
            }
            let found = level.iter().enumerate().find_map(|(ix, child)| {
                weak_initial(child.step.thread, &child.step.op, seq, &remaining, order)
                    .map(|hit| (ix, hit))
            });
            let Some((ix, hit)) = found else {
                level.push(chain(seq, &remaining, origin));
                return true;
            };
            if let Some(k) = hit {
                remaining.remove(k);
            }
            if level[ix].children.is_empty() {
                return false;
            }
            level = &mut level[ix].children;
        }
    }
}

/// The steps of `seq` at `positions` (non-empty) as one path, recorded
/// under input vector `origin`.
fn chain(seq: &[Step], positions: &[usize], origin: u32) -> Branch {
    let mut node = Branch {
        step: seq[positions[positions.len() - 1]],
        children: Vec::new(),
        origin,
    };
    for &s in positions[..positions.len() - 1].iter().rev() {
        node = Branch {
            step: seq[s],
            children: vec![node],
            origin,
        };
    }
    node
}

#[cfg(test)]
mod tests {
    use super::*;
    use reach_channel::{EventFlags, OpKind};

    fn op(kind: OpKind, object: u64) -> Op {
        Op {
            kind,
            flags: EventFlags::default(),
            object,
            aux: 4,
        }
    }

    fn read(t: u32, x: u64) -> Step {
        Step {
            thread: t,
            op: op(OpKind::Load, x),
            choice: 0,
        }
    }

    fn write(t: u32, x: u64) -> Step {
        Step {
            thread: t,
            op: op(OpKind::Store, x),
            choice: 0,
        }
    }

    /// Happens-before of a hand-made sequence: program order and conflicts.
    fn insert(tree: &mut WakeupTree, seq: &[Step]) -> bool {
        let precedes =
            |a: usize, b: usize| seq[a].thread == seq[b].thread || seq[a].op.conflicts(&seq[b].op);
        let independent = |x: &Op, y: &Op| !x.conflicts(y);
        tree.insert(
            seq,
            &Order {
                precedes: &precedes,
                independent: &independent,
            },
            0,
        )
    }

    fn threads(tree: &WakeupTree) -> Vec<Vec<u32>> {
        fn walk(b: &Branch, path: &mut Vec<u32>, out: &mut Vec<Vec<u32>>) {
            path.push(b.step.thread);
            if b.children.is_empty() {
                out.push(path.clone());
            }
            for c in &b.children {
                walk(c, path, out);
            }
            path.pop();
        }
        let mut out = Vec::new();
        for b in &tree.children {
            walk(b, &mut Vec::new(), &mut out);
        }
        out
    }

    #[test]
    fn first_sequence_becomes_a_chain() {
        let mut tree = WakeupTree::default();
        assert!(insert(&mut tree, &[write(1, 10), read(2, 10)]));
        assert_eq!(threads(&tree), vec![vec![1, 2]]);
    }

    #[test]
    fn an_equivalent_sequence_is_not_inserted_twice() {
        let mut tree = WakeupTree::default();
        // 1 and 2 touch different objects: [1, 2] and [2, 1] are one trace.
        assert!(insert(&mut tree, &[write(1, 10), write(2, 20)]));
        assert!(!insert(&mut tree, &[write(2, 20), write(1, 10)]));
        assert_eq!(threads(&tree), vec![vec![1, 2]]);
    }

    #[test]
    fn a_sequence_extending_a_leaf_is_covered() {
        let mut tree = WakeupTree::default();
        assert!(insert(&mut tree, &[write(1, 10)]));
        // Any execution continuing the leaf [1] can reach [1, 2].
        assert!(!insert(&mut tree, &[write(1, 10), write(2, 10)]));
    }

    #[test]
    fn a_prefix_of_a_branch_is_covered() {
        let mut tree = WakeupTree::default();
        assert!(insert(&mut tree, &[write(1, 10), write(2, 10)]));
        assert!(!insert(&mut tree, &[write(1, 10)]));
    }

    #[test]
    fn a_conflicting_order_branches_off() {
        let mut tree = WakeupTree::default();
        assert!(insert(&mut tree, &[write(1, 10), write(2, 10)]));
        // 2 first: 2's write does not commute with 1's, so 1 is no weak
        // initial of [2, 1]; a new branch to the right.
        assert!(insert(&mut tree, &[write(2, 10), write(1, 10)]));
        assert_eq!(threads(&tree), vec![vec![1, 2], vec![2, 1]]);
    }

    #[test]
    fn the_new_leaf_goes_below_the_longest_weak_prefix() {
        let mut tree = WakeupTree::default();
        assert!(insert(
            &mut tree,
            &[write(3, 30), write(1, 10), write(2, 10)]
        ));
        // Thread 3's step commutes with the rest: [3] is a weak prefix of
        // [2, 1] (3 is a weak initial: absent and independent), so the
        // rest goes under node 3, after its child 1.
        assert!(insert(&mut tree, &[write(2, 10), write(1, 10)]));
        assert_eq!(threads(&tree), vec![vec![3, 1, 2], vec![3, 2, 1]]);
    }

    #[test]
    fn reads_commute() {
        let mut tree = WakeupTree::default();
        assert!(insert(&mut tree, &[read(1, 10), read(2, 10), write(3, 10)]));
        assert!(!insert(
            &mut tree,
            &[read(2, 10), read(1, 10), write(3, 10)]
        ));
        assert_eq!(threads(&tree), vec![vec![1, 2, 3]]);
    }

    #[test]
    fn weak_initials_follow_the_definition() {
        let seq = [write(1, 10), read(2, 10), write(3, 30)];
        let precedes = |a: usize, b: usize| seq[a].op.conflicts(&seq[b].op);
        let independent = |x: &Op, y: &Op| !x.conflicts(y);
        let order = Order {
            precedes: &precedes,
            independent: &independent,
        };
        let all = [0, 1, 2];
        assert_eq!(
            weak_initial(1, &seq[0].op, &seq, &all, &order),
            Some(Some(0))
        );
        // 2's read follows 1's write.
        assert_eq!(weak_initial(2, &seq[1].op, &seq, &all, &order), None);
        assert_eq!(
            weak_initial(3, &seq[2].op, &seq, &all, &order),
            Some(Some(2))
        );
        // Absent thread 4: a weak initial iff its step commutes with all.
        assert_eq!(
            weak_initial(4, &op(OpKind::Load, 30), &seq, &all, &order),
            None
        );
        assert_eq!(
            weak_initial(4, &op(OpKind::Load, 40), &seq, &all, &order),
            Some(None)
        );
    }

    #[test]
    fn a_new_leaf_carries_the_input_vector_it_was_recorded_under() {
        let mut tree = WakeupTree::default();
        let seq = [write(3, 30), write(1, 10), write(2, 10)];
        let precedes =
            |a: usize, b: usize| seq[a].thread == seq[b].thread || seq[a].op.conflicts(&seq[b].op);
        let independent = |x: &Op, y: &Op| !x.conflicts(y);
        let order = Order {
            precedes: &precedes,
            independent: &independent,
        };
        assert!(tree.insert(&seq, &order, 4));
        let other = [write(2, 10), write(1, 10)];
        let precedes = |a: usize, b: usize| other[a].op.conflicts(&other[b].op);
        let order = Order {
            precedes: &precedes,
            independent: &independent,
        };
        // Below node 3 (a weak prefix recorded under vector 4), the rest
        // of the sequence recorded under vector 7.
        assert!(tree.insert(&other, &order, 7));
        assert_eq!(threads(&tree), vec![vec![3, 1, 2], vec![3, 2, 1]]);
        let first = &tree.children[0];
        assert_eq!(first.leftmost_origin(), 4);
        assert_eq!(first.children[1].leftmost_origin(), 7);
    }

    #[test]
    fn a_chain_as_deep_as_a_long_execution_is_cloned_compared_and_dropped_without_recursion() {
        let steps: Vec<Step> = (0..1_000_000u32).map(|i| write(i % 3, 10)).collect();
        let positions: Vec<usize> = (0..steps.len()).collect();
        let mut deep = chain(&steps, &positions, 0);
        deep.children.push(chain(&steps[..2], &[0, 1], 5));
        let copy = deep.clone();
        assert!(copy == deep);
        assert_eq!(copy.leftmost_threads().len(), 1_000_000);
        let mut other = chain(&steps, &positions, 0);
        assert!(other != deep);
        other.children.push(chain(&steps[..2], &[0, 1], 5));
        assert!(other == deep);
        let small = chain(&steps[..3], &[0, 1, 2], 1);
        assert_eq!(format!("{small:?}"), "[0:T0/1, 1:T1/1, 2:T2/1]");
        drop(copy);
        drop(deep);
    }

    #[test]
    fn popping_takes_the_leftmost_branch() {
        let mut tree = WakeupTree::default();
        insert(&mut tree, &[write(1, 10), write(2, 10)]);
        insert(&mut tree, &[write(2, 10), write(1, 10)]);
        let first = tree.pop_first().map(|b| b.leftmost_threads());
        assert_eq!(first, Some(vec![1, 2]));
        assert_eq!(threads(&tree), vec![vec![2, 1]]);
    }
}
