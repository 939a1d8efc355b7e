//! Access manners and race-equivalence (Setiadi et al., Sec. 4.1).
//!
//! An **access manner** of a thread is what it does from the lock that
//! makes its held-lock count 1 to the unlock that makes it 0 again (or to
//! the end of the execution), as the sequence of its operations there;
//! an access to shared memory or an unlock made with no lock held is an
//! *unusual* manner of one operation. `M_i` is the set of distinct manners
//! of thread `i`, and two executions are **race-equivalent** when every
//! thread has the same set: they then show the same lockset races, since
//! a lockset race is a property of which accesses happen under which
//! locks. Executions with the same branch outcomes have the same manners.
//!
//! **Equivalent iterations**: the iterations of a loop after the first one
//! that end with no lock held repeat the manners of the first, so they add
//! nothing to `M_i` (a set); the search names the later evaluations of such
//! a loop's condition as one branch ([`super::events::BranchId`]).
//!
//! Operations are named by kind and site, locks and memory by address
//! (addresses are the same from one execution to the next: the runtime
//! runs the program without address randomisation).

use crate::analysis::lockset::{lock_effect, LockEffect};
use crate::trace::Trace;
use reach_channel::Op;
use std::collections::BTreeSet;
use std::hash::{Hash, Hasher};

/// How an operation changes its thread's held-lock count.
fn lock_delta(op: &Op) -> i32 {
    match lock_effect(op) {
        Some(LockEffect::Acquire(..)) => 1,
        Some(LockEffect::Release(_)) => -1,
        None => 0,
    }
}

/// For each event, the number of locks its thread holds after it.
pub fn held_locks_after(trace: &Trace) -> Vec<u32> {
    let mut held = vec![0u32; trace.thread_count().max(1)];
    trace
        .events
        .iter()
        .map(|e| {
            let t = e.thread as usize;
            if t >= held.len() {
                held.resize(t + 1, 0);
            }
            let delta = lock_delta(&e.op);
            held[t] = held[t].saturating_add_signed(delta);
            held[t]
        })
        .collect()
}

/// True for an operation that is part of a manner: a memory access or a
/// lock operation.
fn in_manner(op: &Op) -> bool {
    lock_delta(op) != 0 || op.kind.is_memory_access()
}

/// One operation of a manner: kind, site and object.
fn operation(op: &Op, site: u64) -> (u16, u64, u64) {
    (op.kind as u16, site, op.object)
}

/// `MANNERS` of an execution: (thread, manner) pairs, each manner a hash of
/// its operation sequence.
pub fn manners(trace: &Trace) -> BTreeSet<(u32, u64)> {
    let mut out = BTreeSet::new();
    let mut open: Vec<Option<Vec<(u16, u64, u64)>>> = vec![None; trace.thread_count().max(1)];
    let mut held = vec![0u32; open.len()];
    let digest = |ops: &[(u16, u64, u64)]| {
        let mut h = rustc_hash::FxHasher::default();
        ops.hash(&mut h);
        h.finish()
    };
    for e in &trace.events {
        let t = e.thread as usize;
        if t >= open.len() {
            open.resize(t + 1, None);
            held.resize(t + 1, 0);
        }
        if !in_manner(&e.op) {
            continue;
        }
        let delta = lock_delta(&e.op);
        let before = held[t];
        held[t] = before.saturating_add_signed(delta);
        if before == 0 && delta <= 0 {
            // Unusual manner: an access or an unlock with no lock held.
            out.insert((e.thread, digest(&[operation(&e.op, e.site)])));
            continue;
        }
        let ops = open[t].get_or_insert_with(Vec::new);
        ops.push(operation(&e.op, e.site));
        if held[t] == 0 {
            if let Some(ops) = open[t].take() {
                out.insert((e.thread, digest(&ops)));
            }
        }
    }
    for (t, ops) in open.into_iter().enumerate() {
        if let Some(ops) = ops {
            out.insert((t as u32, digest(&ops)));
        }
    }
    out
}

/// The race-equivalence class of an execution: a hash of its `MANNERS`.
pub fn race_class(trace: &Trace) -> u64 {
    let mut h = rustc_hash::FxHasher::default();
    manners(trace).hash(&mut h);
    h.finish()
}
