//! Reachability testing (Lei & Carver, "A New Algorithm for Reachability
//! Testing of Concurrent Programs"; the general execution model of the
//! reachability-testing slides): every partially-ordered SYN-sequence is
//! exercised once, without a stored history of exercised sequences.
//!
//! # The execution model for native programs
//!
//! Every visible operation of a thread is a *synchronisation pair*: a
//! **sending event** (the thread's call) and a **receiving event** (the
//! call's completion on the operation's object), exactly as the slides
//! model semaphores and monitors (call event on the thread, completion or
//! entry event on the object). The runtime serialises threads, so both
//! happen in the same scheduling step and the trace records them as one
//! event; a call still pending when the execution ends is a sending event
//! that was never received.
//!
//! | object | sending events | receiving events and open list |
//! |---|---|---|
//! | mutex, spinlock | lock, trylock, timed lock, unlock | completion on the mutex; lock open iff the mutex is free, unlock and try/timed variants always |
//! | semaphore | `sem_wait` (try/timed), `sem_post`, `sem_getvalue` | completion on the semaphore; wait open iff the count is positive (the slides' P/V open list) |
//! | condition variable (signal-and-continue) | wait (releases the mutex: first half), signal, broadcast, re-acquire (second half) | completions on the condition variable and, for wait/re-acquire, on the mutex; a re-acquire is open once signalled and the mutex is free. A pthread monitor is SC: a signalled thread races with new entrants for the mutex (slides: "SC monitor ... call event when it tries to re-enter") |
//! | rwlock | rdlock, wrlock, unlock | completion on the rwlock; rdlock open iff no writer holds it, wrlock iff nobody does |
//! | barrier, once, futex | arrive/leave, once, wait/wake | completion on the object |
//! | thread | create, join, exit | create and join are program-order edges (the child starts with its creator's timestamp, a join takes the joined thread's final one), never races |
//! | memory granule | load, store, atomic, ranged access | completion on the granule; reads commute: a read's completion follows the last write's, a write's follows every earlier access |
//! | the process | `exit` | dependent with every event |
//!
//! **Vector timestamps** (slides "Timestamp Semaphore/Monitor"): a sending
//! event is stamped with its thread's clock; the receiving event joins the
//! object's clock (`O.v := max(O.v, s.ts)`, with separate write and access
//! clocks per memory granule so that reads commute); the thread continues
//! with the receiving event's stamp (`T.v := max(T.v, O.v)`). Events are
//! identified by (thread, index in the thread), which is stable across a
//! variant and the execution it leads to because variants are forced as
//! per-thread prefixes (prime structures repeated, Prop. 1).
//!
//! A SYN-sequence is thus the set of synchronisation pairs, i.e. for every
//! object the order of its dependent completions: the partial order of
//! dependent operations with reads commuting (the Mazurkiewicz trace the
//! exhaustive oracle counts).
//!
//! **Race set** of a receiving event `r` (completion of event `e`): the
//! sending events `s'` of other threads, dependent with `e`, open at `r`,
//! not caused by `r` (`r` does not happen before `s'`) and received after
//! `r` or never ([`races`]).
//!
//! **Race variant**: a row of the race table ([`table`]); changed receives
//! take their new partners, every event happening after a changed receive
//! is removed (Def. 4). Its events in trace order are a linearisation of
//! its partial order; that sequence of thread ids is the schedule prefix
//! the runtime forces before continuing with "continue, else lowest"
//! ([`strategy`]). GenerateVariants with pruning of old sending events and
//! black/gray colouring is in [`variants`].
//!
//! # Adaptations
//!
//! * **Reads commute.** When the new partner `s` of receive `r` (the
//!   completion of event `e`) only reads, or `e` ends the process, `s`
//!   *moves before* `e` ([`model::moves_before`]): the changed receive is
//!   `s`'s own completion, `e` and its successors stay in the variant and
//!   follow `s` (nothing they do depends on a read). Otherwise `e`'s
//!   completion is the changed receive and everything after it goes
//!   (Def. 4).
//! * **Groups.** Several pairwise-independent calls that all move before
//!   `e` may take its place together (reads overtaking a write, several
//!   threads' steps before the process exit), one race-table value per
//!   group; before the process exit the group is ordered and may contain
//!   dependent calls, one value per partial order of the group, and an old
//!   sending event may only follow a new one it depends on (otherwise the
//!   exit's own tangled cycle would lose orders). One write may take the
//!   place of several concurrent reads (the same partner in several
//!   columns); different partners of one row must be independent.
//! * **Open lists** come from the trace: a blocking call is open if its
//!   thread waited there enabled, if a call of the same kind on the same
//!   object was enabled there, or from the lock holders and semaphore value
//!   replayed from the completions before `r`. A semaphore's initial value
//!   is not traced; it is inferred from the states where some thread waited
//!   on it, and a call whose openness stays unknown is taken as closed
//!   (such an order can then be missed; a traced semaphore value would make
//!   the open list exact).
//! * **E1.** A gray receive may only take a new partner that the changed
//!   receive which made it gray happens before (the strongly-reconciled-
//!   before link closing the cycle). Interconnected cycles may be exercised
//!   twice, as in the paper.
//! * **Known gap.** A plain or atomic write is at once a receiving event
//!   (its place among the writes of its granule) and the sending event its
//!   readers receive; the paper's model keeps those apart. On programs whose
//!   shared variables are only accessed under synchronisation the search is
//!   exact (model tests), but with unsynchronised accesses some partial
//!   orders can be missed (never invented, never repeated in the tests).

pub mod linearise;
pub mod model;
pub mod races;
pub mod strategy;
pub mod table;
pub mod variants;

pub use strategy::ReachabilityTesting;
