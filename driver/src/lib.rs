//! reach-native driver library: runs the program under test over and over,
//! one forced interleaving per execution, and explores its behaviours.

pub mod affinity;
pub mod analysis;
pub mod binary;
pub mod bug;
pub mod cancel;
pub mod cargo_reach;
pub mod causes;
pub mod cli;
pub mod concolic;
pub mod constraints;
pub mod exec;
pub mod explore;
pub mod fatal;
pub mod harness;
pub mod merge;
pub mod modes;
pub mod objects;
pub mod parallel;
pub mod pipeline;
pub mod portfolio;
pub mod progress;
pub mod random_share;
pub mod recheck;
pub mod record;
pub mod replay;
pub mod report;
pub mod schedule;
pub mod session;
pub mod shard;
pub mod shorten;
pub mod strategy;
pub mod trace;
