//! Files the program writes: with `--isolate-files` every execution sees the
//! working directory as it was when the run started (and the directory is
//! left as it was); without it, a run whose executions changed files there
//! names them and does not claim to be complete.

use reach_tests::{bin, build_example, scratch};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A fresh empty directory in the scratch directory.
fn fresh_dir(name: &str) -> PathBuf {
    let dir = scratch().join(format!("files-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create the directory");
    dir
}

/// Runs `reach-native OPTIONS PROGRAM` in `dir` with one job and the JSON
/// report outside it: exit status, standard output and error, the report.
fn run_in(dir: &Path, options: &[&str], program: &Path) -> (i32, String, String, Value) {
    let json = dir.with_extension("json");
    let out = Command::new(bin("reach-native"))
        .current_dir(dir)
        .args(["--jobs", "1", "--json"])
        .arg(&json)
        .args(options)
        .arg(program)
        .output()
        .expect("run reach-native");
    let report = std::fs::read_to_string(&json)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or(Value::Null);
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        report,
    )
}

/// The program appends to `run.log` and starts a third thread when the log
/// was not empty: isolated, every execution starts from the empty
/// directory, so 2 threads and 2 executions, complete, under the fork
/// server, persistent or not, and with exec per execution; the directory
/// has no log afterwards.
#[test]
fn isolated_executions_see_the_directory_as_it_was() {
    let program = build_example("append_log_threads.c");
    for mode in [&[][..], &["--no-persistent"], &["--no-fork-server"]] {
        let dir = fresh_dir("isolated");
        let options = [&["--isolate-files"][..], mode].concat();
        let (code, stdout, stderr, report) = run_in(&dir, &options, &program);
        assert_eq!(code, 0, "{mode:?}: {stdout}\n{stderr}");
        assert_eq!(report["complete"], true, "{mode:?}: {stdout}");
        assert_eq!(report["executions"], 2, "{mode:?}: {stdout}");
        assert!(
            !dir.join("run.log").exists(),
            "{mode:?}: the log reached the real directory"
        );
    }
}

/// With a log already there, every isolated execution sees it as it was
/// (not empty): 3 threads in every execution (6 executions), and the log
/// is unchanged afterwards.
#[test]
fn isolated_executions_all_see_the_existing_log() {
    let program = build_example("append_log_threads.c");
    let dir = fresh_dir("existing");
    std::fs::write(dir.join("run.log"), "earlier\n").expect("write the log");
    let (code, stdout, stderr, report) = run_in(&dir, &["--isolate-files"], &program);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert_eq!(report["complete"], true, "{stdout}");
    assert_eq!(report["executions"], 6, "{stdout}");
    assert_eq!(
        std::fs::read_to_string(dir.join("run.log")).expect("the log"),
        "earlier\n"
    );
}

/// Without isolation the first execution starts 2 threads and the later
/// ones 3: the run names the log it found changed, and is not complete.
#[test]
fn a_run_whose_executions_changed_files_is_not_complete() {
    let program = build_example("append_log_threads.c");
    let dir = fresh_dir("shared");
    let (code, stdout, stderr, report) = run_in(&dir, &[], &program);
    assert_eq!(code, 3, "{stdout}\n{stderr}");
    assert_eq!(report["complete"], false, "{stdout}");
    let coverage = stdout
        .lines()
        .find(|l| l.starts_with("coverage: "))
        .unwrap_or_default();
    assert!(
        coverage.contains(
            "not complete: files in the working directory changed during the run (run.log)"
        ),
        "{coverage}"
    );
    assert!(stderr.contains("--isolate-files"), "{stderr}");
}

/// A directory that cannot be isolated is one clear error.
#[test]
fn a_missing_directory_to_isolate_is_one_clear_error() {
    let program = build_example("append_log_threads.c");
    let dir = fresh_dir("missing");
    let (code, _, stderr, _) = run_in(&dir, &["--isolate", "/nonexistent/dir"], &program);
    assert_eq!(code, 2, "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("cannot isolate `/nonexistent/dir`"),
        "{stderr}"
    );
}

/// A program that starts one thread instead of two once the log exists:
/// the second execution cannot follow the first one's schedule, and the
/// nondeterminism report names the log the first execution wrote.
#[test]
fn nondeterminism_from_a_written_file_names_it() {
    let dir = fresh_dir("nondeterminism");
    let source = dir.with_extension("c");
    std::fs::write(
        &source,
        r#"#include <pthread.h>
#include <stdio.h>
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int sum;
static void *worker(void *arg) {
    pthread_mutex_lock(&lock);
    sum += (int)(long)arg;
    pthread_mutex_unlock(&lock);
    return NULL;
}
int main(void) {
    FILE *log = fopen("run.log", "a+");
    if (!log) return 2;
    fseek(log, 0, SEEK_END);
    int n = ftell(log) > 0 ? 1 : 2;
    fputs("started\n", log);
    fclose(log);
    pthread_t t[2];
    for (int i = 0; i < n; i++) pthread_create(&t[i], NULL, worker, (void *)(long)(i + 1));
    for (int i = 0; i < n; i++) pthread_join(t[i], NULL);
    return 0;
}
"#,
    )
    .expect("write the source");
    let program = dir.with_extension("bin");
    let built = Command::new(bin("reach-cc"))
        .args(["-g", "-O1"])
        .arg(&source)
        .arg("-o")
        .arg(&program)
        .status()
        .expect("run reach-cc");
    assert!(built.success());
    let (code, stdout, _, report) = run_in(&dir, &["--no-shorten"], &program);
    assert_eq!(code, 1, "{stdout}");
    assert_eq!(report["bug"]["kind"], "nondeterminism", "{stdout}");
    let message = report["bug"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("files in the working directory changed during the run (run.log)"),
        "{message}"
    );
    // Isolated, the same program is deterministic.
    std::fs::remove_file(dir.join("run.log")).expect("remove the log");
    let (code, stdout, _, report) = run_in(&dir, &["--isolate-files"], &program);
    assert_eq!(code, 0, "{stdout}");
    assert_eq!(report["complete"], true, "{stdout}");
}

/// A bug found with `--isolate-files` replays isolated without being told
/// (the schedule file says so): replayed twice, it is the same race, and
/// the log the program writes never reaches the directory.
#[test]
fn a_schedule_found_isolated_replays_isolated() {
    let dir = fresh_dir("replay-isolated");
    let source = dir.with_extension("c");
    std::fs::write(
        &source,
        r#"#include <pthread.h>
#include <stdio.h>
static int counter, fresh;
static void *worker(void *arg) {
    if (fresh) counter++;
    return arg;
}
int main(void) {
    FILE *log = fopen("run.log", "a+");
    if (!log) return 2;
    fseek(log, 0, SEEK_END);
    fresh = ftell(log) == 0;
    fputs("started\n", log);
    fclose(log);
    pthread_t a, b;
    pthread_create(&a, NULL, worker, NULL);
    pthread_create(&b, NULL, worker, NULL);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    return 0;
}
"#,
    )
    .expect("write the source");
    let program = dir.with_extension("bin");
    let built = Command::new(bin("reach-cc"))
        .args(["-g", "-O1"])
        .arg(&source)
        .arg("-o")
        .arg(&program)
        .status()
        .expect("run reach-cc");
    assert!(built.success());
    let (code, stdout, _, found) = run_in(&dir, &["--isolate-files"], &program);
    assert_eq!(code, 1, "{stdout}");
    assert_eq!(found["bug"]["kind"], "data_race", "{stdout}");
    let schedule = dir.join("reach-native.schedule");
    let text = std::fs::read_to_string(&schedule).expect("the schedule file");
    assert!(text.contains("\"isolate_files\": []"), "{text}");
    let schedule = schedule.to_string_lossy().into_owned();
    for round in 0..2 {
        let (code, stdout, _, replayed) = run_in(&dir, &["--replay", &schedule], &program);
        assert_eq!(code, 1, "replay {round}: {stdout}");
        assert_eq!(
            replayed["bug"]["trace"], found["bug"]["trace"],
            "replay {round}"
        );
    }
    assert!(!dir.join("run.log").exists());
}
