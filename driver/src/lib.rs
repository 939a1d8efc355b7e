//! reach-native driver library: runs the program under test over and over,
//! one forced interleaving per execution, and explores its behaviours.

pub mod exec;
