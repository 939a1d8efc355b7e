//! A validated program in the form the enumerators run: locations as
//! indices, each operation with its event modes, and what a run observes
//! (registers, failed assertions).

use crate::graph::{Mode, Value};
use crate::litmus::{self, Action, Program, ProgramError, Update};
use std::collections::BTreeMap;

/// An operation with its location index and event modes.
#[derive(Clone, Debug)]
pub(crate) enum Kind {
    Load {
        loc: usize,
        mode: Mode,
    },
    Store {
        loc: usize,
        value: Value,
        mode: Mode,
    },
    Update {
        loc: usize,
        update: Update,
        modes: (Mode, Mode),
    },
    Cas {
        loc: usize,
        expected: Value,
        desired: Value,
        modes: (Mode, Mode),
        failure: Mode,
    },
    Fence(Mode),
    Spawn(usize),
    Join(usize),
}

/// One operation, ready to run.
#[derive(Clone, Debug)]
pub(crate) struct Compiled {
    pub kind: Kind,
    pub register: Option<String>,
    pub expect: Option<Value>,
    pub guard: Option<(String, Value)>,
}

/// A validated program.
#[derive(Clone, Debug)]
pub(crate) struct Code {
    pub threads: Vec<Vec<Compiled>>,
    /// Location names (sorted) and initial values.
    pub locations: Vec<(String, Value)>,
    /// Whether each thread waits for another to spawn it.
    pub spawned: Vec<bool>,
    /// Whether each thread is joined (and so ends with an `End` event).
    pub joined: Vec<bool>,
}

impl Code {
    /// Validates `program` and compiles it.
    pub fn new(program: &Program) -> Result<Code, ProgramError> {
        program.validate()?;
        let locations = program.locations();
        let index = |name: &str| {
            locations
                .iter()
                .position(|(n, _)| n == name)
                .expect("[reach internal bug] Program::locations lists every location")
        };
        let n = program.threads().len();
        let (mut spawned, mut joined) = (vec![false; n], vec![false; n]);
        let mut threads = Vec::new();
        for ops in program.threads() {
            let mut out = Vec::new();
            for op in ops {
                let (read, write) = litmus::modes(op)
                    .expect("[reach internal bug] validate checks every operation's order");
                let both = || {
                    (
                        read.unwrap_or(Mode::Relaxed),
                        write.unwrap_or(Mode::Relaxed),
                    )
                };
                let kind = match &op.action {
                    Action::Load { loc, .. } => Kind::Load {
                        loc: index(loc),
                        mode: read.unwrap_or(Mode::NonAtomic),
                    },
                    Action::Store { loc, value, .. } => Kind::Store {
                        loc: index(loc),
                        value: *value,
                        mode: write.unwrap_or(Mode::NonAtomic),
                    },
                    Action::Rmw { loc, update, .. } => Kind::Update {
                        loc: index(loc),
                        update: *update,
                        modes: both(),
                    },
                    Action::Cas {
                        loc,
                        expected,
                        desired,
                        failure,
                        ..
                    } => Kind::Cas {
                        loc: index(loc),
                        expected: *expected,
                        desired: *desired,
                        modes: both(),
                        failure: litmus::failure_mode(*failure),
                    },
                    Action::Fence(o) => Kind::Fence(
                        litmus::fence_mode(*o)
                            .expect("[reach internal bug] validate checks fence orders"),
                    ),
                    Action::Spawn(c) => {
                        spawned[*c] = true;
                        Kind::Spawn(*c)
                    }
                    Action::Join(c) => {
                        joined[*c] = true;
                        Kind::Join(*c)
                    }
                };
                out.push(Compiled {
                    kind,
                    register: op.register.clone(),
                    expect: op.expect,
                    guard: op.guard.clone(),
                });
            }
            threads.push(out);
        }
        Ok(Code {
            threads,
            locations,
            spawned,
            joined,
        })
    }
}

/// What a run observes: the registers set and the assertions that failed.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub(crate) struct Observations {
    pub registers: BTreeMap<String, Value>,
    pub failed: Vec<String>,
}

impl Observations {
    /// Records that operation `op` (index `i` of thread `t`) read `value`
    /// from the location named `loc`.
    pub fn record(&mut self, t: usize, i: usize, op: &Compiled, loc: &str, value: Value) {
        if let Some(reg) = &op.register {
            self.registers.insert(reg.clone(), value);
        }
        if let Some(want) = op.expect {
            if want != value {
                self.failed
                    .push(format!("T{t} op {i}: {loc} = {value}, expected {want}"));
            }
        }
    }

    /// Whether the guard of `op`, if any, holds.
    pub fn guard_holds(&self, op: &Compiled) -> bool {
        match &op.guard {
            Some((reg, value)) => self.registers.get(reg) == Some(value),
            None => true,
        }
    }
}
