//! Memory only one thread touches costs nothing: a plain access to a
//! granule no other thread has accessed in the execution is no scheduling
//! point and records no event (`REQ_PRIVATE`, see
//! [`reach_channel::private`]).
//!
//! The ownership table maps each 4-byte granule an execution touched to the
//! first thread that touched it, or to *shared* once a second thread
//! reached it. It is a fixed array in the runtime's static memory (open
//! addressing, [`PROBES`] slots per lookup); an entry carries the number of
//! the execution it belongs to, so starting an execution forgets the table
//! without clearing it (persistent executions restore the array with the
//! rest of the runtime's memory, a forked execution gets the server's copy:
//! either way a stale entry is a free slot). A granule the table has no slot
//! for is shared. Per owned granule the entry keeps the owner's last write
//! and last read that were no scheduling point: the bytes, the *position*
//! (events recorded before it) and the site. When a second thread reaches
//! the granule (a plain access, or any atomic access, at its scheduling
//! point, before it parks), the entry becomes shared and the owner's two
//! accesses are written to the channel's private region, for the race
//! detector. Nothing here allocates, locks or makes a system call.
//!
//! Why no behaviour is lost. A private access's thread runs on without a
//! scheduling point; what another thread could do between it and the
//! thread's next scheduling point cannot touch the granule (the second
//! thread to touch it makes it shared before its own access runs). Across
//! executions: if the program has no data race, every two conflicting
//! accesses of different threads are ordered by synchronisation, which is a
//! scheduling point, so the search reorders the synchronisation and with it
//! the accesses, as it did when they were events. If it has one, some
//! execution the search runs shows it (the races of a racy program show
//! with the synchronisation orders alone), and the race detector sees both
//! accesses with their vector clocks: the later one is an event (the
//! granule was shared by then) and the earlier one an event or a record.
//! That argument needs the search to stop at the first race and every
//! plain access to be seen by the detector as it happened, so the driver
//! asks for private accesses only with the happens-before race detector
//! reporting races and stopping there (not with `--ignore-races`,
//! `--keep-going` or the lockset detector, which intersects locksets at
//! every access), under sequential consistency, and not for the
//! branch-directed or concolic searches (they read shared loads from the
//! trace).
//!
//! Three things make an access a scheduling point although its granule is
//! the thread's own: an open iteration of an await loop (its reads must be
//! events for the loop head to judge the iteration), a run of
//! [`RUN_LIMIT`] private accesses in a row (a spin loop over memory only
//! its thread has touched yet must reach scheduling points, or the thread
//! that would release it could never run), and an access of more than
//! [`MAX_BYTES`] bytes.

use crate::state::State;
use reach_channel::layout::REQ_PRIVATE;
use reach_channel::private::{PrivateRecord, PRIVATE_CAPACITY, PRIVATE_READ, PRIVATE_WRITE};
use reach_channel::{Op, OpKind, MAX_THREADS};

/// Slots of the ownership table (a power of two).
pub const CAPACITY: usize = 1 << 18;
/// Slots a lookup probes before the granule counts as shared.
pub const PROBES: usize = 8;
/// Consecutive private accesses of one thread after which its next access
/// is a scheduling point.
pub const RUN_LIMIT: u32 = 1 << 16;
/// Widest access that may be private (wider ones are scheduling points).
pub const MAX_BYTES: u64 = 64;
/// Granules an access of [`MAX_BYTES`] bytes may touch.
const MAX_GRANULES: usize = (MAX_BYTES as usize) / 4 + 1;
/// Owner of a shared granule.
const SHARED: u32 = u32::MAX;
/// Owner of a granule of a heap block allocated since its last access:
/// nobody's, like a granule the table does not hold.
const FRESH: u32 = u32::MAX - 1;
/// Largest heap block whose granules an allocation makes fresh (a larger
/// one keeps their owners: a scheduling point more, never one less).
const MAX_FRESH_BYTES: u64 = 1 << 20;
/// Bits of a tag that hold the granule number (addresses below 2^47).
const GRANULE_BITS: u32 = 45;
/// Execution numbers wrap (clearing the table) before reaching this.
const EPOCHS: u64 = 1 << (64 - GRANULE_BITS);

/// The owner's last write or read of a granule that was no scheduling point.
#[derive(Clone, Copy)]
#[repr(C)]
struct Last {
    /// Events recorded before it.
    position: u32,
    /// The bytes it touched (0: none yet).
    bytes: u8,
    /// Its site.
    site: u64,
}

/// One slot of the table.
#[derive(Clone, Copy)]
#[repr(C)]
struct Entry {
    /// `epoch << GRANULE_BITS | granule number`; another epoch: a free slot.
    tag: u64,
    /// The owner, or [`SHARED`].
    owner: u32,
    write: Last,
    read: Last,
}

const NO_LAST: Last = Last {
    position: 0,
    bytes: 0,
    site: 0,
};

const EMPTY: Entry = Entry {
    tag: 0,
    owner: 0,
    write: NO_LAST,
    read: NO_LAST,
};

/// The table and the execution's counts.
struct Private {
    /// Private accesses asked for in this execution.
    on: bool,
    /// The execution's number (never 0).
    epoch: u64,
    /// Records written to the channel.
    used: u32,
    /// Records owned granules may still need (two each).
    reserved: u32,
    /// Consecutive private accesses per thread.
    run: [u32; MAX_THREADS],
    slots: [Entry; CAPACITY],
}

static mut PRIVATE: Private = Private {
    on: false,
    epoch: 0,
    used: 0,
    reserved: 0,
    run: [0; MAX_THREADS],
    slots: [EMPTY; CAPACITY],
};

/// The table; only the running thread touches it.
#[inline]
fn table() -> &'static mut Private {
    // SAFETY: only the thread holding the right to run calls into this
    // module (the hand-over orders the accesses), and never re-entrantly.
    unsafe { &mut *core::ptr::addr_of_mut!(PRIVATE) }
}

/// Starts an execution: private accesses if `flags` has `REQ_PRIVATE`;
/// every granule is unowned again.
pub fn start_execution(flags: u32) {
    let p = table();
    p.on = flags & REQ_PRIVATE != 0;
    p.epoch += 1;
    if p.epoch >= EPOCHS {
        p.slots.fill(EMPTY);
        p.epoch = 1;
    }
    p.used = 0;
    p.reserved = 0;
    p.run = [0; MAX_THREADS];
}

/// Where a granule is in the table.
enum Slot {
    /// At this index.
    Found(usize),
    /// Not there; this free index would hold it.
    Free(usize),
    /// Not there and no room: shared.
    Full,
}

/// Looks granule number `g` up.
#[inline]
fn lookup(p: &Private, g: u64) -> Slot {
    let tag = p.epoch << GRANULE_BITS | g;
    let mut i = (g.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 46) as usize & (CAPACITY - 1);
    for _ in 0..PROBES {
        let t = p.slots[i].tag;
        if t == tag {
            return Slot::Found(i);
        }
        if t >> GRANULE_BITS != p.epoch {
            return Slot::Free(i);
        }
        i = (i + 1) & (CAPACITY - 1);
    }
    Slot::Full
}

/// The bytes of granule `g` that `size` bytes at `addr` touch.
#[inline]
fn bytes_of(g: u64, addr: u64, size: u64) -> u8 {
    let start = (g * 4).max(addr);
    let end = (g * 4 + 4).min(addr + size);
    let n = end - start;
    (((1u32 << n) - 1) << (start - g * 4)) as u8
}

/// How an access changes one side (write or read) of an owned entry.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Update {
    /// It becomes the side's last access.
    Set,
    /// Same position and site: its bytes join the side's.
    Join,
    /// The side's bytes must go to the channel first (another position or
    /// site for only some of its bytes), then it is set.
    Flush,
}

/// How an access of `bytes` at `position` from `site` changes `last`.
#[inline]
fn update_of(last: &Last, bytes: u8, position: u32, site: u64) -> Update {
    if last.bytes & !bytes == 0 {
        Update::Set
    } else if last.position == position && last.site == site {
        Update::Join
    } else {
        Update::Flush
    }
}

/// Before a plain access of `kind` by the running thread `me`: if every
/// granule of the `size` bytes at `addr` is `me`'s own (or nobody's yet,
/// and becomes `me`'s), records the access in the table and returns true:
/// the access is no scheduling point. False: the caller schedules it.
#[inline]
pub fn try_private(st: &mut State, me: u32, kind: OpKind, addr: u64, size: u64, site: u64) -> bool {
    let p = table();
    if !p.on || st.cut {
        return false;
    }
    if st.threads[me as usize].awaits.n > 0 {
        return false;
    }
    let t = me as usize % MAX_THREADS;
    if st.thread_count <= 1 {
        // The main thread alone, before it created any thread: what it
        // does happens before everything other threads will do.
        return true;
    }
    if size == 0 || size > MAX_BYTES || addr >> (GRANULE_BITS + 2) != 0 {
        return false;
    }

    let run = &mut p.run[me as usize % MAX_THREADS];
    if *run >= RUN_LIMIT {
        *run = 0;
        return false;
    }
    let writes = matches!(kind, OpKind::Store | OpKind::RangeWrite);
    let position = st.event_count as u32;
    let first = addr / 4;
    let last = (addr + size - 1) / 4;
    let mut plan = [(0usize, Update::Set, false); MAX_GRANULES];
    let mut records = 0u32;
    for (k, g) in (first..=last).enumerate() {
        let bytes = bytes_of(g, addr, size);
        plan[k] = match lookup(p, g) {
            Slot::Found(i) if p.slots[i].owner == me => {
                let e = &p.slots[i];
                let side = if writes { &e.write } else { &e.read };
                let u = update_of(side, bytes, position, site);
                records += u32::from(u == Update::Flush);
                (i, u, false)
            }
            Slot::Found(i) if p.slots[i].owner == FRESH => {
                records += 2;
                (i, Update::Set, true)
            }
            // Two granules of the access may probe to one free slot.
            Slot::Free(i) if !plan[..k].iter().any(|&(j, _, claim)| claim && j == i) => {
                records += 2;
                (i, Update::Set, true)
            }
            _ => return false,
        };
    }
    if p.used + p.reserved + records > PRIVATE_CAPACITY {
        return false;
    }
    p.run[t] += 1;
    if writes {
        crate::spin::wrote_privately(st, me);
    } else {
        let op = Op {
            kind,
            flags: reach_channel::EventFlags(0),
            object: addr,
            aux: size,
        };
        crate::spin::read_privately(st, me, &op);
    }
    for (k, g) in (first..=last).enumerate() {
        let (i, u, claim) = plan[k];
        if claim {
            p.slots[i] = Entry {
                tag: p.epoch << GRANULE_BITS | g,
                owner: me,
                write: NO_LAST,
                read: NO_LAST,
            };
            p.reserved += 2;
        }
        let e = p.slots[i];
        let side = if writes { e.write } else { e.read };
        if u == Update::Flush {
            emit(st, p, me, g, &side, writes);
        }
        let bytes = bytes_of(g, addr, size);
        let new = match u {
            Update::Join => Last {
                bytes: side.bytes | bytes,
                ..side
            },
            Update::Set | Update::Flush => Last {
                position,
                bytes,
                site,
            },
        };
        if writes {
            p.slots[i].write = new;
        } else {
            p.slots[i].read = new;
        }
    }
    true
}

/// Writes `last`, a write (`writes`) or read of granule `g` by `owner`, to
/// the channel's private region (room was reserved for it).
fn emit(st: &State, p: &mut Private, owner: u32, g: u64, last: &Last, writes: bool) {
    if last.bytes == 0 {
        return;
    }
    let record = PrivateRecord {
        granule: g * 4,
        site: last.site,
        position: last.position,
        thread: owner as u16,
        kind: if writes { PRIVATE_WRITE } else { PRIVATE_READ },
        bytes: last.bytes,
    };
    if st.chan.write_private(p.used, &record) {
        p.used += 1;
        st.chan.set_private_count(p.used);
    }
}

/// Granule `i` becomes shared: its owner's private accesses go to the
/// channel.
fn share(st: &State, p: &mut Private, i: usize) {
    let e = p.slots[i];
    if e.owner == SHARED {
        return;
    }
    if e.owner == FRESH {
        p.slots[i].owner = SHARED;
        return;
    }
    let g = e.tag & ((1 << GRANULE_BITS) - 1);
    emit(st, p, e.owner, g, &e.write, true);
    emit(st, p, e.owner, g, &e.read, false);
    p.reserved = p.reserved.saturating_sub(2);
    p.slots[i] = Entry {
        owner: SHARED,
        write: NO_LAST,
        read: NO_LAST,
        ..e
    };
}

/// Thread `me` reached a scheduling point at `op`, before it parks: the
/// memory `op` touches is another thread's no longer. A plain access makes
/// granules nobody touched yet `me`'s (it is an event itself), an atomic
/// one makes them shared, and either makes another thread's granules
/// shared.
#[inline]
pub fn scheduled(st: &State, me: u32, op: &Op) {
    let p = table();
    if !p.on || st.cut {
        return;
    }
    let plain = match op.kind {
        OpKind::Load | OpKind::Store | OpKind::RangeRead | OpKind::RangeWrite => true,
        OpKind::AtomicLoad | OpKind::AtomicStore | OpKind::AtomicRmw | OpKind::CmpXchg => false,
        _ => return,
    };
    p.run[me as usize % MAX_THREADS] = 0;
    let (addr, size) = (op.object, op.aux.max(1));
    if addr >> (GRANULE_BITS + 2) != 0 {
        return;
    }
    let last = addr
        .saturating_add(size - 1)
        .min((1 << (GRANULE_BITS + 2)) - 1)
        / 4;
    for g in addr / 4..=last {
        match lookup(p, g) {
            Slot::Found(i) if p.slots[i].owner != FRESH => {
                let owner = p.slots[i].owner;
                if owner != SHARED && (owner != me || !plain) {
                    share(st, p, i);
                }
            }
            Slot::Found(i) | Slot::Free(i) => {
                let room = p.used + p.reserved + 2 <= PRIVATE_CAPACITY;
                let owner = if plain && room { me } else { SHARED };
                if owner != SHARED {
                    p.reserved += 2;
                }
                p.slots[i] = Entry {
                    tag: p.epoch << GRANULE_BITS | g,
                    owner,
                    write: NO_LAST,
                    read: NO_LAST,
                };
            }
            Slot::Full => {}
        }
    }
}

/// A heap block of `size` bytes at `address` was just allocated by the
/// running thread: its granules are new memory, nobody's (the race
/// detector forgets their accesses at the allocation too; the C library
/// ordered the free of the memory's earlier block before it). The owners'
/// accesses to the earlier block are dropped unwritten.
pub fn fresh_block(st: &State, address: u64, size: u64) {
    let p = table();
    if !p.on || st.cut || size == 0 || size > MAX_FRESH_BYTES {
        return;
    }
    if address >> (GRANULE_BITS + 2) != 0 {
        return;
    }
    // Only granules wholly inside the block: a granule it shares with a
    // neighbour keeps its owner.
    let first = address.div_ceil(4);
    let end = (address + size) / 4;
    for g in first..end {
        if let Slot::Found(i) = lookup(p, g) {
            let e = &mut p.slots[i];
            if e.owner != FRESH {
                if e.owner != SHARED {
                    p.reserved = p.reserved.saturating_sub(2);
                }
                *e = Entry {
                    owner: FRESH,
                    write: NO_LAST,
                    read: NO_LAST,
                    ..*e
                };
            }
        }
    }
}

/// Is the execution asking for private accesses?
pub fn on() -> bool {
    table().on
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_of_a_granule_an_access_touches() {
        assert_eq!(bytes_of(1, 4, 4), 0b1111);
        assert_eq!(bytes_of(1, 5, 1), 0b0010);
        assert_eq!(bytes_of(1, 6, 4), 0b1100);
        assert_eq!(bytes_of(2, 6, 4), 0b0011);
        assert_eq!(bytes_of(1, 0, 64), 0b1111);
    }

    #[test]
    fn a_side_is_set_joined_or_flushed() {
        let last = Last {
            position: 5,
            bytes: 0b0011,
            site: 9,
        };
        assert!(update_of(&last, 0b1111, 7, 1) == Update::Set);
        assert!(update_of(&last, 0b0100, 5, 9) == Update::Join);
        assert!(update_of(&last, 0b0100, 6, 9) == Update::Flush);
        assert!(update_of(&last, 0b0100, 5, 8) == Update::Flush);
        assert!(update_of(&NO_LAST, 0b0001, 1, 1) == Update::Set);
    }
}
