//! The default search's engine (optimal DPOR) on simulated programs of
//! busy-waiting shapes (`model::spin`): yields, compare-and-swaps that
//! fail, exchanges that write the value already there, retry loops with a
//! yield or a spin hint, an exchange lock and await loops. Without the
//! runtime's spin holds it must run exactly the partial orders of the
//! exhaustive oracle (which runs every interleaving), each once; with them
//! (a thread that announced busy-waiting is left out of the enabled set
//! while another thread can run, and runs when a prefix asks for it) only
//! partial orders the oracle has, never blocked by its sleep set, never
//! asking for a step the program cannot take. With holds it may miss the
//! orders that need a held spinner's yield moved before what released it
//! (optimal DPOR reverses a race of a held step itself, not of a step
//! after a held yield: that created executions differing only in how many
//! times a thread spun on std's channels). The default search's PCT share
//! runs apart and never feeds it (`random_share`), so the engine is what
//! decides completeness.

use crate::model;

use model::spin::{describe_spin, explore_spin, random_spin_model, Inst, SpinModel};
use model::{Rng, Run, X, Y};
use reach_native::strategy::exhaustive::Exhaustive;
use reach_native::strategy::optimal::OptimalDpor;

/// Random programs of 2 or 3 threads small enough for the oracle.
fn programs(seed: u64, count: usize) -> Vec<SpinModel> {
    let mut rng = Rng(seed);
    (0..count)
        .map(|_| {
            let threads = 2 + rng.below(2) as usize;
            random_spin_model(&mut rng, threads, if threads == 2 { 3 } else { 2 })
        })
        .filter(|m| m.max_events() <= 9)
        .collect()
}

/// Optimal DPOR on `model` against the oracle `oracle` (the same program
/// without holds, every interleaving); returns the optimal run.
fn check(model: &SpinModel, oracle: &Run) -> Run {
    let optimal = explore_spin(model, &mut OptimalDpor::new());
    let missing = oracle.orders.difference(&optimal.orders).count();
    let invented = optimal.orders.difference(&oracle.orders).count();
    assert!(
        (missing == 0 || model.holds) && invented == 0,
        "optimal misses {missing} and invents {invented} of {} partial orders of\n{}",
        oracle.orders.len(),
        describe_spin(model)
    );
    assert_eq!(
        optimal.sleep_blocked,
        0,
        "optimal was blocked by a sleep set in\n{}",
        describe_spin(model)
    );
    optimal
}

/// Explores `model` without and with the runtime's spin holds: the
/// oracle's partial orders, those optimal DPOR found with holds, and the
/// executions it ran beyond one per partial order and blocked await (a
/// race reversed for a compare-and-swap or exchange that turns out to
/// fail, a read, may give a partial order already run).
fn check_both(mut model: SpinModel) -> (usize, usize, usize) {
    model.holds = false;
    let oracle = explore_spin(&model, &mut Exhaustive::default());
    let (mut redundant, mut held) = (0, 0);
    for holds in [false, true] {
        model.holds = holds;
        let optimal = check(&model, &oracle);
        redundant += optimal.executions - optimal.await_blocked - optimal.orders.len();
        held = optimal.orders.len();
    }
    (oracle.orders.len(), held, redundant)
}

#[test]
fn random_busy_waiting_programs_match_the_oracle() {
    let (mut checked, mut orders, mut held, mut redundant) = (0, 0, 0, 0);
    for model in programs(0x243f_6a88_85a3_08d3, 1500) {
        let (found, with_holds, again) = check_both(model);
        orders += found;
        held += with_holds;
        redundant += again;
        checked += 1;
    }
    assert!(checked > 1000, "{checked}");
    eprintln!(
        "{checked} busy-waiting programs, {orders} partial orders without spin holds, \
         {held} with them; {redundant} executions repeated a partial order"
    );
}

/// A compare-and-swap retried after a spin hint is held back until the
/// write it waits for; its second try still goes before that write in
/// another execution, where both tries fail and the loop gives up (optimal
/// DPOR once treated the held thread as unable to run there and ran 4 of
/// the 6 partial orders).
#[test]
fn a_retry_held_back_after_a_spin_hint_is_still_reordered() {
    let model = SpinModel {
        threads: vec![
            vec![Inst::CasRetryPause(X, 1, 0), Inst::Load(Y)],
            vec![Inst::Store(X, 1), Inst::Store(Y, 1)],
        ],
        holds: false,
    };
    let oracle = explore_spin(&model, &mut Exhaustive::default());
    assert_eq!(oracle.orders.len(), 6);
    let model = SpinModel {
        holds: true,
        ..model
    };
    let optimal = check(&model, &oracle);
    assert_eq!(optimal.orders, oracle.orders);
}

/// An await loop whose iteration failed parks its thread for good; the
/// execution is blocked, not a behaviour, when the awaited write came
/// later, and the search reaches the order in which the loop reads it.
#[test]
fn an_await_loop_reads_the_write_in_another_execution() {
    let model = SpinModel {
        threads: vec![
            vec![Inst::AwaitEq(X, 1), Inst::Store(Y, 1)],
            vec![Inst::Store(X, 1), Inst::Load(Y)],
        ],
        holds: true,
    };
    let oracle = explore_spin(&model, &mut Exhaustive::default());
    let optimal = check(&model, &oracle);
    assert_eq!(oracle.orders.len(), 2);
    assert_eq!(optimal.await_blocked, 1);
}

/// Compare-and-swap increments retried until they succeed (a failed one
/// reloads the expected value), as in `oracle_cas_counter.c`, three
/// threads: reachability testing runs optimal DPOR's partial orders (272
/// when one thread increments twice, 1264 when it increments three
/// times, 2336 when two threads increment twice). E1 looks for the link
/// that closes a tangled cycle in the full happens-before, in which a
/// read (a load, a failed compare-and-swap) precedes the later writes of
/// its variable; in the value relation, which leaves those edges out, RT
/// ran 1258 of the 1264 and 2303 of the 2336, and said it was complete.
#[test]
fn compare_and_swap_increments_match_optimal() {
    use reach_native::strategy::rt::ReachabilityTesting;
    use reach_native::strategy::Strategy;
    for (counts, expected) in [([2, 1, 1], 272), ([3, 1, 1], 1264), ([2, 2, 1], 2336)] {
        let threads: Vec<Vec<Inst>> = counts.iter().map(|&n| vec![Inst::CasInc(X); n]).collect();
        let model = SpinModel {
            threads,
            holds: false,
        };
        let optimal = explore_spin(&model, &mut OptimalDpor::new());
        assert_eq!(optimal.orders.len(), expected);
        let mut strategy = ReachabilityTesting::new();
        let rt = explore_spin(&model, &mut strategy);
        let missed = optimal.orders.difference(&rt.orders).count();
        let invented = rt.orders.difference(&optimal.orders).count();
        assert_eq!(
            (missed, invented),
            (0, 0),
            "rt missed and invented orders of\n{}",
            describe_spin(&model)
        );
        assert_eq!(strategy.incomplete(), None, "{}", describe_spin(&model));
    }
}

/// Compare-and-swap increments of one counter (as in
/// `compare_and_swap_increments_match_optimal`), thread 1 twice and threads
/// 2, 3, 4 once each: source DPOR (`Dpor::new(true)`, the same relation,
/// reads commuting) runs 18,816 partial orders, optimal DPOR 18,240 and
/// ends as if complete. One missed order, in the state `N8` where thread 1
/// loaded 0, thread 2 loaded 0, thread 1's compare-and-swap wrote 1 and
/// thread 1 loaded 1 (pending: 1's compare-and-swap, which succeeds; 2's,
/// which fails, a read; 3's and 4's loads): threads 3 and 4 load 1 before
/// 1's second compare-and-swap, after which 2's fails reading 2. At `N8`
/// the branches run 1, 2, 3, 4. In branch 2, the race of 2's failed
/// compare-and-swap with 1's is reversed to `[3.L 4.L 1.C]`, which
/// `insert_[E]` (Sec. 6.2) drops: the leaf `[3.L]`, inserted from branch
/// 1, is a weak prefix of it (it went to the right of 2's leaf, which holds
/// 2's compare-and-swap as the call, a possible write; it ran as a failed
/// one, a read). Branch 3 starts with sleep set `{2}` (2's
/// failed compare-and-swap commutes with 3's load), and below its first
/// step the reversal `[4.L]` (4's load before 1's or 3's compare-and-swap)
/// is dropped because the sleeping thread 2 is a weak initial of it
/// (Algorithm 2, line 6). What branch 2 explores has 2's compare-and-swap
/// fail reading 1, a try the missed order does not have.
#[test]
#[ignore = "optimal DPOR misses 576 partial orders here (docs/limits.md)"]
fn compare_and_swap_increments_of_four_threads_match_source_dpor() {
    use reach_native::strategy::dpor::Dpor;
    let model = SpinModel {
        threads: [2, 1, 1, 1]
            .iter()
            .map(|&n| vec![Inst::CasInc(X); n])
            .collect(),
        holds: false,
    };
    let source = explore_spin(&model, &mut Dpor::new(true));
    assert_eq!(source.orders.len(), 18_816);
    let optimal = explore_spin(&model, &mut OptimalDpor::new());
    let missed = source.orders.difference(&optimal.orders).count();
    let invented = optimal.orders.difference(&source.orders).count();
    assert_eq!(
        (missed, invented),
        (0, 0),
        "optimal DPOR missed and invented orders of\n{}",
        describe_spin(&model)
    );
    assert_eq!(optimal.executions, 18_816);
}
