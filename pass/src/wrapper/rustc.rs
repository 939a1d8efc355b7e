//! The `reach-rustc` front: runs `rustc` so that the crate's code reaches
//! the linker as LLVM bitcode, with this program as the linker.
//!
//! ```text
//! reach-rustc [/path/to/rustc] ARGS...
//!   -> rustc ARGS... -C linker-plugin-lto -C codegen-units=1 [-C debuginfo=2]
//!                    -C linker=<reach-rustc>          (REACH_RUSTC_LINK=<real linker>)
//! ```
//!
//! With `-C linker-plugin-lto` rustc writes the crate's objects (and the
//! members of the rlibs it builds) as bitcode and leaves code generation to
//! the linker; rustc then calls `reach-rustc` as its linker, which is the
//! [`super::link`] mode: it instruments every bitcode input, compiles it and
//! calls the real linker. The precompiled standard library is native and
//! linked as usual.
//!
//! Cargo calls a `RUSTC_WRAPPER` with the path of `rustc` first; called
//! directly (`reach-rustc -g main.rs -o main`) the wrapper runs `$REACH_RUSTC`
//! or `rustc` from the `PATH`. Invocations that produce no target code pass
//! through unchanged: version and `--print` probes, input from standard
//! input, build scripts (`build_script_*`) and procedural macros (they run
//! in the compiler or in cargo, not in the program under test).

use reach_channel::env;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// What the wrapper runs for one command line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RustcPlan {
    /// The compiler.
    pub rustc: PathBuf,
    /// Its arguments.
    pub args: Vec<String>,
    /// The real linker for the link mode (`None`: pass through, no link mode).
    pub linker: Option<String>,
}

/// True if `arg` names a `rustc` executable (what cargo passes a wrapper first).
fn is_rustc_path(arg: &str) -> bool {
    if arg.starts_with('-') {
        return false;
    }
    let name = Path::new(arg)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    name == "rustc" || (name.starts_with("rustc") && !name.ends_with(".rs"))
}

/// Arguments with rustc's `@file` arguments (one argument per line) expanded,
/// for inspection only: the compiler still gets the originals.
fn inspectable(args: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    for a in args {
        match a.strip_prefix('@').map(std::fs::read_to_string) {
            Some(Ok(text)) => out.extend(text.lines().map(str::to_string)),
            _ => out.push(a.clone()),
        }
    }
    out
}

/// The value of codegen option `key` (`-C key=v` or `-Ckey=v`), last one wins.
fn codegen_option<'a>(args: &'a [String], key: &str) -> Option<&'a str> {
    let mut found = None;
    let mut it = args.iter().peekable();
    while let Some(a) = it.next() {
        let opt = if a == "-C" || a == "--codegen" {
            it.next().map(String::as_str)
        } else {
            a.strip_prefix("-C")
                .or_else(|| a.strip_prefix("--codegen="))
                .filter(|rest| !rest.is_empty())
        };
        if let Some(opt) = opt {
            let (k, v) = opt.split_once('=').unwrap_or((opt, ""));
            if k == key {
                found = Some(v);
            }
        }
    }
    found
}

/// The value of option `name` given as `name V` or `name=V` (last one wins).
fn option_value<'a>(args: &'a [String], name: &str) -> Vec<&'a str> {
    let mut out = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if a == name {
            if let Some(v) = it.next() {
                out.push(v.as_str());
            }
        } else if let Some(v) = a.strip_prefix(name).and_then(|r| r.strip_prefix('=')) {
            out.push(v);
        }
    }
    out
}

/// Why the wrapper leaves a command line alone, if it does.
pub fn pass_through_reason(args: &[String]) -> Option<&'static str> {
    let a = inspectable(args);
    if a.iter().any(|x| {
        matches!(
            x.as_str(),
            "-V" | "-vV" | "--version" | "-" | "--help" | "-h"
        ) || x.starts_with("--print")
    }) {
        return Some("a probe");
    }
    if option_value(&a, "--crate-name")
        .iter()
        .any(|n| n.starts_with("build_script_"))
    {
        return Some("a build script");
    }
    if option_value(&a, "--crate-type")
        .iter()
        .any(|t| t.split(',').any(|t| t == "proc-macro"))
    {
        return Some("a procedural macro");
    }
    let has_input = a.iter().any(|x| x.ends_with(".rs") && !x.starts_with('-'));
    if !has_input {
        return Some("no source file");
    }
    None
}

/// Removes codegen options `keys` (both spellings) from `args`.
fn without_codegen(args: &[String], keys: &[&str]) -> Vec<String> {
    let matches = |opt: &str| keys.contains(&opt.split_once('=').map_or(opt, |(k, _)| k));
    let mut out = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        if (a == "-C" || a == "--codegen") && i + 1 < args.len() && matches(&args[i + 1]) {
            i += 2;
            continue;
        }
        if let Some(rest) = a.strip_prefix("-C").filter(|r| !r.is_empty()) {
            if matches(rest) {
                i += 1;
                continue;
            }
        }
        out.push(a.clone());
        i += 1;
    }
    out
}

/// Plans the compiler run for `argv` (without the wrapper's own name);
/// `me` is the wrapper's path (the linker rustc will call).
pub fn plan(argv: &[String], me: &Path) -> RustcPlan {
    let (rustc, args) = match argv.first() {
        Some(first) if is_rustc_path(first) => (PathBuf::from(first), argv[1..].to_vec()),
        _ => (
            std::env::var_os(env::RUSTC)
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
                .unwrap_or_else(|| PathBuf::from("rustc")),
            argv.to_vec(),
        ),
    };
    if pass_through_reason(&args).is_some() {
        return RustcPlan {
            rustc,
            args,
            linker: None,
        };
    }
    let seen = inspectable(&args);
    let linker = codegen_option(&seen, "linker")
        .filter(|l| !l.is_empty())
        .unwrap_or("cc")
        .to_string();
    // Debug info is how the pass tells the user's code from the library's
    // (and gives source lines): at least `-C debuginfo=2` unless given.
    let debug_given = match codegen_option(&seen, "debuginfo") {
        Some(level) => !matches!(level, "0" | "none" | "false" | "n" | "no" | "off"),
        None => seen.iter().any(|a| a == "-g"),
    };
    // The link mode's own linker; fat LTO over bitcode (no bitcode-less objects).
    let mut out = without_codegen(
        &args,
        &["linker", "lto", "linker-plugin-lto", "embed-bitcode"],
    );
    out.extend(
        [
            "-C",
            "linker-plugin-lto",
            "-C",
            "lto=fat",
            "-C",
            "codegen-units=1",
        ]
        .map(String::from),
    );
    if !debug_given {
        out.extend(["-C", "debuginfo=2"].map(String::from));
    }
    out.extend(["-C".to_string(), format!("linker={}", me.display())]);
    RustcPlan {
        rustc,
        args: out,
        linker: Some(linker),
    }
}

/// Runs rustc as planned; returns its exit code.
pub fn run(plan: &RustcPlan, verbose: bool) -> i32 {
    let mut cmd = std::process::Command::new(&plan.rustc);
    cmd.args(&plan.args);
    match &plan.linker {
        Some(l) => {
            cmd.env(env::RUSTC_LINK, l);
        }
        None => {
            cmd.env_remove(env::RUSTC_LINK);
        }
    }
    if verbose {
        eprintln!("+ {} {}", plan.rustc.display(), plan.args.join(" "));
    }
    match cmd.status() {
        Ok(s) => s.code().unwrap_or(1),
        Err(e) => {
            eprintln!(
                "reach-rustc: error: cannot run {}: {e} (set {} to its path)",
                plan.rustc.display(),
                env::RUSTC
            );
            1
        }
    }
}

/// Entry point of `reach-rustc`: the link mode when rustc called it as its
/// linker (`REACH_RUSTC_LINK` set), else the compiler front. Returns the exit code.
pub fn main_with(argv: &[OsString]) -> i32 {
    let args: Vec<String> = argv
        .iter()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let verbose = std::env::var(env::WRAPPER_VERBOSE).is_ok_and(|v| v == "1");
    if let Some(linker) = std::env::var_os(env::RUSTC_LINK).filter(|v| !v.is_empty()) {
        return super::link::main_with(&args, &linker.to_string_lossy());
    }
    let me = std::env::current_exe().unwrap_or_else(|_| PathBuf::from("reach-rustc"));
    run(&plan(&args, &me), verbose)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn cargo_probes_build_scripts_and_proc_macros_pass_through() {
        let me = Path::new("/bin/reach-rustc");
        for args in [
            s(&["/x/rustc", "-vV"]),
            s(&["/x/rustc", "-", "--crate-name", "___", "--print=file-names"]),
            s(&["rustc", "--crate-name", "build_script_build", "build.rs"]),
            s(&["rustc", "--crate-type", "proc-macro", "src/lib.rs"]),
        ] {
            let p = plan(&args, me);
            assert_eq!(p.linker, None, "{args:?}");
            assert_eq!(p.args, args[1..].to_vec());
        }
    }

    #[test]
    fn a_crate_gets_bitcode_objects_and_the_link_mode() {
        let me = Path::new("/bin/reach-rustc");
        let p = plan(
            &s(&[
                "/tc/bin/rustc",
                "--crate-name",
                "app",
                "src/main.rs",
                "-C",
                "embed-bitcode=no",
                "-C",
                "lto=fat",
                "-Clinker=clang",
            ]),
            me,
        );
        assert_eq!(p.rustc, PathBuf::from("/tc/bin/rustc"));
        assert_eq!(p.linker.as_deref(), Some("clang"));
        let joined = p.args.join(" ");
        assert_eq!(joined.matches("lto=fat").count(), 1, "{joined}");
        assert!(!joined.contains("embed-bitcode"), "{joined}");
        assert!(!joined.contains("linker=clang"), "{joined}");
        assert!(
            joined.ends_with(
                "-C linker-plugin-lto -C lto=fat -C codegen-units=1 -C debuginfo=2 -C linker=/bin/reach-rustc"
            ),
            "{joined}"
        );
    }

    #[test]
    fn direct_use_keeps_the_users_debug_level() {
        let p = plan(
            &s(&["-g", "--edition", "2021", "main.rs", "-o", "main"]),
            Path::new("/r"),
        );
        assert_eq!(p.rustc, PathBuf::from("rustc"));
        assert_eq!(p.linker.as_deref(), Some("cc"));
        assert!(!p.args.join(" ").contains("debuginfo"));
        assert_eq!(
            &p.args[..6],
            &s(&["-g", "--edition", "2021", "main.rs", "-o", "main"])[..]
        );
    }
}
