//! `reach-native test`: the test cases of a GoogleTest and a Catch2 binary
//! (built with `reach-c++` against Debian's packages) each explored as a
//! search of its own: the racy test's bug found and replayed from the
//! schedule the run names, the correct test passing in exactly its number
//! of executions, the exit status that of the worst test, and the JSON and
//! JUnit reports with one entry per test.

use reach_tests::{bin, root, scratch};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Mutex, OnceLock};

/// Builds `cpp-examples/<source>` with `reach-c++` and `libs` after it.
fn build(source: &str, name: &str, libs: &[&str]) -> PathBuf {
    let out = scratch().join(name);
    let status = Command::new(bin("reach-c++"))
        .args(["-std=c++17", "-g", "-O1"])
        .arg(root().join("cpp-examples").join(source))
        .arg("-o")
        .arg(&out)
        .args(libs)
        .args(["-pthread"])
        .status()
        .expect("run reach-c++");
    assert!(status.success(), "building {source} failed");
    out
}

/// The GoogleTest example, built once per test process.
fn gtest_queue() -> PathBuf {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT
        .get_or_init(|| {
            build(
                "gtest_queue.cpp",
                "gtest_queue",
                &["-lgtest", "-lgtest_main"],
            )
        })
        .clone()
}

/// The Catch2 example (its prebuilt main), built once per test process.
fn catch2_queue() -> PathBuf {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT
        .get_or_init(|| {
            build(
                "catch2_queue.cpp",
                "catch2_queue",
                &["/usr/lib/libCatch2WithMain.a"],
            )
        })
        .clone()
}

/// `reach-native test OPTIONS PROGRAM FILTERS` in a directory of its own
/// (`dir`, where the schedules go).
fn reach_test(dir: &Path, options: &[&str], program: &Path, filters: &[&str]) -> Output {
    std::fs::create_dir_all(dir).expect("create the run's directory");
    Command::new(bin("reach-native"))
        .current_dir(dir)
        .arg("test")
        .args(options)
        .arg(program)
        .args(filters)
        .output()
        .expect("run reach-native test")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn read_json(path: &Path) -> Value {
    let bytes = std::fs::read(path).expect("the --json report");
    serde_json::from_slice(&bytes).expect("valid JSON")
}

/// The test entry named `name` of a `reach-native test --json` report.
fn entry<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["tests"]
        .as_array()
        .and_then(|tests| tests.iter().find(|t| t["name"] == name))
        .unwrap_or_else(|| panic!("no test {name} in {report}"))
}

/// Checks a suite of one racy and one correct test: verdicts, executions,
/// exit status, reports, and that the bug's replay command reproduces it.
fn check_suite(
    program: &Path,
    dir_name: &str,
    options: &[&str],
    racy: (&str, &str),
    correct: (&str, u64),
) {
    let dir = scratch().join(dir_name);
    let json = dir.join("report.json");
    let junit = dir.join("junit.xml");
    let json_text = json.display().to_string();
    let junit_text = junit.display().to_string();
    let mut all = vec!["--json", json_text.as_str(), "--junit", junit_text.as_str()];
    all.extend_from_slice(options);
    let run = reach_test(&dir, &all, program, &[]);
    let stdout = text(&run.stdout);
    assert_eq!(
        run.status.code(),
        Some(1),
        "{stdout}\n{}",
        text(&run.stderr)
    );
    let (racy_name, kind) = racy;
    let (correct_name, executions) = correct;
    assert!(
        stdout.contains(&format!("BUG {kind} [")) && stdout.contains(racy_name),
        "{stdout}"
    );
    assert!(
        stdout.contains(&format!("{correct_name} ({executions} executions)")),
        "{stdout}"
    );
    assert!(
        stdout.contains("2 tests run: 1 passed, 1 with a bug"),
        "{stdout}"
    );
    let report = read_json(&json);
    assert_eq!(report["exit_status"], 1);
    assert_eq!(report["tests"].as_array().map(Vec::len), Some(2));
    let bug = entry(&report, racy_name);
    assert_eq!(bug["status"], "bug");
    assert_eq!(bug["bug_kind"], kind);
    assert_eq!(bug["report"]["bug"]["kind"], kind);
    let pass = entry(&report, correct_name);
    assert_eq!(pass["status"], "pass");
    assert_eq!(pass["executions"], executions);
    assert_eq!(pass["report"]["complete"], true);
    let xml = std::fs::read_to_string(&junit).expect("the --junit report");
    assert_eq!(xml.matches("<testcase ").count(), 2, "{xml}");
    assert_eq!(xml.matches("<failure ").count(), 1, "{xml}");
    // The replay command printed for the bug reproduces it.
    let replay = bug["replay"].as_str().expect("a replay command");
    assert!(stdout.contains(replay), "{stdout}");
    let schedule = bug["schedule"].as_str().expect("a schedule file");
    let replayed = Command::new(bin("reach-native"))
        .current_dir(&dir)
        .args(["--json", "replay.json", "--replay", schedule])
        .arg(program)
        .args(test_args_of(replay, program))
        .output()
        .expect("run the replay");
    assert_eq!(
        replayed.status.code(),
        Some(1),
        "{}",
        text(&replayed.stdout)
    );
    let again = read_json(&dir.join("replay.json"));
    assert_eq!(again["bug"]["kind"], kind);
    assert_eq!(again["bug"]["trace"], bug["report"]["bug"]["trace"]);
}

/// The harness arguments at the end of a replay command (after the
/// program), unquoted.
fn test_args_of(replay: &str, program: &Path) -> Vec<String> {
    let program = program.display().to_string();
    let (_, rest) = replay
        .split_once(&program)
        .expect("the program in the command");
    let rest = rest.trim();
    match rest.strip_prefix('\'').and_then(|r| r.strip_suffix('\'')) {
        Some(quoted) => vec![quoted.to_string()],
        None => rest.split(' ').map(str::to_string).collect(),
    }
}

#[test]
fn googletest_racy_test_is_found_and_correct_test_passes() {
    check_suite(
        &gtest_queue(),
        "harness-gtest",
        &[],
        ("RingQueue.UnlockedPushesRace", "data_race"),
        ("RingQueue.LockedPushesKeepEveryItem", 2),
    );
}

#[test]
fn googletest_tests_run_several_at_once_with_the_same_verdicts() {
    check_suite(
        &gtest_queue(),
        "harness-gtest-jobs",
        &["--jobs", "2"],
        ("RingQueue.UnlockedPushesRace", "data_race"),
        ("RingQueue.LockedPushesKeepEveryItem", 2),
    );
}

#[test]
fn catch2_lost_update_is_found_and_correct_test_passes() {
    check_suite(
        &catch2_queue(),
        "harness-catch2",
        &[],
        ("increments in two steps, lose one", "assertion"),
        ("locked increments are all counted", 2),
    );
}

#[test]
fn a_filter_picks_tests_and_the_exit_status_is_the_worst_of_those_run() {
    let program = gtest_queue();
    let dir = scratch().join("harness-filter");
    let run = reach_test(&dir, &["-q"], &program, &["Locked"]);
    let stdout = text(&run.stdout);
    assert_eq!(run.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("1 test, 1 filtered out"), "{stdout}");
    assert!(stdout.contains("1 test run: 1 passed"), "{stdout}");
    // A limit without a bug is exit status 3.
    let run = reach_test(&dir, &["--max-executions", "1"], &program, &["Locked"]);
    assert_eq!(run.status.code(), Some(3), "{}", text(&run.stdout));
    assert!(text(&run.stdout).contains("LIMIT ["));
}

#[test]
fn a_program_without_a_known_harness_is_one_clear_error() {
    let dir = scratch().join("harness-none");
    let run = reach_test(&dir, &[], Path::new("/bin/true"), &[]);
    assert_eq!(run.status.code(), Some(2));
    let stderr = text(&run.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("has no test harness"), "{stderr}");
    let run = reach_test(&dir, &["--replay", "x"], &gtest_queue(), &[]);
    assert_eq!(run.status.code(), Some(2));
    assert!(text(&run.stderr).contains("--replay does not apply"));
    let run = reach_test(&dir, &[], &gtest_queue(), &["--jobs", "2"]);
    assert_eq!(run.status.code(), Some(2));
    assert!(text(&run.stderr).contains("--jobs comes after the program"));
}

/// `cargo reach` on `rust-examples/` (a workspace; `lock-kit` depends on
/// `lock_api` and `once_cell` from crates.io, offline from the registry
/// cache), into a target directory apart from the other tests' builds;
/// one at a time (a new `reach-rustc` empties the target directory first).
fn cargo_reach(dir: &Path, args: &[&str]) -> Output {
    static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    std::fs::create_dir_all(dir).expect("create the run's directory");
    let target = reach_tests::bin_dir()
        .parent()
        .map(|t| t.join("cargo-reach"))
        .unwrap_or_else(|| scratch().join("cargo-reach"));
    Command::new(bin("cargo-reach"))
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", &target)
        .arg("reach")
        .args(args)
        .output()
        .expect("run cargo-reach")
}

#[test]
fn cargo_reach_test_explores_every_test_of_every_test_binary() {
    let dir = scratch().join("harness-cargo-test");
    let manifest = root().join("rust-examples/Cargo.toml");
    let manifest = manifest.display().to_string();
    let run = cargo_reach(
        &dir,
        &[
            "test",
            "--offline",
            "--manifest-path",
            &manifest,
            "-p",
            "sync-kit",
            "-p",
            "lock-kit",
            "--",
            "--json",
            "report.json",
            "-q",
        ],
    );
    let stdout = text(&run.stdout);
    let stderr = text(&run.stderr);
    assert_eq!(run.status.code(), Some(1), "{stdout}\n{stderr}");
    assert!(
        stderr.contains("at opt-level 0 with full debug info"),
        "the build settings are said: {stderr}"
    );
    let sync_kit = read_json(&dir.join("report.sync_kit.json"));
    assert_eq!(sync_kit["harness"], "libtest");
    let clean = entry(&sync_kit, "tests::increments_are_not_lost");
    assert_eq!(clean["status"], "pass");
    assert_eq!(clean["executions"], 20);
    let lost = entry(&sync_kit, "tests::two_step_increments_lose_an_update");
    assert_eq!(lost["bug_kind"], "panic");
    let lock_kit = read_json(&dir.join("report.lock_kit.json"));
    let lost = entry(&lock_kit, "tests::tally_in_two_steps_loses_an_add");
    assert_eq!(lost["bug_kind"], "panic", "{lock_kit}");
    let message = lost["report"]["bug"]["message"]
        .as_str()
        .unwrap_or_default();
    assert!(message.contains("an add was lost"), "{message}");
    // Rust names read like Rust: no mangled symbol, no step placed in a
    // codegen unit's pseudo-file.
    let whole = lost["report"].to_string();
    assert!(!whole.contains("_RNv"), "a mangled name in {whole}");
    assert!(!whole.contains("-cgu."), "a codegen-unit file in {whole}");
    // At opt-level 0 `AtomicBool::swap` is a function of std's own: its
    // step is placed at the spin lock's line that calls it.
    let swaps = lost["report"]["bug"]["trace"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|s| {
            s["op"] == "A_RMW"
                && s["line"] == 20
                && s["file"]
                    .as_str()
                    .is_some_and(|f| f.ends_with("lock-kit/src/lib.rs"))
                && s["library"]["function"]
                    .as_str()
                    .is_some_and(|f| f.contains("AtomicBool") && f.ends_with("::swap"))
        })
        .count();
    assert!(
        swaps > 0,
        "no swap placed at lock-kit/src/lib.rs:20: {whole}"
    );
    // std's channel at opt-level 0: one step per channel operation.
    let channel = entry(&lock_kit, "tests::log_then_channel_hand_off");
    assert_eq!(channel["status"], "pass");
    assert_eq!(channel["executions"], 62);
    assert!(stdout.contains("Testing "), "{stdout}");
}

/// The spin lock of `lock_api`'s mutex, its threads waited for by
/// `thread::scope` (which parks): complete under dpor and under the
/// default strategy, whose wakeup sequences move a child's `unpark`
/// before the parent's `park` (the parker's `fetch_sub`, inlined into
/// std's `Thread::park`, is a visible step: no hidden dependency).
#[test]
fn cargo_reach_test_spin_lock_through_a_crates_io_mutex_is_clean_under_dpor() {
    let dir = scratch().join("harness-cargo-spin");
    let manifest = root().join("rust-examples/Cargo.toml");
    let manifest = manifest.display().to_string();
    for (strategy, executions) in [("dpor", 397), ("optimal", 294)] {
        let run = cargo_reach(
            &dir,
            &[
                "test",
                "--offline",
                "--manifest-path",
                &manifest,
                "-p",
                "lock-kit",
                "tally_keeps_every_add",
                "--",
                "--strategy",
                strategy,
            ],
        );
        let stdout = text(&run.stdout);
        let stderr = text(&run.stderr);
        assert_eq!(run.status.code(), Some(0), "{stdout}\n{stderr}");
        assert!(
            stdout.contains("PASS [")
                && stdout.contains(&format!(
                    "tests::tally_keeps_every_add ({executions} executions)"
                )),
            "{strategy}: {stdout}"
        );
        assert!(stdout.contains("1 test run: 1 passed"), "{stdout}");
        assert!(!stderr.contains("did not take a step"), "{stderr}");
    }
}

#[test]
fn cargo_reach_run_explores_the_binary() {
    let dir = scratch().join("harness-cargo-run");
    let manifest = root().join("rust-examples/Cargo.toml");
    let manifest = manifest.display().to_string();
    let run = cargo_reach(
        &dir,
        &[
            "run",
            "--offline",
            "--manifest-path",
            &manifest,
            "-p",
            "programs",
            "--bin",
            "lost_update",
            "--",
            "--json",
            "run.json",
        ],
    );
    assert_eq!(run.status.code(), Some(1), "{}", text(&run.stderr));
    let report = read_json(&dir.join("run.json"));
    assert_eq!(report["bug"]["kind"], "panic");
}
