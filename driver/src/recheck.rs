//! Whose nondeterminism: before an execution that did not follow its
//! schedule is reported as the program's nondeterminism, the same request
//! runs twice more in a fresh executor (its own fork server and
//! processes). If both runs repeat the first one step for step, the
//! program is deterministic and the search asked for a schedule it cannot
//! take: an internal error, reported as such, and the search goes on. If
//! they do not, the program's behaviour depends on something besides the
//! schedule, and the report names where the runs parted.

use crate::exec::{DirSnapshot, ExecConfig, ExecError, Executor, Request};
use crate::trace::Trace;

/// Re-runs of diverged executions, in executors of their own.
#[derive(Debug)]
pub struct Recheck {
    config: ExecConfig,
    /// The working directory as the run found it, when executions share
    /// it (no `--isolate-files`): files the executions changed there are a
    /// cause the re-runs cannot show, since they start from the same
    /// changed files.
    workdir: Option<DirSnapshot>,
}

/// What the re-runs of a diverged execution showed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Judgement {
    /// Both re-runs repeated the first run: the program is deterministic
    /// here, the schedule was one it cannot take.
    Repeats,
    /// A re-run did something else: the program's own nondeterminism,
    /// with where the runs parted.
    Differs(String),
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
    pub fn new(config: ExecConfig, workdir: Option<DirSnapshot>) -> Recheck {
        Recheck { config, workdir }
    }

    /// Runs `request` twice in a fresh executor and compares both runs
    /// with `first`, the trace of the run that diverged.
    pub fn judge(&self, request: &Request, first: &Trace) -> Result<Judgement, String> {
        let changed = self.workdir.as_ref().map(DirSnapshot::changes);
        if let Some(first_change) = changed.as_ref().and_then(|c| c.first()) {
            return Ok(Judgement::Differs(format!(
                "the executions changed files in the working directory ({}{})",
                first_change.display(),
                if changed.as_ref().map_or(0, Vec::len) > 1 {
                    ", ..."
                } else {
                    ""
                }
            )));
        }
        let mut executor = Executor::new(self.config.clone()).map_err(|e| e.to_string())?;
        for _ in 0..2 {
            let again = match executor.run(request) {
                Ok(outcome) => Trace::from_outcome(&outcome),
                Err(ExecError::Cancelled) => return Err("cancelled".into()),
                Err(e) => return Err(e.to_string()),
            };
            if let Some(cause) = parted(first, &again) {
                return Ok(Judgement::Differs(cause));
            }
        }
        Ok(Judgement::Repeats)
    }
}

/// Where `again` parted from `first`, if it did: the first step that
/// differs, as a likely cause.
fn parted(first: &Trace, again: &Trace) -> Option<String> {
    let steps = first.events.iter().zip(&again.events).enumerate();
    for (step, (a, b)) in steps {
        if a.thread == b.thread && a.op.kind == b.op.kind && a.op.object != b.op.object {
            return Some(format!(
                "an address that differed: at step {step} thread {} accessed {:#x}, then {:#x} in a re-run of the same schedule",
                a.thread, a.op.object, b.op.object
            ));
        }
        if a.thread != b.thread || a.op != b.op {
            return Some(format!(
                "a re-run of the same schedule took another path at step {step} (thread {} {}, then thread {} {})",
                a.thread,
                a.op.kind.name(),
                b.thread,
                b.op.kind.name()
            ));
        }
    }
    if first.len() != again.len() {
        return Some(format!(
            "a re-run of the same schedule ran {} steps, the first run {}",
            again.len(),
            first.len()
        ));
    }
    None
}
