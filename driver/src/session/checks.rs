//! Options that do not go together, refused before anything runs, and the
//! notes a run starts with.

use super::registry::{registration, strategy_word, words_where};
use crate::binary::Binary;
use crate::cli::{Cli, StrategyName};
use crate::random_share::ShareSpec;
use crate::shard::ShardSpec;
use anyhow::{bail, Result};

/// `--shard`, parsed, and checked against the options it excludes.
pub fn shard_spec(cli: &Cli) -> Result<Option<ShardSpec>> {
    let Some(spec) = parse_shard(cli).transpose()? else {
        return Ok(None);
    };
    if cli.replay.is_some() {
        bail!("--shard explores; it does not apply to --replay");
    }
    if cli.preemption_bound.is_some() {
        bail!("--shard does not apply to --preemption-bound");
    }
    if cli.jobs > 1 {
        bail!(
            "--shard runs one job per shard: run more shards instead of --jobs {}",
            cli.jobs
        );
    }
    if registration(cli.strategy).sharded.is_none() {
        bail!(
            "--shard applies to {}, not {}",
            words_where(|r| r.sharded.is_some()),
            strategy_word(cli.strategy)
        );
    }
    Ok(Some(spec))
}

/// `--shard`, parsed with the split `--shard-split` or the strategy's
/// default.
pub fn parse_shard(cli: &Cli) -> Option<Result<ShardSpec>> {
    let split = cli
        .shard_split
        .unwrap_or_else(|| crate::shard::default_split(&strategy_word(cli.strategy)));
    let text = cli.shard.as_deref()?;
    Some(ShardSpec::parse(text, split, |v| std::env::var(v).ok()).map_err(Into::into))
}

/// Why the run has no randomised share beside its search, if it has none
/// by its options: only the default search (optimal DPOR, no `--strategy`)
/// of a whole program, stopping at the first bug, has one
/// ([`crate::random_share`]).
pub fn share_excluded(cli: &Cli, sharded: bool, concolic: bool) -> Option<&'static str> {
    if cli.strategy_choice.is_some() {
        Some("an explicit --strategy")
    } else if cli.strategy != StrategyName::Optimal || concolic {
        Some("--preemption-bound or concolic testing (dpor)")
    } else if sharded {
        Some("--shard")
    } else if cli.keep_going {
        Some("--keep-going")
    } else if cli.replay.is_some() {
        Some("--replay")
    } else {
        None
    }
}

/// The randomised share of the run, if it has one: the default search
/// without `--no-random-share`.
pub fn random_share(cli: &Cli, sharded: bool, concolic: bool) -> Option<ShareSpec> {
    if cli.no_random_share || share_excluded(cli, sharded, concolic).is_some() {
        return None;
    }
    Some(ShareSpec {
        every: cli
            .random_share_every
            .unwrap_or(crate::random_share::DEFAULT_EVERY),
        seed: cli.seed.unwrap_or(crate::random_share::DEFAULT_SEED),
    })
}

/// Refuses options the strategy or mode does not take, and prints the
/// notes that apply (`branch_directed`: the branch-directed search runs;
/// `concolic`: the program's inputs are explored).
pub fn check(
    cli: &Cli,
    binary: &Binary,
    sharded: bool,
    branch_directed: bool,
    concolic: bool,
) -> Result<()> {
    let strategy = registration(cli.strategy);
    if let (Some(_), Some(why)) = (
        cli.random_share_every,
        share_excluded(cli, sharded, concolic),
    ) {
        bail!("--random-share-every applies to the default search (optimal, no --strategy), not with {why}");
    }
    if cli.commute_rmws && !strategy.commutes_rmws {
        bail!(
            "--commute-rmws applies to --strategy {}, not {}",
            words_where(|r| r.commutes_rmws),
            strategy_word(cli.strategy)
        );
    }
    if cli.unfold_order.is_some() && cli.strategy != StrategyName::Unfold {
        bail!("--unfold-order applies to --strategy unfold");
    }
    if cli.preemption_bound.is_some() && strategy.bounded.is_none() {
        bail!(
            "--preemption-bound applies to --strategy {}",
            words_where(|r| r.bounded.is_some())
        );
    }
    if branch_directed {
        if !binary.traced() {
            bail!(
                "--strategy branches needs the branch conditions traced: rebuild {} with REACH_SYMBOLIC=1 reach-cc",
                cli.program.display()
            );
        }
        if cli.symbolic_args || cli.symbolic_stdin > 0 {
            bail!("--strategy branches explores one fixed input: drop --symbolic-args/--symbolic-stdin");
        }
        if sharded {
            bail!("--shard does not apply to --strategy branches");
        }
    }
    if concolic && sharded {
        bail!("--shard does not apply to concolic testing (a program built with REACH_SYMBOLIC=1, or --symbolic-args/--symbolic-stdin)");
    }
    if cli.quiet {
        return Ok(());
    }
    let loops = binary
        .sites
        .values()
        .any(|s| s.what == reach_channel::hooks::LOOP_SITE_WHAT);
    if cli.strategy == StrategyName::Unfold && loops {
        eprintln!(
            "reach-native: note: --strategy unfold does not use await semantics: spin loops are cut by --spin-threshold only"
        );
    }
    if !binary.instrumented {
        eprintln!(
            "reach-native: warning: {} is not instrumented (build it with reach-cc): only pthread calls are explored, plain memory accesses are not",
            cli.program.display()
        );
    }
    Ok(())
}
