//! The trace of one execution, as the strategies and analyses see it.
//!
//! Built from an executor [`Outcome`]: the sequence of executed events, and
//! for every state (the point before event `k`, `k = 0..=len`) each thread's
//! pending operation. A thread's pending operation does not change until the
//! thread runs, so the pending operation of thread `p` at state `k` is `p`'s
//! next event at or after `k`, or, if `p` never runs again, the operation the
//! runtime reported it parked at when the execution ended.
//!
//! An execution longer than the recording bound is recorded in its first
//! steps only: its trace is that prefix, with each thread's pending
//! operation where recording stopped ([`Trace::truncated`]). To the
//! strategies it looks like an execution that ended there.

use crate::exec::Outcome;
use crate::objects::ObjectLog;
use reach_channel::memory_model::{prefix_entry, ReadRecord};
use reach_channel::private::PrivateRecord;
use reach_channel::{EventFlags, Op, OpKind, ThreadSet, ThreadState};

/// One executed visible operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TraceEvent {
    /// Executing thread (creation order, main = 0).
    pub thread: u32,
    /// The operation as executed (outcome flags included).
    pub op: Op,
    /// Site id (0 if unknown).
    pub site: u64,
    /// Threads enabled at the state before this event.
    pub enabled: ThreadSet,
}

/// A trace with the bookkeeping to answer "what is thread `p` about to do at
/// state `k`" in constant time during a forward scan.
#[derive(Clone, Debug)]
pub struct Trace {
    /// Executed events in order.
    pub events: Vec<TraceEvent>,
    /// Pending operation of each thread at the end (None: finished, never created).
    pub final_pending: Vec<Option<(Op, u64)>>,
    /// Thread whose last transition ended the process abnormally (a fatal
    /// signal): like an exit, that ending conflicts with whatever the other
    /// threads would still have done. Never set for a truncated trace.
    pub ended_by: Option<u32>,
    /// Recording stopped before the execution ended: `events` are its first
    /// steps and `final_pending` the pending operations at that point.
    pub truncated: bool,
    /// Steps the execution ran, recorded or not (at least `events.len()`).
    pub total_steps: u64,
    /// Inputs, expressions and path constraints (concolic testing).
    pub symbolic: Option<std::sync::Arc<crate::exec::symbolic::SymTrace>>,
    /// Heap blocks and escaping stack objects, for naming memory in
    /// reports (read only for executions that are reported; else empty).
    pub objects: ObjectLog,
    /// The program's threads ran as user-level contexts (else as kernel
    /// threads), which places their stacks and TLS at other addresses.
    pub user_threads: bool,
    /// Each event's call from the program's own code into the standard
    /// library in progress (a site id, 0 if none), for placing its steps
    /// in reports ([`Trace::caller`]); empty for a trace built otherwise.
    pub callers: Vec<u64>,
    /// Under RC11, what each atomic access read and where its store went
    /// (parallel to `events`; `None` for other events; empty for a trace
    /// built otherwise).
    pub reads: Vec<Option<ReadRecord>>,
    /// The execution ran with private accesses: a plain access to memory
    /// only its thread had touched was no event ([`reach_channel::private`]).
    pub private_mode: bool,
    /// The private accesses of memory another thread touched later, in
    /// trace order (by position): what the race detector compares besides
    /// the events.
    pub private: Vec<PrivateRecord>,
    /// Index of the next event of the same thread after event `i`, if any.
    next_same_thread: Vec<Option<usize>>,
    /// Indices of each thread's events, in order.
    thread_events: Vec<Vec<u32>>,
    /// Index of each thread's first event, if it ran at all.
    first_event: Vec<Option<usize>>,
    /// State at which each thread exists (0 for main, creation index + 1 otherwise).
    born_at: Vec<Option<usize>>,
}

/// The operation a thread is *about to* execute: the executed operation
/// without outcome bits, which are unknown before it runs (a pending
/// compare-and-swap may write).
pub fn as_pending(op: Op) -> Op {
    Op {
        flags: EventFlags(op.flags.0 & !(EventFlags::FAILED | EventFlags::TIMED_OUT)),
        ..op
    }
}

impl Trace {
    /// Builds a trace from an execution outcome.
    pub fn from_outcome(outcome: &Outcome) -> Trace {
        let (events, callers): (Vec<TraceEvent>, Vec<u64>) = outcome
            .events
            .iter()
            .filter_map(|e| {
                let event = TraceEvent {
                    thread: e.thread,
                    op: e.op()?,
                    site: e.site,
                    enabled: e.enabled,
                };
                Some((event, e.caller))
            })
            .unzip();
        let slots = outcome.cut.as_ref().unwrap_or(&outcome.threads);
        let final_pending = slots
            .iter()
            .map(|slot| {
                let parked = ThreadState::from_u32(slot.state) == Some(ThreadState::Parked);
                let kind = OpKind::from_u16(slot.pending_kind)?;
                parked.then_some((
                    Op {
                        kind,
                        flags: EventFlags(slot.pending_flags),
                        object: slot.pending_object,
                        aux: slot.pending_aux,
                    },
                    slot.pending_site,
                ))
            })
            .collect();
        let mut trace = Trace::new(events, final_pending);
        trace.truncated = outcome.cut.is_some();
        trace.total_steps = outcome.steps.max(trace.len() as u64);
        trace.symbolic = outcome.symbolic.clone();
        trace.user_threads = outcome.user_threads;
        trace.callers = callers;
        trace.reads = outcome.reads.clone();
        trace.private_mode = outcome.private_mode;
        trace.private = outcome.private.clone();
        if trace.truncated {
            // The process ended past the recorded steps.
            return trace;
        }
        if let crate::exec::Termination::Signaled(_) = outcome.termination {
            trace.ended_by = outcome
                .culprit
                .map(|(t, _)| t)
                .or_else(|| trace.events.last().map(|e| e.thread));
        }
        trace
    }

    /// Builds a trace from events and final pending operations.
    pub fn new(events: Vec<TraceEvent>, final_pending: Vec<Option<(Op, u64)>>) -> Trace {
        let threads = events
            .iter()
            .map(|e| e.thread as usize + 1)
            .chain(events.iter().filter_map(|e| {
                (e.op.kind == OpKind::ThreadCreate).then_some(e.op.object as usize + 1)
            }))
            .max()
            .unwrap_or(0)
            .max(final_pending.len())
            .max(1);
        let mut next_same_thread = vec![None; events.len()];
        let mut first_event = vec![None; threads];
        let mut last: Vec<Option<usize>> = vec![None; threads];
        let mut born_at = vec![None; threads];
        let mut thread_events: Vec<Vec<u32>> = vec![Vec::new(); threads];
        born_at[0] = Some(0);
        for (i, e) in events.iter().enumerate() {
            let t = e.thread as usize;
            thread_events[t].push(i as u32);
            match last[t] {
                Some(prev) => next_same_thread[prev] = Some(i),
                None => first_event[t] = Some(i),
            }
            last[t] = Some(i);
            if e.op.kind == OpKind::ThreadCreate {
                if let Some(slot) = born_at.get_mut(e.op.object as usize) {
                    *slot = Some(i + 1);
                }
            }
        }
        let mut final_pending = final_pending;
        final_pending.resize(threads, None);
        Trace {
            total_steps: events.len() as u64,
            symbolic: None,
            events,
            final_pending,
            ended_by: None,
            truncated: false,
            objects: ObjectLog::default(),
            user_threads: false,
            callers: Vec::new(),
            reads: Vec::new(),
            private_mode: false,
            private: Vec::new(),
            next_same_thread,
            thread_events,
            first_event,
            born_at,
        }
    }

    /// The call from the program's own code into the standard library in
    /// progress at event `i` (a site id, 0 if none or unknown).
    pub fn caller(&self, i: usize) -> u64 {
        self.callers.get(i).copied().unwrap_or(0)
    }

    /// Number of threads that appear in the trace.
    pub fn thread_count(&self) -> usize {
        self.first_event.len()
    }

    /// Number of events.
    pub fn len(&self) -> usize {
        self.events.len()
    }

    /// True if no event was executed.
    pub fn is_empty(&self) -> bool {
        self.events.is_empty()
    }

    /// The thread chosen at each scheduling point: the schedule of this execution.
    pub fn schedule(&self) -> Vec<u32> {
        self.events.iter().map(|e| e.thread).collect()
    }

    /// What event `i` read and where its store went, if it is an atomic
    /// access under RC11.
    pub fn read(&self, i: usize) -> Option<ReadRecord> {
        self.reads.get(i).copied().flatten()
    }

    /// The schedule prefix that runs this execution again: each step's
    /// thread with its reads-from choice
    /// ([`reach_channel::memory_model::prefix_entry`]).
    pub fn prefix(&self) -> Vec<u32> {
        self.events
            .iter()
            .enumerate()
            .map(|(i, e)| prefix_entry(e.thread, self.read(i).map_or(0, |r| r.choice)))
            .collect()
    }

    /// State (index) from which thread `t` exists, if it was created.
    pub fn born_at(&self, t: u32) -> Option<usize> {
        self.born_at.get(t as usize).copied().flatten()
    }

    /// Index of the last event of thread `t`, if it ran.
    pub fn last_event_of(&self, t: u32) -> Option<usize> {
        self.events_of(t).last().map(|&i| i as usize)
    }

    /// Indices of thread `t`'s events, in order.
    pub fn events_of(&self, t: u32) -> &[u32] {
        self.thread_events
            .get(t as usize)
            .map_or(&[], Vec::as_slice)
    }

    /// Index of thread `t`'s first event after event `i`, if any.
    pub fn next_event_of(&self, t: u32, i: usize) -> Option<usize> {
        let events = self.events_of(t);
        let at = events.partition_point(|&j| j as usize <= i);
        events.get(at).map(|&j| j as usize)
    }

    /// A cursor for a forward scan over the states of this trace.
    pub fn cursor(&self) -> PendingCursor<'_> {
        PendingCursor {
            trace: self,
            next: self.first_event.clone(),
            state: 0,
        }
    }
}

/// Forward scan over states `0..=len`, tracking each thread's pending operation.
pub struct PendingCursor<'a> {
    trace: &'a Trace,
    next: Vec<Option<usize>>,
    state: usize,
}

impl PendingCursor<'_> {
    /// Current state index.
    pub fn state(&self) -> usize {
        self.state
    }

    /// Pending operation (without outcome bits) and its site for thread `t`
    /// at the current state, if `t` exists and has not finished.
    pub fn pending(&self, t: u32) -> Option<(Op, u64)> {
        let born = self.trace.born_at(t)?;
        if born > self.state {
            return None;
        }
        match self.next.get(t as usize).copied().flatten() {
            Some(i) => {
                let e = &self.trace.events[i];
                Some((as_pending(e.op), e.site))
            }
            None => self.trace.final_pending.get(t as usize).copied().flatten(),
        }
    }

    /// Index of thread `t`'s next event at or after the current state.
    pub fn next_index(&self, t: u32) -> Option<usize> {
        self.next.get(t as usize).copied().flatten()
    }

    /// Moves past event `state` (the thread that executed it gets its next op).
    pub fn advance(&mut self) {
        if let Some(e) = self.trace.events.get(self.state) {
            let t = e.thread as usize;
            self.next[t] = self.trace.next_same_thread[self.state];
            self.state += 1;
        }
    }
}
