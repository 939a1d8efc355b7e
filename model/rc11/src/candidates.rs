//! Every rf and mo candidate of a program of fixed shape (no
//! compare-and-swap, no guard: each thread's events do not depend on the
//! values read). Each read may read any write to its location, its own
//! thread's later writes included, and each location's writes may come in
//! any order after its initialisation write (coherence puts that write
//! first: it happens before every other event). Values then flow from the
//! constant stores; a candidate where they cannot (an update reading, through
//! a cycle, its own result) has a `po ∪ rf` cycle and is counted but not
//! built, as no model can accept it.

use crate::explore::Finished;
use crate::litmus::ProgramError;
use crate::ops::{Code, Kind, Observations};
use crate::trace::{Source, Step, Trace};

/// The candidates of a program and how many there were.
pub(crate) struct Candidates {
    /// Every candidate whose values are determined.
    pub finished: Vec<Finished>,
    /// All candidates, those with undetermined values included.
    pub total: usize,
}

/// Every rf and mo candidate of `code`, which must have a fixed shape.
pub(crate) fn all_candidates(code: &Code) -> Result<Candidates, ProgramError> {
    let skeleton = Skeleton::of(code)?;
    let choices: Vec<usize> = skeleton
        .reads
        .iter()
        .map(|&(_, _, loc)| 1 + skeleton.writes[loc].len())
        .collect();
    let orders: Vec<Vec<Vec<Source>>> = skeleton.writes.iter().map(|w| permutations(w)).collect();
    let mo_count: usize = orders.iter().map(Vec::len).product();
    let mut finished = Vec::new();
    let mut total = 0;
    let mut rf = vec![0; choices.len()];
    loop {
        total += mo_count;
        if let Some((trace, seen)) = skeleton.run(code, &rf) {
            let mut mo_choice = vec![0; orders.len()];
            loop {
                let mut t = trace.clone();
                t.mo = mo_choice
                    .iter()
                    .zip(&orders)
                    .map(|(&k, o)| o[k].clone())
                    .collect();
                finished.push(Finished {
                    trace: t,
                    seen: seen.clone(),
                });
                let radices: Vec<usize> = orders.iter().map(Vec::len).collect();
                if !advance(&mut mo_choice, &radices) {
                    break;
                }
            }
        }
        if !advance(&mut rf, &choices) {
            break;
        }
    }
    Ok(Candidates { finished, total })
}

/// The next combination in an odometer with the given radices; false after
/// the last.
fn advance(digits: &mut [usize], radices: &[usize]) -> bool {
    for (d, &r) in digits.iter_mut().zip(radices) {
        *d += 1;
        if *d < r {
            return true;
        }
        *d = 0;
    }
    false
}

fn permutations(items: &[Source]) -> Vec<Vec<Source>> {
    if items.is_empty() {
        return vec![Vec::new()];
    }
    let mut out = Vec::new();
    for i in 0..items.len() {
        let mut rest = items.to_vec();
        let first = rest.remove(i);
        for mut tail in permutations(&rest) {
            tail.insert(0, first);
            out.push(tail);
        }
    }
    out
}

/// Each thread's steps with the values of reads (and of the updates'
/// writes) still open, and the operation each step comes from.
struct Skeleton {
    steps: Vec<Vec<(Step, Option<usize>)>>,
    /// Every read: thread, position, location.
    reads: Vec<(usize, usize, usize)>,
    /// Every location's writes, initialisation left out.
    writes: Vec<Vec<Source>>,
}

impl Skeleton {
    fn of(code: &Code) -> Result<Skeleton, ProgramError> {
        let mut steps: Vec<Vec<(Step, Option<usize>)>> = Vec::new();
        for (t, ops) in code.threads.iter().enumerate() {
            let mut s = Vec::new();
            if code.spawned[t] {
                s.push((Step::Start, None));
            }
            for (i, op) in ops.iter().enumerate() {
                if op.guard.is_some() {
                    return Err(ProgramError::NotFixedShape);
                }
                let read = |loc, mode| Step::Read {
                    loc,
                    value: 0,
                    mode,
                    from: Source::Init(loc),
                };
                match op.kind {
                    Kind::Load { loc, mode } => s.push((read(loc, mode), Some(i))),
                    Kind::Store { loc, value, mode } => s.push((
                        Step::Write {
                            loc,
                            value,
                            mode,
                            update: false,
                        },
                        Some(i),
                    )),
                    Kind::Update { loc, modes, .. } => {
                        s.push((read(loc, modes.0), Some(i)));
                        let write = Step::Write {
                            loc,
                            value: 0,
                            mode: modes.1,
                            update: true,
                        };
                        s.push((write, Some(i)));
                    }
                    Kind::Cas { .. } => return Err(ProgramError::NotFixedShape),
                    Kind::Fence(mode) => s.push((Step::Fence(mode), Some(i))),
                    Kind::Spawn(c) => s.push((Step::Spawn(c), Some(i))),
                    Kind::Join(c) => s.push((Step::Join(c), Some(i))),
                }
            }
            steps.push(s);
        }
        for (t, s) in steps.iter_mut().enumerate() {
            if code.joined[t] {
                s.push((Step::End, None));
            }
        }
        let mut reads = Vec::new();
        let mut writes = vec![Vec::new(); code.locations.len()];
        for (t, s) in steps.iter().enumerate() {
            for (p, (step, _)) in s.iter().enumerate() {
                match step {
                    Step::Read { loc, .. } => reads.push((t, p, *loc)),
                    Step::Write { loc, .. } => writes[*loc].push(Source::At(t, p)),
                    _ => {}
                }
            }
        }
        Ok(Skeleton {
            steps,
            reads,
            writes,
        })
    }

    /// The trace (modification order left empty) and observations when
    /// read `k` reads its `rf[k]`-th choice (0: the initialisation write),
    /// or `None` if the values are not determined.
    fn run(&self, code: &Code, rf: &[usize]) -> Option<(Trace, Observations)> {
        let source = |k: usize| {
            let loc = self.reads[k].2;
            match rf[k] {
                0 => Source::Init(loc),
                c => self.writes[loc][c - 1],
            }
        };
        let mut trace = Trace {
            steps: self
                .steps
                .iter()
                .map(|s| s.iter().map(|(step, _)| step.clone()).collect())
                .collect(),
            mo: Vec::new(),
        };
        // Known values: constant stores from the start, then whatever the
        // known writes feed, until nothing changes.
        let mut known: Vec<Vec<bool>> = self
            .steps
            .iter()
            .map(|s| {
                s.iter()
                    .map(|(step, _)| {
                        !matches!(step, Step::Read { .. } | Step::Write { update: true, .. })
                    })
                    .collect()
            })
            .collect();
        let written = |trace: &Trace, s: Source| match s {
            Source::Init(l) => Some(code.locations[l].1),
            Source::At(t, p) => match trace.steps[t][p] {
                Step::Write { value, .. } => Some(value),
                _ => None,
            },
        };
        loop {
            let mut changed = false;
            for (k, &(t, p, _)) in self.reads.iter().enumerate() {
                let from = source(k);
                let ready = match from {
                    Source::Init(_) => true,
                    Source::At(wt, wp) => known[wt][wp],
                };
                if known[t][p] || !ready {
                    continue;
                }
                let value = written(&trace, from)?;
                if let Step::Read {
                    value: v, from: f, ..
                } = &mut trace.steps[t][p]
                {
                    *v = value;
                    *f = from;
                }
                known[t][p] = true;
                changed = true;
                if let Some(Step::Write {
                    value: w,
                    update: true,
                    ..
                }) = trace.steps[t].get_mut(p + 1)
                {
                    let op = self.steps[t][p]
                        .1
                        .expect("[reach internal bug] an update's read has its operation");
                    if let Kind::Update { update, .. } = code.threads[t][op].kind {
                        *w = update.apply(value);
                        known[t][p + 1] = true;
                    }
                }
            }
            if !changed {
                break;
            }
        }
        if known.iter().flatten().any(|k| !k) {
            return None;
        }
        let mut seen = Observations::default();
        for (t, steps) in trace.steps.iter().enumerate() {
            for (p, step) in steps.iter().enumerate() {
                if let (Step::Read { loc, value, .. }, Some(i)) = (step, self.steps[t][p].1) {
                    let op = &code.threads[t][i];
                    seen.record(t, i, op, &code.locations[*loc].0, *value);
                }
            }
        }
        Some((trace, seen))
    }
}
