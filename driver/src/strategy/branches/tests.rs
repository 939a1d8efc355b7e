//! Unit tests of the branch-directed search's parts on hand-made traces.

use super::dataflow::branch_flow;
use super::events::{event_keys, BranchId};
use super::groups::{project, Table};
use super::manners::{held_locks_after, manners, race_class};
use crate::exec::symbolic::SymTrace;
use crate::trace::{Trace, TraceEvent};
use reach_channel::symbolic::{BranchKind, BranchRecord, SymNode, SymOp};
use reach_channel::{EventFlags, Op, OpKind, ThreadSet};
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::sync::Arc;

const X: u64 = 0x1000;
const Y: u64 = 0x2000;
const M: u64 = 0x3000;

fn ev(thread: u32, kind: OpKind, object: u64, site: u64) -> TraceEvent {
    TraceEvent {
        thread,
        op: Op {
            kind,
            flags: EventFlags(0),
            object,
            aux: 4,
        },
        site,
        enabled: ThreadSet::EMPTY,
    }
}

fn node(op: SymOp, a: u32, b: u32, imm: u64) -> SymNode {
    SymNode {
        op: op as u16,
        width: if op == SymOp::SharedRead || op == SymOp::Const {
            32
        } else {
            1
        },
        a,
        b,
        c: 0,
        imm,
    }
}

fn record(thread: u32, kind: BranchKind, site: u64, expr: u32, step: u64) -> BranchRecord {
    BranchRecord {
        thread,
        kind: kind as u16,
        taken: 1,
        site,
        expr,
        _reserved: 0,
        step,
    }
}

fn with_flow(events: Vec<TraceEvent>, nodes: Vec<SymNode>, records: Vec<BranchRecord>) -> Trace {
    let mut trace = Trace::new(events, Vec::new());
    trace.symbolic = Some(Arc::new(SymTrace {
        nodes,
        branches: records,
        ..SymTrace::default()
    }));
    trace
}

/// Thread 2 reads `y` (event 0) and stores a value computed from it into
/// `x` (event 1); thread 1 reads `x` (event 2) and branches on it; thread 1
/// writes `x` after the branch (event 3), thread 3 writes `y` (event 4).
fn chain() -> Trace {
    let events = vec![
        ev(2, OpKind::Load, Y, 10),
        ev(2, OpKind::Store, X, 11),
        ev(1, OpKind::Load, X, 20),
        ev(1, OpKind::Store, X, 21),
        ev(3, OpKind::Store, Y, 30),
    ];
    let nodes = vec![
        node(SymOp::SharedRead, 0, 0, 0), // 1: y as read by event 0
        node(SymOp::SharedRead, 0, 0, 2), // 2: x as read by event 2
        node(SymOp::Const, 0, 0, 0),      // 3
        node(SymOp::Ne, 2, 3, 0),         // 4: x != 0
    ];
    let records = vec![
        record(2, BranchKind::Definition, X, 1, 1),
        record(1, BranchKind::Branch, 22, 4, 3),
    ];
    with_flow(events, nodes, records)
}

#[test]
fn branch_related_operations_follow_definitions_transitively() {
    let flow = branch_flow(&chain());
    assert_eq!(flow.branches.len(), 1);
    let b = &flow.branches[0];
    assert_eq!(
        b.id,
        BranchId {
            thread: 1,
            site: 22,
            occurrence: 0
        }
    );
    // The read of x, its definer in thread 2, the read of y that value
    // came from and y's writer in thread 3; not thread 1's store to x after
    // the branch (Algorithm 2, step 2.1).
    assert_eq!(b.related, vec![0, 1, 2, 4]);
}

#[test]
fn untrusted_node_references_are_ignored() {
    let mut trace = chain();
    let mut sym = (**trace.symbolic.as_ref().expect("symbolic")).clone();
    // A node naming itself and one naming an event past the trace.
    sym.nodes.push(node(SymOp::Ne, 5, 5, 0));
    sym.nodes.push(node(SymOp::SharedRead, 0, 0, 99));
    sym.branches.push(record(1, BranchKind::Branch, 23, 5, 3));
    sym.branches.push(record(1, BranchKind::Branch, 24, 6, 3));
    trace.symbolic = Some(Arc::new(sym));
    let flow = branch_flow(&trace);
    assert_eq!(flow.branches.len(), 2, "the self-reference has no leaves");
    assert_eq!(flow.dropped, 1, "the event past the trace is dropped");
}

#[test]
fn loop_evaluations_without_a_lock_are_one_branch() {
    // Thread 1 tests the same flag three times, then once more under a lock.
    let mut events = Vec::new();
    let mut nodes = Vec::new();
    let mut records = Vec::new();
    for i in 0..3u32 {
        events.push(ev(1, OpKind::Load, X, 40));
        nodes.push(node(SymOp::SharedRead, 0, 0, u64::from(i)));
        records.push(record(1, BranchKind::Branch, 41, i + 1, u64::from(i) + 1));
    }
    events.push(ev(1, OpKind::MutexLock, M, 42));
    events.push(ev(1, OpKind::Load, X, 40));
    nodes.push(node(SymOp::SharedRead, 0, 0, 4));
    records.push(record(1, BranchKind::Branch, 41, 4, 5));
    let flow = branch_flow(&with_flow(events, nodes, records));
    let occurrences: Vec<u32> = flow.branches.iter().map(|b| b.id.occurrence).collect();
    assert_eq!(
        occurrences,
        vec![0, 1, 3],
        "the later lock-free tests merge"
    );
}

#[test]
fn event_keys_merge_lock_free_repetitions_only() {
    let trace = Trace::new(
        vec![
            ev(1, OpKind::Load, X, 5),
            ev(1, OpKind::Load, X, 5),
            ev(1, OpKind::Load, X, 5),
            ev(1, OpKind::MutexLock, M, 6),
            ev(1, OpKind::Load, X, 5),
            ev(1, OpKind::MutexUnlock, M, 7),
        ],
        Vec::new(),
    );
    let occ: Vec<u32> = event_keys(&trace).iter().map(|k| k.occurrence).collect();
    assert_eq!(occ, vec![0, 1, 1, 0, 3, 0]);
}

#[test]
fn manners_are_lock_regions_and_unusual_accesses() {
    let trace = Trace::new(
        vec![
            ev(1, OpKind::MutexLock, M, 1),
            ev(1, OpKind::Load, X, 2),
            ev(1, OpKind::Store, X, 3),
            ev(1, OpKind::MutexUnlock, M, 4),
            ev(1, OpKind::Store, Y, 5),
            ev(1, OpKind::MutexUnlock, M, 6),
            // The same region again: an equivalent iteration.
            ev(1, OpKind::MutexLock, M, 1),
            ev(1, OpKind::Load, X, 2),
            ev(1, OpKind::Store, X, 3),
            ev(1, OpKind::MutexUnlock, M, 4),
        ],
        Vec::new(),
    );
    // The region, the unprotected store and the unlock without lock.
    assert_eq!(manners(&trace).len(), 3);
    assert_eq!(held_locks_after(&trace), vec![1, 1, 1, 0, 0, 0, 1, 1, 1, 0]);
}

#[test]
fn race_classes_differ_when_an_access_leaves_its_lock() {
    let locked = Trace::new(
        vec![
            ev(1, OpKind::MutexLock, M, 1),
            ev(1, OpKind::Store, X, 2),
            ev(1, OpKind::MutexUnlock, M, 3),
        ],
        Vec::new(),
    );
    let unlocked = Trace::new(vec![ev(1, OpKind::Store, X, 2)], Vec::new());
    let reordered = Trace::new(
        vec![
            ev(2, OpKind::Load, Y, 9),
            ev(1, OpKind::MutexLock, M, 1),
            ev(1, OpKind::Store, X, 2),
            ev(1, OpKind::MutexUnlock, M, 3),
        ],
        Vec::new(),
    );
    assert_ne!(race_class(&locked), race_class(&unlocked));
    let with_reader = Trace::new(
        vec![
            ev(1, OpKind::MutexLock, M, 1),
            ev(1, OpKind::Store, X, 2),
            ev(1, OpKind::MutexUnlock, M, 3),
            ev(2, OpKind::Load, Y, 9),
        ],
        Vec::new(),
    );
    assert_eq!(
        race_class(&reordered),
        race_class(&with_reader),
        "the interleaving alone does not change the manners"
    );
}

#[test]
fn groups_are_tested_by_a_run_with_their_order() {
    let trace = chain();
    let keys = event_keys(&trace);
    let related: HashSet<_> = [keys[0], keys[1], keys[2]].into_iter().collect();
    let branch = BranchId {
        thread: 1,
        site: 22,
        occurrence: 0,
    };
    let mut table = Table::default();
    let (set, related) = table.intern(related);
    assert_eq!(
        table.intern((*related).clone()).0,
        set,
        "equal sets are one"
    );
    let as_run = table.group(branch, set, &project(&keys, &related));
    let reversed: Vec<_> = vec![keys[2], keys[0], keys[1]];
    let other = table.group(branch, set, &reversed);
    assert!(!table.tested(&as_run) && !table.tested(&other));
    let mut outcomes = HashMap::default();
    outcomes.insert(branch, true);
    table.add_run(&keys, outcomes, &[]);
    assert!(table.tested(&as_run), "the run has the group's order");
    assert!(!table.tested(&other));
    assert_eq!(table.known_row(&[as_run]), Some(vec![(branch, true)]));
    assert_eq!(table.known_row(&[as_run, other]), None);
    assert!(table.row_tested(&[(branch, true)]));
    assert!(!table.row_tested(&[(branch, false)]));
    assert!(
        !table.all_rows_tested(),
        "the row with the branch false is not"
    );
}

#[test]
fn projection_counts_a_repeated_operation_once_in_a_row() {
    let keys = event_keys(&Trace::new(
        vec![
            ev(1, OpKind::Load, X, 5),
            ev(1, OpKind::Load, X, 5),
            ev(1, OpKind::Load, X, 5),
            ev(2, OpKind::Store, X, 6),
            ev(1, OpKind::Load, X, 5),
        ],
        Vec::new(),
    ));
    let related: HashSet<_> = keys.iter().copied().collect();
    assert_eq!(project(&keys, &related).len(), 4, "{keys:?}");
}
