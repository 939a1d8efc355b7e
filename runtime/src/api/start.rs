//! Program start and end: `__libc_start_main` (to control return from
//! `main`), `exit`, `_exit` and `_Exit`.
//!
//! The end of the process is a `ProcessExit` scheduling point; once executed
//! the status is `Exited` with the exit code and the runtime stops
//! controlling. By default the exit waits until no other thread can run
//! (finished, blocked, or spinning without progress), so threads are never
//! cut short, and it comes after the `atexit` handlers and static
//! destructors, which run as ordinary steps of the exiting thread
//! interleaved with the threads still running: returning from `main` and
//! `exit` let the C library run them, and a handler the runtime registered
//! before the program's constructors (so it runs last) takes the exit step.
//! `_exit` and `_Exit` run no handlers and take it at once. With
//! `REQ_EXIT_CUTS_THREADS` the exit is taken where the thread reaches it,
//! before the handlers (which then run uncontrolled), and may cut other
//! threads short.

use super::mk;
use crate::real;
use crate::sched::run_op;
use crate::state::{me, take_call_site, MODE, MODE_ENDED};
use core::ffi::{c_char, c_int, c_void};
use core::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use reach_channel::{EventFlags, OpKind, RunStatus};

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

/// Ends the execution normally with `code` (a `ProcessExit` event): once
/// no other thread can run, or at once if exits cut threads short.
pub fn process_exit(code: c_int) {
    let Some(me) = me() else { return };
    let site = take_call_site();
    // SAFETY: the calling thread is the one running; it owns the state.
    let st = unsafe { crate::state::state() };
    let flags = if st.exit_cuts_threads {
        EventFlags::CUTS_THREADS
    } else {
        0
    };
    st.exit_waiting_since = st.exit_waiting_since.min(st.event_count);
    let op = mk(OpKind::ProcessExit, flags, code as u32 as u64, 0);
    run_op(me, op, site, |st, _, _| {
        crate::sched::publish_counts(st);
        st.chan.set_exit_code(code);
        st.chan.set_thread_count(st.thread_count);
        st.chan.set_status(RunStatus::Exited);
        MODE.store(MODE_ENDED, Ordering::SeqCst);
    });
}

/// True if the exit is taken where a thread reaches it, before the exit
/// handlers (`REQ_EXIT_CUTS_THREADS`).
fn exit_cuts_threads() -> bool {
    // SAFETY: read of a field set before the execution started.
    me().is_some() && unsafe { crate::state::state() }.exit_cuts_threads
}

/// Runs last among the exit handlers: takes the exit step after the
/// program's handlers and static destructors.
extern "C" fn exit_handler(status: c_int, _arg: *mut c_void) {
    exit_site_from_start_code();
    process_exit(status);
    // A persistent worker's execution is over here (the process would only
    // flush stdio and end): flush, restore the memory and run the next one.
    if crate::persist::is_worker() && MODE.load(Ordering::SeqCst) == MODE_ENDED {
        // SAFETY: flushing every stdio stream, as the C library's exit does next.
        unsafe { libc::fflush(core::ptr::null_mut()) };
        crate::persist::end_execution((status & 0xff) << 8);
    }
}

/// Registers [`exit_handler`]; called before the program's constructors,
/// so that every handler they register runs before it.
pub fn register_exit_handler() {
    // SAFETY: registering a handler with the C library's `on_exit`.
    unsafe {
        on_exit(exit_handler, core::ptr::null_mut());
    }
}

extern "C" {
    fn on_exit(function: extern "C" fn(c_int, *mut c_void), arg: *mut c_void) -> c_int;
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
    crate::caller::note_start_code_return_address();
    crate::forkserver::serve_if_requested();
    // SAFETY: calling the program's main with the arguments it expects.
    let code = unsafe { main(argc, argv, envp) };
    MAIN_RETURNED.store(true, Ordering::Relaxed);
    if exit_cuts_threads() {
        exit_site_from_start_code();
        process_exit(code);
    }
    code
}

/// `main` returned on the main thread: the C library's start code calls
/// `exit` next.
static MAIN_RETURNED: AtomicBool = AtomicBool::new(false);

/// On the main thread after `main` returned, where the process exit was
/// called from is the start code's return address into the program, found
/// once before `main` ([`crate::caller::note_start_code_return_address`]):
/// the exit takes it instead of unwinding the same frames again.
fn exit_site_from_start_code() {
    if MAIN_RETURNED.load(Ordering::Relaxed) && me() == Some(0) {
        if let Some(site) = crate::caller::start_code_return_address() {
            crate::state::default_call_site(site);
        }
    }
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
    if exit_cuts_threads() {
        process_exit(code);
    }
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
