//! `pthread_once`: a `Once` event; the first caller runs the init routine
//! (with its own scheduling points) and then records a second `Once` event
//! (`aux` = 1) marking completion; concurrent callers are not enabled until
//! it completed, later callers return at once.

use super::mk;
use super::objects::get_or_insert;
use crate::fail;
use crate::real;
use crate::sched::run_op;
use crate::state::{me, take_call_site, NONE};
use crate::table::{once_state, ObjKind};
use core::ffi::c_int;
use libc::pthread_once_t;
use reach_channel::{OpKind, RunStatus};

/// Interposed `pthread_once`.
///
/// # Safety
/// As the C function.
#[no_mangle]
pub unsafe extern "C" fn pthread_once(ctl: *mut pthread_once_t, init: extern "C" fn()) -> c_int {
    let Some(me) = me() else {
        // SAFETY: forwarding.
        return unsafe {
            real!(
                c"pthread_once",
                unsafe extern "C" fn(*mut pthread_once_t, extern "C" fn()) -> c_int
            )(ctl, init)
        };
    };
    let site = take_call_site();
    let a = ctl as u64;
    let run = run_op(me, mk(OpKind::Once, 0, a, 0), site, |st, me, _| {
        // SAFETY: the program's once control; non-zero means the C library
        // completed it before the runtime saw it.
        let done_before = unsafe { (a as *const c_int).read_volatile() } != 0;
        let i = get_or_insert(st, a, ObjKind::Once, site, |o| {
            o.value = if done_before {
                once_state::DONE
            } else {
                once_state::NEW
            }
        });
        let o = st.objects.at(i);
        match o.value {
            once_state::DONE => false,
            once_state::NEW => {
                o.value = once_state::RUNNING;
                o.owner = me;
                true
            }
            _ => fail!(
                st,
                RunStatus::Misuse,
                site,
                "thread {me} calls pthread_once {a:#x} recursively from its init routine"
            ),
        }
    });
    if run {
        init();
        // Completion is an event of its own (`aux` = 1), so that callers that
        // waited for it happen after everything the init routine did.
        if let Some(me) = crate::state::me() {
            run_op(me, mk(OpKind::Once, 0, a, 1), site, |st, _, _| {
                if let Some(i) = st.objects.find(a) {
                    let o = st.objects.at(i);
                    o.value = once_state::DONE;
                    o.owner = NONE;
                }
            });
        }
    }
    0
}
