//! The accesses of a reported execution that did not read the latest
//! store (under `--memory-model rc11`): which store each read, and which
//! one it did not see; and the stores placed before the latest in
//! modification order.

use super::names::Names;
use crate::trace::Trace;
use reach_channel::memory_model::INITIAL_WRITER;
use reach_channel::OpKind;

/// One line per atomic access of `trace` that read an older store than
/// the latest: "step 9, T2 read `value` = 0, the initial value, although
/// T1 stored 42 at step 3"; and per store placed before the latest: "step
/// 7, T1's store to `x` is before T2's store of 2 at step 5 in
/// modification order, although it ran later".
pub fn stale_reads(trace: &Trace, names: &Names) -> Vec<String> {
    stale_lines(trace, names)
        .into_iter()
        .map(|(_, line)| line)
        .collect()
}

/// [`stale_reads`] with the step of each line.
pub fn stale_lines(trace: &Trace, names: &Names) -> Vec<(usize, String)> {
    trace
        .events
        .iter()
        .enumerate()
        .filter_map(|(i, e)| {
            let read = trace.read(i).filter(|r| r.choice > 0)?;
            let what = names.object_at(e.op.object, &trace.objects, i);
            if read.placed != 0 && matches!(e.op.kind, OpKind::AtomicStore | OpKind::Store) {
                let latest = if read.latest_writer == INITIAL_WRITER {
                    "the initial value".to_string()
                } else {
                    format!(
                        "T{}'s store of {}{}",
                        read.latest_writer,
                        value(read.latest_value),
                        at_step(read.latest_step)
                    )
                };
                return Some((
                    i,
                    format!(
                        "step {i}, T{}'s store to {what} is before {latest} in modification order, although it ran later",
                        e.thread
                    ),
                ));
            }
            let access = match e.op.kind {
                OpKind::AtomicRmw => " (read-modify-write)",
                OpKind::CmpXchg if read.placed != 0 => " (compare-and-exchange, succeeded)",
                OpKind::CmpXchg => " (compare-and-exchange, failed)",
                _ => "",
            };
            let source = if read.writer == INITIAL_WRITER {
                "the initial value".to_string()
            } else {
                format!("T{}'s store{}", read.writer, at_step(read.writer_step))
            };
            let latest = if read.latest_writer == INITIAL_WRITER {
                "the location held".to_string()
            } else {
                format!("T{} stored", read.latest_writer)
            };
            Some((
                i,
                format!(
                    "step {i}, T{} read {what} = {}{access}, {source}, although {latest} {}{}",
                    e.thread,
                    value(read.value),
                    value(read.latest_value),
                    at_step(read.latest_step)
                ),
            ))
        })
        .collect()
}

/// What an arrow of [`stale_edges`] shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StaleEdge {
    /// From the store an access read to the access, an older store than
    /// the latest (reads-from).
    ReadsFrom,
    /// From a store to the store that ran earlier but is after it in
    /// modification order.
    ModificationOrder,
}

/// The arrows of `trace`'s stale accesses (from, to, kind): each access
/// that read an older store than the latest, from the store it read (for
/// the initial value: [`initial_reads`]); each store placed before the latest, to that
/// store.
pub fn stale_edges(trace: &Trace) -> Vec<(usize, usize, StaleEdge)> {
    let recorded = |step: u64| {
        usize::try_from(step)
            .ok()
            .filter(|&s| s < trace.events.len())
    };
    trace
        .events
        .iter()
        .enumerate()
        .filter_map(|(i, e)| {
            let read = trace.read(i).filter(|r| r.choice > 0)?;
            if read.placed != 0 && matches!(e.op.kind, OpKind::AtomicStore | OpKind::Store) {
                Some((i, recorded(read.latest_step)?, StaleEdge::ModificationOrder))
            } else {
                Some((recorded(read.writer_step)?, i, StaleEdge::ReadsFrom))
            }
        })
        .collect()
}

/// The stale loads of `trace` that read the initial value (no store step
/// to draw their arrow from): the HTML picture draws it from the
/// diagram's "initial values" point.
pub fn initial_reads(trace: &Trace) -> Vec<usize> {
    trace
        .events
        .iter()
        .enumerate()
        .filter(|&(i, e)| {
            trace.read(i).is_some_and(|r| {
                r.choice > 0
                    && r.writer == INITIAL_WRITER
                    && !(r.placed != 0 && matches!(e.op.kind, OpKind::AtomicStore | OpKind::Store))
            })
        })
        .map(|(i, _)| i)
        .collect()
}

/// " at step N", or nothing for a step not recorded.
fn at_step(step: u64) -> String {
    if step == u64::MAX {
        String::new()
    } else {
        format!(" at step {step}")
    }
}

/// A value as the report shows it: decimal, or hexadecimal past 32 bits.
fn value(v: u64) -> String {
    if v > u64::from(u32::MAX) {
        format!("{v:#x}")
    } else {
        v.to_string()
    }
}
