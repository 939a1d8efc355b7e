//! Scheduling: prefixes, policies, determinism, divergence, sleep sets,
//! hooks and spin loops.

use crate::exec_support;

use exec_support::*;
use reach_channel::hooks::ALL;
use reach_channel::{EventFlags, OpKind, Policy, RunStatus, ThreadSet};
use reach_native::exec::{Request, Termination};

#[test]
fn same_request_same_trace() {
    let prog = compile_program("robust.c");
    let mut ex = executor_args(&prog, &["heap"]);
    for req in [
        request(&[0, 0, 2, 2, 1, 0]),
        Request {
            policy: Policy::Random,
            seed: 42,
            ..request(&[])
        },
    ] {
        let a = ex.run(&req).expect("run");
        let b = ex.run(&req).expect("run");
        assert_eq!(a.status, RunStatus::Exited, "{}", dump(&a));
        assert_eq!(a.events, b.events, "{}\n{}", dump(&a), dump(&b));
    }
}

#[test]
fn random_policy_varies_with_the_seed() {
    let prog = compile_program("robust.c");
    let mut ex = executor_args(&prog, &["heap"]);
    let traces: std::collections::HashSet<Vec<(u32, OpKind)>> = (0..20)
        .map(|seed| {
            let out = ex
                .run(&Request {
                    policy: Policy::Random,
                    seed,
                    ..request(&[])
                })
                .expect("run");
            assert_eq!(out.status, RunStatus::Exited);
            shape(&out.events)
        })
        .collect();
    assert!(traces.len() > 1);
}

#[test]
fn impossible_prefix_diverges() {
    let prog = compile_program("mutex_two.c");
    let mut ex = executor(&prog);
    let out = ex.run(&request(&[0, 7])).expect("run");
    assert_eq!(out.status, RunStatus::Diverged, "{}", dump(&out));
    assert_eq!(out.divergence, Some((1, 7)));
    assert_eq!(out.events.len(), 1);
    // Thread 1 exists but is blocked on the join... here: thread 0's join.
    let out = ex.run(&request(&[0, 0, 0])).expect("run");
    assert_eq!(out.status, RunStatus::Diverged, "{}", dump(&out));
    assert_eq!(out.divergence, Some((2, 0)));
}

#[test]
fn sleep_set_blocks_and_wakes() {
    let prog = compile_program("mutex_two.c");
    let mut ex = executor(&prog);
    let mut sleep = ThreadSet::EMPTY;
    sleep.insert(1);
    // After spawning thread 1 (event 0), thread 1 sleeps; main spawns thread
    // 2, whose lock conflicts with thread 1's: thread 1 wakes up.
    let out = ex
        .run(&Request {
            sleep_set: sleep,
            sleep_sets: true,
            ..request(&[0])
        })
        .expect("run");
    assert_eq!(out.status, RunStatus::Exited, "{}", dump(&out));
    // Thread 0 must still run before 1 after the prefix.
    assert_eq!(out.events[1].thread, 0);
    // Both threads 1 and 2 asleep after both spawns: the only enabled
    // threads sleep (main waits to join).
    let mut sleep = ThreadSet::EMPTY;
    sleep.insert(1);
    sleep.insert(2);
    let out = ex
        .run(&Request {
            sleep_set: sleep,
            sleep_sets: true,
            ..request(&[0, 0])
        })
        .expect("run");
    assert_eq!(out.status, RunStatus::SleepBlocked, "{}", dump(&out));
    assert_eq!(out.events.len(), 2);
}

#[test]
fn every_hook_is_exported() {
    let so = std::fs::read(runtime()).expect("read runtime");
    let elf = goblin::elf::Elf::parse(&so).expect("parse runtime");
    let exported: Vec<&str> = elf
        .dynsyms
        .iter()
        .filter(|s| s.st_value != 0 && s.is_function())
        .filter_map(|s| elf.dynstrtab.get_at(s.st_name))
        .collect();
    for hook in ALL {
        assert!(exported.contains(&hook.name), "{} not exported", hook.name);
    }
    for f in [
        "pthread_create",
        "pthread_mutex_lock",
        "__libc_start_main",
        "syscall",
        "exit",
    ] {
        assert!(exported.contains(&f), "{f} not exported");
    }
}

#[test]
fn hooks_record_accesses_and_cmpxchg_outcome() {
    let prog = compile_program("hooks.c");
    let mut ex = executor_args(&prog, &["cas"]);
    let out = ex.run(&request(&[])).expect("run");
    assert_eq!(out.termination, Termination::Exited(0), "{}", dump(&out));
    let cas: Vec<_> = out
        .events
        .iter()
        .filter(|e| e.kind == OpKind::CmpXchg as u16)
        .collect();
    assert_eq!(cas.len(), 2);
    assert!(
        EventFlags(cas[0].flags).has(EventFlags::FAILED),
        "{}",
        dump(&out)
    );
    assert!(
        !EventFlags(cas[1].flags).has(EventFlags::FAILED),
        "{}",
        dump(&out)
    );
    assert_eq!((cas[0].site, cas[0].aux), (5, 4));

    // Main loads x before or after thread 1 stores it.
    let mut ex = executor_args(&prog, &["race"]);
    let out = ex.run(&request(&[])).expect("run");
    assert_eq!(out.termination, Termination::Exited(0), "{}", dump(&out));
    let out = ex.run(&request(&[0, 1])).expect("run");
    assert_eq!(out.termination, Termination::Exited(1), "{}", dump(&out));
    assert_eq!(
        shape(&out.events)[..3],
        [
            (0, OpKind::ThreadCreate),
            (1, OpKind::Store),
            (1, OpKind::Store)
        ]
    );
    let load = out
        .events
        .iter()
        .find(|e| e.kind == OpKind::Load as u16)
        .expect("load");
    assert_eq!((load.site, load.aux), (7, 4));
    let join = out
        .events
        .iter()
        .find(|e| e.kind == OpKind::ThreadJoin as u16)
        .expect("join");
    assert_eq!(join.site, 99, "call site attributed to the join");
}

#[test]
fn spin_loops_terminate() {
    let prog = compile_program("hooks.c");
    // The spinner runs first (policy keeps it running) until it counts as
    // spinning; then the setter runs and releases it.
    let mut ex = executor_args(&prog, &["spin"]);
    let out = ex.run(&request(&[])).expect("run");
    assert_eq!(out.status, RunStatus::Exited, "{}", dump(&out));
    assert_eq!(out.termination, Termination::Exited(0));
    let mut ex = executor_args(&prog, &["yield-spin"]);
    let out = ex.run(&request(&[])).expect("run");
    assert_eq!(out.status, RunStatus::Exited, "{}", dump(&out));
    // Nobody ever sets the flag: livelock, not a step-limit run.
    let mut ex = executor_args(&prog, &["spin-forever"]);
    let out = ex.run(&request(&[])).expect("run");
    assert_eq!(out.status, RunStatus::Livelock, "{}", dump(&out));
    assert!(out.message.contains("thread 1 spins"), "{}", out.message);
}

#[test]
fn a_thread_alone_or_making_progress_does_not_spin() {
    let prog = compile_program("hooks.c");
    // The only live thread re-reads a flag: nobody else could write it, so
    // the re-reads do not count; the run ends at the step bound.
    let mut ex = executor_args(&prog, &["spin-alone"]);
    let out = ex.run(&request(&[])).expect("run");
    assert_eq!(out.status, RunStatus::StepLimit, "{}", dump(&out));
    // Main re-reads its loop bound 200 times (past the threshold of 50)
    // while another thread is alive, but initialises a mutex each time: the
    // count starts over, no livelock.
    let mut ex = executor_args(&prog, &["init-loop"]);
    let out = ex.run(&request(&[])).expect("run");
    assert_eq!(out.status, RunStatus::Exited, "{}", dump(&out));
    assert_eq!(out.termination, Termination::Exited(0), "{}", dump(&out));
    let loads = shape(&out.events)
        .iter()
        .filter(|e| **e == (0, OpKind::Load))
        .count();
    assert_eq!(loads, 201, "{}", dump(&out));
}

#[test]
fn read_modify_writes_that_change_nothing_are_reads() {
    let prog = compile_program("hooks.c");
    let mut ex = executor_args(&prog, &["rmw"]);
    let out = ex.run(&request(&[])).expect("run");
    assert_eq!(out.termination, Termination::Exited(0), "{}", dump(&out));
    let rmw: Vec<(u64, bool)> = out
        .events
        .iter()
        .filter(|e| e.kind == OpKind::AtomicRmw as u16)
        .map(|e| (e.site, EventFlags(e.flags).has(EventFlags::FAILED)))
        .collect();
    assert_eq!(
        rmw,
        [
            (11, true),
            (12, true),
            (13, true),
            (14, false),
            (15, false),
            (16, false),
            (17, false)
        ],
        "{}",
        dump(&out)
    );
}

#[test]
fn exchange_spin_is_parked_until_the_lock_is_released() {
    let prog = compile_program("hooks.c");
    let mut ex = executor_args(&prog, &["xchg-spin"]);
    let out = ex.run(&request(&[])).expect("run");
    assert_eq!(out.status, RunStatus::Exited, "{}", dump(&out));
    // Main's exchanges find the lock taken until it counts as spinning (the
    // threshold is 50), then the releaser runs and main's next one succeeds.
    let main_rmw: Vec<bool> = out
        .events
        .iter()
        .filter(|e| e.thread == 0 && e.kind == OpKind::AtomicRmw as u16)
        .map(|e| EventFlags(e.flags).has(EventFlags::FAILED))
        .collect();
    assert_eq!(main_rmw.len(), 52, "{}", dump(&out));
    assert!(main_rmw[..51].iter().all(|f| *f), "{}", dump(&out));
    assert!(!main_rmw[51], "{}", dump(&out));
    let store = shape(&out.events)
        .iter()
        .position(|e| *e == (1, OpKind::Store))
        .expect("the releaser's store");
    assert!(store > 51, "{}", dump(&out));
}

/// A waiter that yields on a flag the runtime cannot see (plain clang):
/// the runtime holds it back once it yields again without progress, and
/// any step of another thread releases it.
const YIELD_WAITER: &str = r#"
#include <pthread.h>
#include <sched.h>
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static volatile int flag;
static void *setter(void *arg) {
    (void)arg;
    pthread_mutex_lock(&m);
    flag = 1;
    pthread_mutex_unlock(&m);
    return 0;
}
int main(void) {
    pthread_t t;
    pthread_create(&t, 0, setter, 0);
    while (!flag)
        sched_yield();
    pthread_join(t, 0);
    return 0;
}
"#;

/// A prefix step that runs a thread the runtime holds back as a spinner
/// is taken; if that thread is then held back again at the same operation
/// before it made progress, the step added one spin iteration and nothing
/// else: under `drop_respin` the execution ends sleep-blocked, without it
/// the thread waits as held and the execution ends normally.
#[test]
fn a_forced_spinner_held_again_is_dropped_under_drop_respin() {
    let prog = compile("yield_waiter", YIELD_WAITER);
    let config = |drop_respin| reach_native::exec::ExecConfig {
        drop_respin,
        ..config_full(&prog, &[], 10_000, std::time::Duration::from_secs(20))
    };
    let mut free = reach_native::exec::Executor::new(config(false)).expect("executor");
    let out = free.run(&request(&[])).expect("run");
    assert_eq!(out.status, RunStatus::Exited, "{}", dump(&out));
    // The first step of the setter: main was held back there, yielding.
    let setter_at = out
        .events
        .iter()
        .position(|e| e.thread == 1)
        .expect("the setter runs");
    let held: Vec<u32> = out.events[..setter_at].iter().map(|e| e.thread).collect();
    assert!(
        held.iter().all(|&t| t == 0) && setter_at >= 2,
        "{}",
        dump(&out)
    );
    let mut forced = held.clone();
    forced.push(0);
    for drop_respin in [false, true] {
        let mut ex = reach_native::exec::Executor::new(config(drop_respin)).expect("executor");
        let out = ex.run(&request(&forced)).expect("run");
        if drop_respin {
            assert_eq!(out.status, RunStatus::SleepBlocked, "{}", dump(&out));
            assert_eq!(out.events.len(), forced.len(), "{}", dump(&out));
        } else {
            assert_eq!(out.status, RunStatus::Exited, "{}", dump(&out));
            assert!(out.events.len() > forced.len(), "{}", dump(&out));
        }
    }
}
