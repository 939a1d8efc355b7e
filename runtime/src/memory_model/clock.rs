//! Vector clocks over the threads the memory model follows.

/// Most threads the RC11 model follows in one execution (thread ids
/// `0..MODEL_THREADS`).
pub const MODEL_THREADS: usize = 64;

/// A vector clock: for each thread, the latest of its timestamps (counted
/// from 1 per modelled event) that the owner of the clock has seen; 0 for
/// none.
#[derive(Clone, Copy)]
pub struct VClock(pub [u32; MODEL_THREADS]);

impl VClock {
    /// The clock that has seen nothing.
    pub const ZERO: VClock = VClock([0; MODEL_THREADS]);

    /// Takes in everything `other` has seen (element-wise maximum).
    #[inline]
    pub fn join(&mut self, other: &VClock) {
        for (a, b) in self.0.iter_mut().zip(other.0.iter()) {
            *a = (*a).max(*b);
        }
    }

    /// Has the owner of this clock seen one of the events `first` names
    /// (per thread, the timestamp of its first event that saw a store; 0
    /// for none)?
    #[inline]
    pub fn saw_any(&self, first: &VClock) -> bool {
        self.0
            .iter()
            .zip(first.0.iter())
            .any(|(mine, f)| *f != 0 && *f <= *mine)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn join_takes_the_maximum_and_saw_any_compares_first_sightings() {
        let mut a = VClock::ZERO;
        a.0[0] = 3;
        let mut b = VClock::ZERO;
        b.0[0] = 1;
        b.0[1] = 5;
        a.join(&b);
        assert_eq!((a.0[0], a.0[1]), (3, 5));
        let mut first = VClock::ZERO;
        first.0[1] = 6;
        assert!(!a.saw_any(&first));
        first.0[1] = 5;
        assert!(a.saw_any(&first));
        assert!(!a.saw_any(&VClock::ZERO));
    }
}
