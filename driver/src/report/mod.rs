//! Reports: the human-readable text on the terminal, the JSON report, and the
//! schedule file written for a bug.

pub mod columns;
pub mod demangle;
pub mod frames;
pub mod html;
pub mod json;
pub mod junit;
pub mod names;
pub mod private;
pub mod stale;
pub mod style;
pub mod text;

use crate::explore::{Finding, StopReason, Summary};
use crate::schedule::ScheduleFile;
use crate::trace::{Trace, TraceEvent};
use names::Names;
use reach_channel::{OpKind, RunStatus};
use std::path::Path;

/// Traces of at most this many steps are shown whole.
pub const FULL_TRACE_STEPS: usize = 200;
/// Of a longer trace, the last this many steps of every thread are shown
/// (with the steps the bug names).
pub const THREAD_TAIL_STEPS: usize = 50;

/// The steps of `finding`'s trace a report shows, in order: all of a short
/// trace; of a long one, the last [`THREAD_TAIL_STEPS`] steps of each thread,
/// every spawn and join, and the steps the bug names (a data race's two
/// accesses).
pub fn shown_steps(finding: &Finding) -> Vec<usize> {
    let named: Vec<usize> = finding
        .bug
        .race
        .map(|race| vec![race.first, race.second])
        .unwrap_or_default();
    steps_to_show(&finding.trace, &named)
}

/// [`shown_steps`] of `trace` for a bug that names the steps `named`.
fn steps_to_show(trace: &Trace, named: &[usize]) -> Vec<usize> {
    if trace.len() <= FULL_TRACE_STEPS {
        return (0..trace.len()).collect();
    }
    let mut left = vec![THREAD_TAIL_STEPS; trace.thread_count()];
    let mut pending = left.len();
    let mut shown = Vec::new();
    for (i, e) in trace.events.iter().enumerate().rev() {
        if pending == 0 {
            break;
        }
        let Some(n) = left.get_mut(e.thread as usize) else {
            continue;
        };
        if *n > 0 {
            shown.push(i);
            *n -= 1;
            if *n == 0 {
                pending -= 1;
            }
        }
    }
    shown.extend(named.iter().copied().filter(|&i| i < trace.len()));
    // Which threads there are and when they end stays visible however
    // early: every spawn and join (one of each per thread at most).
    shown.extend(trace.events.iter().enumerate().filter_map(|(i, e)| {
        matches!(e.op.kind, OpKind::ThreadCreate | OpKind::ThreadJoin).then_some(i)
    }));
    shown.sort_unstable();
    shown.dedup();
    shown
}

/// Recorded steps of each thread of `trace`.
pub fn steps_per_thread(trace: &Trace) -> Vec<u64> {
    let mut counts = vec![0u64; trace.thread_count()];
    for e in &trace.events {
        if let Some(c) = counts.get_mut(e.thread as usize) {
            *c += 1;
        }
    }
    counts
}

/// Writes the schedule file of `finding`, found running `program args`
/// under step bound `max_steps`.
pub fn write_schedule(
    path: &Path,
    program: &str,
    args: Vec<String>,
    max_steps: Option<u64>,
    finding: &Finding,
) -> std::io::Result<()> {
    schedule_of(program, args, max_steps, finding).write(path)
}

/// The schedule file of `finding`: its bug kind, steps and, for a lockset
/// race, the detector that replays it.
pub fn schedule_of(
    program: &str,
    args: Vec<String>,
    max_steps: Option<u64>,
    finding: &Finding,
) -> ScheduleFile {
    // The runtime counted every step only if it saw the execution end.
    let counted = finding.outcome.status != RunStatus::Running;
    let mut file = ScheduleFile::of_trace(
        program.to_string(),
        args,
        Some(format!("{:?}", finding.bug.kind)),
        &finding.trace,
        max_steps,
        counted.then_some(finding.trace.total_steps),
    );
    file.race_detector = finding
        .bug
        .lockset
        .as_ref()
        .map(|_| crate::bug::RaceDetector::Lockset.word().to_string());
    file
}

/// Like [`write_schedule`], also naming the strategy and seed that found
/// the bug.
pub fn write_schedule_of(
    path: &Path,
    program: &str,
    args: Vec<String>,
    max_steps: Option<u64>,
    finding: &Finding,
    strategy: Option<String>,
    seed: Option<u64>,
) -> std::io::Result<()> {
    let mut file = schedule_of(program, args, max_steps, finding);
    file.strategy = strategy;
    file.seed = seed;
    file.write(path)
}

/// The coverage line of an exploration: what its executions cover. For the
/// exhaustive strategies the behaviours and whether the search completed,
/// for bounded ones the bound completed, for PCT the probability bound
/// reached (from [`crate::strategy::Strategy::coverage`]).
pub fn coverage_line(summary: &Summary) -> String {
    let behaviours = summary
        .partial_orders
        .map(|n| format!(" ({n} distinct behaviours)"))
        .unwrap_or_default();
    let state = match &summary.stop {
        StopReason::Complete => "complete: every behaviour explored".to_string(),
        StopReason::Bounded(why) => format!("not complete: {why}"),
        _ => "not complete".to_string(),
    };
    let line = match (&summary.coverage, summary.strategy) {
        (Some(line), "portfolio") => line.clone(),
        (Some(line), "unfold") => format!("unfold: {} executions, {line}", summary.executions),
        (Some(line), _) if summary.stop != StopReason::Complete => line.clone(),
        _ => format!(
            "{}: {} executions{behaviours}, {state}",
            summary.strategy, summary.executions
        ),
    };
    // The recording bound is said whatever stopped the search (a bounded
    // search already says it in its reason).
    match summary.truncation_note() {
        Some(note) if !line.contains(&note) => format!("{line}; {note}"),
        _ => line,
    }
}

/// The object of event `step` of `trace` as shown to people: `thread 2`,
/// `counter`, `q.head`, `heap#2 (allocated at f.c:9)`, `T0 stack (main)`,
/// `0x7ffff7a0c010`, or nothing.
pub fn object_text(trace: &Trace, step: usize, names: &Names) -> String {
    match trace.events.get(step) {
        Some(event) => object_with(event, |address| {
            names.object_at(address, &trace.objects, step)
        }),
        None => String::new(),
    }
}

/// The raw object of an event: `thread 2`, `0x4040a0`, or nothing.
pub fn object_address(event: &TraceEvent) -> String {
    object_with(event, |address| format!("{address:#x}"))
}

/// The object of an event, with each address written by `show`.
fn object_with(event: &TraceEvent, show: impl Fn(u64) -> String) -> String {
    match event.op.kind {
        OpKind::ThreadCreate | OpKind::ThreadJoin | OpKind::ThreadDetach => {
            format!("thread {}", event.op.object)
        }
        OpKind::Fence
        | OpKind::Yield
        | OpKind::Sleep
        | OpKind::ProcessExit
        | OpKind::ThreadExit => String::new(),
        OpKind::CondWait | OpKind::CondRelock => {
            format!("{} (mutex {})", show(event.op.object), show(event.op.aux))
        }
        _ => show(event.op.object),
    }
}

/// Why a report highlights a step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// One of the two racing accesses.
    Race,
    /// The last step of the thread that failed (assertion, crash, misuse).
    Failure,
    /// The step that took what a deadlocked thread waits for.
    Holds,
}

impl Role {
    /// Short word for the role.
    pub fn word(self) -> &'static str {
        match self {
            Role::Race => "race",
            Role::Failure => "failed here",
            Role::Holds => "holds what another thread waits for",
        }
    }
}

/// The steps that matter for `finding`'s bug, in order: the racing pair;
/// the failing thread's last step; for a deadlock, the steps that took the
/// objects the blocked threads wait for.
pub fn bug_steps(finding: &Finding) -> Vec<(usize, Role)> {
    use crate::bug::BugKind;
    let trace = &finding.trace;
    let mut steps = Vec::new();
    if let Some(race) = finding.bug.race {
        steps.push((race.first, Role::Race));
        steps.push((race.second, Role::Race));
    }
    match finding.bug.kind {
        BugKind::Assertion | BugKind::Crash | BugKind::Misuse | BugKind::Panic => {
            let thread = finding
                .outcome
                .culprit
                .map(|(t, _)| t)
                .or_else(|| trace.events.last().map(|e| e.thread));
            if let Some(last) = thread.and_then(|t| trace.last_event_of(t)) {
                steps.push((last, Role::Failure));
            }
        }
        BugKind::Deadlock => {
            for (t, pending) in trace.final_pending.iter().enumerate() {
                let Some((op, _)) = pending else { continue };
                if !op.kind.is_acquire() {
                    continue;
                }
                // A condition re-lock waits for the mutex.
                let object = if op.kind == OpKind::CondRelock {
                    op.aux
                } else {
                    op.object
                };
                let taken = trace.events.iter().rposition(|e| {
                    let held = if e.op.kind == OpKind::CondRelock {
                        e.op.aux
                    } else {
                        e.op.object
                    };
                    e.thread as usize != t && held == object && e.op.kind.is_acquire()
                });
                if let Some(i) = taken {
                    steps.push((i, Role::Holds));
                }
            }
        }
        _ => {}
    }
    steps.sort_unstable_by_key(|s| s.0);
    steps.dedup_by_key(|s| s.0);
    steps.retain(|s| s.0 < trace.len());
    steps
}

/// Kinds of synchronisation edge a diagram draws.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EdgeKind {
    /// Release of a lock to its next acquisition by another thread.
    Lock,
    /// Signal or broadcast to the wake-up of a waiter.
    Signal,
    /// Creation of a thread to its first step.
    Create,
    /// A thread's last step to the join that waited for it.
    Join,
    /// Semaphore post to a wait that took it.
    Post,
}

/// The synchronisation edges of `trace` between steps of different threads
/// (from, to, kind).
pub fn sync_edges(trace: &Trace) -> Vec<(usize, usize, EdgeKind)> {
    use std::collections::HashMap;
    let mut edges = Vec::new();
    let mut released: HashMap<u64, usize> = HashMap::new();
    let mut signalled: HashMap<u64, usize> = HashMap::new();
    let mut posted: HashMap<u64, Vec<usize>> = HashMap::new();
    let mut created: HashMap<u32, usize> = HashMap::new();
    for (i, e) in trace.events.iter().enumerate() {
        if let Some(from) = created.remove(&e.thread) {
            edges.push((from, i, EdgeKind::Create));
        }
        let object = e.op.object;
        let failed = e.op.flags.0
            & (reach_channel::EventFlags::FAILED | reach_channel::EventFlags::TIMED_OUT)
            != 0;
        let mut from_other = |map: &mut HashMap<u64, usize>, key: u64, kind: EdgeKind| {
            if let Some(&from) = map.get(&key) {
                if trace.events[from].thread != e.thread {
                    edges.push((from, i, kind));
                }
            }
        };
        match e.op.kind {
            OpKind::MutexUnlock | OpKind::SpinUnlock | OpKind::RwUnlock => {
                released.insert(object, i);
            }
            OpKind::CondWait => {
                released.insert(e.op.aux, i);
            }
            OpKind::MutexLock
            | OpKind::MutexTryLock
            | OpKind::MutexTimedLock
            | OpKind::SpinLock
            | OpKind::RwReadLock
            | OpKind::RwWriteLock
                if !failed =>
            {
                from_other(&mut released, object, EdgeKind::Lock);
            }
            OpKind::CondSignal | OpKind::CondBroadcast => {
                signalled.insert(object, i);
            }
            OpKind::CondRelock => {
                if !failed {
                    from_other(&mut signalled, object, EdgeKind::Signal);
                }
                from_other(&mut released, e.op.aux, EdgeKind::Lock);
            }
            OpKind::SemPost => posted.entry(object).or_default().push(i),
            OpKind::SemWait if !failed => {
                if let Some(from) = posted.get_mut(&object).and_then(|p| {
                    let at = p.iter().position(|&f| trace.events[f].thread != e.thread)?;
                    Some(p.remove(at))
                }) {
                    edges.push((from, i, EdgeKind::Post));
                }
            }
            OpKind::ThreadCreate => {
                created.insert(object as u32, i);
            }
            OpKind::ThreadJoin => {
                if let Some(last) = trace.last_event_of(object as u32).filter(|&l| l < i) {
                    edges.push((last, i, EdgeKind::Join));
                }
            }
            _ => {}
        }
    }
    edges
}

/// Source location of an event, or a placeholder.
pub fn location_text(names: &Names, site: u64) -> String {
    names.location(site)
}

/// The bug's message with every `(site 0x…)` the runtime wrote into it
/// replaced by the site's source location, and each address of a global or
/// of memory the execution allocated named (`0x555555558030` becomes
/// `0x555555558030 (counter)`), as the memory was at the first racing step
/// (or at the end of the trace).
pub fn bug_message(finding: &Finding, names: &Names) -> String {
    let step = finding
        .bug
        .race
        .map_or(finding.trace.len(), |race| race.first);
    name_addresses(
        &sites_resolved(&finding.bug.message, names),
        names,
        &finding.trace,
        step,
    )
}

/// Appends ` (name)` to each hexadecimal address in `text` that lies in a
/// global of the program or in memory of `trace` (as it was at `step`).
fn name_addresses(text: &str, names: &Names, trace: &Trace, step: usize) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("0x") {
        let after = &rest[start + 2..];
        let len = after
            .find(|c: char| !c.is_ascii_hexdigit())
            .unwrap_or(after.len());
        let end = start + 2 + len;
        out.push_str(&rest[..end]);
        let named = u64::from_str_radix(&after[..len], 16)
            .ok()
            .and_then(|a| names.named_at(a, &trace.objects, step));
        if let Some(name) = named {
            if !rest[end..].starts_with(" (") {
                out.push_str(&format!(" ({name})"));
            }
        }
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

/// [`bug_message`] without naming addresses. A mark is `(site 0x…)`, or
/// `(site 0x… from 0x…)` for an operation made while a call from the
/// program's code into the standard library was in progress (placed as
/// [`Names::step_place`] places steps).
fn sites_resolved(message: &str, names: &Names) -> String {
    const MARK: &str = "(site 0x";
    const FROM: &str = " from 0x";
    let hex_prefix = |text: &str| {
        let len = text
            .find(|c: char| !c.is_ascii_hexdigit())
            .unwrap_or(text.len());
        (u64::from_str_radix(&text[..len], 16).ok(), len)
    };
    let mut out = String::with_capacity(message.len());
    let mut rest = message;
    while let Some(start) = rest.find(MARK) {
        let after = &rest[start + MARK.len()..];
        let (site, hex_len) = hex_prefix(after);
        let (caller, mark_len) = match after[hex_len..].strip_prefix(FROM) {
            Some(from) => {
                let (caller, len) = hex_prefix(from);
                (caller, hex_len + FROM.len() + len)
            }
            None => (Some(0), hex_len),
        };
        let closed = after[mark_len..].starts_with(')');
        let location = site
            .zip(caller)
            .filter(|_| closed)
            .and_then(|(site, caller)| names.step_place(site, caller));
        out.push_str(&rest[..start]);
        match location {
            Some(place) => {
                out.push_str("at ");
                out.push_str(&place.long());
                rest = &after[mark_len + 1..];
            }
            None => {
                out.push_str(MARK);
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use reach_channel::{EventFlags, Op, ThreadSet};

    /// A trace of loads of one address by `threads`, in order.
    pub(crate) fn trace_of(threads: &[u32]) -> Trace {
        let events = threads
            .iter()
            .map(|&thread| TraceEvent {
                thread,
                op: Op {
                    kind: OpKind::Load,
                    flags: EventFlags(0),
                    object: 0x10,
                    aux: 4,
                },
                site: 0,
                enabled: ThreadSet::EMPTY,
            })
            .collect();
        Trace::new(events, Vec::new())
    }

    #[test]
    fn short_traces_are_shown_whole() {
        let trace = trace_of(&[0; FULL_TRACE_STEPS]);
        assert_eq!(steps_to_show(&trace, &[]).len(), FULL_TRACE_STEPS);
    }

    #[test]
    fn long_traces_show_each_threads_tail_and_the_named_steps() {
        // Thread 0 runs 10,000 steps, thread 1 ten steps early on, thread 2
        // the last 1,000 steps.
        let mut threads = vec![0u32; 10_000];
        threads[100..110].fill(1);
        threads.extend(std::iter::repeat_n(2, 1000));
        let trace = trace_of(&threads);
        let shown = steps_to_show(&trace, &[5, 3000]);
        let of = |t: u32| shown.iter().filter(|&&i| threads[i] == t).count();
        assert_eq!(of(1), 10, "all of thread 1's steps");
        assert_eq!(of(2), THREAD_TAIL_STEPS);
        assert_eq!(
            of(0),
            THREAD_TAIL_STEPS + 2,
            "its tail and the two named steps"
        );
        assert!(shown.contains(&5) && shown.contains(&3000));
        assert!(shown.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(shown.last(), Some(&10_999));
        assert_eq!(steps_per_thread(&trace), vec![9990, 10, 1000]);
    }

    #[test]
    fn long_traces_keep_every_spawn_and_join() {
        // Thread 0 spawns a thread first and joins it at step 2,000 of
        // 5,000: both far from its tail.
        let mut events = trace_of(&[0; 5_000]).events;
        events[0].op.kind = OpKind::ThreadCreate;
        events[2_000].op.kind = OpKind::ThreadJoin;
        let trace = Trace::new(events, Vec::new());
        let shown = steps_to_show(&trace, &[]);
        assert!(shown.contains(&0) && shown.contains(&2_000), "{shown:?}");
        assert_eq!(shown.len(), THREAD_TAIL_STEPS + 2);
    }
}
