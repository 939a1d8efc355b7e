//! Micro-benchmark of the executor, used by `scripts/bench.sh`.
//!
//! `exec_cost per-exec PROGRAM RUNS [fork-server|exec|persistent|user-threads|all]`:
//! median wall time of one execution of PROGRAM (default schedule), with the
//! fork server and with exec (or only the mode named; `all`: exec, fork
//! server, persistent worker, and persistent worker with user-level
//! threads), in µs.
//!
//! `exec_cost switch PROGRAM [ARGS...]`: cost of one thread switch: the same
//! execution under the "continue the current thread" policy (few switches)
//! and under the random policy (a switch about every other step); the
//! difference in time over the difference in switches, in µs. With
//! `EXEC_COST_USER_THREADS` set, the threads are user-level contexts (a
//! switch is a context switch, not a futex hand-off).
//!
//! `exec_cost compare RUNS PROGRAM_A PROGRAM_B`: two fork servers, the
//! environment variables in `EXEC_COST_ENV_A` / `EXEC_COST_ENV_B`
//! (`NAME=VALUE,...`, e.g. `REACH_RUNTIME=` another build's runtime) set for
//! the start of the first / the second only; their executions alternate one
//! by one, so both see the same machine. Prints both medians and the median
//! of the per-pair ratios B/A.
//!
//! Binds itself, the fork server and the executions to one CPU as
//! `reach-native` does, unless `EXEC_COST_NO_PIN` is set.
//!
//! Needs `REACH_RUNTIME` or the runtime library next to this executable's
//! parent directory (`target/release/libreach_runtime.so`).

use reach_channel::{Policy, ThreadSet};
use reach_native::exec::{ExecConfig, Executor, Request};
use std::path::PathBuf;
use std::time::{Duration, Instant};

fn runtime() -> PathBuf {
    if let Some(p) = std::env::var_os("REACH_RUNTIME") {
        return PathBuf::from(p);
    }
    let exe = std::env::current_exe().unwrap_or_default();
    let release = exe
        .parent()
        .and_then(|examples| examples.parent())
        .map(PathBuf::from)
        .unwrap_or_default();
    release.join("libreach_runtime.so")
}

fn executor(program: &str, args: &[String], fork_server: bool) -> Executor {
    let user_threads = std::env::var_os("EXEC_COST_USER_THREADS").is_some();
    executor_mode(program, args, fork_server, user_threads, user_threads)
}

/// An executor in one of the modes (exec; fork server; persistent;
/// persistent with user-level threads).
fn executor_mode(
    program: &str,
    args: &[String],
    fork_server: bool,
    persistent: bool,
    user_threads: bool,
) -> Executor {
    let config = ExecConfig {
        program: program.into(),
        args: args.iter().map(Into::into).collect(),
        runtime: runtime(),
        timeout: Duration::from_secs(60),
        max_steps: None,
        record_steps: 1_000_000,
        spin_threshold: 64,
        fork_server,
        persistent,
        exit_cuts_threads: false,
        commute_rmws: false,
        memory_model: Default::default(),
        await_retries: false,
        awaits_off: false,
        drop_held: false,
        drop_respin: false,
        user_threads,
        symbolic_args: false,
        symbolic_stdin: 0,
        trace_shared: false,
        private_accesses: false,
        env_layout: Default::default(),
        isolate: None,
    };
    match Executor::new(config) {
        Ok(e) => e,
        Err(e) => {
            eprintln!("exec_cost: {e}");
            std::process::exit(2);
        }
    }
}

fn request(policy: Policy) -> Request {
    Request {
        prefix: Vec::new(),
        policy,
        seed: 12345,
        sleep_set: ThreadSet::EMPTY,
        sleep_sets: false,
        change_points: Vec::new(),
        inputs: Vec::new(),
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(0.0)
}

/// Median µs per execution over `runs` executions (after a warm-up).
fn per_exec(ex: &mut Executor, runs: usize, policy: Policy) -> (f64, usize, usize) {
    let req = request(policy);
    let mut last = (0, 0);
    let mut times = Vec::with_capacity(runs);
    for i in 0..runs + 3 {
        let t = Instant::now();
        let out = match ex.run(&req) {
            Ok(o) => o,
            Err(e) => {
                eprintln!("exec_cost: {e}");
                std::process::exit(2);
            }
        };
        let dt = t.elapsed().as_secs_f64() * 1e6;
        if i >= 3 {
            times.push(dt);
        }
        let switches = out
            .events
            .windows(2)
            .filter(|w| w[0].thread != w[1].thread)
            .count();
        last = (out.events.len(), switches);
    }
    (median(times), last.0, last.1)
}

/// A fork-server executor for `program` started with `env` (`NAME=VALUE,...`)
/// added to this process's environment for the time of its start.
fn executor_with_env(program: &str, env: &str) -> Executor {
    let pairs: Vec<(&str, &str)> = env.split(',').filter_map(|kv| kv.split_once('=')).collect();
    let saved: Vec<_> = pairs.iter().map(|(k, _)| std::env::var_os(k)).collect();
    for (k, v) in &pairs {
        // SAFETY: this program is single-threaded.
        unsafe { std::env::set_var(k, v) };
    }
    let mut ex = executor(program, &[], true);
    if let Err(e) = ex.run(&request(Policy::ContinueThenLowest)) {
        eprintln!("exec_cost: {e}");
        std::process::exit(2);
    }
    for ((k, _), old) in pairs.iter().zip(saved) {
        // SAFETY: this program is single-threaded.
        match old {
            Some(v) => unsafe { std::env::set_var(k, v) },
            None => unsafe { std::env::remove_var(k) },
        }
    }
    ex
}

/// Alternates executions of `a` and `b` (`runs` pairs, the order flipped
/// every pair): the times of each and the per-pair ratios b/a.
fn compare(a: &mut Executor, b: &mut Executor, runs: usize) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
    let req = request(Policy::ContinueThenLowest);
    let time = |ex: &mut Executor| {
        let t = Instant::now();
        if let Err(e) = ex.run(&req) {
            eprintln!("exec_cost: {e}");
            std::process::exit(2);
        }
        t.elapsed().as_secs_f64() * 1e6
    };
    let (mut ta, mut tb, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
    for i in 0..runs {
        let (x, y) = if i % 2 == 0 {
            let x = time(a);
            (x, time(b))
        } else {
            let y = time(b);
            (time(a), y)
        };
        ta.push(x);
        tb.push(y);
        ratios.push(y / x);
    }
    (ta, tb, ratios)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    // Placed as `reach-native` places its executor, unless told otherwise.
    if std::env::var_os("EXEC_COST_NO_PIN").is_none() {
        reach_native::affinity::bind_current_thread(&reach_native::affinity::placement(), 0);
    }
    match args.first().map(String::as_str) {
        Some("per-exec") if args.len() >= 3 => {
            let runs: usize = args[2].parse().unwrap_or(200);
            let modes: &[(bool, bool, bool)] = match args.get(3).map(String::as_str) {
                Some("fork-server") => &[(true, false, false)],
                Some("exec") => &[(false, false, false)],
                Some("persistent") => &[(true, true, false)],
                Some("user-threads") => &[(true, true, true)],
                Some("all") => &[
                    (false, false, false),
                    (true, false, false),
                    (true, true, false),
                    (true, true, true),
                ],
                _ => &[(true, false, false), (false, false, false)],
            };
            for &(fork, persistent, user_threads) in modes {
                let mut ex = executor_mode(&args[1], &[], fork, persistent, user_threads);
                let (us, steps, _) = per_exec(&mut ex, runs, Policy::ContinueThenLowest);
                let mode = match (fork, persistent, user_threads) {
                    (true, true, true) => "user_threads",
                    (true, true, false) => "persistent",
                    (true, false, _) => "fork_server",
                    _ => "exec",
                };
                println!("per_exec_us {mode} {us:.1} steps {steps}");
                if let Some(note) = ex.persistent_note() {
                    println!("note {note}");
                }
                if let Some(note) = ex.user_threads_note() {
                    println!("note {note}");
                }
            }
        }
        Some("compare") if args.len() >= 4 => {
            let runs: usize = args[1].parse().unwrap_or(2000);
            let env = |name| std::env::var(name).unwrap_or_default();
            let (env_a, env_b) = (env("EXEC_COST_ENV_A"), env("EXEC_COST_ENV_B"));
            let mut a = executor_with_env(&args[2], &env_a);
            let mut b = executor_with_env(&args[3], &env_b);
            let (ta, tb, ratios) = compare(&mut a, &mut b, runs);
            println!(
                "compare_us a {:.1} b {:.1} ratio_b_over_a {:.3}",
                median(ta),
                median(tb),
                median(ratios)
            );
        }
        Some("switch") if args.len() >= 2 => {
            let mut ex = executor(&args[1], &args[2..], true);
            let (t_few, steps_few, sw_few) = per_exec(&mut ex, 5, Policy::ContinueThenLowest);
            let (t_many, steps_many, sw_many) = per_exec(&mut ex, 5, Policy::Random);
            let per_switch = (t_many - t_few) / (sw_many.saturating_sub(sw_few).max(1) as f64);
            let per_step = t_few / steps_few.max(1) as f64;
            println!(
                "switch_us {per_switch:.2} step_us {per_step:.3} steps {steps_few}/{steps_many} switches {sw_few}/{sw_many} exec_us {t_few:.0}/{t_many:.0}"
            );
        }
        _ => {
            eprintln!(
                "usage: exec_cost per-exec PROGRAM RUNS [fork-server|exec|persistent|user-threads|all] | exec_cost switch PROGRAM [ARGS...] | exec_cost compare RUNS PROGRAM_A PROGRAM_B"
            );
            std::process::exit(2);
        }
    }
}
