//! The scheduler: serialises the controlled threads, makes every scheduling
//! decision from the driver's prefix and policy, records the trace, and ends
//! the execution when it must.
//!
//! Exactly one controlled thread runs at any time. A thread that reaches a
//! scheduling point stores its pending operation and, if it is the one
//! running, decides who runs next; a different thread is woken through its
//! handoff futex word, the same thread continues without any system call.
//! The chosen thread records its event and performs the operation.
//!
//! Sleep sets follow Fig. 7 of "Dynamic Partial Order Reduction with
//! Commutativity of Reads" (Saarikivi et al., Section IV-D): after the prefix a
//! sleeping thread is never chosen, and after each executed operation every
//! sleeping thread whose pending operation conflicts with it wakes up.

use crate::fmtbuf::FmtBuf;
use crate::state::{
    go_word, set_me, state, Pending, State, TState, EXIT_GRACE_STEPS, MODE, MODE_ENDED, NONE,
};
use crate::sys;
use core::fmt::Write;
use core::sync::atomic::{AtomicU32, Ordering};
use reach_channel::layout::{
    REQ_AWAITS_OFF, REQ_AWAIT_RETRIES, REQ_COMMUTE_RMWS, REQ_DROP_HELD, REQ_DROP_RESPIN,
    REQ_EXIT_CUTS_THREADS, REQ_RC11, REQ_SLEEP_SETS, REQ_SPIN_BLOCKING, REQ_USER_THREADS,
};
use reach_channel::{Event, Op, OpKind, Policy, RunStatus, ThreadSet, ThreadState};

/// Ends the execution with `status` and `msg`, blaming the running thread and
/// `site`. Never returns: the process exits at once.
pub fn end_run(st: &mut State, status: RunStatus, site: u64, msg: &FmtBuf) -> ! {
    publish_parked(st);
    publish_counts(st);
    let chan = &st.chan;
    chan.set_message(msg.bytes());
    chan.set_culprit(st.running, site);
    chan.set_thread_count(st.thread_count);
    chan.set_status(status);
    MODE.store(MODE_ENDED, Ordering::SeqCst);
    if crate::state::debug() {
        sys::write_stderr(b"reach-runtime: ");
        sys::write_stderr(msg.bytes());
        sys::write_stderr(b"\n");
    }
    // SAFETY: flushing the program's stdio buffers; no controlled thread is
    // parked inside stdio (scheduling points are never inside libc).
    unsafe {
        libc::fflush(core::ptr::null_mut());
    }
    // A persistent worker restores its memory and runs the next execution.
    crate::persist::end_execution(0);
    sys::exit_group(0)
}

/// Publishes the numbers of events recorded and of steps executed.
pub fn publish_counts(st: &State) {
    st.chan.set_event_count(st.event_count.min(st.record_steps));
    st.chan.set_step_count(st.event_count);
}

/// Ends the execution with `status` and a formatted message.
#[macro_export]
macro_rules! fail {
    ($st:expr, $status:expr, $site:expr, $($arg:tt)*) => {{
        let mut m = $crate::fmtbuf::FmtBuf::new();
        let _ = core::fmt::Write::write_fmt(&mut m, format_args!($($arg)*));
        $crate::sched::end_run($st, $status, $site, &m)
    }};
}

/// Ends the execution with `InternalError`.
pub fn internal_bug(st: &mut State, what: &str) -> ! {
    fail!(
        st,
        RunStatus::InternalError,
        0,
        "[reach internal bug] {what}"
    )
}

/// Handoff word value: the thread must wait.
const GO_WAIT: u32 = 0;
/// Handoff word value: the thread may run.
const GO_RUN: u32 = 1;
/// Handoff word value: the thread sleeps in the kernel and must be woken.
const GO_SLEEPING: u32 = 2;
/// Polls of its handoff word before a waiting thread sleeps in the kernel,
/// when the threads of the execution may run on several CPUs: a thread
/// handed the right to run soon after it parked then starts without any
/// system call on either side; a longer wait costs one futex wait and one
/// wake. On one CPU polling only delays the thread that would run.
const SPIN_POLLS: u32 = 200;

/// Polls [`wait_turn`] makes: [`SPIN_POLLS`], or 0 when the execution is
/// confined to one CPU.
static POLLS: AtomicU32 = AtomicU32::new(SPIN_POLLS);

/// Makes waiting threads sleep at once if the execution may only use one
/// CPU (the driver binds it to one by default): only one of its threads
/// runs at any time, and polling would only delay the thread that would run.
pub fn adapt_waiting_to_cpus() {
    if sys::allowed_cpus() == 1 {
        POLLS.store(0, Ordering::Relaxed);
    }
}

/// Wakes thread `t` (it may run now); a system call only if it sleeps.
fn release(t: u32) {
    let w = go_word(t);
    if w.swap(GO_RUN, Ordering::Release) == GO_SLEEPING {
        sys::futex_wake(w);
    }
}

/// Blocks the calling thread `me` until another thread hands it the right to
/// run, and until the thread before it is gone if that one finished.
fn wait_turn(me: u32) {
    wait_go(me);
    // SAFETY: `me` now holds the right to run.
    await_exited(unsafe { state() });
}

/// Blocks the calling thread `me` until another thread hands it the right to run.
fn wait_go(me: u32) {
    let w = go_word(me);
    for _ in 0..POLLS.load(Ordering::Relaxed) {
        if w.load(Ordering::Acquire) == GO_RUN {
            // Only this thread resets its word, and nobody hands it the
            // right to run again before it has run.
            w.store(GO_WAIT, Ordering::Relaxed);
            return;
        }
        core::hint::spin_loop();
    }
    loop {
        match w.compare_exchange(GO_WAIT, GO_SLEEPING, Ordering::Acquire, Ordering::Acquire) {
            Err(GO_RUN) => {
                w.store(GO_WAIT, Ordering::Relaxed);
                return;
            }
            Err(v) if v >= crate::persist::GO_EXIT => crate::persist::on_handoff(v),
            _ => sys::futex_wait(w, GO_SLEEPING),
        }
    }
}

/// Marks the calling thread, which just finished for the scheduler, as
/// exiting: the thread that runs next waits until it is gone. Not the main
/// thread (after `pthread_exit` it stays until the process ends).
fn mark_exiting(st: &mut State) {
    if crate::uthread::on() {
        // A context leaves no kernel thread behind.
        return;
    }
    let tid = sys::gettid();
    if tid != sys::getpid() {
        st.exiting_tid = tid;
    }
}

/// Called by a thread that just got the right to run: if the thread that ran
/// before it finished, waits until that thread's C library exit path is over
/// (it releases the thread's malloc arena and cache, and a detached thread's
/// stack, after its last visible operation), so that what the next thread
/// allocates depends on the schedule only.
fn await_exited(st: &mut State) {
    if st.exiting_tid != 0 {
        sys::wait_thread_gone(st.exiting_tid);
        st.exiting_tid = 0;
    }
}

fn set_slot_state(st: &State, t: u32, s: ThreadState) {
    st.chan.slot(t).state = s as u32;
}

/// Makes `next` the running thread. The caller then hands it the right to
/// run ([`hand_over`], [`hand_on`]).
fn switch_to(st: &mut State, next: u32) {
    st.chan.set_step_count(st.event_count);
    st.running = next;
    st.threads[next as usize].state = TState::Running;
    set_slot_state(st, next, ThreadState::Running);
    st.chan.set_running(next);
}

/// Hands the right to run from `me` to `next` and returns once `me` has it
/// again: a context switch with user-level threads, else a futex hand-off.
/// The caller must not touch the state in between.
#[inline]
fn hand_over(me: u32, next: u32) {
    if crate::uthread::on() {
        crate::uthread::switch(me, next);
    } else {
        release(next);
        wait_turn(me);
    }
}

/// The calling thread finished: hands the right to run to `next` for good.
/// A user-level thread never returns from here; a kernel thread returns
/// and goes on to exit.
fn hand_on(next: u32) {
    if crate::uthread::on() {
        crate::uthread::finish(next);
    }
    release(next);
}

/// Writes thread `t`'s pending operation to its channel slot and marks it
/// parked there.
fn publish_pending(st: &State, t: u32) {
    let p = st.threads[t as usize].pending;
    publish_counters(st, t);
    let slot = st.chan.slot(t);
    slot.pending_kind = p.op.kind as u16;
    slot.pending_flags = p.op.flags.0;
    slot.pending_object = p.op.object;
    slot.pending_aux = p.op.aux;
    slot.pending_site = p.site;
    slot.pending_caller = p.caller;
    slot.state = ThreadState::Parked as u32;
}

/// Writes thread `t`'s step and spin counts to its channel slot.
fn publish_counters(st: &State, t: u32) {
    let th = &st.threads[t as usize];
    let slot = st.chan.slot(t);
    slot.steps = th.steps;
    slot.spin_count = th.spin.count;
}

/// Publishes every parked thread's pending operation, and the running
/// thread's counters, before the execution ends: a thread skips that while
/// it keeps running.
fn publish_parked(st: &State) {
    if st.running < st.thread_count {
        publish_counters(st, st.running);
    }
    for t in 0..st.thread_count {
        if st.threads[t as usize].state == TState::Parked {
            publish_pending(st, t);
        }
    }
}

/// Does executing an operation of this kind leave every thread's
/// enabledness as it was? True for memory accesses and fences: they change
/// no synchronisation object and no thread's life cycle (spinning threads
/// they release are accounted for by [`crate::spin`]).
#[inline]
fn keeps_enabledness(kind: OpKind) -> bool {
    matches!(
        kind,
        OpKind::Load
            | OpKind::Store
            | OpKind::AtomicLoad
            | OpKind::AtomicStore
            | OpKind::AtomicRmw
            | OpKind::CmpXchg
            | OpKind::RangeRead
            | OpKind::RangeWrite
            | OpKind::Fence
    )
}

/// The enabled set when the thread `cur` that just ran parks again at a
/// memory access and nothing else changed since the last decision: the
/// last decision's set, which contains `cur` (it was chosen), unless `cur`
/// now spins past the threshold. `None` if it must be recomputed.
#[inline]
fn unchanged_enabled(st: &State, cur: u32) -> Option<ThreadSet> {
    if !st.enabled_valid
        || st.enabled_changes != st.objects.changes()
        || cur == NONE
        || cur != st.running
    {
        return None;
    }
    let th = &st.threads[cur as usize];
    if !keeps_enabledness(th.pending.op.kind)
        || st.yielded == cur
        || (st.spin_blocking && (th.spin.blocked || th.spin.hinted))
    {
        return None;
    }
    st.enabled.contains(cur).then_some(st.enabled)
}

/// Computes the enabled set, updating every slot's `enabled` flag. Returns
/// the set, whether some thread is alive, and whether a spinning thread was
/// left out. Threads held back only because they announced busy-waiting
/// ([`crate::spin::held_softly`]) are in the set when no other thread is.
fn compute_enabled(st: &mut State) -> (ThreadSet, bool, bool) {
    let mut set = ThreadSet::EMPTY;
    let mut soft = ThreadSet::EMPTY;
    let (mut live, mut spinning) = (false, false);
    for t in 0..st.thread_count {
        let th = &st.threads[t as usize];
        if th.state != TState::Parked {
            st.chan.slot(t).enabled = 0;
            continue;
        }
        live = true;
        let mut en = crate::enabled::is_enabled(st, t);
        if en && crate::spin::holds_back(st, t) {
            if crate::spin::held_softly(st, t) {
                soft.insert(t);
            } else {
                spinning = true;
            }
            en = false;
        }
        st.chan.slot(t).enabled = u32::from(en);
        if en {
            set.insert(t);
        }
    }
    hold_back_exits(st, &mut set);
    if set.is_empty() && !soft.is_empty() {
        for t in soft.iter() {
            st.chan.slot(t).enabled = 1;
        }
        set = soft;
    } else if !soft.is_empty() {
        spinning = true;
    }
    (set, live, spinning)
}

/// Leaves a waiting process exit out of the enabled set `set` while another
/// thread can run, unless exits cut threads short or other threads have
/// run [`EXIT_GRACE_STEPS`] steps since a thread reached the exit.
fn hold_back_exits(st: &mut State, set: &mut ThreadSet) {
    if st.exit_cuts_threads
        || st.exit_waiting_since == u64::MAX
        || st.event_count.saturating_sub(st.exit_waiting_since) > EXIT_GRACE_STEPS
    {
        return;
    }
    let mut exiting = ThreadSet::EMPTY;
    for t in set.iter() {
        if st.threads[t as usize].pending.op.kind == OpKind::ProcessExit {
            exiting.insert(t);
        }
    }
    if !exiting.is_empty() && !set.minus(&exiting).is_empty() {
        for t in exiting.iter() {
            set.remove(t);
            st.chan.slot(t).enabled = 0;
        }
    }
}

/// Advances the random policy's generator and returns the next number.
pub fn next_random(st: &mut State) -> u64 {
    // xorshift64*
    let mut x = st.rng;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    st.rng = x;
    x.wrapping_mul(0x2545_F491_4F6C_DD1D)
}

/// Step of change point `i` of the request ([`Policy::Pct`]), `u64::MAX` if
/// there is none or the policy is another.
pub fn change_point_at(st: &State, i: u32) -> u64 {
    let h = st.chan.header();
    let count = h
        .change_point_count
        .min(reach_channel::MAX_CHANGE_POINTS as u32);
    if st.policy != Policy::Pct || i >= count {
        return u64::MAX;
    }
    h.change_points[i as usize].step
}

/// Priority of thread `t` under [`Policy::Pct`]: the low priority of its
/// last change point, else its initial priority, a hash of the seed and `t`
/// with the top bit set (PCT, Sec. 3: a random permutation of the threads,
/// above the `d - 1` low priorities of the change points).
fn pct_priority(st: &State, t: u32) -> u64 {
    match st.pct_low[t as usize] {
        0 => {
            // splitmix64 of the seed and the thread id
            let mut z = st
                .pct_seed
                .wrapping_add(u64::from(t + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15));
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            (z ^ (z >> 31)) | (1 << 63)
        }
        low => low,
    }
}

/// The enabled thread of highest priority in `cand` (not empty).
fn pct_highest(st: &State, cand: &ThreadSet) -> u32 {
    let mut best = NONE;
    let mut best_priority = 0;
    for t in cand.iter() {
        let p = pct_priority(st, t);
        if best == NONE || p > best_priority {
            best = t;
            best_priority = p;
        }
    }
    best
}

/// Under [`Policy::Pct`]: gives thread `t`, which yielded
/// [`HANDOVER_STREAK`] times in a row with no other thread running, a
/// priority below every other thread's in `cand`, so another one runs (a
/// change point the program's yields ask for). Change points' low
/// priorities are kept apart by [`PCT_LOW_SCALE`], so there is room below
/// each.
fn pct_demote(st: &mut State, t: u32, cand: &ThreadSet) {
    let lowest_other = cand
        .iter()
        .filter(|&u| u != t)
        .map(|u| pct_priority(st, u))
        .min()
        .unwrap_or(PCT_LOW_SCALE);
    st.pct_low[t as usize] = lowest_other.saturating_sub(1).max(1);
}

/// Factor of a change point's low priority ([`pct_pick`]): the priorities a
/// yielding thread is demoted to ([`pct_demote`]) fit below it.
const PCT_LOW_SCALE: u64 = 1 << 32;

/// [`Policy::Pct`]'s choice at `step` among `cand` (not empty): at a change
/// point the thread that would run gets the change point's low priority
/// (PCT, Sec. 3, Algorithm 1), so another thread takes over; then the
/// enabled thread of highest priority runs.
pub fn pct_pick(st: &mut State, step: u64, cand: &ThreadSet) -> u32 {
    let mut pick = pct_highest(st, cand);
    while st.pct_next_at <= step {
        let i = st.pct_next as usize;
        let low = st.chan.header().change_points[i]
            .priority
            .max(1)
            .saturating_mul(PCT_LOW_SCALE);
        if st.pct_next_at == step {
            st.pct_low[pick as usize] = low;
            pick = pct_highest(st, cand);
        }
        st.pct_next += 1;
        st.pct_next_at = change_point_at(st, st.pct_next);
    }
    pick
}

/// Picks the thread to run next; `cur` is the thread that just parked
/// ([`NONE`] if it finished). Returns [`NONE`] if no thread is alive.
/// Ends the execution on deadlock, livelock, step bound, divergence and
/// sleep-set blocking.
///
/// The common case is checked first, inline: past the prefix, under the
/// "continue" policy (or [`Policy::Pct`] before its next change point: the
/// priorities did not change, so `cur` is still the highest enabled),
/// `cur` parked at a memory access with nothing else changed, not asleep
/// and before the next bound (step or recording) keeps running.
#[inline]
pub fn decide(st: &mut State, cur: u32) -> u32 {
    let unchanged = unchanged_enabled(st, cur);
    if let Some(enabled) = unchanged {
        let step = st.event_count;
        if step >= st.prefix_len
            && step < st.check_at
            && (st.policy == Policy::ContinueThenLowest
                || (st.policy == Policy::Pct && step < st.pct_next_at))
            && !(st.sleep_sets && st.sleep.contains(cur))
            && st.respin_watch.is_empty()
        {
            st.enabled = enabled;
            return cur;
        }
    }
    decide_full(st, cur, unchanged)
}

/// [`decide`] in general, given [`unchanged_enabled`]'s answer: recomputes
/// the enabled set unless nothing but memory accesses ran since the last
/// decision.
#[inline(never)]
fn decide_full(st: &mut State, cur: u32, unchanged: Option<ThreadSet>) -> u32 {
    let (mut enabled, live, spinning) = match unchanged {
        Some(set) => (set, true, false),
        None => {
            let computed = compute_enabled(st);
            st.enabled_valid = true;
            st.enabled_changes = st.objects.changes();
            computed
        }
    };
    if enabled.is_empty() {
        if !live {
            return NONE;
        }
        let mut m = FmtBuf::new();
        let awaiting = (0..st.thread_count).any(|t| {
            st.threads[t as usize].state == TState::Parked && crate::awaits::waiting(st, t)
        });
        let status = if awaiting {
            let _ = write!(m, "every live thread is blocked or awaits a change; ");
            RunStatus::Awaiting
        } else if spinning {
            let _ = write!(m, "livelock: no thread can make progress; ");
            RunStatus::Livelock
        } else {
            let _ = write!(m, "deadlock: every live thread is blocked; ");
            RunStatus::Deadlock
        };
        crate::enabled::describe_blocked(st, &mut m);
        end_run(st, status, 0, &m);
    }
    let step = st.event_count;
    if step >= st.max_steps {
        fail!(
            st,
            RunStatus::StepLimit,
            0,
            "the execution exceeded the step bound of {} steps",
            st.max_steps
        );
    }
    if step >= st.record_steps && !st.cut {
        stop_recording(st, &enabled);
    }
    if !st.respin_watch.is_empty() {
        drop_respin(st);
    }
    let yielded = st.yielded;
    let pick = if step < st.prefix_len {
        let t = st.chan.prefix(step);
        if !enabled.contains(t) && held_back_only(st, t) && !st.drop_held {
            if st.drop_respin {
                let op = st.threads[t as usize].pending.op;
                st.threads[t as usize].spin.forced = Some((op.kind, op.object));
                st.respin_watch.insert(t);
            }
            // A spinner's next step, held back until what it reads changes
            // (or nothing else can run): the hold is this runtime's
            // preference, and whether it applies here depends on steps the
            // thread does not depend on (another thread still able to run,
            // a count of re-reads that only some orders reset). The step
            // can run, so it does: a schedule of it is a schedule of the
            // program, whatever order the search chose.
            enabled.insert(t);
        }
        if !enabled.contains(t) && held_back_only(st, t) {
            // Asked for by a search that drops such requests: the same
            // behaviour as one where the step comes later, which the
            // search reaches with the spinner released. Not a divergence:
            // the execution is dropped like one its sleep set blocks.
            fail!(
                st,
                RunStatus::SleepBlocked,
                0,
                "schedule prefix step {step} asks for thread {t}, held back as a spinner"
            );
        }
        if !enabled.contains(t) {
            st.chan.set_divergence(step, t);
            let why = if t >= st.thread_count {
                "does not exist"
            } else if st.threads[t as usize].state == TState::Finished {
                "has finished"
            } else {
                "is blocked"
            };
            fail!(
                st,
                RunStatus::Diverged,
                0,
                "schedule prefix step {step} asks for thread {t}, which {why}"
            );
        }
        t
    } else {
        let cand = if st.sleep_sets {
            enabled.minus(&st.sleep)
        } else {
            enabled
        };
        let Some(lowest) = cand.first() else {
            fail!(
                st,
                RunStatus::SleepBlocked,
                0,
                "every enabled thread is in the sleep set"
            );
        };
        match st.policy {
            // A continuation the search did not choose (past its prefix):
            // a thread that yielded, slept or timed out hands the
            // processor on, so it never starves the thread it waits for.
            // Past the recording bound at once; while recording, once it
            // yielded HANDOVER_STREAK times with no other thread running
            // (optimal DPOR finds other partial orders than dpor when a
            // single yield reorders the continuation).
            Policy::ContinueThenLowest
                if cur != NONE
                    && cur == yielded
                    && (st.cut || st.yield_streak >= HANDOVER_STREAK) =>
            {
                next_after(&cand, cur).unwrap_or(lowest)
            }
            Policy::ContinueThenLowest if cur != NONE && cand.contains(cur) => cur,
            Policy::ContinueThenLowest => lowest,
            Policy::Random => {
                let n = cand.len() as u64;
                let k = next_random(st) % n;
                cand.iter().nth(k as usize).unwrap_or(lowest)
            }
            // A thread that keeps yielding with no other thread running
            // drops below every other thread, as at a change point: the
            // highest priority never spins on without end while the thread
            // it waits for cannot run.
            Policy::Pct
                if cur != NONE
                    && cur == yielded
                    && st.yield_streak >= HANDOVER_STREAK
                    && cand.len() > 1 =>
            {
                pct_demote(st, cur, &cand);
                pct_pick(st, step, &cand)
            }
            Policy::Pct => pct_pick(st, step, &cand),
        }
    };
    st.enabled = enabled;
    // A thread that yielded keeps its lower priority until another thread
    // runs: a timed wait that timed out re-takes its mutex, so the threads
    // waiting for that mutex can run only at its next scheduling point.
    if pick != yielded {
        st.yielded = NONE;
        st.yield_streak = 0;
    }
    pick
}

/// Yields in a row (with no other thread running between them) after which
/// the "continue" policy hands the processor on while recording: a retry
/// loop that yields, or a timed wait that times out, over and over never
/// starves the thread it waits for.
pub const HANDOVER_STREAK: u32 = 8;

/// The thread of `cand` that follows `cur` in round-robin order, if
/// another than `cur` is there: where a thread that yielded hands the
/// processor (CHESS's fairness: a yielding thread never starves the
/// thread it waits for).
fn next_after(cand: &ThreadSet, cur: u32) -> Option<u32> {
    cand.iter()
        .find(|&t| t > cur)
        .or_else(|| cand.iter().find(|&t| t != cur))
}

/// Is thread `t` left out of the enabled set only because it spins
/// ([`crate::spin::holds_back`]), its pending operation enabled?
/// Ends the execution as sleep-blocked if a thread that a prefix step ran
/// while it was held back is held back again at the same operation
/// without progress in between (`REQ_DROP_RESPIN`): that step added a spin
/// iteration and nothing else. Threads whose mark progress cleared leave
/// the watch.
#[cold]
fn drop_respin(st: &mut State) {
    let watch = st.respin_watch;
    for t in watch.iter() {
        let th = &st.threads[t as usize];
        let Some((kind, object)) = th.spin.forced else {
            st.respin_watch.remove(t);
            continue;
        };
        let pending = th.pending.op;
        if pending.kind == kind && pending.object == object && held_back_only(st, t) {
            // Said as a divergence of a sleep-blocked run, for the search
            // to drop the execution.
            st.chan.set_divergence(st.event_count, t);
            fail!(
                st,
                RunStatus::SleepBlocked,
                0,
                "thread {t}, run by the schedule while held back as a spinner, is held back again at the same operation"
            );
        }
    }
}

fn held_back_only(st: &State, t: u32) -> bool {
    t < st.thread_count
        && st.threads[t as usize].state == TState::Parked
        && crate::spin::holds_back(st, t)
        && crate::enabled::is_enabled(st, t)
}

/// Stops recording: the execution has recorded `record_steps` events and
/// another one is about to run. Every thread created so far is written to
/// the cut region with its state and pending operation (every live thread
/// is parked at a known one now), so the driver sees the recorded prefix as
/// a trace of its own. From here on the execution runs unrecorded under the
/// "continue" policy without sleep sets: a deterministic function of the
/// prefix, so a schedule of the recorded steps replays the whole execution.
#[cold]
fn stop_recording(st: &mut State, enabled: &ThreadSet) {
    for t in 0..st.thread_count {
        let th = &st.threads[t as usize];
        let p = th.pending;
        let tid = st.chan.slot(t).tid;
        let slot = st.chan.cut_slot(t);
        slot.state = match th.state {
            TState::Parked => ThreadState::Parked,
            TState::Finished => ThreadState::Finished,
            TState::Unused => ThreadState::Unused,
            TState::Starting | TState::Running => ThreadState::Running,
        } as u32;
        slot.enabled = u32::from(enabled.contains(t));
        slot.pending_kind = p.op.kind as u16;
        slot.pending_flags = p.op.flags.0;
        slot.pending_object = p.op.object;
        slot.pending_aux = p.op.aux;
        slot.pending_site = p.site;
        slot.pending_caller = p.caller;
        slot.parent = th.parent;
        slot.tid = tid;
        slot.steps = th.steps;
        slot.last_site = 0;
        slot.spin_count = th.spin.count;
    }
    st.chan.set_cut_threads(st.thread_count);
    st.cut = true;
    crate::awaits::stop_recording(st);
    st.check_at = st.max_steps;
    st.sleep_sets = false;
    st.sleep = ThreadSet::EMPTY;
    st.policy = Policy::ContinueThenLowest;
}

/// Parks the calling thread `me` at `op` and returns once it is chosen to run.
///
/// A thread that is chosen again at once keeps its channel slot as it was
/// (running): its pending operation is published only when another thread
/// runs or the execution ends, so continuing costs no shared-memory traffic
/// beyond the event itself.
#[inline(always)]
pub fn schedule(me: u32, op: Op, site: u64) {
    crate::memory_model::restore_memory();
    // SAFETY: `me` holds the right to run.
    let st = unsafe { state() };
    crate::awaits::scheduling_point(st, me);
    let i = me as usize;
    st.threads[i].pending = Pending {
        op,
        site,
        caller: crate::current::library_call(),
    };
    if site != 0 {
        st.chan.slot(me).last_site = site;
    }
    let starting = st.threads[i].state == TState::Starting;
    st.threads[i].state = TState::Parked;
    if starting {
        // First scheduling point of a new thread: hand back to the creator.
        publish_pending(st, me);
        let parent = st.threads[i].parent;
        st.running = parent;
        st.chan.set_running(parent);
        hand_over(me, parent);
        return;
    }
    let next = decide(st, me);
    if next == me {
        st.threads[i].state = TState::Running;
        return;
    }
    if next == NONE {
        internal_bug(st, "a parked thread is not alive");
    }
    publish_pending(st, me);
    switch_to(st, next);
    hand_over(me, next);
}

/// Records event `op` of thread `me` (the running thread) and returns its
/// index. Past the recording bound the event is counted, not written.
#[inline]
fn record(st: &mut State, me: u32, op: &Op, site: u64) -> u64 {
    let i = st.event_count;
    if i < st.record_steps {
        let ev = Event {
            thread: me,
            kind: op.kind as u16,
            flags: op.flags.0,
            site,
            object: op.object,
            aux: op.aux,
            caller: st.threads[me as usize].pending.caller,
            enabled: st.enabled,
        };
        st.chan.write_event(i, &ev);
        st.chan.set_event_count(i + 1);
    }
    st.event_count = i + 1;
    st.threads[me as usize].steps += 1;
    i
}

/// Sleep-set update after executing `op` (paper Fig. 7).
#[inline]
fn update_sleep(st: &mut State, me: u32, op: &Op) {
    if !st.sleep_sets || st.event_count < st.prefix_len || st.sleep.is_empty() {
        return;
    }
    st.sleep.remove(me);
    let sleeping = st.sleep;
    for u in sleeping.iter() {
        let th = &st.threads[u as usize];
        if !th.live() || th.pending.op.conflicts(op) {
            st.sleep.remove(u);
        }
    }
}

/// Runs one visible operation of the calling thread `me`: parks at `op`,
/// waits to be chosen, records the event, then runs `effect` (which performs
/// the operation on the runtime's model and may set outcome flags on the
/// operation) and returns its result.
#[inline]
pub fn run_op<R>(
    me: u32,
    mut op: Op,
    site: u64,
    effect: impl FnOnce(&mut State, u32, &mut Op) -> R,
) -> R {
    // SAFETY: `me` holds the right to run.
    crate::private::scheduled(unsafe { state() }, me, &op);
    schedule(me, op, site);
    // SAFETY: `me` was chosen and holds the right to run.
    let st = unsafe { state() };
    if op.kind == OpKind::ThreadCreate {
        op.object = u64::from(st.thread_count);
    }
    let idx = record(st, me, &op, site);
    if crate::memory_model::active() {
        model_event(st, me, &op, idx, site);
    }
    let before = op;
    let r = effect(st, me, &mut op);
    // SAFETY: still (or again, after a thread creation) the running thread.
    let st = unsafe { state() };
    if op != before && idx < st.record_steps {
        if let Some(ev) = st.chan.event_mut(idx) {
            ev.flags = op.flags.0;
            ev.object = op.object;
            ev.aux = op.aux;
        }
    }
    if !keeps_enabledness(op.kind) {
        st.enabled_valid = false;
    }
    update_sleep(st, me, &op);
    if matches!(op.kind, OpKind::Yield | OpKind::Sleep)
        || op.flags.has(reach_channel::EventFlags::TIMED_OUT)
    {
        st.note_yield(me);
    }
    crate::awaits::after_event(st, me, &op, site);
    if st.threads[me as usize].region.touching {
        crate::spin::after_touch(st, me, &op);
    } else {
        crate::spin::after_event(st, me, &op);
        after_region_op(me);
    }
    r
}

/// Event `idx` (`op` of thread `me`) under the RC11 memory model: where an
/// atomic access's choice (the store a load reads, the place a store takes
/// in modification order) comes from (the prefix entry, a random
/// number under the randomised policies, else the latest store), then the
/// model's update ([`crate::memory_model::after_event`]).
#[inline(never)]
fn model_event(st: &mut State, me: u32, op: &Op, idx: u64, site: u64) {
    use crate::memory_model::Choice;
    let chooses = matches!(
        op.kind,
        OpKind::AtomicLoad | OpKind::AtomicStore | OpKind::AtomicRmw | OpKind::CmpXchg
    );
    let choice = if !chooses {
        Choice::Latest
    } else if idx < st.prefix_len {
        Choice::Prefix(st.chan.prefix_choice(idx))
    } else if matches!(st.policy, Policy::Random | Policy::Pct) {
        Choice::Random(next_random(st))
    } else {
        Choice::Latest
    };
    match crate::memory_model::after_event(st, me, op, idx, choice) {
        Ok(true) => crate::awaits::read_older_store(st, me),
        Ok(false) => {}
        Err(why) => fail!(st, RunStatus::Unsupported, site, "{}", why.message()),
    }
}

/// Runs memory access `kind` of `size` bytes at `object` (or a fence) by
/// the calling thread `me`: [`run_op`] without an effect on the runtime's
/// model. Takes the operation's fields as scalars so that the hot path
/// builds the operation in registers.
#[inline(never)]
pub fn run_access(me: u32, kind: OpKind, object: u64, size: u64, site: u64) {
    let op = Op {
        kind,
        flags: reach_channel::EventFlags(0),
        object,
        aux: size,
    };
    run_op(me, op, site, |_, _, _| ());
}

/// The calling thread `me` has finished: it leaves the schedule and hands the
/// right to run on (no event is recorded for a thread's exit).
pub fn thread_finished(me: u32) {
    crate::memory_model::restore_memory();
    // SAFETY: `me` holds the right to run.
    let st = unsafe { state() };
    let i = me as usize;
    let starting = st.threads[i].state == TState::Starting;
    st.threads[i].state = TState::Finished;
    st.live_threads -= 1;
    st.enabled_valid = false;
    publish_counters(st, me);
    set_slot_state(st, me, ThreadState::Finished);
    st.chan.slot(me).enabled = 0;
    set_me(NONE);
    if starting {
        let parent = st.threads[i].parent;
        st.running = parent;
        st.chan.set_running(parent);
        mark_exiting(st);
        hand_on(parent);
        return;
    }
    let next = decide(st, NONE);
    if next != NONE {
        mark_exiting(st);
    }
    if next == NONE {
        // The last thread ended (the main thread called pthread_exit): the
        // C library ends the process with status 0.
        publish_counts(st);
        st.chan.set_exit_code(0);
        st.chan.set_status(RunStatus::Exited);
        MODE.store(MODE_ENDED, Ordering::SeqCst);
        return;
    }
    switch_to(st, next);
    hand_on(next);
}

/// Waits (as thread `me`, the creator) until a thread just started by it
/// parks at its first scheduling point or finishes.
pub fn wait_for_child(me: u32) {
    wait_turn(me);
}

/// After thread `me` executed a visible operation: inside a library
/// region ([`crate::region`]), the region code that follows begins with a
/// touch.
#[inline]
fn after_region_op(me: u32) {
    // SAFETY: `me` holds the right to run.
    let th = &unsafe { state() }.threads[me as usize];
    // Between the halves of a wait (a futex or condition wait that has
    // queued the thread) the second half must stay the pending operation:
    // the touch follows that one.
    if th.region.depth > 0 && !th.region.touching && !th.waiting {
        touch_region(me);
    }
}

/// Records a write of thread `me`'s library region object (a scheduling
/// point): a touch ([`crate::region`]).
pub fn touch_region(me: u32) {
    // SAFETY: `me` holds the right to run.
    let region = &mut unsafe { state() }.threads[me as usize].region;
    region.touching = true;
    let (object, site) = (region.object, region.site);
    run_access(me, OpKind::AtomicRmw, object, 1, site);
    // SAFETY: still the running thread.
    unsafe { state() }.threads[me as usize].region.touching = false;
}

/// Reads the driver's request (prefix length, policy, seed, bounds, sleep
/// set) from the channel header into the state.
pub fn load_request(st: &mut State) {
    let h = st.chan.header();
    st.prefix_len = u64::from(h.prefix_len.min(st.chan.prefix_capacity));
    st.policy = Policy::from_u32(h.policy).unwrap_or(Policy::ContinueThenLowest);
    st.rng = (h.seed ^ 0x9E37_79B9_7F4A_7C15) | 1;
    st.pct_seed = h.seed;
    st.pct_next = 0;
    st.pct_next_at = change_point_at(st, 0);
    if st.policy == Policy::Pct {
        st.pct_low = [0; reach_channel::MAX_THREADS];
    }
    st.max_steps = h.max_steps;
    st.record_steps = h.record_steps.min(u64::from(st.chan.event_capacity));
    st.check_at = st.max_steps.min(st.record_steps);
    st.cut = false;
    st.sleep_sets = h.request_flags & REQ_SLEEP_SETS != 0;
    st.spin_blocking = h.request_flags & REQ_SPIN_BLOCKING != 0;
    st.exit_cuts_threads = h.request_flags & REQ_EXIT_CUTS_THREADS != 0;
    st.commute_rmws = h.request_flags & REQ_COMMUTE_RMWS != 0;
    st.await_retries = h.request_flags & REQ_AWAIT_RETRIES != 0;
    st.awaits_off = h.request_flags & REQ_AWAITS_OFF != 0;
    st.drop_held = h.request_flags & REQ_DROP_HELD != 0;
    st.drop_respin = h.request_flags & REQ_DROP_RESPIN != 0;
    st.respin_watch = reach_channel::ThreadSet::EMPTY;
    crate::memory_model::start_execution(h.request_flags & REQ_RC11 != 0);
    crate::private::start_execution(h.request_flags);
    st.awaiting = reach_channel::ThreadSet::EMPTY;
    st.iterating = reach_channel::ThreadSet::EMPTY;
    st.yielded = crate::state::NONE;
    st.yield_streak = 0;
    st.threads[0].awaits = crate::awaits::Awaits::EMPTY;
    st.exit_waiting_since = u64::MAX;
    st.spin_threshold = u64::from(h.spin_threshold);
    st.sleep = if st.sleep_sets {
        h.sleep_set
    } else {
        reach_channel::ThreadSet::EMPTY
    };
    let contexts = h.request_flags & REQ_USER_THREADS != 0;
    if let Some(cause) = crate::uthread::start_execution(contexts) {
        crate::uthread::report_unavailable(cause);
    }
    crate::symbolic::start_execution();
}
