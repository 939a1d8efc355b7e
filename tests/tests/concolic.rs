//! Concolic testing: programs built with `REACH_SYMBOLIC=1` whose inputs
//! the driver chooses with z3, combined with the DPOR schedule search.
//! Sequential programs run exactly once per feasible path; the concurrent
//! ones have bugs that need both an input and an interleaving.

use reach_tests::{bin, reach, root, scratch};
use std::path::PathBuf;
use std::process::Command;

/// Builds `c-examples/<file>` with the shadow computations on.
fn build_symbolic(file: &str) -> PathBuf {
    let stem = file.trim_end_matches(".c");
    let out = scratch().join(format!("{stem}-symbolic"));
    let status = Command::new(bin("reach-cc"))
        .env("REACH_SYMBOLIC", "1")
        .args(["-O1", "-g"])
        .arg(root().join("c-examples").join(file))
        .arg("-o")
        .arg(&out)
        .status()
        .expect("run reach-cc");
    assert!(status.success(), "building {file} failed");
    out
}

#[test]
fn sequential_paths_are_counted_exactly() {
    let program = build_symbolic("concolic_paths.c");
    let run = reach(&program, &["--stats"], &[]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert!(run.complete());
    assert!(run.json["bug"].is_null());
    // 7 feasible paths (see the program), each one execution.
    assert_eq!(run.executions(), 7, "{}", run.stdout);
}

#[test]
fn a_deadlock_that_needs_an_input_and_an_interleaving_is_found() {
    let program = build_symbolic("concolic_input_deadlock.c");
    let run = reach(&program, &[], &[]);
    assert_eq!(run.code, 1, "{}\n{}", run.stdout, run.stderr);
    assert_eq!(run.bug_kind().as_deref(), Some("deadlock"));
    assert!(run.stdout.contains("inputs: mode = 3"), "{}", run.stdout);
}

#[test]
fn an_input_guarded_data_race_is_found() {
    let program = build_symbolic("concolic_input_race.c");
    let run = reach(&program, &[], &[]);
    assert_eq!(run.code, 1, "{}\n{}", run.stdout, run.stderr);
    assert_eq!(run.bug_kind().as_deref(), Some("data_race"));
    assert!(run.stdout.contains("inputs: key = 42"), "{}", run.stdout);
}

#[test]
fn without_symbolic_instrumentation_inputs_keep_their_defaults() {
    // The same program built without the shadow computations: one input
    // vector (mode = 0), no deadlock.
    let program = reach_tests::build_example("concolic_input_deadlock.c");
    let run = reach(&program, &[], &[]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert!(run.json["bug"].is_null());
}
