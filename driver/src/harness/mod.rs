//! Test harnesses inside a program: which one a binary was built with
//! (libtest, GoogleTest, Catch2), the test cases it lists, and the
//! arguments that make it run exactly one of them on its main thread, so
//! that `reach-native test` can explore each test case as a search of its
//! own.

pub mod detect;
pub mod list;
pub mod mode;
pub mod options;
pub mod outcome;
pub mod reports;
pub mod suite;

pub use detect::detect;
pub use list::{list, TestCase};

use std::ffi::OsString;
use thiserror::Error;

/// A test harness `reach-native test` knows how to drive.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Harness {
    /// Rust's libtest (`#[test]` functions, `cargo test`).
    Libtest,
    /// GoogleTest (`TEST(Suite, Name)`).
    GoogleTest,
    /// Catch2 (`TEST_CASE("name")`), version 2 or 3.
    Catch2,
}

impl Harness {
    /// The harness's name as reports show it.
    pub fn name(self) -> &'static str {
        match self {
            Harness::Libtest => "libtest",
            Harness::GoogleTest => "GoogleTest",
            Harness::Catch2 => "Catch2",
        }
    }

    /// The program arguments that run test case `name` alone, on the
    /// harness's main thread, with its output not captured: libtest
    /// `--exact NAME --test-threads=1 --nocapture` (captured, a panic's
    /// message would not reach standard error), GoogleTest
    /// `--gtest_filter=NAME`, Catch2 the name with the characters of its
    /// test-spec syntax escaped.
    pub fn test_args(self, name: &str) -> Vec<OsString> {
        match self {
            Harness::Libtest => ["--exact", name, "--test-threads=1", "--nocapture"]
                .iter()
                .map(OsString::from)
                .collect(),
            Harness::GoogleTest => vec![OsString::from(format!("--gtest_filter={name}"))],
            Harness::Catch2 => vec![OsString::from(catch2_spec(name))],
        }
    }
}

/// A Catch2 test spec that matches exactly the test named `name`: a
/// backslash before each character the spec syntax gives a meaning
/// (wildcards, tags, alternatives, quotes, exclusion).
pub fn catch2_spec(name: &str) -> String {
    let mut spec = String::with_capacity(name.len() + 8);
    for c in name.chars() {
        if matches!(c, '\\' | ',' | '[' | ']' | '*' | '"' | '~') {
            spec.push('\\');
        }
        spec.push(c);
    }
    spec
}

/// Why a program's test cases could not be found.
#[derive(Debug, Error)]
pub enum HarnessError {
    /// The file could not be read or is not an ELF file.
    #[error("cannot read {path} as an ELF executable: {reason}")]
    Unreadable {
        /// The program path.
        path: String,
        /// What went wrong.
        reason: String,
    },
    /// No known harness's symbols.
    #[error("{0} has no test harness reach-native knows (libtest, GoogleTest, Catch2): run it as `reach-native PROGRAM` instead")]
    Unknown(String),
    /// The program could not be started to list its tests.
    #[error("cannot run {path} to list its tests: {source}")]
    Spawn {
        /// The program path.
        path: String,
        /// The error of the spawn.
        source: std::io::Error,
    },
    /// The listing run failed or printed nothing the harness prints.
    #[error("{path} did not list its tests ({how}): {output}")]
    Listing {
        /// The program path.
        path: String,
        /// The exit status.
        how: String,
        /// The start of what it printed.
        output: String,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn libtest_runs_one_exact_test_on_one_thread_uncaptured() {
        let args = Harness::Libtest.test_args("tests::a");
        assert_eq!(
            args,
            ["--exact", "tests::a", "--test-threads=1", "--nocapture"]
        );
    }

    #[test]
    fn googletest_filters_by_the_full_name() {
        let args = Harness::GoogleTest.test_args("Ring/0.Push");
        assert_eq!(args, ["--gtest_filter=Ring/0.Push"]);
    }

    #[test]
    fn catch2_names_are_escaped_for_its_spec_syntax() {
        assert_eq!(catch2_spec("plain name"), "plain name");
        assert_eq!(
            catch2_spec("a, b [x] *~\"q\"\\"),
            "a\\, b \\[x\\] \\*\\~\\\"q\\\"\\\\"
        );
    }
}
