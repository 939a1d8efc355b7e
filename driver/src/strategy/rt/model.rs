//! The general execution model (slides "A General Execution Model",
//! "Timestamp Semaphore/Monitor") applied to one trace: event identities,
//! sending (call) and receiving (completion) timestamps, prime structures,
//! and open lists.
//!
//! Every executed visible operation `e` of thread `T` is a synchronisation
//! pair: the *sending event* is `T`'s call (its timestamp is `T`'s clock just
//! before the operation), the *receiving event* is the completion of the
//! call on the operation's object (its timestamp joins the object's clock).
//! Both happen in one scheduling step, so the trace stores them as one event.
//! Object granules keep a write clock and an access clock so that reads
//! commute (a read joins the write clock, a write the access clock): the
//! full happens-before. A third clock per granule, the last write's *value*
//! clock, gives the value relation, in which a write follows the earlier
//! writes but not the earlier reads: a read receives the value of a write
//! (reads-from), and what it read changes nothing a later write does.
//! Synchronisation operations are writes, so their completions form a
//! chain, as the slides' `O.v` does. Thread creation and joining add the
//! usual edges; ending the process conflicts with everything, so it joins
//! every thread's clock. A crash (a fatal signal) ends the process inside
//! the transition of the thread that crashed, its last traced event: that
//! event is modelled as ending the process, like an exit. Its receive then
//! races with every call that had not completed (paper Sec. 3.1: the exit
//! is dependent with every event), which is what decides the crash's
//! partial order; what it read is subsumed, since an exit is dependent
//! with every access.

use crate::analysis::objects::{touched, ObjectKey};
use crate::analysis::wakeup::waiter_after;
use crate::trace::{as_pending, Trace};
use reach_channel::{Class, EventFlags, Op, OpKind, ThreadSet};
use rustc_hash::FxHashMap as HashMap;

/// Identity of an event across a trace, a race variant of it and the trace
/// that variant leads to: the thread and the event's index within the
/// thread. Sound because a variant is forced as per-thread prefixes, so the
/// prime structure (Def. 1) of every event that keeps its identity is
/// repeated (Prop. 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct EventId {
    /// Thread (creation order).
    pub thread: u32,
    /// Index of the event within its thread.
    pub index: u32,
}

/// A vector timestamp: entry `t` counts the events of thread `t` that happen
/// before or are the stamped event (slides "Timestamp Assignment").
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stamp(Vec<u32>);

impl Stamp {
    /// True if event `id` happens before (or is) the stamped event.
    pub fn covers(&self, id: EventId) -> bool {
        self.0.get(id.thread as usize).copied().unwrap_or(0) > id.index
    }

    /// Pointwise maximum (`max(T.v, O.v)`).
    pub fn join(&mut self, other: &Stamp) {
        if self.0.len() < other.0.len() {
            self.0.resize(other.0.len(), 0);
        }
        for (a, b) in self.0.iter_mut().zip(&other.0) {
            *a = (*a).max(*b);
        }
    }

    fn set(&mut self, t: u32, value: u32) {
        let t = t as usize;
        if self.0.len() <= t {
            self.0.resize(t + 1, 0);
        }
        self.0[t] = value;
    }
}

/// One synchronisation pair of the trace, or a call still pending at its end
/// (a sending event never received).
#[derive(Clone, Debug)]
pub struct SynEvent {
    /// Identity.
    pub id: EventId,
    /// The operation (as executed; as pending for an unreceived call). The
    /// transition in which the process crashed is a process exit here.
    pub op: Op,
    /// The operation the trace recorded (what a forced step must match):
    /// `op`, except for the crashing transition.
    pub traced: Op,
    /// Position in the trace; `None` for a call pending at the end.
    pub pos: Option<usize>,
    /// Timestamp of the sending event (the caller's clock before the call),
    /// in the full happens-before (reads before later writes included).
    pub call: Stamp,
    /// Timestamp of the receiving event (the completion), full happens-before.
    pub stamp: Stamp,
    /// Value timestamp of the call: the events whose outcome the call
    /// depends on (happens-before without the read-before-write edges).
    pub vcall: Stamp,
    /// Value timestamp of the completion.
    pub vstamp: Stamp,
    /// For a write receive, its prime structure (Def. 1): the value past of
    /// the previous write of its objects (the previous receive of the
    /// object). For a read receive, the value past of the writes it reads
    /// from (its send partners).
    pub object_past: Stamp,
    /// A reads-from receive: the operation only reads, executed and as a
    /// call (a load, `sem_getvalue`), and does not end the process.
    pub read_only: bool,
    /// Trace position before which the call was issued: the thread's
    /// previous event or its creation (`None` for the main thread's first).
    pub issued_after: Option<usize>,
}

/// The SYN-sequence of one trace.
pub struct SynSequence {
    /// Executed pairs in trace order, then the calls pending at the end.
    pub events: Vec<SynEvent>,
    /// Number of executed pairs (a prefix of `events`).
    pub executed: usize,
    /// Index in `events` of each executed event of each thread, in order.
    by_thread: Vec<Vec<usize>>,
    /// Enabled threads at each state of the trace.
    enabled: Vec<ThreadSet>,
    /// Index of `events` by identity.
    index: HashMap<EventId, usize>,
    /// The identity of each event, compact: the passes of every variant
    /// over all events read only these.
    ids: Vec<EventId>,
}

/// Per object granule: the full clocks of its last write and of its
/// accesses since, and the value clock of its last write.
#[derive(Default)]
struct Granule {
    write: Stamp,
    access: Stamp,
    value: Stamp,
}

/// True if `op` only reads, both as executed and as a call.
pub fn reads_only(op: &Op) -> bool {
    op.kind != OpKind::ProcessExit && only_reads(op) && only_reads(&as_pending(*op))
}

/// True if every access of `op` (at least one) is a read.
fn only_reads(op: &Op) -> bool {
    let accesses = op.accesses();
    accesses.iter().any(Option::is_some)
        && accesses.iter().flatten().all(|a| a.class == Class::Read)
}

impl SynSequence {
    /// Builds the SYN-sequence of a trace: timestamps as on the slides, with
    /// reads commuting, in two relations. The full happens-before orders a
    /// read before the later writes of its granule; the value relation
    /// leaves those edges out, since a read's outcome changes nothing the
    /// later write does (a read is a receiving event of the reads-from
    /// relation, a write the receiving event of its place among the writes).
    pub fn from_trace(trace: &Trace) -> SynSequence {
        let threads = trace.thread_count();
        let mut clocks = vec![Stamp::default(); threads];
        let mut values = vec![Stamp::default(); threads];
        let mut objects: HashMap<ObjectKey, Granule> = HashMap::default();
        let mut counts = vec![0u32; threads];
        let mut last_pos: Vec<Option<usize>> = vec![None; threads];
        let mut by_thread = vec![Vec::new(); threads];
        let mut events = Vec::with_capacity(trace.len() + threads);
        let crash = trace.ended_by.and_then(|t| trace.last_event_of(t));
        for (pos, traced) in trace.events.iter().enumerate() {
            let mut event = *traced;
            if crash == Some(pos) {
                event.op = Op {
                    kind: OpKind::ProcessExit,
                    flags: EventFlags(EventFlags::CUTS_THREADS),
                    object: 0,
                    aux: 0,
                };
            }
            let t = event.thread;
            let ti = t as usize;
            let call = clocks[ti].clone();
            let vcall = values[ti].clone();
            let mut full_past = Stamp::default();
            let mut object_past = Stamp::default();
            for (key, class) in touched(&event.op) {
                if let Some(g) = objects.get(&key) {
                    full_past.join(if class.writes() { &g.access } else { &g.write });
                    object_past.join(&g.value);
                }
            }
            if event.op.cuts_threads() {
                for (clock, value) in clocks.iter().zip(&values) {
                    full_past.join(clock);
                    object_past.join(value);
                }
            }
            let mut stamp = call.clone();
            stamp.join(&full_past);
            let mut vstamp = vcall.clone();
            vstamp.join(&object_past);
            if event.op.kind == OpKind::ThreadJoin {
                let j = event.op.object as usize;
                if let (Some(c), Some(v)) = (clocks.get(j), values.get(j)) {
                    let (c, v) = (c.clone(), v.clone());
                    stamp.join(&c);
                    vstamp.join(&v);
                }
            }
            let id = EventId {
                thread: t,
                index: counts[ti],
            };
            counts[ti] += 1;
            stamp.set(t, counts[ti]);
            vstamp.set(t, counts[ti]);
            for (key, class) in touched(&event.op) {
                let g = objects.entry(key).or_default();
                if class.writes() {
                    g.write = stamp.clone();
                    g.access = stamp.clone();
                    g.value = vstamp.clone();
                } else {
                    g.access.join(&stamp);
                }
            }
            if event.op.kind == OpKind::ThreadCreate {
                let child = event.op.object as usize;
                if let (Some(c), Some(v)) = (clocks.get_mut(child), values.get_mut(child)) {
                    *c = stamp.clone();
                    *v = vstamp.clone();
                }
                if let Some(slot) = last_pos.get_mut(child) {
                    *slot = Some(pos);
                }
            }
            clocks[ti] = stamp.clone();
            values[ti] = vstamp.clone();
            by_thread[ti].push(events.len());
            events.push(SynEvent {
                id,
                op: event.op,
                traced: traced.op,
                pos: Some(pos),
                call,
                stamp,
                vcall,
                vstamp,
                object_past,
                read_only: reads_only(&event.op),
                issued_after: last_pos[ti],
            });
            last_pos[ti] = Some(pos);
        }
        let executed = events.len();
        for (t, pending) in trace.final_pending.iter().enumerate() {
            let Some((op, _)) = pending else { continue };
            let op = as_pending(*op);
            events.push(SynEvent {
                id: EventId {
                    thread: t as u32,
                    index: counts[t],
                },
                op,
                traced: op,
                pos: None,
                call: clocks[t].clone(),
                stamp: clocks[t].clone(),
                vcall: values[t].clone(),
                vstamp: values[t].clone(),
                object_past: Stamp::default(),
                read_only: reads_only(&op),
                issued_after: last_pos[t],
            });
        }
        let index = events.iter().enumerate().map(|(i, e)| (e.id, i)).collect();
        SynSequence {
            ids: events.iter().map(|e| e.id).collect(),
            events,
            executed,
            by_thread,
            enabled: trace.events.iter().map(|e| e.enabled).collect(),
            index,
        }
    }

    /// The identity of event `g` (of `events`).
    pub fn id(&self, g: usize) -> EventId {
        self.ids[g]
    }

    /// Index of the event with identity `id`, if the trace has it.
    pub fn find(&self, id: EventId) -> Option<usize> {
        let executed = self
            .by_thread
            .get(id.thread as usize)
            .and_then(|list| list.get(id.index as usize));
        executed.copied().or_else(|| self.index.get(&id).copied())
    }

    /// Def. 4 for one changed receive `root`: is event `g` removed from the
    /// variant? It is if its completion depends on the outcome at `root`
    /// (value relation). A changed write receive is removed itself (its
    /// place goes to the new partner; `inclusive`); a read receive that
    /// reads from another write stays, only what follows it goes.
    pub fn removes(&self, root: usize, inclusive: bool, g: usize) -> bool {
        (inclusive || g != root) && self.events[g].vstamp.covers(self.events[root].id)
    }

    /// Per thread, the index (within the thread) of its first executed
    /// event whose completion depends on the outcome at `root` (`u32::MAX`
    /// if none). Value stamps only grow along a thread, so the events
    /// [`SynSequence::removes`] takes with `root` are, in each thread, those
    /// from there on (the root itself aside when it stays).
    pub fn first_dependent(&self, root: usize) -> Vec<u32> {
        let id = self.events[root].id;
        self.by_thread
            .iter()
            .map(|list| {
                let k = list.partition_point(|&g| !self.events[g].vstamp.covers(id));
                list.get(k).map_or(u32::MAX, |&g| self.events[g].id.index)
            })
            .collect()
    }

    /// True if changing the receive `root` removes the *call* of `g` (its
    /// sending event): the call depends on the outcome at `root`.
    pub fn removes_call(&self, root: usize, g: usize) -> bool {
        self.events[g].vcall.covers(self.events[root].id)
    }

    /// True if the completion of event `g` follows the receive `root` in
    /// the relation of the tangled cycles (E1; Sec. 5.3, Def. 6: `root`
    /// is strongly reconciled before a receive whose new partner is `g`
    /// if it happens before that partner): the full happens-before, the
    /// partial order of the SYN-sequence, in which a read precedes the
    /// later writes of its granule. The value relation leaves those edges
    /// out, yet a write that follows a read (a failed compare-and-swap
    /// after `root` in its thread) is only collected once the read was
    /// placed before it.
    pub fn follows(&self, root: usize, g: usize) -> bool {
        self.events[g].stamp.covers(self.events[root].id)
    }

    /// [`SynSequence::follows`] for the call of `g` (its sending event).
    pub fn call_follows(&self, root: usize, g: usize) -> bool {
        self.events[g].call.covers(self.events[root].id)
    }

    /// True if event `a` happens before the call of `b` in the full
    /// happens-before (reads before later writes included): `b` cannot be
    /// issued before `a` completes.
    pub fn before_call(&self, a: usize, b: usize) -> bool {
        self.events[b].call.covers(self.events[a].id)
    }

    /// The open list at receiving event `e` (slides "Event Descriptor"): can
    /// the call of `f` complete in the object state `e` completed in?
    ///
    /// Non-blocking operations are always open. A blocking call is open if
    /// its thread was already waiting on it when `e` completed and was
    /// enabled, or if some call of the same kind on the same object was
    /// enabled there (`e` itself included): the object's state alone decides.
    /// A semaphore wait is open iff the traced count is positive. Otherwise
    /// it is taken as closed (an adaptation: the trace shows the enabled
    /// sets only at the states it passed through).
    pub fn open_at(&self, f: usize, e: usize) -> bool {
        let fe = &self.events[f];
        let Some(pe) = self.events[e].pos else {
            return false;
        };
        if !blocking(&fe.op) {
            return true;
        }
        if fe.op.kind == OpKind::SemWait {
            // The slides' P/V open list, from the traced count.
            if let Some(value) = self.semaphore_before(fe.op.object, pe) {
                return value > 0;
            }
        }
        let enabled = self.enabled[pe];
        let waiting = fe.issued_after.is_none_or(|p| p < pe);
        if waiting && enabled.contains(fe.id.thread) {
            return true;
        }
        if fe.op.kind == OpKind::CondRelock {
            // Not the object's state alone: whether its thread is woken.
            return self.relock_open(f, e, pe);
        }
        if waiting {
            return false;
        }
        let same = |op: &Op| op.kind == fe.op.kind && op.object == fe.op.object;
        let ee = &self.events[e];
        if same(&ee.op) && !failed(&ee.op) {
            return true;
        }
        let waiting_same = (0..self.by_thread.len() as u32).find_map(|u| {
            self.pending_at(u, pe)
                .filter(|&g| u != fe.id.thread && same(&self.events[g].op))
                .map(|_| enabled.contains(u))
        });
        if let Some(known) = waiting_same {
            return known;
        }
        match fe.op.kind {
            OpKind::MutexLock | OpKind::MutexTimedLock | OpKind::SpinLock => {
                self.holders_before(fe.op.object, pe).is_empty()
            }
            OpKind::RwWriteLock => self.holders_before(fe.op.object, pe).is_empty(),
            OpKind::RwReadLock => self
                .holders_before(fe.op.object, pe)
                .iter()
                .all(|&(_, write)| !write),
            OpKind::SemWait => self
                .semaphore_before(fe.op.object, pe)
                .is_some_and(|v| v > 0),
            _ => false,
        }
    }

    /// Can the re-acquisition `f` of a condition wait, whose thread was
    /// asleep on the condition variable when `e` completed (at trace
    /// position `pe`), complete in `e`'s place all the same? The events
    /// that the variant keeps before `f` (those before `e`, and those after
    /// it that do not depend on `e`'s outcome; `e` itself goes) are
    /// replayed as the runtime would ([`waiter_after`]). Open if `f`'s
    /// thread ends up woken (or its wait is timed) and the mutex free: a
    /// waiter woken by a broadcast that does not depend on `e` re-acquires
    /// the mutex before `e`'s acquisition, as it can.
    fn relock_open(&self, f: usize, e: usize, pe: usize) -> bool {
        let fe = &self.events[f];
        let end = fe.pos.unwrap_or(usize::MAX);
        let kept = self.events[..self.executed]
            .iter()
            .enumerate()
            .filter(|&(g, event)| {
                event
                    .pos
                    .is_some_and(|pos| pos < end && (pos < pe || !self.removes(e, true, g)))
            })
            .map(|(_, event)| (event.id.thread, &event.op));
        let waiter = waiter_after(kept, fe.op.object, fe.op.aux, fe.id.thread);
        // A timed wait may also return on its timeout.
        let timed = fe.op.flags.has(EventFlags::TIMED);
        (timed || waiter.woken) && waiter.mutex_free
    }

    /// Holders (thread, exclusive) of the lock at `object` in the state
    /// before trace position `pos`, replayed from the completions before it.
    fn holders_before(&self, object: u64, pos: usize) -> Vec<(u32, bool)> {
        let mut holders: Vec<(u32, bool)> = Vec::new();
        for e in self.events[..self.executed.min(pos)].iter() {
            let (op, t) = (&e.op, e.id.thread);
            if failed(op) {
                continue;
            }
            let lock = if matches!(op.kind, OpKind::CondWait | OpKind::CondRelock) {
                op.aux
            } else {
                op.object
            };
            if lock != object {
                continue;
            }
            match op.kind {
                OpKind::MutexLock
                | OpKind::MutexTryLock
                | OpKind::MutexTimedLock
                | OpKind::SpinLock
                | OpKind::CondRelock
                | OpKind::RwWriteLock => holders.push((t, true)),
                OpKind::RwReadLock => holders.push((t, false)),
                OpKind::MutexUnlock | OpKind::SpinUnlock | OpKind::RwUnlock | OpKind::CondWait => {
                    if let Some(k) = holders.iter().rposition(|&(h, _)| h == t) {
                        holders.remove(k);
                    }
                }
                _ => {}
            }
        }
        holders
    }

    /// The value of the semaphore at `object` in the state before trace
    /// position `pos`. Every completed `sem_wait`, `sem_post` and
    /// `sem_getvalue` records the count it found in its `aux`; the value at
    /// `pos` follows from the last such completion before `pos` (its count
    /// and its effect) or else the first one at or after it. `None` if the
    /// trace never touched the semaphore.
    pub fn semaphore_before(&self, object: u64, pos: usize) -> Option<i64> {
        let is_sem = |e: &SynEvent| {
            e.op.object == object
                && matches!(
                    e.op.kind,
                    OpKind::SemWait | OpKind::SemPost | OpKind::SemGetValue
                )
        };
        let executed = &self.events[..self.executed];
        let end = pos.min(executed.len());
        if let Some(e) = executed[..end].iter().rev().find(|e| is_sem(e)) {
            let count = e.op.aux as i64;
            return Some(match e.op.kind {
                OpKind::SemPost => count + 1,
                OpKind::SemWait if !failed(&e.op) => count - 1,
                _ => count,
            });
        }
        executed[end..]
            .iter()
            .find(|e| is_sem(e))
            .map(|e| e.op.aux as i64)
    }

    /// The event thread `u` is about to perform at state `pos`, if known.
    fn pending_at(&self, u: u32, pos: usize) -> Option<usize> {
        let list = self.by_thread.get(u as usize)?;
        let k = list.partition_point(|&i| self.events[i].pos.is_some_and(|p| p < pos));
        match list.get(k) {
            Some(&i) => Some(i),
            None => self
                .events
                .iter()
                .skip(self.executed)
                .position(|e| e.id.thread == u)
                .map(|j| j + self.executed),
        }
    }
}

/// True if the operation did not take effect (a busy trylock, a timeout).
fn failed(op: &Op) -> bool {
    op.flags.has(EventFlags::FAILED) || op.flags.has(EventFlags::TIMED_OUT)
}

/// True if a call of this operation may have to wait for another thread.
///
/// A try or timed variant never waits, except the re-acquire of a timed
/// condition wait: the timeout only decides whether it returns signalled or
/// `ETIMEDOUT`, the mutex must still be free (the wait's second half).
pub fn blocking(op: &Op) -> bool {
    if op.kind == OpKind::CondRelock {
        return true;
    }
    if op.flags.has(EventFlags::TRY) || op.flags.has(EventFlags::TIMED) {
        return false;
    }
    matches!(
        op.kind,
        OpKind::MutexLock
            | OpKind::MutexTimedLock
            | OpKind::SpinLock
            | OpKind::RwReadLock
            | OpKind::RwWriteLock
            | OpKind::SemWait
            | OpKind::CondRelock
            | OpKind::ThreadJoin
            | OpKind::BarrierLeave
            | OpKind::FutexWait
            | OpKind::Once
    )
}

/// The dependency relation on a receiving event `e` (as executed) and a
/// call `f` (as pending: a call's outcome is not known before it completes).
pub fn dependent(e: &Op, f: &Op) -> bool {
    e.conflicts(&as_pending(*f))
}
