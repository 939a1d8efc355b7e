//! Interposed functions whose results differ from run to run and that the
//! runtime does not model: random bytes, processor time, real time past
//! the virtual clock, threads made with `clone`. Each notes its source
//! ([`crate::sources::called`]) and forwards to the C library, so that a
//! nondeterminism report can name it.

use crate::note_then_forward;
use crate::sources::called;
use core::ffi::{c_int, c_uint, c_void};
use reach_channel::sources::Source;

note_then_forward!(called;
    /// Interposed `getrandom`.
    getrandom c"getrandom"(buf: *mut c_void, len: usize, flags: c_uint) -> isize, Source::Getrandom);
note_then_forward!(called;
    /// Interposed `getentropy`.
    getentropy c"getentropy"(buf: *mut c_void, len: usize) -> c_int, Source::Getentropy);
note_then_forward!(called;
    /// Interposed `arc4random`.
    arc4random c"arc4random"() -> u32, Source::Arc4random);
note_then_forward!(called;
    /// Interposed `arc4random_buf`.
    arc4random_buf c"arc4random_buf"(buf: *mut c_void, len: usize) -> (), Source::Arc4random);
note_then_forward!(called;
    /// Interposed `arc4random_uniform`.
    arc4random_uniform c"arc4random_uniform"(bound: u32) -> u32, Source::Arc4random);
note_then_forward!(called;
    /// Interposed `std::random_device::_M_getval()` of libstdc++, which
    /// every `std::random_device` read goes through.
    _ZNSt13random_device9_M_getvalEv c"_ZNSt13random_device9_M_getvalEv"(this: *mut c_void) -> c_uint, Source::RandomDevice);
note_then_forward!(called;
    /// Interposed `clock`: processor time.
    clock c"clock"() -> libc::clock_t, Source::ProcessorTime);
note_then_forward!(called;
    /// Interposed `times`: processor time and real time.
    times c"times"(buf: *mut libc::tms) -> libc::clock_t, Source::ProcessorTime);
note_then_forward!(called;
    /// Interposed `getrusage`: processor time.
    getrusage c"getrusage"(who: c_int, usage: *mut libc::rusage) -> c_int, Source::ProcessorTime);
note_then_forward!(called;
    /// Interposed `timespec_get`: real time (the C library reads its clock
    /// without `clock_gettime`).
    timespec_get c"timespec_get"(ts: *mut libc::timespec, base: c_int) -> c_int, Source::RealTime);

/// The start routine of `clone`.
type CloneFn = extern "C" fn(*mut c_void) -> c_int;

/// Interposed `clone` (variadic in C; on x86_64 SysV reading the three
/// optional arguments is valid whatever the caller passed): a thread made
/// this way runs unscheduled, noted as a source.
///
/// # Safety
/// As the C function.
#[no_mangle]
pub unsafe extern "C" fn clone(
    f: CloneFn,
    stack: *mut c_void,
    flags: c_int,
    arg: *mut c_void,
    parent_tid: *mut c_int,
    tls: *mut c_void,
    child_tid: *mut c_int,
) -> c_int {
    if crate::sources::makes_thread(flags as u32 as u64) {
        called(Source::RawClone);
    } else {
        crate::current::take_announced();
    }
    // SAFETY: forwarding the caller's arguments.
    unsafe {
        crate::real!(
            c"clone",
            unsafe extern "C" fn(
                CloneFn,
                *mut c_void,
                c_int,
                *mut c_void,
                *mut c_int,
                *mut c_void,
                *mut c_int,
            ) -> c_int
        )(f, stack, flags, arg, parent_tid, tls, child_tid)
    }
}
