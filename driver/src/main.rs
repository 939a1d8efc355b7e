//! `reach-native`: the command-line driver. It parses the arguments, runs
//! the mode they ask for ([`reach_native::modes`]) and turns how it ended
//! into the exit status.

use clap::Parser;
use reach_native::cli::{Cli, MergeCli};
use reach_native::modes;
use reach_native::session::{Status, EXIT_ERROR};
use std::ffi::OsStr;
use std::process::ExitCode;

fn main() -> ExitCode {
    reach_native::fatal::abort_on_panic("reach-native");
    // Die quietly on a closed pipe (`reach-native ... | head`) like other
    // command-line tools, instead of failing on every print.
    // SAFETY: setting a signal disposition to its default before any thread starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    // `reach-native merge ...` (a program named merge runs as ./merge).
    if std::env::args_os().nth(1).as_deref() == Some(OsStr::new("merge")) {
        let cli = MergeCli::parse_from(std::env::args_os().skip(1));
        return exit("reach-native merge", modes::merge(&cli).map(Status::code));
    }
    // `reach-native test PROGRAM [FILTER...]` (a program named test runs as ./test).
    if std::env::args_os().nth(1).as_deref() == Some(OsStr::new("test")) {
        let words: Vec<_> = std::env::args_os().skip(2).collect();
        return exit("reach-native test", modes::test(&words));
    }
    let cli = Cli::parse();
    let ended = if cli.replay.is_some() {
        modes::replay(&cli)
    } else {
        modes::explore(&cli)
    };
    exit("reach-native", ended.map(Status::code))
}

/// The exit status of a mode that ended with `ended`; an error is printed
/// as one line under `who`.
fn exit(who: &str, ended: anyhow::Result<u8>) -> ExitCode {
    match ended {
        Ok(code) => ExitCode::from(code),
        Err(error) => {
            eprintln!("{who}: error: {error:#}");
            ExitCode::from(EXIT_ERROR)
        }
    }
}
