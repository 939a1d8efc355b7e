//! The machine-readable report written with `--json FILE`, described by
//! the JSON Schema in `docs/report.schema.json` ([`SCHEMA_VERSION`]).

use super::names::Names;
use super::{object_address, object_text};
use crate::explore::{Finding, StopReason, Summary};
use crate::schedule::{encode_runs, Run};
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
    /// Object as an address (`0x…`, `thread N`, or empty).
    pub object: String,
    /// Object by name (`counter`, `q.head`, `buffer[3]`), the address when
    /// it has none.
    pub name: String,
    /// Source location (`file:line:col (function)` or a placeholder).
    pub location: String,
    /// Source file (relative to the current directory when under it), if known.
    pub file: Option<String>,
    /// Source line, if known.
    pub line: Option<u32>,
    /// The text of that line, if the file was readable.
    pub source: Option<String>,
    /// Why the report highlights this step (`race`, `failed here`, ...), if it does.
    pub role: Option<String>,
    /// For a step that ran in Rust's standard library and is placed at the
    /// program's line that called it (`location`, `file`, `line`): the
    /// library's code it ran in. Absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub library: Option<JsonLibrary>,
}

/// The standard library's code a step ran in.
#[derive(Serialize)]
pub struct JsonLibrary {
    /// The library function the program called, or had inlined
    /// (`core::sync::atomic::AtomicUsize::fetch_add`).
    pub function: String,
    /// Where in the library's sources the step ran (`file:line:col`), empty
    /// if unknown.
    pub location: String,
}

/// Version of the report's layout: raised when a field changes meaning or
/// goes away (adding a field keeps it).
pub const SCHEMA_VERSION: u32 = 2;

/// A reported bug.
#[derive(Serialize)]
pub struct JsonBug {
    /// `assertion|crash|deadlock|data_race|hang|misuse|nondeterminism`.
    pub kind: crate::bug::BugKind,
    /// Explanation.
    pub message: String,
    /// Description of the bug independent of the interleaving that exposed it.
    pub signature: String,
    /// Execution (1-based) that found it: of the PCT share's executions
    /// when `by_random_share` is true, else of the search's.
    pub execution: u64,
    /// The default search's PCT share found it (present only then).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub by_random_share: bool,
    /// The schedule reproducing it: the thread chosen at each recorded
    /// step, run-length encoded as `[thread, count]` pairs.
    pub schedule: Vec<Run>,
    /// The steps of the interleaving shown (each with its step number): all
    /// of a short trace, the last steps of each thread of a long one and the
    /// steps the bug names.
    pub trace: Vec<JsonStep>,
    /// Steps the execution ran, recorded or not (as far as counted: of an
    /// execution killed after recording stopped, a lower bound).
    pub steps_total: u64,
    /// Steps recorded (the schedule's length).
    pub steps_recorded: u64,
    /// Steps in `trace`.
    pub steps_shown: u64,
    /// Recorded steps of each thread.
    pub thread_steps: Vec<u64>,
    /// True if the execution was longer than the recording bound.
    pub truncated: bool,
    /// Program output of that execution.
    pub stdout: String,
    /// Program error output of that execution.
    pub stderr: String,
    /// The program's inputs in that execution (concolic testing), by name
    /// and occurrence; empty when it read none.
    pub inputs: Vec<crate::schedule::RecordedInput>,
    /// Under `--memory-model rc11`, the loads that read an older store
    /// than the latest: "step S, T read NAME = V, ... although T' stored W
    /// at step S'" (absent when none did).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub stale_reads: Vec<String>,
    /// For a data race: the detector that found it and both accesses (for a
    /// lockset race with the locks held); also for a lockset unlock without
    /// lock (one access). Absent for other bugs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub race: Option<JsonRace>,
    /// For nondeterminism: the likely causes the runtime saw, most likely
    /// first. Absent for other bugs and when none was seen.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub causes: Vec<JsonCause>,
}

/// A likely cause of the program's nondeterminism.
#[derive(Serialize)]
pub struct JsonCause {
    /// What: a source of nondeterminism (`dev_urandom`, `getrandom`,
    /// `real_time`, `foreign_thread`, `address_randomisation`, ...),
    /// `changed_file`, `kernel_file` or `working_directory`.
    pub kind: &'static str,
    /// Source location of the program's first use of it (absent if unknown).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub site: Option<String>,
    /// Steps recorded before that first use (absent if unknown).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub step: Option<u64>,
}

/// The racing accesses of a data race.
#[derive(Serialize)]
pub struct JsonRace {
    /// `happens-before` or `lockset`.
    pub detector: &'static str,
    /// `race`, or `unlock_without_lock` (lockset).
    pub kind: &'static str,
    /// Address of the racing granule (or of the lock released), `0x…`.
    pub address: String,
    /// That address by name, the address when it has none.
    pub name: String,
    /// The accesses, earlier first (one for an unlock without lock).
    pub accesses: Vec<JsonRaceAccess>,
}

/// One access of a race.
#[derive(Serialize)]
pub struct JsonRaceAccess {
    /// Step number.
    pub step: usize,
    /// Thread.
    pub thread: u32,
    /// Operation name.
    pub op: String,
    /// Source location.
    pub location: String,
    /// Locks held by the thread then (lockset races only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub locks: Option<Vec<JsonLock>>,
    /// Present when the access was no step of its own (memory only its
    /// thread had touched until then): `after` or `before` the step
    /// `step` of its thread, where it ran; `op` and `location` are the
    /// access's own.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub private: Option<&'static str>,
}

/// A lock held at an access.
#[derive(Serialize)]
pub struct JsonLock {
    /// Address of the lock object, `0x…`.
    pub address: String,
    /// The lock by name, the address when it has none.
    pub name: String,
    /// `write` (exclusive: mutex, spinlock, write-locked rwlock) or `read`.
    pub mode: &'static str,
}

/// What a merged report says about one shard.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ShardSummary {
    /// The shard's index.
    pub index: u32,
    /// The report file.
    pub file: String,
    /// Executions the shard counted.
    pub executions: u64,
    /// Distinct partial orders it exercised.
    pub partial_orders: u64,
    /// How it ended (`complete`, `bug`, `limit`, `interrupted`, ...).
    pub completion: String,
    /// Its wall time in seconds.
    pub seconds: f64,
    /// Executions it ran, the shared part included (when its report
    /// states it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ran: Option<u64>,
}

/// The whole report.
#[derive(Serialize)]
pub struct JsonReport {
    /// [`SCHEMA_VERSION`].
    pub schema_version: u32,
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
    /// Executions blocked at an await (a spin loop's iteration did nothing
    /// and another thread later changed what it read): not behaviours.
    pub await_blocked: u64,
    /// Executions that did not follow their schedule although the program
    /// repeated them exactly when run again: the search asked for a
    /// schedule the program cannot take (an internal error).
    pub internal_errors: u64,
    /// Executions that did not take a step the search predicted although
    /// the program repeated them exactly: a dependency through memory
    /// that code built without reach-cc touched; their branches were not
    /// explored.
    pub hidden_dependencies: u64,
    /// Executions dropped because a step the search ran while the runtime
    /// held its thread back as a spinner added one spin iteration and
    /// nothing else.
    pub respin_dropped: u64,
    /// Executions longer than the recording bound (`--max-recorded-steps`),
    /// explored only in their recorded steps.
    pub truncated_executions: u64,
    /// The recording bound those executions hit, null when none did.
    pub recorded_bound: Option<u64>,
    /// Executions whose partial order had been exercised before (when
    /// counted, e.g. with `--audit`).
    pub duplicate_partial_orders: Option<u64>,
    /// Distinct partial orders (when counted).
    pub partial_orders: Option<u64>,
    /// Distinct reads-from graphs of the executions under
    /// `--memory-model rc11` (null under sc).
    pub reads_from_graphs: Option<u64>,
    /// Sorted keys of those graphs (empty under sc), so that shards' sets
    /// can be united and two searches' compared.
    pub reads_from_graph_keys: Vec<String>,
    /// Sorted fingerprints of the distinct partial orders (when counted), so
    /// two strategies' sets can be compared.
    pub partial_order_fingerprints: Vec<String>,
    /// Wall time in seconds.
    pub seconds: f64,
    /// Whether the binary was instrumented.
    pub instrumented: bool,
    /// The `--seed` of a randomised strategy.
    pub seed: Option<u64>,
    /// The coverage line: what the executions cover.
    pub coverage: String,
    /// The portfolio member, or the part of the default search ("the
    /// systematic search (optimal)", "the PCT share (depth 2, seed 0)"),
    /// that found the bug.
    pub found_by: Option<String>,
    /// The PCT executions the default search ran beside the systematic
    /// one (not counted in `executions`), null without a share.
    pub random_share: Option<crate::random_share::ShareSummary>,
    /// How the bug's schedule was shortened (context switches and steps
    /// before and after).
    pub shortened: Option<crate::explore::Shortened>,
    /// How the search ended: `complete`, `bug`, `limit` (a --max-* limit),
    /// `interrupted` (Ctrl-C, SIGTERM), `bounded` or `error`.
    pub completion: &'static str,
    /// Hash of the program file's bytes (`fnv1a-64:` and 16 hex digits).
    pub program_hash: Option<String>,
    /// The options that decide what the search explores.
    pub search: Option<crate::shard::SearchOptions>,
    /// With `--shard`: which shard this report is of.
    pub shard: Option<crate::shard::ShardInfo>,
    /// For a merged report: one entry per shard, by index.
    pub shards: Option<Vec<ShardSummary>>,
}

/// How a search ended, as the report's `completion` states it.
pub fn completion(stop: &StopReason) -> &'static str {
    match stop {
        StopReason::Complete => "complete",
        StopReason::Bug => "bug",
        StopReason::ExecutionLimit | StopReason::TimeLimit => "limit",
        StopReason::Interrupted => "interrupted",
        StopReason::Bounded(_) => "bounded",
        StopReason::Error(_) => "error",
    }
}

fn json_bug(finding: &Finding, names: &Names) -> JsonBug {
    let shown = super::shown_steps(finding);
    let events = &finding.trace.events;
    let roles = super::bug_steps(finding);
    JsonBug {
        kind: finding.bug.kind,
        message: super::bug_message(finding, names),
        signature: finding.signature.clone(),
        execution: finding.execution,
        by_random_share: finding.by_share,
        schedule: encode_runs(finding.schedule.iter().copied()),
        trace: shown
            .iter()
            .map(|&step| {
                let e = &events[step];
                let caller = finding.trace.caller(step);
                let place = names.step_place(e.site, caller);
                JsonStep {
                    step,
                    thread: e.thread,
                    op: e.op.kind.name().to_string(),
                    object: object_address(e),
                    name: object_text(&finding.trace, step, names),
                    location: names.step_location(e.site, caller),
                    file: place.as_ref().map(|p| p.file.clone()),
                    line: place.as_ref().map(|p| p.line),
                    source: place.as_ref().and_then(|p| names.source_line(p)),
                    role: roles
                        .iter()
                        .find(|r| r.0 == step)
                        .map(|r| r.1.word().to_string()),
                    library: place.and_then(|p| p.library).map(|l| JsonLibrary {
                        function: l.function,
                        location: l.location,
                    }),
                }
            })
            .collect(),
        steps_total: finding.trace.total_steps,
        steps_recorded: events.len() as u64,
        steps_shown: shown.len() as u64,
        thread_steps: super::steps_per_thread(&finding.trace),
        truncated: finding.trace.truncated,
        stdout: String::from_utf8_lossy(&finding.outcome.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&finding.outcome.stderr).into_owned(),
        inputs: crate::schedule::recorded_inputs(&finding.trace),
        race: json_race(finding, names),
        causes: finding
            .bug
            .causes
            .iter()
            .map(|c| JsonCause {
                kind: c.kind,
                site: (c.site != 0).then(|| names.step_location(c.site, 0)),
                step: c.step,
            })
            .collect(),
        stale_reads: super::stale::stale_reads(&finding.trace, names),
    }
}

/// The race of `finding`, if it is one (or a lockset unlock without lock).
fn json_race(finding: &Finding, names: &Names) -> Option<JsonRace> {
    use crate::analysis::lockset::LocksetKind;
    let trace = &finding.trace;
    let access = |step: usize, locks: Option<&[crate::analysis::lockset::HeldLock]>| {
        let e = trace.events.get(step)?;
        Some(JsonRaceAccess {
            step,
            thread: e.thread,
            op: e.op.kind.name().to_string(),
            location: names.step_location(e.site, trace.caller(step)),
            locks: locks.map(|locks| {
                locks
                    .iter()
                    .map(|l| JsonLock {
                        address: format!("{:#x}", l.lock),
                        name: names.object_at(l.lock, &trace.objects, step),
                        mode: l.mode.word(),
                    })
                    .collect()
            }),
            private: None,
        })
    };
    let at = |address: u64, step: usize| {
        (
            format!("{address:#x}"),
            names.object_at(address, &trace.objects, step),
        )
    };
    if let Some(found) = &finding.bug.lockset {
        let mut accesses: Vec<JsonRaceAccess> = found
            .previous
            .iter()
            .chain(std::iter::once(&found.access))
            .filter_map(|a| access(a.step, Some(&a.locks)))
            .collect();
        accesses.sort_by_key(|a| a.step);
        let (address, name) = at(found.address, found.access.step);
        return Some(JsonRace {
            detector: "lockset",
            kind: match found.kind {
                LocksetKind::Race => "race",
                LocksetKind::UnlockWithoutLock => "unlock_without_lock",
            },
            address,
            name,
            accesses,
        });
    }
    let race = finding.bug.race?;
    let (address, name) = at(race.address, race.first);
    let mut accesses: Vec<JsonRaceAccess> = [race.first, race.second]
        .into_iter()
        .filter_map(|step| access(step, None))
        .collect();
    if let (Some(p), Some(first)) = (
        super::private::private_access(&race, trace, names),
        accesses.first_mut(),
    ) {
        first.thread = p.thread;
        first.op = p.op.to_string();
        first.location = p.location;
        first.private = Some(p.side);
    }
    Some(JsonRace {
        detector: "happens-before",
        kind: "race",
        address,
        name,
        accesses,
    })
}

/// Why an exploration stopped, as the report's `stop_reason` states it.
pub fn stop_reason(stop: &StopReason) -> String {
    match stop {
        StopReason::Complete => "complete".into(),
        StopReason::Bug => "bug".into(),
        StopReason::ExecutionLimit => "execution limit".into(),
        StopReason::TimeLimit => "time limit".into(),
        StopReason::Interrupted => "interrupted".into(),
        StopReason::Bounded(why) => format!("bounded: {why}"),
        StopReason::Error(m) => format!("error: {m}"),
    }
}

/// `keys` sorted, each as 16 hex digits.
fn hex_sorted<'a>(keys: impl Iterator<Item = &'a u64>) -> Vec<String> {
    let mut all: Vec<u64> = keys.copied().collect();
    all.sort_unstable();
    all.iter().map(|k| format!("{k:016x}")).collect()
}

/// Builds the report of an exploration.
pub fn build(program: &str, summary: &Summary, names: &Names, instrumented: bool) -> JsonReport {
    let bugs: Vec<JsonBug> = summary
        .findings
        .iter()
        .map(|f| json_bug(f, names))
        .collect();
    JsonReport {
        schema_version: SCHEMA_VERSION,
        program: program.to_string(),
        strategy: summary.strategy.to_string(),
        executions: summary.executions,
        complete: summary.complete(),
        stop_reason: stop_reason(&summary.stop),
        bug: summary.findings.first().map(|f| json_bug(f, names)),
        bugs,
        sleep_blocked: summary.sleep_blocked,
        await_blocked: summary.await_blocked,
        internal_errors: summary.internal_errors,
        hidden_dependencies: summary.hidden_dependencies,
        respin_dropped: summary.respin_dropped,
        truncated_executions: summary.truncated,
        recorded_bound: summary.recorded_bound.filter(|_| summary.truncated > 0),
        duplicate_partial_orders: summary.partial_orders.map(|_| summary.duplicate_orders),
        partial_orders: summary.partial_orders,
        reads_from_graphs: (!summary.reads_from_graphs.is_empty())
            .then_some(summary.reads_from_graphs.len() as u64),
        reads_from_graph_keys: hex_sorted(summary.reads_from_graphs.iter()),
        partial_order_fingerprints: hex_sorted(summary.fingerprints.iter()),
        seconds: summary.elapsed.as_secs_f64(),
        instrumented,
        seed: summary.seed,
        coverage: super::coverage_line(summary),
        found_by: summary.found_by.clone(),
        random_share: summary.random_share.clone(),
        shortened: summary.shortened,
        completion: completion(&summary.stop),
        program_hash: None,
        search: None,
        shard: None,
        shards: None,
    }
}
