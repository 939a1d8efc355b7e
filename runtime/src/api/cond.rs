//! Condition variables (signal-and-continue, as pthread monitors are).
//!
//! `pthread_cond_wait(c, m)` is two scheduling points: `CondWait(c, m)`
//! releases `m` and starts waiting; `CondRelock(c, m)` is enabled once the
//! thread was signalled and `m` is free, and re-acquires `m`. For a timed
//! wait `CondRelock` carries `TIMED` and is enabled whenever `m` is free; if
//! the thread was not signalled it returns `ETIMEDOUT` (`TIMED_OUT`), so both
//! outcomes get explored. A signal wakes the longest waiting thread (FIFO), a
//! broadcast all of them; a signal without waiters is lost. Spurious wake-ups
//! are not modelled.

use super::mk;
use super::objects::mutex;
use crate::fail;
use crate::real;
use crate::sched::run_op;
use crate::state::{me, take_call_site, State, NONE};
use core::ffi::c_int;
use libc::{pthread_cond_t, pthread_condattr_t, pthread_mutex_t, timespec};
use reach_channel::{EventFlags, OpKind, RunStatus};

/// Threads waiting (not yet signalled) on condition variable `c`, in FIFO order.
fn waiters(st: &State, c: u64) -> impl Iterator<Item = u32> + '_ {
    (0..st.thread_count).filter(move |t| {
        let th = &st.threads[*t as usize];
        th.waiting
            && !th.signalled
            && th.pending.op.kind == OpKind::CondRelock
            && th.pending.op.object == c
    })
}

fn wait(c: *mut pthread_cond_t, m: *mut pthread_mutex_t, timed: bool) -> c_int {
    let Some(me) = me() else { return libc::EINVAL };
    let site = take_call_site();
    let (ca, ma) = (c as u64, m as u64);
    run_op(me, mk(OpKind::CondWait, 0, ca, ma), site, |st, me, _| {
        let i = mutex(st, ma, site);
        let o = st.objects.at(i);
        if o.owner != me {
            fail!(
                st,
                RunStatus::Misuse,
                site,
                "thread {me} waits on condition variable {ca:#x} without holding mutex {ma:#x}"
            );
        }
        let count = o.count;
        o.owner = NONE;
        o.count = 0;
        let ticket = st.next_ticket;
        st.next_ticket += 1;
        let th = &mut st.threads[me as usize];
        th.waiting = true;
        th.signalled = false;
        th.ticket = ticket;
        th.saved_count = count;
    });
    let flags = if timed { EventFlags::TIMED } else { 0 };
    run_op(
        me,
        mk(OpKind::CondRelock, flags, ca, ma),
        site,
        |st, me, op| {
            let th = &mut st.threads[me as usize];
            let signalled = th.signalled;
            let count = th.saved_count.max(1);
            th.waiting = false;
            th.signalled = false;
            let i = mutex(st, ma, site);
            let o = st.objects.at(i);
            o.owner = me;
            o.count = count;
            if signalled {
                0
            } else {
                op.flags.0 |= EventFlags::TIMED_OUT;
                libc::ETIMEDOUT
            }
        },
    )
}

/// Interposed `pthread_cond_wait`.
///
/// # Safety
/// As the C function.
#[no_mangle]
pub unsafe extern "C" fn pthread_cond_wait(
    c: *mut pthread_cond_t,
    m: *mut pthread_mutex_t,
) -> c_int {
    crate::controlled_or_forward!(
        c"pthread_cond_wait",
        fn(*mut pthread_cond_t, *mut pthread_mutex_t) -> c_int,
        (c, m)
    );
    wait(c, m, false)
}

/// Interposed `pthread_cond_timedwait`.
///
/// # Safety
/// As the C function.
#[no_mangle]
pub unsafe extern "C" fn pthread_cond_timedwait(
    c: *mut pthread_cond_t,
    m: *mut pthread_mutex_t,
    t: *const timespec,
) -> c_int {
    crate::controlled_or_forward!(
        c"pthread_cond_timedwait",
        fn(*mut pthread_cond_t, *mut pthread_mutex_t, *const timespec) -> c_int,
        (c, m, t)
    );
    wait(c, m, true)
}

/// Interposed `pthread_cond_clockwait` (as a timed wait).
///
/// # Safety
/// As the C function.
#[no_mangle]
pub unsafe extern "C" fn pthread_cond_clockwait(
    c: *mut pthread_cond_t,
    m: *mut pthread_mutex_t,
    clock: libc::clockid_t,
    t: *const timespec,
) -> c_int {
    crate::controlled_or_forward!(
        c"pthread_cond_clockwait",
        fn(*mut pthread_cond_t, *mut pthread_mutex_t, libc::clockid_t, *const timespec) -> c_int,
        (c, m, clock, t)
    );
    wait(c, m, true)
}

fn wake(c: *mut pthread_cond_t, all: bool) -> c_int {
    let Some(me) = me() else { return 0 };
    let site = take_call_site();
    let ca = c as u64;
    let kind = if all {
        OpKind::CondBroadcast
    } else {
        OpKind::CondSignal
    };
    run_op(me, mk(kind, 0, ca, 0), site, |st, _, op| {
        let mut woken = 0u64;
        if all {
            for t in 0..st.thread_count {
                if waiters(st, ca).any(|w| w == t) {
                    st.threads[t as usize].signalled = true;
                    woken += 1;
                }
            }
        } else if let Some(t) = waiters(st, ca).min_by_key(|t| st.threads[*t as usize].ticket) {
            st.threads[t as usize].signalled = true;
            woken = 1;
        }
        op.aux = woken;
        0
    })
}

/// Interposed `pthread_cond_signal`.
///
/// # Safety
/// As the C function.
#[no_mangle]
pub unsafe extern "C" fn pthread_cond_signal(c: *mut pthread_cond_t) -> c_int {
    crate::controlled_or_forward!(
        c"pthread_cond_signal",
        fn(*mut pthread_cond_t) -> c_int,
        (c)
    );
    wake(c, false)
}

/// Interposed `pthread_cond_broadcast`.
///
/// # Safety
/// As the C function.
#[no_mangle]
pub unsafe extern "C" fn pthread_cond_broadcast(c: *mut pthread_cond_t) -> c_int {
    crate::controlled_or_forward!(
        c"pthread_cond_broadcast",
        fn(*mut pthread_cond_t) -> c_int,
        (c)
    );
    wake(c, true)
}

/// Interposed `pthread_cond_init` (the C library initialises the object too).
///
/// # Safety
/// As the C function.
#[no_mangle]
pub unsafe extern "C" fn pthread_cond_init(
    c: *mut pthread_cond_t,
    a: *const pthread_condattr_t,
) -> c_int {
    // SAFETY: forwarding.
    let rc = unsafe {
        real!(
            c"pthread_cond_init",
            unsafe extern "C" fn(*mut pthread_cond_t, *const pthread_condattr_t) -> c_int
        )(c, a)
    };
    if rc == 0 {
        crate::spin::caller_progressed();
    }
    rc
}

/// Interposed `pthread_cond_destroy`: destroying a condition variable a
/// thread waits on is a misuse.
///
/// # Safety
/// As the C function.
#[no_mangle]
pub unsafe extern "C" fn pthread_cond_destroy(c: *mut pthread_cond_t) -> c_int {
    let me = crate::controlled_or_forward!(
        c"pthread_cond_destroy",
        fn(*mut pthread_cond_t) -> c_int,
        (c)
    );
    let site = take_call_site();
    let ca = c as u64;
    run_op(me, mk(OpKind::CondDestroy, 0, ca, 0), site, |st, me, _| {
        let first = waiters(st, ca).next();
        if let Some(w) = first {
            fail!(
                st,
                RunStatus::Misuse,
                site,
                "thread {me} destroys condition variable {ca:#x} while thread {w} waits on it"
            );
        }
        st.objects.remove(ca);
        0
    })
}
