//! The variant graph (Setiadi et al., Sec. 3, Algorithm 1, after Hwang, Tai
//! and Huang) on top of reachability testing's race variants.
//!
//! A node of the variant graph is a prefix of an execution, labelled with
//! its **index vector** (operations done per thread) and its **version
//! vector** (writes done per shared variable); a path whose reads see other
//! versions than the trace is an *execution-variant*, and nodes with equal
//! vectors merge, so two read-write sequences in which every operation
//! reads or writes the same versions are one variant. The extended graph's
//! **lock flags and wait flags** prune children that cannot happen (a lock
//! held by another thread, a wait not yet notified).
//!
//! Reachability testing ([`crate::strategy::rt`]) already builds exactly
//! these children: its race table changes which write a read receives,
//! and its open lists (a lock is open iff free, a condition re-acquire iff
//! signalled and the mutex free, ...) are the lock and wait flags. What
//! this module adds is the merge: [`variant_key`] is the (index vector,
//! versions read) label of a variant's forced prefix, and the search runs
//! one variant per label.

use crate::analysis::lockset::{lock_effect, LockEffect};
use crate::analysis::objects::{touched, Mode};
use crate::strategy::rt::variants::Variant;
use crate::trace::Trace;
use reach_channel::Space;
use rustc_hash::FxHashMap as HashMap;
use std::hash::{Hash, Hasher};

/// The label of `variant` of `parent`: its index vector and, for every
/// read of its forced prefix, the version of each granule it reads (the
/// number of writes to it before, in the prefix). `None` if the prefix
/// names events the parent does not have.
pub fn variant_key(parent: &Trace, variant: &Variant) -> Option<u64> {
    let mut index: Vec<u32> = vec![0; parent.thread_count().max(1)];
    let mut versions: HashMap<u64, u32> = HashMap::default();
    let mut h = rustc_hash::FxHasher::default();
    for thread in variant.threads() {
        let t = thread as usize;
        if t >= index.len() {
            index.resize(t + 1, 0);
        }
        let k = index[t] as usize;
        index[t] += 1;
        let event = *parent.events_of(thread).get(k)? as usize;
        for ((space, granule), class) in touched(&parent.events.get(event)?.op) {
            if space != Space::Memory {
                continue;
            }
            let version = versions.entry(granule).or_insert(0);
            if class == Mode::Read {
                (thread, k, granule, *version).hash(&mut h);
            } else {
                *version += 1;
            }
        }
    }
    index.hash(&mut h);
    Some(h.finish())
}

/// The whole path of the variant graph that `variant` of `parent` stands
/// for, as parent event indices: its forced prefix, then the parent's
/// remaining operations of each thread in the order the runtime's
/// continuation after a prefix would run them (keep the running thread,
/// else the lowest enabled one), with the lock flags deciding what is
/// enabled (a mutex, spinlock or rwlock is free, a joined thread has
/// finished). Operations past a branch that goes the other way are not
/// known: the parent's stand in for them.
pub fn complete_path(parent: &Trace, variant: &Variant) -> Vec<usize> {
    let threads = parent.thread_count().max(1);
    let mut next = vec![0usize; threads];
    let mut owner: HashMap<u64, u32> = HashMap::default();
    let mut path: Vec<usize> = Vec::with_capacity(parent.events.len());
    let step = |path: &mut Vec<usize>, owner: &mut HashMap<u64, u32>, t: u32, k: usize| {
        let Some(&i) = parent.events_of(t).get(k) else {
            return;
        };
        let i = i as usize;
        let op = &parent.events[i].op;
        if let Some(m) = acquires(op) {
            owner.insert(m, t);
        }
        if let Some(m) = releases(op) {
            owner.remove(&m);
        }
        path.push(i);
    };
    let mut current = 0u32;
    for t in variant.threads() {
        let Some(k) = next.get_mut(t as usize) else {
            continue;
        };
        step(&mut path, &mut owner, t, *k);
        *k += 1;
        current = t;
    }
    let remaining = |t: usize, next: &[usize]| parent.events_of(t as u32).len() > next[t];
    loop {
        let enabled = |t: usize| {
            if !remaining(t, &next) {
                return false;
            }
            let i = parent.events_of(t as u32)[next[t]] as usize;
            let op = &parent.events[i].op;
            if let Some(m) = acquires(op) {
                return !owner.contains_key(&m);
            }
            if op.kind == reach_channel::OpKind::ThreadJoin {
                let joined = op.object as usize;
                return joined >= threads || !remaining(joined, &next);
            }
            true
        };
        let chosen = if enabled(current as usize) {
            Some(current as usize)
        } else {
            (0..threads).find(|&t| enabled(t))
        };
        let Some(t) = chosen else { break };
        step(&mut path, &mut owner, t as u32, next[t]);
        next[t] += 1;
        current = t as u32;
    }
    path
}

/// The lock an operation takes, if it takes one.
fn acquires(op: &reach_channel::Op) -> Option<u64> {
    match lock_effect(op) {
        Some(LockEffect::Acquire(lock, _)) => Some(lock),
        _ => None,
    }
}

/// The lock an operation releases, if it releases one.
fn releases(op: &reach_channel::Op) -> Option<u64> {
    match lock_effect(op) {
        Some(LockEffect::Release(lock)) => Some(lock),
        _ => None,
    }
}
