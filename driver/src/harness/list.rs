//! Listing a test binary's test cases the way its harness lists them.

use super::{Harness, HarnessError};
use std::path::Path;
use std::process::Command;

/// One test case of a test binary.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TestCase {
    /// Its full name, as the harness takes it back to run it alone.
    pub name: String,
    /// Marked not to run by default (libtest `#[ignore]`, GoogleTest
    /// `DISABLED_`): listed, not explored.
    pub ignored: bool,
}

impl TestCase {
    fn new(name: &str) -> TestCase {
        TestCase {
            name: name.to_string(),
            ignored: false,
        }
    }
}

/// The test cases of `program`, which was built with `harness`, in the
/// harness's order: the program runs natively (not under the runtime)
/// with the harness's own listing options.
pub fn list(program: &Path, harness: Harness) -> Result<Vec<TestCase>, HarnessError> {
    match harness {
        Harness::Libtest => {
            let all = run(program, &["--list", "--format", "terse"])?;
            let ignored = run(program, &["--list", "--format", "terse", "--ignored"])?;
            let ignored = parse_libtest(&ignored);
            let mut tests = parse_libtest(&all);
            for test in &mut tests {
                test.ignored = ignored.iter().any(|i| i.name == test.name);
            }
            Ok(tests)
        }
        Harness::GoogleTest => Ok(parse_gtest(&run(program, &["--gtest_list_tests"])?)),
        Harness::Catch2 => {
            // Version 2's option; version 3 refuses it and lists names
            // alone at the quiet verbosity.
            let v2 = run(program, &["--list-test-names-only"])?;
            if !v2.contains("Unrecognised token") {
                return Ok(parse_catch2(&v2));
            }
            let v3 = run(program, &["--list-tests", "--verbosity", "quiet"])?;
            Ok(parse_catch2(&v3))
        }
    }
}

/// Runs `program` with `args` and returns what it printed on standard
/// output (and, if that is empty, standard error). Catch2 2 exits with
/// the number of tests it listed, so the status alone is no failure; a
/// signal is.
fn run(program: &Path, args: &[&str]) -> Result<String, HarnessError> {
    let output = Command::new(program)
        .args(args)
        .env_remove("LD_PRELOAD")
        .output()
        .map_err(|source| HarnessError::Spawn {
            path: program.display().to_string(),
            source,
        })?;
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    if output.status.code().is_none() {
        return Err(HarnessError::Listing {
            path: program.display().to_string(),
            how: output.status.to_string(),
            output: stderr.chars().take(400).collect(),
        });
    }
    Ok(if stdout.trim().is_empty() {
        stderr
    } else {
        stdout
    })
}

/// Test cases of libtest's `--list --format terse` (`NAME: test` lines;
/// benchmarks are left out).
pub fn parse_libtest(text: &str) -> Vec<TestCase> {
    text.lines()
        .filter_map(|line| line.strip_suffix(": test"))
        .map(TestCase::new)
        .collect()
}

/// Test cases of GoogleTest's `--gtest_list_tests`: a suite line
/// (`Suite.`, unindented) and its tests indented under it, either
/// possibly followed by a `# TypeParam = ...` or `# GetParam() = ...`
/// comment; the full name is `Suite.Test`. A suite or test whose name
/// starts with `DISABLED_` is ignored.
pub fn parse_gtest(text: &str) -> Vec<TestCase> {
    let mut tests = Vec::new();
    let mut suite: Option<&str> = None;
    for line in text.lines() {
        let word = line.split("  #").next().unwrap_or_default().trim_end();
        if word.trim().is_empty() {
            continue;
        }
        if !line.starts_with(' ') {
            suite = word.strip_suffix('.');
            continue;
        }
        let Some(suite) = suite else { continue };
        let test = word.trim_start();
        tests.push(TestCase {
            name: format!("{suite}.{test}"),
            ignored: disabled(suite) || test.starts_with("DISABLED_"),
        });
    }
    tests
}

/// True if a GoogleTest suite name (`Prefix/DISABLED_Suite/0` too) is
/// disabled.
fn disabled(suite: &str) -> bool {
    suite.split('/').any(|part| part.starts_with("DISABLED_"))
}

/// Test cases of Catch2's `--list-test-names-only` (version 2) or
/// `--list-tests --verbosity quiet` (version 3): one name per line; a
/// name starting with `#` is printed within double quotes.
pub fn parse_catch2(text: &str) -> Vec<TestCase> {
    text.lines()
        .map(|line| line.trim_end_matches('\r'))
        .filter(|line| !line.trim().is_empty())
        .map(|line| {
            line.strip_prefix("\"#")
                .and_then(|rest| rest.strip_suffix('"'))
                .map_or_else(
                    || TestCase::new(line),
                    |rest| TestCase::new(&format!("#{rest}")),
                )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(tests: &[TestCase]) -> Vec<&str> {
        tests.iter().map(|t| t.name.as_str()).collect()
    }

    #[test]
    fn libtest_terse_list_keeps_tests_not_benchmarks() {
        let text = "tests::a: test\nmod::b::c: test\nbench_x: bench\n\n";
        assert_eq!(names(&parse_libtest(text)), ["tests::a", "mod::b::c"]);
    }

    #[test]
    fn gtest_list_joins_suites_and_tests_and_drops_comments() {
        let text = "\
RingQueue.
  ConcurrentPushesKeepEveryItem
  UnlockedPushesRace
Sizes/ParamQueue.  # TypeParam = int
  Holds/0  # GetParam() = 1
  Holds/1  # GetParam() = 2
DISABLED_Slow.
  Forever
Fast.
  DISABLED_Later
";
        let tests = parse_gtest(text);
        assert_eq!(
            names(&tests),
            [
                "RingQueue.ConcurrentPushesKeepEveryItem",
                "RingQueue.UnlockedPushesRace",
                "Sizes/ParamQueue.Holds/0",
                "Sizes/ParamQueue.Holds/1",
                "DISABLED_Slow.Forever",
                "Fast.DISABLED_Later",
            ]
        );
        let ignored: Vec<bool> = tests.iter().map(|t| t.ignored).collect();
        assert_eq!(ignored, [false, false, false, false, true, true]);
    }

    #[test]
    fn catch2_list_is_one_name_per_line_with_hash_names_unquoted() {
        let text = "queue keeps items\r\npush, then pop [x]\n\"#42 regression\"\n\n";
        assert_eq!(
            names(&parse_catch2(text)),
            ["queue keeps items", "push, then pop [x]", "#42 regression"]
        );
    }
}
