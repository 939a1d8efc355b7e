//! `cargo-reach`: the `cargo reach test|run` subcommand
//! ([`reach_native::cargo_reach`]).

use std::process::ExitCode;

fn main() -> ExitCode {
    reach_native::fatal::abort_on_panic("cargo reach");
    let words: Vec<_> = std::env::args_os().skip(1).collect();
    match reach_native::cargo_reach::main_with(&words) {
        Ok(code) => ExitCode::from(code),
        Err(error) => {
            eprintln!("cargo reach: error: {error:#}");
            ExitCode::from(2)
        }
    }
}
