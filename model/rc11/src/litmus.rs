//! Litmus programs: threads as lists of operations with constant values.
//!
//! ```
//! use reach_rc11::litmus::{Op, Order::*, Program};
//! // Store buffering, relaxed.
//! let sb = Program::new()
//!     .thread([Op::store("x", 1, Relaxed), Op::load("y", Relaxed).to("r0")])
//!     .thread([Op::store("y", 1, Relaxed), Op::load("x", Relaxed).to("r1")]);
//! # let _ = sb;
//! ```
//!
//! A load (or update) may name a register for its value (`to`), carry an
//! assertion on it (`expect`), and run only when an earlier register of its
//! thread holds a value (`when`). Threads run from the start unless another
//! thread spawns them (`Op::spawn`); `Op::join` waits for a thread's end.

use crate::graph::{Mode, Value};
use std::collections::{BTreeMap, BTreeSet};
use thiserror::Error;

/// A C11 memory order as the program writes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Order {
    /// `relaxed`.
    Relaxed,
    /// `consume`, taken as acquire (as GenMC does).
    Consume,
    /// `acquire`.
    Acquire,
    /// `release`.
    Release,
    /// `acq_rel`.
    AcqRel,
    /// `seq_cst`.
    SeqCst,
}

/// What an update writes, from the value it read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Update {
    /// `fetch_add(v)`.
    Add(Value),
    /// `fetch_sub(v)`.
    Sub(Value),
    /// `exchange(v)`.
    Exchange(Value),
}

impl Update {
    /// The value written after reading `old`.
    pub fn apply(self, old: Value) -> Value {
        match self {
            Update::Add(v) => old.wrapping_add(v),
            Update::Sub(v) => old.wrapping_sub(v),
            Update::Exchange(v) => v,
        }
    }
}

/// The operation itself.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Action {
    /// A load: atomic with an order, or plain (`None`).
    Load {
        /// The location.
        loc: String,
        /// The order; `None` for a plain access.
        order: Option<Order>,
    },
    /// A store of a constant: atomic with an order, or plain (`None`).
    Store {
        /// The location.
        loc: String,
        /// The value stored.
        value: Value,
        /// The order; `None` for a plain access.
        order: Option<Order>,
    },
    /// A read-modify-write that always writes.
    Rmw {
        /// The location.
        loc: String,
        /// What it writes.
        update: Update,
        /// The order.
        order: Order,
    },
    /// A strong compare-and-swap: writes `desired` if it reads `expected`,
    /// otherwise is a load with the failure order.
    Cas {
        /// The location.
        loc: String,
        /// The value compared with.
        expected: Value,
        /// The value written on success.
        desired: Value,
        /// The order on success.
        success: Order,
        /// The order of the load on failure.
        failure: Order,
    },
    /// A fence (`atomic_thread_fence`).
    Fence(Order),
    /// Starts the thread with this index.
    Spawn(usize),
    /// Waits for the end of the thread with this index.
    Join(usize),
}

/// One operation of a thread, with its register, assertion and guard.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Op {
    /// What it does.
    pub action: Action,
    /// The register that receives the value read.
    pub register: Option<String>,
    /// An assertion: the value read must be this.
    pub expect: Option<Value>,
    /// Runs only if this register of the thread holds this value.
    pub guard: Option<(String, Value)>,
}

impl Op {
    fn new(action: Action) -> Op {
        Op {
            action,
            register: None,
            expect: None,
            guard: None,
        }
    }

    /// An atomic load.
    pub fn load(loc: &str, order: Order) -> Op {
        Op::new(Action::Load {
            loc: loc.into(),
            order: Some(order),
        })
    }

    /// A plain (non-atomic) load.
    pub fn plain_load(loc: &str) -> Op {
        Op::new(Action::Load {
            loc: loc.into(),
            order: None,
        })
    }

    /// An atomic store.
    pub fn store(loc: &str, value: Value, order: Order) -> Op {
        Op::new(Action::Store {
            loc: loc.into(),
            value,
            order: Some(order),
        })
    }

    /// A plain (non-atomic) store.
    pub fn plain_store(loc: &str, value: Value) -> Op {
        Op::new(Action::Store {
            loc: loc.into(),
            value,
            order: None,
        })
    }

    /// `fetch_add`.
    pub fn fetch_add(loc: &str, value: Value, order: Order) -> Op {
        Op::new(Action::Rmw {
            loc: loc.into(),
            update: Update::Add(value),
            order,
        })
    }

    /// `exchange`.
    pub fn exchange(loc: &str, value: Value, order: Order) -> Op {
        Op::new(Action::Rmw {
            loc: loc.into(),
            update: Update::Exchange(value),
            order,
        })
    }

    /// A strong `compare_exchange`.
    pub fn cas(loc: &str, expected: Value, desired: Value, success: Order, failure: Order) -> Op {
        Op::new(Action::Cas {
            loc: loc.into(),
            expected,
            desired,
            success,
            failure,
        })
    }

    /// A fence.
    pub fn fence(order: Order) -> Op {
        Op::new(Action::Fence(order))
    }

    /// Starts thread `thread`.
    pub fn spawn(thread: usize) -> Op {
        Op::new(Action::Spawn(thread))
    }

    /// Waits for thread `thread` to end.
    pub fn join(thread: usize) -> Op {
        Op::new(Action::Join(thread))
    }

    /// Puts the value read in `register`.
    pub fn to(mut self, register: &str) -> Op {
        self.register = Some(register.into());
        self
    }

    /// Asserts that the value read is `value`.
    pub fn expect(mut self, value: Value) -> Op {
        self.expect = Some(value);
        self
    }

    /// Runs the operation only if `register` holds `value`.
    pub fn when(mut self, register: &str, value: Value) -> Op {
        self.guard = Some((register.into(), value));
        self
    }

    /// The location accessed, if any.
    pub fn loc(&self) -> Option<&str> {
        match &self.action {
            Action::Load { loc, .. }
            | Action::Store { loc, .. }
            | Action::Rmw { loc, .. }
            | Action::Cas { loc, .. } => Some(loc),
            _ => None,
        }
    }

    /// Whether the operation reads.
    pub fn reads(&self) -> bool {
        matches!(
            self.action,
            Action::Load { .. } | Action::Rmw { .. } | Action::Cas { .. }
        )
    }
}

/// A program: its threads and the initial values of its locations (0
/// unless set).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Program {
    threads: Vec<Vec<Op>>,
    init: BTreeMap<String, Value>,
}

impl Program {
    /// A program with no threads.
    pub fn new() -> Program {
        Program::default()
    }

    /// Adds a thread.
    pub fn thread(mut self, ops: impl IntoIterator<Item = Op>) -> Program {
        self.threads.push(ops.into_iter().collect());
        self
    }

    /// Sets the initial value of `loc`.
    pub fn init(mut self, loc: &str, value: Value) -> Program {
        self.init.insert(loc.into(), value);
        self
    }

    /// The threads.
    pub fn threads(&self) -> &[Vec<Op>] {
        &self.threads
    }

    /// Every location the program names, sorted, with its initial value.
    pub fn locations(&self) -> Vec<(String, Value)> {
        let mut names: BTreeSet<&str> = self.init.keys().map(String::as_str).collect();
        names.extend(self.threads.iter().flatten().filter_map(Op::loc));
        names
            .into_iter()
            .map(|n| (n.to_string(), self.init.get(n).copied().unwrap_or(0)))
            .collect()
    }

    /// Checks what no execution can repair: orders an operation cannot
    /// have, spawns and joins of unknown threads, a thread spawned twice,
    /// a register set twice or used before it is set.
    pub fn validate(&self) -> Result<(), ProgramError> {
        let mut spawned = vec![false; self.threads.len()];
        let mut joined = vec![false; self.threads.len()];
        let mut registers = BTreeSet::new();
        for (t, ops) in self.threads.iter().enumerate() {
            let mut own = BTreeSet::new();
            for (i, op) in ops.iter().enumerate() {
                let at = At { thread: t, op: i };
                modes(op).map_err(|what| ProgramError::InvalidOrder { at, what })?;
                if let Some((reg, _)) = &op.guard {
                    if !own.contains(reg) {
                        return Err(ProgramError::UnsetRegister {
                            at,
                            register: reg.clone(),
                        });
                    }
                }
                if let Action::Spawn(c) | Action::Join(c) = op.action {
                    if op.guard.is_some() {
                        return Err(ProgramError::GuardedThreadOp { at });
                    }
                    if c >= self.threads.len() || c == t {
                        return Err(ProgramError::BadThread { at, target: c });
                    }
                    let seen = if matches!(op.action, Action::Spawn(_)) {
                        &mut spawned[c]
                    } else {
                        &mut joined[c]
                    };
                    if std::mem::replace(seen, true) {
                        return Err(ProgramError::BadThread { at, target: c });
                    }
                }
                if let Some(reg) = &op.register {
                    if !op.reads() || !registers.insert(reg.clone()) {
                        return Err(ProgramError::BadRegister {
                            at,
                            register: reg.clone(),
                        });
                    }
                    own.insert(reg.clone());
                }
            }
        }
        Ok(())
    }

    /// Whether every thread runs the same events whatever it reads: no
    /// compare-and-swap, no guard.
    pub fn has_fixed_shape(&self) -> bool {
        self.threads
            .iter()
            .flatten()
            .all(|op| op.guard.is_none() && !matches!(op.action, Action::Cas { .. }))
    }
}

/// Where an operation is: thread and index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct At {
    /// The thread's index.
    pub thread: usize,
    /// The operation's index in the thread.
    pub op: usize,
}

/// Why a program cannot be explored.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ProgramError {
    /// An order the operation cannot have (a release load, a relaxed fence).
    #[error("T{} op {}: {what}", at.thread, at.op)]
    InvalidOrder {
        /// The operation.
        at: At,
        /// What is wrong.
        what: &'static str,
    },
    /// A spawn or join of an unknown thread, of itself, or twice.
    #[error("T{} op {}: cannot spawn or join T{target}", at.thread, at.op)]
    BadThread {
        /// The operation.
        at: At,
        /// The thread named.
        target: usize,
    },
    /// A spawn or join under a guard.
    #[error("T{} op {}: a spawn or join cannot be guarded", at.thread, at.op)]
    GuardedThreadOp {
        /// The operation.
        at: At,
    },
    /// A guard on a register not set earlier in its thread.
    #[error("T{} op {}: register {register} is not set earlier in the thread", at.thread, at.op)]
    UnsetRegister {
        /// The operation.
        at: At,
        /// The register.
        register: String,
    },
    /// A register set twice, or by an operation that reads nothing.
    #[error("T{} op {}: register {register} is set twice or by an operation that reads nothing", at.thread, at.op)]
    BadRegister {
        /// The operation.
        at: At,
        /// The register.
        register: String,
    },
    /// Threads that wait for each other's end.
    #[error("the threads can deadlock: joins wait for each other")]
    Deadlock,
    /// A program whose events depend on the values read, given to an
    /// enumeration that needs them fixed.
    #[error("the program's events depend on the values read (a compare-and-swap or a guard)")]
    NotFixedShape,
}

/// The modes of an access's events: the read's and the write's (either may
/// be absent), as §3.1 pairs them for updates; an error names an order the
/// operation cannot have. A fence's mode is [`fence_mode`]'s.
pub(crate) fn modes(op: &Op) -> Result<(Option<Mode>, Option<Mode>), &'static str> {
    use Order::*;
    let load = |o: Order| match o {
        Relaxed => Ok(Mode::Relaxed),
        Consume | Acquire => Ok(Mode::Acquire),
        SeqCst => Ok(Mode::SeqCst),
        Release | AcqRel => Err("a load cannot be release or acq_rel"),
    };
    let update = |o: Order| match o {
        Relaxed => (Mode::Relaxed, Mode::Relaxed),
        Consume | Acquire => (Mode::Acquire, Mode::Relaxed),
        Release => (Mode::Relaxed, Mode::Release),
        AcqRel => (Mode::Acquire, Mode::Release),
        SeqCst => (Mode::SeqCst, Mode::SeqCst),
    };
    Ok(match &op.action {
        Action::Load { order: None, .. } => (Some(Mode::NonAtomic), None),
        Action::Load { order: Some(o), .. } => (Some(load(*o)?), None),
        Action::Store { order: None, .. } => (None, Some(Mode::NonAtomic)),
        Action::Store { order: Some(o), .. } => match o {
            Relaxed => (None, Some(Mode::Relaxed)),
            Release => (None, Some(Mode::Release)),
            SeqCst => (None, Some(Mode::SeqCst)),
            Consume | Acquire | AcqRel => {
                return Err("a store cannot be consume, acquire or acq_rel")
            }
        },
        Action::Rmw { order, .. } => {
            let (r, w) = update(*order);
            (Some(r), Some(w))
        }
        Action::Cas {
            success, failure, ..
        } => {
            load(*failure).map_err(|_| "a compare-and-swap cannot fail release or acq_rel")?;
            let (r, w) = update(*success);
            (Some(r), Some(w))
        }
        Action::Fence(o) => {
            fence_mode(*o)?;
            (None, None)
        }
        Action::Spawn(_) | Action::Join(_) => (None, None),
    })
}

/// The mode of a fence of this order.
pub(crate) fn fence_mode(order: Order) -> Result<Mode, &'static str> {
    match order {
        Order::Relaxed => Err("a relaxed fence does nothing: leave it out"),
        Order::Consume | Order::Acquire => Ok(Mode::Acquire),
        Order::Release => Ok(Mode::Release),
        Order::AcqRel => Ok(Mode::AcqRel),
        Order::SeqCst => Ok(Mode::SeqCst),
    }
}

/// The mode of a failed compare-and-swap's load.
pub(crate) fn failure_mode(order: Order) -> Mode {
    match order {
        Order::Relaxed => Mode::Relaxed,
        Order::SeqCst => Mode::SeqCst,
        _ => Mode::Acquire,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Order::*;

    #[test]
    fn orders_an_operation_cannot_have_are_refused() {
        let bad = [
            Op::load("x", Release),
            Op::store("x", 1, Acquire),
            Op::fence(Relaxed),
            Op::cas("x", 0, 1, SeqCst, AcqRel),
        ];
        for op in bad {
            let p = Program::new().thread([op]);
            assert!(matches!(
                p.validate(),
                Err(ProgramError::InvalidOrder { .. })
            ));
        }
    }

    #[test]
    fn threads_and_registers_are_checked() {
        let p = Program::new().thread([Op::spawn(0)]);
        assert!(matches!(p.validate(), Err(ProgramError::BadThread { .. })));
        let p = Program::new()
            .thread([Op::spawn(1), Op::spawn(1)])
            .thread([]);
        assert!(matches!(p.validate(), Err(ProgramError::BadThread { .. })));
        let p = Program::new().thread([Op::load("x", Relaxed).when("r", 1)]);
        assert!(matches!(
            p.validate(),
            Err(ProgramError::UnsetRegister { .. })
        ));
        let p = Program::new()
            .thread([Op::load("x", Relaxed).to("r")])
            .thread([Op::load("x", Relaxed).to("r")]);
        assert!(matches!(
            p.validate(),
            Err(ProgramError::BadRegister { .. })
        ));
    }

    #[test]
    fn updates_pair_their_modes_as_in_the_paper() {
        let modes_of = |o| modes(&Op::fetch_add("x", 1, o)).unwrap();
        assert_eq!(modes_of(AcqRel), (Some(Mode::Acquire), Some(Mode::Release)));
        assert_eq!(
            modes_of(Consume),
            (Some(Mode::Acquire), Some(Mode::Relaxed))
        );
        assert_eq!(modes_of(SeqCst), (Some(Mode::SeqCst), Some(Mode::SeqCst)));
    }
}
