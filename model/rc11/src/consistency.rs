//! The consistency axioms: RC11 as Lahav et al. state it (PLDI 2017, §3),
//! and sequential consistency for comparison.
//!
//! An execution graph G is RC11-consistent if it is complete (§3.2: every
//! read reads from some write) and
//!
//! ```text
//! hb; eco? is irreflexive          (coherence)
//! rmw ∩ (rb; mo) = ∅               (atomicity)
//! psc is acyclic                   (SC)
//! po ∪ rf is acyclic               (no-thin-air; here po ∪ ts ∪ rf)
//! ```
//!
//! with the relations of [`crate::relations`]. Coherence is the paper's
//! SC-per-location (its Proposition 1, §3.4, lists the patterns it forbids);
//! no-thin-air forbids load buffering outright, so a load can only read a
//! store that an earlier step of some interleaving of the threads made.
//!
//! A graph is sequentially consistent if it is complete, atomic, and
//! `po ∪ ts ∪ rf ∪ mo ∪ rb` is acyclic: its events are some interleaving of
//! the threads in which each read reads the latest write.
//!
//! Races are not an axiom: a consistent execution with a race on a
//! non-atomic access gives the program undefined behaviour, and
//! [`data_races`] finds them.

use crate::graph::{EventId, Graph, Mode};
use crate::relations::Relations;
use std::fmt;

/// The memory model an execution is checked against.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Model {
    /// RC11 (Lahav et al., PLDI 2017).
    Rc11,
    /// Sequential consistency: some interleaving of the threads.
    Sc,
}

/// An axiom a graph can violate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Axiom {
    /// A read reads from no write.
    Complete,
    /// `hb; eco?` is irreflexive.
    Coherence,
    /// `rmw ∩ (rb; mo)` is empty: an update reads the write mo-just before it.
    Atomicity,
    /// `psc` is acyclic.
    Sc,
    /// `po ∪ ts ∪ rf` is acyclic.
    NoThinAir,
    /// `po ∪ ts ∪ rf ∪ mo ∪ rb` is acyclic (the SC model only).
    Interleaving,
}

impl fmt::Display for Axiom {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Axiom::Complete => "completeness (a read reads from no write)",
            Axiom::Coherence => "coherence (hb; eco? irreflexive)",
            Axiom::Atomicity => "atomicity (rmw ∩ (rb; mo) empty)",
            Axiom::Sc => "SC (psc acyclic)",
            Axiom::NoThinAir => "no-thin-air (po ∪ rf acyclic)",
            Axiom::Interleaving => "interleaving (po ∪ rf ∪ mo ∪ rb acyclic)",
        })
    }
}

/// Every axiom of `model` that `g` violates, in the order listed in
/// [`Axiom`]; empty if `g` is consistent.
pub fn violations(g: &Graph, model: Model) -> Vec<Axiom> {
    let r = Relations::of(g);
    violations_with(g, &r, model)
}

/// [`violations`] with the relations already computed.
pub fn violations_with(g: &Graph, r: &Relations, model: Model) -> Vec<Axiom> {
    let mut out = Vec::new();
    let complete = g
        .events()
        .iter()
        .enumerate()
        .all(|(i, e)| !e.is_read() || g.rf(EventId(i)).is_some());
    if !complete {
        out.push(Axiom::Complete);
    }
    let atomic = r.rmw.intersection(&r.rb.seq(&r.mo)).is_empty();
    match model {
        Model::Rc11 => {
            if !r.hb.seq(&r.eco.opt()).is_irreflexive() {
                out.push(Axiom::Coherence);
            }
            if !atomic {
                out.push(Axiom::Atomicity);
            }
            if !r.psc.is_acyclic() {
                out.push(Axiom::Sc);
            }
            if !r.po.union(&r.ts).union(&r.rf).is_acyclic() {
                out.push(Axiom::NoThinAir);
            }
        }
        Model::Sc => {
            if !atomic {
                out.push(Axiom::Atomicity);
            }
            let order = r.po.union(&r.ts).union(&r.rf).union(&r.mo).union(&r.rb);
            if !order.is_acyclic() {
                out.push(Axiom::Interleaving);
            }
        }
    }
    out
}

/// Whether `g` is consistent under `model`.
pub fn is_consistent(g: &Graph, model: Model) -> bool {
    violations(g, model).is_empty()
}

/// The races of `g` that make a program's behaviour undefined: two accesses
/// to one location, at least one a write and one non-atomic, that
/// happens-before orders neither way. Each pair is given once, lower id first.
pub fn data_races(g: &Graph, r: &Relations) -> Vec<(EventId, EventId)> {
    let n = g.events().len();
    let mut out = Vec::new();
    for a in (0..n).map(EventId) {
        for b in (a.0 + 1..n).map(EventId) {
            let (ea, eb) = (g.event(a), g.event(b));
            let conflict = ea.loc().is_some()
                && ea.loc() == eb.loc()
                && (ea.is_write() || eb.is_write())
                && (ea.mode() == Some(Mode::NonAtomic) || eb.mode() == Some(Mode::NonAtomic));
            if conflict && !r.hb.contains(a, b) && !r.hb.contains(b, a) {
                out.push((a, b));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::{GraphBuilder, Mode::*};

    /// Load buffering with both loads reading the other thread's store:
    /// `r0 = y; x = 1 ‖ r1 = x; y = 1` with r0 = r1 = 1. Coherence,
    /// atomicity and SC hold; only no-thin-air rejects it.
    #[test]
    fn load_buffering_is_rejected_by_no_thin_air_alone() {
        let mut b = GraphBuilder::new();
        let x = b.location("x", 0);
        let y = b.location("y", 0);
        let (t0, t1) = (b.thread(), b.thread());
        let r0 = b.read(t0, y, Relaxed, 1).unwrap();
        let wx = b.write(t0, x, Relaxed, 1).unwrap();
        let r1 = b.read(t1, x, Relaxed, 1).unwrap();
        let wy = b.write(t1, y, Relaxed, 1).unwrap();
        b.reads_from(r0, wy).unwrap();
        b.reads_from(r1, wx).unwrap();
        let g = b.build();
        assert_eq!(violations(&g, Model::Rc11), vec![Axiom::NoThinAir]);
        assert_eq!(violations(&g, Model::Sc), vec![Axiom::Interleaving]);
    }

    /// A write placed mo-before the initialisation write: init is po-, so
    /// hb-, before it, and hb; mo closes a cycle.
    #[test]
    fn the_init_write_must_be_mo_first() {
        let mut b = GraphBuilder::new();
        let x = b.location("x", 0);
        let t = b.thread();
        b.write(t, x, Relaxed, 1).unwrap();
        let mut g = b.build();
        assert!(is_consistent(&g, Model::Rc11));
        let mut order = g.mo(x).to_vec();
        order.reverse();
        g.set_mo_unchecked(x, order);
        assert_eq!(violations(&g, Model::Rc11), vec![Axiom::Coherence]);
    }

    /// Two relaxed increments that both read the initial value: each
    /// update's read is rb-before the other update's write, which is
    /// mo-before its own write.
    #[test]
    fn two_updates_cannot_read_the_same_write() {
        let mut b = GraphBuilder::new();
        let x = b.location("x", 0);
        let (t0, t1) = (b.thread(), b.thread());
        let (r0, _) = b.rmw(t0, x, (Relaxed, Relaxed), 0, 1).unwrap();
        let (r1, _) = b.rmw(t1, x, (Relaxed, Relaxed), 0, 1).unwrap();
        let init = EventId(0);
        b.reads_from(r0, init).unwrap();
        b.reads_from(r1, init).unwrap();
        let g = b.build();
        assert_eq!(violations(&g, Model::Rc11), vec![Axiom::Atomicity]);
    }

    #[test]
    fn a_read_from_nowhere_is_incomplete() {
        let mut b = GraphBuilder::new();
        let x = b.location("x", 0);
        let t = b.thread();
        b.read(t, x, Relaxed, 0).unwrap();
        assert_eq!(violations(&b.build(), Model::Rc11), vec![Axiom::Complete]);
    }

    /// Store buffering, both loads reading 0: the SC accesses close a psc
    /// cycle (po, rb, po, rb); release/acquire ones do not.
    #[test]
    fn store_buffering_violates_sc_only_with_seq_cst_accesses() {
        for (store, load, expected) in [
            (SeqCst, SeqCst, vec![Axiom::Sc]),
            (Release, Acquire, vec![]),
        ] {
            let mut b = GraphBuilder::new();
            let x = b.location("x", 0);
            let y = b.location("y", 0);
            let (t0, t1) = (b.thread(), b.thread());
            b.write(t0, x, store, 1).unwrap();
            let r0 = b.read(t0, y, load, 0).unwrap();
            b.write(t1, y, store, 1).unwrap();
            let r1 = b.read(t1, x, load, 0).unwrap();
            b.reads_from(r0, EventId(1)).unwrap();
            b.reads_from(r1, EventId(0)).unwrap();
            assert_eq!(violations(&b.build(), Model::Rc11), expected);
        }
    }

    #[test]
    fn an_unsynchronised_plain_access_races() {
        let mut b = GraphBuilder::new();
        let x = b.location("x", 0);
        let (t0, t1) = (b.thread(), b.thread());
        let w = b.write(t0, x, NonAtomic, 1).unwrap();
        let r = b.read(t1, x, Relaxed, 0).unwrap();
        b.reads_from(r, EventId(0)).unwrap();
        let g = b.build();
        assert_eq!(data_races(&g, &Relations::of(&g)), vec![(w, r)]);
    }
}
