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

use crate::sys::raw_syscall;
use core::cell::UnsafeCell;
use core::ffi::c_int;
use reach_channel::MAX_THREADS;

/// Thread ids of contexts start here: above any kernel thread id
/// (`pid_max` is at most 2^22), so none is taken for another thread.
pub const TID_BASE: i32 = 0x4000_0000;
/// Longest thread name, with its NUL (the kernel's `TASK_COMM_LEN`).
pub(crate) const NAME_BYTES: usize = 16;
/// Signals no mask can hold.
pub(crate) const UNBLOCKABLE: u64 = bit(libc::SIGKILL) | bit(libc::SIGSTOP);
/// Signals the C library keeps for itself and never lets
/// `pthread_sigmask` block (`SIGCANCEL`, `SIGSETXID`).
pub(crate) const LIBC_INTERNAL: u64 = bit(32) | bit(33);

pub(crate) const fn bit(sig: c_int) -> u64 {
    1u64 << (sig - 1)
}

/// One context's own kernel-thread state.
#[derive(Clone, Copy)]
pub(crate) struct Own {
    pub(crate) mask: u64,
    pub(crate) alt_sp: usize,
    pub(crate) alt_size: usize,
    pub(crate) alt_flags: c_int,
    pub(crate) name: [u8; NAME_BYTES],
}

const FRESH: Own = Own {
    mask: 0,
    alt_sp: 0,
    alt_size: 0,
    alt_flags: libc::SS_DISABLE,
    name: [0; NAME_BYTES],
};

pub(crate) struct Table {
    pub(crate) own: [Own; MAX_THREADS],
    /// The mask the kernel thread has now.
    pub(crate) applied: u64,
}

struct Global(UnsafeCell<Table>);
// SAFETY: touched only by the context holding the right to run (all
// contexts share one kernel thread), or during single-threaded start-up.
unsafe impl Sync for Global {}

static T: Global = Global(UnsafeCell::new(Table {
    own: [FRESH; MAX_THREADS],
    applied: 0,
}));

pub(crate) fn t() -> &'static mut Table {
    // SAFETY: see `Global`.
    unsafe { &mut *T.0.get() }
}

pub(crate) fn kernel_mask(how: c_int, set: *const u64, old: *mut u64) -> i64 {
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
