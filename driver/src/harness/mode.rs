//! The `reach-native test [OPTIONS] PROGRAM [FILTER...]` command: finds
//! the harness and the test cases of PROGRAM, explores each selected test
//! case ([`super::suite`]), prints a summary and writes the reports.

use super::options::{split_options, value_of, words_without};
use super::outcome::Verdict;
use super::suite::{self, Suite, SuiteResult};
use crate::cli::Cli;
use anyhow::{bail, Context, Result};
use clap::Parser;
use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Options of one search that mean something else, or nothing, for a
/// whole test binary.
const NOT_FOR_TESTS: [&str; 6] = [
    "replay",
    "record",
    "record_execution",
    "html",
    "shard",
    "shard_split",
];

/// Options `reach-native test` takes for itself and does not hand on.
const OWN: [&str; 4] = ["jobs", "json", "junit", "schedule_out"];

/// Default directory of the failing tests' schedule files.
pub const SCHEDULE_DIR: &str = "reach-native-schedules";

/// Runs `reach-native test` with `words` (the arguments after `test`) and
/// returns the exit status: that of the worst test (2 error, 1 bug,
/// 3 limit, 0 every test passed).
pub fn run_test_command(words: &[OsString]) -> Result<u8> {
    let cli = Cli::parse_from(
        std::iter::once(OsString::from("reach-native test")).chain(words.iter().cloned()),
    );
    let (options, rest) = split_options(words);
    if let Some(option) = options
        .iter()
        .find(|o| NOT_FOR_TESTS.contains(&o.id.as_str()))
    {
        bail!(
            "{} does not apply to reach-native test (run one test as reach-native PROGRAM ARGS)",
            option.words[0].to_string_lossy()
        );
    }
    if let Some(misplaced) = rest
        .iter()
        .skip(1)
        .find(|word| !split_options(std::slice::from_ref(word)).0.is_empty())
    {
        bail!(
            "{} comes after the program: reach-native test takes its options before PROGRAM, and the words after it are test filters",
            misplaced.to_string_lossy()
        );
    }
    let filters: Vec<String> = rest
        .iter()
        .skip(1)
        .map(|f| f.to_string_lossy().into_owned())
        .collect();
    let jobs = value_of(&options, "jobs")
        .map(|v| v.to_string_lossy().parse::<usize>())
        .transpose()
        .context("--jobs takes a number")?
        .unwrap_or(0);
    let program = crate::exec::locate_program(&cli.program)?;
    let harness = super::detect(&program)?;
    let listed = super::list(&program, harness)?;
    let total = listed.len();
    let tests = suite::select(listed, &filters);
    let ignored = tests.iter().filter(|t| t.ignored).count();
    let shown = cli.program.display().to_string();
    let mut header = format!(
        "Testing {shown} ({}): {} test{}",
        harness.name(),
        tests.len(),
        if tests.len() == 1 { "" } else { "s" }
    );
    if ignored > 0 {
        header.push_str(&format!(", {ignored} ignored"));
    }
    if total > tests.len() {
        header.push_str(&format!(", {} filtered out", total - tests.len()));
    }
    if jobs > 0 {
        header.push_str(&format!(", {jobs} at once"));
    }
    println!("{header}");
    let suite = Suite {
        reach_native: std::env::current_exe()
            .context("cannot locate the reach-native executable")?,
        program: program.clone(),
        harness,
        search_options: words_without(&options, &OWN),
        jobs,
        schedule_dir: value_of(&options, "schedule_out")
            .map_or_else(|| PathBuf::from(SCHEDULE_DIR), PathBuf::from),
        quiet: cli.quiet,
    };
    let interrupt = Arc::new(AtomicBool::new(false));
    {
        let flag = interrupt.clone();
        ctrlc::set_handler(move || flag.store(true, Ordering::Relaxed))
            .context("cannot install the Ctrl-C handler")?;
    }
    let result = suite::run(&suite, &tests, &interrupt)?;
    print_summary(&result);
    if let Some(path) = &cli.json {
        let doc = super::reports::json(&shown, harness, &result);
        let text = serde_json::to_string_pretty(&doc)?;
        std::fs::write(path, text + "\n")
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    if let Some(path) = &cli.junit {
        std::fs::write(path, super::reports::junit(&shown, &result))
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    Ok(result.exit_status())
}

/// The summary line, and a replay command per failing test.
fn print_summary(result: &SuiteResult) {
    let count = |f: fn(&Verdict) -> bool| result.outcomes.iter().filter(|o| f(&o.verdict)).count();
    let passed = count(|v| *v == Verdict::Pass);
    let bugs = count(|v| matches!(v, Verdict::Bug(_)));
    let limited = count(|v| matches!(v, Verdict::Limit(_)));
    let errors = count(|v| matches!(v, Verdict::Error(_)));
    let skipped = count(|v| *v == Verdict::Skipped);
    let run = result.outcomes.len() - skipped;
    println!("{}", "-".repeat(12));
    println!(
        "{:>16} [{:>8.3}s] {run} test{} run: {passed} passed, {bugs} with a bug, {limited} stopped by a limit, {errors} errors, {skipped} skipped",
        "Summary",
        result.elapsed.as_secs_f64(),
        if run == 1 { "" } else { "s" }
    );
    for outcome in &result.outcomes {
        if let Some(replay) = &outcome.replay {
            println!(
                "{:>16} {}: replay with: {replay}",
                outcome.verdict.word(),
                outcome.name
            );
        }
    }
}
