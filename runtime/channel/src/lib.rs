//! The one shared interface of reach-native: channel layout, hook ABI,
//! operation vocabulary with its dependency relation, site table format and
//! environment variables. The pass, the runtime and the driver all take these
//! definitions from here; none of them links another.
//!
//! This crate has no dependencies so the runtime can use it inside the
//! program under test.

pub mod env;
pub mod fork;
pub mod hooks;
pub mod layout;
pub mod memory_model;
pub mod models;
pub mod ops;
pub mod private;
pub mod sites;
pub mod sources;
pub mod symbolic;
pub mod view;

pub use layout::{
    ChangePoint, Event, Header, Layout, ObjectKind, ObjectRecord, Policy, RunStatus, ThreadSet,
    ThreadSlot, ThreadState, MAGIC, MAX_CHANGE_POINTS, MAX_THREADS, VERSION,
};
pub use ops::{Access, Class, EventFlags, Op, OpKind, RmwFamily, Space};
pub use view::{ChannelError, ChannelView, SymCounts};
