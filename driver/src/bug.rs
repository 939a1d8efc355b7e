//! What counts as a bug, decided from one execution's outcome and trace.

use crate::analysis::lockset::{self, LockMode, LocksetAccess, LocksetKind, LocksetRace};
use crate::analysis::races::{first_race, Race};
use crate::exec::{Outcome, Termination};
use crate::trace::Trace;
use reach_channel::RunStatus;
use serde::Serialize;
use std::fmt;

/// Kinds of bugs, as named in reports and in the JSON `kind` field.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum BugKind {
    /// Assertion failure, `abort()`, or a non-zero exit code.
    Assertion,
    /// A fatal signal other than `SIGABRT`.
    Crash,
    /// Every live thread blocked.
    Deadlock,
    /// Two conflicting plain accesses not ordered by synchronisation.
    DataRace,
    /// Step bound, wall-clock bound, livelock, or a thread blocked outside control.
    Hang,
    /// pthread API misuse.
    Misuse,
    /// The same schedule did not reproduce the same operations.
    Nondeterminism,
    /// A Rust panic (in any thread, caught or not), with the panic's message
    /// and location from the panic hook's report.
    Panic,
}

impl fmt::Display for BugKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = match self {
            BugKind::Assertion => "assertion failure",
            BugKind::Crash => "crash",
            BugKind::Deadlock => "deadlock",
            BugKind::DataRace => "data race",
            BugKind::Hang => "hang",
            BugKind::Misuse => "pthread misuse",
            BugKind::Nondeterminism => "nondeterminism",
            BugKind::Panic => "panic",
        };
        f.write_str(name)
    }
}

/// A bug found in one execution.
#[derive(Clone, Debug)]
pub struct Bug {
    /// Its kind.
    pub kind: BugKind,
    /// One-paragraph explanation.
    pub message: String,
    /// For data races: the two racing events.
    pub race: Option<Race>,
    /// For a race or an unlock without lock found by the lockset detector:
    /// both sides with the locks held.
    pub lockset: Option<Box<LocksetRace>>,
    /// For nondeterminism: the likely causes the re-runs named, most
    /// likely first (empty for other bugs).
    pub causes: Vec<crate::causes::Cause>,
}

/// Which detector decides what a data race is (`--race-detector`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RaceDetector {
    /// Happens-before: two conflicting plain accesses not ordered by
    /// synchronisation (vector clocks).
    #[default]
    Hb,
    /// Lockset (Eraser): a shared location written by some thread with no
    /// lock held at every access.
    Lockset,
    /// Both: a happens-before race first, then the lockset races.
    Both,
}

impl RaceDetector {
    /// True if the happens-before detector runs.
    pub fn hb(self) -> bool {
        matches!(self, RaceDetector::Hb | RaceDetector::Both)
    }

    /// True if the lockset detector runs.
    pub fn lockset(self) -> bool {
        matches!(self, RaceDetector::Lockset | RaceDetector::Both)
    }

    /// The detector of an option value (`hb`, `lockset`, `both`).
    pub fn from_word(word: &str) -> Option<RaceDetector> {
        [RaceDetector::Hb, RaceDetector::Lockset, RaceDetector::Both]
            .into_iter()
            .find(|d| d.word() == word)
    }

    /// The option's value: `hb`, `lockset` or `both`.
    pub fn word(self) -> &'static str {
        match self {
            RaceDetector::Hb => "hb",
            RaceDetector::Lockset => "lockset",
            RaceDetector::Both => "both",
        }
    }
}

/// Which outcomes count as bugs (configurable from the command line).
#[derive(Clone, Copy, Debug)]
pub struct BugPolicy {
    /// Report data races.
    pub data_races: bool,
    /// A non-zero exit code is a bug.
    pub exit_code_is_bug: bool,
    /// The data-race detector(s).
    pub race_detector: RaceDetector,
}

/// Why the program could not be tested at all (not a bug of the program).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Unusable {
    /// The runtime cannot control something the program does.
    Unsupported(String),
    /// The runtime found itself in an inconsistent state.
    Internal(String),
}

/// Name of a signal number (`SIGSEGV`...).
pub fn signal_name(signal: i32) -> String {
    nix::sys::signal::Signal::try_from(signal)
        .map(|s| s.as_str().to_string())
        .unwrap_or_else(|_| format!("signal {signal}"))
}

/// Decides whether an execution exhibits a bug: the first of
/// [`classify_all`].
pub fn classify(
    outcome: &Outcome,
    trace: &Trace,
    policy: BugPolicy,
) -> Result<Option<Bug>, Unusable> {
    classify_all(outcome, trace, policy).map(|bugs| bugs.into_iter().next())
}

/// Every bug an execution exhibits, the one to report first first: one bug,
/// except that a clean end of the execution can show several data races
/// (the happens-before one first, then each distinct lockset race) and
/// lockset unlocks without lock.
pub fn classify_all(
    outcome: &Outcome,
    trace: &Trace,
    policy: BugPolicy,
) -> Result<Vec<Bug>, Unusable> {
    let bug = |kind, message: String| {
        Ok(vec![Bug {
            kind,
            message,
            race: None,
            lockset: None,
            causes: Vec::new(),
        }])
    };
    let tids: Vec<u32> = outcome.threads.iter().map(|slot| slot.tid).collect();
    let panic = rust_panic(&outcome.stderr, &tids);
    match outcome.status {
        RunStatus::SleepBlocked => return Ok(Vec::new()),
        RunStatus::Unsupported => return Err(Unusable::Unsupported(outcome.message.clone())),
        RunStatus::InternalError => return Err(Unusable::Internal(outcome.message.clone())),
        // A panic comes first: what else went wrong (a poisoned lock, a
        // thread that never finished) follows from it.
        status if !matches!(status, RunStatus::Diverged) && panic.is_some() => {
            return bug(BugKind::Panic, panic.unwrap_or_default());
        }
        RunStatus::Deadlock => {
            return bug(
                BugKind::Deadlock,
                with_default(&outcome.message, "every live thread is blocked"),
            )
        }
        RunStatus::Misuse => {
            return bug(
                BugKind::Misuse,
                with_lockset_view(outcome.message.clone(), trace, policy),
            )
        }
        RunStatus::StepLimit => {
            return bug(
                BugKind::Hang,
                format!(
                    "{} (--max-steps); raise --max-steps, or leave it out to bound executions by --timeout only",
                    with_default(&outcome.message, "the execution exceeded the step bound")
                ),
            )
        }
        RunStatus::Livelock => {
            let message = with_default(&outcome.message, "threads spin forever");
            let message = message.strip_prefix("livelock: ").unwrap_or(&message);
            return bug(
                BugKind::Hang,
                format!(
                    "livelock: {message}; (spin detection: --spin-threshold sets how many operations without progress count as spinning)"
                ),
            );
        }
        RunStatus::Awaiting => match crate::analysis::awaits::verdict(trace) {
            crate::analysis::awaits::Verdict::Stuck(stuck) => {
                return match crate::analysis::awaits::lock_deadlock_message(&stuck) {
                    Some(message) => bug(BugKind::Deadlock, message),
                    None => bug(
                        BugKind::Hang,
                        crate::analysis::awaits::livelock_message(trace, &stuck),
                    ),
                };
            }
            crate::analysis::awaits::Verdict::None => {
                return bug(
                    BugKind::Deadlock,
                    with_default(&outcome.message, "every live thread is blocked"),
                )
            }
            // Blocked: not a behaviour, but what happened before counts.
            crate::analysis::awaits::Verdict::Blocked(_) => {}
        },
        RunStatus::Uncontrolled => {
            return bug(
                BugKind::Hang,
                with_default(
                    &outcome.message,
                    "a thread blocked outside the runtime's control",
                ),
            )
        }
        RunStatus::Diverged => {
            let (step, thread) = outcome.divergence.unwrap_or((0, 0));
            return bug(
                BugKind::Nondeterminism,
                format!("the schedule asked for thread {thread} at step {step}, but it was not enabled there"),
            );
        }
        RunStatus::Running | RunStatus::Exited => {}
    }
    match outcome.termination {
        Termination::Signaled(signal) if signal == libc::SIGABRT => {
            return bug(BugKind::Assertion, abort_message(outcome));
        }
        Termination::Signaled(signal) => {
            let thread = outcome
                .culprit
                .map(|(t, _)| format!(" in thread {t}"))
                .unwrap_or_default();
            return bug(
                BugKind::Crash,
                format!("the program was killed by {}{thread}", signal_name(signal)),
            );
        }
        Termination::TimedOut => {
            let who = outcome
                .culprit
                .map(|(t, _)| {
                    let last = outcome
                        .threads
                        .get(t as usize)
                        .map(|slot| slot.last_site)
                        .filter(|site| *site != 0)
                        .map(|site| format!(" since its last scheduling point (site {site:#x})"))
                        .unwrap_or_default();
                    format!(
                        ": thread {t} did not reach a scheduling point{last} (blocked in an uncontrolled call, or computing without visible operations)"
                    )
                })
                .unwrap_or_default();
            let secs = outcome.timeout.as_secs_f64();
            return bug(
                BugKind::Hang,
                format!(
                    "the execution exceeded the wall-clock bound of {secs} s (--timeout){who}; raise --timeout if the program is only slow"
                ),
            );
        }
        Termination::Exited(code) if code != 0 && policy.exit_code_is_bug => {
            return bug(
                BugKind::Assertion,
                format!("the program exited with code {code}"),
            );
        }
        Termination::Exited(_) => {}
    }
    let mut bugs = Vec::new();
    if policy.data_races && policy.race_detector.hb() {
        if let Some(race) = first_race(trace) {
            bugs.push(Bug {
                kind: BugKind::DataRace,
                message: race_message(&race),
                race: Some(race),
                lockset: None,
                causes: Vec::new(),
            });
        }
    }
    if policy.race_detector.lockset() {
        bugs.extend(
            lockset::races(trace)
                .into_iter()
                .filter(|r| policy.data_races || r.kind != LocksetKind::Race)
                .map(|r| lockset_bug(r, &|step| trace.caller(step))),
        );
    }
    Ok(bugs)
}

/// The message of a happens-before race: its address and its two steps,
/// or for an earlier access that was no step (a private access), its
/// thread and the step of that thread it followed or preceded.
pub fn race_message(race: &Race) -> String {
    match race.first_private {
        None => format!(
            "data race on address {:#x} between step {} and step {}",
            race.address, race.first, race.second
        ),
        Some(p) => format!(
            "data race on address {:#x} between an access of thread {} {} step {} (no step of its own: the memory was its thread's alone until then) and step {}",
            race.address,
            p.thread,
            if race.first < p.position as usize { "after" } else { "before" },
            race.first,
            race.second
        ),
    }
}

/// A lockset finding as a bug: a race is a `data_race`, an unlock without
/// lock a `misuse`. `caller` gives each step's call into the standard
/// library in progress ([`Trace::caller`]), for placing its site.
pub fn lockset_bug(found: LocksetRace, caller: &dyn Fn(usize) -> u64) -> Bug {
    let message = lockset_message(&found, caller);
    let (kind, race) = match (found.kind, &found.previous) {
        (LocksetKind::Race, Some(previous)) => (
            BugKind::DataRace,
            Some(Race {
                first: previous.step,
                second: found.access.step,
                address: found.address,
                first_private: None,
            }),
        ),
        (LocksetKind::Race, None) => (BugKind::DataRace, None),
        (LocksetKind::UnlockWithoutLock, _) => (BugKind::Misuse, None),
    };
    Bug {
        kind,
        message,
        race,
        lockset: Some(Box::new(found)),
        causes: Vec::new(),
    }
}

/// The message of a lockset finding: what happened, both sides with their
/// locksets (sites as `(site 0x…)`, or `(site 0x… from 0x…)` with the call
/// into the standard library in progress, and objects by address, which
/// the reports name).
fn lockset_message(found: &LocksetRace, caller: &dyn Fn(usize) -> u64) -> String {
    let site = |a: &LocksetAccess| match caller(a.step) {
        0 => format!("(site {:#x})", a.site),
        from => format!("(site {:#x} from {from:#x})", a.site),
    };
    let side = |a: &LocksetAccess| {
        format!(
            "step {}, thread {} {} {} holding {}",
            a.step,
            a.thread,
            if a.write { "writes" } else { "reads" },
            site(a),
            lockset_text(&a.locks)
        )
    };
    match found.kind {
        LocksetKind::Race => {
            let mut message = format!(
                "lockset race on address {:#x}: shared by threads and written, with no lock held at every access; {}",
                found.address,
                side(&found.access)
            );
            if let Some(previous) = &found.previous {
                message.push_str(&format!("; earlier, {}", side(previous)));
            }
            message
        }
        LocksetKind::UnlockWithoutLock => format!(
            "lockset: unlock without lock: thread {} releases lock {:#x}, which it does not hold, at step {} {} holding {}",
            found.access.thread,
            found.address,
            found.access.step,
            site(&found.access),
            lockset_text(&found.access.locks)
        ),
    }
}

/// A lockset as text: `{}`, `{0x4040a0, 0x4040c8 in read mode}`.
pub fn lockset_text(locks: &[lockset::HeldLock]) -> String {
    let locks: Vec<String> = locks
        .iter()
        .map(|l| match l.mode {
            LockMode::Write => format!("{:#x}", l.lock),
            LockMode::Read => format!("{:#x} in read mode", l.lock),
        })
        .collect();
    format!("{{{}}}", locks.join(", "))
}

/// The runtime's misuse message, with the lockset detector's view of an
/// unlock without lock at the trace's last step when that detector runs.
fn with_lockset_view(message: String, trace: &Trace, policy: BugPolicy) -> String {
    if !policy.race_detector.lockset() {
        return message;
    }
    let last = trace.len().checked_sub(1);
    match lockset::races(trace)
        .into_iter()
        .find(|r| r.kind == LocksetKind::UnlockWithoutLock && Some(r.access.step) == last)
    {
        Some(found) => format!(
            "{message}; lockset: unlock without lock, thread {} holding {}",
            found.access.thread,
            lockset_text(&found.access.locks)
        ),
        None => message,
    }
}

fn with_default(message: &str, default: &str) -> String {
    if message.trim().is_empty() {
        default.to_string()
    } else {
        message.to_string()
    }
}

/// The first Rust panic the program's standard error reports, as
/// `thread 'NAME' (Tn) panicked at FILE:LINE:COL: MESSAGE` (message lines
/// joined with `; `), from the standard panic hook's report. The kernel
/// thread id the hook prints (it differs from run to run) becomes the
/// thread's number `Tn` of the report when `tids` (the kernel thread id of
/// each thread, by number) holds it once, and is dropped otherwise:
///
/// ```text
/// thread '<unnamed>' panicked at src/main.rs:12:9:
/// assertion `left == right` failed
///   left: 0
///  right: 42
/// note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace
/// ```
pub fn rust_panic(stderr: &[u8], tids: &[u32]) -> Option<String> {
    let text = String::from_utf8_lossy(stderr);
    let mut lines = text.lines();
    let head = lines.by_ref().find(|l| is_panic_head(l))?;
    let head = with_thread_number(head, tids);
    let head = head.as_str();
    let Some(head) = head.strip_suffix(':') else {
        // One-line form of older toolchains: `panicked at 'MESSAGE', FILE:LINE:COL`.
        return Some(head.trim().to_string());
    };
    let message: Vec<&str> = lines
        .take_while(|l| {
            !l.starts_with("note: ") && !l.starts_with("stack backtrace:") && !is_panic_head(l)
        })
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .take(8)
        .collect();
    Some(format!("{head}: {}", message.join("; ")))
}

/// `thread 'NAME' panicked at ...`, or `thread 'NAME' (TID) panicked at ...`.
fn is_panic_head(line: &str) -> bool {
    line.starts_with("thread '") && line.contains(" panicked at ")
}

/// The panic line with the kernel thread id replaced by the thread's
/// number (`(T1)`), or left out when `tids` does not name it once.
fn with_thread_number(head: &str, tids: &[u32]) -> String {
    if let Some(close) = head.find("' (") {
        let rest = &head[close + 3..];
        if let Some(end) = rest.find(") panicked at ") {
            if let Ok(tid) = rest[..end].parse::<u32>() {
                let mut numbers = tids.iter().enumerate().filter(|(_, t)| **t == tid);
                let number = match (numbers.next(), numbers.next()) {
                    (Some((n, _)), None) if tid != 0 => format!(" (T{n})"),
                    _ => String::new(),
                };
                return format!("{}'{number}{}", &head[..close], &rest[end + 1..]);
            }
        }
    }
    head.to_string()
}

/// The assertion text from the program's stderr, if it printed one.
fn abort_message(outcome: &Outcome) -> String {
    let stderr = String::from_utf8_lossy(&outcome.stderr);
    stderr
        .lines()
        .rev()
        .find(|l| l.contains("Assertion") || l.contains("assert"))
        .map(|l| l.trim().to_string())
        .unwrap_or_else(|| "the program aborted (SIGABRT)".to_string())
}

#[cfg(test)]
mod panic_tests {
    use super::rust_panic;

    #[test]
    fn the_first_panic_with_its_message_and_location() {
        let stderr = b"hello\nthread '<unnamed>' (20788) panicked at src/bin/p.rs:12:9:\nassertion `left == right` failed: data\n  left: 0\n right: 42\nnote: run with `RUST_BACKTRACE=1`\nthread 'main' panicked at src/bin/p.rs:20:19:\ncalled `Result::unwrap()` on an `Err` value: Any { .. }\n";
        assert_eq!(
            rust_panic(stderr, &[20700, 20788]).as_deref(),
            Some("thread '<unnamed>' (T1) panicked at src/bin/p.rs:12:9: assertion `left == right` failed: data; left: 0; right: 42")
        );
        assert_eq!(
            rust_panic(stderr, &[20700]).as_deref(),
            Some("thread '<unnamed>' panicked at src/bin/p.rs:12:9: assertion `left == right` failed: data; left: 0; right: 42")
        );
        assert_eq!(
            rust_panic(b"a.c:3: main: Assertion `x' failed.\n", &[]),
            None
        );
    }
}

#[cfg(test)]
mod lockset_tests {
    use super::*;
    use crate::analysis::lockset::HeldLock;

    fn side(
        step: usize,
        thread: u32,
        site: u64,
        write: bool,
        locks: Vec<HeldLock>,
    ) -> LocksetAccess {
        LocksetAccess {
            step,
            thread,
            site,
            write,
            locks,
        }
    }

    #[test]
    fn a_lockset_race_is_a_data_race_naming_both_sides_and_their_locks() {
        let m = HeldLock {
            lock: 0x4040,
            mode: LockMode::Write,
        };
        let rw = HeldLock {
            lock: 0x4080,
            mode: LockMode::Read,
        };
        // Step 9 ran in a call into the standard library at site 0xd.
        let bug = lockset_bug(
            LocksetRace {
                kind: LocksetKind::Race,
                address: 0x5000,
                access: side(9, 2, 0xb, true, vec![rw]),
                previous: Some(side(4, 1, 0xa, false, vec![m, rw])),
            },
            &|step| if step == 9 { 0xd } else { 0 },
        );
        assert_eq!(bug.kind, BugKind::DataRace);
        assert_eq!(
            bug.race,
            Some(Race {
                first: 4,
                second: 9,
                address: 0x5000,
                first_private: None
            })
        );
        assert_eq!(
            bug.message,
            "lockset race on address 0x5000: shared by threads and written, with no lock held at every access; \
             step 9, thread 2 writes (site 0xb from 0xd) holding {0x4080 in read mode}; \
             earlier, step 4, thread 1 reads (site 0xa) holding {0x4040, 0x4080 in read mode}"
        );
        assert!(bug.lockset.is_some());
    }

    #[test]
    fn an_unlock_without_lock_is_a_misuse() {
        let bug = lockset_bug(
            LocksetRace {
                kind: LocksetKind::UnlockWithoutLock,
                address: 0x4040,
                access: side(3, 1, 0xc, true, Vec::new()),
                previous: None,
            },
            &|_| 0,
        );
        assert_eq!(bug.kind, BugKind::Misuse);
        assert_eq!(bug.race, None);
        assert_eq!(
            bug.message,
            "lockset: unlock without lock: thread 1 releases lock 0x4040, which it does not hold, at step 3 (site 0xc) holding {}"
        );
    }
}
