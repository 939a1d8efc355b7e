//! The vocabulary of visible operations and the dependency relation over them.
//!
//! Every scheduling point of the program under test is one [`Op`]: the pending
//! operation of a thread. The runtime parks a thread at its pending operation
//! until the scheduler picks it; the event recorded in the trace is the same
//! operation once executed (with [`EventFlags`] saying how it turned out).
//!
//! Dependency ("conflict") is defined once here and used by the runtime (to
//! prune sleep sets, paper Fig. 7) and by the driver (vector clocks and
//! backtracking, paper Fig. 3):
//!
//! * every operation touches at most two [`Access`]es, each an object range
//!   and a [`Class`] (read, write, or commuting update);
//! * memory objects are byte ranges compared at [`GRANULE`]-byte granularity,
//!   so mixed-size and ranged accesses that overlap conflict;
//! * two operations conflict when they touch overlapping objects and at least
//!   one of the two accesses writes or updates, except two updates of the
//!   same [`RmwFamily`] on the same byte range: those commute;
//! * thread creation and joining are ordered by the driver's happens-before
//!   edges (create → first event of the child, last event of a thread → join),
//!   not by an object;
//! * under `--memory-model rc11` a `seq_cst` fence writes the sync object
//!   [`SC_FENCE_OBJECT`]: such fences synchronise with each other in the
//!   order they run, so two of them conflict. Any other fence touches
//!   nothing.

/// Memory objects are compared in units of this many bytes (addresses rounded
/// down to a multiple of it).
pub const GRANULE: u64 = 4;

/// The object of a `seq_cst` fence under `--memory-model rc11` (0, no
/// object, for every other fence): a sync object no program object has
/// as its address.
pub const SC_FENCE_OBJECT: u64 = 1;

/// Kind of a visible operation. The numeric values are part of the channel
/// layout (bumping them needs a [`crate::VERSION`] bump).
#[repr(u16)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum OpKind {
    /// Plain (non-atomic) load: `object` = address, `aux` = size in bytes.
    Load = 1,
    /// Plain store: `object` = address, `aux` = size.
    Store = 2,
    /// Atomic load: `object` = address, `aux` = size.
    AtomicLoad = 3,
    /// Atomic store: `object` = address, `aux` = size.
    AtomicStore = 4,
    /// Atomic read-modify-write (`atomicrmw`): `object` = address, `aux` =
    /// size. One that left memory unchanged ([`EventFlags::FAILED`]: an
    /// exchange of the current value, adding 0, ...) is a read.
    AtomicRmw = 5,
    /// Compare-and-exchange: `object` = address, `aux` = size. A failed one
    /// ([`EventFlags::FAILED`]) is a read.
    CmpXchg = 6,
    /// Memory fence: `aux` = its LLVM ordering (what the race detector
    /// follows under RC11); touches no object but, for a `seq_cst` fence
    /// under RC11, [`SC_FENCE_OBJECT`].
    Fence = 7,
    /// Ranged read (`memcpy`/`memmove` source, `memcmp`...): `object` = start, `aux` = length.
    RangeRead = 8,
    /// Ranged write (`memcpy`/`memmove` destination, `memset`): `object` = start, `aux` = length.
    RangeWrite = 9,

    /// `pthread_create`: `object` = the new thread's id (creation order).
    ThreadCreate = 20,
    /// `pthread_join`: `object` = the joined thread's id; enabled once it finished.
    ThreadJoin = 21,
    /// `pthread_detach`: `object` = the detached thread's id.
    ThreadDetach = 22,
    /// `pthread_exit` or return from the start routine (the thread finishes).
    ThreadExit = 23,
    /// `exit()` / return from `main`: the whole process ends.
    ProcessExit = 24,

    /// Mutex acquire (`pthread_mutex_lock`): `object` = mutex address.
    MutexLock = 30,
    /// `pthread_mutex_trylock`: always enabled; [`EventFlags::FAILED`] if busy.
    MutexTryLock = 31,
    /// `pthread_mutex_timedlock`: always enabled; [`EventFlags::TIMED_OUT`] if busy.
    MutexTimedLock = 32,
    /// Mutex release: `object` = mutex address.
    MutexUnlock = 33,
    /// `pthread_mutex_destroy`: `object` = mutex address.
    MutexDestroy = 34,

    /// First half of `pthread_cond_wait`: releases the mutex (`aux`) and starts
    /// waiting on the condition variable (`object`).
    CondWait = 40,
    /// Second half of a condition wait: re-acquires the mutex (`aux`) once
    /// signalled (or, for a timed wait, at any time: [`EventFlags::TIMED_OUT`]).
    CondRelock = 41,
    /// `pthread_cond_signal`: `object` = condition variable.
    CondSignal = 42,
    /// `pthread_cond_broadcast`: `object` = condition variable.
    CondBroadcast = 43,
    /// `pthread_cond_destroy`: `object` = condition variable.
    CondDestroy = 44,

    /// `pthread_rwlock_rdlock` (and timed/try variants with flags): `object` = rwlock.
    RwReadLock = 50,
    /// `pthread_rwlock_wrlock` (and timed/try variants with flags): `object` = rwlock.
    RwWriteLock = 51,
    /// `pthread_rwlock_unlock`: `object` = rwlock.
    RwUnlock = 52,

    /// `sem_wait` (and try/timed variants with flags): `object` = semaphore;
    /// executed, `aux` = the semaphore's count before the operation.
    SemWait = 60,
    /// `sem_post`: `object` = semaphore; executed, `aux` = the count before
    /// the operation.
    SemPost = 61,
    /// `sem_getvalue`: a read of the semaphore; executed, `aux` = the count
    /// it read.
    SemGetValue = 62,

    /// `pthread_barrier_wait`, arrival: `object` = barrier.
    BarrierArrive = 70,
    /// `pthread_barrier_wait`, departure once the barrier opened: `object` = barrier.
    BarrierLeave = 71,

    /// `pthread_spin_lock` (try variant with flags): `object` = spinlock.
    SpinLock = 80,
    /// `pthread_spin_unlock`: `object` = spinlock.
    SpinUnlock = 81,

    /// `pthread_once`: `object` = the once control.
    Once = 90,

    /// `futex(FUTEX_WAIT)` through `syscall()`: `object` = futex word.
    FutexWait = 100,
    /// `futex(FUTEX_WAKE)` through `syscall()`: `object` = futex word, `aux` = count.
    FutexWake = 101,

    /// `sched_yield`: a scheduling point touching no object.
    Yield = 110,
    /// `sleep`/`usleep`/`nanosleep`/`clock_nanosleep`: a scheduling point; time does not pass.
    Sleep = 111,

    /// A thread awaits a change after an iteration of a spin loop in which
    /// nothing happened (see the runtime's `awaits` module): `object` = the
    /// step at which that iteration began, `aux` = 0; the site is the
    /// loop's. Touches no object. Under the systematic strategies it stays
    /// pending (never enabled) for the rest of the execution; under the
    /// randomised ones it is enabled again once another thread wrote what
    /// the iteration read, and executes as an event before the iteration
    /// runs again.
    Await = 120,
}

impl OpKind {
    /// Every kind, for exhaustive tables and tests.
    pub const ALL: &'static [OpKind] = &[
        OpKind::Load,
        OpKind::Store,
        OpKind::AtomicLoad,
        OpKind::AtomicStore,
        OpKind::AtomicRmw,
        OpKind::CmpXchg,
        OpKind::Fence,
        OpKind::RangeRead,
        OpKind::RangeWrite,
        OpKind::ThreadCreate,
        OpKind::ThreadJoin,
        OpKind::ThreadDetach,
        OpKind::ThreadExit,
        OpKind::ProcessExit,
        OpKind::MutexLock,
        OpKind::MutexTryLock,
        OpKind::MutexTimedLock,
        OpKind::MutexUnlock,
        OpKind::MutexDestroy,
        OpKind::CondWait,
        OpKind::CondRelock,
        OpKind::CondSignal,
        OpKind::CondBroadcast,
        OpKind::CondDestroy,
        OpKind::RwReadLock,
        OpKind::RwWriteLock,
        OpKind::RwUnlock,
        OpKind::SemWait,
        OpKind::SemPost,
        OpKind::SemGetValue,
        OpKind::BarrierArrive,
        OpKind::BarrierLeave,
        OpKind::SpinLock,
        OpKind::SpinUnlock,
        OpKind::Once,
        OpKind::FutexWait,
        OpKind::FutexWake,
        OpKind::Yield,
        OpKind::Sleep,
        OpKind::Await,
    ];

    /// Decodes a kind read from the channel (untrusted input).
    pub fn from_u16(raw: u16) -> Option<OpKind> {
        OpKind::ALL.iter().copied().find(|k| *k as u16 == raw)
    }

    /// Short upper-case name used in reports (`LOAD`, `M_LOCK`, ...).
    pub fn name(self) -> &'static str {
        match self {
            OpKind::Load => "LOAD",
            OpKind::Store => "STORE",
            OpKind::AtomicLoad => "A_LOAD",
            OpKind::AtomicStore => "A_STORE",
            OpKind::AtomicRmw => "A_RMW",
            OpKind::CmpXchg => "A_CMPXCHG",
            OpKind::Fence => "FENCE",
            OpKind::RangeRead => "RANGE_READ",
            OpKind::RangeWrite => "RANGE_WRITE",
            OpKind::ThreadCreate => "SPAWN",
            OpKind::ThreadJoin => "JOIN",
            OpKind::ThreadDetach => "DETACH",
            OpKind::ThreadExit => "EXIT",
            OpKind::ProcessExit => "PROC_EXIT",
            OpKind::MutexLock => "M_LOCK",
            OpKind::MutexTryLock => "M_TRYLOCK",
            OpKind::MutexTimedLock => "M_TIMEDLOCK",
            OpKind::MutexUnlock => "M_UNLOCK",
            OpKind::MutexDestroy => "M_DESTROY",
            OpKind::CondWait => "C_WAIT",
            OpKind::CondRelock => "C_RELOCK",
            OpKind::CondSignal => "C_SIGNAL",
            OpKind::CondBroadcast => "C_BROADCAST",
            OpKind::CondDestroy => "C_DESTROY",
            OpKind::RwReadLock => "RW_RDLOCK",
            OpKind::RwWriteLock => "RW_WRLOCK",
            OpKind::RwUnlock => "RW_UNLOCK",
            OpKind::SemWait => "SEM_WAIT",
            OpKind::SemPost => "SEM_POST",
            OpKind::SemGetValue => "SEM_GETVALUE",
            OpKind::BarrierArrive => "B_ARRIVE",
            OpKind::BarrierLeave => "B_LEAVE",
            OpKind::SpinLock => "S_LOCK",
            OpKind::SpinUnlock => "S_UNLOCK",
            OpKind::Once => "ONCE",
            OpKind::FutexWait => "FUTEX_WAIT",
            OpKind::FutexWake => "FUTEX_WAKE",
            OpKind::Yield => "YIELD",
            OpKind::Sleep => "SLEEP",
            OpKind::Await => "AWAIT",
        }
    }

    /// True for every access of program memory: plain, atomic or ranged.
    pub fn is_memory_access(self) -> bool {
        self.is_plain_access()
            || matches!(
                self,
                OpKind::AtomicLoad | OpKind::AtomicStore | OpKind::AtomicRmw | OpKind::CmpXchg
            )
    }

    /// True for plain (non-atomic, non-synchronising) memory accesses: the
    /// accesses that can form data races.
    pub fn is_plain_access(self) -> bool {
        matches!(
            self,
            OpKind::Load | OpKind::Store | OpKind::RangeRead | OpKind::RangeWrite
        )
    }

    /// True for operations that acquire a lock-like object (mutex, rwlock,
    /// spinlock, condition re-acquire). An acquire and a release of the same
    /// lock are never co-enabled, which the DPOR backtracking exploits.
    pub fn is_acquire(self) -> bool {
        matches!(
            self,
            OpKind::MutexLock
                | OpKind::MutexTryLock
                | OpKind::MutexTimedLock
                | OpKind::CondRelock
                | OpKind::RwReadLock
                | OpKind::RwWriteLock
                | OpKind::SpinLock
        )
    }

    /// True for operations that release a lock-like object.
    pub fn is_release(self) -> bool {
        matches!(
            self,
            OpKind::MutexUnlock | OpKind::RwUnlock | OpKind::SpinUnlock | OpKind::CondWait
        )
    }
}

/// How an executed operation turned out (bit set stored in [`crate::Event::flags`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct EventFlags(pub u16);

impl EventFlags {
    /// The operation did not take effect, it only read its object: failed
    /// cmpxchg, a read-modify-write that left memory unchanged, busy
    /// trylock, `sem_trywait` on zero, ...
    pub const FAILED: u16 = 1;
    /// A timed operation timed out (timed lock, timed wait).
    pub const TIMED_OUT: u16 = 2;
    /// The operation is the "try" variant of its kind (never blocks).
    pub const TRY: u16 = 4;
    /// The operation is the "timed" variant of its kind (may time out).
    pub const TIMED: u16 = 8;
    /// On a plain load or store: a volatile access (C's `volatile`, the
    /// kernel's `READ_ONCE`/`WRITE_ONCE`), a *marked* access
    /// ([`Op::is_marked_access`]).
    pub const VOLATILE: u16 = 16;
    /// A process exit that may cut other threads short: it can happen while
    /// they can still run, so it conflicts with every operation. Without
    /// it, an exit waits until no other thread can run and conflicts with
    /// nothing ([`Op::cuts_threads`]).
    pub const CUTS_THREADS: u16 = 32;
    /// An atomic read-modify-write whose result the program never uses, of
    /// a commuting [`RmwFamily`] (in the bits of [`EventFlags::FAMILY_MASK`]),
    /// with the driver's `--commute-rmws`: an update ([`Class::Update`])
    /// that commutes with updates of its family on the same bytes. Set on
    /// the pending operation and kept on the event, whatever it did to
    /// memory (an update that left memory unchanged is still an update).
    pub const UNUSED_RESULT: u16 = 64;
    /// The second event of a futex wait that slept: the return, enabled
    /// once a wake (or, timed, a timeout) let the thread go. It touches only
    /// the futex, not the word (the first event compared the word).
    pub const RESUMES: u16 = 1 << 10;
    /// Where the [`RmwFamily`] of an [`EventFlags::UNUSED_RESULT`] update
    /// sits: `(family as u16) << FAMILY_SHIFT`.
    pub const FAMILY_SHIFT: u16 = 7;
    /// The bits of the [`RmwFamily`] of an [`EventFlags::UNUSED_RESULT`] update.
    pub const FAMILY_MASK: u16 = 0x7 << Self::FAMILY_SHIFT;

    /// True if every bit of `bit` is set.
    pub fn has(self, bit: u16) -> bool {
        self.0 & bit == bit
    }

    /// The bits that mark an unused-result update of `family`.
    pub const fn update(family: RmwFamily) -> u16 {
        Self::UNUSED_RESULT | (family as u16) << Self::FAMILY_SHIFT
    }

    /// The family of an unused-result update, `None` without
    /// [`EventFlags::UNUSED_RESULT`].
    pub fn family(self) -> Option<RmwFamily> {
        if !self.has(Self::UNUSED_RESULT) {
            return None;
        }
        RmwFamily::from_bits((self.0 & Self::FAMILY_MASK) >> Self::FAMILY_SHIFT)
    }
}

/// A set of read-modify-write operations that commute with each other when
/// applied to the same bytes: applied in any order, they leave the same
/// value. Adding and subtracting (wrapping) form one family; every other
/// family is one operation. Floating-point operations form none (`fadd`
/// rounds differently in another order; `fmax`/`fmin` pick between `+0`
/// and `-0` and between NaN payloads by order), nor do exchange, `nand` and
/// the conditional decrements and increments. The values are part of the
/// channel layout (in [`EventFlags::FAMILY_MASK`]).
#[repr(u8)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RmwFamily {
    /// `add` and `sub`.
    Additive = 0,
    /// `or`.
    Or = 1,
    /// `and`.
    And = 2,
    /// `xor`.
    Xor = 3,
    /// `max`, signed.
    Max = 4,
    /// `min`, signed.
    Min = 5,
    /// `umax`.
    UMax = 6,
    /// `umin`.
    UMin = 7,
}

impl RmwFamily {
    /// Every family, in code order.
    pub const ALL: &'static [RmwFamily] = &[
        RmwFamily::Additive,
        RmwFamily::Or,
        RmwFamily::And,
        RmwFamily::Xor,
        RmwFamily::Max,
        RmwFamily::Min,
        RmwFamily::UMax,
        RmwFamily::UMin,
    ];

    /// Decodes a family code (`None` if out of range).
    pub fn from_bits(bits: u16) -> Option<RmwFamily> {
        RmwFamily::ALL.get(usize::from(bits)).copied()
    }

    /// Short lower-case name used in reports (`add`, `or`, ...).
    pub fn name(self) -> &'static str {
        match self {
            RmwFamily::Additive => "add",
            RmwFamily::Or => "or",
            RmwFamily::And => "and",
            RmwFamily::Xor => "xor",
            RmwFamily::Max => "max",
            RmwFamily::Min => "min",
            RmwFamily::UMax => "umax",
            RmwFamily::UMin => "umin",
        }
    }
}

/// Whether an access reads, writes or updates its object.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Class {
    /// Reads commute with reads.
    Read,
    /// Writes conflict with everything on the same object.
    Write,
    /// An unused-result read-modify-write of a commuting family
    /// ([`EventFlags::UNUSED_RESULT`]): commutes with updates of the same
    /// family on exactly the same bytes, conflicts with everything else on
    /// the object (reads, writes, other families, other ranges).
    Update(RmwFamily),
}

/// Which namespace an object key lives in. Memory and synchronisation objects
/// are both keyed by address, but a mutex never conflicts with a plain access
/// to its bytes (programs do not read a mutex's representation).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Space {
    /// Program memory: plain and atomic accesses, byte ranges.
    Memory,
    /// A synchronisation object (mutex, condvar, semaphore, ...), by address.
    Sync,
}

/// One object touched by an operation: a byte range in a [`Space`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Access {
    /// Address space of the object.
    pub space: Space,
    /// First byte.
    pub start: u64,
    /// Length in bytes (at least 1).
    pub len: u64,
    /// Read or write.
    pub class: Class,
}

impl Access {
    /// First granule index covered.
    pub fn first_granule(&self) -> u64 {
        self.start / GRANULE
    }

    /// Last granule index covered (inclusive).
    pub fn last_granule(&self) -> u64 {
        self.start.saturating_add(self.len.max(1) - 1) / GRANULE
    }

    /// True if the two accesses touch a common granule of the same space.
    pub fn overlaps(&self, other: &Access) -> bool {
        self.space == other.space
            && self.first_granule() <= other.last_granule()
            && other.first_granule() <= self.last_granule()
    }

    /// True if the two accesses overlap and do not commute: at least one
    /// writes or updates, and they are not two updates of one family on
    /// the same bytes. (Two additions on overlapping but different ranges
    /// do not commute: a carry out of the narrower one is lost.)
    pub fn conflicts(&self, other: &Access) -> bool {
        let commute = match (self.class, other.class) {
            (Class::Read, Class::Read) => true,
            (Class::Update(f), Class::Update(g)) => {
                f == g
                    && self.space == other.space
                    && self.start == other.start
                    && self.len == other.len
            }
            _ => false,
        };
        !commute && self.overlaps(other)
    }
}

/// A visible operation as a thread is about to perform it, or as performed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Op {
    /// Operation kind.
    pub kind: OpKind,
    /// Outcome bits ([`EventFlags`]); for a pending operation only `TRY`/`TIMED`.
    pub flags: EventFlags,
    /// Main object (address, or thread id for thread operations).
    pub object: u64,
    /// Second argument (size, length, the mutex of a condition wait, ...).
    pub aux: u64,
}

impl Op {
    /// An operation that stands for none (a bare yield on no object): the
    /// filler of fixed arrays of operations.
    pub const NONE: Op = Op::new(OpKind::Yield, 0, 0);

    /// An operation without outcome flags.
    pub const fn new(kind: OpKind, object: u64, aux: u64) -> Op {
        Op {
            kind,
            flags: EventFlags(0),
            object,
            aux,
        }
    }

    /// True for a marked access: a plain load or store that was volatile.
    /// For the race detectors it is what a relaxed atomic access is under
    /// sequential consistency (it does not race with atomic or marked
    /// accesses and orders like them), except that it still races with an
    /// unordered plain access of the same bytes.
    pub fn is_marked_access(&self) -> bool {
        self.kind.is_plain_access() && self.flags.has(EventFlags::VOLATILE)
    }

    /// The (at most two) objects this operation touches, with their class.
    ///
    /// A *pending* operation whose outcome is unknown (a cmpxchg that may
    /// fail, a trylock) is classified by its effect if it succeeds, which is
    /// the conservative choice.
    pub fn accesses(&self) -> [Option<Access>; 2] {
        let failed = self.flags.has(EventFlags::FAILED) || self.flags.has(EventFlags::TIMED_OUT);
        let mem = |class| {
            Some(Access {
                space: Space::Memory,
                start: self.object,
                len: self.aux.max(1),
                class,
            })
        };
        let sync = |addr: u64, class| {
            Some(Access {
                space: Space::Sync,
                start: addr,
                len: 1,
                class,
            })
        };
        match self.kind {
            OpKind::Load | OpKind::AtomicLoad | OpKind::RangeRead => [mem(Class::Read), None],
            OpKind::Store | OpKind::AtomicStore | OpKind::RangeWrite => [mem(Class::Write), None],
            // Under sequential consistency a compare-and-exchange that failed
            // and a read-modify-write that left memory unchanged are
            // observationally reads. An unused-result update of a commuting
            // family is an update whatever it did (see
            // `EventFlags::UNUSED_RESULT`).
            OpKind::CmpXchg | OpKind::AtomicRmw => {
                let class = match self.flags.family() {
                    Some(family) if self.kind == OpKind::AtomicRmw => Class::Update(family),
                    _ if failed => Class::Read,
                    _ => Class::Write,
                };
                [mem(class), None]
            }
            OpKind::Fence if self.object == SC_FENCE_OBJECT => {
                [sync(SC_FENCE_OBJECT, Class::Write), None]
            }
            OpKind::Fence
            | OpKind::Yield
            | OpKind::Sleep
            | OpKind::Await
            | OpKind::ThreadCreate
            | OpKind::ThreadJoin
            | OpKind::ThreadDetach
            | OpKind::ThreadExit => [None, None],
            // Ending the process touches no object, but conflicts with every
            // operation (see `conflicts`).
            OpKind::ProcessExit => [None, None],
            OpKind::MutexLock
            | OpKind::MutexTryLock
            | OpKind::MutexTimedLock
            | OpKind::SpinLock
            | OpKind::RwReadLock
            | OpKind::RwWriteLock
            | OpKind::SemWait => [
                sync(self.object, if failed { Class::Read } else { Class::Write }),
                None,
            ],
            OpKind::MutexUnlock
            | OpKind::MutexDestroy
            | OpKind::SpinUnlock
            | OpKind::RwUnlock
            | OpKind::SemPost
            | OpKind::CondSignal
            | OpKind::CondBroadcast
            | OpKind::CondDestroy
            | OpKind::BarrierArrive
            | OpKind::BarrierLeave
            | OpKind::Once
            | OpKind::FutexWake => [sync(self.object, Class::Write), None],
            OpKind::SemGetValue => [sync(self.object, Class::Read), None],
            OpKind::FutexWait if self.flags.has(EventFlags::RESUMES) => {
                [sync(self.object, Class::Write), None]
            }
            // The compare reads the 32-bit futex word (`aux` is the
            // expected value, not a length).
            OpKind::FutexWait => [
                sync(self.object, Class::Write),
                Some(Access {
                    space: Space::Memory,
                    start: self.object,
                    len: 4,
                    class: Class::Read,
                }),
            ],
            OpKind::CondWait | OpKind::CondRelock => [
                sync(self.object, Class::Write),
                sync(self.aux, Class::Write),
            ],
        }
    }

    /// True if the operation, as executed, made no progress: it only read
    /// (a load, a failed compare-and-exchange, a read-modify-write that left
    /// memory unchanged, a busy trylock or try-wait, a timed-out wait, a
    /// futex wait that did not sleep) or only gave up its turn (yield, sleep,
    /// fence). A thread repeating only such operations over a few locations
    /// is spinning.
    pub fn made_no_progress(&self) -> bool {
        let failed = self.flags.has(EventFlags::FAILED) || self.flags.has(EventFlags::TIMED_OUT);
        match self.kind {
            OpKind::Load | OpKind::AtomicLoad | OpKind::RangeRead | OpKind::SemGetValue => true,
            OpKind::Yield | OpKind::Sleep | OpKind::Fence | OpKind::Await => true,
            OpKind::CmpXchg
            | OpKind::AtomicRmw
            | OpKind::MutexTryLock
            | OpKind::MutexTimedLock
            | OpKind::SemWait
            | OpKind::RwReadLock
            | OpKind::RwWriteLock
            | OpKind::SpinLock
            | OpKind::FutexWait => failed,
            _ => false,
        }
    }

    /// True if this operation, still pending (its outcome unknown), may turn
    /// out to make no progress ([`Op::made_no_progress`]): a read, a yield,
    /// or an operation that may fail without effect (compare-and-exchange,
    /// read-modify-write, futex wait, try and timed variants).
    pub fn may_make_no_progress(&self) -> bool {
        let may_fail = match self.kind {
            OpKind::CmpXchg
            | OpKind::AtomicRmw
            | OpKind::FutexWait
            | OpKind::MutexTryLock
            | OpKind::MutexTimedLock => true,
            OpKind::SemWait | OpKind::RwReadLock | OpKind::RwWriteLock | OpKind::SpinLock => {
                self.flags.has(EventFlags::TRY) || self.flags.has(EventFlags::TIMED)
            }
            _ => false,
        };
        may_fail || self.made_no_progress()
    }

    /// True if the operation may write or update one of its objects (the
    /// "v may write" test of Fig. 3).
    pub fn may_write(&self) -> bool {
        self.accesses()
            .iter()
            .flatten()
            .any(|a| a.class != Class::Read)
    }

    /// True for a process exit that may happen while other threads can
    /// still run ([`EventFlags::CUTS_THREADS`]): it conflicts with every
    /// operation. An exit without the flag happens once no other thread can
    /// run, and conflicts with nothing.
    pub fn cuts_threads(&self) -> bool {
        self.kind == OpKind::ProcessExit && self.flags.has(EventFlags::CUTS_THREADS)
    }

    /// The dependency relation: do the two operations (of different threads)
    /// conflict on some object? An exit that cuts threads short conflicts
    /// with everything: whatever another thread does, it happens or not
    /// depending on the order.
    pub fn conflicts(&self, other: &Op) -> bool {
        if self.cuts_threads() || other.cuts_threads() {
            return true;
        }
        let mine = self.accesses();
        let theirs = other.accesses();
        mine.iter()
            .flatten()
            .any(|a| theirs.iter().flatten().any(|b| a.conflicts(b)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_round_trip_through_u16() {
        for kind in OpKind::ALL {
            assert_eq!(OpKind::from_u16(*kind as u16), Some(*kind));
        }
        assert_eq!(OpKind::from_u16(0), None);
        assert_eq!(OpKind::from_u16(9999), None);
    }

    #[test]
    fn reads_commute_writes_conflict() {
        let r1 = Op::new(OpKind::Load, 0x1000, 4);
        let r2 = Op::new(OpKind::AtomicLoad, 0x1000, 4);
        let w = Op::new(OpKind::Store, 0x1000, 4);
        assert!(!r1.conflicts(&r2));
        assert!(r1.conflicts(&w));
        assert!(w.conflicts(&w));
    }

    #[test]
    fn neighbouring_ints_are_independent_but_overlaps_conflict() {
        let a = Op::new(OpKind::Store, 0x1000, 4);
        let b = Op::new(OpKind::Store, 0x1004, 4);
        let wide = Op::new(OpKind::Store, 0x1000, 8);
        let range = Op::new(OpKind::RangeRead, 0x0ff0, 0x20);
        assert!(!a.conflicts(&b));
        assert!(wide.conflicts(&b));
        assert!(range.conflicts(&b));
    }

    #[test]
    fn failed_cmpxchg_is_a_read() {
        let mut cas = Op::new(OpKind::CmpXchg, 0x2000, 4);
        let load = Op::new(OpKind::Load, 0x2000, 4);
        assert!(cas.conflicts(&load));
        cas.flags = EventFlags(EventFlags::FAILED);
        assert!(!cas.conflicts(&load));
    }

    #[test]
    fn unchanged_rmw_is_a_read() {
        let mut rmw = Op::new(OpKind::AtomicRmw, 0x2000, 4);
        let load = Op::new(OpKind::AtomicLoad, 0x2000, 4);
        assert!(rmw.conflicts(&load));
        assert!(rmw.may_write());
        assert!(!rmw.made_no_progress());
        rmw.flags = EventFlags(EventFlags::FAILED);
        assert!(!rmw.conflicts(&load));
        assert!(rmw.conflicts(&Op::new(OpKind::Store, 0x2000, 4)));
        assert!(!rmw.may_write());
        assert!(rmw.made_no_progress());
    }

    fn update(family: RmwFamily, object: u64, aux: u64) -> Op {
        Op {
            flags: EventFlags(EventFlags::update(family)),
            ..Op::new(OpKind::AtomicRmw, object, aux)
        }
    }

    #[test]
    fn updates_of_one_family_on_the_same_bytes_commute() {
        let add = update(RmwFamily::Additive, 0x2000, 4);
        assert_eq!(add.flags.family(), Some(RmwFamily::Additive));
        assert!(!add.conflicts(&add));
        assert!(add.may_write());
        for family in RmwFamily::ALL {
            let u = update(*family, 0x2000, 4);
            assert_eq!(u.flags.family(), Some(*family));
            assert_eq!(u.conflicts(&add), *family != RmwFamily::Additive);
        }
        // Reads, writes, plain rmws and other ranges conflict.
        assert!(add.conflicts(&Op::new(OpKind::AtomicLoad, 0x2000, 4)));
        assert!(add.conflicts(&Op::new(OpKind::Load, 0x2002, 1)));
        assert!(add.conflicts(&Op::new(OpKind::AtomicStore, 0x2000, 4)));
        assert!(add.conflicts(&Op::new(OpKind::AtomicRmw, 0x2000, 4)));
        assert!(add.conflicts(&update(RmwFamily::Additive, 0x2000, 8)));
        assert!(!add.conflicts(&update(RmwFamily::Additive, 0x2004, 4)));
        assert!(!add.conflicts(&Op::new(OpKind::Load, 0x2004, 4)));
        // One that left memory unchanged stays an update.
        let mut same = update(RmwFamily::Or, 0x2000, 4);
        same.flags.0 |= EventFlags::FAILED;
        assert!(!same.conflicts(&update(RmwFamily::Or, 0x2000, 4)));
        assert!(same.conflicts(&Op::new(OpKind::AtomicLoad, 0x2000, 4)));
        assert!(same.made_no_progress());
        // The flag means nothing on other kinds.
        let cas = Op {
            flags: EventFlags(EventFlags::update(RmwFamily::Or)),
            ..Op::new(OpKind::CmpXchg, 0x2000, 4)
        };
        assert!(cas.conflicts(&cas));
        assert_eq!(EventFlags::default().family(), None);
    }

    #[test]
    fn no_progress_is_reading_or_yielding() {
        let failed = |kind| Op {
            flags: EventFlags(EventFlags::FAILED),
            ..Op::new(kind, 0x3000, 4)
        };
        for kind in [
            OpKind::Load,
            OpKind::AtomicLoad,
            OpKind::Yield,
            OpKind::Fence,
        ] {
            assert!(Op::new(kind, 0x3000, 4).made_no_progress(), "{kind:?}");
        }
        for kind in [OpKind::CmpXchg, OpKind::MutexTryLock, OpKind::SemWait] {
            assert!(!Op::new(kind, 0x3000, 4).made_no_progress(), "{kind:?}");
            assert!(failed(kind).made_no_progress(), "{kind:?}");
        }
        for kind in [
            OpKind::Store,
            OpKind::RangeWrite,
            OpKind::MutexUnlock,
            OpKind::ThreadCreate,
            OpKind::MutexDestroy,
        ] {
            assert!(!Op::new(kind, 0x3000, 4).made_no_progress(), "{kind:?}");
            assert!(!Op::new(kind, 0x3000, 4).may_make_no_progress(), "{kind:?}");
        }
        // Pending, the outcome is unknown.
        for kind in [OpKind::CmpXchg, OpKind::AtomicRmw, OpKind::Load] {
            assert!(Op::new(kind, 0x3000, 4).may_make_no_progress(), "{kind:?}");
        }
        assert!(!Op::new(OpKind::SemWait, 0x3000, 0).may_make_no_progress());
        let try_wait = Op {
            flags: EventFlags(EventFlags::TRY),
            ..Op::new(OpKind::SemWait, 0x3000, 0)
        };
        assert!(try_wait.may_make_no_progress());
    }

    #[test]
    fn sync_objects_do_not_alias_memory() {
        let lock = Op::new(OpKind::MutexLock, 0x3000, 0);
        let store = Op::new(OpKind::Store, 0x3000, 4);
        assert!(!lock.conflicts(&store));
        let wait = Op::new(OpKind::CondWait, 0x4000, 0x3000);
        assert!(wait.conflicts(&lock));
    }
}
