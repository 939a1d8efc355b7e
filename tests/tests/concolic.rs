//! Concolic testing: programs built with `REACH_SYMBOLIC=1` (the
//! `// reach: symbolic` marker) whose inputs the driver chooses with z3,
//! combined with the DPOR schedule search over one combined execution tree
//! (`--concolic-restart`: a whole scheduling search per input vector).
//! Sequential programs run exactly once per feasible path; the concurrent
//! ones have bugs that need both an input and an interleaving, and replay
//! with the same inputs; the combined tree covers the partial orders and
//! bugs that every interleaving of every input vector covers.

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
        assert_eq!(stat(&run, "repeated paths"), "0", "{file}");
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
    let run = found_and_replayed(&program, &[], "deadlock", &["a = 10", "b = -5"]);
    assert_eq!(run.executions(), 14, "{}", run.stdout);
    // A whole dpor search per input vector needs more executions.
    let restart = found_and_replayed(
        &program,
        &["--concolic-restart"],
        "deadlock",
        &["a = 10", "b = -4"],
    );
    assert_eq!(restart.executions(), 22, "{}", restart.stdout);
}

#[test]
fn the_updater_without_the_deadlock_is_clean_with_exact_counts() {
    let program = build_example("concolic_updater.c");
    let run = reach(&program, &["--stats"], &[]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert!(run.complete() && run.json["bug"].is_null());
    assert_eq!(run.executions(), 36, "{}", run.stdout);
    // Each flip of a branch node starts an input vector, for the subtree
    // below that node only.
    assert_eq!(stat(&run, "input vectors"), "20", "{}", run.stdout);
    assert_eq!(stat(&run, "repeated paths"), "0", "{}", run.stdout);
}

#[test]
fn a_counter_jump_that_needs_two_loop_bounds_and_an_interleaving_is_found_and_replayed() {
    let program = build_example("concolic_counter_loop.c");
    let run = found_and_replayed(&program, &[], "assertion", &["n1 = 2", "n2 = 1"]);
    assert_eq!(run.executions(), 15, "{}", run.stdout);
}

/// `--keep-going --stats` runs of `program` with `options`.
fn keep_going(program: &Path, options: &[&str]) -> Run {
    let run = reach(
        program,
        &[&["--keep-going", "--stats"][..], options].concat(),
        &[],
    );
    assert!(run.complete(), "{}\n{}", run.stdout, run.stderr);
    run
}

#[test]
fn the_combined_tree_covers_what_every_interleaving_of_every_input_vector_covers() {
    // The oracle: `--strategy exhaustive` runs every interleaving of each
    // input vector it solves for (a whole search per input vector). The
    // combined tree of dpor (DPOR-CR with sleep sets), of dpor-cr and of
    // optimal must run the same partial orders and find the same bugs, in
    // the pinned numbers of executions (deterministic for a fixed
    // exploration order).
    for (file, oracle_executions, dpor_executions, dpor_cr_executions, optimal_executions) in [
        ("concolic_input_deadlock.c", 108, 5, 7, 5),
        ("concolic_input_race.c", 15, 6, 10, 6),
        ("concolic_schedule_branch.c", 4, 3, 3, 3),
        ("concolic_counter_loop.c", 1497, 65, 203, 65),
    ] {
        let program = build_example(file);
        let oracle = keep_going(&program, &["--strategy", "exhaustive"]);
        assert_eq!(oracle.executions(), oracle_executions, "{file}: oracle");
        assert!(!oracle.bug_signatures().is_empty(), "{file}: oracle bugs");
        for (strategy, executions) in [
            ("dpor", dpor_executions),
            ("dpor-cr", dpor_cr_executions),
            ("optimal", optimal_executions),
        ] {
            let tree = keep_going(&program, &["--strategy", strategy]);
            assert_eq!(
                tree.fingerprints(),
                oracle.fingerprints(),
                "{file} {strategy}: other partial orders than the oracle"
            );
            assert_eq!(
                tree.bug_signatures(),
                oracle.bug_signatures(),
                "{file} {strategy}: other bugs than the oracle"
            );
            assert_eq!(tree.executions(), executions, "{file} {strategy}");
            assert_eq!(stat(&tree, "repeated paths"), "0", "{file} {strategy}");
        }
    }
}

#[test]
fn the_combined_tree_runs_fewer_executions_than_a_search_per_input_vector() {
    // Branches on inputs and on shared values read from inputs under every
    // interleaving: the combined tree explores the scheduling nodes above
    // a flipped branch once, a search per input vector again for each.
    for (file, tree_executions, restart_executions, restart_repeated) in [
        // Oracle (exhaustive per input vector): 4 executions, 3 partial
        // orders (see the test above).
        ("concolic_schedule_branch.c", 3, 4, 1),
        // Five threads: the oracle is out of reach; dpor per input vector
        // (complete for each) is the reference.
        ("concolic_updater.c", 36, 47, 14),
    ] {
        let program = build_example(file);
        let tree = keep_going(&program, &[]);
        let restart = keep_going(&program, &["--concolic-restart"]);
        assert_eq!(
            tree.executions(),
            tree_executions,
            "{file}: {}",
            tree.stdout
        );
        assert_eq!(
            restart.executions(),
            restart_executions,
            "{file}: {}",
            restart.stdout
        );
        assert!(tree.executions() < restart.executions(), "{file}");
        assert_eq!(stat(&tree, "repeated paths"), "0", "{file}");
        assert_eq!(
            stat(&restart, "repeated paths"),
            restart_repeated.to_string(),
            "{file}"
        );
        assert_eq!(tree.fingerprints(), restart.fingerprints(), "{file}");
        assert_eq!(tree.bug_signatures(), restart.bug_signatures(), "{file}");
    }
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
    // The deadlock needs a > 8 and b < -2: which model z3 gives depends on
    // the constraints of the path flipped, so on the exploration order.
    let updater_inputs = match strategy {
        "optimal" => &["a = 10", "b = -5"][..],
        "unfold" => &["a = 10", "b = -7"][..],
        _ => &["a = 10", "b = -4"][..],
    };
    for (file, kind, inputs) in [
        ("concolic_updater_deadlock.c", "deadlock", updater_inputs),
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

/// Optimal DPOR as the scheduling part of the combined tree: its wakeup
/// sequences run with the inputs they were recorded under, so a reversal
/// found under two input vectors may be explored under each (the repeated
/// paths a backtracking choice of dpor does not have).
#[test]
fn optimal_dpor_finds_the_same_bugs_and_paths() {
    same_bugs_and_paths("optimal", 41);
    let tree = keep_going(
        &build_example("concolic_updater.c"),
        &["--strategy", "optimal"],
    );
    let restart = keep_going(
        &build_example("concolic_updater.c"),
        &["--strategy", "optimal", "--concolic-restart"],
    );
    assert_eq!((tree.executions(), restart.executions()), (41, 43));
    assert_eq!(stat(&tree, "repeated paths"), "7");
    assert_eq!(stat(&restart, "repeated paths"), "13");
    assert_eq!(tree.fingerprints(), restart.fingerprints());
}

/// Unfolding-based testing under concolic testing: the branches on inputs
/// are events of one unfolding, whose targets run with inputs solved from
/// their causal past.
#[test]
fn unfold_finds_the_same_bugs_and_paths() {
    same_bugs_and_paths("unfold", 30);
}

/// The unfolding with symbolic branch events is the same whichever
/// possible extension is taken first and with several jobs, covers every
/// path of the sequential examples, and needs fewer executions than dpor
/// on the concurrent ones.
#[test]
fn unfold_builds_one_unfolding_over_inputs() {
    for (file, events, executions) in [
        ("concolic_updater.c", 311, 30),
        ("concolic_counter_loop.c", 732, 61),
        ("concolic_resize_index.c", 101, 8),
    ] {
        let program = build_example(file);
        let mut seen = Vec::new();
        for options in [
            &["--unfold-order", "oldest"][..],
            &["--unfold-order", "newest"][..],
            &["--jobs", "2"][..],
        ] {
            let mut all = vec!["--strategy", "unfold"];
            all.extend_from_slice(options);
            let run = keep_going(&program, &all);
            assert!(run.complete(), "{file} {options:?}: {}", run.stdout);
            assert_eq!(
                stat(&run, "unfolding events"),
                events.to_string(),
                "{file} {options:?}"
            );
            assert_eq!(stat(&run, "targets not reached"), "0", "{file} {options:?}");
            seen.push(run.executions());
        }
        assert_eq!(seen[0], executions, "{file}");
        let dpor = keep_going(&program, &["--strategy", "dpor"]);
        assert!(
            dpor.executions() > executions,
            "{file}: dpor {} against unfold {executions}",
            dpor.executions()
        );
    }
}

#[test]
fn without_symbolic_instrumentation_inputs_keep_their_defaults_and_the_run_says_so() {
    // The same program built without the shadow computations
    // (REACH_SYMBOLIC=0): one input vector (mode = 0), no deadlock, and the
    // search does not claim to be complete.
    let program = build_source_as(
        "c-examples/concolic_input_deadlock.c",
        &["-O1", "-g"],
        "concolic_input_deadlock-concrete",
        false,
    );
    let run = reach(&program, &[], &[]);
    assert_eq!(run.code, 3, "{}\n{}", run.stdout, run.stderr);
    assert!(run.json["bug"].is_null());
    assert!(!run.complete(), "{}", run.stdout);
    let coverage = run
        .stdout
        .lines()
        .find(|l| l.starts_with("coverage: "))
        .unwrap_or_default();
    assert!(
        coverage.contains("not complete: inputs fixed at their defaults"),
        "{coverage}"
    );
    assert!(!coverage.contains("complete: every"), "{coverage}");
}

/// reach-cc turns the shadow computations on by itself in a module that
/// calls the input functions: built with no variable set, the program's
/// deadlock that needs an input is found.
#[test]
fn reach_cc_traces_a_program_that_reads_inputs_without_being_asked() {
    let exe = reach_tests::scratch().join("concolic_input_deadlock-auto");
    let status = Command::new(bin("reach-cc"))
        .env_remove("REACH_SYMBOLIC")
        .args(["-O1", "-g"])
        .arg(root().join("c-examples/concolic_input_deadlock.c"))
        .arg("-o")
        .arg(&exe)
        .status()
        .expect("run reach-cc");
    assert!(status.success());
    let run = reach(&exe, &[], &[]);
    assert_eq!(run.code, 1, "{}\n{}", run.stdout, run.stderr);
    assert_eq!(
        run.bug_kind().as_deref(),
        Some("deadlock"),
        "{}",
        run.stdout
    );
    // A program that reads no input stays without them.
    let plain = reach_tests::scratch().join("racy_counter-auto");
    let status = Command::new(bin("reach-cc"))
        .env_remove("REACH_SYMBOLIC")
        .arg(root().join("c-examples/racy_counter.c"))
        .arg("-o")
        .arg(&plain)
        .status()
        .expect("run reach-cc");
    assert!(status.success());
    let run = reach(&plain, &["--strategy", "branches"], &[]);
    assert_eq!(run.code, 2, "{}", run.stdout);
    let lines: Vec<&str> = run.stderr.lines().collect();
    assert_eq!(lines.len(), 1, "{}", run.stderr);
    assert!(
        lines[0].contains("--strategy branches needs the branch conditions traced"),
        "{}",
        run.stderr
    );
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
