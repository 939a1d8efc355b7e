//! `reach-native test`: every test case of a test binary explored as a
//! search of its own, one after another or several at once.
//!
//! Each test case is one `reach-native PROGRAM ARGS` run, a child process
//! of this one with the harness's arguments for that test: the searches
//! share nothing (a search installs its own Ctrl-C handler, pins its CPU,
//! reaps its own program processes and prints its own report), so several
//! can run at once and one that fails leaves the others as they were.

use super::outcome::{TestOutcome, Verdict};
use super::{Harness, TestCase};
use anyhow::{Context, Result};
use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

/// What `reach-native test` was asked to do.
#[derive(Clone, Debug)]
pub struct Suite {
    /// The `reach-native` executable that explores one test.
    pub reach_native: PathBuf,
    /// The test binary, as given.
    pub program: PathBuf,
    /// Its harness.
    pub harness: Harness,
    /// Search options handed to every test's run.
    pub search_options: Vec<OsString>,
    /// Tests run at once; 0: one at a time, each search with its default
    /// number of jobs.
    pub jobs: usize,
    /// Directory of the failing tests' schedule files.
    pub schedule_dir: PathBuf,
    /// Print only the test lines and the summary.
    pub quiet: bool,
}

/// Every test's outcome, in the harness's order.
#[derive(Debug)]
pub struct SuiteResult {
    /// One per test case listed and selected.
    pub outcomes: Vec<TestOutcome>,
    /// Wall time of the whole run.
    pub elapsed: std::time::Duration,
}

impl SuiteResult {
    /// The worst verdict's exit status (0 for no test).
    pub fn exit_status(&self) -> u8 {
        self.outcomes
            .iter()
            .map(|o| &o.verdict)
            .max()
            .map_or(0, Verdict::exit_status)
    }
}

/// The test cases whose names contain one of `filters` (all with none).
pub fn select(tests: Vec<TestCase>, filters: &[String]) -> Vec<TestCase> {
    tests
        .into_iter()
        .filter(|t| filters.is_empty() || filters.iter().any(|f| t.name.contains(f.as_str())))
        .collect()
}

/// Explores each of `tests` and prints its line as it ends; `interrupt`
/// (Ctrl-C) stops starting new ones.
pub fn run(suite: &Suite, tests: &[TestCase], interrupt: &AtomicBool) -> Result<SuiteResult> {
    let started = Instant::now();
    let scratch = Scratch::new()?;
    std::fs::create_dir_all(&suite.schedule_dir)
        .with_context(|| format!("cannot create {}", suite.schedule_dir.display()))?;
    let next = AtomicUsize::new(0);
    let results: Vec<Mutex<Option<TestOutcome>>> = tests.iter().map(|_| Mutex::new(None)).collect();
    let print = Mutex::new(());
    let workers = suite.jobs.max(1).min(tests.len().max(1));
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| loop {
                let index = next.fetch_add(1, Ordering::Relaxed);
                let Some(test) = tests.get(index) else { break };
                if interrupt.load(Ordering::Relaxed) {
                    break;
                }
                let outcome = if test.ignored {
                    TestOutcome::skipped(&test.name)
                } else {
                    explore_one(suite, test, &scratch.dir.join(format!("{index}.json")))
                };
                {
                    let _held = print.lock();
                    show(suite, &outcome);
                }
                if let Ok(mut slot) = results[index].lock() {
                    *slot = Some(outcome);
                }
            });
        }
    });
    let outcomes = results
        .into_iter()
        .filter_map(|slot| slot.into_inner().ok().flatten())
        .collect();
    Ok(SuiteResult {
        outcomes,
        elapsed: started.elapsed(),
    })
}

/// Prints a test's line, and under a bug or an error what its run said.
fn show(suite: &Suite, outcome: &TestOutcome) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{}", outcome.line());
    if suite.quiet {
        return;
    }
    match &outcome.verdict {
        Verdict::Bug(_) => {
            for line in outcome.stdout.lines() {
                let _ = writeln!(out, "    {line}");
            }
        }
        Verdict::Error(message) => {
            let _ = writeln!(out, "    {message}");
        }
        _ => {}
    }
    let _ = out.flush();
}

/// Runs the search of one test case; `json` is where its report goes.
fn explore_one(suite: &Suite, test: &TestCase, json: &Path) -> TestOutcome {
    let schedule = suite
        .schedule_dir
        .join(schedule_name(&suite.program, &test.name));
    let test_args = suite.harness.test_args(&test.name);
    let mut command = Command::new(&suite.reach_native);
    command.args(&suite.search_options);
    if suite.jobs > 0 {
        command.args(["--jobs", "1", "--no-pin"]);
    }
    command
        .arg("--json")
        .arg(json)
        .arg("--schedule-out")
        .arg(&schedule)
        .arg(&suite.program)
        .args(&test_args);
    let started = Instant::now();
    let output = command.output();
    let elapsed = started.elapsed();
    let mut outcome = TestOutcome::skipped(&test.name);
    outcome.elapsed = elapsed;
    let output = match output {
        Ok(output) => output,
        Err(error) => {
            outcome.verdict = Verdict::Error(format!(
                "cannot run {}: {error}",
                suite.reach_native.display()
            ));
            return outcome;
        }
    };
    let report = std::fs::read(json)
        .ok()
        .and_then(|bytes| serde_json::from_slice::<serde_json::Value>(&bytes).ok());
    let _ = std::fs::remove_file(json);
    outcome.stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    outcome.stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    outcome.verdict = Verdict::of_run(output.status.code(), report.as_ref(), &outcome.stderr);
    outcome.executions = report
        .as_ref()
        .and_then(|r| r["executions"].as_u64())
        .unwrap_or(0);
    if matches!(outcome.verdict, Verdict::Bug(_)) {
        let mut words = vec![
            "reach-native".to_string(),
            "--replay".to_string(),
            schedule.display().to_string(),
            suite.program.display().to_string(),
        ];
        words.extend(test_args.iter().map(|a| a.to_string_lossy().into_owned()));
        outcome.replay = Some(crate::replay::shell_words(&words));
        outcome.schedule = Some(schedule);
    }
    outcome.report = report;
    outcome
}

/// The schedule file name of a test: the program's and the test's names
/// with every character other than letters, digits, `.`, `-` and `_`
/// made `_`.
pub fn schedule_name(program: &Path, test: &str) -> String {
    let program = program
        .file_name()
        .map_or("program".into(), |n| n.to_string_lossy());
    let clean = |text: &str| -> String {
        text.chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_') {
                    c
                } else {
                    '_'
                }
            })
            .collect()
    };
    format!("{}.{}.schedule", clean(&program), clean(test))
}

/// A private directory for the runs' reports, removed at the end.
struct Scratch {
    dir: PathBuf,
}

impl Scratch {
    fn new() -> Result<Scratch> {
        let dir = std::env::temp_dir().join(format!("reach-native-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir)
            .with_context(|| format!("cannot create {}", dir.display()))?;
        Ok(Scratch { dir })
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn case(name: &str) -> TestCase {
        TestCase {
            name: name.into(),
            ignored: false,
        }
    }

    #[test]
    fn filters_select_by_substring_and_none_selects_all() {
        let tests = vec![case("tests::a_race"), case("tests::b_clean"), case("c")];
        let picked = select(tests.clone(), &["race".into(), "c".into()]);
        let names: Vec<&str> = picked.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["tests::a_race", "tests::b_clean", "c"]);
        let picked = select(tests.clone(), &["b_".into()]);
        assert_eq!(picked.len(), 1);
        assert_eq!(select(tests, &[]).len(), 3);
    }

    #[test]
    fn schedule_names_keep_the_test_readable_and_the_path_flat() {
        assert_eq!(
            schedule_name(Path::new("target/debug/deps/kit-0a1b"), "tests::x/y z"),
            "kit-0a1b.tests__x_y_z.schedule"
        );
    }
}
