//! One linearisation of a race variant's partial order (the schedule prefix
//! the runtime forces), by a single topological pass.
//!
//! Each member of the variant has a *slot*: its place in the object orders
//! of the variant. Unchanged events keep their trace position; a read that
//! moves sits just before or just after the write it now reads around; a
//! new partner call that was pending at the end comes after every executed
//! event, in the order of its group. The edges are exactly those that make
//! up the variant's happens-before: program order, creation and joining,
//! and per object granule, in slot order, every access after the last
//! write and every write after the accesses since the previous write
//! (reads commute); the process exit follows everything. Kahn's algorithm,
//! taking the ready event with the smallest slot, lists them in
//! `O((n + a) log(n + a))` for `n` events and `a` granule accesses, where
//! only the events from the variant's first change on count: the settled
//! head before it is the trace's own order.

use super::model::SynSequence;
use crate::analysis::objects::{touched, Mode, ObjectKey};
use crate::cancel::{Cancel, Checkpoint};
use reach_channel::OpKind;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Slot of an unchanged executed event at trace position `pos`.
pub fn slot_at(pos: usize) -> u64 {
    2 * pos as u64 + 1
}

/// Slot just before the event at trace position `pos`.
pub fn slot_before(pos: usize) -> u64 {
    2 * pos as u64
}

/// Slot just after the event at trace position `pos`.
pub fn slot_after(pos: usize) -> u64 {
    2 * pos as u64 + 2
}

/// A topological order of `members` (event index, slot) under the
/// variant's happens-before, ties broken by slot, as the length `k` of its
/// *settled* head (the executed events `0..k`, in trace order) and the
/// rest; `None` if the constraints are cyclic (the row names no feasible
/// partial order), or if `cancel` fires on the way (a row of a long
/// sequence takes long).
///
/// `members` lists the executed events it keeps in trace order, then the
/// new partner calls. The settled head, the events up to the first that
/// the variant removes, moves or follows with a moved one, comes first and
/// in trace order (every edge into it comes from a smaller slot inside it,
/// and all its slots are below the rest); only the rest is sorted, so a
/// variant of a late race in a long execution costs little more than
/// its own steps.
pub fn linearise(
    seq: &SynSequence,
    members: &[(usize, u64)],
    cancel: &Cancel,
) -> Option<(usize, Vec<usize>)> {
    let settled = settled_head(seq, members);
    let rest = members.get(settled..).unwrap_or_default();
    Some((settled, linearise_all(seq, rest, cancel)?))
}

/// Length of the settled head of `members` (see [`linearise`]): the
/// longest run of unchanged executed events `0, 1, 2, ...` at their own
/// slots, below every other member's slot, without a process exit (which
/// follows everything).
fn settled_head(seq: &SynSequence, members: &[(usize, u64)]) -> usize {
    let changed = members
        .iter()
        .filter(|&&(g, slot)| slot != slot_at(g) || g >= seq.executed)
        .map(|&(_, slot)| slot)
        .min()
        .unwrap_or(u64::MAX);
    members
        .iter()
        .enumerate()
        .take_while(|&(i, &(g, slot))| {
            g == i
                && slot == slot_at(g)
                && slot < changed
                && seq.events[g].op.kind != OpKind::ProcessExit
        })
        .count()
}

/// [`linearise`] by Kahn's algorithm over all of `members`.
fn linearise_all(
    seq: &SynSequence,
    members: &[(usize, u64)],
    cancel: &Cancel,
) -> Option<Vec<usize>> {
    let mut checkpoint = Checkpoint::new(cancel);
    let n = members.len();
    let mut edges: Vec<Vec<u32>> = vec![Vec::new(); n];
    let mut indegree = vec![0u32; n];
    let mut add = |from: usize, to: usize, edges: &mut Vec<Vec<u32>>| {
        if from != to {
            edges[from].push(to as u32);
            indegree[to] += 1;
        }
    };

    // Program order, creation and joining.
    let mut by_thread: Vec<(u32, u32, usize)> = members
        .iter()
        .enumerate()
        .map(|(k, &(g, _))| (seq.events[g].id.thread, seq.events[g].id.index, k))
        .collect();
    by_thread.sort_unstable();
    let first_of = |t: u32| {
        let at = by_thread.partition_point(|&(u, _, _)| u < t);
        by_thread.get(at).filter(|&&(u, _, _)| u == t).map(|x| x.2)
    };
    let last_of = |t: u32| {
        let at = by_thread.partition_point(|&(u, _, _)| u <= t);
        at.checked_sub(1)
            .and_then(|a| by_thread.get(a))
            .filter(|&&(u, _, _)| u == t)
            .map(|x| x.2)
    };
    for pair in by_thread.windows(2) {
        if pair[0].0 == pair[1].0 {
            add(pair[0].2, pair[1].2, &mut edges);
        }
    }
    let mut exits = Vec::new();
    for (k, &(g, _)) in members.iter().enumerate() {
        if checkpoint.stop() {
            return None;
        }
        let op = seq.events[g].op;
        match op.kind {
            OpKind::ThreadCreate => {
                if let Some(child) = u32::try_from(op.object).ok().and_then(first_of) {
                    add(k, child, &mut edges);
                }
            }
            OpKind::ThreadJoin => {
                if let Some(last) = u32::try_from(op.object).ok().and_then(last_of) {
                    add(last, k, &mut edges);
                }
            }
            OpKind::ProcessExit => exits.push(k),
            _ => {}
        }
    }

    // Object orders, reads commuting.
    let mut accesses: Vec<(ObjectKey, u64, usize, Mode)> = Vec::new();
    for (k, &(g, slot)) in members.iter().enumerate() {
        for (key, class) in touched(&seq.events[g].op) {
            accesses.push((key, slot, k, class));
        }
    }
    if checkpoint.stop() {
        return None;
    }
    accesses.sort_unstable_by_key(|a| (a.0, a.1, a.2));
    let mut start = 0;
    while start < accesses.len() {
        if checkpoint.stop() {
            return None;
        }
        let key = accesses[start].0;
        let end = start + accesses[start..].partition_point(|a| a.0 == key);
        let mut last_write: Option<usize> = None;
        let mut reads: Vec<usize> = Vec::new();
        for &(_, _, k, class) in &accesses[start..end] {
            if let Some(w) = last_write {
                add(w, k, &mut edges);
            }
            if class.writes() {
                for &r in &reads {
                    add(r, k, &mut edges);
                }
                reads.clear();
                last_write = Some(k);
            } else {
                reads.push(k);
            }
        }
        start = end;
    }
    for &x in &exits {
        for k in 0..n {
            if !exits.contains(&k) {
                add(k, x, &mut edges);
            }
        }
    }

    let mut ready: BinaryHeap<Reverse<(u64, usize)>> = (0..n)
        .filter(|&k| indegree[k] == 0)
        .map(|k| Reverse((members[k].1, k)))
        .collect();
    let mut order = Vec::with_capacity(n);
    while let Some(Reverse((_, k))) = ready.pop() {
        if checkpoint.stop() {
            return None;
        }
        order.push(members[k].0);
        for &to in &edges[k] {
            let to = to as usize;
            indegree[to] -= 1;
            if indegree[to] == 0 {
                ready.push(Reverse((members[to].1, to)));
            }
        }
    }
    (order.len() == n).then_some(order)
}
