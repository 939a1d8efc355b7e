//! The relations of an execution graph, primitive and derived, as §3 of
//! Lahav et al. (PLDI 2017) defines them:
//!
//! ```text
//! rb      ≜ rf⁻¹; mo                                     (reads-before)
//! eco     ≜ (rf ∪ mo ∪ rb)+                              (extended coherence order)
//! rs      ≜ [W]; po|loc?; [W⊒rlx]; (rf; rmw)*            (release sequence)
//! sw      ≜ [E⊒rel]; ([F]; po)?; rs; rf; [R⊒rlx]; (po; [F])?; [E⊒acq]
//! hb      ≜ (po ∪ sw)+                                   (here: (po ∪ ts ∪ sw)+)
//! scb     ≜ po ∪ po|≠loc; hb; po|≠loc ∪ hb|loc ∪ mo ∪ rb
//! psc_base ≜ ([E^sc] ∪ [F^sc]; hb?); scb; ([E^sc] ∪ hb?; [F^sc])
//! psc_F   ≜ [F^sc]; (hb ∪ hb; eco; hb); [F^sc]
//! psc     ≜ psc_base ∪ psc_F
//! ```
//!
//! `R|loc` keeps the pairs of accesses to one location and `R|≠loc` the
//! rest (a fence, or a thread's start or end, has no location, so a pair
//! with one is in `po|≠loc`, as in herd's `rc11.cat`). Program order puts
//! every initialisation write before every thread event. `ts` holds the
//! thread-creation and join edges (spawn → start, end → join): C11 makes
//! them synchronise, so they join happens-before beside sw (as the
//! "additional synchronises-with" of Batty et al.'s C11 model).

use crate::graph::{Event, EventId, EventKind, Graph, LocId, Mode};
use crate::relation::{EventSet, Relation};

/// Every relation the consistency axioms use, computed once for a graph.
#[derive(Clone, Debug)]
pub struct Relations {
    /// Program order: each thread's events in order, after every
    /// initialisation write (transitive).
    pub po: Relation,
    /// Thread creation and join: spawn → start, end → join.
    pub ts: Relation,
    /// Reads-from: write → read.
    pub rf: Relation,
    /// Modification order (transitive, per location, init first).
    pub mo: Relation,
    /// Read-modify-write: an update's read → its write.
    pub rmw: Relation,
    /// Accesses to the same location (`loc` in `R|loc`).
    pub same_loc: Relation,
    /// Reads-before: `rf⁻¹; mo`.
    pub rb: Relation,
    /// Extended coherence order: `(rf ∪ mo ∪ rb)+`.
    pub eco: Relation,
    /// Release sequence.
    pub rs: Relation,
    /// Synchronises-with.
    pub sw: Relation,
    /// Happens-before: `(po ∪ ts ∪ sw)+`.
    pub hb: Relation,
    /// SC-before.
    pub scb: Relation,
    /// Partial SC relation: `psc_base ∪ psc_F`.
    pub psc: Relation,
}

impl Relations {
    /// Computes every relation of `g`.
    pub fn of(g: &Graph) -> Relations {
        let n = g.events().len();
        let set = |keep: &dyn Fn(&Event) -> bool| EventSet::from_fn(n, |e| keep(g.event(e)));
        let id = |keep: &dyn Fn(&Event) -> bool| Relation::identity(&set(keep));
        let at_least = |e: &Event, m: Mode| e.mode().is_some_and(|k| k.at_least(m));

        let po = program_order(g);
        let ts = thread_sync(g);
        let rf = Relation::from_pairs(
            n,
            (0..n).map(EventId).filter_map(|r| g.rf(r).map(|w| (w, r))),
        );
        let mut mo = Relation::empty(n);
        for (l, _) in g.locations().iter().enumerate() {
            let order = g.mo(LocId(l));
            for (i, &a) in order.iter().enumerate() {
                for &b in &order[i + 1..] {
                    mo.insert(a, b);
                }
            }
        }
        let rmw = Relation::from_pairs(n, g.rmw().iter().copied());
        let mut same_loc = Relation::empty(n);
        for a in (0..n).map(EventId) {
            for b in (0..n).map(EventId) {
                let loc = g.event(a).loc();
                if loc.is_some() && loc == g.event(b).loc() {
                    same_loc.insert(a, b);
                }
            }
        }

        let rb = rf.inverse().seq(&mo);
        let eco = rf.union(&mo).union(&rb).plus();

        let po_loc = po.intersection(&same_loc);
        let po_nloc = po.minus(&po_loc);
        let w = id(&|e| e.is_write());
        let w_rlx = id(&|e| e.is_write() && at_least(e, Mode::Relaxed));
        let r_rlx = id(&|e| e.is_read() && at_least(e, Mode::Relaxed));
        let f = id(&|e| e.is_fence());
        let e_rel = id(&|e| at_least(e, Mode::Release));
        let e_acq = id(&|e| at_least(e, Mode::Acquire));

        // rs ≜ [W]; po|loc?; [W⊒rlx]; (rf; rmw)*
        let rs = w.seq(&po_loc.opt()).seq(&w_rlx).seq(&rf.seq(&rmw).star());
        // sw ≜ [E⊒rel]; ([F]; po)?; rs; rf; [R⊒rlx]; (po; [F])?; [E⊒acq]
        let sw = e_rel
            .seq(&f.seq(&po).opt())
            .seq(&rs)
            .seq(&rf)
            .seq(&r_rlx)
            .seq(&po.seq(&f).opt())
            .seq(&e_acq);
        let hb = po.union(&ts).union(&sw).plus();

        // scb ≜ po ∪ po|≠loc; hb; po|≠loc ∪ hb|loc ∪ mo ∪ rb
        let scb = po
            .union(&po_nloc.seq(&hb).seq(&po_nloc))
            .union(&hb.intersection(&same_loc))
            .union(&mo)
            .union(&rb);
        let e_sc = id(&|e| e.mode() == Some(Mode::SeqCst));
        let f_sc = id(&|e| e.is_fence() && e.mode() == Some(Mode::SeqCst));
        let hb_opt = hb.opt();
        // psc_base ≜ ([E^sc] ∪ [F^sc]; hb?); scb; ([E^sc] ∪ hb?; [F^sc])
        let psc_base = e_sc
            .union(&f_sc.seq(&hb_opt))
            .seq(&scb)
            .seq(&e_sc.union(&hb_opt.seq(&f_sc)));
        // psc_F ≜ [F^sc]; (hb ∪ hb; eco; hb); [F^sc]
        let psc_f = f_sc.seq(&hb.union(&hb.seq(&eco).seq(&hb))).seq(&f_sc);
        let psc = psc_base.union(&psc_f);

        Relations {
            po,
            ts,
            rf,
            mo,
            rmw,
            same_loc,
            rb,
            eco,
            rs,
            sw,
            hb,
            scb,
            psc,
        }
    }
}

/// Each thread's events in order, every initialisation write before them.
fn program_order(g: &Graph) -> Relation {
    let n = g.events().len();
    let mut po = Relation::empty(n);
    let inits: Vec<EventId> = g.locations().iter().map(|l| l.init).collect();
    for events in g.threads() {
        for (i, &a) in events.iter().enumerate() {
            for &init in &inits {
                po.insert(init, a);
            }
            for &b in &events[i + 1..] {
                po.insert(a, b);
            }
        }
    }
    po
}

/// spawn → the child's start; the child's end → join.
fn thread_sync(g: &Graph) -> Relation {
    let n = g.events().len();
    let mut ts = Relation::empty(n);
    for (i, event) in g.events().iter().enumerate() {
        match event.kind {
            EventKind::Spawn { child } => {
                if let Some(&start) = g.threads()[child.0].first() {
                    ts.insert(EventId(i), start);
                }
            }
            EventKind::Join { child } => {
                if let Some(&end) = g.threads()[child.0].last() {
                    ts.insert(end, EventId(i));
                }
            }
            _ => {}
        }
    }
    ts
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::{GraphBuilder, Mode::*};

    /// x = 1 (rlx); y = 1 (rel) ‖ fetch_add(y, 1) (rlx) ‖ y (acq) reads 2:
    /// the update continues the release sequence of y = 1, so the release
    /// store synchronises with the acquire load.
    #[test]
    fn a_release_sequence_runs_through_updates() {
        let mut b = GraphBuilder::new();
        let x = b.location("x", 0);
        let y = b.location("y", 0);
        let (t0, t1, t2) = (b.thread(), b.thread(), b.thread());
        let wx = b.write(t0, x, Relaxed, 1).unwrap();
        let wy = b.write(t0, y, Release, 1).unwrap();
        let (ur, uw) = b.rmw(t1, y, (Relaxed, Relaxed), 1, 2).unwrap();
        let ry = b.read(t2, y, Acquire, 2).unwrap();
        let rx = b.read(t2, x, Relaxed, 1).unwrap();
        b.reads_from(ur, wy).unwrap();
        b.reads_from(ry, uw).unwrap();
        b.reads_from(rx, wx).unwrap();
        let g = b.build();
        let rel = Relations::of(&g);
        assert!(rel.rs.contains(wy, uw));
        assert!(rel.sw.contains(wy, ry));
        assert!(
            !rel.sw.contains(wy, ur),
            "a relaxed update does not acquire"
        );
        assert!(rel.hb.contains(wx, rx));
    }

    /// The release fence before a relaxed store and the acquire fence after
    /// a relaxed load synchronise with each other (fence-fence sw).
    #[test]
    fn fences_synchronise_through_relaxed_accesses() {
        let mut b = GraphBuilder::new();
        let y = b.location("y", 0);
        let (t0, t1) = (b.thread(), b.thread());
        let f0 = b.fence(t0, Release).unwrap();
        let w = b.write(t0, y, Relaxed, 1).unwrap();
        let r = b.read(t1, y, Relaxed, 1).unwrap();
        let f1 = b.fence(t1, Acquire).unwrap();
        b.reads_from(r, w).unwrap();
        let rel = Relations::of(&b.build());
        assert!(rel.sw.contains(f0, f1));
        assert!(!rel.sw.contains(w, r));
    }

    #[test]
    fn spawn_and_join_order_the_threads() {
        let mut b = GraphBuilder::new();
        let x = b.location("x", 0);
        let (main, child) = (b.thread(), b.thread());
        let before = b.write(main, x, NonAtomic, 1).unwrap();
        b.spawn(main, child).unwrap();
        let inside = b.write(child, x, NonAtomic, 2).unwrap();
        b.join(main, child).unwrap();
        let after = b.read(main, x, NonAtomic, 2).unwrap();
        b.reads_from(after, inside).unwrap();
        let rel = Relations::of(&b.build());
        assert!(rel.hb.contains(before, inside) && rel.hb.contains(inside, after));
        assert!(
            !rel.po.contains(before, inside),
            "spawn is not program order"
        );
    }
}
