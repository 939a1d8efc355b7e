//! Shortening a bug's schedule before it is reported: fewer context
//! switches and fewer steps, as long as the same bug (kind and source
//! location) still shows. Candidates are re-run as schedule prefixes under
//! the "continue" policy (which never switches away from an enabled
//! thread), so a shorter prefix means fewer switches:
//!
//! - *cut at a switch*: keep the schedule up to a switch and let the
//!   thread that ran before it go on;
//! - *drop a run*: leave out one thread's run of consecutive steps and
//!   keep the rest of the schedule.
//!
//! A candidate is kept if it reproduces the bug with fewer switches, or
//! as many and fewer steps; the search starts over from it, latest switches
//! first, until no candidate helps, the budget of re-runs is spent, or
//! [`STALL_RUNS`] re-runs or [`STALL_TIME`] passed without a shorter
//! schedule. Candidates are built one at a time from a short description,
//! so memory stays that of a few schedules however long the trace.

use crate::bug::BugKind;
use crate::cancel::Cancel;
use crate::exec::{Executor, Request};
use crate::explore::{execute, ExploreOptions, Finding, Shortened};
use crate::strategy::{Divergence, Strategy};
use crate::trace::Trace;

/// Default budget of re-runs for shortening one bug.
pub const DEFAULT_BUDGET: u64 = 300;

/// Context switches of a schedule: steps whose thread differs from the
/// step before.
pub fn switches(schedule: &[u32]) -> u64 {
    schedule.windows(2).filter(|w| w[0] != w[1]).count() as u64
}

/// What identifies a bug across schedules: its kind and where it happened
/// (the racing sites of a data race, the culprit's site of a crash or
/// assertion, the sites the threads of a deadlock wait at).
pub fn location(finding: &Finding) -> (BugKind, String) {
    let kind = finding.bug.kind;
    let place = match kind {
        BugKind::DataRace => finding.signature.clone(),
        BugKind::Deadlock => {
            let mut sites: Vec<u64> = finding
                .outcome
                .threads
                .iter()
                .filter(|t| t.state == reach_channel::ThreadState::Parked as u32)
                .map(|t| t.pending_site)
                .collect();
            sites.sort_unstable();
            sites.dedup();
            format!("{sites:x?}")
        }
        _ => match finding.outcome.culprit {
            Some((thread, _)) => {
                let site = finding
                    .outcome
                    .threads
                    .get(thread as usize)
                    .map_or(0, |t| t.last_site);
                format!("{site:x}")
            }
            None => finding.signature.clone(),
        },
    };
    (kind, place)
}

/// Accepts every trace: the candidates are checked by their outcome only.
struct Replaying;

impl Strategy for Replaying {
    fn name(&self) -> &'static str {
        "shorten"
    }
    fn next_request(&mut self) -> Option<Request> {
        None
    }
    fn observe(&mut self, _request: &Request, _trace: &Trace) -> Result<(), Divergence> {
        Ok(())
    }
}

/// Steps of `trace` from `from` on where `culprit` has just become
/// enabled (enabled there, not at the step before) and another thread ran.
fn first_enabled(trace: &Trace, culprit: u32, from: usize) -> Vec<usize> {
    let events = &trace.events;
    (from..events.len())
        .filter(|&i| {
            events[i].thread != culprit
                && events[i].enabled.contains(culprit)
                && (i == from || !events[i - 1].enabled.contains(culprit))
        })
        .collect()
}

/// A candidate prefix, described by where it departs from the schedule
/// it comes from (built only when it is tried: a long schedule has as many
/// candidates as steps, and all of them built at once took gigabytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Candidate {
    /// The schedule's first `i` steps, then the culprit.
    Overtake(usize),
    /// The schedule's first `i` steps.
    Cut(usize),
    /// The schedule without its steps `start..end` (one run).
    Drop(usize, usize),
}

impl Candidate {
    /// The prefix it stands for, from `schedule` and its `culprit`.
    fn prefix(self, schedule: &[u32], culprit: u32) -> Vec<u32> {
        match self {
            Candidate::Overtake(i) => {
                let mut prefix = Vec::with_capacity(i + 1);
                prefix.extend_from_slice(&schedule[..i]);
                prefix.push(culprit);
                prefix
            }
            Candidate::Cut(i) => schedule[..i].to_vec(),
            Candidate::Drop(start, end) => {
                let mut prefix = Vec::with_capacity(schedule.len() - (end - start));
                prefix.extend_from_slice(&schedule[..start]);
                prefix.extend_from_slice(&schedule[end..]);
                prefix
            }
        }
    }
}

/// Candidate prefixes from `trace`'s schedule, in two groups, most
/// promising first. First: the thread that ran last in the trace (the one
/// that showed the bug) overtaking the others as soon as it becomes
/// enabled, and cuts at each switch, earliest first. Then: that thread
/// overtaking at every other step where it was enabled, and each run but
/// the last dropped.
fn candidates(trace: &Trace) -> (Vec<Candidate>, Vec<Candidate>) {
    let events = &trace.events;
    let Some(culprit) = events.last().map(|e| e.thread) else {
        return (Vec::new(), Vec::new());
    };
    let starts: Vec<usize> = (1..events.len())
        .filter(|&i| events[i].thread != events[i - 1].thread)
        .collect();
    let early = first_enabled(trace, culprit, 0);
    let mut first: Vec<Candidate> = early.iter().map(|&i| Candidate::Overtake(i)).collect();
    first.extend(starts.iter().map(|&i| Candidate::Cut(i)));
    let mut rest: Vec<Candidate> = (0..events.len())
        .filter(|&i| {
            events[i].thread != culprit
                && events[i].enabled.contains(culprit)
                && (i == 0 || events[i - 1].thread != culprit)
                && early.binary_search(&i).is_err()
        })
        .map(Candidate::Overtake)
        .collect();
    // Dropping the last run is the same as cutting at its start.
    for (k, &start) in starts
        .iter()
        .enumerate()
        .take(starts.len().saturating_sub(1))
    {
        let end = starts.get(k + 1).copied().unwrap_or(events.len());
        rest.push(Candidate::Drop(start, end));
    }
    (first, rest)
}

/// Consecutive re-runs without a shorter schedule after which shortening
/// gives up.
pub const STALL_RUNS: u64 = 100;

/// Time spent on re-runs without a shorter schedule after which shortening
/// gives up (each re-run of a long execution takes seconds).
pub const STALL_TIME: std::time::Duration = std::time::Duration::from_secs(10);

/// Shortens `finding` by re-running candidate schedules on `executor`, at
/// most `budget` of them and not past `cancel`. Returns the shortest
/// reproduction found (the original if none was shorter) and what was done.
pub fn shorten(
    executor: &mut Executor,
    finding: &Finding,
    options: &ExploreOptions,
    budget: u64,
    cancel: &Cancel,
) -> (Finding, Shortened) {
    let want = location(finding);
    let mut best = finding.clone();
    let mut best_key = (switches(&best.schedule), best.schedule.len());
    let mut stats = Shortened {
        original_switches: best_key.0,
        original_steps: best_key.1 as u64,
        switches: best_key.0,
        steps: best_key.1 as u64,
        executions: 0,
    };
    if finding.bug.kind == BugKind::Nondeterminism {
        return (best, stats);
    }
    executor.set_cancel(cancel.clone());
    let options = ExploreOptions {
        record: None,
        count_partial_orders: false,
        ..options.clone()
    };
    let mut replaying = Replaying;
    // Every candidate runs with the bug's inputs (concolic testing).
    let inputs = finding
        .trace
        .symbolic
        .as_ref()
        .map(|sym| sym.values())
        .unwrap_or_default();
    let request = |prefix: Vec<u32>| Request {
        inputs: inputs.clone(),
        ..Request::continuing(prefix)
    };
    let mut stalled_runs = 0u64;
    let mut stalled_since = std::time::Instant::now();
    'outer: loop {
        let (first, rest) = candidates(&best.trace);
        let culprit = best.schedule.last().copied();
        let schedule = best.trace.schedule();
        // The cuts at each switch, each continued and then overtaken by the
        // culprit where it becomes enabled (two runs per cut).
        let starts: Vec<usize> = (1..best.schedule.len())
            .filter(|&i| best.schedule[i] != best.schedule[i - 1])
            .collect();
        let mut two_stage = starts.into_iter();
        let mut first = first.into_iter();
        let mut rest = rest.into_iter();
        // Overtakes of a continued cut's schedule, latest last.
        let mut pending: (Vec<u32>, Vec<usize>) = (Vec::new(), Vec::new());
        loop {
            if stats.executions >= budget
                || cancel.is_set()
                || stalled_runs >= STALL_RUNS
                || stalled_since.elapsed() >= STALL_TIME
            {
                break 'outer;
            }
            let c = culprit.unwrap_or(0);
            let prefix = if let Some(p) = first.next() {
                p.prefix(&schedule, c)
            } else if let Some(i) = pending.1.pop() {
                Candidate::Overtake(i).prefix(&pending.0, c)
            } else if let (Some(j), Some(c)) = (two_stage.next(), culprit) {
                stats.executions += 1;
                stalled_runs += 1;
                let Ok(outcome) = executor.run(&request(best.schedule[..j].to_vec())) else {
                    continue;
                };
                let trace = Trace::from_outcome(&outcome);
                // Latest last, so tried first: the culprit's latest wake-up
                // is the likeliest to pass the others.
                pending = (trace.schedule(), first_enabled(&trace, c, j));
                continue;
            } else if let Some(p) = rest.next() {
                p.prefix(&schedule, c)
            } else {
                break 'outer;
            };
            stats.executions += 1;
            stalled_runs += 1;
            let Ok(Some(examined)) = execute(
                executor,
                &mut replaying,
                &request(prefix),
                &options,
                best.execution,
            ) else {
                continue;
            };
            let Some(found) = examined.finding else {
                continue;
            };
            let key = (switches(&found.schedule), found.schedule.len());
            if location(&found) == want && key < best_key {
                best = found;
                best_key = key;
                stalled_runs = 0;
                stalled_since = std::time::Instant::now();
                continue 'outer;
            }
        }
    }
    stats.switches = best_key.0;
    stats.steps = best_key.1 as u64;
    best.execution = finding.execution;
    best.by_share = finding.by_share;
    (best, stats)
}

#[cfg(test)]
mod tests {
    use super::*;
    use reach_channel::ThreadSet;

    #[test]
    fn switches_count_changes_of_thread() {
        assert_eq!(switches(&[]), 0);
        assert_eq!(switches(&[0, 0, 1, 1, 0, 2]), 3);
    }

    #[test]
    fn candidates_overtake_early_and_cut_first_then_the_rest() {
        use crate::trace::TraceEvent;
        use reach_channel::{EventFlags, Op, OpKind};
        let all = {
            let mut s = ThreadSet::EMPTY;
            for t in 0..3 {
                s.insert(t);
            }
            s
        };
        let events = [0, 0, 1, 2, 2]
            .iter()
            .map(|&thread| TraceEvent {
                thread,
                op: Op {
                    kind: OpKind::Yield,
                    flags: EventFlags(0),
                    object: 0,
                    aux: 0,
                },
                site: 0,
                enabled: all,
            })
            .collect();
        let trace = Trace::new(events, Vec::new());
        let (first, rest) = candidates(&trace);
        let schedule = trace.schedule();
        let build = |all: Vec<Candidate>| -> Vec<Vec<u32>> {
            all.into_iter().map(|c| c.prefix(&schedule, 2)).collect()
        };
        let (first, rest) = (build(first), build(rest));
        assert_eq!(first, vec![vec![2], vec![0, 0], vec![0, 0, 1]]);
        assert_eq!(rest, vec![vec![0, 2], vec![0, 0, 2], vec![0, 0, 2, 2]]);
    }
}
