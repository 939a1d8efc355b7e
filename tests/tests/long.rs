//! Executions of more than a million steps: every strategy ends cleanly
//! and says what the recording bound left out. Kept apart from the timing
//! tests of `limits.rs`: an execution this long takes a second of CPU and
//! most of a gigabyte, which would slow the runs those tests time.

use reach_tests::{build_example, reach};

/// Executions of 1.2 million steps whose race is a million steps wide,
/// under every strategy: the search tree, the analyses and the reports do
/// not recurse as deep as an execution is long (the default strategy's
/// wakeup tree used to overflow the driver's stack when it was dropped
/// after the first execution), and every strategy says that the executions
/// exceeded the recording bound, in the coverage line and in the JSON.
#[test]
fn executions_of_a_million_steps_end_cleanly_under_every_strategy() {
    let program = build_example("long_execution.c");
    for strategy in [
        "optimal",
        "dpor",
        "rt",
        "exhaustive",
        "unfold",
        "pct",
        "random",
    ] {
        // unfold's analysis of so long an execution outlasts the limit.
        let run = reach(
            &program,
            &[
                "--strategy",
                strategy,
                "--max-executions",
                "1",
                "--max-time",
                "20",
            ],
            &[],
        );
        assert_eq!(
            run.code, 3,
            "{strategy}: exit status\n{}\n{}",
            run.stdout, run.stderr
        );
        assert!(run.json["bug"].is_null(), "{strategy}: {}", run.stdout);
        assert_eq!(run.executions(), 1, "{strategy}: {}", run.stdout);
        assert_eq!(
            run.json["truncated_executions"], 1,
            "{strategy}: {}",
            run.stdout
        );
        assert_eq!(run.json["recorded_bound"], 1_000_000, "{strategy}");
        let said = "1 execution was longer than 1000000 steps";
        let coverage = run.json["coverage"].as_str().unwrap_or_default();
        assert!(coverage.contains(said), "{strategy}: {coverage}");
        assert!(run.stdout.contains(said), "{strategy}: {}", run.stdout);
    }
    // The default strategy again past its first execution, which leaves
    // the million-step reversal in its wakeup tree to be explored.
    let run = reach(&program, &["--max-executions", "2"], &[]);
    assert_eq!(run.code, 3, "{}\n{}", run.stdout, run.stderr);
    assert_eq!(run.executions(), 2);
    assert_eq!(run.json["truncated_executions"], 2);
    // With two jobs, where each node on the path used to keep a copy of the
    // wakeup subtree below it: quadratic in the execution's length (tens
    // of gigabytes here).
    let run = reach(&program, &["--jobs", "2", "--max-executions", "3"], &[]);
    assert_eq!(run.code, 3, "{}\n{}", run.stdout, run.stderr);
    assert!(run.executions() >= 2, "{}", run.stdout);
}
