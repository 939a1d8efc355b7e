//! Lockset data-race detection on one trace (Savage et al., Eraser, TOCS
//! 1997; the consistent locking of Setiadi et al., Sec. 4.1): a shared
//! location must be protected by at least one lock that every thread holds
//! whenever it accesses it.
//!
//! Per thread the detector keeps the locks held: mutexes (a try or timed
//! lock only when it succeeded), reader-writer locks in read or write mode,
//! spinlocks; a condition wait releases its mutex and the re-lock takes it
//! back. Per byte of memory (C11's memory locations as far as races go:
//! two accesses race only if they share a byte, see
//! [`super::objects::touched_bytes`]) it refines Eraser's candidate set
//! C(v) at every access: intersected with the locks held (a write keeps
//! only the locks held in write mode). A byte **races** once it was
//! accessed by two threads, written by one of them, and C(v) is empty;
//! reported once, at the access that made it so, with the latest access of
//! another thread as the other side.
//!
//! Eraser exempts initialisation with a state machine (a location stays
//! *exclusive* to its first thread until another one touches it), which
//! makes the verdict depend on the order of the accesses: a write followed
//! by another thread's reads is an initialisation, the reverse order a
//! race. Here the exemption is a property of the access instead: an access
//! made while its thread is the only one that exists (before the first
//! `pthread_create`, after joining every thread created) is not shared and
//! takes no part. The verdict for a byte then depends only on which
//! accesses each thread makes under which locks, not on their order: two
//! executions with the same access manners have the same lockset races
//! (what `--strategy branches` relies on).
//!
//! Atomic accesses are not plain accesses and are skipped, and so are
//! marked (volatile) ones ([`Op::is_marked_access`]: a lock-free flag
//! read with `READ_ONCE` needs no lock); the order of
//! the events (happens-before) plays no part. A second kind of finding is
//! the release of a lock the thread does not hold.

use super::objects::touched_bytes;
use crate::trace::Trace;
use reach_channel::{EventFlags, Op, OpKind, Space};
use rustc_hash::FxHashMap as HashMap;
use smallvec::SmallVec;

/// How a lock is held.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum LockMode {
    /// Exclusively: a mutex, a spinlock, a reader-writer lock's write mode.
    Write,
    /// A reader-writer lock's read mode (shared with other readers).
    Read,
}

impl LockMode {
    /// `write` or `read`, as reports name it.
    pub fn word(self) -> &'static str {
        match self {
            LockMode::Write => "write",
            LockMode::Read => "read",
        }
    }
}

/// One lock a thread holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct HeldLock {
    /// Address of the lock object.
    pub lock: u64,
    /// Mode it is held in.
    pub mode: LockMode,
}

/// One side of a finding: an access (or an unlock) and the locks its
/// thread held then.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LocksetAccess {
    /// Event index in the trace.
    pub step: usize,
    /// Thread that executed it.
    pub thread: u32,
    /// Its source site (0 if unknown).
    pub site: u64,
    /// True for a write.
    pub write: bool,
    /// Locks held by the thread at that event, by address.
    pub locks: Vec<HeldLock>,
}

/// Kind of a lockset finding.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum LocksetKind {
    /// No lock protects a location written and accessed by several threads.
    Race,
    /// A thread released a lock it did not hold.
    UnlockWithoutLock,
}

/// What tells lockset findings apart across executions: the kind and what
/// it is about, independent of the order in which an execution made the
/// accesses (for a race the byte's address; for an unlock the lock and
/// the unlock's site).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LocksetKey {
    /// Kind of the finding.
    pub kind: LocksetKind,
    /// The racing byte, or the lock's address.
    pub address: u64,
    /// The unlock's site (0 for a race).
    pub site: u64,
}

/// A lockset finding in one trace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LocksetRace {
    /// Race, or unlock without lock.
    pub kind: LocksetKind,
    /// The (first) racing byte, or the address of the lock
    /// released without being held.
    pub address: u64,
    /// The access that emptied the candidate set (or the unlock).
    pub access: LocksetAccess,
    /// For a race: the most recent earlier access of the byte by another
    /// thread.
    pub previous: Option<LocksetAccess>,
}

impl LocksetRace {
    /// The finding's key ([`LocksetKey`]).
    pub fn signature(&self) -> LocksetKey {
        LocksetKey {
            kind: self.kind,
            address: self.address,
            site: match self.kind {
                LocksetKind::Race => 0,
                LocksetKind::UnlockWithoutLock => self.access.site,
            },
        }
    }
}

/// Every lockset finding of `trace`, in trace order, one per
/// [`LocksetRace::signature`] (the first; a ranged access racing over many
/// bytes gives one finding, for its first byte).
pub fn races(trace: &Trace) -> Vec<LocksetRace> {
    let mut detector = Detector::default();
    for (step, event) in trace.events.iter().enumerate() {
        detector.apply(step, event.thread, &event.op, event.site);
    }
    let mut seen = std::collections::HashSet::new();
    let mut steps = std::collections::HashSet::new();
    detector
        .found
        .into_iter()
        .filter(|r| seen.insert(r.signature()))
        .filter(|r| r.kind != LocksetKind::Race || steps.insert(r.access.step))
        .collect()
}

/// An access as remembered per granule: its step, kind and lockset.
#[derive(Clone, Copy)]
struct Seen {
    step: usize,
    site: u64,
    write: bool,
    locks: LocksetId,
    /// Made while another thread existed.
    shared: bool,
}

/// One byte's state: C11 memory locations are bytes as far as races go
/// (adjacent bit-fields are accessed with wider loads and stores, so they
/// share their bytes).
struct Location {
    /// C(v), the candidate locks (`None` before the first shared access).
    candidates: Option<SmallVec<[u64; 2]>>,
    /// Threads that made shared accesses (the first two are enough).
    threads: SmallVec<[u32; 2]>,
    /// A shared access wrote.
    written: bool,
    /// Each thread's last access.
    last: SmallVec<[(u32, Seen); 2]>,
    reported: bool,
}

/// Index of an interned lockset.
type LocksetId = u32;

#[derive(Default)]
struct Detector {
    /// Locks each thread holds, with their recursion counts.
    held: Vec<Vec<(HeldLock, u32)>>,
    /// Each thread's current lockset, interned.
    current: Vec<LocksetId>,
    /// Recursion counts of the mutexes released by condition waits, to
    /// restore at the re-lock.
    waiting: HashMap<(u32, u64), u32>,
    locksets: Vec<Vec<HeldLock>>,
    interned: HashMap<Vec<HeldLock>, LocksetId>,
    /// The state of each byte accessed, by address.
    locations: HashMap<u64, Location>,
    found: Vec<LocksetRace>,
    /// Threads created and not yet joined (main included once it ran).
    live: SmallVec<[u32; 8]>,
}

/// Acquired or released lock of an operation, as executed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LockEffect {
    /// The operation took the lock at this address, in this mode.
    Acquire(u64, LockMode),
    /// The operation released the lock at this address.
    Release(u64),
}

/// The lock an executed operation takes or releases: a lock that
/// succeeded (not a failed try or timed lock), a condition wait (releases
/// its mutex) and its re-lock (takes it back, even timed out), an unlock.
pub fn lock_effect(op: &Op) -> Option<LockEffect> {
    let failed = op.flags.has(EventFlags::FAILED) || op.flags.has(EventFlags::TIMED_OUT);
    match op.kind {
        OpKind::MutexLock
        | OpKind::MutexTryLock
        | OpKind::MutexTimedLock
        | OpKind::SpinLock
        | OpKind::RwWriteLock
            if !failed =>
        {
            Some(LockEffect::Acquire(op.object, LockMode::Write))
        }
        OpKind::RwReadLock if !failed => Some(LockEffect::Acquire(op.object, LockMode::Read)),
        // A timed-out condition wait still re-acquires its mutex.
        OpKind::CondRelock => Some(LockEffect::Acquire(op.aux, LockMode::Write)),
        OpKind::MutexUnlock | OpKind::SpinUnlock | OpKind::RwUnlock => {
            Some(LockEffect::Release(op.object))
        }
        OpKind::CondWait => Some(LockEffect::Release(op.aux)),
        _ => None,
    }
}

impl Detector {
    fn thread(&mut self, t: u32) -> usize {
        let t = t as usize;
        if self.held.len() <= t {
            self.held.resize_with(t + 1, Vec::new);
            let empty = self.intern(Vec::new());
            self.current.resize(t + 1, empty);
        }
        t
    }

    fn intern(&mut self, set: Vec<HeldLock>) -> LocksetId {
        if let Some(&id) = self.interned.get(&set) {
            return id;
        }
        let id = self.locksets.len() as LocksetId;
        self.locksets.push(set.clone());
        self.interned.insert(set, id);
        id
    }

    fn refresh(&mut self, t: usize) {
        let mut set: Vec<HeldLock> = self.held[t].iter().map(|(l, _)| *l).collect();
        set.sort_unstable();
        self.current[t] = self.intern(set);
    }

    fn side(&self, thread: u32, seen: Seen) -> LocksetAccess {
        LocksetAccess {
            step: seen.step,
            thread,
            site: seen.site,
            write: seen.write,
            locks: self.locksets[seen.locks as usize].clone(),
        }
    }

    /// True if `thread` is the only thread that exists: created and not
    /// joined (a finished thread that nobody joined still counts).
    fn alone(&self, thread: u32) -> bool {
        self.live.iter().all(|&t| t == thread)
    }

    fn apply(&mut self, step: usize, thread: u32, op: &Op, site: u64) {
        let t = self.thread(thread);
        if !self.live.contains(&thread) {
            self.live.push(thread);
        }
        match op.kind {
            OpKind::ThreadCreate => {
                if let Ok(child) = u32::try_from(op.object) {
                    if !self.live.contains(&child) {
                        self.live.push(child);
                    }
                }
            }
            OpKind::ThreadJoin => self.live.retain(|q| u64::from(*q) != op.object),
            _ => {}
        }
        match lock_effect(op) {
            Some(LockEffect::Acquire(lock, mode)) => {
                let restored = if op.kind == OpKind::CondRelock {
                    self.waiting.remove(&(thread, lock)).unwrap_or(1)
                } else {
                    1
                };
                match self.held[t].iter_mut().find(|(l, _)| l.lock == lock) {
                    Some((_, count)) => *count += restored,
                    None => self.held[t].push((HeldLock { lock, mode }, restored)),
                }
                self.refresh(t);
            }
            Some(LockEffect::Release(lock)) => {
                let whole = op.kind == OpKind::CondWait;
                match self.held[t].iter().position(|(l, _)| l.lock == lock) {
                    Some(at) => {
                        let count = &mut self.held[t][at].1;
                        if whole {
                            self.waiting.insert((thread, lock), *count);
                            *count = 0;
                        } else {
                            *count -= 1;
                        }
                        if self.held[t][at].1 == 0 {
                            self.held[t].remove(at);
                        }
                        self.refresh(t);
                    }
                    None => {
                        let locks = self.locksets[self.current[t] as usize].clone();
                        self.found.push(LocksetRace {
                            kind: LocksetKind::UnlockWithoutLock,
                            address: lock,
                            access: LocksetAccess {
                                step,
                                thread,
                                site,
                                write: true,
                                locks,
                            },
                            previous: None,
                        });
                    }
                }
            }
            None if op.kind.is_plain_access() && !op.is_marked_access() => {
                self.access(step, thread, op, site)
            }
            None => {}
        }
    }

    fn access(&mut self, step: usize, thread: u32, op: &Op, site: u64) {
        let t = thread as usize;
        let id = self.current[t];
        let alone = self.alone(thread);
        let locations = touched_bytes(op).flat_map(|((space, granule), class, bytes)| {
            let first = granule * reach_channel::ops::GRANULE;
            (0..reach_channel::ops::GRANULE)
                .filter(move |b| bytes & (1 << b) != 0)
                .map(move |b| (space, first + b, class))
        });
        for (space, location, class) in locations {
            if space != Space::Memory {
                continue;
            }
            let write = class.writes();
            let seen = Seen {
                step,
                site,
                write,
                locks: id,
                shared: !alone,
            };
            let held = &self.locksets[id as usize];
            let protecting = |l: &&HeldLock| !write || l.mode == LockMode::Write;
            let cell = self.locations.entry(location).or_insert_with(|| Location {
                candidates: None,
                threads: SmallVec::new(),
                written: false,
                last: SmallVec::new(),
                reported: false,
            });
            if !alone {
                let mine = held.iter().filter(protecting).map(|l| l.lock);
                match &mut cell.candidates {
                    None => cell.candidates = Some(mine.collect()),
                    Some(c) => {
                        let mine: SmallVec<[u64; 4]> = mine.collect();
                        c.retain(|l| mine.contains(l));
                    }
                }
                if !cell.threads.contains(&thread) && cell.threads.len() < 2 {
                    cell.threads.push(thread);
                }
                cell.written |= write;
            }
            let race = !alone
                && !cell.reported
                && cell.written
                && cell.threads.len() >= 2
                && cell.candidates.as_ref().is_some_and(|c| c.is_empty());
            let previous = race
                .then(|| {
                    cell.last
                        .iter()
                        .filter(|(q, s)| *q != thread && s.shared)
                        .max_by_key(|(_, s)| s.step)
                        .copied()
                })
                .flatten();
            if race {
                cell.reported = true;
            }
            match cell.last.iter_mut().find(|(q, _)| *q == thread) {
                Some(entry) => entry.1 = seen,
                None => cell.last.push((thread, seen)),
            }
            if race {
                let previous = previous.map(|(q, s)| self.side(q, s));
                let access = self.side(thread, seen);
                self.found.push(LocksetRace {
                    kind: LocksetKind::Race,
                    address: location,
                    access,
                    previous,
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::TraceEvent;
    use reach_channel::ThreadSet;

    const X: u64 = 0x1000;
    const Y: u64 = 0x2000;
    const M: u64 = 0x9000;
    const N: u64 = 0x9100;
    const C: u64 = 0x9200;

    /// Builds a trace of `(thread, kind, flags, object, aux)` events; each
    /// event's site is its index + 1.
    fn trace(events: &[(u32, OpKind, u16, u64, u64)]) -> Trace {
        let events = events
            .iter()
            .enumerate()
            .map(|(i, &(thread, kind, flags, object, aux))| TraceEvent {
                thread,
                op: Op {
                    kind,
                    flags: EventFlags(flags),
                    object,
                    aux,
                },
                site: i as u64 + 1,
                enabled: ThreadSet::EMPTY,
            })
            .collect();
        Trace::new(events, Vec::new())
    }

    fn load(t: u32, a: u64) -> (u32, OpKind, u16, u64, u64) {
        (t, OpKind::Load, 0, a, 4)
    }
    fn store(t: u32, a: u64) -> (u32, OpKind, u16, u64, u64) {
        (t, OpKind::Store, 0, a, 4)
    }
    fn op(t: u32, kind: OpKind, object: u64) -> (u32, OpKind, u16, u64, u64) {
        (t, kind, 0, object, 0)
    }
    fn spawn(child: u32) -> (u32, OpKind, u16, u64, u64) {
        (0, OpKind::ThreadCreate, 0, u64::from(child), 0)
    }
    fn locked(
        t: u32,
        lock: u64,
        inner: &[(u32, OpKind, u16, u64, u64)],
    ) -> Vec<(u32, OpKind, u16, u64, u64)> {
        let mut v = vec![op(t, OpKind::MutexLock, lock)];
        v.extend_from_slice(inner);
        v.push(op(t, OpKind::MutexUnlock, lock));
        v
    }
    fn held(lock: u64, mode: LockMode) -> HeldLock {
        HeldLock { lock, mode }
    }

    #[test]
    fn initialisation_then_locked_sharing_is_no_race() {
        let mut e = vec![store(0, X), store(0, X), spawn(1), spawn(2)];
        e.extend(locked(1, M, &[load(1, X), store(1, X)]));
        e.extend(locked(2, M, &[load(2, X), store(2, X)]));
        e.extend(locked(0, M, &[load(0, X)]));
        assert_eq!(races(&trace(&e)), Vec::new());
    }

    #[test]
    fn inconsistent_locks_race_with_both_sides_and_their_locksets() {
        let mut e = vec![spawn(1), spawn(2)];
        // Thread 1 under m: C(x) = {m}.
        e.extend(locked(1, M, &[load(1, X), store(1, X)])); // steps 2..=5
        assert_eq!(races(&trace(&e)), Vec::new(), "one thread so far");
        // Thread 2 under n: C(x) = {m} ∩ {n} = {} at its load (step 7).
        e.extend(locked(2, N, &[load(2, X), store(2, X)])); // steps 6..=9
        let found = races(&trace(&e));
        assert_eq!(found.len(), 1, "{found:?}");
        let race = &found[0];
        assert_eq!(race.kind, LocksetKind::Race);
        assert_eq!(race.address, X);
        assert_eq!(
            race.access,
            LocksetAccess {
                step: 7,
                thread: 2,
                site: 8,
                write: false,
                locks: vec![held(N, LockMode::Write)],
            }
        );
        assert_eq!(
            race.previous,
            Some(LocksetAccess {
                step: 4,
                thread: 1,
                site: 5,
                write: true,
                locks: vec![held(M, LockMode::Write)],
            })
        );
        assert_eq!(
            race.signature(),
            LocksetKey {
                kind: LocksetKind::Race,
                address: X,
                site: 0
            }
        );
    }

    #[test]
    fn the_verdict_does_not_depend_on_the_order_of_the_accesses() {
        // A write then another thread's read, and the reverse order: both
        // unprotected, both races (Eraser's exclusive state would call the
        // first one an initialisation).
        let write_first = vec![spawn(1), spawn(2), store(1, X), load(2, X)];
        let read_first = vec![spawn(1), spawn(2), load(2, X), store(1, X)];
        let keys = |e: &[(u32, OpKind, u16, u64, u64)]| -> Vec<LocksetKey> {
            races(&trace(e))
                .iter()
                .map(LocksetRace::signature)
                .collect()
        };
        assert_eq!(keys(&write_first), keys(&read_first));
        assert_eq!(keys(&write_first).len(), 1);
    }

    #[test]
    fn accesses_after_joining_every_thread_are_not_shared() {
        let mut e = vec![spawn(1)];
        e.extend(locked(1, M, &[store(1, X)]));
        e.push(op(0, OpKind::ThreadJoin, 1));
        e.push(load(0, X));
        e.push(store(0, X));
        assert_eq!(races(&trace(&e)), Vec::new());
    }

    #[test]
    fn an_unprotected_write_after_locked_sharing_races_once_per_granule() {
        let mut e = vec![store(0, X), spawn(1), spawn(2)];
        e.extend(locked(1, M, &[load(1, X), store(1, X)])); // 3..=6
        e.push(load(2, X)); // 7: C = {m} ∩ {} = {}: shared-modified, race
        e.push(store(2, X)); // 8: already reported
        e.extend(locked(1, M, &[store(1, X)]));
        let found = races(&trace(&e));
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].access.step, 7);
        assert!(found[0].access.locks.is_empty());
        assert_eq!(found[0].previous.as_ref().map(|p| p.step), Some(5));
    }

    #[test]
    fn read_only_sharing_is_no_race() {
        let e = vec![
            store(0, X),
            store(0, Y),
            spawn(1),
            spawn(2),
            load(1, X),
            load(2, X),
            load(2, Y),
            load(1, Y),
            load(0, X),
        ];
        assert_eq!(races(&trace(&e)), Vec::new());
        // One more write by any thread makes the empty set a race.
        let mut e = e;
        e.push(store(0, Y));
        let found = races(&trace(&e));
        assert_eq!(found.len(), 1);
        assert_eq!((found[0].address, found[0].access.step), (Y, 9));
        assert_eq!(found[0].previous.as_ref().map(|p| p.thread), Some(1));
    }

    #[test]
    fn rwlock_reads_share_a_read_lock_but_writes_need_the_write_mode() {
        const L: u64 = 0x9300;
        let mut e = vec![spawn(1), spawn(2)];
        e.extend([
            op(1, OpKind::RwWriteLock, L),
            store(1, X),
            op(1, OpKind::RwUnlock, L),
            op(2, OpKind::RwReadLock, L),
            load(2, X), // 6: shared, C = {l}
            op(2, OpKind::RwUnlock, L),
            op(1, OpKind::RwWriteLock, L),
            store(1, X), // 9: shared-modified, C = {l} (held for writing)
            op(1, OpKind::RwUnlock, L),
            op(2, OpKind::RwReadLock, L),
            load(2, X), // 12: a read under the read lock keeps {l}
        ]);
        assert_eq!(races(&trace(&e)), Vec::new());
        e.push(store(2, X)); // 13: a write under the read lock
        e.push(op(2, OpKind::RwUnlock, L));
        let found = races(&trace(&e));
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].access.step, 13);
        assert_eq!(found[0].access.locks, vec![held(L, LockMode::Read)]);
        assert_eq!(
            found[0].previous.as_ref().map(|p| p.locks.clone()),
            Some(vec![held(L, LockMode::Write)])
        );
    }

    #[test]
    fn a_condition_wait_releases_its_mutex_and_the_relock_takes_it_back() {
        let wait = (1, OpKind::CondWait, 0, C, M);
        let relock = (1, OpKind::CondRelock, 0, C, M);
        let mut e = vec![store(0, X), spawn(1), spawn(2)];
        e.extend([op(1, OpKind::MutexLock, M), load(1, X), wait]);
        // While thread 1 waits, thread 2 holds m.
        e.extend(locked(2, M, &[store(2, X), op(2, OpKind::CondSignal, C)]));
        e.extend([relock, store(1, X), op(1, OpKind::MutexUnlock, M)]);
        assert_eq!(races(&trace(&e)), Vec::new());
        // The wait released m: a second unlock after the relock's is one too many.
        e.push(op(1, OpKind::MutexUnlock, M));
        let found = races(&trace(&e));
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].kind, LocksetKind::UnlockWithoutLock);
        assert_eq!(found[0].address, M);
        // A timed-out wait re-acquires the mutex too.
        let timed = (1, OpKind::CondRelock, EventFlags::TIMED_OUT, C, M);
        let e = vec![
            op(1, OpKind::MutexLock, M),
            wait,
            timed,
            op(1, OpKind::MutexUnlock, M),
        ];
        assert_eq!(races(&trace(&e)), Vec::new());
    }

    #[test]
    fn unlock_without_lock_is_found_for_each_lock_kind() {
        let e = vec![
            spawn(1),
            op(1, OpKind::MutexLock, M),
            op(1, OpKind::MutexUnlock, M),
            op(1, OpKind::MutexUnlock, M), // 3: not held any more
            op(0, OpKind::MutexLock, N),
            op(1, OpKind::MutexUnlock, N), // 5: held by thread 0
            op(1, OpKind::SpinUnlock, C),  // 6: never locked
            op(0, OpKind::MutexUnlock, N),
        ];
        let found = races(&trace(&e));
        let steps: Vec<(usize, u64)> = found.iter().map(|r| (r.access.step, r.address)).collect();
        assert_eq!(steps, vec![(3, M), (5, N), (6, C)]);
        assert!(found
            .iter()
            .all(|r| r.kind == LocksetKind::UnlockWithoutLock));
        assert!(found[1].access.locks.is_empty());
        assert_eq!(
            found[0].signature(),
            LocksetKey {
                kind: LocksetKind::UnlockWithoutLock,
                address: M,
                site: 4
            }
        );
    }

    #[test]
    fn failed_try_and_timed_locks_hold_nothing() {
        let attempt = |flags| {
            let mut e = vec![store(0, X), spawn(1), spawn(2)];
            e.extend(locked(1, M, &[load(1, X), store(1, X)]));
            e.push((2, OpKind::MutexTryLock, flags, M, 0));
            e.push(store(2, X));
            races(&trace(&e))
        };
        assert_eq!(attempt(0), Vec::new());
        assert_eq!(attempt(EventFlags::FAILED).len(), 1);
        let timed = |flags| {
            let mut e = vec![store(0, X), spawn(1), spawn(2)];
            e.extend(locked(1, M, &[load(1, X), store(1, X)]));
            e.push((2, OpKind::MutexTimedLock, flags, M, 0));
            e.push(store(2, X));
            races(&trace(&e))
        };
        assert_eq!(timed(0), Vec::new());
        assert_eq!(timed(EventFlags::TIMED_OUT).len(), 1);
    }

    #[test]
    fn recursive_locks_are_held_until_the_last_unlock() {
        let mut e = vec![store(0, X), spawn(1), spawn(2)];
        e.extend(locked(2, M, &[load(2, X), store(2, X)]));
        e.extend([
            op(1, OpKind::MutexLock, M),
            op(1, OpKind::MutexLock, M),
            op(1, OpKind::MutexUnlock, M),
            store(1, X), // still held once
            op(1, OpKind::MutexUnlock, M),
        ]);
        assert_eq!(races(&trace(&e)), Vec::new());
        e.push(store(1, X));
        assert_eq!(races(&trace(&e)).len(), 1);
    }

    #[test]
    fn bytes_of_one_granule_are_separate_locations() {
        // Each thread writes its own byte of x, without a lock.
        let byte = |t: u32, kind, a| (t, kind, 0, a, 1);
        let e = vec![
            spawn(1),
            spawn(2),
            byte(1, OpKind::Store, X),
            byte(2, OpKind::Store, X + 1),
            byte(1, OpKind::Load, X),
            byte(2, OpKind::Load, X + 1),
        ];
        assert_eq!(races(&trace(&e)), Vec::new());
        // A 4-byte read of x by thread 1 shares thread 2's byte.
        let mut e = e;
        e.push((1, OpKind::Load, 0, X, 4));
        let found = races(&trace(&e));
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].address, X + 1);
        assert_eq!(found[0].access.step, 6);
    }

    #[test]
    fn atomics_are_skipped_and_ranges_race_per_granule() {
        let atomic = |t| (t, OpKind::AtomicRmw, 0, X, 4);
        let e = vec![spawn(1), spawn(2), atomic(1), atomic(2), atomic(1)];
        assert_eq!(races(&trace(&e)), Vec::new());
        // An 8-byte store of x..x+8 under m; 4-byte accesses of x+4 under n.
        let mut e = vec![spawn(1), spawn(2)];
        e.extend(locked(1, M, &[(1, OpKind::Store, 0, X, 8)]));
        e.extend(locked(2, N, &[load(2, X + 4), store(2, X + 4)]));
        e.extend(locked(1, M, &[(1, OpKind::RangeWrite, 0, X, 8)]));
        let found = races(&trace(&e));
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].address, X + 4, "x itself is thread 1's alone");
        assert_eq!(found[0].access.step, 6, "thread 2's first access of x+4");
    }
}
