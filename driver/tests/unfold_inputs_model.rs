//! Unfolding-based testing with concolic inputs, checked against an
//! oracle on simulated programs: threads read inputs, write them to shared
//! variables, read shared variables and branch on what they read. The
//! interpreter plays the runtime (forced prefix, then "continue, else
//! lowest") and records the path constraints of branches on inputs as the
//! runtime's symbolic region would. The oracle runs every interleaving of
//! every input vector of a small domain that decides every branch both
//! ways; `unfold` (symbolic branch events, inputs solved with z3) must
//! reach every local state the oracle reaches, follow every forced path,
//! reach every target, and end with the same unfolding in both orders.

use crate::model;

use model::{op, Rng};
use reach_channel::symbolic::{BranchKind, BranchRecord, InputKind, SymNode, SymOp};
use reach_channel::{Op, OpKind, ThreadSet};
use reach_native::concolic::{Input, SymTrace};
use reach_native::exec::{InputValue, Request};
use reach_native::strategy::exhaustive::Exhaustive;
use reach_native::strategy::unfold::{Order, Unfold};
use reach_native::strategy::Strategy;
use reach_native::trace::{Trace, TraceEvent};
use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::Duration;

/// One instruction of a simulated thread.
#[derive(Clone, Copy, Debug)]
enum Ins {
    /// A new input of the thread into the register (local).
    Input,
    /// Load of a shared variable into the register.
    Read(u64),
    /// Store of the register to a shared variable.
    WriteRegister(u64),
    /// Store of a constant (its thread and place) to a shared variable.
    WriteConst(u64),
    /// If the register (signed) is greater than `c`, go on; else skip the
    /// next `skip` instructions (local; a path constraint when the register
    /// holds an input).
    Branch { c: i32, skip: usize },
}

/// A program: thread 0 creates threads 1..=n, then joins them.
#[derive(Clone, Debug)]
struct Program {
    threads: Vec<Vec<Ins>>,
}

/// A value with the expression node it came from (0: concrete).
#[derive(Clone, Copy, Default)]
struct Value {
    concrete: i32,
    node: u32,
}

/// A local state: thread, and what each instruction it ran saw (the
/// writer of a read, the outcome of a branch).
type LocalState = (u32, Vec<(usize, i64)>);

/// One simulated execution: its trace and the local states it reached.
struct Execution {
    trace: Trace,
    states: Vec<LocalState>,
}

/// The state of one execution being simulated.
struct Machine<'p> {
    program: &'p Program,
    inputs: &'p [InputValue],
    pc: Vec<usize>,
    register: Vec<Value>,
    made: Vec<u32>,
    history: Vec<Vec<(usize, i64)>>,
    memory: HashMap<u64, (Value, i64)>,
    sym: SymTrace,
    states: Vec<LocalState>,
}

impl Machine<'_> {
    fn code(&self, t: usize) -> &[Ins] {
        if t == 0 {
            &[]
        } else {
            &self.program.threads[t - 1]
        }
    }

    fn push_node(&mut self, node: SymNode) -> u32 {
        self.sym.nodes.push(node);
        self.sym.nodes.len() as u32
    }

    fn reached(&mut self, t: usize, pc: usize, seen: i64) {
        self.history[t].push((pc, seen));
        self.states.push((t as u32, self.history[t].clone()));
    }

    /// Runs thread `t`'s local instructions up to its next visible one;
    /// `step` events have been recorded.
    fn run_local(&mut self, t: usize, step: usize) {
        while let Some(&ins) = self.code(t).get(self.pc[t]) {
            let pc = self.pc[t];
            match ins {
                Ins::Input => {
                    let name = format!("t{t}i{}", self.made[t]);
                    self.made[t] += 1;
                    let bytes = self
                        .inputs
                        .iter()
                        .find(|v| v.name == name && v.occurrence == 0)
                        .map_or(vec![0; 4], |v| v.bytes.clone());
                    let concrete = i32::from_le_bytes(bytes[..4].try_into().unwrap_or([0; 4]));
                    self.sym.inputs.push(Input {
                        name,
                        occurrence: 0,
                        kind: InputKind::Int,
                        bytes,
                        lo: i64::from(i32::MIN),
                        hi: i64::from(i32::MAX),
                        thread: t as u32,
                    });
                    let node = self.push_node(SymNode {
                        op: SymOp::Input as u16,
                        width: 32,
                        imm: self.sym.inputs.len() as u64 - 1,
                        ..SymNode::default()
                    });
                    self.register[t] = Value { concrete, node };
                    self.reached(t, pc, 0);
                    self.pc[t] += 1;
                }
                Ins::Branch { c, skip } => {
                    let r = self.register[t];
                    let taken = r.concrete > c;
                    if r.node != 0 {
                        let constant = self.push_node(SymNode {
                            op: SymOp::Const as u16,
                            width: 32,
                            imm: u64::from(c as u32),
                            ..SymNode::default()
                        });
                        let expr = self.push_node(SymNode {
                            op: SymOp::Sgt as u16,
                            width: 1,
                            a: r.node,
                            b: constant,
                            ..SymNode::default()
                        });
                        self.sym.branches.push(BranchRecord {
                            thread: t as u32,
                            kind: BranchKind::Branch as u16,
                            taken: u16::from(taken),
                            site: ((t as u64) << 16) | pc as u64,
                            expr,
                            _reserved: 0,
                            step: step as u64,
                        });
                    }
                    self.reached(t, pc, i64::from(taken));
                    self.pc[t] += if taken { 1 } else { 1 + skip };
                }
                _ => return,
            }
        }
    }

    /// The visible operation thread `t` is about to do, if any.
    fn pending(&self, t: usize, alive: &[bool]) -> Option<Op> {
        if !alive[t] {
            return None;
        }
        if t == 0 {
            let n = self.program.threads.len();
            let k = self.pc[0];
            return match k {
                _ if k < n => Some(op(OpKind::ThreadCreate, k as u64 + 1)),
                _ if k < 2 * n => Some(op(OpKind::ThreadJoin, (k - n) as u64 + 1)),
                _ => None,
            };
        }
        Some(match *self.code(t).get(self.pc[t])? {
            Ins::Read(x) => op(OpKind::Load, x),
            Ins::WriteRegister(x) | Ins::WriteConst(x) => op(OpKind::Store, x),
            Ins::Input | Ins::Branch { .. } => unreachable!("local instructions run eagerly"),
        })
    }

    /// Executes thread `t`'s visible operation `o`.
    fn execute(&mut self, t: usize, o: Op, alive: &mut [bool]) {
        let pc = self.pc[t];
        self.pc[t] += 1;
        match o.kind {
            OpKind::ThreadCreate => alive[o.object as usize] = true,
            OpKind::Load => {
                let (value, writer) = self.memory.get(&o.object).copied().unwrap_or_default();
                self.register[t] = value;
                self.reached(t, pc, writer);
            }
            OpKind::Store => {
                let value = match self.code(t)[pc] {
                    Ins::WriteRegister(_) => self.register[t],
                    _ => Value {
                        concrete: (t * 100 + pc) as i32,
                        node: 0,
                    },
                };
                let writer = (t * 100 + pc + 1) as i64;
                self.memory.insert(o.object, (value, writer));
                self.reached(t, pc, 0);
            }
            _ => {}
        }
    }
}

impl Program {
    fn run(&self, request: &Request) -> Execution {
        let n = self.threads.len() + 1;
        let mut m = Machine {
            program: self,
            inputs: &request.inputs,
            pc: vec![0; n],
            register: vec![Value::default(); n],
            made: vec![0; n],
            history: vec![Vec::new(); n],
            memory: HashMap::new(),
            sym: SymTrace::default(),
            states: Vec::new(),
        };
        let mut alive = vec![false; n];
        alive[0] = true;
        let mut events: Vec<TraceEvent> = Vec::new();
        let mut current = 0usize;
        loop {
            let mut enabled = ThreadSet::EMPTY;
            for t in 0..n {
                let Some(o) = m.pending(t, &alive) else {
                    continue;
                };
                let ok = o.kind != OpKind::ThreadJoin || {
                    let child = o.object as usize;
                    m.pc[child] >= m.code(child).len()
                };
                if ok {
                    enabled.insert(t as u32);
                }
            }
            let step = events.len();
            let chosen = if step < request.prefix.len() {
                let t = request.prefix[step];
                assert!(
                    enabled.contains(t),
                    "prefix {:?} asks for disabled T{t} at step {step} of {self:?}",
                    request.prefix
                );
                t as usize
            } else {
                match enabled.first() {
                    None => break,
                    Some(_) if enabled.contains(current as u32) => current,
                    Some(lowest) => lowest as usize,
                }
            };
            let Some(o) = m.pending(chosen, &alive) else {
                break;
            };
            m.execute(chosen, o, &mut alive);
            events.push(TraceEvent {
                thread: chosen as u32,
                op: o,
                site: 0,
                enabled,
            });
            m.run_local(chosen, events.len());
            if o.kind == OpKind::ThreadCreate {
                m.run_local(o.object as usize, events.len());
            }
            current = chosen;
        }
        let final_pending = (0..n)
            .map(|t| m.pending(t, &alive).map(|o| (o, 0)))
            .collect();
        let mut trace = Trace::new(events, final_pending);
        trace.symbolic = Some(Arc::new(m.sym));
        Execution {
            trace,
            states: m.states,
        }
    }

    /// The names of every input some path of some thread can create.
    fn input_names(&self) -> Vec<String> {
        let mut names = Vec::new();
        for (i, code) in self.threads.iter().enumerate() {
            let count = code.iter().filter(|i| matches!(i, Ins::Input)).count();
            names.extend((0..count).map(|k| format!("t{}i{k}", i + 1)));
        }
        names
    }
}

/// A random program: 2 or 3 threads of up to 4 instructions over two
/// shared variables, with inputs and branches on them (constants 0..=2).
fn random_program(rng: &mut Rng) -> Program {
    let threads = 2 + rng.below(2) as usize;
    let mut program = Program {
        threads: Vec::new(),
    };
    for _ in 0..threads {
        let len = 2 + rng.below(3) as usize;
        let mut code = Vec::new();
        for k in 0..len {
            let x = 0x1000 + 4 * rng.below(2);
            code.push(match rng.below(6) {
                0 => Ins::Input,
                1 | 2 => Ins::Read(x),
                3 => Ins::WriteRegister(x),
                4 => Ins::WriteConst(x),
                _ => Ins::Branch {
                    c: rng.below(3) as i32,
                    skip: (rng.below(2) as usize + 1).min(len - k - 1),
                },
            });
        }
        program.threads.push(code);
    }
    program
}

/// The oracle: every interleaving of every input vector over 0..=3 (each
/// branch compares against 0..=2, so both outcomes occur).
fn oracle(program: &Program) -> HashSet<LocalState> {
    let names = program.input_names();
    let mut states = HashSet::new();
    let vectors = 4usize.pow(names.len() as u32);
    for v in 0..vectors {
        let inputs: Vec<InputValue> = names
            .iter()
            .enumerate()
            .map(|(k, name)| InputValue {
                name: name.clone(),
                occurrence: 0,
                bytes: (((v / 4usize.pow(k as u32)) % 4) as i32)
                    .to_le_bytes()
                    .to_vec(),
            })
            .collect();
        let mut exhaustive = Exhaustive::default();
        while let Some(mut request) = exhaustive.next_request() {
            request.inputs = inputs.clone();
            let execution = program.run(&request);
            exhaustive
                .observe(&request, &execution.trace)
                .expect("the oracle follows its prefixes");
            states.extend(execution.states);
        }
    }
    states
}

/// What unfold reached, and its unfolding's size.
fn unfold(program: &Program, order: Order) -> (HashSet<LocalState>, usize, usize) {
    let mut search = Unfold::with_inputs(order, Duration::from_secs(10));
    let mut states = HashSet::new();
    let mut executions = 0;
    while let Some(request) = search.next_request() {
        let execution = program.run(&request);
        if let Err(divergence) = search.observe(&request, &execution.trace) {
            panic!(
                "{divergence} with inputs {:?} in {program:?}",
                request.inputs
            );
        }
        states.extend(execution.states);
        executions += 1;
        assert!(executions < 10_000, "no end in {program:?}");
    }
    assert_eq!(
        search.diverged(),
        0,
        "a solved path not followed in {program:?}"
    );
    assert_eq!(search.dropped(), 0, "a target not reached in {program:?}");
    (states, search.events(), executions)
}

#[test]
fn random_programs_with_inputs_reach_every_local_state() {
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let (mut checked, mut with_branches) = (0, 0);
    for _ in 0..160 {
        let program = random_program(&mut rng);
        if program.input_names().len() > 3 {
            continue;
        }
        let expected = oracle(&program);
        let (reached, events, _) = unfold(&program, Order::Oldest);
        let missing: Vec<_> = expected.difference(&reached).collect();
        assert!(
            missing.is_empty(),
            "unfold misses local states {missing:?} of {program:?}"
        );
        assert!(
            reached.is_subset(&expected),
            "unfold reached states the oracle does not in {program:?}"
        );
        let (_, other_events, _) = unfold(&program, Order::Newest);
        assert_eq!(
            events, other_events,
            "the unfolding depends on the order in {program:?}"
        );
        checked += 1;
        let branches = program.threads.iter().flatten();
        with_branches += usize::from(
            branches.clone().any(|i| matches!(i, Ins::Branch { .. }))
                && branches.clone().any(|i| matches!(i, Ins::Input)),
        );
    }
    assert!(checked > 100, "{checked}");
    assert!(with_branches > 40, "{with_branches}");
}

/// The paper's Fig. 9: thread 2 writes an input to `x`, thread 1 reads
/// `x` and branches on it; the branch's other outcome needs the write
/// first and an input that takes it.
#[test]
fn a_branch_on_another_threads_input_is_reached() {
    let x = 0x1000;
    let program = Program {
        threads: vec![
            vec![
                Ins::Read(x),
                Ins::Branch { c: 0, skip: 1 },
                Ins::WriteConst(0x1004),
            ],
            vec![Ins::Read(x), Ins::Input, Ins::WriteRegister(x)],
        ],
    };
    let expected = oracle(&program);
    let (reached, _, executions) = unfold(&program, Order::Oldest);
    assert_eq!(reached, expected);
    // Thread 1 writing 0x1004 needs the input > 0 read after the write.
    assert!(reached.iter().any(|(t, h)| *t == 1 && h.len() == 3));
    assert!(executions <= 4, "{executions}");
}
