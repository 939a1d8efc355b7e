//! A candidate execution as the enumerators build it: each thread's steps
//! (events with their values) and each location's modification order, with
//! writes named by thread and position. Two candidates are the same
//! execution exactly when their traces are equal, and a trace becomes a
//! [`Graph`] whose event ids depend on the trace alone.

use crate::graph::{EventId, Graph, GraphBuilder, LocId, Mode, ThreadId, Value};

/// A write a read can read from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Source {
    /// The initialisation write of a location.
    Init(usize),
    /// The write at this position of this thread.
    At(usize, usize),
}

/// One event of a thread.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Step {
    Read {
        loc: usize,
        value: Value,
        mode: Mode,
        from: Source,
    },
    /// `update`: the write of a read-modify-write whose read is the step
    /// just before.
    Write {
        loc: usize,
        value: Value,
        mode: Mode,
        update: bool,
    },
    Fence(Mode),
    Spawn(usize),
    Start,
    End,
    Join(usize),
}

/// Each thread's steps and each location's writes in modification order
/// (its initialisation write, always first, left out).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) struct Trace {
    pub steps: Vec<Vec<Step>>,
    pub mo: Vec<Vec<Source>>,
}

impl Trace {
    /// An empty trace for `threads` threads and `locations` locations.
    pub fn new(threads: usize, locations: usize) -> Trace {
        Trace {
            steps: vec![Vec::new(); threads],
            mo: vec![Vec::new(); locations],
        }
    }

    /// The value a source writes.
    pub fn written(&self, locations: &[(String, Value)], source: Source) -> Value {
        match source {
            Source::Init(l) => locations[l].1,
            Source::At(t, p) => match self.steps[t][p] {
                Step::Write { value, .. } => value,
                _ => panic!("[reach internal bug] a source that is not a write"),
            },
        }
    }

    /// The execution graph of this trace. Events are added in one order
    /// fixed by the trace: the lowest-numbered thread that can go on runs
    /// as far as it can (a spawned thread's events wait for its spawn, a
    /// join for the joined thread's last event before its end).
    pub fn to_graph(&self, locations: &[(String, Value)]) -> Graph {
        let mut b = GraphBuilder::new();
        let locs: Vec<LocId> = locations
            .iter()
            .map(|(name, init)| b.location(name, *init))
            .collect();
        let threads: Vec<ThreadId> = self.steps.iter().map(|_| b.thread()).collect();
        let mut ids: Vec<Vec<Option<EventId>>> =
            self.steps.iter().map(|s| vec![None; s.len()]).collect();
        let mut done: Vec<usize> = vec![0; self.steps.len()];
        let internal = "[reach internal bug] a trace is a well-formed graph";
        loop {
            let mut progressed = false;
            for t in 0..self.steps.len() {
                while let Some(step) = self.steps[t].get(done[t]) {
                    let p = done[t];
                    match step {
                        Step::Start | Step::End => break,
                        Step::Join(c) => {
                            let c = *c;
                            if done[c] + 1 != self.steps[c].len() {
                                break;
                            }
                            let (end, join) = b.join(threads[t], threads[c]).expect(internal);
                            ids[c][done[c]] = Some(end);
                            done[c] += 1;
                            ids[t][p] = Some(join);
                        }
                        Step::Spawn(c) => {
                            let c = *c;
                            let (spawn, start) = b.spawn(threads[t], threads[c]).expect(internal);
                            ids[t][p] = Some(spawn);
                            ids[c][0] = Some(start);
                            done[c] = 1;
                        }
                        Step::Read {
                            loc, value, mode, ..
                        } => match self.steps[t].get(p + 1) {
                            Some(Step::Write {
                                value: written,
                                mode: write_mode,
                                update: true,
                                ..
                            }) => {
                                let (r, w) = b
                                    .rmw(
                                        threads[t],
                                        locs[*loc],
                                        (*mode, *write_mode),
                                        *value,
                                        *written,
                                    )
                                    .expect(internal);
                                ids[t][p] = Some(r);
                                ids[t][p + 1] = Some(w);
                                done[t] += 1;
                            }
                            _ => {
                                ids[t][p] = Some(
                                    b.read(threads[t], locs[*loc], *mode, *value)
                                        .expect(internal),
                                )
                            }
                        },
                        Step::Write {
                            loc, value, mode, ..
                        } => {
                            ids[t][p] = Some(
                                b.write(threads[t], locs[*loc], *mode, *value)
                                    .expect(internal),
                            )
                        }
                        Step::Fence(mode) => {
                            ids[t][p] = Some(b.fence(threads[t], *mode).expect(internal))
                        }
                    }
                    done[t] += 1;
                    progressed = true;
                }
            }
            if !progressed {
                break;
            }
        }
        assert!(
            done.iter().zip(&self.steps).all(|(d, s)| *d == s.len()),
            "[reach internal bug] a trace whose threads wait for each other"
        );
        let id = |source: Source| match source {
            Source::Init(l) => EventId(l),
            Source::At(t, p) => ids[t][p].expect(internal),
        };
        for (t, steps) in self.steps.iter().enumerate() {
            for (p, step) in steps.iter().enumerate() {
                if let Step::Read { from, .. } = step {
                    b.reads_from(ids[t][p].expect(internal), id(*from))
                        .expect(internal);
                }
            }
        }
        for (l, order) in self.mo.iter().enumerate() {
            let writes: Vec<EventId> = order.iter().map(|&s| id(s)).collect();
            b.modification_order(locs[l], &writes).expect(internal);
        }
        b.build()
    }
}
