//! The driver's tests against the real runtime (`exec_*`, `fork_server`,
//! `branches_classes`) and the strategies against brute-force oracles on
//! simulated programs (`*_model`), one module per file of this directory,
//! built as one test binary so that the driver library is linked once.
//! `scripts/test.sh` runs the modules side by side, each in a process of
//! its own; one module alone:
//! `cargo test --release -p reach-native --test driver -- dpor_model::`.
//! (`tests/tests/e2e.rs` checks that every file here is a module.)

mod exec_support;
mod model;

mod branches_classes;
mod dpor_model;
mod exec_basic;
mod exec_robust;
mod exec_schedule;
mod exec_sync;
mod fork_server;
mod optimal_model;
mod rt_model;
mod spin_model;
mod unfold_inputs_model;
mod unfold_model;
