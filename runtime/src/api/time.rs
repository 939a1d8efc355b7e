//! Virtual time: `clock_gettime`, `gettimeofday` and `time` read a clock that
//! starts at a fixed instant and advances by one microsecond per reading (and
//! by the requested duration on every sleep), so a program that computes
//! deadlines or branches on the time behaves the same on every execution of
//! the same schedule. Outside a controlled execution the real clock is read.

use crate::real;
use crate::state::me;
use core::ffi::c_int;
use core::sync::atomic::{AtomicU64, Ordering};
use libc::{clockid_t, time_t, timespec, timeval};

/// Virtual nanoseconds since the virtual epoch.
static VIRTUAL_NS: AtomicU64 = AtomicU64::new(0);
/// Realtime clock value at virtual time zero: 2024-01-01T00:00:00Z.
const REALTIME_BASE_SECS: u64 = 1_704_067_200;
/// Monotonic clocks start here.
const MONOTONIC_BASE_SECS: u64 = 1_000;
/// Advance per reading.
const TICK_NS: u64 = 1_000;

/// Advances virtual time by `ns` (sleeps).
pub fn advance(ns: u64) {
    VIRTUAL_NS.fetch_add(ns, Ordering::Relaxed);
}

fn now_ns(clock: clockid_t) -> u64 {
    let t = VIRTUAL_NS.fetch_add(TICK_NS, Ordering::Relaxed);
    let base = if clock == libc::CLOCK_REALTIME || clock == libc::CLOCK_REALTIME_COARSE {
        REALTIME_BASE_SECS
    } else {
        MONOTONIC_BASE_SECS
    };
    base * 1_000_000_000 + t
}

/// Interposed `clock_gettime`.
///
/// # Safety
/// As the C function.
#[no_mangle]
pub unsafe extern "C" fn clock_gettime(clock: clockid_t, ts: *mut timespec) -> c_int {
    if me().is_none() || ts.is_null() {
        // SAFETY: forwarding.
        return unsafe {
            real!(
                c"clock_gettime",
                unsafe extern "C" fn(clockid_t, *mut timespec) -> c_int
            )(clock, ts)
        };
    }
    let ns = now_ns(clock);
    // SAFETY: the caller passes a writable timespec.
    unsafe {
        (*ts).tv_sec = (ns / 1_000_000_000) as time_t;
        (*ts).tv_nsec = (ns % 1_000_000_000) as libc::c_long;
    }
    0
}

/// Interposed `gettimeofday`.
///
/// # Safety
/// As the C function.
#[no_mangle]
pub unsafe extern "C" fn gettimeofday(tv: *mut timeval, tz: *mut libc::c_void) -> c_int {
    if me().is_none() || tv.is_null() {
        // SAFETY: forwarding.
        return unsafe {
            real!(
                c"gettimeofday",
                unsafe extern "C" fn(*mut timeval, *mut libc::c_void) -> c_int
            )(tv, tz)
        };
    }
    let ns = now_ns(libc::CLOCK_REALTIME);
    // SAFETY: the caller passes a writable timeval.
    unsafe {
        (*tv).tv_sec = (ns / 1_000_000_000) as time_t;
        (*tv).tv_usec = ((ns % 1_000_000_000) / 1_000) as libc::suseconds_t;
    }
    0
}

/// Interposed `time`.
///
/// # Safety
/// As the C function.
#[no_mangle]
pub unsafe extern "C" fn time(out: *mut time_t) -> time_t {
    crate::controlled_or_forward!(c"time", fn(*mut time_t) -> time_t, (out));
    let secs = (now_ns(libc::CLOCK_REALTIME) / 1_000_000_000) as time_t;
    if !out.is_null() {
        // SAFETY: the caller passes a writable time_t.
        unsafe { *out = secs };
    }
    secs
}
