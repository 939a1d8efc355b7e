//! Race variants and algorithm GenerateVariants (paper Sec. 4.1, Def. 4;
//! Sec. 5.4, Fig. 4).
//!
//! A [`Variant`] is what the search keeps between executions, and all it
//! keeps: the variant's partial order as one linearisation (the schedule
//! prefix the runtime forces), the operation expected at each step (to
//! check that the execution followed it), the colours of its receiving
//! events, and, for the pruning of old sending events, the race sets its
//! receives had in the sequence it was derived from.

use super::model::{dependent, moves_before, EventId, Stamp, SynSequence};
use super::races::race_sets;
use super::table::{choices, construct_race_table, Column};
use reach_channel::OpKind;
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

/// Colour of a receiving event (Sec. 5.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Colour {
    /// Its send partner can never be changed (C1, C2).
    Black,
    /// Its send partner may only be changed to complete the tangled cycle
    /// broken when the receive `link` was changed (E1).
    Gray {
        /// The changed receive (identified by its new partner's event).
        link: EventId,
    },
}

/// A race variant, compact: its linearisation and what GenerateVariants
/// needs from it when the execution it leads to comes back.
#[derive(Clone, Debug, Default)]
pub struct Variant {
    /// Thread of each step of the linearisation.
    pub prefix: Vec<u32>,
    /// Operation (kind, object) expected at each step.
    pub steps: Vec<(OpKind, u64)>,
    /// Changed synchronisation pairs: (new partner, the event whose place it
    /// takes), for messages.
    pub changed: Vec<(EventId, EventId)>,
    /// Colours of the variant's non-white receives.
    pub colours: Vec<(EventId, Colour)>,
    /// `race_set(r, V)` for the receives `r` of the variant: the race sets
    /// they had in the parent sequence, restricted to sending events that
    /// are in the variant (old sends).
    pub old_races: Vec<(EventId, Vec<EventId>)>,
}

impl Variant {
    /// Approximate heap size in bytes (for statistics).
    pub fn footprint(&self) -> usize {
        self.prefix.len() * 4
            + self.steps.len() * 16
            + self.changed.len() * 16
            + self.colours.len() * 24
            + self
                .old_races
                .iter()
                .map(|(_, s)| 32 + s.len() * 8)
                .sum::<usize>()
    }
}

/// GenerateVariants (Fig. 4): the race variants of `seq`, collected by
/// prefix-based testing with `parent`.
/// Most race-table rows turned into variants for one SYN-sequence. Past it
/// the table is cut short and the search reports itself incomplete (the race
/// table grows exponentially with contended objects: 200 threads on one
/// mutex would never finish).
pub const MAX_ROWS_PER_SEQUENCE: usize = 1_000;

/// The variants of `seq` (Fig. 4), and whether the race table had to be cut
/// short at [`MAX_ROWS_PER_SEQUENCE`] rows.
pub fn generate_variants(seq: &SynSequence, parent: &Variant) -> (Vec<Variant>, bool) {
    let raw = race_sets(seq);
    let colours: HashMap<EventId, Colour> = parent.colours.iter().copied().collect();
    let old: HashMap<EventId, HashSet<EventId>> = parent
        .old_races
        .iter()
        .map(|(r, s)| (*r, s.iter().copied().collect()))
        .collect();

    // Step 1: prune old sending events from the race sets of old receives.
    // Step 2 (heading): black receives are left out; a gray receive keeps
    // only the partners that complete its tangled cycle.
    let mut columns = Vec::new();
    for (e, set) in raw.iter().enumerate() {
        let id = seq.events[e].id;
        let pruned = old.get(&id);
        let link = match colours.get(&id) {
            Some(Colour::Black) => continue,
            Some(Colour::Gray { link }) => seq.find(*link).or(Some(usize::MAX)),
            None => None,
        };
        let is_old = |f: usize| pruned.is_some_and(|p| p.contains(&seq.events[f].id));
        let exit = seq.events[e].op.kind == OpKind::ProcessExit;
        let race_set: Vec<usize> = set
            .iter()
            .copied()
            .filter(|&f| exit || !is_old(f))
            .filter(|&f| link.is_none_or(|l| l != usize::MAX && seq.precedes_call(l, f)))
            .collect();
        let old_sends: Vec<usize> = race_set.iter().copied().filter(|&f| is_old(f)).collect();
        let choices = choices(seq, e, &race_set, &old_sends);
        if !choices.is_empty() {
            columns.push(Column {
                receive: e,
                choices,
            });
        }
    }

    let mut variants = Vec::new();
    let mut rows = 0usize;
    construct_race_table(seq, &columns, &mut |row| {
        rows += 1;
        if rows > MAX_ROWS_PER_SEQUENCE {
            return false;
        }
        let mut changes: Vec<(usize, usize)> = Vec::new();
        for (v, column) in row.iter().zip(&columns).filter(|(v, _)| **v > 0) {
            let choice = &column.choices[*v as usize - 1];
            changes.extend(choice.partners.iter().map(|&s| (column.receive, s)));
        }
        variants.extend(derive(seq, &raw, &colours, &changes));
        true
    });
    (variants, rows > MAX_ROWS_PER_SEQUENCE)
}

/// Builds the variant of one race-table row (Def. 4) and colours it
/// (Fig. 4, step 3); `None` if the row does not define one partial order.
///
/// Each change `(e, s)` removes the events happening after its changed
/// receive: `e`'s completion, or, when `s` moves before `e`
/// ([`moves_before`]: a read overtaking a write, a step overtaking the
/// process exit), `s`'s own completion, `e` and its successors then
/// following `s` unchanged. The linearisation lists the variant's events
/// in trace order, except that the kept successors of such an `e` come
/// last, after the new partners.
fn derive(
    seq: &SynSequence,
    raw: &[Vec<usize>],
    inherited: &HashMap<EventId, Colour>,
    changes: &[(usize, usize)],
) -> Option<Variant> {
    let moved = |&(e, s): &(usize, usize)| moves_before(&seq.events[e].op, &seq.events[s].op);
    let roots: Vec<usize> = changes
        .iter()
        .filter(|c| !moved(c) || c.1 < seq.executed)
        .map(|c| if moved(c) { c.1 } else { c.0 })
        .collect();
    let kept = |g: usize| roots.iter().all(|&r| !seq.precedes(r, g));
    let partners: HashSet<usize> = changes.iter().map(|&(_, s)| s).collect();
    let mut members: Vec<usize> = (0..seq.executed)
        .filter(|&g| kept(g) || partners.contains(&g))
        .collect();
    for &(_, s) in changes {
        if s >= seq.executed && !members.contains(&s) {
            members.push(s);
        }
    }
    let late: HashSet<usize> = members
        .iter()
        .copied()
        .filter(|&g| {
            !partners.contains(&g) && changes.iter().any(|c| moved(c) && seq.precedes(c.0, g))
        })
        .collect();
    // A moved partner overtakes the kept successors of its own `e` only;
    // overtaking a dependent successor of another change's `e` would
    // change a pair the row does not name.
    for c in changes.iter().filter(|c| moved(c)) {
        let (e, s) = *c;
        let s_pos = seq.events[s].pos.unwrap_or(usize::MAX);
        let conflict = late.iter().any(|&b| {
            !seq.precedes(e, b)
                && seq.events[b].pos.is_some_and(|p| p < s_pos)
                && dependent(&seq.events[b].op, &seq.events[s].op)
        });
        if conflict {
            return None;
        }
    }
    let order = linearise(seq, &members, changes, &moved)?;
    let mut fresh = partners.clone();
    fresh.extend(late.iter().copied());

    let mut colours: HashMap<EventId, Colour> = members
        .iter()
        .filter_map(|&g| {
            let id = seq.events[g].id;
            inherited.get(&id).map(|c| (id, *c))
        })
        .collect();
    for &(r, s) in changes {
        colour_change(seq, &members, &fresh, r, s, &mut colours);
    }

    let call_kept = |s: usize| roots.iter().all(|&r| !seq.precedes_call(r, s));
    let old_races = members
        .iter()
        .filter(|&&g| g < seq.executed && !partners.contains(&g))
        .filter_map(|&g| {
            let senders: Vec<EventId> = raw[g]
                .iter()
                .copied()
                .filter(|&s| call_kept(s))
                .map(|s| seq.events[s].id)
                .collect();
            (!senders.is_empty()).then_some((seq.events[g].id, senders))
        })
        .collect();

    let mut colours: Vec<(EventId, Colour)> = colours.into_iter().collect();
    colours.sort_unstable_by_key(|(id, _)| *id);
    Some(Variant {
        prefix: order.iter().map(|&g| seq.events[g].id.thread).collect(),
        steps: order
            .iter()
            .map(|&g| (seq.events[g].op.kind, seq.events[g].op.object))
            .collect(),
        changed: changes
            .iter()
            .map(|&(r, s)| (seq.events[s].id, seq.events[r].id))
            .collect(),
        colours,
        old_races,
    })
}

/// A linearisation of the variant's partial order: happens-before of the
/// trace among the kept events, each new partner after its call and the
/// kept events it depends on, and each event overtaken by a moved partner
/// (with its successors) after that partner. Events get a level (the
/// number of such overtakings they must follow, a fixpoint over the
/// timestamps) and are listed by level, then trace order. `None` if the
/// constraints are cyclic.
fn linearise(
    seq: &SynSequence,
    members: &[usize],
    changes: &[(usize, usize)],
    moved: &dyn Fn(&(usize, usize)) -> bool,
) -> Option<Vec<usize>> {
    let position = |g: usize| seq.events[g].pos.unwrap_or(usize::MAX);
    let mut sorted: Vec<usize> = members.to_vec();
    sorted.sort_by_key(|&g| (position(g), g));
    let mut level: HashMap<usize, usize> = sorted.iter().map(|&g| (g, 0)).collect();
    let partner_of: HashMap<usize, usize> = changes.iter().map(|&(e, s)| (s, e)).collect();
    let overtaken: Vec<(usize, usize)> = changes.iter().copied().filter(|c| moved(c)).collect();
    loop {
        let mut changed = false;
        for &g in &sorted {
            let ge = &seq.events[g];
            let mut l = 0;
            for &h in &sorted {
                if h == g || position(h) >= position(g) {
                    continue;
                }
                let he = &seq.events[h];
                let before = match partner_of.get(&g) {
                    // A new partner follows its call and the kept events it
                    // depends on that do not follow the event it overtakes.
                    Some(&e) => {
                        ge.call.covers(he.id) || (dependent(&he.op, &ge.op) && !seq.precedes(e, h))
                    }
                    None => ge.stamp.covers(he.id),
                };
                if before {
                    l = l.max(level[&h]);
                }
            }
            for &(e, s) in &overtaken {
                if seq.precedes(e, g) && !partner_of.contains_key(&g) {
                    l = l.max(level[&s] + 1);
                }
            }
            if l > level[&g] {
                if l > changes.len() {
                    // The constraints are cyclic: the row names no
                    // partial order.
                    return None;
                }
                level.insert(g, l);
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    sorted.sort_by_key(|&g| (level[&g], position(g), g));
    Some(sorted)
}

/// Fig. 4, step 3, for one changed receive `r` (the completion of event `r`
/// in `seq`) whose new partner is `s`. In the variant the receive is the
/// completion of `s`'s call, so it is named by `s`'s identity. The new
/// partners and the events that follow them (`fresh`) are not coloured
/// here.
///
/// * (*) the changed receive is black;
/// * (**) a receive outside `p-struct(r)` that happens before `r` in the
///   variant is black: changing it could remove `r` and let it be
///   recollected white;
/// * (***) a receive outside `p-struct(r)` that happens before the old
///   partner `send(r, Q)` (the call of `r`'s event) is gray.
fn colour_change(
    seq: &SynSequence,
    members: &[usize],
    fresh: &HashSet<usize>,
    r: usize,
    s: usize,
    colours: &mut HashMap<EventId, Colour>,
) {
    let new_id = seq.events[s].id;
    colours.insert(new_id, Colour::Black);
    let p_struct = &seq.events[r].object_past;
    // Happens-before of the changed receive in V: its object's past, the
    // new partner's call, and the earlier events of V dependent with it.
    let mut before_r: Stamp = seq.events[r].object_past.clone();
    before_r.join(&seq.events[s].call);
    let s_pos = seq.events[s].pos.unwrap_or(usize::MAX);
    for &g in members {
        let ge = &seq.events[g];
        if !fresh.contains(&g)
            && ge.pos.is_some_and(|p| p < s_pos)
            && dependent(&ge.op, &seq.events[s].op)
        {
            before_r.join(&ge.stamp);
        }
    }
    let old_send = &seq.events[r].call;
    for &g in members {
        let id = seq.events[g].id;
        if fresh.contains(&g) || p_struct.covers(id) {
            continue;
        }
        if before_r.covers(id) {
            colours.insert(id, Colour::Black);
        } else if old_send.covers(id) && colours.get(&id) != Some(&Colour::Black) {
            colours.insert(id, Colour::Gray { link: new_id });
        }
    }
}
