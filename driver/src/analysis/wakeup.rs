//! Condition-variable wake-ups replayed over a sequence of operations, as
//! the runtime performs them: a wait joins the variable's queue, a signal
//! wakes the longest waiting thread, a broadcast all of them, a
//! re-acquisition leaves the queue. The searches that move a woken
//! waiter's re-acquisition (optimal DPOR's reversals, reachability
//! testing's race variants) ask it whether the waiter is woken and its
//! mutex free after the operations they keep.

use reach_channel::{Op, OpKind};

/// A condition waiter's state after a sequence of operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Waiter {
    /// Woken by a signal or broadcast, not yet re-acquired.
    pub woken: bool,
    /// Its mutex is free.
    pub mutex_free: bool,
}

/// The state of `waiter`, asleep on condition variable `cond` with mutex
/// `mutex`, after `ops` (thread, operation; in execution order).
pub fn waiter_after<'a>(
    ops: impl IntoIterator<Item = (u32, &'a Op)>,
    cond: u64,
    mutex: u64,
    waiter: u32,
) -> Waiter {
    let mut waiting: Vec<u32> = Vec::new();
    let mut woken: Vec<u32> = Vec::new();
    let mut held = false;
    for (thread, op) in ops {
        match op.kind {
            OpKind::CondWait if op.object == cond => waiting.push(thread),
            OpKind::CondSignal if op.object == cond && !waiting.is_empty() => {
                woken.push(waiting.remove(0));
            }
            OpKind::CondBroadcast if op.object == cond => woken.append(&mut waiting),
            OpKind::CondRelock if op.object == cond => {
                waiting.retain(|&t| t != thread);
                woken.retain(|&t| t != thread);
            }
            _ => {}
        }
        let on_mutex = match op.kind {
            OpKind::CondWait | OpKind::CondRelock => op.aux == mutex,
            _ => op.object == mutex,
        };
        if on_mutex && op.kind.is_acquire() && !op.made_no_progress() {
            held = true;
        } else if on_mutex && op.kind.is_release() {
            held = false;
        }
    }
    Waiter {
        woken: woken.contains(&waiter),
        mutex_free: !held,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const C: u64 = 0xc0;
    const M: u64 = 0x60;

    #[test]
    fn a_signal_wakes_the_longest_waiting_thread() {
        let wait1 = Op::new(OpKind::CondWait, C, M);
        let wait2 = Op::new(OpKind::CondWait, C, M);
        let signal = Op::new(OpKind::CondSignal, C, 0);
        let ops = [(1, &wait1), (2, &wait2), (0, &signal)];
        assert!(waiter_after(ops, C, M, 1).woken);
        assert!(!waiter_after(ops, C, M, 2).woken);
    }

    #[test]
    fn a_broadcast_wakes_all_but_a_held_mutex_keeps_them_waiting() {
        let wait1 = Op::new(OpKind::CondWait, C, M);
        let wait2 = Op::new(OpKind::CondWait, C, M);
        let lock = Op::new(OpKind::MutexLock, M, 0);
        let broadcast = Op::new(OpKind::CondBroadcast, C, 0);
        let unlock = Op::new(OpKind::MutexUnlock, M, 0);
        let held = [(1, &wait1), (2, &wait2), (0, &lock), (0, &broadcast)];
        let after = waiter_after(held, C, M, 2);
        assert!(after.woken && !after.mutex_free);
        let released = [
            (1, &wait1),
            (2, &wait2),
            (0, &lock),
            (0, &broadcast),
            (0, &unlock),
        ];
        let both = [1, 2].map(|t| waiter_after(released, C, M, t));
        assert!(both.iter().all(|w| w.woken && w.mutex_free));
    }
}
