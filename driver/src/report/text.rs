//! The terminal report of a bug: kind, explanation, the interleaving step by
//! step with source lines, the threads' final states and the program output.

use super::names::Names;
use super::style::Style;
use super::THREAD_TAIL_STEPS;
use crate::explore::Finding;
use reach_channel::{OpKind, RunStatus, ThreadState};
use std::fmt::Write;

/// Renders a finding for the terminal.
pub fn render(finding: &Finding, names: &Names, style: Style) -> String {
    let mut out = String::new();
    let bug = &finding.bug;
    let _ = writeln!(
        out,
        "{}",
        style.bug(&format!(
            "BUG: {} (execution {}{})",
            bug.kind,
            finding.execution,
            if finding.by_share {
                " of the PCT share"
            } else {
                ""
            }
        ))
    );
    let message = super::bug_message(finding, names);
    let _ = writeln!(
        out,
        "  {}",
        message
            .trim_end()
            .replace("; ", ";\n    ")
            .replace('\n', "\n  ")
    );
    if let Some(sym) = finding
        .trace
        .symbolic
        .as_ref()
        .filter(|s| !s.inputs.is_empty())
    {
        let _ = writeln!(out, "  inputs: {}", sym.inputs_text());
    }
    let events = &finding.trace.events;
    if let Some(race) = bug.race {
        if let Some(p) = super::private::private_access(&race, &finding.trace, names) {
            let _ = writeln!(
                out,
                "  first  access: thread {} {} {} at {} (no step of its own, {} step {})",
                p.thread, p.op, p.object, p.location, p.side, race.first
            );
        }
        for (which, i) in [("first ", race.first), ("second", race.second)] {
            if which == "first " && race.first_private.is_some() {
                continue;
            }
            if let Some(e) = events.get(i) {
                let _ = writeln!(
                    out,
                    "  {which} access: step {i}, thread {} {} {} at {}",
                    e.thread,
                    e.op.kind.name(),
                    names.object_at(e.op.object, &finding.trace.objects, i),
                    names.step_location(e.site, finding.trace.caller(i))
                );
            }
        }
    }
    let trace = &finding.trace;
    let shown = super::shown_steps(finding);
    let elided = events.len() - shown.len();
    let at_least = if trace.truncated && finding.outcome.status == RunStatus::Running {
        "at least "
    } else {
        ""
    };
    let _ = write!(
        out,
        "\n{} ({at_least}{} steps",
        style.heading("Interleaving"),
        trace.total_steps
    );
    if trace.truncated {
        let _ = write!(out, "; the first {} recorded", events.len());
    }
    if elided > 0 {
        let _ = write!(
            out,
            "; showing the last {THREAD_TAIL_STEPS} of each thread, every SPAWN and JOIN{}, {elided} steps elided: the schedule file holds every step, --replay runs them again",
            if bug.race.is_some() { " and the racing accesses" } else { "" }
        );
    }
    let _ = writeln!(out, "; * = the bug's steps, > = context switch):");
    let bug_steps = super::bug_steps(finding);
    super::columns::render(&mut out, trace, &shown, &bug_steps, names, style);
    if trace.truncated {
        // A killed execution's last steps were not counted.
        let at_least = if finding.outcome.status == RunStatus::Running {
            "at least "
        } else {
            ""
        };
        let _ = writeln!(
            out,
            "  ... {at_least}{} more steps ran unrecorded (past --max-recorded-steps {})",
            trace.total_steps.saturating_sub(events.len() as u64),
            events.len()
        );
    }
    let stale = super::stale::stale_reads(trace, names);
    if !stale.is_empty() {
        let _ = writeln!(
            out,
            "\nReads of older stores and stores placed before earlier-run ones (--memory-model rc11; no happens-before edge ordered them: a release store read by an acquire load, or fences, would):"
        );
        for line in stale {
            let _ = writeln!(out, "  {line}");
        }
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
                let object = match OpKind::from_u16(slot.pending_kind) {
                    Some(OpKind::ThreadJoin) => format!("thread {}", slot.pending_object),
                    _ => names.object_at(
                        slot.pending_object,
                        &finding.trace.objects,
                        finding.trace.len(),
                    ),
                };
                format!(
                    "{status} {op} {object} at {}",
                    names.step_location(slot.pending_site, slot.pending_caller)
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
