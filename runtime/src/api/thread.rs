//! Threads: `pthread_create` (through a trampoline that names the new thread
//! by creation order), `pthread_join`, `pthread_detach`, and thread exit.
//!
//! Thread exit (return from the start routine or `pthread_exit`, after the
//! cleanup handlers ran) is observed through a thread-specific key of the
//! runtime created first, whose destructor runs the program's key destructors
//! while the thread is still controlled and then retires the thread. The
//! program's keys are the C library's own; the runtime only remembers their
//! destructors.

use super::mk;
use crate::fail;
use crate::real;
use crate::sched::{run_op, thread_finished, wait_for_child};
use crate::state::{me, set_me, state, take_call_site, State, TState, Thread, MAX_KEYS};
use core::ffi::{c_int, c_void};
use libc::{pthread_attr_t, pthread_key_t, pthread_t};
use reach_channel::{EventFlags, OpKind, RunStatus, ThreadState, MAX_THREADS};

type StartFn = extern "C" fn(*mut c_void) -> *mut c_void;
type CreateFn =
    unsafe extern "C" fn(*mut pthread_t, *const pthread_attr_t, StartFn, *mut c_void) -> c_int;
type GetSpecific = unsafe extern "C" fn(pthread_key_t) -> *mut c_void;
type SetSpecific = unsafe extern "C" fn(pthread_key_t, *const c_void) -> c_int;
type Dtor = unsafe extern "C" fn(*mut c_void);

/// Marks the calling thread for exit notification (value of the exit key).
pub fn arm_exit_key(st: &State) {
    let set = real!(c"pthread_setspecific", SetSpecific);
    // SAFETY: the exit key was created at initialisation.
    unsafe { set(st.exit_key, core::ptr::dangling::<c_void>()) };
}

/// Creates the runtime's exit key (at initialisation).
pub fn create_exit_key(st: &mut State) -> bool {
    let create = real!(
        c"pthread_key_create",
        unsafe extern "C" fn(*mut pthread_key_t, Option<Dtor>) -> c_int
    );
    // SAFETY: valid out pointer and destructor.
    unsafe { create(&mut st.exit_key, Some(on_thread_exit)) == 0 }
}

/// Runs the program's key destructors for the calling thread (up to the
/// POSIX number of rounds), while it is still controlled.
pub fn run_key_destructors() {
    let get = real!(c"pthread_getspecific", GetSpecific);
    let set = real!(c"pthread_setspecific", SetSpecific);
    // POSIX: PTHREAD_DESTRUCTOR_ITERATIONS rounds.
    for _round in 0..4 {
        let mut any = false;
        // SAFETY: the calling thread holds the right to run.
        let limit = unsafe { state() }.key_dtor_limit.min(MAX_KEYS);
        for k in 0..limit {
            // SAFETY: the calling thread holds the right to run; the
            // reference is dropped before the destructor runs.
            let d = unsafe { state() }.key_dtors[k];
            if d == 0 {
                continue;
            }
            // SAFETY: `k` is a live key of the program with a destructor.
            let v = unsafe { get(k as pthread_key_t) };
            if v.is_null() {
                continue;
            }
            any = true;
            // SAFETY: as the C library does: clear, then call the destructor.
            unsafe {
                set(k as pthread_key_t, core::ptr::null());
                let f: Dtor = core::mem::transmute::<usize, Dtor>(d);
                f(v);
            }
        }
        if !any {
            break;
        }
    }
}

unsafe extern "C" fn on_thread_exit(_value: *mut c_void) {
    if me().is_none() {
        return;
    }
    run_key_destructors();
    // Destructors may have ended the execution: check again.
    if let Some(me) = me() {
        thread_finished(me);
    }
}

extern "C" fn trampoline(arg: *mut c_void) -> *mut c_void {
    let id = arg as usize as u32;
    // SAFETY: the creator waits until this thread parks: it holds the right to run.
    let st = unsafe { state() };
    let th = &mut st.threads[id as usize % MAX_THREADS];
    // SAFETY: plain query.
    th.handle = unsafe { libc::pthread_self() };
    let tid = crate::sys::gettid();
    if crate::persist::is_worker() {
        th.tid = tid;
    }
    st.chan.slot(id).tid = tid as u32;
    let (start, arg) = (th.start, th.arg);
    crate::current::set_library_call(th.spawned_in);
    // Blame the new thread if it never reaches a scheduling point.
    st.running = id;
    st.chan.set_running(id);
    set_me(id);
    arm_exit_key(st);
    // SAFETY: `start` is the start routine the program passed to pthread_create.
    let f: StartFn = unsafe { core::mem::transmute::<usize, StartFn>(start) };
    f(arg as *mut c_void)
}

/// The start of context `id` (user-level threads), on its own stack and
/// thread pointer: what [`trampoline`] does, then the start routine. Its
/// return value.
pub fn context_start(id: u32) -> usize {
    // SAFETY: the creator switched to this context: it holds the right to run.
    let st = unsafe { state() };
    let th = &mut st.threads[id as usize % MAX_THREADS];
    // SAFETY: plain query (the context's own descriptor).
    th.handle = unsafe { libc::pthread_self() };
    let (start, arg) = (th.start, th.arg);
    crate::current::set_library_call(th.spawned_in);
    // The id the context's `gettid` gives (a Rust panic message names it).
    st.chan.slot(id).tid = crate::api::own::tid(id) as u32;
    st.running = id;
    st.chan.set_running(id);
    set_me(id);
    // SAFETY: `start` is the start routine the program passed to pthread_create.
    let f: StartFn = unsafe { core::mem::transmute::<usize, StartFn>(start) };
    f(arg as *mut c_void) as usize
}

/// Context `id` returned `value` from its start routine: runs what the C
/// library runs at thread exit (C++ `thread_local` destructors through
/// `call_tls_dtors` if not 0, then the key destructors) and leaves the
/// schedule, never to run again. Returns only if the execution ended
/// meanwhile.
pub fn context_exit(id: u32, value: usize, call_tls_dtors: usize) {
    if me() != Some(id) {
        return;
    }
    // SAFETY: the running thread.
    unsafe { state() }.threads[id as usize % MAX_THREADS].retval = value;
    if call_tls_dtors != 0 {
        // SAFETY: `__call_tls_dtors(void)`, as `start_thread` calls it.
        unsafe {
            let f: unsafe extern "C" fn() = core::mem::transmute(call_tls_dtors);
            f();
        }
    }
    run_key_destructors();
    if let Some(me) = me() {
        thread_finished(me);
    }
}

/// What a context cannot honour in `attr`: its own stack, a stack larger
/// than a context's, a detached thread.
fn attr_needs_kernel_thread(attr: *const pthread_attr_t) -> bool {
    if attr.is_null() {
        return false;
    }
    let mut detach: c_int = 0;
    let mut size: usize = 0;
    let mut addr: *mut c_void = core::ptr::null_mut();
    // SAFETY: queries of the program's initialised attribute object
    // (`pthread_attr_getstackaddr` gives the address as set, null if none).
    unsafe {
        pthread_attr_getdetachstate(attr, &mut detach);
        libc::pthread_attr_getstacksize(attr, &mut size);
        pthread_attr_getstackaddr(attr, &mut addr);
    }
    // Like the C library's, a slot's size includes the TLS block.
    detach != libc::PTHREAD_CREATE_JOINABLE || !addr.is_null() || size > crate::uthread::SLOT_BYTES
}

extern "C" {
    fn pthread_attr_getdetachstate(attr: *const pthread_attr_t, state: *mut c_int) -> c_int;
    fn pthread_attr_getstackaddr(attr: *const pthread_attr_t, addr: *mut *mut c_void) -> c_int;
}

/// Interposed `pthread_create`.
///
/// # Safety
/// As the C function.
#[no_mangle]
pub unsafe extern "C" fn pthread_create(
    out: *mut pthread_t,
    attr: *const pthread_attr_t,
    start: StartFn,
    arg: *mut c_void,
) -> c_int {
    let real = real!(c"pthread_create", CreateFn);
    let Some(me) = me() else {
        // SAFETY: forwarding.
        return unsafe { real(out, attr, start, arg) };
    };
    if crate::uthread::on() && attr_needs_kernel_thread(attr) {
        crate::uthread::needs_kernel_thread(crate::uthread::Cause::Attributes);
    }
    let site = take_call_site();
    let mut handle: pthread_t = 0;
    let rc = run_op(me, mk(OpKind::ThreadCreate, 0, 0, 0), site, |st, me, op| {
        let id = st.thread_count;
        if id as usize >= MAX_THREADS {
            fail!(
                st,
                RunStatus::Unsupported,
                site,
                "thread {me} creates more than {MAX_THREADS} threads, the most one execution supports"
            );
        }
        st.threads[id as usize] = Thread::EMPTY;
        let th = &mut st.threads[id as usize];
        th.state = TState::Starting;
        th.parent = me;
        th.start = start as usize;
        th.arg = arg as usize;
        th.spawned_in = crate::current::library_call();
        let slot = st.chan.slot(id);
        *slot = reach_channel::ThreadSlot {
            state: ThreadState::Running as u32,
            enabled: 0,
            pending_kind: 0,
            pending_flags: 0,
            parent: me,
            tid: 0,
            pending_site: 0,
            pending_caller: 0,
            pending_object: 0,
            pending_aux: 0,
            last_site: 0,
            steps: 0,
            spin_count: 0,
        };
        st.thread_count += 1;
        st.live_threads += 1;
        st.chan.set_thread_count(st.thread_count);
        if crate::uthread::on() {
            return match crate::uthread::spawn(id) {
                Ok(pd) => {
                    handle = pd as pthread_t;
                    // The child runs until its first scheduling point.
                    crate::uthread::switch(me, id);
                    0
                }
                Err(cause) => crate::uthread::abandon(cause),
            };
        }
        // SAFETY: valid out pointer; the trampoline finds its id in `arg`.
        let rc = unsafe { real(&mut handle, attr, trampoline, id as usize as *mut c_void) };
        if rc != 0 {
            st.threads[id as usize].state = TState::Finished;
            st.live_threads -= 1;
            st.chan.slot(id).state = ThreadState::Finished as u32;
            op.flags.0 |= EventFlags::FAILED;
            return rc;
        }
        // The child runs now; do not touch the state until it parks.
        wait_for_child(me);
        0
    });
    if rc == 0 && !out.is_null() {
        // SAFETY: the program's out pointer.
        unsafe { *out = handle };
    }
    rc
}

/// Id of the most recent thread with handle `h` (`u64::MAX` if none).
fn find_thread(st: &State, h: pthread_t) -> u64 {
    (0..st.thread_count)
        .rev()
        .find(|t| st.threads[*t as usize].handle == h)
        .map_or(u64::MAX, u64::from)
}

/// Interposed `pthread_join`: enabled once the target finished.
///
/// # Safety
/// As the C function.
#[no_mangle]
pub unsafe extern "C" fn pthread_join(h: pthread_t, ret: *mut *mut c_void) -> c_int {
    let real = real!(
        c"pthread_join",
        unsafe extern "C" fn(pthread_t, *mut *mut c_void) -> c_int
    );
    let Some(me) = me() else {
        // SAFETY: forwarding.
        return unsafe { real(h, ret) };
    };
    let site = take_call_site();
    // SAFETY: the calling thread holds the right to run.
    let target = find_thread(unsafe { state() }, h);
    run_op(
        me,
        mk(OpKind::ThreadJoin, 0, target, 0),
        site,
        |st, me, _| {
            if target == u64::MAX {
                fail!(
                    st,
                    RunStatus::Misuse,
                    site,
                    "thread {me} joins a thread that does not exist"
                );
            }
            let t = target as u32;
            if t == me {
                fail!(st, RunStatus::Misuse, site, "thread {me} joins itself");
            }
            let th = &mut st.threads[t as usize];
            if th.detached {
                fail!(
                    st,
                    RunStatus::Misuse,
                    site,
                    "thread {me} joins detached thread {t}"
                );
            }
            if th.joined {
                fail!(
                    st,
                    RunStatus::Misuse,
                    site,
                    "thread {me} joins thread {t}, which was already joined"
                );
            }
            th.joined = true;
            if crate::uthread::on() {
                if !ret.is_null() {
                    // SAFETY: the program's out pointer.
                    unsafe { *ret = th.retval as *mut c_void };
                }
                return 0;
            }
            let handle = th.handle;
            // SAFETY: the target finished; this reaps it and fetches its value.
            unsafe { real(handle, ret) }
        },
    )
}

/// Interposed `pthread_detach`.
///
/// # Safety
/// As the C function.
#[no_mangle]
pub unsafe extern "C" fn pthread_detach(h: pthread_t) -> c_int {
    let real = real!(c"pthread_detach", unsafe extern "C" fn(pthread_t) -> c_int);
    let Some(me) = me() else {
        // SAFETY: forwarding.
        return unsafe { real(h) };
    };
    let site = take_call_site();
    // SAFETY: the calling thread holds the right to run.
    let target = find_thread(unsafe { state() }, h);
    run_op(
        me,
        mk(OpKind::ThreadDetach, 0, target, 0),
        site,
        |st, _, op| {
            if target == u64::MAX {
                op.flags.0 |= EventFlags::FAILED;
                return libc::ESRCH;
            }
            let th = &mut st.threads[target as usize];
            if th.detached || th.joined {
                op.flags.0 |= EventFlags::FAILED;
                return libc::EINVAL;
            }
            th.detached = true;
            if crate::uthread::on() {
                return 0;
            }
            let handle = th.handle;
            // SAFETY: a live or finished, not joined thread.
            unsafe { real(handle) }
        },
    )
}

/// Interposed `pthread_key_create`: the key is the C library's; its
/// destructor is remembered so it runs while the thread is controlled.
///
/// # Safety
/// As the C function.
#[no_mangle]
pub unsafe extern "C" fn pthread_key_create(key: *mut pthread_key_t, dtor: Option<Dtor>) -> c_int {
    let real = real!(
        c"pthread_key_create",
        unsafe extern "C" fn(*mut pthread_key_t, Option<Dtor>) -> c_int
    );
    // SAFETY: forwarding.
    let rc = unsafe { real(key, dtor) };
    if rc == 0 && me().is_some() {
        // SAFETY: the key was just written; the caller holds the right to run.
        let k = unsafe { *key } as usize;
        if k < MAX_KEYS {
            let st = unsafe { state() };
            st.key_dtors[k] = dtor.map_or(0, |f| f as usize);
            if dtor.is_some() {
                st.key_dtor_limit = st.key_dtor_limit.max(k + 1);
            }
        }
        crate::spin::caller_progressed();
    }
    rc
}

/// Interposed `pthread_key_delete`.
///
/// # Safety
/// As the C function.
#[no_mangle]
pub unsafe extern "C" fn pthread_key_delete(key: pthread_key_t) -> c_int {
    let real = real!(
        c"pthread_key_delete",
        unsafe extern "C" fn(pthread_key_t) -> c_int
    );
    if me().is_some() && (key as usize) < MAX_KEYS {
        // SAFETY: the caller holds the right to run.
        unsafe { state() }.key_dtors[key as usize] = 0;
    }
    crate::spin::caller_progressed();
    // SAFETY: forwarding.
    unsafe { real(key) }
}
