//! The RC11 memory model (Lahav et al., PLDI 2017) in the runtime: what an
//! atomic load may read, and which value it returns.
//!
//! Under `--memory-model sc` nothing here runs ([`active`] is false) and
//! every load reads what memory holds. Under `rc11` the runtime keeps, for
//! each atomic location, its latest stores ([`locations`]) with their
//! writers' views as vector clocks ([`clock`]), each thread's view, and the
//! clocks of mutexes and the other synchronisation objects ([`sync`]). A
//! load's *candidates* are the kept stores no older in modification order
//! than the latest one its thread has seen (through happens-before, its own
//! reads and writes: coherence); the search picks one (0: the latest,
//! today's value; the prefix entry's choice, or a random one under the
//! randomised policies), the load's event records it (a
//! [`reach_channel::memory_model::ReadRecord`]), and
//! `__reach_atomic_load_value` returns its value after the native load.
//! Memory holds the latest store's value: a store's own value is what
//! memory holds when the next store to the location comes, and an access
//! placed elsewhere ([`writes`]) runs on memory set up for it and is
//! undone at its thread's next scheduling point ([`restore`]).
//!
//! The rules:
//! - *Modification order*: a store goes at any place coherence allows
//!   (after every store its thread has seen), chosen like a load's store
//!   ([`writes`]; 2+2W and S need it).
//! - *Release/acquire*: an acquire load (or RMW) that reads a store joins
//!   the store's release view into its thread's view; a relaxed one keeps
//!   it for a later acquire fence. A store's release view is its thread's
//!   view if it is a release store, else its thread's view at its last
//!   release fence, joined with the release view its thread's earlier store
//!   to the location carried (RC11's `po|loc` in release sequences); an RMW
//!   adds the release view of the store it read (release sequences
//!   continue through RMWs).
//! - *RMWs* read the store just before their place in modification order
//!   and no store goes between them (atomicity); they run natively on
//!   that store's value.
//! - *seq_cst*: a `seq_cst` load reads no store older than the latest
//!   `seq_cst` store to its location, and a `seq_cst` store goes after it
//!   (taking execution order as RC11's
//!   order of `seq_cst` events: necessary for psc to be acyclic with that
//!   order, not sufficient where non-`seq_cst` accesses and fences mix with
//!   `seq_cst` ones, so some such executions RC11 forbids may be run);
//!   `seq_cst` fences synchronise with each other in execution order
//!   through one clock (more than RC11's psc: some executions it allows
//!   are not run, never one it forbids through fences alone).
//! - Plain stores to a tracked location are stores in its history; mutexes,
//!   condition variables, semaphores, barriers, once, futex words, thread
//!   creation and joining synchronise as release/acquire pairs (each
//!   operation both, on its object, except one that only read it: a busy
//!   trylock or try-wait, a timed-out wait, `sem_getvalue` acquire only,
//!   so that two of them, which commute for the search, pass nothing to
//!   each other).
//! - A compare-and-swap reads any store a load could: one holding the
//!   expected value makes it succeed (an RMW just after it), another makes
//!   it fail (a load with its failure ordering).
//! - Accesses the model cannot follow (sizes other than 1, 2, 4, 8 bytes,
//!   a full location table) read the latest store and synchronise like a
//!   `seq_cst` fence: more synchronisation, never less.
//!
//! No allocation and no system call: the tables are static, reset per
//! execution. Only the running thread touches them.

pub mod clock;
pub mod locations;
mod restore;
pub mod sync;
mod writes;

use crate::state::State;
use clock::{VClock, MODEL_THREADS};
use core::sync::atomic::{AtomicBool, Ordering};
use locations::{Location, Locations};
use reach_channel::memory_model::{
    ReadRecord, INITIAL_WRITER, ORDERING_FAILURE_SHIFT, ORDERING_VALUE_FOLLOWS,
};
use reach_channel::{Op, OpKind};
use restore::Restore;
use sync::SyncObjects;
use writes::{write, Write};

/// LLVM's numeric orderings, as the hooks receive them.
const MONOTONIC: u32 = 2;
const ACQUIRE: u32 = 4;
const RELEASE: u32 = 5;
const ACQ_REL: u32 = 6;
const SEQ_CST: u32 = 7;

fn is_acquire(o: u32) -> bool {
    matches!(o, ACQUIRE | ACQ_REL | SEQ_CST)
}

fn is_release(o: u32) -> bool {
    matches!(o, RELEASE | ACQ_REL | SEQ_CST)
}

/// What a hook announced before its operation's scheduling point.
#[derive(Clone, Copy)]
struct Announced {
    ordering: u32,
    expected: u64,
    valid: bool,
}

impl Announced {
    /// Nothing announced (all zeros; counts as `seq_cst`).
    const NONE: Announced = Announced {
        ordering: 0,
        expected: 0,
        valid: false,
    };
}

/// One thread's views.
#[derive(Clone, Copy)]
struct ThreadModel {
    /// Its happens-before view.
    clock: VClock,
    /// Its view at its last release fence.
    release_fence: VClock,
    /// Release views its relaxed reads saw, for its next acquire fence.
    acquire_pending: VClock,
    /// The ordering (and expected value) of its pending atomic operation.
    announced: Announced,
    /// The value its last atomic load returns instead of memory's, when
    /// `chosen`.
    value: u64,
    /// Its last atomic load read another store than the latest.
    chosen: bool,
}

impl ThreadModel {
    const EMPTY: ThreadModel = ThreadModel {
        clock: VClock::ZERO,
        release_fence: VClock::ZERO,
        acquire_pending: VClock::ZERO,
        announced: Announced::NONE,
        value: 0,
        chosen: false,
    };
}

/// The model's state for one execution, on pages of its own: a persistent
/// worker leaves it out of its snapshot ([`own_span`]).
#[repr(C, align(4096))]
struct Model {
    threads: [ThreadModel; MODEL_THREADS],
    locations: Locations,
    sync: SyncObjects,
    /// The clock `seq_cst` fences (and accesses the model cannot follow)
    /// synchronise through.
    sc: VClock,
    /// Memory to put back before the next operation.
    restore: Restore,
}

static ACTIVE: AtomicBool = AtomicBool::new(false);

static mut MODEL: Model = Model {
    threads: [ThreadModel::EMPTY; MODEL_THREADS],
    locations: Locations::EMPTY,
    sync: SyncObjects::EMPTY,
    sc: VClock::ZERO,
    restore: Restore::NONE,
};

/// The model. Only the running thread calls in (one thread runs at a time).
#[allow(static_mut_refs)]
fn model() -> &'static mut Model {
    // SAFETY: only the thread holding the right to run touches the model,
    // and never re-entrantly.
    unsafe { &mut *core::ptr::addr_of_mut!(MODEL) }
}

/// The model's pages (start, end): [`start_execution`] forgets what they
/// hold (new generations of the tables, fresh views), so a snapshot of
/// the process need not hold them.
pub fn own_span() -> (usize, usize) {
    let start = core::ptr::addr_of!(MODEL) as usize;
    (start, start + core::mem::size_of::<Model>())
}

/// Is the execution under RC11?
#[inline]
pub fn active() -> bool {
    ACTIVE.load(Ordering::Relaxed)
}

/// Starts an execution under RC11 (`rc11`) or SC: forgets every location,
/// object and view.
pub fn start_execution(rc11: bool) {
    ACTIVE.store(rc11, Ordering::Relaxed);
    if rc11 {
        let m = model();
        m.locations.reset();
        m.sync.reset();
        m.sc = VClock::ZERO;
        m.restore = Restore::NONE;
        restore::set_pending(false);
        for t in m.threads.iter_mut() {
            *t = ThreadModel::EMPTY;
        }
    }
}

/// The object of a fence of `ordering`: under RC11 a `seq_cst` fence's
/// ([`reach_channel::ops::SC_FENCE_OBJECT`], as fences synchronise with
/// each other through one clock in the order they run), else none.
pub fn fence_object(ordering: u32) -> u64 {
    if active() && ordering & 0xff == SEQ_CST {
        reach_channel::ops::SC_FENCE_OBJECT
    } else {
        0
    }
}

/// Thread `me` is about to schedule an atomic operation of `ordering` (a
/// compare-and-swap with `expected`): called just before its scheduling
/// point, read by [`after_event`] once it runs.
#[inline]
pub fn announce(me: u32, ordering: u32, expected: u64) {
    if active() && (me as usize) < MODEL_THREADS {
        model().threads[me as usize].announced = Announced {
            ordering,
            expected,
            valid: true,
        };
    }
}

/// The value thread `me`'s atomic load returns, given what the native load
/// read: the chosen store's value, or `native` for the latest.
#[inline]
pub fn loaded_value(me: u32, native: u64) -> u64 {
    if !active() || me as usize >= MODEL_THREADS {
        return native;
    }
    let th = &mut model().threads[me as usize];
    if core::mem::take(&mut th.chosen) {
        th.value
    } else {
        native
    }
}

/// Where a load's reads-from choice comes from.
#[derive(Clone, Copy)]
pub enum Choice {
    /// The schedule prefix's entry for the step.
    Prefix(u16),
    /// A random number (the randomised policies): uniform over candidates.
    Random(u64),
    /// The latest store (the systematic policy after the prefix).
    Latest,
}

/// Why the model cannot run an execution.
#[derive(Clone, Copy, Debug)]
pub enum Unsupported {
    /// A thread beyond [`MODEL_THREADS`].
    TooManyThreads,
}

impl Unsupported {
    /// What to tell the user.
    pub fn message(self) -> &'static str {
        match self {
            Unsupported::TooManyThreads => {
                "the rc11 memory model follows at most 64 threads; run with --memory-model sc"
            }
        }
    }
}

/// Thread `me` ran `op` as event `step` (recorded if below the recording
/// bound): updates the model and, for an atomic access, decides what it
/// reads and where its store goes (`choice`) and records it in the channel.
/// True if the access read an older store than the latest (run again, it
/// could read a newer one).
pub fn after_event(
    st: &mut State,
    me: u32,
    op: &Op,
    step: u64,
    choice: Choice,
) -> Result<bool, Unsupported> {
    let t = me as usize;
    if t >= MODEL_THREADS {
        return Err(Unsupported::TooManyThreads);
    }
    let m = model();
    let announced = core::mem::replace(&mut m.threads[t].announced, Announced::NONE);
    let ordering = if announced.valid {
        announced.ordering & 0xff
    } else {
        SEQ_CST
    };
    let (addr, size) = (op.object, op.aux);
    let record = match op.kind {
        OpKind::AtomicLoad => {
            let follows = announced.valid && announced.ordering & ORDERING_VALUE_FOLLOWS != 0;
            Some(load(m, t, addr, size, ordering, follows, choice))
        }
        OpKind::AtomicStore => write(m, t, addr, size, ordering, step, Write::Store, choice),
        OpKind::AtomicRmw => write(m, t, addr, size, ordering, step, Write::Rmw, choice),
        OpKind::CmpXchg if announced.valid => {
            let mask = if size >= 8 {
                u64::MAX
            } else {
                (1u64 << (size * 8)) - 1
            };
            let failure = match (announced.ordering >> ORDERING_FAILURE_SHIFT) & 0xff {
                0 => match ordering {
                    ACQ_REL => ACQUIRE,
                    RELEASE => MONOTONIC,
                    o => o,
                },
                o => o,
            };
            let kind = Write::Cas {
                expected: announced.expected & mask,
                failure,
            };
            write(m, t, addr, size, ordering, step, kind, choice)
        }
        OpKind::CmpXchg => Some(load(m, t, addr, size, ordering, false, Choice::Latest)),
        OpKind::Fence => {
            fence(m, t, ordering);
            None
        }
        OpKind::Store => write(m, t, addr, size, MONOTONIC, step, Write::Plain, choice),
        OpKind::ThreadCreate => {
            let child = op.object as usize;
            if child >= MODEL_THREADS {
                return Err(Unsupported::TooManyThreads);
            }
            tick(m, t);
            let view = m.threads[t].clock;
            m.threads[child] = ThreadModel::EMPTY;
            m.threads[child].clock = view;
            None
        }
        OpKind::ThreadJoin => {
            if let Some(child) = m.threads.get(op.object as usize) {
                let view = child.clock;
                tick(m, t);
                m.threads[t].clock.join(&view);
            }
            None
        }
        OpKind::CondWait | OpKind::CondRelock => {
            synchronise(m, t, op.object);
            synchronise(m, t, op.aux);
            None
        }
        OpKind::MutexLock
        | OpKind::MutexTryLock
        | OpKind::MutexTimedLock
        | OpKind::MutexUnlock
        | OpKind::CondSignal
        | OpKind::CondBroadcast
        | OpKind::RwReadLock
        | OpKind::RwWriteLock
        | OpKind::RwUnlock
        | OpKind::SemWait
        | OpKind::SemPost
        | OpKind::SemGetValue
        | OpKind::BarrierArrive
        | OpKind::BarrierLeave
        | OpKind::SpinLock
        | OpKind::SpinUnlock
        | OpKind::Once
        | OpKind::FutexWait
        | OpKind::FutexWake => {
            if only_reads_object(op) {
                acquire_object(m, t, op.object);
            } else {
                synchronise(m, t, op.object);
            }
            None
        }
        _ => None,
    };
    let older = record.is_some_and(|r| r.writer_step != r.latest_step);
    if let Some(record) = record {
        if step < st.record_steps {
            st.chan.write_read(
                step,
                &ReadRecord {
                    tag: ReadRecord::tag_of(step),
                    ..record
                },
            );
        }
    }
    Ok(older)
}

/// Before thread `me`'s next operation (or its end): memory holds the
/// latest store again if the last access ran on another value
/// ([`restore`]). One load when nothing is pending.
#[inline]
pub fn restore_memory() {
    if restore::pending() {
        restore_now();
    }
}

#[inline(never)]
fn restore_now() {
    restore::set_pending(false);
    let m = model();
    let r = core::mem::replace(&mut m.restore, Restore::NONE);
    if let Some(p) = r.place {
        let written = read_int(r.addr, r.size).unwrap_or(0);
        let loc = m.locations.get_mut(r.slot);
        if p >= loc.oldest() && p < loc.count {
            loc.store_mut(p).value = written;
        }
    }
    restore::write_int(r.addr, r.size, r.latest);
}

/// The place of the latest store of `loc` that a thread with view `clock`
/// has seen (coherence: it must read no older one, and its stores go
/// after it); the oldest kept if none.
fn coherence_floor(clock: &VClock, loc: &Location) -> u32 {
    (loc.oldest()..loc.count)
        .rev()
        .find(|&p| clock.saw_any(&loc.store(p).seen))
        .unwrap_or(loc.oldest())
}

/// Advances thread `t`'s own timestamp: the timestamp of its event now.
#[inline]
fn tick(m: &mut Model, t: usize) -> u32 {
    let own = &mut m.threads[t].clock.0[t];
    *own += 1;
    *own
}

/// Thread `t` synchronises with `object` both ways (acquire, then release).
fn synchronise(m: &mut Model, t: usize, object: u64) {
    tick(m, t);
    let th = &mut m.threads[t];
    let clock = m.sync.clock(object);
    th.clock.join(clock);
    *clock = th.clock;
}

/// Did `op` only read its synchronisation object (a busy trylock or
/// try-wait, a timed-out lock or wait, `sem_getvalue`)? Such operations
/// commute with each other for the search ([`Op::accesses`]), so they pass
/// no view to each other: each only takes in the object's.
fn only_reads_object(op: &Op) -> bool {
    matches!(
        op.accesses(),
        [
            Some(reach_channel::Access {
                space: reach_channel::Space::Sync,
                class: reach_channel::Class::Read,
                ..
            }),
            None
        ]
    )
}

/// Thread `t` takes in `object`'s view (an acquire) without releasing
/// its own to it.
fn acquire_object(m: &mut Model, t: usize, object: u64) {
    tick(m, t);
    let clock = *m.sync.clock(object);
    m.threads[t].clock.join(&clock);
}

/// An access the model cannot follow: thread `t` synchronises like a
/// `seq_cst` fence.
fn unfollowed(m: &mut Model, t: usize) {
    tick(m, t);
    let th = &mut m.threads[t];
    th.clock.join(&m.sc);
    m.sc = th.clock;
    th.release_fence = th.clock;
}

/// Takes a store's release view in: into the view for an acquire, else
/// kept for the next acquire fence.
fn acquire(th: &mut ThreadModel, rel: &VClock, ordering: u32) {
    if is_acquire(ordering) {
        th.clock.join(rel);
    } else {
        th.acquire_pending.join(rel);
    }
}

/// A fence of `ordering` by thread `t`.
fn fence(m: &mut Model, t: usize, ordering: u32) {
    tick(m, t);
    let th = &mut m.threads[t];
    if is_acquire(ordering) {
        let pending = th.acquire_pending;
        th.clock.join(&pending);
    }
    if ordering == SEQ_CST {
        th.clock.join(&m.sc);
        m.sc = th.clock;
    }
    if is_release(ordering) {
        th.release_fence = th.clock;
    }
}

/// An atomic load of `size` bytes at `addr` by thread `t`: its candidates,
/// the one `choice` picks, and the synchronisation of reading it. The
/// value to return is left in the thread's record when it is not the
/// latest store's. `follows`: the program takes the value from
/// `__reach_atomic_load_value` (else only the latest can be read).
fn load(
    m: &mut Model,
    t: usize,
    addr: u64,
    size: u64,
    ordering: u32,
    follows: bool,
    choice: Choice,
) -> ReadRecord {
    let native = read_int(addr, size);
    let unknown = ReadRecord {
        tag: 0,
        candidates: 1,
        choice: 0,
        writer: INITIAL_WRITER,
        latest_writer: INITIAL_WRITER,
        writer_step: u64::MAX,
        latest_step: u64::MAX,
        value: native.unwrap_or(0),
        latest_value: native.unwrap_or(0),
        later_stores: 0,
        placed: 0,
        ordering: ordering as u16,
    };
    let Some(native) = native else {
        unfollowed(m, t);
        return unknown;
    };
    let Some(slot) = m.locations.find_or_insert(addr, native) else {
        unfollowed(m, t);
        return unknown;
    };
    let ts = tick(m, t);
    let Model {
        threads, locations, ..
    } = m;
    let th = &mut threads[t];
    let loc = locations.get_mut(slot);
    let mut floor = coherence_floor(&th.clock, loc);
    if ordering == SEQ_CST && loc.last_sc > 0 {
        floor = floor.max(loc.last_sc - 1);
    }
    let n = if follows { loc.count - floor } else { 1 };
    let pick = match choice {
        Choice::Prefix(c) => u32::from(c),
        Choice::Random(r) => (r % u64::from(n)) as u32,
        Choice::Latest => 0,
    }
    .min(n - 1);
    let latest = loc.latest();
    let (latest_writer, latest_step) = (loc.store(latest).writer, loc.store(latest).step);
    let read = loc.store_mut(latest - pick);
    acquire(th, &read.rel, ordering);
    if read.seen.0[t] == 0 {
        read.seen.0[t] = ts;
    }
    let value = if pick > 0 { read.value } else { native };
    th.value = value;
    th.chosen = pick > 0;
    ReadRecord {
        tag: 0,
        candidates: n.min(u32::from(u16::MAX)) as u16,
        choice: pick as u16,
        writer: read.writer,
        latest_writer,
        writer_step: read.step,
        latest_step,
        value,
        latest_value: native,
        later_stores: 0,
        placed: 0,
        ordering: ordering as u16,
    }
}

/// Reads `size` bytes at `addr` as an integer (sizes 1, 2, 4, 8); `None`
/// for other sizes. Only for an address an instrumented access is about to
/// read or write.
pub(crate) fn read_int(addr: u64, size: u64) -> Option<u64> {
    // SAFETY: the instrumented atomic operation is about to access these
    // bytes (or, for a plain store, is about to write them).
    unsafe {
        Some(match size {
            1 => u64::from((addr as *const u8).read_volatile()),
            2 => u64::from((addr as *const u16).read_volatile()),
            4 => u64::from((addr as *const u32).read_volatile()),
            8 => (addr as *const u64).read_volatile(),
            _ => return None,
        })
    }
}
