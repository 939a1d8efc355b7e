//! Reader/writer locks. A read lock is enabled while no writer holds the
//! lock, a write lock while nobody holds it (readers are preferred, as in the
//! C library's default). Try/timed variants are always enabled and fail with
//! `EBUSY`/`ETIMEDOUT`. Re-locking a lock the caller holds for writing (or
//! write-locking one it holds for reading) returns `EDEADLK`; unlocking a lock
//! the caller does not hold is a misuse.

use super::mk;
use super::objects::get_or_insert;
use crate::fail;
use crate::real;
use crate::sched::run_op;
use crate::state::{me, state, take_call_site, NONE, RD_HELD};
use crate::table::ObjKind;
use core::ffi::c_int;
use libc::{pthread_rwlock_t, pthread_rwlockattr_t, timespec};
use reach_channel::{EventFlags, OpKind, RunStatus};

fn lock(l: *mut pthread_rwlock_t, write: bool, flags: u16) -> c_int {
    let Some(me) = me() else { return libc::EINVAL };
    let site = take_call_site();
    let a = l as u64;
    let kind = if write {
        OpKind::RwWriteLock
    } else {
        OpKind::RwReadLock
    };
    run_op(me, mk(kind, flags, a, 0), site, |st, me, op| {
        let i = get_or_insert(st, a, ObjKind::RwLock, site, |_| {});
        let o = *st.objects.at(i);
        let mine = o.owner == me || (write && o.readers.contains(me));
        if mine {
            op.flags.0 |= EventFlags::FAILED;
            return libc::EDEADLK;
        }
        let busy = o.owner != NONE || (write && o.count > 0);
        if busy {
            if flags & EventFlags::TRY != 0 {
                op.flags.0 |= EventFlags::FAILED;
                return libc::EBUSY;
            }
            if flags & EventFlags::TIMED != 0 {
                op.flags.0 |= EventFlags::TIMED_OUT;
                return libc::ETIMEDOUT;
            }
            crate::sched::internal_bug(st, "a lock of a held rwlock was scheduled");
        }
        if write {
            st.objects.at(i).owner = me;
            return 0;
        }
        let th = &mut st.threads[me as usize];
        if th.rd_n >= RD_HELD {
            fail!(
                st,
                RunStatus::Unsupported,
                site,
                "thread {me} holds more than {RD_HELD} read locks at once"
            );
        }
        th.rd_held[th.rd_n] = a;
        th.rd_n += 1;
        let o = st.objects.at(i);
        o.count += 1;
        o.readers.insert(me);
        0
    })
}

fn unlock(l: *mut pthread_rwlock_t) -> c_int {
    let Some(me) = me() else { return libc::EINVAL };
    let site = take_call_site();
    let a = l as u64;
    run_op(me, mk(OpKind::RwUnlock, 0, a, 0), site, |st, me, _| {
        let i = get_or_insert(st, a, ObjKind::RwLock, site, |_| {});
        if st.objects.at(i).owner == me {
            st.objects.at(i).owner = NONE;
            return 0;
        }
        let th = &mut st.threads[me as usize];
        let Some(k) = th.rd_held[..th.rd_n].iter().position(|x| *x == a) else {
            fail!(
                st,
                RunStatus::Misuse,
                site,
                "thread {me} unlocks rwlock {a:#x}, which it does not hold"
            );
        };
        th.rd_held[k] = th.rd_held[th.rd_n - 1];
        th.rd_n -= 1;
        let still = th.rd_held[..th.rd_n].contains(&a);
        let o = st.objects.at(i);
        o.count = o.count.saturating_sub(1);
        if !still {
            o.readers.remove(me);
        }
        0
    })
}

macro_rules! rw_fn {
    ($name:ident, $sym:literal, $write:expr, $flags:expr) => {
        /// Interposed C function of the same name.
        ///
        /// # Safety
        /// As the C function.
        #[no_mangle]
        pub unsafe extern "C" fn $name(l: *mut pthread_rwlock_t) -> c_int {
            if me().is_none() {
                // SAFETY: forwarding.
                return unsafe {
                    real!($sym, unsafe extern "C" fn(*mut pthread_rwlock_t) -> c_int)(l)
                };
            }
            lock(l, $write, $flags)
        }
    };
}

macro_rules! rw_timed_fn {
    ($name:ident, $sym:literal, $write:expr) => {
        /// Interposed C function of the same name (a timed lock).
        ///
        /// # Safety
        /// As the C function.
        #[no_mangle]
        pub unsafe extern "C" fn $name(l: *mut pthread_rwlock_t, t: *const timespec) -> c_int {
            if me().is_none() {
                // SAFETY: forwarding.
                return unsafe {
                    real!(
                        $sym,
                        unsafe extern "C" fn(*mut pthread_rwlock_t, *const timespec) -> c_int
                    )(l, t)
                };
            }
            lock(l, $write, EventFlags::TIMED)
        }
    };
}

rw_fn!(pthread_rwlock_rdlock, c"pthread_rwlock_rdlock", false, 0);
rw_fn!(pthread_rwlock_wrlock, c"pthread_rwlock_wrlock", true, 0);
rw_fn!(
    pthread_rwlock_tryrdlock,
    c"pthread_rwlock_tryrdlock",
    false,
    EventFlags::TRY
);
rw_fn!(
    pthread_rwlock_trywrlock,
    c"pthread_rwlock_trywrlock",
    true,
    EventFlags::TRY
);
rw_timed_fn!(
    pthread_rwlock_timedrdlock,
    c"pthread_rwlock_timedrdlock",
    false
);
rw_timed_fn!(
    pthread_rwlock_timedwrlock,
    c"pthread_rwlock_timedwrlock",
    true
);

/// Interposed `pthread_rwlock_unlock`.
///
/// # Safety
/// As the C function.
#[no_mangle]
pub unsafe extern "C" fn pthread_rwlock_unlock(l: *mut pthread_rwlock_t) -> c_int {
    crate::controlled_or_forward!(
        c"pthread_rwlock_unlock",
        fn(*mut pthread_rwlock_t) -> c_int,
        (l)
    );
    unlock(l)
}

/// Interposed `pthread_rwlock_init`.
///
/// # Safety
/// As the C function.
#[no_mangle]
pub unsafe extern "C" fn pthread_rwlock_init(
    l: *mut pthread_rwlock_t,
    a: *const pthread_rwlockattr_t,
) -> c_int {
    // SAFETY: forwarding.
    let rc = unsafe {
        real!(
            c"pthread_rwlock_init",
            unsafe extern "C" fn(*mut pthread_rwlock_t, *const pthread_rwlockattr_t) -> c_int
        )(l, a)
    };
    if rc == 0 && me().is_some() {
        // SAFETY: the caller holds the right to run.
        let st = unsafe { state() };
        st.objects.remove(l as u64);
        get_or_insert(st, l as u64, ObjKind::RwLock, 0, |_| {});
        crate::spin::caller_progressed();
    }
    rc
}

/// Interposed `pthread_rwlock_destroy`: destroying a held lock is a misuse.
///
/// # Safety
/// As the C function.
#[no_mangle]
pub unsafe extern "C" fn pthread_rwlock_destroy(l: *mut pthread_rwlock_t) -> c_int {
    if let Some(me) = me() {
        // SAFETY: the caller holds the right to run.
        let st = unsafe { state() };
        let a = l as u64;
        if let Some(o) = crate::enabled::obj(st, a, ObjKind::RwLock) {
            if o.owner != NONE || o.count > 0 {
                let site = take_call_site();
                fail!(
                    st,
                    RunStatus::Misuse,
                    site,
                    "thread {me} destroys rwlock {a:#x}, which is locked"
                );
            }
        }
        st.objects.remove(a);
        crate::spin::caller_progressed();
        return 0;
    }
    // SAFETY: forwarding.
    unsafe {
        real!(
            c"pthread_rwlock_destroy",
            unsafe extern "C" fn(*mut pthread_rwlock_t) -> c_int
        )(l)
    }
}
