//! The heap blocks and escaping stack objects of one execution, as the
//! runtime recorded them, and which of them held an address at a step of
//! the trace. Read only for executions that are reported.

use reach_channel::{ChannelError, ChannelView, ObjectKind, ObjectRecord};

/// Memory an address belonged to at some step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Holder {
    /// The `ordinal`-th heap block of the execution (1-based), allocated by
    /// a call returning to `origin`; `freed` if it was freed by then.
    Heap {
        /// 1-based allocation number in the execution.
        ordinal: u32,
        /// Return address of the allocating call.
        origin: u64,
        /// The program's call into the standard library in progress then
        /// (a site id, 0 if none): where a block the library's allocator
        /// made was asked for.
        caller: u64,
        /// The block was freed before the step.
        freed: bool,
    },
    /// A stack object of `thread`, made by the `alloca` of site `site`.
    Stack {
        /// Owning thread.
        thread: u32,
        /// Site id of the `alloca`.
        site: u64,
    },
}

/// An address's holder and its offset in it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Held {
    /// The object.
    pub holder: Holder,
    /// Bytes from the object's start.
    pub offset: u64,
}

/// The object records of one execution, validated.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ObjectLog {
    records: Vec<(ObjectKind, ObjectRecord)>,
    /// Step from which objects went unrecorded (the region was full).
    dropped_at: Option<u64>,
}

impl ObjectLog {
    /// Reads the records from `view`, dropping any that are malformed (the
    /// program under test may have scribbled over them).
    pub fn read(view: &ChannelView<'_>, threads: usize) -> Result<ObjectLog, ChannelError> {
        let (raw, dropped_at) = view.objects()?;
        let records = raw
            .into_iter()
            .filter(|r| (r.thread as usize) < threads)
            .filter_map(|r| Some((ObjectKind::from_u32(r.kind)?, r)))
            .collect();
        Ok(ObjectLog {
            records,
            dropped_at,
        })
    }

    /// A log of the given records (for tests and tools).
    pub fn from_records(records: &[ObjectRecord]) -> ObjectLog {
        ObjectLog {
            records: records
                .iter()
                .filter_map(|r| Some((ObjectKind::from_u32(r.kind)?, *r)))
                .collect(),
            dropped_at: None,
        }
    }

    /// True if nothing was recorded.
    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    /// The heap blocks allocated during the execution, in record (step)
    /// order: `(step, address, size)`, the block's bytes new from event
    /// `step` on.
    pub fn allocations(&self) -> impl Iterator<Item = (u64, u64, u64)> + '_ {
        self.records
            .iter()
            .filter(|(kind, _)| *kind == ObjectKind::Heap)
            .map(|(_, r)| (r.step, r.address, r.size))
    }

    /// The object holding `address` when event `step` ran: the latest one
    /// made at or before that step whose bytes cover it. `None` when no
    /// record covers it, or when records were dropped before the step (a
    /// reused address could then be named after an older object).
    pub fn holder(&self, address: u64, step: usize) -> Option<Held> {
        let step = step as u64;
        if self.dropped_at.is_some_and(|d| d <= step) {
            return None;
        }
        let known = self.records.partition_point(|(_, r)| r.step <= step);
        let (at, (kind, rec)) =
            self.records[..known]
                .iter()
                .enumerate()
                .rev()
                .find(|(_, (kind, r))| {
                    *kind != ObjectKind::Free
                        && address >= r.address
                        && address - r.address < r.size.max(1)
                })?;
        let holder = match kind {
            ObjectKind::Stack => Holder::Stack {
                thread: rec.thread,
                site: rec.origin,
            },
            _ => Holder::Heap {
                ordinal: 1 + self.records[..at]
                    .iter()
                    .filter(|(k, _)| *k == ObjectKind::Heap)
                    .count() as u32,
                origin: rec.origin,
                caller: rec.caller,
                freed: self.records[at + 1..known]
                    .iter()
                    .any(|(k, r)| *k == ObjectKind::Free && r.address == rec.address),
            },
        };
        Some(Held {
            holder,
            offset: address - rec.address,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(kind: ObjectKind, address: u64, size: u64, step: u64, thread: u32) -> ObjectRecord {
        ObjectRecord {
            address,
            size,
            origin: 0x1000 + address,
            caller: 0x9000 + address,
            step,
            thread,
            kind: kind as u32,
        }
    }

    #[test]
    fn latest_covering_object_names_an_address() {
        let log = ObjectLog::from_records(&[
            rec(ObjectKind::Heap, 0x100, 16, 0, 0),
            rec(ObjectKind::Heap, 0x200, 8, 1, 0),
            rec(ObjectKind::Free, 0x100, 0, 3, 1),
            rec(ObjectKind::Heap, 0x100, 32, 5, 1),
            rec(ObjectKind::Stack, 0x7000, 64, 6, 2),
        ]);
        let heap = |ordinal, freed, offset, origin| Held {
            holder: Holder::Heap {
                ordinal,
                origin,
                caller: origin + 0x8000,
                freed,
            },
            offset,
        };
        assert_eq!(log.holder(0x104, 2), Some(heap(1, false, 4, 0x1100)));
        assert_eq!(log.holder(0x104, 4), Some(heap(1, true, 4, 0x1100)));
        // The same address after it was reused by a later allocation.
        assert_eq!(log.holder(0x11c, 5), Some(heap(3, false, 0x1c, 0x1100)));
        assert_eq!(log.holder(0x11c, 4), None);
        assert_eq!(log.holder(0x207, 9), Some(heap(2, false, 7, 0x1200)));
        assert_eq!(log.holder(0x208, 9), None);
        assert_eq!(
            log.holder(0x7008, 6),
            Some(Held {
                holder: Holder::Stack {
                    thread: 2,
                    site: 0x8000
                },
                offset: 8
            })
        );
        assert_eq!(log.holder(0x7008, 5), None);
    }

    #[test]
    fn nothing_is_named_after_records_were_dropped() {
        let mut log = ObjectLog::from_records(&[rec(ObjectKind::Heap, 0x100, 16, 0, 0)]);
        log.dropped_at = Some(4);
        assert!(log.holder(0x100, 3).is_some());
        assert_eq!(log.holder(0x100, 4), None);
    }

    #[test]
    fn malformed_kinds_are_ignored() {
        let mut bad = rec(ObjectKind::Heap, 0x100, 16, 0, 0);
        bad.kind = 9;
        assert!(ObjectLog::from_records(&[bad]).is_empty());
    }
}
