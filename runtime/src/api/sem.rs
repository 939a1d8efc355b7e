//! POSIX semaphores. `sem_wait` is enabled while the value is positive;
//! `sem_trywait`/`sem_timedwait` are always enabled and fail with
//! `EAGAIN`/`ETIMEDOUT` on zero. A semaphore the runtime has not seen
//! (`sem_open`, or initialised before control started) starts from the value
//! in the C library's representation. Every wait, post and `sem_getvalue`
//! records the count it found in its event's `aux`.

use super::mk;
use super::objects::get_or_insert;
use crate::enabled::sem_value;
use crate::real;
use crate::sched::run_op;
use crate::state::{me, state, take_call_site, State};
use crate::sys::set_errno;
use crate::table::ObjKind;
use core::ffi::{c_int, c_uint};
use libc::{sem_t, timespec};
use reach_channel::{EventFlags, OpKind};

fn sem(st: &mut State, a: u64, site: u64) -> usize {
    let v = sem_value(st, a);
    get_or_insert(st, a, ObjKind::Sem, site, |o| o.value = v)
}

fn wait(s: *mut sem_t, flags: u16) -> c_int {
    let Some(me) = me() else { return -1 };
    let site = take_call_site();
    let a = s as u64;
    run_op(me, mk(OpKind::SemWait, flags, a, 0), site, |st, _, op| {
        let i = sem(st, a, site);
        let o = st.objects.at(i);
        op.aux = o.value;
        if o.value > 0 {
            o.value -= 1;
            return 0;
        }
        if flags & EventFlags::TRY != 0 {
            op.flags.0 |= EventFlags::FAILED;
            set_errno(libc::EAGAIN);
        } else if flags & EventFlags::TIMED != 0 {
            op.flags.0 |= EventFlags::TIMED_OUT;
            set_errno(libc::ETIMEDOUT);
        } else {
            crate::sched::internal_bug(st, "a wait on a zero semaphore was scheduled");
        }
        -1
    })
}

/// Interposed `sem_init` (the C library initialises the object too).
///
/// # Safety
/// As the C function.
#[no_mangle]
pub unsafe extern "C" fn sem_init(s: *mut sem_t, pshared: c_int, value: c_uint) -> c_int {
    // SAFETY: forwarding.
    let rc = unsafe {
        real!(
            c"sem_init",
            unsafe extern "C" fn(*mut sem_t, c_int, c_uint) -> c_int
        )(s, pshared, value)
    };
    if rc == 0 && me().is_some() {
        // SAFETY: the caller holds the right to run.
        let st = unsafe { state() };
        st.objects.remove(s as u64);
        get_or_insert(st, s as u64, ObjKind::Sem, 0, |o| {
            o.value = u64::from(value)
        });
        crate::spin::caller_progressed();
    }
    rc
}

/// Interposed `sem_destroy`.
///
/// # Safety
/// As the C function.
#[no_mangle]
pub unsafe extern "C" fn sem_destroy(s: *mut sem_t) -> c_int {
    if me().is_some() {
        // SAFETY: the caller holds the right to run.
        unsafe { state() }.objects.remove(s as u64);
        crate::spin::caller_progressed();
    }
    // SAFETY: forwarding.
    unsafe { real!(c"sem_destroy", unsafe extern "C" fn(*mut sem_t) -> c_int)(s) }
}

/// Interposed `sem_wait`.
///
/// # Safety
/// As the C function.
#[no_mangle]
pub unsafe extern "C" fn sem_wait(s: *mut sem_t) -> c_int {
    crate::controlled_or_forward!(c"sem_wait", fn(*mut sem_t) -> c_int, (s));
    wait(s, 0)
}

/// Interposed `sem_trywait`.
///
/// # Safety
/// As the C function.
#[no_mangle]
pub unsafe extern "C" fn sem_trywait(s: *mut sem_t) -> c_int {
    crate::controlled_or_forward!(c"sem_trywait", fn(*mut sem_t) -> c_int, (s));
    wait(s, EventFlags::TRY)
}

/// Interposed `sem_timedwait`.
///
/// # Safety
/// As the C function.
#[no_mangle]
pub unsafe extern "C" fn sem_timedwait(s: *mut sem_t, t: *const timespec) -> c_int {
    crate::controlled_or_forward!(
        c"sem_timedwait",
        fn(*mut sem_t, *const timespec) -> c_int,
        (s, t)
    );
    wait(s, EventFlags::TIMED)
}

/// Interposed `sem_clockwait` (as a timed wait).
///
/// # Safety
/// As the C function.
#[no_mangle]
pub unsafe extern "C" fn sem_clockwait(
    s: *mut sem_t,
    c: libc::clockid_t,
    t: *const timespec,
) -> c_int {
    crate::controlled_or_forward!(
        c"sem_clockwait",
        fn(*mut sem_t, libc::clockid_t, *const timespec) -> c_int,
        (s, c, t)
    );
    wait(s, EventFlags::TIMED)
}

/// Interposed `sem_post`.
///
/// # Safety
/// As the C function.
#[no_mangle]
pub unsafe extern "C" fn sem_post(s: *mut sem_t) -> c_int {
    let me = crate::controlled_or_forward!(c"sem_post", fn(*mut sem_t) -> c_int, (s));
    let site = take_call_site();
    let a = s as u64;
    run_op(me, mk(OpKind::SemPost, 0, a, 0), site, |st, _, op| {
        let i = sem(st, a, site);
        op.aux = st.objects.at(i).value;
        st.objects.at(i).value += 1;
        0
    })
}

/// Interposed `sem_getvalue`.
///
/// # Safety
/// As the C function.
#[no_mangle]
pub unsafe extern "C" fn sem_getvalue(s: *mut sem_t, out: *mut c_int) -> c_int {
    let me = crate::controlled_or_forward!(
        c"sem_getvalue",
        fn(*mut sem_t, *mut c_int) -> c_int,
        (s, out)
    );
    let site = take_call_site();
    let a = s as u64;
    let v = run_op(me, mk(OpKind::SemGetValue, 0, a, 0), site, |st, _, op| {
        let i = sem(st, a, site);
        op.aux = st.objects.at(i).value;
        op.aux
    });
    if !out.is_null() {
        // SAFETY: the program's out pointer.
        unsafe { *out = v.min(i32::MAX as u64) as c_int };
    }
    0
}
