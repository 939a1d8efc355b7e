//! The memory model shared by driver and runtime: which one an execution
//! runs under, how a schedule-prefix entry carries a load's reads-from
//! choice, and the record the runtime keeps of each atomic load's choice.
//!
//! Under [`MemoryModel::Sc`] every atomic load reads the latest store
//! (today's behaviour). Under [`MemoryModel::Rc11`] an atomic load may read
//! any store that the model allows it (coherence, happens-before, the
//! rules for `seq_cst`): its *candidates*, numbered from 0, the latest in
//! modification order, to the oldest allowed. Which one it reads is the
//! search's choice, carried in the high half of the load's prefix entry.

/// The memory model an execution runs under.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum MemoryModel {
    /// Every atomic is sequentially consistent: a load reads the latest store.
    #[default]
    Sc,
    /// RC11 (Lahav et al., PLDI 2017): relaxed, release/acquire and
    /// `seq_cst` atomics with their orderings; loads choose what they read.
    Rc11,
}

impl MemoryModel {
    /// The model's name on the command line and in schedule files.
    pub fn name(self) -> &'static str {
        match self {
            MemoryModel::Sc => "sc",
            MemoryModel::Rc11 => "rc11",
        }
    }

    /// The model of a name ([`MemoryModel::name`]).
    pub fn from_name(name: &str) -> Option<MemoryModel> {
        match name {
            "sc" => Some(MemoryModel::Sc),
            "rc11" => Some(MemoryModel::Rc11),
            _ => None,
        }
    }
}

/// Bits of a prefix entry that name the thread.
pub const PREFIX_THREAD_MASK: u32 = 0xffff;
/// Shift of the reads-from choice in a prefix entry.
pub const PREFIX_CHOICE_SHIFT: u32 = 16;

/// The prefix entry that runs `thread` and, if its step is an atomic load,
/// has it read its candidate `choice` (0: the latest store).
pub const fn prefix_entry(thread: u32, choice: u16) -> u32 {
    (thread & PREFIX_THREAD_MASK) | ((choice as u32) << PREFIX_CHOICE_SHIFT)
}

/// The thread of a prefix entry.
pub const fn entry_thread(entry: u32) -> u32 {
    entry & PREFIX_THREAD_MASK
}

/// The reads-from choice of a prefix entry.
pub const fn entry_choice(entry: u32) -> u16 {
    (entry >> PREFIX_CHOICE_SHIFT) as u16
}

/// Bit of the `ordering` argument of `__reach_atomic_load`: the pass calls
/// `__reach_atomic_load_value` after the load, so the runtime may give it
/// another value than memory holds. Without it (older modules, values
/// wider than 8 bytes) the load reads the latest store. Runtimes that do
/// not know the bit ignore it.
pub const ORDERING_VALUE_FOLLOWS: u32 = 1 << 16;
/// Shift of a compare-and-exchange's failure ordering in the `ordering`
/// argument of `__reach_cmpxchg` (the success ordering is the low 8 bits).
/// 0 there (older modules): the failure ordering is derived from the
/// success ordering.
pub const ORDERING_FAILURE_SHIFT: u32 = 8;

/// The writer of a [`ReadRecord`] that read the location's initial value
/// (or a value the runtime saw in memory before it tracked the location).
pub const INITIAL_WRITER: u32 = u32::MAX;

/// What one atomic access read and where its store went, written by the
/// runtime under [`MemoryModel::Rc11`] at the access's event index in the
/// reads region.
///
/// For a load (and a failed compare-and-exchange) the choice is the store
/// it read. For a store, a read-modify-write or a successful
/// compare-and-exchange ([`ReadRecord::placed`]) the choice is its place in
/// modification order, 0 after the latest store; a read-modify-write reads
/// the store just before that place.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReadRecord {
    /// The event index plus one, truncated to 32 bits: a record whose tag
    /// does not match its index is stale (the event made no choice).
    pub tag: u32,
    /// Choices it had (at least 1): stores a load could read, places a
    /// store could take.
    pub candidates: u16,
    /// The one taken: 0 reads the latest store, or places after it.
    pub choice: u16,
    /// Thread of the store it read, [`INITIAL_WRITER`] for the initial value.
    pub writer: u32,
    /// Thread of the latest store to the location when it read.
    pub latest_writer: u32,
    /// Event index of the store it read (`u64::MAX` for the initial value
    /// or a store not recorded).
    pub writer_step: u64,
    /// Event index of the latest store (as `writer_step`).
    pub latest_step: u64,
    /// The value it read, zero-extended.
    pub value: u64,
    /// The latest store's value (what memory held).
    pub latest_value: u64,
    /// For a store: how many of the location's stores are after it in
    /// modification order when it is placed (0: it is the latest).
    pub later_stores: u32,
    /// 1 if the access is a store placed in modification order (a store,
    /// a read-modify-write, a successful compare-and-exchange), 0 if it
    /// only read.
    pub placed: u16,
    /// The access's memory ordering as LLVM numbers it (2 relaxed, 4
    /// acquire, 5 release, 6 acq_rel, 7 seq_cst; a plain store 2, a failed
    /// compare-and-exchange its failure ordering): what the race detector
    /// needs to follow RC11's synchronisation.
    pub ordering: u16,
}

/// LLVM's number of the `monotonic` (relaxed) ordering.
pub const ORDERING_RELAXED: u16 = 2;
/// LLVM's number of the `acquire` ordering.
pub const ORDERING_ACQUIRE: u16 = 4;
/// LLVM's number of the `release` ordering.
pub const ORDERING_RELEASE: u16 = 5;
/// LLVM's number of the `acq_rel` ordering.
pub const ORDERING_ACQ_REL: u16 = 6;
/// LLVM's number of the `seq_cst` ordering.
pub const ORDERING_SEQ_CST: u16 = 7;

/// True if an access or fence of LLVM ordering `o` acquires.
pub const fn ordering_acquires(o: u16) -> bool {
    matches!(o, ORDERING_ACQUIRE | ORDERING_ACQ_REL | ORDERING_SEQ_CST)
}

/// True if an access or fence of LLVM ordering `o` releases.
pub const fn ordering_releases(o: u16) -> bool {
    matches!(o, ORDERING_RELEASE | ORDERING_ACQ_REL | ORDERING_SEQ_CST)
}

impl ReadRecord {
    /// The tag of event index `i`.
    pub const fn tag_of(i: u64) -> u32 {
        (i as u32).wrapping_add(1)
    }
}

const _: () = assert!(core::mem::size_of::<ReadRecord>() == 56);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefix_entries_carry_thread_and_choice() {
        let e = prefix_entry(3, 2);
        assert_eq!(entry_thread(e), 3);
        assert_eq!(entry_choice(e), 2);
        assert_eq!(prefix_entry(7, 0), 7);
    }

    #[test]
    fn model_names_round_trip() {
        for m in [MemoryModel::Sc, MemoryModel::Rc11] {
            assert_eq!(MemoryModel::from_name(m.name()), Some(m));
        }
        assert_eq!(MemoryModel::from_name("tso"), None);
    }
}
