//! `reach-cc` builds binaries that run standalone and carry the site table.

use super::common::*;

const PROGRAM: &str = r#"#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
int counter;
int marker_value;
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static void *worker(void *arg) {
  int n = *(int *)arg;
  for (int i = 0; i < n; i++) {
    pthread_mutex_lock(&m);
    counter++;
    pthread_mutex_unlock(&m);
  }
  return 0;
}
int main(int argc, char **argv) {
  pthread_t t[3];
  int n = argc > 1 ? atoi(argv[1]) : 1000;
  for (int i = 0; i < 3; i++) pthread_create(&t[i], 0, worker, &n);
  for (int i = 0; i < 3; i++) pthread_join(t[i], 0);
  marker_value = counter; /* MARKER_STORE */
  printf("counter=%d\n", marker_value);
  return 0;
}
"#;

fn build(dir: &std::path::Path, args: &[&str]) {
    std::fs::write(dir.join("prog.c"), PROGRAM).expect("write source");
    ok_in(dir, bin("reach-cc"), args);
}

#[test]
fn binary_runs_standalone_and_maps_sites_to_lines() {
    let dir = tempdir();
    build(
        dir.path(),
        &["-O2", "-Wall", "-Werror", "prog.c", "-o", "prog"],
    );
    let out = ok_in(dir.path(), dir.path().join("prog"), &[]);
    assert_eq!(out, "counter=3000\n");
    let sites = site_table(&dir.path().join("prog")).expect("reach_sites section");
    let line = line_of(PROGRAM, "MARKER_STORE");
    let store = sites
        .iter()
        .find(|s| s.what == "store" && s.line == line)
        .unwrap_or_else(|| panic!("no store site at line {line}: {sites:#?}"));
    assert!(store.file.ends_with("/prog.c"), "{store:?}");
    assert_eq!(store.function, "main");
    assert!(store.column > 0);
    assert!(sites
        .iter()
        .any(|s| s.what == "call pthread_mutex_lock" && s.function == "worker"));
    assert!(sites.iter().any(|s| s.what == "call pthread_create"));
}

#[test]
fn site_ids_are_stable_across_builds() {
    let dir = tempdir();
    build(dir.path(), &["-O1", "prog.c", "-o", "a"]);
    build(dir.path(), &["-O1", "prog.c", "-o", "b"]);
    let a = site_table(&dir.path().join("a")).expect("table a");
    let b = site_table(&dir.path().join("b")).expect("table b");
    assert!(!a.is_empty());
    assert_eq!(a, b);
}

#[test]
fn separate_compile_and_link_with_dependency_file() {
    let dir = tempdir();
    build(
        dir.path(),
        &["-c", "-O0", "-g", "-MMD", "-MP", "prog.c", "-o", "prog.o"],
    );
    let deps = std::fs::read_to_string(dir.path().join("prog.d")).expect("prog.d written");
    assert!(deps.starts_with("prog.o: prog.c"), "{deps}");
    ok_in(dir.path(), bin("reach-cc"), &["prog.o", "-o", "prog"]);
    assert_eq!(
        ok_in(dir.path(), dir.path().join("prog"), &["10"]),
        "counter=30\n"
    );
    assert!(site_table(&dir.path().join("prog.o")).is_some());
}

#[test]
fn response_files_shared_libraries_and_archives() {
    let dir = tempdir();
    let d = dir.path();
    std::fs::write(
        d.join("lib.c"),
        "int shared_counter; void bump(void) { shared_counter++; }\n",
    )
    .expect("write lib");
    std::fs::write(
        d.join("use.c"),
        "#include <stdio.h>\nvoid bump(void); extern int shared_counter;\nint main(void) { bump(); bump(); printf(\"%d\\n\", shared_counter); return 0; }\n",
    )
    .expect("write main");
    std::fs::write(d.join("flags.rsp"), "-O2 \"-DUNUSED=a b\"\n").expect("write rsp");
    ok_in(
        d,
        bin("reach-cc"),
        &[
            "@flags.rsp",
            "-fPIC",
            "-shared",
            "lib.c",
            "-o",
            "libbump.so",
        ],
    );
    assert!(site_table(&d.join("libbump.so")).is_some());
    ok_in(
        d,
        bin("reach-cc"),
        &["@flags.rsp", "-c", "lib.c", "-o", "lib.o"],
    );
    ok_in(d, "ar", &["rcs", "libbump.a", "lib.o"]);
    ok_in(d, bin("reach-cc"), &["use.c", "libbump.a", "-o", "use"]);
    assert_eq!(ok_in(d, d.join("use"), &[]), "2\n");
    let sites = site_table(&d.join("use")).expect("table");
    assert!(sites.iter().any(|s| s.file.ends_with("/lib.c")));
    assert!(sites.iter().any(|s| s.file.ends_with("/use.c")));
}

#[test]
fn clang_diagnostics_pass_through_with_its_exit_code() {
    let dir = tempdir();
    std::fs::write(
        dir.path().join("bad.c"),
        "int main(void) { return undeclared; }\n",
    )
    .expect("write");
    let out = run_in(dir.path(), bin("reach-cc"), &["bad.c", "-o", "bad"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("undeclared"), "{err}");
    let out = run_in(dir.path(), bin("reach-cc"), &["--version"]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("clang version"));
}

#[test]
fn missing_compiler_is_one_clear_line() {
    let dir = tempdir();
    build(dir.path(), &["-c", "prog.c"]);
    let out = std::process::Command::new(bin("reach-cc"))
        .args(["prog.c", "-o", "x"])
        .current_dir(dir.path())
        .env("REACH_CLANG", "/nonexistent/clang")
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("REACH_CLANG"), "{err}");
}
