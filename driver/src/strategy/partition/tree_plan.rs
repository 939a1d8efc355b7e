//! The partition of a tree search (rt) into a shared part and frontier
//! subtrees ([`TreePlan`]).

use super::{prefix_name, Subtree};

/// How the variants of a tree search (rt) stand in the partition: each
/// variant carries the share of the search estimated to hang below it
/// (its part of its parent's, [`TreePlan::children`]; the first execution
/// holds all of it). A variant above `1/(K·N)` is shared (run by
/// every shard, its variants judged in turn); any other roots a frontier
/// subtree with all its descendants.
#[derive(Clone, Copy, Debug, Default)]
pub struct TreeTag {
    /// log2 of the estimated share of the search below this variant.
    pub share: f64,
    /// The frontier subtree the variant is in, once decided.
    pub subtree: Option<u64>,
}

/// Splitting decisions for [`TreeTag`]s.
#[derive(Clone, Debug)]
pub struct TreePlan {
    target: f64,
    budget: u32,
}

impl TreePlan {
    /// A plan aiming at `split` frontier subtrees per shard, `count` shards.
    pub fn new(split: u32, count: u32) -> TreePlan {
        let parts = f64::from(split.max(1)) * f64::from(count.max(1));
        TreePlan {
            target: parts.log2(),
            budget: split.max(1).saturating_mul(count.max(1)).saturating_mul(2),
        }
    }

    /// The subtree of the variant tagged `tag` with schedule `prefix`
    /// (deciding it, and recording it in `tag`, if not yet decided); `None`
    /// if the variant is shared.
    pub fn subtree_of(
        &mut self,
        tag: &mut TreeTag,
        prefix: &[u32],
        first: bool,
    ) -> Option<Subtree> {
        if let Some(name) = tag.subtree {
            return Some(Subtree {
                name,
                estimate: 0.0,
                probe: false,
            });
        }
        if first || (tag.share > -self.target && self.budget > 0) {
            self.budget = self.budget.saturating_sub(u32::from(!first));
            return None;
        }
        let name = prefix_name(prefix);
        tag.subtree = Some(name);
        Some(Subtree {
            name,
            estimate: tag.share.exp2(),
            probe: false,
        })
    }

    /// The tags of the variants generated from a variant tagged `parent`,
    /// whose forced prefixes are `lengths` steps long. The parent's share
    /// is divided half evenly (the parent's own execution counting as one
    /// more part) and half as Knuth's estimator would along the parent's
    /// execution: the variants whose prefixes end at one step are that
    /// step's alternatives, and what hangs below a variant is estimated as
    /// the product of the widths (one plus the alternatives) of the steps
    /// after its own. Either estimate alone fails on some programs
    /// (BENCHMARKS.md, section Shards); their mean holds on both.
    pub fn children(parent: TreeTag, lengths: &[usize]) -> Vec<TreeTag> {
        let mut widths: Vec<(usize, f64)> = Vec::new();
        for &length in lengths {
            match widths.binary_search_by_key(&length, |&(l, _)| l) {
                Ok(i) => widths[i].1 += 1.0,
                Err(i) => widths.insert(i, (length, 2.0)),
            }
        }
        let below = |length: usize| -> f64 {
            widths
                .iter()
                .filter(|&&(l, _)| l > length)
                .map(|&(_, w)| w.log2())
                .sum()
        };
        let sizes: Vec<f64> = lengths.iter().map(|&l| below(l)).collect();
        let total = 1.0 + sizes.iter().map(|s| s.exp2()).sum::<f64>();
        let even = 1.0 / (lengths.len() + 1) as f64;
        sizes
            .iter()
            .map(|size| TreeTag {
                share: parent.share + ((size.exp2() / total + even) / 2.0).log2(),
                subtree: parent.subtree,
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Variants ending early get the larger shares: half of the parent's
    /// share is divided evenly, half by the product of the widths of the
    /// later steps of its execution.
    #[test]
    fn variants_share_their_parent_half_evenly_half_as_knuth_does() {
        let parent = TreeTag {
            share: -1.0,
            subtree: None,
        };
        // Two alternatives at step 3, one at step 5: a variant at step 3
        // has the step-5 node (width 2) below it, one at step 5 nothing.
        // Knuth: sizes 2, 2, 1 and the parent's execution 1 (of 6); even:
        // a quarter each.
        let tags = TreePlan::children(parent, &[3, 3, 5]);
        let shares: Vec<f64> = tags.iter().map(|t| (t.share + 1.0).exp2()).collect();
        let expected = [
            (2.0 / 6.0 + 0.25) / 2.0,
            (2.0 / 6.0 + 0.25) / 2.0,
            (1.0 / 6.0 + 0.25) / 2.0,
        ];
        for (share, want) in shares.iter().zip(expected) {
            assert!((share - want).abs() < 1e-12, "{shares:?}");
        }
        // With the parent's own execution, the parts make the whole.
        let own = (1.0 / 6.0 + 0.25) / 2.0;
        assert!((shares.iter().sum::<f64>() + own - 1.0).abs() < 1e-12);
    }
}
