//! Happens-before with commutative reads: the clock maintenance and the
//! racing-event lookup of DPOR-CR (Saarikivi et al., Fig. 3).
//!
//! Per object `o` the tracker keeps the write clock `CW(o)`, the access clock
//! `CA(o)`, the index of the last write `LW(o)` and the reads since it
//! `LR(o)` (Fig. 3, lines 26–40); per thread the clock `CP(p)`. Two
//! additions for native programs, both from Flanagan & Godefroid's DPOR:
//!
//! * thread creation and joining: the child starts with its creator's clock,
//!   a join takes the joined thread's final clock;
//! * an acquire and a release of the same lock are never co-enabled, so for a
//!   pending acquire the racing candidate is the last *acquire* of the lock,
//!   not the last release.
//!
//! Commuting updates (`--commute-rmws`, [`Mode::Update`]) are a third kind
//! of access: they join `CW(o)` like writes (a read follows every update
//! before it) but commute with the updates of their group. While the
//! accesses of an object end with a run of updates of one group, the
//! tracker keeps `CA(o)` as it was when the run began: an update of the
//! same group follows that, not the run.

use super::clock::VClock;
use super::objects::{touched, Group, Mode, ObjectKey};
use crate::trace::TraceEvent;
use reach_channel::ops::GRANULE;
use reach_channel::{EventFlags, Op, OpKind, Space};
use rustc_hash::FxHashMap as HashMap;
use smallvec::SmallVec;

#[derive(Default)]
struct ObjectState {
    /// Join of the writes and updates: what a read follows.
    write_clock: VClock,
    access_clock: VClock,
    last_write: Option<usize>,
    /// `LR(o)` reduced to its maximal elements: each thread's last read
    /// since the last write. A thread's earlier reads happen before its last
    /// one, so they race with a later write only if the last one does, and
    /// that race is found again once the write has been moved before the
    /// last read (Fig. 1, line 5: only the *last* dependent event is a
    /// backtracking point). Bounded by the number of threads, whatever the
    /// access pattern: a long run of re-reads costs nothing per pending write.
    last_reads: SmallVec<[(u32, usize); 4]>,
    /// Each thread's last update of each group since the last write
    /// (the updates' `LR(o)`).
    last_updates: SmallVec<[(u32, Group, usize); 4]>,
    /// The group of the run of updates the object's accesses end with, and
    /// the access clock when the run began (what the run's updates follow).
    run: Option<(Group, VClock)>,
    last_acquire: Option<usize>,
    /// Every access of this object, per thread, in trace order: what
    /// [`HappensBefore::accessed_between`] searches.
    history: SmallVec<[AccessLog; 2]>,
}

/// One thread's accesses of one object (event indices, increasing).
#[derive(Default)]
struct AccessLog {
    all: Vec<u32>,
    /// Writes and updates.
    writes: Vec<u32>,
    /// Updates, with their group.
    updates: Vec<(u32, Group)>,
}

impl AccessLog {
    /// True if `list` holds an index in `from..to`.
    fn any_in(list: &[u32], from: usize, to: usize) -> bool {
        let at = list.partition_point(|&j| (j as usize) < from);
        list.get(at).is_some_and(|&j| (j as usize) < to)
    }

    /// True if an access in `from..to` conflicts with an update of `group`:
    /// any access but an update of the same group.
    fn conflicts_with_update(&self, group: Group, from: usize, to: usize) -> bool {
        let at = self.all.partition_point(|&j| (j as usize) < from);
        self.all[at..]
            .iter()
            .take_while(|&&j| (j as usize) < to)
            .any(|&j| {
                let u = self.updates.partition_point(|&(k, _)| k < j);
                self.updates.get(u) != Some(&(j, group))
            })
    }
}

/// Incremental happens-before state over a trace prefix.
#[derive(Default)]
pub struct HappensBefore {
    /// Treat reads as conflicting with reads (classic DPOR, Fig. 2) instead
    /// of commuting (DPOR-CR, Fig. 3).
    reads_conflict: bool,
    threads: Vec<VClock>,
    objects: HashMap<ObjectKey, ObjectState>,
    /// Thread of each event applied so far.
    event_thread: Vec<u32>,
    /// Clock of each event applied so far (its happens-before predecessors).
    event_clocks: Vec<VClock>,
    /// Index of each thread's last event applied so far.
    last_event: Vec<Option<usize>>,
}

impl HappensBefore {
    /// A tracker; `reads_commute` selects DPOR-CR (Fig. 3) over classic DPOR (Fig. 2).
    pub fn new(reads_commute: bool) -> HappensBefore {
        HappensBefore {
            reads_conflict: !reads_commute,
            ..HappensBefore::default()
        }
    }

    fn mode(&self, mode: Mode) -> Mode {
        if self.reads_conflict {
            Mode::Write
        } else {
            mode
        }
    }
    /// Clock `CP(t)` of thread `t`.
    pub fn clock(&self, t: u32) -> VClock {
        self.threads.get(t as usize).cloned().unwrap_or_default()
    }

    fn clock_ref(&self, t: u32) -> Option<&VClock> {
        self.threads.get(t as usize)
    }

    fn clock_mut(&mut self, t: u32) -> &mut VClock {
        let t = t as usize;
        if self.threads.len() <= t {
            self.threads.resize(t + 1, VClock::default());
        }
        &mut self.threads[t]
    }

    /// Thread that executed event `i`.
    pub fn thread_of(&self, i: usize) -> Option<u32> {
        self.event_thread.get(i).copied()
    }

    /// True if event `a` happened before event `b` (both applied).
    pub fn event_precedes_event(&self, a: usize, b: usize) -> bool {
        a < b
            && match (self.event_thread.get(a), self.event_clocks.get(b)) {
                (Some(&owner), Some(clock)) => clock.covers(owner, a),
                _ => false,
            }
    }

    /// True if event `i` happened before thread `p`'s current state.
    pub fn event_precedes_thread(&self, i: usize, p: u32) -> bool {
        let Some(&owner) = self.event_thread.get(i) else {
            return false;
        };
        owner == p || self.clock_ref(p).is_some_and(|c| c.covers(owner, i))
    }

    /// The events the pending operation `v` of thread `p` races with
    /// (Fig. 3, lines 5–9) on each touched object: for a write, each thread's
    /// last read since the last write that does not happen before `p` (the
    /// reads of different threads commute, so each of them races with the
    /// write), else the last write; for a read, the last write; for an
    /// acquire of a lock, the last acquire. Only candidates that do not
    /// happen before `p` are returned. The work is bounded by the number of
    /// threads and objects of `v`, not by the length of the trace.
    ///
    /// Updates since the last write count like reads for a write, like the
    /// write for a read, and for an update those of other groups and the
    /// reads do; where an update is among the candidates, only the maximal
    /// ones (that happen before no other candidate) are kept, since an
    /// update may happen before a later read or update of another group.
    pub fn racing_events(&self, p: u32, v: &Op) -> Vec<usize> {
        let mut found = Vec::new();
        for (key, mode) in touched(v) {
            let mode = self.mode(mode);
            let Some(state) = self.objects.get(&key) else {
                continue;
            };
            let mut candidates: SmallVec<[usize; 4]> = SmallVec::new();
            let concurrent = |&j: &usize| !self.event_precedes_thread(j, p);
            let updates = state
                .last_updates
                .iter()
                .filter(|&&(_, group, _)| mode.conflicts(Mode::Update(group)))
                .map(|&(_, _, j)| j)
                .filter(concurrent);
            if blocking_lock(v) == Some(key) {
                candidates.extend(state.last_acquire);
            } else {
                candidates.extend(updates);
                let with_updates = !candidates.is_empty();
                if mode != Mode::Read {
                    candidates.extend(state.last_reads.iter().map(|&(_, j)| j).filter(concurrent));
                }
                if with_updates {
                    let all = candidates.clone();
                    candidates.retain(|a| {
                        !all.iter()
                            .any(|&b| b != *a && self.event_precedes_event(*a, b))
                    });
                }
                if candidates.is_empty() {
                    candidates.extend(state.last_write);
                }
            }
            for i in candidates {
                if !self.event_precedes_thread(i, p) && !found.contains(&i) {
                    found.push(i);
                }
            }
        }
        found
    }

    /// The latest event applied so far that does not happen before thread
    /// `p`'s current state. It is some thread's last event (an earlier event
    /// of a thread happens before its later ones), so this looks at one
    /// event per thread.
    pub fn latest_event_not_before(&self, p: u32) -> Option<usize> {
        self.last_event
            .iter()
            .flatten()
            .copied()
            .filter(|&j| !self.event_precedes_thread(j, p))
            .max()
    }

    /// Index of thread `t`'s last event applied so far.
    pub fn last_event_of(&self, t: u32) -> Option<usize> {
        self.last_event.get(t as usize).copied().flatten()
    }

    /// True if thread `q` executed, at an index in `from..to`, an event that
    /// conflicts with operation `v` on one of `v`'s objects (a write of an
    /// object `v` reads, any access of an object `v` writes). Binary searches
    /// in the per-thread access logs: `O(objects of v · log n)`.
    pub fn accessed_between(&self, q: u32, v: &Op, from: usize, to: usize) -> bool {
        if from >= to {
            return false;
        }
        touched(v).any(|(key, mode)| {
            let Some(log) = self
                .objects
                .get(&key)
                .and_then(|state| state.history.get(q as usize))
            else {
                return false;
            };
            match self.mode(mode) {
                Mode::Write => AccessLog::any_in(&log.all, from, to),
                Mode::Read => AccessLog::any_in(&log.writes, from, to),
                Mode::Update(group) => log.conflicts_with_update(group, from, to),
            }
        })
    }

    /// Applies event number `index` (Fig. 3, lines 26–40, plus create/join).
    pub fn apply(&mut self, index: usize, event: &TraceEvent) {
        let p = event.thread;
        debug_assert_eq!(index, self.event_thread.len());
        self.event_thread.push(p);
        if self.last_event.len() <= p as usize {
            self.last_event.resize(p as usize + 1, None);
        }
        self.last_event[p as usize] = Some(index);
        let accesses: Vec<(ObjectKey, Mode)> = touched(&event.op)
            .map(|(key, mode)| (key, self.mode(mode)))
            .collect();
        let mut cv = self.clock(p);
        for (key, mode) in &accesses {
            if let Some(state) = self.objects.get(key) {
                match mode {
                    Mode::Write => cv.join(&state.access_clock),
                    Mode::Read => cv.join(&state.write_clock),
                    Mode::Update(group) => match &state.run {
                        Some((run, before)) if run == group => cv.join(before),
                        _ => cv.join(&state.access_clock),
                    },
                }
            }
        }
        if event.op.kind == OpKind::ThreadJoin {
            if let Some(joined) = self.clock_ref(event.op.object as u32) {
                let joined = joined.clone();
                cv.join(&joined);
            }
        }
        cv.set(p, index as u32 + 1);
        // A timed-out condition wait still re-acquires its mutex.
        let acquired = event.op.kind.is_acquire()
            && !event.op.flags.has(EventFlags::FAILED)
            && (event.op.kind == OpKind::CondRelock || !event.op.flags.has(EventFlags::TIMED_OUT));
        for (key, mode) in accesses {
            let state = self.objects.entry(key).or_default();
            if state.history.len() <= p as usize {
                state
                    .history
                    .resize_with(p as usize + 1, AccessLog::default);
            }
            let log = &mut state.history[p as usize];
            log.all.push(index as u32);
            match mode {
                Mode::Write => {
                    log.writes.push(index as u32);
                    state.write_clock = cv.clone();
                    state.access_clock = cv.clone();
                    state.last_write = Some(index);
                    state.last_reads.clear();
                    state.last_updates.clear();
                    state.run = None;
                }
                Mode::Read => {
                    state.access_clock.join(&cv);
                    match state.last_reads.iter_mut().find(|(t, _)| *t == p) {
                        Some(entry) => entry.1 = index,
                        None => state.last_reads.push((p, index)),
                    }
                    state.run = None;
                }
                Mode::Update(group) => {
                    log.writes.push(index as u32);
                    log.updates.push((index as u32, group));
                    if state.run.as_ref().is_none_or(|(run, _)| *run != group) {
                        state.run = Some((group, state.access_clock.clone()));
                    }
                    state.write_clock.join(&cv);
                    state.access_clock.join(&cv);
                    match state
                        .last_updates
                        .iter_mut()
                        .find(|(t, g, _)| *t == p && *g == group)
                    {
                        Some(entry) => entry.2 = index,
                        None => state.last_updates.push((p, group, index)),
                    }
                }
            }
            if acquired && lock_object(&event.op) == Some(key) {
                state.last_acquire = Some(index);
            }
        }
        if event.op.kind == OpKind::ThreadCreate {
            *self.clock_mut(event.op.object as u32) = cv.clone();
        }
        self.event_clocks.push(cv.clone());
        *self.clock_mut(p) = cv;
    }
}

/// The lock an acquiring operation takes (a condition re-acquire takes the
/// mutex in `aux`), as an object key.
fn lock_object(op: &Op) -> Option<ObjectKey> {
    if !op.kind.is_acquire() {
        return None;
    }
    let lock = if op.kind == OpKind::CondRelock {
        op.aux
    } else {
        op.object
    };
    Some((Space::Sync, lock / GRANULE))
}

/// The lock of a *blocking, exclusive* acquire: only those are never
/// co-enabled with a release of the same lock. A trylock or timed lock is
/// always enabled, and a read lock is enabled while other readers hold (and
/// release) the lock, so those race with releases like any other write.
fn blocking_lock(op: &Op) -> Option<ObjectKey> {
    let non_blocking = op.flags.has(EventFlags::TRY)
        || (op.flags.has(EventFlags::TIMED) && op.kind != OpKind::CondRelock)
        || matches!(
            op.kind,
            OpKind::MutexTryLock | OpKind::MutexTimedLock | OpKind::RwReadLock
        );
    if non_blocking {
        None
    } else {
        lock_object(op)
    }
}
