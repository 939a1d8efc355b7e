//! The benchmark programs other model checkers publish counts for
//! (`benches/peers/`, built at `-O0` with the size as `-DN=`): the number
//! of behaviours (partial orders, reads commuting) must equal the published
//! one, and `--strategy optimal` must run one execution per behaviour,
//! never blocked by a sleep set. `main` returns without joining in most of
//! them: the process exit must not multiply the orders.

use reach_tests::{build_source, reach};

/// Builds `benches/peers/<name>.c` with `-DN=n`, explores it with
/// `strategy` and returns (executions, partial orders, sleep-blocked).
fn explore(name: &str, n: u32, strategy: &str) -> (u64, u64, u64) {
    let define = format!("-DN={n}");
    let program = build_source(
        &format!("benches/peers/{name}.c"),
        &["-O0", "-g", &define],
        &format!("peer_{name}_{n}"),
    );
    let run = reach(
        &program,
        &["--strategy", strategy, "--stats", "--ignore-races"],
        &[],
    );
    assert!(run.complete(), "{name}({n}) {strategy}: {}", run.stderr);
    assert!(run.json["bug"].is_null(), "{name}({n}): {}", run.stdout);
    let blocked = run.json["sleep_blocked"].as_u64().unwrap_or(u64::MAX);
    (run.executions(), run.partial_orders(), blocked)
}

/// Optimal DPOR: exactly one execution per published behaviour.
fn optimal(name: &str, n: u32, behaviours: u64) {
    let (executions, orders, blocked) = explore(name, n, "optimal");
    assert_eq!(orders, behaviours, "{name}({n}) behaviours");
    assert_eq!(executions, behaviours, "{name}({n}) executions");
    assert_eq!(blocked, 0, "{name}({n}) sleep-blocked executions");
}

#[test]
fn lastzero() {
    optimal("lastzero", 5, 64);
}

#[test]
fn fib_bench() {
    optimal("fib_bench", 3, 1_698);
}

#[test]
fn indexer() {
    optimal("indexer", 12, 8);
    optimal("indexer", 13, 64);
}

/// The File System benchmark (`c-examples/filesystem.c`, N threads as its
/// argument): 2^(N-13) behaviours, one execution each.
#[test]
fn filesystem() {
    let program = reach_tests::build_example("filesystem.c");
    for (n, behaviours) in [("14", 2), ("16", 8), ("18", 32)] {
        let run = reach(
            &program,
            &["--strategy", "optimal", "--stats", "--ignore-races"],
            &[n],
        );
        assert!(run.complete(), "filesystem({n}): {}", run.stderr);
        assert!(run.json["bug"].is_null(), "filesystem({n}): {}", run.stdout);
        assert_eq!(
            run.partial_orders(),
            behaviours,
            "filesystem({n}) behaviours"
        );
        assert_eq!(run.executions(), behaviours, "filesystem({n}) executions");
    }
}

#[test]
fn readers() {
    optimal("readers", 2, 4);
    optimal("readers", 8, 256);
}

/// The default DPOR reaches the same behaviours with more executions: on
/// lastzero some are cut short by sleep sets.
#[test]
fn dpor_counts_the_same_behaviours() {
    assert_eq!(explore("lastzero", 5, "dpor"), (79, 64, 15));
    assert_eq!(explore("fib_bench", 3, "dpor"), (1_698, 1_698, 0));
}

/// Reachability testing with an exit that waits for the other threads:
/// the exit is never forced by a variant's prefix, and every behaviour of
/// lastzero is exercised once.
#[test]
fn rt_leaves_the_exit_to_the_end() {
    assert_eq!(explore("lastzero", 5, "rt"), (64, 64, 0));
}

/// Compare-and-swap chains: one execution per behaviour, the published 43
/// and 523. A compare-and-swap that failed where its thread was explored is
/// a read in the wakeup-tree and sleep-set checks (as a pending call it
/// would count as a write). dpor runs some orders more than once: pinned to
/// notice a change either way.
#[test]
fn casrot_behaviours() {
    optimal("casrot", 5, 43);
    optimal("casrot", 7, 523);
    let (dpor_executions, dpor_orders, _) = explore("casrot", 5, "dpor");
    assert_eq!(dpor_orders, 43);
    assert_eq!(dpor_executions, 120);
}

/// ainc(N) (`c-examples/ainc.c`, built like the others at `-O0`): N
/// threads add to one counter without using fetch_add's result. With
/// `--commute-rmws` the additions commute: one behaviour, one execution for
/// optimal and dpor; without it every order of them is one, N! (the
/// exhaustive oracle counts the same).
#[test]
fn ainc_commuting_rmws() {
    let mut factorial = 1;
    for n in 2..=5u32 {
        factorial *= u64::from(n);
        let define = format!("-DN={n}");
        let program = build_source(
            "c-examples/ainc.c",
            &["-O0", "-g", &define],
            &format!("ainc_{n}"),
        );
        let run = |strategy: &str, commute: bool| {
            let mut options = vec!["--strategy", strategy, "--stats"];
            if commute {
                options.push("--commute-rmws");
            }
            let run = reach(&program, &options, &[]);
            assert!(run.complete(), "ainc({n}) {strategy}: {}", run.stderr);
            assert!(run.json["bug"].is_null(), "ainc({n}): {}", run.stdout);
            assert_eq!(
                run.json["sleep_blocked"].as_u64(),
                Some(0),
                "ainc({n}) {strategy}"
            );
            (run.executions(), run.partial_orders())
        };
        assert_eq!(
            run("optimal", true),
            (1, 1),
            "ainc({n}) optimal --commute-rmws"
        );
        assert_eq!(run("dpor", true), (1, 1), "ainc({n}) dpor --commute-rmws");
        assert_eq!(
            run("optimal", false),
            (factorial, factorial),
            "ainc({n}) optimal"
        );
        if n <= 4 {
            assert_eq!(
                run("exhaustive", true).1,
                1,
                "ainc({n}) exhaustive --commute-rmws"
            );
            assert_eq!(
                run("exhaustive", false).1,
                factorial,
                "ainc({n}) exhaustive"
            );
        }
    }
}
