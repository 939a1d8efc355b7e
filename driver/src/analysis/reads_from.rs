//! The reads-from graph of an execution under RC11: which store each atomic
//! load read and the order of each location's stores (modification order,
//! as the runtime placed each store: [`reach_channel::memory_model::ReadRecord::later_stores`]). Two
//! executions with the same graph are the same behaviour of the program's
//! atomics, whatever the interleaving of the rest; the count of distinct
//! graphs is what the RC11 oracle counts.

use crate::trace::Trace;
use reach_channel::OpKind;
use std::collections::BTreeMap;
use std::hash::{Hash, Hasher};

/// An event named independently of the interleaving: its thread and its
/// place among that thread's events.
type ThreadStep = (u32, usize);

/// A fingerprint of `trace`'s reads-from graph, `None` for an execution
/// without a reads-from record (run under SC).
pub fn graph_key(trace: &Trace) -> Option<u64> {
    if trace.reads.iter().all(Option::is_none) {
        return None;
    }
    let name = |step: usize| -> Option<ThreadStep> {
        let thread = trace.events.get(step)?.thread;
        let place = trace.events_of(thread).binary_search(&(step as u32)).ok()?;
        Some((thread, place))
    };
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    let reads: BTreeMap<Option<ThreadStep>, Option<ThreadStep>> = trace
        .reads
        .iter()
        .enumerate()
        .filter_map(|(i, read)| {
            let read = read.as_ref()?;
            let kind = trace.events.get(i)?.op.kind;
            if matches!(kind, OpKind::AtomicStore | OpKind::Store) {
                return None;
            }
            Some((
                name(i),
                usize::try_from(read.writer_step).ok().and_then(name),
            ))
        })
        .collect();
    reads.hash(&mut hasher);
    let mut stores: BTreeMap<u64, Vec<ThreadStep>> = BTreeMap::new();
    for (i, e) in trace.events.iter().enumerate() {
        let Some(read) = trace.read(i).filter(|r| r.placed != 0) else {
            continue;
        };
        if let Some(n) = name(i) {
            let order = stores.entry(e.op.object).or_default();
            let place = order.len().saturating_sub(read.later_stores as usize);
            order.insert(place, n);
        }
    }
    for order in stores.values() {
        order.hash(&mut hasher);
    }
    Some(hasher.finish())
}
