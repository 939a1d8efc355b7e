//! Race sets (paper Sec. 3.1, slides "Race Set"), computed from the vector
//! timestamps of one SYN-sequence.
//!
//! Every executed event is one receiving event, of one of two kinds:
//!
//! * a **write receive** (a write, a synchronisation operation, the process
//!   exit): the event's place among the writes of its objects, whose send
//!   partner is the event's own call (as the slides' semaphore model). A
//!   call `s'` of event `f` is in its race set if `f` is of another thread,
//!   may write (as a call) and is dependent with `e` (ending the process is
//!   dependent with everything, and before the exit reads are sends too),
//!   `s'` is open at `e` ([`SynSequence::open_at`]), `e` does not happen
//!   before `s'` (value relation) and `f` completes after `e` or never;
//! * a **read receive** (a load, `sem_getvalue`): it receives the value of
//!   a write (the reads-from relation). Its race set holds the writes it
//!   could read instead, each named by the place it moves to: *before* an
//!   earlier write `w` of its objects that does not happen before its call,
//!   or *after* a later write `w` whose completion does not depend on it;
//!   and a later process exit taking its place.
//!
//! Every dependent pair of events of different threads is thus the race of
//! exactly one receive: two writes race at the earlier write's receive, a
//! read and a write at the read's receive.
//!
//! Candidates are found through an index from object granules to the
//! writes touching them, one list per thread: a thread's calls depend on a
//! write once one of them does (its clock only grows), so each list is
//! scanned up to that call and the cost is the number of races plus the
//! threads, not the square of the trace length (a thread writing one
//! counter in a loop costs one step per write).

use super::model::{dependent, SynSequence};
use crate::analysis::objects::{touched, ObjectKey};
use crate::cancel::{Cancel, Checkpoint};
use rustc_hash::FxHashMap as HashMap;

/// How a race changes its receive.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum How {
    /// The partner's call completes in the receive's place; the receive's
    /// own event is removed (Def. 4), except a process exit, which stays
    /// after the partners.
    Take,
    /// The read receive moves just before the partner write (and reads the
    /// write before it).
    Before,
    /// The read receive moves just after the partner write (and reads it).
    After,
}

/// One element of a race set.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Race {
    /// The sending event (index into the sequence's events): a call for
    /// [`How::Take`], a completed write for a read that moves.
    pub partner: usize,
    /// How the receive changes.
    pub how: How,
}

/// `race_set(r)` for every executed event `r` (indices into `seq.events`),
/// each ordered by partner; `None` if `cancel` fired on the way.
pub fn race_sets(seq: &SynSequence, cancel: &Cancel) -> Option<Vec<Vec<Race>>> {
    let mut checkpoint = Checkpoint::new(cancel);
    let mut sends = Sends::default();
    let mut writes: HashMap<ObjectKey, Vec<usize>> = HashMap::default();
    let mut exits = Vec::new();
    for (i, event) in seq.events.iter().enumerate() {
        for (key, class) in touched(&event.op) {
            if !event.read_only {
                sends.push(key, event.id.thread, i);
            }
            if class.writes() && i < seq.executed {
                let list = writes.entry(key).or_default();
                if list.last() != Some(&i) {
                    list.push(i);
                }
            }
        }
        if event.op.cuts_threads() {
            exits.push(i);
        }
    }
    (0..seq.executed)
        .map(|e| {
            if checkpoint.stop() {
                return None;
            }
            let mut set = if seq.events[e].read_only {
                read_races(seq, e, &writes, &exits)
            } else {
                write_races(seq, e, &sends, &exits)
            };
            set.sort_unstable_by_key(|r| (r.partner, r.how as u8));
            set.dedup();
            Some(set)
        })
        .collect()
}

/// The events that may write (calls as sends), per object granule and per
/// thread, each list in trace order.
#[derive(Default)]
struct Sends {
    by_thread: HashMap<(ObjectKey, u32), Vec<usize>>,
    threads: HashMap<ObjectKey, Vec<u32>>,
}

impl Sends {
    fn push(&mut self, key: ObjectKey, thread: u32, event: usize) {
        let list = self.by_thread.entry((key, thread)).or_default();
        if list.is_empty() {
            self.threads.entry(key).or_default().push(thread);
        }
        if list.last() != Some(&event) {
            list.push(event);
        }
    }

    /// The lists of the threads other than `thread` that send on `key`.
    fn others(&self, key: ObjectKey, thread: u32) -> impl Iterator<Item = &[usize]> + '_ {
        self.threads
            .get(&key)
            .into_iter()
            .flatten()
            .filter(move |&&u| u != thread)
            .filter_map(move |&u| self.by_thread.get(&(key, u)).map(Vec::as_slice))
    }
}

/// The race set of the write receive `e`.
fn write_races(seq: &SynSequence, e: usize, sends: &Sends, exits: &[usize]) -> Vec<Race> {
    let ee = &seq.events[e];
    let exit = ee.op.cuts_threads();
    let races = |f: usize| {
        let fe = &seq.events[f];
        ee.id.thread != fe.id.thread
            && (exit || !fe.read_only)
            && dependent(&ee.op, &fe.op)
            && seq.open_at(f, e)
    };
    let mut set: Vec<usize> = Vec::new();
    if exit {
        set.extend((e + 1..seq.events.len()).filter(|&f| !seq.removes_call(e, f) && races(f)));
    } else {
        for (key, _) in touched(&ee.op) {
            for list in sends.others(key, ee.id.thread) {
                let from = list.partition_point(|&f| f <= e);
                // Once a call of the thread depends on `e`, so do its later ones.
                let open = list[from..]
                    .iter()
                    .take_while(|&&f| !seq.removes_call(e, f));
                set.extend(open.copied().filter(|&f| races(f)));
            }
        }
        set.extend(
            exits
                .iter()
                .copied()
                .filter(|&f| f > e && !seq.removes_call(e, f) && races(f)),
        );
    }
    set.into_iter()
        .map(|partner| Race {
            partner,
            how: How::Take,
        })
        .collect()
}

/// The race set of the read receive `e`: the writes it could read instead,
/// and a later exit.
fn read_races(
    seq: &SynSequence,
    e: usize,
    writes: &HashMap<ObjectKey, Vec<usize>>,
    exits: &[usize],
) -> Vec<Race> {
    let ee = &seq.events[e];
    let mut set = Vec::new();
    for (key, _) in touched(&ee.op) {
        let Some(list) = writes.get(&key) else {
            continue;
        };
        let at = list.partition_point(|&w| w < e);
        // Earlier writes: once one happens before the call, so do all
        // earlier ones (they are ordered among themselves).
        for &w in list[..at].iter().rev() {
            if seq.before_call(w, e) {
                break;
            }
            set.push(Race {
                partner: w,
                how: How::Before,
            });
        }
        // Later writes: once one depends on the read, so do all later ones.
        for &w in &list[at..] {
            if seq.removes(e, false, w) {
                break;
            }
            if seq.events[w].id.thread != ee.id.thread {
                set.push(Race {
                    partner: w,
                    how: How::After,
                });
            }
        }
    }
    for &f in exits.iter().filter(|&&f| f > e) {
        if seq.events[f].id.thread != ee.id.thread && !seq.removes_call(e, f) {
            set.push(Race {
                partner: f,
                how: How::Take,
            });
        }
    }
    set
}
