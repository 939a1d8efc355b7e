//! `reach-instrument [--stats] [--inline-guards] [--drop-dead-code] INPUT(.bc|.ll) -o OUTPUT.bc`:
//! instruments one module for reach-native.

use anyhow::Context as _;
use clap::Parser;
use std::path::PathBuf;
use std::process::ExitCode;

/// Instrument LLVM bitcode or IR with reach-native scheduler hooks.
#[derive(Parser)]
#[command(name = "reach-instrument", version)]
struct Cli {
    /// Print the instrumentation counts.
    #[arg(long)]
    stats: bool,
    /// Inline the hooks' null-check guards into their callers, for code
    /// generation without the optimisation pipeline (what reach-cc does).
    #[arg(long)]
    inline_guards: bool,
    /// Delete the functions and globals nothing in the module can reach
    /// before instrumenting (what reach-cc and reach-rustc do: an
    /// unoptimised Rust binary's module holds every function of its crates).
    #[arg(long)]
    drop_dead_code: bool,
    /// Output bitcode file.
    #[arg(short = 'o', value_name = "OUTPUT.bc")]
    output: PathBuf,
    /// Input bitcode (.bc) or textual IR (.ll).
    #[arg(value_name = "INPUT")]
    input: PathBuf,
}

fn run(cli: &Cli) -> anyhow::Result<()> {
    let stats = reach_pass::instrument_file(
        &cli.input,
        &cli.output,
        reach_pass::FileOptions {
            inline_guards: cli.inline_guards,
            drop_dead_code: cli.drop_dead_code,
        },
    )
    .with_context(|| format!("reach-instrument {}", cli.input.display()))?;
    if cli.stats {
        use std::io::Write as _;
        // A closed stdout (e.g. piped into `head`) is not an error of ours.
        let _ = write!(std::io::stdout(), "{}:\n{stats}", cli.input.display());
    }
    Ok(())
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(&cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            // The library error is self-explanatory; the context only names the step.
            eprintln!("reach-instrument: error: {}", e.root_cause());
            ExitCode::FAILURE
        }
    }
}
