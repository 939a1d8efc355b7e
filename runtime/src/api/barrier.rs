//! Barriers: `pthread_barrier_wait` is `BarrierArrive` (always enabled) then
//! `BarrierLeave`, enabled once the barrier opened for the caller's
//! generation. The last thread to arrive gets `PTHREAD_BARRIER_SERIAL_THREAD`.

use super::mk;
use super::objects::get_or_insert;
use crate::fail;
use crate::real;
use crate::sched::run_op;
use crate::state::{me, state, take_call_site};
use crate::table::ObjKind;
use core::ffi::{c_int, c_uint};
use libc::{pthread_barrier_t, pthread_barrierattr_t};
use reach_channel::{OpKind, RunStatus};

/// Interposed `pthread_barrier_init`.
///
/// # Safety
/// As the C function.
#[no_mangle]
pub unsafe extern "C" fn pthread_barrier_init(
    b: *mut pthread_barrier_t,
    a: *const pthread_barrierattr_t,
    count: c_uint,
) -> c_int {
    // SAFETY: forwarding.
    let rc = unsafe {
        real!(
            c"pthread_barrier_init",
            unsafe extern "C" fn(
                *mut pthread_barrier_t,
                *const pthread_barrierattr_t,
                c_uint,
            ) -> c_int
        )(b, a, count)
    };
    if rc == 0 && me().is_some() {
        // SAFETY: the caller holds the right to run.
        let st = unsafe { state() };
        st.objects.remove(b as u64);
        get_or_insert(st, b as u64, ObjKind::Barrier, 0, |o| {
            o.value = u64::from(count)
        });
        crate::spin::caller_progressed();
    }
    rc
}

/// Interposed `pthread_barrier_destroy`.
///
/// # Safety
/// As the C function.
#[no_mangle]
pub unsafe extern "C" fn pthread_barrier_destroy(b: *mut pthread_barrier_t) -> c_int {
    if let Some(me) = me() {
        // SAFETY: the caller holds the right to run.
        let st = unsafe { state() };
        let a = b as u64;
        if crate::enabled::obj(st, a, ObjKind::Barrier).is_some_and(|o| o.count > 0) {
            let site = take_call_site();
            fail!(
                st,
                RunStatus::Misuse,
                site,
                "thread {me} destroys barrier {a:#x} while threads wait at it"
            );
        }
        st.objects.remove(a);
        crate::spin::caller_progressed();
    }
    // SAFETY: forwarding.
    unsafe {
        real!(
            c"pthread_barrier_destroy",
            unsafe extern "C" fn(*mut pthread_barrier_t) -> c_int
        )(b)
    }
}

/// Interposed `pthread_barrier_wait`.
///
/// # Safety
/// As the C function.
#[no_mangle]
pub unsafe extern "C" fn pthread_barrier_wait(b: *mut pthread_barrier_t) -> c_int {
    let me = crate::controlled_or_forward!(
        c"pthread_barrier_wait",
        fn(*mut pthread_barrier_t) -> c_int,
        (b)
    );
    let site = take_call_site();
    let a = b as u64;
    let serial = run_op(me, mk(OpKind::BarrierArrive, 0, a, 0), site, |st, me, _| {
        let Some(i) = st
            .objects
            .find(a)
            .filter(|i| st.objects.at(*i).kind == ObjKind::Barrier)
        else {
            fail!(
                st,
                RunStatus::Misuse,
                site,
                "thread {me} waits at barrier {a:#x}, which was not initialised"
            );
        };
        let o = st.objects.at(i);
        let generation = o.generation;
        o.count += 1;
        let last = u64::from(o.count) >= o.value;
        if last {
            o.count = 0;
            o.generation += 1;
        }
        st.threads[me as usize].barrier_gen = generation;
        last
    });
    run_op(me, mk(OpKind::BarrierLeave, 0, a, 0), site, |_, _, _| ());
    if serial {
        libc::PTHREAD_BARRIER_SERIAL_THREAD
    } else {
        0
    }
}
