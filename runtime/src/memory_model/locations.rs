//! Per-location store histories: the table of the atomic locations an
//! execution touched, each with its latest stores in modification order
//! (bounded, preallocated, reset per execution by a generation stamp).

use super::clock::VClock;

/// Stores kept per location: a load may read one of the latest this many.
pub const HISTORY: usize = 8;
/// Locations one execution may track (beyond three quarters of the table,
/// accesses to new locations are not modelled: see `super`).
pub const LOCATIONS: usize = 512;

/// One store of a location's history.
#[derive(Clone, Copy)]
pub struct Store {
    /// The value it wrote, zero-extended (known once a later store came:
    /// the latest store's value is what memory holds).
    pub value: u64,
    /// Event index of the store, `u64::MAX` for the initial value.
    pub step: u64,
    /// Writing thread, `reach_channel::memory_model::INITIAL_WRITER` for
    /// the initial value.
    pub writer: u32,
    /// A `seq_cst` store.
    pub sc: bool,
    /// A read-modify-write: it reads the store just before it in
    /// modification order, and no store may come between them.
    pub rmw: bool,
    /// What an acquire that reads it synchronises with: the release
    /// sequences it belongs to.
    pub rel: VClock,
    /// The part of `rel` its writer's own release stores and fences give
    /// (RC11's `po|loc` in release sequences): what the writer's later
    /// stores to the location continue.
    pub own_rel: VClock,
    /// Per thread, the timestamp of its first event that wrote or read it
    /// (coherence: a thread that has seen those must not read older ones).
    pub seen: VClock,
}

impl Store {
    /// All zeros, so that the static tables take no room in the library.
    const EMPTY: Store = Store {
        value: 0,
        step: 0,
        writer: 0,
        sc: false,
        rmw: false,
        rel: VClock::ZERO,
        own_rel: VClock::ZERO,
        seen: VClock::ZERO,
    };
}

/// One tracked location.
#[derive(Clone, Copy)]
pub struct Location {
    /// Valid only when equal to the table's generation.
    generation: u32,
    /// Its address.
    pub addr: u64,
    /// Stores so far, the initial value included: the next store's place
    /// in modification order.
    pub count: u32,
    /// Place of the latest `seq_cst` store plus one (0: none).
    pub last_sc: u32,
    /// The latest [`HISTORY`] stores, store `p` at `p % HISTORY`.
    stores: [Store; HISTORY],
}

impl Location {
    const EMPTY: Location = Location {
        generation: 0,
        addr: 0,
        count: 0,
        last_sc: 0,
        stores: [Store::EMPTY; HISTORY],
    };

    /// The oldest place still kept.
    #[inline]
    pub fn oldest(&self) -> u32 {
        self.count.saturating_sub(HISTORY as u32)
    }

    /// The latest store's place.
    #[inline]
    pub fn latest(&self) -> u32 {
        self.count - 1
    }

    /// Store at place `p` (kept: `oldest() <= p < count`).
    #[inline]
    pub fn store(&self, p: u32) -> &Store {
        &self.stores[p as usize % HISTORY]
    }

    /// Store at place `p`, to update.
    #[inline]
    pub fn store_mut(&mut self, p: u32) -> &mut Store {
        &mut self.stores[p as usize % HISTORY]
    }

    /// Appends `store` as the latest in modification order; returns its place.
    #[inline]
    pub fn push(&mut self, store: Store) -> u32 {
        self.insert(self.count, store)
    }

    /// Places `store` at `p` in modification order (`oldest() < p <=
    /// count`; a `seq_cst` store after the latest `seq_cst` one): the
    /// stores from `p` on move one place later, and the oldest kept one
    /// falls out of a full history. Returns `p`.
    #[inline]
    pub fn insert(&mut self, p: u32, store: Store) -> u32 {
        let mut q = self.count;
        while q > p {
            self.stores[q as usize % HISTORY] = self.stores[(q - 1) as usize % HISTORY];
            q -= 1;
        }
        self.stores[p as usize % HISTORY] = store;
        self.count += 1;
        if store.sc {
            self.last_sc = p + 1;
        } else if self.last_sc > p {
            self.last_sc += 1;
        }
        p
    }
}

/// The locations of one execution, by address (open addressing).
pub struct Locations {
    generation: u32,
    used: usize,
    slots: [Location; LOCATIONS],
}

impl Locations {
    /// An empty table (all zeros: generation 0 is never valid, since
    /// [`Locations::reset`] starts every execution).
    pub const EMPTY: Locations = Locations {
        generation: 0,
        used: 0,
        slots: [Location::EMPTY; LOCATIONS],
    };

    /// Forgets every location (a new execution).
    pub fn reset(&mut self) {
        self.generation = self.generation.wrapping_add(1).max(1);
        self.used = 0;
    }

    #[inline]
    fn home(addr: u64) -> usize {
        (addr.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40) as usize % LOCATIONS
    }

    /// The slot of `addr`, if tracked.
    #[inline]
    pub fn find(&self, addr: u64) -> Option<usize> {
        let mut i = Self::home(addr);
        for _ in 0..LOCATIONS {
            let slot = &self.slots[i];
            if slot.generation != self.generation {
                return None;
            }
            if slot.addr == addr {
                return Some(i);
            }
            i = (i + 1) % LOCATIONS;
        }
        None
    }

    /// The slot of `addr`, tracking it from now on with `initial` (the
    /// value memory holds) if it was not; `None` if the table is full.
    #[inline]
    pub fn find_or_insert(&mut self, addr: u64, initial: u64) -> Option<usize> {
        if let Some(i) = self.find(addr) {
            return Some(i);
        }
        if self.used >= LOCATIONS * 3 / 4 {
            return None;
        }
        let mut i = Self::home(addr);
        while self.slots[i].generation == self.generation {
            i = (i + 1) % LOCATIONS;
        }
        let slot = &mut self.slots[i];
        slot.generation = self.generation;
        slot.addr = addr;
        slot.count = 0;
        slot.last_sc = 0;
        slot.push(Store {
            value: initial,
            step: u64::MAX,
            writer: reach_channel::memory_model::INITIAL_WRITER,
            ..Store::EMPTY
        });
        self.used += 1;
        Some(i)
    }

    /// Location in slot `i`.
    #[inline]
    pub fn get(&self, i: usize) -> &Location {
        &self.slots[i]
    }

    /// Location in slot `i`, to update.
    #[inline]
    pub fn get_mut(&mut self, i: usize) -> &mut Location {
        &mut self.slots[i]
    }
}

/// A store by `writer` at event `step`, otherwise empty (its clocks are
/// set by the caller).
pub fn new_store(writer: u32, step: u64, sc: bool) -> Store {
    Store {
        writer,
        step,
        sc,
        ..Store::EMPTY
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_location_keeps_its_latest_stores_and_a_reset_forgets_it() {
        let mut t = Box::new(Locations::EMPTY);
        t.reset();
        let i = t.find_or_insert(0x1000, 7).unwrap();
        assert_eq!(t.get(i).count, 1);
        assert_eq!(t.get(i).store(0).value, 7);
        for k in 0..10 {
            t.get_mut(i).push(new_store(1, k, k == 4));
        }
        let loc = t.get(i);
        assert_eq!(loc.count, 11);
        assert_eq!(loc.oldest(), 3);
        assert_eq!(loc.store(10).step, 9);
        assert_eq!(loc.last_sc, 6);
        assert_eq!(t.find(0x1000), Some(i));
        t.reset();
        assert_eq!(t.find(0x1000), None);
    }

    #[test]
    fn a_store_placed_before_the_latest_moves_the_later_ones() {
        let mut t = Box::new(Locations::EMPTY);
        t.reset();
        let i = t.find_or_insert(0x2000, 0).unwrap();
        let loc = t.get_mut(i);
        loc.push(new_store(1, 1, true));
        loc.push(new_store(1, 2, false));
        assert_eq!(loc.last_sc, 2);
        loc.insert(1, new_store(2, 3, false));
        let steps: Vec<u64> = (0..loc.count).map(|p| loc.store(p).step).collect();
        assert_eq!(steps, [u64::MAX, 3, 1, 2]);
        assert_eq!(loc.last_sc, 3, "the seq_cst store moved to place 2");
        for k in 0..HISTORY as u64 {
            loc.push(new_store(1, 10 + k, false));
        }
        let oldest = loc.oldest();
        loc.insert(oldest + 1, new_store(3, 99, false));
        assert_eq!(loc.oldest(), oldest + 1, "the oldest fell out");
        assert_eq!(loc.store(oldest + 1).step, 99);
        assert_eq!(loc.store(oldest + 2).step, 11);
        assert_eq!(loc.store(loc.latest()).step, 10 + HISTORY as u64 - 1);
    }
}
