//! The multi-directory fixture project built with make and with CMake.

use super::common::*;
use std::path::{Path, PathBuf};

fn project() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/projects/multidir")
}

fn check_binary(bin_path: &Path) {
    let out = ok_in(bin_path.parent().expect("dir"), bin_path, &[]);
    assert_eq!(out, "sum=5050 items=100\n");
    let sites = site_table(bin_path).expect("site table in the project binary");
    for file in ["lib/queue.c", "app/main.c", "app/summary.cpp"] {
        assert!(
            sites
                .iter()
                .any(|s| s.file.ends_with(file) || s.inlined_at.iter().any(|f| f.contains(file))),
            "no site from {file}"
        );
    }
    assert!(sites
        .iter()
        .any(|s| s.what == "call pthread_cond_wait" && s.function == "queue_get"));
}

#[test]
fn make_with_reach_cc() {
    let build = tempdir();
    let links = tempdir();
    let cc = format!("CC={}", bin("reach-cc").display());
    let cxx = format!("CXX={}", cxx_symlink(links.path()).display());
    let out = format!("BUILD={}", build.path().display());
    ok_in(&project(), "make", &["-s", &cc, &cxx, &out]);
    let deps = std::fs::read_to_string(build.path().join("app/main.d")).expect("main.d");
    assert!(deps.contains("lib/queue.h"), "{deps}");
    assert!(build.path().join("lib/libqueue.a").is_file());
    check_binary(&build.path().join("app/prodcons"));
    // Nothing to do the second time: dependency files and targets are right.
    let again = ok_in(&project(), "make", &[&cc, &cxx, &out]);
    assert!(again.contains("Nothing to be done"), "{again}");
}

#[test]
fn cmake_with_reach_cc_and_reach_cxx() {
    if run_in(Path::new("/"), "sh", &["-c", "command -v cmake"])
        .stdout
        .is_empty()
    {
        eprintln!("SKIPPED: cmake is not installed (apt-get install -y cmake)");
        return;
    }
    let build = tempdir();
    let links = tempdir();
    let cc = format!("-DCMAKE_C_COMPILER={}", bin("reach-cc").display());
    let cxx = format!(
        "-DCMAKE_CXX_COMPILER={}",
        cxx_symlink(links.path()).display()
    );
    let src = project();
    let configure = ok_in(
        build.path(),
        "cmake",
        &["-S", src.to_str().expect("utf8"), "-B", ".", &cc, &cxx],
    );
    assert!(
        configure.contains("The C compiler identification is Clang"),
        "{configure}"
    );
    ok_in(build.path(), "cmake", &["--build", "."]);
    check_binary(&build.path().join("prodcons"));
}
