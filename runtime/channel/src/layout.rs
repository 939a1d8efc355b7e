//! Fixed layout of the shared-memory channel between driver and runtime.
//!
//! The channel is one `memfd` region, inherited by the program under test
//! (its fd number in [`crate::env::CHANNEL_FD`]). Layout, in order:
//!
//! | region   | type                         | written by |
//! |----------|------------------------------|------------|
//! | header   | [`Header`] (padded to [`HEADER_BYTES`]) | both (request: driver, response: runtime) |
//! | threads  | `[ThreadSlot; MAX_THREADS]`  | runtime    |
//! | cut      | `[ThreadSlot; MAX_THREADS]`  | runtime (valid for [`Header::cut_threads`] slots) |
//! | prefix   | `[u32; prefix_capacity]`     | driver     |
//! | events   | `[Event; event_capacity]`    | runtime    |
//! | objects  | `[ObjectRecord; object_capacity]` | runtime (valid for [`Header::object_count`] records) |
//! | symbolic | [`crate::symbolic`] region (inputs, expressions, path constraints) | both |
//! | reads    | `[ReadRecord; event_capacity]` ([`crate::memory_model`]) | runtime |
//! | private  | `[PrivateRecord; PRIVATE_CAPACITY]` ([`crate::private`]) | runtime (valid for [`Header::private_count`] records) |
//!
//! Everything the runtime writes is untrusted for the driver: use
//! [`crate::view::ChannelView`] to read it with validation.

use crate::ops::{EventFlags, Op, OpKind};
use core::sync::atomic::{AtomicU32, AtomicU64};

/// Magic number at the start of the channel ("REACHCHN").
pub const MAGIC: u64 = 0x4E48_4348_4341_4552;
/// Channel layout / hook ABI version; bump on any incompatible change.
pub const VERSION: u32 = 15;
/// Most threads one execution may create (thread ids are `0..MAX_THREADS`).
pub const MAX_THREADS: usize = 256;
/// Bytes reserved for the header region.
pub const HEADER_BYTES: usize = 4096;
/// Bytes of the runtime's message buffer in the header.
pub const MESSAGE_BYTES: usize = 1024;

/// A set of thread ids, as a bit set over `0..MAX_THREADS`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct ThreadSet(pub [u64; MAX_THREADS / 64]);

impl ThreadSet {
    /// The empty set.
    pub const EMPTY: ThreadSet = ThreadSet([0; MAX_THREADS / 64]);

    /// Adds thread `t` (ignored if out of range).
    #[inline]
    pub fn insert(&mut self, t: u32) {
        if (t as usize) < MAX_THREADS {
            self.0[t as usize / 64] |= 1 << (t % 64);
        }
    }

    /// Removes thread `t`.
    #[inline]
    pub fn remove(&mut self, t: u32) {
        if (t as usize) < MAX_THREADS {
            self.0[t as usize / 64] &= !(1 << (t % 64));
        }
    }

    /// Membership test.
    #[inline]
    pub fn contains(&self, t: u32) -> bool {
        (t as usize) < MAX_THREADS && self.0[t as usize / 64] & (1 << (t % 64)) != 0
    }

    /// True if no thread is in the set.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.0.iter().all(|w| *w == 0)
    }

    /// Number of threads in the set.
    #[inline]
    pub fn len(&self) -> usize {
        self.0.iter().map(|w| w.count_ones() as usize).sum()
    }

    /// Thread ids in increasing order (visits set bits only).
    #[inline]
    pub fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        self.0.iter().enumerate().flat_map(|(i, &word)| {
            let mut rest = word;
            core::iter::from_fn(move || {
                (rest != 0).then(|| {
                    let bit = rest.trailing_zeros();
                    rest &= rest - 1;
                    i as u32 * 64 + bit
                })
            })
        })
    }

    /// Lowest thread id in the set.
    #[inline]
    pub fn first(&self) -> Option<u32> {
        self.0
            .iter()
            .enumerate()
            .find(|(_, w)| **w != 0)
            .map(|(i, w)| i as u32 * 64 + w.trailing_zeros())
    }

    /// Set difference `self \ other`.
    #[inline]
    pub fn minus(&self, other: &ThreadSet) -> ThreadSet {
        let mut out = *self;
        for (o, x) in out.0.iter_mut().zip(other.0.iter()) {
            *o &= !x;
        }
        out
    }

    /// Set intersection `self ∩ other`.
    #[inline]
    pub fn intersect(&self, other: &ThreadSet) -> ThreadSet {
        let mut out = *self;
        for (o, x) in out.0.iter_mut().zip(other.0.iter()) {
            *o &= x;
        }
        out
    }
}

/// What the runtime does after the schedule prefix is used up.
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Policy {
    /// Keep running the current thread while it is enabled (and not asleep),
    /// otherwise the lowest enabled thread id: fewest context switches.
    ContinueThenLowest = 0,
    /// Pick uniformly among enabled, non-sleeping threads with a PRNG seeded
    /// from [`Header::seed`].
    Random = 1,
    /// Probabilistic concurrency testing (Burckhardt et al., ASPLOS 2010,
    /// Sec. 3): run the enabled thread of highest priority. Thread `t`'s
    /// initial priority is a hash of [`Header::seed`] and `t` (a random
    /// order of the threads, above every low priority); at each of
    /// [`Header::change_points`] the thread about to run gets that change
    /// point's low priority first.
    Pct = 2,
}

/// Most priority change points of [`Policy::Pct`] (a bug depth of at most
/// `MAX_CHANGE_POINTS + 1`).
pub const MAX_CHANGE_POINTS: usize = 15;

/// One priority change point of [`Policy::Pct`].
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ChangePoint {
    /// Step (0-based event index) at which it applies.
    pub step: u64,
    /// Low priority the thread about to run there gets (below every
    /// initial priority, which have the top bit set).
    pub priority: u64,
}

impl Policy {
    /// Decodes a raw policy value.
    pub fn from_u32(raw: u32) -> Option<Policy> {
        match raw {
            0 => Some(Policy::ContinueThenLowest),
            1 => Some(Policy::Random),
            2 => Some(Policy::Pct),
            _ => None,
        }
    }
}

/// How an execution ended, as the runtime reports it in [`Header::status`].
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunStatus {
    /// Never set to anything else: the process died without the runtime
    /// concluding (fatal signal, `_exit`, kill).
    Running = 0,
    /// The process exited normally; code in [`Header::exit_code`].
    Exited = 1,
    /// Every live thread is blocked.
    Deadlock = 2,
    /// The execution exceeded [`Header::max_steps`] steps (recorded or not).
    StepLimit = 3,
    /// Every enabled thread was in the sleep set (execution cut short, Fig. 7).
    SleepBlocked = 4,
    /// The schedule prefix could not be followed at [`Header::diverged_step`].
    Diverged = 5,
    /// The program misused the pthread API (message says how).
    Misuse = 6,
    /// Threads spin without making progress and nothing can release them.
    Livelock = 7,
    /// The program used something the runtime cannot control (message says what).
    Unsupported = 8,
    /// A thread stopped reaching scheduling points (blocked outside control).
    Uncontrolled = 9,
    /// The runtime hit an internal inconsistency.
    InternalError = 10,
    /// No thread can run, and at least one awaits a change after an
    /// iteration of its spin loop in which nothing happened
    /// ([`crate::OpKind::Await`]). The driver decides from the trace
    /// whether some other thread wrote what the iteration read after it
    /// read it (the execution is then blocked: the search reaches the one
    /// where the loop reads the new value) or not (a livelock).
    Awaiting = 11,
}

impl RunStatus {
    /// Decodes a raw status value (untrusted).
    pub fn from_u32(raw: u32) -> Option<RunStatus> {
        use RunStatus::*;
        [
            Running,
            Exited,
            Deadlock,
            StepLimit,
            SleepBlocked,
            Diverged,
            Misuse,
            Livelock,
            Unsupported,
            Uncontrolled,
            InternalError,
            Awaiting,
        ]
        .into_iter()
        .find(|s| *s as u32 == raw)
    }
}

/// Request flag: apply the sleep set after the prefix (DPOR with sleep sets).
pub const REQ_SLEEP_SETS: u32 = 1;
/// Request flag: treat spinning reads as blocking (spin-loop detection).
pub const REQ_SPIN_BLOCKING: u32 = 2;
/// Request flag: the process exit happens when the exiting thread reaches
/// it, cutting other threads short (otherwise it waits until no other
/// thread can run; see [`crate::EventFlags::CUTS_THREADS`]).
pub const REQ_EXIT_CUTS_THREADS: u32 = 4;
/// Request flag (read by the fork server at `main`): serve executions from a
/// persistent worker that restores its memory between them.
pub const REQ_PERSISTENT: u32 = 8;
/// Request flag: run the program's threads as user-level contexts on one
/// kernel thread (read per execution).
pub const REQ_USER_THREADS: u32 = 16;
/// Request flag: record an atomic read-modify-write of a commuting family
/// whose result the program never uses as an update
/// ([`crate::EventFlags::UNUSED_RESULT`]), so that such updates commute
/// (`--commute-rmws`; read per execution).
pub const REQ_COMMUTE_RMWS: u32 = 32;
/// Request flag: a thread whose spin-loop iteration did nothing awaits a
/// change *and retries* once another thread wrote what the iteration read
/// (the randomised policies and the unrecorded rest of an execution always
/// do; a replay does when its schedule executed an [`crate::OpKind::Await`]).
/// Without it, under [`Policy::ContinueThenLowest`], the thread stays
/// blocked for the rest of the execution (read per execution).
pub const REQ_AWAIT_RETRIES: u32 = 64;
/// Request flag: no await semantics; loop heads are ignored and spin loops
/// are cut by the spin threshold only (a strategy that cannot use blocked
/// executions: unfolding).
pub const REQ_AWAITS_OFF: u32 = 128;
/// Request flag: a prefix step that asks for a thread the runtime holds
/// back as a spinner ends the execution as sleep-blocked, for the strategy
/// to drop (reachability testing, unfolding). Without it the step is taken:
/// the hold is the runtime's own preference, not something the program
/// waits for, and whether it applies depends on the order of steps the
/// thread does not depend on (optimal DPOR's wakeup sequences, replays).
pub const REQ_DROP_HELD: u32 = 256;
/// Request flag: run under the RC11 memory model
/// ([`crate::memory_model::MemoryModel::Rc11`]): atomic loads read what the
/// model allows, chosen by the prefix entries' reads-from choices (read per
/// execution).
pub const REQ_RC11: u32 = 512;
/// Request flag: a plain access to memory no other thread has accessed in
/// the execution is no scheduling point and records no event; the runtime
/// writes such accesses to the private region when a second thread
/// reaches the memory ([`crate::private`]).
pub const REQ_PRIVATE: u32 = 1024;
/// Request flag: a thread that a prefix step ran although the runtime held
/// it back as a spinner, and that is held back again at the same operation
/// (kind and object) before it made progress, ends the execution as
/// sleep-blocked: the step added one spin iteration and nothing else, an
/// execution the search has in substance (optimal DPOR, which reverses the
/// races of held-back spinners; read per execution).
pub const REQ_DROP_RESPIN: u32 = 2048;
/// Bit of [`Header::user_threads_off`]: the execution was abandoned (it
/// called something contexts cannot do) and must run again with kernel
/// threads; its result means nothing.
pub const USER_THREADS_ABANDONED: u32 = 1 << 31;

/// The channel header. Request fields are written by the driver before the
/// execution starts; response fields by the runtime during and after it.
#[repr(C)]
pub struct Header {
    /// [`MAGIC`].
    pub magic: u64,
    /// [`VERSION`].
    pub version: u32,
    /// `size_of::<Event>()` as the writer knows it (layout check).
    pub event_size: u32,
    /// Total bytes of the channel region.
    pub total_bytes: u64,
    /// Capacity of the schedule prefix region, in entries.
    pub prefix_capacity: u32,
    /// Capacity of the event region, in events.
    pub event_capacity: u32,

    // ---- request (driver → runtime) ----
    /// Number of valid entries in the prefix region.
    pub prefix_len: u32,
    /// A [`Policy`] value.
    pub policy: u32,
    /// Seed for [`Policy::Random`].
    pub seed: u64,
    /// Step bound: more steps than this (recorded or not) ends the run with
    /// [`RunStatus::StepLimit`]; `u64::MAX` for none.
    pub max_steps: u64,
    /// Recording bound: the first this many events are recorded; the
    /// execution then goes on without recording, under the "continue" policy
    /// and without sleep sets (see [`Header::cut_threads`]).
    pub record_steps: u64,
    /// `REQ_*` bits.
    pub request_flags: u32,
    /// Consecutive unchanged re-reads after which a spinning thread counts as blocked.
    pub spin_threshold: u32,
    /// Sleep set at the end of the prefix (threads whose pending operation
    /// must not be scheduled until a dependent operation runs).
    pub sleep_set: ThreadSet,

    // ---- response (runtime → driver) ----
    /// A [`RunStatus`] value.
    pub status: AtomicU32,
    /// Process exit code when `status` is [`RunStatus::Exited`].
    pub exit_code: i32,
    /// Number of events written (at most [`Header::record_steps`]).
    pub event_count: AtomicU64,
    /// Number of steps executed, recorded or not: published at every hand-over
    /// between threads and when the execution ends (a lower bound if the
    /// process was killed).
    pub step_count: AtomicU64,
    /// 0 if every step was recorded. Otherwise recording stopped after
    /// [`Header::record_steps`] events, and the cut region holds this many
    /// thread slots: every thread created by then, with its state and its
    /// pending operation at that point.
    pub cut_threads: AtomicU32,
    /// Number of threads created so far (including the main thread).
    pub thread_count: AtomicU32,
    /// Bytes of `message` in use.
    pub message_len: u32,
    /// Step at which the prefix could not be followed ([`RunStatus::Diverged`]);
    /// of a [`RunStatus::SleepBlocked`] run under [`REQ_DROP_RESPIN`], the
    /// step at which the re-spinning thread was held back again.
    pub diverged_step: u64,
    /// Thread the prefix asked for at `diverged_step`, or the re-spinning
    /// one (`u32::MAX`, set by the driver: none).
    pub diverged_thread: u32,
    /// Thread running when the execution ended abnormally (for reports).
    pub culprit_thread: u32,
    /// Site of the operation involved in a misuse/unsupported report.
    pub culprit_site: u64,

    // ---- fork server (runtime → driver), for diagnostics only ----
    // The fork server's control messages travel over pipes (see
    // `crate::fork`): every child maps this region and may scribble over it.
    /// Number of executions the fork server has started.
    pub fork_request: AtomicU32,
    /// Number of executions the fork server has reaped.
    pub fork_response: AtomicU32,
    /// Pid of the current execution's child process.
    pub fork_child_pid: i32,
    /// Wait status of the last child, as `waitpid` gave it.
    pub fork_child_status: i32,

    /// UTF-8 text from the runtime explaining the status (misuse, unsupported...).
    pub message: [u8; MESSAGE_BYTES],

    // ---- request (driver → runtime), continued ----
    /// [`Policy::Pct`]: valid entries of `change_points`.
    pub change_point_count: u32,
    /// [`Policy::Pct`]: the change points in ascending step order.
    pub change_points: [ChangePoint; MAX_CHANGE_POINTS],

    // ---- response (runtime → driver), continued ----
    /// Non-zero: [`REQ_USER_THREADS`] was asked for but this execution
    /// could not (or can no longer) run the threads as user-level contexts;
    /// a [`crate::fork::UserThreadsCause`] number, with
    /// [`USER_THREADS_ABANDONED`] if the execution must run again.
    pub user_threads_off: AtomicU32,

    // ---- layout, continued ----
    /// Capacity of the object region, in records.
    pub object_capacity: u32,
    // ---- response (runtime → driver), continued ----
    /// Number of valid records in the object region.
    pub object_count: AtomicU32,
    /// Step (event index) from which objects went unrecorded because the
    /// region was full; `u64::MAX` while nothing was dropped.
    pub objects_dropped_at: AtomicU64,
    /// The sources of nondeterminism the runtime saw during the execution
    /// (before `main` too: a fork server's are copied into each of its
    /// executions).
    pub sources: crate::sources::Sources,
    /// Number of valid records in the private region ([`REQ_PRIVATE`]).
    pub private_count: AtomicU32,
}

/// Life-cycle state of a thread slot.
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ThreadState {
    /// Slot never used.
    Unused = 0,
    /// Parked at its pending operation (which may or may not be enabled).
    Parked = 1,
    /// Currently running.
    Running = 2,
    /// Finished (returned from its start routine or called `pthread_exit`).
    Finished = 3,
}

impl ThreadState {
    /// Decodes a raw state value (untrusted).
    pub fn from_u32(raw: u32) -> Option<ThreadState> {
        match raw {
            0 => Some(ThreadState::Unused),
            1 => Some(ThreadState::Parked),
            2 => Some(ThreadState::Running),
            3 => Some(ThreadState::Finished),
            _ => None,
        }
    }
}

/// Per-thread state the runtime keeps current in the channel, so the driver
/// can describe every thread when an execution ends (deadlock, hang, crash).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct ThreadSlot {
    /// A [`ThreadState`] value.
    pub state: u32,
    /// 1 if the pending operation is enabled at the last scheduling point.
    pub enabled: u32,
    /// Kind of the pending operation ([`OpKind`] as u16, 0 if none).
    pub pending_kind: u16,
    /// Flags of the pending operation.
    pub pending_flags: u16,
    /// Creating thread's id (`u32::MAX` for the main thread).
    pub parent: u32,
    /// Kernel thread id of the thread (written when it starts; 0 if not
    /// known), to name the thread of a message the program printed.
    pub tid: u32,
    /// Site of the pending operation.
    pub pending_site: u64,
    /// The library call in progress at the pending operation (see
    /// [`Event::caller`]).
    pub pending_caller: u64,
    /// Object of the pending operation.
    pub pending_object: u64,
    /// Second argument of the pending operation.
    pub pending_aux: u64,
    /// Most recent site this thread passed (for diagnostics of uncontrolled blocking).
    pub last_site: u64,
    /// Number of events this thread executed (published when the thread
    /// hands the right to run on, and when the execution ends).
    pub steps: u64,
    /// Consecutive unchanged re-reads (spin-loop detection; published like
    /// `steps`).
    pub spin_count: u64,
}

/// One executed visible operation: the trace is an array of these.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Event {
    /// Thread that executed it (creation order, main = 0).
    pub thread: u32,
    /// [`OpKind`] as u16.
    pub kind: u16,
    /// [`EventFlags`] bits.
    pub flags: u16,
    /// Site id (0 if unknown, e.g. uninstrumented caller).
    pub site: u64,
    /// Main object (address, or thread id).
    pub object: u64,
    /// Second argument.
    pub aux: u64,
    /// Site of the call from the program's own code into the standard
    /// library in progress when the operation ran (the thread's
    /// [`crate::hooks::LIBRARY_CALL_WORD`]: the call of the innermost frame
    /// of the program's code on its stack), 0 if none: where reports place
    /// an operation whose own site lies in the library's sources.
    pub caller: u64,
    /// Threads whose pending operation was enabled at the scheduling point
    /// where this event was chosen (includes `thread`).
    pub enabled: ThreadSet,
}

impl Event {
    /// The operation this event executed, if its kind is valid.
    pub fn op(&self) -> Option<Op> {
        Some(Op {
            kind: OpKind::from_u16(self.kind)?,
            flags: EventFlags(self.flags),
            object: self.object,
            aux: self.aux,
        })
    }
}

/// What an [`ObjectRecord`] records.
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ObjectKind {
    /// A heap block was allocated (`malloc`, `calloc`, `realloc`,
    /// `operator new`...); the origin is the return address of the call.
    Heap = 1,
    /// The heap block starting at the address was freed (size 0).
    Free = 2,
    /// A stack object whose address escapes its function came into being;
    /// the origin is the site id of its `alloca`.
    Stack = 3,
}

impl ObjectKind {
    /// Decodes a raw kind (untrusted).
    pub fn from_u32(raw: u32) -> Option<ObjectKind> {
        match raw {
            1 => Some(ObjectKind::Heap),
            2 => Some(ObjectKind::Free),
            3 => Some(ObjectKind::Stack),
            _ => None,
        }
    }
}

/// One allocation, free or stack object of an execution, in program order:
/// what lets a report name `heap#3 (allocated at f.c:12)` or `T1 stack (worker)`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ObjectRecord {
    /// First byte.
    pub address: u64,
    /// Bytes (0 for [`ObjectKind::Free`]).
    pub size: u64,
    /// Return address of the allocating call, or the `alloca`'s site id.
    pub origin: u64,
    /// The library call in progress at the allocation (see
    /// [`Event::caller`]): where a block the standard library's allocator
    /// made for the program was asked for.
    pub caller: u64,
    /// Events recorded before it came into being (its place in the trace).
    pub step: u64,
    /// Thread that made it.
    pub thread: u32,
    /// An [`ObjectKind`] value.
    pub kind: u32,
}

/// Sizes and offsets of a channel region with the given capacities.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    /// Schedule prefix capacity (entries).
    pub prefix_capacity: u32,
    /// Event capacity (events).
    pub event_capacity: u32,
    /// Object record capacity (records).
    pub object_capacity: u32,
}

impl Layout {
    /// Byte offset of the thread slots.
    pub const fn threads_offset(&self) -> usize {
        HEADER_BYTES
    }

    /// Byte offset of the cut region: the thread slots as they were when
    /// recording stopped.
    pub const fn cut_offset(&self) -> usize {
        HEADER_BYTES + MAX_THREADS * core::mem::size_of::<ThreadSlot>()
    }

    /// Byte offset of the prefix region.
    pub const fn prefix_offset(&self) -> usize {
        self.cut_offset() + MAX_THREADS * core::mem::size_of::<ThreadSlot>()
    }

    /// Byte offset of the event region (8-byte aligned).
    pub const fn events_offset(&self) -> usize {
        let end = self.prefix_offset() + self.prefix_capacity as usize * 4;
        (end + 63) & !63
    }

    /// Byte offset of the object region (after the events, 64-byte aligned).
    pub const fn objects_offset(&self) -> usize {
        let end =
            self.events_offset() + self.event_capacity as usize * core::mem::size_of::<Event>();
        (end + 63) & !63
    }

    /// Byte offset of the symbolic region ([`crate::symbolic`], after the
    /// objects, 64-byte aligned).
    pub const fn sym_offset(&self) -> usize {
        let end = self.objects_offset()
            + self.object_capacity as usize * core::mem::size_of::<ObjectRecord>();
        (end + 63) & !63
    }

    /// Byte offset of the reads region (after the symbolic region, 64-byte
    /// aligned): one [`crate::memory_model::ReadRecord`] per event index.
    pub const fn reads_offset(&self) -> usize {
        let end = self.sym_offset() + crate::symbolic::SYM_REGION_BYTES;
        (end + 63) & !63
    }

    /// Byte offset of the private region (after the reads region, 64-byte
    /// aligned): [`crate::private::PRIVATE_CAPACITY`] records.
    pub const fn private_offset(&self) -> usize {
        let end = self.reads_offset()
            + self.event_capacity as usize
                * core::mem::size_of::<crate::memory_model::ReadRecord>();
        (end + 63) & !63
    }

    /// Total bytes of the region.
    pub const fn total_bytes(&self) -> usize {
        self.private_offset()
            + crate::private::PRIVATE_CAPACITY as usize
                * core::mem::size_of::<crate::private::PrivateRecord>()
    }
}

const _: () = assert!(core::mem::size_of::<Header>() <= HEADER_BYTES);
const _: () = assert!(core::mem::size_of::<Event>() == 72);
const _: () = assert!(core::mem::size_of::<ThreadSlot>() == 80);
const _: () = assert!(core::mem::size_of::<ObjectRecord>() == 48);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thread_set_iterates_members_in_order() {
        let mut set = ThreadSet::EMPTY;
        for t in [0, 3, 63, 64, 130, 255] {
            set.insert(t);
        }
        assert_eq!(set.iter().collect::<Vec<_>>(), vec![0, 3, 63, 64, 130, 255]);
        assert_eq!(set.len(), 6);
        assert_eq!(set.first(), Some(0));
        set.remove(0);
        assert_eq!(set.first(), Some(3));
        assert!(ThreadSet::EMPTY.iter().next().is_none());
    }
}
