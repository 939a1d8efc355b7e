//! The reach-native instrumentation pass.
//!
//! [`instrument_file`] reads LLVM bitcode or IR (from clang or rustc), inserts
//! guarded calls to the runtime's hooks ([`reach_channel::hooks`]) before
//! every memory access that may touch shared memory, every atomic operation,
//! every ranged memory operation and every call to an interposed library
//! function, embeds the module's site table ([`reach_channel::sites`]) and
//! writes bitcode. The [`wrapper`] module is the `reach-cc`/`reach-cxx`
//! compiler driver built on it.

mod asm_atomics;
pub mod bitcode;
pub mod classify;
pub mod debuginfo;
pub mod demangle;
mod emit;
pub mod error;
pub mod escape;
pub mod exclude;
pub mod hooks;
mod inline_asm;
pub mod instrument;
mod library_calls;
mod llvm;
pub mod load;
mod load_value;
mod local_names;
mod loops;
mod model;
mod rotated;
pub mod rust_std;
pub mod site_table;
pub mod stats;
pub mod symbolic;
pub mod wrapper;

pub use error::PassError;
pub use instrument::{instrument_module, Outcome};
pub use stats::Stats;

use inkwell::context::Context;
use std::path::Path;

/// What [`instrument_file`] does besides instrumenting.
#[derive(Clone, Copy, Debug, Default)]
pub struct FileOptions {
    /// Inline the hooks' guards (for code generation without the optimiser).
    pub inline_guards: bool,
    /// Delete the code nothing in the module can reach before instrumenting
    /// ([`load::drop_dead_code`]).
    pub drop_dead_code: bool,
}

/// Reads `input`, instruments it, verifies the result, applies `options`
/// and writes bitcode to `output`. Returns the counts.
pub fn instrument_file(
    input: &Path,
    output: &Path,
    options: FileOptions,
) -> Result<Stats, PassError> {
    let ctx = Context::create();
    let module = load::read_module(&ctx, input)?;
    if options.drop_dead_code {
        load::drop_dead_code(&module, input)?;
    }
    let outcome = instrument_module(&module, input)?;
    load::verify(&module, input)?;
    if options.inline_guards {
        load::inline_guards(&module, input)?;
    }
    load::write_bitcode(&module, output)?;
    Ok(outcome.stats)
}
