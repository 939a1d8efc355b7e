//! Sets of events and binary relations over them, as bit matrices, with
//! the operators the paper's definitions are written in (§3.1): union,
//! composition `R1; R2`, inverse `R⁻¹`, closures `R?`, `R+`, `R*`, and the
//! identity `[A]` on a set.

use crate::graph::EventId;

const BITS: usize = 64;

/// A set of events of a graph with `n` events.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EventSet {
    n: usize,
    bits: Vec<u64>,
}

impl EventSet {
    /// The events `e` of `0..n` for which `keep(e)` holds.
    pub fn from_fn(n: usize, keep: impl Fn(EventId) -> bool) -> Self {
        let mut set = EventSet {
            n,
            bits: vec![0; n.div_ceil(BITS)],
        };
        for e in 0..n {
            if keep(EventId(e)) {
                set.bits[e / BITS] |= 1 << (e % BITS);
            }
        }
        set
    }

    /// Whether `e` is in the set.
    pub fn contains(&self, e: EventId) -> bool {
        e.0 < self.n && self.bits[e.0 / BITS] & (1 << (e.0 % BITS)) != 0
    }
}

/// A binary relation over the events `0..n` of a graph.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Relation {
    n: usize,
    words: usize,
    bits: Vec<u64>,
}

impl Relation {
    /// The empty relation over `n` events.
    pub fn empty(n: usize) -> Self {
        let words = n.div_ceil(BITS);
        Relation {
            n,
            words,
            bits: vec![0; n * words],
        }
    }

    /// The relation of the given pairs.
    pub fn from_pairs(n: usize, pairs: impl IntoIterator<Item = (EventId, EventId)>) -> Self {
        let mut r = Relation::empty(n);
        for (a, b) in pairs {
            r.insert(a, b);
        }
        r
    }

    /// `[A]`: the identity on a set.
    pub fn identity(set: &EventSet) -> Self {
        Relation::from_pairs(
            set.n,
            (0..set.n)
                .map(EventId)
                .filter(|&e| set.contains(e))
                .map(|e| (e, e)),
        )
    }

    /// Adds the pair `(a, b)`.
    pub fn insert(&mut self, a: EventId, b: EventId) {
        self.bits[a.0 * self.words + b.0 / BITS] |= 1 << (b.0 % BITS);
    }

    /// Whether `(a, b)` is in the relation.
    pub fn contains(&self, a: EventId, b: EventId) -> bool {
        self.bits[a.0 * self.words + b.0 / BITS] & (1 << (b.0 % BITS)) != 0
    }

    /// Every pair, in order.
    pub fn pairs(&self) -> impl Iterator<Item = (EventId, EventId)> + '_ {
        (0..self.n).flat_map(move |a| {
            (0..self.n)
                .filter(move |&b| self.contains(EventId(a), EventId(b)))
                .map(move |b| (EventId(a), EventId(b)))
        })
    }

    fn row(&self, a: usize) -> &[u64] {
        &self.bits[a * self.words..(a + 1) * self.words]
    }

    fn zip(&self, other: &Relation, f: impl Fn(u64, u64) -> u64) -> Relation {
        assert_eq!(self.n, other.n, "relations over different graphs");
        Relation {
            n: self.n,
            words: self.words,
            bits: self
                .bits
                .iter()
                .zip(&other.bits)
                .map(|(&a, &b)| f(a, b))
                .collect(),
        }
    }

    /// `R1 ∪ R2`.
    pub fn union(&self, other: &Relation) -> Relation {
        self.zip(other, |a, b| a | b)
    }

    /// `R1 ∩ R2`.
    pub fn intersection(&self, other: &Relation) -> Relation {
        self.zip(other, |a, b| a & b)
    }

    /// `R1 \ R2`.
    pub fn minus(&self, other: &Relation) -> Relation {
        self.zip(other, |a, b| a & !b)
    }

    /// `R1; R2`: the pairs `(a, c)` with `a R1 b` and `b R2 c` for some `b`.
    pub fn seq(&self, other: &Relation) -> Relation {
        assert_eq!(self.n, other.n, "relations over different graphs");
        let mut out = Relation::empty(self.n);
        for a in 0..self.n {
            for b in 0..self.n {
                if self.contains(EventId(a), EventId(b)) {
                    let (from, to) = (b * self.words, a * self.words);
                    for w in 0..self.words {
                        out.bits[to + w] |= other.bits[from + w];
                    }
                }
            }
        }
        out
    }

    /// `R⁻¹`.
    pub fn inverse(&self) -> Relation {
        Relation::from_pairs(self.n, self.pairs().map(|(a, b)| (b, a)))
    }

    /// `R+`, the transitive closure (Warshall's algorithm over bit rows).
    pub fn plus(&self) -> Relation {
        let mut out = self.clone();
        for k in 0..self.n {
            let row_k = out.row(k).to_vec();
            for a in 0..self.n {
                if out.contains(EventId(a), EventId(k)) {
                    for (w, bits) in row_k.iter().enumerate() {
                        out.bits[a * self.words + w] |= bits;
                    }
                }
            }
        }
        out
    }

    /// `R?`, the reflexive closure over all `n` events.
    pub fn opt(&self) -> Relation {
        let mut out = self.clone();
        for e in 0..self.n {
            out.insert(EventId(e), EventId(e));
        }
        out
    }

    /// `R*`, the reflexive-transitive closure.
    pub fn star(&self) -> Relation {
        self.plus().opt()
    }

    /// Whether the relation has no pair.
    pub fn is_empty(&self) -> bool {
        self.bits.iter().all(|&w| w == 0)
    }

    /// Whether no event is related to itself.
    pub fn is_irreflexive(&self) -> bool {
        (0..self.n).all(|e| !self.contains(EventId(e), EventId(e)))
    }

    /// Whether the relation has no cycle (`R+` is irreflexive).
    pub fn is_acyclic(&self) -> bool {
        self.plus().is_irreflexive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(n: usize, pairs: &[(usize, usize)]) -> Relation {
        Relation::from_pairs(n, pairs.iter().map(|&(a, b)| (EventId(a), EventId(b))))
    }

    #[test]
    fn operators_follow_their_definitions() {
        let a = r(3, &[(0, 1)]);
        let b = r(3, &[(1, 2)]);
        assert_eq!(a.seq(&b), r(3, &[(0, 2)]));
        assert_eq!(b.seq(&a), r(3, &[]));
        assert_eq!(a.union(&b).plus(), r(3, &[(0, 1), (1, 2), (0, 2)]));
        assert_eq!(a.inverse(), r(3, &[(1, 0)]));
        assert_eq!(a.opt(), r(3, &[(0, 0), (1, 1), (2, 2), (0, 1)]));
        assert_eq!(a.union(&b).minus(&a), b);
        let odd = EventSet::from_fn(3, |e| e.0 % 2 == 1);
        assert_eq!(Relation::identity(&odd), r(3, &[(1, 1)]));
    }

    #[test]
    fn cycles_are_found_across_word_boundaries() {
        let n = 130;
        let chain: Vec<(usize, usize)> = (0..n - 1).map(|i| (i, i + 1)).collect();
        let mut ring = chain.clone();
        ring.push((n - 1, 0));
        assert!(r(n, &chain).is_acyclic());
        assert!(!r(n, &ring).is_acyclic());
        assert!(r(n, &chain).plus().contains(EventId(0), EventId(n - 1)));
    }
}
