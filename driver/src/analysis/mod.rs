//! Analyses over one trace: happens-before with commuting reads (DPOR-CR),
//! data races, and the fingerprint of the trace's partial order.

pub mod awaits;
pub mod clock;
pub mod fingerprint;
pub mod happens_before;
pub mod lockset;
pub mod objects;
pub mod races;
pub mod reads_from;
pub mod release_acquire;
pub mod wakeup;
