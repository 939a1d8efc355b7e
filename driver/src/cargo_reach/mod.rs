//! `cargo reach test` and `cargo reach run`: the package or workspace
//! built through `reach-rustc` into a target directory of its own, then
//! `reach-native test` on every test binary cargo built, or `reach-native`
//! on the binary.

pub mod args;
pub mod build;

use anyhow::{bail, Context, Result};
use args::{CargoReachArgs, Subcommand};
use build::Build;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The usage text of `cargo reach --help`.
pub const USAGE: &str = "\
Systematic concurrency testing of a cargo package's tests and binaries.

Usage:
  cargo reach test [CARGO TEST OPTIONS] [TESTNAME] [-- [REACH-NATIVE OPTIONS] [FILTER...]]
  cargo reach run  [CARGO BUILD OPTIONS] [-- [REACH-NATIVE OPTIONS] [ARGS...]]

Builds through reach-rustc into target/reach (the normal build stays as it
was), then explores every test case of every test binary cargo built
(reach-native test), or the binary with ARGS (reach-native). Test cases
are picked by TESTNAME and the FILTERs (a test runs if its name contains
one). reach-native's options (--max-time, --jobs, --json, ...) go after --.

Examples:
  cargo reach test
  cargo reach test -p mycrate queue -- --max-time 60 --jobs 2
  cargo reach run --bin server -- --strategy pct --max-time 30 --port 0

Exit status: that of the worst test (2 error, 1 bug, 3 stopped by a limit, 0 all passed).";

/// Runs `cargo reach` with `words` (the arguments after the executable)
/// and returns the exit status.
pub fn main_with(words: &[OsString]) -> Result<u8> {
    if words
        .iter()
        .take(2)
        .any(|w| w == "--help" || w == "-h" || w == "help")
    {
        println!("{USAGE}");
        return Ok(0);
    }
    if words.iter().take(2).any(|w| w == "--version" || w == "-V") {
        println!("cargo-reach {}", env!("CARGO_PKG_VERSION"));
        return Ok(0);
    }
    let mut args = args::parse(words).map_err(anyhow::Error::msg)?;
    let tools = Tools::beside_me()?;
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| OsString::from("cargo"));
    let target = build::target_dir(&cargo, &mut args.cargo)?;
    let stamp = build::tools_stamp(&[tools.rustc.clone(), tools.instrument.clone()]);
    if build::refresh(&target, &stamp)? {
        eprintln!("cargo reach: reach-rustc changed since the last build: building from clean");
    }
    eprintln!("{}", build::settings_line(&target));
    let build = Build {
        cargo,
        wrapper: tools.rustc.clone(),
        target,
    };
    match args.subcommand {
        Subcommand::Test => test(&build, &tools, &args),
        Subcommand::Run => run(&build, &tools, &args),
    }
}

/// The sibling tools `cargo reach` runs, from its own directory.
struct Tools {
    rustc: PathBuf,
    instrument: PathBuf,
    native: PathBuf,
}

impl Tools {
    fn beside_me() -> Result<Tools> {
        let exe = std::env::current_exe().context("cannot locate the cargo-reach executable")?;
        let dir = exe.parent().context("cargo-reach has no directory")?;
        let tool = |name: &str| -> Result<PathBuf> {
            let path = dir.join(name);
            if !path.is_file() {
                bail!(
                    "{name} not found beside cargo-reach in {}: install the tools together (make install)",
                    dir.display()
                );
            }
            Ok(path)
        };
        Ok(Tools {
            rustc: tool("reach-rustc")?,
            instrument: tool("reach-instrument")?,
            native: tool("reach-native")?,
        })
    }
}

/// `cargo reach test`: every test binary, one `reach-native test` each.
fn test(build: &Build, tools: &Tools, args: &CargoReachArgs) -> Result<u8> {
    let built = build.run(&["test", "--no-run"], &args.cargo)?;
    let binaries: Vec<_> = built.into_iter().filter(|a| a.test).collect();
    if binaries.is_empty() {
        eprintln!("cargo reach: cargo built no test binary");
        return Ok(0);
    }
    let several = binaries.len() > 1;
    let mut worst: Option<u8> = None;
    for binary in &binaries {
        let options = per_binary_options(args, &binary.name, several);
        let status = Command::new(&tools.native)
            .arg("test")
            .args(&options)
            .arg(&binary.executable)
            .args(&args.rest)
            .env_remove("RUST_BACKTRACE")
            .status()
            .with_context(|| format!("cannot run {}", tools.native.display()))?;
        let code = status.code().map_or(2, |c| u8::try_from(c).unwrap_or(2));
        worst = Some(worst.map_or(code, |w| worse(w, code)));
        println!();
    }
    Ok(worst.unwrap_or(0))
}

/// The `reach-native` options for one test binary: with several binaries,
/// each `--json` and `--junit` file gets the target's name before its
/// extension, so that one binary's report does not overwrite another's.
fn per_binary_options(args: &CargoReachArgs, name: &str, several: bool) -> Vec<OsString> {
    let mut words = Vec::new();
    for option in &args.reach {
        let renamed = several && matches!(option.id.as_str(), "json" | "junit");
        match crate::harness::options::value_of(std::slice::from_ref(option), &option.id) {
            Some(file) if renamed => {
                let flag = option.words[0].to_string_lossy();
                let flag = flag.split('=').next().unwrap_or_default().to_string();
                words.push(OsString::from(flag));
                words.push(named_for(Path::new(&file), name).into_os_string());
            }
            _ => words.extend(option.words.iter().cloned()),
        }
    }
    words
}

/// `report.json` for target `kit`: `report.kit.json`.
fn named_for(file: &Path, name: &str) -> PathBuf {
    let stem = file
        .file_stem()
        .map_or("report".into(), |s| s.to_string_lossy());
    let name = match file.extension() {
        Some(ext) => format!("{stem}.{name}.{}", ext.to_string_lossy()),
        None => format!("{stem}.{name}"),
    };
    file.with_file_name(name)
}

/// The worse of two `reach-native` exit statuses: 2 error, then 1 bug,
/// then 3 limit, then 0.
fn worse(a: u8, b: u8) -> u8 {
    let rank = |c: u8| match c {
        0 => 0,
        3 => 1,
        1 => 2,
        _ => 3,
    };
    if rank(b) > rank(a) {
        b
    } else {
        a
    }
}

/// `cargo reach run`: the package's one binary (or the one `--bin`
/// names) under `reach-native`.
fn run(build: &Build, tools: &Tools, args: &CargoReachArgs) -> Result<u8> {
    let built = build.run(&["build"], &args.cargo)?;
    let bins: Vec<_> = built
        .into_iter()
        .filter(|a| !a.test && a.kinds.iter().any(|k| k == "bin"))
        .collect();
    let binary = match bins.as_slice() {
        [one] => one,
        [] => bail!("cargo built no binary to run"),
        several => bail!(
            "cargo built several binaries ({}): pick one with --bin NAME",
            several
                .iter()
                .map(|b| b.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    let options: Vec<OsString> = args
        .reach
        .iter()
        .flat_map(|o| o.words.iter().cloned())
        .collect();
    let status = Command::new(&tools.native)
        .args(&options)
        .arg(&binary.executable)
        .args(&args.rest)
        .env_remove("RUST_BACKTRACE")
        .status()
        .with_context(|| format!("cannot run {}", tools.native.display()))?;
    Ok(status.code().map_or(2, |c| u8::try_from(c).unwrap_or(2)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_worst_status_is_error_then_bug_then_limit() {
        assert_eq!(worse(0, 3), 3);
        assert_eq!(worse(3, 1), 1);
        assert_eq!(worse(1, 3), 1);
        assert_eq!(worse(1, 2), 2);
        assert_eq!(worse(2, 0), 2);
    }

    #[test]
    fn several_binaries_get_reports_of_their_own() {
        let args = args::parse(
            &["test", "--", "--json=out/r.json", "--junit", "j.xml", "-q"].map(OsString::from),
        )
        .expect("parses");
        let words = per_binary_options(&args, "kit", true);
        assert_eq!(
            words,
            ["--json", "out/r.kit.json", "--junit", "j.kit.xml", "-q"].map(OsString::from)
        );
        let words = per_binary_options(&args, "kit", false);
        assert_eq!(words[0], OsString::from("--json=out/r.json"));
    }
}
