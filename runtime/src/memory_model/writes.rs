//! Stores, read-modify-writes and compare-and-exchanges under RC11: where
//! each goes in its location's modification order, and what a
//! read-modify-write or compare-and-exchange reads.
//!
//! A store may go at any place after the latest store its thread has seen
//! (coherence), after the latest `seq_cst` store if it is `seq_cst`, and
//! never between a read-modify-write and the store it read (atomicity). A
//! read-modify-write goes at such a place and reads the store just before
//! it. A compare-and-exchange reads any store a load could: one holding
//! the expected value makes it succeed (a read-modify-write placed just
//! after it, if atomicity allows), any other makes it fail (a load with
//! the failure ordering). The choices are numbered from 0, the latest
//! (appending; reading the latest store), to the oldest.

use super::locations::{new_store, Location, HISTORY};
use super::restore::{set_pending, write_int, Restore};
use super::{acquire, coherence_floor, is_release, tick, unfollowed, Choice, Model, SEQ_CST};
use reach_channel::memory_model::{ReadRecord, INITIAL_WRITER};

/// The kind of write.
#[derive(Clone, Copy)]
pub enum Write {
    /// A plain store to a tracked location: always the latest.
    Plain,
    /// An atomic store.
    Store,
    /// A read-modify-write.
    Rmw,
    /// A compare-and-exchange expecting `expected` (masked to the size),
    /// failing with `failure` ordering.
    Cas {
        /// The value compared with.
        expected: u64,
        /// The ordering of a failure (a load).
        failure: u32,
    },
}

/// One choice of a write.
#[derive(Clone, Copy)]
enum Candidate {
    /// Placed at this place (a read-modify-write reads the place before).
    Place(u32),
    /// Reads the store at this place and fails (a compare-and-exchange).
    Fail(u32),
}

/// Thread `t`'s write of `kind` and `ordering`, of `size` bytes at `addr`,
/// at event `step`, where `choice` says. `None` when the model does not
/// follow the access (or a plain store to an untracked location).
#[allow(clippy::too_many_arguments)]
pub fn write(
    m: &mut Model,
    t: usize,
    addr: u64,
    size: u64,
    ordering: u32,
    step: u64,
    kind: Write,
    choice: Choice,
) -> Option<ReadRecord> {
    let Some(native) = super::read_int(addr, size) else {
        unfollowed(m, t);
        return None;
    };
    let slot = match kind {
        Write::Plain => m.locations.find(addr)?,
        _ => match m.locations.find_or_insert(addr, native) {
            Some(slot) => slot,
            None => {
                unfollowed(m, t);
                return None;
            }
        },
    };
    let ts = tick(m, t);
    let Model {
        threads,
        locations,
        restore,
        ..
    } = m;
    let th = &mut threads[t];
    let loc = locations.get_mut(slot);
    let latest = loc.latest();
    loc.store_mut(latest).value = native;
    let (latest_writer, latest_step) = (loc.store(latest).writer, loc.store(latest).step);
    let floor = coherence_floor(&th.clock, loc);
    let mut candidates = [Candidate::Place(0); HISTORY + 1];
    let n = match kind {
        Write::Plain => {
            candidates[0] = Candidate::Place(loc.count);
            1
        }
        Write::Store | Write::Rmw => places(loc, floor, ordering == SEQ_CST, &mut candidates),
        Write::Cas { expected, failure } => reads(
            loc,
            floor,
            native,
            expected,
            ordering,
            failure,
            &mut candidates,
        ),
    };
    let pick = match choice {
        Choice::Prefix(c) => usize::from(c),
        Choice::Random(r) => (r % n as u64) as usize,
        Choice::Latest => 0,
    }
    .min(n - 1);
    let value_at = |loc: &Location, p: u32| {
        if p == latest {
            native
        } else {
            loc.store(p).value
        }
    };
    let mut record = ReadRecord {
        tag: 0,
        candidates: n as u16,
        choice: pick as u16,
        writer: INITIAL_WRITER,
        latest_writer,
        writer_step: u64::MAX,
        latest_step,
        value: native,
        latest_value: native,
        later_stores: 0,
        placed: 0,
        ordering: ordering as u16,
    };
    let reads_from = |record: &mut ReadRecord, loc: &Location, p: u32| {
        let read = loc.store(p);
        record.writer = read.writer;
        record.writer_step = read.step;
        record.value = value_at(loc, p);
    };
    match candidates[pick] {
        Candidate::Fail(s) => {
            let failure = match kind {
                Write::Cas { failure, .. } => failure,
                _ => ordering,
            };
            reads_from(&mut record, loc, s);
            record.ordering = failure as u16;
            let read = loc.store_mut(s);
            acquire(th, &read.rel, failure);
            if read.seen.0[t] == 0 {
                read.seen.0[t] = ts;
            }
            if s != latest {
                write_int(addr, size, record.value);
                *restore = Restore {
                    slot,
                    addr,
                    size,
                    place: None,
                    latest: native,
                };
                set_pending(true);
            }
        }
        Candidate::Place(p) => {
            let rmw = !matches!(kind, Write::Store | Write::Plain);
            reads_from(&mut record, loc, p - 1);
            if rmw {
                let read = loc.store_mut(p - 1);
                acquire(th, &read.rel, ordering);
                if read.seen.0[t] == 0 {
                    read.seen.0[t] = ts;
                }
            }
            let mut new = new_store(t as u32, step, ordering == SEQ_CST);
            new.rmw = rmw;
            if is_release(ordering) {
                new.own_rel = th.clock;
            } else {
                new.own_rel = th.release_fence;
                let earlier = (loc.oldest()..loc.count)
                    .rev()
                    .find(|&q| loc.store(q).writer == t as u32);
                if let Some(q) = earlier {
                    new.own_rel.join(&loc.store(q).own_rel);
                }
            }
            new.rel = new.own_rel;
            if rmw {
                new.rel.join(&loc.store(p - 1).rel);
            }
            new.seen.0[t] = ts;
            record.later_stores = loc.count - p;
            record.placed = 1;
            if p < loc.count {
                if rmw {
                    write_int(addr, size, record.value);
                }
                *restore = Restore {
                    slot,
                    addr,
                    size,
                    place: Some(p),
                    latest: native,
                };
                set_pending(true);
            }
            loc.insert(p, new);
        }
    }
    Some(record)
}

/// The places a store (`sc`: `seq_cst`) may take after `floor`, latest
/// first, into `out`; returns how many.
fn places(loc: &Location, floor: u32, sc: bool, out: &mut [Candidate; HISTORY + 1]) -> usize {
    let lowest = if sc {
        (floor + 1).max(loc.last_sc)
    } else {
        floor + 1
    };
    let mut n = 0;
    let mut p = loc.count;
    while p >= lowest {
        if p == loc.count || !loc.store(p).rmw {
            out[n] = Candidate::Place(p);
            n += 1;
        }
        p -= 1;
    }
    n
}

/// What a compare-and-exchange may read, latest first, into `out`: each
/// store from `floor` on, a success where it holds `expected` (and
/// atomicity allows), else a failure; returns how many.
fn reads(
    loc: &Location,
    floor: u32,
    native: u64,
    expected: u64,
    ordering: u32,
    failure: u32,
    out: &mut [Candidate; HISTORY + 1],
) -> usize {
    let sc_floor = |o: u32| {
        if o == SEQ_CST && loc.last_sc > 0 {
            loc.last_sc - 1
        } else {
            0
        }
    };
    let latest = loc.latest();
    let mut n = 0;
    let mut s = latest + 1;
    while s > floor {
        s -= 1;
        let value = if s == latest {
            native
        } else {
            loc.store(s).value
        };
        let candidate = if value == expected {
            let atomic = s == latest || !loc.store(s + 1).rmw;
            (atomic && s >= sc_floor(ordering)).then_some(Candidate::Place(s + 1))
        } else {
            (s >= sc_floor(failure)).then_some(Candidate::Fail(s))
        };
        if let Some(c) = candidate {
            out[n] = c;
            n += 1;
        }
    }
    n
}
