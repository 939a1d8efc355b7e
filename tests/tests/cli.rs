//! The command line as a user meets it: exit statuses, bad input, the JSON
//! report, uninstrumented binaries, replay of a tampered schedule, and long
//! executions (the recording bound, an explicit step bound).

use reach_tests::{bin, build_example, reach, schedule_of, scratch};
use std::process::Command;

fn run_raw(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(bin("reach-native"))
        .args(args)
        .output()
        .expect("run reach-native");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn one_error_line(stderr: &str) {
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 1, "expected one line, got: {stderr}");
    assert!(lines[0].starts_with("reach-native: error:"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn missing_program_is_one_clear_error() {
    let (code, _, stderr) = run_raw(&["/nonexistent/program"]);
    assert_eq!(code, 2);
    one_error_line(&stderr);
    assert!(stderr.contains("does not exist"), "{stderr}");
}

#[test]
fn non_elf_file_is_one_clear_error() {
    let text = scratch().join("not-a-program.txt");
    std::fs::write(&text, "hello\n").expect("write");
    let (code, _, stderr) = run_raw(&[text.to_str().expect("utf-8 path")]);
    assert_eq!(code, 2);
    one_error_line(&stderr);
    assert!(stderr.contains("not an ELF"), "{stderr}");
}

#[test]
fn static_binary_is_one_clear_error() {
    let source = scratch().join("static_main.c");
    std::fs::write(&source, "int main(void) { return 0; }\n").expect("write");
    let exe = scratch().join("static_main");
    let built = Command::new("clang-22")
        .arg("-static")
        .arg(&source)
        .arg("-o")
        .arg(&exe)
        .status()
        .expect("run clang-22");
    assert!(built.success(), "clang-22 -static failed");
    let (code, _, stderr) = run_raw(&[exe.to_str().expect("utf-8 path")]);
    assert_eq!(code, 2);
    one_error_line(&stderr);
    assert!(stderr.contains("statically linked"), "{stderr}");
}

/// A program instrumented for an older hook ABI (a site table without a
/// version record: its read-modify-write hook passes fewer arguments) is
/// refused with one line saying to rebuild it.
#[test]
fn program_built_for_another_hook_abi_is_one_clear_error() {
    let source = scratch().join("old_abi.c");
    std::fs::write(
        &source,
        "__attribute__((used, section(\"reach_sites\"))) static const char table[] =\n\
         \"0000000100000000\\tload\\told_abi.c\\t1\\t1\\tmain\\t\\n\";\n\
         int main(void) { return 0; }\n",
    )
    .expect("write");
    let exe = scratch().join("old_abi");
    let built = Command::new("clang-22")
        .arg(&source)
        .arg("-o")
        .arg(&exe)
        .status()
        .expect("run clang-22");
    assert!(built.success(), "clang-22 failed");
    let (code, _, stderr) = run_raw(&[exe.to_str().expect("utf-8 path")]);
    assert_eq!(code, 2, "{stderr}");
    one_error_line(&stderr);
    assert!(
        stderr.contains("hook ABI version 1") && stderr.contains("rebuild it"),
        "{stderr}"
    );
}

#[test]
fn usage_errors_exit_2() {
    let (code, _, _) = run_raw(&["--strategy", "nonsense", "/bin/true"]);
    assert_eq!(code, 2);
    let (code, _, stderr) = run_raw(&["--timeout", "-1", "/bin/true"]);
    assert_eq!(code, 2, "{stderr}");
}

#[test]
fn uninstrumented_binary_runs_at_synchronisation_granularity() {
    let exe = scratch().join("dining_plain");
    let source = reach_tests::root().join("c-examples/dining_philosophers.c");
    let built = Command::new("clang-22")
        .args(["-g", "-pthread"])
        .arg(&source)
        .arg("-o")
        .arg(&exe)
        .status()
        .expect("run clang-22");
    assert!(built.success());
    let run = reach(&exe, &[], &[]);
    assert!(run.stderr.contains("is not instrumented"), "{}", run.stderr);
    assert_eq!(
        run.bug_kind().as_deref(),
        Some("deadlock"),
        "{}",
        run.stdout
    );
    assert_eq!(run.json["instrumented"], false);
}

#[test]
fn execution_limit_exits_3() {
    let program = build_example("many_threads.c");
    let run = reach(&program, &["--max-executions", "2"], &[]);
    assert_eq!(run.code, 3, "{}", run.stderr);
    assert_eq!(run.executions(), 2);
    assert_eq!(run.json["complete"], false);
    assert_eq!(run.json["stop_reason"], "execution limit");
}

#[test]
fn json_report_has_the_documented_fields() {
    let program = build_example("abba_deadlock.c");
    let run = reach(&program, &["--stats"], &[]);
    let json = &run.json;
    assert!(json["executions"].as_u64().is_some_and(|n| n >= 1));
    assert_eq!(json["complete"], false);
    let bug = &json["bug"];
    assert_eq!(bug["kind"], "deadlock");
    assert!(bug["message"]
        .as_str()
        .is_some_and(|m| m.contains("waits for mutex")));
    let schedule = bug["schedule"].as_array().expect("schedule");
    let trace = bug["trace"].as_array().expect("trace");
    let scheduled: u64 = schedule.iter().filter_map(|run| run[1].as_u64()).sum();
    assert_eq!(
        scheduled,
        trace.len() as u64,
        "a short trace is shown whole"
    );
    assert_eq!(bug["steps_recorded"].as_u64(), Some(scheduled));
    assert_eq!(bug["steps_total"].as_u64(), Some(scheduled));
    assert_eq!(bug["steps_shown"].as_u64(), Some(scheduled));
    assert_eq!(bug["truncated"], false);
    let per_thread: u64 = bug["thread_steps"]
        .as_array()
        .expect("thread_steps")
        .iter()
        .filter_map(|n| n.as_u64())
        .sum();
    assert_eq!(per_thread, scheduled);
    assert!(trace.iter().any(|s| s["location"]
        .as_str()
        .is_some_and(|l| l.contains("abba_deadlock.c:"))));
    assert!(json["partial_orders"].as_u64().is_some());
}

#[test]
fn clean_complete_search_exits_0() {
    let program = build_example("mutex_counter.c");
    let run = reach(&program, &[], &[]);
    assert_eq!(run.code, 0);
    assert_eq!(run.json["complete"], true);
    assert!(run.json["bug"].is_null());
}

#[test]
fn tampered_schedule_is_reported_as_nondeterminism() {
    let program = build_example("abba_deadlock.c");
    let run = reach(&program, &[], &[]);
    assert_eq!(run.code, 1);
    let path = schedule_of(&program);
    let mut schedule: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).expect("schedule file"))
            .expect("json");
    schedule["check"][1][2] = serde_json::json!("0123456789abcdef");
    let tampered = scratch().join("tampered.schedule");
    std::fs::write(&tampered, schedule.to_string()).expect("write");
    let replay = reach(
        &program,
        &["--replay", tampered.to_str().expect("utf-8 path")],
        &[],
    );
    assert_eq!(
        replay.bug_kind().as_deref(),
        Some("nondeterminism"),
        "{}",
        replay.stdout
    );
    assert!(replay.stdout.contains("at step 1"), "{}", replay.stdout);
}

/// The replay command a bug report prints, run as printed through a shell
/// (the program's arguments quoted), replays the bug from a shell with one
/// more environment variable, and from another directory with a much larger
/// environment, with the same bug and interleaving: the racing accesses
/// are to `main`'s stack frame, which moves with the environment's size
/// unless the driver pads it.
#[test]
fn printed_replay_command_replays_from_any_shell_and_directory() {
    let program = build_example("stack_counter_args.c");
    let dir = scratch().join(format!("replay-anywhere-{}", std::process::id()));
    let elsewhere = dir.join("elsewhere");
    std::fs::create_dir_all(&elsewhere).expect("create directories");
    std::fs::copy(&program, dir.join("prog")).expect("copy the program");
    let path_var = format!(
        "{}:{}",
        reach_tests::bin_dir().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let sh = |cwd: &std::path::Path, line: &str, extra: &[(&str, String)]| {
        let out = Command::new("sh")
            .arg("-c")
            .arg(line)
            .current_dir(cwd)
            .env("PATH", &path_var)
            .envs(extra.iter().map(|(k, v)| (k, v)))
            .output()
            .expect("run sh");
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout).into_owned(),
        )
    };
    let (code, stdout) = sh(
        &dir,
        "reach-native --jobs 1 --json found.json ./prog 2 'two words'",
        &[],
    );
    assert_eq!(code, 1, "{stdout}");
    let printed = stdout
        .lines()
        .skip_while(|l| !l.contains("replay with:"))
        .nth(1)
        .map(str::trim)
        .expect("a printed replay command");
    assert_eq!(
        printed,
        "reach-native --replay reach-native.schedule ./prog 2 'two words'"
    );
    let read = |path: std::path::PathBuf| -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(path).expect("json report")).expect("json")
    };
    let found = read(dir.join("found.json"));
    assert_eq!(found["bug"]["kind"], "data_race");
    let message = found["bug"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("T0 stack (main: counter)"), "{message}");
    let with_json =
        |json: &str| printed.replacen("reach-native ", &format!("reach-native --json {json} "), 1);
    // One more variable, as printed.
    let (code, stdout) = sh(
        &dir,
        &with_json("same-dir.json"),
        &[("REACH_TEST_EXTRA", "1".to_string())],
    );
    assert_eq!(code, 1, "{stdout}");
    // Another directory, and 20 KiB more environment in 40 more variables.
    let far = format!(
        "cd elsewhere && {}",
        with_json("../far.json").replace(
            " reach-native.schedule ./prog",
            " ../reach-native.schedule ../prog"
        )
    );
    let many: Vec<(String, String)> = (0..40)
        .map(|i| (format!("REACH_TEST_FILL_{i}"), "x".repeat(512)))
        .collect();
    let extra: Vec<(&str, String)> = many.iter().map(|(k, v)| (k.as_str(), v.clone())).collect();
    let (code, stdout) = sh(&dir, &far, &extra);
    assert_eq!(code, 1, "{stdout}");
    for replayed in [read(dir.join("same-dir.json")), read(dir.join("far.json"))] {
        assert_eq!(replayed["bug"]["kind"], "data_race", "{replayed}");
        assert_eq!(replayed["bug"]["message"], found["bug"]["message"]);
        assert_eq!(replayed["bug"]["trace"], found["bug"]["trace"]);
    }
}

/// A bug recorded in an environment larger than the default room (100 KB
/// more) records the room it took, and replays in a small environment with
/// the same trace.
#[test]
fn a_schedule_recorded_in_a_large_environment_replays_in_a_small_one() {
    let program = build_example("stack_counter_args.c");
    let dir = scratch().join(format!("replay-large-env-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("create the directory");
    let run = |extra: Option<String>, options: &[&str], json: &str| -> serde_json::Value {
        let mut cmd = Command::new(bin("reach-native"));
        cmd.current_dir(&dir).env_remove("REACH_TEST_LARGE");
        if let Some(value) = extra {
            cmd.env("REACH_TEST_LARGE", value);
        }
        let out = cmd
            .args(["--jobs", "1", "--json", json])
            .args(options)
            .arg(&program)
            .args(["2", "two words"])
            .output()
            .expect("run reach-native");
        assert_eq!(
            out.status.code(),
            Some(1),
            "{}",
            String::from_utf8_lossy(&out.stdout)
        );
        serde_json::from_str(&std::fs::read_to_string(dir.join(json)).expect("report"))
            .expect("json")
    };
    let found = run(Some("x".repeat(100_000)), &[], "found.json");
    let schedule = std::fs::read_to_string(dir.join("reach-native.schedule")).expect("schedule");
    assert!(schedule.contains("\"env_layout\""), "{schedule}");
    let replayed = run(
        None,
        &["--replay", "reach-native.schedule"],
        "replayed.json",
    );
    assert_eq!(replayed["bug"]["kind"], "data_race");
    assert_eq!(replayed["bug"]["trace"], found["bug"]["trace"]);
}

#[test]
fn garbage_schedule_file_is_one_clear_error() {
    let program = build_example("abba_deadlock.c");
    let bad = scratch().join("garbage.schedule");
    std::fs::write(&bad, "{ not json").expect("write");
    let (code, _, stderr) = run_raw(&[
        "--replay",
        bad.to_str().expect("utf-8 path"),
        program.to_str().expect("utf-8 path"),
    ]);
    assert_eq!(code, 2);
    one_error_line(&stderr);
}

#[test]
fn deadlock_report_names_the_cycle() {
    let program = build_example("dining_philosophers.c");
    let run = reach(&program, &[], &[]);
    assert_eq!(run.bug_kind().as_deref(), Some("deadlock"));
    let message = run.json["bug"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("cycle: thread 1 -> thread 2 -> thread 3 -> thread 1"),
        "{message}"
    );
    assert!(message.contains("dining_philosophers.c:33"), "{message}");
}

#[test]
fn recorded_clean_execution_replays_exactly() {
    let program = build_example("mutex_counter.c");
    let file = |name: &str| scratch().join(format!("record-{}-{name}", std::process::id()));
    let read = |path: &std::path::Path| -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(path).expect("recorded file")).expect("json")
    };
    let (first, second, again) = (file("1"), file("2"), file("again"));
    for (path, n) in [(&first, "1"), (&second, "2")] {
        let run = reach(
            &program,
            &[
                "--record",
                path.to_str().expect("utf-8"),
                "--record-execution",
                n,
            ],
            &[],
        );
        assert_eq!(run.code, 0, "{}", run.stderr);
        assert_eq!(run.executions(), 2);
    }
    let (one, two) = (read(&first), read(&second));
    assert!(one["bug"].is_null());
    assert_ne!(
        one["schedule"], two["schedule"],
        "two executions, one interleaving"
    );
    let replay = reach(
        &program,
        &[
            "--replay",
            second.to_str().expect("utf-8"),
            "--record",
            again.to_str().expect("utf-8"),
        ],
        &[],
    );
    assert_eq!(replay.code, 0, "{}", replay.stdout);
    let replayed = read(&again);
    for field in ["schedule", "check", "recorded_steps", "total_steps"] {
        assert_eq!(replayed[field], two[field], "{field}");
    }
    let past_the_end = reach(
        &program,
        &[
            "--max-executions",
            "1",
            "--record",
            again.to_str().expect("utf-8"),
            "--record-execution",
            "5",
        ],
        &[],
    );
    assert!(
        past_the_end.stderr.contains("execution 5 did not run"),
        "{}",
        past_the_end.stderr
    );
}

/// A schedule recorded with `--exit-cuts-threads`, whose exit cut a thread
/// short, says so, and `--replay` re-runs it in that mode without being
/// told (in the default mode the exit would wait and the replay diverge).
#[test]
fn schedule_with_a_cutting_exit_replays_in_its_mode() {
    let program = build_example("prim_exit_from_thread.c");
    let path = scratch().join(format!("record-{}-cutting", std::process::id()));
    let recorded = reach(
        &program,
        &[
            "--exit-cuts-threads",
            "--record",
            path.to_str().expect("utf-8"),
            "--record-execution",
            "5",
        ],
        &[],
    );
    assert_eq!(recorded.code, 0, "{}", recorded.stderr);
    let text = std::fs::read_to_string(&path).expect("recorded file");
    assert!(text.contains("\"exit_cuts_threads\": true"), "{text}");
    let replay = reach(&program, &["--replay", path.to_str().expect("utf-8")], &[]);
    assert_eq!(replay.code, 0, "{}", replay.stdout);
    assert!(replay.bug_kind().is_none(), "{}", replay.stdout);
}

/// An execution longer than the recording bound runs to its end: no hang,
/// but the search is bounded (only the recorded steps were explored).
#[test]
fn long_execution_past_the_recording_bound_is_bounded_not_a_hang() {
    let program = build_example("long_startup.c");
    // Every access a step: main's startup before it creates a thread is
    // otherwise no step at all.
    let run = reach(
        &program,
        &["--max-recorded-steps", "100000", "--no-private-accesses"],
        &[],
    );
    assert_eq!(run.code, 3, "{}\n{}", run.stdout, run.stderr);
    assert!(run.json["bug"].is_null(), "{}", run.stdout);
    assert_eq!(run.json["complete"], false);
    let reason = run.json["stop_reason"].as_str().unwrap_or_default();
    assert!(
        reason.starts_with("bounded:")
            && reason.contains("longer than 100000 steps")
            && reason.contains("--max-recorded-steps"),
        "{reason}"
    );
    // The workers start after the recorded steps: nothing to reverse there.
    assert_eq!(run.executions(), 1);
}

/// An explicit `--max-steps` still makes a long execution a hang, named by
/// its bound; the report and the schedule file stay small, and the
/// schedule replays the hang (under the bound it records).
#[test]
fn explicit_step_bound_is_a_hang_with_small_reports() {
    let program = build_example("long_startup.c");
    // Every access a step (main's startup is otherwise no step at all).
    let run = reach(
        &program,
        &["--max-steps", "150000", "--no-private-accesses"],
        &[],
    );
    assert_eq!(run.code, 1, "{}\n{}", run.stdout, run.stderr);
    assert_eq!(run.bug_kind().as_deref(), Some("hang"));
    let bug = &run.json["bug"];
    let message = bug["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("step bound of 150000 steps") && message.contains("--max-steps"),
        "{message}"
    );
    assert_eq!(bug["steps_total"].as_u64(), Some(150_000));
    assert_eq!(bug["steps_recorded"].as_u64(), Some(150_000));
    let shown = bug["trace"].as_array().expect("trace");
    assert_eq!(bug["steps_shown"].as_u64(), Some(shown.len() as u64));
    assert!(shown.len() <= 50, "one thread ran: its last 50 steps");
    assert_eq!(shown.last().and_then(|s| s["step"].as_u64()), Some(149_999));
    assert!(run.stdout.contains("149950 steps elided"), "{}", run.stdout);

    let json_bytes = run.json.to_string().len();
    assert!(json_bytes < 1 << 20, "JSON report of {json_bytes} bytes");
    let schedule = schedule_of(&program);
    let schedule_bytes = std::fs::metadata(&schedule).expect("schedule").len();
    assert!(
        schedule_bytes < 16 << 10,
        "schedule file of {schedule_bytes} bytes"
    );

    let schedule_text = schedule.to_string_lossy().into_owned();
    let replay = reach(&program, &["--replay", schedule_text.as_str()], &[]);
    assert_eq!(
        replay.bug_kind().as_deref(),
        Some("hang"),
        "{}",
        replay.stdout
    );
    assert_eq!(replay.json["bug"]["trace"], run.json["bug"]["trace"]);
    assert_eq!(replay.json["bug"]["message"], run.json["bug"]["message"]);
}

/// `--commute-rmws` needs a strategy that uses the dependency relation it
/// changes; reachability testing (and the branch-directed search built on
/// it) and unfolding have their own models of read-modify-writes and
/// refuse it with one line.
#[test]
fn commute_rmws_with_rt_or_unfold_is_one_clear_error() {
    let program = build_example("ainc.c");
    let program = program.to_str().expect("utf-8 path");
    for strategy in ["rt", "unfold", "branches"] {
        let (code, _, stderr) = run_raw(&["--strategy", strategy, "--commute-rmws", program]);
        assert_eq!(code, 2, "{strategy}: {stderr}");
        one_error_line(&stderr);
        assert!(stderr.contains("--commute-rmws"), "{stderr}");
    }
}

/// `--help` groups the options under headings, in the order a user looks
/// for them, and names every mode in its usage; `--version` states the
/// hook ABI version and the LLVM of the compiler wrappers.
#[test]
fn help_groups_options_under_headings_and_version_names_abi_and_llvm() {
    let (code, help, _) = run_raw(&["--help"]);
    assert_eq!(code, 0);
    for heading in [
        "What to explore:",
        "What counts as a bug:",
        "Limits:",
        "Inputs (concolic testing):",
        "Reports and replay:",
        "How executions run:",
        "Sharding:",
    ] {
        assert!(help.lines().any(|l| l == heading), "no heading {heading}");
    }
    // The only options left under the plain "Options:" heading are
    // --help and --version.
    let (_, short, _) = run_raw(&["-h"]);
    let options = short
        .split("\nOptions:\n")
        .nth(1)
        .and_then(|rest| rest.split("\n\n").next())
        .unwrap_or_default();
    let listed: Vec<&str> = options
        .lines()
        .filter(|l| l.trim_start().starts_with('-'))
        .collect();
    assert_eq!(listed.len(), 2, "{options}");
    assert!(help.contains("reach-native test [OPTIONS] PROGRAM [FILTER]..."));
    let (code, version, _) = run_raw(&["--version"]);
    assert_eq!(code, 0);
    assert!(version.contains("hook ABI version 2"), "{version}");
    assert!(version.contains("LLVM 22."), "{version}");
}
