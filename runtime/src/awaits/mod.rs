//! Await semantics for spin loops: an iteration in which nothing happens is
//! not a behaviour.
//!
//! The pass puts `__reach_loop_head(site, state, back)` at the head of
//! every loop whose iterations may do nothing visible (see the pass's
//! `loops` module): `state` hashes the loop's carried values (header phis,
//! the stack slots the loop writes), `back` says whether an iteration just
//! ended. Each thread keeps a small stack of its open iterations (innermost
//! last), each with its loop, frame, state at the start and the step at
//! which it began. Any operation that made progress (a write that changed
//! memory, a synchronisation, an object creation: not
//! [`Op::made_no_progress`]) closes every open iteration: none of them can
//! be one in which nothing happened. When a back edge reaches the head of
//! a still open iteration with the same state, and the iteration read at
//! least one visible location, the iteration *failed*: running it again
//! gives the same result until another thread writes something it read.
//! This is the assume/await reading of side-effect-free loops of Lång and
//! Sagonas ("Awaiting for Godot", FMCAD 2022) and Kokologiannakis, Ren and
//! Vafeiadis ("Dynamic partial order reductions for spinloops", FMCAD
//! 2021, Sec. 4), decided here per iteration at run time rather than
//! statically.
//!
//! The thread then parks at an [`OpKind::Await`] whose `object` is the step
//! at which the failed iteration began:
//!
//! * under the systematic policy ([`Policy::ContinueThenLowest`] while
//!   recording, no [`reach_channel::REQ_AWAIT_RETRIES`]) it stays blocked
//!   for the rest of the execution (FMCAD 2021's blocked executions): the
//!   failed iteration's reads are in the trace, so the search reverses them
//!   with the writes that follow and reaches the execution in which the
//!   loop reads the new value. The driver tells such a *blocked* execution
//!   from a livelock by whether any write followed those reads;
//! * otherwise (random and PCT policies, the unrecorded rest of an
//!   execution, the replay of a schedule that retried) it is enabled again
//!   once another thread executes an operation that conflicts with a read
//!   of the failed iteration (any write or synchronisation if the reads did
//!   not fit), and runs the iteration again.
//!
//! A loop whose iteration did nothing but count down a value only the loop
//! itself uses (`local`: a retry count that bounds the spin, as in std's
//! futex mutex or a back-off) would differ from iteration to iteration
//! only in when it gives up. Its first such iteration is recorded; the
//! rest *fast-forward*: until the thread leaves the loop or does anything
//! else, its reads of the one location the iteration read, its failed
//! updates of it and its yields are no scheduling points and no events.
//! No other thread runs until the spin ends, so every skipped read returns
//! what the location held when the spin began to fast-forward, and the
//! search must see that value read there: if the iteration's last
//! operation read the location, it did (no other thread has run since);
//! otherwise the fast-forward starts with one recorded read of it at the
//! loop's head ([`HeadAction::FastForward`]). (Without it the search would
//! not know that the rest of the spin read the location again after the
//! recorded iteration, and could ask for an order of another thread's
//! write and the spin that the program does not take.) A spin that read
//! more than one location is not fast-forwarded: its iterations are
//! recorded as they run. A write that would end the spin is then placed
//! before the summing read or after the whole spin, the two behaviours
//! that differ after the loop. A spin that has not ended after
//! [`FAST_FORWARD_LIMIT`] iterations is taken as a failed iteration.
//!
//! Nothing here allocates or makes a system call: the stacks are fixed
//! arrays in the thread's slot.

pub mod iterations;

use iterations::in_callee_frame;
pub use iterations::{
    touches_object, Awaits, Iteration, StackWrite, AWAIT_DEPTH, AWAIT_READS, AWAIT_WRITES,
    FAST_FORWARD_LIMIT, STACK_WRITE_BYTES,
};

use crate::state::State;
use reach_channel::{Op, OpKind, Policy, ThreadSet};

/// Does a failed iteration block its thread for the rest of the execution
/// (rather than until what it read changes)?
fn blocks_for_good(st: &State) -> bool {
    !st.await_retries && !st.cut && st.policy == Policy::ContinueThenLowest
}

/// What a thread reached at a loop head: the loop's identity and state.
#[derive(Clone, Copy, Debug)]
pub struct Head {
    /// The loop's site.
    pub site: u64,
    /// The frame it runs in (its function's stack pointer at the hook's
    /// call).
    pub frame: u64,
    /// Carried values the code after the loop may use.
    pub state: u64,
    /// Carried values only the loop uses.
    pub local: u64,
    /// Reached over a back edge.
    pub back: bool,
    /// A stack slot of the loop's function that only the loop uses and
    /// functions it calls write (0: none): its bytes are in `local`.
    pub slot: u64,
    /// Its size in bytes.
    pub slot_len: u64,
}

/// What a thread does at a loop head besides going on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HeadAction {
    /// The iteration that just ended failed: park at this
    /// [`OpKind::Await`](reach_channel::OpKind::Await).
    Await(Op),
    /// A bounded spin: run this read of the one location it reads, then
    /// fast-forward ([`start_forwarding`]).
    FastForward(Op),
}

/// Thread `me` reached loop head `head`. Returns what the thread does
/// there besides going on, if anything.
pub fn loop_head(st: &mut State, me: u32, head: Head) -> Option<HeadAction> {
    if st.awaits_off {
        return None;
    }
    let Head {
        site,
        frame,
        state,
        local,
        back,
        slot,
        slot_len,
    } = head;
    let step = st.event_count;
    let a = &mut st.threads[me as usize].awaits;
    if a.fast_forward {
        let it = a.open[a.n.saturating_sub(1)];
        if back && it.site == site && it.frame == frame {
            a.forwarded += 1;
            // Once the retry count stops changing, the spin is an
            // iteration that does nothing: it fails at once.
            let settled = it.state == state && it.local == local && a.stack_restored(&it);
            if a.forwarded <= FAST_FORWARD_LIMIT && !settled {
                a.open[a.n - 1].local = local;
                return None;
            }
            a.fast_forward = false;
            return Some(HeadAction::Await(a.fail(&it)));
        }
        // A loop in a function the spin calls (a back-off's pause loop)
        // is part of the spin.
        if in_callee_frame(it.frame, frame) {
            return None;
        }
        a.fast_forward = false;
    }
    let found = if back {
        a.open[..a.n]
            .iter()
            .rposition(|it| it.site == site && it.frame == frame)
    } else {
        None
    };
    let Some(i) = found else {
        a.open(site, frame, (state, local, (slot, slot_len)), step);
        st.iterating.insert(me);
        return None;
    };
    a.n = i + 1;
    let it = a.open[i];
    // A failed iteration whose reads another thread has changed since
    // would see something new: it waits only when it blocks for good (the
    // driver then finds the execution blocked, not stuck).
    let retries = !blocks_for_good(st);
    let a = &mut st.threads[me as usize].awaits;
    if it.state == state && a.reads_seen > it.reads_at_start && a.stack_restored(&it) {
        if it.local != local {
            // A bounded spin: the rest runs without scheduling points,
            // after one read of what it reads.
            match a.forwarding_read() {
                Some(None) => {
                    let object = a.last.object;
                    start_forwarding(st, me, object);
                    return None;
                }
                Some(Some(read)) => return Some(HeadAction::FastForward(read)),
                None => {}
            }
        } else if !(retries && a.stale) {
            return Some(HeadAction::Await(a.fail(&it)));
        }
    }
    // A new iteration of the same loop. Reads of the earlier ones stay
    // (a superset only releases the thread more often); the outermost
    // starts the log over. What other threads changed before it began,
    // the new iteration sees: it is not stale.
    a.stale = false;
    if i == 0 {
        a.n_reads = 0;
        a.n_sites = 0;
        a.overflow = false;
        a.n_writes = 0;
    } else {
        a.forget_inner_writes(i);
    }
    a.open[i] = Iteration {
        state,
        local,
        start_step: step,
        reads_at_start: a.reads_seen,
        writes_at_start: a.n_writes,
        slot: (slot, slot_len),
        ..it
    };
    None
}

/// Thread `me` parks at its [`OpKind::Await`]: unless the failed iteration
/// blocks it for good, it joins the threads that another thread's write
/// releases.
pub fn start_waiting(st: &mut State, me: u32) {
    if !blocks_for_good(st) {
        st.awaiting.insert(me);
    }
    st.enabled_valid = false;
}

/// Thread `me` ran its [`OpKind::Await`] (it was released): the loop's
/// iteration starts over at the head where it failed.
pub fn resumed(st: &mut State, me: u32) {
    let step = st.event_count;
    let a = &mut st.threads[me as usize].awaits;
    a.blocked = false;
    a.stale = false;
    if a.n > 0 {
        let i = a.n - 1;
        a.open[i].start_step = step;
        a.open[i].reads_at_start = a.reads_seen;
    }
}

/// The rest of thread `me`'s bounded spin, which reads only `object`,
/// fast-forwards (after the read of [`HeadAction::FastForward`], if the
/// spin needed one).
pub fn start_forwarding(st: &mut State, me: u32, object: u64) {
    let a = &mut st.threads[me as usize].awaits;
    a.fast_forward = true;
    a.forward_object = object;
    a.forwarded = 0;
}

/// Does thread `me` fast-forward a bounded spin, and is an operation at
/// `site` on `object` (0: none, as a yield's) part of it, so that, if it
/// makes no progress, it is no scheduling point? Operations on the one
/// location the spin reads at the sites it read it are, and its yields
/// and sleeps wherever they are (a back-off that starts to yield once it
/// has spun enough).
#[inline]
pub fn fast_forwards(st: &State, me: u32, site: u64, object: u64) -> bool {
    let a = &st.threads[me as usize].awaits;
    a.fast_forward
        && (object == 0 || (object == a.forward_object && a.sites[..a.n_sites].contains(&site)))
}

/// Thread `me` reached a scheduling point: a fast-forwarded spin is over.
#[inline]
pub fn scheduling_point(st: &mut State, me: u32) {
    st.threads[me as usize].awaits.fast_forward = false;
}

/// Thread `me` starts (`lock`: the lock and how it is waited for,
/// [`reach_channel::models::LockWait::encode`]d) or ends (0) the modelled
/// slow path of a lock, an await loop whose failed try waits for the lock.
pub fn waiting_for_lock(st: &mut State, me: u32, lock: u64) {
    st.threads[me as usize].awaits.lock = lock;
}

/// Is thread `t`, parked at an [`OpKind::Await`], still waiting?
pub fn waiting(st: &State, t: u32) -> bool {
    st.threads[t as usize].awaits.blocked
}

/// Updates the await state after thread `me` executed `op`: a read is
/// remembered by `me`'s open iterations, progress closes them; an
/// operation of `me` that conflicts with what a waiting thread read
/// releases that thread.
#[inline]
pub fn after_event(st: &mut State, me: u32, op: &Op, site: u64) {
    let a = &mut st.threads[me as usize].awaits;
    let progress = !op.made_no_progress();
    if a.n > 0 {
        if let Some((addr, len)) = plain_write(op) {
            // Before the store: the memory still holds what it overwrites.
            wrote(st, me, addr, len);
        } else if progress {
            a.close_all();
            st.iterating.remove(me);
        } else {
            a.note_read(op, site);
        }
    }
    if progress {
        mark_stale(st, me, op);
    }
    if !st.awaiting.is_empty() {
        release(st, me, Some(op));
    }
}

/// Thread `me` read an older store than the latest (`--memory-model
/// rc11`): its open iterations are stale, as if another thread had
/// changed what they read, since run again they may read the latest. Where
/// the thread retries a failed iteration it runs it again; where it blocks
/// for good, the driver finds the execution blocked, not stuck.
pub fn read_older_store(st: &mut State, me: u32) {
    let a = &mut st.threads[me as usize].awaits;
    if a.n > 0 {
        a.stale = true;
    }
}

/// Marks the open iterations of threads other than `me` that read what
/// `op` changes as stale.
fn mark_stale(st: &mut State, me: u32, op: &Op) {
    let iterating = st.iterating;
    for t in iterating.iter() {
        if t != me {
            let a = &mut st.threads[t as usize].awaits;
            if !a.stale && a.released_by(op) {
                a.stale = true;
            }
        }
    }
}

/// Thread `me` is about to write `len` bytes at `addr`, memory only it has
/// touched, with no event ([`crate::private`]). The loops whose frame lies
/// above `addr` on the thread's stack ([`in_callee_frame`]) are not
/// affected: the write goes to a frame of a function the loop called, gone
/// by the loop's back edge (at `-O0` a callee's locals, such as a
/// back-off's step counter whose address went to another function). For
/// the others, a write to the thread's own stack at or above their frames
/// (the loop function's locals written by a function it calls, `-O0`
/// temporaries, a back-off's step in the loop's frame) keeps the bytes it
/// overwrites: the iteration did nothing there if they are back when it
/// ends, its writes are its state. Any other write, or one the iteration
/// cannot keep, is progress: those iterations close. No other thread read
/// that memory, so no other iteration or wait depends on it.
#[inline]
pub fn wrote_privately(st: &mut State, me: u32, addr: u64, len: u64) {
    if st.threads[me as usize].awaits.n > 0 {
        wrote(st, me, addr, len);
    }
}

/// Thread `me`, with open iterations, is about to write `len` bytes at
/// `addr` (privately, or as a plain store event: with every access a
/// step, as under `--no-private-accesses`, the thread's stack writes are
/// events too): see [`wrote_privately`].
fn wrote(st: &mut State, me: u32, addr: u64, len: u64) {
    let a = &mut st.threads[me as usize].awaits;
    let first = unaffected(a, addr);
    if first == a.n {
        return;
    }
    let frame = a.open[first].frame;
    let on_own_stack = addr >= frame && addr - frame < OWN_STACK;
    if on_own_stack && a.note_stack_write(first, addr, len as usize) {
        return;
    }
    close_above(st, me, addr.saturating_add(len.saturating_sub(1)));
}

/// Stack above a loop's frame whose private writes an iteration keeps
/// (the loop function's frame and its callers'): a thread's whole stack
/// by default (8 MiB).
const OWN_STACK: u64 = 8 << 20;

/// How many of the open iterations, outermost first, a write at `addr`
/// leaves alone: it went to a frame of a function their loop called.
fn unaffected(a: &Awaits, addr: u64) -> usize {
    // Frames go down the stack from the outermost open iteration.
    a.open[..a.n]
        .iter()
        .take_while(|it| in_callee_frame(it.frame, addr))
        .count()
}

/// The first byte and the length of a plain write `op` (a store, a ranged
/// write), if it is one.
fn plain_write(op: &Op) -> Option<(u64, u64)> {
    match op.kind {
        OpKind::Store | OpKind::RangeWrite => Some((op.object, op.aux)),
        _ => None,
    }
}

/// Thread `me` wrote memory up to `addr`: its open iterations close but
/// those of loops whose frame lies above `addr` on the stack
/// ([`in_callee_frame`]: the write went to a frame of a function the loop
/// called, gone by the loop's back edge).
fn close_above(st: &mut State, me: u32, addr: u64) {
    let a = &mut st.threads[me as usize].awaits;
    // Those the write is below stay open.
    let unaffected = unaffected(a, addr);
    if unaffected == 0 {
        a.close_all();
        st.iterating.remove(me);
    } else {
        a.n = unaffected;
    }
}

/// The calling thread `me` made progress that records no event (object
/// creation or destruction, library region code): its open iterations
/// close, and every waiting thread is released (what changed is unknown).
pub fn progressed(st: &mut State, me: u32) {
    st.threads[me as usize].awaits.close_all();
    st.iterating.remove(me);
    let iterating = st.iterating;
    for t in iterating.iter() {
        st.threads[t as usize].awaits.stale = true;
    }
    if !st.awaiting.is_empty() {
        release(st, me, None);
    }
}

/// Releases the waiting threads other than `me` whose failed iteration
/// read what `op` changes (`None`: every one).
fn release(st: &mut State, me: u32, op: Option<&Op>) {
    let waiting = st.awaiting;
    let mut released = ThreadSet::EMPTY;
    for t in waiting.iter() {
        if t == me {
            continue;
        }
        let a = &st.threads[t as usize].awaits;
        if op.is_none_or(|op| a.released_by(op)) {
            released.insert(t);
        }
    }
    if released.is_empty() {
        return;
    }
    for t in released.iter() {
        st.threads[t as usize].awaits.blocked = false;
        st.awaiting.remove(t);
    }
    st.enabled_valid = false;
}

/// Recording stopped: from here on the execution runs unrecorded, so the
/// threads blocked for good wait for a change instead.
pub fn stop_recording(st: &mut State) {
    for t in 0..st.thread_count {
        if st.threads[t as usize].awaits.blocked {
            st.awaiting.insert(t);
        }
    }
}
