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
//! Adaptations: a read receive that moves (reads another write) stays in
//! the variant and only what depends on its value is removed; the write it
//! reads must be completed in the variant (checked on the whole row), a new
//! partner call must stay. Before the process exit a choice may be a *set* of calls taking
//! its place together (several threads' steps before the exit); one call
//! may be the new partner of several concurrent receives (a write taking
//! two places at once); two different new partner calls in one row must be
//! independent, since the variant would not order them.

use super::model::{dependent, SynSequence};
use super::races::{How, Race};
use reach_channel::OpKind;
use rustc_hash::FxHashSet as HashSet;

/// One choice of new partner for a receive.
#[derive(Clone, Debug)]
pub struct Choice {
    /// The new partners: calls completing in the receive's place (pairwise
    /// independent, or ordered before the process exit), or the one write
    /// a moving read receive reads around.
    pub partners: Vec<usize>,
    /// How the receive changes.
    pub how: How,
    /// A read reading an old partner write again, now at the new place
    /// the parent variant gave that write: only new together with a
    /// change the parent's table did not have.
    pub revived: bool,
}

impl Choice {
    /// The changed receives of this choice for receive `e`, whose
    /// dependents the variant removes, each with whether the receive's own
    /// event goes too: a write receive taken by a call goes; a moving read
    /// stays; a process exit stays after its (pending) partners.
    pub fn roots(&self, seq: &SynSequence, e: usize) -> Option<(usize, bool)> {
        match self.how {
            How::Take if seq.events[e].op.cuts_threads() => None,
            How::Take => Some((e, true)),
            How::Before | How::After => Some((e, false)),
        }
    }

    /// True if the partners are calls (rather than a completed write).
    fn calls(&self) -> bool {
        self.how == How::Take
    }

    /// True if the partner calls stay in a variant with the changed receive
    /// `root`: they must not depend on it. (A write a moving read reads
    /// around is checked on the whole row, [`reads_complete`].)
    fn survive(&self, seq: &SynSequence, root: (usize, bool)) -> bool {
        !self.calls() || self.partners.iter().all(|&s| !seq.removes_call(root.0, s))
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

/// Calls `row` for every row of the race table of `columns`, in
/// lexicographic order of the values (`-1`, `0`, then the choices).
///
/// `row` returns `false` to stop the construction early. The rows are
/// built column by column without recursion (a heading may have as many
/// columns as the execution has steps), and each column is checked only
/// against the changed columns before it, so a row costs time linear in
/// the heading times the number of its changes.
pub fn construct_race_table(
    seq: &SynSequence,
    columns: &[Column],
    row: &mut dyn FnMut(&[i32]) -> bool,
) {
    let n = columns.len();
    let mut t = vec![0i32; n];
    // Choices of each column tried so far.
    let mut tried = vec![0usize; n];
    // The changed columns before the current one, in increasing order,
    // with their choices.
    let mut changed: Vec<(usize, &Choice)> = Vec::new();
    let mut i = 0;
    loop {
        // First values from column `i` on: removed, or unchanged.
        while i < n {
            t[i] = if removed(seq, &changed, columns[i].receive) {
                -1
            } else {
                0
            };
            tried[i] = 0;
            i += 1;
        }
        if !changed.is_empty() && reads_complete(seq, &changed) && !row(&t) {
            return;
        }
        // Back to the last column with another compatible choice.
        loop {
            if i == 0 {
                return;
            }
            i -= 1;
            if t[i] < 0 {
                continue;
            }
            if t[i] > 0 {
                changed.pop();
                t[i] = 0;
            }
            let receive = columns[i].receive;
            let next = columns[i].choices[tried[i]..]
                .iter()
                .position(|choice| compatible(seq, &changed, receive, choice));
            match next {
                Some(offset) => {
                    tried[i] += offset + 1;
                    t[i] = tried[i] as i32;
                    changed.push((receive, &columns[i].choices[tried[i] - 1]));
                    i += 1;
                    break;
                }
                None => tried[i] = columns[i].choices.len(),
            }
        }
    }
}

/// True if one of the `changed` receives (with their choices) removes the
/// receive `r` from the variant.
fn removed(seq: &SynSequence, changed: &[(usize, &Choice)], r: usize) -> bool {
    changed.iter().any(|&(rj, cj)| {
        cj.roots(seq, rj)
            .is_some_and(|(root, inclusive)| seq.removes(root, inclusive, r))
    })
}

/// True if every write that a moving read of a row with the `changed`
/// receives reads around is completed in the variant: no changed receive
/// removes it, or it is the new partner call of a changed receive
/// (completing in that place).
fn reads_complete(seq: &SynSequence, changed: &[(usize, &Choice)]) -> bool {
    changed.iter().filter(|(_, c)| !c.calls()).all(|(_, c)| {
        let w = c.partners[0];
        changed
            .iter()
            .any(|(_, d)| d.calls() && d.partners.contains(&w))
            || changed.iter().all(|&(e, d)| {
                d.roots(seq, e)
                    .is_none_or(|(r, inc)| !seq.removes(r, inc, w))
            })
    })
}

/// Can receive `r` take `choice` given the `changed` receives before it?
fn compatible(seq: &SynSequence, changed: &[(usize, &Choice)], r: usize, choice: &Choice) -> bool {
    let independent = |a: usize, b: usize| !dependent(&seq.events[a].op, &seq.events[b].op);
    let mine = choice.roots(seq, r);
    changed.iter().all(|&(rj, cj)| {
        let theirs = cj.roots(seq, rj);
        theirs.is_none_or(|root| choice.survive(seq, root))
            && mine.is_none_or(|root| cj.survive(seq, root))
            && (!choice.calls()
                || !cj.calls()
                || choice
                    .partners
                    .iter()
                    .all(|&s| cj.partners.iter().all(|&sj| sj == s || independent(sj, s))))
    })
}

/// The choices of a receive `e` with race set `race_set`: every single
/// partner, and before the process exit every set of two or more calls of
/// distinct threads taking its place together, one per partial order of
/// the set.
///
/// Before the process exit the race set keeps its old sending events
/// (`old`): an old call may only join a group after a new call it depends
/// on, directly or through dependent members: the orders of them the
/// earlier variant could not produce (the exit's tangled cycle, E1).
pub fn choices(seq: &SynSequence, e: usize, race_set: &[Race], old: &[usize]) -> Vec<Choice> {
    let exit = seq.events[e].op.cuts_threads();
    if !exit {
        return race_set
            .iter()
            .map(|r| Choice {
                partners: vec![r.partner],
                how: r.how,
                revived: false,
            })
            .collect();
    }
    let calls: Vec<usize> = race_set.iter().map(|r| r.partner).collect();
    let mut sets: Vec<Vec<usize>> = calls.iter().map(|&s| vec![s]).collect();
    let mut seen: HashSet<GroupKey> = HashSet::default();
    let mut frontier: Vec<Vec<usize>> = sets.clone();
    while !frontier.is_empty() && frontier[0].len() < MAX_GROUP {
        let mut next = Vec::new();
        for set in &frontier {
            for &s in &calls {
                let distinct = set
                    .iter()
                    .all(|&m| seq.events[m].id.thread != seq.events[s].id.thread);
                // Dependent partners may come in either order, one choice
                // per partial order. A blocking call's open list was read
                // in `e`'s state only, so it may not follow a dependent
                // partner.
                let open = !super::model::blocking(&seq.events[s].op)
                    || set
                        .iter()
                        .all(|&m| !dependent(&seq.events[m].op, &seq.events[s].op))
                    || semaphore_open_after(seq, e, set, s);
                if distinct && open && !set.contains(&s) && class_key(seq, set, s, &mut seen) {
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
            // An old call must follow a new one through a chain of
            // dependent members.
            let mut after_new = Vec::with_capacity(group.len());
            for (i, &s) in group.iter().enumerate() {
                let follows = !old.contains(&s)
                    || group[..i]
                        .iter()
                        .zip(&after_new)
                        .any(|(&n, &ok)| ok && dependent(&seq.events[n].op, &seq.events[s].op));
                after_new.push(follows);
            }
            after_new.iter().all(|&ok| ok)
        })
        .map(|partners| Choice {
            partners,
            how: How::Take,
            revived: false,
        })
        .collect()
}

/// True if the semaphore wait `s` is open after the group `set` completed
/// in the state of receive `e`: the traced count there plus the group's
/// posts minus its waits is positive.
fn semaphore_open_after(seq: &SynSequence, e: usize, set: &[usize], s: usize) -> bool {
    let op = seq.events[s].op;
    let Some(pos) = seq.events[e].pos else {
        return false;
    };
    if op.kind != OpKind::SemWait {
        return false;
    }
    let Some(mut value) = seq.semaphore_before(op.object, pos) else {
        return false;
    };
    for &m in set {
        let m = seq.events[m].op;
        if m.object == op.object {
            match m.kind {
                OpKind::SemPost => value += 1,
                OpKind::SemWait => value -= 1,
                _ => {}
            }
        }
    }
    value > 0
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
