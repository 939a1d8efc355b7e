//! `make install PREFIX=DIR`: the tools, the runtime, `reach.h` and the
//! docs land in `DIR`, and the installed tools work from another directory
//! with nothing but `PATH` set (each finds its siblings from its own path).

use reach_tests::{bin_dir, root, scratch};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Installs into a fresh `PREFIX` (without rebuilding: `-o build`).
fn install() -> PathBuf {
    let prefix = scratch().join("install-prefix");
    let _ = std::fs::remove_dir_all(&prefix);
    let status = Command::new("make")
        .current_dir(root())
        .args(["--no-print-directory", "-o", "build", "install"])
        .arg(format!("PREFIX={}", prefix.display()))
        .arg(format!("BIN={}", bin_dir().display()))
        .status()
        .expect("run make");
    assert!(status.success(), "make install failed");
    prefix
}

/// Runs `command` in `dir` with an empty environment but `HOME` and a
/// `PATH` of the install's `bin/`, the system's directories and cargo's.
fn run_installed(prefix: &Path, dir: &Path, command: &str, args: &[&str]) -> Output {
    let home = std::env::var_os("HOME").unwrap_or_default();
    let cargo_bin = Path::new(&home).join(".cargo/bin");
    let path = std::env::join_paths([
        prefix.join("bin"),
        cargo_bin,
        PathBuf::from("/usr/bin"),
        PathBuf::from("/bin"),
    ])
    .expect("a PATH");
    Command::new(command)
        .current_dir(dir)
        .env_clear()
        .env("HOME", home)
        .env("PATH", path)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("run {command}: {e}"))
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn installed_tools_work_from_any_directory_with_only_path_set() {
    let prefix = install();
    for file in [
        "bin/reach-native",
        "bin/reach-cc",
        "bin/reach-c++",
        "bin/reach-cxx",
        "bin/reach-rustc",
        "bin/reach-instrument",
        "bin/cargo-reach",
        "lib/libreach_runtime.so",
        "include/reach.h",
        "share/doc/reach-native/README.md",
        "share/doc/reach-native/docs/report.schema.json",
    ] {
        assert!(prefix.join(file).exists(), "{file} not installed");
    }
    let elsewhere = scratch().join("install-elsewhere");
    std::fs::create_dir_all(&elsewhere).expect("create a directory");
    // reach-cc finds reach-instrument and reach.h; reach-native the runtime.
    let source = root().join("c-examples/concolic_assume.c");
    let built = run_installed(
        &prefix,
        &elsewhere,
        "reach-cc",
        &["-g", "-O1", &source.display().to_string(), "-o", "assume"],
    );
    assert!(built.status.success(), "reach-cc: {}", text(&built.stderr));
    let racy = root().join("c-examples/racy_counter.c");
    let built = run_installed(
        &prefix,
        &elsewhere,
        "reach-cc",
        &["-g", "-O1", &racy.display().to_string(), "-o", "racy"],
    );
    assert!(built.status.success(), "reach-cc: {}", text(&built.stderr));
    let run = run_installed(
        &prefix,
        &elsewhere,
        "reach-native",
        &["--json", "racy.json", "racy"],
    );
    assert_eq!(run.status.code(), Some(1), "{}", text(&run.stderr));
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(elsewhere.join("racy.json")).expect("report"))
            .expect("JSON");
    assert_eq!(report["bug"]["kind"], "data_race");
    // reach-c++ (a link to reach-cc) and reach-native test.
    let gtest = root().join("cpp-examples/gtest_queue.cpp");
    let built = run_installed(
        &prefix,
        &elsewhere,
        "reach-c++",
        &[
            "-std=c++17",
            "-g",
            "-O1",
            &gtest.display().to_string(),
            "-o",
            "gtest_queue",
            "-lgtest",
            "-lgtest_main",
            "-pthread",
        ],
    );
    assert!(built.status.success(), "reach-c++: {}", text(&built.stderr));
    let run = run_installed(
        &prefix,
        &elsewhere,
        "reach-native",
        &["test", "-q", "gtest_queue"],
    );
    assert_eq!(run.status.code(), Some(1), "{}", text(&run.stdout));
    assert!(text(&run.stdout).contains("1 passed, 1 with a bug"));
    // cargo reach finds reach-rustc and reach-native beside itself.
    let manifest = root().join("rust-examples/Cargo.toml");
    let target = scratch().join("install-cargo-target");
    let run = run_installed(
        &prefix,
        &elsewhere,
        "cargo",
        &[
            "reach",
            "run",
            "--offline",
            "--manifest-path",
            &manifest.display().to_string(),
            "--target-dir",
            &target.display().to_string(),
            "-p",
            "programs",
            "--bin",
            "lost_update",
            "--",
            "-q",
        ],
    );
    assert_eq!(run.status.code(), Some(1), "{}", text(&run.stderr));
    assert!(
        text(&run.stdout).contains("BUG: panic"),
        "{}",
        text(&run.stdout)
    );
}
