//! What a kernel thread keeps for itself, kept per context while the
//! program's threads are user-level contexts ([`crate::uthread`]): the
//! signal mask, the alternate signal stack, the thread id, the name and the
//! stack attributes. Without this, each of these calls would need a kernel
//! thread of its own and make the execution run again with kernel threads.
//!
//! - The signal mask is the one piece of state the kernel acts on: each
//!   context has its own (a new one inherits its creator's, as
//!   `pthread_create` makes it), and the kernel thread's mask is set to the
//!   running context's when a context resumes with a mask other than the
//!   one in force ([`resume`]). A program whose threads keep one mask makes
//!   no system call on a switch.
//! - `sigaltstack`, `gettid`, `pthread_setname_np`/`pthread_getname_np` and
//!   `pthread_getattr_np` of a context other than the main thread answer
//!   from the context's own record: the alternate stack it set (the kernel
//!   thread keeps the main thread's, on which a signal for any context is
//!   delivered), a thread id of its own above every kernel id
//!   ([`TID_BASE`] plus its number, the same in every execution), the name
//!   it set, and its slot's stack and guard page. The main thread's calls go
//!   to the kernel as usual.
//!
//! The Rust standard library makes all of these calls for every thread it
//! starts (its stack-overflow handler reads the stack's guard, sets an
//! alternate stack and records the thread id).

use crate::real;
use crate::sys::raw_syscall;
use core::cell::UnsafeCell;
use core::ffi::{c_char, c_int, c_void};
use reach_channel::MAX_THREADS;

/// Thread ids of contexts start here: above any kernel thread id
/// (`pid_max` is at most 2^22), so none is taken for another thread.
pub const TID_BASE: i32 = 0x4000_0000;
/// Longest thread name, with its NUL (the kernel's `TASK_COMM_LEN`).
const NAME_BYTES: usize = 16;
/// Signals no mask can hold.
const UNBLOCKABLE: u64 = bit(libc::SIGKILL) | bit(libc::SIGSTOP);
/// Signals the C library keeps for itself and never lets
/// `pthread_sigmask` block (`SIGCANCEL`, `SIGSETXID`).
const LIBC_INTERNAL: u64 = bit(32) | bit(33);

const fn bit(sig: c_int) -> u64 {
    1u64 << (sig - 1)
}

/// One context's own kernel-thread state.
#[derive(Clone, Copy)]
struct Own {
    mask: u64,
    alt_sp: usize,
    alt_size: usize,
    alt_flags: c_int,
    name: [u8; NAME_BYTES],
}

const FRESH: Own = Own {
    mask: 0,
    alt_sp: 0,
    alt_size: 0,
    alt_flags: libc::SS_DISABLE,
    name: [0; NAME_BYTES],
};

struct Table {
    own: [Own; MAX_THREADS],
    /// The mask the kernel thread has now.
    applied: u64,
}

struct Global(UnsafeCell<Table>);
// SAFETY: touched only by the context holding the right to run (all
// contexts share one kernel thread), or during single-threaded start-up.
unsafe impl Sync for Global {}

static T: Global = Global(UnsafeCell::new(Table {
    own: [FRESH; MAX_THREADS],
    applied: 0,
}));

fn t() -> &'static mut Table {
    // SAFETY: see `Global`.
    unsafe { &mut *T.0.get() }
}

fn kernel_mask(how: c_int, set: *const u64, old: *mut u64) -> i64 {
    // SAFETY: `set` and `old` are null or valid 8-byte sigsets.
    unsafe {
        raw_syscall(
            libc::SYS_rt_sigprocmask,
            [i64::from(how), set as i64, old as i64, 8, 0, 0],
        )
    }
}

/// An execution starts with contexts: the main thread's mask is the kernel
/// thread's.
pub fn start() {
    let mut now = 0u64;
    kernel_mask(libc::SIG_BLOCK, core::ptr::null(), &mut now);
    let tb = t();
    tb.applied = now;
    tb.own[0] = FRESH;
    tb.own[0].mask = now;
}

/// Context `id` is created by the running context: it starts with its
/// creator's mask and nothing else of its own.
pub fn spawned(id: u32) {
    let tb = t();
    tb.own[id as usize % MAX_THREADS] = Own {
        mask: tb.applied,
        ..FRESH
    };
}

/// Context `id` runs again (or for the first time): the kernel thread gets
/// its mask if another is in force.
#[inline]
pub fn resume(id: u32) {
    let tb = t();
    let mask = tb.own[id as usize % MAX_THREADS].mask;
    if mask != tb.applied {
        tb.applied = mask;
        kernel_mask(libc::SIG_SETMASK, &mask, core::ptr::null_mut());
    }
}

/// Changes the calling context's mask as `rt_sigprocmask(how, set, old)`
/// would; `internal`: also keep the C library's own signals unblocked (as
/// its `pthread_sigmask` does). `None` when the caller is no context;
/// `Some(errno)` (0: done) otherwise.
fn change_mask(how: c_int, set: *const u64, old: *mut u64, internal: bool) -> Option<c_int> {
    let id = crate::uthread::current()?;
    let tb = t();
    let cur = tb.own[id as usize].mask;
    if !set.is_null() {
        // SAFETY: the caller's sigset (its first 8 bytes are the kernel's).
        let s = unsafe { set.read_unaligned() };
        let mut new = match how {
            libc::SIG_BLOCK => cur | s,
            libc::SIG_UNBLOCK => cur & !s,
            libc::SIG_SETMASK => s,
            _ => return Some(libc::EINVAL),
        };
        new &= !UNBLOCKABLE;
        if internal {
            new &= !LIBC_INTERNAL;
        }
        tb.own[id as usize].mask = new;
        resume(id);
    }
    if !old.is_null() {
        // SAFETY: the caller's out sigset.
        unsafe { old.write_unaligned(cur) };
    }
    Some(0)
}

fn set_errno(e: c_int) {
    // SAFETY: the calling thread's errno.
    unsafe { *libc::__errno_location() = e };
}

/// The C convention of `sigprocmask`, `sigaltstack` and `syscall`: -1
/// with `errno`, or 0.
fn minus_one(e: c_int) -> c_int {
    if e == 0 {
        0
    } else {
        set_errno(e);
        -1
    }
}

/// Interposed `pthread_sigmask`: a context changes its own mask.
///
/// # Safety
/// As the C function.
#[no_mangle]
pub unsafe extern "C" fn pthread_sigmask(
    how: c_int,
    set: *const libc::sigset_t,
    old: *mut libc::sigset_t,
) -> c_int {
    if let Some(e) = change_mask(how, set.cast(), old.cast(), true) {
        return e;
    }
    // SAFETY: forwarding.
    unsafe {
        real!(
            c"pthread_sigmask",
            unsafe extern "C" fn(c_int, *const libc::sigset_t, *mut libc::sigset_t) -> c_int
        )(how, set, old)
    }
}

/// Interposed `sigprocmask`: as `pthread_sigmask`.
///
/// # Safety
/// As the C function.
#[no_mangle]
pub unsafe extern "C" fn sigprocmask(
    how: c_int,
    set: *const libc::sigset_t,
    old: *mut libc::sigset_t,
) -> c_int {
    if let Some(e) = change_mask(how, set.cast(), old.cast(), true) {
        return minus_one(e);
    }
    // SAFETY: forwarding.
    unsafe {
        real!(
            c"sigprocmask",
            unsafe extern "C" fn(c_int, *const libc::sigset_t, *mut libc::sigset_t) -> c_int
        )(how, set, old)
    }
}

/// `syscall(SYS_rt_sigprocmask, how, set, old, size)` in a context, as the
/// kernel would answer it; `None` when the caller is no context.
pub fn rt_sigprocmask(how: i64, set: i64, old: i64, size: i64) -> Option<i64> {
    crate::uthread::current()?;
    if size != 8 {
        return Some(i64::from(minus_one(libc::EINVAL)));
    }
    let e = change_mask(how as c_int, set as *const u64, old as *mut u64, false)?;
    Some(i64::from(minus_one(e)))
}

/// Interposed `sigaltstack`: a context other than the main thread keeps
/// its own.
///
/// # Safety
/// As the C function.
#[no_mangle]
pub unsafe extern "C" fn sigaltstack(new: *const libc::stack_t, old: *mut libc::stack_t) -> c_int {
    match crate::uthread::current() {
        Some(id) if id != 0 => {
            // SAFETY: the caller's stack_t pointers, null or valid.
            minus_one(unsafe { alt_stack(id, new, old) })
        }
        _ => {
            crate::persist::altstack_changed(!new.is_null());
            // SAFETY: forwarding.
            unsafe {
                real!(
                    c"sigaltstack",
                    unsafe extern "C" fn(*const libc::stack_t, *mut libc::stack_t) -> c_int
                )(new, old)
            }
        }
    }
}

/// `sigaltstack` on context `id`'s record; an errno (0: done).
///
/// # Safety
/// `new` and `old` are null or valid.
pub unsafe fn alt_stack(id: u32, new: *const libc::stack_t, old: *mut libc::stack_t) -> c_int {
    let own = &mut t().own[id as usize % MAX_THREADS];
    let was = libc::stack_t {
        ss_sp: own.alt_sp as *mut c_void,
        ss_flags: own.alt_flags,
        ss_size: own.alt_size,
    };
    // SAFETY: the caller's pointers.
    if let Some(n) = unsafe { new.as_ref() } {
        if n.ss_flags & !libc::SS_DISABLE != 0 {
            return libc::EINVAL;
        }
        if n.ss_flags & libc::SS_DISABLE != 0 {
            own.alt_flags = libc::SS_DISABLE;
            own.alt_sp = 0;
            own.alt_size = 0;
        } else {
            if n.ss_size < libc::MINSIGSTKSZ {
                return libc::ENOMEM;
            }
            own.alt_flags = 0;
            own.alt_sp = n.ss_sp as usize;
            own.alt_size = n.ss_size;
        }
    }
    if !old.is_null() {
        // SAFETY: the caller's out pointer.
        unsafe { old.write(was) };
    }
    0
}

/// `gettid` of context `id`.
pub fn tid(id: u32) -> i32 {
    TID_BASE + id as i32
}

/// Interposed `gettid`: a context other than the main thread has an id of
/// its own.
///
/// # Safety
/// As the C function.
#[no_mangle]
pub unsafe extern "C" fn gettid() -> libc::pid_t {
    match crate::uthread::current() {
        Some(id) if id != 0 => tid(id),
        _ => crate::sys::gettid(),
    }
}

/// Interposed `pthread_setname_np`: a context's name is its record's.
///
/// # Safety
/// As the C function.
#[no_mangle]
pub unsafe extern "C" fn pthread_setname_np(th: libc::pthread_t, name: *const c_char) -> c_int {
    if let Some(id) = crate::uthread::context_of(th) {
        // SAFETY: the caller's NUL-terminated name.
        let bytes = unsafe { core::ffi::CStr::from_ptr(name) }.to_bytes();
        if bytes.len() >= NAME_BYTES {
            return libc::ERANGE;
        }
        let own = &mut t().own[id as usize];
        own.name = [0; NAME_BYTES];
        own.name[..bytes.len()].copy_from_slice(bytes);
        return 0;
    }
    // SAFETY: forwarding.
    unsafe {
        real!(
            c"pthread_setname_np",
            unsafe extern "C" fn(libc::pthread_t, *const c_char) -> c_int
        )(th, name)
    }
}

/// Interposed `pthread_getname_np`: a context's name is the one it set,
/// else the main thread's (a new thread's name is its creator's).
///
/// # Safety
/// As the C function.
#[no_mangle]
pub unsafe extern "C" fn pthread_getname_np(
    th: libc::pthread_t,
    buf: *mut c_char,
    len: usize,
) -> c_int {
    let real = real!(
        c"pthread_getname_np",
        unsafe extern "C" fn(libc::pthread_t, *mut c_char, usize) -> c_int
    );
    let Some(id) = crate::uthread::context_of(th) else {
        // SAFETY: forwarding.
        return unsafe { real(th, buf, len) };
    };
    if len < NAME_BYTES {
        return libc::ERANGE;
    }
    let name = t().own[id as usize].name;
    if name[0] == 0 {
        // SAFETY: the main thread's descriptor; the caller's buffer.
        return unsafe { real(crate::uthread::main_handle(), buf, len) };
    }
    // SAFETY: the caller's buffer holds at least NAME_BYTES.
    unsafe { core::ptr::copy_nonoverlapping(name.as_ptr(), buf.cast::<u8>(), NAME_BYTES) };
    0
}

/// Interposed `pthread_getattr_np`: a context's attributes describe its
/// slot (the stack above the guard page, the guard page).
///
/// # Safety
/// As the C function.
#[no_mangle]
pub unsafe extern "C" fn pthread_getattr_np(
    th: libc::pthread_t,
    attr: *mut libc::pthread_attr_t,
) -> c_int {
    let Some((stack, size, guard)) = crate::uthread::context_of(th).map(crate::uthread::stack_of)
    else {
        // SAFETY: forwarding.
        return unsafe {
            real!(
                c"pthread_getattr_np",
                unsafe extern "C" fn(libc::pthread_t, *mut libc::pthread_attr_t) -> c_int
            )(th, attr)
        };
    };
    // SAFETY: the caller's attribute object, initialised here as the C
    // library's own function does.
    unsafe {
        let rc = libc::pthread_attr_init(attr);
        if rc != 0 {
            return rc;
        }
        libc::pthread_attr_setstack(attr, stack as *mut c_void, size);
        libc::pthread_attr_setguardsize(attr, guard);
    }
    0
}
