//! Synchronisation semantics, deadlock and misuse through the executor.

use crate::exec_support;

use exec_support::*;
use reach_channel::{EventFlags, OpKind, RunStatus};
use reach_native::exec::Termination;

fn run_mode(mode: &str, prefix: &[u32]) -> reach_native::exec::Outcome {
    let prog = compile_program("primitives.c");
    let mut ex = executor_args(&prog, &[mode]);
    ex.run(&request(prefix)).expect("run")
}

fn assert_exit0(out: &reach_native::exec::Outcome) {
    assert_eq!(out.status, RunStatus::Exited, "{}", dump(out));
    assert_eq!(out.termination, Termination::Exited(0), "{}", dump(out));
}

#[test]
fn abba_deadlocks_with_the_right_prefix() {
    let prog = compile_program("abba.c");
    let mut ex = executor(&prog);
    let out = ex.run(&request(&[])).expect("run");
    assert_exit0(&out);
    let out = ex.run(&request(&[0, 0, 1, 2])).expect("run");
    assert_eq!(out.status, RunStatus::Deadlock, "{}", dump(&out));
    assert!(
        out.message.contains("thread 1 waits for mutex")
            && out.message.contains("held by thread 2")
            && out.message.contains("thread 0 waits to join thread 1"),
        "{}",
        out.message
    );
    assert_eq!(
        shape(&out.events),
        vec![
            (0, OpKind::ThreadCreate),
            (0, OpKind::ThreadCreate),
            (1, OpKind::MutexLock),
            (2, OpKind::MutexLock)
        ]
    );
    // At the last decision thread 0 waits for the join, 1 and 2 can lock.
    let en: Vec<u32> = out.events[3].enabled.iter().collect();
    assert_eq!(en, vec![1, 2]);
}

#[test]
fn misuse_is_reported() {
    let prog = compile_program("misuse.c");
    for (mode, needle) in [
        ("unlock-unheld", "which is not locked"),
        ("unlock-other", "held by thread 0"),
        ("relock", "already holds"),
        ("destroy-locked", "locked by thread 0"),
        ("join-twice", "already joined"),
        ("join-detached", "detached thread 1"),
        ("join-detached-blocked", "detached thread 1"),
        ("join-self", "joins itself"),
    ] {
        let mut ex = executor_args(&prog, &[mode]);
        let out = ex.run(&request(&[])).expect("run");
        assert_eq!(out.status, RunStatus::Misuse, "{mode}: {}", dump(&out));
        assert!(out.message.contains(needle), "{mode}: {}", out.message);
        assert!(out.culprit.is_some(), "{mode}");
    }
}

#[test]
fn destroying_a_waited_condvar_is_misuse() {
    let prog = compile_program("misuse.c");
    let mut ex = executor_args(&prog, &["cond-destroy"]);
    let out = ex.run(&request(&[0, 1, 1, 0])).expect("run");
    assert_eq!(out.status, RunStatus::Misuse, "{}", dump(&out));
    assert!(
        out.message.contains("while thread 1 waits on it"),
        "{}",
        out.message
    );
}

#[test]
fn futex_wait_and_wake() {
    // Waiter blocks first, main stores and wakes.
    let out = run_mode("futex", &[0, 1]);
    assert_exit0(&out);
    let t1 = kinds_of(&out, 1);
    assert_eq!(
        t1,
        vec![OpKind::FutexWait, OpKind::FutexWait],
        "{}",
        dump(&out)
    );
    assert_eq!(out.events[1].flags, 0, "the first wait blocks");
    assert!(!out.events[2].enabled.contains(1), "{}", dump(&out));
    // Main first: the waiter's word changed, its wait fails at once (or it
    // never waits).
    let out = run_mode("futex", &[]);
    assert_exit0(&out);
    // Without the wake the waiter sleeps forever: deadlock.
    let out = run_mode("futex-lost", &[0, 1]);
    assert_eq!(out.status, RunStatus::Deadlock, "{}", dump(&out));
    assert!(
        out.message.contains("thread 1 waits on futex"),
        "{}",
        out.message
    );
}

#[test]
fn lost_signal_deadlocks_with_a_clear_message() {
    for prefix in [&[0, 1, 1][..], &[0, 0, 0, 0]] {
        let out = run_mode("lost-signal", prefix);
        assert_eq!(out.status, RunStatus::Deadlock, "{}", dump(&out));
        assert!(
            out.message.contains("thread 1 waits on condition variable")
                && out.message.contains("thread 0 waits to join thread 1"),
            "{}",
            out.message
        );
    }
}

#[test]
fn semaphore_semantics() {
    let out = run_mode("sem", &[]);
    assert_exit0(&out);
    let waits: Vec<_> = out
        .events
        .iter()
        .filter(|e| e.kind == OpKind::SemWait as u16)
        .collect();
    assert_eq!(waits.len(), 2, "{}", dump(&out));
    assert!(EventFlags(waits[0].flags).has(EventFlags::FAILED | EventFlags::TRY));
    // Thread 1's wait is not enabled before the post.
    let post = out
        .events
        .iter()
        .position(|e| e.kind == OpKind::SemPost as u16)
        .expect("post");
    assert!(!out.events[post].enabled.contains(1), "{}", dump(&out));
    // Forcing thread 1 first diverges: its wait is blocked.
    let out = run_mode("sem", &[0, 0, 1]);
    assert_eq!(out.status, RunStatus::Diverged, "{}", dump(&out));
}

#[test]
fn condvar_wait_and_signal() {
    // Waiter first: it waits, main signals, waiter relocks.
    let out = run_mode("cond", &[0, 1, 1]);
    assert_exit0(&out);
    let t1 = kinds_of(&out, 1);
    assert_eq!(
        t1,
        vec![
            OpKind::MutexLock,
            OpKind::CondWait,
            OpKind::CondRelock,
            OpKind::MutexUnlock
        ],
        "{}",
        dump(&out)
    );
    // Main first: the waiter never waits.
    let out = run_mode("cond", &[]);
    assert_exit0(&out);
    assert!(!kinds_of(&out, 1).contains(&OpKind::CondWait));
}

#[test]
fn timed_wait_explores_both_outcomes() {
    // Waiter waits, relocks at once: timeout.
    let out = run_mode("timedwait", &[0, 1, 1, 1]);
    assert_exit0(&out);
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("timeout"),
        "{}",
        dump(&out)
    );
    let relock = out
        .events
        .iter()
        .find(|e| e.kind == OpKind::CondRelock as u16)
        .expect("relock");
    assert!(EventFlags(relock.flags).has(EventFlags::TIMED_OUT));
    // Waiter waits, main signals first: signalled.
    let out = run_mode("timedwait", &[0, 1, 1, 0, 0, 0]);
    assert_exit0(&out);
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("signalled"),
        "{}",
        dump(&out)
    );
}

#[test]
fn barrier_has_one_serial_thread() {
    for prefix in [&[][..], &[0, 0, 1, 2, 0], &[0, 0, 2, 0, 1]] {
        let out = run_mode("barrier", prefix);
        assert_exit0(&out);
        let arrive = out
            .events
            .iter()
            .filter(|e| e.kind == OpKind::BarrierArrive as u16)
            .count();
        assert_eq!(arrive, 3);
    }
}

#[test]
fn rwlock_readers_share_writers_exclude() {
    let out = run_mode("rwlock", &[]);
    assert_exit0(&out);
    // While main holds a read lock, the reader is enabled and the writer is not.
    let trywr = out
        .events
        .iter()
        .position(|e| e.kind == OpKind::RwWriteLock as u16 && e.thread == 0)
        .expect("trywrlock");
    let en = out.events[trywr].enabled;
    assert!(en.contains(1) && !en.contains(2), "{}", dump(&out));
}

#[test]
fn once_keys_recursive_spinlock_sleep() {
    for mode in ["once", "keys", "recursive", "spinlock", "sleep", "detach"] {
        let out = run_mode(mode, &[]);
        assert_exit0(&out);
    }
    let out = run_mode("sleep", &[]);
    assert_eq!(
        shape(&out.events),
        vec![
            (0, OpKind::Sleep),
            (0, OpKind::Sleep),
            (0, OpKind::Sleep),
            (0, OpKind::Yield),
            (0, OpKind::ProcessExit)
        ]
    );
    // Once: with thread 1 running the routine, the others wait until its
    // completion event.
    let out = run_mode("once", &[0, 0, 1, 2]);
    assert_eq!(out.status, RunStatus::Diverged, "{}", dump(&out));
    let out = run_mode("once", &[0, 0, 1, 1, 2]);
    assert_exit0(&out);
    let once: Vec<_> = out
        .events
        .iter()
        .filter(|e| e.kind == OpKind::Once as u16)
        .map(|e| (e.thread, e.aux))
        .collect();
    assert_eq!(&once[..2], &[(1, 0), (1, 1)], "{}", dump(&out));
}

#[test]
fn exits_from_threads_and_main() {
    let out = run_mode("exit-thread", &[]);
    assert_eq!(out.status, RunStatus::Exited, "{}", dump(&out));
    assert_eq!(out.termination, Termination::Exited(7));
    assert_eq!(out.events.last().map(|e| e.thread), Some(1));
    let out = run_mode("main-pthread-exit", &[]);
    assert_exit0(&out);
    let out = run_mode("underscore-exit", &[]);
    assert_eq!(out.status, RunStatus::Exited, "{}", dump(&out));
    assert_eq!(out.termination, Termination::Exited(3));
}
