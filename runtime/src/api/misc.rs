//! Yielding and sleeping (scheduling points that return at once: time does
//! not pass), `fork` (the child stops being controlled), and `syscall` (the
//! futex operations are modelled, everything else is passed through).

use super::mk;
use crate::fail;
use crate::sched::run_op;
use crate::state::{me, set_me, take_call_site, State, MODE, MODE_ENDED};
use crate::sys::{raw_syscall, set_errno};
use core::ffi::{c_int, c_long, c_uint};
use core::sync::atomic::Ordering;
use libc::timespec;
use reach_channel::{EventFlags, Op, OpKind, RunStatus};

fn point(kind: OpKind, object: u64) -> bool {
    let Some(me) = me() else { return false };
    let site = take_call_site();
    // SAFETY: a controlled thread calling into the runtime holds the right
    // to run.
    if crate::awaits::fast_forwards(unsafe { crate::state::state() }, me, site, 0) {
        return true; // a yield of a fast-forwarded spin: no point
    }
    run_op(me, mk(kind, 0, object, 0), site, |_, _, _| ());
    true
}

/// Interposed `sched_yield`.
#[no_mangle]
pub extern "C" fn sched_yield() -> c_int {
    if !point(OpKind::Yield, 0) {
        // SAFETY: plain system call.
        unsafe { raw_syscall(libc::SYS_sched_yield, [0; 6]) };
    }
    0
}

/// Interposed `sleep`.
///
/// # Safety
/// As the C function.
#[no_mangle]
pub unsafe extern "C" fn sleep(secs: c_uint) -> c_uint {
    if point(OpKind::Sleep, u64::from(secs)) {
        super::time::advance(u64::from(secs) * 1_000_000_000);
        return 0;
    }
    // SAFETY: forwarding.
    unsafe { crate::real!(c"sleep", unsafe extern "C" fn(c_uint) -> c_uint)(secs) }
}

/// Interposed `usleep`.
///
/// # Safety
/// As the C function.
#[no_mangle]
pub unsafe extern "C" fn usleep(us: libc::useconds_t) -> c_int {
    if point(OpKind::Sleep, u64::from(us)) {
        super::time::advance(u64::from(us) * 1_000);
        return 0;
    }
    // SAFETY: forwarding.
    unsafe { crate::real!(c"usleep", unsafe extern "C" fn(libc::useconds_t) -> c_int)(us) }
}

/// Interposed `nanosleep`.
///
/// # Safety
/// As the C function.
#[no_mangle]
pub unsafe extern "C" fn nanosleep(req: *const timespec, rem: *mut timespec) -> c_int {
    if point(OpKind::Sleep, 0) {
        if !req.is_null() {
            // SAFETY: the caller passes a readable timespec.
            let (s, ns) = unsafe { ((*req).tv_sec, (*req).tv_nsec) };
            super::time::advance((s.max(0) as u64) * 1_000_000_000 + ns.max(0) as u64);
        }
        return 0;
    }
    // SAFETY: forwarding.
    unsafe {
        crate::real!(
            c"nanosleep",
            unsafe extern "C" fn(*const timespec, *mut timespec) -> c_int
        )(req, rem)
    }
}

/// Interposed `clock_nanosleep`.
///
/// # Safety
/// As the C function.
#[no_mangle]
pub unsafe extern "C" fn clock_nanosleep(
    clock: libc::clockid_t,
    flags: c_int,
    req: *const timespec,
    rem: *mut timespec,
) -> c_int {
    if point(OpKind::Sleep, 0) {
        return 0;
    }
    // SAFETY: forwarding.
    unsafe {
        crate::real!(
            c"clock_nanosleep",
            unsafe extern "C" fn(libc::clockid_t, c_int, *const timespec, *mut timespec) -> c_int
        )(clock, flags, req, rem)
    }
}

/// Interposed `fork`: not a scheduling point; the child process is not
/// controlled (it never writes the trace) and behaves normally.
///
/// # Safety
/// As the C function.
#[no_mangle]
pub unsafe extern "C" fn fork() -> libc::pid_t {
    crate::persist::taint(crate::persist::Cause::Processes);
    // SAFETY: forwarding.
    let pid = unsafe { crate::real!(c"fork", unsafe extern "C" fn() -> libc::pid_t)() };
    if pid == 0 {
        crate::persist::forget_in_child();
        MODE.store(MODE_ENDED, Ordering::SeqCst);
        set_me(crate::state::NONE);
    }
    pid
}

/// Interposed `vfork`: runs as `fork` (a child that only execs or exits
/// cannot tell), which marks the execution.
///
/// # Safety
/// As the C function.
#[no_mangle]
pub unsafe extern "C" fn vfork() -> libc::pid_t {
    // SAFETY: as the C function.
    unsafe { fork() }
}

const FUTEX_WAIT: c_long = 0;
const FUTEX_WAKE: c_long = 1;
const FUTEX_WAIT_BITSET: c_long = 9;
const FUTEX_WAKE_BITSET: c_long = 10;
const FUTEX_CMD_MASK: c_long = !(128 | 256);

/// Threads waiting (not yet woken) on futex word `a`, in FIFO order.
fn futex_waiters(st: &State, a: u64) -> impl Iterator<Item = u32> + '_ {
    (0..st.thread_count).filter(move |t| {
        let th = &st.threads[*t as usize];
        th.waiting
            && !th.signalled
            && th.pending.op.kind == OpKind::FutexWait
            && th.pending.op.object == a
    })
}

/// `FUTEX_WAIT`: a `FutexWait` event that compares the word (mismatch:
/// `FAILED`, `EAGAIN`), then a second `FutexWait` event enabled once a
/// `FUTEX_WAKE` woke the thread (or at any time with a timeout: `TIMED_OUT`).
fn futex_wait(me: u32, a: u64, val: u32, timed: bool) -> c_long {
    let site = take_call_site();
    let flags = if timed { EventFlags::TIMED } else { 0 };
    let op = mk(OpKind::FutexWait, flags, a, u64::from(val));
    let waits = run_op(me, op, site, |st, me, op| {
        // SAFETY: the program passed `a` as a futex word.
        let cur = unsafe { (a as *const u32).read_volatile() };
        if cur != val {
            op.flags.0 |= EventFlags::FAILED;
            return false;
        }
        let ticket = st.next_ticket;
        st.next_ticket += 1;
        let th = &mut st.threads[me as usize];
        th.waiting = true;
        th.signalled = false;
        th.ticket = ticket;
        true
    });
    if !waits {
        set_errno(libc::EAGAIN);
        return -1;
    }
    let resume = Op {
        flags: EventFlags(op.flags.0 | EventFlags::RESUMES),
        ..op
    };
    let woken = run_op(me, resume, site, |st, me, op| {
        let th = &mut st.threads[me as usize];
        let woken = th.signalled;
        th.waiting = false;
        th.signalled = false;
        if !woken {
            op.flags.0 |= EventFlags::TIMED_OUT;
        }
        woken
    });
    if woken {
        0
    } else {
        set_errno(libc::ETIMEDOUT);
        -1
    }
}

/// `FUTEX_WAKE`: wakes up to `n` waiters in FIFO order; returns how many.
fn futex_wake(me: u32, a: u64, n: u32) -> c_long {
    let site = take_call_site();
    run_op(
        me,
        mk(OpKind::FutexWake, 0, a, u64::from(n)),
        site,
        |st, _, _| {
            let mut woken = 0;
            while woken < n {
                let Some(t) = futex_waiters(st, a).min_by_key(|t| st.threads[*t as usize].ticket)
                else {
                    break;
                };
                st.threads[t as usize].signalled = true;
                woken += 1;
            }
            c_long::from(woken)
        },
    )
}

/// Interposed `syscall` (variadic in C; on x86_64 SysV reading six integer
/// arguments is valid whatever the caller passed).
///
/// # Safety
/// As the C function.
#[no_mangle]
pub unsafe extern "C" fn syscall(
    n: c_long,
    a1: c_long,
    a2: c_long,
    a3: c_long,
    a4: c_long,
    a5: c_long,
    a6: c_long,
) -> c_long {
    // A context's own kernel-thread state (see `uthread_own`).
    match (n, crate::uthread::current()) {
        (libc::SYS_gettid, Some(id)) if id != 0 => return c_long::from(crate::api::own::tid(id)),
        (libc::SYS_rt_sigprocmask, Some(_)) => {
            if let Some(r) = crate::api::own::rt_sigprocmask(a1, a2, a3, a4) {
                return r;
            }
        }
        (libc::SYS_sigaltstack, Some(id)) if id != 0 => {
            // SAFETY: the caller's stack_t pointers, as the kernel takes them.
            let e = unsafe { crate::api::own::alt_stack(id, a1 as *const _, a2 as *mut _) };
            if e != 0 {
                // SAFETY: the calling thread's errno.
                unsafe { *libc::__errno_location() = e };
                return -1;
            }
            return 0;
        }
        (libc::SYS_tgkill | libc::SYS_tkill, _) => {
            crate::uthread::needs_kernel_thread(crate::uthread::Cause::Signals)
        }
        _ => {}
    }
    crate::sources::system_call(n, a1);
    if n == libc::SYS_futex {
        if let Some(me) = me() {
            let addr = a1 as u64;
            match a2 & FUTEX_CMD_MASK {
                FUTEX_WAIT | FUTEX_WAIT_BITSET => {
                    let timed = a4 != 0;
                    return futex_wait(me, addr, a3 as u32, timed);
                }
                FUTEX_WAKE | FUTEX_WAKE_BITSET => return futex_wake(me, addr, a3 as u32),
                cmd => {
                    // SAFETY: the running thread.
                    let st = unsafe { crate::state::state() };
                    fail!(
                        st,
                        RunStatus::Unsupported,
                        take_call_site(),
                        "thread {me} uses futex operation {cmd}, which is not supported"
                    );
                }
            }
        }
    }
    // SAFETY: forwarding the caller's system call.
    let r = unsafe { raw_syscall(n, [a1, a2, a3, a4, a5, a6]) };
    if (-4095..0).contains(&r) {
        set_errno(-r as i32);
        return -1;
    }
    r
}
