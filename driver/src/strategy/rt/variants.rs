//! Race variants and algorithm GenerateVariants (paper Sec. 4.1, Def. 4;
//! Sec. 5.4, Fig. 4).
//!
//! A [`Variant`] is what the search keeps between executions, and all it
//! keeps: the variant's partial order as one linearisation (the schedule
//! prefix the runtime forces), the operation expected at each step (to
//! check that the execution followed it), the colours of its receiving
//! events, and, for the pruning of old sending events, the race sets its
//! receives had in the sequence it was derived from. Its linearisation is
//! kept as runs over the events of the execution it comes from (shared by
//! all that execution's variants) and its colours as runs per thread, so a
//! pending variant costs what its changes add, not the execution's length.

use super::linearise::{linearise, slot_after, slot_at, slot_before};
use super::model::{dependent, EventId, Stamp, SynSequence};
use super::races::{race_sets, How, Race};
use super::table::{choices, construct_race_table, Choice, Column};
use crate::analysis::objects::touched;
use crate::cancel::Cancel;
use reach_channel::OpKind;
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::sync::Arc;

/// Colour of a receiving event (Sec. 5.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Colour {
    /// Its send partner can never be changed (C1, C2).
    Black,
    /// Black only because it is in the prime structure of a changed
    /// receive: Fig. 4 leaves such a receive as it was, our rule (**)
    /// blackens it too (most of its changes would repeat an order). If it
    /// has races left in a later sequence, an order may be lost
    /// ([`Generated::settled_races`]).
    Settled,
    /// Its send partner may only be changed to complete the tangled cycle
    /// broken when the receive `link` was changed (E1).
    Gray {
        /// The changed receive (identified by its new partner's event).
        link: EventId,
    },
}

/// The events of one SYN-sequence, shared by the variants derived from
/// it: a variant's linearisation is mostly runs of consecutive events of
/// its parent's trace (the settled head, [`linearise`], and the unchanged
/// stretches after its changes), so it keeps only where its runs start and
/// end, not one entry per step.
#[derive(Debug, Default)]
pub struct Steps {
    /// Thread of each event (executed ones in trace order, then the calls
    /// pending at the end).
    threads: Vec<u32>,
    /// Operation (kind, object) of each, as traced.
    ops: Vec<(OpKind, u64)>,
}

impl Steps {
    /// The events of `seq`.
    fn of(seq: &SynSequence) -> Steps {
        Steps {
            threads: seq.events.iter().map(|e| e.id.thread).collect(),
            ops: seq
                .events
                .iter()
                .map(|e| (e.traced.kind, e.traced.object))
                .collect(),
        }
    }

    /// Approximate heap size in bytes.
    fn footprint(&self) -> usize {
        self.threads.len() * 4 + self.ops.len() * 16
    }
}

/// The colours of a variant's non-white receives, run-length encoded:
/// consecutive events of one thread with one colour are one run (a black
/// causal past is a run per thread, however long the execution).
#[derive(Clone, Debug, Default)]
pub struct Colours(Vec<(EventId, u32, Colour)>);

impl Colours {
    /// The colours of `coloured`, in any order, one per event.
    #[cfg(test)]
    fn of(mut coloured: Vec<(EventId, Colour)>) -> Colours {
        coloured.sort_unstable_by_key(|(id, _)| *id);
        Colours::of_sorted(coloured)
    }

    /// The colours of `coloured`, sorted by identity, one per event.
    fn of_sorted(coloured: impl IntoIterator<Item = (EventId, Colour)>) -> Colours {
        let mut runs: Vec<(EventId, u32, Colour)> = Vec::new();
        for (id, colour) in coloured {
            match runs.last_mut() {
                Some((start, n, c))
                    if start.thread == id.thread
                        && start.index + *n == id.index
                        && *c == colour =>
                {
                    *n += 1
                }
                _ => runs.push((id, 1, colour)),
            }
        }
        Colours(runs)
    }

    /// The colours of the events of `seq`, by event index (`None`:
    /// white), gathered thread by thread (each thread's events are in
    /// index order), so without sorting.
    fn by_thread(seq: &SynSequence, colours: &[Option<Colour>]) -> Colours {
        let mut threads: Vec<Vec<(EventId, Colour)>> = Vec::new();
        for (g, colour) in colours.iter().enumerate() {
            let Some(colour) = colour else {
                continue;
            };
            let id = seq.id(g);
            let t = id.thread as usize;
            if threads.len() <= t {
                threads.resize_with(t + 1, Vec::new);
            }
            threads[t].push((id, *colour));
        }
        Colours::of_sorted(threads.into_iter().flatten())
    }

    /// The colour of `id`, if not white.
    pub fn get(&self, id: EventId) -> Option<Colour> {
        let after = self.0.partition_point(|(start, _, _)| *start <= id);
        let &(start, n, colour) = self.0.get(after.checked_sub(1)?)?;
        (start.thread == id.thread && id.index - start.index < n).then_some(colour)
    }

    /// Every non-white receive and its colour, by identity.
    pub fn iter(&self) -> impl Iterator<Item = (EventId, Colour)> + '_ {
        self.0.iter().flat_map(|&(start, n, colour)| {
            (start.index..start.index + n).map(move |index| {
                let id = EventId {
                    thread: start.thread,
                    index,
                };
                (id, colour)
            })
        })
    }

    /// Approximate heap size in bytes.
    fn footprint(&self) -> usize {
        self.0.len() * 24
    }
}

/// A race variant, compact: its linearisation and what GenerateVariants
/// needs from it when the execution it leads to comes back.
#[derive(Clone, Debug, Default)]
pub struct Variant {
    /// The parent sequence's events.
    base: Arc<Steps>,
    /// The linearisation, as runs of consecutive events of `base`: (first
    /// event, number of events).
    runs: Vec<(u32, u32)>,
    /// Number of steps of the linearisation.
    len: usize,
    /// This variant accounts for `base` in its footprint (the first of the
    /// variants sharing it).
    owns_base: bool,
    /// Changed synchronisation pairs: (new partner, the event whose place it
    /// takes), for messages.
    pub changed: Vec<(EventId, EventId)>,
    /// Colours of the variant's non-white receives.
    pub colours: Colours,
    /// `race_set(r, V)` for the receives `r` of the variant: the race sets
    /// they had in the parent sequence, restricted to sending events that
    /// are in the variant (old sends).
    pub old_races: Vec<(EventId, Vec<EventId>)>,
    /// The writes that take another write's place in the variant (the new
    /// partner calls of its changed write receives): their place among the
    /// writes of their objects is new.
    pub placed: Vec<EventId>,
}

impl Variant {
    /// Number of steps of the linearisation.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Steps at the start of the linearisation that replay the parent's
    /// events in the parent's own order: what an execution already did.
    /// The steps after them reorder the parent's events (the search's
    /// prediction, [`crate::strategy::Divergence::predicted`]).
    pub fn replayed_len(&self) -> usize {
        let mut next = 0;
        for &(start, n) in &self.runs {
            if start != next {
                break;
            }
            next += n;
        }
        next as usize
    }

    /// True for the empty linearisation (the first execution's).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The parent's events of the linearisation, in order.
    fn events(&self) -> impl Iterator<Item = usize> + '_ {
        self.runs
            .iter()
            .flat_map(|&(start, n)| start as usize..start as usize + n as usize)
    }

    /// The thread of each step of the linearisation: the schedule prefix
    /// the runtime forces.
    pub fn threads(&self) -> impl Iterator<Item = u32> + '_ {
        self.events()
            .map(|g| self.base.threads.get(g).copied().unwrap_or_default())
    }

    /// [`Variant::threads`], collected.
    pub fn prefix(&self) -> Vec<u32> {
        self.threads().collect()
    }

    /// Each step of the linearisation: its thread and the operation
    /// (kind, object) expected there.
    pub fn steps(&self) -> impl Iterator<Item = (u32, (OpKind, u64))> + '_ {
        self.events().filter_map(|g| {
            let thread = *self.base.threads.get(g)?;
            Some((thread, *self.base.ops.get(g)?))
        })
    }

    /// Approximate heap size in bytes (for statistics and the memory
    /// bound): its runs and sets, and the shared events once, in the
    /// variant that owns them.
    pub fn footprint(&self) -> usize {
        self.runs.len() * 8
            + if self.owns_base {
                self.base.footprint()
            } else {
                0
            }
            + (self.changed.len() + self.placed.len()) * 16
            + self.colours.footprint()
            + self
                .old_races
                .iter()
                .map(|(_, s)| 32 + s.len() * 8)
                .sum::<usize>()
    }
}

/// `order` (event indices) as runs of consecutive events.
fn runs_of(order: impl IntoIterator<Item = usize>) -> Vec<(u32, u32)> {
    let mut runs: Vec<(u32, u32)> = Vec::new();
    for g in order {
        let g = g as u32;
        match runs.last_mut() {
            Some((start, n)) if *start + *n == g => *n += 1,
            _ => runs.push((g, 1)),
        }
    }
    runs
}

/// Most race-table rows turned into variants for one SYN-sequence, a safety
/// bound on memory: past it the table is cut short and the search reports
/// itself incomplete. The table grows with the product of contended
/// objects' races (200 threads on one mutex give about 20000 rows for the
/// first execution alone), and every row is a variant to keep, with the
/// old race sets of its receives.
pub const MAX_ROWS_PER_SEQUENCE: usize = 1_000;

/// Why GenerateVariants left some of a sequence's variants out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cut {
    /// The race table had more than [`MAX_ROWS_PER_SEQUENCE`] rows.
    Rows,
    /// The variants would have grown past the memory budget given.
    Memory,
    /// The exploration was cancelled during the analysis.
    Cancelled,
}

/// The variants of one sequence and whether, and why, some were left out.
#[derive(Debug, Default)]
pub struct Generated {
    /// The race variants, in race-table order.
    pub variants: Vec<Variant>,
    /// Set if the table was cut short.
    pub cut: Option<Cut>,
    /// Receives left out of the table as [`Colour::Settled`] that had
    /// races left: the variants they would have given are not generated,
    /// and some may be orders no other path reaches.
    pub settled_races: usize,
}

/// GenerateVariants (Fig. 4): the race variants of `seq`, collected by
/// prefix-based testing with `parent`. The table is cut short at
/// [`MAX_ROWS_PER_SEQUENCE`] rows, once the variants' footprint passes
/// `budget` bytes, or when `cancel` fires.
pub fn generate_variants(
    seq: &SynSequence,
    parent: &Variant,
    cancel: &Cancel,
    budget: usize,
) -> Generated {
    let Some(raw) = race_sets(seq, cancel) else {
        return Generated {
            cut: Some(Cut::Cancelled),
            ..Generated::default()
        };
    };
    let colours = &parent.colours;
    let old: HashMap<EventId, HashSet<EventId>> = parent
        .old_races
        .iter()
        .map(|(r, s)| (*r, s.iter().copied().collect()))
        .collect();

    // Step 1: prune old sending events from the race sets of old receives.
    // Step 2 (heading): black receives are left out; a gray receive keeps
    // only the partners that complete its tangled cycle.
    let mut columns = Vec::new();
    let mut settled_races = 0usize;
    for (e, set) in raw.iter().enumerate() {
        let id = seq.events[e].id;
        let pruned = old.get(&id);
        let link = match colours.get(id) {
            Some(Colour::Black) => continue,
            Some(Colour::Settled) => {
                let is_old = |f: usize| pruned.is_some_and(|p| p.contains(&seq.events[f].id));
                settled_races += usize::from(set.iter().any(|r| !is_old(r.partner)));
                continue;
            }
            Some(Colour::Gray { link }) => seq.find(link).or(Some(usize::MAX)),
            None => None,
        };
        let is_old = |f: usize| pruned.is_some_and(|p| p.contains(&seq.events[f].id));
        // A read's old partner write that the parent variant placed
        // elsewhere among the writes: reading it now puts the read on the
        // other side of the writes it moved past, an order the parent's
        // table could only give together with its own changes.
        let revived = |r: &Race| {
            r.how != How::Take
                && is_old(r.partner)
                && parent.placed.contains(&seq.events[r.partner].id)
        };
        let exit = seq.events[e].op.cuts_threads();
        let race_set: Vec<Race> = set
            .iter()
            .copied()
            .filter(|r| exit || !is_old(r.partner) || revived(r))
            .filter(|r| link.is_none_or(|l| l != usize::MAX && completes_cycle(seq, e, *r, l)))
            .collect();
        let old_sends: Vec<usize> = race_set
            .iter()
            .map(|r| r.partner)
            .filter(|&f| is_old(f))
            .collect();
        let mut choices = choices(seq, e, &race_set, &old_sends);
        for choice in &mut choices {
            choice.revived = race_set
                .iter()
                .any(|r| r.how == choice.how && r.partner == choice.partners[0] && revived(r));
        }
        if !choices.is_empty() {
            columns.push(Column {
                receive: e,
                choices,
            });
        }
    }

    let base = Arc::new(Steps::of(seq));
    let mut generated = Generated {
        settled_races,
        ..Generated::default()
    };
    let mut rows = 0usize;
    let mut bytes = 0usize;
    construct_race_table(seq, &columns, &mut |row| {
        rows += 1;
        generated.cut = if rows > MAX_ROWS_PER_SEQUENCE {
            Some(Cut::Rows)
        } else if bytes > budget {
            Some(Cut::Memory)
        } else if cancel.is_set() {
            Some(Cut::Cancelled)
        } else {
            None
        };
        if generated.cut.is_some() {
            return false;
        }
        let changes: Vec<(usize, &Choice)> = row
            .iter()
            .zip(&columns)
            .filter(|(v, _)| **v > 0)
            .map(|(v, column)| (column.receive, &column.choices[*v as usize - 1]))
            .collect();
        if changes.iter().all(|(_, c)| c.revived) {
            // The parent's table had this row, with its own changes.
            return true;
        }
        if let Some(mut variant) = derive(seq, &base, &raw, colours, &changes, cancel) {
            variant.owns_base = generated.variants.is_empty();
            bytes += variant.footprint();
            generated.variants.push(variant);
        }
        true
    });
    generated
}

/// E1: a gray receive `e` may only take a new partner that the changed
/// receive `link` which made it gray happens before (the strongly-
/// reconciled-before link closing the tangled cycle, Sec. 5.3, Def. 6):
/// a call must follow `link`, a write read from must follow it, in the
/// full happens-before ([`SynSequence::follows`]).
fn completes_cycle(seq: &SynSequence, e: usize, race: Race, link: usize) -> bool {
    match new_source(seq, e, race) {
        Some(w) if race.how != How::Take => seq.follows(link, w),
        Some(_) => seq.call_follows(link, race.partner),
        None => false,
    }
}

/// The send partner the receive `e` gets with `race`: the call taking its
/// place, or the write a moving read reads (`None`: the initial value).
fn new_source(seq: &SynSequence, e: usize, race: Race) -> Option<usize> {
    match race.how {
        How::Take | How::After => Some(race.partner),
        How::Before => {
            let w = race.partner;
            let keys: Vec<_> = touched(&seq.events[e].op).map(|(k, _)| k).collect();
            seq.events[..w].iter().rposition(|g| {
                !g.read_only && touched(&g.op).any(|(k, c)| c.writes() && keys.contains(&k))
            })
        }
    }
}

/// Builds the variant of one race-table row (Def. 4) and colours it
/// (Fig. 4, step 3); `None` if the row does not define one partial order.
///
/// A call taking a write receive's place removes that receive's event and
/// everything depending on it; a moving read stays, at its new place, and
/// only what depends on its value goes; the process exit stays after the
/// calls placed before it.
fn derive(
    seq: &SynSequence,
    base: &Arc<Steps>,
    raw: &[Vec<Race>],
    inherited: &Colours,
    changes: &[(usize, &Choice)],
    cancel: &Cancel,
) -> Option<Variant> {
    let roots: Vec<(usize, bool)> = changes
        .iter()
        .filter_map(|&(e, c)| c.roots(seq, e))
        .collect();
    // Per thread, the events from `limit` on depend on a changed outcome;
    // a root itself is decided exactly (a read root stays).
    let limit = roots.iter().fold(Vec::new(), |limit: Vec<u32>, &(r, _)| {
        let first = seq.first_dependent(r);
        if limit.is_empty() {
            return first;
        }
        limit.iter().zip(&first).map(|(a, b)| *a.min(b)).collect()
    });
    let kept = |g: usize| {
        if roots.iter().any(|&(r, _)| r == g) {
            return roots.iter().all(|&(r, inc)| !seq.removes(r, inc, g));
        }
        let id = seq.id(g);
        id.index < limit.get(id.thread as usize).copied().unwrap_or(u32::MAX)
    };
    let mut calls: Vec<usize> = Vec::new();
    for &(_, c) in changes.iter().filter(|(_, c)| c.how == How::Take) {
        for &s in &c.partners {
            if !calls.contains(&s) {
                calls.push(s);
            }
        }
    }
    // The new slots of the reads that move (one per changed read).
    let mut slots: Vec<(usize, u64)> = Vec::new();
    for &(e, c) in changes {
        let w = seq.events[c.partners[0]].pos;
        match (c.how, w) {
            (How::Before, Some(p)) => slots.push((e, slot_before(p))),
            (How::After, Some(p)) => slots.push((e, slot_after(p))),
            _ => {}
        };
    }
    let moved = |g: usize| slots.iter().rev().find(|(e, _)| *e == g).map(|&(_, s)| s);
    let mut members: Vec<(usize, u64)> = (0..seq.executed)
        .filter(|&g| kept(g) || calls.contains(&g))
        .map(|g| (g, moved(g).unwrap_or(slot_at(g))))
        .collect();
    for (rank, &s) in calls.iter().filter(|&&s| s >= seq.executed).enumerate() {
        members.push((s, slot_at(seq.executed + rank)));
    }
    let (settled, mut order) = linearise(seq, &members, cancel)?;
    // An exit that waits for the other threads comes last by itself (it
    // waits for the events the variant removed too): not forced (never in
    // the settled head).
    order.retain(|&g| {
        let op = &seq.events[g].op;
        op.kind != OpKind::ProcessExit || op.cuts_threads()
    });
    let mut fresh = calls.clone();
    fresh.sort_unstable();
    let mut in_variant = vec![false; seq.events.len()];
    for &(g, _) in &members {
        in_variant[g] = true;
    }

    // The colour of each event of `seq` in the variant, by index.
    let mut colours: Vec<Option<Colour>> = vec![None; seq.events.len()];
    for (id, colour) in inherited.iter() {
        if let Some(g) = seq.find(id).filter(|&g| in_variant[g]) {
            colours[g] = Some(colour);
        }
    }
    for &(e, c) in changes {
        colour_change(seq, &members, &fresh, e, c, &mut colours);
    }

    let old_races = members
        .iter()
        .map(|&(g, _)| g)
        .filter(|&g| raw.get(g).is_some_and(|races| !races.is_empty()))
        .filter(|&g| g < seq.executed && fresh.binary_search(&g).is_err() && moved(g).is_none())
        .filter_map(|g| {
            let senders: Vec<EventId> = raw[g]
                .iter()
                .filter(|r| {
                    if r.how == How::Take {
                        roots
                            .iter()
                            .all(|&(root, _)| !seq.removes_call(root, r.partner))
                    } else {
                        in_variant[r.partner]
                    }
                })
                .map(|r| seq.events[r.partner].id)
                .collect();
            (!senders.is_empty()).then_some((seq.events[g].id, senders))
        })
        .collect();

    let colours = Colours::by_thread(seq, &colours);
    Some(Variant {
        base: Arc::clone(base),
        runs: runs_of((0..settled).chain(order.iter().copied())),
        len: settled + order.len(),
        owns_base: false,
        changed: changes
            .iter()
            .map(|&(r, c)| (seq.events[c.partners[0]].id, seq.events[r].id))
            .collect(),
        colours,
        old_races,
        placed: calls.iter().map(|&s| seq.events[s].id).collect(),
    })
}

/// Fig. 4, step 3, for one changed receive: the receive of event `e`
/// changed by `choice`. A call taking a write receive's place names the
/// receive in the variant (it is that call's completion); a moving read
/// keeps its name. The new partner calls (`fresh`, sorted) are not coloured here.
///
/// * (*) the changed receive is black;
/// * (**) a receive that happens before it in the variant is black:
///   changing it could remove the receive and let it be recollected white.
///   Unlike Fig. 4 this includes the receive's prime structure: changing a
///   receive there would make the changed receive a new event, so that
///   change was wasted and its target is reached along the path without it
///   (otherwise the same partial order is exercised twice, measured on the
///   model tests);
/// * (***) a receive outside its prime structure that happens before the
///   old partner `send(r, Q)` is gray.
///
/// "Happens before" is the value relation: changing a read's partner
/// removes nothing but what depends on its value.
fn colour_change(
    seq: &SynSequence,
    members: &[(usize, u64)],
    fresh: &[usize],
    e: usize,
    choice: &Choice,
    colours: &mut [Option<Colour>],
) {
    let ee = &seq.events[e];
    if choice.how == How::Take && ee.op.cuts_threads() {
        // Every event happens before the exit: only the partners change.
        for &s in &choice.partners {
            colours[s] = Some(Colour::Black);
        }
        return;
    }
    let s = choice.partners[0];
    let named = if choice.how == How::Take { s } else { e };
    let name = seq.events[named].id;
    let (p_struct, mut before_r, old_send) = match choice.how {
        How::Take => (&ee.object_past, seq.events[s].vcall.clone(), &ee.vcall),
        How::Before | How::After => {
            // The read's call is its prime structure, joined below.
            let mut before = Stamp::default();
            let race = Race {
                partner: s,
                how: choice.how,
            };
            if let Some(w) = new_source(seq, e, race) {
                before.join(&seq.events[w].vstamp);
            }
            (&ee.vcall, before, &ee.object_past)
        }
    };
    if choice.how == How::Take {
        // The completion of `s` in `e`'s place follows the writes of its
        // other objects that precede it.
        let s_pos = seq.events[s].pos.unwrap_or(usize::MAX);
        for &(g, _) in members {
            let ge = &seq.events[g];
            if fresh.binary_search(&g).is_err()
                && !ge.read_only
                && ge.pos.is_some_and(|p| p < s_pos)
                && dependent(&ge.op, &seq.events[s].op)
            {
                before_r.join(&ge.vstamp);
            }
        }
    }
    let core = before_r.clone();
    before_r.join(p_struct);
    colours[named] = Some(Colour::Black);
    for &(g, _) in members {
        let id = seq.id(g);
        if fresh.binary_search(&g).is_ok() || g == named {
            continue;
        }
        if before_r.covers(id) {
            let settled = p_struct.covers(id) && !core.covers(id);
            colours[g] = if settled && colours[g] != Some(Colour::Black) {
                Some(Colour::Settled)
            } else {
                Some(Colour::Black)
            };
        } else if !p_struct.covers(id)
            && old_send.covers(id)
            && !matches!(colours[g], Some(Colour::Black | Colour::Settled))
        {
            colours[g] = Some(Colour::Gray { link: name });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(thread: u32, index: u32) -> EventId {
        EventId { thread, index }
    }

    /// Runs of one colour along one thread merge; the colours read back
    /// are exactly those put in, whatever their order.
    #[test]
    fn colours_round_trip_through_their_runs() {
        let gray = Colour::Gray { link: id(2, 7) };
        let coloured = vec![
            (id(1, 2), Colour::Black),
            (id(0, 0), Colour::Black),
            (id(0, 1), Colour::Black),
            (id(0, 2), gray),
            (id(0, 3), gray),
            (id(1, 0), Colour::Black),
            (id(0, 5), Colour::Black),
        ];
        let colours = Colours::of(coloured.clone());
        assert_eq!(colours.0.len(), 5, "{colours:?}");
        let mut expected = coloured;
        expected.sort_unstable_by_key(|(id, _)| *id);
        assert_eq!(colours.iter().collect::<Vec<_>>(), expected);
        for (event, colour) in &expected {
            assert_eq!(colours.get(*event), Some(*colour));
        }
        for white in [id(0, 4), id(0, 6), id(1, 1), id(1, 3), id(2, 0)] {
            assert_eq!(colours.get(white), None, "{white:?}");
        }
    }

    /// A linearisation is kept as runs of consecutive events.
    #[test]
    fn orders_become_runs_of_consecutive_events() {
        assert_eq!(
            runs_of([0, 1, 2, 5, 6, 3, 7]),
            vec![(0, 3), (5, 2), (3, 1), (7, 1)]
        );
        assert!(runs_of([]).is_empty());
    }
}
