//! The unfolding (a labelled occurrence net, Sec. 2.4): conditions and
//! events with their presets and postsets, and the relations between them
//! (causality, conflict, concurrency; Sec. 2.4.2).
//!
//! Events that are only *possible extensions* (Sec. 4.2) live in the same
//! store, with their preset but no postset yet (`added == false`), so that
//! the searches of Sec. 5 see every known event ("a version of the
//! unfolding that contains all known possible extensions", end of
//! Sec. 5.3). Event numbers are the order in which events became known; an
//! event's causal predecessors always have smaller numbers, so ascending
//! order is a valid firing order (Sec. 4.3).

use super::net::{Label, Obj, Place, Value};
use rustc_hash::{FxHashMap, FxHashSet};

/// Index of a condition.
pub type CondId = u32;
/// Index of an event.
pub type EventId = u32;

/// A condition: a token on a place in some reachable marking.
#[derive(Clone, Debug)]
pub struct Condition {
    /// The place it is a copy of.
    pub place: Place,
    /// The event that produced it (`None` for the initial marking).
    pub producer: Option<EventId>,
    /// Events (added or possible) that take it.
    pub consumers: Vec<EventId>,
    /// The value a synchronisation object carries here.
    pub value: Value,
}

/// Per thread condition: what the thread does next, what it holds.
#[derive(Clone, Debug, Default)]
pub struct ThreadInfo {
    /// The operation the thread performs from here, once an execution
    /// showed it (a thread condition determines it: Sec. 4.2).
    pub next: Option<Label>,
    /// Locks and done resources the thread holds here (Sec. 4.4).
    pub holds: Vec<Place>,
    /// The possible extensions from here were computed.
    pub searched: bool,
}

/// An event: an occurrence of a transition.
#[derive(Clone, Debug)]
pub struct Event {
    /// Its transition.
    pub label: Label,
    /// Conditions it takes, sorted; the first is its thread's.
    pub preset: Vec<CondId>,
    /// Conditions it gives (empty until added).
    pub postset: Vec<CondId>,
    /// Part of the unfolding (else only a possible extension).
    pub added: bool,
    /// For a release: the acquisition of the same lock it ends.
    pub acquire: Option<EventId>,
    /// For an acquisition: the releases that end it (Def. 4).
    pub releases: Vec<EventId>,
}

/// The unfolding built so far.
#[derive(Default)]
pub struct Unfolding {
    /// All conditions.
    pub conds: Vec<Condition>,
    /// All events, added and possible.
    pub events: Vec<Event>,
    /// Thread conditions' extra information.
    pub threads: FxHashMap<CondId, ThreadInfo>,
    /// Threads with copies of every shared object.
    pub universe: u32,
    /// Events added so far.
    pub added: usize,
    initial: FxHashMap<Place, CondId>,
    index: FxHashMap<(Label, Vec<CondId>), EventId>,
    /// Initial values of synchronisation objects, once observed.
    initial_values: FxHashMap<Obj, Value>,
    /// Initial values learnt so far (the deferred events are worth another
    /// look when it grows).
    pub values_learnt: usize,
    /// Conditions of each done place.
    pub done_conds: FxHashMap<u32, Vec<CondId>>,
    scratch: Scratch,
}

/// Stamps for the co-check (Sec. 4.2, "Checking for concurrency").
#[derive(Default)]
struct Scratch {
    stamp: u32,
    event_seen: Vec<u32>,
    cond_seen: Vec<u32>,
    cond_taker: Vec<EventId>,
    stack: Vec<EventId>,
    visited: Vec<EventId>,
}

impl Unfolding {
    /// An empty unfolding for programs with `universe` threads so far.
    pub fn new() -> Unfolding {
        let mut unf = Unfolding {
            universe: 1,
            ..Unfolding::default()
        };
        unf.initial(Place::Thread(0));
        unf
    }

    fn new_cond(&mut self, place: Place, producer: Option<EventId>, value: Value) -> CondId {
        let id = self.conds.len() as CondId;
        self.conds.push(Condition {
            place,
            producer,
            consumers: Vec::new(),
            value,
        });
        if let Place::Thread(_) = place {
            self.threads.insert(id, ThreadInfo::default());
        }
        if let Place::Done(t) = place {
            self.done_conds.entry(t).or_default().push(id);
        }
        id
    }

    /// The condition of `place` in the initial marking, if the place is
    /// marked initially (not a created thread's control place, not a done
    /// resource).
    pub fn initial(&mut self, place: Place) -> Option<CondId> {
        match place {
            Place::Thread(t) if t != 0 => return None,
            Place::Done(_) => return None,
            _ => {}
        }
        if let Some(&c) = self.initial.get(&place) {
            return Some(c);
        }
        let value = match place {
            Place::Copy(obj, _) => self.initial_values.get(&obj).cloned().unwrap_or_default(),
            _ => Value::Unknown,
        };
        let c = self.new_cond(place, None, value);
        if let Place::Thread(0) = place {
            if let Some(info) = self.threads.get_mut(&c) {
                info.holds = vec![Place::Done(0)];
            }
        }
        self.initial.insert(place, c);
        Some(c)
    }

    /// Records the value a synchronisation object had initially, as an
    /// execution showed it (a semaphore's count found by its first
    /// operation).
    pub fn learn_initial_value(&mut self, obj: Obj, value: Value) {
        if self.initial_values.contains_key(&obj) {
            return;
        }
        self.initial_values.insert(obj, value.clone());
        self.values_learnt += 1;
        for j in 0..self.universe {
            if let Some(&c) = self.initial.get(&Place::Copy(obj, j)) {
                self.conds[c as usize].value = value.clone();
            }
        }
    }

    /// The event with this label and preset: the known one, or a new
    /// possible extension (`true` if new).
    pub fn event(&mut self, label: Label, mut preset: Vec<CondId>) -> (EventId, bool) {
        preset.sort_unstable();
        let key = (label, preset);
        if let Some(&e) = self.index.get(&key) {
            return (e, false);
        }
        let (label, preset) = key;
        let id = self.events.len() as EventId;
        for &c in &preset {
            self.conds[c as usize].consumers.push(id);
        }
        self.events.push(Event {
            label: label.clone(),
            preset: preset.clone(),
            postset: Vec::new(),
            added: false,
            acquire: None,
            releases: Vec::new(),
        });
        self.index.insert((label, preset), id);
        (id, true)
    }

    /// The thread condition in an event's preset.
    pub fn thread_cond(&self, e: EventId) -> CondId {
        let ev = &self.events[e as usize];
        ev.preset
            .iter()
            .copied()
            .find(|&c| self.conds[c as usize].place == Place::Thread(ev.label.thread))
            .unwrap_or(ev.preset[0])
    }

    /// The condition of `place` in `conds`, if any.
    pub fn cond_of(&self, conds: &[CondId], place: Place) -> Option<CondId> {
        conds
            .iter()
            .copied()
            .find(|&c| self.conds[c as usize].place == place)
    }

    /// Adds a possible extension to the unfolding: creates its postset.
    /// `found` is the count a semaphore operation reported when it ran.
    pub fn add(&mut self, e: EventId, found: Option<u64>) {
        if self.events[e as usize].added {
            return;
        }
        self.added += 1;
        let label = self.events[e as usize].label.clone();
        let preset = self.events[e as usize].preset.clone();
        let thread_pre = self.thread_cond(e);
        let shape = label.shape();
        // The object's value before, from the thread's own copy (looked up
        // once: a bulk access has thousands of copies in its preset).
        let own_copies: FxHashMap<Obj, CondId> = preset
            .iter()
            .filter_map(|&c| match self.conds[c as usize].place {
                Place::Copy(obj, j) if j == label.thread => Some((obj, c)),
                _ => None,
            })
            .collect();
        let own_value = |unf: &Unfolding, obj: Obj| {
            own_copies
                .get(&obj)
                .map(|&c| unf.conds[c as usize].value.clone())
                .unwrap_or_default()
        };
        if let (Some(n), Some(&obj)) = (found, shape.writes.first()) {
            // The first operation seen on a semaphore tells its initial count.
            let initial = self.cond_of(&preset, Place::Copy(obj, label.thread));
            if initial.is_some_and(|c| self.conds[c as usize].producer.is_none()) {
                self.learn_initial_value(obj, Value::Count(n));
            }
        }
        let written: FxHashSet<Obj> = shape.writes.iter().copied().collect();
        let mut postset = Vec::new();
        for place in label.produced_places(self.universe) {
            let value = match place {
                Place::Copy(obj, _) if written.contains(&obj) => {
                    own_value(self, obj).after(&label, found)
                }
                Place::Copy(obj, _) => own_value(self, obj),
                _ => Value::Unknown,
            };
            postset.push(self.new_cond(place, Some(e), value));
        }
        // The thread's next control condition (none after its end).
        if !label.synthetic {
            let next = self.new_cond(Place::Thread(label.thread), Some(e), Value::Unknown);
            let mut holds = self
                .threads
                .get(&thread_pre)
                .map(|i| i.holds.clone())
                .unwrap_or_default();
            holds.retain(|p| !shape.releases.contains(p));
            holds.extend(
                shape
                    .acquires
                    .iter()
                    .filter(|p| matches!(p, Place::Lock(_))),
            );
            if let Some(info) = self.threads.get_mut(&next) {
                info.holds = holds;
            }
            postset.push(next);
            if let Some(child) = shape.spawns {
                if let Some(c) = postset
                    .iter()
                    .copied()
                    .find(|&c| self.conds[c as usize].place == Place::Thread(child))
                {
                    if let Some(info) = self.threads.get_mut(&c) {
                        info.holds = vec![Place::Done(child)];
                    }
                }
            }
        }
        postset.sort_unstable();
        // A release ends the latest acquisition of its lock by the thread.
        for place in &shape.releases {
            if let Place::Lock(_) = place {
                if let Some(a) = self.last_acquisition(thread_pre, *place) {
                    self.events[e as usize].acquire = Some(a);
                    self.events[a as usize].releases.push(e);
                }
            }
        }
        let ev = &mut self.events[e as usize];
        ev.postset = postset;
        ev.added = true;
    }

    /// The latest event of the thread, at or before its condition `t`,
    /// that acquired `lock`.
    fn last_acquisition(&self, t: CondId, lock: Place) -> Option<EventId> {
        let mut c = t;
        while let Some(p) = self.conds[c as usize].producer {
            let ev = &self.events[p as usize];
            if ev.label.shape().acquires.contains(&lock) {
                return Some(p);
            }
            let thread = self.conds[c as usize].place;
            // Up the thread's chain; a created thread's first condition
            // comes from its creator, where its history starts.
            match self.cond_of(&ev.preset, thread) {
                Some(prev) => c = prev,
                None => return None,
            }
        }
        None
    }

    /// The events of the causal past of `conds` (their local
    /// configuration), ascending: a valid firing order (Sec. 4.3).
    pub fn past(&mut self, conds: &[CondId]) -> Vec<EventId> {
        self.collect(conds, &[]);
        let mut events = self.scratch.visited.clone();
        events.sort_unstable();
        events
    }

    /// The events and their causal pasts, ascending.
    pub fn past_of_events(&mut self, events: &[EventId]) -> Vec<EventId> {
        self.collect(&[], events);
        let mut all = self.scratch.visited.clone();
        all.sort_unstable();
        all
    }

    /// The causal past of an event and the event itself, ascending.
    pub fn configuration(&mut self, e: EventId) -> Vec<EventId> {
        let preset = self.events[e as usize].preset.clone();
        let mut events = self.past(&preset);
        events.push(e);
        events
    }

    /// True if `events` and their causal pasts form one configuration
    /// (no condition taken twice: no two of them in conflict).
    pub fn compatible(&mut self, events: &[EventId]) -> bool {
        self.collect(&[], events)
    }

    /// Marks the causal past of `conds` (and of `events`' presets); returns
    /// false if it takes one condition twice (the conditions are then not
    /// all in one configuration).
    fn collect(&mut self, conds: &[CondId], events: &[EventId]) -> bool {
        let s = &mut self.scratch;
        s.stamp = s.stamp.wrapping_add(1);
        if s.stamp == 0 {
            s.event_seen.iter_mut().for_each(|x| *x = 0);
            s.cond_seen.iter_mut().for_each(|x| *x = 0);
            s.stamp = 1;
        }
        s.event_seen.resize(self.events.len(), 0);
        s.cond_seen.resize(self.conds.len(), 0);
        s.cond_taker.resize(self.conds.len(), 0);
        s.stack.clear();
        s.visited.clear();
        for &c in conds {
            if let Some(p) = self.conds[c as usize].producer {
                s.stack.push(p);
            }
        }
        s.stack.extend_from_slice(events);
        let mut ok = true;
        while let Some(e) = s.stack.pop() {
            if s.event_seen[e as usize] == s.stamp {
                continue;
            }
            s.event_seen[e as usize] = s.stamp;
            s.visited.push(e);
            for &b in &self.events[e as usize].preset {
                if s.cond_seen[b as usize] == s.stamp {
                    if s.cond_taker[b as usize] != e {
                        ok = false;
                    }
                } else {
                    s.cond_seen[b as usize] = s.stamp;
                    s.cond_taker[b as usize] = e;
                }
                if let Some(p) = self.conds[b as usize].producer {
                    if s.event_seen[p as usize] != s.stamp {
                        s.stack.push(p);
                    }
                }
            }
        }
        ok
    }

    /// True if the conditions are pairwise concurrent (a co-set): their
    /// causal pasts together take no condition twice (no conflict), and
    /// none of them is taken in that past (no causality). Linear in the
    /// size of the past (Sec. 4.2, "Checking for concurrency").
    pub fn is_coset(&mut self, conds: &[CondId]) -> bool {
        // No condition twice (sorted: a bulk access has thousands).
        let mut sorted = conds.to_vec();
        sorted.sort_unstable();
        if sorted.windows(2).any(|w| w[0] == w[1]) {
            return false;
        }
        if !self.collect(conds, &[]) {
            return false;
        }
        let stamp = self.scratch.stamp;
        conds
            .iter()
            .all(|&c| self.scratch.cond_seen[c as usize] != stamp)
    }

    /// Gives every shared object a copy for threads up to `universe`
    /// (Sec. 4.5, first option: every event that writes an object takes
    /// and gives the new thread's copy too, the copy the previous write of
    /// its past gave, or the initial one).
    pub fn grow(&mut self, universe: u32) {
        while self.universe < universe {
            let k = self.universe;
            self.universe += 1;
            for e in 0..self.events.len() as EventId {
                let label = self.events[e as usize].label.clone();
                let writes = label.shape().writes;
                if writes.is_empty() {
                    continue;
                }
                let old_key = (label.clone(), self.events[e as usize].preset.clone());
                for obj in writes {
                    let place = Place::Copy(obj, k);
                    let pre = match self.previous_write(e, obj) {
                        Some(w) => self.cond_of(&self.events[w as usize].postset, place),
                        None => self.initial(place),
                    };
                    let Some(pre) = pre else { continue };
                    self.conds[pre as usize].consumers.push(e);
                    self.events[e as usize].preset.push(pre);
                    if self.events[e as usize].added {
                        let own = Place::Copy(obj, label.thread);
                        let value = self
                            .cond_of(&self.events[e as usize].postset, own)
                            .map(|c| self.conds[c as usize].value.clone())
                            .unwrap_or_default();
                        let post = self.new_cond(place, Some(e), value);
                        self.events[e as usize].postset.push(post);
                    }
                }
                let ev = &mut self.events[e as usize];
                ev.preset.sort_unstable();
                ev.postset.sort_unstable();
                let new_key = (label, ev.preset.clone());
                self.index.remove(&old_key);
                self.index.insert(new_key, e);
            }
        }
    }

    /// The write of `obj` that last precedes event `e` (which writes it):
    /// follow the writer's own copy back through its reads.
    fn previous_write(&self, e: EventId, obj: Obj) -> Option<EventId> {
        let own = Place::Copy(obj, self.events[e as usize].label.thread);
        let mut c = self.cond_of(&self.events[e as usize].preset, own)?;
        loop {
            let p = self.conds[c as usize].producer?;
            let ev = &self.events[p as usize];
            if ev.label.shape().writes.contains(&obj) {
                return Some(p);
            }
            c = self.cond_of(&ev.preset, own)?;
        }
    }
}
