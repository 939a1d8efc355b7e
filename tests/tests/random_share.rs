//! The default search's PCT share (`driver/src/random_share.rs`): one PCT
//! execution after every N systematic ones finds the bugs the depth-first
//! order reaches late, names itself as the finder, and replays; the
//! systematic search keeps its exact counts and completion beside it; an
//! explicit `--strategy`, `--keep-going` and `--no-random-share` run
//! without it.

use reach_tests::{build_example, reach, schedule_of, Run};
use std::path::Path;

/// The share's executions in the JSON report (0 without a share).
fn share_executions(run: &Run) -> u64 {
    run.json["random_share"]["executions"]
        .as_u64()
        .unwrap_or_default()
}

/// Replays the run's schedule file and checks it shows the same bug with
/// the same interleaving.
fn replays(program: &Path, run: &Run, args: &[&str]) {
    let schedule = schedule_of(program).to_string_lossy().into_owned();
    let replay = reach(program, &["--replay", &schedule], args);
    assert_eq!(replay.code, 1, "{}", replay.stdout);
    assert_eq!(replay.bug_kind(), run.bug_kind());
    assert_eq!(
        replay.json["bug"]["trace"], run.json["bug"]["trace"],
        "the replay did not reproduce the interleaving"
    );
}

/// The auditor must run between one worker's two marks: optimal DPOR
/// alone runs 2000 executions without getting there (examples.rs), the
/// share with its default seed finds it at its 32nd execution (128
/// systematic ones; 333 with every access a step, whose extra steps dilute
/// PCT's change points), the same with one job every time.
#[test]
fn the_default_finds_the_late_auditor_through_its_pct_share_and_replays_it() {
    let program = build_example("late_auditor.c");
    let args = ["8", "4"];
    let run = reach(&program, &[], &args);
    assert_eq!(run.code, 1, "{}\n{}", run.stdout, run.stderr);
    assert_eq!(run.bug_kind().as_deref(), Some("assertion"));
    assert_eq!(run.json["found_by"], "the PCT share (depth 3, seed 0)");
    assert_eq!(run.json["bug"]["by_random_share"], true);
    let shared = share_executions(&run);
    assert_eq!(run.json["bug"]["execution"], shared);
    assert_eq!(shared, 32, "{}", run.json["random_share"]);
    // One PCT execution after every 4 systematic ones.
    assert_eq!(run.executions(), 4 * shared);
    assert_eq!(run.json["random_share"]["every"], 4);
    assert!(
        run.stdout
            .contains("Found by: the PCT share (depth 3, seed 0)"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("(execution 32 of the PCT share)"),
        "{}",
        run.stdout
    );
    let schedule = std::fs::read_to_string(schedule_of(&program)).unwrap_or_default();
    assert!(schedule.contains("\"strategy\": \"pct\""), "{schedule}");
    replays(&program, &run, &args);
}

/// Other seeds find it too, within a bound of share executions (over
/// seeds 1 to 10 the share needed 215 to 3,963 executions with every
/// access a step, median about 1,100; seeds 1 to 3 now: 381, 959 and 141).
#[test]
fn other_seeds_find_the_late_auditor_within_a_bound() {
    let program = build_example("late_auditor.c");
    for seed in ["1", "2", "3"] {
        let run = reach(&program, &["--seed", seed, "--no-shorten"], &["8", "4"]);
        assert_eq!(run.bug_kind().as_deref(), Some("assertion"), "seed {seed}");
        let found_by = run.json["found_by"].as_str().unwrap_or_default();
        assert!(
            found_by.starts_with("the PCT share (depth ")
                && found_by.ends_with(&format!(", seed {seed})")),
            "{found_by}"
        );
        assert!(
            share_executions(&run) <= 3000,
            "seed {seed}: {}",
            share_executions(&run)
        );
    }
}

/// The checker must overtake 16 setters: out of the systematic search's
/// reach, quick for PCT.
#[test]
fn the_default_finds_the_checker_overtaking_its_setters() {
    let program = build_example("checker_overtakes_setters.c");
    let run = reach(&program, &[], &[]);
    assert_eq!(
        run.bug_kind().as_deref(),
        Some("assertion"),
        "{}",
        run.stdout
    );
    let found_by = run.json["found_by"].as_str().unwrap_or_default();
    assert!(found_by.starts_with("the PCT share"), "{found_by}");
    assert!(share_executions(&run) <= 200, "{}", share_executions(&run));
    replays(&program, &run, &[]);
}

/// A bug the systematic search finds after the share has run is said to
/// be the systematic search's, at its usual execution.
#[test]
fn a_bug_of_the_systematic_search_is_named_so() {
    let program = build_example("oracle_rare_order.c");
    let run = reach(&program, &[], &[]);
    assert_eq!(run.bug_kind().as_deref(), Some("assertion"));
    assert_eq!(run.json["found_by"], "the systematic search (optimal)");
    assert_eq!(run.json["bug"]["execution"], 10);
    assert!(run.json["bug"].get("by_random_share").is_none());
    assert_eq!(share_executions(&run), 2);
}

/// Beside the share, the systematic search runs exactly the executions
/// and partial orders it runs alone and completes; the share adds one
/// execution after every N (`--random-share-every`).
#[test]
fn a_complete_search_keeps_its_exact_counts() {
    let program = build_example("treiber_stack.c");
    let args = ["2", "1"];
    let alone = reach(&program, &["--no-random-share", "--stats"], &args);
    assert!(alone.complete());
    assert_eq!(alone.executions(), 40);
    assert!(alone.json["random_share"].is_null());
    for (options, every) in [
        (&["--stats"][..], 4),
        (&["--stats", "--random-share-every", "3"][..], 3),
    ] {
        let run = reach(&program, options, &args);
        assert_eq!(run.code, 0, "{options:?}: {}", run.stdout);
        assert!(run.complete());
        assert_eq!(run.executions(), 40);
        assert_eq!(run.fingerprints(), alone.fingerprints());
        assert_eq!(share_executions(&run), 40 / every, "{options:?}");
        assert!(
            run.stdout.contains(&format!(
                "PCT share:             {} executions (one after every {every} systematic ones",
                40 / every
            )),
            "{}",
            run.stdout
        );
    }
}

/// With two jobs every worker runs its own share; the systematic search
/// still explores the partial orders of one job and completes.
#[test]
fn two_jobs_keep_the_partial_orders_and_run_the_share() {
    let program = build_example("indexer.c");
    let one = reach(&program, &["--no-random-share", "--stats"], &["13"]);
    let two = reach(&program, &["--jobs", "2", "--stats"], &["13"]);
    assert!(two.complete(), "{}", two.stderr);
    assert_eq!(two.fingerprints(), one.fingerprints());
    assert!(share_executions(&two) > 0, "{}", two.json["random_share"]);
}

/// An explicit strategy, `--keep-going` and `--no-random-share` run the
/// search alone; `--random-share-every` where there is no share is refused.
#[test]
fn explicit_strategies_run_alone() {
    let program = build_example("treiber_stack.c");
    let args = ["2", "1"];
    for options in [
        &["--strategy", "optimal"][..],
        &["--keep-going"][..],
        &["--no-random-share"][..],
    ] {
        let run = reach(&program, options, &args);
        assert_eq!(run.code, 0, "{options:?}");
        assert_eq!(run.executions(), 40, "{options:?}");
        assert!(run.json["random_share"].is_null(), "{options:?}");
    }
    for (options, why) in [
        (&["--strategy", "optimal"][..], "an explicit --strategy"),
        (&["--keep-going"][..], "--keep-going"),
    ] {
        let run = reach(
            &program,
            &[options, &["--random-share-every", "2"]].concat(),
            &args,
        );
        assert_eq!(run.code, 2, "{options:?}: {}", run.stderr);
        assert!(
            run.stderr.contains(&format!(
                "--random-share-every applies to the default search (optimal, no --strategy), not with {why}"
            )),
            "{}",
            run.stderr
        );
    }
}

/// `--max-executions` counts the systematic executions; no PCT execution
/// runs once the limit is reached.
#[test]
fn the_execution_limit_counts_the_systematic_search() {
    let program = build_example("late_auditor.c");
    let run = reach(&program, &["--max-executions", "8"], &["8", "4"]);
    assert_eq!(run.code, 3, "{}", run.stdout);
    assert_eq!(run.executions(), 8);
    assert_eq!(share_executions(&run), 1, "{}", run.json["random_share"]);
}
