//! The exploration loop: ask the strategy for an execution, run it, learn
//! from its trace, check it for bugs, repeat until the search is complete, a
//! limit is reached, or a bug is found.

use crate::analysis::fingerprint::fingerprint;
use crate::analysis::races::find_races;
use crate::bug::{classify, classify_all, Bug, BugKind, BugPolicy, Unusable};
use crate::cancel::{Cancel, Cancelled};
use crate::exec::{ExecError, Executor, Outcome, Request, Termination};
use crate::objects::ObjectLog;
use crate::random_share::{RandomShare, ShareSpec, ShareSummary};
use crate::recheck::Judgement;
use crate::record::Recorder;
use crate::strategy::{Divergence, Strategy};
use crate::trace::Trace;
use serde::Serialize;
use std::collections::HashSet;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Limits and switches of one exploration.
#[derive(Clone, Debug)]
pub struct ExploreOptions {
    /// Stop after this many executions.
    pub max_executions: Option<u64>,
    /// Stop after this much wall time.
    pub max_time: Option<Duration>,
    /// Keep exploring after a bug, collecting every distinct bug.
    pub keep_going: bool,
    /// What counts as a bug.
    pub bug_policy: BugPolicy,
    /// Count distinct partial orders (keeps one hash per distinct order).
    pub count_partial_orders: bool,
    /// Set from outside (Ctrl-C, SIGTERM) to stop at once: a running
    /// execution is killed and the analysis of the last one cut short.
    pub interrupt: Arc<AtomicBool>,
    /// Keeps the schedule of one execution (`--record`).
    pub record: Option<Arc<Recorder>>,
    /// Re-runs an execution that did not follow its schedule before it is
    /// reported as the program's nondeterminism ([`crate::recheck`]).
    pub recheck: Option<Arc<crate::recheck::Recheck>>,
    /// PCT executions beside the systematic search (the default search
    /// only, [`crate::random_share`]).
    pub random_share: Option<ShareSpec>,
}

impl ExploreOptions {
    /// The options of the randomised share's executions: nothing recorded
    /// (`--record` numbers the systematic executions), no partial orders
    /// counted (they are the systematic search's).
    pub fn for_share(&self) -> ExploreOptions {
        ExploreOptions {
            record: None,
            count_partial_orders: false,
            random_share: None,
            ..self.clone()
        }
    }

    /// The condition that stops an exploration started at `start`: the
    /// interrupt flag or the end of `max_time`.
    pub fn cancel(&self, start: Instant) -> Cancel {
        Cancel::new(
            self.interrupt.clone(),
            self.max_time.map(|limit| start + limit),
        )
    }
}

impl StopReason {
    /// The stop reason for a fired [`Cancel`].
    pub fn cancelled(why: Cancelled) -> StopReason {
        match why {
            Cancelled::Interrupted => StopReason::Interrupted,
            Cancelled::TimeLimit => StopReason::TimeLimit,
        }
    }
}

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

/// A bug with the execution that shows it.
#[derive(Clone, Debug)]
pub struct Finding {
    /// The bug.
    pub bug: Bug,
    /// Stable signature used to tell distinct bugs apart.
    pub signature: String,
    /// 1-based number of the execution that found it.
    pub execution: u64,
    /// The schedule that reproduces it.
    pub schedule: Vec<u32>,
    /// The trace of that execution.
    pub trace: Trace,
    /// The raw outcome (program output, thread states).
    pub outcome: Outcome,
    /// Further bugs the same execution shows, each with its signature
    /// (with `keep_going`: several lockset races of one execution).
    pub also: Vec<(Bug, String)>,
    /// The execution was one of the randomised share's: `execution`
    /// counts the share's executions ([`crate::random_share`]).
    pub by_share: bool,
}

impl Finding {
    /// This finding and each further bug of its execution (with a copy of
    /// the execution), those whose signature `seen` does not hold yet, in
    /// order; their signatures are added to `seen`.
    pub fn distinct(mut self, seen: &mut HashSet<String>) -> Vec<Finding> {
        let also = std::mem::take(&mut self.also);
        let mut out = Vec::new();
        for (bug, signature) in also {
            if !seen.contains(&signature) && signature != self.signature {
                seen.insert(signature.clone());
                out.push(Finding {
                    bug,
                    signature,
                    execution: self.execution,
                    schedule: self.schedule.clone(),
                    trace: self.trace.clone(),
                    outcome: self.outcome.clone(),
                    also: Vec::new(),
                    by_share: self.by_share,
                });
            }
        }
        if seen.insert(self.signature.clone()) {
            out.insert(0, self);
        }
        out
    }
}

/// Adds `finding`, and the further bugs its execution shows, to
/// `summary`'s findings where their signatures are new to `signatures`.
pub fn add_finding(summary: &mut Summary, signatures: &mut HashSet<String>, finding: Finding) {
    summary.findings.extend(finding.distinct(signatures));
}

/// Adds a finding of the randomised share like [`add_finding`]; if it is
/// the first bug, the summary says the share (`label`) found it.
pub fn add_share_finding(
    summary: &mut Summary,
    signatures: &mut HashSet<String>,
    finding: Finding,
    label: String,
) {
    if summary.findings.is_empty() {
        summary.found_by = Some(label);
    }
    add_finding(summary, signatures, finding);
}

/// Why the exploration stopped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StopReason {
    /// Every behaviour was explored.
    Complete,
    /// A bug was found (and `keep_going` was off).
    Bug,
    /// `max_executions` reached.
    ExecutionLimit,
    /// `max_time` reached.
    TimeLimit,
    /// Interrupted by the user.
    Interrupted,
    /// The strategy ran out of executions but had to bound its search (why).
    Bounded(String),
    /// The program cannot be tested further (message says why).
    Error(String),
}

/// Results of an exploration, complete or not.
#[derive(Clone, Debug)]
pub struct Summary {
    /// Strategy name.
    pub strategy: &'static str,
    /// Executions run and counted (with `--shard`, a shared execution is
    /// counted by one shard only: `Strategy::counted`).
    pub executions: u64,
    /// Executions run that another shard counts.
    pub uncounted: u64,
    /// Executions cut short because every enabled thread was asleep.
    pub sleep_blocked: u64,
    /// Executions blocked at an await: a thread's spin-loop iteration did
    /// nothing and another thread later changed what it read
    /// ([`crate::analysis::awaits::Verdict::Blocked`]); not behaviours.
    pub await_blocked: u64,
    /// Distinct partial orders among the executions that were not cut short.
    pub partial_orders: Option<u64>,
    /// Fingerprints of the distinct partial orders (when counted).
    pub fingerprints: HashSet<u64>,
    /// Executions whose partial order had been seen before (when counted).
    pub duplicate_orders: u64,
    /// Fingerprints of the distinct reads-from graphs of the executions
    /// under RC11 ([`crate::analysis::reads_from::graph_key`]).
    pub reads_from_graphs: HashSet<u64>,
    /// Distinct bugs found, first first.
    pub findings: Vec<Finding>,
    /// Why the exploration stopped.
    pub stop: StopReason,
    /// Wall time.
    pub elapsed: Duration,
    /// Events executed over all executions.
    pub total_steps: u64,
    /// Executions longer than the recording bound (explored only in their
    /// recorded steps).
    pub truncated: u64,
    /// The recording bound those executions hit.
    pub recorded_bound: Option<u64>,
    /// The `--seed` of a randomised strategy.
    pub seed: Option<u64>,
    /// What the executions cover beyond their count (from
    /// [`Strategy::coverage`]).
    pub coverage: Option<String>,
    /// The portfolio member, or the part of the default search (the
    /// systematic search or the PCT share), that found the first bug.
    pub found_by: Option<String>,
    /// How the first bug's schedule was shortened before it was reported.
    pub shortened: Option<Shortened>,
    /// Strategy-specific figures for `--stats` ([`Strategy::stats`]).
    pub strategy_stats: Vec<(&'static str, String)>,
    /// Executions that did not follow a schedule the program repeats
    /// exactly when run again: the search asked for the impossible
    /// ([`crate::recheck`]).
    pub internal_errors: u64,
    /// Executions that left a step the search predicted although the
    /// program repeated them exactly: a dependency through memory that
    /// uninstrumented code touched ([`crate::strategy::Divergence::predicted`]).
    pub hidden_dependencies: u64,
    /// Executions dropped because a step the search ran while the runtime
    /// held its thread back as a spinner added one spin iteration and
    /// nothing else ([`crate::strategy::Strategy::drop_respun`]).
    pub respin_dropped: u64,
    /// What the randomised share ran beside the search, if it had one
    /// (not counted in the fields above).
    pub random_share: Option<ShareSummary>,
}

impl Summary {
    /// Nothing run yet, by `strategy`; distinct partial orders are counted
    /// if `count_partial_orders`.
    pub fn empty(strategy: &'static str, count_partial_orders: bool) -> Summary {
        Summary {
            strategy,
            executions: 0,
            uncounted: 0,
            sleep_blocked: 0,
            await_blocked: 0,
            partial_orders: count_partial_orders.then_some(0),
            fingerprints: HashSet::new(),
            duplicate_orders: 0,
            reads_from_graphs: HashSet::new(),
            findings: Vec::new(),
            stop: StopReason::Complete,
            elapsed: Duration::ZERO,
            total_steps: 0,
            truncated: 0,
            recorded_bound: None,
            seed: None,
            coverage: None,
            found_by: None,
            shortened: None,
            strategy_stats: Vec::new(),
            internal_errors: 0,
            hidden_dependencies: 0,
            respin_dropped: 0,
            random_share: None,
        }
    }

    /// A search that ran out of executions is bounded, not complete, if
    /// some execution was longer than the recording bound: its later steps
    /// were never explored.
    /// So is a search some of whose executions did not follow their
    /// schedules through an internal error ([`Summary::internal_errors`]):
    /// the branches they were to explore were not.
    pub fn bound_by_truncation(&mut self) {
        let notes: Vec<String> = [self.truncation_note(), self.internal_error_note()]
            .into_iter()
            .flatten()
            .collect();
        if notes.is_empty() {
            return;
        }
        let why = notes.join("; ");
        match &mut self.stop {
            StopReason::Complete => self.stop = StopReason::Bounded(why),
            StopReason::Bounded(other) => *other = format!("{other}; {why}"),
            _ => {}
        }
    }

    /// What internal errors left out, if there were any.
    pub fn internal_error_note(&self) -> Option<String> {
        let errors = match self.internal_errors {
            0 => None,
            1 => Some("1 execution did not follow its schedule through an internal error and its branch was not explored".to_string()),
            n => Some(format!("{n} executions did not follow their schedules through an internal error and their branches were not explored")),
        };
        let hidden = match self.hidden_dependencies {
            0 => None,
            1 => Some("1 execution did not take a predicted step, through a dependency in code built without reach-cc, and its branch was not explored".to_string()),
            n => Some(format!("{n} executions did not take predicted steps, through dependencies in code built without reach-cc, and their branches were not explored")),
        };
        let notes: Vec<String> = errors.into_iter().chain(hidden).collect();
        (!notes.is_empty()).then(|| notes.join("; "))
    }

    /// True if the whole search space was explored.
    pub fn complete(&self) -> bool {
        self.stop == StopReason::Complete
    }

    /// What the recording bound left out, if an execution exceeded it:
    /// "N executions were longer than B steps and explored only in their
    /// first B steps (...)". Every report states it, whatever stopped the
    /// search.
    pub fn truncation_note(&self) -> Option<String> {
        let bound = self.recorded_bound?;
        let (n, were, their) = match self.truncated {
            0 => return None,
            1 => ("1 execution".to_string(), "was", "its"),
            n => (format!("{n} executions"), "were", "their"),
        };
        Some(format!(
            "{n} {were} longer than {bound} steps and explored only in {their} first {bound} steps (raise the bound with --max-recorded-steps)"
        ))
    }
}

/// Runs the exploration. `progress` is called after every execution.
pub fn explore(
    executor: &mut Executor,
    strategy: &mut dyn Strategy,
    options: &ExploreOptions,
    progress: &mut dyn FnMut(&Summary),
) -> Summary {
    let start = Instant::now();
    let mut summary = Summary::empty(strategy.name(), options.count_partial_orders);
    let mut signatures = HashSet::new();
    let cancel = options.cancel(start);
    executor.set_cancel(cancel.clone());
    strategy.set_cancel(cancel.clone());
    let mut share = options.random_share.map(|spec| RandomShare::new(spec, 0));
    summary.random_share = options.random_share.map(ShareSummary::empty);
    loop {
        if let Some(why) = cancel.reason() {
            summary.stop = StopReason::cancelled(why);
            break;
        }
        if options
            .max_executions
            .is_some_and(|m| summary.executions >= m)
        {
            summary.stop = StopReason::ExecutionLimit;
            break;
        }
        let Some(request) = strategy.next_request() else {
            summary.stop = match strategy.incomplete() {
                Some(why) => StopReason::Bounded(why),
                None => StopReason::Complete,
            };
            break;
        };
        match run_one(executor, strategy, &request, options, &mut summary) {
            Ok(Ran::Cancelled) => continue,
            Ok(Ran::Found(finding)) => {
                add_finding(&mut summary, &mut signatures, *finding);
                if !options.keep_going {
                    summary.stop = StopReason::Bug;
                    summary.elapsed = start.elapsed();
                    progress(&summary);
                    break;
                }
            }
            Ok(Ran::Clean) => {}
            Err(message) => {
                summary.stop = StopReason::Error(message);
                break;
            }
        }
        let share = share.as_mut();
        if let Some(stop) = share_turn(executor, share, options, &mut summary, &mut signatures) {
            summary.stop = stop;
            summary.elapsed = start.elapsed();
            progress(&summary);
            break;
        }
        summary.elapsed = start.elapsed();
        progress(&summary);
    }
    summary.elapsed = start.elapsed();
    summary.bound_by_truncation();
    summary.coverage = strategy.coverage();
    summary.strategy_stats = strategy.stats();
    summary
}

/// After a systematic execution, the execution of the randomised share if
/// one is due and `--max-executions` is not reached: `Some(stop)` if the
/// exploration must stop (a bug, an error).
fn share_turn(
    executor: &mut Executor,
    share: Option<&mut RandomShare>,
    options: &ExploreOptions,
    summary: &mut Summary,
    signatures: &mut HashSet<String>,
) -> Option<StopReason> {
    let share = share?;
    let limit = options
        .max_executions
        .is_some_and(|m| summary.executions >= m);
    if !share.due() || limit {
        return None;
    }
    let number = summary.random_share.as_ref().map_or(0, |s| s.executions) + 1;
    match run_share(executor, share, options, number) {
        // Cancelled: the loop sees why.
        Ok(None) => None,
        Ok(Some(ran)) => {
            if let Some(totals) = summary.random_share.as_mut() {
                totals.record(ran.steps);
            }
            let (finding, label) = ran.finding?;
            add_share_finding(summary, signatures, *finding, label);
            (!options.keep_going).then_some(StopReason::Bug)
        }
        Err(message) => Some(StopReason::Error(message)),
    }
}

/// One execution of a randomised share.
pub struct ShareRan {
    /// Events executed.
    pub steps: u64,
    /// The bug it found, with the label of the PCT search that found it.
    pub finding: Option<(Box<Finding>, String)>,
}

/// Runs the next PCT execution of `share` on `executor`, under the search's
/// `options` made the share's ([`ExploreOptions::for_share`]); `number` is
/// its 1-based number among the share's executions. `Ok(None)`: cancelled
/// while it ran.
pub fn run_share(
    executor: &mut Executor,
    share: &mut RandomShare,
    options: &ExploreOptions,
    number: u64,
) -> Result<Option<ShareRan>, String> {
    let Some((search, request, label)) = share.next_turn() else {
        return Ok(Some(ShareRan {
            steps: 0,
            finding: None,
        }));
    };
    let options = options.for_share();
    let Some(examined) = execute(executor, search, &request, &options, number)? else {
        return Ok(None);
    };
    Ok(Some(ShareRan {
        steps: examined.steps,
        finding: examined.finding.map(|mut f| {
            f.by_share = true;
            (Box::new(f), label)
        }),
    }))
}

/// What one iteration of the loop gave.
enum Ran {
    /// An execution without a bug.
    Clean,
    /// An execution with a bug.
    Found(Box<Finding>),
    /// The execution was stopped by the cancel condition: no result.
    Cancelled,
}

fn run_one(
    executor: &mut Executor,
    strategy: &mut dyn Strategy,
    request: &Request,
    options: &ExploreOptions,
    summary: &mut Summary,
) -> Result<Ran, String> {
    let number = summary.executions + 1;
    let Some(examined) = execute(executor, strategy, request, options, number)? else {
        return Ok(Ran::Cancelled);
    };
    if strategy.counted() {
        summary.record(&examined);
    } else {
        summary.uncounted += 1;
    }
    Ok(examined
        .finding
        .map_or(Ran::Clean, |f| Ran::Found(Box::new(f))))
}

/// What one execution contributed to an exploration.
pub struct Examined {
    /// Events executed.
    pub steps: u64,
    /// Cut short because every enabled thread was asleep.
    pub sleep_blocked: bool,
    /// Blocked at an await (see [`Summary::await_blocked`]).
    pub await_blocked: bool,
    /// Fingerprint of its partial order (when counting, and not cut short).
    pub fingerprint: Option<u64>,
    /// Fingerprint of its reads-from graph (under RC11, not cut short).
    pub reads_from: Option<u64>,
    /// Longer than the recording bound: the number of steps recorded.
    pub truncated_at: Option<u64>,
    /// The bug it shows, if any.
    pub finding: Option<Finding>,
    /// It did not follow its schedule, and re-runs repeated it exactly:
    /// an internal error of the search, not a behaviour of the program.
    pub internal_error: bool,
    /// Of those, one that left a step the search predicted: a dependency
    /// through uninstrumented code ([`Summary::hidden_dependencies`]).
    pub hidden_dependency: bool,
    /// Dropped: a spinner the prefix ran while held back was held back
    /// again at the same operation ([`Summary::respin_dropped`]).
    pub respin_dropped: bool,
}

impl Summary {
    /// Adds one examined execution to the totals (not its finding).
    pub fn record(&mut self, examined: &Examined) {
        self.executions += 1;
        self.total_steps += examined.steps;
        if examined.sleep_blocked {
            self.sleep_blocked += 1;
        }
        if examined.await_blocked {
            self.await_blocked += 1;
        }
        if examined.respin_dropped {
            self.respin_dropped += 1;
        }
        if examined.hidden_dependency {
            self.hidden_dependencies += 1;
        } else if examined.internal_error {
            self.internal_errors += 1;
        }
        if let Some(bound) = examined.truncated_at {
            self.truncated += 1;
            self.recorded_bound = Some(bound);
        }
        if let Some(graph) = examined.reads_from {
            self.reads_from_graphs.insert(graph);
        }
        if let Some(print) = examined.fingerprint {
            if self.fingerprints.insert(print) {
                self.partial_orders = Some(self.fingerprints.len() as u64);
            } else {
                self.duplicate_orders += 1;
            }
        }
    }
}

/// Runs `request`, lets `strategy` learn from the trace, and examines the
/// execution for bugs. `number` is the execution's 1-based number.
/// `Ok(None)`: the executor's cancel condition fired while the execution
/// ran. If it fires during the analysis, the strategy learns only part of
/// the trace (the exploration is about to stop), but the execution is still
/// examined for bugs.
pub fn execute(
    executor: &mut Executor,
    strategy: &mut dyn Strategy,
    request: &Request,
    options: &ExploreOptions,
    number: u64,
) -> Result<Option<Examined>, String> {
    let ran = crate::recheck::perturbed(request, number);
    let Some(mut executed) = run_request(executor, ran.as_ref().unwrap_or(request))? else {
        return Ok(None);
    };
    executed.ran = ran;
    examine(strategy, request, executed, options, number, Some(executor)).map(Some)
}

/// An execution as its executor returned it, before a search learns from it.
pub struct Executed {
    outcome: Outcome,
    trace: Trace,
    /// The object records, when they were read while the executor still
    /// held them (see [`Executed::keep_objects`]).
    objects: Option<ObjectLog>,
    /// The request that ran, where it is not the one the strategy made
    /// ([`crate::recheck::perturbed`]).
    ran: Option<Request>,
}

impl Executed {
    /// Reads the object records now, for an execution examined after its
    /// executor has run others.
    pub fn keep_objects(&mut self, executor: &Executor) {
        self.objects = Some(executor.objects(&self.outcome));
    }

    /// The execution's trace.
    pub fn trace(&self) -> &Trace {
        &self.trace
    }
}

/// Runs `request` on `executor`. `Ok(None)`: cancelled while it ran.
pub fn run_request(executor: &mut Executor, request: &Request) -> Result<Option<Executed>, String> {
    let mut outcome = match executor.run(request) {
        Ok(outcome) => outcome,
        Err(ExecError::Cancelled) => return Ok(None),
        Err(e) => return Err(e.to_string()),
    };
    let trace = Trace::from_outcome(&outcome);
    // The trace holds the events now; a long execution's are large.
    outcome.events = Vec::new();
    Ok(Some(Executed {
        outcome,
        trace,
        objects: None,
        ran: None,
    }))
}

/// Lets `strategy` learn from an execution of `request` and examines it
/// for bugs; `executor`, if given, is the one that just ran it (for the
/// object records of a reported execution).
pub fn examine(
    strategy: &mut dyn Strategy,
    request: &Request,
    executed: Executed,
    options: &ExploreOptions,
    number: u64,
    executor: Option<&Executor>,
) -> Result<Examined, String> {
    let Executed {
        outcome,
        trace,
        objects,
        ran,
    } = executed;
    let mut objects = objects;
    let mut with_objects = |mut trace: Trace, outcome: &Outcome| {
        if trace.objects.is_empty() {
            trace.objects = match (objects.take(), executor) {
                (Some(objects), _) => objects,
                (None, Some(executor)) => executor.objects(outcome),
                (None, None) => ObjectLog::default(),
            };
        }
        trace
    };
    if let Some(recorder) = &options.record {
        recorder.offer(
            number,
            &trace,
            outcome.status != reach_channel::RunStatus::Running,
        );
    }
    let mut examined = Examined {
        steps: trace.total_steps,
        sleep_blocked: false,
        await_blocked: false,
        fingerprint: None,
        reads_from: None,
        truncated_at: trace.truncated.then_some(trace.len() as u64),
        finding: None,
        internal_error: false,
        hidden_dependency: false,
        respin_dropped: false,
    };
    let held_back = outcome.status == reach_channel::RunStatus::SleepBlocked
        && trace.len() < request.prefix.len();
    if held_back && strategy.abandon(request) {
        examined.sleep_blocked = true;
        return Ok(examined);
    }
    let respun =
        outcome.status == reach_channel::RunStatus::SleepBlocked && outcome.divergence.is_some();
    if respun && strategy.drop_respun(request) {
        examined.respin_dropped = true;
        return Ok(examined);
    }
    if let Err(divergence) = strategy.observe(request, &trace) {
        // An execution killed before the end of its prefix (time-out,
        // signal) did not reproduce it for that reason: report that.
        let killed = !matches!(outcome.termination, Termination::Exited(_));
        let bug = match classify(&outcome, &trace, options.bug_policy) {
            Ok(Some(bug)) if killed && trace.len() < request.prefix.len() => bug,
            _ => {
                let ran = ran.as_ref().unwrap_or(request);
                // A predicted step of a thread the execution has: a
                // dependency the trace does not show, if the program
                // repeats itself.
                let hidden = divergence.predicted
                    && ran
                        .prefix
                        .get(divergence.step)
                        .is_some_and(|&t| (t as usize) < trace.thread_count());
                let judged = options
                    .recheck
                    .as_ref()
                    .map(|r| r.judge(ran, &trace, &outcome.sources, divergence.step, hidden));
                let mut causes = Vec::new();
                let cause = match judged {
                    Some(Ok(Judgement::Repeats)) => {
                        report_internal_error(number, ran, &divergence, hidden);
                        examined.internal_error = true;
                        examined.hidden_dependency = hidden;
                        return Ok(examined);
                    }
                    Some(Ok(Judgement::Differs(sentence, named))) => {
                        causes = named;
                        format!("; {sentence}")
                    }
                    Some(Err(e)) => format!(" (the execution could not be run again: {e})"),
                    None => String::new(),
                };
                Bug {
                    kind: BugKind::Nondeterminism,
                    message: format!(
                        "replaying a schedule did not reproduce the execution: {divergence}{cause}"
                    ),
                    race: None,
                    lockset: None,
                    causes,
                }
            }
        };
        let trace = with_objects(trace, &outcome);
        examined.finding = Some(finding(bug, Vec::new(), number, trace, outcome));
        return Ok(examined);
    }
    if outcome.status == reach_channel::RunStatus::SleepBlocked {
        examined.sleep_blocked = true;
        return Ok(examined);
    }
    examined.await_blocked = crate::analysis::awaits::verdict(&trace).is_blocked();
    if options.count_partial_orders && !examined.await_blocked {
        examined.fingerprint = Some(fingerprint(&trace));
    }
    if !examined.await_blocked {
        examined.reads_from = crate::analysis::reads_from::graph_key(&trace);
    }
    let mut trace = trace;
    let mut classified = classify_all(&outcome, &trace, options.bug_policy);
    if matches!(&classified, Ok(bugs) if bugs.iter().any(|b| b.race.is_some())) {
        // A data race is confirmed with the object records, which say
        // where a freed heap block was reused (read only then: most
        // executions have no race).
        trace = with_objects(trace, &outcome);
        classified = classify_all(&outcome, &trace, options.bug_policy);
    }
    match classified {
        Ok(bugs) => {
            let mut bugs = bugs.into_iter();
            if let Some(bug) = bugs.next() {
                let also = if options.keep_going {
                    bugs.map(|b| {
                        let signature = signature(&b, &trace, &outcome);
                        (b, signature)
                    })
                    .collect()
                } else {
                    Vec::new()
                };
                let trace = with_objects(trace, &outcome);
                examined.finding = Some(finding(bug, also, number, trace, outcome));
            }
        }
        Err(Unusable::Unsupported(m)) => {
            return Err(format!(
                "the program does something reach-native cannot control: {m}"
            ))
        }
        Err(Unusable::Internal(m)) => return Err(format!("[reach internal bug] {m}")),
    }
    Ok(examined)
}

/// Says on standard error that execution `number` did not follow the
/// schedule of `request` although the program repeats what it did: the
/// search asked for a schedule the program cannot take. A step the search
/// predicted ([`Divergence::predicted`]) of a thread the execution has
/// (`hidden`) depends on memory that code outside the instrumentation
/// touched, which the report says.
fn report_internal_error(number: u64, request: &Request, divergence: &Divergence, hidden: bool) {
    let mut runs: Vec<(u32, usize)> = Vec::new();
    for &t in &request.prefix {
        match runs.last_mut() {
            Some((last, n)) if *last == t => *n += 1,
            _ => runs.push((t, 1)),
        }
    }
    let schedule: Vec<String> = runs.iter().map(|(t, n)| format!("[{t},{n}]")).collect();
    let schedule = schedule.join(",");
    if hidden {
        eprintln!(
            "reach-native: note: execution {number} did not take a step the search predicted from other executions ({divergence}), and its re-runs repeated it exactly: the program is deterministic, but a thread depends on memory that no instrumented access shows (code built without reach-cc, such as a precompiled standard library, reading what another thread wrote); that branch is not explored and the search goes on. Schedule: [{schedule}]"
        );
        return;
    }
    eprintln!(
        "reach-native: internal error: execution {number} did not follow its schedule ({divergence}), and two re-runs repeated it exactly: the search asked for a schedule the program cannot take; the search goes on. Schedule: [{schedule}]"
    );
    eprintln!("reach-native: please report this to the reach-native maintainers with the schedule above and the program");
}

/// `trace` with the object records of the execution that just ran on
/// `executor` (empty if they cannot be read: memory is then shown by address).
pub fn with_objects(mut trace: Trace, executor: &Executor, outcome: &Outcome) -> Trace {
    trace.objects = executor.objects(outcome);
    trace
}

fn finding(
    bug: Bug,
    also: Vec<(Bug, String)>,
    execution: u64,
    trace: Trace,
    outcome: Outcome,
) -> Finding {
    let signature = signature(&bug, &trace, &outcome);
    Finding {
        bug,
        signature,
        execution,
        schedule: trace.schedule(),
        trace,
        outcome,
        also,
        by_share: false,
    }
}

/// A description of a bug that does not depend on which interleaving of the
/// same behaviour exposed it.
fn signature(bug: &Bug, trace: &Trace, outcome: &Outcome) -> String {
    if let Some(found) = &bug.lockset {
        let key = found.signature();
        return match found.kind {
            crate::analysis::lockset::LocksetKind::Race => {
                format!("data_race lockset {:x}", key.address)
            }
            crate::analysis::lockset::LocksetKind::UnlockWithoutLock => {
                format!("misuse lockset unlock {:x} at {:x}", key.address, key.site)
            }
        };
    }
    match (bug.kind, bug.race) {
        (BugKind::DataRace, Some(_)) => {
            let mut pairs: Vec<(u64, u64)> = find_races(trace, 64)
                .iter()
                .map(|r| {
                    let a = trace.events[r.first].site;
                    let b = trace.events[r.second].site;
                    (a.min(b), a.max(b))
                })
                .collect();
            pairs.sort_unstable();
            pairs.dedup();
            format!("data_race {pairs:x?}")
        }
        (BugKind::Crash, _) => {
            let site = outcome
                .culprit
                .and_then(|(t, _)| outcome.threads.get(t as usize))
                .map(|slot| slot.last_site)
                .unwrap_or(0);
            format!("crash {} {site:x}", bug.message)
        }
        (kind, _) => format!("{kind:?} {}", bug.message),
    }
}
