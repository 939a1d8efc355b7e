//! Spin-loop detection.
//!
//! A thread that keeps re-reading memory nobody writes (`while (!flag);`,
//! `while (!flag) sched_yield();`, `while (atomic_exchange(&lock, 1));` on a
//! taken lock) would make exhaustive exploration infinite. One notion decides
//! what counts: an executed operation that made no progress
//! ([`Op::made_no_progress`]: a load, a failed compare-and-exchange, a
//! read-modify-write that left memory unchanged, a failed try-operation, a
//! yield, a sleep). Each thread remembers such operations since its last
//! progress (at most [`SPIN_READS`] distinct ones; one more location means
//! the thread scans memory rather than spins, and starts the count over) and
//! counts them. Past the request's spin threshold the thread is *blocked*
//! (not enabled, as long as its pending operation may again make no
//! progress) until another thread executes an operation that conflicts
//! with one of those reads; a spinner without visible reads (an
//! uninstrumented `while (!flag) sched_yield();`) is released by any write
//! or synchronisation of another thread. If every live thread is blocked and
//! one of them spins, the execution ends with `Livelock`.
//!
//! A thread that *announces* busy-waiting is held back sooner: after a spin
//! hint (`pause`, [`hint`]), or a yield or sleep that follows an operation
//! without progress, its next re-read of a location it already read since
//! its last progress holds it back at once. Each write that may end the wait
//! is then placed before the first read or after it, not among
//! `--spin-threshold` re-reads (a spin lock whose waiter says `pause`: one
//! order per contended acquisition instead of up to 64). Such a thread is held
//! back only while another thread can run ([`held_softly`]): when none can,
//! it goes on (a loop that gives up after a few rounds is then followed to
//! its end), and counts as spinning only past the threshold.
//!
//! The count starts over whenever the thread makes progress: any operation
//! that writes or synchronises, and the object creation, initialisation and
//! destruction that record no event ([`caller_progressed`]). Re-reads only
//! count while another thread is alive that could still write what they
//! read: a thread alone makes progress however often it re-reads the same
//! locations (a set-up loop that re-reads its bound while it initialises
//! objects), and runs on to the step bound if it does not.

use crate::state::{state, Spin, State, SPIN_READS};
use reach_channel::{Op, OpKind};

/// Is parked thread `t` left out of the enabled set because it spins? Only
/// while its pending operation may again make no progress: a spinner about
/// to write or synchronise leaves its loop and is not held back.
pub fn holds_back(st: &State, t: u32) -> bool {
    let th = &st.threads[t as usize];
    st.spin_blocking
        && th.pending.op.may_make_no_progress()
        && (th.spin.blocked || (th.spin.hinted && goes_round(&th.spin, &th.pending.op)))
}

/// Is parked thread `t` held back only because it announced busy-waiting,
/// not past the threshold? It runs again when no other thread can.
pub fn held_softly(st: &State, t: u32) -> bool {
    !st.threads[t as usize].spin.blocked && holds_back(st, t)
}

/// Does the pending operation `op` of a thread that announced
/// busy-waiting start another round of its loop: a re-read of a location
/// it read since its last progress, or another yield or sleep?
fn goes_round(s: &Spin, op: &Op) -> bool {
    if crate::awaits::touches_object(op) {
        s.reads[..s.n].iter().any(|r| r.object == op.object)
    } else {
        matches!(op.kind, OpKind::Yield | OpKind::Sleep)
    }
}

/// Thread `me` executed a spin hint (`pause`): if it has made no progress
/// since it last read something, it busy-waits, and it yields the
/// processor (`State::note_yield`). Inside an await loop neither: the
/// loop's back edge decides whether the iteration did anything.
pub fn hint(st: &mut State, me: u32) {
    if in_await_loop(st, me) {
        return;
    }
    if st.spinners.contains(me) {
        st.threads[me as usize].spin.hinted = true;
    }
    st.note_yield(me);
}

/// Is thread `me` inside a loop the pass marked as an await candidate?
/// Its back edge decides whether an iteration did nothing
/// ([`crate::awaits`]): an announced busy-wait does not hold it back
/// before that.
fn in_await_loop(st: &State, me: u32) -> bool {
    st.threads[me as usize].awaits.n > 0
}

/// Updates spin state after thread `me` executed `op`. Only threads with a
/// non-empty spin state (`State::spinners`) are visited; a thread becoming
/// blocked or released changes the enabled set, which must then be
/// recomputed.
pub fn after_event(st: &mut State, me: u32, op: &Op) {
    if op.kind == OpKind::Await {
        // Released from an await: what its loop read has changed since.
        if st.spinners.contains(me) {
            reset(st, me);
        }
        return;
    }
    if op.made_no_progress() {
        count(st, me, op);
    } else {
        progressed(st, me, Some(op));
    }
}

/// Thread `me` wrote memory only it has touched, with no event
/// (`crate::private`): progress, as a write event would be, for itself and
/// for the spinners waiting for any progress (no other thread read that
/// memory).
#[inline]
pub fn wrote_privately(st: &mut State, me: u32) {
    if !st.spinners.is_empty() {
        progressed(st, me, None);
    }
}

/// Thread `me` read memory only it has touched, with no event
/// (`crate::private`): an operation without progress, counted as a read
/// event would be (a yield after it is a busy-wait).
#[inline]
pub fn read_privately(st: &mut State, me: u32, op: &Op) {
    count(st, me, op);
}

/// Thread `me` touched its library region (`crate::region`): not progress
/// of its own, but the region code it runs may write what a spinner waits
/// for, so the spinners without visible reads, and those that read `op`'s
/// object, are released.
pub fn after_touch(st: &mut State, me: u32, op: &Op) {
    release(st, me, Some(op), false);
    crate::awaits::progressed(st, me);
}

/// The calling thread (if controlled) made progress that records no event:
/// it created, initialised or destroyed an object (`pthread_mutex_init`, a
/// thread-specific key, ...). Its spin count starts over.
pub fn caller_progressed() {
    if let Some(me) = crate::state::me() {
        // SAFETY: a controlled thread calling into the runtime holds the
        // right to run.
        let st = unsafe { state() };
        progressed(st, me, None);
        crate::awaits::progressed(st, me);
    }
}

/// Thread `me` made progress by executing `op` (`None`: something that
/// records no event): its own spin state is cleared, and spinners are
/// released that wait for any progress (no visible reads) or read what
/// `op` writes.
fn progressed(st: &mut State, me: u32, op: Option<&Op>) {
    release(st, me, op, true);
}

/// After thread `me` wrote or synchronised (`op`; `None`: something that
/// records no event): releases the other spinners that wait for any
/// progress (no visible reads) or read what `op` writes, and `me` itself
/// if `me_too`.
fn release(st: &mut State, me: u32, op: Option<&Op>, me_too: bool) {
    if st.spinners.is_empty() {
        return;
    }
    let spinners = st.spinners;
    for t in spinners.iter() {
        let s = &st.threads[t as usize].spin;
        let released = if t == me {
            me_too
        } else {
            s.n == 0 || op.is_some_and(|op| s.reads[..s.n].iter().any(|r| r.conflicts(op)))
        };
        if released {
            reset(st, t);
        }
    }
}

/// Thread `me` executed `op`, which made no progress: remember what it read
/// and count it, if another live thread could still change it.
fn count(st: &mut State, me: u32, op: &Op) {
    if st.threads[me as usize].awaits.fast_forward {
        // A bounded spin of an await loop: its loop head ends it as a
        // failed iteration past its limit; it is no spin of its own.
        return;
    }
    if st.live_threads < 2 {
        // No other thread could write what it reads: not a spin.
        if st.spinners.contains(me) {
            reset(st, me);
        }
        return;
    }
    let threshold = st.spin_threshold;
    let awaiting_loop = in_await_loop(st, me);
    let s = &mut st.threads[me as usize].spin;
    if matches!(op.kind, OpKind::Yield | OpKind::Sleep) && s.count > 0 && !awaiting_loop {
        // Yielding after a read without progress: a busy-wait.
        s.hinted = true;
    }
    if crate::awaits::touches_object(op) && !s.reads[..s.n].contains(op) {
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
    let s = &st.threads[t as usize].spin;
    if s.blocked || s.hinted {
        st.enabled_valid = false;
    }
    st.threads[t as usize].spin.clear();
    st.spinners.remove(t);
}
