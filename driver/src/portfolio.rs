//! A portfolio: several strategies side by side on the cores, stopping at
//! the first bug. Each worker thread has its own executor and runs its
//! members in turn, one execution each; `--max-executions` and
//! `--max-time` bound the whole. A member whose search completes without a
//! bug (DPOR) proves there is none, and stops the others too.

use crate::exec::{ExecConfig, Executor};
use crate::explore::{execute, ExploreOptions, Finding, StopReason, Summary};
use crate::strategy::dpor::Dpor;
use crate::strategy::pct::Pct;
use crate::strategy::random::{RandomWalk, SplitMix};
use crate::strategy::Strategy;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Instant;

/// One member of a portfolio.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Member {
    /// DPOR with sleep sets (complete if it finishes).
    Dpor,
    /// PCT for bugs of this depth, with this seed.
    Pct(u32, u64),
    /// Random walk with this seed.
    Random(u64),
}

impl Member {
    /// The default portfolio: DPOR, PCT with depths 1 to 3 and a random
    /// walk, their seeds drawn from `seed`.
    pub fn defaults(seed: u64) -> Vec<Member> {
        let mut rng = SplitMix::new(seed);
        vec![
            Member::Dpor,
            Member::Pct(1, rng.next_u64()),
            Member::Pct(2, rng.next_u64()),
            Member::Pct(3, rng.next_u64()),
            Member::Random(rng.next_u64()),
        ]
    }

    /// How the member is named in reports (`pct depth 2 (seed 17)`).
    pub fn label(&self) -> String {
        match self {
            Member::Dpor => "dpor".into(),
            Member::Pct(d, seed) => format!("pct depth {d} (seed {seed})"),
            Member::Random(seed) => format!("random (seed {seed})"),
        }
    }

    fn build(&self) -> Box<dyn Strategy> {
        match *self {
            Member::Dpor => Box::new(Dpor::new(true)),
            Member::Pct(d, seed) => Box::new(Pct::new(d, seed)),
            Member::Random(seed) => Box::new(RandomWalk::new(seed)),
        }
    }
}

/// A member's summary and coverage line once its worker stopped.
type MemberResult = Option<(Summary, Option<String>)>;

/// A member on its worker: index, member, search, summary, and whether its
/// search ended by itself.
type Running = (usize, Member, Box<dyn Strategy>, Summary, bool);

/// What the workers share.
struct Shared<'a> {
    options: &'a ExploreOptions,
    started: AtomicU64,
    /// The portfolio itself set the interrupt flag (bug or completion).
    stopped_here: AtomicBool,
    /// Why it stopped, if not by the cancel condition.
    stop: Mutex<Option<StopReason>>,
    /// The first bug and the member that found it.
    found: Mutex<Option<(Finding, String)>>,
    /// Each member's summary and coverage line, by member index.
    results: Mutex<Vec<MemberResult>>,
    start: Instant,
}

impl Shared<'_> {
    fn halt(&self, why: StopReason) {
        let mut stop = self.stop.lock().unwrap_or_else(|e| e.into_inner());
        if stop.is_none() {
            *stop = Some(why);
            self.stopped_here.store(true, Ordering::SeqCst);
            self.options.interrupt.store(true, Ordering::SeqCst);
        }
    }
}

/// Runs `members` on `jobs` workers (worker 0 on `executor`, the others on
/// executors started from `config`, worker `k` bound to CPU
/// `placement[k % len]`). The summary's coverage line has one part per
/// member, and `found_by` names the member that found the bug.
pub fn explore_portfolio(
    executor: &mut Executor,
    config: &ExecConfig,
    members: &[Member],
    jobs: usize,
    placement: &[usize],
    options: &ExploreOptions,
    progress: &mut dyn FnMut(&Summary),
) -> Summary {
    let start = Instant::now();
    let jobs = jobs.clamp(1, members.len().max(1));
    let shared = Shared {
        options,
        started: AtomicU64::new(0),
        stopped_here: AtomicBool::new(false),
        stop: Mutex::new(None),
        found: Mutex::new(None),
        results: Mutex::new(vec![None; members.len()]),
        start,
    };
    let assigned = |worker: usize| -> Vec<(usize, Member)> {
        members
            .iter()
            .copied()
            .enumerate()
            .filter(|(i, _)| i % jobs == worker)
            .collect()
    };
    std::thread::scope(|scope| {
        for worker in 1..jobs {
            let mine = assigned(worker);
            let shared = &shared;
            scope.spawn(move || {
                crate::affinity::bind_current_thread(placement, worker);
                match Executor::new(config.clone()) {
                    Ok(mut executor) => run_worker(&mut executor, &mine, shared, &mut |_| {}),
                    Err(e) => shared.halt(StopReason::Error(format!(
                        "cannot start a portfolio worker: {e}"
                    ))),
                }
            });
        }
        run_worker(executor, &assigned(0), &shared, progress);
    });
    if shared.stopped_here.load(Ordering::SeqCst) {
        options.interrupt.store(false, Ordering::SeqCst);
    }
    let mut summary = Summary::empty("portfolio", options.count_partial_orders);
    let mut parts = Vec::new();
    let results = shared
        .results
        .into_inner()
        .unwrap_or_else(|e| e.into_inner());
    for (member, result) in members.iter().zip(results) {
        let Some((s, coverage)) = result else {
            continue;
        };
        summary.executions += s.executions;
        summary.sleep_blocked += s.sleep_blocked;
        summary.total_steps += s.total_steps;
        summary.truncated += s.truncated;
        summary.duplicate_orders += s.duplicate_orders;
        summary.recorded_bound = summary.recorded_bound.or(s.recorded_bound);
        summary.fingerprints.extend(s.fingerprints.iter().copied());
        let state = match &s.stop {
            StopReason::Complete => ", search complete".to_string(),
            StopReason::Bounded(why) => format!(", bounded: {why}"),
            _ => String::new(),
        };
        parts.push(match (coverage, member) {
            (Some(line), Member::Pct(..) | Member::Random(_)) => line,
            (_, _) => format!(
                "{}: {} executions{}{state}",
                member.label(),
                s.executions,
                s.partial_orders
                    .map(|n| format!(", {n} behaviours"))
                    .unwrap_or_default()
            ),
        });
    }
    if options.count_partial_orders {
        summary.partial_orders = Some(summary.fingerprints.len() as u64);
    }
    if let Some((finding, by)) = shared.found.into_inner().unwrap_or_else(|e| e.into_inner()) {
        summary.findings.push(finding);
        summary.found_by = Some(by);
    }
    let stop = shared.stop.into_inner().unwrap_or_else(|e| e.into_inner());
    summary.stop = match stop {
        Some(why) => why,
        None => match options.cancel(start).reason() {
            Some(why) => StopReason::cancelled(why),
            None => StopReason::TimeLimit,
        },
    };
    summary.coverage = Some(parts.join("; "));
    summary.elapsed = start.elapsed();
    summary
}

/// One worker: its members take turns, one execution each, until a bug,
/// a completed search, a limit or the interrupt.
fn run_worker(
    executor: &mut Executor,
    members: &[(usize, Member)],
    shared: &Shared<'_>,
    progress: &mut dyn FnMut(&Summary),
) {
    let options = shared.options;
    let cancel = options.cancel(shared.start);
    executor.set_cancel(cancel.clone());
    let mut searches: Vec<Running> = members
        .iter()
        .map(|&(i, m)| {
            let mut s = m.build();
            s.set_cancel(cancel.clone());
            let mut summary = Summary::empty(s.name(), options.count_partial_orders);
            // Until the member's search ends by itself, it was stopped.
            summary.stop = StopReason::Interrupted;
            (i, m, s, summary, false)
        })
        .collect();
    let mut turn = 0;
    'run: while !searches.iter().all(|s| s.4) {
        if cancel.is_set() {
            break;
        }
        turn = (turn + 1) % searches.len();
        let (_, member, search, summary, done) = &mut searches[turn];
        if *done {
            continue;
        }
        let Some(request) = search.next_request() else {
            *done = true;
            summary.stop = match search.incomplete() {
                Some(why) => StopReason::Bounded(why),
                None => StopReason::Complete,
            };
            summary.bound_by_truncation();
            if summary.stop == StopReason::Complete {
                // An exhaustive member finished: no schedule has a bug.
                shared.halt(StopReason::Complete);
            }
            continue;
        };
        let number = shared.started.fetch_add(1, Ordering::SeqCst) + 1;
        if options.max_executions.is_some_and(|m| number > m) {
            shared.halt(StopReason::ExecutionLimit);
            break;
        }
        match execute(executor, search.as_mut(), &request, options, number) {
            Ok(None) => break 'run,
            Ok(Some(mut examined)) => {
                let finding = examined.finding.take();
                summary.record(&examined);
                summary.elapsed = shared.start.elapsed();
                if let Some(finding) = finding {
                    let mut found = shared.found.lock().unwrap_or_else(|e| e.into_inner());
                    if found.is_none() {
                        *found = Some((finding, member.label()));
                    }
                    drop(found);
                    shared.halt(StopReason::Bug);
                    break 'run;
                }
                let mut shown = Summary::empty("portfolio", false);
                shown.executions = number;
                shown.elapsed = shared.start.elapsed();
                progress(&shown);
            }
            Err(message) => {
                shared.halt(StopReason::Error(message));
                break 'run;
            }
        }
    }
    let mut results = shared.results.lock().unwrap_or_else(|e| e.into_inner());
    for (i, _, search, summary, _) in searches {
        let coverage = search.coverage();
        results[i] = Some((summary, coverage));
    }
}
