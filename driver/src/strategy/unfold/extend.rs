//! Possible extensions (Sec. 4.2, Fig. 10), computed the efficient way of
//! Sec. 5: only markings that contain a condition of the event just added
//! are considered, and the search for presets walks the graph of memory
//! access sets (Def. 1) under adjacency (Def. 3) and, for locks,
//! alternatives (Def. 4), which Theorems 1 and 2 show to be connected.
//!
//! The eight cases of Sec. 5:
//! - from a thread condition (Sec. 5.2): (1) a symbolic branch — there are
//!   none, inputs are concrete; (2) read, (3) write: start from the
//!   memory access set in the current marking and walk adjacent sets that
//!   stay concurrent with the thread condition; (4) lock: the same, with
//!   alternatives, starting from the marking or, if the lock is taken
//!   there, from the last acquisition of the lock in the current execution
//!   and its releases (Sec. 5.2.4); (5) unlock and every other event whose
//!   preset is only the thread condition: added directly;
//! - from a shared-variable condition (Sec. 5.3, Fig. 15): (6) read and
//!   (7) write events that race with the event just added: every event
//!   that takes a condition of its preset, moved to its postset;
//! - from a lock condition (Sec. 5.4): (8) an acquisition of the released
//!   lock: events that take a lock condition adjacent or alternative to
//!   it, moved to it, and the *blocked* thread conditions (no event after
//!   them yet) that want the lock.

use super::net::{Guard, Label, Place, Value};
use super::store::{CondId, EventId, Unfolding};
use crate::cancel::Cancel;
use rustc_hash::{FxHashMap, FxHashSet};

/// The marking of the execution being added to the unfolding. A place not
/// mentioned holds its initial condition (if any).
#[derive(Clone, Debug, Default)]
pub struct Marking {
    map: FxHashMap<Place, Option<CondId>>,
    /// The last acquisition of each lock in this execution (Sec. 5.2.4).
    pub last_acquire: FxHashMap<Place, EventId>,
}

impl Marking {
    /// The condition marked on `place`, if any.
    pub fn get(&self, unf: &mut Unfolding, place: Place) -> Option<CondId> {
        match self.map.get(&place) {
            Some(c) => *c,
            None => unf.initial(place),
        }
    }

    /// Fires added event `e`.
    pub fn fire(&mut self, unf: &Unfolding, e: EventId) {
        let ev = &unf.events[e as usize];
        for &c in &ev.preset {
            self.map.insert(unf.conds[c as usize].place, None);
        }
        for &c in &ev.postset {
            self.map.insert(unf.conds[c as usize].place, Some(c));
        }
        for place in ev.label.shape().acquires {
            self.last_acquire.insert(place, e);
        }
    }
}

/// The possible-extension search and what it keeps between calls.
#[derive(Default)]
pub struct Extender {
    /// Thread conditions that want a lock (or a thread's end) and have no
    /// event after them yet (Sec. 5.4.1).
    pub blocked: Vec<CondId>,
    /// New possible extensions found since the caller last took them.
    pub found: Vec<EventId>,
    /// Semaphore waits whose preset holds the semaphore's initial count,
    /// not yet known: proposed once an execution shows it.
    deferred: Vec<(Label, Vec<CondId>)>,
    /// `Unfolding::values_learnt` when the deferred events were last looked at.
    values_seen: usize,
    /// Thread conditions whose next operation is guarded (a semaphore
    /// wait, a condition-variable re-lock), by object.
    pub guarded: FxHashMap<u64, Vec<CondId>>,
    /// Stops the searches when the exploration is cancelled (a search
    /// over the thousands of conditions of a bulk access takes long).
    pub cancel: Option<Cancel>,
}

impl Extender {
    /// True once the exploration is cancelled (`--max-time`, Ctrl-C): the
    /// searches stop where they are, and so does the replay of an
    /// execution (the unfolding is no longer searched after that).
    pub fn cancelled(&self) -> bool {
        self.cancel.as_ref().is_some_and(Cancel::is_set)
    }

    /// Proposes the event if its guard holds, defers it if that is not
    /// known yet.
    fn consider(&mut self, unf: &mut Unfolding, label: Label, preset: Vec<CondId>) {
        if label.guard() == Guard::Unmodelled {
            return;
        }
        if Self::admits(unf, &label, &preset) {
            self.propose(unf, label, preset);
        } else if label.guard() == Guard::SemWait
            && Self::value(unf, &label, &preset) == Value::Unknown
        {
            self.deferred.push((label, preset));
        }
    }

    /// Registers a possible extension with this label and preset.
    fn propose(&mut self, unf: &mut Unfolding, label: Label, preset: Vec<CondId>) {
        let (e, new) = unf.event(label, preset);
        if new {
            self.found.push(e);
        }
    }

    /// Proposes the deferred events whose guard can now be decided.
    pub fn retry_deferred(&mut self, unf: &mut Unfolding) {
        if unf.values_learnt == self.values_seen {
            return;
        }
        self.values_seen = unf.values_learnt;
        for (label, preset) in std::mem::take(&mut self.deferred) {
            if Self::value(unf, &label, &preset) == Value::Unknown {
                self.deferred.push((label, preset));
            } else if Self::admits(unf, &label, &preset) {
                self.propose(unf, label, preset);
            }
        }
    }

    /// The value of the object the event's guard tests, in its preset.
    fn value(unf: &Unfolding, label: &Label, preset: &[CondId]) -> Value {
        let own = Place::Copy(super::net::Obj::Sync(label.object), label.thread);
        unf.cond_of(preset, own)
            .map(|c| unf.conds[c as usize].value.clone())
            .unwrap_or(Value::Unknown)
    }

    /// Does the event's guard hold on the values of its preset?
    fn admits(unf: &Unfolding, label: &Label, preset: &[CondId]) -> bool {
        let guard = label.guard();
        if guard == Guard::None {
            return true;
        }
        Self::value(unf, label, preset).admits(guard)
    }

    /// Extensions from thread condition `t` whose next operation is
    /// `label` (cases 1–5), searching from the memory access sets `starts`
    /// (aligned with `label.access_places`). Returns how many presets were
    /// found.
    pub fn from_thread(
        &mut self,
        unf: &mut Unfolding,
        t: CondId,
        label: &Label,
        starts: Vec<Vec<CondId>>,
    ) -> usize {
        let places = label.access_places(unf.universe);
        if places.is_empty() {
            self.consider(unf, label.clone(), vec![t]);
            return 1;
        }
        let mut seen: FxHashSet<Vec<CondId>> = FxHashSet::default();
        let mut queue: Vec<Vec<CondId>> = Vec::new();
        for s in starts {
            if s.len() == places.len() && seen.insert(s.clone()) {
                queue.push(s);
            }
        }
        let mut count = 0;
        while let Some(set) = queue.pop() {
            if self.cancelled() {
                break;
            }
            let mut preset = set.clone();
            preset.push(t);
            if !unf.is_coset(&preset) {
                continue;
            }
            count += 1;
            self.consider(unf, label.clone(), preset);
            for next in neighbours(unf, &set) {
                if seen.insert(next.clone()) {
                    queue.push(next);
                }
            }
        }
        count
    }

    /// Starting sets for the search from `t` (Sec. 5.2.2–5.2.4): the
    /// memory access set of the current marking, or where a lock is taken
    /// there, the lock conditions around its last acquisition.
    pub fn starts(unf: &mut Unfolding, marking: &Marking, label: &Label) -> Vec<Vec<CondId>> {
        let places = label.access_places(unf.universe);
        let mut sets: Vec<Vec<CondId>> = vec![Vec::new()];
        for place in places {
            let options: Vec<CondId> = match marking.get(unf, place) {
                Some(c) => vec![c],
                None => match place {
                    Place::Lock(_) => match marking.last_acquire.get(&place) {
                        Some(&a) => {
                            let ev = &unf.events[a as usize];
                            let mut options: Vec<CondId> =
                                unf.cond_of(&ev.preset, place).into_iter().collect();
                            for &r in &ev.releases {
                                options.extend(unf.cond_of(&unf.events[r as usize].postset, place));
                            }
                            options
                        }
                        None => Vec::new(),
                    },
                    Place::Done(t) => unf.done_conds.get(&t).cloned().unwrap_or_default(),
                    _ => Vec::new(),
                },
            };
            match options.as_slice() {
                [] => return Vec::new(),
                // The common case: one condition, added to every set in
                // place (a bulk access has thousands of places).
                [only] => {
                    for s in &mut sets {
                        s.push(*only);
                    }
                    continue;
                }
                _ => {}
            }
            sets = sets
                .iter()
                .flat_map(|s| {
                    options.iter().map(move |&c| {
                        let mut s = s.clone();
                        s.push(c);
                        s
                    })
                })
                .collect();
        }
        sets
    }

    /// Cases 6 and 7 (Sec. 5.3, Fig. 15): events that take a shared
    /// condition of the preset of `e`, with the conditions `e` gave back
    /// in place of those it took.
    pub fn from_shared(&mut self, unf: &mut Unfolding, e: EventId) {
        let ev = &unf.events[e as usize];
        let given: FxHashMap<Place, CondId> = ev
            .postset
            .iter()
            .map(|&c| (unf.conds[c as usize].place, c))
            .filter(|(p, _)| matches!(p, Place::Copy(..)))
            .collect();
        if given.is_empty() {
            return;
        }
        let mut candidates: Vec<EventId> = Vec::new();
        for &c in &ev.preset {
            if matches!(unf.conds[c as usize].place, Place::Copy(..)) {
                candidates.extend(unf.conds[c as usize].consumers.iter().filter(|&&x| x != e));
            }
        }
        candidates.sort_unstable();
        candidates.dedup();
        for other in candidates {
            if self.cancelled() {
                return;
            }
            let ev = &unf.events[other as usize];
            let label = ev.label.clone();
            let preset: Vec<CondId> = ev
                .preset
                .iter()
                .map(|&b| *given.get(&unf.conds[b as usize].place).unwrap_or(&b))
                .collect();
            if preset != ev.preset && unf.is_coset(&preset) {
                self.consider(unf, label, preset);
            }
        }
    }

    /// The guarded counterpart of case 8. Sec. 5.3 rests on a read or
    /// write neither enabling nor disabling another thread's transition;
    /// a semaphore post or a signal (event `e`) does enable the guarded
    /// waits of its object. Like a lock release, it is checked against the
    /// thread conditions that want the object, with the conditions `e` gave.
    pub fn from_guarded_write(&mut self, unf: &mut Unfolding, marking: &Marking, e: EventId) {
        let ev = &unf.events[e as usize];
        let label = ev.label.clone();
        let given: FxHashMap<Place, CondId> = ev
            .postset
            .iter()
            .map(|&c| (unf.conds[c as usize].place, c))
            .collect();
        for obj in label.shape().writes {
            let super::net::Obj::Sync(object) = obj else {
                continue;
            };
            for t in self.guarded.get(&object).cloned().unwrap_or_default() {
                let Some(next) = unf.threads.get(&t).and_then(|i| i.next.clone()) else {
                    continue;
                };
                // The copies `e` gave; a re-lock's mutex from the marking
                // or around its last acquisition (Sec. 5.2.4).
                let starts: Vec<Vec<CondId>> = Self::starts(unf, marking, &next)
                    .into_iter()
                    .map(|set| {
                        set.into_iter()
                            .map(|c| *given.get(&unf.conds[c as usize].place).unwrap_or(&c))
                            .collect()
                    })
                    .collect();
                self.from_thread(unf, t, &next, starts);
            }
        }
    }

    /// Case 8 (Sec. 5.4.1): acquisitions of the lock (or done resource)
    /// condition `l` that release event gave.
    pub fn from_lock(&mut self, unf: &mut Unfolding, marking: &Marking, l: CondId) {
        let place = unf.conds[l as usize].place;
        let mut near: Vec<CondId> = Vec::new();
        match place {
            Place::Done(t) => near.extend(
                unf.done_conds
                    .get(&t)
                    .into_iter()
                    .flatten()
                    .filter(|&&c| c != l),
            ),
            _ => {
                if let Some(r) = unf.conds[l as usize].producer {
                    if let Some(a) = unf.events[r as usize].acquire {
                        let acq = &unf.events[a as usize];
                        near.extend(unf.cond_of(&acq.preset, place));
                        for &r2 in &acq.releases {
                            if r2 != r {
                                near.extend(unf.cond_of(&unf.events[r2 as usize].postset, place));
                            }
                        }
                    }
                }
            }
        }
        let mut candidates: Vec<(EventId, CondId)> = Vec::new();
        for n in near {
            candidates.extend(unf.conds[n as usize].consumers.iter().map(|&e| (e, n)));
        }
        for (other, n) in candidates {
            let ev = &unf.events[other as usize];
            let label = ev.label.clone();
            let preset: Vec<CondId> = ev
                .preset
                .iter()
                .map(|&b| if b == n { l } else { b })
                .collect();
            if unf.is_coset(&preset) {
                self.consider(unf, label, preset);
            }
        }
        // Thread conditions with no event after them yet.
        for t in self.blocked.clone() {
            let Some(label) = unf.threads.get(&t).and_then(|i| i.next.clone()) else {
                continue;
            };
            let places = label.access_places(unf.universe);
            if !places.contains(&place) {
                continue;
            }
            let start: Option<Vec<CondId>> = places
                .iter()
                .map(|&p| {
                    if p == place {
                        Some(l)
                    } else {
                        marking.get(unf, p)
                    }
                })
                .collect();
            if let Some(start) = start {
                self.from_thread(unf, t, &label, vec![start]);
            }
        }
    }
}

/// Memory access sets adjacent (Def. 3) or alternative (Def. 4) to `set`:
/// one event that touches its places fired forwards or backwards; for a
/// lock, from the acquisition to each of its releases and back.
fn neighbours(unf: &Unfolding, set: &[CondId]) -> Vec<Vec<CondId>> {
    let mut out = Vec::new();
    // Linear in the sizes (a bulk access has thousands of conditions).
    let replace = |set: &[CondId], from: &[CondId], to: &[CondId]| -> Vec<CondId> {
        let from: FxHashSet<CondId> = from.iter().copied().collect();
        let to: FxHashMap<Place, CondId> = to
            .iter()
            .map(|&c| (unf.conds[c as usize].place, c))
            .collect();
        set.iter()
            .map(|&c| {
                if from.contains(&c) {
                    let place = unf.conds[c as usize].place;
                    to.get(&place).copied().unwrap_or(c)
                } else {
                    c
                }
            })
            .collect()
    };
    // The events that take or gave shared conditions of the set, each
    // once (all the copies of one access lead to the same neighbour).
    let mut forward: Vec<EventId> = Vec::new();
    let mut backward: Vec<EventId> = Vec::new();
    for &c in set {
        let cond = &unf.conds[c as usize];
        if let Place::Copy(..) = cond.place {
            forward.extend(
                cond.consumers
                    .iter()
                    .copied()
                    .filter(|&e| unf.events[e as usize].added),
            );
            backward.extend(cond.producer);
        }
    }
    for events in [&mut forward, &mut backward] {
        events.sort_unstable();
        events.dedup();
    }
    for &e in &forward {
        let ev = &unf.events[e as usize];
        out.push(replace(set, &ev.preset, &ev.postset));
    }
    for &p in &backward {
        let ev = &unf.events[p as usize];
        out.push(replace(set, &ev.postset, &ev.preset));
    }
    for &c in set {
        let cond = &unf.conds[c as usize];
        match cond.place {
            Place::Copy(..) => {}
            Place::Lock(_) => {
                let swap = |to: CondId| -> Vec<CondId> {
                    set.iter().map(|&x| if x == c { to } else { x }).collect()
                };
                for &a in &cond.consumers {
                    for &r in &unf.events[a as usize].releases {
                        if let Some(to) = unf.cond_of(&unf.events[r as usize].postset, cond.place) {
                            out.push(swap(to));
                        }
                    }
                }
                if let Some(r) = cond.producer {
                    if let Some(a) = unf.events[r as usize].acquire {
                        let acq = &unf.events[a as usize];
                        if let Some(to) = unf.cond_of(&acq.preset, cond.place) {
                            out.push(swap(to));
                        }
                        for &r2 in &acq.releases {
                            if let Some(to) =
                                unf.cond_of(&unf.events[r2 as usize].postset, cond.place)
                            {
                                out.push(swap(to));
                            }
                        }
                    }
                }
            }
            Place::Done(t) => {
                for &to in unf.done_conds.get(&t).into_iter().flatten() {
                    out.push(set.iter().map(|&x| if x == c { to } else { x }).collect());
                }
            }
            Place::Thread(_) => {}
        }
    }
    out.retain(|s| s != set);
    out
}
