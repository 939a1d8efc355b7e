//! Library regions: library code whose memory accesses are not
//! instrumented, entered through API methods that are.
//!
//! Std's channels (`std::sync::mpmc`) are generic, so their code is
//! compiled in the user's crate; instrumented access by access, one message
//! takes thousands of executions, every order of the channel's internal
//! atomics being a partial order of its own. The pass leaves that code
//! uninstrumented and brackets each method of a channel flavour with
//! `__reach_region_enter(site, self)` / `__reach_region_exit(site)`.
//!
//! A region's code then runs without scheduling points of its own: from one
//! visible operation of the thread to the next, it is atomic (one thread
//! runs at a time). What makes two such stretches of two threads ordered
//! is a *touch*: a write of the region's object (the channel) recorded at
//! the outermost entry and again after every visible operation the thread
//! executes inside the region (a futex wait where it blocks, a futex wake
//! of a waiting receiver, a yield of the channel's backoff). Every stretch
//! of region code begins with a touch,
//! so two threads' stretches on one channel conflict, and each search
//! orders them both ways, like the critical sections of one lock that is
//! released wherever the thread may block.
//!
//! Inside a region the runtime records none of the thread's memory
//! accesses, whatever code makes them (the channel's calls to `core`'s
//! atomics, the thread parker's words, the `Drop` of a message the channel
//! discards); its blocking calls (futex waits and wakes, yields) stay
//! visible operations, each followed by a touch.
//!
//! A touch is not progress of the toucher for spin detection (a thread
//! waiting in the channel's backoff still counts as spinning); it releases
//! the spinners that read nothing visible, as any write does.

use crate::sched::touch_region as touch;
use crate::state::{me, state};
use core::ffi::c_void;

/// Entry of a region API method with object `object`.
#[no_mangle]
pub extern "C" fn __reach_region_enter(site: u64, object: *const c_void) {
    let Some(me) = me() else { return };
    // SAFETY: a controlled thread calling into the runtime holds the right
    // to run.
    let region = &mut unsafe { state() }.threads[me as usize].region;
    region.depth += 1;
    if region.depth == 1 {
        region.object = object as u64;
        region.site = site;
        touch(me);
    }
}

/// Return (or resumed unwinding) of a region API method.
#[no_mangle]
pub extern "C" fn __reach_region_exit(_site: u64) {
    let Some(me) = me() else { return };
    // SAFETY: as in `__reach_region_enter`.
    let region = &mut unsafe { state() }.threads[me as usize].region;
    region.depth = region.depth.saturating_sub(1);
}
