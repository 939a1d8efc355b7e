//! Executions in which a thread awaits a change: blocked or livelocked.
//!
//! A thread whose spin-loop iteration did nothing ends the execution
//! parked at an [`OpKind::Await`] (the runtime's `awaits` module) whose
//! `object` is the step at which that iteration began. The iteration's
//! events are in the trace. If another thread later executed an operation
//! that conflicts with one of them (it wrote what the iteration read), the
//! loop would read something new if it ran again: the execution is
//! *blocked*, not a behaviour of its own, and the search reaches the one in
//! which the loop reads the newer value by reversing that race
//! (Kokologiannakis, Ren and Vafeiadis, FMCAD 2021, Sec. 4: blocked
//! executions). If no thread did, the loop would spin for ever: a
//! livelock (or a lost wake-up), which is a bug.

use crate::trace::Trace;
use reach_channel::models::LockWait;
use reach_channel::OpKind;

/// One thread that ended awaiting a change.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Awaiting {
    /// The thread.
    pub thread: u32,
    /// The loop's site.
    pub site: u64,
    /// Step at which the failed iteration began.
    pub since: usize,
    /// The failed iteration's steps (its reads), in order.
    pub reads: Vec<usize>,
    /// A later step of another thread that changed what one of them read.
    pub changed_by: Option<usize>,
    /// The lock the thread waits for and how, if its loop is the runtime's
    /// model of a lock's slow path (std's futex `Mutex` and `RwLock`).
    pub lock: Option<(LockWait, u64)>,
}

/// What the awaiting threads of an execution say about it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// No thread awaits a change.
    None,
    /// Some awaiting thread read something that changed later: the
    /// execution is blocked (not a behaviour; not a bug by itself).
    Blocked(Vec<Awaiting>),
    /// Every awaiting thread read the latest values: it can never leave
    /// its loop.
    Stuck(Vec<Awaiting>),
}

impl Verdict {
    /// Is the execution blocked (see [`Verdict::Blocked`])?
    pub fn is_blocked(&self) -> bool {
        matches!(self, Verdict::Blocked(_))
    }
}

/// Judges the threads of `trace` that ended at an [`OpKind::Await`].
pub fn verdict(trace: &Trace) -> Verdict {
    let mut awaiting = Vec::new();
    for (t, pending) in trace.final_pending.iter().enumerate() {
        let Some((op, site)) = pending else { continue };
        if op.kind != OpKind::Await {
            continue;
        }
        let thread = t as u32;
        let since = usize::try_from(op.object)
            .unwrap_or(usize::MAX)
            .min(trace.len());
        let reads: Vec<usize> = (since..trace.len())
            .filter(|&i| trace.events[i].thread == thread)
            .collect();
        let changed_by = reads.iter().find_map(|&r| {
            let read = &trace.events[r].op;
            (r + 1..trace.len())
                .find(|&j| trace.events[j].thread != thread && trace.events[j].op.conflicts(read))
                .or_else(|| newer_store(trace, r))
        });
        awaiting.push(Awaiting {
            thread,
            site: *site,
            since,
            reads,
            changed_by,
            lock: LockWait::decode(op.aux),
        });
    }
    if awaiting.is_empty() {
        Verdict::None
    } else if awaiting.iter().any(|a| a.changed_by.is_some()) {
        Verdict::Blocked(awaiting)
    } else {
        Verdict::Stuck(awaiting)
    }
}

/// Under RC11, the newer store event `r` did not read although it could
/// have: the latest store to its location when it ran, if it read an
/// older one. An iteration that read an older store is no reason to spin
/// for ever: run again, it may read the latest. Its execution is blocked,
/// as when the store came later (a liveness violation needs the awaiting
/// loads to read the latest stores in modification order, as in
/// Kokologiannakis, Ren and Vafeiadis's treatment of spin loops under
/// weak memory). The store's step, or `r` itself if it was not recorded.
fn newer_store(trace: &Trace, r: usize) -> Option<usize> {
    let read = trace.read(r)?;
    if read.writer_step == read.latest_step {
        return None;
    }
    let latest = usize::try_from(read.latest_step).ok();
    Some(latest.filter(|&j| j < trace.len()).unwrap_or(r))
}

/// The deadlock message of threads that can never leave their loops when
/// every one waits for a lock (see [`Awaiting::lock`]), else `None`.
pub fn lock_deadlock_message(stuck: &[Awaiting]) -> Option<String> {
    let parts: Option<Vec<String>> = stuck
        .iter()
        .map(|a| {
            a.lock.map(|(wait, addr)| {
                format!(
                    "thread {} waits {} at {addr:#x}, which no thread will unlock",
                    a.thread,
                    wait.describe()
                )
            })
        })
        .collect();
    parts.map(|p| format!("deadlock: {}", p.join("; ")))
}

/// The livelock message of threads that can never leave their loops:
/// which thread, its loop's site and the objects its iteration read.
pub fn livelock_message(trace: &Trace, stuck: &[Awaiting]) -> String {
    let parts: Vec<String> = stuck
        .iter()
        .map(|a| {
            let mut objects: Vec<String> = a
                .reads
                .iter()
                .map(|&r| trace.events[r].op)
                .filter(|op| op.accesses()[0].is_some())
                .map(|op| format!("{:#x}", op.object))
                .collect();
            objects.dedup();
            let what = if objects.is_empty() {
                String::new()
            } else {
                format!(" of {}", objects.join(", "))
            };
            format!(
                "thread {} spins in its loop (site {:#x}) awaiting a change{what} that no thread can make (its last iteration, from step {}, did nothing)",
                a.thread, a.site, a.since
            )
        })
        .collect();
    format!("livelock: {}", parts.join("; "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::TraceEvent;
    use reach_channel::{Op, ThreadSet};

    fn ev(thread: u32, op: Op) -> TraceEvent {
        TraceEvent {
            thread,
            op,
            site: 0,
            enabled: ThreadSet::EMPTY,
        }
    }

    fn trace(events: Vec<TraceEvent>, since: u64) -> Trace {
        let pending = vec![None, Some((Op::new(OpKind::Await, since, 0), 0x77))];
        Trace::new(events, pending)
    }

    /// A read followed by another thread's write of the same location:
    /// blocked. Without the write, or with a write before the read: stuck.
    #[test]
    fn blocked_when_a_later_write_changed_the_read() {
        let load = Op::new(OpKind::AtomicLoad, 0x1000, 4);
        let store = Op::new(OpKind::AtomicStore, 0x1000, 4);
        let other = Op::new(OpKind::AtomicStore, 0x2000, 4);
        let blocked = trace(vec![ev(0, other), ev(1, load), ev(0, store)], 1);
        match verdict(&blocked) {
            Verdict::Blocked(a) => assert_eq!(a[0].changed_by, Some(2)),
            v => panic!("{v:?}"),
        }
        let stuck = trace(vec![ev(0, store), ev(1, load), ev(0, other)], 1);
        match verdict(&stuck) {
            Verdict::Stuck(a) => {
                assert_eq!(a[0].reads, vec![1]);
                assert!(livelock_message(&stuck, &a).contains("0x1000"));
            }
            v => panic!("{v:?}"),
        }
        let none = Trace::new(vec![ev(0, store)], vec![None]);
        assert_eq!(verdict(&none), Verdict::None);
    }

    /// Threads stuck in a lock's modelled slow path are a deadlock that
    /// names each lock and how it is waited for; one stuck elsewhere makes
    /// it a livelock.
    #[test]
    fn stuck_lock_waiters_are_a_deadlock() {
        let failed = |mutex| {
            let mut op = Op::new(OpKind::CmpXchg, mutex, 4);
            op.flags.0 |= reach_channel::EventFlags::FAILED;
            op
        };
        let pending = |lock| Some((Op::new(OpKind::Await, 0, lock), 0x77));
        let tries = vec![ev(0, failed(0x1000)), ev(1, failed(0x2000))];
        let write = LockWait::Write.encode(0x2000);
        let both = Trace::new(tries.clone(), vec![pending(0x1000), pending(write)]);
        let Verdict::Stuck(stuck) = verdict(&both) else {
            panic!("not stuck: {:?}", verdict(&both))
        };
        let message = lock_deadlock_message(&stuck).expect("a deadlock");
        assert!(
            message.contains("thread 0 waits for the mutex at 0x1000"),
            "{message}"
        );
        assert!(
            message.contains("thread 1 waits to write-lock the RwLock at 0x2000"),
            "{message}"
        );
        let mixed = Trace::new(tries, vec![pending(0x1000), pending(0)]);
        let Verdict::Stuck(stuck) = verdict(&mixed) else {
            panic!("not stuck: {:?}", verdict(&mixed))
        };
        assert_eq!(lock_deadlock_message(&stuck), None);
    }

    /// An iteration start past the end of the trace (untrusted) is clamped.
    #[test]
    fn bad_start_is_clamped() {
        let t = trace(vec![ev(0, Op::new(OpKind::AtomicStore, 0x1000, 4))], 99);
        assert!(matches!(verdict(&t), Verdict::Stuck(a) if a[0].reads.is_empty()));
    }
}
