//! The race table (paper Sec. 4.2, slides "Race Table" and
//! "Algorithm Construct-Race-Table").
//!
//! The heading holds the receiving events whose (pruned, coloured) race
//! sets are non-empty, in a topological order of happens-before (trace
//! order is one). Row values: `-1` the receive is removed, `0` its send
//! partner is unchanged, `k > 0` it takes the `k`-th of its choices of new
//! partner. Instead of enumerating the product of the columns' domains and
//! discarding invalid tuples (the naive algorithm), the rows are built
//! column by column and a value is only chosen among those that keep the
//! row valid with the columns before it, so every generated row is a valid
//! race variant and no invalid combination is ever generated (the intent of
//! Construct-Race-Table, whose odometer sets `-1` exactly where a changed
//! earlier receive is in the control structure).
//!
//! Validity (Def. 4, slides "A Naive Algorithm (2)"):
//! * `t_i = -1` iff some changed `r_j` happens before `r_i`;
//! * a new partner `s` of `r_i` must stay in the variant: no changed `r_j`
//!   happens before the call of `s` (in both directions of the heading);
//! * at least one `t_i > 0`.
//!
//! Adaptation for reads commuting: a choice may be a *set* of pairwise
//! independent calls taking the place of one receive together (several
//! reads overtaking a write, several threads' steps overtaking the process
//! exit); one call may be the new partner of several concurrent receives
//! (a write overtaking several concurrent reads); two different new
//! partners in one row must be independent, since the variant would not
//! order them.

use super::model::{dependent, moves_before, SynSequence};
use rustc_hash::FxHashSet as HashSet;

/// One choice of new partner for a receive.
#[derive(Clone, Debug)]
pub struct Choice {
    /// The calls completing in the receive's place (pairwise independent).
    pub partners: Vec<usize>,
}

impl Choice {
    /// The changed receives of this choice for receive `e`, whose
    /// successors the variant removes: the partners' own completions when
    /// they all move before `e` ([`moves_before`]), else `e`'s.
    pub fn roots<'a>(&'a self, seq: &'a SynSequence, e: usize) -> impl Iterator<Item = usize> + 'a {
        let moved = self
            .partners
            .iter()
            .all(|&s| moves_before(&seq.events[e].op, &seq.events[s].op));
        let own = (!moved).then_some(e);
        own.into_iter().chain(
            self.partners
                .iter()
                .copied()
                .filter(move |&s| moved && s < seq.executed),
        )
    }

    /// True if the partners move before `e`, which stays in the variant.
    pub fn moved(&self, seq: &SynSequence, e: usize) -> bool {
        self.partners
            .iter()
            .all(|&s| moves_before(&seq.events[e].op, &seq.events[s].op))
    }
}

/// One column: a receiving event and its choices (indices into the
/// sequence's events).
#[derive(Clone, Debug)]
pub struct Column {
    /// The receiving event.
    pub receive: usize,
    /// Its choices, in a fixed order (value `k` means `choices[k - 1]`).
    pub choices: Vec<Choice>,
}

/// Calls `row` for every row of the race table of `columns`.
///
/// `row` returns `false` to stop the construction early.
pub fn construct_race_table(
    seq: &SynSequence,
    columns: &[Column],
    row: &mut dyn FnMut(&[i32]) -> bool,
) {
    let mut t = vec![0i32; columns.len()];
    fill(seq, columns, 0, &mut t, false, row);
}

/// Fills column `i` onwards; returns `false` once `row` asked to stop.
fn fill(
    seq: &SynSequence,
    columns: &[Column],
    i: usize,
    t: &mut Vec<i32>,
    changed: bool,
    row: &mut dyn FnMut(&[i32]) -> bool,
) -> bool {
    if i == columns.len() {
        return !changed || row(t);
    }
    let r = columns[i].receive;
    let removed = (0..i).any(|j| {
        t[j] > 0
            && columns[j].choices[t[j] as usize - 1]
                .roots(seq, columns[j].receive)
                .any(|root| seq.precedes(root, r))
    });
    if removed {
        t[i] = -1;
        return fill(seq, columns, i + 1, t, changed, row);
    }
    t[i] = 0;
    if !fill(seq, columns, i + 1, t, changed, row) {
        return false;
    }
    for (k, choice) in columns[i].choices.iter().enumerate() {
        if compatible(seq, columns, t, i, choice) {
            t[i] = k as i32 + 1;
            if !fill(seq, columns, i + 1, t, true, row) {
                t[i] = 0;
                return false;
            }
        }
    }
    t[i] = 0;
    true
}

/// Can receive `i` take `choice` given the values of the columns `< i`?
fn compatible(seq: &SynSequence, columns: &[Column], t: &[i32], i: usize, choice: &Choice) -> bool {
    let r = columns[i].receive;
    let independent = |a: usize, b: usize| !dependent(&seq.events[a].op, &seq.events[b].op);
    (0..i).all(|j| {
        if t[j] <= 0 {
            return true;
        }
        let rj = columns[j].receive;
        let cj = &columns[j].choices[t[j] as usize - 1];
        choice.partners.iter().all(|&s| {
            cj.roots(seq, rj).all(|root| !seq.precedes_call(root, s))
                && cj.partners.iter().all(|&sj| sj == s || independent(sj, s))
        }) && cj.partners.iter().all(|&sj| {
            choice
                .roots(seq, r)
                .all(|root| !seq.precedes_call(root, sj))
        })
    })
}

/// The choices of a receive `e` with race set `race_set`: every single
/// partner, and every set of two or more pairwise-independent partners of
/// distinct threads that all move before `e` ([`moves_before`]): reads
/// commute, so several reads may overtake one write together.
///
/// Before the process exit the race set keeps its old sending events
/// (`old`): an old call may only join a group after a new call it depends
/// on, which is the one order of them the earlier variant could not
/// produce (the exit's tangled cycle, E1).
pub fn choices(seq: &SynSequence, e: usize, race_set: &[usize], old: &[usize]) -> Vec<Choice> {
    let independent = |a: usize, b: usize| {
        seq.events[a].id.thread != seq.events[b].id.thread
            && !dependent(&seq.events[a].op, &seq.events[b].op)
    };
    let movable: Vec<usize> = race_set
        .iter()
        .copied()
        .filter(|&s| moves_before(&seq.events[e].op, &seq.events[s].op))
        .collect();
    let exit = seq.events[e].op.kind == reach_channel::OpKind::ProcessExit;
    let mut sets: Vec<Vec<usize>> = race_set.iter().map(|&s| vec![s]).collect();
    let mut seen: HashSet<GroupKey> = HashSet::default();
    let mut frontier: Vec<Vec<usize>> = movable.iter().map(|&s| vec![s]).collect();
    while !frontier.is_empty() && frontier[0].len() < MAX_GROUP {
        let mut next = Vec::new();
        for set in &frontier {
            let last = set.last().copied().unwrap_or(0);
            for &s in &movable {
                let distinct = set
                    .iter()
                    .all(|&m| seq.events[m].id.thread != seq.events[s].id.thread);
                // Independent partners commute: keep them in index order.
                // Dependent ones (only before the process exit) may come in
                // either order, one choice per partial order.
                // A blocking call's open list was read in `e`'s state only,
                // so it may not follow a dependent partner.
                let open = !super::model::blocking(&seq.events[s].op)
                    || set
                        .iter()
                        .all(|&m| !dependent(&seq.events[m].op, &seq.events[s].op));
                let ok = if exit {
                    distinct && open && !set.contains(&s) && class_key(seq, set, s, &mut seen)
                } else {
                    s > last && set.iter().all(|&m| independent(m, s))
                };
                if ok {
                    let mut bigger = set.clone();
                    bigger.push(s);
                    next.push(bigger);
                }
            }
        }
        sets.extend(next.iter().cloned());
        frontier = next;
    }
    sets.into_iter()
        .filter(|group| {
            group.iter().enumerate().all(|(i, &s)| {
                !old.contains(&s)
                    || group[..i].iter().any(|&n| {
                        !old.contains(&n) && dependent(&seq.events[n].op, &seq.events[s].op)
                    })
            })
        })
        .map(|partners| Choice { partners })
        .collect()
}

/// A group of partners up to commuting independent ones: its members and
/// its ordered dependent pairs.
type GroupKey = (Vec<usize>, Vec<(usize, usize)>);

/// Largest group of partners taking one receive's place together.
const MAX_GROUP: usize = 6;

/// True the first time the partial order of `set` followed by `s` is seen:
/// its members and the order of its dependent pairs.
fn class_key(seq: &SynSequence, set: &[usize], s: usize, seen: &mut HashSet<GroupKey>) -> bool {
    let mut members: Vec<usize> = set.iter().copied().chain([s]).collect();
    let order: Vec<usize> = members.clone();
    let mut pairs = Vec::new();
    for (i, &a) in order.iter().enumerate() {
        for &b in &order[i + 1..] {
            if dependent(&seq.events[a].op, &seq.events[b].op) {
                pairs.push((a, b));
            }
        }
    }
    members.sort_unstable();
    pairs.sort_unstable();
    seen.insert((members, pairs))
}
