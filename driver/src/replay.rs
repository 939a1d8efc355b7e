//! `--replay FILE`: re-runs exactly one recorded interleaving and checks that
//! it performs the same operations (a difference is reported as
//! nondeterminism, with the first step that differs).

use crate::bug::{classify, Bug, BugKind, BugPolicy};
use crate::exec::{Executor, Outcome, Request};
use crate::explore::{Finding, StopReason, Summary};
use crate::record::Recorder;
use crate::schedule::ScheduleFile;
use crate::trace::Trace;
use reach_channel::RunStatus;
use std::time::Instant;

/// Replays `schedule` once and reports what the execution showed; `record`
/// keeps the replayed execution's schedule (as execution 1). The replayed
/// trace comes back too when it found no bug (a bug's is in the summary's
/// finding).
pub fn replay(
    executor: &mut Executor,
    schedule: &ScheduleFile,
    policy: BugPolicy,
    record: Option<&Recorder>,
) -> (Summary, Option<Trace>) {
    let start = Instant::now();
    let mut summary = Summary::empty("replay", false);
    let mut request = Request::continuing(schedule.choices());
    request.inputs = schedule.input_values();
    let outcome = match executor.run(&request) {
        Ok(outcome) => outcome,
        Err(e) => {
            summary.stop = StopReason::Error(e.to_string());
            return (summary, None);
        }
    };
    summary.executions = 1;
    let trace = crate::explore::with_objects(Trace::from_outcome(&outcome), executor, &outcome);
    if let Some(recorder) = record {
        recorder.offer(1, &trace, outcome.status != RunStatus::Running);
    }
    summary.total_steps = trace.len() as u64;
    let bug = match first_difference(schedule, &trace, &outcome) {
        Some(message) => Some(Bug {
            kind: BugKind::Nondeterminism,
            message,
            race: None,
            lockset: None,
        }),
        None => match classify(&outcome, &trace, policy) {
            Ok(bug) => bug,
            Err(e) => {
                summary.stop = StopReason::Error(format!("{e:?}"));
                None
            }
        },
    };
    let mut clean = None;
    if let Some(bug) = bug {
        summary.stop = StopReason::Bug;
        summary.findings.push(Finding {
            signature: format!("{:?}", bug.kind),
            bug,
            execution: 1,
            schedule: trace.schedule(),
            trace,
            outcome,
            also: Vec::new(),
        });
    } else {
        clean = Some(trace);
    }
    summary.elapsed = start.elapsed();
    (summary, clean)
}

/// Where the replay did not do what the recorded execution did: the first
/// recorded step it did not reproduce, or else a different number of steps
/// in all (when both executions ran to an end the runtime counted).
fn first_difference(schedule: &ScheduleFile, trace: &Trace, outcome: &Outcome) -> Option<String> {
    if let Some(difference) = schedule.first_difference(trace) {
        return Some(difference);
    }
    let counted = outcome.status != RunStatus::Running;
    match schedule.total_steps {
        Some(expected) if counted && expected != trace.total_steps => Some(format!(
            "replay diverged after the recorded steps: the execution ran {} steps, the recorded one {expected}",
            trace.total_steps
        )),
        _ => None,
    }
}
