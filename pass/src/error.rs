//! Errors of the instrumentation library.

use std::path::PathBuf;

/// Everything that can go wrong while reading, instrumenting or writing a module.
#[derive(Debug, thiserror::Error)]
pub enum PassError {
    /// The input file could not be read.
    #[error("cannot read {path}: {message}")]
    Read {
        /// Input path.
        path: PathBuf,
        /// Reason reported by the system or LLVM.
        message: String,
    },
    /// The input was produced by an LLVM newer than the one this tool is built on.
    #[error(
        "{path} was produced by {producer}, newer than the LLVM {supported} that reach-instrument reads; \
         compile it with clang-{supported} (or a rustc whose `rustc -vV` says LLVM version {supported}.x)"
    )]
    NewerLlvm {
        /// Input path.
        path: PathBuf,
        /// Producer string found in the bitcode (e.g. `LLVM23.1.0`).
        producer: String,
        /// Major LLVM version this tool reads.
        supported: u32,
    },
    /// The input is not valid bitcode or textual IR.
    #[error("cannot parse {path} as LLVM bitcode or IR: {message}")]
    Parse {
        /// Input path.
        path: PathBuf,
        /// LLVM's diagnostic.
        message: String,
    },
    /// The instrumented module does not verify: a bug in this pass.
    #[error("[reach internal bug] the instrumented module of {path} does not verify: {message}")]
    Verify {
        /// Input path.
        path: PathBuf,
        /// LLVM verifier output.
        message: String,
    },
    /// The output file could not be written.
    #[error("cannot write {path}")]
    Write {
        /// Output path.
        path: PathBuf,
    },
    /// The module already contains a site table.
    #[error("{path} is already instrumented (it contains a reach site table)")]
    AlreadyInstrumented {
        /// Input path.
        path: PathBuf,
    },
    /// IR construction failed: a bug in this pass.
    #[error("[reach internal bug] while instrumenting {path}: {message}")]
    Internal {
        /// Input path.
        path: PathBuf,
        /// What failed.
        message: String,
    },
}
