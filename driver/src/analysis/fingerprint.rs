//! Fingerprint of a trace's partial order (its Mazurkiewicz trace with reads
//! commuting): equal for two executions exactly when they perform the same
//! operations per thread and order every pair of conflicting operations the
//! same way.
//!
//! Canonical form: each thread's sequence of operations, and for every object
//! granule the sequence of its accesses, where consecutive reads between two
//! writes form an unordered (sorted) group. Events are named by
//! (thread, index within the thread).

use super::objects::{touched, ObjectKey};
use crate::trace::Trace;
use reach_channel::Class;
use std::collections::BTreeMap;
use std::hash::{DefaultHasher, Hash, Hasher};

#[derive(Hash)]
enum Step {
    Write((u32, u32)),
    Reads(Vec<(u32, u32)>),
}

/// 64-bit fingerprint of the partial order of `trace`.
pub fn fingerprint(trace: &Trace) -> u64 {
    let mut local_index: Vec<u32> = vec![0; trace.thread_count()];
    let mut per_thread: Vec<Vec<(u16, u16, u64, u64)>> = vec![Vec::new(); trace.thread_count()];
    let mut per_object: BTreeMap<ObjectKey, Vec<Step>> = BTreeMap::new();
    for event in &trace.events {
        let t = event.thread as usize;
        let name = (event.thread, local_index[t]);
        local_index[t] += 1;
        let op = event.op;
        per_thread[t].push((op.kind as u16, op.flags.0, op.object, op.aux));
        for (key, class) in touched(&op) {
            let steps = per_object.entry(key).or_default();
            match (class, steps.last_mut()) {
                (Class::Read, Some(Step::Reads(group))) => group.push(name),
                (Class::Read, _) => steps.push(Step::Reads(vec![name])),
                (Class::Write, _) => steps.push(Step::Write(name)),
            }
        }
    }
    let mut hasher = DefaultHasher::new();
    per_thread.hash(&mut hasher);
    for (key, mut steps) in per_object {
        for step in &mut steps {
            if let Step::Reads(group) = step {
                group.sort_unstable();
            }
        }
        (key.0 as u8, key.1).hash(&mut hasher);
        steps.hash(&mut hasher);
    }
    hasher.finish()
}
