//! A thread's open iterations of await loops and what they read: the
//! per-thread record the scheduler's state keeps ([`super`] runs the
//! loops' semantics on it).

use reach_channel::{Op, OpKind};

/// Most open iterations (nested loops) a thread keeps; entering one more
/// forgets the outermost.
pub const AWAIT_DEPTH: usize = 4;
/// Most distinct reads kept for a thread's open iterations.
pub const AWAIT_READS: usize = 16;
/// Iterations a bounded spin may fast-forward before it counts as failed.
pub const FAST_FORWARD_LIMIT: u64 = 1 << 16;
/// Most writes to the thread's own stack whose earlier bytes the open
/// iterations keep ([`Awaits::note_stack_write`]).
pub const AWAIT_WRITES: usize = 16;
/// Longest such write kept, in bytes.
pub const STACK_WRITE_BYTES: usize = 16;

/// Stack below a loop's frame that counts as its callees' frames: writes
/// there are not progress of its iterations. Deeper than any loop body's
/// calls go in practice, and far less than a thread's stack (8 MiB), so
/// another thread's stack is never taken for it.
const CALLEE_STACK: u64 = 256 << 10;

/// Is `addr` in the frames of functions called from a loop whose
/// function's stack pointer is `frame`: below it, within
/// [`CALLEE_STACK`]?
pub(super) fn in_callee_frame(frame: u64, addr: u64) -> bool {
    addr < frame && frame - addr <= CALLEE_STACK
}

/// A private write to the thread's own stack made by an open iteration,
/// with the bytes the memory held before it: the iteration did nothing
/// there if the memory holds them again when it ends.
#[derive(Clone, Copy, Debug)]
pub struct StackWrite {
    /// First byte written.
    pub addr: u64,
    /// Bytes written.
    pub len: usize,
    /// What they held before the write.
    pub before: [u8; STACK_WRITE_BYTES],
}

impl StackWrite {
    const EMPTY: StackWrite = StackWrite {
        addr: 0,
        len: 0,
        before: [0; STACK_WRITE_BYTES],
    };

    /// Does the memory hold what it held before the write?
    fn restored(&self) -> bool {
        let mut now = [0u8; STACK_WRITE_BYTES];
        // SAFETY: the thread wrote these bytes of its own stack in this
        // iteration, at or above the frame of a loop still running (or in
        // a callee's frame below it, still mapped): readable memory.
        unsafe {
            core::ptr::copy_nonoverlapping(self.addr as *const u8, now.as_mut_ptr(), self.len);
        }
        now[..self.len] == self.before[..self.len]
    }
}

/// One open loop iteration.
#[derive(Clone, Copy, Debug)]
pub struct Iteration {
    /// The loop's site.
    pub site: u64,
    /// The frame the loop runs in (its function's stack pointer at the
    /// hook's call).
    pub frame: u64,
    /// The loop's carried state at the iteration's start.
    pub state: u64,
    /// The loop's own state (a retry count) at the iteration's start.
    pub local: u64,
    /// Step at which the iteration began.
    pub start_step: u64,
    /// [`Awaits::reads_seen`] when the iteration began.
    pub reads_at_start: u64,
    /// [`Awaits::n_writes`] when the iteration began: the stack writes
    /// from there on are its own.
    pub writes_at_start: usize,
    /// The loop's callee-written slot and its size (0, 0: none): writes
    /// to it are in [`Self::local`].
    pub slot: (u64, u64),
}

impl Iteration {
    /// Is stack write `w` within the loop's callee-written slot (whose
    /// bytes its local state holds)?
    fn holds(&self, w: &StackWrite) -> bool {
        let (slot, len) = self.slot;
        len != 0 && w.addr >= slot && w.addr + w.len as u64 <= slot + len
    }

    const EMPTY: Iteration = Iteration {
        site: 0,
        frame: 0,
        state: 0,
        local: 0,
        start_step: 0,
        reads_at_start: 0,
        writes_at_start: 0,
        slot: (0, 0),
    };
}

/// A thread's await state.
#[derive(Clone, Copy, Debug)]
pub struct Awaits {
    /// Open iterations, innermost last.
    pub open: [Iteration; AWAIT_DEPTH],
    /// Valid entries of `open`.
    pub n: usize,
    /// Distinct operations without progress since the outermost open
    /// iteration began (what the iterations read).
    pub reads: [Op; AWAIT_READS],
    /// Valid entries of `reads`.
    pub n_reads: usize,
    /// More distinct reads than `reads` holds were made.
    pub overflow: bool,
    /// Reads made (repeated ones too) while an iteration was open.
    pub reads_seen: u64,
    /// Another thread changed something in `reads` after it was read.
    pub stale: bool,
    /// Sites of the operations in `reads`.
    pub sites: [u64; AWAIT_READS],
    /// Valid entries of `sites`.
    pub n_sites: usize,
    /// The thread fast-forwards a bounded spin of the innermost open
    /// iteration's loop.
    pub fast_forward: bool,
    /// The one location a fast-forwarded spin reads (`fast_forward` only).
    pub forward_object: u64,
    /// The thread's latest operation without progress while an iteration
    /// was open (what it did just before reaching a loop head, with no
    /// other thread run since).
    pub last: Op,
    /// Iterations fast-forwarded so far.
    pub forwarded: u64,
    /// The thread awaits a change (parked at [`OpKind::Await`]).
    pub blocked: bool,
    /// The lock whose modelled slow path the thread runs, as
    /// [`reach_channel::models::LockWait::encode`] puts it (0: none): a
    /// failed try parks at an await that names it.
    pub lock: u64,
    /// Private writes to the thread's own stack since the outermost open
    /// iteration began, each with the bytes before it.
    pub writes: [StackWrite; AWAIT_WRITES],
    /// Valid entries of `writes`.
    pub n_writes: usize,
}

impl Awaits {
    /// No open iteration.
    pub const EMPTY: Awaits = Awaits {
        open: [Iteration::EMPTY; AWAIT_DEPTH],
        n: 0,
        reads: [Op::NONE; AWAIT_READS],
        n_reads: 0,
        overflow: false,
        reads_seen: 0,
        stale: false,
        sites: [0; AWAIT_READS],
        n_sites: 0,
        fast_forward: false,
        forward_object: 0,
        last: Op::NONE,
        forwarded: 0,
        blocked: false,
        lock: 0,
        writes: [StackWrite::EMPTY; AWAIT_WRITES],
        n_writes: 0,
    };

    /// Forgets every open iteration (the thread made progress).
    pub(super) fn close_all(&mut self) {
        self.n = 0;
        self.n_reads = 0;
        self.n_sites = 0;
        self.overflow = false;
        self.stale = false;
        self.fast_forward = false;
        self.last = Op::NONE;
        self.n_writes = 0;
    }

    /// Opens an iteration of `site` in `frame` (its loop's callee-written
    /// `slot`: address and size) as the innermost.
    pub(super) fn open(
        &mut self,
        site: u64,
        frame: u64,
        (state, local, slot): (u64, u64, (u64, u64)),
        step: u64,
    ) {
        if self.n == AWAIT_DEPTH {
            self.open.copy_within(1.., 0);
            self.n -= 1;
        }
        if self.n == 0 {
            self.n_reads = 0;
            self.n_sites = 0;
            self.overflow = false;
            self.stale = false;
            self.n_writes = 0;
        }
        self.open[self.n] = Iteration {
            site,
            frame,
            state,
            local,
            start_step: step,
            reads_at_start: self.reads_seen,
            writes_at_start: self.n_writes,
            slot,
        };
        self.n += 1;
    }

    /// Iteration `it` failed: the thread awaits a change, parked at the
    /// returned [`OpKind::Await`] (its `aux`: the lock it waits for, if
    /// the loop is a lock's modelled slow path).
    pub(super) fn fail(&mut self, it: &Iteration) -> Op {
        self.blocked = true;
        Op::new(OpKind::Await, it.start_step, self.lock)
    }

    /// Remembers a read (an operation without progress touching an object)
    /// made at `site`.
    pub(super) fn note_read(&mut self, op: &Op, site: u64) {
        self.last = *op;
        if !self.sites[..self.n_sites].contains(&site) && self.n_sites < AWAIT_READS {
            self.sites[self.n_sites] = site;
            self.n_sites += 1;
        }
        if !touches_object(op) {
            return;
        }
        self.reads_seen += 1;
        if self.reads[..self.n_reads].contains(op) {
            return;
        }
        if self.n_reads == AWAIT_READS {
            self.overflow = true;
            return;
        }
        self.reads[self.n_reads] = *op;
        self.n_reads += 1;
    }

    /// How a bounded spin whose iterations did nothing fast-forwards, if
    /// it can: only if every read of the open iterations touched the same
    /// bytes, so that the rest of the spin reads that one location. If
    /// the thread's latest operation read it, no other thread has run
    /// since and the rest reads what that read did (`Some(None)`);
    /// otherwise a read of it sums the rest up (`Some(Some(read))`).
    pub(super) fn forwarding_read(&self) -> Option<Option<Op>> {
        let first = self.reads[..self.n_reads].first()?;
        let same = |r: &Op| r.object == first.object && r.aux == first.aux;
        if self.overflow || !self.reads[..self.n_reads].iter().all(same) {
            return None;
        }
        if same(&self.last) && touches_object(&self.last) {
            return Some(None);
        }
        let kind = match first.kind {
            OpKind::Load => OpKind::Load,
            _ => OpKind::AtomicLoad,
        };
        Some(Some(Op::new(kind, first.object, first.aux)))
    }

    /// Keeps the bytes before a private write of `len` bytes at `addr` to
    /// the thread's own stack, for the open iterations from `first` on
    /// (the write is in their frames or their callers'). Returns false if
    /// it cannot (too long, or no room left): the write is then progress.
    pub(super) fn note_stack_write(&mut self, first: usize, addr: u64, len: usize) -> bool {
        if len == 0 || len > STACK_WRITE_BYTES || first >= self.n {
            return false;
        }
        // Kept already for the innermost iteration (and so for the outer
        // ones): its bytes before the iteration are known.
        let start = self.open[self.n - 1].writes_at_start;
        if self.writes[start..self.n_writes]
            .iter()
            .any(|w| w.addr == addr && w.len == len)
        {
            return true;
        }
        if self.n_writes == AWAIT_WRITES {
            return false;
        }
        let mut write = StackWrite {
            addr,
            len,
            before: [0; STACK_WRITE_BYTES],
        };
        // SAFETY: the program is about to write these bytes of its own
        // stack: readable memory.
        unsafe {
            core::ptr::copy_nonoverlapping(addr as *const u8, write.before.as_mut_ptr(), len);
        }
        self.writes[self.n_writes] = write;
        self.n_writes += 1;
        true
    }

    /// Does the thread's own stack hold again, where the iteration that
    /// began at `it` wrote it, what it held before? (Each byte's first
    /// write in the iteration kept its bytes from the iteration's start.)
    /// Writes to the frames of functions the loop called are gone by its
    /// back edge and not its concern.
    pub(super) fn stack_restored(&self, it: &Iteration) -> bool {
        self.writes[it.writes_at_start.min(self.n_writes)..self.n_writes]
            .iter()
            .all(|w| in_callee_frame(it.frame, w.addr) || it.holds(w) || w.restored())
    }

    /// Iteration `i` starts over: forgets the stack writes kept since its
    /// previous start that no outer open iteration needs (they went to
    /// frames of functions those loops called), so that a loop nested in
    /// a call (a back-off's pause loop) does not fill the record.
    pub(super) fn forget_inner_writes(&mut self, i: usize) {
        let from = self.open[i].writes_at_start.min(self.n_writes);
        let outer = &self.open[..i];
        let mut kept = from;
        for k in from..self.n_writes {
            let w = self.writes[k];
            if !outer.iter().all(|o| in_callee_frame(o.frame, w.addr)) {
                self.writes[kept] = w;
                kept += 1;
            }
        }
        self.n_writes = kept;
    }

    /// Would `op`, executed by another thread, change what the failed
    /// iteration read? (What the thread's open iterations read: a superset
    /// only releases it more often.)
    pub(super) fn released_by(&self, op: &Op) -> bool {
        if self.overflow {
            return !op.made_no_progress();
        }
        self.reads[..self.n_reads].iter().any(|r| r.conflicts(op))
    }
}

/// Does `op` touch an object (rather than being a bare yield, sleep, fence
/// or await)?
pub fn touches_object(op: &Op) -> bool {
    !matches!(
        op.kind,
        OpKind::Yield | OpKind::Sleep | OpKind::Fence | OpKind::Await
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An iteration that writes its frame and puts the bytes back did
    /// nothing there; one that leaves them changed did, unless they are the
    /// loop's own slot or a callee's frame.
    #[test]
    fn stack_writes_count_only_when_not_undone() {
        let mut word: u64 = 7;
        let addr = &mut word as *mut u64 as u64;
        let mut a = Awaits::EMPTY;
        a.open(1, addr - 64, (0, 0, (0, 0)), 0);
        assert!(a.note_stack_write(0, addr, 8));
        // A second write of the same bytes keeps the first's record.
        assert!(a.note_stack_write(0, addr, 8));
        assert_eq!(a.n_writes, 1);
        let it = a.open[0];
        // SAFETY: `addr` is `word`'s address.
        unsafe { core::ptr::write_volatile(addr as *mut u64, 8) };
        assert!(!a.stack_restored(&it));
        let mut own = it;
        own.slot = (addr, 8);
        assert!(a.stack_restored(&own));
        // SAFETY: as above.
        unsafe { core::ptr::write_volatile(addr as *mut u64, 7) };
        assert!(a.stack_restored(&it));
        // Too long to keep: progress.
        assert!(!a.note_stack_write(0, addr, STACK_WRITE_BYTES + 1));
        // The record is bounded.
        for k in 1..AWAIT_WRITES as u64 {
            assert!(a.note_stack_write(0, addr + k, 1));
        }
        assert!(!a.note_stack_write(0, addr + 100, 1));
        assert_eq!(word, 7);
    }
}
