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

/// The bytes of a granule an access covers, as a mask (bit `i` for the
/// granule's byte `i`).
pub type Bytes = u8;

const _: () = assert!(reach_channel::ops::GRANULE <= Bytes::BITS as u64);

/// Every (object, mode, bytes) triple an operation touches: [`touched`]
/// with the [`Bytes`] of each granule the access covers (all of the last
/// tracked granule of a ranged access, where the bytes beyond fold).
/// Data races are between accesses whose bytes overlap (C11's memory
/// locations); the granule stays the unit of the partial order.
pub fn touched_bytes(op: &Op) -> impl Iterator<Item = (ObjectKey, Mode, Bytes)> + '_ {
    op.accesses().into_iter().flatten().flat_map(|access| {
        let granule = reach_channel::ops::GRANULE;
        let end = access.start.saturating_add(access.len.max(1));
        let last = access.last_granule().min(
            access
                .first_granule()
                .saturating_add(MAX_GRANULES_PER_ACCESS - 1),
        );
        granules(access).map(move |(key, mode)| {
            let base = key.1 * granule;
            let from = access.start.max(base) - base;
            let to = if key.1 == last && end > base + granule {
                granule
            } else {
                end.min(base + granule) - base
            };
            let span = to.saturating_sub(from).max(1);
            let bytes = (((1u16 << span) - 1) << from) as Bytes;
            (key, mode, bytes)
        })
    })
}

/// The address of the first byte in both `a` and `b` of granule `granule`
/// (its first byte if they share none).
pub fn first_common_byte(granule: u64, a: Bytes, b: Bytes) -> u64 {
    let common = a & b;
    let offset = if common == 0 {
        0
    } else {
        common.trailing_zeros() as u64
    };
    granule * reach_channel::ops::GRANULE + offset
}

fn granules(access: Access) -> impl Iterator<Item = (ObjectKey, Mode)> {
    let first = access.first_granule();
    let last = access
        .last_granule()
        .min(first.saturating_add(MAX_GRANULES_PER_ACCESS - 1));
    let mode = Mode::of(&access);
    (first..=last).map(move |g| ((access.space, g), mode))
}

#[cfg(test)]
mod tests {
    use super::*;
    use reach_channel::OpKind;

    fn bytes_of(kind: OpKind, object: u64, aux: u64) -> Vec<(u64, Bytes)> {
        touched_bytes(&Op::new(kind, object, aux))
            .map(|((_, g), _, bytes)| (g, bytes))
            .collect()
    }

    #[test]
    fn each_granule_gets_the_bytes_the_access_covers() {
        assert_eq!(bytes_of(OpKind::Store, 0x1001, 1), vec![(0x400, 0b0010)]);
        assert_eq!(bytes_of(OpKind::Load, 0x1000, 4), vec![(0x400, 0b1111)]);
        assert_eq!(bytes_of(OpKind::Load, 0x1002, 2), vec![(0x400, 0b1100)]);
        assert_eq!(
            bytes_of(OpKind::Store, 0x1003, 8),
            vec![(0x400, 0b1000), (0x401, 0b1111), (0x402, 0b0111)]
        );
        // Past the tracked granules of a huge range, the last takes all.
        let huge = bytes_of(OpKind::RangeWrite, 0x1001, 4 * MAX_GRANULES_PER_ACCESS + 8);
        assert_eq!(huge.len() as u64, MAX_GRANULES_PER_ACCESS);
        assert_eq!(huge[0], (0x400, 0b1110));
        assert_eq!(huge[huge.len() - 1].1, 0b1111);
        assert_eq!(first_common_byte(0x400, 0b0110, 0b1100), 0x1002);
    }
}
