//! Basic executions: traces, enabled sets, exit codes, determinism.

use crate::exec_support;

use exec_support::*;
use reach_channel::RunStatus;
use reach_native::exec::Termination;

#[test]
fn two_workers_lowest_policy_trace() {
    let prog = compile_program("mutex_two.c");
    let mut ex = executor(&prog);
    let out = ex.run(&request(&[])).expect("run");
    assert_eq!(out.status, RunStatus::Exited, "{}", dump(&out));
    assert_eq!(out.termination, Termination::Exited(0), "{}", dump(&out));
    assert_eq!(out.stdout, b"counter=2\n");
    println!("{}", dump(&out));
}
