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
use reach_channel::{Policy, ThreadSet};
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

/// Candidate prefixes from `trace`'s schedule, most promising first:
/// - at each step where the thread that ran last in the trace (the one
///   that showed the bug) was enabled and another ran, the schedule up
///   to there and then that thread (it overtakes the rest), earliest first;
/// - cuts at each switch, earliest first;
/// - each run but the last dropped, earliest first.
fn candidates(trace: &Trace) -> Vec<Vec<u32>> {
    let schedule = trace.schedule();
    let Some(&culprit) = schedule.last() else {
        return Vec::new();
    };
    let starts: Vec<usize> = (1..schedule.len())
        .filter(|&i| schedule[i] != schedule[i - 1])
        .collect();
    let mut out: Vec<Vec<u32>> = Vec::new();
    for (i, e) in trace.events.iter().enumerate() {
        if e.thread != culprit
            && e.enabled.contains(culprit)
            && (i == 0 || schedule[i - 1] != culprit)
        {
            let mut overtaken = schedule[..i].to_vec();
            overtaken.push(culprit);
            out.push(overtaken);
        }
    }
    out.extend(starts.iter().map(|&i| schedule[..i].to_vec()));
    // Dropping the last run is the same as cutting at its start.
    for (k, &start) in starts
        .iter()
        .enumerate()
        .take(starts.len().saturating_sub(1))
    {
        let end = starts.get(k + 1).copied().unwrap_or(schedule.len());
        let mut dropped = schedule[..start].to_vec();
        dropped.extend_from_slice(&schedule[end..]);
        out.push(dropped);
    }
    out
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
    'outer: loop {
        for prefix in candidates(&best.trace) {
            if stats.executions >= budget || cancel.is_set() {
                break 'outer;
            }
            let request = Request {
                prefix,
                policy: Policy::ContinueThenLowest,
                seed: 0,
                sleep_set: ThreadSet::EMPTY,
                sleep_sets: false,
                change_points: Vec::new(),
            };
            stats.executions += 1;
            let Ok(Some(examined)) =
                execute(executor, &mut replaying, &request, &options, best.execution)
            else {
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
        break;
    }
    stats.switches = best_key.0;
    stats.steps = best_key.1 as u64;
    best.execution = finding.execution;
    (best, stats)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn switches_count_changes_of_thread() {
        assert_eq!(switches(&[]), 0);
        assert_eq!(switches(&[0, 0, 1, 1, 0, 2]), 3);
    }

    #[test]
    fn candidates_overtake_then_cut_then_drop_runs() {
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
        assert_eq!(
            candidates(&trace),
            vec![
                vec![2],
                vec![0, 2],
                vec![0, 0, 2],
                vec![0, 0],
                vec![0, 0, 1],
                vec![0, 0, 2, 2]
            ]
        );
    }
}
