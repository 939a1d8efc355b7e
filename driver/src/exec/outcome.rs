//! Reading an execution's result out of the channel, validating everything
//! the program under test may have scribbled over.

use super::process::Finished;
use super::{ExecError, Outcome};
use reach_channel::memory_model::ReadRecord;
use reach_channel::{ChannelView, OpKind, RunStatus, ThreadState};
use std::time::Duration;

fn corrupt(what: impl Into<String>) -> ExecError {
    ExecError::CorruptChannel(what.into())
}

/// Builds the [`Outcome`] of a finished execution from the channel `view`;
/// `timeout` is the wall-clock bound it ran under.
pub fn read(
    view: &ChannelView<'_>,
    finished: Finished,
    timeout: Duration,
) -> Result<Outcome, ExecError> {
    let status = view.status()?;
    let thread_count = view.thread_count()?;
    if thread_count == 0 && status != RunStatus::Running {
        return Err(corrupt("a concluded execution reports no threads"));
    }
    let mut threads = Vec::with_capacity(thread_count);
    for t in 0..thread_count {
        let slot = view.thread(t)?;
        if ThreadState::from_u32(slot.state).is_none() {
            return Err(corrupt(format!(
                "thread {t} has invalid state {}",
                slot.state
            )));
        }
        threads.push(slot);
    }
    let count = view.event_count()?;
    let mut events = Vec::with_capacity(count);
    for i in 0..count {
        let ev = view.event(i)?;
        if OpKind::from_u16(ev.kind).is_none() {
            return Err(corrupt(format!("event {i} has invalid kind {}", ev.kind)));
        }
        if ev.thread as usize >= thread_count {
            return Err(corrupt(format!(
                "event {i} names thread {} of {thread_count}",
                ev.thread
            )));
        }
        events.push(ev);
    }
    let reads = events
        .iter()
        .enumerate()
        .map(|(i, ev)| {
            let modelled = [
                OpKind::AtomicLoad,
                OpKind::AtomicStore,
                OpKind::AtomicRmw,
                OpKind::CmpXchg,
                OpKind::Store,
            ];
            if !modelled.iter().any(|k| ev.kind == *k as u16) {
                return None;
            }
            view.read_record(i).ok().filter(|r| {
                r.tag == ReadRecord::tag_of(i as u64) && r.candidates > 0 && r.choice < r.candidates
            })
        })
        .collect();
    let private_mode = view.request_flags()? & reach_channel::layout::REQ_PRIVATE != 0;
    let mut private = if private_mode {
        view.private_records()?
    } else {
        Vec::new()
    };
    if let Some(r) = private
        .iter()
        .find(|r| r.position as usize > count || usize::from(r.thread) >= thread_count)
    {
        return Err(corrupt(format!(
            "a private access record at position {} names thread {} ({count} events, {thread_count} threads)",
            r.position, r.thread
        )));
    }
    // In trace order; at one position the write first (they ran between
    // the same two events of their thread, with the same clock).
    private.sort_by_key(|r| (r.position, r.kind));
    let cut_threads = view.cut_threads()?;
    let cut = if cut_threads == 0 {
        None
    } else {
        if count as u64 != view.record_steps()? {
            return Err(corrupt("recording stopped before the recording bound"));
        }
        let mut slots = Vec::with_capacity(cut_threads);
        for t in 0..cut_threads.min(thread_count) {
            let slot = view.cut_thread(t)?;
            if ThreadState::from_u32(slot.state).is_none() {
                return Err(corrupt(format!(
                    "thread {t} has invalid state {} where recording stopped",
                    slot.state
                )));
            }
            slots.push(slot);
        }
        Some(slots)
    };
    let divergence = match status {
        RunStatus::Diverged => Some(view.divergence()?),
        // A spinner run while held back and held back again (`drop_respin`).
        RunStatus::SleepBlocked => Some(view.divergence()?).filter(|&(_, t)| t != u32::MAX),
        _ => None,
    };
    let culprit = match view.culprit()? {
        (t, _) if t == u32::MAX => None,
        (t, _) if t as usize >= thread_count => None,
        c => Some(c),
    };
    Ok(Outcome {
        status,
        termination: finished.termination,
        steps: view.step_count()?,
        events,
        reads,
        private_mode,
        private,
        cut,
        threads,
        message: view.message()?,
        divergence,
        culprit,
        stdout: finished.stdout,
        stderr: finished.stderr,
        wall: finished.wall,
        timeout,
        symbolic: crate::exec::symbolic::SymTrace::read(view)?.map(std::sync::Arc::new),
        user_threads: false,
        sources: view.sources()?,
    })
}
