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
    let mut request = Request::continuing(schedule.prefix());
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
            message: with_likely_causes(message, &outcome),
            race: None,
            lockset: None,
            causes: crate::causes::likely_causes(&outcome.sources, false),
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
            by_share: false,
        });
    } else {
        clean = Some(trace);
    }
    summary.elapsed = start.elapsed();
    (summary, clean)
}

/// `message` followed by the likely causes of nondeterminism the runtime
/// saw in the replay, if it saw any ([`crate::causes`]).
fn with_likely_causes(message: String, outcome: &Outcome) -> String {
    let likely = crate::causes::likely(&outcome.sources, false);
    if likely.is_empty() {
        message
    } else {
        format!("{message}; {}", crate::causes::sentence(&likely, None))
    }
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

/// `words` as one shell command line: each word that is not made only of
/// characters no shell treats specially is put in single quotes (a single
/// quote inside as `'\''`), so the line runs as printed.
pub fn shell_words(words: &[String]) -> String {
    words
        .iter()
        .map(|w| shell_quote(w))
        .collect::<Vec<_>>()
        .join(" ")
}

/// One word quoted for a POSIX shell (see [`shell_words`]).
pub fn shell_quote(word: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "%+,-./:=@_^".contains(c);
    if !word.is_empty() && word.chars().all(plain) {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_quoted_only_when_a_shell_would_change_them() {
        let words: Vec<String> = ["reach-native", "./prog", "a b", "", "it's", "$HOME", "x=1"]
            .map(String::from)
            .to_vec();
        assert_eq!(
            shell_words(&words),
            r#"reach-native ./prog 'a b' '' 'it'\''s' '$HOME' x=1"#
        );
    }
}
