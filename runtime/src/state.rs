//! The runtime's global state: one instance in static memory (zeroed at load
//! time, never allocated from the program heap), accessed only by the one
//! thread that currently runs (threads hand the right to run to each other
//! with release/acquire futex words, which orders all accesses).

use crate::chan::Chan;
use crate::table::Table;
use core::cell::UnsafeCell;
use core::sync::atomic::{AtomicU32, Ordering};
use reach_channel::{Op, OpKind, Policy, ThreadSet, MAX_THREADS};

pub use crate::caller::take_call_site;
pub use crate::current::{
    default_call_site, me, set_call_site, set_me, MODE, MODE_ACTIVE, MODE_ENDED, MODE_PASSIVE, NONE,
};

/// Life-cycle state of a thread, as the scheduler sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TState {
    /// Slot unused.
    Unused,
    /// Created, running towards its first scheduling point while its parent waits.
    Starting,
    /// Parked at its pending operation.
    Parked,
    /// The one running thread.
    Running,
    /// Finished.
    Finished,
}

/// Most reads remembered per spinning thread.
pub const SPIN_READS: usize = 8;

/// Spin-loop detection state of one thread.
#[derive(Clone, Copy, Debug)]
pub struct Spin {
    /// Operations without progress since the thread's last progress
    /// (`Op::made_no_progress`), one per location.
    pub reads: [Op; SPIN_READS],
    /// Number of valid entries in `reads`.
    pub n: usize,
    /// Consecutive operations without progress.
    pub count: u64,
    /// Past the threshold: disabled until another thread writes what it read.
    pub blocked: bool,
    /// The thread announced that it busy-waits (a spin hint, a yield or a
    /// sleep after an operation without progress): a re-read of one of
    /// `reads` holds it back at once (see `crate::spin`).
    pub hinted: bool,
    /// A prefix step ran the thread's operation (kind, object) although
    /// it was held back, and it has made no progress since
    /// (`REQ_DROP_RESPIN`).
    pub forced: Option<(OpKind, u64)>,
}

impl Spin {
    /// No reads.
    pub const EMPTY: Spin = Spin {
        reads: [NO_OP; SPIN_READS],
        n: 0,
        count: 0,
        blocked: false,
        hinted: false,
        forced: None,
    };

    /// Forgets every read (entries past `n` are never looked at).
    pub fn clear(&mut self) {
        self.n = 0;
        self.count = 0;
        self.blocked = false;
        self.hinted = false;
        self.forced = None;
    }
}

/// Placeholder operation.
pub const NO_OP: Op = Op::NONE;

/// A pending operation with its site.
#[derive(Clone, Copy, Debug)]
pub struct Pending {
    /// The operation.
    pub op: Op,
    /// Its site.
    pub site: u64,
    /// The thread's call into the standard library in progress (a site,
    /// 0 if none; see `reach_channel::Event::caller`).
    pub caller: u64,
}

/// Everything the runtime knows about one thread.
pub struct Thread {
    /// Handoff word: set to 1 (and woken) when the thread may run.
    pub go: AtomicU32,
    /// Life-cycle state.
    pub state: TState,
    /// Pending operation while parked.
    pub pending: Pending,
    /// Creator (`NONE` for the main thread).
    pub parent: u32,
    /// `pthread_t` of the thread.
    pub handle: libc::pthread_t,
    /// Start routine and argument (for the trampoline).
    pub start: usize,
    /// Argument of the start routine.
    pub arg: usize,
    /// Detached (no join allowed).
    pub detached: bool,
    /// Already joined.
    pub joined: bool,
    /// Waiting on a condition variable or futex (second half pending).
    pub waiting: bool,
    /// Woken by a signal/broadcast/futex wake while waiting.
    pub signalled: bool,
    /// FIFO ticket of the current wait.
    pub ticket: u64,
    /// Recursion count of the mutex released by a condition wait.
    pub saved_count: u32,
    /// Barrier generation the thread arrived in.
    pub barrier_gen: u64,
    /// Spin-loop detection.
    pub spin: Spin,
    /// Open spin-loop iterations and whether the thread awaits a change
    /// (see `crate::awaits`).
    pub awaits: crate::awaits::iterations::Awaits,
    /// Events executed.
    pub steps: u64,
    /// Read locks held (rwlock addresses, one entry per hold).
    pub rd_held: [u64; RD_HELD],
    /// Valid entries of `rd_held`.
    pub rd_n: usize,
    /// Kernel id (set in a persistent worker only, which waits for the
    /// thread to be gone after the execution).
    pub tid: i32,
    /// Value a user-level thread returned from its start routine.
    pub retval: usize,
    /// The library region the thread is in (see `crate::region`).
    pub region: Region,
    /// Its creator's call into the standard library in progress when it
    /// was created (`thread::spawn`'s): the thread's own until its code
    /// calls into the library.
    pub spawned_in: u64,
}

/// A thread's place in a library region: code whose memory accesses are
/// not instrumented, entered through the region's API methods.
#[derive(Clone, Copy, Debug)]
pub struct Region {
    /// Nesting depth of region methods (0: outside).
    pub depth: u32,
    /// The region's object (the channel), written by each touch.
    pub object: u64,
    /// Site of the outermost method's entry.
    pub site: u64,
    /// A touch is being recorded (no touch after a touch).
    pub touching: bool,
}

impl Region {
    /// Outside every region.
    pub const NONE: Region = Region {
        depth: 0,
        object: 0,
        site: 0,
        touching: false,
    };
}

/// Most read-lock holds one thread may have at once.
pub const RD_HELD: usize = 16;

impl Thread {
    /// An unused slot (a template: every use is a fresh value).
    #[allow(clippy::declare_interior_mutable_const)]
    pub const EMPTY: Thread = Thread {
        go: AtomicU32::new(0),
        state: TState::Unused,
        pending: Pending {
            op: NO_OP,
            site: 0,
            caller: 0,
        },
        parent: NONE,
        handle: 0,
        start: 0,
        arg: 0,
        detached: false,
        joined: false,
        waiting: false,
        signalled: false,
        ticket: 0,
        saved_count: 0,
        barrier_gen: 0,
        spin: Spin::EMPTY,
        awaits: crate::awaits::iterations::Awaits::EMPTY,
        steps: 0,
        rd_held: [0; RD_HELD],
        rd_n: 0,
        tid: 0,
        retval: 0,
        region: Region::NONE,
        spawned_in: 0,
    };

    /// Alive: created and not finished.
    pub fn live(&self) -> bool {
        matches!(
            self.state,
            TState::Starting | TState::Parked | TState::Running
        )
    }
}

/// Most program thread-specific keys whose destructors the runtime runs.
pub const MAX_KEYS: usize = 1024;

/// Most steps other threads may take while a thread waits at the process
/// exit: past them the exit happens anyway (a thread that never blocks
/// would otherwise keep the process alive for ever).
pub const EXIT_GRACE_STEPS: u64 = 100_000;

/// The whole runtime state.
///
/// Laid out in declaration order, most used first: an execution writes the
/// fields before `threads` and its first threads' entries, which share a
/// page or two, and every page it writes costs it a copy-on-write fault.
#[repr(C)]
pub struct State {
    /// The mapped channel.
    pub chan: Chan,
    /// Threads created so far (ids `0..thread_count`).
    pub thread_count: u32,
    /// The running thread.
    pub running: u32,
    /// Enabled threads at the last decision.
    pub enabled: ThreadSet,
    /// `enabled` is still the enabled set of every thread but the running
    /// one: only memory accesses ran since it was computed (see
    /// `sched::unchanged_enabled`).
    pub enabled_valid: bool,
    /// [`Table::changes`] when `enabled` was computed.
    pub enabled_changes: u64,
    /// Threads with a non-empty spin-detection state.
    pub spinners: ThreadSet,
    /// Threads awaiting a change that another thread's write releases
    /// (see `crate::awaits`).
    pub awaiting: ThreadSet,
    /// Threads with an open spin-loop iteration (see `crate::awaits`).
    pub iterating: ThreadSet,
    /// A failed spin-loop iteration waits for a change and retries
    /// (`REQ_AWAIT_RETRIES`) even under the systematic policy.
    pub await_retries: bool,
    /// Loop heads are ignored (`REQ_AWAITS_OFF`).
    pub awaits_off: bool,
    /// A prefix step for a held-back spinner ends the execution instead of
    /// being taken (`REQ_DROP_HELD`).
    pub drop_held: bool,
    /// A thread a prefix step ran while held back, held back again at the
    /// same operation before any progress, ends the execution
    /// (`REQ_DROP_RESPIN`).
    pub drop_respin: bool,
    /// The threads with [`Spin::forced`] set, looked at by every decision
    /// while not empty.
    pub respin_watch: ThreadSet,
    /// The thread that last yielded the processor (a yield, a sleep, a
    /// spin hint, a timed wait that timed out), until another thread runs
    /// ([`NONE`]: none): past the search's prefix the "continue" policy
    /// hands the processor on from it (see `sched::HANDOVER_STREAK`).
    pub yielded: u32,
    /// How many times [`Self::yielded`] yielded since another thread last
    /// ran.
    pub yield_streak: u32,
    /// Threads created and not finished (starting, parked or running).
    pub live_threads: u32,
    /// Current sleep set (after the prefix).
    pub sleep: ThreadSet,
    /// Apply sleep sets.
    pub sleep_sets: bool,
    /// Treat spinning threads as blocked.
    pub spin_blocking: bool,
    /// The process exit happens where the exiting thread reaches it (it
    /// may cut other threads short); otherwise it waits until no other
    /// thread can run or [`EXIT_GRACE_STEPS`] steps have passed.
    pub exit_cuts_threads: bool,
    /// Record unused-result read-modify-writes of a commuting family as
    /// updates (`REQ_COMMUTE_RMWS`).
    pub commute_rmws: bool,
    /// Step at which a thread first waited at the process exit (`u64::MAX`
    /// while none does).
    pub exit_waiting_since: u64,
    /// Reads without progress before a thread counts as spinning.
    pub spin_threshold: u64,
    /// Schedule prefix length.
    pub prefix_len: u64,
    /// Policy after the prefix.
    pub policy: Policy,
    /// PRNG state for the random policy.
    pub rng: u64,
    /// [`Policy::Pct`]: step of the next change point (`u64::MAX`: none left).
    pub pct_next_at: u64,
    /// [`Policy::Pct`]: index of the next change point in the header.
    pub pct_next: u32,
    /// [`Policy::Pct`]: the request's seed (initial priorities).
    pub pct_seed: u64,
    /// Step bound (`u64::MAX`: none).
    pub max_steps: u64,
    /// Recording bound: events past it run unrecorded.
    pub record_steps: u64,
    /// Step at which the next decision must take the general path: the
    /// step bound, or the recording bound while recording.
    pub check_at: u64,
    /// Recording stopped at `record_steps`.
    pub cut: bool,
    /// Steps executed (events recorded while `event_count <= record_steps`).
    pub event_count: u64,
    /// FIFO ticket counter for waits.
    pub next_ticket: u64,
    /// The runtime's own key whose destructor reports thread exit.
    pub exit_key: libc::pthread_key_t,
    /// Kernel id of a thread that finished for the scheduler but whose C
    /// library exit path (arena and thread cache release, stack caching) may
    /// still run; the next thread to run waits until it is gone (`0`: none).
    pub exiting_tid: i32,
    /// One more than the highest program key ever given a destructor (keys
    /// at and above it have none).
    pub key_dtor_limit: usize,
    /// Threads by id.
    pub threads: [Thread; MAX_THREADS],
    /// Synchronisation objects.
    pub objects: Table,
    /// Destructors of program keys (`0` = none), indexed by key.
    pub key_dtors: [usize; MAX_KEYS],
    /// [`Policy::Pct`]: the low priority each thread got at a change point
    /// (`0`: none yet, its initial priority holds).
    pub pct_low: [u64; MAX_THREADS],
}

struct Global(UnsafeCell<State>);

// SAFETY: the state is only touched by the single thread that holds the right
// to run; the right is handed over with release/acquire atomics.
unsafe impl Sync for Global {}

static GLOBAL: Global = Global(UnsafeCell::new(State {
    chan: Chan::NULL,
    thread_count: 0,
    running: 0,
    enabled: ThreadSet::EMPTY,
    enabled_valid: false,
    enabled_changes: 0,
    spinners: ThreadSet::EMPTY,
    awaiting: ThreadSet::EMPTY,
    iterating: ThreadSet::EMPTY,
    await_retries: false,
    drop_held: false,
    drop_respin: false,
    respin_watch: ThreadSet::EMPTY,
    awaits_off: false,
    yielded: NONE,
    yield_streak: 0,
    live_threads: 0,
    sleep: ThreadSet::EMPTY,
    sleep_sets: false,
    spin_blocking: false,
    exit_cuts_threads: false,
    commute_rmws: false,
    exit_waiting_since: u64::MAX,
    spin_threshold: 0,
    prefix_len: 0,
    policy: Policy::ContinueThenLowest,
    rng: 0,
    pct_next_at: u64::MAX,
    pct_next: 0,
    pct_seed: 0,
    max_steps: 0,
    record_steps: 0,
    check_at: 0,
    cut: false,
    event_count: 0,
    next_ticket: 0,
    exit_key: 0,
    exiting_tid: 0,
    key_dtor_limit: 0,
    threads: [Thread::EMPTY; MAX_THREADS],
    objects: Table::EMPTY,
    key_dtors: [0; MAX_KEYS],
    pct_low: [0; MAX_THREADS],
}));

/// The global state.
///
/// # Safety
/// Only the thread that currently holds the right to run (or the
/// initialising thread) may call this, and it must not keep two of the
/// returned references alive across a handoff.
#[allow(clippy::mut_from_ref)]
pub unsafe fn state() -> &'static mut State {
    // SAFETY: see the function's contract.
    unsafe { &mut *GLOBAL.0.get() }
}

/// The handoff word of thread `t`, usable without holding the right to run.
pub fn go_word(t: u32) -> &'static AtomicU32 {
    // SAFETY: only the atomic field is borrowed, which is sound to share.
    unsafe { &(*GLOBAL.0.get()).threads[t as usize % MAX_THREADS].go }
}

static DEBUG: core::sync::atomic::AtomicBool = core::sync::atomic::AtomicBool::new(false);

impl State {
    /// Notes that thread `me` yielded the processor (a yield, a sleep, a
    /// spin hint outside an await loop, a timed wait that timed out).
    pub fn note_yield(&mut self, me: u32) {
        if self.yielded == me {
            self.yield_streak = self.yield_streak.saturating_add(1);
        } else {
            self.yielded = me;
            self.yield_streak = 1;
        }
    }
}

/// True when `REACH_DEBUG=1`: the runtime prints why an execution ended.
pub fn debug() -> bool {
    DEBUG.load(Ordering::Relaxed)
}

/// Turns debugging output on or off.
pub fn set_debug(on: bool) {
    DEBUG.store(on, Ordering::Relaxed);
}
