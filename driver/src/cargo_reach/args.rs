//! The command line of `cargo reach test|run`: cargo's own arguments, the
//! test name filter cargo takes before `--`, and what follows `--`
//! (`reach-native` options, then test filters or the program's arguments).

use crate::harness::options::{split_options, WrittenOption};
use std::ffi::OsString;

/// What `cargo reach` is asked to do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Subcommand {
    /// Explore every test case of the package's test binaries.
    Test,
    /// Explore the package's binary.
    Run,
}

/// A parsed `cargo reach` command line.
#[derive(Debug)]
pub struct CargoReachArgs {
    /// `test` or `run`.
    pub subcommand: Subcommand,
    /// Arguments for cargo (`-p NAME`, `--features ...`, ...).
    pub cargo: Vec<OsString>,
    /// `reach-native` options given after `--`.
    pub reach: Vec<WrittenOption>,
    /// Test filters (`test`: the name before `--` and the words after
    /// the options after it) or the program's arguments (`run`).
    pub rest: Vec<OsString>,
}

/// Cargo options of `cargo test`/`cargo build` that take a value apart.
const CARGO_VALUE_OPTIONS: [&str; 18] = [
    "-p",
    "--package",
    "--exclude",
    "--test",
    "--bench",
    "--bin",
    "--example",
    "-F",
    "--features",
    "--target",
    "--target-dir",
    "--manifest-path",
    "--profile",
    "-j",
    "--jobs",
    "--color",
    "-Z",
    "--config",
];

/// Parses the arguments after `cargo reach` (or after `cargo-reach`, with
/// or without the `reach` cargo puts first). An error line
/// for a command line it cannot take.
pub fn parse(words: &[OsString]) -> Result<CargoReachArgs, String> {
    let words = match words.first() {
        Some(first) if first == "reach" => &words[1..],
        _ => words,
    };
    let subcommand = match words.first().map(|w| w.to_string_lossy()) {
        Some(w) if w == "test" => Subcommand::Test,
        Some(w) if w == "run" => Subcommand::Run,
        Some(w) => {
            return Err(format!(
                "unknown subcommand {w}: cargo reach test or cargo reach run"
            ))
        }
        None => return Err("missing subcommand: cargo reach test or cargo reach run".into()),
    };
    let words = &words[1..];
    let (before, after) = match words.iter().position(|w| w == "--") {
        Some(at) => (&words[..at], &words[at + 1..]),
        None => (words, &[][..]),
    };
    let mut cargo = Vec::new();
    let mut names = Vec::new();
    let mut at = 0;
    while let Some(word) = before.get(at) {
        let text = word.to_string_lossy();
        if text == "--no-run" {
            at += 1;
            continue;
        }
        if CARGO_VALUE_OPTIONS.contains(&text.as_ref()) {
            cargo.extend(before[at..(at + 2).min(before.len())].iter().cloned());
            at += 2;
            continue;
        }
        if text.starts_with('-') {
            cargo.push(word.clone());
        } else if subcommand == Subcommand::Test {
            names.push(word.clone());
        } else {
            return Err(format!(
                "unexpected argument {text}: give the program's arguments after --"
            ));
        }
        at += 1;
    }
    let (reach, after_options) = split_options(after);
    names.extend(after_options);
    Ok(CargoReachArgs {
        subcommand,
        cargo,
        reach,
        rest: names,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> Vec<OsString> {
        text.split(' ').map(OsString::from).collect()
    }

    #[test]
    fn cargo_options_test_name_and_reach_options_are_told_apart() {
        let args = parse(&words(
            "reach test -p kit --features x,y race --no-run -- --max-time 5 -q lost",
        ))
        .expect("parses");
        assert_eq!(args.subcommand, Subcommand::Test);
        assert_eq!(args.cargo, words("-p kit --features x,y"));
        let ids: Vec<&str> = args.reach.iter().map(|o| o.id.as_str()).collect();
        assert_eq!(ids, ["max_time", "quiet"]);
        assert_eq!(args.rest, words("race lost"));
    }

    #[test]
    fn run_takes_the_program_arguments_after_the_options() {
        let args = parse(&words("run --bin tool -- --stats --threads 4")).expect("parses");
        assert_eq!(args.subcommand, Subcommand::Run);
        assert_eq!(args.cargo, words("--bin tool"));
        assert_eq!(args.reach.len(), 1);
        assert_eq!(args.rest, words("--threads 4"));
        assert!(parse(&words("run stray")).is_err());
        assert!(parse(&words("bench")).is_err());
        assert!(parse(&[]).is_err());
    }
}
