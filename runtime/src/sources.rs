//! Noting the sources of nondeterminism an execution uses
//! (`reach_channel::sources`), for the interposed functions that see them:
//! random bytes, real time past the virtual clock, threads made with
//! `clone`, the files the program opens, and address randomisation. Only
//! during an execution; each source's site is looked up (the call site
//! instrumented code announced, else the return address into the program)
//! only when the source is new, so a program that calls `getrandom` in a
//! loop unwinds once.

use crate::current::{take_announced, MODE, MODE_ACTIVE};
use core::ffi::{c_char, c_long, CStr};
use core::sync::atomic::Ordering;
use reach_channel::sources::Source;

/// True while an execution runs (not before the channel is attached, not
/// after the execution ended, not in a fork child).
#[inline]
fn active() -> bool {
    MODE.load(Ordering::Relaxed) == MODE_ACTIVE
}

/// The site of the interposed call in progress, given the site its
/// caller announced (0: none, an uninstrumented caller).
fn call_site(announced: u64) -> u64 {
    if announced != 0 {
        announced
    } else {
        crate::caller::program_return_address()
    }
}

/// An interposed call that uses `source` is in progress.
pub fn called(source: Source) {
    if !active() {
        return;
    }
    let announced = take_announced();
    if !crate::seen::noted(source) {
        crate::seen::note(source, call_site(announced));
    }
}

/// The program opens `path` (`writes`: so that it can write it). A
/// relative `path` opened relative to another directory than the working
/// one (`openat` with a directory descriptor) is `relative_elsewhere`.
///
/// # Safety
/// `path` is null or a NUL-terminated string.
pub unsafe fn opened(path: *const c_char, writes: bool, relative_elsewhere: bool) {
    if !active() || path.is_null() {
        return;
    }
    let announced = take_announced();
    // SAFETY: the caller's NUL-terminated path.
    let p = unsafe { CStr::from_ptr(path) }.to_bytes();
    let random = match p {
        b"/dev/urandom" => Some(Source::DevUrandom),
        b"/dev/random" => Some(Source::DevRandom),
        _ => None,
    };
    if let Some(source) = random {
        if !crate::seen::noted(source) {
            crate::seen::note(source, call_site(announced));
        }
        return;
    }
    let device = p.starts_with(b"/dev/") && !p.starts_with(b"/dev/shm/");
    if device || (relative_elsewhere && !p.starts_with(b"/")) {
        return;
    }
    crate::seen::note_file(p, writes, || call_site(announced));
}

/// The program makes system call `n` through `syscall` with first
/// argument `a1`: notes the calls that read random bytes or real time or
/// make a thread past the C library.
pub fn system_call(n: c_long, a1: c_long) {
    let source = match n {
        libc::SYS_getrandom => Source::Getrandom,
        libc::SYS_clock_gettime | libc::SYS_gettimeofday | libc::SYS_time => Source::RealTime,
        libc::SYS_times | libc::SYS_getrusage => Source::ProcessorTime,
        libc::SYS_clone if makes_thread(a1 as u64) => Source::RawClone,
        libc::SYS_clone3 if a1 != 0 => {
            // SAFETY: `clone3` takes a `struct clone_args *` whose first
            // field is the flags; the kernel reads it too.
            let flags = unsafe { (a1 as *const u64).read_unaligned() };
            if !makes_thread(flags) {
                return;
            }
            Source::RawClone
        }
        _ => return,
    };
    called(source);
}

/// `clone` flags that make a thread (memory shared with the caller)
/// rather than a process (`CLONE_VFORK`: a child that shares memory only
/// until it executes another program or exits, while the caller waits).
pub fn makes_thread(flags: u64) -> bool {
    flags & (libc::CLONE_THREAD | libc::CLONE_VM) as u64 != 0
        && flags & libc::CLONE_VFORK as u64 == 0
}

/// At start-up: notes address randomisation if this process runs with it
/// (the driver turns it off; a system-call filter can forbid that).
pub fn note_address_randomisation() {
    if randomised() {
        crate::seen::note(Source::AddressRandomisation, 0);
    }
}

/// True if the kernel randomises this process's addresses: its
/// personality lacks `ADDR_NO_RANDOMIZE` and
/// `/proc/sys/kernel/randomize_va_space` is not `0`.
fn randomised() -> bool {
    use crate::sys::raw_syscall;
    // SAFETY: `personality(0xffffffff)` only queries.
    let persona = unsafe { raw_syscall(libc::SYS_personality, [0xffff_ffff, 0, 0, 0, 0, 0]) };
    if persona < 0 || persona & i64::from(libc::ADDR_NO_RANDOMIZE) != 0 {
        return false;
    }
    let path = c"/proc/sys/kernel/randomize_va_space";
    let mut byte = [0u8; 1];
    // SAFETY: open, read into a local byte, close: raw system calls with
    // valid pointers.
    unsafe {
        let fd = raw_syscall(
            libc::SYS_openat,
            [
                i64::from(libc::AT_FDCWD),
                path.as_ptr() as i64,
                i64::from(libc::O_RDONLY | libc::O_CLOEXEC),
                0,
                0,
                0,
            ],
        );
        if fd < 0 {
            return true;
        }
        let n = raw_syscall(libc::SYS_read, [fd, byte.as_mut_ptr() as i64, 1, 0, 0, 0]);
        raw_syscall(libc::SYS_close, [fd, 0, 0, 0, 0, 0]);
        n != 1 || byte[0] != b'0'
    }
}
