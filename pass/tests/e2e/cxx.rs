//! C++ with the standard threading library, through `reach-c++` and `reach-cxx`.

use super::common::*;

const SOURCE: &str = include_str!("../data/cxx_sync.cpp");

fn build_and_run(wrapper: &std::path::Path, opt: &str) -> Vec<reach_channel::sites::Site> {
    let dir = tempdir();
    std::fs::write(dir.path().join("sync.cpp"), SOURCE).expect("write");
    ok_in(
        dir.path(),
        wrapper,
        &[opt, "-std=c++17", "sync.cpp", "-o", "sync"],
    );
    let out = ok_in(dir.path(), dir.path().join("sync"), &[]);
    assert_eq!(out, "once\nbox=6 shared=4 a=20\n");
    site_table(&dir.path().join("sync")).expect("site table")
}

#[test]
fn std_thread_mutex_condvar_shared_mutex_atomics_once_via_symlink() {
    let links = tempdir();
    let sites = build_and_run(&cxx_symlink(links.path()), "-O0");
    // Templates from library headers are instrumented where instantiated.
    assert!(
        sites
            .iter()
            .any(|s| s.what == "atomic rmw add" && s.file.ends_with("bits/atomic_base.h")),
        "no fetch_add site in atomic_base.h"
    );
    assert!(sites.iter().any(|s| s.function.contains("Box<long>::add")));
    assert!(sites.iter().any(|s| s.what.starts_with("cmpxchg")));
    assert!(sites.iter().any(|s| s.what == "fence"));
    assert!(sites.iter().any(|s| s.what == "call pthread_mutex_lock"));
    assert!(sites.iter().any(|s| s.what == "call pthread_once"));
    assert!(sites
        .iter()
        .any(|s| s.what.starts_with("call pthread_rwlock")));
}

#[test]
fn optimised_cxx_keeps_inlining_chains() {
    let sites = build_and_run(&bin("reach-cxx"), "-O2");
    let inlined = sites
        .iter()
        .find(|s| s.what == "atomic rmw add" && !s.inlined_at.is_empty())
        .expect("an inlined fetch_add");
    assert!(
        inlined.inlined_at.iter().any(|f| f.contains("sync.cpp:")),
        "{inlined:?}"
    );
}
