//! One example per strategy, for the quick `make check`: every strategy
//! finds an atomicity violation, every complete strategy explores the same
//! partial orders of a correct program and says the search is complete,
//! and the branch-directed search finds a lockset race on a traced build.

use reach_tests::{build_example, build_source_as, reach};

/// Strategies whose search is complete: each explores every partial order
/// of a terminating program (some more than once).
const COMPLETE: &[&str] = &[
    "optimal",
    "dpor",
    "dpor-cr",
    "dpor-classic",
    "exhaustive",
    "rt",
    "unfold",
];

/// Randomised strategies, run with a fixed seed.
const RANDOMISED: &[&str] = &["pct", "random", "portfolio"];

/// Distinct partial orders of `mutex_counter.c` with 3 threads, each
/// incrementing a counter in one critical section: the 3! orders of the
/// sections.
const MUTEX_COUNTER_ORDERS: u64 = 6;

#[test]
fn every_strategy_finds_a_check_then_act_violation() {
    let program = build_example("oracle_check_then_act.c");
    for strategy in COMPLETE.iter().chain(RANDOMISED) {
        let run = reach(
            &program,
            &[
                "--strategy",
                strategy,
                "--seed",
                "1",
                "--max-executions",
                "2000",
            ],
            &[],
        );
        assert_eq!(run.code, 1, "{strategy}: {}\n{}", run.stdout, run.stderr);
        assert_eq!(
            run.bug_kind().as_deref(),
            Some("assertion"),
            "{strategy}: {}",
            run.stdout
        );
    }
}

#[test]
fn complete_strategies_explore_the_same_partial_orders() {
    let program = build_example("mutex_counter.c");
    for strategy in COMPLETE {
        let run = reach(&program, &["--strategy", strategy], &["3"]);
        assert_eq!(run.code, 0, "{strategy}: {}\n{}", run.stdout, run.stderr);
        assert!(run.complete(), "{strategy}: {}", run.stdout);
        assert_eq!(
            run.partial_orders(),
            MUTEX_COUNTER_ORDERS,
            "{strategy}: {}",
            run.stdout
        );
        assert!(
            run.executions() >= MUTEX_COUNTER_ORDERS,
            "{strategy}: {} executions",
            run.executions()
        );
    }
}

#[test]
fn branch_directed_search_finds_the_lockset_race() {
    let program = build_source_as(
        "c-examples/racy_counter.c",
        &["-O1", "-g"],
        "racy_counter.traced",
        true,
    );
    let run = reach(&program, &["--strategy", "branches"], &[]);
    assert_eq!(run.code, 1, "{}\n{}", run.stdout, run.stderr);
    assert_eq!(
        run.bug_kind().as_deref(),
        Some("data_race"),
        "{}",
        run.stdout
    );
}
