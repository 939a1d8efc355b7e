//! `--replay FILE`: re-runs exactly one recorded interleaving and checks that
//! it performs the same operations (a difference is reported as
//! nondeterminism, with the first step that differs).

use crate::bug::{classify, Bug, BugKind, BugPolicy};
use crate::exec::{Executor, Request};
use crate::explore::{Finding, StopReason, Summary};
use crate::record::Recorder;
use crate::schedule::ScheduleFile;
use crate::trace::Trace;
use reach_channel::{Policy, ThreadSet};
use std::time::Instant;

/// Replays `schedule` once and reports what the execution showed; `record`
/// keeps the replayed execution's schedule (as execution 1).
pub fn replay(
    executor: &mut Executor,
    schedule: &ScheduleFile,
    policy: BugPolicy,
    record: Option<&Recorder>,
) -> Summary {
    let start = Instant::now();
    let mut summary = Summary::empty("replay", false);
    let request = Request {
        prefix: schedule.schedule.clone(),
        policy: Policy::ContinueThenLowest,
        seed: 0,
        sleep_set: ThreadSet::EMPTY,
        sleep_sets: false,
    };
    let outcome = match executor.run(&request) {
        Ok(outcome) => outcome,
        Err(e) => {
            summary.stop = StopReason::Error(e.to_string());
            return summary;
        }
    };
    summary.executions = 1;
    let trace = Trace::from_outcome(&outcome);
    if let Some(recorder) = record {
        recorder.offer(1, &trace);
    }
    summary.total_steps = trace.len() as u64;
    let bug = match first_difference(schedule, &trace) {
        Some(message) => Some(Bug {
            kind: BugKind::Nondeterminism,
            message,
            race: None,
        }),
        None => match classify(&outcome, &trace, policy) {
            Ok(bug) => bug,
            Err(e) => {
                summary.stop = StopReason::Error(format!("{e:?}"));
                None
            }
        },
    };
    if let Some(bug) = bug {
        summary.stop = StopReason::Bug;
        summary.findings.push(Finding {
            signature: format!("{:?}", bug.kind),
            bug,
            execution: 1,
            schedule: trace.schedule(),
            trace,
            outcome,
        });
    }
    summary.elapsed = start.elapsed();
    summary
}

/// `expected X at step N, got Y` for the first recorded step the replay did
/// not reproduce.
fn first_difference(schedule: &ScheduleFile, trace: &Trace) -> Option<String> {
    for (step, expected) in schedule.steps.iter().enumerate() {
        let got = trace.events.get(step);
        let same = got.is_some_and(|e| {
            e.thread == expected.thread
                && e.op.kind.name() == expected.op
                && e.op.object == expected.object
        });
        if !same {
            let got = got.map_or("the end of the execution".to_string(), |e| {
                format!("T{} {} {:#x}", e.thread, e.op.kind.name(), e.op.object)
            });
            return Some(format!(
                "replay diverged: expected T{} {} {:#x} at step {step}, got {got}",
                expected.thread, expected.op, expected.object
            ));
        }
    }
    None
}
