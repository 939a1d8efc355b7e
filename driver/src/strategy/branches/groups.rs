//! Branch-affect groups (Setiadi et al., Sec. 4.3, Algorithm 3) and the
//! branch-condition table (Sec. 4.4).
//!
//! Two execution-variants that perform the operations of `BranchRelOP(b)`
//! in the same order give the branch `b` the same condition value, so they
//! form one **branch-affect group** of `b` and one member is enough. A
//! variant is a forced prefix followed by a free run: its group of `b` is
//! the order of `BranchRelOP(b)` in the prefix ([`project`]), and an
//! execution whose own order begins with it is a member that was tested.
//!
//! The **branch-condition table** has a row for every combination of
//! outcomes of the branches; a row is tested once an execution had those
//! outcomes. A variant whose groups are all tested has a known row: the
//! outcomes its groups gave.

use super::events::{BranchId, EventKey};
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::hash::{Hash, Hasher};
use std::sync::Arc;

/// `BranchRelOP(b)` of one branch, as identities.
pub type RelatedOps = Arc<HashSet<EventKey>>;

/// Where each operation occurs in a sequence of operations.
#[derive(Debug, Default)]
pub struct Positions {
    at: HashMap<EventKey, Vec<u32>>,
    len: usize,
}

impl Positions {
    /// Indexes `sequence`.
    pub fn of<'a>(sequence: impl IntoIterator<Item = &'a EventKey>) -> Positions {
        Self::of_only(sequence, |_| true)
    }

    /// Indexes the operations of `sequence` for which `keep` holds (the
    /// others are never asked for).
    pub fn of_only<'a>(
        sequence: impl IntoIterator<Item = &'a EventKey>,
        keep: impl Fn(&EventKey) -> bool,
    ) -> Positions {
        let mut at: HashMap<EventKey, Vec<u32>> = HashMap::default();
        let mut len = 0;
        for (i, k) in sequence.into_iter().enumerate() {
            if keep(k) {
                at.entry(*k).or_default().push(i as u32);
            }
            len = i + 1;
        }
        Positions { at, len }
    }

    /// Number of operations indexed.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True if nothing is indexed.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The order of the operations of `related` in the sequence, a
    /// repeated operation counted once in a row (equivalent iterations:
    /// how often a lock-free loop body ran between two other operations
    /// does not matter).
    pub fn project(&self, related: &HashSet<EventKey>) -> Vec<EventKey> {
        let mut hits: Vec<(u32, EventKey)> = related
            .iter()
            .filter_map(|k| self.at.get(k).map(|p| (k, p)))
            .flat_map(|(k, p)| p.iter().map(move |&i| (i, *k)))
            .collect();
        hits.sort_unstable_by_key(|(i, _)| *i);
        let mut out: Vec<EventKey> = Vec::with_capacity(hits.len());
        for (_, k) in hits {
            if out.last() != Some(&k) {
                out.push(k);
            }
        }
        out
    }
}

/// The order of the operations of `related` in `sequence` (see
/// [`Positions::project`]).
pub fn project<'a>(
    sequence: impl IntoIterator<Item = &'a EventKey>,
    related: &HashSet<EventKey>,
) -> Vec<EventKey> {
    Positions::of(sequence).project(related)
}

/// A branch-affect group: a branch and an order of its related operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GroupKey {
    /// The branch.
    pub branch: BranchId,
    /// Hash of the order (and of the operations it is over).
    pub order: u64,
}

/// What is known of one group.
#[derive(Clone, Debug)]
pub struct Group {
    /// The related operations of the branch it was made for.
    pub related: RelatedOps,
    /// The order of `related` its members begin with.
    pub order: Vec<EventKey>,
    /// The outcome a tested member gave the branch (`None`: untested, or
    /// the branch was not reached).
    pub outcome: Option<bool>,
    /// A member was executed.
    pub tested: bool,
}

/// One executed run, as the table sees it.
struct Run {
    /// Where each event identity occurs in it.
    positions: Positions,
    /// Outcome of each branch (the last evaluation of a merged loop branch).
    outcomes: HashMap<BranchId, bool>,
}

/// Most event identities kept for executed runs (16 bytes each): past it
/// new runs are no longer stored, and groups they would have tested stay
/// untested (costing executions, never coverage).
pub const MAX_STORED_KEYS: usize = 1 << 24;

/// The groups of every branch seen and the rows tested.
#[derive(Default)]
pub struct Table {
    groups: HashMap<GroupKey, Group>,
    runs: Vec<Run>,
    stored: usize,
    branches: HashSet<BranchId>,
}

impl Table {
    /// The group of `branch` whose members begin with `order` (of
    /// `related`): registered, and tested at once if an executed run began
    /// with that order.
    pub fn group(
        &mut self,
        branch: BranchId,
        related: &RelatedOps,
        order: Vec<EventKey>,
    ) -> GroupKey {
        let mut h = rustc_hash::FxHasher::default();
        order.hash(&mut h);
        let mut ops: Vec<&EventKey> = related.iter().collect();
        ops.sort_unstable();
        ops.hash(&mut h);
        let key = GroupKey {
            branch,
            order: h.finish(),
        };
        self.branches.insert(branch);
        if !self.groups.contains_key(&key) {
            let mut group = Group {
                related: related.clone(),
                order,
                outcome: None,
                tested: false,
            };
            for run in &self.runs {
                if Self::realises(run, &group) {
                    group.tested = true;
                    group.outcome = run.outcomes.get(&branch).copied();
                    break;
                }
            }
            self.groups.insert(key, group);
        }
        key
    }

    /// True if the run performed the group's related operations in the
    /// group's order.
    fn realises(run: &Run, group: &Group) -> bool {
        run.positions.project(&group.related) == group.order
    }

    /// Records an executed run, the run of a variant in groups `chosen`:
    /// those, and every other untested group the run realises, become
    /// tested with the outcome the run gave their branch.
    pub fn add_run(
        &mut self,
        keys: &[EventKey],
        outcomes: HashMap<BranchId, bool>,
        chosen: &[GroupKey],
    ) {
        let run = Run {
            positions: Positions::of(keys),
            outcomes,
        };
        // Groups made for one branch of one trace share their related
        // operations: project the run once per set.
        let mut orders: HashMap<*const HashSet<EventKey>, Vec<EventKey>> = HashMap::default();
        for (key, group) in self.groups.iter_mut().filter(|(_, g)| !g.tested) {
            let realised = chosen.contains(key) || {
                let order = orders
                    .entry(Arc::as_ptr(&group.related))
                    .or_insert_with(|| run.positions.project(&group.related));
                *order == group.order
            };
            if realised {
                group.tested = true;
                group.outcome = run.outcomes.get(&key.branch).copied();
            }
        }
        self.branches.extend(run.outcomes.keys().copied());
        if self.stored + run.positions.len() <= MAX_STORED_KEYS {
            self.stored += run.positions.len();
            self.runs.push(run);
        }
    }

    /// True if the group was tested.
    pub fn tested(&self, key: &GroupKey) -> bool {
        self.groups.get(key).is_some_and(|g| g.tested)
    }

    /// The known row of a variant in `groups`: each branch's outcome, if
    /// every group was tested and gave one.
    pub fn known_row(&self, groups: &[GroupKey]) -> Option<Vec<(BranchId, bool)>> {
        let mut row = Vec::with_capacity(groups.len());
        for key in groups {
            let g = self.groups.get(key)?;
            row.push((key.branch, g.outcome?));
        }
        row.sort_unstable();
        row.dedup();
        Some(row)
    }

    /// True if some executed run had every outcome of `row`.
    pub fn row_tested(&self, row: &[(BranchId, bool)]) -> bool {
        self.runs.iter().any(|run| {
            row.iter()
                .all(|(b, taken)| run.outcomes.get(b).is_some_and(|o| o == taken))
        })
    }

    /// True when every row of the table (every combination of outcomes of
    /// the branches seen) was tested: Algorithm 4's first stop condition.
    /// Only decided for up to 16 branches.
    pub fn all_rows_tested(&self) -> bool {
        let n = self.branches.len();
        if n == 0 || n > 16 {
            return false;
        }
        let ids: Vec<BranchId> = self.branches.iter().copied().collect();
        let rows: HashSet<u32> = self
            .runs
            .iter()
            .filter(|run| ids.iter().all(|b| run.outcomes.contains_key(b)))
            .map(|run| {
                ids.iter()
                    .enumerate()
                    .fold(0u32, |acc, (i, b)| acc | (u32::from(run.outcomes[b]) << i))
            })
            .collect();
        rows.len() == 1usize << n
    }

    /// Groups registered and groups tested.
    pub fn counts(&self) -> (usize, usize) {
        let tested = self.groups.values().filter(|g| g.tested).count();
        (self.groups.len(), tested)
    }

    /// Branches seen.
    pub fn branch_count(&self) -> usize {
        self.branches.len()
    }
}
