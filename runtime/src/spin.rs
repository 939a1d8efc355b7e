//! Spin-loop detection.
//!
//! A thread that keeps re-reading memory nobody writes (`while (!flag);`,
//! `while (!flag) sched_yield();`) would make exhaustive exploration
//! infinite. Each thread remembers the read operations it executed since its
//! last write or synchronisation (at most [`SPIN_READS`] distinct ones; a read
//! of one more location means the thread scans memory rather than spins, and
//! starts the count over) and counts them (yields and sleeps count too). Past the request's spin threshold the thread
//! is *blocked* (not enabled) until another thread executes an operation that
//! conflicts with one of those reads; a spinner without visible reads (an
//! uninstrumented `while (!flag) sched_yield();`) is released by any write or
//! synchronisation of another thread. If every live thread is blocked and one
//! of them spins, the execution ends with `Livelock`.

use crate::state::{Spin, State, SPIN_READS};
use reach_channel::{EventFlags, Op, OpKind};

/// Is `op` (as executed) a read that makes no progress?
fn is_spin_read(op: &Op) -> bool {
    let failed = op.flags.has(EventFlags::FAILED) || op.flags.has(EventFlags::TIMED_OUT);
    match op.kind {
        OpKind::Load | OpKind::AtomicLoad | OpKind::RangeRead | OpKind::SemGetValue => true,
        OpKind::Yield | OpKind::Sleep | OpKind::Fence => true,
        OpKind::CmpXchg
        | OpKind::MutexTryLock
        | OpKind::MutexTimedLock
        | OpKind::SemWait
        | OpKind::RwReadLock
        | OpKind::RwWriteLock
        | OpKind::SpinLock
        | OpKind::FutexWait => failed,
        _ => false,
    }
}

/// Does `op` touch an object (rather than being a bare yield/sleep/fence)?
fn touches_object(op: &Op) -> bool {
    !matches!(op.kind, OpKind::Yield | OpKind::Sleep | OpKind::Fence)
}

/// Updates spin state after thread `me` executed `op`.
pub fn after_event(st: &mut State, me: u32, op: &Op) {
    let threshold = st.spin_threshold;
    let progress = !is_spin_read(op);
    {
        let s = &mut st.threads[me as usize].spin;
        if progress {
            *s = Spin::EMPTY;
            st.chan.slot(me).spin_count = 0;
        } else {
            if touches_object(op) && !s.reads[..s.n].contains(op) {
                if s.n == SPIN_READS {
                    // A read of yet another location: the thread is scanning
                    // memory, not re-reading a few locations. Start over.
                    *s = Spin::EMPTY;
                }
                s.reads[s.n] = *op;
                s.n += 1;
            }
            s.count += 1;
            st.chan.slot(me).spin_count = s.count;
            if st.spin_blocking && threshold > 0 && s.count > threshold {
                s.blocked = true;
            }
        }
    }
    if !progress {
        return;
    }
    for t in 0..st.thread_count {
        if t == me {
            continue;
        }
        let s = &mut st.threads[t as usize].spin;
        if s.count == 0 {
            continue;
        }
        let released = if s.n == 0 {
            true
        } else {
            s.reads[..s.n].iter().any(|r| r.conflicts(op))
        };
        if released {
            *s = Spin::EMPTY;
            st.chan.slot(t).spin_count = 0;
        }
    }
}
