//! Branch-directed, race-equivalent exploration (`--strategy branches`):
//! on every program, with its fixed input, the lockset races it finds are
//! exactly those of the complete search (`optimal`, one execution per
//! partial order), in no more executions than reachability testing.

use reach_tests::{build_example, build_source_as, reach, Run};

/// The signatures of the distinct data races a run found.
fn races(run: &Run) -> Vec<String> {
    let mut all = run.bug_signatures_of("data_race");
    all.dedup();
    all
}

/// The `--stats` figure `name` of a run.
fn stat(run: &Run, name: &str) -> u64 {
    run.stdout
        .lines()
        .find_map(|l| l.trim().strip_prefix(&format!("{name}:")))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(u64::MAX)
}

/// Runs `branches` and the complete search on `file` (both on the build
/// with traced data flow, so sites match) and `rt` on the plain build;
/// checks the lockset races and the execution counts. Returns the
/// executions of `branches` and `rt`.
fn same_races_as_complete_search(file: &str) -> (u64, u64) {
    let stem = file.trim_end_matches(".c");
    let traced = build_source_as(
        &format!("c-examples/{file}"),
        &["-O1", "-g"],
        &format!("{stem}.traced"),
        true,
    );
    let plain = build_example(file);
    let lockset = ["--keep-going", "--race-detector", "lockset", "--no-shorten"];
    let with = |strategy: &'static str| -> Vec<&'static str> {
        let mut v = vec!["--strategy", strategy, "--stats"];
        v.extend(lockset);
        v
    };
    let branches = reach(&traced, &with("branches"), &[]);
    assert!(
        branches.complete(),
        "{file}: {}\n{}",
        branches.stdout,
        branches.stderr
    );
    let complete = reach(&traced, &with("optimal"), &[]);
    assert!(
        complete.complete(),
        "{file}: {}\n{}",
        complete.stdout,
        complete.stderr
    );
    assert_eq!(
        races(&branches),
        races(&complete),
        "{file}: branches found other lockset races than the complete search\n{}",
        branches.stdout
    );
    let rt = reach(&plain, &with("rt"), &[]);
    assert!(rt.complete(), "{file}: {}", rt.stdout);
    let (b, r) = (stat(&branches, "executions"), stat(&rt, "executions"));
    assert!(b <= r, "{file}: branches ran {b} executions, rt {r}");
    (b, r)
}

#[test]
fn pool_race_behind_a_branch_is_found_with_fewer_executions() {
    let (branches, rt) = same_races_as_complete_search("branch_pool.c");
    assert!(branches < rt, "branches {branches}, rt {rt}");
}

#[test]
fn branches_independent_of_the_interleaving_need_one_execution() {
    let (branches, _) = same_races_as_complete_search("branch_free.c");
    assert_eq!(branches, 1);
}

#[test]
fn equivalent_loop_iterations_add_no_executions() {
    let (branches, rt) = same_races_as_complete_search("branch_flag_loop.c");
    assert!(branches <= 4, "branches {branches} (rt {rt})");
}

#[test]
fn oracle_programs_have_the_complete_search_s_lockset_races() {
    for file in [
        "oracle_check_then_act.c",
        "oracle_condvar_broadcast.c",
        "oracle_condvar_signal.c",
        "oracle_message_passing.c",
        "oracle_mutex_two_locks.c",
        "oracle_rare_order.c",
        "oracle_read_read_write.c",
        "oracle_trylock.c",
        "oracle_two_writers_reader.c",
        "oracle_write_read.c",
        "oracle_plain_race.c",
        "dining_philosophers.c",
        "indexer.c",
        "mutex_counter.c",
    ] {
        same_races_as_complete_search(file);
    }
}

#[test]
fn a_program_without_traced_data_flow_is_refused() {
    let plain = build_example("branch_pool.c");
    let run = reach(&plain, &["--strategy", "branches"], &[]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("REACH_SYMBOLIC=1"), "{}", run.stderr);
    assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
}
