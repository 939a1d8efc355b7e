//! The randomised strategies (PCT, random walk, portfolio), preemption
//! bounding and bug shortening, end to end: every buggy example is found
//! by each randomised strategy with a fixed seed and replays from its
//! schedule file; PCT's per-execution probability on a depth-1 bug is
//! checked over many seeds; shortening keeps the bug with fewer switches.

use reach_tests::{build_example, reach, schedule_of, Run};
use std::path::Path;

/// Every buggy example: file, program arguments, bug kind, and the PCT
/// depth it needs (its number of ordering constraints).
const BUGGY: &[(&str, &[&str], &str, u32)] = &[
    ("abba_deadlock.c", &[], "deadlock", 3),
    ("asm_operand_race.c", &[], "data_race", 3),
    ("asm_xadd_ticket_race.c", &[], "assertion", 3),
    ("cpp_racy.cpp", &[], "data_race", 3),
    ("crash_abort.c", &[], "assertion", 3),
    ("crash_segfault.c", &[], "crash", 3),
    ("crash_stack_overflow.c", &[], "crash", 3),
    ("dining_philosophers.c", &[], "deadlock", 3),
    ("exit_underscore.c", &[], "assertion", 3),
    ("exit_handler_race.c", &[], "data_race", 3),
    ("cpp_static_destructor_race.cpp", &[], "data_race", 3),
    ("fib_bench.c", &[], "data_race", 3),
    ("lastzero.c", &[], "data_race", 3),
    ("misuse_destroy_cond_waiters.c", &[], "misuse", 3),
    ("misuse_destroy_locked.c", &[], "misuse", 3),
    ("misuse_double_join.c", &[], "misuse", 3),
    ("misuse_join_detached.c", &[], "misuse", 3),
    ("misuse_relock_normal.c", &[], "misuse", 3),
    ("misuse_unlock_not_held.c", &[], "misuse", 3),
    ("oracle_check_then_act.c", &[], "assertion", 3),
    ("oracle_lost_signal.c", &[], "deadlock", 3),
    ("oracle_plain_race.c", &[], "data_race", 3),
    // Strict alternation of two threads: five preemptions.
    ("oracle_rare_order.c", &[], "assertion", 6),
    ("prim_spin_livelock.c", &[], "hang", 3),
    ("racy_counter.c", &[], "data_race", 3),
    ("xchg_spinlock_lost_unlock.c", &[], "hang", 3),
    ("checker_overtakes_setters.c", &[], "assertion", 1),
    ("watchdog_pool.c", &["40"], "assertion", 1),
];

/// Runs `options` on `file` and checks that it finds `kind`, then that the
/// schedule file names the strategy and seed and replays the same trace.
fn finds_and_replays(file: &str, args: &[&str], kind: &str, options: &[&str]) -> Run {
    let program = build_example(file);
    let run = reach(&program, options, args);
    assert_eq!(
        (run.code, run.bug_kind().as_deref()),
        (1, Some(kind)),
        "{file} {options:?}\n{}\n{}",
        run.stdout,
        run.stderr
    );
    let schedule = schedule_of(&program);
    let text = std::fs::read_to_string(&schedule).unwrap_or_default();
    let file_json: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
    assert!(file_json["strategy"].is_string(), "{file}: {text}");
    let replay = replay(&program, &schedule, args);
    assert_eq!(replay.bug_kind().as_deref(), Some(kind), "{file}: replay");
    assert_eq!(
        replay.json["bug"]["trace"], run.json["bug"]["trace"],
        "{file} {options:?}: the replay did not reproduce the interleaving"
    );
    run
}

fn replay(program: &Path, schedule: &Path, args: &[&str]) -> Run {
    let text = schedule.to_string_lossy().into_owned();
    reach(program, &["--replay", &text, "--timeout", "60"], args)
}

#[test]
fn pct_finds_every_buggy_example_with_a_fixed_seed() {
    for &(file, args, kind, depth) in BUGGY {
        let depth = depth.to_string();
        let run = finds_and_replays(
            file,
            args,
            kind,
            &[
                "--strategy",
                "pct",
                "--depth",
                &depth,
                "--seed",
                "1",
                "--max-time",
                "120",
                "--timeout",
                "60",
                "--no-shorten",
            ],
        );
        assert_eq!(run.json["seed"], 1, "{file}");
        assert_eq!(run.json["strategy"], "pct", "{file}");
    }
}

#[test]
fn random_walk_finds_every_buggy_example_with_a_fixed_seed() {
    for &(file, args, kind, _) in BUGGY {
        // Overtaking every other worker is out of a random walk's reach.
        if file == "checker_overtakes_setters.c" || file == "watchdog_pool.c" {
            continue;
        }
        let run = finds_and_replays(
            file,
            args,
            kind,
            &[
                "--strategy",
                "random",
                "--seed",
                "1",
                "--max-time",
                "120",
                "--no-shorten",
            ],
        );
        assert_eq!(run.json["strategy"], "random", "{file}");
    }
}

/// A random walk among the setters' long runs of steps and the systematic
/// search alone (the default without its PCT share,
/// `tests/tests/random_share.rs`) do not reach the checker's bug. (When the
/// setters' accesses to their own slots are no steps, the default, the
/// random walk with seed 1 finds it at execution 102.)
#[test]
fn random_walk_and_dpor_miss_the_checker_that_pct_finds() {
    let program = build_example("checker_overtakes_setters.c");
    for options in [
        &[
            "--strategy",
            "random",
            "--seed",
            "1",
            "--max-executions",
            "300",
            "--no-private-accesses",
        ][..],
        &["--no-random-share", "--max-executions", "300"][..],
    ] {
        let run = reach(&program, options, &[]);
        assert_eq!(run.code, 3, "{options:?}: {}", run.stdout);
        assert_eq!(run.executions(), 300);
    }
}

#[test]
fn portfolio_finds_the_overtaking_bugs_and_names_the_member() {
    for (file, args) in [
        ("checker_overtakes_setters.c", &[][..]),
        ("oracle_check_then_act.c", &[][..]),
    ] {
        let run = finds_and_replays(
            file,
            args,
            "assertion",
            &[
                "--strategy",
                "portfolio",
                "--seed",
                "3",
                "--max-time",
                "120",
            ],
        );
        assert_eq!(run.json["strategy"], "portfolio");
        assert!(run.json["found_by"].is_string(), "{file}: {}", run.stdout);
    }
}

#[test]
fn portfolio_stops_at_the_execution_limit_and_when_dpor_completes() {
    let program = build_example("mutex_counter.c");
    let run = reach(
        &program,
        &[
            "--strategy",
            "portfolio",
            "--seed",
            "1",
            "--max-executions",
            "7",
        ],
        &[],
    );
    assert_eq!(run.code, 3, "{}", run.stdout);
    assert_eq!(run.executions(), 7);
    // Without a limit DPOR completes: no bug anywhere, search complete.
    let run = reach(&program, &["--strategy", "portfolio", "--seed", "1"], &[]);
    assert_eq!(run.code, 0, "{}", run.stdout);
    let coverage = run.json["coverage"].as_str().unwrap_or_default();
    assert!(
        coverage.contains("dpor") && coverage.contains("search complete"),
        "{coverage}"
    );
}

/// PCT with depth 1 hits a depth-1 bug with probability at least 1/n per
/// execution (n threads). The checker with 2 setters has n = 4 (main
/// included) and is hit when the checker has the highest priority of the 3
/// workers (1/3). Over 60 seeds run to their first bug, the executions
/// are a sum of 60 geometric variables: at most 60·n = 240 if the rate is
/// at least 1/n (the expected sum at rate 1/3 is 180, standard deviation
/// about 19).
#[test]
fn pct_depth_1_hits_a_depth_1_bug_in_at_least_1_in_n_executions() {
    let program = build_example("checker_overtakes_setters.c");
    let seeds = 60u64;
    let mut executions = 0;
    for seed in 0..seeds {
        let seed = seed.to_string();
        let run = reach(
            &program,
            &[
                "--strategy",
                "pct",
                "--depth",
                "1",
                "--seed",
                &seed,
                "--no-shorten",
            ],
            &["2"],
        );
        assert_eq!(run.bug_kind().as_deref(), Some("assertion"), "seed {seed}");
        executions += run.executions();
    }
    let n = 4;
    assert!(
        executions <= seeds * n,
        "{seeds} bugs in {executions} executions: rate below 1/{n}"
    );
    // PCT depth 1 is better than chance here: a random walk must pick the
    // checker before either setter at every one of its steps.
    assert!(executions >= seeds, "{executions}");
}

#[test]
fn pct_and_random_executions_replay_from_their_recorded_schedule() {
    let program = build_example("dining_philosophers_ordered.c");
    for strategy in ["pct", "random"] {
        let dir = reach_tests::scratch();
        let record = dir.join(format!(
            "recorded-{strategy}-{}.schedule",
            std::process::id()
        ));
        let record_text = record.to_string_lossy().into_owned();
        let run = reach(
            &program,
            &[
                "--strategy",
                strategy,
                "--seed",
                "5",
                "--max-executions",
                "4",
                "--record",
                &record_text,
                "--record-execution",
                "3",
            ],
            &[],
        );
        assert_eq!(run.code, 3, "{strategy}: {}", run.stdout);
        let text = std::fs::read_to_string(&record).unwrap_or_default();
        assert!(
            text.contains(&format!("\"strategy\": \"{strategy}\"")),
            "{text}"
        );
        assert!(text.contains("\"seed\": 5"), "{text}");
        let replayed = replay(&program, &record, &[]);
        assert_eq!(replayed.code, 0, "{strategy}: {}", replayed.stdout);
        assert!(
            replayed.json["bug"].is_null(),
            "{strategy}: {}",
            replayed.stdout
        );
    }
}

#[test]
fn pct_executions_are_the_same_from_the_fork_server_and_from_exec() {
    let program = build_example("dining_philosophers_ordered.c");
    let dir = reach_tests::scratch();
    let mut files = Vec::new();
    for mode in ["fork-server", "exec"] {
        let record = dir.join(format!("pct-{mode}-{}.schedule", std::process::id()));
        let record_text = record.to_string_lossy().into_owned();
        let mut options = vec![
            "--strategy",
            "pct",
            "--depth",
            "3",
            "--seed",
            "9",
            "--max-executions",
            "30",
            "--record",
            &record_text,
            "--record-execution",
            "30",
        ];
        if mode == "exec" {
            options.push("--no-fork-server");
        }
        let run = reach(&program, &options, &[]);
        assert_eq!(run.code, 3, "{mode}: {}", run.stdout);
        files.push(std::fs::read_to_string(&record).unwrap_or_default());
    }
    assert!(!files[0].is_empty());
    assert_eq!(files[0], files[1]);
}

#[test]
fn shortening_removes_switches_and_keeps_the_bug() {
    let run = finds_and_replays(
        "checker_overtakes_setters.c",
        &[],
        "assertion",
        &["--strategy", "pct", "--depth", "1", "--seed", "1"],
    );
    let short = &run.json["shortened"];
    let before = short["original_switches"].as_u64().unwrap_or(0);
    let after = short["switches"].as_u64().unwrap_or(u64::MAX);
    assert!(after < before, "{short}");
    assert!(
        run.stdout
            .contains(&format!("had {before} context switches")),
        "{}",
        run.stdout
    );
}

#[test]
fn preemption_bounding_rounds_grow_until_the_bug() {
    // Strict alternation of two threads needs four preemptions.
    let program = build_example("oracle_rare_order.c");
    for strategy in ["exhaustive", "dpor"] {
        let run = reach(
            &program,
            &["--strategy", strategy, "--preemption-bound", "3"],
            &[],
        );
        assert_eq!(run.code, 3, "{strategy}: {}", run.stdout);
        let coverage = run.json["coverage"].as_str().unwrap_or_default();
        assert!(
            coverage.contains("preemption bound 3 completed"),
            "{coverage}"
        );
        let run = reach(
            &program,
            &["--strategy", strategy, "--preemption-bound", "5"],
            &[],
        );
        assert_eq!(
            run.bug_kind().as_deref(),
            Some("assertion"),
            "{strategy}: {}",
            run.stdout
        );
        let coverage = run.json["coverage"].as_str().unwrap_or_default();
        assert!(
            coverage.contains("preemption bound 3 completed")
                && coverage.contains("bound 4 partly explored"),
            "{coverage}"
        );
    }
    // The checker needs none: once main waits in a join, running the
    // checker first is a switch, not a preemption.
    let program = build_example("checker_overtakes_setters.c");
    let run = reach(
        &program,
        &["--strategy", "exhaustive", "--preemption-bound", "0"],
        &["2"],
    );
    assert_eq!(
        run.bug_kind().as_deref(),
        Some("assertion"),
        "{}",
        run.stdout
    );
}

#[test]
fn bounded_exhaustive_search_that_prunes_nothing_is_complete() {
    let program = build_example("oracle_write_read.c");
    let plain = reach(&program, &["--strategy", "exhaustive"], &[]);
    let bounded = reach(
        &program,
        &["--strategy", "exhaustive", "--preemption-bound", "10"],
        &[],
    );
    assert_eq!((plain.code, bounded.code), (0, 0), "{}", bounded.stdout);
    assert!(bounded.complete());
    // Each round re-runs the executions of the rounds before it.
    assert!(bounded.executions() >= plain.executions());
}
