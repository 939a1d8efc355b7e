//! The main loop (Setiadi et al., Sec. 4.4, Algorithm 4) as a
//! [`Strategy`]: run, trace, derive the execution-variants of the trace
//! (reachability testing's race variants, merged as in the variant graph),
//! classify them into branch-affect groups of the trace's branches, and
//! run only variants that test an untested row of the branch-condition
//! table or an untested group; stop when every row or every group was
//! tested. Races are checked on every executed trace by the explorer
//! (lockset and happens-before detectors, `--race-detector`).

use super::dataflow::branch_flow;
use super::events::{event_keys, BranchId, EventKey};
use super::groups::{GroupKey, Positions, RelatedOps, Table};
use super::manners::race_class;
use super::variant_graph::{complete_path, variant_key};
use crate::cancel::Cancel;
use crate::exec::Request;
use crate::strategy::rt::model::SynSequence;
use crate::strategy::rt::strategy::{check_variant, MAX_PENDING_BYTES};
use crate::strategy::rt::variants::{generate_variants, Cut, Variant};
use crate::strategy::{Divergence, Strategy};
use crate::trace::Trace;
use reach_channel::symbolic::{SYM_OVERFLOW_BRANCHES, SYM_OVERFLOW_NODES};
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::sync::Arc;

/// A variant waiting for its test run, with its groups.
struct Candidate {
    variant: Variant,
    /// Its branch-affect group for each branch of the trace it came from.
    groups: Vec<GroupKey>,
    /// Groups not yet known to be tested (a group once tested stays so).
    untested: usize,
    /// Its row, once every group is tested.
    row: Option<Vec<(BranchId, bool)>>,
    /// Runs its row was checked against (a row once tested stays so).
    row_checked: usize,
    /// Some run had its row.
    row_tested: bool,
}

impl Candidate {
    /// Brings the cached state up to date with `table`; true if the
    /// variant is still worth running: in an untested group, or with a
    /// known row no run had (Algorithm 4, steps 3.2 and 3.3).
    fn refresh(&mut self, table: &Table) -> bool {
        if self.untested > 0 {
            self.untested = self.groups.iter().filter(|g| !table.tested(g)).count();
        }
        if self.untested > 0 {
            return true;
        }
        if self.row.is_none() {
            self.row = Some(table.known_row(&self.groups).unwrap_or_default());
        }
        let row = self.row.as_deref().unwrap_or_default();
        if row.is_empty() {
            return false;
        }
        if !self.row_tested {
            self.row_tested = table.row_tested_since(row, self.row_checked);
            self.row_checked = table.run_count();
        }
        !self.row_tested
    }
}

/// Figures for `--stats`.
#[derive(Default)]
struct Counts {
    variants: u64,
    merged: u64,
    by_row: u64,
    by_group: u64,
    dropped_branches: u64,
    left_untested: u64,
    /// Executions whose data-flow region filled up.
    overflowed: u64,
    /// Expressions cut at `MAX_LEAVES` shared reads.
    widened: u64,
}

/// Branch-directed, race-equivalent exploration (`--strategy branches`).
#[derive(Default)]
pub struct BranchDirected {
    started: bool,
    current: Option<Variant>,
    /// The groups of the variant in flight: its run tests them.
    current_groups: Vec<GroupKey>,
    pending: Vec<Candidate>,
    pending_bytes: usize,
    table: Table,
    /// Labels of the variants run or pending (Algorithm 1's merge).
    labels: HashSet<u64>,
    /// Race-equivalence classes of the executions run.
    classes: HashSet<u64>,
    cancel: Cancel,
    truncated: Option<Cut>,
    counts: Counts,
}

impl BranchDirected {
    /// A new search.
    pub fn new() -> BranchDirected {
        BranchDirected::default()
    }

    /// Number of race-equivalence classes the executions so far covered.
    pub fn race_classes(&self) -> usize {
        self.classes.len()
    }

    /// Picks the next variant (Algorithm 4, step 3): one whose groups are
    /// all tested but whose row is not, else the one in most untested
    /// groups (the latest on ties); `None` when no variant is in an
    /// untested group (step 2, condition 2) or every row was tested
    /// (condition 1).
    fn pick(&mut self) -> Option<Candidate> {
        if self.table.all_rows_tested() {
            self.counts.left_untested = self.pending.len() as u64;
            return None;
        }
        let table = &self.table;
        // Variants in no untested group and with no untested row are done.
        let before = self.pending.len();
        self.pending.retain_mut(|c| c.refresh(table));
        if self.pending.len() != before {
            self.pending_bytes = self.pending.iter().map(|c| c.variant.footprint()).sum();
        }
        if self.pending.iter().all(|c| c.untested == 0) {
            self.counts.left_untested = self.pending.len() as u64;
            return None;
        }
        let by_row = self.pending.iter().rposition(|c| c.untested == 0);
        let chosen = match by_row {
            Some(i) => {
                self.counts.by_row += 1;
                i
            }
            None => {
                self.counts.by_group += 1;
                let best = self.pending.iter().map(|c| c.untested).max().unwrap_or(0);
                self.pending.iter().rposition(|c| c.untested == best)?
            }
        };
        let candidate = self.pending.swap_remove(chosen);
        self.pending_bytes = self
            .pending_bytes
            .saturating_sub(candidate.variant.footprint());
        Some(candidate)
    }
}

/// What one trace says of its branches.
struct TraceBranches {
    /// Each branch and its related operations (interned).
    related: Vec<(BranchId, (u32, RelatedOps))>,
    /// Each branch's outcome (the last evaluation's).
    outcomes: HashMap<BranchId, bool>,
    /// Branch records left out.
    dropped: usize,
    /// Expressions cut at `MAX_LEAVES` shared reads.
    widened: usize,
}

/// The related operations of each branch of a trace (loop evaluations
/// merged), and its outcomes.
fn branches_of(trace: &Trace, keys: &[EventKey], table: &mut Table) -> TraceBranches {
    let flow = branch_flow(trace);
    let mut related: HashMap<BranchId, HashSet<EventKey>> = HashMap::default();
    let mut order: Vec<BranchId> = Vec::new();
    let mut outcomes: HashMap<BranchId, bool> = HashMap::default();
    for b in &flow.branches {
        let set = related.entry(b.id).or_insert_with(|| {
            order.push(b.id);
            HashSet::default()
        });
        set.extend(b.related.iter().filter_map(|&i| keys.get(i).copied()));
        outcomes.insert(b.id, b.taken);
    }
    let list = order
        .into_iter()
        .filter_map(|id| related.remove(&id).map(|set| (id, table.intern(set))))
        .collect();
    TraceBranches {
        related: list,
        outcomes,
        dropped: flow.dropped,
        widened: flow.widened,
    }
}

/// Where the events of a variant's whole path that are in `relevant`
/// occur in it, by identity.
fn path_positions(
    parent: &Trace,
    keys: &[EventKey],
    variant: &Variant,
    relevant: &HashSet<EventKey>,
) -> Positions {
    let path = complete_path(parent, variant);
    Positions::of_only(path.iter().filter_map(|&i| keys.get(i)), |k| {
        relevant.contains(k)
    })
}

impl Strategy for BranchDirected {
    fn name(&self) -> &'static str {
        "branches"
    }

    fn next_request(&mut self) -> Option<Request> {
        if !self.started {
            self.started = true;
            self.current = Some(Variant::default());
            return Some(Request::continuing(Vec::new()));
        }
        let candidate = self.pick()?;
        let request = Request::continuing(candidate.variant.prefix());
        self.current_groups = candidate.groups;
        self.current = Some(candidate.variant);
        Some(request)
    }

    fn set_cancel(&mut self, cancel: Cancel) {
        self.cancel = cancel;
    }

    fn abandon(&mut self, _request: &Request) -> bool {
        // As reachability testing drops such a variant: a prefix that asks
        // for a held-back spinner's step before what releases it; the same
        // behaviour with the step later is a variant of its own.
        self.current = None;
        self.current_groups = Default::default();
        true
    }

    fn incomplete(&self) -> Option<String> {
        if self.counts.overflowed > 0 {
            return Some(format!(
                "{} executions traced more data flow than the channel holds (later branches went untraced)",
                self.counts.overflowed
            ));
        }
        if self.counts.widened > 0 {
            return Some(format!(
                "{} expressions over more than {} shared reads were cut there",
                self.counts.widened,
                super::dataflow::MAX_LEAVES
            ));
        }
        if self.counts.dropped_branches > 0 {
            return Some(format!(
                "{} branch records were left out of the analysis",
                self.counts.dropped_branches
            ));
        }
        match self.truncated? {
            Cut::Rows => Some(format!(
                "a race table had more than {} rows and was cut short",
                crate::strategy::rt::variants::MAX_ROWS_PER_SEQUENCE
            )),
            Cut::Memory => Some(format!(
                "the pending variants reached {} MiB and a race table was cut short",
                MAX_PENDING_BYTES >> 20
            )),
            Cut::Cancelled => None,
        }
    }

    fn coverage(&self) -> Option<String> {
        let (groups, tested) = self.table.counts();
        Some(format!(
            "{} branches on shared data, {tested} of {groups} branch-affect groups tested, {} race-equivalence classes",
            self.table.branch_count(),
            self.classes.len()
        ))
    }

    fn stats(&self) -> Vec<(&'static str, String)> {
        let (groups, tested) = self.table.counts();
        vec![
            (
                "branches on shared data",
                self.table.branch_count().to_string(),
            ),
            ("branch-affect groups", groups.to_string()),
            ("groups tested", tested.to_string()),
            ("race-equivalence classes", self.classes.len().to_string()),
            ("variants derived", self.counts.variants.to_string()),
            ("variants merged", self.counts.merged.to_string()),
            ("runs chosen by row", self.counts.by_row.to_string()),
            ("runs chosen by group", self.counts.by_group.to_string()),
            (
                "variants left (every group tested)",
                self.counts.left_untested.to_string(),
            ),
        ]
    }

    fn observe(&mut self, _request: &Request, trace: &Trace) -> Result<(), Divergence> {
        let variant = self.current.take().unwrap_or_default();
        check_variant(&variant, trace)?;
        let keys = Arc::new(event_keys(trace));
        let TraceBranches {
            related: branches,
            outcomes,
            dropped,
            widened,
        } = branches_of(trace, &keys, &mut self.table);
        self.counts.dropped_branches += dropped as u64;
        self.counts.widened += widened as u64;
        let full = SYM_OVERFLOW_NODES | SYM_OVERFLOW_BRANCHES;
        if trace
            .symbolic
            .as_ref()
            .is_some_and(|s| s.overflow & full != 0)
        {
            self.counts.overflowed += 1;
        }
        let groups = std::mem::take(&mut self.current_groups);
        self.table.add_run(&keys, outcomes, &groups);
        self.classes.insert(race_class(trace));
        if self.cancel.is_set() {
            return Ok(());
        }
        let seq = SynSequence::from_trace(trace);
        let budget = MAX_PENDING_BYTES.saturating_sub(self.pending_bytes);
        let generated = generate_variants(&seq, &variant, &self.cancel, budget);
        if generated.cut != Some(Cut::Cancelled) {
            self.truncated = self.truncated.or(generated.cut);
        }
        let relevant: HashSet<EventKey> = branches
            .iter()
            .flat_map(|(_, (_, related))| related.iter().copied())
            .collect();
        for new in generated.variants {
            self.counts.variants += 1;
            if let Some(label) = variant_key(trace, &new) {
                if !self.labels.insert(label) {
                    self.counts.merged += 1;
                    continue;
                }
            }
            let path = path_positions(trace, &keys, &new, &relevant);
            let groups = branches
                .iter()
                .map(|(id, (set, related))| self.table.group(*id, *set, &path.project(related)))
                .collect();
            self.pending_bytes += new.footprint();
            self.pending.push(Candidate {
                variant: new,
                untested: usize::MAX,
                groups,
                row: None,
                row_checked: 0,
                row_tested: false,
            });
        }
        Ok(())
    }
}
