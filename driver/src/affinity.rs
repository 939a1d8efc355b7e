//! CPU placement of the exploration: each executor (the driver thread that
//! runs it, its fork server and every execution) is bound to one CPU.
//!
//! An execution runs one thread at a time and the driver, the fork server
//! and the execution wait for each other in turn, so nothing is lost by
//! sharing one CPU, while every hand-off (a thread switch inside the
//! execution, a request, a child's exit, a report) becomes a switch on that
//! CPU instead of a wake-up of another, possibly idle, one. Parallel
//! workers get different CPUs.

use nix::sched::{sched_getaffinity, sched_setaffinity, CpuSet};
use nix::unistd::Pid;

/// The CPUs this process may run on, in increasing order, starting with
/// the one the calling thread runs on now (so that concurrent explorations
/// the scheduler placed on different CPUs stay apart).
pub fn placement() -> Vec<usize> {
    let Ok(set) = sched_getaffinity(Pid::from_raw(0)) else {
        return Vec::new();
    };
    let allowed: Vec<usize> = (0..CpuSet::count())
        .filter(|&c| set.is_set(c).unwrap_or(false))
        .collect();
    // SAFETY: plain query.
    let current = unsafe { libc::sched_getcpu() };
    let start = allowed
        .iter()
        .position(|&c| c as i32 == current)
        .unwrap_or(0);
    let mut order = allowed[start..].to_vec();
    order.extend_from_slice(&allowed[..start]);
    order
}

/// Binds the calling thread (and the processes and threads it starts
/// afterwards) to the CPU for worker `index` of `placement`
/// ([`cpu_for`]); does nothing with an empty placement. Best effort:
/// returns false if the thread was not bound.
pub fn bind_current_thread(placement: &[usize], index: usize) -> bool {
    let Some(cpu) = cpu_for(placement, index) else {
        return false;
    };
    let mut set = CpuSet::new();
    set.set(cpu).is_ok() && sched_setaffinity(Pid::from_raw(0), &set).is_ok()
}

/// The CPU for worker `index` of a placement (`None` without one).
pub fn cpu_for(placement: &[usize], index: usize) -> Option<usize> {
    (!placement.is_empty()).then(|| placement[index % placement.len()])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placement_lists_allowed_cpus_once() {
        let order = placement();
        assert!(!order.is_empty());
        let mut sorted = order.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), order.len());
        assert_eq!(cpu_for(&order, order.len()), Some(order[0]));
        assert_eq!(cpu_for(&[], 3), None);
    }
}
