//! Parallel exploration (`--jobs N`) of a [`Splittable`] search (DPOR):
//! a coordinator and N workers, each worker with
//! its own executor (its own channel and fork server).
//!
//! The coordinator runs the first execution and keeps its path. Every
//! unexplored backtrack choice on that path is a subtree; a worker explores
//! one subtree at a time with an ordinary sequential DPOR search restricted
//! to it ([`Splittable::take_subtree`]), and reports what it learns about the
//! coordinator's nodes above its subtree (new backtrack threads, crashing
//! transitions), which become new subtrees. A choice is marked explored when
//! it is handed out, so later siblings carry it in their sleep sets, as in
//! the sequential search; only the order of exploration changes, so the
//! set of partial orders and of bugs is the same as with one job (the
//! number of executions may differ slightly).
//!
//! **Sharing.** When the coordinator has no subtree left for an idle
//! worker, it asks a busy one to share: the worker gives away the
//! unexplored choice nearest to its own root ([`Splittable::split`]), the largest
//! subtree it knows of, exactly as the coordinator hands out choices. The
//! donor now owns the nodes between its root and the shared subtree: the
//! coordinator routes each report of a subtree to the nearest ancestor that
//! owns the node reported on, and a donor keeps the node a shared subtree
//! hangs from on its path until that subtree is done
//! ([`Splittable::subtree_done`]), so that no reported choice is lost. A worker
//! whose task only waits for such subtrees takes another task on top of it.

use crate::cancel::{Cancel, POLL_SLICE};
use crate::exec::{ExecConfig, Executor, Request};
use crate::explore::{execute, run_share, ExploreOptions, Finding, StopReason, Summary};
use crate::random_share::{RandomShare, ShareSummary};
use crate::strategy::split::Splittable;
use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;
use std::time::Instant;

/// Identity of a subtree handed to a worker.
type TaskId = usize;

/// What a worker tells the coordinator.
enum Message<S: Splittable> {
    /// One execution of `task` ran.
    Executed {
        task: TaskId,
        steps: u64,
        sleep_blocked: bool,
        await_blocked: bool,
        fingerprint: Option<u64>,
        /// Its reads-from graph under RC11
        /// ([`crate::analysis::reads_from::graph_key`]).
        reads_from: Option<u64>,
        truncated_at: Option<u64>,
        /// The search asked for a schedule the program cannot take.
        internal_error: bool,
        /// Of those, a predicted step a hidden dependency prevented.
        hidden_dependency: bool,
        /// Dropped as one spin iteration more.
        respin_dropped: bool,
        finding: Option<Box<Finding>>,
        reports: Vec<S::Report>,
    },
    /// The worker ran one execution of its randomised share
    /// ([`crate::random_share`]) after one of its systematic ones.
    ShareExecuted {
        steps: u64,
        /// The bug it found, with the label of the PCT search that found it.
        finding: Option<(Box<Finding>, String)>,
    },
    /// The worker finished `task` (or stopped exploring it).
    Done(usize, TaskId),
    /// The worker only waits for subtrees it lent: it can take a task.
    Waiting(usize),
    /// Asked to share, the worker gives away a subtree of `task`.
    Shared {
        task: TaskId,
        request: Request,
        search: S,
    },
    /// Asked to share, the worker had nothing to give away.
    NothingToShare(usize),
    /// Reports a task made between executions (applying others).
    Reported {
        task: TaskId,
        reports: Vec<S::Report>,
    },
    /// A report forwarded down to `task` was applied: `settled` goes to
    /// the search that sent it (`owner`: a task, or the coordinator's).
    Settled {
        owner: Option<TaskId>,
        settled: Option<S::Report>,
    },
    /// A report forwarded down found its task finished: it goes back.
    Bounced {
        owner: Option<TaskId>,
        report: S::Report,
    },
    /// The worker cannot go on.
    Failed(String),
}

/// What the coordinator tells a worker.
enum Order<S: Splittable> {
    /// Explore this subtree (on top of the tasks the worker waits in).
    Explore(TaskId, Request, S),
    /// Give part of the current task's subtree away.
    Share,
    /// Facts a subtree given away learned about the task's nodes.
    Reports(TaskId, Vec<S::Report>),
    /// A fact the owner of the task's root learned about its subtree
    /// ([`Splittable::forward_to`]), from `owner`.
    Forward(TaskId, Option<TaskId>, S::Report),
    /// The subtree the task lent from the node at this depth is done.
    SubtreeDone(TaskId, usize),
    /// Stop.
    Quit,
}

/// A subtree being explored by a worker.
struct Task {
    /// The task whose worker owns the nodes above this subtree (`None`:
    /// the coordinator's own search).
    parent: Option<TaskId>,
    /// The node the subtree hangs from.
    root: usize,
    /// The worker exploring it.
    worker: usize,
    /// Which branch of the root node it is ([`Splittable::lent_branch`]).
    branch: Option<usize>,
}

/// Explores with `jobs` workers. `master` must be a fresh DPOR search; the
/// first execution runs on `executor`, the workers start their own from
/// `config`, worker `k` bound to CPU `placement[k % len]` (unbound if
/// `placement` is empty; see [`crate::affinity`]).
#[allow(clippy::too_many_arguments)]
pub fn explore_parallel<S: Splittable>(
    executor: &mut Executor,
    config: &ExecConfig,
    mut master: S,
    jobs: usize,
    placement: &[usize],
    options: &ExploreOptions,
    progress: &mut dyn FnMut(&Summary),
) -> Summary {
    let start = Instant::now();
    let mut summary = Summary::empty(master.name(), options.count_partial_orders);
    summary.random_share = options.random_share.map(ShareSummary::empty);
    let cancel = options.cancel(start);
    executor.set_cancel(cancel.clone());
    master.set_cancel(cancel.clone());
    let Some(first) = master.next_request() else {
        return summary;
    };
    match execute(executor, &mut master, &first, options, 1) {
        Ok(None) => {
            if let Some(why) = cancel.reason() {
                summary.stop = StopReason::cancelled(why);
            }
            summary.elapsed = start.elapsed();
            return summary;
        }
        Ok(Some(examined)) => {
            summary.record(&examined);
            if let Some(finding) = examined.finding {
                crate::explore::add_finding(&mut summary, &mut HashSet::new(), finding);
                if !options.keep_going {
                    summary.stop = StopReason::Bug;
                    summary.elapsed = start.elapsed();
                    return summary;
                }
            }
        }
        Err(message) => {
            summary.stop = StopReason::Error(message);
            return summary;
        }
    }
    progress(&summary);
    let stop = AtomicBool::new(false);
    let started = AtomicU64::new(1);
    let share_started = AtomicU64::new(0);
    let (to_coordinator, from_workers) = mpsc::channel::<Message<S>>();
    std::thread::scope(|scope| {
        let mut inboxes = Vec::new();
        for id in 0..jobs {
            let (to_worker, inbox) = mpsc::channel::<Order<S>>();
            inboxes.push(to_worker);
            let outbox = to_coordinator.clone();
            let shared = Shared {
                options,
                stop: &stop,
                started: &started,
                share_started: &share_started,
                cancel: &cancel,
            };
            scope.spawn(move || {
                crate::affinity::bind_current_thread(placement, id);
                worker(id, config, inbox, outbox, shared)
            });
        }
        drop(to_coordinator);
        let shared = Shared {
            options,
            stop: &stop,
            started: &started,
            share_started: &share_started,
            cancel: &cancel,
        };
        coordinate(
            &mut master,
            &inboxes,
            &from_workers,
            shared,
            &mut summary,
            start,
            progress,
        );
        for inbox in &inboxes {
            let _ = inbox.send(Order::Quit);
        }
    });
    summary.elapsed = start.elapsed();
    summary.bound_by_truncation();
    summary
}

/// The coordinator's view of the workers and their subtrees.
struct Workers<'a, S: Splittable> {
    inboxes: &'a [mpsc::Sender<Order<S>>],
    /// Running tasks by id.
    tasks: HashMap<TaskId, Task>,
    /// The tasks each worker has, innermost last: a worker waiting for
    /// subtrees it lent can take another task on top.
    stacks: Vec<Vec<TaskId>>,
    next_task: TaskId,
    /// Workers that can take a task now (no task, or only waiting).
    available: Vec<usize>,
    /// A worker asked to share, and the available worker kept for it.
    sharing: Option<(usize, usize)>,
    /// Workers that had nothing to share since their last execution.
    dry: HashSet<usize>,
    /// Reports the coordinator's search forwarded down that are not yet
    /// settled or back: the exploration is not over while there are any.
    forwarded: std::cell::Cell<usize>,
}

impl<S: Splittable> Workers<'_, S> {
    fn make_available(&mut self, worker: usize) {
        let kept = self.sharing.map(|(_, spare)| spare) == Some(worker);
        if !kept && !self.available.contains(&worker) {
            self.available.push(worker);
        }
    }

    /// Starts `search` on available worker `worker`.
    fn start(&mut self, worker: usize, parent: Option<TaskId>, request: Request, search: S) {
        let id = self.next_task;
        self.next_task += 1;
        let root = search.root().unwrap_or(0);
        let branch = search.lent_branch();
        if self.inboxes[worker]
            .send(Order::Explore(id, request, search))
            .is_ok()
        {
            self.tasks.insert(
                id,
                Task {
                    parent,
                    root,
                    worker,
                    branch,
                },
            );
            self.stacks[worker].push(id);
        }
    }

    fn busy(&self) -> usize {
        self.stacks.iter().filter(|s| !s.is_empty()).count()
    }

    /// Delivers reports of `task` (`None`: the coordinator's search): those
    /// about nodes above its subtree to the owner of each node, the nearest
    /// ancestor task whose subtree contains it, or the coordinator's
    /// search; those about a subtree it gave away
    /// ([`Splittable::forward_to`]) to that subtree's worker, or back if it
    /// is finished.
    fn route(&self, task: Option<TaskId>, reports: Vec<S::Report>, master: &mut S) {
        let mut queue: Vec<(Option<TaskId>, S::Report)> =
            reports.into_iter().map(|r| (task, r)).collect();
        while let Some((from, report)) = queue.pop() {
            if let Some((depth, branch)) = S::forward_to(&report) {
                let child = self
                    .tasks
                    .iter()
                    .find(|(_, t)| t.parent == from && t.root == depth && t.branch == Some(branch));
                match child {
                    Some((&id, child)) => {
                        let sent =
                            self.inboxes[child.worker].send(Order::Forward(id, from, report));
                        if sent.is_ok() && from.is_none() {
                            self.forwarded.set(self.forwarded.get() + 1);
                        }
                    }
                    None => self.deliver(from, report, master, &mut queue),
                }
                continue;
            }
            let Some(reporter) = from.and_then(|t| self.tasks.get(&t)) else {
                continue;
            };
            let depth = S::report_depth(&report);
            let mut owner = reporter.parent;
            let mut lost = false;
            while let Some(t) = owner {
                match self.tasks.get(&t) {
                    Some(found) if depth > found.root => break,
                    Some(found) => owner = found.parent,
                    // The owner stopped early (the exploration is ending).
                    None => {
                        lost = true;
                        break;
                    }
                }
            }
            if !lost {
                self.deliver(owner, report, master, &mut queue);
            }
        }
    }

    /// Gives `report` to the search of task `owner` (`None`: the
    /// coordinator's, whose own new reports join `queue`).
    fn deliver(
        &self,
        owner: Option<TaskId>,
        report: S::Report,
        master: &mut S,
        queue: &mut Vec<(Option<TaskId>, S::Report)>,
    ) {
        match owner {
            Some(t) => {
                if let Some(found) = self.tasks.get(&t) {
                    let _ = self.inboxes[found.worker].send(Order::Reports(t, vec![report]));
                }
            }
            None => {
                master.apply_reports(vec![report]);
                queue.extend(master.take_reports().into_iter().map(|r| (None, r)));
            }
        }
    }

    /// `worker` finished `task`: the parent's worker may drop the node the
    /// subtree hung from.
    fn finished(&mut self, worker: usize, task: TaskId) {
        self.stacks[worker].retain(|&t| t != task);
        if let Some(done) = self.tasks.remove(&task) {
            if let Some(p) = done.parent {
                if let Some(parent) = self.tasks.get(&p) {
                    let _ = self.inboxes[parent.worker].send(Order::SubtreeDone(p, done.root));
                }
            }
        }
        if self.stacks[worker].is_empty() {
            self.make_available(worker);
        }
    }
}

/// Hands out subtrees to available workers and merges what they report,
/// until nothing is left or the exploration must stop. When the
/// coordinator's search has no subtree left for an available worker, a busy
/// worker is asked to share part of its own subtree; what a subtree learns
/// about the nodes above it goes to the task (or the coordinator) that owns
/// them. A worker that only waits for subtrees it lent counts as available.
fn coordinate<S: Splittable>(
    master: &mut S,
    inboxes: &[mpsc::Sender<Order<S>>],
    from_workers: &mpsc::Receiver<Message<S>>,
    shared: Shared<'_>,
    summary: &mut Summary,
    start: Instant,
    progress: &mut dyn FnMut(&Summary),
) {
    let Shared {
        options,
        stop,
        cancel,
        ..
    } = shared;
    let mut w = Workers {
        inboxes,
        tasks: HashMap::new(),
        stacks: vec![Vec::new(); inboxes.len()],
        next_task: 0,
        available: (0..inboxes.len()).rev().collect(),
        sharing: None,
        dry: HashSet::new(),
        forwarded: std::cell::Cell::new(0),
    };
    let mut signatures: HashSet<String> = summary
        .findings
        .iter()
        .map(|f| f.signature.clone())
        .collect();
    loop {
        while !stop.load(Ordering::Relaxed) && !w.available.is_empty() {
            let Some((request, search)) = master.take_subtree() else {
                break;
            };
            let Some(id) = w.available.pop() else { break };
            w.start(id, None, request, search);
        }
        if !stop.load(Ordering::Relaxed) && w.sharing.is_none() {
            if let Some(&spare) = w.available.last() {
                let donor = (0..inboxes.len())
                    .find(|&d| d != spare && !w.stacks[d].is_empty() && !w.dry.contains(&d));
                if let Some(donor) = donor {
                    if inboxes[donor].send(Order::Share).is_ok() {
                        w.available.pop();
                        w.sharing = Some((donor, spare));
                    }
                }
            }
        }
        if w.busy() == 0 && w.sharing.is_none() && w.forwarded.get() == 0 {
            break;
        }
        let message = match from_workers.recv_timeout(POLL_SLICE) {
            Ok(message) => Some(message),
            Err(mpsc::RecvTimeoutError::Timeout) => None,
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
        };
        match message {
            None => {}
            Some(message) => handle(
                message,
                master,
                &mut w,
                options,
                stop,
                summary,
                &mut signatures,
            ),
        }
        // A worker may have set `stop` first (its execution cancelled, or
        // numbered past --max-executions): the reason is still a limit.
        if summary.stop == StopReason::Complete {
            if let Some(why) = cancel.reason() {
                summary.stop = StopReason::cancelled(why);
                stop.store(true, Ordering::Relaxed);
            } else if options
                .max_executions
                .is_some_and(|m| summary.executions >= m)
            {
                summary.stop = StopReason::ExecutionLimit;
                stop.store(true, Ordering::Relaxed);
            }
        }
        summary.elapsed = start.elapsed();
        progress(summary);
    }
    // Stopped, with no bug, error or limit recorded: the workers abandoned
    // their subtrees, so the search is not complete.
    if summary.stop == StopReason::Complete && stop.load(Ordering::Relaxed) {
        summary.stop = match cancel.reason() {
            Some(why) => StopReason::cancelled(why),
            None => StopReason::ExecutionLimit,
        };
    }
}

/// What the coordinator does with one message of a worker.
fn handle<S: Splittable>(
    message: Message<S>,
    master: &mut S,
    w: &mut Workers<'_, S>,
    options: &ExploreOptions,
    stop: &AtomicBool,
    summary: &mut Summary,
    signatures: &mut HashSet<String>,
) {
    match message {
        Message::Executed {
            task,
            steps,
            sleep_blocked,
            await_blocked,
            fingerprint,
            reads_from,
            truncated_at,
            internal_error,
            hidden_dependency,
            respin_dropped,
            finding,
            reports,
        } => {
            if let Some(t) = w.tasks.get(&task) {
                w.dry.remove(&t.worker);
            }
            w.route(Some(task), reports, master);
            summary.record(&crate::explore::Examined {
                steps,
                sleep_blocked,
                await_blocked,
                fingerprint,
                reads_from,
                truncated_at,
                finding: None,
                internal_error,
                hidden_dependency,
                respin_dropped,
            });
            if let Some(finding) = finding {
                crate::explore::add_finding(summary, signatures, *finding);
                if !options.keep_going {
                    summary.stop = StopReason::Bug;
                    stop.store(true, Ordering::Relaxed);
                }
            }
        }
        Message::ShareExecuted { steps, finding } => {
            if let Some(share) = summary.random_share.as_mut() {
                share.record(steps);
            }
            if let (Some((finding, label)), false) = (finding, summary.stop == StopReason::Bug) {
                crate::explore::add_share_finding(summary, signatures, *finding, label);
                if !options.keep_going {
                    summary.stop = StopReason::Bug;
                    stop.store(true, Ordering::Relaxed);
                }
            }
        }
        Message::Shared {
            task,
            request,
            search,
        } => {
            if let Some((_, spare)) = w.sharing.take() {
                w.start(spare, Some(task), request, search);
            }
        }
        Message::NothingToShare(worker) => {
            w.dry.insert(worker);
            if let Some((_, spare)) = w.sharing.take() {
                w.make_available(spare);
            }
        }
        Message::Waiting(worker) => {
            w.dry.remove(&worker);
            w.make_available(worker);
        }
        Message::Done(worker, task) => {
            w.dry.remove(&worker);
            w.finished(worker, task);
        }
        Message::Reported { task, reports } => w.route(Some(task), reports, master),
        Message::Settled { owner, settled } => {
            if owner.is_none() {
                w.forwarded.set(w.forwarded.get().saturating_sub(1));
            }
            if let Some(report) = settled {
                let mut queue = Vec::new();
                w.deliver(owner, report, master, &mut queue);
                w.route(None, queue.into_iter().map(|(_, r)| r).collect(), master);
            }
        }
        Message::Bounced { owner, report } => {
            if owner.is_none() {
                w.forwarded.set(w.forwarded.get().saturating_sub(1));
            }
            let mut queue = Vec::new();
            w.deliver(owner, report, master, &mut queue);
            w.route(None, queue.into_iter().map(|(_, r)| r).collect(), master);
        }
        Message::Failed(message) => {
            summary.stop = StopReason::Error(message);
            stop.store(true, Ordering::Relaxed);
        }
    }
}

/// What the coordinator and every worker share.
#[derive(Clone, Copy)]
struct Shared<'a> {
    options: &'a ExploreOptions,
    /// Set when the exploration must end: workers stop after their current
    /// execution.
    stop: &'a AtomicBool,
    /// Executions started so far (numbers executions, bounds them).
    started: &'a AtomicU64,
    /// Executions of the randomised share started so far (numbers them).
    share_started: &'a AtomicU64,
    /// Interrupt or time limit: also stops a running execution.
    cancel: &'a Cancel,
}

/// One task on a worker's stack: its id, its search and its next request.
struct Level<S> {
    task: TaskId,
    search: S,
    request: Option<Request>,
}

/// One worker: explores the subtrees it is given, one execution at a time,
/// and between executions follows the coordinator's orders (share part of
/// the current subtree, apply reports, drop a node whose lent subtree is
/// done). While its current task only waits for subtrees it lent, it tells
/// the coordinator and takes another task on top of it.
fn worker<S: Splittable>(
    id: usize,
    config: &ExecConfig,
    inbox: mpsc::Receiver<Order<S>>,
    outbox: mpsc::Sender<Message<S>>,
    shared: Shared<'_>,
) {
    let Shared {
        options,
        stop,
        started,
        share_started,
        cancel,
    } = shared;
    let mut share = options
        .random_share
        .map(|spec| RandomShare::new(spec, id as u64));
    let mut executor = match Executor::new(config.clone()) {
        Ok(mut executor) => {
            executor.set_cancel(cancel.clone());
            Some(executor)
        }
        Err(e) => {
            let _ = outbox.send(Message::Failed(e.to_string()));
            None
        }
    };
    let mut stack: Vec<Level<S>> = Vec::new();
    // Whether the coordinator was told that the top task only waits.
    let mut announced = false;
    loop {
        let stopping = stop.load(Ordering::Relaxed) || executor.is_none();
        let top_waits = stack
            .last()
            .is_some_and(|l| l.request.is_none() && l.search.waiting());
        if top_waits && !announced && !stopping {
            announced = outbox.send(Message::Waiting(id)).is_ok();
        }
        // Block for an order when there is nothing to run.
        let block = stack.is_empty() || (top_waits && !stopping);
        let mut first = true;
        loop {
            let order = if block && first {
                match inbox.recv() {
                    Ok(order) => order,
                    Err(_) => return,
                }
            } else {
                match inbox.try_recv() {
                    Ok(order) => order,
                    Err(mpsc::TryRecvError::Empty) => break,
                    Err(mpsc::TryRecvError::Disconnected) => return,
                }
            };
            first = false;
            match order {
                Order::Explore(task, request, search) => {
                    announced = false;
                    stack.push(Level {
                        task,
                        search,
                        request: Some(request),
                    });
                }
                Order::Share => {
                    let given = stack.last_mut().and_then(|l| {
                        let task = l.task;
                        l.search.split().map(|(request, search)| Message::Shared {
                            task,
                            request,
                            search,
                        })
                    });
                    if outbox
                        .send(given.unwrap_or(Message::NothingToShare(id)))
                        .is_err()
                    {
                        return;
                    }
                }
                Order::Reports(task, reports) => {
                    if let Some(l) = stack.iter_mut().find(|l| l.task == task) {
                        l.search.apply_reports(reports);
                    }
                }
                Order::Forward(task, owner, report) => {
                    let message = match stack.iter_mut().find(|l| l.task == task) {
                        Some(l) => {
                            let settled = S::settled(&report);
                            l.search.apply_reports(vec![report]);
                            // A task that had nothing left may have again.
                            if l.request.is_none() && !l.search.paused() {
                                l.request = l.search.next_request();
                            }
                            Message::Settled { owner, settled }
                        }
                        None => Message::Bounced { owner, report },
                    };
                    if outbox.send(message).is_err() {
                        return;
                    }
                }
                Order::SubtreeDone(task, depth) => {
                    if let Some(l) = stack.iter_mut().find(|l| l.task == task) {
                        l.search.subtree_done(depth);
                    }
                }
                Order::Quit => return,
            }
        }
        // Applying reports may make reports (forwards to lent subtrees).
        for level in stack.iter_mut() {
            let reports = level.search.take_reports();
            if !reports.is_empty() {
                let task = level.task;
                if outbox.send(Message::Reported { task, reports }).is_err() {
                    return;
                }
            }
        }
        let stopping = stop.load(Ordering::Relaxed) || executor.is_none();
        let Some(level) = stack.last_mut() else {
            continue;
        };
        let current = match level.request.take() {
            Some(current) if !stopping => current,
            None if !stopping && level.search.paused() => {
                level.request = level.search.next_request();
                if level.request.is_some() {
                    announced = false;
                }
                continue;
            }
            _ => {
                let task = level.task;
                stack.pop();
                announced = false;
                if outbox.send(Message::Done(id, task)).is_err() {
                    return;
                }
                continue;
            }
        };
        let number = started.fetch_add(1, Ordering::Relaxed) + 1;
        if options.max_executions.is_some_and(|m| number > m) {
            stop.store(true, Ordering::Relaxed);
            continue;
        }
        let Some(executor) = executor.as_mut() else {
            continue;
        };
        match execute(executor, &mut level.search, &current, options, number) {
            Ok(None) => {
                stop.store(true, Ordering::Relaxed);
                continue;
            }
            Ok(Some(examined)) => {
                let message = Message::Executed {
                    task: level.task,
                    steps: examined.steps,
                    sleep_blocked: examined.sleep_blocked,
                    await_blocked: examined.await_blocked,
                    fingerprint: examined.fingerprint,
                    reads_from: examined.reads_from,
                    truncated_at: examined.truncated_at,
                    internal_error: examined.internal_error,
                    hidden_dependency: examined.hidden_dependency,
                    respin_dropped: examined.respin_dropped,
                    finding: examined.finding.map(Box::new),
                    reports: level.search.take_reports(),
                };
                if outbox.send(message).is_err() {
                    return;
                }
            }
            Err(message) => {
                let _ = outbox.send(Message::Failed(message));
                stop.store(true, Ordering::Relaxed);
                continue;
            }
        }
        level.request = level.search.next_request();
        let due = share.as_mut().is_some_and(|s| s.due());
        if let (true, Some(share)) = (due, share.as_mut()) {
            let limit = options
                .max_executions
                .is_some_and(|m| started.load(Ordering::Relaxed) >= m);
            if stop.load(Ordering::Relaxed) || limit {
                continue;
            }
            let number = share_started.fetch_add(1, Ordering::Relaxed) + 1;
            let message = match run_share(executor, share, options, number) {
                Ok(None) => {
                    stop.store(true, Ordering::Relaxed);
                    continue;
                }
                Ok(Some(ran)) => Message::ShareExecuted {
                    steps: ran.steps,
                    finding: ran.finding,
                },
                Err(message) => {
                    stop.store(true, Ordering::Relaxed);
                    Message::Failed(message)
                }
            };
            if outbox.send(message).is_err() {
                return;
            }
        }
    }
}
