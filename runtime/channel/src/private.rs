//! Memory only one thread has touched: the records by which the runtime
//! tells the driver about accesses that were no scheduling points.
//!
//! With [`crate::layout::REQ_PRIVATE`] the runtime keeps, per 4-byte
//! granule, the first thread that accessed it in the execution. A plain
//! access of that thread to its own granules records no event (it is no
//! scheduling point: nothing another thread did can come between it and
//! the thread's next scheduling point, and no other thread has touched the
//! memory). When a second thread reaches an access to such a granule, the
//! granule becomes shared for the rest of the execution (every access to it
//! is a scheduling point again) and the runtime writes the owner's
//! accesses to it as [`PrivateRecord`]s: per granule its last write and
//! its last read, with the bytes they touched and the *position* at which
//! they ran (the number of events recorded before them). The race detector
//! compares them like events: an access at position `p` of thread `t`
//! happens before another thread's access if that thread has seen an event
//! of `t` at index `p` or later, since `t`'s clock changes only at its
//! events.

/// Records the private region holds. Each granule the runtime lets a thread
/// own reserves the two records its owner's summary needs; a granule it
/// cannot reserve room for stays shared.
pub const PRIVATE_CAPACITY: u32 = 1 << 19;

/// [`PrivateRecord::kind`]: the owner's last write of the bytes.
pub const PRIVATE_WRITE: u8 = 1;
/// [`PrivateRecord::kind`]: the owner's last read of the bytes.
pub const PRIVATE_READ: u8 = 2;

/// The owner's last write or read of some bytes of one granule, none of
/// them a scheduling point.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PrivateRecord {
    /// Address of the granule (a multiple of [`crate::ops::GRANULE`]).
    pub granule: u64,
    /// Site of the access.
    pub site: u64,
    /// Events recorded before the access ran.
    pub position: u32,
    /// The owner.
    pub thread: u16,
    /// [`PRIVATE_WRITE`] or [`PRIVATE_READ`].
    pub kind: u8,
    /// The granule's bytes it touched (bit `i`: byte `granule + i`).
    pub bytes: u8,
}

const _: () = assert!(core::mem::size_of::<PrivateRecord>() == 24);
