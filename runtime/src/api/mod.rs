//! The interposed C API: each function is a scheduling point when the
//! calling thread is controlled, and forwards to the real C library function
//! otherwise (passive mode, ended execution, fork child, uncontrolled thread).

pub mod barrier;
pub mod cond;
pub mod misc;
pub mod mutex;
pub mod nondet;
pub mod objects;
pub mod once;
pub mod own;
pub mod rwlock;
pub mod sem;
pub mod start;
pub mod thread;
pub mod time;

use reach_channel::{EventFlags, Op, OpKind};

/// Builds an operation.
pub fn mk(kind: OpKind, flags: u16, object: u64, aux: u64) -> Op {
    Op {
        kind,
        flags: EventFlags(flags),
        object,
        aux,
    }
}
