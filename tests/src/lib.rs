//! Helpers for the end-to-end tests: build a program from `c-examples/` with
//! the compiler wrappers, run `reach-native` on it, and read its JSON report.
//!
//! The binaries must have been built first (`cargo build --release
//! --workspace`, which `make test` does).

pub mod corpus;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

/// Workspace root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."))
}

/// Directory of the release binaries.
pub fn bin_dir() -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) => PathBuf::from(dir).join("release"),
        None => root().join("target/release"),
    }
}

/// Path of a release binary.
pub fn bin(name: &str) -> PathBuf {
    bin_dir().join(name)
}

/// Scratch directory for this test process.
pub fn scratch() -> PathBuf {
    let dir = bin_dir()
        .parent()
        .map(|t| t.join("e2e"))
        .unwrap_or_else(|| std::env::temp_dir().join("reach-e2e"));
    std::fs::create_dir_all(&dir).expect("create scratch dir");
    dir
}

static BUILD: Mutex<()> = Mutex::new(());

/// Builds `c-examples/<file>` with `reach-cc` (or `reach-cxx` for `.cpp`)
/// at `-O1 -g` and returns the executable, reusing a build newer than both
/// the source and the wrapper.
pub fn build_example(file: &str) -> PathBuf {
    let stem = Path::new(file)
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or(file);
    build_source(&format!("c-examples/{file}"), &["-O1", "-g"], stem)
}

/// Builds `source` (relative to the repository root) with the compiler
/// wrapper and `flags` into the scratch directory as `name`, reusing a build
/// newer than both the source and the wrapper. A source with the line
/// `// reach: symbolic` is built with `REACH_SYMBOLIC=1` (concolic testing).
pub fn build_source(source: &str, flags: &[&str], name: &str) -> PathBuf {
    let text = std::fs::read_to_string(root().join(source)).unwrap_or_default();
    let symbolic = text.lines().any(|l| l.trim() == "// reach: symbolic");
    build_source_as(source, flags, name, symbolic)
}

/// Like [`build_source`], with the shadow computations of concolic testing
/// (`REACH_SYMBOLIC=1`) on or off whatever the source says.
pub fn build_source_as(source: &str, flags: &[&str], name: &str, symbolic: bool) -> PathBuf {
    let _guard = BUILD.lock().unwrap_or_else(|e| e.into_inner());
    let source = root().join(source);
    assert!(source.exists(), "no source {}", source.display());
    let out = scratch().join(name);
    let cxx = source.extension().is_some_and(|e| e == "cpp");
    let wrapper = bin(if cxx { "reach-cxx" } else { "reach-cc" });
    let modified = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    let fresh = match (modified(&out), modified(&source), modified(&wrapper)) {
        (Some(o), Some(s), Some(w)) => o > s && o > w,
        _ => false,
    };
    if !fresh {
        // A name of this process's own: test binaries running side by side
        // may build the same program, and the rename puts either whole build
        // in place.
        let tmp = out.with_extension(format!("{}.tmp", std::process::id()));
        let status = Command::new(&wrapper)
            .env("REACH_SYMBOLIC", if symbolic { "1" } else { "0" })
            .args(flags)
            .arg(&source)
            .arg("-o")
            .arg(&tmp)
            .status()
            .expect("run the compiler wrapper");
        assert!(status.success(), "building {} failed", source.display());
        std::fs::rename(&tmp, &out).expect("move the built program into place");
    }
    out
}

/// One run of `reach-native`.
#[derive(Debug)]
pub struct Run {
    /// Exit status.
    pub code: i32,
    /// Its standard output.
    pub stdout: String,
    /// Its standard error.
    pub stderr: String,
    /// The JSON report.
    pub json: Value,
}

impl Run {
    /// Kind of the first bug, if any.
    pub fn bug_kind(&self) -> Option<String> {
        self.json["bug"]["kind"].as_str().map(str::to_string)
    }

    /// Number of executions.
    pub fn executions(&self) -> u64 {
        self.json["executions"].as_u64().unwrap_or(0)
    }

    /// Executions blocked at an await (not behaviours).
    pub fn await_blocked(&self) -> u64 {
        self.json["await_blocked"].as_u64().unwrap_or(0)
    }

    /// Executions not blocked at an await.
    pub fn complete_executions(&self) -> u64 {
        self.executions() - self.await_blocked()
    }

    /// Number of distinct partial orders (needs `--stats`).
    pub fn partial_orders(&self) -> u64 {
        self.json["partial_orders"].as_u64().unwrap_or(0)
    }

    /// Fingerprints of the distinct partial orders, sorted.
    pub fn fingerprints(&self) -> Vec<String> {
        self.json["partial_order_fingerprints"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|v| v.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Signatures of every distinct bug, sorted.
    pub fn bug_signatures(&self) -> Vec<String> {
        self.signatures_where(|_| true)
    }

    /// Signatures of every distinct bug of `kind`, sorted.
    pub fn bug_signatures_of(&self, kind: &str) -> Vec<String> {
        self.signatures_where(|b| b["kind"].as_str() == Some(kind))
    }

    fn signatures_where(&self, keep: impl Fn(&Value) -> bool) -> Vec<String> {
        let mut all: Vec<String> = self.json["bugs"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter(|b| keep(b))
                    .filter_map(|b| b["signature"].as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default();
        all.sort();
        all
    }

    /// True if the whole search space was explored.
    pub fn complete(&self) -> bool {
        self.json["complete"].as_bool().unwrap_or(false)
    }
}

/// Runs `reach-native OPTIONS PROGRAM ARGS` with `--json` and the schedule
/// written into the scratch directory. Runs with one job unless `options`
/// say otherwise, so execution counts are deterministic.
pub fn reach(program: &Path, options: &[&str], args: &[&str]) -> Run {
    let name = program
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("prog");
    let unique = format!(
        "{name}-{}-{:?}",
        std::process::id(),
        std::thread::current().id()
    )
    .replace(['(', ')'], "");
    let json_path = scratch().join(format!("{unique}.json"));
    let schedule_path = scratch().join(format!("{unique}.schedule"));
    // A working directory of this test thread's own: what the program or
    // another test binary writes elsewhere does not count as a change of
    // the run's directory (which bounds the search).
    let workdir = scratch().join(format!("cwd-{unique}"));
    std::fs::create_dir_all(&workdir).expect("create a working directory");
    let output = Command::new(bin("reach-native"))
        .current_dir(&workdir)
        // A Rust panic's backtrace would be symbolised in every failing execution.
        .env_remove("RUST_BACKTRACE")
        .arg("--json")
        .arg(&json_path)
        .arg("--schedule-out")
        .arg(&schedule_path)
        .args(if options.contains(&"--jobs") {
            &[][..]
        } else {
            &["--jobs", "1"][..]
        })
        .args(options)
        .arg(program)
        .args(args)
        .output()
        .expect("run reach-native");
    let json = std::fs::read_to_string(&json_path)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or(Value::Null);
    Run {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        json,
    }
}

/// Path of the schedule file the last [`reach`] call on `program` in this thread wrote.
pub fn schedule_of(program: &Path) -> PathBuf {
    let name = program
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("prog");
    let unique = format!(
        "{name}-{}-{:?}",
        std::process::id(),
        std::thread::current().id()
    )
    .replace(['(', ')'], "");
    scratch().join(format!("{unique}.schedule"))
}

/// Runs of one program under several strategies (named, the first the
/// reference) each complete without a bug or an internal error and explore
/// the same `orders` partial orders as the first; `what` names the program
/// in messages.
pub fn assert_runs_agree(what: &str, runs: &[(&str, Run)], orders: u64) {
    for (strategy, run) in runs {
        assert!(
            run.complete(),
            "{what} ({strategy}): {}\n{}",
            run.stdout,
            run.stderr
        );
        assert!(
            run.json["bug"].is_null(),
            "{what} ({strategy}): {}",
            run.stdout
        );
        assert_eq!(
            run.json["internal_errors"], 0,
            "{what} ({strategy}): {}",
            run.stderr
        );
        assert_eq!(run.partial_orders(), orders, "{what} ({strategy})");
        assert_eq!(
            run.fingerprints(),
            runs[0].1.fingerprints(),
            "{what} ({strategy}): other partial orders than {}",
            runs[0].0
        );
    }
}
