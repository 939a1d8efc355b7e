//! Validated, read-only view of a channel region for the driver.
//!
//! The runtime lives in the program under test, which may have scribbled over
//! the channel; every count and kind is checked before use.

use crate::layout::{
    Event, Header, Layout, ObjectRecord, RunStatus, ThreadSlot, MAGIC, MAX_THREADS, VERSION,
};
use crate::sources::{
    FileRecord, FileSeen, Seen, Source, SourceSeen, Sources, FILE_PATH_BYTES, FILE_PATH_CUT,
    FILE_WRITES, MAX_FILES,
};
use crate::symbolic::{
    sym_branches_offset, sym_nodes_offset, BranchRecord, InputSlot, SymHeader, SymNode,
    SYM_BRANCH_CAPACITY, SYM_MAX_INPUTS, SYM_NODE_CAPACITY,
};
use core::fmt;
use core::mem::{offset_of, size_of};

/// Why a channel region could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChannelError {
    /// The region is smaller than its header says.
    Truncated,
    /// Wrong magic number: not a channel, or overwritten.
    BadMagic(u64),
    /// Written by an incompatible runtime version.
    BadVersion(u32),
    /// A count or code in the region is out of range.
    Corrupt(&'static str),
}

impl fmt::Display for ChannelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ChannelError::Truncated => write!(f, "channel region is truncated"),
            ChannelError::BadMagic(m) => write!(f, "channel magic is {m:#x}, expected {MAGIC:#x}"),
            ChannelError::BadVersion(v) => {
                write!(
                    f,
                    "runtime speaks channel version {v}, driver speaks {VERSION}"
                )
            }
            ChannelError::Corrupt(what) => write!(f, "channel is corrupt: {what}"),
        }
    }
}

impl std::error::Error for ChannelError {}

/// Read-only view over the bytes of a channel region.
pub struct ChannelView<'a> {
    bytes: &'a [u8],
    layout: Layout,
}

fn read<T: Copy>(bytes: &[u8], offset: usize) -> Result<T, ChannelError> {
    let end = offset
        .checked_add(size_of::<T>())
        .ok_or(ChannelError::Truncated)?;
    if end > bytes.len() {
        return Err(ChannelError::Truncated);
    }
    // SAFETY: bounds checked above; `T` is a plain `repr(C)` integer aggregate
    // for which every bit pattern is valid, and the read is unaligned-safe.
    Ok(unsafe { core::ptr::read_unaligned(bytes.as_ptr().add(offset) as *const T) })
}

macro_rules! header_field {
    ($self:ident, $field:ident, $ty:ty) => {
        read::<$ty>($self.bytes, offset_of!(Header, $field))
    };
}

impl<'a> ChannelView<'a> {
    /// Validates the header of `bytes` and returns a view over it.
    pub fn new(bytes: &'a [u8]) -> Result<Self, ChannelError> {
        let magic: u64 = read(bytes, offset_of!(Header, magic))?;
        if magic != MAGIC {
            return Err(ChannelError::BadMagic(magic));
        }
        let version: u32 = read(bytes, offset_of!(Header, version))?;
        if version != VERSION {
            return Err(ChannelError::BadVersion(version));
        }
        let event_size: u32 = read(bytes, offset_of!(Header, event_size))?;
        if event_size as usize != size_of::<Event>() {
            return Err(ChannelError::Corrupt("event size"));
        }
        let layout = Layout {
            prefix_capacity: read(bytes, offset_of!(Header, prefix_capacity))?,
            event_capacity: read(bytes, offset_of!(Header, event_capacity))?,
            object_capacity: read(bytes, offset_of!(Header, object_capacity))?,
        };
        if layout.total_bytes() > bytes.len() {
            return Err(ChannelError::Truncated);
        }
        Ok(ChannelView { bytes, layout })
    }

    /// The region's layout.
    pub fn layout(&self) -> Layout {
        self.layout
    }

    /// How the execution ended, as the runtime reports it.
    pub fn status(&self) -> Result<RunStatus, ChannelError> {
        let raw: u32 = header_field!(self, status, u32)?;
        RunStatus::from_u32(raw).ok_or(ChannelError::Corrupt("status"))
    }

    /// [`Header::user_threads_off`] as the runtime wrote it (untrusted: at
    /// worst it makes the driver run an execution again with kernel threads).
    pub fn user_threads_off(&self) -> Result<u32, ChannelError> {
        header_field!(self, user_threads_off, u32)
    }

    /// Exit code reported with [`RunStatus::Exited`].
    pub fn exit_code(&self) -> Result<i32, ChannelError> {
        header_field!(self, exit_code, i32)
    }

    /// Number of events, checked against the capacity.
    pub fn event_count(&self) -> Result<usize, ChannelError> {
        let n: u64 = header_field!(self, event_count, u64)?;
        if n > self.layout.event_capacity as u64 {
            return Err(ChannelError::Corrupt("event count exceeds capacity"));
        }
        Ok(n as usize)
    }

    /// Number of threads the execution created, checked against [`MAX_THREADS`].
    pub fn thread_count(&self) -> Result<usize, ChannelError> {
        let n: u32 = header_field!(self, thread_count, u32)?;
        if n as usize > MAX_THREADS {
            return Err(ChannelError::Corrupt("thread count exceeds MAX_THREADS"));
        }
        Ok(n as usize)
    }

    /// Event `i` (raw; its kind is validated by [`Event::op`]).
    pub fn event(&self, i: usize) -> Result<Event, ChannelError> {
        if i >= self.layout.event_capacity as usize {
            return Err(ChannelError::Corrupt("event index"));
        }
        read(
            self.bytes,
            self.layout.events_offset() + i * size_of::<Event>(),
        )
    }

    /// The reads-from record at event index `i` (meaningful only under
    /// RC11, for an atomic load whose tag matches `i`: see
    /// [`crate::memory_model::ReadRecord`]).
    pub fn read_record(&self, i: usize) -> Result<crate::memory_model::ReadRecord, ChannelError> {
        if i >= self.layout.event_capacity as usize {
            return Err(ChannelError::Corrupt("read record index"));
        }
        read(
            self.bytes,
            self.layout.reads_offset() + i * size_of::<crate::memory_model::ReadRecord>(),
        )
    }

    /// The private-access records of the execution ([`crate::private`]),
    /// checked against the capacity; a record of an unknown kind, of no
    /// bytes or of an unaligned granule is corrupt.
    pub fn private_records(&self) -> Result<Vec<crate::private::PrivateRecord>, ChannelError> {
        use crate::private::{PrivateRecord, PRIVATE_CAPACITY, PRIVATE_READ, PRIVATE_WRITE};
        let n: u32 = header_field!(self, private_count, u32)?;
        if n > PRIVATE_CAPACITY {
            return Err(ChannelError::Corrupt(
                "private record count exceeds capacity",
            ));
        }
        (0..n as usize)
            .map(|i| {
                let r: PrivateRecord = read(
                    self.bytes,
                    self.layout.private_offset() + i * size_of::<PrivateRecord>(),
                )?;
                let valid = matches!(r.kind, PRIVATE_WRITE | PRIVATE_READ)
                    && r.bytes != 0
                    && r.bytes < 16
                    && r.granule.is_multiple_of(crate::ops::GRANULE);
                if valid {
                    Ok(r)
                } else {
                    Err(ChannelError::Corrupt("private record"))
                }
            })
            .collect()
    }

    /// The object records of the execution, checked against the capacity
    /// (their kinds and threads are validated by the reader), and the step
    /// from which objects went unrecorded, if the region filled up.
    pub fn objects(&self) -> Result<(Vec<ObjectRecord>, Option<u64>), ChannelError> {
        let n: u32 = header_field!(self, object_count, u32)?;
        if n > self.layout.object_capacity {
            return Err(ChannelError::Corrupt("object count exceeds capacity"));
        }
        let records = (0..n as usize)
            .map(|i| {
                read(
                    self.bytes,
                    self.layout.objects_offset() + i * size_of::<ObjectRecord>(),
                )
            })
            .collect::<Result<Vec<ObjectRecord>, _>>()?;
        let dropped: u64 = header_field!(self, objects_dropped_at, u64)?;
        Ok((records, (dropped != u64::MAX).then_some(dropped)))
    }

    /// Thread slot `t`.
    pub fn thread(&self, t: usize) -> Result<ThreadSlot, ChannelError> {
        if t >= MAX_THREADS {
            return Err(ChannelError::Corrupt("thread index"));
        }
        read(
            self.bytes,
            self.layout.threads_offset() + t * size_of::<ThreadSlot>(),
        )
    }

    /// Steps the execution ran, recorded or not (at least the recorded ones).
    pub fn step_count(&self) -> Result<u64, ChannelError> {
        let n: u64 = header_field!(self, step_count, u64)?;
        Ok(n.max(self.event_count()? as u64))
    }

    /// The `REQ_*` bits the execution ran under.
    pub fn request_flags(&self) -> Result<u32, ChannelError> {
        header_field!(self, request_flags, u32)
    }

    /// The recording bound the execution ran under (capped at the capacity).
    pub fn record_steps(&self) -> Result<u64, ChannelError> {
        let n: u64 = header_field!(self, record_steps, u64)?;
        Ok(n.min(u64::from(self.layout.event_capacity)))
    }

    /// Number of slots in the cut region (0: the trace is complete),
    /// checked against [`MAX_THREADS`].
    pub fn cut_threads(&self) -> Result<usize, ChannelError> {
        let n: u32 = header_field!(self, cut_threads, u32)?;
        if n as usize > MAX_THREADS {
            return Err(ChannelError::Corrupt(
                "cut thread count exceeds MAX_THREADS",
            ));
        }
        Ok(n as usize)
    }

    /// Slot `t` of the cut region: thread `t` when recording stopped.
    pub fn cut_thread(&self, t: usize) -> Result<ThreadSlot, ChannelError> {
        if t >= MAX_THREADS {
            return Err(ChannelError::Corrupt("thread index"));
        }
        read(
            self.bytes,
            self.layout.cut_offset() + t * size_of::<ThreadSlot>(),
        )
    }

    /// The runtime's message text (lossy UTF-8, bounded).
    pub fn message(&self) -> Result<String, ChannelError> {
        let len: u32 = header_field!(self, message_len, u32)?;
        let start = offset_of!(Header, message);
        let len = (len as usize).min(crate::layout::MESSAGE_BYTES);
        let bytes = self
            .bytes
            .get(start..start + len)
            .ok_or(ChannelError::Truncated)?;
        Ok(String::from_utf8_lossy(bytes).into_owned())
    }

    /// The sources of nondeterminism the runtime saw ([`crate::sources`]):
    /// unknown source bits are left out, a file record still being written
    /// (length 0) is skipped, and a longer length than a record holds is
    /// corrupt.
    pub fn sources(&self) -> Result<Seen, ChannelError> {
        let base = offset_of!(Header, sources);
        let seen: u32 = read(self.bytes, base + offset_of!(Sources, seen))?;
        let mut out = Seen::default();
        for source in Source::ALL {
            if seen & source.bit() != 0 {
                let at = source as usize * size_of::<u64>();
                out.sources.push(SourceSeen {
                    source,
                    site: read(self.bytes, base + offset_of!(Sources, sites) + at)?,
                    step: read(self.bytes, base + offset_of!(Sources, steps) + at)?,
                });
            }
        }
        let claimed: u32 = read(self.bytes, base + offset_of!(Sources, file_count))?;
        for i in 0..(claimed as usize).min(MAX_FILES) {
            let at = base + offset_of!(Sources, files) + i * size_of::<FileRecord>();
            let len: u32 = read(self.bytes, at + offset_of!(FileRecord, path_len))?;
            if len == 0 {
                continue;
            }
            if len as usize > FILE_PATH_BYTES {
                return Err(ChannelError::Corrupt("file path length"));
            }
            let path: [u8; FILE_PATH_BYTES] = read(self.bytes, at + offset_of!(FileRecord, path))?;
            let flags: u32 = read(self.bytes, at + offset_of!(FileRecord, flags))?;
            out.files.push(FileSeen {
                path: String::from_utf8_lossy(&path[..len as usize]).into_owned(),
                site: read(self.bytes, at + offset_of!(FileRecord, site))?,
                writes: flags & FILE_WRITES != 0,
                cut: flags & FILE_PATH_CUT != 0,
            });
        }
        Ok(out)
    }

    /// Step and requested thread of a divergence.
    pub fn divergence(&self) -> Result<(u64, u32), ChannelError> {
        Ok((
            header_field!(self, diverged_step, u64)?,
            header_field!(self, diverged_thread, u32)?,
        ))
    }

    /// Thread and site blamed for an abnormal end.
    pub fn culprit(&self) -> Result<(u32, u64), ChannelError> {
        Ok((
            header_field!(self, culprit_thread, u32)?,
            header_field!(self, culprit_site, u64)?,
        ))
    }

    /// What the runtime reports about the symbolic region: inputs created,
    /// nodes and path constraints written (each checked against its
    /// capacity), and the `SYM_OVERFLOW_*` bits.
    pub fn sym_counts(&self) -> Result<SymCounts, ChannelError> {
        let base = self.layout.sym_offset();
        let field = |off: usize| read::<u32>(self.bytes, base + off);
        let inputs = field(offset_of!(SymHeader, input_count))? as usize;
        let nodes = field(offset_of!(SymHeader, node_count))? as usize;
        let branches = field(offset_of!(SymHeader, branch_count))? as usize;
        if inputs > SYM_MAX_INPUTS || nodes > SYM_NODE_CAPACITY || branches > SYM_BRANCH_CAPACITY {
            return Err(ChannelError::Corrupt("symbolic count exceeds capacity"));
        }
        Ok(SymCounts {
            inputs,
            nodes,
            branches,
            overflow: field(offset_of!(SymHeader, overflow))?,
            flags: field(offset_of!(SymHeader, flags))?,
            stdin_bytes: field(offset_of!(SymHeader, stdin_bytes))?,
        })
    }

    /// Input `i` the execution created (raw; names are untrusted bytes).
    pub fn sym_input(&self, i: usize) -> Result<InputSlot, ChannelError> {
        if i >= SYM_MAX_INPUTS {
            return Err(ChannelError::Corrupt("input index"));
        }
        read(
            self.bytes,
            self.layout.sym_offset() + offset_of!(SymHeader, inputs) + i * size_of::<InputSlot>(),
        )
    }

    /// Expression node with id `id` (1-based; raw, operands unchecked).
    pub fn sym_node(&self, id: u32) -> Result<SymNode, ChannelError> {
        let i = (id as usize)
            .checked_sub(1)
            .filter(|i| *i < SYM_NODE_CAPACITY)
            .ok_or(ChannelError::Corrupt("node id"))?;
        read(
            self.bytes,
            self.layout.sym_offset() + sym_nodes_offset() + i * size_of::<SymNode>(),
        )
    }

    /// Path constraint `i` (raw).
    pub fn sym_branch(&self, i: usize) -> Result<BranchRecord, ChannelError> {
        if i >= SYM_BRANCH_CAPACITY {
            return Err(ChannelError::Corrupt("path constraint index"));
        }
        read(
            self.bytes,
            self.layout.sym_offset() + sym_branches_offset() + i * size_of::<BranchRecord>(),
        )
    }
}

/// Counts of the symbolic region ([`ChannelView::sym_counts`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SymCounts {
    /// Inputs created.
    pub inputs: usize,
    /// Expression nodes written.
    pub nodes: usize,
    /// Path constraints written.
    pub branches: usize,
    /// `SYM_OVERFLOW_*` bits.
    pub overflow: u32,
    /// The request's `SYM_REQ_*` bits.
    pub flags: u32,
    /// The request's count of symbolic stdin bytes.
    pub stdin_bytes: u32,
}
