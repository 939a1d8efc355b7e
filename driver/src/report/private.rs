//! A race's first access that was no step of its own (a private access,
//! [`reach_channel::private`]): what every report says about it.

use super::names::Names;
use crate::analysis::races::Race;
use crate::trace::Trace;
use reach_channel::private::PRIVATE_WRITE;
use reach_channel::OpKind;

/// A private first access of a race, as reports show it.
pub struct PrivateAccess {
    /// Its thread.
    pub thread: u32,
    /// `STORE` or `LOAD`.
    pub op: &'static str,
    /// The memory it touched, by name.
    pub object: String,
    /// Its source location.
    pub location: String,
    /// `after` the step `Race::first` of its thread, or `before` it (when it
    /// came before the thread's first step).
    pub side: &'static str,
}

/// The first access of `race` if it was no step of its own.
pub fn private_access(race: &Race, trace: &Trace, names: &Names) -> Option<PrivateAccess> {
    let p = race.first_private?;
    let kind = if p.kind == PRIVATE_WRITE {
        OpKind::Store
    } else {
        OpKind::Load
    };
    Some(PrivateAccess {
        thread: u32::from(p.thread),
        op: kind.name(),
        object: names.object_at(race.address, &trace.objects, race.first),
        location: names.step_location(p.site, 0),
        side: if race.first < p.position as usize {
            "after"
        } else {
            "before"
        },
    })
}
