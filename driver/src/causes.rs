//! The likely causes of a program's nondeterminism, from the sources the
//! runtime saw during the runs of one schedule
//! ([`reach_channel::sources`]), most likely first.
//!
//! The order: evidence first (a file the executions read or wrote changed
//! during the run; address randomisation when the runs parted at an
//! address), then what a program reads to vary on purpose (random bytes),
//! then threads that run unscheduled (their timing varies), then real time
//! (programs mostly measure it rather than branch on it), then address
//! randomisation where the runs did not part at an address, then files the
//! kernel makes anew at each read (`/proc`, `/sys`). Each cause names the
//! site of its first use as `(site 0x…)`, which the reports turn into a
//! source location.

use reach_channel::sources::{FileSeen, Seen, Source};
use std::path::Path;
use std::time::SystemTime;

/// The causes among `seen` that are evidence on their own, whatever the
/// re-runs do: files the program opened that changed since `since` (the
/// start of the run). Re-runs start from the changed files, so they cannot
/// show such a cause.
pub fn changed_files(seen: &Seen, since: SystemTime) -> Vec<String> {
    texts(changed_file_causes(seen, since))
}

/// [`changed_files`] as records.
pub fn changed_file_causes(seen: &Seen, since: SystemTime) -> Vec<Cause> {
    seen.files
        .iter()
        .filter(|f| !made_by_kernel(&f.path) && !f.cut && changed_since(&f.path, since))
        .map(|f| Cause {
            kind: "changed_file",
            site: f.site,
            step: None,
            text: format!(
                "the file {}, opened by the program{}{}, changed during the run",
                f.path,
                at(f.site),
                if f.writes { ", also for writing" } else { "" }
            ),
        })
        .collect()
}

/// One likely cause of a program's nondeterminism, as the JSON report
/// gives it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cause {
    /// What, in snake case: a [`Source`] (`dev_urandom`, `real_time`,
    /// `foreign_thread`, `address_randomisation`, ...), `changed_file`,
    /// `kernel_file` or `working_directory`.
    pub kind: &'static str,
    /// Site of the program's first use of it (0 if unknown).
    pub site: u64,
    /// Events recorded before that first use, if known.
    pub step: Option<u64>,
    /// In words, with `(site 0x…)` marks.
    pub text: String,
}

/// The texts of `causes`.
fn texts(causes: Vec<Cause>) -> Vec<String> {
    causes.into_iter().map(|c| c.text).collect()
}

/// The snake-case name of `source`.
fn kind_of(source: Source) -> &'static str {
    match source {
        Source::DevUrandom => "dev_urandom",
        Source::DevRandom => "dev_random",
        Source::Getrandom => "getrandom",
        Source::Getentropy => "getentropy",
        Source::Arc4random => "arc4random",
        Source::RandomDevice => "random_device",
        Source::RandomInstruction => "random_instruction",
        Source::CycleCounter => "cycle_counter",
        Source::RealTime => "real_time",
        Source::ProcessorTime => "processor_time",
        Source::ForeignThread => "foreign_thread",
        Source::RawClone => "raw_clone",
        Source::AddressRandomisation => "address_randomisation",
        Source::Files => "files",
    }
}

/// `source` as `seen` has it, as a cause.
fn source_cause(seen: &Seen, source: Source) -> Cause {
    let first = seen.get(source);
    let site = first.map_or(0, |s| s.site);
    Cause {
        kind: kind_of(source),
        site: if source == Source::AddressRandomisation {
            0
        } else {
            site
        },
        step: first.map(|s| s.step),
        text: describe(
            source,
            if source == Source::AddressRandomisation {
                0
            } else {
                site
            },
        ),
    }
}

/// The likely causes in `seen`, most likely first; `parted_at_address`:
/// the runs parted where one thread accessed another address.
pub fn likely(seen: &Seen, parted_at_address: bool) -> Vec<String> {
    texts(likely_causes(seen, parted_at_address))
}

/// [`likely`] as records.
pub fn likely_causes(seen: &Seen, parted_at_address: bool) -> Vec<Cause> {
    let randomised = seen.site_of(Source::AddressRandomisation).is_some();
    let mut causes = Vec::new();
    if randomised && parted_at_address {
        causes.push(source_cause(seen, Source::AddressRandomisation));
    }
    for group in [RANDOM, UNSCHEDULED, TIME] {
        for source in group {
            if seen.site_of(*source).is_some() {
                causes.push(source_cause(seen, *source));
            }
        }
    }
    if randomised && !parted_at_address {
        causes.push(source_cause(seen, Source::AddressRandomisation));
    }
    causes.extend(
        seen.files
            .iter()
            .filter(|f| made_by_kernel(&f.path) && !stable_kernel_file(&f.path))
            .map(|f| Cause {
                kind: "kernel_file",
                site: f.site,
                step: None,
                text: kernel_file(f),
            }),
    );
    causes
}

/// The causes in `seen` that the program used before step `step`, most
/// likely first: random bytes, unscheduled threads and real time (not
/// address randomisation, which executions of one process share, nor
/// files). An execution that left the path an earlier one took at `step`
/// may have read other values there than the earlier one, whatever its
/// re-runs do.
pub fn used_before(seen: &Seen, step: u64) -> Vec<String> {
    texts(used_before_causes(seen, step))
}

/// [`used_before`] as records.
pub fn used_before_causes(seen: &Seen, step: u64) -> Vec<Cause> {
    [RANDOM, UNSCHEDULED, TIME]
        .into_iter()
        .flatten()
        .filter_map(|source| seen.get(*source))
        .filter(|s| s.step <= step)
        .map(|s| source_cause(seen, s.source))
        .collect()
}

/// One sentence from `causes` (most likely first) and where the runs
/// parted (`parting`, if known).
pub fn sentence(causes: &[String], parting: Option<&str>) -> String {
    let named = match causes {
        [] => return format!("likely cause: {}", parting.unwrap_or("unknown")),
        [one] => format!("likely cause: {one}"),
        several => format!("likely causes, most likely first: {}", several.join("; ")),
    };
    match parting {
        Some(parting) => format!("{named}; where the runs parted: {parting}"),
        None => named,
    }
}

/// Sources that read random bytes.
const RANDOM: &[Source] = &[
    Source::DevUrandom,
    Source::DevRandom,
    Source::Getrandom,
    Source::Getentropy,
    Source::Arc4random,
    Source::RandomDevice,
    Source::RandomInstruction,
];

/// Sources that run code unscheduled.
const UNSCHEDULED: &[Source] = &[Source::ForeignThread, Source::RawClone];

/// Sources that read time the virtual clock does not give.
const TIME: &[Source] = &[
    Source::CycleCounter,
    Source::RealTime,
    Source::ProcessorTime,
];

/// ` (site 0x…)` for a known site, else nothing.
fn at(site: u64) -> String {
    if site == 0 {
        String::new()
    } else {
        format!(" (site {site:#x})")
    }
}

/// What `source`, first used at `site`, is, in words.
fn describe(source: Source, site: u64) -> String {
    let at = at(site);
    match source {
        Source::DevUrandom => format!("the program read /dev/urandom{at}"),
        Source::DevRandom => format!("the program read /dev/random{at}"),
        Source::Getrandom => format!("the program called getrandom{at}"),
        Source::Getentropy => format!("the program called getentropy{at}"),
        Source::Arc4random => format!("the program called arc4random{at}"),
        Source::RandomDevice => format!("the program read a std::random_device{at}"),
        Source::RandomInstruction => {
            format!("the program read a hardware random number (rdrand){at}")
        }
        Source::CycleCounter => format!("the program read the cycle counter (rdtsc){at}"),
        Source::RealTime => format!(
            "the program read the real time past reach-native's virtual clock (timespec_get, or a clock system call){at}"
        ),
        Source::ProcessorTime => format!(
            "the program read processor time (clock, times or getrusage){at}"
        ),
        Source::ForeignThread => format!(
            "a thread reach-native did not create (one the C library or a library made without pthread_create) ran program code{at}, unscheduled"
        ),
        Source::RawClone => {
            format!("the program made a thread with clone{at}, which runs unscheduled")
        }
        Source::AddressRandomisation => "address randomisation is on (the system did not let reach-native turn it off; a container's seccomp profile can forbid it): addresses differ from one process to the next".to_string(),
        Source::Files => format!("the program opened files{at}"),
    }
}

/// `/proc` and `/sys` files: the kernel makes their contents at each read.
fn made_by_kernel(path: &str) -> bool {
    path.starts_with("/proc/") || path.starts_with("/sys/")
}

/// Kernel files (and directories of them) whose contents stay the same
/// for the length of a run: the process's memory map (addresses are not
/// randomised), its control groups and mounts, the processors. Language
/// runtimes read them at start-up or to print a backtrace (Rust's
/// `available_parallelism` and panics); they are no likely cause.
const STABLE_KERNEL_FILES: &[&str] = &[
    "/proc/self/maps",
    "/proc/self/cgroup",
    "/proc/self/mountinfo",
    "/sys/fs/cgroup/",
    "/sys/devices/system/cpu/",
];

fn stable_kernel_file(path: &str) -> bool {
    STABLE_KERNEL_FILES.iter().any(|p| path.starts_with(p))
}

fn kernel_file(file: &FileSeen) -> String {
    format!(
        "the program read {}{}, which the kernel writes anew at each read",
        file.path,
        at(file.site)
    )
}

/// True if the file at `path` (relative to the working directory, as the
/// program opened it) was modified at or after `since`.
fn changed_since(path: &str, since: SystemTime) -> bool {
    std::fs::metadata(Path::new(path))
        .and_then(|m| m.modified())
        .is_ok_and(|modified| modified >= since)
}

#[cfg(test)]
mod tests {
    use super::*;
    use reach_channel::sources::SourceSeen;
    use std::time::Duration;

    fn seen(sources: &[(Source, u64)], files: &[&str]) -> Seen {
        Seen {
            sources: sources
                .iter()
                .map(|&(source, site)| SourceSeen {
                    source,
                    site,
                    step: 0,
                })
                .collect(),
            files: files
                .iter()
                .map(|p| FileSeen {
                    path: p.to_string(),
                    site: 0x10,
                    writes: false,
                    cut: false,
                })
                .collect(),
        }
    }

    #[test]
    fn random_bytes_come_before_threads_and_time() {
        let s = seen(
            &[
                (Source::CycleCounter, 3),
                (Source::ForeignThread, 0),
                (Source::DevUrandom, 0x1234),
            ],
            &[
                "/proc/loadavg",
                "/etc/hosts",
                "/proc/self/maps",
                "/sys/fs/cgroup/cpu.max",
            ],
        );
        let causes = likely(&s, false);
        assert_eq!(
            causes,
            vec![
                "the program read /dev/urandom (site 0x1234)".to_string(),
                describe(Source::ForeignThread, 0),
                "the program read the cycle counter (rdtsc) (site 0x3)".to_string(),
                "the program read /proc/loadavg (site 0x10), which the kernel writes anew at each read".to_string(),
            ]
        );
    }

    #[test]
    fn only_sources_used_before_the_step_explain_a_repeated_divergence() {
        let mut s = seen(
            &[
                (Source::Getrandom, 5),
                (Source::CycleCounter, 6),
                (Source::AddressRandomisation, 0),
            ],
            &["/proc/loadavg"],
        );
        s.sources[1].step = 40;
        assert_eq!(
            used_before(&s, 10),
            vec!["the program called getrandom (site 0x5)".to_string()]
        );
        assert_eq!(used_before(&s, 40).len(), 2);
    }

    #[test]
    fn address_randomisation_comes_first_when_the_runs_parted_at_an_address() {
        let s = seen(
            &[(Source::Getrandom, 5), (Source::AddressRandomisation, 0)],
            &[],
        );
        assert!(likely(&s, true)[0].starts_with("address randomisation is on"));
        assert!(likely(&s, false)[1].starts_with("address randomisation is on"));
    }

    #[test]
    fn a_sentence_names_one_cause_or_several_in_order() {
        assert_eq!(
            sentence(&["a".into()], Some("step 4")),
            "likely cause: a; where the runs parted: step 4"
        );
        assert_eq!(
            sentence(&["a".into(), "b".into()], None),
            "likely causes, most likely first: a; b"
        );
        assert_eq!(sentence(&[], Some("step 4")), "likely cause: step 4");
    }

    #[test]
    fn a_file_changed_since_the_start_is_evidence() {
        let dir = std::env::temp_dir().join(format!("reach-causes-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("scratch directory");
        let file = dir.join("state");
        std::fs::write(&file, "1").expect("write the file");
        let path = file.to_string_lossy().into_owned();
        let s = seen(&[(Source::Files, 0x10)], &[&path, "/proc/self/status"]);
        let before = SystemTime::now() - Duration::from_secs(3600);
        let after = SystemTime::now() + Duration::from_secs(3600);
        assert_eq!(
            changed_files(&s, before),
            vec![format!(
                "the file {path}, opened by the program (site 0x10), changed during the run"
            )]
        );
        assert!(changed_files(&s, after).is_empty());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
