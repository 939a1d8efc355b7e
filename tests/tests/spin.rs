//! Spin loops under await semantics: an iteration in which nothing happens
//! is not a behaviour. Each shape is checked against the oracle (the
//! exhaustive strategy under the same semantics: every interleaving, the
//! distinct partial orders of the executions not blocked at an await), in
//! optimised and unoptimised builds, under every strategy, and liveness
//! stays a bug.

use reach_tests::{build_example, build_source, reach, Run};
use std::path::Path;

/// Runs `strategy` on `program` with `args`, counting partial orders.
fn explore(program: &Path, strategy: &str, args: &[&str]) -> Run {
    reach(
        program,
        &[
            "--strategy",
            strategy,
            "--stats",
            "--keep-going",
            "--max-executions",
            "100000",
        ],
        args,
    )
}

/// `optimal`, `dpor` and `rt` explore exactly the oracle's partial orders,
/// without a bug, and `optimal` runs one execution per partial order
/// besides the ones blocked at an await.
fn matches_oracle(program: &Path, args: &[&str], orders: u64) {
    let name = program.display();
    let oracle = explore(program, "exhaustive", args);
    assert!(oracle.complete(), "{name} {args:?}: oracle did not finish");
    assert_eq!(oracle.partial_orders(), orders, "{name} {args:?}: oracle");
    assert!(oracle.json["bug"].is_null(), "{name}: {}", oracle.stdout);
    for strategy in ["optimal", "dpor", "rt"] {
        let run = explore(program, strategy, args);
        assert!(run.complete(), "{name} {args:?} ({strategy}): not complete");
        assert!(run.json["bug"].is_null(), "{name}: {}", run.stdout);
        assert_eq!(
            run.fingerprints(),
            oracle.fingerprints(),
            "{name} {args:?} ({strategy}): other partial orders than the oracle"
        );
        if strategy == "optimal" {
            assert_eq!(
                run.complete_executions(),
                orders,
                "{name} {args:?}: optimal executions not blocked at an await"
            );
        }
    }
}

#[test]
fn exchange_lock_matches_the_oracle() {
    matches_oracle(&build_example("spin_xchg_lock.c"), &["2", "2"], 6);
}

#[test]
fn compare_and_swap_lock_matches_the_oracle() {
    matches_oracle(&build_example("spin_cas_lock.c"), &["2", "2"], 6);
}

#[test]
fn test_and_test_and_set_lock_matches_the_oracle() {
    matches_oracle(&build_example("spin_ttas_lock.c"), &["2", "1"], 4);
}

#[test]
fn ticket_lock_matches_the_oracle() {
    matches_oracle(&build_example("spin_ticket_lock.c"), &["2", "1"], 2);
}

/// The MCS queue lock and the decrement lock (Concurrency Kit's shapes in
/// C11): every wait awaits, and what remains are the protocols' own races
/// (a release against the next enqueue; failed decrements, which write).
/// The oracle at 2 threads of 1; larger, optimal, dpor and rt agree.
#[test]
fn queue_and_decrement_locks_match_the_oracle() {
    let mcs = build_example("spin_mcs_lock.c");
    let dec = build_example("spin_dec_lock.c");
    matches_oracle(&mcs, &["2", "1"], 6);
    matches_oracle(&dec, &["2", "1"], 4);
    for (program, args, orders) in [
        (&mcs, ["2", "2"], 78),
        (&mcs, ["3", "1"], 66),
        (&dec, ["2", "2"], 46),
        (&dec, ["3", "1"], 78),
    ] {
        let optimal = explore(program, "optimal", &args);
        assert!(optimal.complete(), "{args:?}: {}", optimal.stdout);
        assert_eq!(optimal.partial_orders(), orders, "{args:?}");
        for strategy in ["dpor", "rt"] {
            let run = explore(program, strategy, &args);
            assert!(run.complete(), "{args:?} ({strategy}): {}", run.stdout);
            assert_eq!(run.fingerprints(), optimal.fingerprints(), "{args:?}");
        }
    }
}

#[test]
fn seqlock_matches_the_oracle() {
    matches_oracle(&build_example("spin_seqlock.c"), &["1", "1"], 2);
}

/// The CHESS shape: a retry loop that counts its attempts in the thread's
/// own state and yields is an ordinary loop; it ends without a false hang.
#[test]
fn retry_loop_that_yields_matches_the_oracle() {
    matches_oracle(&build_example("spin_retry_yield.c"), &["2"], 4);
}

/// A lock-free stack whose pop retries after sched_yield: optimal and
/// dpor explore the same partial orders (the oracle is out of reach), and
/// no verdict is a false nondeterminism.
#[test]
fn lock_free_stack_optimal_and_dpor_agree() {
    let program = reach_tests::build_source(
        "c-examples/lockfree_index_stack.c",
        &["-O1", "-g", "-DSLOTS=2"],
        "lockfree_index_stack_2",
    );
    let optimal = explore(&program, "optimal", &["3", "1"]);
    let dpor = explore(&program, "dpor", &["3", "1"]);
    for run in [&optimal, &dpor] {
        assert!(run.complete(), "{}\n{}", run.stdout, run.stderr);
        assert!(run.json["bug"].is_null(), "{}", run.stdout);
    }
    assert_eq!(optimal.fingerprints(), dpor.fingerprints());
    assert_eq!(optimal.partial_orders(), 10962);
}

/// A lock-free stack whose pop gives up after a few tries with a yield
/// between them: its retry loop reads the head, a slot's link and the try
/// count, so it is recorded as it runs, not fast-forwarded (the rest of a
/// fast-forwarded spin once re-read the head unseen, and optimal DPOR
/// asked for orders the program cannot take). Optimal and dpor explore the
/// same partial orders, with no internal error.
#[test]
fn lock_free_stack_that_gives_up_has_no_impossible_schedules() {
    let program = build_example("lockfree_stack_giveup.c");
    let optimal = explore(&program, "optimal", &["2", "2", "3"]);
    let dpor = explore(&program, "dpor", &["2", "2", "3"]);
    for run in [&optimal, &dpor] {
        assert!(run.complete(), "{}\n{}", run.stdout, run.stderr);
        assert!(run.json["bug"].is_null(), "{}", run.stdout);
        assert_eq!(run.json["internal_errors"], 0, "{}", run.stderr);
    }
    assert_eq!(optimal.fingerprints(), dpor.fingerprints());
    assert_eq!(optimal.partial_orders(), 50034);
}

/// Runs the default search (optimal DPOR with its PCT share) on `program`
/// with `args`, counting partial orders.
fn explore_default(program: &Path, args: &[&str]) -> Run {
    reach(
        program,
        &["--stats", "--keep-going", "--max-executions", "100000"],
        args,
    )
}

/// The default search, optimal, dpor and rt complete on `program` with
/// `args` without a bug or an internal error and explore the same
/// `orders` partial orders.
fn strategies_agree(program: &Path, args: &[&str], orders: u64) {
    let name = program.display();
    let runs = [
        ("default", explore_default(program, args)),
        ("optimal", explore(program, "optimal", args)),
        ("dpor", explore(program, "dpor", args)),
        ("rt", explore(program, "rt", args)),
    ];
    reach_tests::assert_runs_agree(&format!("{name} {args:?}"), &runs, orders);
}

/// A lock-free stack of the classic "safe stack" shape: pop spins while
/// one slot is left, unlinks the head with an exchange of its link and a
/// compare-and-swap, exchanges the link back when the swap fails and
/// yields. Every strategy explores the same partial orders, with no false
/// verdict (the default search once reported nondeterminism on this shape).
#[test]
fn safe_stack_strategies_agree() {
    strategies_agree(&build_example("safestack.c"), &["2", "1"], 160);
}

/// A lock-free bounded queue whose failed compare-and-swap (and full or
/// empty queue) is followed by sched_yield: every strategy explores the
/// same partial orders, with no false verdict.
#[test]
fn lock_free_bounded_queue_strategies_agree() {
    let program = build_example("lockfree_bounded_queue.c");
    strategies_agree(&program, &["2", "1"], 8);
    strategies_agree(&program, &["2", "2"], 156);
}

/// A spin bounded by a retry count only its loop uses (then a yield): the
/// rest of the spin after its first iteration fast-forwards.
#[test]
fn bounded_spin_matches_the_oracle() {
    matches_oracle(&build_example("spin_bounded.c"), &["2", "1"], 6);
}

/// C++ `std::atomic_flag` and `std::atomic<bool>` locks that pause. The
/// optimiser peels the loop's first test (a read of its own, which counts);
/// unoptimised, the loop is whole: the two orders of the critical sections.
#[test]
fn cpp_atomic_flag_and_bool_locks_match_the_oracle() {
    let program = build_example("spin_atomic_flag.cpp");
    matches_oracle(&program, &["2", "0"], 4);
    matches_oracle(&program, &["0", "2"], 4);
    let unoptimised = build_source(
        "c-examples/spin_atomic_flag.cpp",
        &["-O0", "-g"],
        "spin_atomic_flag_O0",
    );
    matches_oracle(&unoptimised, &["2", "0"], 2);
    matches_oracle(&unoptimised, &["0", "2"], 2);
}

/// Linux-kernel style `while (READ_ONCE(gate)) cpu_relax();` with the gate
/// opened by `WRITE_ONCE`: volatile accesses are marked accesses, so the
/// loop awaits and the waiters' marked updates of one total are no data
/// race (optimised and not, the oracle's counts); a plain store racing
/// with them is one, found and named.
#[test]
fn read_once_loop_awaits_and_a_plain_race_is_found() {
    for (flags, name) in [("-O1", "spin_read_once"), ("-O0", "spin_read_once_O0")] {
        let program = build_source("c-examples/spin_read_once.c", &[flags, "-g"], name);
        matches_oracle(&program, &["2"], 4);
        // Every access a step, so that the plain store is a step the trace
        // shows with its source (by default it is no step of its own).
        let run = reach(&program, &["--no-private-accesses"], &["2", "1"]);
        assert_eq!(
            run.bug_kind().as_deref(),
            Some("data_race"),
            "{flags}: {}",
            run.stdout
        );
        let message = run.json["bug"]["message"].as_str().unwrap_or_default();
        assert!(message.contains("(total)"), "{flags}: {message}");
        assert!(
            run.stdout.contains("total = 0;"),
            "{flags}: the plain store is one side: {}",
            run.stdout
        );
    }
}

/// In an unoptimised build the loop's state lives in stack slots; slots
/// every iteration writes before it reads are no state: the same counts
/// as optimised. A back-off in the loop's frame that a function it calls
/// counts up is the loop's own state: the exchange lock that backs off
/// has the plain exchange lock's behaviours.
#[test]
fn unoptimised_builds_count_the_same() {
    for (file, orders) in [
        ("spin_xchg_lock", 90),
        ("spin_ticket_lock", 90),
        ("spin_seqlock", 9),
        ("spin_backoff_lock", 90),
    ] {
        let program = build_source(
            &format!("c-examples/{file}.c"),
            &["-O0", "-g"],
            &format!("{file}_O0"),
        );
        // Private accesses on (`--keep-going` turns them off): with every
        // access a step, the back-off's reads of its own step are reads of
        // the spin, which then runs recorded.
        let run = reach(
            &program,
            &[
                "--strategy",
                "optimal",
                "--stats",
                "--max-executions",
                "100000",
            ],
            &[],
        );
        assert!(run.complete(), "{file} -O0: not complete");
        assert!(run.json["bug"].is_null(), "{file} -O0: {}", run.stdout);
        assert_eq!(run.partial_orders(), orders, "{file} -O0");
        assert_eq!(run.complete_executions(), orders, "{file} -O0");
    }
}

/// The randomised strategies let a waiting thread retry once what it read
/// changed: no execution ends blocked, none hangs, even with the lowest
/// spin threshold (a released thread's spin count starts over).
#[test]
fn randomised_strategies_retry_and_never_block() {
    let program = build_example("spin_ttas_lock.c");
    for strategy in ["pct", "random"] {
        let run = reach(
            &program,
            &["--strategy", strategy, "--max-executions", "150"],
            &[],
        );
        assert_eq!(run.code, 3, "{strategy}: {}\n{}", run.stdout, run.stderr);
        assert!(run.json["bug"].is_null(), "{strategy}: {}", run.stdout);
        assert_eq!(run.executions(), 150, "{strategy}");
        assert_eq!(run.await_blocked(), 0, "{strategy}");
        let lock = build_example("cas_spinlock.c");
        let run = reach(
            &lock,
            &[
                "--strategy",
                strategy,
                "--spin-threshold",
                "1",
                "--max-executions",
                "300",
            ],
            &["3"],
        );
        assert!(run.json["bug"].is_null(), "{strategy}: {}", run.stdout);
    }
}

/// Unfolding keeps no blocked executions: it says so in one line and cuts
/// spin loops by the threshold as before.
#[test]
fn unfold_says_it_does_without_await_semantics() {
    let program = build_example("spin_xchg_lock.c");
    let run = reach(
        &program,
        &["--strategy", "unfold", "--max-executions", "50"],
        &["2", "1"],
    );
    assert!(run.json["bug"].is_null(), "{}", run.stdout);
    assert_eq!(
        run.stderr
            .lines()
            .filter(|l| l.contains("does not use await semantics"))
            .count(),
        1,
        "{}",
        run.stderr
    );
}

/// A spin lock whose holder never releases it: every strategy reports a
/// livelock naming the waiting thread's loop and the lock, in the first
/// execution for the systematic ones.
#[test]
fn lost_release_is_a_livelock_under_every_strategy() {
    let program = build_example("xchg_spinlock_lost_unlock.c");
    for strategy in ["optimal", "dpor", "rt", "pct", "random"] {
        let run = reach(&program, &["--strategy", strategy], &[]);
        assert_eq!(
            run.bug_kind().as_deref(),
            Some("hang"),
            "{strategy}: {}",
            run.stdout
        );
        let message = run.json["bug"]["message"].as_str().unwrap_or_default();
        assert!(
            message.starts_with("livelock: thread 2 spins in its loop at ")
                && message.contains("xchg_spinlock_lost_unlock.c:")
                && message.contains("(lock)"),
            "{strategy}: {message}"
        );
    }
}

/// A schedule file records the spin threshold its execution ran under,
/// and `--replay` uses it whatever the option says: the livelock found
/// with a threshold of 3 replays to the same 8 steps under the default.
#[test]
fn a_schedule_replays_under_its_recorded_spin_threshold() {
    let program = build_example("prim_spin_livelock.c");
    let run = reach(&program, &["--no-await", "--spin-threshold", "3"], &[]);
    assert_eq!(run.bug_kind().as_deref(), Some("hang"), "{}", run.stdout);
    let schedule = reach_tests::schedule_of(&program);
    let kept = schedule.with_extension("threshold.schedule");
    std::fs::copy(&schedule, &kept).expect("keep the schedule");
    let text = std::fs::read_to_string(&kept).expect("read the schedule");
    assert!(text.contains("\"spin_threshold\": 3"), "{text}");
    let kept = kept.to_string_lossy().into_owned();
    let again = reach(
        &program,
        &["--spin-threshold", "64", "--replay", &kept],
        &[],
    );
    assert_eq!(
        again.bug_kind().as_deref(),
        Some("hang"),
        "{}",
        again.stdout
    );
    assert_eq!(again.json["bug"]["trace"], run.json["bug"]["trace"]);
    assert_eq!(run.json["bug"]["steps_total"], 8, "{}", run.stdout);
}
/// Random programs of busy-waiting shapes (`spin_random.c`: loads, stores,
/// compare-and-swaps that fail, exchanges that write the value already
/// there, yields, spin hints, retry loops that yield or pause) under the
/// default strategy: never a verdict (a held-back retry asked for where
/// another order of unrelated steps holds it was once reported as the
/// program's nondeterminism), never an internal error, always complete,
/// and without await
/// semantics only partial orders the program has: those of the oracle
/// with spin blocking off (every interleaving), where it finishes.
#[test]
fn random_spin_programs_under_the_default_strategy() {
    let program = build_example("spin_random.c");
    let (mut compared, mut orders) = (0, 0);
    for seed in 0..130u32 {
        let seed = seed.to_string();
        for awaits in [false, true] {
            if awaits && seed.parse::<u32>().is_ok_and(|s| s >= 60) {
                continue;
            }
            let mode: &[&str] = if awaits { &[] } else { &["--no-await"] };
            let run = reach(
                &program,
                &[&["--stats", "--keep-going"][..], mode].concat(),
                &[&seed],
            );
            let what = format!("seed {seed}, awaits {awaits}");
            assert!(run.complete(), "{what}: not complete\n{}", run.stdout);
            assert!(
                run.json["bugs"].as_array().is_none_or(|b| b.is_empty()),
                "{what}: {}",
                run.stdout
            );
            assert_eq!(run.json["sleep_blocked"].as_u64(), Some(0), "{what}");
            assert_eq!(run.json["internal_errors"], 0, "{what}: {}", run.stderr);
            if awaits {
                continue;
            }
            let oracle = reach(
                &program,
                &[
                    "--strategy",
                    "exhaustive",
                    "--stats",
                    "--no-await",
                    "--spin-threshold",
                    "0",
                    "--max-executions",
                    "20000",
                    // Every access a step, as in the run (--keep-going).
                    "--no-private-accesses",
                ],
                &[&seed],
            );
            if !oracle.complete() {
                continue;
            }
            let every: std::collections::HashSet<String> =
                oracle.fingerprints().into_iter().collect();
            let unknown = run
                .fingerprints()
                .into_iter()
                .filter(|f| !every.contains(f))
                .count();
            assert_eq!(
                unknown, 0,
                "{what}: partial orders the program does not have"
            );
            compared += 1;
            orders += run.partial_orders();
        }
    }
    assert!(compared > 100, "{compared}");
    eprintln!("{compared} programs compared with the oracle, {orders} partial orders");
}

/// Executions that end: under `strategy`, 200 executions of `program` with
/// `args`, none cut by a bound, no bug, no internal error.
fn every_execution_ends(program: &Path, strategy: &str, args: &[&str]) {
    let name = program.display();
    let options = ["--strategy", strategy, "--stats", "--max-executions", "200"];
    let run = reach(program, &options, args);
    assert!(
        run.json["bug"].is_null(),
        "{name} ({strategy}): {}",
        run.stdout
    );
    assert_eq!(run.json["internal_errors"], 0, "{name}: {}", run.stderr);
    assert_eq!(
        run.json["truncated_executions"], 0,
        "{name}: {}",
        run.stdout
    );
    assert_eq!(run.executions(), 200, "{name} ({strategy}): {}", run.stdout);
}

/// The CHESS shape whose retry loop stores its count of attempts in
/// memory (progress, so no await) and sleeps for zero time: the sleep
/// hands the processor to the holder in the search's own continuation, so
/// no execution spins until a bound (each was a false hang).
#[test]
fn retry_loop_that_counts_in_memory_and_sleeps_does_not_starve_the_holder() {
    let program = build_example("spin_retry_counted_yield.c");
    for strategy in ["optimal", "dpor"] {
        every_execution_ends(&program, strategy, &["2", "2"]);
    }
}

/// liblzma's shape: main polls its workers with a timed condition wait in
/// a loop; a wait that timed out hands the processor on, so the workers
/// take the mutex main released (it timed out forever while both waited
/// at the mutex: a false hang).
#[test]
fn timed_wait_that_times_out_does_not_starve_the_workers() {
    let program = build_example("timedwait_poll.c");
    for strategy in ["optimal", "dpor"] {
        every_execution_ends(&program, strategy, &["2"]);
    }
}

/// `spin_yield_private_count`: waiters whose polls count in a heap block
/// only they touch (progress, so never held back) and yield. Under PCT a
/// waiter that yields 8 times in a row with no other thread running drops
/// below the others, so the setter runs: each execution is a few dozen
/// steps (without the demotion, about 400,000: a waiter of high priority
/// polled until the step bound). The default search finds no bug.
#[test]
fn pct_demotes_a_thread_that_keeps_yielding() {
    let program = build_example("spin_yield_private_count.c");
    for seed in ["1", "2", "3"] {
        let run = reach(
            &program,
            &[
                "--strategy",
                "pct",
                "--seed",
                seed,
                "--max-executions",
                "100",
                "--stats",
            ],
            &[],
        );
        assert!(run.json["bug"].is_null(), "seed {seed}: {}", run.stdout);
        assert_eq!(run.executions(), 100, "seed {seed}");
        let steps: u64 = run
            .stdout
            .lines()
            .find_map(|l| l.trim().strip_prefix("steps executed:"))
            .and_then(|n| n.trim().parse().ok())
            .unwrap_or(u64::MAX);
        assert!(
            steps < 100 * 100,
            "seed {seed}: {steps} steps in 100 executions"
        );
    }
    let default = reach(&program, &["--max-executions", "300"], &[]);
    assert!(default.json["bug"].is_null(), "{}", default.stdout);
}

/// `spin_callee_frame`: the loop's test calls a helper whose local count
/// another function writes through a pointer. Unoptimised, those writes
/// are stores to a frame that is gone by the loop's back edge, not
/// progress: an iteration that finds the flag clear does nothing and the
/// waiters await the setter (the oracle's one partial order; the writes
/// counting as progress, a waiter polled for the whole step bound).
#[test]
fn writes_to_a_callee_frame_are_not_progress() {
    let optimised = build_example("spin_callee_frame.c");
    let unoptimised = build_source(
        "c-examples/spin_callee_frame.c",
        &["-O0", "-g"],
        "spin_callee_frame_O0",
    );
    for program in [&optimised, &unoptimised] {
        matches_oracle(program, &["1"], 1);
        matches_oracle(program, &["2"], 1);
    }
}
