//! Robustness: timeouts, crashes, many threads, a scribbled channel, fork,
//! bad configurations, chatty programs.

use crate::exec_support;

use exec_support::*;
use reach_channel::{OpKind, RunStatus};
use reach_native::exec::{ExecConfig, ExecError, Executor, Termination, OUTPUT_LIMIT};
use std::time::Duration;

fn alive(pid: i32) -> bool {
    // SAFETY: signal 0 only checks for existence.
    unsafe { libc::kill(pid, 0) == 0 }
}

#[test]
fn timeout_kills_the_whole_group() {
    let prog = compile_program("robust.c");
    let mut ex = executor_full(&prog, &["hang"], 1000, Duration::from_millis(1500));
    let out = ex.run(&request(&[])).expect("run");
    assert_eq!(out.termination, Termination::TimedOut, "{}", dump(&out));
    assert_eq!(out.status, RunStatus::Running);
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    let pids: Vec<i32> = text
        .split_whitespace()
        .map(|p| p.parse().expect("pid"))
        .collect();
    assert_eq!(pids.len(), 2, "{text}");
    // The leader was reaped and the forked child killed (it may linger as a
    // zombie of init for a moment: wait for it to disappear).
    assert!(!alive(pids[0]));
    let mut gone = false;
    for _ in 0..200 {
        // SAFETY: signal 0 to the (former) group only checks for existence.
        if !alive(pids[1]) && unsafe { libc::kill(-pids[0], 0) } != 0 {
            gone = true;
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(gone, "a process of the group survived");
}

#[test]
fn timeout_blames_the_thread_that_never_yields() {
    let prog = compile_program("robust.c");
    let mut ex = executor_full(&prog, &["child-hang"], 1000, Duration::from_millis(800));
    let out = ex.run(&request(&[])).expect("run");
    assert_eq!(out.termination, Termination::TimedOut, "{}", dump(&out));
    assert_eq!(out.culprit.map(|c| c.0), Some(1), "{}", dump(&out));
}

#[test]
fn segfault_is_a_signal() {
    let prog = compile_program("robust.c");
    let mut ex = executor_args(&prog, &["segv"]);
    let out = ex.run(&request(&[])).expect("run");
    assert_eq!(out.termination, Termination::Signaled(11), "{}", dump(&out));
    assert_eq!(out.status, RunStatus::Running);
    assert_eq!(out.culprit.map(|c| c.0), Some(0));
}

#[test]
fn two_hundred_threads() {
    let prog = compile_program("robust.c");
    let mut ex = executor_full(&prog, &["many"], 100_000, Duration::from_secs(60));
    let out = ex.run(&request(&[])).expect("run");
    assert_eq!(out.termination, Termination::Exited(0), "{}", out.message);
    assert_eq!(out.status, RunStatus::Exited);
    assert_eq!(out.threads.len(), 201);
    let creates = out
        .events
        .iter()
        .filter(|e| e.kind == OpKind::ThreadCreate as u16)
        .count();
    assert_eq!(creates, 200);
}

#[test]
fn too_many_threads_is_unsupported() {
    let prog = compile_program("robust.c");
    let mut ex = executor_full(&prog, &["too-many"], 100_000, Duration::from_secs(60));
    let out = ex.run(&request(&[])).expect("run");
    assert_eq!(out.status, RunStatus::Unsupported, "{}", out.message);
    assert!(
        out.message.contains("more than 256 threads"),
        "{}",
        out.message
    );
}

#[test]
fn scribbled_channel_is_a_clean_error() {
    let prog = compile_program("robust.c");
    for mode in ["scribble", "scribble-events"] {
        let mut ex = executor_args(&prog, &[mode]);
        match ex.run(&request(&[])) {
            Err(e @ (ExecError::Channel(_) | ExecError::CorruptChannel(_))) => {
                assert!(
                    e.to_string().contains("corrupted the control channel"),
                    "{e}"
                );
            }
            Ok(out) => panic!("{mode}: expected a channel error, got {}", dump(&out)),
            Err(e) => panic!("{mode}: unexpected error {e}"),
        }
        // The executor is still usable afterwards.
        let mut ex = executor_args(&prog, &["heap"]);
        let out = ex.run(&request(&[])).expect("run after scribble");
        assert_eq!(out.status, RunStatus::Exited);
    }
}

#[test]
fn fork_child_is_not_controlled() {
    let prog = compile_program("robust.c");
    let mut ex = executor_args(&prog, &["fork"]);
    let out = ex.run(&request(&[])).expect("run");
    assert_eq!(out.termination, Termination::Exited(0), "{}", dump(&out));
    assert_eq!(out.status, RunStatus::Exited);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("child done") && text.contains("child exit 5"),
        "{text}"
    );
    // Only the parent's two threads appear in the trace.
    assert_eq!(out.threads.len(), 2);
    assert!(out.events.iter().all(|e| e.thread < 2));
}

#[test]
fn step_bound_ends_the_run() {
    let prog = compile_program("robust.c");
    let mut ex = executor_full(&prog, &["busy"], 500, Duration::from_secs(20));
    let out = ex.run(&request(&[])).expect("run");
    assert_eq!(out.status, RunStatus::StepLimit, "{}", out.message);
    assert_eq!(out.events.len(), 500);
}

/// An executor without step bound recording `record` events of `long`.
fn long_executor(record: u64, fork_server: bool) -> Executor {
    Executor::new(ExecConfig {
        program: compile_program("robust.c"),
        args: vec!["long".into()],
        runtime: runtime(),
        timeout: Duration::from_secs(20),
        max_steps: None,
        record_steps: record,
        spin_threshold: 50,
        fork_server,
        persistent: false,
        exit_cuts_threads: false,
        commute_rmws: false,
        memory_model: Default::default(),
        await_retries: false,
        awaits_off: false,
        drop_held: false,
        drop_respin: false,
        user_threads: false,
        symbolic_args: false,
        symbolic_stdin: 0,
        trace_shared: false,
        private_accesses: false,
        env_layout: Default::default(),
        isolate: None,
    })
    .expect("executor")
}

#[test]
fn recording_bound_truncates_the_trace_not_the_execution() {
    for fork_server in [false, true] {
        let mut whole = long_executor(10_000, fork_server);
        let all = whole.run(&request(&[])).expect("run");
        assert_eq!(all.termination, Termination::Exited(0), "{}", all.message);
        assert_eq!(all.events.len(), 2005);
        assert_eq!(all.steps, 2005);
        assert!(all.cut.is_none());

        let mut cut = long_executor(100, fork_server);
        let out = cut.run(&request(&[])).expect("run");
        assert_eq!(out.status, RunStatus::Exited, "{}", out.message);
        assert_eq!(out.termination, Termination::Exited(0));
        assert_eq!(out.steps, 2005, "every step ran");
        assert_eq!(out.events, all.events[..100], "the same first steps");
        // Where recording stopped: main waits to join thread 1, which is
        // in its loop; thread 2 has not run yet.
        let slots = out.cut.as_ref().expect("cut slots");
        assert_eq!(slots.len(), 3);
        assert_eq!(
            OpKind::from_u16(slots[0].pending_kind),
            Some(OpKind::ThreadJoin)
        );
        assert_eq!(slots[0].enabled, 0);
        assert_eq!(slots[2].steps, 0);
        assert_eq!(
            OpKind::from_u16(slots[2].pending_kind),
            Some(OpKind::MutexLock)
        );
        let next = all.events[100];
        assert_eq!(slots[next.thread as usize].pending_kind, next.kind);
        // Final states are those at the end, not at the cut.
        assert!(
            out.threads[1..].iter().all(|t| t.state == 3),
            "workers finished"
        );
        let trace = reach_native::trace::Trace::from_outcome(&out);
        assert!(trace.truncated);
        assert_eq!(trace.total_steps, 2005);
        assert_eq!(
            trace.final_pending[0].map(|(op, _)| op.kind),
            Some(OpKind::ThreadJoin)
        );

        // The recorded prefix replays the whole execution.
        let schedule: Vec<u32> = out.events.iter().map(|e| e.thread).collect();
        let again = whole.run(&request(&schedule)).expect("replay");
        assert_eq!(again.events, all.events);
    }
}

#[test]
fn step_bound_counts_unrecorded_steps() {
    let mut ex = Executor::new(ExecConfig {
        max_steps: Some(1500),
        ..long_executor(100, false).config().clone()
    })
    .expect("executor");
    let out = ex.run(&request(&[])).expect("run");
    assert_eq!(out.status, RunStatus::StepLimit, "{}", out.message);
    assert_eq!(out.steps, 1500);
    assert_eq!(out.events.len(), 100);
    assert!(out.message.contains("1500"), "{}", out.message);
}

#[test]
fn chatty_output_is_bounded() {
    let prog = compile_program("robust.c");
    let mut ex = executor_args(&prog, &["chatty"]);
    let out = ex.run(&request(&[])).expect("run");
    assert_eq!(out.termination, Termination::Exited(0));
    assert_eq!(out.stdout.len(), OUTPUT_LIMIT);
}

#[test]
fn bad_configurations_are_clear_errors() {
    let base = ExecConfig {
        program: "/nonexistent/program".into(),
        args: vec![],
        runtime: runtime(),
        timeout: Duration::from_secs(1),
        max_steps: Some(10),
        record_steps: 10,
        spin_threshold: 0,
        fork_server: false,
        persistent: false,
        exit_cuts_threads: false,
        commute_rmws: false,
        memory_model: Default::default(),
        await_retries: false,
        awaits_off: false,
        drop_held: false,
        drop_respin: false,
        user_threads: false,
        symbolic_args: false,
        symbolic_stdin: 0,
        trace_shared: false,
        private_accesses: false,
        env_layout: Default::default(),
        isolate: None,
    };
    let err = Executor::new(base.clone()).err().expect("missing program");
    assert!(matches!(err, ExecError::ProgramMissing(_)), "{err}");
    let dir = scratch("notexec");
    let file = dir.join("data.txt");
    std::fs::write(&file, "not a program").expect("write");
    let err = Executor::new(ExecConfig {
        program: file,
        ..base.clone()
    })
    .err()
    .expect("not executable");
    assert!(matches!(err, ExecError::NotExecutable(_)), "{err}");
    let err = Executor::new(ExecConfig {
        program: "/bin/true".into(),
        runtime: "/nonexistent/libreach_runtime.so".into(),
        ..base
    })
    .err()
    .expect("runtime missing");
    assert!(matches!(err, ExecError::RuntimeMissing(_)), "{err}");
}

#[test]
fn uncontrolled_program_runs_passively_outside_the_executor() {
    // Preloading the runtime without a channel changes nothing.
    let prog = compile_program("mutex_two.c");
    let out = std::process::Command::new(&prog)
        .env("LD_PRELOAD", runtime())
        .env_remove("REACH_CHANNEL_FD")
        .output()
        .expect("run");
    assert!(out.status.success());
    assert_eq!(out.stdout, b"counter=2\n");
}
