//! Program start and end: `__libc_start_main` (to control return from
//! `main`), `exit`, `_exit` and `_Exit`.
//!
//! Returning from `main` or calling one of the exit functions is a
//! `ProcessExit` scheduling point; once executed the status is `Exited` with
//! the exit code and the runtime stops controlling (atexit handlers run with
//! the status already `Exited`).

use super::mk;
use crate::real;
use crate::sched::run_op;
use crate::state::{me, take_call_site, MODE, MODE_ENDED};
use core::ffi::{c_char, c_int, c_void};
use core::sync::atomic::{AtomicI32, AtomicUsize, Ordering};
use reach_channel::{OpKind, RunStatus};

type MainFn = unsafe extern "C" fn(c_int, *mut *mut c_char, *mut *mut c_char) -> c_int;
type StartMainFn = unsafe extern "C" fn(
    MainFn,
    c_int,
    *mut *mut c_char,
    usize,
    usize,
    usize,
    *mut c_void,
) -> c_int;

static REAL_MAIN: AtomicUsize = AtomicUsize::new(0);
/// Exit code of the execution's `exit` (for a persistent worker).
static EXIT_CODE: AtomicI32 = AtomicI32::new(0);

/// Registered by the runtime's constructor, before the C library registers
/// the dynamic linker's destructor runner and before any constructor of the
/// program: the last exit handler. In a persistent worker the execution is
/// then over (the process would only flush stdio and end): flush and
/// restore instead.
pub extern "C" fn last_exit_handler() {
    if crate::persist::is_worker() && MODE.load(Ordering::SeqCst) == MODE_ENDED {
        // SAFETY: flushing every stdio stream, as the C library's exit does next.
        unsafe { libc::fflush(core::ptr::null_mut()) };
        crate::persist::end_execution((EXIT_CODE.load(Ordering::Relaxed) & 0xff) << 8);
    }
}

/// Ends the execution normally with `code` (a `ProcessExit` event).
pub fn process_exit(code: c_int) {
    let Some(me) = me() else { return };
    let site = take_call_site();
    run_op(
        me,
        mk(OpKind::ProcessExit, 0, code as u32 as u64, 0),
        site,
        |st, _, _| {
            crate::sched::publish_counts(st);
            st.chan.set_exit_code(code);
            st.chan.set_thread_count(st.thread_count);
            st.chan.set_status(RunStatus::Exited);
            MODE.store(MODE_ENDED, Ordering::SeqCst);
        },
    );
}

unsafe extern "C" fn main_wrapper(
    argc: c_int,
    argv: *mut *mut c_char,
    envp: *mut *mut c_char,
) -> c_int {
    let addr = REAL_MAIN.load(Ordering::Relaxed);
    // SAFETY: stored from the `main` pointer the C start code passed us.
    let main: MainFn = unsafe { core::mem::transmute::<usize, MainFn>(addr) };
    // Before the fork server (children inherit the CPUs they may use).
    crate::sched::adapt_waiting_to_cpus();
    // With a fork server this returns only in a child, once per execution.
    crate::forkserver::serve_if_requested();
    // SAFETY: calling the program's main with the arguments it expects.
    let code = unsafe { main(argc, argv, envp) };
    process_exit(code);
    code
}

/// Interposed C start routine: runs `main` through a wrapper that reports
/// its return.
///
/// # Safety
/// Called by the program's start code with the C library's arguments.
#[no_mangle]
pub unsafe extern "C" fn __libc_start_main(
    main: MainFn,
    argc: c_int,
    argv: *mut *mut c_char,
    init: usize,
    fini: usize,
    rtld_fini: usize,
    stack_end: *mut c_void,
) -> c_int {
    let real = real!(c"__libc_start_main", StartMainFn);
    if me().is_none() {
        // SAFETY: forwarding the original arguments.
        return unsafe { real(main, argc, argv, init, fini, rtld_fini, stack_end) };
    }
    REAL_MAIN.store(main as usize, Ordering::Relaxed);
    // SAFETY: forwarding with our wrapper, which has main's signature.
    unsafe { real(main_wrapper, argc, argv, init, fini, rtld_fini, stack_end) }
}

/// Interposed `exit`.
///
/// # Safety
/// As the C function.
#[no_mangle]
pub unsafe extern "C" fn exit(code: c_int) -> ! {
    process_exit(code);
    EXIT_CODE.store(code, Ordering::Relaxed);
    // SAFETY: forwarding.
    unsafe { real!(c"exit", unsafe extern "C" fn(c_int) -> !)(code) }
}

/// Interposed `_exit`.
///
/// # Safety
/// As the C function.
#[no_mangle]
pub unsafe extern "C" fn _exit(code: c_int) -> ! {
    process_exit(code);
    if MODE.load(Ordering::SeqCst) == MODE_ENDED {
        crate::persist::end_execution((code & 0xff) << 8);
    }
    // SAFETY: forwarding.
    unsafe { real!(c"_exit", unsafe extern "C" fn(c_int) -> !)(code) }
}

/// Interposed `_Exit`.
///
/// # Safety
/// As the C function.
#[no_mangle]
pub unsafe extern "C" fn _Exit(code: c_int) -> ! {
    process_exit(code);
    if MODE.load(Ordering::SeqCst) == MODE_ENDED {
        crate::persist::end_execution((code & 0xff) << 8);
    }
    // SAFETY: forwarding.
    unsafe { real!(c"_Exit", unsafe extern "C" fn(c_int) -> !)(code) }
}
