//! The clocks of the objects that synchronise outside atomics: mutexes,
//! condition variables, semaphores, barriers, futex words... each a
//! release/acquire point (bounded table, reset per execution).

use super::clock::VClock;

/// Synchronisation objects one execution may track; beyond, they share
/// one clock (more synchronisation than the program has, never less).
pub const SYNC_OBJECTS: usize = 128;

/// The table of synchronisation objects' clocks, by address.
pub struct SyncObjects {
    generation: u32,
    used: usize,
    keys: [(u32, u64); SYNC_OBJECTS],
    clocks: [VClock; SYNC_OBJECTS],
    overflow: VClock,
}

impl SyncObjects {
    /// An empty table (all zeros: [`SyncObjects::reset`] starts every
    /// execution).
    pub const EMPTY: SyncObjects = SyncObjects {
        generation: 0,
        used: 0,
        keys: [(0, 0); SYNC_OBJECTS],
        clocks: [VClock::ZERO; SYNC_OBJECTS],
        overflow: VClock::ZERO,
    };

    /// Forgets every object (a new execution).
    pub fn reset(&mut self) {
        self.generation = self.generation.wrapping_add(1).max(1);
        self.used = 0;
        self.overflow = VClock::ZERO;
    }

    /// The clock of `object`, a new one (seen nothing) if it had none.
    pub fn clock(&mut self, object: u64) -> &mut VClock {
        let mut i = (object.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40) as usize % SYNC_OBJECTS;
        for _ in 0..SYNC_OBJECTS {
            let (generation, key) = self.keys[i];
            if generation != self.generation {
                if self.used >= SYNC_OBJECTS * 3 / 4 {
                    break;
                }
                self.used += 1;
                self.keys[i] = (self.generation, object);
                self.clocks[i] = VClock::ZERO;
                return &mut self.clocks[i];
            }
            if key == object {
                return &mut self.clocks[i];
            }
            i = (i + 1) % SYNC_OBJECTS;
        }
        &mut self.overflow
    }
}
