//! With `--private-accesses`, memory only one thread touches is no
//! scheduling point: a worker's own heap state costs no steps, the
//! behaviours explored are the same as with every access a step (the
//! default), and a race whose first access was such a private access is
//! still found, reported at its source line and replayed.

use reach_tests::{build_example, reach, schedule_of};

/// The steps an exploration executed, from `--stats`.
fn steps_executed(stdout: &str) -> u64 {
    stdout
        .lines()
        .find_map(|l| l.trim().strip_prefix("steps executed:"))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or_else(|| panic!("no steps in:\n{stdout}"))
}

/// Two workers fill and sort arrays of their own on the heap (qsort calls
/// the program's comparator), then add a median under a lock: tens of
/// thousands of steps with every access a step, a few hundred without
/// their private accesses, and the same two behaviours (the orders of the
/// lock sections) either way.
#[test]
fn a_workers_own_heap_state_costs_no_steps() {
    let program = build_example("private_worker_state.c");
    let private = reach(&program, &["--stats", "--private-accesses"], &[]);
    let every = reach(&program, &["--stats"], &[]);
    for run in [&private, &every] {
        assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
        assert!(run.complete(), "{}", run.stdout);
        assert_eq!(run.executions(), 2, "{}", run.stdout);
    }
    assert_eq!(private.fingerprints().len(), every.fingerprints().len());
    let (few, many) = (
        steps_executed(&private.stdout),
        steps_executed(&every.stdout),
    );
    assert!(many > 10_000, "every access a step: {many} steps");
    assert!(
        few * 20 < many,
        "private accesses: {few} steps (every access: {many})"
    );
}

/// Thread 1 reads and writes `ring.tail` before its first step (memory no
/// other thread had touched: no step); thread 2's load of it races. The
/// report names the private store at its line, says it was no step, and
/// the schedule file replays the race.
#[test]
fn a_race_with_a_private_access_is_found_and_replayed() {
    let program = build_example("report_names.c");
    let run = reach(&program, &["--private-accesses"], &[]);
    assert_eq!(
        run.bug_kind().as_deref(),
        Some("data_race"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("first  access: thread 1 STORE ring.tail at ")
            && run
                .stdout
                .contains("report_names.c:19:15 (producer) (no step of its own"),
        "{}",
        run.stdout
    );
    let schedule = schedule_of(&program);
    let text = std::fs::read_to_string(&schedule).expect("the schedule file");
    assert!(text.contains("\"private_accesses\": true"), "{text}");
    let replay = reach(
        &program,
        &["--replay", schedule.to_str().expect("a UTF-8 path")],
        &[],
    );
    assert_eq!(
        replay.bug_kind().as_deref(),
        Some("data_race"),
        "{}",
        replay.stdout
    );
    assert!(
        replay.stdout.contains("no step of its own"),
        "{}",
        replay.stdout
    );
    // With every access a step the same race is found between two steps.
    let every = reach(&program, &[], &[]);
    assert_eq!(
        every.bug_kind().as_deref(),
        Some("data_race"),
        "{}",
        every.stdout
    );
    assert!(
        !every.stdout.contains("no step of its own"),
        "{}",
        every.stdout
    );
}
