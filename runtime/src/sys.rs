//! Thin wrappers over the raw system calls the runtime needs. None of them
//! allocates or goes through an interposed libc function.

use core::sync::atomic::AtomicU32;

/// A raw x86_64 system call with up to six arguments. The runtime interposes
/// the C library's `syscall`, so it must not call it itself.
///
/// # Safety
/// The arguments must be valid for system call `n`.
#[inline]
pub unsafe fn raw_syscall(n: i64, a: [i64; 6]) -> i64 {
    let ret: i64;
    // SAFETY: the x86_64 Linux system call convention; rcx and r11 are
    // clobbered by the `syscall` instruction.
    unsafe {
        core::arch::asm!(
            "syscall",
            inlateout("rax") n => ret,
            in("rdi") a[0],
            in("rsi") a[1],
            in("rdx") a[2],
            in("r10") a[3],
            in("r8") a[4],
            in("r9") a[5],
            lateout("rcx") _,
            lateout("r11") _,
            options(nostack),
        );
    }
    ret
}

/// Blocks while `*word == expected` (spurious returns are possible).
pub fn futex_wait(word: &AtomicU32, expected: u32) {
    // SAFETY: FUTEX_WAIT on a valid, aligned u32 that lives as long as the
    // runtime (it is in a static); no timeout.
    unsafe {
        raw_syscall(
            libc::SYS_futex,
            [
                word.as_ptr() as i64,
                i64::from(libc::FUTEX_WAIT | libc::FUTEX_PRIVATE_FLAG),
                i64::from(expected),
                0,
                0,
                0,
            ],
        );
    }
}

/// Kernel id of the calling thread.
pub fn gettid() -> i32 {
    // SAFETY: gettid has no arguments and cannot fail.
    unsafe { raw_syscall(libc::SYS_gettid, [0; 6]) as i32 }
}

/// Process id of the caller.
pub fn getpid() -> i32 {
    // SAFETY: getpid has no arguments and cannot fail.
    unsafe { raw_syscall(libc::SYS_getpid, [0; 6]) as i32 }
}

/// Waits until thread `tid` of this process (not its main thread, which
/// stays a zombie until the process ends) no longer exists, yielding the CPU
/// to it meanwhile.
pub fn wait_thread_gone(tid: i32) {
    let pid = i64::from(getpid());
    // SAFETY: tgkill with signal 0 only checks that the thread exists (any
    // error, ESRCH once it is gone, ends the wait); sched_yield has no
    // arguments.
    unsafe {
        while raw_syscall(libc::SYS_tgkill, [pid, i64::from(tid), 0, 0, 0, 0]) == 0 {
            raw_syscall(libc::SYS_sched_yield, [0; 6]);
        }
    }
}

/// Wakes every waiter of `word`.
pub fn futex_wake(word: &AtomicU32) {
    // SAFETY: FUTEX_WAKE on a valid, aligned u32.
    unsafe {
        raw_syscall(
            libc::SYS_futex,
            [
                word.as_ptr() as i64,
                i64::from(libc::FUTEX_WAKE | libc::FUTEX_PRIVATE_FLAG),
                i64::from(i32::MAX),
                0,
                0,
                0,
            ],
        );
    }
}

/// Ends the whole process immediately (no atexit handlers, no flushing),
/// bypassing the runtime's own `_exit`/`exit` interposers.
pub fn exit_group(code: i32) -> ! {
    // SAFETY: exit_group never returns.
    unsafe {
        raw_syscall(libc::SYS_exit_group, [i64::from(code), 0, 0, 0, 0, 0]);
    }
    // exit_group cannot fail; keep the compiler happy without panicking.
    loop {
        core::hint::spin_loop();
    }
}

/// Writes `bytes` to standard error (best effort, unbuffered).
pub fn write_stderr(bytes: &[u8]) {
    // SAFETY: writing from a valid buffer of the given length.
    unsafe {
        libc::write(2, bytes.as_ptr().cast(), bytes.len());
    }
}

/// Sets the calling thread's `errno`.
pub fn set_errno(e: i32) {
    // SAFETY: __errno_location returns the calling thread's errno slot.
    unsafe {
        *libc::__errno_location() = e;
    }
}

/// Number of CPUs the calling thread may run on (0 if unknown).
pub fn allowed_cpus() -> u32 {
    // SAFETY: a CPU set on the stack filled by the kernel.
    unsafe {
        let mut set: libc::cpu_set_t = core::mem::zeroed();
        if libc::sched_getaffinity(0, core::mem::size_of::<libc::cpu_set_t>(), &mut set) != 0 {
            return 0;
        }
        libc::CPU_COUNT(&set) as u32
    }
}
