//! Building a package through `reach-rustc` into a target directory of
//! `cargo reach`'s own, and finding the executables cargo built.

use anyhow::{bail, Context, Result};
use serde_json::Value;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The build settings `cargo reach` gives cargo, as environment variables,
/// and why: at `opt-level` 0 std's channel methods are not inlined, so
/// each channel operation stays one step (a library region), and spin
/// loops are recognised as await loops as in optimised code; full debug
/// information gives every step its source line; incremental compilation
/// is off (`reach-rustc` compiles the whole program as one module).
pub const SETTINGS: [(&str, &str); 6] = [
    ("CARGO_PROFILE_DEV_OPT_LEVEL", "0"),
    ("CARGO_PROFILE_TEST_OPT_LEVEL", "0"),
    ("CARGO_PROFILE_DEV_DEBUG", "2"),
    ("CARGO_PROFILE_TEST_DEBUG", "2"),
    ("CARGO_INCREMENTAL", "0"),
    ("RUST_BACKTRACE", ""),
];

/// The line that states the settings.
pub fn settings_line(target: &Path) -> String {
    format!(
        "cargo reach: building through reach-rustc into {} at opt-level 0 with full debug info, incremental off (std's channels stay one step per operation; spin loops are await loops)",
        target.display()
    )
}

/// What a build needs: cargo, the wrapper, the target directory.
pub struct Build {
    /// The cargo executable (`$CARGO`, else `cargo`).
    pub cargo: OsString,
    /// `reach-rustc`, the `RUSTC_WRAPPER`.
    pub wrapper: PathBuf,
    /// The target directory of `cargo reach`'s builds.
    pub target: PathBuf,
}

impl Build {
    /// A command of cargo with the settings, the wrapper and the target
    /// directory.
    fn cargo(&self, subcommand: &[&str], args: &[OsString]) -> Command {
        let mut command = Command::new(&self.cargo);
        command.args(subcommand).args(args);
        command
            .arg("--message-format=json-render-diagnostics")
            .arg("--target-dir")
            .arg(&self.target)
            .env("RUSTC_WRAPPER", &self.wrapper);
        for (name, value) in SETTINGS {
            if value.is_empty() {
                command.env_remove(name);
            } else {
                command.env(name, value);
            }
        }
        command
    }

    /// Runs cargo (`test --no-run` or `build`) with `args`; its messages
    /// on standard error go to ours. Returns the artifacts it reported.
    pub fn run(&self, subcommand: &[&str], args: &[OsString]) -> Result<Vec<Artifact>> {
        let output = self
            .cargo(subcommand, args)
            .stderr(Stdio::inherit())
            .output()
            .with_context(|| format!("cannot run {}", Path::new(&self.cargo).display()))?;
        if !output.status.success() {
            bail!("cargo {} failed ({})", subcommand.join(" "), output.status);
        }
        Ok(artifacts(&String::from_utf8_lossy(&output.stdout)))
    }
}

/// An executable cargo built.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Artifact {
    /// The target's name (`sync_kit`, `lost_update`).
    pub name: String,
    /// Its kinds (`lib`, `bin`, `test`, ...).
    pub kinds: Vec<String>,
    /// Built as a test harness.
    pub test: bool,
    /// The executable.
    pub executable: PathBuf,
}

/// The executables among cargo's `--message-format=json` messages.
pub fn artifacts(messages: &str) -> Vec<Artifact> {
    messages
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|m| m["reason"] == "compiler-artifact")
        .filter_map(|m| {
            Some(Artifact {
                name: m["target"]["name"].as_str()?.to_string(),
                kinds: m["target"]["kind"]
                    .as_array()
                    .map(|k| {
                        k.iter()
                            .filter_map(|s| s.as_str().map(String::from))
                            .collect()
                    })
                    .unwrap_or_default(),
                test: m["profile"]["test"].as_bool().unwrap_or(false),
                executable: PathBuf::from(m["executable"].as_str()?),
            })
        })
        .collect()
}

/// The target directory of `cargo reach`: `reach/` in the target
/// directory a `--target-dir` among `cargo_args` names (taken out of
/// them), else in the workspace's (`cargo metadata` knows it, with
/// `--manifest-path` among `cargo_args` taken into account).
pub fn target_dir(cargo: &OsString, cargo_args: &mut Vec<OsString>) -> Result<PathBuf> {
    if let Some(at) = cargo_args.iter().position(|a| a == "--target-dir") {
        let given: Vec<OsString> = cargo_args
            .drain(at..(at + 2).min(cargo_args.len()))
            .collect();
        let dir = given.get(1).context("--target-dir needs a directory")?;
        return Ok(Path::new(dir).join("reach"));
    }
    if let Some(at) = cargo_args
        .iter()
        .position(|a| a.to_string_lossy().starts_with("--target-dir="))
    {
        let given = cargo_args.remove(at);
        let text = given.to_string_lossy();
        let dir = text.trim_start_matches("--target-dir=");
        return Ok(Path::new(dir).join("reach"));
    }
    let mut command = Command::new(cargo);
    command.args([
        "metadata",
        "--format-version",
        "1",
        "--no-deps",
        "--offline",
    ]);
    if let Some(at) = cargo_args.iter().position(|a| a == "--manifest-path") {
        command.args(&cargo_args[at..(at + 2).min(cargo_args.len())]);
    }
    let output = command.output().context("cannot run cargo metadata")?;
    if !output.status.success() {
        bail!(
            "cargo metadata failed: {}",
            String::from_utf8_lossy(&output.stderr).trim()
        );
    }
    let metadata: Value =
        serde_json::from_slice(&output.stdout).context("cargo metadata printed no JSON")?;
    let dir = metadata["target_directory"]
        .as_str()
        .context("cargo metadata names no target directory")?;
    Ok(Path::new(dir).join("reach"))
}

/// What identifies a build of the tools: size and modification time of
/// each of `tools`. Cargo does not notice a new `RUSTC_WRAPPER`, so a
/// target directory built by other tools is cleaned first.
pub fn tools_stamp(tools: &[PathBuf]) -> String {
    tools
        .iter()
        .map(|tool| {
            let meta = std::fs::metadata(tool).ok();
            let modified = meta
                .as_ref()
                .and_then(|m| m.modified().ok())
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map_or(0, |d| d.as_nanos());
            format!(
                "{} {} {modified}\n",
                tool.display(),
                meta.map_or(0, |m| m.len())
            )
        })
        .collect()
}

/// Empties `target` when the tools changed since its last build; returns
/// true if it did.
pub fn refresh(target: &Path, stamp: &str) -> Result<bool> {
    let file = target.join("reach-tools.stamp");
    let old = std::fs::read_to_string(&file).ok();
    let cleaned = match old {
        Some(old) if old == stamp => false,
        _ if target.exists() => {
            std::fs::remove_dir_all(target)
                .with_context(|| format!("cannot clean {}", target.display()))?;
            true
        }
        _ => false,
    };
    std::fs::create_dir_all(target)
        .with_context(|| format!("cannot create {}", target.display()))?;
    std::fs::write(&file, stamp).with_context(|| format!("cannot write {}", file.display()))?;
    Ok(cleaned)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn artifacts_are_read_from_cargo_messages() {
        let messages = r#"{"reason":"compiler-artifact","target":{"name":"kit","kind":["lib"]},"profile":{"test":true},"executable":"/t/deps/kit-1"}
{"reason":"compiler-artifact","target":{"name":"kit","kind":["lib"]},"profile":{"test":false},"executable":null}
{"reason":"compiler-artifact","target":{"name":"tool","kind":["bin"]},"profile":{"test":false},"executable":"/t/tool"}
{"reason":"build-finished","success":true}
not json"#;
        let found = artifacts(messages);
        assert_eq!(found.len(), 2);
        assert_eq!(found[0].executable, PathBuf::from("/t/deps/kit-1"));
        assert!(found[0].test);
        assert_eq!(found[1].kinds, ["bin"]);
        assert!(!found[1].test);
    }

    #[test]
    fn a_given_target_dir_is_taken_out_of_cargo_arguments() {
        let cargo = OsString::from("cargo");
        let mut args: Vec<OsString> = ["-p", "kit", "--target-dir", "/t"]
            .map(OsString::from)
            .to_vec();
        let dir = target_dir(&cargo, &mut args).expect("a directory");
        assert_eq!(dir, PathBuf::from("/t/reach"));
        assert_eq!(args, ["-p", "kit"].map(OsString::from));
        let mut args = vec![OsString::from("--target-dir=/u")];
        assert_eq!(
            target_dir(&cargo, &mut args).expect("a directory"),
            PathBuf::from("/u/reach")
        );
        assert!(args.is_empty());
    }

    #[test]
    fn a_target_is_cleaned_when_the_tools_change() {
        let dir = std::env::temp_dir().join(format!("reach-stamp-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        assert!(!refresh(&dir, "a").expect("first build"));
        std::fs::write(dir.join("built"), b"").expect("an artifact");
        assert!(!refresh(&dir, "a").expect("same tools"));
        assert!(dir.join("built").exists());
        assert!(refresh(&dir, "b").expect("new tools"));
        assert!(!dir.join("built").exists());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
