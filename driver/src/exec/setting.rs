//! What the program finds around it when it starts, made the same for every
//! execution, whatever shell, directory or environment the driver runs in.
//!
//! With address-space randomisation off, the kernel places the program's
//! initial stack right below a fixed top: the path it was executed as, the
//! environment strings, the argument strings, then the pointers to them
//! (`argv`, `envp`), the auxiliary vector and `argc`. Where `main`'s frame
//! (and every stack variable a thread shares) lies thus depends on the
//! bytes of those strings and on how many there are: one more environment
//! variable moves it. The driver therefore starts the program with a
//! *padded* environment: the program path is absolute (so the directory the
//! driver runs in does not matter, for `argv[0]` too), and padding
//! variables (`REACH_PAD_<n>`, removed by the runtime before `main`) bring
//! the strings to exactly [`EnvLayout::bytes`] bytes and the pointers to
//! exactly [`EnvLayout::entries`] entries. Two runs with the same arguments
//! and the same layout then start `main` at the same stack address, with the
//! arguments at the same addresses. The layout is the default unless the
//! environment needs more room, in which case it grows in fixed steps and
//! the schedule file records it for `--replay`.

use serde::{Deserialize, Serialize};
use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::{OsStrExt, OsStringExt};

pub use reach_channel::env::PAD_PREFIX;

/// Bytes of one padding variable's value at most (the kernel refuses a
/// string longer than 128 KiB).
const PAD_VALUE_MAX: u64 = 64 * 1024;

/// Default [`EnvLayout::bytes`]: room for any ordinary environment.
const DEFAULT_BYTES: u64 = 64 * 1024;
/// Default [`EnvLayout::entries`].
const DEFAULT_ENTRIES: u64 = 256;

/// The room the program's strings and pointers take on its initial stack.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EnvLayout {
    /// Bytes of the strings: the executed path, the arguments (`argv[0]`
    /// included) and the environment, each with its terminating NUL.
    pub bytes: u64,
    /// Arguments plus environment variables (`argc + envc`).
    pub entries: u64,
}

impl Default for EnvLayout {
    fn default() -> EnvLayout {
        EnvLayout {
            bytes: DEFAULT_BYTES,
            entries: DEFAULT_ENTRIES,
        }
    }
}

impl EnvLayout {
    /// True for the default layout (not written in schedule files).
    pub fn is_default(&self) -> bool {
        *self == EnvLayout::default()
    }

    /// This layout, grown in whole default steps until strings of `bytes`
    /// bytes and `entries` entries fit in it with their padding.
    pub fn fitting(self, bytes: u64, entries: u64) -> EnvLayout {
        let mut layout = self;
        loop {
            if layout.entries < entries + 1 {
                // At least one padding variable.
                layout.entries += DEFAULT_ENTRIES;
                continue;
            }
            let pads = layout.entries - entries;
            let names = pad_names_bytes(pads);
            if layout.bytes < bytes + names {
                layout.bytes += DEFAULT_BYTES;
                continue;
            }
            if layout.bytes - bytes - names > pads * PAD_VALUE_MAX {
                // Too few padding variables to carry the filler.
                layout.entries += DEFAULT_ENTRIES;
                continue;
            }
            return layout;
        }
    }

    /// True if strings of `bytes` bytes and `entries` entries fit in this
    /// layout without growing it.
    pub fn fits(&self, bytes: u64, entries: u64) -> bool {
        self.fitting(bytes, entries) == *self
    }
}

/// Bytes the names of `pads` padding variables take with their `=` and NUL.
fn pad_names_bytes(pads: u64) -> u64 {
    (0..pads).map(|i| pad_name(i).len() as u64 + 2).sum()
}

/// Name of the `index`th padding variable.
fn pad_name(index: u64) -> String {
    format!("{PAD_PREFIX}{index}")
}

/// What the program is executed with: the path, `argv` (with `argv[0]`)
/// and the environment as `(name, value)` pairs.
#[derive(Clone, Debug)]
pub struct StartBlock {
    /// The path given to `execve` (absolute).
    pub path: OsString,
    /// `argv`, `argv[0]` first.
    pub argv: Vec<OsString>,
    /// The environment, padding included.
    pub env: Vec<(OsString, OsString)>,
    /// The layout the strings were padded to (grown if they did not fit
    /// the one asked for).
    pub layout: EnvLayout,
}

/// Bytes and entries of `argv` and `env` as the kernel copies them, with
/// the executed `path`.
pub fn measure(path: &OsStr, argv: &[OsString], env: &[(OsString, OsString)]) -> (u64, u64) {
    let bytes = path.len() as u64
        + 1
        + argv.iter().map(|a| a.len() as u64 + 1).sum::<u64>()
        + env
            .iter()
            .map(|(k, v)| (k.len() + 1 + v.len()) as u64 + 1)
            .sum::<u64>();
    (bytes, (argv.len() + env.len()) as u64)
}

/// Pads `env` (without padding variables of its own: those are dropped) so
/// that `path`, `argv` and it take exactly `layout` (grown if needed).
pub fn padded(
    path: OsString,
    argv: Vec<OsString>,
    env: Vec<(OsString, OsString)>,
    layout: EnvLayout,
) -> StartBlock {
    let mut env: Vec<(OsString, OsString)> = env
        .into_iter()
        .filter(|(k, _)| !k.as_bytes().starts_with(PAD_PREFIX.as_bytes()))
        .collect();
    let (bytes, entries) = measure(&path, &argv, &env);
    let layout = layout.fitting(bytes, entries);
    let pads = layout.entries - entries;
    // Each padding variable costs its name, `=` and NUL; the filler is
    // spread over their values (at most PAD_VALUE_MAX each, by `fitting`).
    let filler = layout.bytes - bytes - pad_names_bytes(pads);
    for i in 0..pads {
        let take = filler / pads + u64::from(i < filler % pads);
        env.push((
            OsString::from(pad_name(i)),
            OsString::from_vec(vec![b'0'; take as usize]),
        ));
    }
    StartBlock {
        path,
        argv,
        env,
        layout,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pair(k: &str, v: &str) -> (OsString, OsString) {
        (k.into(), v.into())
    }

    #[test]
    fn padding_fills_the_layout_exactly_whatever_the_environment() {
        let argv: Vec<OsString> = vec!["/tmp/prog".into(), "a".into(), "b c".into()];
        for env in [
            vec![],
            vec![pair("HOME", "/root")],
            vec![pair("HOME", "/root"), pair("X", &"y".repeat(3000))],
        ] {
            let block = padded("/tmp/prog".into(), argv.clone(), env, EnvLayout::default());
            assert_eq!(block.layout, EnvLayout::default());
            let (bytes, entries) = measure(&block.path, &block.argv, &block.env);
            assert_eq!((bytes, entries), (64 * 1024, 256));
        }
    }

    #[test]
    fn a_large_environment_grows_the_layout_in_steps() {
        let env: Vec<_> = (0..300)
            .map(|i| pair(&format!("V{i}"), &"x".repeat(400)))
            .collect();
        let block = padded("/p".into(), vec!["/p".into()], env, EnvLayout::default());
        assert_eq!(block.layout.entries, 512);
        assert_eq!(block.layout.bytes, 128 * 1024);
        let (bytes, entries) = measure(&block.path, &block.argv, &block.env);
        assert_eq!((bytes, entries), (block.layout.bytes, block.layout.entries));
        assert!(block
            .env
            .iter()
            .all(|(_, v)| v.len() as u64 <= PAD_VALUE_MAX));
    }

    #[test]
    fn inherited_padding_is_replaced_not_kept() {
        let env = vec![pair("REACH_PAD_0", &"0".repeat(100)), pair("A", "1")];
        let block = padded("/p".into(), vec!["/p".into()], env, EnvLayout::default());
        assert_eq!(
            block
                .env
                .iter()
                .filter(|(k, _)| k.as_bytes().starts_with(PAD_PREFIX.as_bytes()))
                .count() as u64,
            256 - 2
        );
    }
}
