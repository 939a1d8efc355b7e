//! The runtime's models of library lock slow paths
//! ([`reach_channel::models`]): std's futex `Mutex::lock_contended` and
//! `RwLock::{read,write}_contended`, and `parking_lot`'s
//! `RawMutex::lock_slow`. The library spins, marks the lock word
//! contended or waited for, and sleeps on the futex; every one of those
//! steps would be a behaviour of its own, and none changes what the program
//! can do. A model is one *try* on the lock word instead, retried as an
//! await loop ([`crate::awaits`]): a try that cannot take the lock is a
//! failed compare-and-swap (a read of the word), and the thread waits until
//! another thread writes the word. A thread that can never take the lock
//! parks at an await naming the lock, which the driver reports as a
//! deadlock.

use crate::api::mk;
use crate::hooks::{__reach_loop_head, visible_me};
use crate::sched::run_op;
use crate::state::state;
use core::ffi::c_void;
use core::sync::atomic::{AtomicU32, AtomicU8, Ordering};
use reach_channel::models::LockWait;
use reach_channel::{EventFlags, OpKind};

/// std's futex mutex word: unlocked.
const MUTEX_UNLOCKED: u32 = 0;
/// std's futex mutex word: locked, waiters may sleep (the owner's unlock
/// wakes, as after the library's own slow path).
const MUTEX_CONTENDED: u32 = 2;

/// std's futex `RwLock` state: the reader count (or [`WRITE_LOCKED`]).
const RW_MASK: u32 = (1 << 30) - 1;
/// std's futex `RwLock` state: write-locked.
const WRITE_LOCKED: u32 = RW_MASK;
/// std's futex `RwLock` state: most readers.
const MAX_READERS: u32 = RW_MASK - 1;
/// std's futex `RwLock` state: readers or writers sleep on the lock.
const WAITING: u32 = !RW_MASK;

/// `parking_lot`'s mutex byte: locked.
const PARKING_LOT_LOCKED: u32 = 1;

/// The word after a try to take the lock `wait` stands for from word
/// `state`, or `None` if the try cannot take it.
fn take(wait: LockWait, state: u32) -> Option<u32> {
    match wait {
        LockWait::Mutex => (state == MUTEX_UNLOCKED).then_some(MUTEX_CONTENDED),
        // As std's `is_read_lockable`: not write-locked, room for one more
        // reader and nobody asleep (the model never marks anyone asleep).
        LockWait::Read => {
            (state & RW_MASK < MAX_READERS && state & WAITING == 0).then_some(state + 1)
        }
        LockWait::Write => (state & RW_MASK == 0).then_some(state | WRITE_LOCKED),
        // As `lock_slow`'s own first try: taken when the locked bit is
        // clear, parked threads or not (the model never parks any).
        LockWait::ParkingLot => {
            (state & PARKING_LOT_LOCKED == 0).then_some(state | PARKING_LOT_LOCKED)
        }
    }
}

/// One try on the lock word at `addr` as `wait` takes it; true if taken.
///
/// # Safety
///
/// `addr` is the lock's aligned word of `wait.word_size()` bytes, alive.
unsafe fn try_take(wait: LockWait, addr: u64) -> bool {
    let next = |s: u32| take(wait, s);
    if wait.word_size() == 1 {
        // SAFETY: as the caller promises.
        let word = unsafe { &*(addr as *const AtomicU8) };
        word.fetch_update(Ordering::Acquire, Ordering::Relaxed, |s| {
            next(u32::from(s)).map(|n| n as u8)
        })
        .is_ok()
    } else {
        // SAFETY: as the caller promises.
        let word = unsafe { &*(addr as *const AtomicU32) };
        word.fetch_update(Ordering::Acquire, Ordering::Relaxed, next)
            .is_ok()
    }
}

/// Takes the lock whose futex word is at `lock` as `wait` says, retrying a
/// try that cannot take it as an await loop at `site`. Returns 1 when it
/// took the lock, 0 for a thread whose accesses are not visible (the
/// library's own code then runs, its futex calls interposed as usual).
fn await_lock(site: u64, lock: *const c_void, wait: LockWait) -> u32 {
    let Some(me) = visible_me(site) else {
        return 0;
    };
    let addr = lock as u64;
    // SAFETY: a controlled thread calling into the runtime holds the right
    // to run.
    crate::awaits::waiting_for_lock(unsafe { state() }, me, wait.encode(addr));
    let mut back = 0;
    loop {
        __reach_loop_head(site, 0, 0, back, 0);
        let op = mk(OpKind::CmpXchg, 0, addr, wait.word_size());
        let taken = run_op(me, op, site, |_, _, op| {
            // SAFETY: the library passes its lock, whose first field is
            // the aligned lock word, alive for the call.
            let taken = unsafe { try_take(wait, addr) };
            if !taken {
                op.flags.0 |= EventFlags::FAILED;
            }
            taken
        });
        if taken {
            // SAFETY: as above.
            crate::awaits::waiting_for_lock(unsafe { state() }, me, 0);
            return 1;
        }
        back = 1;
    }
}

/// The model of std's futex `Mutex::lock_contended`
/// ([`reach_channel::models::FUTEX_MUTEX_LOCK_CONTENDED`]): one
/// compare-and-swap of the word from unlocked to contended.
#[no_mangle]
pub extern "C" fn __reach_futex_mutex_lock_contended(site: u64, mutex: *const c_void) -> u32 {
    await_lock(site, mutex, LockWait::Mutex)
}

/// The model of std's futex `RwLock::read_contended`
/// ([`reach_channel::models::FUTEX_RWLOCK_READ_CONTENDED`]): adds one
/// reader to a lock that is not write-locked.
#[no_mangle]
pub extern "C" fn __reach_futex_rwlock_read_contended(site: u64, rwlock: *const c_void) -> u32 {
    await_lock(site, rwlock, LockWait::Read)
}

/// The model of std's futex `RwLock::write_contended`
/// ([`reach_channel::models::FUTEX_RWLOCK_WRITE_CONTENDED`]): write-locks
/// an unlocked lock.
#[no_mangle]
pub extern "C" fn __reach_futex_rwlock_write_contended(site: u64, rwlock: *const c_void) -> u32 {
    await_lock(site, rwlock, LockWait::Write)
}

/// The model of `parking_lot`'s `RawMutex::lock_slow`
/// ([`reach_channel::models::PARKING_LOT_MUTEX_LOCK_SLOW`]): sets the
/// locked bit of the mutex byte when it is clear.
#[no_mangle]
pub extern "C" fn __reach_parking_lot_mutex_lock_slow(site: u64, mutex: *const c_void) -> u32 {
    await_lock(site, mutex, LockWait::ParkingLot)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A mutex is taken only when unlocked, and left contended.
    #[test]
    fn mutex_try() {
        assert_eq!(take(LockWait::Mutex, 0), Some(2));
        assert_eq!(take(LockWait::Mutex, 1), None);
        assert_eq!(take(LockWait::Mutex, 2), None);
    }

    /// Readers share the lock until it is write-locked or full; a writer
    /// needs it unlocked and keeps the waiting bits.
    #[test]
    fn rwlock_tries() {
        assert_eq!(take(LockWait::Read, 0), Some(1));
        assert_eq!(take(LockWait::Read, 2), Some(3));
        assert_eq!(take(LockWait::Read, WRITE_LOCKED), None);
        assert_eq!(take(LockWait::Read, MAX_READERS), None);
        assert_eq!(take(LockWait::Read, 1 | 1 << 31), None);
        assert_eq!(take(LockWait::Write, 0), Some(WRITE_LOCKED));
        assert_eq!(take(LockWait::Write, 1 << 31), Some(WRITE_LOCKED | 1 << 31));
        assert_eq!(take(LockWait::Write, 1), None);
        assert_eq!(take(LockWait::Write, WRITE_LOCKED), None);
    }

    /// A parking_lot mutex is taken when its locked bit is clear, parked
    /// bit or not, which stays.
    #[test]
    fn parking_lot_try() {
        assert_eq!(take(LockWait::ParkingLot, 0), Some(1));
        assert_eq!(take(LockWait::ParkingLot, 2), Some(3));
        assert_eq!(take(LockWait::ParkingLot, 1), None);
        assert_eq!(take(LockWait::ParkingLot, 3), None);
    }
}
