//! Parallel DPOR (`--jobs N`): a coordinator and N workers, each worker with
//! its own executor (its own channel and fork server).
//!
//! The coordinator runs the first execution and keeps its path. Every
//! unexplored backtrack choice on that path is a subtree; a worker explores
//! one subtree at a time with an ordinary sequential DPOR search restricted
//! to it ([`Dpor::take_subtree`]), and reports what it learns about the
//! coordinator's nodes above its subtree (new backtrack threads, crashing
//! transitions), which become new subtrees. A choice is marked explored when
//! it is handed out, so later siblings carry it in their sleep sets, as in
//! the sequential search; only the order of exploration changes, so the
//! set of partial orders and of bugs is the same as with one job (the
//! number of executions may differ slightly).
//!
//! **Sharing.** When the coordinator has no subtree left for an idle
//! worker, it asks a busy one to share: the worker gives away the
//! unexplored choice nearest to its own root ([`Dpor::split`]), the largest
//! subtree it knows of, exactly as the coordinator hands out choices. The
//! donor now owns the nodes between its root and the shared subtree: the
//! coordinator routes each report of a subtree to the nearest ancestor that
//! owns the node reported on, and a donor keeps the node a shared subtree
//! hangs from on its path, waiting if it has nothing else to do, until that
//! subtree is done ([`Dpor::subtree_done`]), so that no reported choice is
//! lost.

use crate::exec::{ExecConfig, Executor, Request};
use crate::explore::{execute, ExploreOptions, Finding, StopReason, Summary};
use crate::strategy::dpor::{Dpor, Report};
use crate::strategy::Strategy;
use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;
use std::time::Instant;

/// What a worker tells the coordinator.
enum Message {
    /// One execution ran.
    Executed {
        worker: usize,
        steps: u64,
        sleep_blocked: bool,
        fingerprint: Option<u64>,
        finding: Option<Box<Finding>>,
        reports: Vec<Report>,
    },
    /// The worker finished its subtree (or stopped) and is idle.
    Idle(usize),
    /// Asked to share, the worker gives away a subtree of its own.
    Shared {
        worker: usize,
        request: Request,
        search: Dpor,
    },
    /// Asked to share, the worker had nothing to give away.
    NothingToShare(usize),
    /// The worker cannot go on.
    Failed(String),
}

/// What the coordinator tells a worker.
enum Order {
    /// Explore this subtree.
    Explore(Request, Dpor),
    /// Give part of the current subtree away.
    Share,
    /// Facts a subtree given away learned about this worker's nodes.
    Reports(Vec<Report>),
    /// The subtree given away from the node at this depth is done.
    SubtreeDone(usize),
    /// Stop.
    Quit,
}

/// A subtree being explored by a worker.
struct Task {
    /// The task whose worker owns the nodes above this subtree (`None`:
    /// the coordinator's own search).
    parent: Option<usize>,
    /// The node the subtree hangs from.
    root: usize,
    /// The worker exploring it.
    worker: usize,
}

/// Explores with `jobs` workers. `master` must be a fresh DPOR search; the
/// first execution runs on `executor`, the workers start their own from
/// `config`, worker `k` bound to CPU `placement[k % len]` (unbound if
/// `placement` is empty; see [`crate::affinity`]).
#[allow(clippy::too_many_arguments)]
pub fn explore_parallel(
    executor: &mut Executor,
    config: &ExecConfig,
    mut master: Dpor,
    jobs: usize,
    placement: &[usize],
    options: &ExploreOptions,
    progress: &mut dyn FnMut(&Summary),
) -> Summary {
    let start = Instant::now();
    let mut summary = Summary {
        strategy: master.name(),
        executions: 0,
        sleep_blocked: 0,
        partial_orders: options.count_partial_orders.then_some(0),
        fingerprints: HashSet::new(),
        duplicate_orders: 0,
        findings: Vec::new(),
        stop: StopReason::Complete,
        elapsed: start.elapsed(),
        total_steps: 0,
    };
    let Some(first) = master.next_request() else {
        return summary;
    };
    match execute(executor, &mut master, &first, options, 1) {
        Ok(examined) => {
            summary.record(&examined);
            if let Some(finding) = examined.finding {
                summary.findings.push(finding);
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
    let (to_coordinator, from_workers) = mpsc::channel::<Message>();
    std::thread::scope(|scope| {
        let mut inboxes = Vec::new();
        for id in 0..jobs {
            let (to_worker, inbox) = mpsc::channel::<Order>();
            inboxes.push(to_worker);
            let outbox = to_coordinator.clone();
            let (stop, started) = (&stop, &started);
            let cpu = crate::affinity::cpu_for(placement, id);
            scope.spawn(move || {
                if let Some(cpu) = cpu {
                    crate::affinity::bind_current_thread(cpu);
                }
                worker(id, config, inbox, outbox, options, stop, started)
            });
        }
        drop(to_coordinator);
        coordinate(
            &mut master,
            &inboxes,
            &from_workers,
            options,
            &stop,
            &mut summary,
            start,
            progress,
        );
        for inbox in &inboxes {
            let _ = inbox.send(Order::Quit);
        }
    });
    summary.elapsed = start.elapsed();
    summary
}

/// The coordinator's view of the workers and their subtrees.
struct Workers<'a> {
    inboxes: &'a [mpsc::Sender<Order>],
    /// Running tasks by id.
    tasks: HashMap<usize, Task>,
    /// The task each worker runs.
    task_of: Vec<Option<usize>>,
    next_task: usize,
    idle: Vec<usize>,
    /// A worker asked to share, and the idle worker kept for what it gives.
    sharing: Option<(usize, usize)>,
    /// Workers that had nothing to share since their last execution.
    dry: HashSet<usize>,
}

impl Workers<'_> {
    /// Starts `search` on idle worker `worker`.
    fn start(&mut self, worker: usize, parent: Option<usize>, request: Request, search: Dpor) {
        let id = self.next_task;
        self.next_task += 1;
        let root = search.root().unwrap_or(0);
        if self.inboxes[worker]
            .send(Order::Explore(request, search))
            .is_ok()
        {
            self.tasks.insert(
                id,
                Task {
                    parent,
                    root,
                    worker,
                },
            );
            self.task_of[worker] = Some(id);
        } else {
            self.idle.push(worker);
        }
    }

    fn busy(&self) -> usize {
        self.task_of.iter().filter(|t| t.is_some()).count()
    }

    /// Delivers reports of `worker`'s task about nodes above its subtree to
    /// the owner of each node: the nearest ancestor task whose subtree
    /// contains it, or the coordinator's search.
    fn route(&self, worker: usize, reports: Vec<Report>, master: &mut Dpor) {
        let mut by_worker: HashMap<usize, Vec<Report>> = HashMap::new();
        for report in reports {
            let depth = match report {
                Report::Backtrack(d, _) | Report::Crashed(d, _) => d,
            };
            let task = |t: Option<usize>| t.and_then(|t| self.tasks.get(&t));
            let Some(mut owner) = task(self.task_of[worker]).map(|t| t.parent) else {
                continue;
            };
            while let Some(t) = owner {
                match task(Some(t)) {
                    Some(found) if depth > found.root => break,
                    Some(found) => owner = found.parent,
                    // The owner stopped early (the exploration is ending).
                    None => break,
                }
            }
            match owner {
                Some(t) => {
                    if let Some(found) = task(Some(t)) {
                        by_worker.entry(found.worker).or_default().push(report);
                    }
                }
                None => master.apply_reports(&[report]),
            }
        }
        for (w, reports) in by_worker {
            let _ = self.inboxes[w].send(Order::Reports(reports));
        }
    }

    /// `worker` finished its task: its parent's worker may drop the node
    /// the subtree hung from.
    fn finished(&mut self, worker: usize) {
        if let Some(id) = self.task_of[worker].take() {
            if let Some(task) = self.tasks.remove(&id) {
                if let Some(parent) = task.parent.and_then(|p| self.tasks.get(&p)) {
                    let _ = self.inboxes[parent.worker].send(Order::SubtreeDone(task.root));
                }
            }
        }
        self.idle.push(worker);
    }
}

/// Hands out subtrees to idle workers and merges what they report, until
/// nothing is left or the exploration must stop. When the coordinator's
/// search has no subtree left for an idle worker, a busy worker is asked to
/// share part of its own subtree; what a subtree learns about the nodes
/// above it goes to the worker (or the coordinator) that owns them.
#[allow(clippy::too_many_arguments)]
fn coordinate(
    master: &mut Dpor,
    inboxes: &[mpsc::Sender<Order>],
    from_workers: &mpsc::Receiver<Message>,
    options: &ExploreOptions,
    stop: &AtomicBool,
    summary: &mut Summary,
    start: Instant,
    progress: &mut dyn FnMut(&Summary),
) {
    let mut w = Workers {
        inboxes,
        tasks: HashMap::new(),
        task_of: vec![None; inboxes.len()],
        next_task: 0,
        idle: (0..inboxes.len()).rev().collect(),
        sharing: None,
        dry: HashSet::new(),
    };
    let mut signatures: HashSet<String> = summary
        .findings
        .iter()
        .map(|f| f.signature.clone())
        .collect();
    loop {
        while !stop.load(Ordering::Relaxed) && !w.idle.is_empty() {
            let Some((request, search)) = master.take_subtree() else {
                break;
            };
            let Some(id) = w.idle.pop() else { break };
            w.start(id, None, request, search);
        }
        if !stop.load(Ordering::Relaxed) && w.sharing.is_none() {
            let donor = (0..inboxes.len()).find(|&d| w.task_of[d].is_some() && !w.dry.contains(&d));
            if let (Some(donor), Some(spare)) = (donor, w.idle.last().copied()) {
                if inboxes[donor].send(Order::Share).is_ok() {
                    w.idle.pop();
                    w.sharing = Some((donor, spare));
                }
            }
        }
        if w.busy() == 0 {
            break;
        }
        let Ok(message) = from_workers.recv() else {
            break;
        };
        match message {
            Message::Executed {
                worker,
                steps,
                sleep_blocked,
                fingerprint,
                finding,
                reports,
            } => {
                w.dry.remove(&worker);
                w.route(worker, reports, master);
                summary.record(&crate::explore::Examined {
                    steps,
                    sleep_blocked,
                    fingerprint,
                    finding: None,
                });
                if let Some(finding) = finding {
                    if signatures.insert(finding.signature.clone()) {
                        summary.findings.push(*finding);
                    }
                    if !options.keep_going {
                        summary.stop = StopReason::Bug;
                        stop.store(true, Ordering::Relaxed);
                    }
                }
            }
            Message::Shared {
                worker,
                request,
                search,
            } => {
                if let Some((_, spare)) = w.sharing.take() {
                    let parent = w.task_of[worker];
                    w.start(spare, parent, request, search);
                }
            }
            Message::NothingToShare(worker) => {
                w.dry.insert(worker);
                if let Some((_, spare)) = w.sharing.take() {
                    w.idle.push(spare);
                }
            }
            Message::Idle(worker) => {
                w.dry.remove(&worker);
                w.finished(worker);
            }
            Message::Failed(message) => {
                summary.stop = StopReason::Error(message);
                stop.store(true, Ordering::Relaxed);
            }
        }
        if !stop.load(Ordering::Relaxed) {
            if options.interrupt.load(Ordering::Relaxed) {
                summary.stop = StopReason::Interrupted;
                stop.store(true, Ordering::Relaxed);
            } else if options
                .max_executions
                .is_some_and(|m| summary.executions >= m)
            {
                summary.stop = StopReason::ExecutionLimit;
                stop.store(true, Ordering::Relaxed);
            } else if options.max_time.is_some_and(|m| start.elapsed() >= m) {
                summary.stop = StopReason::TimeLimit;
                stop.store(true, Ordering::Relaxed);
            }
        }
        summary.elapsed = start.elapsed();
        progress(summary);
    }
}

/// One worker: explores the subtrees it is given, one execution at a time,
/// and between executions follows the coordinator's orders (share part of
/// the subtree, apply reports, drop a node whose lent subtree is done).
fn worker(
    id: usize,
    config: &ExecConfig,
    inbox: mpsc::Receiver<Order>,
    outbox: mpsc::Sender<Message>,
    options: &ExploreOptions,
    stop: &AtomicBool,
    started: &AtomicU64,
) {
    let mut executor = match Executor::new(config.clone()) {
        Ok(executor) => executor,
        Err(e) => {
            let _ = outbox.send(Message::Failed(e.to_string()));
            // Stay available so the coordinator's bookkeeping stays simple.
            while let Ok(order) = inbox.recv() {
                match order {
                    Order::Explore(..) => {
                        let _ = outbox.send(Message::Idle(id));
                    }
                    Order::Share => {
                        let _ = outbox.send(Message::NothingToShare(id));
                    }
                    Order::Quit => return,
                    Order::Reports(_) | Order::SubtreeDone(_) => {}
                }
            }
            return;
        }
    };
    loop {
        let (first, mut search) = match inbox.recv() {
            Ok(Order::Explore(request, search)) => (request, search),
            Ok(Order::Share) => {
                let _ = outbox.send(Message::NothingToShare(id));
                continue;
            }
            Ok(Order::Reports(_) | Order::SubtreeDone(_)) => continue,
            Ok(Order::Quit) | Err(_) => return,
        };
        let mut request = Some(first);
        loop {
            // Orders that arrived meanwhile; block for one while waiting for
            // subtrees this search lent.
            let mut block = request.is_none() && search.waiting() && !stop.load(Ordering::Relaxed);
            loop {
                let order = if block {
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
                block = false;
                match order {
                    Order::Share => {
                        let message = match search.split() {
                            Some((request, search)) => Message::Shared {
                                worker: id,
                                request,
                                search,
                            },
                            None => Message::NothingToShare(id),
                        };
                        if outbox.send(message).is_err() {
                            return;
                        }
                    }
                    Order::Reports(reports) => search.apply_reports(&reports),
                    Order::SubtreeDone(depth) => search.subtree_done(depth),
                    Order::Explore(..) | Order::Quit => return,
                }
            }
            if stop.load(Ordering::Relaxed) {
                break;
            }
            let Some(current) = request.take() else {
                if search.waiting() {
                    request = search.next_request();
                    continue;
                }
                break;
            };
            let number = started.fetch_add(1, Ordering::Relaxed) + 1;
            if options.max_executions.is_some_and(|m| number > m) {
                break;
            }
            match execute(&mut executor, &mut search, &current, options, number) {
                Ok(examined) => {
                    let message = Message::Executed {
                        worker: id,
                        steps: examined.steps,
                        sleep_blocked: examined.sleep_blocked,
                        fingerprint: examined.fingerprint,
                        finding: examined.finding.map(Box::new),
                        reports: search.take_reports(),
                    };
                    if outbox.send(message).is_err() {
                        return;
                    }
                }
                Err(message) => {
                    let _ = outbox.send(Message::Failed(message));
                    break;
                }
            }
            request = search.next_request();
        }
        if outbox.send(Message::Idle(id)).is_ok() {
            continue;
        }
        return;
    }
}
