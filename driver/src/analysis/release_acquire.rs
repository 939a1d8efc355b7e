//! RC11's synchronisation through atomics, for the race detector: which
//! atomic operations order the plain accesses around them (Lahav, Vafeiadis,
//! Kang, Hur and Dreyer, "Repairing sequential consistency in C/C++11",
//! PLDI 2017, §3, the definitions of `rs`, `sw` and `hb`).
//!
//! Under `--memory-model rc11` the trace records, for each atomic access,
//! the store it read (`writer_step`) and its ordering
//! ([`reach_channel::memory_model::ReadRecord`]). Happens-before is then
//! program order and thread creation and joining, the locks and other
//! synchronisation objects (each operation a release and an acquire of its
//! object, as before), and `sw`:
//!
//! - an acquire read (or one followed by an acquire fence of its thread)
//!   of a store synchronises with the release the store carries;
//! - a store carries its thread's clock if it is a release store, else its
//!   thread's clock at its last release fence; joined with what its
//!   thread's earlier store to the location carried (RC11 keeps `po|loc`
//!   in release sequences), and for a read-modify-write with what the store
//!   it read carried (release sequences continue through RMWs);
//! - `seq_cst` fences synchronise with each other in the order they run
//!   (the sync object [`reach_channel::ops::SC_FENCE_OBJECT`], handled with
//!   the other objects).
//!
//! This is exactly how the runtime computes the views that decide what a
//! load may read (`runtime/src/memory_model`), so a plain access the
//! detector calls ordered is one the execution could not have seen
//! otherwise. A relaxed atomic orders nothing, so the plain data of a
//! message passed through a relaxed flag races.

use super::clock::VClock;
use reach_channel::memory_model::{ordering_acquires, ordering_releases, ReadRecord};
use reach_channel::{Op, OpKind};
use rustc_hash::FxHashMap as HashMap;
use std::collections::VecDeque;

/// Stores of one location whose release clocks are kept for the loads that
/// may still read them (the runtime keeps fewer: a load reads one of a
/// location's latest stores).
const KEPT_STORES: usize = 64;

/// The release/acquire state of one trace, fed event by event.
#[derive(Default)]
pub struct ReleaseAcquire {
    /// Per thread, its clock at its last release fence.
    release_fence: Vec<VClock>,
    /// Per thread, the release clocks its non-acquire reads saw, which its
    /// next acquire fence takes in.
    acquire_pending: Vec<VClock>,
    /// Per location (address), its latest stores: event index and the
    /// release clock a reader of it acquires.
    released: HashMap<u64, VecDeque<(u64, VClock)>>,
    /// Per thread and location, the clock its last store there carried of
    /// its own (the `po|loc` part of a later store's release sequence).
    own_last: HashMap<(u32, u64), VClock>,
}

fn slot(list: &mut Vec<VClock>, t: u32) -> &mut VClock {
    let t = t as usize;
    if list.len() <= t {
        list.resize(t + 1, VClock::default());
    }
    &mut list[t]
}

/// True if `kind` reads the store its record names (a load, a
/// read-modify-write, a compare-and-exchange), not only writes.
fn reads(kind: OpKind) -> bool {
    matches!(
        kind,
        OpKind::AtomicLoad | OpKind::AtomicRmw | OpKind::CmpXchg
    )
}

impl ReleaseAcquire {
    /// The acquire side of thread `p`'s atomic access `op` with record
    /// `read`, before it runs: joins into `cv` what the store it read
    /// released (if it acquires), else keeps it for an acquire fence.
    pub fn before_access(&mut self, p: u32, op: &Op, read: &ReadRecord, cv: &mut VClock) {
        if !reads(op.kind) {
            return;
        }
        let Some(rel) = self
            .released
            .get(&op.object)
            .and_then(|stores| stores.iter().find(|(step, _)| *step == read.writer_step))
            .map(|(_, rel)| rel)
        else {
            return;
        };
        if ordering_acquires(read.ordering) {
            cv.join(rel);
        } else {
            slot(&mut self.acquire_pending, p).join(rel);
        }
    }

    /// The release side of the same access as event `index`, once `cv`
    /// holds the event itself: a store (one the record places in
    /// modification order) keeps the clock its readers acquire.
    pub fn after_access(&mut self, p: u32, index: usize, op: &Op, read: &ReadRecord, cv: &VClock) {
        if read.placed == 0 {
            return;
        }
        let own = if ordering_releases(read.ordering) {
            cv.clone()
        } else {
            let mut own = slot(&mut self.release_fence, p).clone();
            if let Some(earlier) = self.own_last.get(&(p, op.object)) {
                own.join(earlier);
            }
            own
        };
        let stores = self.released.entry(op.object).or_default();
        let mut rel = own.clone();
        if reads(op.kind) {
            if let Some((_, before)) = stores.iter().find(|(step, _)| *step == read.writer_step) {
                rel.join(before);
            }
        }
        if stores.len() == KEPT_STORES {
            stores.pop_front();
        }
        stores.push_back((index as u64, rel));
        self.own_last.insert((p, op.object), own);
    }

    /// Thread `p`'s fence of LLVM `ordering` (the event's `aux`): an
    /// acquire fence takes in what its thread's earlier reads saw, before
    /// the event joins `cv`'s own entry.
    pub fn before_fence(&mut self, p: u32, ordering: u16, cv: &mut VClock) {
        if ordering_acquires(ordering) {
            let pending = slot(&mut self.acquire_pending, p).clone();
            cv.join(&pending);
        }
    }

    /// After thread `p`'s fence of `ordering` (or an access the model does
    /// not follow, which acts as a `seq_cst` fence): a release fence is
    /// what its thread's later relaxed stores carry.
    pub fn after_fence(&mut self, p: u32, ordering: u16, cv: &VClock) {
        if ordering_releases(ordering) {
            *slot(&mut self.release_fence, p) = cv.clone();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use reach_channel::memory_model::{ORDERING_ACQUIRE, ORDERING_RELAXED, ORDERING_RELEASE};

    fn record(writer_step: u64, ordering: u16, placed: u16) -> ReadRecord {
        ReadRecord {
            writer_step,
            ordering,
            placed,
            ..ReadRecord::default()
        }
    }

    fn clock(entries: &[(u32, u32)]) -> VClock {
        let mut c = VClock::default();
        for &(t, v) in entries {
            c.set(t, v);
        }
        c
    }

    /// A release store read by an acquire load passes its clock; read by a
    /// relaxed load, only an acquire fence after it does.
    #[test]
    fn release_store_synchronises_with_acquire_reads_and_fences() {
        let flag = Op::new(OpKind::AtomicStore, 0x40, 4);
        let load = Op::new(OpKind::AtomicLoad, 0x40, 4);
        let mut ra = ReleaseAcquire::default();
        let writer = clock(&[(1, 5)]);
        ra.after_access(1, 7, &flag, &record(u64::MAX, ORDERING_RELEASE, 1), &writer);
        let mut acquiring = clock(&[(2, 3)]);
        ra.before_access(2, &load, &record(7, ORDERING_ACQUIRE, 0), &mut acquiring);
        assert!(acquiring.covers(1, 4));
        let mut relaxed = clock(&[(3, 3)]);
        ra.before_access(3, &load, &record(7, ORDERING_RELAXED, 0), &mut relaxed);
        assert!(!relaxed.covers(1, 4));
        ra.before_fence(3, ORDERING_ACQUIRE, &mut relaxed);
        assert!(relaxed.covers(1, 4));
    }

    /// A relaxed store carries nothing but its thread's last release fence
    /// and its release sequence: an RMW continues what it read.
    #[test]
    fn relaxed_stores_carry_fences_and_release_sequences() {
        let store = Op::new(OpKind::AtomicStore, 0x40, 4);
        let rmw = Op::new(OpKind::AtomicRmw, 0x40, 4);
        let load = Op::new(OpKind::AtomicLoad, 0x40, 4);
        let mut ra = ReleaseAcquire::default();
        ra.after_access(
            1,
            2,
            &store,
            &record(u64::MAX, ORDERING_RELAXED, 1),
            &clock(&[(1, 3)]),
        );
        let mut c = VClock::default();
        ra.before_access(2, &load, &record(2, ORDERING_ACQUIRE, 0), &mut c);
        assert_eq!(c, VClock::default());
        ra.after_fence(1, ORDERING_RELEASE, &clock(&[(1, 4)]));
        ra.after_access(
            1,
            5,
            &store,
            &record(2, ORDERING_RELAXED, 1),
            &clock(&[(1, 6)]),
        );
        ra.after_access(
            2,
            6,
            &rmw,
            &record(5, ORDERING_RELAXED, 1),
            &clock(&[(2, 7)]),
        );
        let mut reader = VClock::default();
        ra.before_access(3, &load, &record(6, ORDERING_ACQUIRE, 0), &mut reader);
        assert!(reader.covers(1, 3) && !reader.covers(1, 4));
        assert!(!reader.covers(2, 0));
    }
}
