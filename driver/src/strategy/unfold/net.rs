//! The Petri-net model of a program (Kähkönen et al., Sec. 3, Fig. 5),
//! extended to what native programs do.
//!
//! Places: one *control* place per thread (its program location is the
//! condition's position in the unfolding, so the place only names the
//! thread); one place per lock; and for every shared object one *copy* per
//! thread (`x_1 … x_n`), so that reads of different threads are independent
//! by construction. Transitions (the event shapes of Sec. 3):
//!
//! - read of `x` by thread `i`: `{pc, x_i} → {pc', x_i'}`;
//! - write of `x` by thread `i`: `{pc, x_1 … x_n} → {pc', x_1' … x_n'}`;
//! - lock `l`: `{pc, l} → {pc'}`; unlock `l`: `{pc} → {pc', l'}`.
//!
//! What the paper's model lacks is encoded with the same shapes:
//!
//! - memory is split into 4-byte granules, each a shared object; an access
//!   of several granules reads or writes each of them in one event;
//! - an atomic read-modify-write or compare-and-exchange is a write (it
//!   reads and writes one place: consuming every copy includes its own);
//! - `pthread_create` writes a *thread counter* object (thread ids are
//!   creation order, so creations must be ordered) and puts a token on the
//!   child's control place; the child's copies of every object exist from
//!   the start (the paper's fixed-thread model, grown when a new thread id
//!   is seen: Sec. 4.5, first option);
//! - thread exit and join follow footnote 1 of Sec. 4.4: a thread holds a
//!   *done* resource from its start and releases it when it ends (an event
//!   the trace does not show, added after the thread's last operation);
//!   `pthread_join` acquires it like a lock;
//! - condition variables: a wait releases the mutex and writes the
//!   condition variable; the re-lock acquires the mutex and writes the
//!   condition variable; signal and broadcast write it. Which waiters are
//!   signalled is a value carried by the condition variable's conditions
//!   (FIFO, as the runtime), and a re-lock is only enabled for a signalled
//!   waiter (or a timed one);
//! - semaphores: wait and post write the semaphore, `sem_getvalue` reads
//!   it; the count is a value carried by its conditions and a blocking wait
//!   is only enabled on a positive count;
//! - a failed trylock or timed lock is a local step of the thread; a
//!   successful one acquires the lock;
//! - every other synchronisation operation (rwlocks, barriers, once,
//!   futexes, destroy) writes its object; those among them that may block
//!   are *unmodelled*: their events are added as executed, never proposed
//!   as targets, and their presence makes the search report itself
//!   incomplete;
//! - fences, yields, sleeps, detaches and the process exit are local steps
//!   (`{pc} → {pc'}`);
//! - under concolic testing, a path constraint the thread evaluates on
//!   input values is a *symbolic branch* event (Sec. 3, Fig. 7), also a
//!   local step, labelled with its site and outcome: a conditional branch
//!   or a failed `reach_assume` has two outcomes (Sec. 5.2.1, case 1), a
//!   constraint that only narrows the inputs (an input's range) one.

use reach_channel::symbolic::{BranchKind, BranchRecord};
use reach_channel::{EventFlags, Op, OpKind};

/// Bytes per memory object (granule), as the dependency relation uses.
const GRANULE: u64 = 4;

/// A shared object with one copy per thread.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Obj {
    /// A 4-byte memory granule (its address / 4).
    Mem(u64),
    /// A synchronisation object (condition variable, semaphore, ...).
    Sync(u64),
    /// The thread-id counter that creations advance.
    Threads,
}

/// A place of the net.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Place {
    /// The control place of a thread.
    Thread(u32),
    /// Thread `j`'s copy of a shared object.
    Copy(Obj, u32),
    /// A mutex or spin lock.
    Lock(u64),
    /// The resource a thread holds until it ends (joined through it).
    Done(u32),
}

/// What kind of value a synchronisation object's conditions carry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Guard {
    /// No guard: the event is enabled whenever its preset is marked.
    None,
    /// A blocking semaphore wait: needs a positive count.
    SemWait,
    /// A condition-variable re-lock of thread `t`: needs `t` signalled.
    Relock(u32),
    /// A `pthread_once` step of thread `t`: needs no other thread to be
    /// running the initialiser.
    Once(u32),
    /// A blocking operation the net does not model exactly: never a target.
    Unmodelled,
}

/// The transition of an event: its label (thread and operation) and what
/// it does to the net.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Label {
    /// Executing thread.
    pub thread: u32,
    /// Operation kind.
    pub kind: OpKind,
    /// Main object.
    pub object: u64,
    /// Second argument where it names something (size, mutex), else 0.
    pub aux: u64,
    /// Outcome bits that change the transition (a failed trylock).
    pub failed: bool,
    /// For a synthetic thread end: true (the trace shows no step for it).
    pub synthetic: bool,
    /// The try or timed variant of a blocking call (it never blocks).
    pub nonblocking: bool,
    /// For a symbolic branch event: its path constraint's site and outcome.
    pub branch: Option<BranchStep>,
}

/// The path constraint of a symbolic branch event.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BranchStep {
    /// The constraint's site (its source location).
    pub site: u64,
    /// A [`BranchKind`] as recorded.
    pub kind: u16,
    /// The outcome: the condition held.
    pub taken: bool,
}

/// The places an event takes tokens from and gives tokens to, besides its
/// thread's control place.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Shape {
    /// Objects read (own copy).
    pub reads: Vec<Obj>,
    /// Objects written (every copy).
    pub writes: Vec<Obj>,
    /// Lock or done places acquired (taken, not given back).
    pub acquires: Vec<Place>,
    /// Lock or done places released (given, not taken).
    pub releases: Vec<Place>,
    /// Thread whose control place this event marks (creation).
    pub spawns: Option<u32>,
}

impl Label {
    /// The label of operation `op` executed (or about to be) by `thread`.
    pub fn of(thread: u32, op: &Op) -> Label {
        let failed = op.flags.has(EventFlags::FAILED) || op.flags.has(EventFlags::TIMED_OUT);
        let aux = match op.kind {
            OpKind::Load
            | OpKind::Store
            | OpKind::AtomicLoad
            | OpKind::AtomicStore
            | OpKind::AtomicRmw
            | OpKind::CmpXchg
            | OpKind::RangeRead
            | OpKind::RangeWrite
            | OpKind::CondWait
            | OpKind::CondRelock => op.aux,
            _ => 0,
        };
        let failed = failed
            && matches!(
                op.kind,
                OpKind::MutexTryLock | OpKind::MutexTimedLock | OpKind::SpinLock
            );
        Label {
            thread,
            kind: op.kind,
            object: op.object,
            aux,
            failed,
            synthetic: false,
            nonblocking: op.flags.has(EventFlags::TRY) || op.flags.has(EventFlags::TIMED),
            branch: None,
        }
    }

    /// The symbolic branch event of path constraint `record` of `thread`,
    /// a local step (the shape of a fence).
    pub fn branch(thread: u32, record: &BranchRecord) -> Label {
        Label {
            thread,
            kind: OpKind::Fence,
            object: record.site,
            aux: 0,
            failed: false,
            synthetic: false,
            nonblocking: false,
            branch: Some(BranchStep {
                site: record.site,
                kind: record.kind,
                taken: record.taken != 0,
            }),
        }
    }

    /// True if `record` is a path constraint that the unfolding models
    /// as a symbolic branch event.
    pub fn models(record: &BranchRecord) -> bool {
        [BranchKind::Branch, BranchKind::Pinned, BranchKind::Assume]
            .iter()
            .any(|&k| record.kind == k as u16)
    }

    /// The end of `thread` (footnote 1 of Sec. 4.4), which the trace does
    /// not show.
    pub fn end(thread: u32) -> Label {
        Label {
            thread,
            kind: OpKind::ThreadExit,
            object: u64::from(thread),
            aux: 0,
            failed: false,
            synthetic: true,
            nonblocking: false,
            branch: None,
        }
    }

    /// True if two labels are the same operation of the same thread up to
    /// its outcome (what a thread condition determines).
    pub fn same_call(&self, other: &Label) -> bool {
        self.thread == other.thread
            && self.kind == other.kind
            && self.object == other.object
            && self.synthetic == other.synthetic
            && self.branch.map(|b| b.kind) == other.branch.map(|b| b.kind)
    }

    /// The label with the other outcome of a try or timed lock, a
    /// conditional branch or a failed `reach_assume` (a thread condition
    /// whose next operation is such a step has both).
    pub fn other_outcome(&self) -> Option<Label> {
        if let Some(b) = self.branch {
            let negatable = b.kind == BranchKind::Branch as u16
                || (b.kind == BranchKind::Assume as u16 && !b.taken);
            return negatable.then(|| Label {
                branch: Some(BranchStep {
                    taken: !b.taken,
                    ..b
                }),
                ..self.clone()
            });
        }
        matches!(self.kind, OpKind::MutexTryLock | OpKind::MutexTimedLock).then(|| Label {
            failed: !self.failed,
            ..self.clone()
        })
    }

    /// What the event does to the net.
    pub fn shape(&self) -> Shape {
        let mut shape = Shape::default();
        let granules = |start: u64, len: u64| {
            let first = start / GRANULE;
            let last = (start + len.max(1) - 1) / GRANULE;
            (first..=last).map(Obj::Mem).collect::<Vec<_>>()
        };
        let sync = Obj::Sync(self.object);
        match self.kind {
            OpKind::Load | OpKind::AtomicLoad | OpKind::RangeRead => {
                shape.reads = granules(self.object, self.aux);
            }
            OpKind::Store
            | OpKind::AtomicStore
            | OpKind::RangeWrite
            | OpKind::AtomicRmw
            | OpKind::CmpXchg => shape.writes = granules(self.object, self.aux),
            OpKind::ThreadCreate => {
                shape.writes = vec![Obj::Threads];
                shape.spawns = u32::try_from(self.object).ok();
            }
            OpKind::ThreadJoin => {
                if let Ok(t) = u32::try_from(self.object) {
                    shape.acquires = vec![Place::Done(t)];
                }
            }
            OpKind::ThreadExit if self.synthetic => {
                shape.releases = vec![Place::Done(self.thread)];
            }
            OpKind::ThreadExit
            | OpKind::ThreadDetach
            | OpKind::ProcessExit
            | OpKind::Fence
            | OpKind::Yield
            | OpKind::Sleep
            | OpKind::Await => {}
            OpKind::MutexLock | OpKind::SpinLock => {
                if !self.failed {
                    shape.acquires = vec![Place::Lock(self.object)];
                }
            }
            OpKind::MutexTryLock | OpKind::MutexTimedLock => {
                if !self.failed {
                    shape.acquires = vec![Place::Lock(self.object)];
                }
            }
            OpKind::MutexUnlock | OpKind::SpinUnlock => {
                shape.releases = vec![Place::Lock(self.object)];
            }
            OpKind::CondWait => {
                shape.writes = vec![sync];
                shape.releases = vec![Place::Lock(self.aux)];
            }
            OpKind::CondRelock => {
                shape.writes = vec![sync];
                shape.acquires = vec![Place::Lock(self.aux)];
            }
            OpKind::SemGetValue => shape.reads = vec![sync],
            OpKind::FutexWait => {
                shape.writes = vec![sync];
                shape.reads = granules(self.object, 4);
            }
            OpKind::MutexDestroy
            | OpKind::CondSignal
            | OpKind::CondBroadcast
            | OpKind::CondDestroy
            | OpKind::RwReadLock
            | OpKind::RwWriteLock
            | OpKind::RwUnlock
            | OpKind::SemWait
            | OpKind::SemPost
            | OpKind::BarrierArrive
            | OpKind::BarrierLeave
            | OpKind::Once
            | OpKind::FutexWake => shape.writes = vec![sync],
        }
        shape
    }

    /// The enabling condition beyond a marked preset.
    pub fn guard(&self) -> Guard {
        let blocking = !self.nonblocking;
        match self.kind {
            OpKind::SemWait if blocking => Guard::SemWait,
            OpKind::CondRelock if blocking => Guard::Relock(self.thread),
            OpKind::RwReadLock | OpKind::RwWriteLock if blocking => Guard::Unmodelled,
            OpKind::Once => Guard::Once(self.thread),
            OpKind::BarrierLeave | OpKind::ProcessExit => Guard::Unmodelled,
            OpKind::FutexWait if blocking => Guard::Unmodelled,
            _ => Guard::None,
        }
    }

    /// The shared-object copies a transition of `shape` consumes and
    /// produces again: every thread's copy of what it writes, its own
    /// thread's copy of what it reads (Sec. 3).
    fn copy_places(&self, shape: &Shape, universe: u32) -> Vec<Place> {
        let mut places: Vec<Place> = Vec::new();
        for obj in &shape.writes {
            places.extend((0..universe).map(|j| Place::Copy(*obj, j)));
        }
        for obj in &shape.reads {
            places.push(Place::Copy(*obj, self.thread));
        }
        places
    }

    /// The places of the preset other than the thread's control place,
    /// with `universe` threads (sorted, without duplicates).
    pub fn access_places(&self, universe: u32) -> Vec<Place> {
        let shape = self.shape();
        let mut places = self.copy_places(&shape, universe);
        places.extend(shape.acquires.iter().copied());
        places.sort_unstable();
        places.dedup();
        places
    }

    /// The places of the postset other than the thread's control place.
    pub fn produced_places(&self, universe: u32) -> Vec<Place> {
        let shape = self.shape();
        let mut places = self.copy_places(&shape, universe);
        places.extend(shape.releases.iter().copied());
        if let Some(child) = shape.spawns {
            places.push(Place::Thread(child));
        }
        places.sort_unstable();
        places.dedup();
        places
    }
}

/// The value a synchronisation object's condition carries.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Value {
    /// Not known (or not tracked for this object).
    #[default]
    Unknown,
    /// A semaphore's count.
    Count(u64),
    /// A condition variable's waiters (FIFO) and signalled threads.
    Waiters {
        /// Threads waiting, oldest first.
        waiting: Vec<u32>,
        /// Threads signalled, not yet re-locked.
        signalled: Vec<u32>,
    },
    /// A once control: the thread running its initialiser, or done.
    Once {
        /// The thread inside the initialiser, if one is.
        running: Option<u32>,
    },
}

impl Value {
    /// The value after `label` executed on an object holding `self`;
    /// `found` is the count a semaphore operation reported, if executed.
    pub fn after(&self, label: &Label, found: Option<u64>) -> Value {
        match label.kind {
            OpKind::SemWait | OpKind::SemPost => {
                let before = match (found, self) {
                    (Some(n), _) => n,
                    (None, Value::Count(n)) => *n,
                    _ => return Value::Unknown,
                };
                match label.kind {
                    OpKind::SemPost => Value::Count(before + 1),
                    // A try-wait on zero leaves the count.
                    _ => Value::Count(before.saturating_sub(1)),
                }
            }
            OpKind::CondWait | OpKind::CondSignal | OpKind::CondBroadcast | OpKind::CondRelock => {
                let (mut waiting, mut signalled) = match self {
                    Value::Waiters { waiting, signalled } => (waiting.clone(), signalled.clone()),
                    _ => (Vec::new(), Vec::new()),
                };
                match label.kind {
                    OpKind::CondWait => waiting.push(label.thread),
                    OpKind::CondSignal => {
                        if !waiting.is_empty() {
                            signalled.push(waiting.remove(0));
                        }
                    }
                    OpKind::CondBroadcast => signalled.append(&mut waiting),
                    _ => {
                        waiting.retain(|&t| t != label.thread);
                        signalled.retain(|&t| t != label.thread);
                    }
                }
                Value::Waiters { waiting, signalled }
            }
            OpKind::Once => match self {
                // The first step starts the initialiser, the caller's
                // second one completes it; later callers pass through.
                Value::Once { running: Some(t) } if *t == label.thread => {
                    Value::Once { running: None }
                }
                Value::Unknown => Value::Once {
                    running: Some(label.thread),
                },
                other => other.clone(),
            },
            _ => self.clone(),
        }
    }

    /// Does `guard` hold on an object with this value? Not on an unknown
    /// value (the search defers such an event until the value is known).
    pub fn admits(&self, guard: Guard) -> bool {
        match (guard, self) {
            (Guard::None, _) => true,
            (Guard::Unmodelled, _) => false,
            (Guard::SemWait, Value::Count(n)) => *n > 0,
            (Guard::Relock(t), Value::Waiters { signalled, .. }) => signalled.contains(&t),
            (Guard::Relock(_), _) => false,
            (Guard::SemWait, _) => false,
            (Guard::Once(t), Value::Once { running: Some(r) }) => *r == t,
            (Guard::Once(_), _) => true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_take_one_copy_writes_every_copy() {
        let read = Label::of(1, &Op::new(OpKind::Load, 0x1000, 4));
        assert_eq!(read.access_places(3), vec![Place::Copy(Obj::Mem(0x400), 1)]);
        let write = Label::of(2, &Op::new(OpKind::Store, 0x1000, 8));
        assert_eq!(write.access_places(2).len(), 4);
        assert_eq!(write.produced_places(2).len(), 4);
    }

    #[test]
    fn locks_are_taken_and_given_back() {
        let lock = Label::of(1, &Op::new(OpKind::MutexLock, 0x9000, 0));
        assert_eq!(lock.access_places(2), vec![Place::Lock(0x9000)]);
        assert!(lock.produced_places(2).is_empty());
        let unlock = Label::of(1, &Op::new(OpKind::MutexUnlock, 0x9000, 0));
        assert!(unlock.access_places(2).is_empty());
        assert_eq!(unlock.produced_places(2), vec![Place::Lock(0x9000)]);
        let join = Label::of(0, &Op::new(OpKind::ThreadJoin, 1, 0));
        assert_eq!(join.access_places(2), vec![Place::Done(1)]);
        assert_eq!(Label::end(1).produced_places(2), vec![Place::Done(1)]);
    }

    #[test]
    fn semaphore_and_condition_values() {
        let wait = Label::of(1, &Op::new(OpKind::SemWait, 0xa000, 0));
        let post = Label::of(2, &Op::new(OpKind::SemPost, 0xa000, 0));
        let zero = Value::Count(0);
        assert!(!zero.admits(wait.guard()));
        assert!(zero.after(&post, None).admits(wait.guard()));
        let cwait = Label::of(1, &Op::new(OpKind::CondWait, 0xc000, 0x9000));
        let signal = Label::of(2, &Op::new(OpKind::CondSignal, 0xc000, 0));
        let relock = Label::of(1, &Op::new(OpKind::CondRelock, 0xc000, 0x9000));
        let waiting = Value::Unknown.after(&cwait, None);
        assert!(!waiting.admits(relock.guard()));
        assert!(waiting.after(&signal, None).admits(relock.guard()));
    }
}
