//! Shared helpers of the executor tests: build the runtime, compile small C
//! programs with plain clang, and run them under hand-written requests.
#![allow(dead_code)]

use reach_channel::{Event, OpKind, Policy, ThreadSet};
use reach_native::exec::{ExecConfig, Executor, Outcome, Request};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::Duration;

/// Workspace root.
pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("driver has a parent")
        .to_path_buf()
}

/// Builds (if needed) and returns the runtime library.
pub fn runtime() -> PathBuf {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT
        .get_or_init(|| {
            let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
            let status = Command::new(cargo)
                .args(["build", "--release", "-p", "reach-runtime"])
                .current_dir(workspace())
                .status()
                .expect("run cargo");
            assert!(status.success(), "building the runtime failed");
            let target = std::env::var_os("CARGO_TARGET_DIR")
                .map(PathBuf::from)
                .unwrap_or_else(|| workspace().join("target"));
            let so = target.join("release/libreach_runtime.so");
            assert!(so.is_file(), "{} missing", so.display());
            so
        })
        .clone()
}

/// A fresh scratch directory for one test.
pub fn scratch(name: &str) -> PathBuf {
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!(
        "reach-exec-tests-{}/{name}-{n}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create scratch dir");
    dir
}

/// Compiles C source `src` with `clang-22 -pthread -g` into a program.
pub fn compile(name: &str, src: &str) -> PathBuf {
    let dir = scratch(name);
    let c = dir.join(format!("{name}.c"));
    std::fs::write(&c, src).expect("write source");
    let exe = dir.join(name);
    let out = Command::new("clang-22")
        .args(["-pthread", "-g", "-O0", "-o"])
        .arg(&exe)
        .arg(&c)
        .output()
        .expect("run clang-22");
    assert!(
        out.status.success(),
        "compiling {name} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    exe
}

/// Compiles `runtime/tests/programs/<file>`.
pub fn compile_program(file: &str) -> PathBuf {
    let path = workspace().join("runtime/tests/programs").join(file);
    let src = std::fs::read_to_string(&path).expect("read test program");
    compile(file.trim_end_matches(".c"), &src)
}

/// An executor for `program` with test defaults.
pub fn executor(program: &Path) -> Executor {
    executor_with(program, 10_000, Duration::from_secs(20))
}

/// An executor running `program` with arguments `args`.
pub fn executor_args(program: &Path, args: &[&str]) -> Executor {
    let mut ex = executor_full(program, args, 10_000, Duration::from_secs(20));
    let _ = &mut ex;
    ex
}

/// An executor with the given step bound and timeout.
pub fn executor_with(program: &Path, max_steps: u64, timeout: Duration) -> Executor {
    executor_full(program, &[], max_steps, timeout)
}

/// An executor with every test knob.
pub fn executor_full(program: &Path, args: &[&str], max_steps: u64, timeout: Duration) -> Executor {
    Executor::new(config_full(program, args, max_steps, timeout)).expect("executor")
}

/// The configuration of [`executor_full`], for a test that changes more.
pub fn config_full(program: &Path, args: &[&str], max_steps: u64, timeout: Duration) -> ExecConfig {
    ExecConfig {
        program: program.to_path_buf(),
        args: args.iter().map(Into::into).collect(),
        runtime: runtime(),
        timeout,
        max_steps: Some(max_steps),
        record_steps: max_steps,
        spin_threshold: 50,
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
    }
}

/// A request following `prefix`, then the lowest-thread policy.
pub fn request(prefix: &[u32]) -> Request {
    Request {
        prefix: prefix.to_vec(),
        policy: Policy::ContinueThenLowest,
        seed: 0,
        sleep_set: ThreadSet::EMPTY,
        sleep_sets: false,
        change_points: Vec::new(),
        inputs: Vec::new(),
    }
}

/// The (thread, kind) sequence of a trace.
pub fn shape(events: &[Event]) -> Vec<(u32, OpKind)> {
    events
        .iter()
        .map(|e| (e.thread, OpKind::from_u16(e.kind).expect("validated kind")))
        .collect()
}

/// The (thread, kind) sequence without memory accesses of uninstrumented code.
pub fn kinds_of(out: &Outcome, thread: u32) -> Vec<OpKind> {
    shape(&out.events)
        .into_iter()
        .filter(|(t, _)| *t == thread)
        .map(|(_, k)| k)
        .collect()
}

/// Prints an outcome for failing assertions.
pub fn dump(out: &Outcome) -> String {
    let mut s = format!(
        "status {:?} term {:?} msg {:?}\nstdout {:?}\nstderr {:?}\n",
        out.status,
        out.termination,
        out.message,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    for (i, e) in out.events.iter().enumerate() {
        let k = OpKind::from_u16(e.kind).map_or("?", |k| k.name());
        let en: Vec<u32> = e.enabled.iter().collect();
        s += &format!(
            "{i:4} t{} {k} obj={:#x} aux={} flags={} enabled={en:?}\n",
            e.thread, e.object, e.aux, e.flags
        );
    }
    s
}
