//! Whose nondeterminism: before an execution that did not follow its
//! schedule is reported as the program's nondeterminism, the same request
//! runs twice more in a fresh executor (its own fork server and
//! processes; up to eight times when the runtime saw a source of
//! nondeterminism, which may leave the path alone by chance). If every
//! run repeats the first one step for step, the
//! program is deterministic and the search asked for a schedule it cannot
//! take: an internal error, reported as such, and the search goes on. If
//! they do not, the program's behaviour depends on something besides the
//! schedule, and the report names the likely causes the runtime saw in the
//! runs ([`crate::causes`]) and where the runs parted.

use crate::causes;
use crate::exec::{DirSnapshot, ExecConfig, ExecError, Executor, Request};
use crate::trace::Trace;
use reach_channel::sources::Seen;
use std::sync::Arc;
use std::time::SystemTime;

/// Re-runs of a diverged execution.
const RERUNS: usize = 2;
/// Re-runs of a diverged execution in which the runtime saw a source of
/// nondeterminism.
const RERUNS_WITH_A_SOURCE: usize = 8;

/// Re-runs of diverged executions, in executors of their own.
#[derive(Debug)]
pub struct Recheck {
    config: ExecConfig,
    /// The working directory as the run found it, when executions share
    /// it (no `--isolate-files`): files the executions changed there are a
    /// cause the re-runs cannot show, since they start from the same
    /// changed files.
    workdir: Option<Arc<DirSnapshot>>,
    /// When the run started: a file the executions opened that changed
    /// since is a cause the re-runs cannot show either.
    started: SystemTime,
}

/// What the re-runs of a diverged execution showed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Judgement {
    /// The re-runs repeated the first run, and nothing the program used
    /// before the divergence explains it: the program is deterministic
    /// here, the schedule was one it cannot take.
    Repeats,
    /// A re-run did something else, or a file the executions use changed:
    /// the program's own nondeterminism, with its likely causes and where
    /// the runs parted (`likely cause: ...`), and those causes as records.
    Differs(String, Vec<causes::Cause>),
}

/// The environment variable that, for tests only, makes the driver ask the
/// runtime for a thread that does not exist at the end of the prefix of
/// execution N (`REACH_TEST_PERTURB_EXECUTION=N`): a schedule no program
/// can take, as a search that asked for the impossible would.
pub const PERTURB_VARIABLE: &str = reach_channel::env::TEST_PERTURB_EXECUTION;

/// The request execution `number` runs: `request`, or with
/// [`PERTURB_VARIABLE`] naming `number`, its prefix's last step given to a
/// thread that does not exist.
pub fn perturbed(request: &Request, number: u64) -> Option<Request> {
    let wanted: u64 = std::env::var(PERTURB_VARIABLE).ok()?.parse().ok()?;
    if wanted != number || request.prefix.is_empty() {
        return None;
    }
    let mut changed = request.clone();
    if let Some(last) = changed.prefix.last_mut() {
        *last = reach_channel::MAX_THREADS as u32 - 1;
    }
    Some(changed)
}

impl Recheck {
    /// Re-runs with executors built from `config`; `workdir`: the working
    /// directory as the run found it, if the executions share it.
    pub fn new(config: ExecConfig, workdir: Option<Arc<DirSnapshot>>) -> Recheck {
        Recheck {
            config,
            workdir,
            started: SystemTime::now(),
        }
    }

    /// Runs `request` twice (up to eight times when the runtime saw a
    /// likely cause) in a fresh executor and compares the runs with
    /// `first`, the trace of the run that diverged at step `diverged_at`
    /// from the path an earlier execution took, in which the runtime saw
    /// `seen`. A change of the working directory or of a file the program
    /// opened is the program's nondeterminism without re-running.
    /// `predicted`: the step left was the strategy's prediction
    /// ([`crate::strategy::Divergence::predicted`]), which no earlier
    /// execution took, so what an earlier run read cannot explain it.
    pub fn judge(
        &self,
        request: &Request,
        first: &Trace,
        seen: &Seen,
        diverged_at: usize,
        predicted: bool,
    ) -> Result<Judgement, String> {
        let mut evidence = Vec::new();
        let changed = self.workdir.as_deref().map(DirSnapshot::changes);
        if let Some(first_change) = changed.as_ref().and_then(|c| c.first()) {
            evidence.push(causes::Cause {
                kind: "working_directory",
                site: 0,
                step: None,
                text: format!(
                    "the executions changed files in the working directory ({}{})",
                    first_change.display(),
                    if changed.as_ref().map_or(0, Vec::len) > 1 {
                        ", ..."
                    } else {
                        ""
                    }
                ),
            });
        }
        evidence.extend(causes::changed_file_causes(seen, self.started));
        if !evidence.is_empty() {
            return Ok(differs(evidence, None));
        }
        let mut seen = seen.clone();
        let mut executor = Executor::new(self.config.clone()).map_err(|e| e.to_string())?;
        for run in 0..RERUNS_WITH_A_SOURCE {
            // A program that reads random bytes may repeat itself by chance
            // (its path depends only on some of them): a few more re-runs
            // before the search is blamed.
            if run >= RERUNS && causes::likely(&seen, false).is_empty() {
                break;
            }
            let outcome = match executor.run(request) {
                Ok(outcome) => outcome,
                Err(ExecError::Cancelled) => return Err("cancelled".into()),
                Err(e) => return Err(e.to_string()),
            };
            seen.merge(&outcome.sources);
            let again = Trace::from_outcome(&outcome);
            if let Some(parting) = parted(first, &again) {
                let likely = causes::likely_causes(&seen, parting.at_address);
                return Ok(differs(likely, Some(&parting.text)));
            }
        }
        // The re-runs repeat this execution, but it may have read other
        // values than the earlier execution it parted from (when it left a
        // step that execution took, not a predicted one).
        let before = causes::used_before_causes(&seen, diverged_at as u64);
        if !predicted && !before.is_empty() {
            return Ok(differs(
                before,
                Some(&format!(
                    "this execution left the path of an earlier one at step {diverged_at}, after the program used it (its re-runs repeated this execution)"
                )),
            ));
        }
        Ok(Judgement::Repeats)
    }
}

/// The program's nondeterminism with `causes` (most likely first) and
/// where the runs parted (`parting`, if known).
fn differs(causes: Vec<causes::Cause>, parting: Option<&str>) -> Judgement {
    let texts: Vec<String> = causes.iter().map(|c| c.text.clone()).collect();
    Judgement::Differs(causes::sentence(&texts, parting), causes)
}

/// Where a re-run parted from the first run.
struct Parting {
    /// In words.
    text: String,
    /// A thread accessed another address at the same step.
    at_address: bool,
}

/// Where `again` parted from `first`, if it did: the first step that
/// differs.
fn parted(first: &Trace, again: &Trace) -> Option<Parting> {
    let steps = first.events.iter().zip(&again.events).enumerate();
    for (step, (a, b)) in steps {
        if a.thread == b.thread && a.op.kind == b.op.kind && a.op.object != b.op.object {
            return Some(Parting {
                text: format!(
                    "an address that differed: at step {step} thread {} accessed {:#x}, then {:#x} in a re-run of the same schedule",
                    a.thread, a.op.object, b.op.object
                ),
                at_address: true,
            });
        }
        if a.thread != b.thread || a.op != b.op {
            return Some(Parting {
                text: format!(
                    "a re-run of the same schedule took another path at step {step} (thread {} {}, then thread {} {})",
                    a.thread,
                    a.op.kind.name(),
                    b.thread,
                    b.op.kind.name()
                ),
                at_address: false,
            });
        }
    }
    if first.len() != again.len() {
        return Some(Parting {
            text: format!(
                "a re-run of the same schedule ran {} steps, the first run {}",
                again.len(),
                first.len()
            ),
            at_address: false,
        });
    }
    None
}
