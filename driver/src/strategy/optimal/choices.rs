//! The reads-from choices of a node's step under `--memory-model rc11`
//! (the store a load reads, the place a store takes in modification
//! order), and how the ones left are handed to another worker
//! ([`super::split`]).

use crate::trace::Trace;

/// The reads-from choices of a node's step (one, choice 0, under
/// sequential consistency). The step's first run took `first` (the choice
/// its wakeup sequence carried, or the latest store); the others are tried
/// in order afterwards, each once.
#[derive(Clone, Copy, Debug)]
pub(super) struct Choices {
    /// The choice taken on the current path.
    pub(super) taken: u16,
    /// How many the step has (learnt from its runs).
    pub(super) candidates: u16,
    /// The choice of the step's first run.
    first: u16,
    /// The next choice to try after it.
    next: u16,
}

impl Choices {
    /// A step's first run, taking choice `taken` of `candidates`.
    pub(super) fn first_run(taken: u16, candidates: u16) -> Choices {
        Choices {
            taken,
            candidates: candidates.max(1),
            first: taken,
            next: 0,
        }
    }

    /// The choices of event `i` of `trace`, as its first run.
    pub(super) fn of(trace: &Trace, i: usize) -> Choices {
        trace.read(i).map_or(Choices::first_run(0, 1), |r| {
            Choices::first_run(r.choice, r.candidates)
        })
    }

    /// Moves to the next choice not tried yet; false if none is left.
    pub(super) fn advance(&mut self) -> bool {
        while self.next < self.candidates {
            let choice = self.next;
            self.next += 1;
            if choice != self.first {
                self.taken = choice;
                return true;
            }
        }
        false
    }

    /// True if a choice is left to try after the current one.
    pub(super) fn has_next(&self) -> bool {
        let mut rest = *self;
        rest.advance()
    }

    /// No choice is left to try after the current one (the others are
    /// another search's, or were tried already); the current one stays.
    pub(super) fn close(&mut self) {
        self.next = u16::MAX;
    }

    /// Hands the choices left over: the next one, taken, with those after
    /// it still to try (for another worker); this one keeps its current
    /// choice and has none left.
    pub(super) fn hand_over(&mut self) -> Option<Choices> {
        let mut rest = *self;
        if !rest.advance() {
            return None;
        }
        self.close();
        Some(rest)
    }
}

#[cfg(test)]
mod tests {
    use super::Choices;

    /// The choices a run goes through after its first one.
    fn tried(mut choices: Choices) -> Vec<u16> {
        let mut tried = Vec::new();
        while choices.advance() {
            tried.push(choices.taken);
        }
        tried
    }

    #[test]
    fn handing_over_splits_the_choices_left_without_overlap() {
        let mut own = Choices::first_run(2, 4);
        assert!(own.advance());
        assert_eq!(own.taken, 0);
        let rest = own.hand_over().expect("choices 1 and 3 are left");
        assert_eq!(rest.taken, 1);
        assert_eq!(tried(rest), vec![3]);
        assert_eq!(own.taken, 0, "the path keeps the choice it took");
        assert!(!own.has_next());
        assert!(own.hand_over().is_none());
    }

    #[test]
    fn a_closed_step_tries_nothing_more() {
        let mut choices = Choices::first_run(0, 3);
        assert!(choices.has_next());
        choices.close();
        assert_eq!(tried(choices), Vec::<u16>::new());
        assert_eq!(choices.taken, 0);
    }
}
