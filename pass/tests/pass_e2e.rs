//! End-to-end tests of the pass, `reach-instrument` and the compiler wrappers.
//!
//! They run the release binaries from the workspace target directory (built
//! beforehand by `cargo build --release --workspace`), clang-22 and llvm-dis-22.

mod e2e {
    pub mod common;
    mod cxx;
    mod inline_asm;
    mod inputs;
    mod instrument;
    mod projects;
    mod rust_bitcode;
    mod wrapper;
}
