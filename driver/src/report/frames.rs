//! Where a report places a step that ran in Rust's standard library: at
//! the nearest caller in the program's own code, with the library's
//! function as detail.
//!
//! A site's position is a chain of frames, innermost first: the
//! instruction's own function and line, then each function it was inlined
//! into. A release build inlines `AtomicUsize::fetch_add` into the
//! program's function, so the chain reaches the program's line:
//!
//! ```text
//! core::sync::atomic::atomic_add     .../library/core/src/sync/atomic.rs:3927
//! core::sync::atomic::AtomicUsize::fetch_add  .../atomic.rs:3136
//! app::worker                        src/main.rs:12        <- shown here, "in ...AtomicUsize::fetch_add"
//! ```
//!
//! A debug build calls `fetch_add` as a function of its own: the chain
//! stays in the library, and the step's caller (the program's call into
//! the library in progress, which the runtime records with the step)
//! gives the program's line, the library function being the one it
//! calls.

use reach_channel::sites::{is_library_source, Site};

/// One frame of a source position.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Frame {
    /// Function (demangled; empty if unknown).
    pub function: String,
    /// Source file as recorded.
    pub path: String,
    /// 1-based line (0 if unknown).
    pub line: u32,
    /// 1-based column (0 if unknown).
    pub column: u32,
    /// The frame as an inlined-at entry shows it.
    pub text: String,
}

impl Frame {
    /// True if the frame's source is the standard library's.
    pub fn in_library(&self) -> bool {
        is_library_source(&self.path)
    }

    /// `path:line:column` as recorded.
    pub fn position(&self) -> String {
        format!("{}:{}:{}", self.path, self.line, self.column)
    }
}

/// Parses an inlined-at entry of the site table, `function@file:line:column`.
pub fn parse_inlined(entry: &str) -> Option<Frame> {
    let (function, position) = entry.split_once('@')?;
    let mut parts = position.rsplitn(3, ':');
    let column = parts.next()?.parse().ok()?;
    let line = parts.next()?.parse().ok()?;
    let path = parts.next()?.to_string();
    Some(Frame {
        function: function.to_string(),
        path,
        line,
        column,
        text: entry.to_string(),
    })
}

/// The frames of a site record, innermost first (an inlined-at entry that
/// does not parse ends the chain).
pub fn of_site(site: &Site) -> Vec<Frame> {
    let mut frames = vec![Frame {
        function: site.function.clone(),
        path: site.file.clone(),
        line: site.line,
        column: site.column,
        text: format!("{}@{}", site.function, site.location()),
    }];
    frames.extend(site.inlined_at.iter().map_while(|e| parse_inlined(e)));
    frames
}

/// The first frame of the program's own code in a chain whose innermost
/// frame is the library's, and the library function it calls (the frame
/// inside it), if the chain reaches the program's code.
pub fn program_frame(frames: &[Frame]) -> Option<(usize, &str)> {
    let k = frames.iter().position(|f| !f.in_library())?;
    let called = frames.get(k.checked_sub(1)?)?;
    Some((k, called.function.as_str()))
}

/// The library function a library call site calls, from its record's
/// `what` (empty for an indirect call; `None` for another kind of site).
pub fn library_callee(site: &Site) -> Option<&str> {
    site.what
        .strip_prefix(reach_channel::hooks::LIBRARY_CALL_PREFIX)
}

#[cfg(test)]
mod tests {
    use super::*;

    const ATOMIC: &str =
        "/rustc/59807616e1fa2540724bfbac14d7976d7e4a3860/library/core/src/sync/atomic.rs";

    fn site(function: &str, file: &str, line: u32, inlined_at: &[&str]) -> Site {
        Site {
            id: 1,
            what: "atomic rmw".into(),
            file: file.into(),
            line,
            column: 5,
            function: function.into(),
            inlined_at: inlined_at.iter().map(|s| s.to_string()).collect(),
        }
    }

    #[test]
    fn an_inlined_library_step_is_placed_at_the_first_frame_of_the_program() {
        let fetch_add = format!("core::sync::atomic::AtomicUsize::fetch_add@{ATOMIC}:3136:26");
        let s = site(
            "core::sync::atomic::atomic_add",
            ATOMIC,
            3927,
            &[
                &fetch_add,
                "app::worker@/src/app/src/main.rs:12:9",
                "app::main@/src/app/src/main.rs:30:5",
            ],
        );
        let frames = of_site(&s);
        assert_eq!(frames.len(), 4);
        assert!(frames[0].in_library() && frames[1].in_library());
        assert_eq!(
            program_frame(&frames),
            Some((2, "core::sync::atomic::AtomicUsize::fetch_add"))
        );
        assert_eq!(frames[2].path, "/src/app/src/main.rs");
        assert_eq!((frames[2].line, frames[2].column), (12, 9));
        assert_eq!(frames[0].position(), format!("{ATOMIC}:3927:5"));
    }

    #[test]
    fn a_chain_that_stays_in_the_library_has_no_program_frame() {
        let s = site(
            "core::sync::atomic::atomic_add",
            ATOMIC,
            3927,
            &[&format!(
                "core::sync::atomic::AtomicUsize::fetch_add@{ATOMIC}:3136:26"
            )],
        );
        assert_eq!(program_frame(&of_site(&s)), None);
        let own = site("app::worker", "/src/app/src/main.rs", 12, &[]);
        assert_eq!(
            program_frame(&of_site(&own)),
            None,
            "not in the library at all"
        );
    }

    #[test]
    fn inlined_entries_parse_with_colons_in_the_function() {
        let f = parse_inlined("<a::B as c::D>::e@/x/y.rs:7:3").expect("parses");
        assert_eq!(f.function, "<a::B as c::D>::e");
        assert_eq!((f.path.as_str(), f.line, f.column), ("/x/y.rs", 7, 3));
        assert_eq!(parse_inlined("no position"), None);
    }

    #[test]
    fn library_call_sites_name_their_callee() {
        let mut s = site("app::worker", "/src/app/src/main.rs", 12, &[]);
        s.what = format!(
            "{}core::sync::atomic::AtomicUsize::fetch_add",
            reach_channel::hooks::LIBRARY_CALL_PREFIX
        );
        assert_eq!(
            library_callee(&s),
            Some("core::sync::atomic::AtomicUsize::fetch_add")
        );
        s.what = "load".into();
        assert_eq!(library_callee(&s), None);
    }
}
