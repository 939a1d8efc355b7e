//! Fixed-capacity table of synchronisation objects keyed by address.
//!
//! The table lives in the runtime's static state (no allocation per call).
//! Open addressing with linear probing and tombstones; a full table ends the
//! execution with `Unsupported`.

use reach_channel::ThreadSet;

/// Number of slots.
pub const CAPACITY: usize = 8192;

/// What kind of object a slot holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ObjKind {
    /// Never used.
    Free,
    /// Removed (keeps probe chains intact).
    Tomb,
    /// A mutex.
    Mutex,
    /// A condition variable.
    Cond,
    /// A reader/writer lock.
    RwLock,
    /// A semaphore.
    Sem,
    /// A barrier.
    Barrier,
    /// A spinlock.
    Spin,
    /// A `pthread_once` control.
    Once,
}

/// Mutex types as glibc numbers them in `__data.__kind & 3`.
pub mod mutex_type {
    /// `PTHREAD_MUTEX_NORMAL`/default.
    pub const NORMAL: u8 = 0;
    /// `PTHREAD_MUTEX_RECURSIVE`.
    pub const RECURSIVE: u8 = 1;
    /// `PTHREAD_MUTEX_ERRORCHECK`.
    pub const ERRORCHECK: u8 = 2;
}

/// `pthread_once` states kept in [`Obj::value`].
pub mod once_state {
    /// The init routine has not run.
    pub const NEW: u64 = 0;
    /// The init routine is running in thread [`super::Obj::owner`].
    pub const RUNNING: u64 = 1;
    /// The init routine completed.
    pub const DONE: u64 = 2;
}

/// One synchronisation object (fields are used per kind).
#[derive(Clone, Copy, Debug)]
pub struct Obj {
    /// Address of the object in the program.
    pub addr: u64,
    /// Kind.
    pub kind: ObjKind,
    /// Mutex type ([`mutex_type`]).
    pub mtype: u8,
    /// Owning thread (mutex, spinlock, rwlock writer, once runner) or `NONE`.
    pub owner: u32,
    /// Recursion count (mutex), number of read holds (rwlock), arrivals (barrier).
    pub count: u32,
    /// Semaphore value, barrier size, once state.
    pub value: u64,
    /// Barrier generation.
    pub generation: u64,
    /// Threads holding a read lock (rwlock).
    pub readers: ThreadSet,
}

impl Obj {
    /// An unused slot.
    pub const FREE: Obj = Obj {
        addr: 0,
        kind: ObjKind::Free,
        mtype: 0,
        owner: crate::current::NONE,
        count: 0,
        value: 0,
        generation: 0,
        readers: ThreadSet::EMPTY,
    };
}

/// The table.
#[repr(C)]
pub struct Table {
    /// Count of insertions and removals (objects created or destroyed);
    /// first, so that reading it touches only the table's first page.
    changes: u64,
    slots: [Obj; CAPACITY],
}

fn home(addr: u64) -> usize {
    ((addr >> 3).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 51) as usize % CAPACITY
}

impl Table {
    /// An empty table.
    pub const EMPTY: Table = Table {
        changes: 0,
        slots: [Obj::FREE; CAPACITY],
    };

    /// How many objects were inserted or removed so far: unchanged means no
    /// object came or went (their fields change only inside operations).
    pub fn changes(&self) -> u64 {
        self.changes
    }

    /// Index of the live object at `addr`, if any.
    pub fn find(&self, addr: u64) -> Option<usize> {
        let mut i = home(addr);
        for _ in 0..CAPACITY {
            let s = &self.slots[i];
            match s.kind {
                ObjKind::Free => return None,
                ObjKind::Tomb => {}
                _ if s.addr == addr => return Some(i),
                _ => {}
            }
            i = (i + 1) % CAPACITY;
        }
        None
    }

    /// The live object at `addr`, if any.
    pub fn get(&self, addr: u64) -> Option<&Obj> {
        self.find(addr).map(|i| &self.slots[i])
    }

    /// Object at index `i` (from [`Table::find`] or [`Table::insert`]).
    pub fn at(&mut self, i: usize) -> &mut Obj {
        &mut self.slots[i % CAPACITY]
    }

    /// Inserts a fresh object of `kind` at `addr` (replacing any live one
    /// there). `None` if the table is full.
    pub fn insert(&mut self, addr: u64, kind: ObjKind) -> Option<usize> {
        self.changes += 1;
        if let Some(i) = self.find(addr) {
            self.slots[i] = Obj {
                addr,
                kind,
                ..Obj::FREE
            };
            return Some(i);
        }
        let mut i = home(addr);
        for _ in 0..CAPACITY {
            if matches!(self.slots[i].kind, ObjKind::Free | ObjKind::Tomb) {
                self.slots[i] = Obj {
                    addr,
                    kind,
                    ..Obj::FREE
                };
                return Some(i);
            }
            i = (i + 1) % CAPACITY;
        }
        None
    }

    /// Removes the object at `addr`, if any.
    pub fn remove(&mut self, addr: u64) {
        self.changes += 1;
        if let Some(i) = self.find(addr) {
            self.slots[i].kind = ObjKind::Tomb;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn insert_find_remove_and_reuse() {
        let mut t = Box::new(Table::EMPTY);
        let a = t.insert(0x1000, ObjKind::Mutex).expect("room");
        t.at(a).owner = 3;
        assert_eq!(t.get(0x1000).map(|o| o.owner), Some(3));
        assert!(t.get(0x2000).is_none());
        // Re-inserting at the same address resets the object.
        let b = t.insert(0x1000, ObjKind::Cond).expect("room");
        assert_eq!(a, b);
        assert_eq!(t.get(0x1000).map(|o| o.kind), Some(ObjKind::Cond));
        t.remove(0x1000);
        assert!(t.get(0x1000).is_none());
    }

    #[test]
    fn full_table_refuses() {
        let mut t = Box::new(Table::EMPTY);
        for i in 0..CAPACITY as u64 {
            assert!(t.insert(0x10_0000 + i * 8, ObjKind::Sem).is_some());
        }
        assert!(t.insert(0x1, ObjKind::Sem).is_none());
        assert!(t.get(0x10_0000 + 8 * 17).is_some());
    }
}
