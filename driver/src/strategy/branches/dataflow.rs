//! Use-defines and the operations a branch condition depends on
//! (Setiadi et al., Sec. 4.2, Algorithm 2).
//!
//! The runtime traces data flow through shadow computations (a program
//! built with `REACH_SYMBOLIC=1`, run with the channel's shared-load
//! request): the value of every traced shared load is an expression leaf
//! naming its event, a branch record carries the expression of its
//! condition, and a definition record the expression of a value a traced
//! store wrote. From one trace:
//!
//! * a **use** is a traced read; its **defines** are the writes that can
//!   give it its value: every write to the same granules by another thread
//!   anywhere in the trace (the paper's *extended* use-defines: which one
//!   does depends on the interleaving) and the earlier writes of its own
//!   thread (*conventional* use-defines);
//! * a use-define `ud2` **depends on** `ud1` when the definition of `ud2`
//!   stored a value computed from the use of `ud1` (the definition record's
//!   leaves);
//! * `BranchRelUD(b)` is the fixpoint of Algorithm 2: start from the
//!   use-defines of the reads the condition of `b` is computed from, add
//!   every use-define one of them depends on, leaving out use-defines with
//!   an operation of `b`'s thread after `b`; `BranchRelOP(b)` is the set of
//!   their reads and writes.

use super::events::BranchId;
use super::manners::held_locks_after;
use crate::analysis::objects::{touched, Mode};
use crate::exec::symbolic::SymTrace;
use crate::trace::Trace;
use reach_channel::symbolic::{BranchKind, SymOp};
use reach_channel::Space;
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::sync::Arc;

/// Most branch records of one execution that are analysed; the rest are
/// ignored (the search then says it is incomplete).
pub const MAX_BRANCHES_PER_TRACE: usize = 10_000;

/// One branch whose condition depends on shared memory: its evaluations
/// with one identity (a loop's later tests, see [`BranchId`]) merged.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BranchInstance {
    /// Identity across executions.
    pub id: BranchId,
    /// The outcome of the last evaluation (the condition held).
    pub taken: bool,
    /// Events recorded before the last evaluation.
    pub step: usize,
    /// `BranchRelOP(b)`: trace indices of the reads and writes the
    /// condition depends on, sorted.
    pub related: Vec<usize>,
}

/// What the data-flow analysis of one trace found.
#[derive(Clone, Debug, Default)]
pub struct BranchFlow {
    /// Branches in the order of their first evaluation.
    pub branches: Vec<BranchInstance>,
    /// Branch records beyond [`MAX_BRANCHES_PER_TRACE`] or naming events
    /// outside the trace, left out.
    pub dropped: usize,
    /// Expressions over more than [`MAX_LEAVES`] shared reads, cut there.
    pub widened: usize,
}

/// Most shared reads one expression is tracked from; an expression over
/// more (a checksum of a shared buffer) keeps the first ones and counts as
/// widened ([`BranchFlow::widened`]).
pub const MAX_LEAVES: usize = 128;

/// The shared reads (trace indices, sorted) every expression node is
/// computed from, by one pass in id order: operands are earlier nodes
/// (the node array is untrusted: an operand that is not earlier is
/// ignored). Also returns how many nodes went past [`MAX_LEAVES`].
fn leaf_sets(sym: &SymTrace) -> (Vec<Arc<[usize]>>, usize) {
    let empty: Arc<[usize]> = Arc::from(Vec::new());
    let mut sets: Vec<Arc<[usize]>> = Vec::with_capacity(sym.nodes.len() + 1);
    sets.push(empty.clone());
    let mut widened = 0;
    for (i, n) in sym.nodes.iter().enumerate() {
        let id = i as u32 + 1;
        if n.op == SymOp::SharedRead as u16 {
            let set = usize::try_from(n.imm).map_or_else(|_| empty.clone(), |e| Arc::from(vec![e]));
            sets.push(set);
            continue;
        }
        let children: Vec<&Arc<[usize]>> = [n.a, n.b, n.c]
            .into_iter()
            .filter(|&c| c != 0 && c < id)
            .map(|c| &sets[c as usize])
            .filter(|s| !s.is_empty())
            .collect();
        let set = match children.as_slice() {
            [] => empty.clone(),
            [one] => (*one).clone(),
            many => {
                let mut all: Vec<usize> = many.iter().flat_map(|s| s.iter().copied()).collect();
                all.sort_unstable();
                all.dedup();
                if all.len() > MAX_LEAVES {
                    all.truncate(MAX_LEAVES);
                    widened += 1;
                }
                Arc::from(all)
            }
        };
        sets.push(set);
    }
    (sets, widened)
}

/// Reads and writes of program memory, by granule.
struct Accesses {
    /// Writes of each granule (trace indices, in order).
    writes: HashMap<u64, Vec<usize>>,
    /// Granules each event reads.
    reads: HashMap<usize, Vec<u64>>,
}

fn accesses(trace: &Trace) -> Accesses {
    let mut writes: HashMap<u64, Vec<usize>> = HashMap::default();
    let mut reads: HashMap<usize, Vec<u64>> = HashMap::default();
    for (i, e) in trace.events.iter().enumerate() {
        for ((space, granule), class) in touched(&e.op) {
            if space != Space::Memory {
                continue;
            }
            if class == Mode::Read {
                reads.entry(i).or_default().push(granule);
            } else {
                writes.entry(granule).or_default().push(i);
            }
        }
    }
    Accesses { writes, reads }
}

/// Computes `BranchRelOP` of every branch instance of `trace` (Algorithm 2).
pub fn branch_flow(trace: &Trace) -> BranchFlow {
    let Some(sym) = trace.symbolic.as_deref() else {
        return BranchFlow::default();
    };
    let len = trace.events.len();
    let acc = accesses(trace);
    let (sets, widened) = leaf_sets(sym);
    let leaves = |id: u32| {
        sets.get(id as usize)
            .cloned()
            .unwrap_or_else(|| Arc::from(Vec::new()))
    };
    // The reads each traced store's value was computed from.
    let mut defined_from: HashMap<usize, Vec<usize>> = HashMap::default();
    for rec in &sym.branches {
        if rec.kind != BranchKind::Definition as u16 {
            continue;
        }
        let Ok(store) = usize::try_from(rec.step) else {
            continue;
        };
        if store < len {
            let from = leaves(rec.expr);
            defined_from
                .entry(store)
                .or_default()
                .extend(from.iter().copied());
        }
    }
    let held = held_locks_after(trace);
    let thread_of = |i: usize| trace.events[i].thread;
    let mut occurrences: HashMap<(u32, u64), u32> = HashMap::default();
    let mut flow = BranchFlow {
        widened,
        ..BranchFlow::default()
    };
    // Evaluations with one identity (a loop's later tests) are one branch:
    // the union of their reads, the last one's outcome and position.
    let mut index: HashMap<BranchId, usize> = HashMap::default();
    let mut merged: Vec<(BranchId, bool, usize, Vec<usize>)> = Vec::new();
    let mut analysed = 0usize;
    for rec in &sym.branches {
        if rec.kind != BranchKind::Branch as u16 {
            continue;
        }
        analysed += 1;
        if analysed > MAX_BRANCHES_PER_TRACE {
            flow.dropped += 1;
            continue;
        }
        let step = usize::try_from(rec.step).unwrap_or(usize::MAX).min(len);
        let uses = leaves(rec.expr);
        if uses.iter().any(|&r| r >= len) {
            flow.dropped += 1;
            continue;
        }
        let thread = rec.thread;
        // Lock depth of the thread at the branch: its last event before it.
        let mine = trace.events_of(thread);
        let before = mine.partition_point(|&i| (i as usize) < step);
        let depth = before.checked_sub(1).map_or(0, |k| held[mine[k] as usize]);
        let count = occurrences.entry((thread, rec.site)).or_insert(0);
        let occurrence = if depth == 0 { (*count).min(1) } else { *count };
        *count += 1;
        let id = BranchId {
            thread,
            site: rec.site,
            occurrence,
        };
        let slot = *index.entry(id).or_insert_with(|| {
            merged.push((id, false, 0, Vec::new()));
            merged.len() - 1
        });
        let entry = &mut merged[slot];
        entry.1 = rec.taken != 0;
        entry.2 = step;
        entry.3.extend(uses.iter().copied());
    }
    for (id, taken, step, mut uses) in merged {
        uses.sort_unstable();
        uses.dedup();
        let after_branch = |e: usize| thread_of(e) == id.thread && e >= step;
        let related = closure(&uses, &acc, &defined_from, &after_branch, thread_of);
        flow.branches.push(BranchInstance {
            id,
            taken,
            step,
            related,
        });
    }
    flow
}

/// The fixpoint of Algorithm 2 from the reads `uses`: their use-defines,
/// then those the definitions depend on, without operations for which
/// `excluded` holds.
fn closure(
    uses: &[usize],
    acc: &Accesses,
    defined_from: &HashMap<usize, Vec<usize>>,
    excluded: &dyn Fn(usize) -> bool,
    thread_of: impl Fn(usize) -> u32,
) -> Vec<usize> {
    let mut related: HashSet<usize> = HashSet::default();
    let mut work: Vec<usize> = uses.iter().copied().filter(|&r| !excluded(r)).collect();
    while let Some(read) = work.pop() {
        if !related.insert(read) {
            continue;
        }
        let granules = acc.reads.get(&read).map_or(&[][..], Vec::as_slice);
        for g in granules {
            let Some(writes) = acc.writes.get(g) else {
                continue;
            };
            let definers = writes
                .iter()
                .copied()
                .filter(|&w| thread_of(w) != thread_of(read) || w < read);
            for w in definers {
                if excluded(w) || !related.insert(w) {
                    continue;
                }
                if let Some(from) = defined_from.get(&w) {
                    work.extend(from.iter().copied().filter(|&r| !excluded(r)));
                }
            }
        }
    }
    let mut v: Vec<usize> = related.into_iter().collect();
    v.sort_unstable();
    v
}
