//! DPOR-CR with sleep sets against the brute-force oracle on real programs.
//!
//! For each program, `--strategy exhaustive` runs every interleaving and
//! counts the distinct partial orders (Mazurkiewicz traces, reads commuting);
//! `--strategy dpor` must explore exactly the same set of partial orders and
//! find the same bugs (`--keep-going` collects all of them), and its
//! execution count is pinned: it is deterministic for a fixed exploration
//! order. The exhaustive count is pinned too, to show the reduction.
//! `--strategy optimal` must run exactly one execution per partial order.
//! With `--commute-rmws` the same holds on every program, under the
//! relation in which unused-result updates of one family commute.

use reach_tests::{build_example, reach, schedule_of};

fn check(file: &str, exhaustive_executions: u64, dpor_executions: u64) {
    check_with(file, &[], exhaustive_executions, dpor_executions);
}

/// [`check`] with extra options for both runs.
fn check_with(file: &str, extra: &[&str], exhaustive_executions: u64, dpor_executions: u64) {
    check_program(file, extra, &[], exhaustive_executions, dpor_executions);
}

/// [`check_with`] with arguments for the program.
fn check_program(
    file: &str,
    extra: &[&str],
    args: &[&str],
    exhaustive_executions: u64,
    dpor_executions: u64,
) {
    let program = build_example(file);
    let options = [
        &["--keep-going", "--stats", "--max-executions", "100000"][..],
        extra,
    ]
    .concat();
    let oracle = reach(
        &program,
        &[&["--strategy", "exhaustive"][..], &options].concat(),
        args,
    );
    let dpor = reach(
        &program,
        &[&["--strategy", "dpor"][..], &options].concat(),
        args,
    );
    assert!(
        oracle.complete(),
        "{file}: the oracle did not finish: {}",
        oracle.stderr
    );
    assert!(
        dpor.complete(),
        "{file}: DPOR did not finish: {}",
        dpor.stderr
    );
    assert_eq!(
        dpor.fingerprints(),
        oracle.fingerprints(),
        "{file}: DPOR explored other partial orders than the oracle"
    );
    assert_eq!(
        dpor.bug_signatures(),
        oracle.bug_signatures(),
        "{file}: different bugs"
    );
    assert_eq!(
        oracle.executions(),
        exhaustive_executions,
        "{file}: oracle executions"
    );
    assert_eq!(
        dpor.executions(),
        dpor_executions,
        "{file}: DPOR executions"
    );
    assert!(dpor.partial_orders() <= dpor.executions());
    check_optimal(file, &program, &options, args, &oracle);
}

/// `--strategy optimal` runs exactly one execution per partial order of the
/// oracle, each order once, with the same bugs, and is never blocked by its
/// sleep sets.
fn check_optimal(
    file: &str,
    program: &std::path::Path,
    options: &[&str],
    args: &[&str],
    oracle: &reach_tests::Run,
) {
    let optimal = reach(
        program,
        &[&["--strategy", "optimal"][..], options].concat(),
        args,
    );
    assert!(
        optimal.complete(),
        "{file}: optimal did not finish: {}",
        optimal.stderr
    );
    assert_eq!(
        optimal.fingerprints(),
        oracle.fingerprints(),
        "{file}: optimal explored other partial orders than the oracle"
    );
    assert_eq!(
        optimal.bug_signatures(),
        oracle.bug_signatures(),
        "{file}: optimal found other bugs"
    );
    assert_eq!(
        optimal.complete_executions(),
        oracle.partial_orders(),
        "{file}: optimal executions (not blocked at an await) against the oracle's partial orders"
    );
    assert_eq!(
        optimal.json["sleep_blocked"].as_u64(),
        Some(0),
        "{file}: optimal was blocked by a sleep set"
    );
}

macro_rules! oracle_tests {
    ($($name:ident: $file:literal => exhaustive $ex:literal, dpor $dp:literal;)*) => {
        $(
            #[test]
            fn $name() {
                check($file, $ex, $dp);
            }
        )*

        /// Every program of the table.
        const PROGRAMS: &[&str] = &[$($file),*];
    };
}

oracle_tests! {
    cas_claim: "oracle_cas_claim.c" => exhaustive 19, dpor 2;
    cas_counter: "oracle_cas_counter.c" => exhaustive 28, dpor 4;
    cas_weak: "oracle_cas_weak.c" => exhaustive 22, dpor 4;
    check_then_act: "oracle_check_then_act.c" => exhaustive 63, dpor 6;
    condvar_broadcast: "oracle_condvar_broadcast.c" => exhaustive 308, dpor 10;
    condvar_signal: "oracle_condvar_signal.c" => exhaustive 5, dpor 2;
    cond_pool_shutdown: "oracle_cond_pool_shutdown.c" => exhaustive 7376, dpor 220;
    create_join_chain: "oracle_create_join_chain.c" => exhaustive 1, dpor 1;
    fetch_add: "oracle_fetch_add.c" => exhaustive 1121, dpor 6;
    independent_writers: "oracle_independent_writers.c" => exhaustive 44, dpor 1;
    lost_signal: "oracle_lost_signal.c" => exhaustive 4, dpor 2;
    message_passing: "oracle_message_passing.c" => exhaustive 15, dpor 2;
    plain_race: "oracle_plain_race.c" => exhaustive 9, dpor 2;
    rmw_unchanged: "oracle_rmw_unchanged.c" => exhaustive 1121, dpor 4;
    rare_order: "oracle_rare_order.c" => exhaustive 69, dpor 21;
    read_read_write: "oracle_read_read_write.c" => exhaustive 355, dpor 4;
    trylock: "oracle_trylock.c" => exhaustive 38, dpor 3;
    two_writers_reader: "oracle_two_writers_reader.c" => exhaustive 113, dpor 6;
    write_read: "oracle_write_read.c" => exhaustive 9, dpor 2;
    mutex_counter: "mutex_counter.c" => exhaustive 26, dpor 2;
    abba_deadlock: "abba_deadlock.c" => exhaustive 90, dpor 3;
    racy_counter: "racy_counter.c" => exhaustive 19, dpor 4;
    once: "prim_once.c" => exhaustive 61, dpor 2;
    cond_timedwait: "prim_cond_timedwait.c" => exhaustive 50, dpor 3;
    timedlock: "prim_timedlock.c" => exhaustive 65, dpor 3;
    semaphore: "prim_semaphore.c" => exhaustive 13, dpor 2;
    destroy_cond_waiters: "misuse_destroy_cond_waiters.c" => exhaustive 4, dpor 4;
    segfault: "crash_segfault.c" => exhaustive 38, dpor 6;
    abort: "crash_abort.c" => exhaustive 60, dpor 4;
    underscore_exit: "exit_underscore.c" => exhaustive 26, dpor 2;
    exit_from_thread: "prim_exit_from_thread.c" => exhaustive 67, dpor 4;
    detach: "prim_detach.c" => exhaustive 155, dpor 8;
    asm_xadd_ticket_race: "asm_xadd_ticket_race.c" => exhaustive 251, dpor 8;
    asm_operand_race: "asm_operand_race.c" => exhaustive 19, dpor 4;
    commute_used: "oracle_commute_used.c" => exhaustive 56, dpor 6;
    commute_families: "oracle_commute_families.c" => exhaustive 1830, dpor 24;
    ainc: "ainc.c" => exhaustive 550, dpor 24;
    commute_race: "oracle_commute_race.c" => exhaustive 34, dpor 3;
}

/// The pool shut down with a signal per worker instead of a broadcast: a
/// waiter woken by a signal that does not depend on the other worker's
/// acquisition may re-acquire the mutex first.
#[test]
fn cond_pool_signal() {
    check_program("oracle_cond_pool_shutdown.c", &[], &["signal"], 52918, 362);
}

/// `--commute-rmws` on every program of the table: DPOR reaches exactly
/// the oracle's partial orders (under the same option) and bugs, and
/// optimal runs one execution per partial order. Where a program has no
/// unused-result update the partial orders are those without the option.
#[test]
fn commuting_rmws_on_every_program() {
    let options = [
        "--keep-going",
        "--stats",
        "--max-executions",
        "100000",
        "--commute-rmws",
    ];
    for file in PROGRAMS {
        let program = build_example(file);
        let oracle = reach(
            &program,
            &[&["--strategy", "exhaustive"][..], &options].concat(),
            &[],
        );
        assert!(oracle.complete(), "{file}: {}", oracle.stderr);
        let dpor = reach(
            &program,
            &[&["--strategy", "dpor"][..], &options].concat(),
            &[],
        );
        assert!(dpor.complete(), "{file}: {}", dpor.stderr);
        assert_eq!(
            dpor.fingerprints(),
            oracle.fingerprints(),
            "{file}: DPOR explored other partial orders than the oracle"
        );
        assert_eq!(dpor.bug_signatures(), oracle.bug_signatures(), "{file}");
        check_optimal(file, &program, &options, &[], &oracle);
    }
}

/// The programs with unused-result updates, with `--commute-rmws`: the
/// updates of one family commute, everything else stays ordered. A
/// fetch-and-add whose result is used (`oracle_commute_used.c`'s checker,
/// `oracle_fetch_add.c`'s tickets) is a write: all its orders remain. The
/// race that one order of two commuting additions hides is still reported.
#[test]
fn commuting_rmws_reduce_the_orders() {
    let commuting = ["--commute-rmws"];
    check_with("oracle_commute_used.c", &commuting, 56, 4);
    check_with("oracle_commute_families.c", &commuting, 1830, 18);
    check_with("ainc.c", &commuting, 550, 1);
    check_with("oracle_fetch_add.c", &commuting, 1121, 6);
    check_with("oracle_commute_race.c", &commuting, 34, 2);
    for (file, orders) in [
        ("oracle_commute_used.c", 4),
        ("oracle_commute_families.c", 18),
        ("ainc.c", 1),
        ("oracle_fetch_add.c", 6),
        ("oracle_commute_race.c", 2),
    ] {
        let run = reach(
            &build_example(file),
            &[
                "--strategy",
                "optimal",
                "--stats",
                "--keep-going",
                "--commute-rmws",
            ],
            &[],
        );
        assert_eq!(
            (run.executions(), run.partial_orders()),
            (orders, orders),
            "{file}"
        );
    }
    let program = build_example("oracle_commute_race.c");
    let race = reach(&program, &["--strategy", "optimal", "--commute-rmws"], &[]);
    assert_eq!(
        race.bug_kind().as_deref(),
        Some("data_race"),
        "{}",
        race.stdout
    );
    // The schedule file says the execution had commuting updates, so a
    // replay without the option judges the race the same way.
    let schedule = schedule_of(&program);
    let text = std::fs::read_to_string(&schedule).expect("read the schedule");
    assert!(text.contains("\"commute_rmws\": true"), "{text}");
    let schedule = schedule.to_string_lossy().into_owned();
    let replay = reach(&program, &["--replay", schedule.as_str()], &[]);
    assert_eq!(
        replay.bug_kind().as_deref(),
        Some("data_race"),
        "{}",
        replay.stdout
    );
}

/// A flag wait whose loop says `pause`: the optimiser rotates it, so its
/// first test runs before the loop as a guard, which the pass makes the
/// loop's first iteration; a guard that read the flag unset awaits the
/// release, and the one behaviour left is the waiter reading it set (2
/// when the guard's failed read was a behaviour of its own).
#[test]
fn pause_wait() {
    check("prim_pause_wait.c", 4, 2);
}

/// A spin lock in inline assembly (atomic load, `lock cmpxchg`, asm store)
/// whose wait loop says `pause`: the pass reads the `lock cmpxchg` as a
/// compare-and-exchange, so a failed try is a read and the retry loop
/// awaits a change of the lock word as the C11 one does (4 partial orders;
/// 10 when every asm exchange counted as a write).
#[test]
fn asm_spinlock_counter() {
    check("asm_spinlock_counter.c", 1317, 8);
}

/// Read-only sharing: the readers' loads commute, so DPOR-CR needs one
/// execution where classic DPOR (reads conflicting) needs many more.
#[test]
fn commutative_reads_save_executions() {
    let program = build_example("oracle_readers_only.c");
    // Every read a step: the readers' reads are private otherwise (memory
    // threads only read), and neither search would see a read.
    let every = ["--stats", "--no-private-accesses"];
    let cr = reach(
        &program,
        &[&["--strategy", "dpor-cr"][..], &every].concat(),
        &[],
    );
    let classic = reach(
        &program,
        &[&["--strategy", "dpor-classic"][..], &every].concat(),
        &[],
    );
    assert!(cr.complete() && classic.complete());
    assert_eq!((cr.executions(), cr.partial_orders()), (1, 1));
    assert_eq!(classic.partial_orders(), 1);
    assert!(
        cr.executions() < classic.executions(),
        "DPOR-CR {} executions, classic DPOR {}",
        cr.executions(),
        classic.executions()
    );
}

/// With `--exit-cuts-threads` the process exit may come before other
/// threads' steps and cuts them short: every place of the exit is a
/// partial order of its own.
#[test]
fn exits_cutting_threads_short() {
    check_with("prim_exit_from_thread.c", &["--exit-cuts-threads"], 183, 32);
    check_with("exit_underscore.c", &["--exit-cuts-threads"], 36, 8);
}
