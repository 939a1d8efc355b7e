//! Library functions the runtime models: the slow paths of std's futex
//! locks and of `parking_lot`'s mutex. The pass puts a call of the model's hook in front of each one's
//! body ([`MODELS`] names the functions); the runtime's model takes the
//! lock with one try, retried as an await loop, so the library's spinning,
//! marking and sleeping are no behaviours of their own.
//!
//! A model hook is `hook(site, lock) -> u32`, `lock` the function's `self`
//! (whose first field is the lock word): 1 when the model took the lock,
//! 0 when the library's own code is to run (a thread the runtime does not
//! control, or one inside a library region). Unlike the hooks of
//! [`crate::hooks::ALL`] it returns a value, so the pass declares it itself.

use crate::hooks::{HookSpec, Param};

/// What a thread in a modelled slow path waits for: the lock's kind and how
/// it takes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LockWait {
    /// std's futex `Mutex` (word 0 unlocked, 1 locked, 2 locked with
    /// waiters).
    Mutex,
    /// A read lock of std's futex `RwLock`.
    Read,
    /// The write lock of std's futex `RwLock`.
    Write,
    /// `parking_lot`'s `Mutex` (a byte: bit 0 locked, bit 1 threads
    /// parked).
    ParkingLot,
}

/// Bit at which [`LockWait::encode`] puts the kind (addresses are below it).
const KIND_SHIFT: u32 = 60;

impl LockWait {
    /// The lock at `addr` waited for this way, as one word (the `aux` of
    /// the thread's [`crate::OpKind::Await`]; 0 stands for no lock).
    pub const fn encode(self, addr: u64) -> u64 {
        let kind = match self {
            LockWait::Mutex => 0,
            LockWait::Read => 1,
            LockWait::Write => 2,
            LockWait::ParkingLot => 3,
        };
        addr & ((1 << KIND_SHIFT) - 1) | kind << KIND_SHIFT
    }

    /// The kind and address of an [`LockWait::encode`]d word; `None` for 0
    /// or an unknown kind.
    pub const fn decode(word: u64) -> Option<(LockWait, u64)> {
        let addr = word & ((1 << KIND_SHIFT) - 1);
        if addr == 0 {
            return None;
        }
        match word >> KIND_SHIFT {
            0 => Some((LockWait::Mutex, addr)),
            1 => Some((LockWait::Read, addr)),
            2 => Some((LockWait::Write, addr)),
            3 => Some((LockWait::ParkingLot, addr)),
            _ => None,
        }
    }

    /// How a report says what the thread waits for (`for the mutex`).
    pub const fn describe(self) -> &'static str {
        match self {
            LockWait::Mutex => "for the mutex",
            LockWait::Read => "to read-lock the RwLock",
            LockWait::Write => "to write-lock the RwLock",
            LockWait::ParkingLot => "for the parking_lot mutex",
        }
    }

    /// Size in bytes of the lock word.
    pub const fn word_size(self) -> u64 {
        match self {
            LockWait::ParkingLot => 1,
            _ => 4,
        }
    }
}

/// A library function the runtime models.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Model {
    /// The hook the pass calls in front of the function's body.
    pub hook: HookSpec,
    /// How the function's source path ends.
    pub file: &'static str,
    /// The function is the toolchain's own (std), not a crate's.
    pub toolchain: bool,
    /// The type whose method it is, as its demangled name contains it.
    pub owner: &'static str,
    /// The method, as its demangled name ends.
    pub method: &'static str,
    /// What the site record of the hook's call says.
    pub what: &'static str,
    /// What a thread in the model waits for.
    pub wait: LockWait,
}

/// `Mutex::lock_contended(&self)` of std's futex mutex: the model takes
/// the lock with one compare-and-swap of the word from unlocked to
/// contended (so the owner's unlock still wakes, as the library's does).
pub const FUTEX_MUTEX_LOCK_CONTENDED: Model = Model {
    hook: HookSpec {
        name: "__reach_futex_mutex_lock_contended",
        params: &[Param::Site, Param::Ptr],
    },
    file: "/library/std/src/sys/sync/mutex/futex.rs",
    toolchain: true,
    owner: "futex::Mutex",
    method: "::lock_contended",
    what: "std mutex wait",
    wait: LockWait::Mutex,
};

/// `RwLock::read_contended(&self)` of std's futex `RwLock`: the model adds
/// a reader when the lock is not write-locked and no thread is marked
/// waiting (never marking any itself, so readers are not held back by a
/// waiting writer: a policy std's documentation allows).
pub const FUTEX_RWLOCK_READ_CONTENDED: Model = Model {
    hook: HookSpec {
        name: "__reach_futex_rwlock_read_contended",
        params: &[Param::Site, Param::Ptr],
    },
    file: "/library/std/src/sys/sync/rwlock/futex.rs",
    toolchain: true,
    owner: "futex::RwLock",
    method: "::read_contended",
    what: "std rwlock read wait",
    wait: LockWait::Read,
};

/// `RwLock::write_contended(&self)` of std's futex `RwLock`: the model
/// write-locks the lock when it is unlocked.
pub const FUTEX_RWLOCK_WRITE_CONTENDED: Model = Model {
    hook: HookSpec {
        name: "__reach_futex_rwlock_write_contended",
        params: &[Param::Site, Param::Ptr],
    },
    file: "/library/std/src/sys/sync/rwlock/futex.rs",
    toolchain: true,
    owner: "futex::RwLock",
    method: "::write_contended",
    what: "std rwlock write wait",
    wait: LockWait::Write,
};

/// `RawMutex::lock_slow(&self, timeout) -> bool` of the `parking_lot`
/// crate: the model sets the locked bit of a byte whose locked bit is
/// clear, never the parked bit (so the owner's unlock stays on its fast
/// path), and returns true. It waits without a deadline: a `try_lock_for`
/// that would time out waits for the lock instead.
pub const PARKING_LOT_MUTEX_LOCK_SLOW: Model = Model {
    hook: HookSpec {
        name: "__reach_parking_lot_mutex_lock_slow",
        params: &[Param::Site, Param::Ptr],
    },
    file: "/src/raw_mutex.rs",
    toolchain: false,
    owner: "parking_lot::raw_mutex::RawMutex",
    method: "::lock_slow",
    what: "parking_lot mutex wait",
    wait: LockWait::ParkingLot,
};

/// Every modelled function.
pub const MODELS: &[Model] = &[
    FUTEX_MUTEX_LOCK_CONTENDED,
    FUTEX_RWLOCK_READ_CONTENDED,
    FUTEX_RWLOCK_WRITE_CONTENDED,
    PARKING_LOT_MUTEX_LOCK_SLOW,
];

#[cfg(test)]
mod tests {
    use super::*;

    /// A lock word round-trips with its kind; 0 is no lock.
    #[test]
    fn lock_waits_round_trip() {
        for wait in [
            LockWait::Mutex,
            LockWait::Read,
            LockWait::Write,
            LockWait::ParkingLot,
        ] {
            let word = wait.encode(0x5555_5575_cab0);
            assert_eq!(LockWait::decode(word), Some((wait, 0x5555_5575_cab0)));
        }
        assert_eq!(LockWait::Mutex.encode(0x1000), 0x1000);
        assert_eq!(LockWait::decode(0), None);
        assert_eq!(LockWait::decode(4 << KIND_SHIFT | 0x1000), None);
    }

    /// The models' hooks and what their sites say are distinct.
    #[test]
    fn models_are_distinct() {
        for (i, a) in MODELS.iter().enumerate() {
            for b in &MODELS[i + 1..] {
                assert_ne!(a.hook.name, b.hook.name);
                assert_ne!(a.what, b.what);
            }
        }
    }
}
