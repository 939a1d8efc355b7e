//! Unfolding-based testing (`--strategy unfold`) on the programs of the
//! paper's Table 2 written for reach-native: Pairs(n) is covered in a number
//! of executions that does not grow with n, the dining philosophers'
//! deadlock is found by the search on the unfolding and reported with its
//! wait-for cycle, and unfold finds the same bugs as dpor.

use reach_tests::{build_source, reach};

/// Builds `c-examples/<file>` with the `-D` definitions `defines`.
fn build(file: &str, defines: &[&str], name: &str) -> std::path::PathBuf {
    let mut flags = vec!["-O1", "-g"];
    flags.extend_from_slice(defines);
    build_source(&format!("c-examples/{file}"), &flags, name)
}

#[test]
fn pairs_need_two_executions_whatever_n() {
    for n in [2, 4, 8] {
        let define = format!("-DN={n}");
        let program = build("unf_pairs.c", &[&define], &format!("unf_pairs_{n}"));
        let unfold = reach(&program, &["--strategy", "unfold"], &[]);
        assert_eq!(unfold.code, 0, "{}", unfold.stdout);
        assert_eq!(unfold.executions(), 2, "Pairs({n}): {}", unfold.stdout);
        if n <= 4 {
            let dpor = reach(&program, &["--jobs", "1"], &[]);
            assert_eq!(dpor.code, 0, "{}", dpor.stdout);
            assert_eq!(dpor.executions(), 1 << n, "Pairs({n}) under dpor");
        }
    }
}

#[test]
fn dining_deadlocks_are_found_with_their_cycle() {
    for n in [4, 5, 6] {
        let define = format!("-DN={n}");
        let program = build("unf_dining.c", &[&define], &format!("unf_dining_{n}"));
        let unfold = reach(&program, &["--strategy", "unfold"], &[]);
        assert_eq!(unfold.code, 1, "{}", unfold.stdout);
        assert_eq!(unfold.bug_kind().as_deref(), Some("deadlock"));
        let cycle: Vec<String> = (1..=n).map(|t| format!("thread {t}")).collect();
        let cycle = format!("cycle: {} -> thread 1", cycle.join(" -> "));
        assert!(unfold.stdout.contains(&cycle), "{}", unfold.stdout);
        // Found on the unfolding after the first execution, not by chance.
        assert_eq!(unfold.json["bug"]["execution"].as_u64(), Some(2));
        let dpor = reach(&program, &["--jobs", "1"], &[]);
        assert_eq!(dpor.bug_kind().as_deref(), Some("deadlock"));
    }
}

#[test]
fn ordered_dining_is_clean_with_as_many_executions_as_dpor() {
    let program = build(
        "unf_dining.c",
        &["-DN=4", "-DORDERED=1"],
        "unf_dining_ordered",
    );
    let unfold = reach(&program, &["--strategy", "unfold"], &[]);
    assert_eq!(unfold.code, 0, "{}", unfold.stdout);
    assert_eq!(unfold.executions(), 786);
    let dpor = reach(&program, &["--jobs", "1"], &[]);
    assert_eq!(dpor.executions(), 786);
}

#[test]
fn same_bugs_as_dpor() {
    let cases: [(&str, &[&str], &str); 4] = [
        ("unf_updater.c", &["-DDEADLOCK=1"], "deadlock"),
        ("abba_deadlock.c", &[], "deadlock"),
        ("fib_bench.c", &[], "data_race"),
        ("crash_abort.c", &[], "assertion"),
    ];
    for (file, defines, kind) in cases {
        let name = format!("unf_same_{}", file.trim_end_matches(".c"));
        let program = build(file, defines, &name);
        let unfold = reach(&program, &["--strategy", "unfold"], &[]);
        let dpor = reach(&program, &["--jobs", "1"], &[]);
        assert_eq!(
            unfold.bug_kind().as_deref(),
            Some(kind),
            "{file}: {}",
            unfold.stdout
        );
        assert_eq!(
            dpor.bug_kind().as_deref(),
            Some(kind),
            "{file}: {}",
            dpor.stdout
        );
    }
}

#[test]
fn stats_show_the_unfolding_and_the_deadlock_check() {
    let program = build("unf_pairs.c", &["-DN=3"], "unf_pairs_3");
    let run = reach(&program, &["--strategy", "unfold", "--stats"], &[]);
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert!(run.stdout.contains("unfolding events:"), "{}", run.stdout);
    assert!(run.stdout.contains("deadlock check:"), "{}", run.stdout);
    assert!(
        run.stdout
            .contains("complete: every local state of every thread reached"),
        "{}",
        run.stdout
    );
}

/// A figure of `--stats` output (`  name:   value`).
fn stat(stdout: &str, name: &str) -> Option<String> {
    stdout
        .lines()
        .find_map(|l| l.trim().strip_prefix(&format!("{name}:")))
        .map(|v| v.trim().to_string())
}

/// Bug kinds and the executions that found them, from a JSON report.
fn bugs(run: &reach_tests::Run) -> Vec<(String, u64)> {
    run.json["bugs"]
        .as_array()
        .map(|bugs| {
            bugs.iter()
                .map(|b| {
                    (
                        b["kind"].as_str().unwrap_or_default().to_string(),
                        b["execution"].as_u64().unwrap_or(0),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

/// With several executions in flight (`--jobs`), the unfolding, the
/// executions and the bugs are those of one job, and two runs with the same
/// number of jobs agree.
#[test]
fn jobs_build_the_same_unfolding_with_the_same_bugs() {
    let cases: [(&str, &[&str], &str); 3] = [
        ("unf_updater.c", &[], "unf_updater_jobs"),
        ("unf_single_lock.c", &[], "unf_single_lock_jobs"),
        ("unf_dining.c", &["-DN=4"], "unf_dining_4_jobs"),
    ];
    for (file, defines, name) in cases {
        let program = build(file, defines, name);
        let options = ["--strategy", "unfold", "--keep-going", "--stats"];
        let one = reach(&program, &options, &[]);
        let events = stat(&one.stdout, "unfolding events");
        assert!(events.is_some(), "{}", one.stdout);
        if file == "unf_dining.c" {
            assert!(!bugs(&one).is_empty(), "{}", one.stdout);
        }
        for jobs in ["2", "3", "3"] {
            let mut with_jobs = options.to_vec();
            with_jobs.extend(["--jobs", jobs]);
            let many = reach(&program, &with_jobs, &[]);
            assert_eq!(many.code, one.code, "{name} --jobs {jobs}: {}", many.stdout);
            assert_eq!(
                stat(&many.stdout, "unfolding events"),
                events,
                "{name} --jobs {jobs}"
            );
            assert_eq!(many.executions(), one.executions(), "{name} --jobs {jobs}");
            assert_eq!(bugs(&many), bugs(&one), "{name} --jobs {jobs}");
        }
    }
}

/// A target whose configuration asks for a held-back spinner's re-read
/// before the write it waits for is dropped, not a false nondeterminism:
/// the spin-wait with a `pause` hint ends clean, its loop reached.
#[test]
fn targets_asking_for_a_held_back_spinner_are_dropped() {
    let program = reach_tests::build_example("prim_pause_wait.c");
    let unfold = reach(&program, &["--strategy", "unfold", "--stats"], &[]);
    assert_eq!(unfold.code, 0, "{}", unfold.stdout);
    assert_eq!(unfold.bug_kind(), None, "{}", unfold.stdout);
    assert_eq!(unfold.partial_orders(), 2, "{}", unfold.stdout);
}
