//! The end-to-end tests: one module per area (a file of this directory),
//! built as one test binary, so that the test build links once instead of
//! once per file. `scripts/test.sh` runs the areas side by side, each in a
//! process of its own; one area alone:
//! `cargo test --release -p reach-tests --test e2e -- spin::`.

mod branches;
mod ck;
mod cli;
mod concolic;
mod corpus;
mod examples;
mod files;
mod harness;
mod install;
mod layers;
mod limits;
mod lockset;
mod long;
mod memory_model;
mod memory_model_dpor;
mod memory_model_examples;
mod nondeterminism;
mod oracle;
mod parallel;
mod peers;
mod persistent;
mod private;
mod random_share;
mod randomised;
mod reports;
mod rt;
mod rust;
mod shard;
mod spin;
mod strategies;
mod unfold;

/// Every file of the test directories built as one binary (this one and
/// `driver/tests`) is a module of its root file: with `autotests = false`,
/// a file left out would never be compiled, and its tests never run.
#[test]
fn every_test_file_is_a_module() {
    for (dir, root_file) in [("tests/tests", "e2e.rs"), ("driver/tests", "driver.rs")] {
        let dir = reach_tests::root().join(dir);
        let root = std::fs::read_to_string(dir.join(root_file)).expect("read the root file");
        let mut modules = 0;
        for entry in std::fs::read_dir(&dir).expect("read the test directory") {
            let path = entry.expect("a directory entry").path();
            let Some(stem) = path.file_stem().and_then(|s| s.to_str()) else {
                continue;
            };
            let is_module = if path.is_dir() {
                path.join("mod.rs").exists()
            } else {
                path.extension().is_some_and(|e| e == "rs")
                    && path.file_name() != Some(root_file.as_ref())
            };
            if is_module {
                modules += 1;
                assert!(
                    root.contains(&format!("\nmod {stem};\n")),
                    "{} is not a module of {root_file}",
                    path.display()
                );
            }
        }
        assert!(
            modules > 5,
            "{}: only {modules} modules found",
            dir.display()
        );
    }
}
