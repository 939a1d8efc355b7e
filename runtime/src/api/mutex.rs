//! Mutexes (normal, recursive, errorcheck) and spinlocks.
//!
//! `MutexLock` is enabled iff the mutex is free or held by the caller (so
//! that relocking is executed and reported). Trylock and timedlock are always
//! enabled: busy → `FAILED`/`EBUSY` resp. `TIMED_OUT`/`ETIMEDOUT` (a timeout
//! is a scheduling choice, time does not pass). Unlocking a mutex the caller
//! does not hold is a misuse for every type (also errorcheck, where the C
//! library would return `EPERM`); relocking a held normal mutex is a misuse
//! (self-deadlock); an errorcheck relock returns `EDEADLK`.

use super::mk;
use super::objects::{glibc_mutex_type, mutex};
use crate::fail;
use crate::real;
use crate::sched::run_op;
use crate::state::{me, state, take_call_site, NONE};
use crate::table::{mutex_type, ObjKind};
use core::ffi::c_int;
use libc::{pthread_mutex_t, pthread_mutexattr_t, pthread_spinlock_t, timespec};
use reach_channel::{EventFlags, OpKind, RunStatus};

/// Interposed `pthread_mutex_init`: the C library initialises the object
/// (so it also works after the execution ended) and the model starts free.
///
/// # Safety
/// As the C function.
#[no_mangle]
pub unsafe extern "C" fn pthread_mutex_init(
    m: *mut pthread_mutex_t,
    attr: *const pthread_mutexattr_t,
) -> c_int {
    let real = real!(
        c"pthread_mutex_init",
        unsafe extern "C" fn(*mut pthread_mutex_t, *const pthread_mutexattr_t) -> c_int
    );
    // SAFETY: forwarding.
    let rc = unsafe { real(m, attr) };
    if rc == 0 && me().is_some() {
        // SAFETY: the caller holds the right to run.
        let st = unsafe { state() };
        let addr = m as u64;
        let i = super::objects::get_or_insert(st, addr, ObjKind::Mutex, 0, |_| {});
        let o = st.objects.at(i);
        *o = crate::table::Obj {
            addr,
            kind: ObjKind::Mutex,
            mtype: glibc_mutex_type(addr),
            ..crate::table::Obj::FREE
        };
        crate::spin::caller_progressed();
    }
    rc
}

/// Interposed `pthread_mutex_lock`.
///
/// # Safety
/// As the C function.
#[no_mangle]
pub unsafe extern "C" fn pthread_mutex_lock(m: *mut pthread_mutex_t) -> c_int {
    let me = crate::controlled_or_forward!(
        c"pthread_mutex_lock",
        fn(*mut pthread_mutex_t) -> c_int,
        (m)
    );
    let site = take_call_site();
    let addr = m as u64;
    run_op(me, mk(OpKind::MutexLock, 0, addr, 0), site, |st, me, op| {
        let i = mutex(st, addr, site);
        let o = st.objects.at(i);
        if o.owner == me {
            match o.mtype {
                mutex_type::RECURSIVE => {
                    o.count += 1;
                    0
                }
                mutex_type::ERRORCHECK => {
                    op.flags.0 |= EventFlags::FAILED;
                    libc::EDEADLK
                }
                _ => fail!(
                    st,
                    RunStatus::Misuse,
                    site,
                    "thread {me} locks mutex {addr:#x}, which it already holds (self-deadlock)"
                ),
            }
        } else if o.owner == NONE {
            o.owner = me;
            o.count = 1;
            0
        } else {
            crate::sched::internal_bug(st, "a lock of a held mutex was scheduled")
        }
    })
}

fn try_or_timed(m: *mut pthread_mutex_t, kind: OpKind, flag: u16) -> c_int {
    let site = take_call_site();
    let addr = m as u64;
    let Some(me) = me() else { return libc::EINVAL };
    run_op(me, mk(kind, flag, addr, 0), site, |st, me, op| {
        let i = mutex(st, addr, site);
        let o = st.objects.at(i);
        if o.owner == NONE {
            o.owner = me;
            o.count = 1;
            0
        } else if o.owner == me && o.mtype == mutex_type::RECURSIVE {
            o.count += 1;
            0
        } else if o.owner == me
            && o.mtype == mutex_type::ERRORCHECK
            && kind == OpKind::MutexTimedLock
        {
            op.flags.0 |= EventFlags::FAILED;
            libc::EDEADLK
        } else if kind == OpKind::MutexTryLock {
            op.flags.0 |= EventFlags::FAILED;
            libc::EBUSY
        } else {
            op.flags.0 |= EventFlags::TIMED_OUT;
            libc::ETIMEDOUT
        }
    })
}

/// Interposed `pthread_mutex_trylock`.
///
/// # Safety
/// As the C function.
#[no_mangle]
pub unsafe extern "C" fn pthread_mutex_trylock(m: *mut pthread_mutex_t) -> c_int {
    crate::controlled_or_forward!(
        c"pthread_mutex_trylock",
        fn(*mut pthread_mutex_t) -> c_int,
        (m)
    );
    try_or_timed(m, OpKind::MutexTryLock, EventFlags::TRY)
}

/// Interposed `pthread_mutex_timedlock`.
///
/// # Safety
/// As the C function.
#[no_mangle]
pub unsafe extern "C" fn pthread_mutex_timedlock(
    m: *mut pthread_mutex_t,
    t: *const timespec,
) -> c_int {
    crate::controlled_or_forward!(
        c"pthread_mutex_timedlock",
        fn(*mut pthread_mutex_t, *const timespec) -> c_int,
        (m, t)
    );
    try_or_timed(m, OpKind::MutexTimedLock, EventFlags::TIMED)
}

/// Interposed `pthread_mutex_clocklock` (as a timed lock).
///
/// # Safety
/// As the C function.
#[no_mangle]
pub unsafe extern "C" fn pthread_mutex_clocklock(
    m: *mut pthread_mutex_t,
    clock: libc::clockid_t,
    t: *const timespec,
) -> c_int {
    crate::controlled_or_forward!(
        c"pthread_mutex_clocklock",
        fn(*mut pthread_mutex_t, libc::clockid_t, *const timespec) -> c_int,
        (m, clock, t)
    );
    try_or_timed(m, OpKind::MutexTimedLock, EventFlags::TIMED)
}

/// Interposed `pthread_mutex_unlock`.
///
/// # Safety
/// As the C function.
#[no_mangle]
pub unsafe extern "C" fn pthread_mutex_unlock(m: *mut pthread_mutex_t) -> c_int {
    let me = crate::controlled_or_forward!(
        c"pthread_mutex_unlock",
        fn(*mut pthread_mutex_t) -> c_int,
        (m)
    );
    let site = take_call_site();
    let addr = m as u64;
    run_op(
        me,
        mk(OpKind::MutexUnlock, 0, addr, 0),
        site,
        |st, me, _| {
            let i = mutex(st, addr, site);
            let o = st.objects.at(i);
            if o.owner != me {
                let owner = o.owner;
                if owner == NONE {
                    fail!(
                        st,
                        RunStatus::Misuse,
                        site,
                        "thread {me} unlocks mutex {addr:#x}, which is not locked"
                    );
                }
                fail!(
                    st,
                    RunStatus::Misuse,
                    site,
                    "thread {me} unlocks mutex {addr:#x}, which is held by thread {owner}"
                );
            }
            o.count = o.count.saturating_sub(1);
            if o.count == 0 {
                o.owner = NONE;
            }
            0
        },
    )
}

/// Interposed `pthread_mutex_destroy`: destroying a locked mutex is a misuse.
///
/// # Safety
/// As the C function.
#[no_mangle]
pub unsafe extern "C" fn pthread_mutex_destroy(m: *mut pthread_mutex_t) -> c_int {
    let me = crate::controlled_or_forward!(
        c"pthread_mutex_destroy",
        fn(*mut pthread_mutex_t) -> c_int,
        (m)
    );
    let site = take_call_site();
    let addr = m as u64;
    run_op(
        me,
        mk(OpKind::MutexDestroy, 0, addr, 0),
        site,
        |st, me, _| {
            let owner = crate::enabled::owner(st, addr, ObjKind::Mutex);
            if owner != NONE {
                fail!(
                    st,
                    RunStatus::Misuse,
                    site,
                    "thread {me} destroys mutex {addr:#x}, which is locked by thread {owner}"
                );
            }
            st.objects.remove(addr);
            0
        },
    )
}

fn spin(s: *mut pthread_spinlock_t, kind: OpKind, flags: u16) -> c_int {
    let Some(me) = me() else { return libc::EINVAL };
    let site = take_call_site();
    let addr = s as u64;
    run_op(me, mk(kind, flags, addr, 0), site, |st, me, op| {
        let i = super::objects::get_or_insert(st, addr, ObjKind::Spin, site, |_| {});
        let o = st.objects.at(i);
        match kind {
            OpKind::SpinUnlock => {
                if o.owner != me {
                    fail!(
                        st,
                        RunStatus::Misuse,
                        site,
                        "thread {me} unlocks spinlock {addr:#x}, which it does not hold"
                    );
                }
                o.owner = NONE;
                0
            }
            _ if o.owner == NONE => {
                o.owner = me;
                0
            }
            _ if flags & EventFlags::TRY != 0 => {
                op.flags.0 |= EventFlags::FAILED;
                libc::EBUSY
            }
            _ if o.owner == me => fail!(
                st,
                RunStatus::Misuse,
                site,
                "thread {me} locks spinlock {addr:#x}, which it already holds (self-deadlock)"
            ),
            _ => crate::sched::internal_bug(st, "a lock of a held spinlock was scheduled"),
        }
    })
}

/// Interposed `pthread_spin_init`.
///
/// # Safety
/// As the C function.
#[no_mangle]
pub unsafe extern "C" fn pthread_spin_init(s: *mut pthread_spinlock_t, pshared: c_int) -> c_int {
    // SAFETY: forwarding.
    let rc = unsafe {
        real!(
            c"pthread_spin_init",
            unsafe extern "C" fn(*mut pthread_spinlock_t, c_int) -> c_int
        )(s, pshared)
    };
    if rc == 0 && me().is_some() {
        // SAFETY: the caller holds the right to run.
        let st = unsafe { state() };
        st.objects.remove(s as u64);
        super::objects::get_or_insert(st, s as u64, ObjKind::Spin, 0, |_| {});
        crate::spin::caller_progressed();
    }
    rc
}

/// Interposed `pthread_spin_destroy`.
///
/// # Safety
/// As the C function.
#[no_mangle]
pub unsafe extern "C" fn pthread_spin_destroy(s: *mut pthread_spinlock_t) -> c_int {
    if me().is_some() {
        // SAFETY: the caller holds the right to run.
        unsafe { state() }.objects.remove(s as u64);
        crate::spin::caller_progressed();
    }
    // SAFETY: forwarding.
    unsafe {
        real!(
            c"pthread_spin_destroy",
            unsafe extern "C" fn(*mut pthread_spinlock_t) -> c_int
        )(s)
    }
}

/// Interposed `pthread_spin_lock`.
///
/// # Safety
/// As the C function.
#[no_mangle]
pub unsafe extern "C" fn pthread_spin_lock(s: *mut pthread_spinlock_t) -> c_int {
    crate::controlled_or_forward!(
        c"pthread_spin_lock",
        fn(*mut pthread_spinlock_t) -> c_int,
        (s)
    );
    spin(s, OpKind::SpinLock, 0)
}

/// Interposed `pthread_spin_trylock`.
///
/// # Safety
/// As the C function.
#[no_mangle]
pub unsafe extern "C" fn pthread_spin_trylock(s: *mut pthread_spinlock_t) -> c_int {
    crate::controlled_or_forward!(
        c"pthread_spin_trylock",
        fn(*mut pthread_spinlock_t) -> c_int,
        (s)
    );
    spin(s, OpKind::SpinLock, EventFlags::TRY)
}

/// Interposed `pthread_spin_unlock`.
///
/// # Safety
/// As the C function.
#[no_mangle]
pub unsafe extern "C" fn pthread_spin_unlock(s: *mut pthread_spinlock_t) -> c_int {
    crate::controlled_or_forward!(
        c"pthread_spin_unlock",
        fn(*mut pthread_spinlock_t) -> c_int,
        (s)
    );
    spin(s, OpKind::SpinUnlock, 0)
}
