//! Execution graphs (§3.1 of Lahav et al., "Repairing sequential
//! consistency in C/C++11", PLDI 2017): events with their thread, kind,
//! location, value and mode, and the primitive relations rf, mo and rmw.
//! Program order is the order of each thread's events, after every
//! location's initialisation write.
//!
//! Beyond the paper, thread creation and join are events: `Spawn` in the
//! parent and `Start`, the first event of the child; `End`, the last event
//! of a joined thread, and `Join` in the joiner. C11 makes the end of a
//! spawn synchronise with the start of the thread, and the end of a thread
//! with the return of its join; [`crate::relations`] turns these pairs into
//! happens-before edges.

use std::fmt;
use thiserror::Error;

/// An event's index in its graph.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct EventId(pub usize);

/// A thread's index in its graph.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ThreadId(pub usize);

/// A location's index in its graph.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LocId(pub usize);

/// A value read or written.
pub type Value = i64;

/// An access mode (§3.1): non-atomic, or a C11 memory order. The modes are
/// ordered na ⊏ rlx ⊏ acq, rel ⊏ acq_rel ⊏ sc; consume is taken as acquire
/// before it reaches a graph.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Mode {
    /// A plain (non-atomic) access.
    NonAtomic,
    /// `memory_order_relaxed`.
    Relaxed,
    /// `memory_order_acquire` (and consume).
    Acquire,
    /// `memory_order_release`.
    Release,
    /// `memory_order_acq_rel`.
    AcqRel,
    /// `memory_order_seq_cst`.
    SeqCst,
}

impl Mode {
    /// Whether `self ⊒ other` in the order of modes.
    pub fn at_least(self, other: Mode) -> bool {
        use Mode::*;
        match other {
            NonAtomic => true,
            Relaxed => self != NonAtomic,
            Acquire => matches!(self, Acquire | AcqRel | SeqCst),
            Release => matches!(self, Release | AcqRel | SeqCst),
            AcqRel => matches!(self, AcqRel | SeqCst),
            SeqCst => self == SeqCst,
        }
    }

    fn short(self) -> &'static str {
        match self {
            Mode::NonAtomic => "na",
            Mode::Relaxed => "rlx",
            Mode::Acquire => "acq",
            Mode::Release => "rel",
            Mode::AcqRel => "acq_rel",
            Mode::SeqCst => "sc",
        }
    }
}

/// What an event does.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum EventKind {
    /// A load of `value` from `loc`.
    Read {
        /// The location read.
        loc: LocId,
        /// The value read.
        value: Value,
        /// The read's mode: na, rlx, acq or sc.
        mode: Mode,
    },
    /// A store of `value` to `loc` (an initialisation write when the event
    /// has no thread).
    Write {
        /// The location written.
        loc: LocId,
        /// The value written.
        value: Value,
        /// The write's mode: na, rlx, rel or sc.
        mode: Mode,
    },
    /// A fence of mode acq, rel, acq_rel or sc.
    Fence {
        /// The fence's mode.
        mode: Mode,
    },
    /// The creation of thread `child`.
    Spawn {
        /// The thread created.
        child: ThreadId,
    },
    /// The first event of a spawned thread.
    Start,
    /// The last event of a joined thread.
    End,
    /// The return of the join of thread `child`.
    Join {
        /// The thread joined.
        child: ThreadId,
    },
}

/// One event of an execution graph.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Event {
    /// The thread the event belongs to; `None` for initialisation writes.
    pub thread: Option<ThreadId>,
    /// What the event does.
    pub kind: EventKind,
}

impl Event {
    /// The location accessed, for reads and writes.
    pub fn loc(&self) -> Option<LocId> {
        match self.kind {
            EventKind::Read { loc, .. } | EventKind::Write { loc, .. } => Some(loc),
            _ => None,
        }
    }

    /// The mode, for reads, writes and fences.
    pub fn mode(&self) -> Option<Mode> {
        match self.kind {
            EventKind::Read { mode, .. }
            | EventKind::Write { mode, .. }
            | EventKind::Fence { mode } => Some(mode),
            _ => None,
        }
    }

    /// The value read or written.
    pub fn value(&self) -> Option<Value> {
        match self.kind {
            EventKind::Read { value, .. } | EventKind::Write { value, .. } => Some(value),
            _ => None,
        }
    }

    /// Whether the event is a read.
    pub fn is_read(&self) -> bool {
        matches!(self.kind, EventKind::Read { .. })
    }

    /// Whether the event is a write (initialisation writes included).
    pub fn is_write(&self) -> bool {
        matches!(self.kind, EventKind::Write { .. })
    }

    /// Whether the event is a fence.
    pub fn is_fence(&self) -> bool {
        matches!(self.kind, EventKind::Fence { .. })
    }

    /// Whether the event is a location's initialisation write.
    pub fn is_init(&self) -> bool {
        self.thread.is_none()
    }
}

/// A memory location: its name and its initialisation write.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Location {
    /// The location's name, for reports.
    pub name: String,
    /// The initialisation write, mo-first and po-before every thread's events.
    pub init: EventId,
}

/// An execution graph G = ⟨E, po, rf, mo, rmw⟩ (§3.1), with thread creation
/// and join events. Built with [`GraphBuilder`], which checks that it is
/// well formed; whether it is consistent is for [`crate::consistency`].
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Graph {
    locations: Vec<Location>,
    events: Vec<Event>,
    threads: Vec<Vec<EventId>>,
    rf: Vec<Option<EventId>>,
    mo: Vec<Vec<EventId>>,
    rmw: Vec<(EventId, EventId)>,
}

impl Graph {
    /// Every event, indexed by [`EventId`].
    pub fn events(&self) -> &[Event] {
        &self.events
    }

    /// One event.
    pub fn event(&self, e: EventId) -> &Event {
        &self.events[e.0]
    }

    /// Every location, indexed by [`LocId`].
    pub fn locations(&self) -> &[Location] {
        &self.locations
    }

    /// The location with this name.
    pub fn location_named(&self, name: &str) -> Option<LocId> {
        self.locations
            .iter()
            .position(|l| l.name == name)
            .map(LocId)
    }

    /// Each thread's events in program order, indexed by [`ThreadId`].
    pub fn threads(&self) -> &[Vec<EventId>] {
        &self.threads
    }

    /// The write a read reads from (`None` if the graph is incomplete there).
    pub fn rf(&self, read: EventId) -> Option<EventId> {
        self.rf[read.0]
    }

    /// A location's writes in modification order, its initialisation first.
    pub fn mo(&self, loc: LocId) -> &[EventId] {
        &self.mo[loc.0]
    }

    /// The read-modify-write pairs: a read and the write po-immediately
    /// after it that together form one atomic update.
    pub fn rmw(&self) -> &[(EventId, EventId)] {
        &self.rmw
    }

    /// The value of a location's mo-last write.
    pub fn final_value(&self, loc: LocId) -> Value {
        let last = *self.mo[loc.0]
            .last()
            .expect("a location has its init write");
        self.event(last).value().expect("mo holds writes")
    }

    /// Replaces a location's modification order, init included, unchecked.
    #[cfg(test)]
    pub(crate) fn set_mo_unchecked(&mut self, loc: LocId, order: Vec<EventId>) {
        self.mo[loc.0] = order;
    }

    fn describe(&self, e: EventId) -> String {
        let event = self.event(e);
        let loc = |l: LocId| self.locations[l.0].name.as_str();
        match event.kind {
            EventKind::Read {
                loc: l,
                value,
                mode,
            } => {
                let from = match self.rf(e) {
                    Some(w) => format!(" from e{}", w.0),
                    None => " from nowhere".to_string(),
                };
                format!("R{}({})={value}{from}", mode.short(), loc(l))
            }
            EventKind::Write { loc: l, value, .. } if event.is_init() => {
                format!("init {}={value}", loc(l))
            }
            EventKind::Write {
                loc: l,
                value,
                mode,
            } => {
                format!("W{}({})={value}", mode.short(), loc(l))
            }
            EventKind::Fence { mode } => format!("F{}", mode.short()),
            EventKind::Spawn { child } => format!("spawn T{}", child.0),
            EventKind::Start => "start".to_string(),
            EventKind::End => "end".to_string(),
            EventKind::Join { child } => format!("join T{}", child.0),
        }
    }
}

/// One line per thread (`T0: e3 Wrlx(x)=1; e4 Rrlx(y)=0 from e1`), then the
/// modification order of each location with more than its init write.
impl fmt::Display for Graph {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (t, events) in self.threads.iter().enumerate() {
            let line: Vec<String> = events
                .iter()
                .map(|&e| format!("e{} {}", e.0, self.describe(e)))
                .collect();
            writeln!(f, "T{t}: {}", line.join("; "))?;
        }
        for (l, order) in self.mo.iter().enumerate() {
            if order.len() > 1 {
                let names: Vec<String> = order.iter().map(|e| format!("e{}", e.0)).collect();
                writeln!(f, "mo {}: {}", self.locations[l].name, names.join(" < "))?;
            }
        }
        Ok(())
    }
}

/// Why a graph could not be built.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum GraphError {
    /// A thread id that the builder did not hand out.
    #[error("no thread T{0}")]
    UnknownThread(usize),
    /// A location id that the builder did not hand out.
    #[error("no location {0}")]
    UnknownLocation(usize),
    /// An event id that the builder did not hand out.
    #[error("no event e{0}")]
    UnknownEvent(usize),
    /// A mode the event's kind cannot have (a release load, a relaxed fence).
    #[error("a {kind} cannot be {mode:?}")]
    InvalidMode {
        /// The event's kind.
        kind: &'static str,
        /// The mode given.
        mode: Mode,
    },
    /// A read-modify-write whose read and write modes do not form one C11 order.
    #[error("a read-modify-write cannot read {read:?} and write {write:?}")]
    InvalidRmwModes {
        /// The read's mode.
        read: Mode,
        /// The write's mode.
        write: Mode,
    },
    /// An event added to a thread after its end.
    #[error("T{0} has ended")]
    ThreadEnded(usize),
    /// A spawn of a thread that already has events or a spawner.
    #[error("T{0} cannot be spawned: it already has events")]
    CannotSpawn(usize),
    /// A join of a thread by itself, or of a thread already joined.
    #[error("T{0} cannot be joined here")]
    CannotJoin(usize),
    /// rf from an event that is not a write, or to one that is not a read.
    #[error("e{write} -> e{read} is not a write and a read")]
    NotReadFromWrite {
        /// The supposed read.
        read: usize,
        /// The supposed write.
        write: usize,
    },
    /// A read given a second write to read from.
    #[error("e{0} already reads from a write")]
    ReadsTwice(usize),
    /// rf between different locations or values.
    #[error("e{read} cannot read from e{write}: another location or value")]
    ReadMismatch {
        /// The read.
        read: usize,
        /// The write.
        write: usize,
    },
    /// A modification order that is not an order of the location's writes.
    #[error("the modification order given for location {0} is not an order of its writes")]
    BadModificationOrder(usize),
}

/// Builds a well-formed [`Graph`] one event at a time.
///
/// Locations come first (each adds its initialisation write), then threads
/// and their events in program order. rf edges are checked as they are
/// added; a location's modification order is the order its writes were
/// added unless [`GraphBuilder::modification_order`] sets it.
#[derive(Debug, Default)]
pub struct GraphBuilder {
    locations: Vec<Location>,
    events: Vec<Event>,
    threads: Vec<Vec<EventId>>,
    ended: Vec<bool>,
    spawned: Vec<bool>,
    rf: Vec<Option<EventId>>,
    mo: Vec<Option<Vec<EventId>>>,
    rmw: Vec<(EventId, EventId)>,
}

impl GraphBuilder {
    /// An empty builder.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a location with its initialisation write of `init`.
    pub fn location(&mut self, name: &str, init: Value) -> LocId {
        let loc = LocId(self.locations.len());
        let init = self.push(
            None,
            EventKind::Write {
                loc,
                value: init,
                mode: Mode::NonAtomic,
            },
        );
        self.locations.push(Location {
            name: name.to_string(),
            init,
        });
        self.mo.push(None);
        loc
    }

    /// Adds a thread with no events. It starts after the initialisation
    /// writes, unless [`GraphBuilder::spawn`] makes it a spawned thread.
    pub fn thread(&mut self) -> ThreadId {
        self.threads.push(Vec::new());
        self.ended.push(false);
        self.spawned.push(false);
        ThreadId(self.threads.len() - 1)
    }

    /// Adds a read of `value` from `loc` to thread `t`.
    pub fn read(
        &mut self,
        t: ThreadId,
        loc: LocId,
        mode: Mode,
        value: Value,
    ) -> Result<EventId, GraphError> {
        check_mode(
            "read",
            mode,
            &[Mode::NonAtomic, Mode::Relaxed, Mode::Acquire, Mode::SeqCst],
        )?;
        self.location_ok(loc)?;
        self.push_to(t, EventKind::Read { loc, value, mode })
    }

    /// Adds a write of `value` to `loc` to thread `t`.
    pub fn write(
        &mut self,
        t: ThreadId,
        loc: LocId,
        mode: Mode,
        value: Value,
    ) -> Result<EventId, GraphError> {
        check_mode(
            "write",
            mode,
            &[Mode::NonAtomic, Mode::Relaxed, Mode::Release, Mode::SeqCst],
        )?;
        self.location_ok(loc)?;
        self.push_to(t, EventKind::Write { loc, value, mode })
    }

    /// Adds a fence to thread `t`.
    pub fn fence(&mut self, t: ThreadId, mode: Mode) -> Result<EventId, GraphError> {
        check_mode(
            "fence",
            mode,
            &[Mode::Acquire, Mode::Release, Mode::AcqRel, Mode::SeqCst],
        )?;
        self.push_to(t, EventKind::Fence { mode })
    }

    /// Adds a successful read-modify-write to thread `t`: a read of
    /// `read_value` and the write of `write_value` po-immediately after it.
    /// The modes pair as in §3.1: (rlx, rlx), (acq, rlx), (rlx, rel),
    /// (acq, rel) or (sc, sc).
    pub fn rmw(
        &mut self,
        t: ThreadId,
        loc: LocId,
        modes: (Mode, Mode),
        read_value: Value,
        write_value: Value,
    ) -> Result<(EventId, EventId), GraphError> {
        use Mode::*;
        let (read_mode, write_mode) = modes;
        if !matches!(
            modes,
            (Relaxed, Relaxed)
                | (Acquire, Relaxed)
                | (Relaxed, Release)
                | (Acquire, Release)
                | (SeqCst, SeqCst)
        ) {
            return Err(GraphError::InvalidRmwModes {
                read: read_mode,
                write: write_mode,
            });
        }
        let r = self.read(t, loc, read_mode, read_value)?;
        let w = self.write(t, loc, write_mode, write_value)?;
        self.rmw.push((r, w));
        Ok((r, w))
    }

    /// Makes `child`, a thread with no events yet, a thread that `parent`
    /// spawns: adds `Spawn` to `parent` and `Start` to `child`, and returns
    /// both.
    pub fn spawn(
        &mut self,
        parent: ThreadId,
        child: ThreadId,
    ) -> Result<(EventId, EventId), GraphError> {
        self.thread_ok(child)?;
        if parent == child || !self.threads[child.0].is_empty() || self.spawned[child.0] {
            return Err(GraphError::CannotSpawn(child.0));
        }
        let spawn = self.push_to(parent, EventKind::Spawn { child })?;
        self.spawned[child.0] = true;
        let start = self.push_to(child, EventKind::Start)?;
        Ok((spawn, start))
    }

    /// Ends `child` with `End` and adds its `Join` to `parent`; returns both.
    pub fn join(
        &mut self,
        parent: ThreadId,
        child: ThreadId,
    ) -> Result<(EventId, EventId), GraphError> {
        self.thread_ok(child)?;
        self.thread_ok(parent)?;
        if parent == child || self.ended[child.0] || self.ended[parent.0] {
            return Err(GraphError::CannotJoin(child.0));
        }
        let end = self.push_to(child, EventKind::End)?;
        self.ended[child.0] = true;
        let join = self.push_to(parent, EventKind::Join { child })?;
        Ok((end, join))
    }

    /// Records that `read` reads from `write`, which must write the same
    /// location and value.
    pub fn reads_from(&mut self, read: EventId, write: EventId) -> Result<(), GraphError> {
        let (r, w) = (self.event_ok(read)?, self.event_ok(write)?);
        match (&r.kind, &w.kind) {
            (
                EventKind::Read {
                    loc: rl, value: rv, ..
                },
                EventKind::Write {
                    loc: wl, value: wv, ..
                },
            ) => {
                if rl != wl || rv != wv {
                    return Err(GraphError::ReadMismatch {
                        read: read.0,
                        write: write.0,
                    });
                }
            }
            _ => {
                return Err(GraphError::NotReadFromWrite {
                    read: read.0,
                    write: write.0,
                })
            }
        }
        if self.rf[read.0].is_some() {
            return Err(GraphError::ReadsTwice(read.0));
        }
        self.rf[read.0] = Some(write);
        Ok(())
    }

    /// Sets `loc`'s modification order: every write to it but its
    /// initialisation write, which stays first.
    pub fn modification_order(&mut self, loc: LocId, writes: &[EventId]) -> Result<(), GraphError> {
        self.location_ok(loc)?;
        let mut given: Vec<EventId> = writes.to_vec();
        given.sort();
        if given != self.writes_to(loc) {
            return Err(GraphError::BadModificationOrder(loc.0));
        }
        let init = self.locations[loc.0].init;
        self.mo[loc.0] = Some(
            std::iter::once(init)
                .chain(writes.iter().copied())
                .collect(),
        );
        Ok(())
    }

    /// The finished graph.
    pub fn build(self) -> Graph {
        let mo = (0..self.locations.len())
            .map(|l| match &self.mo[l] {
                Some(order) => order.clone(),
                None => {
                    let init = self.locations[l].init;
                    std::iter::once(init)
                        .chain(self.writes_to(LocId(l)))
                        .collect()
                }
            })
            .collect();
        Graph {
            locations: self.locations,
            events: self.events,
            threads: self.threads,
            rf: self.rf,
            mo,
            rmw: self.rmw,
        }
    }

    /// The writes to `loc` in the order they were added, init left out.
    fn writes_to(&self, loc: LocId) -> Vec<EventId> {
        self.events
            .iter()
            .enumerate()
            .filter(|(_, e)| !e.is_init() && e.is_write() && e.loc() == Some(loc))
            .map(|(i, _)| EventId(i))
            .collect()
    }

    fn push(&mut self, thread: Option<ThreadId>, kind: EventKind) -> EventId {
        self.events.push(Event { thread, kind });
        self.rf.push(None);
        EventId(self.events.len() - 1)
    }

    fn push_to(&mut self, t: ThreadId, kind: EventKind) -> Result<EventId, GraphError> {
        self.thread_ok(t)?;
        if self.ended[t.0] {
            return Err(GraphError::ThreadEnded(t.0));
        }
        let e = self.push(Some(t), kind);
        self.threads[t.0].push(e);
        Ok(e)
    }

    fn thread_ok(&self, t: ThreadId) -> Result<(), GraphError> {
        if t.0 < self.threads.len() {
            Ok(())
        } else {
            Err(GraphError::UnknownThread(t.0))
        }
    }

    fn location_ok(&self, l: LocId) -> Result<(), GraphError> {
        if l.0 < self.locations.len() {
            Ok(())
        } else {
            Err(GraphError::UnknownLocation(l.0))
        }
    }

    fn event_ok(&self, e: EventId) -> Result<&Event, GraphError> {
        self.events.get(e.0).ok_or(GraphError::UnknownEvent(e.0))
    }
}

fn check_mode(kind: &'static str, mode: Mode, allowed: &[Mode]) -> Result<(), GraphError> {
    if allowed.contains(&mode) {
        Ok(())
    } else {
        Err(GraphError::InvalidMode { kind, mode })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_are_ordered_as_in_the_paper() {
        use Mode::*;
        assert!(SeqCst.at_least(AcqRel) && AcqRel.at_least(Acquire) && AcqRel.at_least(Release));
        assert!(!Acquire.at_least(Release) && !Release.at_least(Acquire));
        assert!(Relaxed.at_least(Relaxed) && !NonAtomic.at_least(Relaxed));
    }

    #[test]
    fn a_builder_refuses_ill_formed_graphs() {
        let mut b = GraphBuilder::new();
        let x = b.location("x", 0);
        let y = b.location("y", 0);
        let t = b.thread();
        assert!(matches!(
            b.read(t, x, Mode::Release, 0),
            Err(GraphError::InvalidMode { .. })
        ));
        assert!(matches!(
            b.rmw(t, x, (Mode::SeqCst, Mode::Release), 0, 1),
            Err(GraphError::InvalidRmwModes { .. })
        ));
        let w = b.write(t, x, Mode::Relaxed, 1).unwrap();
        let r = b.read(t, y, Mode::Relaxed, 1).unwrap();
        assert!(matches!(
            b.reads_from(r, w),
            Err(GraphError::ReadMismatch { .. })
        ));
        assert!(matches!(
            b.reads_from(w, r),
            Err(GraphError::NotReadFromWrite { .. })
        ));
        assert!(matches!(
            b.modification_order(x, &[]),
            Err(GraphError::BadModificationOrder(0))
        ));
    }

    #[test]
    fn the_modification_order_starts_with_the_init_write() {
        let mut b = GraphBuilder::new();
        let x = b.location("x", 0);
        let t = b.thread();
        let w1 = b.write(t, x, Mode::Relaxed, 1).unwrap();
        let w2 = b.write(t, x, Mode::Relaxed, 2).unwrap();
        b.modification_order(x, &[w2, w1]).unwrap();
        let g = b.build();
        assert_eq!(g.mo(x), &[EventId(0), w2, w1]);
        assert_eq!(g.final_value(x), 1);
    }
}
