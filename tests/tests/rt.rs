//! End-to-end tests of reachability testing (`--strategy rt`): on the
//! oracle programs and the programs of Lei & Carver's Table 1, RT exercises
//! exactly the partial orders the exhaustive oracle (or, where the oracle
//! is out of reach, DPOR, itself checked against the oracle) finds, each
//! once (`--audit` reports no duplicate), and finds the same bugs.
//!
//! Needs the release binaries (`cargo build --release --workspace`).

use reach_tests::{build_example, reach, Run};

/// Runs one strategy with statistics (and the audit for RT).
fn explore(program: &str, strategy: &str, args: &[&str]) -> Run {
    explore_options(program, strategy, &[], args)
}

/// [`explore`] with extra options and no program arguments.
fn explore_with(program: &str, strategy: &str, extra: &[&str]) -> Run {
    explore_options(program, strategy, extra, &[])
}

/// [`explore`] with extra options.
fn explore_options(program: &str, strategy: &str, extra: &[&str], args: &[&str]) -> Run {
    let binary = build_example(program);
    let mut options = vec!["--strategy", strategy, "--stats", "--quiet"];
    options.extend_from_slice(extra);
    if strategy == "rt" {
        options.push("--audit");
    }
    let run = reach(&binary, &options, args);
    assert!(
        !run.json.is_null(),
        "{program} with {strategy}: no JSON report\n{}",
        run.stderr
    );
    run
}

/// RT against a reference strategy: same partial orders, each once.
fn same_orders(program: &str, reference: &str, args: &[&str]) -> (Run, Run) {
    let rt = explore(program, "rt", args);
    let other = explore(program, reference, args);
    assert!(
        rt.complete(),
        "{program}: RT did not complete\n{}",
        rt.stdout
    );
    assert!(other.complete(), "{program}: {reference} did not complete");
    assert_eq!(
        rt.fingerprints(),
        other.fingerprints(),
        "{program} {args:?}: RT and {reference} exercise different partial orders"
    );
    assert_eq!(
        rt.json["duplicate_partial_orders"].as_u64(),
        Some(0),
        "{program} {args:?}: RT exercised a partial order twice"
    );
    assert_eq!(
        rt.executions(),
        rt.partial_orders(),
        "{program}: exactly once"
    );
    assert!(rt.stdout.contains("audit: 0 duplicate partial orders"));
    (rt, other)
}

#[test]
fn oracle_programs_every_partial_order_once() {
    for program in [
        "oracle_cas_claim.c",
        "oracle_cas_counter.c",
        "oracle_cas_weak.c",
        "oracle_condvar_signal.c",
        "oracle_condvar_broadcast.c",
        "oracle_create_join_chain.c",
        "oracle_independent_writers.c",
        "oracle_message_passing.c",
        "oracle_mutex_two_locks.c",
        "oracle_read_read_write.c",
        "oracle_readers_only.c",
        "oracle_trylock.c",
        "oracle_write_read.c",
        "mutex_counter.c",
        "prim_once.c",
        "prim_timedlock.c",
        "prim_semaphore.c",
        "prim_exit_from_thread.c",
        "prim_detach.c",
        "prim_cond_timedwait.c",
    ] {
        same_orders(program, "exhaustive", &[]);
    }
}

/// Racing atomic writes and a read: the writes' order times the read's
/// place, each once.
#[test]
fn oracle_two_writers_reader_every_partial_order_once() {
    let (rt, _) = same_orders("oracle_two_writers_reader.c", "exhaustive", &[]);
    assert_eq!(rt.executions(), 6);
}

/// Every program of the DPOR oracle test (`tests/oracle.rs`), explored to
/// the end (`--keep-going`): RT exercises the oracle's partial orders, each
/// once, and reports the same bugs (so never a nondeterminism: every
/// variant is reproduced by its execution). A crash ends the process like
/// an exit, so the orders of what the other threads did before it are
/// exercised too; a timed condition wait's re-acquire waits for the mutex.
#[test]
fn dpor_oracle_programs_match_the_oracle_to_the_end() {
    for program in [
        "oracle_cas_claim.c",
        "oracle_cas_counter.c",
        "oracle_cas_weak.c",
        "oracle_check_then_act.c",
        "oracle_condvar_broadcast.c",
        "oracle_condvar_signal.c",
        "oracle_create_join_chain.c",
        "oracle_fetch_add.c",
        "oracle_independent_writers.c",
        "oracle_lost_signal.c",
        "oracle_message_passing.c",
        "oracle_plain_race.c",
        "oracle_rare_order.c",
        "oracle_read_read_write.c",
        "oracle_readers_only.c",
        "oracle_rmw_unchanged.c",
        "oracle_trylock.c",
        "oracle_two_writers_reader.c",
        "oracle_write_read.c",
        "mutex_counter.c",
        "abba_deadlock.c",
        "racy_counter.c",
        "prim_once.c",
        "prim_cond_timedwait.c",
        "prim_timedlock.c",
        "prim_semaphore.c",
        "misuse_destroy_cond_waiters.c",
        "crash_segfault.c",
        "crash_abort.c",
        "exit_underscore.c",
        "prim_exit_from_thread.c",
        "prim_detach.c",
    ] {
        let options = ["--keep-going", "--stats", "--quiet"];
        let binary = build_example(program);
        let rt = reach(
            &binary,
            &[&["--strategy", "rt", "--audit"][..], &options].concat(),
            &[],
        );
        let oracle = reach(
            &binary,
            &[&["--strategy", "exhaustive"][..], &options].concat(),
            &[],
        );
        assert!(rt.complete() && oracle.complete(), "{program}");
        assert_eq!(rt.fingerprints(), oracle.fingerprints(), "{program}");
        assert_eq!(rt.bug_signatures(), oracle.bug_signatures(), "{program}");
        assert_eq!(
            rt.json["duplicate_partial_orders"].as_u64(),
            Some(0),
            "{program}: RT exercised a partial order twice"
        );
        assert_eq!(rt.executions(), rt.partial_orders(), "{program}");
    }
}

/// An exchange and an or racing to set the same flag, and a load: the one
/// that comes second changes nothing and is a read, so the partial orders
/// are which one writes times the load's place.
#[test]
fn oracle_rmw_unchanged_every_partial_order_once() {
    let (rt, _) = same_orders("oracle_rmw_unchanged.c", "exhaustive", &[]);
    assert_eq!(rt.executions(), 4);
}

#[test]
fn oracle_fetch_add_every_partial_order_once() {
    let (rt, _) = same_orders("oracle_fetch_add.c", "exhaustive", &[]);
    assert_eq!(rt.executions(), 6);
}

#[test]
fn rt_finds_the_oracles_bugs() {
    for (program, kind) in [
        ("oracle_lost_signal.c", "deadlock"),
        ("oracle_plain_race.c", "data_race"),
        ("oracle_check_then_act.c", "assertion"),
        ("oracle_rare_order.c", "assertion"),
    ] {
        let rt = explore(program, "rt", &[]);
        let oracle = explore(program, "exhaustive", &[]);
        assert_eq!(oracle.bug_kind().as_deref(), Some(kind), "{program}");
        assert_eq!(rt.bug_kind(), oracle.bug_kind(), "{program}");
        assert_eq!(rt.code, 1, "{program}: a bug exits with status 1");
    }
}

#[test]
fn readers_writers_match_the_oracle() {
    same_orders("rw_semaphore.c", "exhaustive", &["1", "1"]);
    same_orders("rw_monitor.c", "exhaustive", &["1", "1"]);
}

/// The bounded buffers and the dining philosophers have too many
/// interleavings for the oracle even in tiny configurations (the buffer's
/// memory accesses), so DPOR's set of partial orders is the reference.
#[test]
fn table_one_programs_match_dpor() {
    same_orders("bb_semaphore.c", "dpor", &["2", "1", "1"]);
    same_orders("bb_monitor.c", "dpor", &["1", "1", "1"]);
    same_orders("rw_semaphore.c", "dpor", &["2", "2"]);
    let (rt, _) = same_orders("dp_monitor.c", "dpor", &["3"]);
    assert_eq!(rt.executions(), 36);
}

#[test]
fn audit_is_off_by_default_and_reported_in_json() {
    let binary = build_example("oracle_write_read.c");
    let plain = reach(&binary, &["--strategy", "rt"], &[]);
    assert!(!plain.stdout.contains("audit:"));
    assert_eq!(plain.code, 0);
    let audited = reach(&binary, &["--strategy", "rt", "--audit"], &[]);
    assert!(audited.stdout.contains("audit: 0 duplicate partial orders"));
    assert_eq!(audited.json["duplicate_partial_orders"].as_u64(), Some(0));
    assert_eq!(audited.json["strategy"].as_str(), Some("rt"));
}

/// Three producers contending for two slots: with the semaphore's traced
/// count the open lists are exact and RT exercises DPOR's partial orders
/// exactly once.
#[test]
fn bb_semaphore_three_producers_exactly_once() {
    same_orders("bb_semaphore.c", "dpor", &["3", "2", "2"]);
}

/// A woken condition waiter re-acquires its mutex in the place of another
/// thread's acquisition when the wake-up it needs does not depend on that
/// acquisition. RT reaches part of those orders (188 of the pool's 194, 307
/// of 336 with a signal per worker; docs/limits.md), each once and
/// none that optimal DPOR does not.
#[test]
fn woken_waiters_relock_in_place_of_independent_acquisitions() {
    for (args, expected, all) in [(&[][..], 188, 194), (&["signal"][..], 307, 336)] {
        let rt = explore("oracle_cond_pool_shutdown.c", "rt", args);
        let optimal = explore("oracle_cond_pool_shutdown.c", "optimal", args);
        assert!(rt.complete() && optimal.complete(), "{args:?}");
        assert_eq!(optimal.partial_orders(), all, "{args:?}");
        assert_eq!(rt.partial_orders(), expected, "{args:?}");
        assert_eq!(rt.executions(), expected, "{args:?}: exactly once");
        let reference: std::collections::HashSet<String> =
            optimal.fingerprints().into_iter().collect();
        assert!(
            rt.fingerprints().iter().all(|f| reference.contains(f)),
            "{args:?}: RT exercised an order optimal does not"
        );
    }
}

/// A variant whose prefix asks for the step of a thread the runtime holds
/// back as a spinner (a `sched_yield` or `pause` loop, before the write it
/// waits for; without await semantics, as for loops reach-cc cannot see)
/// is dropped and counted as blocked: no false nondeterminism, every
/// partial order of the exhaustive search, none twice.
#[test]
fn variants_asking_for_a_held_back_spinner_are_dropped() {
    for program in ["prim_spinlock.c", "prim_pause_wait.c"] {
        let rt = explore_with(program, "rt", &["--no-await"]);
        let oracle = explore_with(program, "exhaustive", &["--no-await"]);
        assert!(rt.complete(), "{program}: {}", rt.stdout);
        assert_eq!(rt.bug_kind(), None, "{program}: {}", rt.stdout);
        assert_eq!(rt.fingerprints(), oracle.fingerprints(), "{program}");
        assert_eq!(rt.json["duplicate_partial_orders"].as_u64(), Some(0));
        assert!(
            rt.json["sleep_blocked"].as_u64().unwrap_or(0) >= 1,
            "{program}: no variant was dropped\n{}",
            rt.stdout
        );
    }
}
