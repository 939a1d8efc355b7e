//! `reach-instrument [--stats] [--inline-guards] INPUT(.bc|.ll) -o OUTPUT.bc`:
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
    /// Output bitcode file.
    #[arg(short = 'o', value_name = "OUTPUT.bc")]
    output: PathBuf,
    /// Input bitcode (.bc) or textual IR (.ll).
    #[arg(value_name = "INPUT")]
    input: PathBuf,
}

fn run(cli: &Cli) -> anyhow::Result<()> {
    let stats = reach_pass::instrument_file(&cli.input, &cli.output, cli.inline_guards)
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
