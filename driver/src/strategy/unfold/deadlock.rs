//! The deadlock search on the unfolding (Sec. 4.4).
//!
//! Covering every event covers every local state, not every global state:
//! a deadlock may sit in a marking no execution reached. Two cases:
//!
//! - *A* — a thread ended while holding a lock: its end event is a
//!   "temporary release" of its locks; every thread condition concurrent
//!   with that end that wants one of them waits forever.
//! - *B* — a circular wait (Fig. 11): from a thread condition `c` that
//!   holds a resource and wants one, extend a co-set with conditions `a`
//!   concurrent with it such that `wants(a) ∈ holds(previous)` and
//!   `holds(a) ≠ ∅`, until one holds what `c` wants.
//!
//! Resources are locks and, following footnote 1, each thread's *done*
//! resource, which it holds until it ends and which a join wants. Without
//! symbolic inputs there is no path constraint, so FILTERUNSAT keeps
//! every candidate. The search runs each time a thread condition that
//! holds and wants something learns its next operation, as the paper
//! prescribes; FINDNEXT looks up, per resource, the thread conditions that
//! want it (an index kept as thread conditions learn their next operation).
//! Each deadlock found is a co-set of thread conditions; its causal past is
//! a schedule that reaches it, run like any other target so that the
//! runtime reports it with its wait-for cycle.

use super::net::Place;
use super::store::{CondId, EventId, Unfolding};
use rustc_hash::{FxHashMap, FxHashSet};
use std::collections::VecDeque;
use std::time::{Duration, Instant};

/// State of the deadlock search.
#[derive(Default)]
pub struct Deadlocks {
    /// Time spent searching (the DL column of Table 2).
    pub time: Duration,
    /// Deadlocks found, as co-sets of thread conditions, not yet run.
    pub witnesses: VecDeque<Vec<CondId>>,
    /// Deadlocks found so far.
    pub count: usize,
    found: FxHashSet<Vec<CondId>>,
    wanting: FxHashMap<Place, Vec<CondId>>,
    /// Ends of threads that held locks: the done condition and the locks.
    ended: Vec<(CondId, Vec<Place>)>,
}

/// The resource the thread wants next at `c` (a blocking acquisition).
fn wants(unf: &Unfolding, c: CondId) -> Option<Place> {
    let label = unf.threads.get(&c)?.next.as_ref()?;
    if label.nonblocking {
        return None;
    }
    label.shape().acquires.first().copied()
}

fn holds(unf: &Unfolding, c: CondId) -> &[Place] {
    unf.threads.get(&c).map_or(&[], |i| i.holds.as_slice())
}

impl Deadlocks {
    /// A thread condition learnt its next operation.
    pub fn on_thread_cond(&mut self, unf: &mut Unfolding, c: CondId) {
        let Some(wanted) = wants(unf, c) else {
            return;
        };
        let start = Instant::now();
        self.wanting.entry(wanted).or_default().push(c);
        // Case A: a thread that ended holding the lock.
        for (done, held) in self.ended.clone() {
            if held.contains(&wanted) {
                self.check(unf, vec![done, c]);
            }
        }
        // Case B: circular waits through c.
        if !holds(unf, c).is_empty() {
            self.search(unf, c, wanted, vec![c]);
        }
        self.time += start.elapsed();
    }

    /// A thread ended (event `end`, giving its done condition).
    pub fn on_end(&mut self, unf: &mut Unfolding, end: EventId) {
        let t = unf.thread_cond(end);
        let held: Vec<Place> = holds(unf, t)
            .iter()
            .copied()
            .filter(|p| matches!(p, Place::Lock(_)))
            .collect();
        let Some(&done) = unf.events[end as usize].postset.first() else {
            return;
        };
        if held.is_empty() {
            return;
        }
        let start = Instant::now();
        for lock in &held {
            for a in self.wanting.get(lock).cloned().unwrap_or_default() {
                self.check(unf, vec![done, a]);
            }
        }
        self.ended.push((done, held));
        self.time += start.elapsed();
    }

    fn check(&mut self, unf: &mut Unfolding, mut set: Vec<CondId>) {
        set.sort_unstable();
        if !self.found.contains(&set) && unf.is_coset(&set) {
            self.found.insert(set.clone());
            self.count += 1;
            self.witnesses.push_back(set);
        }
    }

    /// SEARCH of Fig. 11.
    fn search(&mut self, unf: &mut Unfolding, c: CondId, wanted: Place, coset: Vec<CondId>) {
        // FINDNEXT: conditions that want what c holds and hold something.
        let mut candidates: Vec<CondId> = Vec::new();
        for resource in holds(unf, c).to_vec() {
            candidates.extend(self.wanting.get(&resource).into_iter().flatten());
        }
        for candidate in candidates {
            if coset.contains(&candidate) || holds(unf, candidate).is_empty() {
                continue;
            }
            let mut set = coset.clone();
            set.push(candidate);
            if !unf.is_coset(&set) {
                continue;
            }
            if holds(unf, candidate).contains(&wanted) {
                set.sort_unstable();
                if self.found.insert(set.clone()) {
                    self.count += 1;
                    self.witnesses.push_back(set);
                }
            } else {
                self.search(unf, candidate, wanted, set);
            }
        }
    }
}
