//! Registry of every environment variable reach-native reads or sets.
//!
//! One place, so that a mistyped `REACH_*` variable can be reported with a
//! suggestion (see [`unknown_reach_vars`]).

/// Set by the driver for the program under test: the channel's fd number.
pub const CHANNEL_FD: &str = "REACH_CHANNEL_FD";
/// Read by the driver and the wrappers: path of the runtime library to preload.
pub const RUNTIME: &str = "REACH_RUNTIME";
/// Read by the compiler wrappers: the clang to use (default `clang-22`).
pub const CLANG: &str = "REACH_CLANG";
/// Read by the compiler wrappers: path of `reach-instrument`.
pub const INSTRUMENT: &str = "REACH_INSTRUMENT";
/// Read by `reach-rustc`: the rustc to run when called directly (default `rustc`).
pub const RUSTC: &str = "REACH_RUSTC";
/// Set by `reach-rustc` for the rustc it runs: the real linker; rustc then
/// calls `reach-rustc` as its linker, which instruments the bitcode inputs
/// and runs this one.
pub const RUSTC_LINK: &str = "REACH_RUSTC_LINK";
/// Read by the compiler wrappers: `1` to print every command they run.
pub const WRAPPER_VERBOSE: &str = "REACH_CC_VERBOSE";
/// Set by the driver: the fork server's control fds as `"<request>:<response>"`
/// (see [`crate::fork`]), or [`crate::fork::ENV_OFF`] to run one execution.
pub const FORK_SERVER: &str = "REACH_FORK_SERVER";
/// Read by the runtime: `1` to print scheduler decisions to stderr (debugging).
pub const RUNTIME_DEBUG: &str = "REACH_DEBUG";
/// The dynamic linker's variable that binds every symbol at start-up. The
/// driver sets it to [`BIND_NOW_MARK`] for a fork server (unless the user set
/// it), so that the server binds once what each child would otherwise bind
/// lazily, again and again; the runtime removes it before `main`.
pub const BIND_NOW: &str = "LD_BIND_NOW";
/// The value the driver gives [`BIND_NOW`].
pub const BIND_NOW_MARK: &str = "reach-native";
/// Set by the driver instead of [`BIND_NOW`] when it starts the program with
/// exec (where binding everything at every start would cost more than it
/// saves), to a value of the same length, so that the program's initial stack
/// is the same in both modes; the runtime removes it before `main`.
pub const BIND_LAZY: &str = "REACH_BIND_LAZY";

/// Value of [`BIND_LAZY`]: as long as `BIND_NOW=BIND_NOW_MARK` in all.
pub fn bind_lazy_value() -> String {
    "0".repeat(BIND_NOW.len() + BIND_NOW_MARK.len() - BIND_LAZY.len())
}

/// Prefix of the variables the driver adds to pad the program's arguments
/// and environment to a fixed room on its initial stack (so that stack
/// addresses do not depend on the environment the driver runs in); the
/// runtime removes them before `main`.
pub const PAD_PREFIX: &str = "REACH_PAD_";

/// Read by `reach-instrument` (so also through `reach-cc`): `1` adds the
/// shadow computations of concolic testing (inputs, expressions, path
/// constraints) to the instrumented code.
pub const SYMBOLIC: &str = "REACH_SYMBOLIC";

/// Directory of `reach.h` for the compiler wrapper (default: found next to
/// the wrapper, see `reach-cc`).
pub const INCLUDE: &str = "REACH_INCLUDE";

/// For tests of the driver only: execution N asks the runtime for a thread
/// that does not exist at the end of its schedule prefix, as a search that
/// asked for the impossible would (the internal-error path of the
/// nondeterminism check).
pub const TEST_PERTURB_EXECUTION: &str = "REACH_TEST_PERTURB_EXECUTION";

/// All known variables.
pub const ALL: &[&str] = &[
    SYMBOLIC,
    INCLUDE,
    CHANNEL_FD,
    RUNTIME,
    CLANG,
    INSTRUMENT,
    RUSTC,
    RUSTC_LINK,
    WRAPPER_VERBOSE,
    FORK_SERVER,
    RUNTIME_DEBUG,
    BIND_LAZY,
    TEST_PERTURB_EXECUTION,
];

/// `REACH_*` variables in `vars` that are not in [`ALL`], each with the
/// closest known name.
pub fn unknown_reach_vars<'a>(
    vars: impl IntoIterator<Item = &'a str>,
) -> Vec<(&'a str, &'static str)> {
    vars.into_iter()
        .filter(|v| v.starts_with("REACH_") && !ALL.contains(v))
        .map(|v| {
            let best = ALL
                .iter()
                .min_by_key(|k| edit_distance(v, k))
                .copied()
                .unwrap_or(CHANNEL_FD);
            (v, best)
        })
        .collect()
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != *cb);
            cur[j + 1] = (prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggests_the_closest_name() {
        let found = unknown_reach_vars(["REACH_CHANEL_FD", "REACH_RUNTIME", "PATH"]);
        assert_eq!(found, vec![("REACH_CHANEL_FD", CHANNEL_FD)]);
    }

    #[test]
    fn both_binding_variables_take_the_same_room() {
        let now = format!("{BIND_NOW}={BIND_NOW_MARK}");
        let lazy = format!("{BIND_LAZY}={}", bind_lazy_value());
        assert_eq!(now.len(), lazy.len());
    }
}
