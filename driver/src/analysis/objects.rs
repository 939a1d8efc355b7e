//! Object keys: the granules an operation touches, and how.

use reach_channel::{Access, Class, Op, RmwFamily, Space};

/// Most granules of one ranged access that are tracked individually; bytes
/// beyond are folded into the last tracked granule (a documented
/// approximation for very large `memcpy`s).
pub const MAX_GRANULES_PER_ACCESS: u64 = 4096;

/// A tracked object: one granule of one space.
pub type ObjectKey = (Space, u64);

/// The updates that commute with each other: one [`RmwFamily`] on one byte
/// range (a granule may hold several ranges, which do not commute).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Group {
    /// The operations' family.
    pub family: RmwFamily,
    /// First byte of the range.
    pub start: u64,
    /// Length of the range.
    pub len: u64,
}

/// What an access does to one granule ([`Class`] with the range of an
/// update, which decides what it commutes with).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Mode {
    /// A read: commutes with reads.
    Read,
    /// A write: conflicts with every access.
    Write,
    /// An unused-result update: commutes with the updates of its group.
    Update(Group),
}

impl Mode {
    /// The mode of `access` on each granule it touches.
    pub fn of(access: &Access) -> Mode {
        match access.class {
            Class::Read => Mode::Read,
            Class::Write => Mode::Write,
            Class::Update(family) => Mode::Update(Group {
                family,
                start: access.start,
                len: access.len,
            }),
        }
    }

    /// True if the access changes (or may change) the granule: a write or
    /// an update.
    pub fn writes(self) -> bool {
        self != Mode::Read
    }

    /// True if two accesses of one granule in these modes conflict:
    /// [`Access::conflicts`] on a common granule.
    pub fn conflicts(self, other: Mode) -> bool {
        match (self, other) {
            (Mode::Read, Mode::Read) => false,
            (Mode::Update(a), Mode::Update(b)) => a != b,
            _ => true,
        }
    }
}

/// Every (object, mode) pair an operation touches.
pub fn touched(op: &Op) -> impl Iterator<Item = (ObjectKey, Mode)> + '_ {
    op.accesses().into_iter().flatten().flat_map(granules)
}

fn granules(access: Access) -> impl Iterator<Item = (ObjectKey, Mode)> {
    let first = access.first_granule();
    let last = access
        .last_granule()
        .min(first.saturating_add(MAX_GRANULES_PER_ACCESS - 1));
    let mode = Mode::of(&access);
    (first..=last).map(move |g| ((access.space, g), mode))
}
