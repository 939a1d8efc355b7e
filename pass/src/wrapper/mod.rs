//! The compiler wrappers. `reach-cc`/`reach-cxx`: a drop-in for `cc`/`c++`
//! that compiles C and C++ sources to bitcode, instruments them with
//! `reach-instrument` and links a PIE executable. `reach-rustc` ([`rustc`],
//! [`link`]): a `rustc` (and `RUSTC_WRAPPER`) that makes rustc emit bitcode
//! and instruments it at link time with the same steps.

pub mod args;
pub mod link;
pub mod plan;
pub mod response;
pub mod run;
pub mod rustc;

use std::path::Path;

/// True if a wrapper invoked as `argv0` should behave as a C++ compiler
/// (its file name ends in `++` or `cxx`).
pub fn is_cxx_name(argv0: &str) -> bool {
    let name = Path::new(argv0)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    name.ends_with("++") || name.ends_with("cxx")
}

/// Runs the wrapper on `argv` (including the program name); returns the exit code.
pub fn main_with(argv: &[String], force_cxx: bool) -> i32 {
    let argv0 = argv.first().map(String::as_str).unwrap_or("reach-cc");
    let cxx = force_cxx || is_cxx_name(argv0);
    let me = if cxx { "reach-c++" } else { "reach-cc" };
    let args = response::expand(argv.get(1..).unwrap_or(&[]));
    let inv = args::parse(&args);
    let tools = run::Tools::locate(cxx);
    let tmp = match tempfile::Builder::new().prefix("reach-cc.").tempdir() {
        Ok(t) => t,
        Err(e) => {
            eprintln!("{me}: error: cannot create a temporary directory: {e}");
            return 1;
        }
    };
    let steps = match plan::plan(&inv, tmp.path()) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{me}: error: {e}");
            return 1;
        }
    };
    for step in &steps {
        if let Err(e) = tools.run(step) {
            if matches!(e, run::RunError::Spawn { .. }) {
                eprintln!("{me}: error: {e}");
            }
            return e.exit_code();
        }
    }
    0
}
