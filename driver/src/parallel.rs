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

use crate::exec::{ExecConfig, Executor, Request};
use crate::explore::{execute, ExploreOptions, Finding, StopReason, Summary};
use crate::strategy::dpor::{Dpor, Report};
use crate::strategy::Strategy;
use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;
use std::time::Instant;

/// What a worker tells the coordinator.
enum Message {
    /// One execution ran.
    Executed {
        steps: u64,
        sleep_blocked: bool,
        fingerprint: Option<u64>,
        finding: Option<Box<Finding>>,
        reports: Vec<Report>,
    },
    /// The worker finished its subtree (or stopped) and is idle.
    Idle(usize),
    /// The worker cannot go on.
    Failed(String),
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
            let (to_worker, inbox) = mpsc::channel::<Option<(Request, Dpor)>>();
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
            let _ = inbox.send(None);
        }
    });
    summary.elapsed = start.elapsed();
    summary
}

/// Hands out subtrees to idle workers and merges what they report, until
/// nothing is left or the exploration must stop.
#[allow(clippy::too_many_arguments)]
fn coordinate(
    master: &mut Dpor,
    inboxes: &[mpsc::Sender<Option<(Request, Dpor)>>],
    from_workers: &mpsc::Receiver<Message>,
    options: &ExploreOptions,
    stop: &AtomicBool,
    summary: &mut Summary,
    start: Instant,
    progress: &mut dyn FnMut(&Summary),
) {
    let mut idle: Vec<usize> = (0..inboxes.len()).rev().collect();
    let mut busy = 0usize;
    let mut signatures: HashSet<String> = summary
        .findings
        .iter()
        .map(|f| f.signature.clone())
        .collect();
    loop {
        while !stop.load(Ordering::Relaxed) && !idle.is_empty() {
            let Some(task) = master.take_subtree() else {
                break;
            };
            let Some(id) = idle.pop() else { break };
            if inboxes[id].send(Some(task)).is_ok() {
                busy += 1;
            }
        }
        if busy == 0 {
            break;
        }
        let Ok(message) = from_workers.recv() else {
            break;
        };
        match message {
            Message::Executed {
                steps,
                sleep_blocked,
                fingerprint,
                finding,
                reports,
            } => {
                master.apply_reports(&reports);
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
            Message::Idle(id) => {
                busy -= 1;
                idle.push(id);
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

/// One worker: explores the subtrees it is given, one execution at a time.
fn worker(
    id: usize,
    config: &ExecConfig,
    inbox: mpsc::Receiver<Option<(Request, Dpor)>>,
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
            while let Ok(Some(_)) = inbox.recv() {
                let _ = outbox.send(Message::Idle(id));
            }
            return;
        }
    };
    while let Ok(Some((first, mut search))) = inbox.recv() {
        let mut request = Some(first);
        while let Some(current) = request.take() {
            if stop.load(Ordering::Relaxed) {
                break;
            }
            let number = started.fetch_add(1, Ordering::Relaxed) + 1;
            if options.max_executions.is_some_and(|m| number > m) {
                break;
            }
            match execute(&mut executor, &mut search, &current, options, number) {
                Ok(examined) => {
                    let message = Message::Executed {
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
        if outbox.send(Message::Idle(id)).is_err() {
            return;
        }
    }
}
