//! The machine-readable report written with `--json FILE`.

use super::{location_text, object_text};
use crate::binary::Binary;
use crate::explore::{Finding, StopReason, Summary};
use serde::Serialize;

/// One step of a reported interleaving.
#[derive(Serialize)]
pub struct JsonStep {
    /// Step number.
    pub step: usize,
    /// Thread.
    pub thread: u32,
    /// Operation name.
    pub op: String,
    /// Object as text.
    pub object: String,
    /// Source location.
    pub location: String,
}

/// A reported bug.
#[derive(Serialize)]
pub struct JsonBug {
    /// `assertion|crash|deadlock|data_race|hang|misuse|nondeterminism`.
    pub kind: crate::bug::BugKind,
    /// Explanation.
    pub message: String,
    /// Description of the bug independent of the interleaving that exposed it.
    pub signature: String,
    /// Execution (1-based) that found it.
    pub execution: u64,
    /// The schedule reproducing it.
    pub schedule: Vec<u32>,
    /// The interleaving.
    pub trace: Vec<JsonStep>,
    /// Program output of that execution.
    pub stdout: String,
    /// Program error output of that execution.
    pub stderr: String,
}

/// The whole report.
#[derive(Serialize)]
pub struct JsonReport {
    /// Program tested.
    pub program: String,
    /// Strategy used.
    pub strategy: String,
    /// Executions run.
    pub executions: u64,
    /// True if the whole search space was explored.
    pub complete: bool,
    /// Why the exploration stopped.
    pub stop_reason: String,
    /// First bug found, or null.
    pub bug: Option<JsonBug>,
    /// Every distinct bug found (more than one only with `--keep-going`).
    pub bugs: Vec<JsonBug>,
    /// Executions cut short by sleep sets.
    pub sleep_blocked: u64,
    /// Executions whose partial order had been exercised before (when
    /// counted, e.g. with `--audit`).
    pub duplicate_partial_orders: Option<u64>,
    /// Distinct partial orders (when counted).
    pub partial_orders: Option<u64>,
    /// Sorted fingerprints of the distinct partial orders (when counted), so
    /// two strategies' sets can be compared.
    pub partial_order_fingerprints: Vec<String>,
    /// Wall time in seconds.
    pub seconds: f64,
    /// Whether the binary was instrumented.
    pub instrumented: bool,
}

fn json_bug(finding: &Finding, binary: &Binary) -> JsonBug {
    JsonBug {
        kind: finding.bug.kind,
        message: super::resolve_sites(&finding.bug.message, binary),
        signature: finding.signature.clone(),
        execution: finding.execution,
        schedule: finding.schedule.clone(),
        trace: finding
            .trace
            .events
            .iter()
            .enumerate()
            .map(|(step, e)| JsonStep {
                step,
                thread: e.thread,
                op: e.op.kind.name().to_string(),
                object: object_text(e),
                location: location_text(binary, e.site),
            })
            .collect(),
        stdout: String::from_utf8_lossy(&finding.outcome.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&finding.outcome.stderr).into_owned(),
    }
}

/// Builds the report of an exploration.
pub fn build(program: &str, summary: &Summary, binary: &Binary) -> JsonReport {
    let bugs: Vec<JsonBug> = summary
        .findings
        .iter()
        .map(|f| json_bug(f, binary))
        .collect();
    JsonReport {
        program: program.to_string(),
        strategy: summary.strategy.to_string(),
        executions: summary.executions,
        complete: summary.complete(),
        stop_reason: match &summary.stop {
            StopReason::Complete => "complete".into(),
            StopReason::Bug => "bug".into(),
            StopReason::ExecutionLimit => "execution limit".into(),
            StopReason::TimeLimit => "time limit".into(),
            StopReason::Interrupted => "interrupted".into(),
            StopReason::Bounded(why) => format!("bounded: {why}"),
            StopReason::Error(m) => format!("error: {m}"),
        },
        bug: summary.findings.first().map(|f| json_bug(f, binary)),
        bugs,
        sleep_blocked: summary.sleep_blocked,
        duplicate_partial_orders: summary.partial_orders.map(|_| summary.duplicate_orders),
        partial_orders: summary.partial_orders,
        partial_order_fingerprints: {
            let mut all: Vec<u64> = summary.fingerprints.iter().copied().collect();
            all.sort_unstable();
            all.iter().map(|f| format!("{f:016x}")).collect()
        },
        seconds: summary.elapsed.as_secs_f64(),
        instrumented: binary.instrumented,
    }
}
