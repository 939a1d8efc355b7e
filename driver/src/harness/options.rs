//! Telling `reach-native`'s own options apart from what follows them (the
//! program, its arguments, test filters) in a list of words, from the
//! option definitions of [`crate::cli::Cli`], so that a command that hands
//! options on (`reach-native test`, `cargo reach`) needs no list of its own.

use crate::cli::Cli;
use clap::CommandFactory;
use std::ffi::OsString;

/// One option as written: its long name (or short letter) and the words
/// it took (the option and, if apart, its value).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WrittenOption {
    /// The option's id (clap's, the long name with `_` for `-`).
    pub id: String,
    /// The words as given: `["--jobs", "4"]` or `["--jobs=4"]`.
    pub words: Vec<OsString>,
}

/// Splits `words` into the leading `reach-native` options and the rest,
/// which starts at the first word that is not an option or an option's
/// value (a `--` there is dropped). A word that looks like an option but
/// is not one of `reach-native`'s starts the rest too.
pub fn split_options(words: &[OsString]) -> (Vec<WrittenOption>, Vec<OsString>) {
    let command = Cli::command();
    let mut options = Vec::new();
    let mut at = 0;
    while let Some(word) = words.get(at) {
        let text = word.to_string_lossy();
        if text == "--" {
            at += 1;
            break;
        }
        let found = if let Some(long) = text.strip_prefix("--") {
            let (name, inline) = match long.split_once('=') {
                Some((name, _)) => (name, true),
                None => (long, false),
            };
            command
                .get_arguments()
                .find(|a| a.get_long() == Some(name))
                .map(|a| (a, inline))
        } else if let Some(short) = text.strip_prefix('-').filter(|s| s.chars().count() == 1) {
            command
                .get_arguments()
                .find(|a| a.get_short().map(String::from).as_deref() == Some(short))
                .map(|a| (a, false))
        } else {
            None
        };
        let Some((arg, inline)) = found else { break };
        let takes_value = arg.get_action().takes_values();
        let count = if takes_value && !inline { 2 } else { 1 };
        let taken: Vec<OsString> = words[at..(at + count).min(words.len())].to_vec();
        at += taken.len();
        options.push(WrittenOption {
            id: arg.get_id().to_string(),
            words: taken,
        });
    }
    (options, words[at.min(words.len())..].to_vec())
}

/// The words of `options`, in order, leaving out those whose id is in
/// `drop`.
pub fn words_without(options: &[WrittenOption], drop: &[&str]) -> Vec<OsString> {
    options
        .iter()
        .filter(|o| !drop.contains(&o.id.as_str()))
        .flat_map(|o| o.words.iter().cloned())
        .collect()
}

/// The value given to option `id` last, if any (`--json FILE`, `--json=FILE`).
pub fn value_of(options: &[WrittenOption], id: &str) -> Option<OsString> {
    let option = options.iter().rev().find(|o| o.id == id)?;
    match option.words.as_slice() {
        [_, value] => Some(value.clone()),
        [word] => word
            .to_string_lossy()
            .split_once('=')
            .map(|(_, v)| OsString::from(v)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> Vec<OsString> {
        text.split(' ').map(OsString::from).collect()
    }

    #[test]
    fn options_with_values_apart_or_inline_end_at_the_first_other_word() {
        let (options, rest) = split_options(&words(
            "--max-time 5 --jobs=2 -q --keep-going ./prog --exact a",
        ));
        let ids: Vec<&str> = options.iter().map(|o| o.id.as_str()).collect();
        assert_eq!(ids, ["max_time", "jobs", "quiet", "keep_going"]);
        assert_eq!(options[0].words, words("--max-time 5"));
        assert_eq!(rest, words("./prog --exact a"));
        assert_eq!(value_of(&options, "jobs"), Some(OsString::from("2")));
        assert_eq!(
            words_without(&options, &["jobs", "quiet"]),
            words("--max-time 5 --keep-going")
        );
    }

    #[test]
    fn a_separator_or_an_unknown_option_starts_the_rest() {
        let (options, rest) = split_options(&words("--stats -- --exact name"));
        assert_eq!(options.len(), 1);
        assert_eq!(rest, words("--exact name"));
        let (options, rest) = split_options(&words("--gtest_filter=A.B"));
        assert!(options.is_empty());
        assert_eq!(rest, words("--gtest_filter=A.B"));
    }
}
