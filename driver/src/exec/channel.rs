//! The driver's side of the shared-memory channel: one `memfd` region created
//! once per [`super::Executor`], reset and filled with a request before every
//! execution, and read back (as untrusted input) after it.

use super::{ExecError, InputValue, Request};
use reach_channel::layout::{
    REQ_AWAITS_OFF, REQ_AWAIT_RETRIES, REQ_COMMUTE_RMWS, REQ_DROP_HELD, REQ_EXIT_CUTS_THREADS,
    REQ_SLEEP_SETS, REQ_SPIN_BLOCKING,
};
use reach_channel::sources::Sources;
use reach_channel::symbolic::{
    InputSlot, SymHeader, SYM_MAX_INPUTS, SYM_MAX_INPUT_BYTES, SYM_REQ_ARGS, SYM_REQ_SHARED,
    SYM_REQ_STDIN,
};
use reach_channel::{
    ChannelView, Event, Header, Layout, ObjectRecord, RunStatus, ThreadSlot, MAGIC, VERSION,
};
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::ptr::NonNull;

/// Largest schedule prefix a request may carry.
pub const MAX_PREFIX: usize = 1 << 20;
/// Largest number of events one execution may record (the recording bound's
/// upper limit: 64 bytes of channel each).
pub const MAX_EVENTS: u64 = 1 << 24;
/// Allocations, frees and escaping stack objects one execution may record
/// for naming objects in reports (40 bytes of channel each; pages the
/// runtime never touches cost nothing).
pub const OBJECT_CAPACITY: u32 = 1 << 16;

/// A mapped memfd channel region.
pub struct Channel {
    fd: OwnedFd,
    base: NonNull<u8>,
    len: usize,
    layout: Layout,
}

impl Channel {
    /// Creates a channel able to record `record_steps` events (capped at
    /// [`MAX_EVENTS`]) and a prefix of [`MAX_PREFIX`] entries.
    pub fn create(record_steps: u64) -> Result<Channel, ExecError> {
        let events = record_steps.clamp(1, MAX_EVENTS) as u32;
        let layout = Layout {
            prefix_capacity: MAX_PREFIX as u32,
            event_capacity: events,
            object_capacity: OBJECT_CAPACITY,
        };
        let len = layout.total_bytes();
        // SAFETY: the name is a valid NUL-terminated string.
        let raw = unsafe { libc::memfd_create(c"reach-channel".as_ptr(), libc::MFD_CLOEXEC) };
        if raw < 0 {
            return Err(ExecError::ChannelSetup(io::Error::last_os_error()));
        }
        // SAFETY: `raw` is a fresh fd we own.
        let fd = unsafe { OwnedFd::from_raw_fd(raw) };
        // SAFETY: plain syscall on our own fd.
        if unsafe { libc::ftruncate(fd.as_raw_fd(), len as libc::off_t) } != 0 {
            return Err(ExecError::ChannelSetup(io::Error::last_os_error()));
        }
        // SAFETY: mapping a fd we own with the size we just set.
        let ptr = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED,
                fd.as_raw_fd(),
                0,
            )
        };
        if ptr == libc::MAP_FAILED {
            return Err(ExecError::ChannelSetup(io::Error::last_os_error()));
        }
        // Allocate the first 64 Ki events in the memfd once, here, instead of
        // on first touch inside the program's hot path in every execution;
        // the runtime then maps them in with few faults (see its
        // `Chan::write_event`). Written through the file rather than the
        // mapping so that they do not count in the driver's memory. Best
        // effort: pages not allocated here are faulted in later.
        const PREALLOCATED_EVENT_BYTES: usize = 4 << 20;
        let events = layout.events_offset();
        let end = len.min(events + PREALLOCATED_EVENT_BYTES);
        let zeros = [0u8; 64 << 10];
        let mut at = events;
        while at < end {
            let n = zeros.len().min(end - at);
            // SAFETY: writing from a local buffer to our own fd.
            let w = unsafe {
                libc::pwrite(fd.as_raw_fd(), zeros.as_ptr().cast(), n, at as libc::off_t)
            };
            if w <= 0 {
                break;
            }
            at += w as usize;
        }
        let base = NonNull::new(ptr as *mut u8)
            .ok_or_else(|| ExecError::ChannelSetup(io::Error::other("null mapping")))?;
        Ok(Channel {
            fd,
            base,
            len,
            layout,
        })
    }

    /// The fd the program under test inherits.
    pub fn raw_fd(&self) -> RawFd {
        self.fd.as_raw_fd()
    }

    /// Most events this channel can record.
    pub fn record_capacity(&self) -> u64 {
        u64::from(self.layout.event_capacity)
    }

    /// Resets the header and the thread slots in use and writes `request`
    /// with what of `config` the runtime reads per execution: the step
    /// bound, the recording bound, the spin threshold, where the process
    /// exit goes, whether unused-result read-modify-writes commute and how
    /// spin loops await. Only call while no program under test is alive.
    pub fn prepare(
        &mut self,
        request: &Request,
        config: &super::ExecConfig,
    ) -> Result<(), ExecError> {
        if request.prefix.len() > MAX_PREFIX {
            return Err(ExecError::PrefixTooLong {
                len: request.prefix.len(),
                max: MAX_PREFIX,
            });
        }
        let layout = self.layout;
        // SAFETY: the mapping is `len` bytes long, covers header, thread
        // table and prefix (checked by Layout arithmetic at creation), and no
        // other process maps it now. The cut region is not cleared: it is
        // read only as far as the header's `cut_threads` says the runtime
        // wrote it. Nor are the thread slots past the last execution's
        // thread count: a slot is read only below the count, and the
        // runtime writes a slot whole when it creates its thread, before
        // counting it (slot 0 is cleared always: at start the runtime
        // writes only some of its fields).
        unsafe {
            let used = {
                let h = self.base.as_ptr() as *const Header;
                let n = (*h).thread_count.load(std::sync::atomic::Ordering::Relaxed) as usize;
                n.clamp(1, reach_channel::MAX_THREADS)
            };
            let slots = used * std::mem::size_of::<ThreadSlot>();
            std::ptr::write_bytes(self.base.as_ptr(), 0, layout.threads_offset() + slots);
            let h = self.base.as_ptr() as *mut Header;
            (*h).magic = MAGIC;
            (*h).version = VERSION;
            (*h).event_size = std::mem::size_of::<Event>() as u32;
            (*h).total_bytes = self.len as u64;
            (*h).prefix_capacity = layout.prefix_capacity;
            (*h).event_capacity = layout.event_capacity;
            (*h).object_capacity = layout.object_capacity;
            (*h).objects_dropped_at = std::sync::atomic::AtomicU64::new(u64::MAX);
            (*h).prefix_len = request.prefix.len() as u32;
            (*h).policy = request.policy as u32;
            (*h).seed = request.seed;
            (*h).max_steps = config.max_steps.unwrap_or(u64::MAX);
            (*h).record_steps = config.record_steps.min(self.record_capacity());
            let mut flags = 0;
            if config.spin_threshold > 0 {
                flags |= REQ_SPIN_BLOCKING;
            }
            if request.sleep_sets {
                flags |= REQ_SLEEP_SETS;
            }
            if config.exit_cuts_threads {
                flags |= REQ_EXIT_CUTS_THREADS;
            }
            if config.commute_rmws {
                flags |= REQ_COMMUTE_RMWS;
            }
            if config.memory_model == reach_channel::memory_model::MemoryModel::Rc11 {
                flags |= reach_channel::layout::REQ_RC11;
            }
            if config.await_retries {
                flags |= REQ_AWAIT_RETRIES;
            }
            if config.awaits_off {
                flags |= REQ_AWAITS_OFF;
            }
            if config.drop_held {
                flags |= REQ_DROP_HELD;
            }
            if config.drop_respin {
                flags |= reach_channel::layout::REQ_DROP_RESPIN;
            }
            if config.private_accesses {
                flags |= reach_channel::layout::REQ_PRIVATE;
            }
            (*h).request_flags = flags;
            (*h).spin_threshold = config.spin_threshold;
            (*h).sleep_set = request.sleep_set;
            let points = request
                .change_points
                .len()
                .min(reach_channel::MAX_CHANGE_POINTS);
            (*h).change_point_count = points as u32;
            for (i, point) in request.change_points.iter().take(points).enumerate() {
                (*h).change_points[i] = *point;
            }
            (*h).status = std::sync::atomic::AtomicU32::new(RunStatus::Running as u32);
            (*h).culprit_thread = u32::MAX;
            (*h).diverged_thread = u32::MAX;
            let prefix = self.base.as_ptr().add(layout.prefix_offset()) as *mut u32;
            std::ptr::copy_nonoverlapping(request.prefix.as_ptr(), prefix, request.prefix.len());
        }
        Ok(())
    }

    /// Writes the symbolic request: which inputs `argv`/stdin give, and
    /// the values of `inputs` (at most [`SYM_MAX_INPUTS`] of them). Call
    /// after [`Channel::prepare`].
    pub fn prepare_symbolic(
        &mut self,
        inputs: &[InputValue],
        args: bool,
        stdin_bytes: u32,
        trace_shared: bool,
    ) {
        let layout = self.layout;
        // SAFETY: the symbolic header is inside the mapping (Layout
        // arithmetic); no program process runs while the driver prepares.
        unsafe {
            let h = self.base.as_ptr().add(layout.sym_offset()) as *mut SymHeader;
            let mut flags = 0;
            if args {
                flags |= SYM_REQ_ARGS;
            }
            if stdin_bytes > 0 {
                flags |= SYM_REQ_STDIN;
            }
            if trace_shared {
                flags |= SYM_REQ_SHARED;
            }
            (*h).flags = flags;
            (*h).stdin_bytes = stdin_bytes;
            let n = inputs.len().min(SYM_MAX_INPUTS);
            for (i, input) in inputs.iter().take(n).enumerate() {
                let mut slot = InputSlot::EMPTY;
                slot.set_name(input.name.as_bytes());
                slot.occurrence = input.occurrence;
                let len = input.bytes.len().min(SYM_MAX_INPUT_BYTES);
                slot.len = len as u32;
                slot.bytes[..len].copy_from_slice(&input.bytes[..len]);
                (*h).given[i] = slot;
            }
            (*h).given_count = n as u32;
            (*h).input_count = 0;
            (*h).node_count = 0;
            (*h).branch_count = 0;
            (*h).overflow = 0;
        }
    }

    /// Asks the fork server (which reads it at `main`) for persistent
    /// executions: call after [`Channel::prepare`] of the bootstrap request.
    pub fn request_persistent(&mut self) {
        // SAFETY: the header is mapped for the channel's lifetime and no
        // program process runs while the driver prepares a request.
        unsafe {
            let h = self.base.as_ptr() as *mut Header;
            (*h).request_flags |= reach_channel::layout::REQ_PERSISTENT;
        }
    }

    /// Asks for this execution's threads to run as user-level contexts:
    /// call after [`Channel::prepare`].
    pub fn request_user_threads(&mut self) {
        // SAFETY: as in `request_persistent`.
        unsafe {
            let h = self.base.as_ptr() as *mut Header;
            (*h).request_flags |= reach_channel::layout::REQ_USER_THREADS;
        }
    }

    /// Copies what a fork server recorded before `main` (`pre_main` events,
    /// the main thread's slot) so every execution can start from it.
    pub fn capture_start(&self, pre_main: u64) -> Result<StartState, ExecError> {
        if pre_main >= u64::from(self.layout.event_capacity) {
            return Err(ExecError::CorruptChannel(format!(
                "the fork server reports {pre_main} events before main"
            )));
        }
        let layout = self.layout;
        // SAFETY: slot 0 and the first `pre_main` events are inside the
        // mapping (checked above); every bit pattern is a valid value of
        // these plain-integer records. The server waits at main meanwhile.
        unsafe {
            let b = self.base.as_ptr();
            let slot = (b.add(layout.threads_offset()) as *const ThreadSlot).read_unaligned();
            let ev = b.add(layout.events_offset()) as *const Event;
            let events = (0..pre_main as usize)
                .map(|i| ev.add(i).read_unaligned())
                .collect();
            let h = b as *const Header;
            let count = (*h)
                .object_count
                .load(std::sync::atomic::Ordering::Relaxed)
                .min(layout.object_capacity);
            let obj = b.add(layout.objects_offset()) as *const ObjectRecord;
            let objects = (0..count as usize)
                .map(|i| obj.add(i).read_unaligned())
                .collect();
            let sources = std::slice::from_raw_parts(
                std::ptr::addr_of!((*h).sources) as *const u8,
                std::mem::size_of::<Sources>(),
            )
            .to_vec();
            Ok(StartState {
                slot,
                events,
                objects,
                sources,
            })
        }
    }

    /// Makes the channel look as it did when the fork server reached `main`
    /// (after [`Channel::prepare`], before asking for an execution).
    pub fn restore_start(&mut self, start: &StartState) {
        let layout = self.layout;
        // SAFETY: as in `capture_start`; no child of the server runs now.
        unsafe {
            let b = self.base.as_ptr();
            (b.add(layout.threads_offset()) as *mut ThreadSlot).write_unaligned(start.slot);
            let ev = b.add(layout.events_offset()) as *mut Event;
            for (i, e) in start.events.iter().enumerate() {
                ev.add(i).write_unaligned(*e);
            }
            let h = b as *mut Header;
            (*h).event_count.store(
                start.events.len() as u64,
                std::sync::atomic::Ordering::Relaxed,
            );
            (*h).thread_count
                .store(1, std::sync::atomic::Ordering::Relaxed);
            let obj = b.add(layout.objects_offset()) as *mut ObjectRecord;
            for (i, o) in start.objects.iter().enumerate() {
                obj.add(i).write_unaligned(*o);
            }
            (*h).object_count.store(
                start.objects.len() as u32,
                std::sync::atomic::Ordering::Relaxed,
            );
            std::ptr::copy_nonoverlapping(
                start.sources.as_ptr(),
                std::ptr::addr_of_mut!((*h).sources) as *mut u8,
                start.sources.len().min(std::mem::size_of::<Sources>()),
            );
        }
    }

    /// A validating view of the region. Only call while no program under test
    /// is alive (the region must not change while the view is used).
    pub fn view(&self) -> Result<ChannelView<'_>, ExecError> {
        // SAFETY: the mapping is `len` bytes and stays mapped while `self`
        // lives; the program under test has been killed and reaped.
        let bytes = unsafe { std::slice::from_raw_parts(self.base.as_ptr(), self.len) };
        Ok(ChannelView::new(bytes)?)
    }
}

/// The channel state a fork server had at entry to `main`.
#[derive(Clone, Debug)]
pub struct StartState {
    slot: ThreadSlot,
    events: Vec<Event>,
    objects: Vec<ObjectRecord>,
    /// The bytes of the header's sources of nondeterminism (seen before
    /// `main`: address randomisation, a constructor's random bytes).
    sources: Vec<u8>,
}

// SAFETY: the mapping is owned by the channel and only accessed through
// `&self`/`&mut self`; moving it to another thread is sound.
unsafe impl Send for Channel {}

impl Drop for Channel {
    fn drop(&mut self) {
        // SAFETY: unmapping exactly the region mapped in `create`.
        unsafe {
            libc::munmap(self.base.as_ptr() as *mut libc::c_void, self.len);
        }
    }
}
