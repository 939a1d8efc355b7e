//! Identities of events and branch instances that survive a change of
//! interleaving.
//!
//! The paper names an operation by its location (thread, file, line) and a
//! branch instance `b_{i,j}` by its thread and its rank among the thread's
//! branches. A native trace has no such names across executions: a
//! thread's `k`-th event is another operation once an earlier branch went
//! the other way. An event is therefore named by its thread, its site and
//! its occurrence among that thread's events at the same site; a branch
//! instance likewise among the thread's branch records at that site.

use super::manners::held_locks_after;
use crate::trace::Trace;
use rustc_hash::FxHashMap as HashMap;

/// An event's identity across executions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct EventKey {
    /// Thread (creation order).
    pub thread: u32,
    /// Site id of the operation.
    pub site: u64,
    /// Earlier events of the same thread at the same site.
    pub occurrence: u32,
}

/// The identity of every event of `trace`, by index, with the loop rule
/// of equivalent iterations ([`super::manners`]): an event made with no
/// lock held at a site its thread already ran is occurrence 1, whatever
/// the number of earlier ones (a later iteration of a lock-free loop body
/// is the same operation as the second).
pub fn event_keys(trace: &Trace) -> Vec<EventKey> {
    let held = held_locks_before(trace);
    let mut seen: HashMap<(u32, u64), u32> = HashMap::default();
    trace
        .events
        .iter()
        .zip(held)
        .map(|(e, held)| {
            let count = seen.entry((e.thread, e.site)).or_insert(0);
            let key = EventKey {
                thread: e.thread,
                site: e.site,
                occurrence: if held == 0 { (*count).min(1) } else { *count },
            };
            *count += 1;
            key
        })
        .collect()
}

/// For each event, the number of locks its thread held before it.
fn held_locks_before(trace: &Trace) -> Vec<u32> {
    let after = held_locks_after(trace);
    let mut last: HashMap<u32, u32> = HashMap::default();
    trace
        .events
        .iter()
        .zip(after)
        .map(|(e, now)| last.insert(e.thread, now).unwrap_or(0))
        .collect()
}

/// A branch's identity across executions: the thread, the site, and which
/// of the thread's evaluations at that site it is, with the loop rule of
/// equivalent iterations applied ([`super::manners`]): every evaluation
/// after the first one made with no lock held is the same branch
/// (`occurrence` = 1), so a loop that re-reads a flag is two branches,
/// its first test and its later ones, whatever the number of iterations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BranchId {
    /// Thread (creation order).
    pub thread: u32,
    /// Site id of the branch.
    pub site: u64,
    /// Occurrence, after the loop rule.
    pub occurrence: u32,
}
