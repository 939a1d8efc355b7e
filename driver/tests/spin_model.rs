//! The default search's engine (optimal DPOR) on simulated programs of
//! busy-waiting shapes (`model::spin`): yields, compare-and-swaps that
//! fail, exchanges that write the value already there, retry loops with a
//! yield or a spin hint, an exchange lock and await loops. It must run
//! exactly the partial orders of the exhaustive oracle (which runs every
//! interleaving, without spin holds), each once, never be blocked by its
//! sleep set and never ask for a step the program cannot take, both
//! without and with the runtime's spin holds (a thread that announced
//! busy-waiting is left out of the enabled set while another thread can
//! run, and runs when a prefix asks for it). The default search's PCT
//! share runs apart and never feeds it (`random_share`), so the engine is
//! what decides completeness.

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
        missing == 0 && invented == 0,
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
/// oracle's partial orders, and the executions optimal DPOR ran beyond one
/// per partial order and blocked await (a race reversed for a
/// compare-and-swap or exchange that turns out to fail, a read, may give
/// a partial order already run).
fn check_both(mut model: SpinModel) -> (usize, usize) {
    model.holds = false;
    let oracle = explore_spin(&model, &mut Exhaustive::default());
    let mut redundant = 0;
    for holds in [false, true] {
        model.holds = holds;
        let optimal = check(&model, &oracle);
        redundant += optimal.executions - optimal.await_blocked - optimal.orders.len();
    }
    (oracle.orders.len(), redundant)
}

#[test]
fn random_busy_waiting_programs_match_the_oracle() {
    let (mut checked, mut orders, mut redundant) = (0, 0, 0);
    for model in programs(0x243f_6a88_85a3_08d3, 1500) {
        let (found, again) = check_both(model);
        orders += found;
        redundant += again;
        checked += 1;
    }
    assert!(checked > 1000, "{checked}");
    eprintln!(
        "{checked} busy-waiting programs, {orders} partial orders, found with and without \
         spin holds; {redundant} executions repeated a partial order"
    );
}

/// A retry after a spin hint is held back while another thread can run;
/// its race with a later write must still be reversed where the trace
/// shows its thread held (optimal DPOR once treated the held thread as
/// unable to run there and ran 1 of the 4 partial orders).
#[test]
fn a_retry_held_back_after_a_spin_hint_is_still_reordered() {
    let model = SpinModel {
        threads: vec![
            vec![Inst::CasRetryPause(X, 1, 1), Inst::Cas(Y, 0, 0)],
            vec![
                Inst::Cas(Y, 1, 1),
                Inst::CasRetryPause(X, 1, 1),
                Inst::XchgLock(Y),
            ],
        ],
        holds: true,
    };
    assert_eq!(check_both(model).0, 4);
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
/// reloads the expected value), as in `oracle_cas_counter.c` with three
/// threads: optimal DPOR and reachability testing run the oracle's
/// partial orders (48 with one increment each, 272 when one thread
/// increments twice).
#[test]
fn compare_and_swap_increments_match_the_oracle() {
    use reach_native::strategy::rt::ReachabilityTesting;
    for (twice, expected) in [(false, 48), (true, 272)] {
        let mut threads = vec![vec![Inst::CasInc(X)]; 3];
        if twice {
            threads[0].push(Inst::CasInc(X));
        }
        let model = SpinModel {
            threads,
            holds: false,
        };
        let oracle = explore_spin(&model, &mut Exhaustive::default());
        assert_eq!(oracle.orders.len(), expected);
        check(&model, &oracle);
        let rt = explore_spin(&model, &mut ReachabilityTesting::new());
        assert_eq!(rt.orders, oracle.orders, "rt in\n{}", describe_spin(&model));
    }
}
