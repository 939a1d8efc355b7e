//! The terminal report of a bug: kind, explanation, the interleaving step by
//! step with source lines, the threads' final states and the program output.

use super::{location_text, object_text};
use crate::binary::Binary;
use crate::explore::Finding;
use reach_channel::{OpKind, ThreadState};
use std::fmt::Write;

/// Steps shown in full before the report elides the middle of a long trace.
const FULL_TRACE_STEPS: usize = 200;
/// Steps shown at the end of an elided trace.
const TAIL_STEPS: usize = 120;

/// Renders a finding for the terminal.
pub fn render(finding: &Finding, binary: &Binary) -> String {
    let mut out = String::new();
    let bug = &finding.bug;
    let _ = writeln!(out, "BUG: {} (execution {})", bug.kind, finding.execution);
    let message = super::resolve_sites(&bug.message, binary);
    let _ = writeln!(
        out,
        "  {}",
        message
            .trim_end()
            .replace("; ", ";\n    ")
            .replace('\n', "\n  ")
    );
    let events = &finding.trace.events;
    let highlighted: Vec<usize> = bug
        .race
        .map(|r| vec![r.first, r.second])
        .unwrap_or_default();
    if let Some(race) = bug.race {
        for (which, i) in [("first ", race.first), ("second", race.second)] {
            if let Some(e) = events.get(i) {
                let _ = writeln!(
                    out,
                    "  {which} access: step {i}, thread {} {} at {}",
                    e.thread,
                    e.op.kind.name(),
                    location_text(binary, e.site)
                );
            }
        }
    }
    let _ = writeln!(out, "\nInterleaving ({} steps):", events.len());
    let _ = writeln!(
        out,
        "  {:>5}  {:<6} {:<12} {:<20} location",
        "step", "thread", "operation", "object"
    );
    let skip = if events.len() > FULL_TRACE_STEPS {
        events.len() - TAIL_STEPS
    } else {
        0
    };
    if skip > 0 {
        let _ = writeln!(out, "  ... {skip} earlier steps omitted (all steps are in the JSON report and the schedule file)");
    }
    for (i, e) in events.iter().enumerate().skip(skip) {
        let mark = if highlighted.contains(&i) { "*" } else { " " };
        let _ = writeln!(
            out,
            "{mark} {i:>5}  T{:<5} {:<12} {:<20} {}",
            e.thread,
            e.op.kind.name(),
            object_text(e),
            location_text(binary, e.site)
        );
    }
    let _ = writeln!(out, "\nThreads at the end:");
    for (t, slot) in finding.outcome.threads.iter().enumerate() {
        let state = match ThreadState::from_u32(slot.state) {
            Some(ThreadState::Finished) => "finished".to_string(),
            Some(ThreadState::Running) => "running".to_string(),
            Some(ThreadState::Parked) => {
                let op = OpKind::from_u16(slot.pending_kind).map_or("?", |k| k.name());
                let status = if slot.enabled != 0 {
                    "about to run"
                } else {
                    "blocked in"
                };
                format!(
                    "{status} {op} {:#x} at {}",
                    slot.pending_object,
                    location_text(binary, slot.pending_site)
                )
            }
            _ => continue,
        };
        let _ = writeln!(out, "  T{t}: {state}");
    }
    for (name, bytes) in [
        ("stdout", &finding.outcome.stdout),
        ("stderr", &finding.outcome.stderr),
    ] {
        if !bytes.is_empty() {
            let _ = writeln!(out, "\nProgram {name} in this execution:");
            for line in String::from_utf8_lossy(bytes).lines() {
                let _ = writeln!(out, "  | {line}");
            }
        }
    }
    out
}
