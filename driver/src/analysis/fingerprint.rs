//! Fingerprint of a trace's partial order (its Mazurkiewicz trace with reads
//! commuting): equal for two executions exactly when they perform the same
//! operations per thread and order every pair of conflicting operations the
//! same way.
//!
//! Canonical form: each thread's sequence of operations, and for every object
//! granule the sequence of its accesses, where consecutive reads between two
//! writes form an unordered (sorted) group, and so do consecutive updates of
//! one group (`--commute-rmws`). Events are named by (thread, index within
//! the thread). Whether an update changed memory
//! ([`reach_channel::EventFlags::FAILED`]) depends on the order of the
//! updates, which the partial order leaves open, so it is not part of it.

use super::objects::{touched, Group, Mode, ObjectKey};
use crate::trace::Trace;
use reach_channel::{Class, EventFlags};
use std::collections::BTreeMap;
use std::hash::{DefaultHasher, Hash, Hasher};

#[derive(Hash)]
enum Step {
    Write((u32, u32)),
    Reads(Vec<(u32, u32)>),
    Updates(Group, Vec<(u32, u32)>),
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
        let updates = op
            .accesses()
            .iter()
            .flatten()
            .any(|a| matches!(a.class, Class::Update(_)));
        let flags = if updates {
            op.flags.0 & !EventFlags::FAILED
        } else {
            op.flags.0
        };
        per_thread[t].push((op.kind as u16, flags, op.object, op.aux));
        for (key, mode) in touched(&op) {
            let steps = per_object.entry(key).or_default();
            match (mode, steps.last_mut()) {
                (Mode::Read, Some(Step::Reads(group))) => group.push(name),
                (Mode::Read, _) => steps.push(Step::Reads(vec![name])),
                (Mode::Write, _) => steps.push(Step::Write(name)),
                (Mode::Update(g), Some(Step::Updates(run, group))) if *run == g => group.push(name),
                (Mode::Update(g), _) => steps.push(Step::Updates(g, vec![name])),
            }
        }
    }
    let mut hasher = DefaultHasher::new();
    per_thread.hash(&mut hasher);
    for (key, mut steps) in per_object {
        for step in &mut steps {
            if let Step::Reads(group) | Step::Updates(_, group) = step {
                group.sort_unstable();
            }
        }
        (key.0 as u8, key.1).hash(&mut hasher);
        steps.hash(&mut hasher);
    }
    hasher.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::TraceEvent;
    use reach_channel::{EventFlags, Op, OpKind, RmwFamily, ThreadSet};

    fn event(thread: u32, kind: OpKind, flags: u16) -> TraceEvent {
        TraceEvent {
            thread,
            op: Op {
                kind,
                flags: EventFlags(flags),
                object: 0x1000,
                aux: 4,
            },
            site: 0,
            enabled: ThreadSet::EMPTY,
        }
    }

    fn print(events: &[(u32, OpKind, u16)]) -> u64 {
        let events = events.iter().map(|&(t, k, f)| event(t, k, f)).collect();
        fingerprint(&Trace::new(events, vec![None; 3]))
    }

    /// Two orders of two `or` updates are one partial order, though the
    /// second of them left memory unchanged in each; as plain
    /// read-modify-writes they are two; a read between them orders them.
    #[test]
    fn orders_of_commuting_updates_are_one_partial_order() {
        let or = EventFlags::update(RmwFamily::Or);
        let unchanged = or | EventFlags::FAILED;
        let rmw = OpKind::AtomicRmw;
        assert_eq!(
            print(&[(1, rmw, or), (2, rmw, unchanged)]),
            print(&[(2, rmw, or), (1, rmw, unchanged)])
        );
        assert_ne!(
            print(&[(1, rmw, 0), (2, rmw, 0)]),
            print(&[(2, rmw, 0), (1, rmw, 0)])
        );
        let load = OpKind::AtomicLoad;
        assert_ne!(
            print(&[(1, rmw, or), (0, load, 0), (2, rmw, or)]),
            print(&[(2, rmw, or), (0, load, 0), (1, rmw, or)])
        );
        let add = EventFlags::update(RmwFamily::Additive);
        assert_ne!(
            print(&[(1, rmw, or), (2, rmw, add)]),
            print(&[(2, rmw, add), (1, rmw, or)])
        );
    }
}
