//! `--jobs N` for searches that keep one central state and can have several
//! executions in flight ([`Strategy::pipelined`]): unfolding-based testing,
//! random walks, PCT.
//!
//! The coordinator (the calling thread) owns the search. It keeps up to N
//! requests in flight, each run by one of N workers with an executor of its
//! own, and lets the search learn from the results *in the order the
//! requests were made*, waiting for the oldest when it is not back yet. So
//! the sequence of requests, and with it every result, depends on N but not
//! on which worker is faster: a run is reproducible. A search with nothing
//! to ask for while executions are in flight (an unfolding whose possible
//! extensions all wait for results) simply waits for the next result.

use crate::exec::{ExecConfig, Executor, Request};
use crate::explore::{examine, run_request, Executed, ExploreOptions, StopReason, Summary};
use crate::strategy::Strategy;
use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::atomic::Ordering;
use std::sync::mpsc;
use std::sync::Mutex;
use std::time::Instant;

/// A request for a worker: its ticket (issue order) and the request.
type Job = (u64, Request);
/// A worker's answer: the ticket and the execution (`None`: cancelled).
type Answer = (u64, Result<Option<Executed>, String>);

/// Explores with `strategy` on `jobs` workers, each with an executor made
/// from `config` on its own thread (a fork server belongs to the thread
/// that started it) and pinned by `placement`. `executor` is the caller's,
/// left for what follows (shortening a bug's schedule).
pub fn explore_pipelined(
    executor: &mut Executor,
    config: &ExecConfig,
    strategy: &mut dyn Strategy,
    jobs: usize,
    placement: &[usize],
    options: &ExploreOptions,
    progress: &mut dyn FnMut(&Summary),
) -> Summary {
    let start = Instant::now();
    let jobs = jobs.max(1);
    let cancel = options.cancel(start);
    executor.set_cancel(cancel.clone());
    strategy.set_cancel(cancel.clone());
    let (job_tx, job_rx) = mpsc::channel::<Job>();
    let job_rx = Mutex::new(job_rx);
    let (answer_tx, answer_rx) = mpsc::channel::<Answer>();
    let mut summary = Summary::empty(strategy.name(), options.count_partial_orders);
    let mut stopped_here = false;
    std::thread::scope(|scope| {
        for worker in 0..jobs {
            let job_rx = &job_rx;
            let answer_tx = answer_tx.clone();
            let cancel = cancel.clone();
            scope.spawn(move || {
                crate::affinity::bind_current_thread(placement, worker);
                let mut executor = match Executor::new(config.clone()) {
                    Ok(executor) => executor,
                    Err(e) => {
                        let message = format!("cannot start a worker: {e}");
                        // Answer the first job with the error; the
                        // coordinator stops on it.
                        let job = job_rx.lock().map(|rx| rx.recv());
                        if let Ok(Ok((ticket, _))) = job {
                            let _ = answer_tx.send((ticket, Err(message)));
                        }
                        return;
                    }
                };
                executor.set_cancel(cancel);
                let executor = &mut executor;
                loop {
                    let job = match job_rx.lock() {
                        Ok(rx) => rx.recv(),
                        Err(_) => return,
                    };
                    let Ok((ticket, request)) = job else { return };
                    let answer = run_request(executor, &request).map(|ran| {
                        ran.map(|mut executed| {
                            executed.keep_objects(executor);
                            executed
                        })
                    });
                    if answer_tx.send((ticket, answer)).is_err() {
                        return;
                    }
                }
            });
        }
        drop(answer_tx);
        stopped_here = coordinate(
            strategy,
            jobs,
            options,
            &cancel,
            &job_tx,
            &answer_rx,
            &mut summary,
            start,
            progress,
        );
        drop(job_tx);
    });
    if stopped_here {
        options.interrupt.store(false, Ordering::SeqCst);
    }
    summary.elapsed = start.elapsed();
    summary.bound_by_truncation();
    summary.coverage = strategy.coverage();
    summary.strategy_stats = strategy.stats();
    summary
}

/// The coordinator's loop; returns true if it raised the interrupt flag
/// itself to stop executions still running (to be lowered again).
#[allow(clippy::too_many_arguments)]
fn coordinate(
    strategy: &mut dyn Strategy,
    jobs: usize,
    options: &ExploreOptions,
    cancel: &crate::cancel::Cancel,
    job_tx: &mpsc::Sender<Job>,
    answer_rx: &mpsc::Receiver<Answer>,
    summary: &mut Summary,
    start: Instant,
    progress: &mut dyn FnMut(&Summary),
) -> bool {
    let mut in_flight: VecDeque<(u64, Request)> = VecDeque::new();
    let mut back: HashMap<u64, Result<Option<Executed>, String>> = HashMap::new();
    let mut next_ticket = 0u64;
    let mut signatures = HashSet::new();
    let stop = loop {
        if let Some(why) = cancel.reason() {
            break StopReason::cancelled(why);
        }
        if options
            .max_executions
            .is_some_and(|m| summary.executions >= m)
        {
            break StopReason::ExecutionLimit;
        }
        while in_flight.len() < jobs
            && options
                .max_executions
                .is_none_or(|m| summary.executions + (in_flight.len() as u64) < m)
        {
            let Some(request) = strategy.next_request() else {
                break;
            };
            if job_tx.send((next_ticket, request.clone())).is_err() {
                break;
            }
            in_flight.push_back((next_ticket, request));
            next_ticket += 1;
        }
        let Some((ticket, request)) = in_flight.pop_front() else {
            break match strategy.incomplete() {
                Some(why) => StopReason::Bounded(why),
                None => StopReason::Complete,
            };
        };
        let answer = loop {
            if let Some(answer) = back.remove(&ticket) {
                break answer;
            }
            match answer_rx.recv() {
                Ok((t, a)) => {
                    back.insert(t, a);
                }
                Err(_) => break Err("every worker stopped".to_string()),
            }
        };
        let executed = match answer {
            Ok(Some(executed)) => executed,
            Ok(None) => continue,
            Err(message) => break StopReason::Error(message),
        };
        let number = summary.executions + 1;
        let examined = match examine(strategy, &request, executed, options, number, None) {
            Ok(examined) => examined,
            Err(message) => break StopReason::Error(message),
        };
        if strategy.counted() {
            summary.record(&examined);
        } else {
            summary.uncounted += 1;
        }
        summary.elapsed = start.elapsed();
        if let Some(finding) = examined.finding {
            crate::explore::add_finding(summary, &mut signatures, finding);
            if !options.keep_going {
                progress(summary);
                break StopReason::Bug;
            }
        }
        progress(summary);
    };
    summary.stop = stop;
    // Executions still running are not needed: stop them.
    let raise = !in_flight.is_empty() && !options.interrupt.load(Ordering::SeqCst);
    if raise {
        options.interrupt.store(true, Ordering::SeqCst);
    }
    raise
}
