//! Enabledness of pending operations, and descriptions of blocked threads
//! for deadlock and livelock reports.

use crate::state::{State, TState, NONE};
use crate::table::{once_state, Obj, ObjKind};
use core::fmt::Write;
use reach_channel::{EventFlags, OpKind};

/// The live object at `addr` of `kind`, if any.
pub fn obj(st: &State, addr: u64, kind: ObjKind) -> Option<&Obj> {
    st.objects.get(addr).filter(|o| o.kind == kind)
}

/// Owner of the lock-like object at `addr` (`NONE` if free or unknown).
pub fn owner(st: &State, addr: u64, kind: ObjKind) -> u32 {
    obj(st, addr, kind).map_or(NONE, |o| o.owner)
}

/// Value of the semaphore at `addr`: the model's, or the C library's
/// representation for a semaphore the runtime has not seen yet.
pub fn sem_value(st: &State, addr: u64) -> u64 {
    match obj(st, addr, ObjKind::Sem) {
        Some(o) => o.value,
        // SAFETY: glibc's sem_t starts with a 64-bit word whose low 32 bits
        // are the value; the program passed this address as a sem_t.
        None => u64::from(unsafe { (addr as *const u32).read_volatile() }),
    }
}

/// Is thread `t`'s pending operation enabled?
pub fn is_enabled(st: &State, t: u32) -> bool {
    let th = &st.threads[t as usize];
    let op = &th.pending.op;
    let flags = op.flags;
    let free_or_mine = |kind| {
        let o = owner(st, op.object, kind);
        o == NONE || o == t
    };
    match op.kind {
        OpKind::Await => !crate::awaits::waiting(st, t),
        OpKind::ThreadJoin => match st.threads.get(op.object as usize) {
            Some(target) if (op.object as u32) < st.thread_count => {
                // Joining oneself, a detached or an already joined thread is
                // enabled so that the misuse is reported at once.
                target.state == TState::Finished
                    || op.object as u32 == t
                    || target.detached
                    || target.joined
            }
            _ => true,
        },
        OpKind::MutexLock => free_or_mine(ObjKind::Mutex),
        OpKind::SpinLock if !flags.has(EventFlags::TRY) => free_or_mine(ObjKind::Spin),
        OpKind::CondRelock => {
            (th.signalled || flags.has(EventFlags::TIMED))
                && owner(st, op.aux, ObjKind::Mutex) == NONE
        }
        OpKind::RwReadLock if !flags.has(EventFlags::TRY) && !flags.has(EventFlags::TIMED) => {
            let w = owner(st, op.object, ObjKind::RwLock);
            w == NONE || w == t
        }
        OpKind::RwWriteLock if !flags.has(EventFlags::TRY) && !flags.has(EventFlags::TIMED) => {
            match obj(st, op.object, ObjKind::RwLock) {
                None => true,
                Some(o) => {
                    (o.owner == NONE || o.owner == t) && (o.count == 0 || o.readers.contains(t))
                }
            }
        }
        OpKind::SemWait if !flags.has(EventFlags::TRY) && !flags.has(EventFlags::TIMED) => {
            sem_value(st, op.object) > 0
        }
        OpKind::BarrierLeave => {
            obj(st, op.object, ObjKind::Barrier).is_none_or(|o| o.generation != th.barrier_gen)
        }
        OpKind::Once => obj(st, op.object, ObjKind::Once)
            .is_none_or(|o| o.value != once_state::RUNNING || o.owner == t),
        OpKind::FutexWait if th.waiting => th.signalled || flags.has(EventFlags::TIMED),
        _ => true,
    }
}

/// Writes ` (site 0x…)` for a pending operation, or ` (site 0x… from
/// 0x…)` with the call into the standard library it is in: the driver
/// replaces either with the source location.
fn site_mark(m: &mut crate::fmtbuf::FmtBuf, p: &crate::state::Pending) {
    if p.caller != 0 {
        let _ = write!(m, " (site {:#x} from {:#x})", p.site, p.caller);
    } else {
        let _ = write!(m, " (site {:#x})", p.site);
    }
}

fn holder(m: &mut crate::fmtbuf::FmtBuf, owner: u32) {
    if owner == NONE {
        let _ = write!(m, "free");
    } else {
        let _ = write!(m, "held by thread {owner}");
    }
}

/// Appends one clause per blocked live thread: what it waits for.
pub fn describe_blocked(st: &State, m: &mut crate::fmtbuf::FmtBuf) {
    let mut first = true;
    for t in 0..st.thread_count {
        let th = &st.threads[t as usize];
        if th.state != TState::Parked {
            continue;
        }
        let en = is_enabled(st, t);
        if en && !crate::spin::holds_back(st, t) {
            continue;
        }
        if !first {
            let _ = write!(m, "; ");
        }
        first = false;
        let op = &th.pending.op;
        let a = op.object;
        if en {
            let _ = write!(m, "thread {t} spins re-reading");
            for r in &th.spin.reads[..th.spin.n] {
                let _ = write!(m, " {:#x}", r.object);
            }
            if th.spin.n == 0 {
                let _ = write!(m, " without visible reads (yield/sleep loop)");
            }
            site_mark(m, &th.pending);
            continue;
        }
        let _ = write!(m, "thread {t} ");
        match op.kind {
            OpKind::Await => {
                let _ = write!(
                    m,
                    "awaits a change of what its loop (site {:#x}) read since step {a}",
                    th.pending.site
                );
            }
            OpKind::MutexLock => {
                let _ = write!(m, "waits for mutex {a:#x} ");
                holder(m, owner(st, a, ObjKind::Mutex));
            }
            OpKind::SpinLock => {
                let _ = write!(m, "waits for spinlock {a:#x} ");
                holder(m, owner(st, a, ObjKind::Spin));
            }
            OpKind::ThreadJoin => {
                let _ = write!(m, "waits to join thread {a}");
            }
            OpKind::CondRelock if !th.signalled => {
                let _ = write!(
                    m,
                    "waits on condition variable {a:#x} (mutex {:#x})",
                    op.aux
                );
            }
            OpKind::CondRelock => {
                let _ = write!(
                    m,
                    "was signalled on {a:#x} and waits for mutex {:#x} ",
                    op.aux
                );
                holder(m, owner(st, op.aux, ObjKind::Mutex));
            }
            OpKind::RwReadLock | OpKind::RwWriteLock => {
                let (w, r) = obj(st, a, ObjKind::RwLock).map_or((NONE, 0), |o| (o.owner, o.count));
                let _ = write!(m, "waits for rwlock {a:#x} (");
                if w != NONE {
                    let _ = write!(m, "write-locked by thread {w})");
                } else {
                    let _ = write!(m, "{r} read locks held)");
                }
            }
            OpKind::SemWait => {
                let _ = write!(m, "waits on semaphore {a:#x} (value 0)");
            }
            OpKind::BarrierLeave => {
                let (n, c) = obj(st, a, ObjKind::Barrier).map_or((0, 0), |o| (o.count, o.value));
                let _ = write!(m, "waits at barrier {a:#x} ({n} of {c} arrived)");
            }
            OpKind::Once => {
                let _ = write!(
                    m,
                    "waits for pthread_once {a:#x} running in thread {}",
                    owner(st, a, ObjKind::Once)
                );
            }
            OpKind::FutexWait => {
                let _ = write!(m, "waits on futex {a:#x}");
            }
            k => {
                let _ = write!(m, "is blocked at {} {a:#x}", k.name());
            }
        }
        if th.pending.site != 0 {
            site_mark(m, &th.pending);
        }
    }
    describe_cycle(st, m);
}

/// The thread that blocked thread `t` waits for, if one thread is to blame
/// (the holder of the lock it wants, the thread it joins).
fn waits_for(st: &State, t: u32) -> u32 {
    let th = &st.threads[t as usize];
    if th.state != TState::Parked || is_enabled(st, t) {
        return NONE;
    }
    let op = &th.pending.op;
    match op.kind {
        OpKind::MutexLock => owner(st, op.object, ObjKind::Mutex),
        OpKind::SpinLock => owner(st, op.object, ObjKind::Spin),
        OpKind::ThreadJoin if (op.object as u32) < st.thread_count => op.object as u32,
        OpKind::CondRelock if th.signalled => owner(st, op.aux, ObjKind::Mutex),
        OpKind::RwReadLock | OpKind::RwWriteLock => owner(st, op.object, ObjKind::RwLock),
        OpKind::Once => owner(st, op.object, ObjKind::Once),
        _ => NONE,
    }
}

/// Appends the first cycle of the waits-for relation, if there is one:
/// `; cycle: thread 1 -> thread 2 -> thread 1`.
fn describe_cycle(st: &State, m: &mut crate::fmtbuf::FmtBuf) {
    let n = st.thread_count;
    for start in 0..n {
        let mut t = start;
        let mut steps = 0;
        while steps <= n {
            t = waits_for(st, t);
            if t == NONE || t == start {
                break;
            }
            steps += 1;
        }
        if t != start {
            continue;
        }
        let _ = write!(m, "; cycle: thread {start}");
        let mut t = waits_for(st, start);
        while t != start && t != NONE {
            let _ = write!(m, " -> thread {t}");
            t = waits_for(st, t);
        }
        let _ = write!(m, " -> thread {start}");
        return;
    }
}
