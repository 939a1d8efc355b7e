//! Which thread runs here and in which mode the runtime is: the lowest
//! layer of the runtime's state, read on every hook.

use core::cell::Cell;
use core::sync::atomic::{AtomicU32, Ordering};

/// "No thread".
pub const NONE: u32 = u32::MAX;

/// Runtime mode: no channel, everything forwards to the real functions.
pub const MODE_PASSIVE: u32 = 0;
/// Runtime mode: controlling the execution.
pub const MODE_ACTIVE: u32 = 1;
/// Runtime mode: the execution has concluded (exit handlers run, or the
/// process is a fork child); everything forwards to the real functions.
pub const MODE_ENDED: u32 = 2;

/// Current runtime mode.
pub static MODE: AtomicU32 = AtomicU32::new(MODE_PASSIVE);

thread_local! {
    /// The calling thread's id, or [`NONE`] if it is not controlled.
    static TID: Cell<u32> = const { Cell::new(NONE) };
    /// Site announced by `__reach_call_site` for the next interposed call.
    pub(crate) static CALL_SITE: Cell<u64> = const { Cell::new(0) };
}

/// The calling thread's id if the runtime controls it right now.
#[inline]
pub fn me() -> Option<u32> {
    if MODE.load(Ordering::Relaxed) != MODE_ACTIVE {
        return None;
    }
    let t = TID.with(|c| c.get());
    (t != NONE).then_some(t)
}

/// Sets the calling thread's id ([`NONE`]: not controlled).
pub fn set_me(t: u32) {
    TID.with(|c| c.set(t));
}

/// Records the site of the next interposed call.
pub fn set_call_site(site: u64) {
    CALL_SITE.with(|c| c.set(site));
}

/// Records `site` as the site of the next interposed call unless one was
/// announced already.
pub fn default_call_site(site: u64) {
    CALL_SITE.with(|c| {
        if c.get() == 0 {
            c.set(site);
        }
    });
}
