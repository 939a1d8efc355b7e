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
struct Group {
    /// The interned related operations of the branch it was made for.
    set: u32,
    /// Hash of the order of those operations its members have.
    order: u64,
    /// The outcome a tested member gave the branch (`None`: untested, or
    /// the branch was not reached).
    outcome: Option<bool>,
    /// A member was executed.
    tested: bool,
}

/// One executed run, as the table sees it.
struct Run {
    /// Where each event identity occurs in it (kept while the memory bound
    /// allows, to place later related sets).
    positions: Option<Positions>,
    /// Outcome of each branch (the last evaluation of a merged loop branch).
    outcomes: HashMap<BranchId, bool>,
}

/// A set of related operations, interned, with the orders of it the
/// executed runs had.
struct RelatedSet {
    ops: RelatedOps,
    /// Hash of an order → the first run that had it.
    seen: HashMap<u64, usize>,
}

/// Most event identities kept for executed runs (16 bytes each): past it
/// new runs are no longer stored, and a related set first met later is not
/// placed in them (groups they would have tested stay untested, costing
/// executions, never coverage).
pub const MAX_STORED_KEYS: usize = 1 << 24;

fn hash_of(v: &impl Hash) -> u64 {
    let mut h = rustc_hash::FxHasher::default();
    v.hash(&mut h);
    h.finish()
}

/// The groups of every branch seen and the rows tested.
#[derive(Default)]
pub struct Table {
    groups: HashMap<GroupKey, Group>,
    runs: Vec<Run>,
    stored: usize,
    branches: HashSet<BranchId>,
    sets: Vec<RelatedSet>,
    /// Content hash → interned sets with it.
    by_content: HashMap<u64, Vec<u32>>,
}

impl Table {
    /// Interns a set of related operations: equal sets of different traces
    /// share one id, and each set is placed once in every stored run.
    pub fn intern(&mut self, ops: HashSet<EventKey>) -> (u32, RelatedOps) {
        let mut sorted: Vec<&EventKey> = ops.iter().collect();
        sorted.sort_unstable();
        let content = hash_of(&sorted);
        if let Some(ids) = self.by_content.get(&content) {
            for &id in ids {
                if *self.sets[id as usize].ops == ops {
                    return (id, self.sets[id as usize].ops.clone());
                }
            }
        }
        let ops = Arc::new(ops);
        let mut seen: HashMap<u64, usize> = HashMap::default();
        for (i, run) in self.runs.iter().enumerate() {
            if let Some(p) = &run.positions {
                seen.entry(hash_of(&p.project(&ops))).or_insert(i);
            }
        }
        let id = self.sets.len() as u32;
        self.sets.push(RelatedSet {
            ops: ops.clone(),
            seen,
        });
        self.by_content.entry(content).or_default().push(id);
        (id, ops)
    }

    /// The group of `branch` whose members have `order` of the interned
    /// set `set`: registered, and tested at once if an executed run had
    /// that order.
    pub fn group(&mut self, branch: BranchId, set: u32, order: &[EventKey]) -> GroupKey {
        let order = hash_of(&order);
        let key = GroupKey {
            branch,
            order: hash_of(&(order, set)),
        };
        self.branches.insert(branch);
        if !self.groups.contains_key(&key) {
            let run = self
                .sets
                .get(set as usize)
                .and_then(|s| s.seen.get(&order).copied());
            let group = Group {
                set,
                order,
                outcome: run.and_then(|r| self.runs[r].outcomes.get(&branch).copied()),
                tested: run.is_some(),
            };
            self.groups.insert(key, group);
        }
        key
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
        let positions = Positions::of(keys);
        let index = self.runs.len();
        for set in &mut self.sets {
            set.seen
                .entry(hash_of(&positions.project(&set.ops)))
                .or_insert(index);
        }
        let sets = &self.sets;
        for (key, group) in self.groups.iter_mut().filter(|(_, g)| !g.tested) {
            let realised = chosen.contains(key)
                || sets[group.set as usize].seen.get(&group.order) == Some(&index);
            if realised {
                group.tested = true;
                group.outcome = outcomes.get(&key.branch).copied();
            }
        }
        self.branches.extend(outcomes.keys().copied());
        let keep = self.stored + positions.len() <= MAX_STORED_KEYS;
        if keep {
            self.stored += positions.len();
        }
        self.runs.push(Run {
            positions: keep.then_some(positions),
            outcomes,
        });
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
        self.row_tested_since(row, 0)
    }

    /// True if some executed run from the `from`-th on had every outcome
    /// of `row`.
    pub fn row_tested_since(&self, row: &[(BranchId, bool)], from: usize) -> bool {
        self.runs.iter().skip(from).any(|run| {
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

    /// Runs recorded.
    pub fn run_count(&self) -> usize {
        self.runs.len()
    }

    /// Branches seen.
    pub fn branch_count(&self) -> usize {
        self.branches.len()
    }
}
