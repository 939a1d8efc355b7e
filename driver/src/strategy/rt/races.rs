//! Race sets (paper Sec. 3.1, slides "Race Set"), computed from the vector
//! timestamps of one SYN-sequence.
//!
//! A sending event `s'` (the call of event `f`) is in the race set of the
//! receiving event `r` (the completion of event `e`) if
//!
//! * `f` is dependent with `e` (same object, not both reads; ending the
//!   process is dependent with everything) and of another thread;
//! * `s'` is open at `r` ([`SynSequence::open_at`]);
//! * `r` does not happen before `s'` (the call of `f` does not depend on
//!   the outcome at `r`);
//! * `s'` is received after `r` or never: `f` completes later in the trace
//!   or is still pending at its end.
//!
//! Candidates are found through an index from object granules to the
//! events touching them, so the cost is the number of dependent pairs, not
//! the square of the trace length.

use super::model::{dependent, SynSequence};
use crate::analysis::objects::{touched, ObjectKey};
use reach_channel::OpKind;
use rustc_hash::FxHashMap as HashMap;

/// `race_set(r)` for every executed event `r` (indices into `seq.events`),
/// each in trace order.
pub fn race_sets(seq: &SynSequence) -> Vec<Vec<usize>> {
    let mut by_object: HashMap<ObjectKey, Vec<usize>> = HashMap::default();
    let mut exits = Vec::new();
    for (i, event) in seq.events.iter().enumerate() {
        for (key, _) in touched(&event.op) {
            let list = by_object.entry(key).or_default();
            if list.last() != Some(&i) {
                list.push(i);
            }
        }
        if event.op.kind == OpKind::ProcessExit {
            exits.push(i);
        }
    }
    let mut sets = Vec::with_capacity(seq.executed);
    for e in 0..seq.executed {
        let op = seq.events[e].op;
        let mut candidates: Vec<usize> = if op.kind == OpKind::ProcessExit {
            (e + 1..seq.events.len()).collect()
        } else {
            let mut c: Vec<usize> = touched(&op)
                .filter_map(|(key, _)| by_object.get(&key))
                .flat_map(|list| list.iter().copied().filter(|&f| f > e))
                .chain(exits.iter().copied().filter(|&f| f > e))
                .collect();
            c.sort_unstable();
            c.dedup();
            c
        };
        candidates.retain(|&f| is_racing(seq, e, f));
        sets.push(candidates);
    }
    sets
}

/// The race-set conditions for sending event `f` at receiving event `e`.
fn is_racing(seq: &SynSequence, e: usize, f: usize) -> bool {
    let (ee, fe) = (&seq.events[e], &seq.events[f]);
    ee.id.thread != fe.id.thread
        && dependent(&ee.op, &fe.op)
        && !seq.precedes_call(e, f)
        && seq.open_at(f, e)
}
