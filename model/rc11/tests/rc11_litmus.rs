//! The classic litmus tests under RC11 and SC, with exact execution counts.
//!
//! An execution is a graph: events, rf and mo. Every count below follows
//! from the candidates (one rf choice per read among the writes to its
//! location, one mo order per location) and the axiom that removes some of
//! them, said in a comment. Each test also checks that the three
//! enumerations agree (`agreeing`): the po ∪ rf construction, every rf/mo
//! candidate (for programs of fixed shape), and, for SC, the interleavings.

use reach_rc11::litmus::{Op, Order, Order::*, Program};
use reach_rc11::{enumerate, enumerate_candidates, interleavings, Enumeration, Model};

/// RC11 and SC executions of `p`, after checking that each enumeration
/// gives each execution once and that they agree: the construction and the full candidate set give the same RC11
/// and SC executions, the SC ones are the interleavings', and every SC
/// execution is an RC11 one.
fn agreeing(p: &Program) -> (Enumeration, Enumeration) {
    let rc11 = enumerate(p, Model::Rc11).expect("a valid program");
    let sc = enumerate(p, Model::Sc).expect("a valid program");
    let inter = interleavings(p).expect("a valid program");
    for e in [&rc11, &sc, &inter] {
        assert_eq!(e.graphs().len(), e.len(), "each execution once");
    }
    assert_eq!(sc.graphs(), inter.graphs(), "SC = the interleavings");
    assert!(sc.graphs().is_subset(&rc11.graphs()), "SC ⊆ RC11");
    if p.has_fixed_shape() {
        let all = enumerate_candidates(p, Model::Rc11).expect("a valid program");
        assert_eq!(
            rc11.graphs(),
            all.graphs(),
            "RC11: construction = all candidates"
        );
        let all_sc = enumerate_candidates(p, Model::Sc).expect("a valid program");
        assert_eq!(
            sc.graphs(),
            all_sc.graphs(),
            "SC: construction = all candidates"
        );
    }
    (rc11, sc)
}

/// The number of RC11 executions, and whether `outcome` is among them.
fn rc11(p: &Program, outcome: &[(&str, i64)]) -> (usize, bool) {
    let (rc11, _) = agreeing(p);
    (rc11.len(), rc11.allows(outcome))
}

// ---- SB: store buffering ------------------------------------------------

/// x = 1; r0 = y ‖ y = 1; r1 = x. Four candidates (each load reads 0 or 1).
fn sb(store: Order, load: Order) -> Program {
    Program::new()
        .thread([Op::store("x", 1, store), Op::load("y", load).to("r0")])
        .thread([Op::store("y", 1, store), Op::load("x", load).to("r1")])
}

/// The anchors: relaxed SB allows r0 = r1 = 0, so all 4 candidates
/// are consistent; with seq_cst the four accesses close a psc cycle
/// (po; rb; po; rb), leaving 3. Release/acquire does not help (4).
#[test]
fn store_buffering() {
    let both_zero = [("r0", 0), ("r1", 0)];
    assert_eq!(rc11(&sb(Relaxed, Relaxed), &both_zero), (4, true));
    assert_eq!(rc11(&sb(Release, Acquire), &both_zero), (4, true));
    assert_eq!(rc11(&sb(SeqCst, SeqCst), &both_zero), (3, false));
    let (_, sc) = agreeing(&sb(Relaxed, Relaxed));
    assert_eq!((sc.len(), sc.allows(&both_zero)), (3, false));
}

/// Relaxed SB with a seq_cst fence between store and load in both threads:
/// psc_F orders each fence before the other (hb; eco; hb through the other
/// thread's rb), a cycle: 3. One fence alone, or acq_rel fences, leave 4.
#[test]
fn store_buffering_with_fences() {
    let fenced = |f0: Option<Order>, f1: Option<Order>| {
        let thread = |x: &str, y: &str, r: &str, f: Option<Order>| {
            let mut ops = vec![Op::store(x, 1, Relaxed)];
            ops.extend(f.map(Op::fence));
            ops.push(Op::load(y, Relaxed).to(r));
            ops
        };
        Program::new()
            .thread(thread("x", "y", "r0", f0))
            .thread(thread("y", "x", "r1", f1))
    };
    let both_zero = [("r0", 0), ("r1", 0)];
    assert_eq!(
        rc11(&fenced(Some(SeqCst), Some(SeqCst)), &both_zero),
        (3, false)
    );
    assert_eq!(rc11(&fenced(Some(SeqCst), None), &both_zero), (4, true));
    assert_eq!(
        rc11(&fenced(Some(AcqRel), Some(AcqRel)), &both_zero),
        (4, true)
    );
}

// ---- MP: message passing ------------------------------------------------

/// data = 1; flag = 1 ‖ r0 = flag; r1 = data: four candidates.
fn mp(data: Order, store: Order, load: Order) -> Program {
    Program::new()
        .thread([Op::store("data", 1, data), Op::store("flag", 1, store)])
        .thread([
            Op::load("flag", load).to("r0"),
            Op::load("data", data_load(data)).to("r1"),
        ])
}

fn data_load(data: Order) -> Order {
    if data == SeqCst {
        SeqCst
    } else {
        Relaxed
    }
}

/// Relaxed MP allows flag = 1, data = 0 (4 executions). A release store
/// read by an acquire load synchronises, so data = 1 happens before the
/// data load, and reading 0 would be rb-after a write that happens before
/// it (coherence): 3. Consume is acquire. Release without acquire, or
/// acquire without release, does not synchronise: 4.
#[test]
fn message_passing() {
    let stale = [("r0", 1), ("r1", 0)];
    assert_eq!(rc11(&mp(Relaxed, Relaxed, Relaxed), &stale), (4, true));
    assert_eq!(rc11(&mp(Relaxed, Release, Acquire), &stale), (3, false));
    assert_eq!(rc11(&mp(Relaxed, Release, Consume), &stale), (3, false));
    assert_eq!(rc11(&mp(SeqCst, SeqCst, SeqCst), &stale), (3, false));
    assert_eq!(rc11(&mp(Relaxed, Release, Relaxed), &stale), (4, true));
    assert_eq!(rc11(&mp(Relaxed, Relaxed, Acquire), &stale), (4, true));
}

/// Relaxed MP with a release fence before the flag store and an acquire
/// fence after the flag load: the fences synchronise, 3.
#[test]
fn message_passing_with_fences() {
    let p = Program::new()
        .thread([
            Op::store("data", 1, Relaxed),
            Op::fence(Release),
            Op::store("flag", 1, Relaxed),
        ])
        .thread([
            Op::load("flag", Relaxed).to("r0"),
            Op::fence(Acquire),
            Op::load("data", Relaxed).to("r1"),
        ]);
    assert_eq!(rc11(&p, &[("r0", 1), ("r1", 0)]), (3, false));
}

/// The shape: the reader loads data only when it saw the flag, and
/// asserts it is 42. Relaxed: flag 0 (no data load), or flag 1 with data 0
/// or 42, 3 executions of which one fails. Release/acquire: 2, none fails,
/// as GenMC counts them.
#[test]
fn message_passing_with_an_assertion() {
    let p = |store, load| {
        Program::new()
            .thread([Op::store("data", 42, Relaxed), Op::store("flag", 1, store)])
            .thread([
                Op::load("flag", load).to("r0"),
                Op::load("data", Relaxed).when("r0", 1).expect(42),
            ])
    };
    let (relaxed, _) = agreeing(&p(Relaxed, Relaxed));
    assert_eq!((relaxed.len(), relaxed.failing()), (3, 1));
    let (ra, sc) = agreeing(&p(Release, Acquire));
    assert_eq!((ra.len(), ra.failing()), (2, 0));
    assert_eq!((sc.len(), sc.failing()), (2, 0));
    let (seq_cst, _) = agreeing(&p(SeqCst, SeqCst));
    assert_eq!((seq_cst.len(), seq_cst.failing()), (2, 0));
    assert_eq!(
        relaxed
            .executions
            .iter()
            .flat_map(|e| &e.failed_assertions)
            .collect::<Vec<_>>(),
        ["T1 op 1: data = 0, expected 42"]
    );
}

// ---- LB: load buffering -------------------------------------------------

/// r0 = y; x = 1 ‖ r1 = x; y = 1. Four candidates; r0 = r1 = 1 makes
/// po ∪ rf cyclic, and RC11's no-thin-air axiom forbids it whatever the
/// orders (C11 without that axiom allows it with relaxed accesses): 3.
#[test]
fn load_buffering() {
    let lb = |load, store| {
        Program::new()
            .thread([Op::load("y", load).to("r0"), Op::store("x", 1, store)])
            .thread([Op::load("x", load).to("r1"), Op::store("y", 1, store)])
    };
    let cycle = [("r0", 1), ("r1", 1)];
    for (load, store) in [(Relaxed, Relaxed), (Acquire, Release), (SeqCst, SeqCst)] {
        assert_eq!(rc11(&lb(load, store), &cycle), (3, false));
        let all = enumerate_candidates(&lb(load, store), Model::Rc11).expect("valid");
        assert_eq!(
            all.candidates, 4,
            "the cyclic candidate is built and rejected"
        );
    }
}

// ---- IRIW: independent reads of independent writes ----------------------

/// x = 1 ‖ y = 1 ‖ a = x; b = y ‖ c = y; d = x: 16 candidates.
fn iriw(store: Order, load: Order, fence: Option<Order>) -> Program {
    let reader = |first: &str, second: &str, r1: &str, r2: &str| {
        let mut ops = vec![Op::load(first, load).to(r1)];
        ops.extend(fence.map(Op::fence));
        ops.push(Op::load(second, load).to(r2));
        ops
    };
    Program::new()
        .thread([Op::store("x", 1, store)])
        .thread([Op::store("y", 1, store)])
        .thread(reader("x", "y", "a", "b"))
        .thread(reader("y", "x", "c", "d"))
}

/// The anchors: relaxed and release/acquire IRIW let the readers
/// see the writes in opposite orders (all 16 consistent); seq_cst forbids
/// a = 1, b = 0, c = 1, d = 0 (psc: hb|loc; po; rb around both readers): 15.
/// Relaxed reads with a seq_cst fence between them: psc_F, 15.
#[test]
fn independent_reads_of_independent_writes() {
    let disagree = [("a", 1), ("b", 0), ("c", 1), ("d", 0)];
    assert_eq!(rc11(&iriw(Relaxed, Relaxed, None), &disagree), (16, true));
    assert_eq!(rc11(&iriw(Release, Acquire, None), &disagree), (16, true));
    assert_eq!(rc11(&iriw(SeqCst, SeqCst, None), &disagree), (15, false));
    assert_eq!(
        rc11(&iriw(Relaxed, Relaxed, Some(SeqCst)), &disagree),
        (15, false)
    );
}

// ---- WRC: write-to-read causality --------------------------------------

/// x = 1 ‖ r0 = x; y = 1 ‖ r1 = y; r2 = x: 8 candidates, all relaxed-
/// consistent. With release stores and acquire loads, r0 = r1 = 1 makes
/// x = 1 happen before the last load, which cannot then read 0: 7.
#[test]
fn write_to_read_causality() {
    let wrc = |store, load| {
        Program::new()
            .thread([Op::store("x", 1, store)])
            .thread([Op::load("x", load).to("r0"), Op::store("y", 1, store)])
            .thread([Op::load("y", load).to("r1"), Op::load("x", load).to("r2")])
    };
    let stale = [("r0", 1), ("r1", 1), ("r2", 0)];
    assert_eq!(rc11(&wrc(Relaxed, Relaxed), &stale), (8, true));
    assert_eq!(rc11(&wrc(Release, Acquire), &stale), (7, false));
    assert_eq!(rc11(&wrc(SeqCst, SeqCst), &stale), (7, false));
}

// ---- 2+2W ---------------------------------------------------------------

/// x = 1; y = 2 ‖ y = 1; x = 2: no reads, two writes per location, 4 mo
/// candidates. Ending with x = 1 and y = 1 needs x = 2 mo-before x = 1 and
/// y = 2 before y = 1: with seq_cst that is a psc cycle (po; mo; po; mo),
/// 3; relaxed and release writes allow it, 4.
#[test]
fn two_plus_two_writes() {
    let w = |o| {
        Program::new()
            .thread([Op::store("x", 1, o), Op::store("y", 2, o)])
            .thread([Op::store("y", 1, o), Op::store("x", 2, o)])
    };
    let both_first = [("x", 1), ("y", 1)];
    assert_eq!(rc11(&w(Relaxed), &both_first), (4, true));
    assert_eq!(rc11(&w(Release), &both_first), (4, true));
    assert_eq!(rc11(&w(SeqCst), &both_first), (3, false));
}

// ---- R ------------------------------------------------------------------

/// x = 1; y = 1 ‖ y = 2; r0 = x: 2 rf × 2 mo = 4 candidates. Ending with
/// y = 2 (y = 1 mo-first) and r0 = 0 is a psc cycle with seq_cst
/// (po; mo; po; rb), and with relaxed accesses and seq_cst fences after the
/// first access of each thread (psc_F both ways): 3. Otherwise 4.
#[test]
fn r() {
    let r = |o: Order, fence: Option<Order>| {
        let mut t0 = vec![Op::store("x", 1, o)];
        t0.extend(fence.map(Op::fence));
        t0.push(Op::store("y", 1, o));
        let mut t1 = vec![Op::store("y", 2, o)];
        t1.extend(fence.map(Op::fence));
        t1.push(Op::load("x", if o == Release { Acquire } else { o }).to("r0"));
        Program::new().thread(t0).thread(t1)
    };
    let weak = [("y", 2), ("r0", 0)];
    assert_eq!(rc11(&r(Relaxed, None), &weak), (4, true));
    assert_eq!(rc11(&r(Release, None), &weak), (4, true));
    assert_eq!(rc11(&r(SeqCst, None), &weak), (3, false));
    assert_eq!(rc11(&r(Relaxed, Some(SeqCst)), &weak), (3, false));
}

// ---- S ------------------------------------------------------------------

/// x = 2; y = 1 ‖ r0 = y; x = 1: 2 rf × 2 mo = 4 candidates. With y
/// released and acquired, r0 = 1 makes x = 2 happen before x = 1, which
/// coherence puts mo-after it: ending with x = 2 is gone, 3. Relaxed: 4.
#[test]
fn s() {
    let s = |store, load| {
        Program::new()
            .thread([Op::store("x", 2, Relaxed), Op::store("y", 1, store)])
            .thread([Op::load("y", load).to("r0"), Op::store("x", 1, Relaxed)])
    };
    let weak = [("r0", 1), ("x", 2)];
    assert_eq!(rc11(&s(Relaxed, Relaxed), &weak), (4, true));
    assert_eq!(rc11(&s(Release, Acquire), &weak), (3, false));
    assert_eq!(rc11(&s(SeqCst, SeqCst), &weak), (3, false));
}

// ---- Coherence and atomicity --------------------------------------------

/// Coherence holds even for relaxed accesses: two loads of x in one thread
/// cannot see x = 1 and then x = 0 (CoRR, 3 of 4), and two stores of one
/// thread stay in program order in mo (CoWW, 1 of 2).
#[test]
fn coherence_of_relaxed_accesses() {
    let corr = Program::new().thread([Op::store("x", 1, Relaxed)]).thread([
        Op::load("x", Relaxed).to("r0"),
        Op::load("x", Relaxed).to("r1"),
    ]);
    assert_eq!(rc11(&corr, &[("r0", 1), ("r1", 0)]), (3, false));
    let coww = Program::new().thread([Op::store("x", 1, Relaxed), Op::store("x", 2, Relaxed)]);
    assert_eq!(rc11(&coww, &[("x", 1)]), (1, false));
}

/// Two relaxed increments: each reads the write mo-just before its own
/// (atomicity), so they never both read 0 and x ends at 2, in 2 executions
/// (one per order) of 3 × 3 rf × 2 mo = 18 candidates. Two compare-and-swaps
/// of 0 to 1: one succeeds, the other fails reading 1, 2 executions.
#[test]
fn updates_are_atomic() {
    let inc = Program::new()
        .thread([Op::fetch_add("x", 1, Relaxed).to("a")])
        .thread([Op::fetch_add("x", 1, Relaxed).to("b")]);
    let (rc11, _) = agreeing(&inc);
    assert_eq!(rc11.len(), 2);
    assert!(rc11
        .executions
        .iter()
        .all(|e| e.outcome.get("x") == Some(2)));
    let all = enumerate_candidates(&inc, Model::Rc11).expect("valid");
    assert_eq!(all.candidates, 18);
    let cas = Program::new()
        .thread([Op::cas("x", 0, 1, Relaxed, Relaxed).to("a")])
        .thread([Op::cas("x", 0, 1, Relaxed, Relaxed).to("b")]);
    let (rc11, _) = agreeing(&cas);
    assert_eq!(rc11.len(), 2);
    assert!(!rc11.allows(&[("a", 0), ("b", 0)]));
    assert!(rc11.allows(&[("a", 0), ("b", 1)]) && rc11.allows(&[("a", 1), ("b", 0)]));
}

// ---- Release sequences --------------------------------------------------

/// data = 1; flag = 1 (release) ‖ fetch_add(flag, 1) (relaxed) ‖
/// r0 = flag (acquire); r1 = data. The increment continues the release
/// sequence, so reading 2 synchronises with the release store and r1 = 1.
/// Count: the increment reads 0 (mo: init, inc, store; r0 reads 0, 1 from
/// the increment, or 1 from the store: 2 + 2 + 1) or 1 (mo: init, store,
/// inc; r0 reads 0, 1 or 2: 2 + 1 + 1): 9.
/// With a plain relaxed store of 2 in place of the increment, reading 2
/// does not synchronise, and r0 = 2, r1 = 0 is allowed.
#[test]
fn release_sequences_continue_through_updates_only() {
    let p = |middle: Op| {
        Program::new()
            .thread([Op::store("data", 1, Relaxed), Op::store("flag", 1, Release)])
            .thread([middle])
            .thread([
                Op::load("flag", Acquire).to("r0"),
                Op::load("data", Relaxed).to("r1"),
            ])
    };
    let stale = [("r0", 2), ("r1", 0)];
    assert_eq!(
        rc11(&p(Op::fetch_add("flag", 1, Relaxed)), &stale),
        (9, false)
    );
    let (plain, _) = agreeing(&p(Op::store("flag", 2, Relaxed)));
    assert!(plain.allows(&stale));
}

/// RC11 keeps C11's same-thread part of release sequences (po|loc): a
/// relaxed store after the release store in the same thread carries its
/// synchronisation. mo is program order; r0 reads 0 (r1 free), 1 or 2
/// (r1 = 1): 4, and r0 = 2, r1 = 0 is forbidden.
#[test]
fn release_sequences_include_later_stores_of_the_same_thread() {
    let p = Program::new()
        .thread([
            Op::store("data", 1, Relaxed),
            Op::store("flag", 1, Release),
            Op::store("flag", 2, Relaxed),
        ])
        .thread([
            Op::load("flag", Acquire).to("r0"),
            Op::load("data", Relaxed).to("r1"),
        ]);
    assert_eq!(rc11(&p, &[("r0", 2), ("r1", 0)]), (4, false));
}

// ---- Plain accesses, races, threads -------------------------------------

/// Plain data published with a relaxed flag races with the reader's data
/// load; with release/acquire, the load happens after the store: no race.
#[test]
fn unsynchronised_plain_data_races() {
    let p = |store, load| {
        Program::new()
            .thread([Op::plain_store("data", 1), Op::store("flag", 1, store)])
            .thread([
                Op::load("flag", load).to("r0"),
                Op::plain_load("data").when("r0", 1).to("r1"),
            ])
    };
    let (relaxed, _) = agreeing(&p(Relaxed, Relaxed));
    assert!(relaxed.racy());
    let (ra, _) = agreeing(&p(Release, Acquire));
    assert!(!ra.racy());
    assert_eq!(ra.len(), 2);
}

/// Spawn and join order plain accesses: the child sees the parent's
/// store before the spawn, the parent sees the child's after the join,
/// one execution and no race. Without the join, the parent's load races
/// with the child's store and reads either value.
#[test]
fn spawn_and_join_synchronise() {
    let p = |join: bool| {
        let mut main = vec![Op::plain_store("x", 1), Op::spawn(1)];
        if join {
            main.push(Op::join(1));
        }
        main.push(Op::plain_load("x").to("r0"));
        Program::new()
            .thread(main)
            .thread([Op::plain_load("x").to("r1"), Op::plain_store("x", 2)])
    };
    let (joined, _) = agreeing(&p(true));
    assert_eq!(joined.len(), 1);
    assert!(joined.allows(&[("r0", 2), ("r1", 1)]) && !joined.racy());
    let (unjoined, _) = agreeing(&p(false));
    assert!(unjoined.racy());
    assert!(unjoined.allows(&[("r0", 1)]) && unjoined.allows(&[("r0", 2)]));
}

/// Seq_cst accesses on both sides of a spawn are SC-ordered through it:
/// the store before the spawn and the child's load are `po|≠loc; hb;
/// po|≠loc` related through the spawn and the child's start, so SB split
/// over a spawned thread keeps SC: r0 = r1 = 0 would close the psc cycle
/// store x → load y (child) → rb store y → po load x → rb store x. 3 of 4,
/// the SC executions.
#[test]
fn seq_cst_accesses_are_ordered_through_a_spawn() {
    let p = Program::new()
        .thread([Op::store("x", 1, SeqCst), Op::spawn(1)])
        .thread([Op::load("y", SeqCst).to("r0")])
        .thread([Op::store("y", 1, SeqCst), Op::load("x", SeqCst).to("r1")]);
    let (rc11, sc) = agreeing(&p);
    assert_eq!(rc11.graphs(), sc.graphs());
    assert_eq!(rc11.len(), 3);
    assert!(!rc11.allows(&[("r0", 0), ("r1", 0)]));
}

/// One attempt at Peterson's lock by each of two threads (flag, turn,
/// optional `seq_cst` fence, then the other's flag and the turn), as
/// `c-examples/mm_peterson.c` runs it: the outcomes in which both enter.
fn peterson_both_inside(turn_by_exchange: bool, fence: bool) -> usize {
    let thread = |me: i64, flag: &str, other_flag: &str, a: &str, b: &str| {
        let turn = if turn_by_exchange {
            Op::exchange("turn", 1 - me, AcqRel)
        } else {
            Op::store("turn", 1 - me, Release)
        };
        let mut ops = vec![Op::store(flag, 1, Release), turn];
        if fence {
            ops.push(Op::fence(SeqCst));
        }
        ops.push(Op::load(other_flag, Acquire).to(a));
        ops.push(Op::load("turn", Acquire).to(b));
        ops
    };
    let p = Program::new()
        .thread(thread(0, "f0", "f1", "a", "b"))
        .thread(thread(1, "f1", "f0", "c", "d"));
    let e = enumerate(&p, Model::Rc11).expect("a valid program");
    e.outcomes()
        .iter()
        .filter(|o| {
            (o.get("a") == Some(0) || o.get("b") == Some(0))
                && (o.get("c") == Some(0) || o.get("d") == Some(1))
        })
        .count()
}

/// Peterson with release/acquire flags and turn lets both threads in, and
/// still does with a `seq_cst` fence (it orders the flags, not the two
/// turn stores); the turn given by an `acq_rel` exchange keeps one out.
#[test]
fn peterson_needs_the_turn_exchanged() {
    assert!(peterson_both_inside(false, false) > 0);
    assert_eq!(peterson_both_inside(false, true), 2);
    assert_eq!(peterson_both_inside(true, false), 0);
    assert_eq!(peterson_both_inside(true, true), 0);
}
