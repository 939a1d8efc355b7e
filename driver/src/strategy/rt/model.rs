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
//! Memory granules keep a write clock and an access clock so that reads
//! commute (a read joins the write clock, a write the access clock); a
//! synchronisation object is all writes, so its completions form a chain,
//! as the slides' `O.v` does. Thread creation and joining add the usual
//! edges; ending the process conflicts with everything, so it joins every
//! thread's clock.

use crate::analysis::objects::{touched, ObjectKey};
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
    /// The operation (as executed; as pending for an unreceived call).
    pub op: Op,
    /// Position in the trace; `None` for a call pending at the end.
    pub pos: Option<usize>,
    /// Timestamp of the sending event (the caller's clock before the call).
    pub call: Stamp,
    /// Timestamp of the receiving event (the completion).
    pub stamp: Stamp,
    /// Prime structure of the receiving event (Def. 1): the object's
    /// previous completions and everything before them.
    pub object_past: Stamp,
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
}

impl SynSequence {
    /// Builds the SYN-sequence of a trace: timestamps as on the slides, with
    /// reads commuting.
    pub fn from_trace(trace: &Trace) -> SynSequence {
        let threads = trace.thread_count();
        let mut clocks = vec![Stamp::default(); threads];
        let mut objects: HashMap<ObjectKey, (Stamp, Stamp)> = HashMap::default();
        let mut counts = vec![0u32; threads];
        let mut last_pos: Vec<Option<usize>> = vec![None; threads];
        let mut by_thread = vec![Vec::new(); threads];
        let mut events = Vec::with_capacity(trace.len() + threads);
        for (pos, event) in trace.events.iter().enumerate() {
            let t = event.thread;
            let ti = t as usize;
            let call = clocks[ti].clone();
            let mut object_past = Stamp::default();
            for (key, class) in touched(&event.op) {
                if let Some((write, access)) = objects.get(&key) {
                    object_past.join(if class == Class::Write { access } else { write });
                }
            }
            if event.op.kind == OpKind::ProcessExit {
                for clock in &clocks {
                    object_past.join(clock);
                }
            }
            let mut stamp = call.clone();
            stamp.join(&object_past);
            if event.op.kind == OpKind::ThreadJoin {
                if let Some(joined) = clocks.get(event.op.object as usize) {
                    let joined = joined.clone();
                    stamp.join(&joined);
                }
            }
            let id = EventId {
                thread: t,
                index: counts[ti],
            };
            counts[ti] += 1;
            stamp.set(t, counts[ti]);
            for (key, class) in touched(&event.op) {
                let (write, access) = objects.entry(key).or_default();
                match class {
                    Class::Write => {
                        *write = stamp.clone();
                        *access = stamp.clone();
                    }
                    Class::Read => access.join(&stamp),
                }
            }
            if event.op.kind == OpKind::ThreadCreate {
                if let Some(child) = clocks.get_mut(event.op.object as usize) {
                    *child = stamp.clone();
                }
                if let Some(slot) = last_pos.get_mut(event.op.object as usize) {
                    *slot = Some(pos);
                }
            }
            clocks[ti] = stamp.clone();
            by_thread[ti].push(events.len());
            events.push(SynEvent {
                id,
                op: event.op,
                pos: Some(pos),
                call,
                stamp,
                object_past,
                issued_after: last_pos[ti],
            });
            last_pos[ti] = Some(pos);
        }
        let executed = events.len();
        for (t, pending) in trace.final_pending.iter().enumerate() {
            let Some((op, _)) = pending else { continue };
            events.push(SynEvent {
                id: EventId {
                    thread: t as u32,
                    index: counts[t],
                },
                op: as_pending(*op),
                pos: None,
                call: clocks[t].clone(),
                stamp: clocks[t].clone(),
                object_past: Stamp::default(),
                issued_after: last_pos[t],
            });
        }
        let index = events.iter().enumerate().map(|(i, e)| (e.id, i)).collect();
        SynSequence {
            events,
            executed,
            by_thread,
            enabled: trace.events.iter().map(|e| e.enabled).collect(),
            index,
        }
    }

    /// Index of the event with identity `id`, if the trace has it.
    pub fn find(&self, id: EventId) -> Option<usize> {
        self.index.get(&id).copied()
    }

    /// True if event `a` happens before event `b`'s receiving event (or is it).
    pub fn precedes(&self, a: usize, b: usize) -> bool {
        self.events[b].stamp.covers(self.events[a].id)
    }

    /// True if event `a` happens before the *sending* event of `b`: changing
    /// `a` removes `b`'s call.
    pub fn precedes_call(&self, a: usize, b: usize) -> bool {
        self.events[b].call.covers(self.events[a].id)
    }

    /// The open list at receiving event `e` (slides "Event Descriptor"): can
    /// the call of `f` complete in the object state `e` completed in?
    ///
    /// Non-blocking operations are always open. A blocking call is open if
    /// its thread was already waiting on it when `e` completed and was
    /// enabled, or if some call of the same kind on the same object was
    /// enabled there (`e` itself included): the object's state alone decides.
    /// Otherwise it is taken as closed (an adaptation: the trace shows the
    /// enabled sets only at the states it passed through).
    pub fn open_at(&self, f: usize, e: usize) -> bool {
        let fe = &self.events[f];
        let Some(pe) = self.events[e].pos else {
            return false;
        };
        if !blocking(&fe.op) {
            return true;
        }
        let enabled = self.enabled[pe];
        let waiting = fe.issued_after.is_none_or(|p| p < pe);
        if waiting {
            return enabled.contains(fe.id.thread);
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

    /// The value of the semaphore at `object` before trace position `pos`,
    /// when the trace determines it. The initial value is not traced; it is
    /// inferred from the states where a thread waited on the semaphore: a
    /// disabled wait means the value was zero, an enabled or completed one
    /// that it was positive.
    fn semaphore_before(&self, object: u64, pos: usize) -> Option<i64> {
        let mut delta = 0i64;
        let mut delta_at = Vec::with_capacity(self.executed + 1);
        for e in &self.events[..self.executed] {
            delta_at.push(delta);
            if e.op.object == object && !failed(&e.op) {
                match e.op.kind {
                    OpKind::SemPost => delta += 1,
                    OpKind::SemWait => delta -= 1,
                    _ => {}
                }
            }
        }
        delta_at.push(delta);
        let mut lower = 0i64;
        let mut exact = None;
        for (k, enabled) in self.enabled.iter().enumerate() {
            for u in 0..self.by_thread.len() as u32 {
                let Some(g) = self.pending_at(u, k) else {
                    continue;
                };
                let op = &self.events[g].op;
                if op.kind != OpKind::SemWait || op.object != object || !blocking(op) {
                    continue;
                }
                if enabled.contains(u) {
                    lower = lower.max(1 - delta_at[k]);
                } else {
                    exact = Some(-delta_at[k]);
                }
            }
        }
        let at = delta_at.get(pos).copied()?;
        match exact {
            Some(initial) => Some(initial + at),
            None => (lower + at > 0).then_some(lower + at),
        }
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
pub fn blocking(op: &Op) -> bool {
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

/// True if taking `e`'s place with the call `f` leaves everything after
/// `e` feasible: `f` only reads (a read changes no state, so the events
/// after `e` can follow it unchanged), or `e` ends the process (nothing
/// follows it). The changed receive is then `f`'s own completion, and only
/// the events after `f` are removed; otherwise it is `e`'s.
pub fn moves_before(e: &Op, f: &Op) -> bool {
    let f = as_pending(*f);
    e.kind == OpKind::ProcessExit
        || (f.kind != OpKind::ProcessExit
            && f.accesses()
                .iter()
                .flatten()
                .all(|a| a.class == Class::Read))
}

/// The dependency relation on a receiving event `e` (as executed) and a
/// call `f` (as pending: a call's outcome is not known before it completes).
pub fn dependent(e: &Op, f: &Op) -> bool {
    e.conflicts(&as_pending(*f))
}
