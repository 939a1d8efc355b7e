//! Solving negated branches with z3: expression decoding (the runtime's
//! nodes are untrusted and checked here), constraint slicing to the inputs
//! the branch depends on, a cache of earlier models, and one incremental
//! solver (`push`/`pop` per query) bounded by `--solver-timeout`.

use super::ConcolicStats;
use crate::exec::symbolic::SymTrace;
use crate::exec::InputValue;
use reach_channel::symbolic::{SymNode, SymOp};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;
use std::time::{Duration, Instant};
use z3::ast::{Ast, Bool, BV};

/// A model: the value of each input variable, by variable name.
type Model = HashMap<String, Vec<u8>>;

/// Most models kept in the cache.
const CACHE_MODELS: usize = 64;

/// The z3 context and solver of one exploration, and the model cache.
pub struct Solver {
    ctx: &'static z3::Context,
    solver: z3::Solver<'static>,
    cache: Vec<Model>,
}

/// A decoded node: its width and the inputs it depends on.
#[derive(Clone)]
struct Info {
    width: u32,
    vars: BTreeSet<usize>,
}

/// Checks node `id` (1-based) of `sym` and every node below it; returns
/// the infos of all nodes up to `id`, or `None` if any is malformed.
fn check(sym: &SymTrace, infos: &mut Vec<Option<Info>>, id: u32) -> Option<()> {
    let ids = id as usize;
    if ids == 0 || ids > sym.nodes.len() {
        return None;
    }
    while infos.len() < ids {
        let n = &sym.nodes[infos.len()];
        let me = infos.len() as u32 + 1;
        let info = decode(sym, infos, n, me);
        infos.push(info);
    }
    infos[ids - 1].as_ref().map(|_| ())
}

fn decode(sym: &SymTrace, infos: &[Option<Info>], n: &SymNode, me: u32) -> Option<Info> {
    let op = SymOp::from_u16(n.op)?;
    let width = u32::from(n.width);
    if width == 0 || width > 512 {
        return None;
    }
    let arg = |a: u32| -> Option<&Info> {
        if a == 0 || a >= me {
            return None;
        }
        infos.get(a as usize - 1)?.as_ref()
    };
    let mut vars = BTreeSet::new();
    match op {
        SymOp::Input => {
            let input = sym.inputs.get(n.imm as usize)?;
            if input.bytes.len() * 8 != width as usize {
                return None;
            }
            vars.insert(n.imm as usize);
        }
        SymOp::Const => {
            if width > 64 {
                return None;
            }
        }
        _ if op.is_binary() || op.is_comparison() => {
            let (a, b) = (arg(n.a)?, arg(n.b)?);
            if a.width != b.width || (op.is_binary() && a.width != width) {
                return None;
            }
            if op.is_comparison() && width != 1 {
                return None;
            }
            vars.extend(&a.vars);
            vars.extend(&b.vars);
        }
        SymOp::ZExt | SymOp::SExt => {
            let a = arg(n.a)?;
            if a.width >= width {
                return None;
            }
            vars.extend(&a.vars);
        }
        SymOp::Extract => {
            let a = arg(n.a)?;
            if n.imm.checked_add(u64::from(width))? > u64::from(a.width) {
                return None;
            }
            vars.extend(&a.vars);
        }
        SymOp::Concat => {
            let (a, b) = (arg(n.a)?, arg(n.b)?);
            if a.width + b.width != width {
                return None;
            }
            vars.extend(&a.vars);
            vars.extend(&b.vars);
        }
        SymOp::Ite => {
            let (c, a, b) = (arg(n.a)?, arg(n.b)?, arg(n.c)?);
            if c.width != 1 || a.width != width || b.width != width {
                return None;
            }
            vars.extend(&c.vars);
            vars.extend(&a.vars);
            vars.extend(&b.vars);
        }
        _ => return None,
    }
    Some(Info { width, vars })
}

/// The z3 variable name of input `i` of `sym`.
fn var_name(sym: &SymTrace, i: usize) -> String {
    let input = &sym.inputs[i];
    format!("{}#{}/{}", input.name, input.occurrence, input.bytes.len())
}

/// The nodes below (and including) `id` that `done` does not hold yet, in
/// increasing order: a checked node's operands have smaller ids, so each
/// comes after its operands. Found with an explicit stack: an expression
/// can be as deep as the program's loop that built it.
fn pending(sym: &SymTrace, id: u32, done: impl Fn(u32) -> bool) -> Vec<u32> {
    let mut found = BTreeSet::new();
    let mut stack = vec![id];
    while let Some(x) = stack.pop() {
        if x == 0 || done(x) || !found.insert(x) {
            continue;
        }
        if let Some(n) = sym.nodes.get(x as usize - 1) {
            stack.extend([n.a, n.b, n.c].into_iter().filter(|&o| o < x));
        }
    }
    found.into_iter().collect()
}

/// Evaluates node `id` under `model` (inputs missing from it keep their
/// values in `sym`); `None` where a value is wider than 64 bits. Every
/// node evaluated is remembered in `memo`, failures too; the operands
/// first, so no evaluation recurses more than one level.
fn eval(
    sym: &SymTrace,
    model: &Model,
    memo: &mut HashMap<u32, Option<u64>>,
    id: u32,
) -> Option<u64> {
    if let Some(v) = memo.get(&id) {
        return *v;
    }
    for x in pending(sym, id, |x| memo.contains_key(&x)) {
        let v = eval_node(sym, model, memo, x);
        memo.insert(x, v);
    }
    memo.get(&id).copied().flatten()
}

/// [`eval`] of node `id` whose operands `memo` holds (or are evaluated
/// there).
fn eval_node(
    sym: &SymTrace,
    model: &Model,
    memo: &mut HashMap<u32, Option<u64>>,
    id: u32,
) -> Option<u64> {
    let n = sym.nodes.get((id as usize).checked_sub(1)?)?;
    let op = SymOp::from_u16(n.op)?;
    let w = u32::from(n.width);
    let mask = |v: u64, w: u32| if w >= 64 { v } else { v & ((1u64 << w) - 1) };
    let sext = |v: u64, w: u32| {
        if w >= 64 {
            v as i64
        } else {
            ((v << (64 - w)) as i64) >> (64 - w)
        }
    };
    let input_bytes = |i: usize| -> Vec<u8> {
        model
            .get(&var_name(sym, i))
            .cloned()
            .unwrap_or_else(|| sym.inputs[i].bytes.clone())
    };
    let v = match op {
        SymOp::Input => {
            if w > 64 {
                return None;
            }
            let bytes = input_bytes(n.imm as usize);
            bytes
                .iter()
                .enumerate()
                .fold(0u64, |acc, (k, b)| acc | (u64::from(*b) << (8 * k)))
        }
        SymOp::Const => n.imm,
        SymOp::Extract => {
            let a = sym.nodes.get(n.a as usize - 1)?;
            if a.op == SymOp::Input as u16 && a.width > 64 {
                let bytes = input_bytes(a.imm as usize);
                let mut v = 0u64;
                for bit in 0..w as u64 {
                    let at = n.imm + bit;
                    let byte = bytes.get((at / 8) as usize).copied().unwrap_or(0);
                    v |= u64::from((byte >> (at % 8)) & 1) << bit;
                }
                v
            } else {
                eval(sym, model, memo, n.a)? >> n.imm
            }
        }
        SymOp::ZExt => eval(sym, model, memo, n.a)?,
        SymOp::SExt => {
            let aw = u32::from(sym.nodes.get(n.a as usize - 1)?.width);
            sext(eval(sym, model, memo, n.a)?, aw) as u64
        }
        SymOp::Concat => {
            let bw = u32::from(sym.nodes.get(n.b as usize - 1)?.width);
            if w > 64 {
                return None;
            }
            (eval(sym, model, memo, n.a)? << bw) | eval(sym, model, memo, n.b)?
        }
        SymOp::Ite => {
            if eval(sym, model, memo, n.a)? != 0 {
                eval(sym, model, memo, n.b)?
            } else {
                eval(sym, model, memo, n.c)?
            }
        }
        _ => {
            let aw = u32::from(sym.nodes.get(n.a as usize - 1)?.width);
            let a = mask(eval(sym, model, memo, n.a)?, aw);
            let b = mask(eval(sym, model, memo, n.b)?, aw);
            let (sa, sb) = (sext(a, aw), sext(b, aw));
            let ones = mask(u64::MAX, aw);
            match op {
                SymOp::Add => a.wrapping_add(b),
                SymOp::Sub => a.wrapping_sub(b),
                SymOp::Mul => a.wrapping_mul(b),
                SymOp::UDiv => a.checked_div(b).unwrap_or(ones),
                SymOp::URem => a.checked_rem(b).unwrap_or(a),
                SymOp::SDiv => {
                    if b == 0 {
                        if sa < 0 {
                            1
                        } else {
                            ones
                        }
                    } else {
                        sa.wrapping_div(sb) as u64
                    }
                }
                SymOp::SRem => {
                    if b == 0 {
                        a
                    } else {
                        sa.wrapping_rem(sb) as u64
                    }
                }
                SymOp::Shl => {
                    if b >= u64::from(aw) {
                        0
                    } else {
                        a << b
                    }
                }
                SymOp::LShr => {
                    if b >= u64::from(aw) {
                        0
                    } else {
                        a >> b
                    }
                }
                SymOp::AShr => {
                    if b >= u64::from(aw) {
                        if sa < 0 {
                            ones
                        } else {
                            0
                        }
                    } else {
                        (sa >> b) as u64
                    }
                }
                SymOp::And => a & b,
                SymOp::Or => a | b,
                SymOp::Xor => a ^ b,
                SymOp::Eq => u64::from(a == b),
                SymOp::Ne => u64::from(a != b),
                SymOp::Ugt => u64::from(a > b),
                SymOp::Uge => u64::from(a >= b),
                SymOp::Ult => u64::from(a < b),
                SymOp::Ule => u64::from(a <= b),
                SymOp::Sgt => u64::from(sa > sb),
                SymOp::Sge => u64::from(sa >= sb),
                SymOp::Slt => u64::from(sa < sb),
                SymOp::Sle => u64::from(sa <= sb),
                _ => return None,
            }
        }
    };
    Some(mask(v, w))
}

/// The execution's inputs with the model's values for the inputs in `vars`
/// (the slice: the others keep their values).
fn inputs_from(sym: &SymTrace, model: &Model, vars: &BTreeSet<usize>) -> Vec<InputValue> {
    (0..sym.inputs.len())
        .map(|i| {
            let mut v = sym.inputs[i].value();
            if vars.contains(&i) {
                if let Some(bytes) = model.get(&var_name(sym, i)) {
                    v.bytes = bytes.clone();
                }
            }
            v
        })
        .collect()
}

/// One path constraint to keep: branch record `index` of `trace` with the
/// outcome `holds` (non-zero when true).
#[derive(Clone)]
pub struct Constraint {
    /// The execution that recorded it (its expression nodes and inputs).
    pub trace: Arc<SymTrace>,
    /// The record in `trace.branches`.
    pub index: usize,
    /// The outcome asked for.
    pub holds: bool,
}

impl Constraint {
    /// Identifies the recording execution (constraints of one execution
    /// share their decoded nodes).
    fn trace_key(&self) -> *const SymTrace {
        Arc::as_ptr(&self.trace)
    }
}

impl Solver {
    /// A solver whose queries each give up after `timeout`.
    pub fn new(timeout: Duration) -> Solver {
        let cfg = z3::Config::new();
        // One context per exploration, alive for the rest of the process.
        let ctx: &'static z3::Context = Box::leak(Box::new(z3::Context::new(&cfg)));
        let solver = z3::Solver::new(ctx);
        let mut params = z3::Params::new(ctx);
        params.set_u32(
            "timeout",
            u32::try_from(timeout.as_millis())
                .unwrap_or(u32::MAX)
                .max(1),
        );
        solver.set_params(&params);
        Solver {
            ctx,
            solver,
            cache: Vec::new(),
        }
    }

    /// Puts the input values of an execution into the model cache, so a
    /// target an input vector already run satisfies costs no query.
    pub fn remember(&mut self, sym: &SymTrace) {
        let model: Model = (0..sym.inputs.len())
            .map(|i| (var_name(sym, i), sym.inputs[i].bytes.clone()))
            .collect();
        self.push_model(model);
    }

    fn push_model(&mut self, model: Model) {
        self.cache.push(model);
        if self.cache.len() > CACHE_MODELS {
            self.cache.remove(0);
        }
    }

    /// Input values that take branch `index` of `sym` the other way while
    /// keeping the constraints before it that share inputs with it; `None`
    /// if unsatisfiable, undecided or malformed (counted in `stats`).
    pub fn negate(
        &mut self,
        sym: &Arc<SymTrace>,
        index: usize,
        stats: &mut ConcolicStats,
    ) -> Option<Vec<InputValue>> {
        let target = sym.branches.get(index)?;
        let mut infos: Vec<Option<Info>> = Vec::new();
        if check(sym, &mut infos, target.expr).is_none() {
            stats.malformed += 1;
            return None;
        }
        // Slice: constraints before the target sharing inputs with it,
        // transitively.
        let info_of = |infos: &Vec<Option<Info>>, id: u32| infos[id as usize - 1].clone();
        let mut vars = info_of(&infos, target.expr)?.vars;
        let mut candidates: Vec<(usize, BTreeSet<usize>)> = Vec::new();
        for (k, b) in sym.branches[..index].iter().enumerate() {
            if check(sym, &mut infos, b.expr).is_none() {
                continue;
            }
            if let Some(i) = info_of(&infos, b.expr) {
                candidates.push((k, i.vars));
            }
        }
        let mut chosen = vec![false; candidates.len()];
        loop {
            let mut grew = false;
            for (k, (_, v)) in candidates.iter().enumerate() {
                if !chosen[k] && !v.is_disjoint(&vars) {
                    chosen[k] = true;
                    vars.extend(v.iter().copied());
                    grew = true;
                }
            }
            if !grew {
                break;
            }
        }
        let constraint = |index: usize, holds: bool| Constraint {
            trace: sym.clone(),
            index,
            holds,
        };
        let mut constraints: Vec<Constraint> = candidates
            .iter()
            .zip(&chosen)
            .filter(|(_, c)| **c)
            .map(|((k, _), _)| constraint(*k, sym.branches[*k].taken != 0))
            .collect();
        constraints.push(constraint(index, target.taken == 0));
        let wanted: Vec<(String, usize)> = vars
            .iter()
            .map(|&i| (var_name(sym, i), sym.inputs[i].bytes.len()))
            .collect();
        let model = self.satisfy(&constraints, &wanted, stats)?;
        Some(inputs_from(sym, &model, &vars))
    }

    /// Input values under which every path constraint of `constraints`
    /// (recorded by possibly different executions; inputs are matched by
    /// name, occurrence and size) has the outcome it asks for: the values
    /// of the inputs they mention (the others keep their defaults). `None`
    /// if unsatisfiable, undecided or malformed (counted in `stats`).
    pub fn solve(
        &mut self,
        constraints: &[Constraint],
        stats: &mut ConcolicStats,
    ) -> Option<Vec<InputValue>> {
        // Every input the constraints mention, by variable name.
        let mut named: BTreeMap<String, InputValue> = BTreeMap::new();
        let mut infos: HashMap<*const SymTrace, Vec<Option<Info>>> = HashMap::new();
        for c in constraints {
            let sym = c.trace.as_ref();
            let expr = sym.branches.get(c.index)?.expr;
            let infos = infos.entry(c.trace_key()).or_default();
            let Some(info) =
                check(sym, infos, expr).and_then(|()| infos[expr as usize - 1].clone())
            else {
                stats.malformed += 1;
                return None;
            };
            for &i in &info.vars {
                named
                    .entry(var_name(sym, i))
                    .or_insert_with(|| sym.inputs[i].value());
            }
        }
        let wanted: Vec<(String, usize)> = named
            .iter()
            .map(|(name, v)| (name.clone(), v.bytes.len()))
            .collect();
        let model = self.satisfy(constraints, &wanted, stats)?;
        Some(
            named
                .into_iter()
                .map(|(name, v)| InputValue {
                    bytes: model.get(&name).cloned().unwrap_or_else(|| v.bytes.clone()),
                    ..v
                })
                .collect(),
        )
    }

    /// A model of (checked) `constraints` with the bytes of each
    /// `(variable, length)` of `wanted`: an earlier model from the cache
    /// that satisfies them, else z3's (then cached). `None` if
    /// unsatisfiable or undecided (counted in `stats`).
    fn satisfy(
        &mut self,
        constraints: &[Constraint],
        wanted: &[(String, usize)],
        stats: &mut ConcolicStats,
    ) -> Option<Model> {
        for model in self.cache.iter().rev() {
            let mut memos: HashMap<*const SymTrace, HashMap<u32, Option<u64>>> = HashMap::new();
            let holds = constraints.iter().all(|c| {
                let memo = memos.entry(c.trace_key()).or_default();
                let expr = c.trace.branches[c.index].expr;
                eval(&c.trace, model, memo, expr).is_some_and(|v| (v != 0) == c.holds)
            });
            if holds {
                stats.cache_hits += 1;
                return Some(model.clone());
            }
        }
        stats.solver_calls += 1;
        let started = Instant::now();
        let mut terms: HashMap<*const SymTrace, HashMap<u32, BV<'static>>> = HashMap::new();
        self.solver.push();
        for c in constraints {
            // A condition is a 1-bit node, or (e.g. `reach_assume`'s int
            // argument) a wider one that holds when non-zero.
            let terms = terms.entry(c.trace_key()).or_default();
            let bv = self.term(&c.trace, terms, c.trace.branches[c.index].expr);
            let zero = BV::from_u64(self.ctx, 0, bv.get_size());
            let holds = bv._eq(&zero).not();
            let condition: Bool = if c.holds { holds } else { holds.not() };
            self.solver.assert(&condition);
        }
        let model = self.check_and_pop(wanted, started, stats)?;
        self.push_model(model.clone());
        Some(model)
    }

    /// Checks the constraints asserted since the last `push`, pops them,
    /// counts the answer and the time since `started`, and if satisfiable
    /// returns the model's bytes of each `(variable, length)` of `wanted`.
    fn check_and_pop(
        &mut self,
        wanted: &[(String, usize)],
        started: Instant,
        stats: &mut ConcolicStats,
    ) -> Option<Model> {
        let result = self.solver.check();
        let model = match result {
            z3::SatResult::Sat => self.solver.get_model().map(|m| {
                let mut out = Model::new();
                for (name, len) in wanted {
                    let var = BV::new_const(self.ctx, name.clone(), *len as u32 * 8);
                    let bytes = (0..*len as u32)
                        .map(|k| {
                            let byte = var.extract(8 * k + 7, 8 * k);
                            m.eval(&byte, true).and_then(|b| b.as_u64()).unwrap_or(0) as u8
                        })
                        .collect();
                    out.insert(name.clone(), bytes);
                }
                out
            }),
            _ => None,
        };
        self.solver.pop(1);
        stats.solver_time += started.elapsed();
        match result {
            z3::SatResult::Sat => stats.sat += 1,
            z3::SatResult::Unsat => stats.unsat += 1,
            z3::SatResult::Unknown => stats.unknown += 1,
        }
        model
    }

    /// The z3 term of (checked) node `id`, built operands first so that no
    /// call recurses more than one level.
    fn term(&self, sym: &SymTrace, terms: &mut HashMap<u32, BV<'static>>, id: u32) -> BV<'static> {
        if let Some(t) = terms.get(&id) {
            return t.clone();
        }
        for x in pending(sym, id, |x| terms.contains_key(&x)) {
            let t = self.term_node(sym, terms, x);
            terms.insert(x, t);
        }
        match terms.get(&id) {
            Some(t) => t.clone(),
            None => self.term_node(sym, terms, id),
        }
    }

    /// [`Self::term`] of node `id` whose operands `terms` holds.
    fn term_node(
        &self,
        sym: &SymTrace,
        terms: &mut HashMap<u32, BV<'static>>,
        id: u32,
    ) -> BV<'static> {
        let n = sym.nodes[id as usize - 1];
        let w = u32::from(n.width);
        let ctx = self.ctx;
        let bool_bv = |b: Bool<'static>| b.ite(&BV::from_u64(ctx, 1, 1), &BV::from_u64(ctx, 0, 1));
        let op = SymOp::from_u16(n.op).unwrap_or(SymOp::Const);
        let t = match op {
            SymOp::Input => BV::new_const(ctx, var_name(sym, n.imm as usize), w),
            SymOp::Const => BV::from_u64(ctx, n.imm, w),
            SymOp::ZExt | SymOp::SExt | SymOp::Extract => {
                let a = self.term(sym, terms, n.a);
                let aw = a.get_size();
                match op {
                    SymOp::ZExt => a.zero_ext(w - aw),
                    SymOp::SExt => a.sign_ext(w - aw),
                    _ => a.extract(n.imm as u32 + w - 1, n.imm as u32),
                }
            }
            SymOp::Concat => {
                let a = self.term(sym, terms, n.a);
                let b = self.term(sym, terms, n.b);
                a.concat(&b)
            }
            SymOp::Ite => {
                let c = self.term(sym, terms, n.a);
                let a = self.term(sym, terms, n.b);
                let b = self.term(sym, terms, n.c);
                c._eq(&BV::from_u64(ctx, 1, 1)).ite(&a, &b)
            }
            _ => {
                let a = self.term(sym, terms, n.a);
                let b = self.term(sym, terms, n.b);
                match op {
                    SymOp::Add => a.bvadd(&b),
                    SymOp::Sub => a.bvsub(&b),
                    SymOp::Mul => a.bvmul(&b),
                    SymOp::UDiv => a.bvudiv(&b),
                    SymOp::SDiv => a.bvsdiv(&b),
                    SymOp::URem => a.bvurem(&b),
                    SymOp::SRem => a.bvsrem(&b),
                    SymOp::Shl => a.bvshl(&b),
                    SymOp::LShr => a.bvlshr(&b),
                    SymOp::AShr => a.bvashr(&b),
                    SymOp::And => a.bvand(&b),
                    SymOp::Or => a.bvor(&b),
                    SymOp::Xor => a.bvxor(&b),
                    SymOp::Eq => bool_bv(a._eq(&b)),
                    SymOp::Ne => bool_bv(a._eq(&b).not()),
                    SymOp::Ugt => bool_bv(a.bvugt(&b)),
                    SymOp::Uge => bool_bv(a.bvuge(&b)),
                    SymOp::Ult => bool_bv(a.bvult(&b)),
                    SymOp::Ule => bool_bv(a.bvule(&b)),
                    SymOp::Sgt => bool_bv(a.bvsgt(&b)),
                    SymOp::Sge => bool_bv(a.bvsge(&b)),
                    SymOp::Slt => bool_bv(a.bvslt(&b)),
                    _ => bool_bv(a.bvsle(&b)),
                }
            }
        };
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::concolic::Input;
    use reach_channel::symbolic::InputKind;

    /// `x + 1 + 1 + ...` 300,000 times, as a loop of the program builds
    /// it: evaluated without recursing that deep.
    #[test]
    fn a_deep_expression_is_evaluated_without_recursion() {
        const DEPTH: u32 = 300_000;
        let mut nodes = vec![
            SymNode {
                op: SymOp::Input as u16,
                width: 32,
                imm: 0,
                ..SymNode::default()
            },
            SymNode {
                op: SymOp::Const as u16,
                width: 32,
                imm: 1,
                ..SymNode::default()
            },
        ];
        let mut last = 1;
        for _ in 0..DEPTH {
            nodes.push(SymNode {
                op: SymOp::Add as u16,
                width: 32,
                a: last,
                b: 2,
                ..SymNode::default()
            });
            last = nodes.len() as u32;
        }
        let sym = SymTrace {
            inputs: vec![Input {
                name: "x".into(),
                occurrence: 0,
                kind: InputKind::Int,
                bytes: 5u32.to_le_bytes().to_vec(),
                lo: 0,
                hi: 100,
                thread: 0,
            }],
            nodes,
            ..SymTrace::default()
        };
        let mut memo = HashMap::new();
        assert_eq!(
            eval(&sym, &Model::new(), &mut memo, last),
            Some(5 + u64::from(DEPTH))
        );
        let model: Model = [("x#0/4".to_string(), 7u32.to_le_bytes().to_vec())].into();
        assert_eq!(
            eval(&sym, &model, &mut HashMap::new(), last),
            Some(7 + u64::from(DEPTH))
        );
    }
}
