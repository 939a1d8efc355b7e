//! The fork server gives exactly the results of exec per execution: the same
//! requests, traces (with object addresses), outcomes and output, on several
//! examples; and it stays correct with static constructors, arguments,
//! stdin, files, crashes, timeouts, and a killed server or driver.

use crate::exec_support;

use exec_support::*;
use reach_channel::RunStatus;
use reach_native::bug::BugPolicy;
use reach_native::exec::{ExecConfig, Executor, Outcome, Request, Termination};
use reach_native::explore::{explore, ExploreOptions};
use reach_native::strategy::dpor::Dpor;
use reach_native::strategy::exhaustive::Exhaustive;
use reach_native::strategy::Strategy;
use reach_native::trace::Trace;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

/// Builds `c-examples/<file>` (or a source file) with the release compiler wrapper.
fn build(source: &Path, name: &str) -> PathBuf {
    let bin = workspace().join("target/release");
    let cxx = source.extension().is_some_and(|e| e == "cpp");
    let wrapper = bin.join(if cxx { "reach-cxx" } else { "reach-cc" });
    assert!(
        wrapper.exists(),
        "{} missing: run `cargo build --release --workspace` first",
        wrapper.display()
    );
    let out = scratch(name).join(name);
    let st = Command::new(&wrapper)
        .args(["-O1", "-g"])
        .arg(source)
        .arg("-o")
        .arg(&out)
        .status()
        .expect("run the compiler wrapper");
    assert!(st.success(), "building {name} failed");
    out
}

/// Writes `text` as `<name>.c` in a scratch directory and builds it.
fn build_source(name: &str, text: &str) -> PathBuf {
    let src = scratch(&format!("{name}-src")).join(format!("{name}.c"));
    std::fs::write(&src, text).expect("write source");
    build(&src, name)
}

fn example(file: &str) -> PathBuf {
    let stem = file.split('.').next().unwrap_or(file);
    build(&workspace().join("c-examples").join(file), stem)
}

fn config(program: &Path, args: &[&str], fork_server: bool) -> ExecConfig {
    ExecConfig {
        program: program.to_path_buf(),
        args: args.iter().map(Into::into).collect(),
        runtime: runtime(),
        timeout: Duration::from_secs(20),
        max_steps: Some(20_000),
        record_steps: 20_000,
        spin_threshold: 64,
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
    }
}

/// Everything observable about one execution.
#[derive(Debug, PartialEq)]
struct Seen {
    request: Request,
    status: RunStatus,
    termination: Termination,
    events: Vec<(u32, u16, u16, u64, u64, u64)>,
    message: String,
    stdout: Vec<u8>,
    stderr: Vec<u8>,
}

fn seen(request: &Request, out: &Outcome) -> Seen {
    Seen {
        request: request.clone(),
        status: out.status,
        termination: out.termination,
        events: out
            .events
            .iter()
            .map(|e| (e.thread, e.kind, e.flags, e.site, e.object, e.aux))
            .collect(),
        message: out.message.clone(),
        stdout: out.stdout.clone(),
        stderr: out.stderr.clone(),
    }
}

/// Runs a whole exploration, recording every execution.
fn record(
    program: &Path,
    args: &[&str],
    fork_server: bool,
    strategy: &mut dyn Strategy,
    limit: usize,
) -> (Vec<Seen>, bool) {
    let mut ex = Executor::new(config(program, args, fork_server)).expect("executor");
    let mut all = Vec::new();
    while all.len() < limit {
        let Some(req) = strategy.next_request() else {
            break;
        };
        let out = ex.run(&req).expect("run");
        let trace = Trace::from_outcome(&out);
        strategy.observe(&req, &trace).expect("no divergence");
        all.push(seen(&req, &out));
    }
    (all, ex.fork_server_running())
}

fn same_runs(program: &Path, args: &[&str], limit: usize) {
    for exhaustive in [false, true] {
        let mk = || -> Box<dyn Strategy> {
            if exhaustive {
                Box::new(Exhaustive::default())
            } else {
                Box::new(Dpor::new(true))
            }
        };
        let (by_exec, _) = record(program, args, false, mk().as_mut(), limit);
        let (by_fork, served) = record(program, args, true, mk().as_mut(), limit);
        assert!(served, "{}: the fork server did not run", program.display());
        assert!(!by_exec.is_empty());
        assert_eq!(by_exec.len(), by_fork.len(), "{}", program.display());
        for (i, (a, b)) in by_exec.iter().zip(&by_fork).enumerate() {
            assert_eq!(a, b, "{}: execution {i} differs", program.display());
        }
    }
}

#[test]
fn same_executions_on_examples() {
    for file in [
        "dining_philosophers.c",
        "bounded_buffer.c",
        "indexer.c",
        "racy_counter.c",
        "oracle_condvar_signal.c",
        "prim_barrier.c",
        "crash_segfault.c",
        "cpp_thread_mutex.cpp",
        "misuse_double_join.c",
    ] {
        same_runs(&example(file), &[], 300);
    }
}

#[test]
fn same_summary_and_bugs_with_explore() {
    for file in ["dining_philosophers.c", "bounded_buffer.c", "lastzero.c"] {
        let prog = example(file);
        let mut results = Vec::new();
        for fork_server in [false, true] {
            let mut ex = Executor::new(config(&prog, &[], fork_server)).expect("executor");
            let options = ExploreOptions {
                max_executions: Some(2000),
                max_time: None,
                keep_going: true,
                bug_policy: BugPolicy {
                    data_races: true,
                    exit_code_is_bug: true,
                    race_detector: Default::default(),
                },
                count_partial_orders: true,
                interrupt: Arc::new(AtomicBool::new(false)),
                record: None,
                recheck: None,
                random_share: None,
            };
            let s = explore(&mut ex, &mut Dpor::new(true), &options, &mut |_| {});
            let mut bugs: Vec<String> = s.findings.iter().map(|f| f.signature.clone()).collect();
            bugs.sort();
            results.push((s.executions, s.sleep_blocked, s.fingerprints, bugs, s.stop));
        }
        assert_eq!(results[0], results[1], "{file}");
    }
}

const START_UP: &str = r#"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int shared;
int ctor_value;
static int runs_of_ctor;

__attribute__((constructor)) static void setup(void) {
    runs_of_ctor++;
    ctor_value = 41;
    shared = ctor_value + 1;
    printf("ctor ");
}

static void *worker(void *arg) {
    shared += (int)(long)arg;
    return NULL;
}

int main(int argc, char **argv) {
    char buf[16];
    ssize_t n = read(0, buf, sizeof buf);
    pthread_t t;
    pthread_create(&t, NULL, worker, (void *)2L);
    shared *= 2;
    pthread_join(t, NULL);
    if (argc > 2) {
        FILE *f = fopen(argv[2], "a");
        if (f) { fputs("x", f); fclose(f); }
    }
    printf("arg=%s stdin=%zd ctor=%d shared=%d\n", argc > 1 ? argv[1] : "-", n, runs_of_ctor, shared);
    return 0;
}
"#;

#[test]
fn constructors_arguments_stdin_and_files() {
    let prog = build_source("startup", START_UP);
    let file = scratch("startup-files").join("written.txt");
    let file_arg = file.to_string_lossy().to_string();
    same_runs(&prog, &["hello", &file_arg], 100);
    // Every execution sees the constructor's effects once, stdin at end of
    // file, and the argument.
    let mut ex = Executor::new(config(&prog, &["hello"], true)).expect("executor");
    let mut outputs = std::collections::BTreeSet::new();
    for prefix in [vec![], vec![0, 0, 0, 0, 0, 1]] {
        let out = ex.run(&request(&prefix)).expect("run");
        assert_eq!(out.status, RunStatus::Exited, "{}", dump(&out));
        outputs.insert(String::from_utf8_lossy(&out.stdout).to_string());
    }
    assert!(ex.fork_server_running());
    for o in &outputs {
        assert!(
            o.starts_with("ctor arg=hello stdin=0 ctor=1 shared="),
            "{o}"
        );
    }
    // Files written by the program are not reset: one "x" per execution of
    // both explorations above.
    let written = std::fs::read_to_string(&file).expect("file written");
    assert!(
        written.len() >= 4 && written.chars().all(|c| c == 'x'),
        "{written}"
    );
}

/// A program that uses every source of nondeterminism the runtime notes,
/// each on a line of its own (`// LINE name` marks it for the test).
const SOURCES: &str = r#"
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/times.h>
#include <time.h>
#include <unistd.h>

static int pipe_fds[2];
static atomic_int fired;

__attribute__((constructor)) static void early(void) {
  close(open("/dev/urandom", O_RDONLY)); // LINE urandom
}

static void on_timer(union sigval v) {
  (void)v;
  atomic_store(&fired, 1); // LINE foreign
  char c = 1;
  if (write(pipe_fds[1], &c, 1) != 1) abort();
}

static int cloned(void *arg) { (void)arg; return 0; }

int main(int argc, char **argv) {
  unsigned char b[4];
  struct tms t;
  struct rusage u;
  struct timespec ts;
  if (getentropy(b, sizeof b) != 0) return 2; // LINE getentropy
  b[0] ^= (unsigned char)arc4random(); // LINE arc4random
  (void)clock(); // LINE clock
  times(&t);
  getrusage(RUSAGE_SELF, &u);
  timespec_get(&ts, TIME_UTC); // LINE timespec_get
  syscall(SYS_getrandom, b, 1, 0); // LINE getrandom
  unsigned long long cycles = __builtin_ia32_rdtsc(); // LINE rdtsc
  close(open("/dev/random", O_RDONLY)); // LINE random
  fclose(fopen("/proc/self/stat", "r")); // LINE stat
  FILE *out = fopen(argv[1], "w"); // LINE written
  fputs("x", out);
  fclose(out);
  if (pipe(pipe_fds) != 0) return 2;
  timer_t timer;
  struct sigevent ev = {0};
  ev.sigev_notify = SIGEV_THREAD;
  ev.sigev_notify_function = on_timer;
  if (timer_create(CLOCK_MONOTONIC, &ev, &timer) != 0) return 2;
  struct itimerspec when = {0};
  when.it_value.tv_nsec = 1000000;
  timer_settime(timer, 0, &when, NULL);
  char c;
  if (read(pipe_fds[0], &c, 1) != 1) return 2;
  char *stack = malloc(1 << 16);
  clone(cloned, stack + (1 << 16), CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD | CLONE_SYSVSEM, NULL); // LINE clone
  return (int)(cycles & 0) + b[0] * 0 + atomic_load(&fired) - 1;
}
"#;

/// The line of `SOURCES` marked `// LINE name`.
fn line_of(name: &str) -> usize {
    SOURCES
        .lines()
        .position(|l| l.ends_with(&format!("// LINE {name}")))
        .unwrap_or_else(|| panic!("no line marked {name}"))
}

/// The runtime notes each source of nondeterminism an execution uses,
/// with the site of its first use (the call site instrumented code
/// announced, the instrumented access of a thread it did not create) and
/// the files the program opened; a constructor's use before `main`
/// counts in every execution of a fork server.
#[test]
fn sources_of_nondeterminism_are_noted_with_their_sites() {
    use reach_channel::sources::Source;
    let prog = build_source("sources", SOURCES);
    let binary = reach_native::binary::Binary::inspect(&prog).expect("inspect");
    let written = scratch("sources-files").join("written.txt");
    let written = written.to_string_lossy().to_string();
    for fork_server in [false, true] {
        let mut ex = Executor::new(config(&prog, &[&written], fork_server)).expect("executor");
        for _ in 0..2 {
            let out = ex.run(&request(&[])).expect("run");
            assert_eq!(out.termination, Termination::Exited(0), "{}", dump(&out));
            let seen = &out.sources;
            let at = |source: Source| {
                let site = seen.site_of(source).unwrap_or_else(|| {
                    panic!("{source:?} not noted (fork server {fork_server}): {seen:?}")
                });
                binary.location(site).unwrap_or_default()
            };
            for (source, line) in [
                (Source::DevUrandom, "urandom"),
                (Source::Getentropy, "getentropy"),
                (Source::Arc4random, "arc4random"),
                (Source::ProcessorTime, "clock"),
                (Source::RealTime, "timespec_get"),
                (Source::Getrandom, "getrandom"),
                (Source::CycleCounter, "rdtsc"),
                (Source::DevRandom, "random"),
                (Source::ForeignThread, "foreign"),
                (Source::RawClone, "clone"),
            ] {
                let place = at(source);
                assert!(
                    place.contains(&format!("sources.c:{}:", line_of(line) + 1)),
                    "{source:?} at {place} (fork server {fork_server})"
                );
            }
            assert_eq!(seen.site_of(Source::AddressRandomisation), None);
            let files: Vec<(&str, bool)> = seen
                .files
                .iter()
                .map(|f| (f.path.as_str(), f.writes))
                .collect();
            assert_eq!(
                files,
                vec![("/proc/self/stat", false), (written.as_str(), true)]
            );
            let stat = &seen.files[0];
            assert!(binary
                .location(stat.site)
                .unwrap_or_default()
                .contains(&format!("sources.c:{}:", line_of("stat") + 1)));
        }
    }
}

#[test]
fn timeout_kills_the_child_and_the_server_serves_on() {
    let prog = compile_program("robust.c");
    let mut cfg = config(&prog, &["hang"], true);
    cfg.timeout = Duration::from_millis(800);
    cfg.max_steps = Some(1000);
    let mut ex = Executor::new(cfg).expect("executor");
    for _ in 0..2 {
        let out = ex.run(&request(&[])).expect("run");
        assert_eq!(out.termination, Termination::TimedOut, "{}", dump(&out));
        assert!(ex.fork_server_running());
    }
}

#[test]
fn crash_is_the_outcome_and_the_server_survives() {
    let prog = compile_program("robust.c");
    let mut ex = Executor::new(config(&prog, &["segv"], true)).expect("executor");
    for _ in 0..3 {
        let out = ex.run(&request(&[])).expect("run");
        assert_eq!(out.termination, Termination::Signaled(11), "{}", dump(&out));
        assert!(ex.fork_server_running());
    }
}

#[test]
fn killed_server_is_restarted() {
    let prog = example("dining_philosophers.c");
    let mut ex = Executor::new(config(&prog, &[], true)).expect("executor");
    let first = ex.run(&request(&[])).expect("run");
    let server = server_pids(&prog);
    assert_eq!(server.len(), 1, "one server process: {server:?}");
    // SAFETY: killing the server process this test started.
    unsafe { libc::kill(server[0], libc::SIGKILL) };
    let again = ex
        .run(&request(&[]))
        .expect("run after the server was killed");
    assert_eq!(seen(&request(&[]), &first), seen(&request(&[]), &again));
    assert!(ex.fork_server_running());
    drop(ex);
    wait_gone(&prog);
}

#[test]
fn start_up_crash_falls_back_to_exec() {
    let src = r#"
#include <stdlib.h>
__attribute__((constructor)) static void boom(void) { abort(); }
int main(void) { return 0; }
"#;
    let prog = compile("ctor_abort", src);
    let mut ex = Executor::new(config(&prog, &[], true)).expect("executor");
    let out = ex.run(&request(&[])).expect("run");
    assert_eq!(out.termination, Termination::Signaled(6), "{}", dump(&out));
    assert!(ex.fork_server_note().is_some());
}

#[test]
fn start_up_past_the_recording_bound_falls_back_to_exec() {
    let src = r#"
#include <pthread.h>
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
__attribute__((constructor)) static void busy(void) {
    for (int i = 0; i < 100; i++) { pthread_mutex_lock(&m); pthread_mutex_unlock(&m); }
}
int main(void) { pthread_mutex_lock(&m); pthread_mutex_unlock(&m); return 0; }
"#;
    let prog = compile("ctor_long", src);
    let mut cfg = config(&prog, &[], true);
    cfg.record_steps = 50;
    let mut ex = Executor::new(cfg).expect("executor");
    let out = ex.run(&request(&[])).expect("run");
    assert_eq!(out.termination, Termination::Exited(0), "{}", dump(&out));
    assert_eq!((out.events.len(), out.steps), (50, 203));
    assert!(out.cut.is_some());
    let note = ex.fork_server_note().unwrap_or_default();
    assert!(note.contains("recording bound"), "{note}");
}

/// Pids of live processes running `prog` (by /proc/<pid>/exe).
fn server_pids(prog: &Path) -> Vec<i32> {
    let want = prog.canonicalize().expect("canonical path");
    let mut pids = Vec::new();
    for entry in std::fs::read_dir("/proc").expect("read /proc").flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        let Ok(exe) = std::fs::read_link(entry.path().join("exe")) else {
            continue;
        };
        let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
        let zombie = stat
            .rsplit(')')
            .next()
            .is_some_and(|rest| rest.trim_start().starts_with('Z'));
        if exe == want && !zombie {
            pids.push(pid);
        }
    }
    pids
}

fn wait_gone(prog: &Path) {
    for _ in 0..300 {
        if server_pids(prog).is_empty() {
            return;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    panic!(
        "processes of {} survived: {:?}",
        prog.display(),
        server_pids(prog)
    );
}

#[test]
fn killing_the_driver_leaves_no_process() {
    let prog = example("lastzero.c");
    let driver = workspace().join("target/release/reach-native");
    for extra in [&[][..], &["--no-fork-server"][..]] {
        let mut child = Command::new(&driver)
            .args(["--quiet", "--strategy", "exhaustive", "--max-time", "60"])
            .args(["--ignore-races", "--keep-going"])
            .args(extra)
            .arg(&prog)
            .arg("10")
            .env(reach_channel::env::RUNTIME, runtime())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("start reach-native");
        // Let it explore for a while.
        let mut seen_program = false;
        for _ in 0..200 {
            std::thread::sleep(Duration::from_millis(10));
            if !server_pids(&prog).is_empty() {
                seen_program = true;
                break;
            }
        }
        std::thread::sleep(Duration::from_millis(300));
        child.kill().expect("SIGKILL the driver");
        let _ = child.wait();
        assert!(seen_program, "the program never ran");
        wait_gone(&prog);
    }
}

const SHOW_ENV: &str = r#"
#include <stdio.h>
#include <string.h>
extern char **environ;
int main(void) {
    int locals;
    for (char **e = environ; *e; e++)
        if (!strncmp(*e, "REACH_", 6) || !strncmp(*e, "LD_BIND", 7)) printf("%s\n", *e);
    printf("stack=%p\n", (void *)&locals);
    return 0;
}
"#;

#[test]
fn the_program_sees_the_same_environment_and_stack_in_both_modes() {
    let prog = build_source("show_env", SHOW_ENV);
    let mut seen = Vec::new();
    for fork_server in [true, false] {
        let mut ex = Executor::new(config(&prog, &[], fork_server)).expect("executor");
        let out = ex.run(&request(&[])).expect("run");
        assert_eq!(out.status, RunStatus::Exited, "{}", dump(&out));
        assert_eq!(ex.fork_server_running(), fork_server);
        seen.push(String::from_utf8_lossy(&out.stdout).to_string());
    }
    // The variables the driver sets for the runtime (the channel, the fork
    // server, symbol binding) are gone before main, and the initial stack is
    // where it is without the fork server.
    for line in seen[0].lines() {
        assert!(
            !line.starts_with("REACH_") && !line.ends_with("=reach-native"),
            "{line}"
        );
    }
    assert!(seen[0].contains("stack=0x"), "{}", seen[0]);
    assert_eq!(seen[0], seen[1]);
}

#[test]
fn a_program_that_needs_lazy_binding_is_served_lazily_bound() {
    // A library with a function that calls a function nobody defines: the
    // program runs as long as it never calls it and symbols are bound lazily,
    // but cannot start with every symbol bound, as a fork server first tries.
    let dir = scratch("lazy-src");
    std::fs::write(
        dir.join("half.c"),
        "int missing(void);\nint never_called(void) { return missing(); }\nint answer(void) { return 42; }\n",
    )
    .expect("write library");
    std::fs::write(
        dir.join("main.c"),
        "#include <stdio.h>\nint answer(void);\nint main(void) { printf(\"%d\\n\", answer()); return 0; }\n",
    )
    .expect("write program");
    let lib = dir.join("libhalf.so");
    let st = Command::new("clang-22")
        .args(["-shared", "-fPIC", "-o"])
        .arg(&lib)
        .arg(dir.join("half.c"))
        .status()
        .expect("run clang");
    assert!(st.success(), "building the library failed");
    let prog = dir.join("needs_lazy");
    let st = Command::new(workspace().join("target/release/reach-cc"))
        .arg(dir.join("main.c"))
        .arg("-o")
        .arg(&prog)
        .arg(format!("-L{}", dir.display()))
        .arg(format!("-Wl,-rpath,{}", dir.display()))
        .arg("-Wl,--allow-shlib-undefined")
        .arg("-lhalf")
        .status()
        .expect("run the compiler wrapper");
    assert!(st.success(), "building the program failed");
    let mut ex = Executor::new(config(&prog, &[], true)).expect("executor");
    let out = ex.run(&request(&[])).expect("run");
    assert_eq!(out.status, RunStatus::Exited, "{}", dump(&out));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "42\n");
    assert!(ex.fork_server_running());
    let again = ex.run(&request(&[])).expect("run");
    assert_eq!(String::from_utf8_lossy(&again.stdout), "42\n");
}
