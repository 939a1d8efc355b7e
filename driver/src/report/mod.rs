//! Reports: the human-readable text on the terminal, the JSON report, and the
//! schedule file written for a bug.

pub mod json;
pub mod text;

use crate::binary::Binary;
use crate::trace::TraceEvent;
use reach_channel::OpKind;

/// The object of an event as shown to people: `thread 2`, `0x4040a0`, or nothing.
pub fn object_text(event: &TraceEvent) -> String {
    match event.op.kind {
        OpKind::ThreadCreate | OpKind::ThreadJoin | OpKind::ThreadDetach => {
            format!("thread {}", event.op.object)
        }
        OpKind::Fence
        | OpKind::Yield
        | OpKind::Sleep
        | OpKind::ProcessExit
        | OpKind::ThreadExit => String::new(),
        OpKind::CondWait | OpKind::CondRelock => {
            format!("{:#x} (mutex {:#x})", event.op.object, event.op.aux)
        }
        _ => format!("{:#x}", event.op.object),
    }
}

/// Source location of an event, or a placeholder.
pub fn location_text(binary: &Binary, site: u64) -> String {
    binary.location(site).unwrap_or_else(|| {
        if site == 0 {
            "(no source location: uninstrumented caller)".to_string()
        } else {
            format!("(site {site:#x})")
        }
    })
}

/// Replaces every `(site 0x…)` the runtime wrote into a message with the
/// site's source location.
pub fn resolve_sites(message: &str, binary: &Binary) -> String {
    const MARK: &str = "(site 0x";
    let mut out = String::with_capacity(message.len());
    let mut rest = message;
    while let Some(start) = rest.find(MARK) {
        let after = &rest[start + MARK.len()..];
        let hex_len = after
            .find(|c: char| !c.is_ascii_hexdigit())
            .unwrap_or(after.len());
        let closed = after[hex_len..].starts_with(')');
        let location = u64::from_str_radix(&after[..hex_len], 16)
            .ok()
            .filter(|_| closed)
            .and_then(|site| binary.location(site));
        out.push_str(&rest[..start]);
        match location {
            Some(text) => {
                out.push_str("at ");
                out.push_str(&text);
                rest = &after[hex_len + 1..];
            }
            None => {
                out.push_str(MARK);
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}
