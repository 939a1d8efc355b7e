//! The modes of `reach-native`, one function each: explore a program,
//! replay a schedule file, explore a test suite's cases, merge shards'
//! reports.

use crate::cli::{Cli, MergeCli};
use crate::session::{Session, Status};
use anyhow::{Context, Result};

/// `reach-native PROGRAM`: explores the program's behaviours.
pub fn explore(cli: &Cli) -> Result<Status> {
    Ok(Session::open(cli)?.explore()?.status)
}

/// `reach-native --replay FILE PROGRAM`: runs the recorded schedule.
pub fn replay(cli: &Cli) -> Result<Status> {
    Ok(Session::open(cli)?.replay()?.status)
}

/// `reach-native test PROGRAM [FILTER...]` (`words`: what follows `test`):
/// explores each test case of a test binary; returns the exit status.
pub fn test(words: &[std::ffi::OsString]) -> Result<u8> {
    crate::harness::mode::run_test_command(words)
}

/// `reach-native merge`: prints the union of the shards' reports, writes
/// it with `--json`, and returns the exit status of one run.
pub fn merge(cli: &MergeCli) -> Result<Status> {
    let merged = crate::merge::merge(&cli.reports)?;
    if let Some(path) = &cli.json {
        let text = serde_json::to_string_pretty(&merged.to_json())?;
        std::fs::write(path, text + "\n")
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    if !cli.quiet {
        for bug in &merged.bugs {
            let word = |k: &str| bug[k].as_str().unwrap_or("?").to_string();
            println!(
                "BUG: {} (shard {}, execution {}): {}",
                word("kind"),
                bug["shard"],
                bug["execution"],
                word("message")
            );
        }
        if !merged.bugs.is_empty() {
            println!();
        }
        for shard in &merged.shards {
            let ran = shard
                .ran
                .map_or(String::new(), |ran| format!(" ({ran} run)"));
            println!(
                "shard {}/{}: {} executions{ran}, {} partial orders, {} ({:.2} s) [{}]",
                shard.index,
                merged.count,
                shard.executions,
                shard.partial_orders,
                shard.completion,
                shard.seconds,
                shard.file
            );
        }
        let how = match merged.completion {
            "complete" => "search complete".to_string(),
            "bug" => "stopped at a bug".to_string(),
            _ => format!("not complete ({})", merged.stop_reason),
        };
        let graphs = merged.graphs.as_ref().map_or(String::new(), |g| {
            format!(", {} reads-from graphs", g.len())
        });
        println!(
            "\n{} ({}, {} shards): {} executions, {} distinct partial orders{graphs}, {how} (slowest shard {:.2} s, all shards {:.2} s)",
            merged.program,
            merged.strategy,
            merged.count,
            merged.executions,
            merged.fingerprints.len(),
            merged.seconds_max,
            merged.seconds_sum
        );
    }
    Ok(match merged.completion {
        _ if !merged.bugs.is_empty() => Status::Bug,
        "complete" => Status::Clean,
        "error" => Status::Error,
        _ => Status::Limit,
    })
}
