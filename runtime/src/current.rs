//! Which thread runs here and in which mode the runtime is: the lowest
//! layer of the runtime's state, read on every hook.

use core::cell::Cell;
use core::sync::atomic::{AtomicBool, AtomicIsize, AtomicU32, Ordering};

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
    /// The runtime made this thread one of the program's threads at some
    /// point (it may be uncontrolled now: finished, or unwinding).
    static ADOPTED: Cell<bool> = const { Cell::new(false) };
}

/// The calling thread's id if the runtime controls it right now.
#[inline]
pub fn me() -> Option<u32> {
    me_at(0)
}

/// [`me`] for a hook at `site`: a thread the runtime never controlled
/// that reaches it during an execution is noted as a foreign thread
/// (`reach_channel::sources::Source::ForeignThread`) with the site.
#[inline]
pub fn me_at(site: u64) -> Option<u32> {
    if MODE.load(Ordering::Relaxed) != MODE_ACTIVE {
        return None;
    }
    let t = TID.with(|c| c.get());
    if t == NONE {
        stranger(site);
        return None;
    }
    Some(t)
}

/// An uncontrolled thread called into the runtime during an execution:
/// notes it if the runtime never made it one of the program's threads.
#[cold]
fn stranger(site: u64) {
    if !ADOPTED.with(|c| c.get()) {
        crate::seen::note(reach_channel::sources::Source::ForeignThread, site);
    }
}

/// Sets the calling thread's id ([`NONE`]: not controlled).
pub fn set_me(t: u32) {
    TID.with(|c| c.set(t));
    if t != NONE {
        ADOPTED.with(|c| c.set(true));
    }
}

/// Records the site of the next interposed call.
pub fn set_call_site(site: u64) {
    CALL_SITE.with(|c| c.set(site));
}

/// Takes the site announced for the interposed call in progress (0 if
/// none was).
pub fn take_announced() -> u64 {
    CALL_SITE.with(|c| c.replace(0))
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

/// Offset from a thread's pointer of its word of the program's call into
/// the standard library in progress (`reach_channel::hooks::LIBRARY_CALL_WORD`),
/// once the program registered it (`__reach_library_word`).
static LIBRARY_WORD_OFFSET: AtomicIsize = AtomicIsize::new(0);
/// The offset is known.
static LIBRARY_WORD_KNOWN: AtomicBool = AtomicBool::new(false);

/// The calling thread's thread pointer, where its static TLS is anchored.
#[inline]
fn thread_pointer() -> Option<usize> {
    #[cfg(target_arch = "x86_64")]
    {
        let tp: usize;
        // SAFETY: reads the TCB's self pointer at fs:0, present in every thread.
        unsafe { core::arch::asm!("mov {}, fs:0", out(reg) tp, options(nostack, readonly)) };
        Some(tp)
    }
    #[cfg(target_arch = "aarch64")]
    {
        let tp: usize;
        // SAFETY: reads the thread pointer register.
        unsafe { core::arch::asm!("mrs {}, tpidr_el0", out(reg) tp, options(nomem, nostack)) };
        Some(tp)
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    {
        None
    }
}

/// The program's word of the calling thread, if the program has one.
#[inline]
fn library_word() -> Option<*mut u64> {
    if !LIBRARY_WORD_KNOWN.load(Ordering::Relaxed) {
        return None;
    }
    let offset = LIBRARY_WORD_OFFSET.load(Ordering::Relaxed);
    Some(thread_pointer()?.wrapping_add_signed(offset) as *mut u64)
}

/// Registers the calling thread's address of the program's word (an
/// `initialexec` thread-local: every thread's lies at the same offset from
/// its thread pointer). The first registration counts.
pub fn register_library_word(word: *mut u64) {
    let Some(tp) = thread_pointer() else {
        return;
    };
    if word.is_null() || LIBRARY_WORD_KNOWN.load(Ordering::Relaxed) {
        return;
    }
    LIBRARY_WORD_OFFSET.store((word as usize).wrapping_sub(tp) as isize, Ordering::Relaxed);
    LIBRARY_WORD_KNOWN.store(true, Ordering::Release);
}

/// The calling thread's call from the program's own code into the
/// standard library in progress (a site id), 0 if none.
#[inline]
pub fn library_call() -> u64 {
    // SAFETY: the word is the calling thread's own thread-local of the
    // program, which lives as long as the thread.
    library_word().map_or(0, |w| unsafe { w.read() })
}

/// Sets the calling thread's library call in progress.
#[inline]
pub fn set_library_call(site: u64) {
    if let Some(w) = library_word() {
        // SAFETY: as in `library_call`.
        unsafe { w.write(site) };
    }
}
