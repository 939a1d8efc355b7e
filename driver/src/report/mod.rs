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
