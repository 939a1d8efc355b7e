//! Object keys: the granules an operation touches.

use reach_channel::{Access, Class, Op, Space};

/// Most granules of one ranged access that are tracked individually; bytes
/// beyond are folded into the last tracked granule (a documented
/// approximation for very large `memcpy`s).
pub const MAX_GRANULES_PER_ACCESS: u64 = 4096;

/// A tracked object: one granule of one space.
pub type ObjectKey = (Space, u64);

/// Every (object, class) pair an operation touches.
pub fn touched(op: &Op) -> impl Iterator<Item = (ObjectKey, Class)> + '_ {
    op.accesses().into_iter().flatten().flat_map(granules)
}

fn granules(access: Access) -> impl Iterator<Item = (ObjectKey, Class)> {
    let first = access.first_granule();
    let last = access
        .last_granule()
        .min(first.saturating_add(MAX_GRANULES_PER_ACCESS - 1));
    (first..=last).map(move |g| ((access.space, g), access.class))
}
