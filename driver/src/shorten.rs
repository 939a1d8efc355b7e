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
//! first, until no candidate helps or the budget of re-runs is spent.

use crate::bug::BugKind;
use crate::cancel::Cancel;
use crate::exec::{Executor, Request};
use crate::explore::{execute, ExploreOptions, Finding};
use crate::strategy::{Divergence, Strategy};
use crate::trace::Trace;
use serde::Serialize;

/// Default budget of re-runs for shortening one bug.
pub const DEFAULT_BUDGET: u64 = 300;

/// What shortening did to a bug's schedule.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Shortened {
    /// Context switches of the execution that found the bug.
    pub original_switches: u64,
    /// Recorded steps of that execution.
    pub original_steps: u64,
    /// Context switches of the reported execution.
    pub switches: u64,
    /// Recorded steps of the reported execution.
    pub steps: u64,
    /// Executions run to shorten it.
    pub executions: u64,
}

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

/// Candidate prefixes from `trace`'s schedule, in two groups, most
/// promising first. First: the thread that ran last in the trace (the one
/// that showed the bug) overtaking the others as soon as it becomes
/// enabled, and cuts at each switch, earliest first. Then: that thread
/// overtaking at every other step where it was enabled, and each run but
/// the last dropped.
fn candidates(trace: &Trace) -> (Vec<Vec<u32>>, Vec<Vec<u32>>) {
    let schedule = trace.schedule();
    let Some(&culprit) = schedule.last() else {
        return (Vec::new(), Vec::new());
    };
    let overtake = |i: usize| {
        let mut prefix = schedule[..i].to_vec();
        prefix.push(culprit);
        prefix
    };
    let starts: Vec<usize> = (1..schedule.len())
        .filter(|&i| schedule[i] != schedule[i - 1])
        .collect();
    let early = first_enabled(trace, culprit, 0);
    let mut first: Vec<Vec<u32>> = early.iter().map(|&i| overtake(i)).collect();
    first.extend(starts.iter().map(|&i| schedule[..i].to_vec()));
    let mut rest: Vec<Vec<u32>> = (0..schedule.len())
        .filter(|&i| {
            trace.events[i].thread != culprit
                && trace.events[i].enabled.contains(culprit)
                && (i == 0 || schedule[i - 1] != culprit)
                && !early.contains(&i)
        })
        .map(overtake)
        .collect();
    // Dropping the last run is the same as cutting at its start.
    for (k, &start) in starts
        .iter()
        .enumerate()
        .take(starts.len().saturating_sub(1))
    {
        let end = starts.get(k + 1).copied().unwrap_or(schedule.len());
        let mut dropped = schedule[..start].to_vec();
        dropped.extend_from_slice(&schedule[end..]);
        rest.push(dropped);
    }
    (first, rest)
}

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
    'outer: loop {
        let (first, rest) = candidates(&best.trace);
        let culprit = best.schedule.last().copied();
        // The cuts at each switch, each continued and then overtaken by the
        // culprit where it becomes enabled (two runs per cut).
        let starts: Vec<usize> = (1..best.schedule.len())
            .filter(|&i| best.schedule[i] != best.schedule[i - 1])
            .collect();
        let mut two_stage = starts.into_iter();
        let mut first = first.into_iter();
        let mut rest = rest.into_iter();
        let mut pending: Vec<Vec<u32>> = Vec::new();
        loop {
            if stats.executions >= budget || cancel.is_set() {
                break 'outer;
            }
            let prefix = if let Some(p) = first.next() {
                p
            } else if let Some(p) = pending.pop() {
                p
            } else if let (Some(j), Some(c)) = (two_stage.next(), culprit) {
                stats.executions += 1;
                let Ok(outcome) = executor.run(&request(best.schedule[..j].to_vec())) else {
                    continue;
                };
                let trace = Trace::from_outcome(&outcome);
                let schedule = trace.schedule();
                // Latest last, so tried first: the culprit's latest wake-up
                // is the likeliest to pass the others.
                pending = first_enabled(&trace, c, j)
                    .into_iter()
                    .map(|i| {
                        let mut p = schedule[..i].to_vec();
                        p.push(c);
                        p
                    })
                    .collect();
                continue;
            } else if let Some(p) = rest.next() {
                p
            } else {
                break 'outer;
            };
            stats.executions += 1;
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
                continue 'outer;
            }
        }
    }
    stats.switches = best_key.0;
    stats.steps = best_key.1 as u64;
    best.execution = finding.execution;
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
        assert_eq!(first, vec![vec![2], vec![0, 0], vec![0, 0, 1]]);
        assert_eq!(rest, vec![vec![0, 2], vec![0, 0, 2], vec![0, 0, 2, 2]]);
    }
}
