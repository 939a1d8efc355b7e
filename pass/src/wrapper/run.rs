//! Finding the tools and running the planned steps.

use super::plan::Step;
use reach_channel::env;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The programs the wrapper runs.
#[derive(Clone, Debug)]
pub struct Tools {
    /// Compiler driver (`clang-22`, `clang++-22`, or `$REACH_CLANG`).
    pub clang: PathBuf,
    /// Extra leading arguments for the driver (`--driver-mode=g++` when
    /// `$REACH_CLANG` is used as a C++ compiler).
    pub clang_prefix: Vec<String>,
    /// `reach-instrument`.
    pub instrument: PathBuf,
    /// Print each command before running it.
    pub verbose: bool,
    /// Directory holding `reach.h` (see [`include_dir`]), added to every
    /// compilation's include path after the system directories.
    pub include: Option<PathBuf>,
}

/// Why a step failed.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// A program could not be started.
    #[error("cannot run {program}: {source} ({hint})")]
    Spawn {
        /// Program path.
        program: String,
        /// How to name another one.
        hint: String,
        /// OS error.
        source: std::io::Error,
    },
    /// A program exited unsuccessfully (its diagnostics were already printed).
    #[error("{program} failed")]
    Failed {
        /// Program path.
        program: String,
        /// Exit code to pass on.
        code: i32,
    },
}

impl RunError {
    /// Exit status the wrapper should end with.
    pub fn exit_code(&self) -> i32 {
        match self {
            RunError::Spawn { .. } => 1,
            RunError::Failed { code, .. } => *code,
        }
    }
}

impl Tools {
    /// Locates the tools from the environment and the wrapper's own path.
    pub fn locate(cxx: bool) -> Tools {
        let (clang, clang_prefix) = match std::env::var_os(env::CLANG) {
            Some(c) if !c.is_empty() => (
                PathBuf::from(c),
                if cxx {
                    vec!["--driver-mode=g++".to_string()]
                } else {
                    Vec::new()
                },
            ),
            _ => (default_clang(cxx), Vec::new()),
        };
        let instrument = match std::env::var_os(env::INSTRUMENT) {
            Some(p) if !p.is_empty() => PathBuf::from(p),
            _ => std::env::current_exe()
                .ok()
                .and_then(|exe| exe.parent().map(|d| d.join("reach-instrument")))
                .unwrap_or_else(|| PathBuf::from("reach-instrument")),
        };
        let verbose = std::env::var(env::WRAPPER_VERBOSE).is_ok_and(|v| v == "1");
        Tools {
            clang,
            clang_prefix,
            instrument,
            verbose,
            include: include_dir(),
        }
    }

    /// Runs one step.
    pub fn run(&self, step: &Step) -> Result<(), RunError> {
        let (program, args, var): (&Path, Vec<String>, _) = match step {
            Step::Clang(a) => {
                let mut all = self.clang_prefix.clone();
                all.extend(a.iter().cloned());
                // Compilations of sources (and preprocessing) see reach.h.
                if let Some(dir) = &self.include {
                    if a.iter().any(|f| f == "-emit-llvm" || f == "-E") {
                        all.push("-idirafter".to_string());
                        all.push(dir.to_string_lossy().into_owned());
                    }
                }
                (&self.clang, all, env::CLANG)
            }
            Step::Instrument { input, output } => (
                &self.instrument,
                vec![
                    "--inline-guards".to_string(),
                    "--drop-dead-code".to_string(),
                    input.to_string_lossy().into_owned(),
                    "-o".to_string(),
                    output.to_string_lossy().into_owned(),
                ],
                env::INSTRUMENT,
            ),
        };
        self.run_program(program, &args, &format!("set {var} to its path"))
    }

    /// Runs `program` with `args`; `hint` says how to name another program
    /// if it cannot be started.
    pub fn run_program(&self, program: &Path, args: &[String], hint: &str) -> Result<(), RunError> {
        if self.verbose {
            eprintln!("+ {} {}", program.display(), shell_words(args));
        }
        let status = Command::new(program)
            .args(args)
            .status()
            .map_err(|source| RunError::Spawn {
                program: program.display().to_string(),
                hint: hint.to_string(),
                source,
            })?;
        if status.success() {
            Ok(())
        } else {
            Err(RunError::Failed {
                program: program.display().to_string(),
                code: status.code().unwrap_or(1).max(1),
            })
        }
    }
}

/// The directory of `reach.h`: `$REACH_INCLUDE` if set, else the first of
/// `include/` next to the wrapper, `../include` and `../../include` from
/// it (the last is the source tree's `include/` for a wrapper in
/// `target/release/`) that holds `reach.h`.
pub fn include_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os(env::INCLUDE) {
        if !dir.is_empty() {
            return Some(PathBuf::from(dir));
        }
    }
    let exe = std::env::current_exe().ok()?;
    let bin = exe.parent()?;
    [
        bin.join("include"),
        bin.join("../include"),
        bin.join("../../include"),
    ]
    .into_iter()
    .find(|d| d.join("reach.h").is_file())
}

/// `clang-22`/`clang++-22` on the PATH, else the LLVM 22 install directory.
fn default_clang(cxx: bool) -> PathBuf {
    let name = if cxx { "clang++-22" } else { "clang-22" };
    let on_path = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).any(|d| d.join(name).is_file()))
        .unwrap_or(false);
    if on_path {
        return PathBuf::from(name);
    }
    let fallback = Path::new("/usr/lib/llvm-22/bin").join(if cxx { "clang++" } else { "clang" });
    if fallback.is_file() {
        fallback
    } else {
        PathBuf::from(name)
    }
}

fn shell_words(args: &[String]) -> String {
    args.iter()
        .map(|a| {
            if a.is_empty() || a.contains(|c: char| c.is_whitespace() || "'\"\\$".contains(c)) {
                format!("'{}'", a.replace('\'', "'\\''"))
            } else {
                a.clone()
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}
