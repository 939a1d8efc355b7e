//! The reachability-testing loop (slides "Algorithm Reachability-Test",
//! paper Sec. 2 and 5.4) as a [`Strategy`]: the first execution runs
//! unforced; each later one is a prefix-based test run with one pending
//! variant; the trace it produces yields new variants through
//! GenerateVariants. No history of exercised sequences is kept.

use super::model::SynSequence;
use super::variants::{generate_variants, Cut, Variant};
use crate::cancel::Cancel;
use crate::exec::Request;
use crate::strategy::partition::{Subtree, TreePlan, TreeTag};
use crate::strategy::tree::describe;
use crate::strategy::{Divergence, Strategy};
use crate::trace::Trace;
use reach_channel::{EventFlags, Op};

/// Most memory the pending variants may take, in bytes (by their
/// footprint): past it a race table is cut short and the search reports
/// itself incomplete. Variants of long executions are as long as the
/// execution, and a depth-first search keeps those of every level.
pub const MAX_PENDING_BYTES: usize = 1 << 30;

/// Reachability testing with GenerateVariants (Lei & Carver, Fig. 4).
#[derive(Default)]
pub struct ReachabilityTesting {
    /// Variants waiting for their test run (depth first).
    pending: Vec<Variant>,
    /// The variant of the execution in flight (empty for the first run).
    current: Option<Variant>,
    started: bool,
    /// Most variants pending at once.
    peak_pending: usize,
    /// Largest summed footprint of the pending variants, in bytes.
    peak_bytes: usize,
    /// Summed footprint of the pending variants, in bytes.
    bytes: usize,
    /// Why some race table was cut short, if one was: the search is then
    /// not exhaustive.
    truncated: Option<Cut>,
    /// Skips generating variants when the exploration must stop.
    cancel: Cancel,
    /// For a shard (`--shard`): which variants are shared.
    shard_plan: Option<TreePlan>,
    /// Where each pending variant is in the partition (kept beside
    /// `pending` when sharded).
    tags: Vec<TreeTag>,
    /// The tag of the variant in flight.
    current_tag: TreeTag,
    /// The variant in flight is the first execution.
    first: bool,
    /// Receives kept black by the prime-structure colouring that had races
    /// left, over the search ([`super::variants::Generated::settled_races`]):
    /// the search may have missed orders and does not claim completeness.
    settled_races: usize,
}

impl ReachabilityTesting {
    /// A new search.
    pub fn new() -> ReachabilityTesting {
        ReachabilityTesting::default()
    }

    /// Most variants that were pending at once, and their largest total
    /// size in bytes: the whole memory of the search.
    pub fn peak_pending(&self) -> (usize, usize) {
        (self.peak_pending, self.peak_bytes)
    }

    fn request(prefix: Vec<u32>) -> Request {
        Request::continuing(prefix)
    }

    /// This search split for [`crate::shard::Sharded`] into about `split`
    /// frontier subtrees per shard, `count` shards
    /// ([`crate::shard::TreeTag`]; one shard needs no partition).
    pub fn with_shard_plan(self, split: u32, count: u32) -> ReachabilityTesting {
        ReachabilityTesting {
            shard_plan: (count > 1).then(|| TreePlan::new(split, count)),
            ..self
        }
    }
}

impl crate::strategy::partition::Shardable for ReachabilityTesting {
    fn subtree_of(&mut self, request: &Request) -> Option<Subtree> {
        let plan = self.shard_plan.as_mut()?;
        plan.subtree_of(&mut self.current_tag, &request.prefix, self.first)
    }

    fn skip(&mut self, _request: &Request) {
        self.current = None;
    }
}

/// Checks that `trace` begins with the variant's linearisation: every
/// synchronisation pair of the variant, changed ones included, happened
/// with the same operations and in the variant's order.
pub fn check_variant(variant: &Variant, trace: &Trace) -> Result<(), Divergence> {
    let replayed = variant.replayed_len();
    for (step, (thread, (kind, object))) in variant.steps().enumerate() {
        let expected = Op {
            kind,
            flags: EventFlags::default(),
            object,
            aux: 0,
        };
        let Some(event) = trace.events.get(step) else {
            return Err(Divergence {
                step,
                expected: describe(thread, &expected),
                got: "the end of the execution".into(),
                predicted: step >= replayed,
            });
        };
        if event.thread != thread || event.op.kind != kind || event.op.object != object {
            return Err(Divergence {
                step,
                expected: describe(thread, &expected),
                got: describe(event.thread, &event.op),
                predicted: step >= replayed,
            });
        }
    }
    Ok(())
}

impl Strategy for ReachabilityTesting {
    fn name(&self) -> &'static str {
        "rt"
    }

    fn next_request(&mut self) -> Option<Request> {
        if !self.started {
            self.started = true;
            self.current = Some(Variant::default());
            self.first = true;
            return Some(Self::request(Vec::new()));
        }
        let variant = self.pending.pop()?;
        self.first = false;
        self.current_tag = self.tags.pop().unwrap_or_default();
        self.bytes = self.bytes.saturating_sub(variant.footprint());
        let request = Self::request(variant.prefix());
        self.current = Some(variant);
        Some(request)
    }

    fn incomplete(&self) -> Option<String> {
        match self.truncated {
            Some(Cut::Rows) => Some(format!(
                "a race table had more than {} rows and was cut short",
                super::variants::MAX_ROWS_PER_SEQUENCE
            )),
            Some(Cut::Memory) => Some(format!(
                "the pending race variants reached {} MiB and a race table was cut short",
                MAX_PENDING_BYTES >> 20
            )),
            _ if self.settled_races > 0 => Some(format!(
                "{} receive(s) that rt's colouring of a prime structure kept unchanged still \
                 had races, whose partial orders may be missed",
                self.settled_races
            )),
            _ => None,
        }
    }

    fn set_cancel(&mut self, cancel: Cancel) {
        self.cancel = cancel;
    }

    fn abandon(&mut self, _request: &Request) -> bool {
        // A variant whose prefix asks for a held-back spinner's step before
        // what releases it: the same behaviour with the step later is a
        // variant of its own.
        self.current = None;
        true
    }

    fn observe(&mut self, request: &Request, trace: &Trace) -> Result<(), Divergence> {
        let variant = self.current.take().unwrap_or_default();
        debug_assert_eq!(variant.prefix(), request.prefix);
        check_variant(&variant, trace)?;
        let seq = SynSequence::from_trace(trace);
        if self.cancel.is_set() {
            // The exploration stops: no variants of this execution needed.
            return Ok(());
        }
        let budget = MAX_PENDING_BYTES.saturating_sub(self.bytes);
        let generated = generate_variants(&seq, &variant, &self.cancel, budget);
        if !crate::analysis::awaits::verdict(trace).is_blocked() {
            self.settled_races += generated.settled_races;
        }
        if generated.cut != Some(Cut::Cancelled) {
            self.truncated = self.truncated.or(generated.cut);
        }
        if self.shard_plan.is_some() {
            let lengths: Vec<usize> = generated.variants.iter().map(Variant::len).collect();
            self.tags
                .extend(TreePlan::children(self.current_tag, &lengths));
        }
        for new in generated.variants {
            self.bytes += new.footprint();
            self.pending.push(new);
        }
        self.peak_pending = self.peak_pending.max(self.pending.len());
        self.peak_bytes = self.peak_bytes.max(self.bytes);
        Ok(())
    }
}
