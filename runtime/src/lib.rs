//! The reach-native runtime, preloaded (`LD_PRELOAD`) into the program under
//! test.
//!
//! It attaches to the driver's shared-memory channel (fd in
//! `REACH_CHANNEL_FD`), interposes the pthread API, serialises the program's
//! threads (exactly one runs at a time), makes every scheduling decision from
//! the driver's schedule prefix and policy, and records the trace into the
//! channel. Without a valid channel it is *passive*: every hook returns at
//! once and every interposed function forwards to the C library, so a
//! preloaded program behaves normally. A channel of another version prints
//! one line to standard error and exits with status 2.
//!
//! Synchronisation objects are modelled entirely in the runtime (fixed
//! tables in static memory, no allocation per call); the C library's
//! objects are only initialised, so they work after the execution ended
//! (atexit handlers, fork children).

pub mod api;
pub mod awaits;
pub mod caller;
pub mod chan;
pub mod current;
pub mod enabled;
pub mod fmtbuf;
pub mod forkserver;
pub mod hooks;
pub mod memory_model;
pub mod models;
pub mod objects_log;
pub mod persist;
pub mod private;
pub mod real;
pub mod region;
pub mod sched;
pub mod seen;
pub mod sources;
pub mod spin;
pub mod state;
pub mod symbolic;
pub mod sys;
pub mod table;
pub mod uthread;
pub mod uthread_own;

mod init;
