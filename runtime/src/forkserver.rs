//! The fork server: at entry to `main`, before any program thread exists,
//! the process stops being an execution and becomes a server that forks one
//! child per request of the driver; each child re-reads the request from the
//! channel and runs `main` as one execution.
//!
//! Requests and answers travel over two pipes (see `reach_channel::fork`).
//! The server is single-threaded and, once warmed up, allocates nothing; it
//! calls only system calls and the C library's `_Fork` (which, unlike `fork`,
//! runs no `pthread_atfork` handlers of the program).
//!
//! What each child inherits from the server, hence shares with every other
//! execution: everything static constructors did (memory, open files and
//! their offsets, signal dispositions, unflushed stdio buffers, the events
//! they recorded); files the program writes are not reset.

use crate::fail;
use crate::state::state;
use crate::sys;
use core::sync::atomic::{AtomicI32, Ordering};
use reach_channel::fork::{
    encode, parse_env, MSG_DONE, MSG_FORK_FAILED, MSG_LONG_START, MSG_READY, MSG_REFUSED,
};
use reach_channel::layout::REQ_PERSISTENT;
use reach_channel::RunStatus;

static REQUEST_FD: AtomicI32 = AtomicI32::new(-1);
static RESPONSE_FD: AtomicI32 = AtomicI32::new(-1);

/// Records the control fds from the `REACH_FORK_SERVER` value (at
/// initialisation); without a valid value the process runs one execution.
pub fn configure(value: Option<&[u8]>) {
    if let Some((req, resp)) = value.and_then(parse_env) {
        // SAFETY: plain fcntl on fds the driver passed; the server's children
        // and anything they exec must not keep them.
        unsafe {
            libc::fcntl(req, libc::F_SETFD, libc::FD_CLOEXEC);
            libc::fcntl(resp, libc::F_SETFD, libc::FD_CLOEXEC);
        }
        REQUEST_FD.store(req, Ordering::Relaxed);
        RESPONSE_FD.store(resp, Ordering::Relaxed);
    }
}

fn errno() -> i32 {
    // SAFETY: the calling thread's errno slot.
    unsafe { *libc::__errno_location() }
}

/// Sends one message to the driver; the server exits if the driver is gone.
fn send(fd: i32, tag: u32, value: i64) {
    let m = encode(tag, value);
    loop {
        // SAFETY: writing a local buffer; messages fit PIPE_BUF (atomic).
        let n = unsafe { libc::write(fd, m.as_ptr().cast(), m.len()) };
        if n == m.len() as isize {
            return;
        }
        if n < 0 && errno() == libc::EINTR {
            continue;
        }
        sys::exit_group(0);
    }
}

/// Blocks until the driver asks for one more execution; exits the server at
/// end of file (the driver closed the pipe or died).
fn next_request(fd: i32) {
    let mut b = 0u8;
    loop {
        // SAFETY: reading one byte into a local.
        let n = unsafe { libc::read(fd, (&mut b as *mut u8).cast(), 1) };
        if n == 1 {
            return;
        }
        if n < 0 && errno() == libc::EINTR {
            continue;
        }
        sys::exit_group(0);
    }
}

type ForkFn = unsafe extern "C" fn() -> libc::pid_t;

/// `_Fork` of the C library (no atfork handlers), or `fork` if it has none.
fn raw_fork() -> libc::pid_t {
    static FORK: crate::real::RealFn = crate::real::RealFn::new(c"_Fork");
    match FORK.lookup() {
        // SAFETY: `_Fork` has the prototype `pid_t _Fork(void)`.
        Some(p) => unsafe { core::mem::transmute::<usize, ForkFn>(p)() },
        // SAFETY: as the C function.
        None => unsafe { crate::real!(c"fork", ForkFn)() },
    }
}

/// Waits for `pid` to end, kills whatever is left of its process group,
/// reaps it and returns its wait status.
fn reap(pid: libc::pid_t) -> i32 {
    // SAFETY: waiting for our own child without reaping it, so that its pid
    // (the group id) cannot be reused before the group is killed.
    unsafe {
        let mut info: libc::siginfo_t = core::mem::zeroed();
        while libc::waitid(
            libc::P_PID,
            pid as libc::id_t,
            &mut info,
            libc::WEXITED | libc::WNOWAIT,
        ) != 0
            && errno() == libc::EINTR
        {}
        libc::kill(-pid, libc::SIGKILL);
        let mut status = 0;
        loop {
            let r = libc::waitpid(pid, &mut status, 0);
            if r == pid {
                return status;
            }
            if r < 0 && errno() != libc::EINTR {
                // Lost the child (SIGCHLD ignored by the program?): report a kill.
                return libc::SIGKILL;
            }
        }
    }
}

/// Does once, in the server, what every execution would otherwise do for
/// the first time, again and again: look up the C library's functions the
/// runtime forwards to, and initialise the allocator (the first `malloc`
/// seeds it with a system call for random bytes and grows the heap twice).
/// Symbols are bound at start-up already (see `reach_channel::env::BIND_NOW`).
fn warm_up() {
    crate::real::resolve_all();
    // SAFETY: one allocation, freed at once; the program's first block of
    // that size gets the same address as without it.
    // (`black_box`: the pair must not be optimised away.)
    unsafe { libc::free(core::hint::black_box(libc::malloc(1))) };
}

/// The disposition the server gives itself (so each child that has the
/// program's own disposition back needs no system call for it).
fn is_default(action: &libc::sigaction) -> bool {
    // The flag the C library adds to every action it sets (x86_64).
    const SA_RESTORER: libc::c_int = 0x0400_0000;
    // SAFETY: `sigset_t` is plain bytes.
    let mask: &[u8] = unsafe {
        core::slice::from_raw_parts(
            (&action.sa_mask as *const libc::sigset_t).cast(),
            core::mem::size_of::<libc::sigset_t>(),
        )
    };
    action.sa_sigaction == libc::SIG_DFL
        && action.sa_flags & !SA_RESTORER == 0
        && mask.iter().all(|b| *b == 0)
}

/// Called at entry to `main`. Without a fork server configured it returns at
/// once. Otherwise the process becomes the server: this function returns
/// only in a forked child, ready to run `main` as one execution.
pub fn serve_if_requested() {
    let req = REQUEST_FD.load(Ordering::Relaxed);
    let resp = RESPONSE_FD.load(Ordering::Relaxed);
    if req < 0 || resp < 0 {
        return;
    }
    // SAFETY: at entry to main only the main thread runs (checked below).
    let st = unsafe { state() };
    if st.thread_count != 1 {
        // Threads of static constructors do not survive a fork.
        send(resp, MSG_REFUSED, i64::from(st.thread_count));
        sys::exit_group(0);
    }
    if st.cut {
        // Every child would start past the recording bound, with the
        // server's cut region: run each execution by exec instead.
        send(resp, MSG_LONG_START, st.event_count as i64);
        sys::exit_group(0);
    }
    let pre_main = st.event_count;
    // The server must see its children end whatever the program did to
    // SIGCHLD; each child gets the program's disposition back.
    // SAFETY: sigaction with valid local structs.
    let mut saved: libc::sigaction = unsafe { core::mem::zeroed() };
    unsafe {
        let mut dfl: libc::sigaction = core::mem::zeroed();
        dfl.sa_sigaction = libc::SIG_DFL;
        libc::sigaction(libc::SIGCHLD, &dfl, &mut saved);
    }
    warm_up();
    // Persistent workers, if the driver asks and the shared page exists.
    let mut persistent =
        st.chan.header().request_flags & REQ_PERSISTENT != 0 && crate::persist::make_shared();
    send(resp, MSG_READY, pre_main as i64);
    // SAFETY: plain query.
    let server = unsafe { libc::getpid() };
    let mut served: u32 = 0;
    loop {
        next_request(req);
        let shared = crate::persist::shared().filter(|_| persistent);
        if let Some(sh) = shared {
            // The request just read is the worker's first.
            sh.pending.store(1, Ordering::SeqCst);
        }
        let pid = raw_fork();
        if pid == 0 {
            // SAFETY: plain syscalls in the fresh child; `saved` is the
            // program's own SIGCHLD disposition.
            unsafe {
                if !persistent {
                    libc::close(req);
                    libc::close(resp);
                }
                libc::setpgid(0, 0);
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
                if libc::getppid() != server {
                    sys::exit_group(0);
                }
                if !is_default(&saved) {
                    libc::sigaction(libc::SIGCHLD, &saved, core::ptr::null_mut());
                }
            }
            if persistent && !crate::persist::run_worker(req, resp) {
                // SAFETY: closing the control pipes, as any forked child does.
                unsafe {
                    libc::close(req);
                    libc::close(resp);
                }
            }
            start_execution(pre_main);
            return;
        }
        if pid < 0 {
            send(resp, MSG_FORK_FAILED, i64::from(errno()));
            continue;
        }
        // SAFETY: our own child; done here too so the group exists before
        // the driver may signal it.
        unsafe { libc::setpgid(pid, pid) };
        served = served.wrapping_add(1);
        // The driver is not told the pid (it would wake up for nothing): it
        // finds the child among the server's children if it must kill it.
        let h = st.chan.header();
        h.fork_request.store(served, Ordering::Relaxed);
        let status = reap(pid);
        h.fork_response.store(served, Ordering::Relaxed);
        if let Some(sh) = shared {
            if sh.fallback.load(Ordering::SeqCst) != 0 {
                // The worker said why; every execution is a child from now on.
                persistent = false;
            }
            if sh.pending.swap(0, Ordering::SeqCst) == 0 {
                // The worker reported every execution it ran.
                continue;
            }
        }
        send(resp, MSG_DONE, i64::from(status));
    }
}

/// In a fresh child: takes the driver's current request and makes the
/// state exactly what an execution started by `exec` would have at entry to
/// `main` under that request. The `pre_main` events of static constructors
/// were all taken by thread 0 (the only thread), under the server's first
/// request.
fn start_execution(pre_main: u64) {
    // SAFETY: the child is single-threaded.
    let st = unsafe { state() };
    crate::sched::load_request(st);
    st.running = 0;
    st.chan.set_running(0);
    st.chan.slot(0).tid = crate::persist::worker_tid().unwrap_or_else(sys::gettid) as u32;
    // Steps of the prefix that fall before main must name thread 0.
    for step in 0..st.prefix_len.min(pre_main) {
        let t = st.chan.prefix(step);
        if t != 0 {
            st.chan.set_divergence(step, t);
            st.event_count = step;
            fail!(
                st,
                RunStatus::Diverged,
                0,
                "schedule prefix step {step} asks for thread {t}, which does not exist"
            );
        }
    }
    if st.prefix_len < pre_main {
        // The policy chose thread 0 at steps prefix_len..pre_main.
        if st.sleep_sets && st.sleep.contains(0) {
            st.event_count = st.prefix_len;
            fail!(
                st,
                RunStatus::SleepBlocked,
                0,
                "every enabled thread is in the sleep set"
            );
        }
        // Thread 0 ran, and every other thread is not alive: all awake.
        st.sleep = reach_channel::ThreadSet::EMPTY;
        if st.policy == reach_channel::Policy::Random {
            for _ in st.prefix_len..pre_main {
                crate::sched::next_random(st);
            }
        }
        if st.policy == reach_channel::Policy::Pct {
            // Only thread 0 existed: its change points apply to it.
            let mut only = reach_channel::ThreadSet::EMPTY;
            only.insert(0);
            while st.pct_next_at < pre_main {
                let step = st.pct_next_at.max(st.prefix_len);
                crate::sched::pct_pick(st, step, &only);
            }
        }
    }
}
