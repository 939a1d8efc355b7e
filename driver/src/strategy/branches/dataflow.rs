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
use crate::concolic::SymTrace;
use crate::trace::Trace;
use reach_channel::symbolic::{BranchKind, SymOp};
use reach_channel::Space;
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

/// Most branch records of one execution that are analysed; the rest are
/// ignored (the search then says it is incomplete).
pub const MAX_BRANCHES_PER_TRACE: usize = 10_000;

/// One evaluated branch whose condition depends on shared memory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BranchInstance {
    /// Identity across executions.
    pub id: BranchId,
    /// The outcome (the condition held).
    pub taken: bool,
    /// Events recorded before it: it lies after event `step - 1`.
    pub step: usize,
    /// `BranchRelOP(b)`: trace indices of the reads and writes the
    /// condition depends on, sorted.
    pub related: Vec<usize>,
}

/// What the data-flow analysis of one trace found.
#[derive(Clone, Debug, Default)]
pub struct BranchFlow {
    /// Branch instances in execution order.
    pub branches: Vec<BranchInstance>,
    /// Branch records beyond [`MAX_BRANCHES_PER_TRACE`] or naming events
    /// outside the trace, left out.
    pub dropped: usize,
}

/// The shared reads (trace indices) expression `root` is computed from.
/// The node array is untrusted: operands must name earlier nodes.
fn leaves(sym: &SymTrace, root: u32, memo: &mut HashMap<u32, Vec<usize>>) -> Vec<usize> {
    let mut out: HashSet<usize> = HashSet::default();
    let mut stack = vec![root];
    let mut seen: HashSet<u32> = HashSet::default();
    while let Some(id) = stack.pop() {
        if id == 0 || !seen.insert(id) {
            continue;
        }
        if let Some(done) = memo.get(&id) {
            out.extend(done.iter().copied());
            continue;
        }
        let Some(n) = sym.nodes.get(id as usize - 1) else {
            continue;
        };
        if n.op == SymOp::SharedRead as u16 {
            if let Ok(i) = usize::try_from(n.imm) {
                out.insert(i);
            }
            continue;
        }
        for child in [n.a, n.b, n.c] {
            if child != 0 && child < id {
                stack.push(child);
            }
        }
    }
    let mut v: Vec<usize> = out.into_iter().collect();
    v.sort_unstable();
    memo.insert(root, v.clone());
    v
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
    let mut memo: HashMap<u32, Vec<usize>> = HashMap::default();
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
            let from = leaves(sym, rec.expr, &mut memo);
            defined_from.entry(store).or_default().extend(from);
        }
    }
    let held = held_locks_after(trace);
    let thread_of = |i: usize| trace.events[i].thread;
    let mut occurrences: HashMap<(u32, u64), u32> = HashMap::default();
    let mut flow = BranchFlow::default();
    for rec in &sym.branches {
        if rec.kind != BranchKind::Branch as u16 {
            continue;
        }
        if flow.branches.len() >= MAX_BRANCHES_PER_TRACE {
            flow.dropped += 1;
            continue;
        }
        let step = usize::try_from(rec.step).unwrap_or(usize::MAX).min(len);
        let uses = leaves(sym, rec.expr, &mut memo);
        if uses.iter().any(|&r| r >= len) {
            flow.dropped += 1;
            continue;
        }
        let thread = rec.thread;
        // Lock depth of the thread at the branch: its last event before it.
        let depth = trace
            .events_of(thread)
            .iter()
            .map(|&i| i as usize)
            .take_while(|&i| i < step)
            .last()
            .map_or(0, |i| held[i]);
        let count = occurrences.entry((thread, rec.site)).or_insert(0);
        let occurrence = if depth == 0 { (*count).min(1) } else { *count };
        *count += 1;
        let after_branch = |e: usize| thread_of(e) == thread && e >= step;
        let related = closure(&uses, &acc, &defined_from, &after_branch, thread_of);
        flow.branches.push(BranchInstance {
            id: BranchId {
                thread,
                site: rec.site,
                occurrence,
            },
            taken: rec.taken != 0,
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
