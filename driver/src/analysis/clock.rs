//! Vector clocks over thread ids, with entries holding 1-based event indices
//! (as in the paper's `cv[p := |E'|]`, 0 meaning "nothing yet").

use smallvec::SmallVec;

/// A vector clock indexed by thread id (inline for up to 8 threads, so the
/// per-event clocks of small programs allocate nothing).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct VClock(SmallVec<[u32; 8]>);

impl VClock {
    /// Entry for thread `t` (0 when absent).
    pub fn get(&self, t: u32) -> u32 {
        self.0.get(t as usize).copied().unwrap_or(0)
    }

    /// Sets the entry of thread `t`.
    pub fn set(&mut self, t: u32, value: u32) {
        let t = t as usize;
        if self.0.len() <= t {
            self.0.resize(t + 1, 0);
        }
        self.0[t] = value;
    }

    /// Pointwise maximum with `other` (the paper's `vmax`).
    pub fn join(&mut self, other: &VClock) {
        if self.0.len() < other.0.len() {
            self.0.resize(other.0.len(), 0);
        }
        for (a, b) in self.0.iter_mut().zip(other.0.iter()) {
            *a = (*a).max(*b);
        }
    }

    /// True if event number `index` (0-based) of thread `t` happened before
    /// the holder of this clock.
    pub fn covers(&self, t: u32, index: usize) -> bool {
        self.get(t) as usize > index
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn join_is_pointwise_max() {
        let mut a = VClock::default();
        a.set(0, 3);
        let mut b = VClock::default();
        b.set(1, 5);
        b.set(0, 1);
        a.join(&b);
        assert_eq!((a.get(0), a.get(1), a.get(7)), (3, 5, 0));
        assert!(a.covers(1, 4));
        assert!(!a.covers(1, 5));
    }
}
