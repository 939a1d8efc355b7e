//! The calls a kernel thread answers for itself, answered for a context
//! from its own record ([`crate::uthread_own`]) while the program's threads
//! are user-level contexts: `pthread_sigmask`/`sigprocmask`,
//! `sigaltstack`, `gettid`, the thread name and `pthread_getattr_np`.

use crate::real;
use crate::uthread_own::{resume, t, LIBC_INTERNAL, NAME_BYTES, TID_BASE, UNBLOCKABLE};
use core::ffi::{c_char, c_int, c_void};
use reach_channel::MAX_THREADS;

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
