//! Concolic testing: programs built with `REACH_SYMBOLIC=1` (the
//! `// reach: symbolic` marker) whose inputs the driver chooses with z3,
//! combined with the DPOR schedule search. Sequential programs run exactly
//! once per feasible path; the concurrent ones have bugs that need both an
//! input and an interleaving, and replay with the same inputs.

use reach_tests::{bin, build_example, build_source_as, reach, root, schedule_of, Run};
use serde_json::Value;
use std::path::Path;
use std::process::Command;

/// The JSON report's inputs of the first bug as `name = value` strings.
fn bug_inputs(run: &Run) -> Vec<String> {
    run.json["bug"]["inputs"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|i| format!("{} = {}", as_str(&i["name"]), as_str(&i["value"])))
                .collect()
        })
        .unwrap_or_default()
}

fn as_str(v: &Value) -> String {
    v.as_str().unwrap_or_default().to_string()
}

/// Runs `program`, expects a bug of `kind` with `inputs` (by name), then
/// replays its schedule file: same bug, same inputs, same interleaving.
fn found_and_replayed(program: &Path, options: &[&str], kind: &str, inputs: &[&str]) -> Run {
    let run = reach(program, options, &[]);
    assert_eq!(run.code, 1, "{}\n{}", run.stdout, run.stderr);
    assert_eq!(run.bug_kind().as_deref(), Some(kind), "{}", run.stdout);
    assert_eq!(bug_inputs(&run), inputs, "{}", run.json["bug"]["inputs"]);
    let text_line = format!("inputs: {}", inputs.join(", "));
    assert!(run.stdout.contains(&text_line), "{}", run.stdout);

    let schedule = schedule_of(program);
    let file: Value =
        serde_json::from_str(&std::fs::read_to_string(&schedule).expect("read the schedule file"))
            .expect("the schedule file is JSON");
    assert_eq!(
        file["inputs"], run.json["bug"]["inputs"],
        "the schedule file carries the inputs"
    );
    let schedule_text = schedule.to_string_lossy().into_owned();
    let replay = reach(program, &["--replay", schedule_text.as_str()], &[]);
    assert_eq!(
        replay.code, 1,
        "replay: {}\n{}",
        replay.stdout, replay.stderr
    );
    assert_eq!(
        replay.bug_kind().as_deref(),
        Some(kind),
        "{}",
        replay.stdout
    );
    assert_eq!(bug_inputs(&replay), inputs, "replay inputs");
    assert_eq!(
        replay.json["bug"]["trace"], run.json["bug"]["trace"],
        "the replay did not reproduce the interleaving"
    );
    run
}

/// The `--stats` figure `name` of a run (`name:  value`).
fn stat(run: &Run, name: &str) -> String {
    run.stdout
        .lines()
        .find_map(|l| l.trim().strip_prefix(&format!("{name}:")))
        .map(|v| v.trim().to_string())
        .unwrap_or_default()
}

#[test]
fn sequential_paths_are_counted_exactly() {
    for (file, paths) in [
        ("concolic_paths.c", 7),
        ("concolic_switch.c", 7),
        ("concolic_loop.c", 8),
    ] {
        let program = build_example(file);
        let run = reach(&program, &["--stats"], &[]);
        assert_eq!(run.code, 0, "{file}: {}\n{}", run.stdout, run.stderr);
        assert!(run.complete(), "{file}");
        assert!(run.json["bug"].is_null(), "{file}");
        // One execution per feasible path (see each program), each with its
        // own input vector.
        assert_eq!(run.executions(), paths, "{file}: {}", run.stdout);
        assert_eq!(stat(&run, "input vectors"), paths.to_string(), "{file}");
    }
}

#[test]
fn symbolic_arguments_are_explored_byte_by_byte() {
    let program = build_example("concolic_args.c");
    let run = reach(&program, &["--symbolic-args", "--stats"], &["xyz"]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert!(run.complete() && run.json["bug"].is_null());
    assert_eq!(run.executions(), 4, "{}", run.stdout);
    // Without the option the argument is concrete: one path.
    let concrete = reach(&program, &[], &["xyz"]);
    assert_eq!(concrete.executions(), 1, "{}", concrete.stdout);
}

#[test]
fn symbolic_stdin_bytes_are_explored() {
    let program = build_example("concolic_stdin.c");
    let run = reach(&program, &["--symbolic-stdin", "3"], &[]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert!(run.complete() && run.json["bug"].is_null());
    assert_eq!(run.executions(), 4, "{}", run.stdout);
}

#[test]
fn a_failed_assumption_drops_the_path_without_a_bug() {
    let program = build_example("concolic_assume.c");
    let run = reach(&program, &["--stats"], &[]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert!(run.complete());
    assert!(run.json["bug"].is_null(), "{}", run.stdout);
    // x = 0 (rejected), an odd x < 10, an odd x >= 10; x == 50 is unsat.
    assert_eq!(run.executions(), 3, "{}", run.stdout);
}

#[test]
fn a_deadlock_that_needs_an_input_and_an_interleaving_is_found_and_replayed() {
    let program = build_example("concolic_input_deadlock.c");
    found_and_replayed(&program, &[], "deadlock", &["mode = 3"]);
}

#[test]
fn an_input_guarded_data_race_is_found_and_replayed() {
    let program = build_example("concolic_input_race.c");
    found_and_replayed(&program, &[], "data_race", &["key = 42"]);
}

#[test]
fn the_updater_deadlock_needs_two_inputs_and_an_interleaving() {
    let program = build_example("concolic_updater_deadlock.c");
    let run = found_and_replayed(&program, &[], "deadlock", &["a = 10", "b = -4"]);
    assert_eq!(run.executions(), 22, "{}", run.stdout);
}

#[test]
fn the_updater_without_the_deadlock_is_clean_with_exact_counts() {
    let program = build_example("concolic_updater.c");
    let run = reach(&program, &["--stats"], &[]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert!(run.complete() && run.json["bug"].is_null());
    assert_eq!(run.executions(), 47, "{}", run.stdout);
    // a in {<= 5, 6..8, > 8} times b in {>= 0, -2..-1, < -2}.
    assert_eq!(stat(&run, "input vectors"), "9", "{}", run.stdout);
}

#[test]
fn a_buffer_index_from_an_input_racing_with_a_resize_is_found_and_replayed() {
    let program = build_example("concolic_resize_index.c");
    found_and_replayed(&program, &[], "assertion", &["index = 4"]);
}

#[test]
fn a_branch_whose_meaning_depends_on_the_schedule_is_flipped_per_schedule() {
    // The branch tests key == 5 or key == 6 depending on the interleaving;
    // only key 6 after the setter fails.
    let program = build_example("concolic_schedule_branch.c");
    found_and_replayed(&program, &[], "assertion", &["key = 6"]);
}

/// `strategy` under concolic testing finds the bugs dpor finds, with the
/// same inputs (replayed), and the clean examples in `executions` each
/// (Updater, then the sequential path counts).
fn same_bugs_and_paths(strategy: &str, updater_executions: u64) {
    let options = ["--strategy", strategy];
    for (file, kind, inputs) in [
        (
            "concolic_updater_deadlock.c",
            "deadlock",
            &["a = 10", "b = -4"][..],
        ),
        ("concolic_input_deadlock.c", "deadlock", &["mode = 3"][..]),
        ("concolic_resize_index.c", "assertion", &["index = 4"][..]),
        ("concolic_schedule_branch.c", "assertion", &["key = 6"][..]),
        ("concolic_input_race.c", "data_race", &["key = 42"][..]),
    ] {
        let program = build_example(file);
        let run = found_and_replayed(&program, &options, kind, inputs);
        assert_eq!(run.json["strategy"], strategy, "{file}");
    }
    for (file, executions) in [
        ("concolic_updater.c", updater_executions),
        ("concolic_paths.c", 7),
        ("concolic_switch.c", 7),
        ("concolic_loop.c", 8),
        ("concolic_assume.c", 3),
    ] {
        let run = reach(&build_example(file), &options, &[]);
        assert_eq!(run.code, 0, "{file}: {}", run.stdout);
        assert!(run.complete() && run.json["bug"].is_null(), "{file}");
        assert_eq!(run.executions(), executions, "{file}: {}", run.stdout);
    }
}

#[test]
fn optimal_dpor_finds_the_same_bugs_and_paths() {
    same_bugs_and_paths("optimal", 43);
}

/// Unfolding-based testing under concolic testing: one unfolding per input
/// vector.
#[test]
fn unfold_finds_the_same_bugs_and_paths() {
    same_bugs_and_paths("unfold", 44);
}

#[test]
fn without_symbolic_instrumentation_inputs_keep_their_defaults() {
    // The same program built without the shadow computations: one input
    // vector (mode = 0), no deadlock.
    let program = build_source_as(
        "c-examples/concolic_input_deadlock.c",
        &["-O1", "-g"],
        "concolic_input_deadlock-concrete",
        false,
    );
    let run = reach(&program, &[], &[]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert!(run.json["bug"].is_null());
}

#[test]
fn reach_h_is_found_without_include_flags() {
    // reach-cc puts the directory of reach.h on the include path.
    let out = reach_tests::scratch().join("reach-h-preprocessed.i");
    let status = Command::new(bin("reach-cc"))
        .args(["-E", "-o"])
        .arg(&out)
        .arg(root().join("c-examples/concolic_switch.c"))
        .status()
        .expect("run reach-cc");
    assert!(status.success());
    let text = std::fs::read_to_string(&out).expect("read the preprocessed file");
    assert!(text.contains("int reach_input_int(const char *name, int lo, int hi);"));
}

#[test]
fn sharding_refuses_concolic_testing() {
    // A shard would explore only the default inputs: refused, not silent.
    let run = reach(
        &build_example("concolic_updater.c"),
        &["--shard", "0/2"],
        &[],
    );
    assert_ne!(run.code, 0, "{}", run.stdout);
    assert_ne!(run.code, 1, "{}", run.stdout);
    assert!(
        run.stderr
            .contains("--shard does not apply to concolic testing"),
        "{}",
        run.stderr
    );
}
