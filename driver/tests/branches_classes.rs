//! Branch-directed exploration against the complete search, by
//! race-equivalence class (Setiadi et al., Sec. 4.1: the set of access
//! manners of every thread): every class of executions the complete search
//! (`optimal`, one execution per partial order) reaches is reached by
//! `branches` too, on the programs built for it.

use crate::exec_support;

use exec_support::{runtime, scratch, workspace};
use reach_native::bug::{BugPolicy, RaceDetector};
use reach_native::exec::{ExecConfig, Executor, Request};
use reach_native::explore::{explore, ExploreOptions};
use reach_native::strategy::branches::manners::race_class;
use reach_native::strategy::branches::BranchDirected;
use reach_native::strategy::optimal::OptimalDpor;
use reach_native::strategy::{Divergence, Strategy};
use reach_native::trace::Trace;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

/// A strategy that notes the race-equivalence class of every execution.
struct Classes<S> {
    inner: S,
    seen: BTreeSet<u64>,
}

impl<S: Strategy> Strategy for Classes<S> {
    fn name(&self) -> &'static str {
        self.inner.name()
    }
    fn next_request(&mut self) -> Option<Request> {
        self.inner.next_request()
    }
    fn observe(&mut self, request: &Request, trace: &Trace) -> Result<(), Divergence> {
        self.seen.insert(race_class(trace));
        self.inner.observe(request, trace)
    }
}

/// `c-examples/<file>` built with traced data flow.
fn traced(file: &str) -> PathBuf {
    let out = scratch(file).join(file.trim_end_matches(".c"));
    let status = Command::new(workspace().join("target/release/reach-cc"))
        .env("REACH_SYMBOLIC", "1")
        .args(["-O1", "-g"])
        .arg(workspace().join("c-examples").join(file))
        .arg("-o")
        .arg(&out)
        .status()
        .expect("run reach-cc");
    assert!(status.success(), "building {file}");
    out
}

fn classes(program: &Path, strategy: impl Strategy, trace_shared: bool) -> (BTreeSet<u64>, u64) {
    let mut executor = Executor::new(ExecConfig {
        program: program.to_path_buf(),
        args: Vec::new(),
        runtime: runtime(),
        timeout: Duration::from_secs(20),
        max_steps: Some(100_000),
        record_steps: 100_000,
        spin_threshold: 50,
        fork_server: true,
        persistent: true,
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
        trace_shared,
        private_accesses: false,
        env_layout: Default::default(),
        isolate: None,
    })
    .expect("executor");
    let options = ExploreOptions {
        max_executions: Some(20_000),
        max_time: None,
        keep_going: true,
        bug_policy: BugPolicy {
            data_races: false,
            exit_code_is_bug: false,
            race_detector: RaceDetector::Hb,
        },
        count_partial_orders: false,
        interrupt: Arc::new(AtomicBool::new(false)),
        record: None,
        recheck: None,
        random_share: None,
    };
    let mut wrapped = Classes {
        inner: strategy,
        seen: BTreeSet::new(),
    };
    let summary = explore(&mut executor, &mut wrapped, &options, &mut |_| {});
    (wrapped.seen, summary.executions)
}

#[test]
fn branches_reach_every_race_equivalence_class_of_the_complete_search() {
    for file in [
        "branch_pool.c",
        "branch_free.c",
        "branch_flag_loop.c",
        "oracle_check_then_act.c",
        "oracle_two_writers_reader.c",
        "oracle_rare_order.c",
        "dining_philosophers.c",
    ] {
        let program = traced(file);
        let (all, complete) = classes(&program, OptimalDpor::new(), false);
        let (found, branches) = classes(&program, BranchDirected::new(), true);
        eprintln!(
            "{file}: optimal {complete} executions, {} classes; branches {branches} executions, {} classes",
            all.len(),
            found.len()
        );
        assert!(
            all.is_subset(&found),
            "{file}: branches missed {} of the {} race-equivalence classes",
            all.difference(&found).count(),
            all.len()
        );
    }
}
