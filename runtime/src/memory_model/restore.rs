//! Memory holds the latest store in modification order. An access the
//! model places elsewhere (a store before the latest, a read-modify-write
//! or compare-and-exchange of an older store) runs natively on memory set
//! up for it; the thread's next scheduling point puts the latest value
//! back, and keeps the value the native access wrote in its store.

use core::sync::atomic::{AtomicBool, Ordering};

/// A restore pending since the last access.
#[derive(Clone, Copy)]
pub struct Restore {
    /// The location's slot in the table.
    pub slot: usize,
    /// The address and size of the access.
    pub addr: u64,
    /// Bytes (1, 2, 4 or 8).
    pub size: u64,
    /// Place of the store the native access wrote (`None`: it only read).
    pub place: Option<u32>,
    /// The latest store's value, which memory must hold again.
    pub latest: u64,
}

impl Restore {
    /// No restore.
    pub const NONE: Restore = Restore {
        slot: 0,
        addr: 0,
        size: 0,
        place: None,
        latest: 0,
    };
}

/// A restore is pending (checked on every scheduling point: one load).
static PENDING: AtomicBool = AtomicBool::new(false);

/// Is a restore pending?
#[inline]
pub fn pending() -> bool {
    PENDING.load(Ordering::Relaxed)
}

/// Marks a restore pending or done.
#[inline]
pub fn set_pending(on: bool) {
    PENDING.store(on, Ordering::Relaxed);
}

/// Writes `size` bytes of `value` at `addr` (sizes 1, 2, 4, 8). Only for
/// the address of the atomic access the model just ran.
pub(crate) fn write_int(addr: u64, size: u64, value: u64) {
    // SAFETY: the instrumented atomic access just read or wrote these bytes.
    unsafe {
        match size {
            1 => (addr as *mut u8).write_volatile(value as u8),
            2 => (addr as *mut u16).write_volatile(value as u16),
            4 => (addr as *mut u32).write_volatile(value as u32),
            8 => (addr as *mut u64).write_volatile(value),
            _ => {}
        }
    }
}
