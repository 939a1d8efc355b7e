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
//! without clearing it (a persistent worker leaves the table out of its
//! snapshot, so the number keeps counting; a forked execution gets the
//! server's copy: either way a stale entry is a free slot). A granule the table has no slot
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
//! every access), and not for the branch-directed or concolic searches
//! (they read shared loads from the trace). Under `--memory-model rc11`
//! the argument holds with RC11's happens-before: the detector orders
//! accesses only through release/acquire synchronisation there (a relaxed
//! atomic orders nothing), so a program it finds race-free has every two
//! conflicting plain accesses ordered by synchronisation the search
//! explores.
//!
//! Granules several threads read and none writes are read privately by
//! all of them ([`READ_SHARED`]): otherwise which thread read first would
//! decide whose reads are steps, and a reordering of unrelated steps would
//! change the steps of both (the search could then ask for steps that no
//! longer exist). The entry keeps the last private reads of two readers; a
//! third reader's read writes the older one out. A write makes it shared.
//!
//! Accesses in an open iteration of an await loop may be private too: a
//! private write is progress and closes the thread's iterations, as a
//! write step does; a private read is none of the iteration's reads (only
//! a race can change what it read), and the iteration's other reads, or
//! the step that ends a run of private accesses, let the loop head judge
//! it.
//!
//! Two things make an access a scheduling point although its granule is
//! the thread's own: a run of
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
/// Owner of a granule several threads have read and none has written
/// since it was nobody's: every thread's plain reads of it are private.
/// Its two sides hold the last private reads of up to two threads.
const READ_SHARED: u32 = u32::MAX - 2;
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

/// A thread's last write or read of a granule that was no scheduling point.
#[derive(Clone, Copy)]
#[repr(C)]
struct Last {
    /// Events recorded before it.
    position: u32,
    /// The bytes it touched (0: none yet).
    bytes: u8,
    /// Its thread.
    thread: u16,
    /// Its site.
    site: u64,
}

/// One slot of the table.
#[derive(Clone, Copy)]
#[repr(C)]
struct Entry {
    /// `epoch << GRANULE_BITS | granule number`; another epoch: a free slot.
    tag: u64,
    /// The owner, [`SHARED`], [`READ_SHARED`] or [`FRESH`].
    owner: u32,
    /// Whether the owner wrote the granule (a step or not).
    written: bool,
    /// Whether another thread read it since the owner wrote it (with no
    /// thread but the owner writing): the owner's reads stay private, its
    /// writes are steps ([`scheduled`]).
    read_by_others: bool,
    /// The owner's last private write; of a [`READ_SHARED`] granule, a
    /// reader's last private read.
    write: Last,
    /// The owner's (a reader's) last private read.
    read: Last,
}

const NO_LAST: Last = Last {
    position: 0,
    bytes: 0,
    thread: 0,
    site: 0,
};

const EMPTY: Entry = Entry {
    tag: 0,
    owner: 0,
    written: false,
    read_by_others: false,
    write: NO_LAST,
    read: NO_LAST,
};

/// The table and the execution's counts, on pages of their own: a
/// persistent worker leaves them out of its snapshot
/// ([`own_span`]), and `epoch` keeps counting across its executions.
#[repr(C, align(4096))]
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

/// The table's pages (start, end): everything here is reset or forgotten
/// by [`start_execution`], so a snapshot of the process need not hold it.
pub fn own_span() -> (usize, usize) {
    let start = core::ptr::addr_of!(PRIVATE) as usize;
    (start, start + core::mem::size_of::<Private>())
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

/// What a private access does to one granule's entry.
#[derive(Clone, Copy)]
struct Plan {
    /// The entry's index.
    slot: usize,
    /// How the access changes the side it updates.
    update: Update,
    /// A free slot the access claims for its thread.
    claim: bool,
    /// The entry becomes [`READ_SHARED`] (a second thread's read).
    join_readers: bool,
    /// The side it updates: the write side, else the read side.
    write_side: bool,
}

const NO_PLAN: Plan = Plan {
    slot: 0,
    update: Update::Set,
    claim: false,
    join_readers: false,
    write_side: false,
};

/// How an access of `me` changes `side`: as [`update_of`] if the side is
/// `me`'s or empty; another thread's access there must be written out.
#[inline]
fn update_side(side: &Last, me: u32, bytes: u8, position: u32, site: u64) -> Update {
    if side.bytes != 0 && u32::from(side.thread) != me {
        Update::Flush
    } else {
        update_of(side, bytes, position, site)
    }
}

/// The side of a [`READ_SHARED`] entry a read of `me` updates: the one
/// holding `me`'s last read, else an empty one, else the older read (it is
/// written out).
#[inline]
fn reader_side(e: &Entry, me: u32) -> bool {
    let mine = |l: &Last| l.bytes != 0 && u32::from(l.thread) == me;
    if mine(&e.write) {
        true
    } else if mine(&e.read) || e.read.bytes == 0 {
        false
    } else {
        e.write.bytes == 0 || e.write.position < e.read.position
    }
}

/// Before a plain access of `kind` by the running thread `me`: if every
/// granule of the `size` bytes at `addr` is `me`'s own (or nobody's yet,
/// and becomes `me`'s), or the access reads granules no thread has written
/// since they were nobody's, records the access in the table and returns
/// true: the access is no scheduling point. False: the caller schedules it.
#[inline]
pub fn try_private(st: &mut State, me: u32, kind: OpKind, addr: u64, size: u64, site: u64) -> bool {
    let p = table();
    if !p.on || st.cut {
        return false;
    }
    let writes = matches!(kind, OpKind::Store | OpKind::RangeWrite);
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
    let position = st.event_count as u32;
    let first = addr / 4;
    let last = (addr + size - 1) / 4;
    let mut plan = [NO_PLAN; MAX_GRANULES];
    let mut records = 0u32;
    for (k, g) in (first..=last).enumerate() {
        let bytes = bytes_of(g, addr, size);
        plan[k] = match lookup(p, g) {
            // Read by others: the owner's writes are steps.
            Slot::Found(i) if p.slots[i].owner == me && !(writes && p.slots[i].read_by_others) => {
                let e = &p.slots[i];
                let side = if writes { &e.write } else { &e.read };
                let update = update_side(side, me, bytes, position, site);
                records += u32::from(update == Update::Flush);
                Plan {
                    slot: i,
                    update,
                    write_side: writes,
                    ..NO_PLAN
                }
            }
            Slot::Found(i) if p.slots[i].owner == READ_SHARED && !writes => {
                let e = &p.slots[i];
                let write_side = reader_side(e, me);
                let side = if write_side { &e.write } else { &e.read };
                let update = update_side(side, me, bytes, position, site);
                records += u32::from(update == Update::Flush);
                Plan {
                    slot: i,
                    update,
                    write_side,
                    ..NO_PLAN
                }
            }
            // Another thread has only read it: both read it privately from
            // now on (the owner's reads stay on the read side).
            Slot::Found(i)
                if !writes && p.slots[i].owner < FRESH.min(READ_SHARED) && !p.slots[i].written =>
            {
                Plan {
                    slot: i,
                    join_readers: true,
                    write_side: true,
                    ..NO_PLAN
                }
            }
            Slot::Found(i) if p.slots[i].owner == FRESH => {
                records += 2;
                Plan {
                    slot: i,
                    claim: true,
                    write_side: writes,
                    ..NO_PLAN
                }
            }
            // Two granules of the access may probe to one free slot.
            Slot::Free(i) if !plan[..k].iter().any(|q| q.claim && q.slot == i) => {
                records += 2;
                Plan {
                    slot: i,
                    claim: true,
                    write_side: writes,
                    ..NO_PLAN
                }
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
        crate::awaits::wrote_privately(st, me, addr, size);
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
        let step = plan[k];
        let i = step.slot;
        if step.claim {
            p.slots[i] = Entry {
                tag: p.epoch << GRANULE_BITS | g,
                owner: me,
                written: false,
                read_by_others: false,
                write: NO_LAST,
                read: NO_LAST,
            };
            p.reserved += 2;
        }
        if step.join_readers {
            p.slots[i].owner = READ_SHARED;
        }
        let e = p.slots[i];
        let side = if step.write_side { e.write } else { e.read };
        if step.update == Update::Flush {
            emit(st, p, g, &side, e.owner != READ_SHARED && step.write_side);
        }
        let bytes = bytes_of(g, addr, size);
        let new = match step.update {
            Update::Join => Last {
                bytes: side.bytes | bytes,
                ..side
            },
            Update::Set | Update::Flush => Last {
                position,
                bytes,
                thread: me as u16,
                site,
            },
        };
        let e = &mut p.slots[i];
        if step.write_side {
            e.write = new;
        } else {
            e.read = new;
        }
        e.written |= writes;
    }
    true
}

/// Writes `last`, a write (`writes`) or read of granule `g` by its thread,
/// to the channel's private region (room was reserved for it).
fn emit(st: &State, p: &mut Private, g: u64, last: &Last, writes: bool) {
    if last.bytes == 0 {
        return;
    }
    let record = PrivateRecord {
        granule: g * 4,
        site: last.site,
        position: last.position,
        thread: last.thread,
        kind: if writes { PRIVATE_WRITE } else { PRIVATE_READ },
        bytes: last.bytes,
    };
    if st.chan.write_private(p.used, &record) {
        p.used += 1;
        st.chan.set_private_count(p.used);
    }
}

/// Granule `i` becomes shared: its owner's (or readers') private accesses
/// go to the channel.
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
    emit(st, p, g, &e.write, e.owner != READ_SHARED);
    emit(st, p, g, &e.read, false);
    p.reserved = p.reserved.saturating_sub(2);
    p.slots[i] = Entry {
        owner: SHARED,
        written: true,
        read_by_others: false,
        write: NO_LAST,
        read: NO_LAST,
        ..e
    };
}

/// Another thread reads granule `i`, which its owner wrote: the owner's
/// private accesses so far go to the channel (the race detector compares
/// the read with them) and the owner keeps the granule for its reads,
/// which commute with the other threads' reads. Were the granule shared
/// instead, whether the owner's later reads are steps would depend on
/// which of two commuting reads ran first, and a reordering the search
/// predicts could ask for steps that are then not taken. Shared if the
/// channel has no room for the owner's later records.
fn read_by_others(st: &State, p: &mut Private, i: usize) {
    let e = p.slots[i];
    if e.read_by_others {
        return;
    }
    if p.used + p.reserved + 2 > PRIVATE_CAPACITY {
        share(st, p, i);
        return;
    }
    let g = e.tag & ((1 << GRANULE_BITS) - 1);
    emit(st, p, g, &e.write, true);
    emit(st, p, g, &e.read, false);
    p.slots[i] = Entry {
        read_by_others: true,
        write: NO_LAST,
        read: NO_LAST,
        ..e
    };
}

/// Thread `me` reached a scheduling point at `op`, before it parks: what
/// `op` does to the memory it touches. A write (plain or atomic) makes
/// another thread's granules, and granules several threads read, shared;
/// an atomic write makes the thread's own shared too. A read (plain or
/// atomic) of a granule its owner has only read makes it read by several
/// threads; a plain read of one its owner wrote, read by others
/// ([`read_by_others`]).
/// A plain access makes granules nobody touched yet `me`'s (it is
/// an event itself); an atomic read makes them read by several threads, an
/// atomic write shared. So whether a read is private does not depend on
/// which of two threads' reads ran first, as long as no other thread
/// writes.
#[inline]
pub fn scheduled(st: &State, me: u32, op: &Op) {
    let p = table();
    if !p.on || st.cut {
        return;
    }
    let (plain, writes) = match op.kind {
        OpKind::Load | OpKind::RangeRead => (true, false),
        OpKind::Store | OpKind::RangeWrite => (true, true),
        OpKind::AtomicLoad => (false, false),
        OpKind::AtomicStore | OpKind::AtomicRmw | OpKind::CmpXchg => (false, true),
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
                let e = p.slots[i];
                match e.owner {
                    SHARED => {}
                    READ_SHARED if writes => share(st, p, i),
                    READ_SHARED => {}
                    owner if owner == me && plain => p.slots[i].written |= writes,
                    // An atomic read makes it shared, so that the owner's
                    // later plain reads are steps the search orders with
                    // the atomic's writes (no race report covers a plain
                    // access against an atomic one).
                    owner if owner != me && plain && !writes && e.written => {
                        read_by_others(st, p, i)
                    }
                    _ if writes || e.written => share(st, p, i),
                    _ => p.slots[i].owner = READ_SHARED,
                }
            }
            Slot::Found(i) | Slot::Free(i) => {
                let room = p.used + p.reserved + 2 <= PRIVATE_CAPACITY;
                let owner = match (plain, writes) {
                    _ if !room => SHARED,
                    (true, _) => me,
                    (false, false) => READ_SHARED,
                    (false, true) => SHARED,
                };
                if owner != SHARED {
                    p.reserved += 2;
                }
                p.slots[i] = Entry {
                    tag: p.epoch << GRANULE_BITS | g,
                    owner,
                    written: writes,
                    read_by_others: false,
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
                    written: false,
                    read_by_others: false,
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
            thread: 2,
            site: 9,
        };
        assert!(update_of(&last, 0b1111, 7, 1) == Update::Set);
        assert!(update_of(&last, 0b0100, 5, 9) == Update::Join);
        assert!(update_of(&last, 0b0100, 6, 9) == Update::Flush);
        assert!(update_of(&last, 0b0100, 5, 8) == Update::Flush);
        assert!(update_of(&NO_LAST, 0b0001, 1, 1) == Update::Set);
        // Another thread's read is never dropped or joined.
        assert!(update_side(&last, 2, 0b1111, 7, 1) == Update::Set);
        assert!(update_side(&last, 3, 0b1111, 7, 1) == Update::Flush);
        assert!(update_side(&last, 3, 0b0100, 5, 9) == Update::Flush);
        assert!(update_side(&NO_LAST, 3, 0b0001, 1, 1) == Update::Set);
    }

    #[test]
    fn a_reader_keeps_its_side_takes_an_empty_one_or_the_older() {
        let read = |thread, position| Last {
            position,
            bytes: 0b1111,
            thread,
            site: 1,
        };
        let entry = |write, read| Entry {
            tag: 0,
            owner: READ_SHARED,
            written: false,
            read_by_others: false,
            write,
            read,
        };
        // Readers 1 (read side) and 2 (write side).
        let e = entry(read(2, 8), read(1, 5));
        assert!(!reader_side(&e, 1));
        assert!(reader_side(&e, 2));
        // A third reader takes the side of the older read (reader 1's).
        assert!(!reader_side(&e, 3));
        assert!(reader_side(&entry(read(2, 4), read(1, 5)), 3));
        // An empty side first.
        assert!(reader_side(&entry(NO_LAST, read(1, 5)), 3));
        assert!(!reader_side(&entry(NO_LAST, NO_LAST), 3));
    }
}
