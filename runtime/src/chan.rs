//! The runtime's side of the channel: attaching to the driver's memfd and
//! writing the response fields, thread slots and events.

use core::sync::atomic::Ordering;
use reach_channel::layout::MESSAGE_BYTES;
use reach_channel::memory_model::{entry_choice, entry_thread, ReadRecord};
use reach_channel::private::{PrivateRecord, PRIVATE_CAPACITY};
use reach_channel::{
    Event, Header, Layout, ObjectRecord, RunStatus, ThreadSlot, MAGIC, MAX_THREADS, VERSION,
};

/// Size of one trace event.
const EVENT_BYTES: usize = core::mem::size_of::<Event>();
/// The smallest page size.
const PAGE_BYTES: usize = 4096;

/// Pointers into the mapped channel region.
pub struct Chan {
    hdr: *mut Header,
    slots: *mut ThreadSlot,
    cut: *mut ThreadSlot,
    prefix: *const u32,
    events: *mut Event,
    sym: *mut u8,
    objects: *mut ObjectRecord,
    reads: *mut ReadRecord,
    private: *mut PrivateRecord,
    /// Object record capacity (records).
    object_capacity: u32,
    /// Prefix capacity (entries).
    pub prefix_capacity: u32,
    /// Event capacity (events).
    pub event_capacity: u32,
}

/// Why the runtime could not attach to a channel.
pub enum AttachError {
    /// Not a channel (wrong magic, truncated, unmappable): run passively.
    Invalid,
    /// A channel of another version: the driver and runtime do not match.
    Version(u32),
}

impl Chan {
    /// Not attached.
    pub const NULL: Chan = Chan {
        hdr: core::ptr::null_mut(),
        slots: core::ptr::null_mut(),
        cut: core::ptr::null_mut(),
        prefix: core::ptr::null(),
        events: core::ptr::null_mut(),
        sym: core::ptr::null_mut(),
        objects: core::ptr::null_mut(),
        reads: core::ptr::null_mut(),
        private: core::ptr::null_mut(),
        object_capacity: 0,
        prefix_capacity: 0,
        event_capacity: 0,
    };

    /// Maps the channel behind `fd` and checks its header.
    pub fn attach(fd: i32) -> Result<Chan, AttachError> {
        // SAFETY: fstat into a zeroed local struct.
        let size = unsafe {
            let mut st: libc::stat = core::mem::zeroed();
            if libc::fstat(fd, &mut st) != 0 {
                return Err(AttachError::Invalid);
            }
            st.st_size as usize
        };
        if size < reach_channel::layout::HEADER_BYTES {
            return Err(AttachError::Invalid);
        }
        // SAFETY: mapping `size` bytes of a file of that size.
        let base = unsafe {
            libc::mmap(
                core::ptr::null_mut(),
                size,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED,
                fd,
                0,
            )
        };
        if base == libc::MAP_FAILED {
            return Err(AttachError::Invalid);
        }
        let hdr = base as *mut Header;
        let unmap = || {
            // SAFETY: unmapping the region mapped above.
            unsafe { libc::munmap(base, size) };
        };
        // SAFETY: the header fits in the mapping (checked above).
        let (magic, version, event_size, layout) = unsafe {
            (
                (*hdr).magic,
                (*hdr).version,
                (*hdr).event_size,
                Layout {
                    prefix_capacity: (*hdr).prefix_capacity,
                    event_capacity: (*hdr).event_capacity,
                    object_capacity: (*hdr).object_capacity,
                },
            )
        };
        if magic != MAGIC {
            unmap();
            return Err(AttachError::Invalid);
        }
        if version != VERSION {
            unmap();
            return Err(AttachError::Version(version));
        }
        if event_size as usize != core::mem::size_of::<Event>()
            || layout.total_bytes() > size
            || layout.event_capacity == 0
        {
            unmap();
            return Err(AttachError::Invalid);
        }
        let b = base as *mut u8;
        // SAFETY: all offsets are inside the mapping (total_bytes <= size).
        unsafe {
            Ok(Chan {
                hdr,
                slots: b.add(layout.threads_offset()) as *mut ThreadSlot,
                cut: b.add(layout.cut_offset()) as *mut ThreadSlot,
                prefix: b.add(layout.prefix_offset()) as *const u32,
                events: b.add(layout.events_offset()) as *mut Event,
                sym: b.add(layout.sym_offset()),
                objects: b.add(layout.objects_offset()) as *mut ObjectRecord,
                reads: b.add(layout.reads_offset()) as *mut ReadRecord,
                private: b.add(layout.private_offset()) as *mut PrivateRecord,
                object_capacity: layout.object_capacity,
                prefix_capacity: layout.prefix_capacity,
                event_capacity: layout.event_capacity,
            })
        }
    }

    /// The header (request fields are read once at initialisation).
    pub fn header(&self) -> &Header {
        // SAFETY: attached channels have a valid header pointer.
        unsafe { &*self.hdr }
    }

    /// The header, null if not attached (for the record of sources of
    /// nondeterminism, `crate::seen`).
    pub fn header_ptr(&self) -> *mut Header {
        self.hdr
    }

    /// The symbolic region ([`reach_channel::symbolic`]), null if not attached.
    pub fn sym(&self) -> *mut u8 {
        self.sym
    }

    fn hdr(&self) -> *mut Header {
        self.hdr
    }

    /// The thread of entry `i` of the schedule prefix (`u32::MAX` beyond
    /// the capacity).
    pub fn prefix(&self, i: u64) -> u32 {
        if i >= u64::from(self.prefix_capacity) {
            return u32::MAX;
        }
        // SAFETY: in bounds; volatile because the program could scribble.
        entry_thread(unsafe { self.prefix.add(i as usize).read_volatile() })
    }

    /// Reads-from choice of prefix entry `i` (0 beyond the capacity): see
    /// [`reach_channel::memory_model`].
    pub fn prefix_choice(&self, i: u64) -> u16 {
        if i >= u64::from(self.prefix_capacity) {
            return 0;
        }
        // SAFETY: in bounds; volatile because the program could scribble.
        entry_choice(unsafe { self.prefix.add(i as usize).read_volatile() })
    }

    /// Writes the reads-from record of event `i` (ignored beyond the
    /// event capacity).
    pub fn write_read(&self, i: u64, record: &ReadRecord) {
        if i < u64::from(self.event_capacity) {
            // SAFETY: in bounds (one record per event slot).
            unsafe { self.reads.add(i as usize).write_volatile(*record) };
        }
    }

    /// Writes private-access record `i` ([`reach_channel::private`]);
    /// false beyond the capacity or without a channel.
    pub fn write_private(&self, i: u32, record: &PrivateRecord) -> bool {
        if self.private.is_null() || i >= PRIVATE_CAPACITY {
            return false;
        }
        // SAFETY: in bounds of the private region.
        unsafe { self.private.add(i as usize).write(*record) };
        true
    }

    /// Publishes the number of private-access records.
    pub fn set_private_count(&self, n: u32) {
        // SAFETY: valid header (records exist only with a channel).
        unsafe { (*self.hdr()).private_count.store(n, Ordering::Relaxed) };
    }

    /// Thread slot `t` (in the shared mapping, not borrowed from `self`).
    #[allow(clippy::mut_from_ref)]
    pub fn slot(&self, t: u32) -> &mut ThreadSlot {
        // SAFETY: `t` is reduced below MAX_THREADS; slots are in the mapping.
        unsafe { &mut *self.slots.add(t as usize % MAX_THREADS) }
    }

    /// Slot `t` of the cut region (thread `t` when recording stopped).
    #[allow(clippy::mut_from_ref)]
    pub fn cut_slot(&self, t: u32) -> &mut ThreadSlot {
        // SAFETY: `t` is reduced below MAX_THREADS; the cut region is in the mapping.
        unsafe { &mut *self.cut.add(t as usize % MAX_THREADS) }
    }

    /// Writes event `i` (ignored beyond the capacity).
    ///
    /// The first byte of each page of the trace is read before an event is written there: a read
    /// fault on the shared mapping maps the neighbouring pages that the
    /// driver already allocated too (the kernel's fault-around), while a
    /// write fault maps one page, so the trace costs one fault per
    /// fault-around window instead of one per page.
    pub fn write_event(&self, i: u64, ev: &Event) {
        if i < u64::from(self.event_capacity) {
            // SAFETY: in bounds.
            unsafe {
                let slot = self.events.add(i as usize);
                let last = slot as usize + EVENT_BYTES - 1;
                if last % PAGE_BYTES < EVENT_BYTES {
                    // The event reaches into a page none before it touched.
                    core::ptr::read_volatile((last - last % PAGE_BYTES) as *const u8);
                }
                slot.write(*ev)
            };
        }
    }

    /// Event `i`, for patching its outcome after the operation ran (in the
    /// shared mapping, not borrowed from `self`).
    #[allow(clippy::mut_from_ref)]
    pub fn event_mut(&self, i: u64) -> Option<&mut Event> {
        if i < u64::from(self.event_capacity) {
            // SAFETY: in bounds.
            Some(unsafe { &mut *self.events.add(i as usize) })
        } else {
            None
        }
    }

    /// Appends an object record; when the region is full, notes the step
    /// from which objects went unrecorded instead. Only the running thread
    /// calls this, so the count needs no read-modify-write.
    pub fn record_object(&self, rec: &ObjectRecord) {
        if self.hdr.is_null() {
            return;
        }
        // SAFETY: valid header.
        let hdr = unsafe { &*self.hdr() };
        let n = hdr.object_count.load(Ordering::Relaxed);
        if n < self.object_capacity {
            // SAFETY: in bounds.
            unsafe { self.objects.add(n as usize).write(*rec) };
            hdr.object_count.store(n + 1, Ordering::Relaxed);
        } else if hdr.objects_dropped_at.load(Ordering::Relaxed) == u64::MAX {
            hdr.objects_dropped_at.store(rec.step, Ordering::Relaxed);
        }
    }

    /// Publishes the number of events.
    pub fn set_event_count(&self, n: u64) {
        // SAFETY: valid header.
        unsafe { (*self.hdr()).event_count.store(n, Ordering::Relaxed) };
    }

    /// Publishes the number of steps executed, recorded or not.
    pub fn set_step_count(&self, n: u64) {
        // SAFETY: valid header.
        unsafe { (*self.hdr()).step_count.store(n, Ordering::Relaxed) };
    }

    /// Publishes that recording stopped with `threads` threads in the cut region.
    pub fn set_cut_threads(&self, threads: u32) {
        // SAFETY: valid header.
        unsafe { (*self.hdr()).cut_threads.store(threads, Ordering::Relaxed) };
    }

    /// Publishes the number of threads.
    pub fn set_thread_count(&self, n: u32) {
        // SAFETY: valid header.
        unsafe { (*self.hdr()).thread_count.store(n, Ordering::Relaxed) };
    }

    /// Blames thread `t` (the running one) and `site` for an abnormal end.
    pub fn set_culprit(&self, t: u32, site: u64) {
        // SAFETY: valid header.
        unsafe {
            (*self.hdr()).culprit_thread = t;
            (*self.hdr()).culprit_site = site;
        }
    }

    /// Sets only the culprit thread (kept current while running).
    pub fn set_running(&self, t: u32) {
        // SAFETY: valid header.
        unsafe { (*self.hdr()).culprit_thread = t };
    }

    /// Records a divergence.
    pub fn set_divergence(&self, step: u64, thread: u32) {
        // SAFETY: valid header.
        unsafe {
            (*self.hdr()).diverged_step = step;
            (*self.hdr()).diverged_thread = thread;
        }
    }

    /// Writes the message text (truncated to the buffer).
    pub fn set_message(&self, msg: &[u8]) {
        let n = msg.len().min(MESSAGE_BYTES);
        // SAFETY: valid header; `n` fits the message buffer.
        unsafe {
            let dst = core::ptr::addr_of_mut!((*self.hdr()).message) as *mut u8;
            core::ptr::copy_nonoverlapping(msg.as_ptr(), dst, n);
            (*self.hdr()).message_len = n as u32;
        }
    }

    /// Sets the exit code reported with `Exited`.
    pub fn set_exit_code(&self, code: i32) {
        // SAFETY: valid header.
        unsafe { (*self.hdr()).exit_code = code };
    }

    /// Publishes the final status.
    pub fn set_status(&self, s: RunStatus) {
        // SAFETY: valid header.
        unsafe { (*self.hdr()).status.store(s as u32, Ordering::Release) };
    }
}
