//! Data-race detection on one trace: two conflicting plain (non-atomic)
//! accesses of different threads that are not ordered by synchronisation,
//! at least one of them unmarked.
//!
//! A marked access (a volatile load or store: C's `volatile`, the kernel's
//! `READ_ONCE`/`WRITE_ONCE`, [`reach_channel::Op::is_marked_access`]) is
//! what the Linux kernel memory model makes of it: it does not race with
//! another marked access, and a plain access unordered with it is a data
//! race. It orders as an atomic access does (below), which is what a
//! relaxed atomic access is under sequential consistency.
//!
//! Happens-before here comes only from synchronisation: program order,
//! thread create/join, lock-like objects, and atomic accesses (each atomic
//! operation synchronises with earlier atomic operations on the same
//! location, the sequentially consistent reading). Plain accesses never
//! order anything, as in a vector-clock race detector. Commuting updates
//! (`--commute-rmws`) of one group do not synchronise with each other: the
//! search runs one order of them for all, and a program that uses none of
//! their results cannot tell which came first, so an update follows the
//! atomic operations before the run of updates it belongs to, not the run.
//! A detached thread
//! that finished happens before every later thread creation: the C library
//! hands its stack to a new thread only after it exited, under its
//! stack-cache lock (Rust's scoped and dropped threads are detached, and
//! their stack slots are reused at the same addresses).
//!
//! A heap block is new memory: when the trace carries the execution's
//! object records (`Trace::objects`), the accesses to a block's bytes
//! before it was allocated (to an earlier block freed at the same address,
//! perhaps by another thread) are forgotten at its allocation. The C
//! library orders the free before the allocation that reuses the memory
//! (under its arena lock), which the trace does not show.

use super::clock::VClock;
use super::objects::{first_common_byte, touched, touched_bytes, Bytes, Group, Mode, ObjectKey};
use super::release_acquire::ReleaseAcquire;
use crate::trace::Trace;
use reach_channel::memory_model::ORDERING_SEQ_CST;
use reach_channel::ops::Space;
use reach_channel::ops::SC_FENCE_OBJECT;
use reach_channel::private::PrivateRecord;
use reach_channel::OpKind;
use rustc_hash::FxHashMap as HashMap;

/// A data race: two event indices (earlier first) and the first byte both
/// accessed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Race {
    /// Earlier access (event index). For a private access
    /// (`first_private`), the event of its thread it followed (or, if it
    /// came before the thread's first event, that event): where reports
    /// place it.
    pub first: usize,
    /// Later access (event index).
    pub second: usize,
    /// Address of the first byte both accesses touch.
    pub address: u64,
    /// The earlier access when it was no event but a private access
    /// ([`reach_channel::private`]): its thread, kind, site and position.
    pub first_private: Option<PrivateRecord>,
}

/// Who made an access the race detector remembers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Source {
    /// Event at this index.
    Event(usize),
    /// Private record at this index of `Trace::private`.
    Private(usize),
}

/// The synchronisation clock of an object: the join of the atomic and
/// synchronising operations on it, and while they end with a run of
/// updates of one group, the clock before the run.
#[derive(Default)]
struct SyncClock {
    clock: VClock,
    run: Option<(Group, VClock)>,
}

/// One remembered access: its thread, the index its thread's clock is
/// compared with (the event's index, or a private access's position: it
/// happens before another thread's access that has seen an event of its
/// thread at that index or later), the bytes it still stands for, who
/// made it, and whether it was marked (volatile).
type Seen = (u32, usize, Bytes, Source, bool);

/// The plain accesses of one granule the next access is compared with,
/// byte by byte: for each byte its last write and the reads since it.
#[derive(Default)]
struct Shadow {
    writes: Vec<Seen>,
    reads: Vec<Seen>,
}

impl Shadow {
    /// The access `seen` becomes the last write of its bytes (no read
    /// since), or one of the reads since their last write.
    fn record(&mut self, seen: Seen, writes: bool) {
        let bytes = seen.2;
        if writes {
            for list in [&mut self.writes, &mut self.reads] {
                for entry in list.iter_mut() {
                    entry.2 &= !bytes;
                }
                list.retain(|entry| entry.2 != 0);
            }
            self.writes.push(seen);
        } else {
            self.reads.push(seen);
        }
    }

    /// The remembered accesses of other threads than `p` to a byte of
    /// `bytes` that clock `cv` does not cover: the writes, and if the new
    /// access writes, the reads too; for a new marked access only the
    /// unmarked ones.
    fn unordered(
        &self,
        p: u32,
        cv: &VClock,
        bytes: Bytes,
        writes: bool,
        marked: bool,
    ) -> Vec<(Source, Bytes)> {
        let unordered = |&&(q, j, b, _, m): &&Seen| {
            q != p && b & bytes != 0 && !(marked && m) && !cv.covers(q, j)
        };
        let reads = if writes { &self.reads[..] } else { &[] };
        self.writes
            .iter()
            .chain(reads)
            .filter(unordered)
            .map(|&(_, _, b, source, _)| (source, b))
            .collect()
    }
}

/// The event of thread `t` a private access at `position` is shown at: its
/// last event before it, else its first after.
fn event_near(trace: &Trace, t: u32, position: usize) -> usize {
    let mine = trace
        .events
        .iter()
        .enumerate()
        .filter(|(_, e)| e.thread == t)
        .map(|(i, _)| i);
    let before = mine.clone().take_while(|&i| i < position).last();
    before
        .or_else(|| mine.clone().next())
        .unwrap_or(position.min(trace.events.len().saturating_sub(1)))
}

/// Forgets the accesses to the `size` bytes at `address` (a heap block
/// just allocated there).
fn forget_block(shadow: &mut HashMap<ObjectKey, Shadow>, address: u64, size: u64) {
    let granule = reach_channel::ops::GRANULE;
    let first = address / granule;
    let last = address.saturating_add(size.max(1) - 1) / granule;
    let span = last - first + 1;
    if span <= shadow.len() as u64 {
        for g in first..=last {
            shadow.remove(&(Space::Memory, g));
        }
    } else {
        shadow.retain(|(space, g), _| *space != Space::Memory || *g < first || *g > last);
    }
}

/// A thread that finished before event `index` (joined there, or a
/// detached one before a thread creation): clock `cv` covers all it did,
/// also its private accesses after its last event (a thread's end is no
/// event), whose positions are at most `index`.
fn covers_finished(cv: &mut VClock, q: u32, index: usize) {
    let all = index as u32 + 1;
    if cv.get(q) < all {
        cv.set(q, all);
    }
}

/// Finds the first data race of the trace, if any.
pub fn first_race(trace: &Trace) -> Option<Race> {
    find_races(trace, 1).into_iter().next()
}

/// Finds up to `limit` data races of the trace, in trace order, at most one
/// per pair of racing events. For each access only the last write and the
/// reads since it are compared (as vector-clock detectors do), so the result
/// is the same for every interleaving of the same partial order.
pub fn find_races(trace: &Trace, limit: usize) -> Vec<Race> {
    let mut found: Vec<Race> = Vec::new();
    let mut clocks: Vec<VClock> = Vec::new();
    let mut sync: HashMap<ObjectKey, SyncClock> = HashMap::default();
    let mut shadow: HashMap<ObjectKey, Shadow> = HashMap::default();
    let threads = trace.final_pending.len();
    let mut last_event = vec![None; threads];
    for (index, event) in trace.events.iter().enumerate() {
        if let Some(slot) = last_event.get_mut(event.thread as usize) {
            *slot = Some(index);
        }
    }
    let finished_by = |q: usize, index: usize| {
        trace.final_pending.get(q).is_some_and(Option::is_none)
            && last_event
                .get(q)
                .copied()
                .flatten()
                .is_some_and(|last| last < index)
    };
    let mut detached = vec![false; threads];
    // Under RC11 (the trace records what atomics read) atomics synchronise
    // as release/acquire pairs ([`super::release_acquire`]); under SC every
    // atomic operation synchronises with the earlier ones of its location.
    let rc11 = trace.reads.iter().any(Option::is_some);
    let mut release_acquire = ReleaseAcquire::default();
    let sc_key = touched(&reach_channel::Op::new(OpKind::Fence, SC_FENCE_OBJECT, 0))
        .next()
        .map_or((Space::Sync, SC_FENCE_OBJECT), |(key, _)| key);
    let mut allocations = trace.objects.allocations().peekable();
    let mut private = trace.private.iter().enumerate().peekable();
    for (index, event) in trace.events.iter().enumerate() {
        while let Some(&(step, address, size)) = allocations.peek() {
            if step > index as u64 {
                break;
            }
            allocations.next();
            forget_block(&mut shadow, address, size);
        }
        // The private accesses that ran before this event: compared and
        // remembered with their thread's clock of then (a private access
        // is never the later access of a race: its memory was its
        // thread's alone).
        while let Some(&(k, record)) = private.peek() {
            if record.position as usize > index {
                break;
            }
            private.next();
            let q = u32::from(record.thread);
            let key = (Space::Memory, record.granule / reach_channel::ops::GRANULE);
            let writes = record.kind == reach_channel::private::PRIVATE_WRITE;
            let seen = (
                q,
                record.position as usize,
                record.bytes,
                Source::Private(k),
                false,
            );
            shadow.entry(key).or_default().record(seen, writes);
        }
        let p = event.thread;
        let t = p as usize;
        if clocks.len() <= t {
            clocks.resize(t + 1, VClock::default());
        }
        let mut cv = clocks[t].clone();
        let plain = event.op.kind.is_plain_access();
        let marked = event.op.is_marked_access();
        // Under RC11 an atomic access the model followed synchronises
        // through the store it read, not through its location.
        let record = trace.read(index).filter(|_| rc11 && !plain);
        match (&record, event.op.kind) {
            (Some(read), _) => release_acquire.before_access(p, &event.op, read, &mut cv),
            (None, OpKind::Fence) if rc11 => {
                release_acquire.before_fence(p, event.op.aux as u16, &mut cv);
            }
            _ => {}
        }
        let unfollowed = rc11 && record.is_none() && !plain && event.op.kind.is_memory_access();
        if unfollowed {
            cv.join(&sync.entry(sc_key).or_default().clock);
        }
        for (key, class, bytes) in touched_bytes(&event.op) {
            if (!plain || marked) && record.is_none() && !unfollowed {
                let object = sync.entry(key).or_default();
                match (class, &object.run) {
                    (Mode::Update(group), Some((run, before))) if *run == group => cv.join(before),
                    _ => cv.join(&object.clock),
                }
            }
            if plain {
                let cell = shadow.entry(key).or_default();
                // Only accesses of a byte this one touches race with it.
                for (source, theirs) in cell.unordered(p, &cv, bytes, class.writes(), marked) {
                    let (first, first_private) = match source {
                        Source::Event(j) => (j, None),
                        Source::Private(k) => {
                            let r = trace.private[k];
                            let near = event_near(trace, u32::from(r.thread), r.position as usize);
                            (near, Some(r))
                        }
                    };
                    let known = found.iter().any(|r| {
                        r.first == first && r.second == index && r.first_private == first_private
                    });
                    if found.len() < limit && !known {
                        found.push(Race {
                            first,
                            second: index,
                            address: first_common_byte(key.1, bytes, theirs),
                            first_private,
                        });
                    }
                }
                if found.len() >= limit {
                    return found;
                }
                cell.record(
                    (p, index, bytes, Source::Event(index), marked),
                    class.writes(),
                );
            }
        }
        if event.op.kind == OpKind::ThreadDetach {
            if let Some(d) = detached.get_mut(event.op.object as usize) {
                *d = true;
            }
        }
        if event.op.kind == OpKind::ThreadCreate {
            for q in (0..threads).filter(|q| detached[*q] && finished_by(*q, index)) {
                if let Some(done) = clocks.get(q) {
                    let done = done.clone();
                    cv.join(&done);
                }
                covers_finished(&mut cv, q as u32, index);
            }
        }
        if event.op.kind == OpKind::ThreadJoin {
            if let Some(joined) = clocks.get(event.op.object as usize) {
                let joined = joined.clone();
                cv.join(&joined);
            }
            covers_finished(&mut cv, event.op.object as u32, index);
        }
        cv.set(p, index as u32 + 1);
        match (&record, event.op.kind) {
            (Some(read), _) => release_acquire.after_access(p, index, &event.op, read, &cv),
            (None, OpKind::Fence) if rc11 => {
                release_acquire.after_fence(p, event.op.aux as u16, &cv);
            }
            _ => {}
        }
        if unfollowed {
            sync.entry(sc_key).or_default().clock = cv.clone();
            release_acquire.after_fence(p, ORDERING_SEQ_CST, &cv);
        }
        if (!plain || marked) && record.is_none() && !unfollowed {
            for (key, mode) in touched(&event.op) {
                let object = sync.entry(key).or_default();
                match mode {
                    Mode::Update(group) => {
                        if object.run.as_ref().is_none_or(|(run, _)| *run != group) {
                            object.run = Some((group, object.clock.clone()));
                        }
                        object.clock.join(&cv);
                    }
                    Mode::Read | Mode::Write => {
                        object.clock = cv.clone();
                        object.run = None;
                    }
                }
            }
        }
        if event.op.kind == OpKind::ThreadCreate {
            let child = event.op.object as usize;
            if clocks.len() <= child {
                clocks.resize(child + 1, VClock::default());
            }
            clocks[child] = cv.clone();
        }
        clocks[t] = cv;
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::TraceEvent;
    use reach_channel::{EventFlags, Op, RmwFamily, ThreadSet};

    fn event(thread: u32, kind: OpKind, flags: u16, object: u64) -> TraceEvent {
        TraceEvent {
            thread,
            op: Op {
                kind,
                flags: EventFlags(flags),
                object,
                aux: 4,
            },
            site: 0,
            enabled: ThreadSet::EMPTY,
        }
    }

    /// Thread 1 writes `data` and then adds to `done`; thread 2 adds to
    /// `done` and then reads `data`, in that order. As writes the additions
    /// order the accesses; as commuting updates they do not (the other
    /// order of the additions is the same behaviour), so the race shows.
    #[test]
    fn commuting_updates_do_not_synchronise_with_each_other() {
        const DATA: u64 = 0x1000;
        const DONE: u64 = 0x2000;
        let trace = |flags: u16| {
            let events = vec![
                event(0, OpKind::ThreadCreate, 0, 1),
                event(0, OpKind::ThreadCreate, 0, 2),
                event(1, OpKind::Store, 0, DATA),
                event(1, OpKind::AtomicRmw, flags, DONE),
                event(2, OpKind::AtomicRmw, flags, DONE),
                event(2, OpKind::Load, 0, DATA),
            ];
            Trace::new(events, vec![None, None, None])
        };
        assert_eq!(first_race(&trace(0)), None);
        let race = first_race(&trace(EventFlags::update(RmwFamily::Additive)));
        assert_eq!(race.map(|r| (r.first, r.second)), Some((2, 5)));
        // Updates of different families are ordered: they synchronise.
        let mut mixed = trace(EventFlags::update(RmwFamily::Additive));
        mixed.events[4].op.flags = EventFlags(EventFlags::update(RmwFamily::Or));
        let mixed = Trace::new(mixed.events, vec![None, None, None]);
        assert_eq!(first_race(&mixed), None);
        // A load of the counter after both acquires from both.
        let mut read = trace(EventFlags::update(RmwFamily::Additive));
        read.events.insert(5, event(2, OpKind::AtomicLoad, 0, DONE));
        let read = Trace::new(read.events, vec![None, None, None]);
        assert_eq!(first_race(&read), None);
    }

    /// Marked (volatile) accesses: two of them never race, a plain access
    /// unordered with one does (either first), and a marked flag orders
    /// the plain accesses around it as an atomic one does.
    #[test]
    fn marked_accesses_race_only_with_plain_ones() {
        const X: u64 = 0x1000;
        const FLAG: u64 = 0x2000;
        const V: u16 = EventFlags::VOLATILE;
        let races_of = |events: Vec<TraceEvent>| {
            let trace = Trace::new(events, vec![None, None, None]);
            find_races(&trace, 10)
                .into_iter()
                .map(|r| (r.first, r.second))
                .collect::<Vec<_>>()
        };
        let spawned = |rest: &[TraceEvent]| {
            let mut events = vec![
                event(0, OpKind::ThreadCreate, 0, 1),
                event(0, OpKind::ThreadCreate, 0, 2),
            ];
            events.extend_from_slice(rest);
            events
        };
        let marked = spawned(&[
            event(1, OpKind::Store, V, X),
            event(2, OpKind::Load, V, X),
            event(2, OpKind::Store, V, X),
            event(1, OpKind::Load, V, X),
        ]);
        assert_eq!(races_of(marked), vec![]);
        let plain_first = spawned(&[event(1, OpKind::Store, 0, X), event(2, OpKind::Load, V, X)]);
        assert_eq!(races_of(plain_first), vec![(2, 3)]);
        let marked_first = spawned(&[event(1, OpKind::Store, V, X), event(2, OpKind::Load, 0, X)]);
        assert_eq!(races_of(marked_first), vec![(2, 3)]);
        let message = spawned(&[
            event(1, OpKind::Store, 0, X),
            event(1, OpKind::Store, V, FLAG),
            event(2, OpKind::Load, V, FLAG),
            event(2, OpKind::Load, 0, X),
        ]);
        assert_eq!(races_of(message), vec![]);
        // As plain accesses, the same flag orders nothing.
        let unmarked = spawned(&[
            event(1, OpKind::Store, 0, X),
            event(1, OpKind::Store, 0, FLAG),
            event(2, OpKind::Load, 0, FLAG),
            event(2, OpKind::Load, 0, X),
        ]);
        assert_eq!(races_of(unmarked), vec![(3, 4), (2, 5)]);
    }

    fn sized(thread: u32, kind: OpKind, object: u64, size: u64) -> TraceEvent {
        let mut e = event(thread, kind, 0, object);
        e.op.aux = size;
        e
    }

    /// Two threads write and read bytes of one granule: only accesses that
    /// share a byte race, and the race names that byte.
    #[test]
    fn accesses_race_only_on_common_bytes() {
        const G: u64 = 0x3000;
        let spawn = |c| event(0, OpKind::ThreadCreate, 0, c);
        let races_of = |events: Vec<TraceEvent>| {
            let trace = Trace::new(events, vec![None, None, None]);
            find_races(&trace, 10)
                .into_iter()
                .map(|r| (r.first, r.second, r.address))
                .collect::<Vec<_>>()
        };
        // Adjacent bool flags, one per thread.
        let flags = vec![
            spawn(1),
            spawn(2),
            sized(1, OpKind::Store, G, 1),
            sized(2, OpKind::Store, G + 1, 1),
            sized(2, OpKind::Load, G + 1, 1),
            sized(1, OpKind::Load, G, 1),
        ];
        assert_eq!(races_of(flags), vec![]);
        // A 2-byte write over both flags races with each, at its byte.
        let wide = vec![
            spawn(1),
            spawn(2),
            sized(1, OpKind::Store, G, 1),
            sized(1, OpKind::Store, G + 3, 1),
            sized(2, OpKind::Store, G + 1, 2),
            sized(2, OpKind::Load, G + 3, 1),
        ];
        assert_eq!(races_of(wide), vec![(3, 5, G + 3)]);
        // A byte's last write survives another thread's write of the next.
        let kept = vec![
            spawn(1),
            spawn(2),
            sized(1, OpKind::Store, G, 1),
            sized(2, OpKind::Store, G + 1, 1),
            sized(2, OpKind::Load, G, 4),
        ];
        assert_eq!(races_of(kept), vec![(2, 4, G)]);
    }

    /// Thread 1 writes a heap block and frees it; thread 2 writes the block
    /// the allocator then hands it at the same address. With the object
    /// records the second block is new memory (no race); without them the
    /// two writes look unordered; a write before the reallocation by the
    /// same two threads to memory not reallocated still races.
    #[test]
    fn a_reallocated_heap_block_is_new_memory() {
        use crate::objects::ObjectLog;
        use reach_channel::layout::{ObjectKind, ObjectRecord};
        const BLOCK: u64 = 0x5000;
        const OTHER: u64 = 0x9000;
        let events = vec![
            event(0, OpKind::ThreadCreate, 0, 1),
            event(0, OpKind::ThreadCreate, 0, 2),
            event(1, OpKind::Store, 0, BLOCK),
            event(1, OpKind::Store, 0, OTHER),
            event(2, OpKind::Store, 0, BLOCK + 8),
            event(2, OpKind::Store, 0, BLOCK),
        ];
        let record = |kind: ObjectKind, size, step, thread| ObjectRecord {
            address: BLOCK,
            size,
            origin: 0,
            caller: 0,
            step,
            thread,
            kind: kind as u32,
        };
        let mut trace = Trace::new(events.clone(), vec![None, None, None]);
        assert_eq!(
            first_race(&trace).map(|r| (r.first, r.second)),
            Some((2, 5))
        );
        trace.objects = ObjectLog::from_records(&[
            record(ObjectKind::Heap, 64, 2, 1),
            record(ObjectKind::Free, 0, 4, 1),
            record(ObjectKind::Heap, 64, 4, 2),
        ]);
        assert_eq!(first_race(&trace), None);
        let mut racing = events;
        racing.push(event(2, OpKind::Load, 0, OTHER));
        let mut racing = Trace::new(racing, vec![None, None, None]);
        racing.objects = trace.objects.clone();
        assert_eq!(
            first_race(&racing).map(|r| (r.first, r.second)),
            Some((3, 6))
        );
    }

    /// A private write of thread 1 (no event) races with thread 2's load
    /// unless thread 2 has seen an event of thread 1 at its position or
    /// later: inside the lock section no race, after the unlock a race
    /// named by the record, and a joined thread's write after its last
    /// event none.
    #[test]
    fn private_accesses_race_by_their_position() {
        use reach_channel::private::{PrivateRecord, PRIVATE_WRITE};
        const X: u64 = 0x7000;
        const M: u64 = 0x8000;
        let events = vec![
            event(0, OpKind::ThreadCreate, 0, 1),
            event(0, OpKind::ThreadCreate, 0, 2),
            event(1, OpKind::MutexLock, 0, M),
            event(1, OpKind::MutexUnlock, 0, M),
            event(2, OpKind::MutexLock, 0, M),
            event(2, OpKind::Load, 0, X),
            event(0, OpKind::ThreadJoin, 0, 1),
            event(0, OpKind::Load, 0, X),
        ];
        let record = |position| PrivateRecord {
            granule: X,
            site: 7,
            position,
            thread: 1,
            kind: PRIVATE_WRITE,
            bytes: 0b1111,
        };
        let with = |position| {
            let mut trace = Trace::new(events.clone(), vec![None, None, None]);
            trace.private = vec![record(position)];
            find_races(&trace, 10)
        };
        assert_eq!(with(3), vec![]);
        let late = with(4);
        assert_eq!(late.len(), 1);
        assert_eq!((late[0].first, late[0].second), (3, 5));
        assert_eq!(late[0].first_private, Some(record(4)));
        // Thread 2 never synchronises with main: only its load races.
        let mut no_t2 = events.clone();
        no_t2.remove(5);
        let mut trace = Trace::new(no_t2, vec![None, None, None]);
        trace.private = vec![record(4)];
        assert_eq!(find_races(&trace, 10), vec![]);
    }
}
