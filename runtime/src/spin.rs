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

use crate::state::{State, SPIN_READS};
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

/// Updates spin state after thread `me` executed `op`. Only threads with a
/// non-empty spin state (`State::spinners`) are visited; a thread becoming
/// blocked or released changes the enabled set, which must then be
/// recomputed.
pub fn after_event(st: &mut State, me: u32, op: &Op) {
    if is_spin_read(op) {
        count_read(st, me, op);
        return;
    }
    if st.spinners.contains(me) {
        reset(st, me);
    }
    if st.spinners.is_empty() {
        return;
    }
    let spinners = st.spinners;
    for t in spinners.iter() {
        let s = &st.threads[t as usize].spin;
        let released = s.n == 0 || s.reads[..s.n].iter().any(|r| r.conflicts(op));
        if released {
            reset(st, t);
        }
    }
}

/// Thread `me` read without progress: remember the read and count it.
fn count_read(st: &mut State, me: u32, op: &Op) {
    let threshold = st.spin_threshold;
    let s = &mut st.threads[me as usize].spin;
    if touches_object(op) && !s.reads[..s.n].contains(op) {
        if s.n == SPIN_READS {
            // A read of yet another location: the thread is scanning
            // memory, not re-reading a few locations. Start over.
            s.clear();
        }
        s.reads[s.n] = *op;
        s.n += 1;
    }
    s.count += 1;
    if st.spin_blocking && threshold > 0 && s.count > threshold && !s.blocked {
        s.blocked = true;
        st.enabled_valid = false;
    }
    st.spinners.insert(me);
}

/// Clears thread `t`'s spin state (it made progress or was released).
fn reset(st: &mut State, t: u32) {
    if st.threads[t as usize].spin.blocked {
        st.enabled_valid = false;
    }
    st.threads[t as usize].spin.clear();
    st.spinners.remove(t);
}
