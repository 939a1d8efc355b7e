//! Where the runtime notes the sources of nondeterminism it sees
//! (`reach_channel::sources`): the channel header's record, reachable from
//! any thread, including threads the runtime did not create. A leaf: the
//! callers decide whether an execution is under way.

use core::sync::atomic::{AtomicPtr, Ordering};
use reach_channel::sources::{Source, Sources};
use reach_channel::Header;

/// The channel's header, once attached (null before, and without a
/// channel).
static HEADER: AtomicPtr<Header> = AtomicPtr::new(core::ptr::null_mut());

/// Notes into the record of the channel header `header` from now on (at
/// start-up, after attaching to the channel).
pub fn attach(header: *mut Header) {
    HEADER.store(header, Ordering::Release);
}

/// The record and the number of events recorded so far, if attached.
#[inline]
fn record() -> Option<(&'static Sources, u64)> {
    let p = HEADER.load(Ordering::Acquire);
    if p.is_null() {
        return None;
    }
    // SAFETY: a non-null pointer is the channel mapping's header, mapped
    // for the life of the process; the record's fields are atomic or
    // written only by the thread that claimed them (`Sources` is `Sync`),
    // and the event count is atomic.
    let header = unsafe { &*p };
    Some((&header.sources, header.event_count.load(Ordering::Relaxed)))
}

/// Notes `source`, used at `site` (0: unknown).
#[inline]
pub fn note(source: Source, site: u64) {
    if let Some((r, step)) = record() {
        r.note(source, site, step);
    }
}

/// True if `source` was noted in this execution.
#[inline]
pub fn noted(source: Source) -> bool {
    record().is_some_and(|(r, _)| r.noted(source))
}

/// Records a file the program opened; `site` is asked for only when the
/// file gets a record.
pub fn note_file(path: &[u8], writes: bool, site: impl FnOnce() -> u64) {
    if let Some((r, step)) = record() {
        if r.has_room_for(path, writes) {
            r.note_file(path, writes, site(), step);
        }
    }
}
