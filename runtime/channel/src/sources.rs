//! Sources of nondeterminism the runtime saw during an execution: reads of
//! random bytes and of real time that bypass the virtual clock, threads the
//! runtime did not create, address randomisation, and the files the
//! program opened. Two runs of one schedule can part only through such a
//! source (or one the runtime cannot see); when they do, the driver names
//! what the runtime saw as the likely cause.
//!
//! The runtime notes each source once per execution with the site and the
//! step of its first use, in [`Sources`] in the channel header (reset by
//! the driver before every execution). Noting is cheap: a relaxed load of
//! [`Sources::seen`] when the source is already noted, one atomic `or`, a
//! store of its step and a compare-and-swap of its site otherwise; no
//! lock, allocation or system call.

use core::cell::UnsafeCell;
use core::sync::atomic::{AtomicU32, AtomicU64, Ordering};

/// A kind of source of nondeterminism. The values are bit numbers of
/// [`Sources::seen`], part of the channel layout.
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Source {
    /// `/dev/urandom` opened (`open`, `openat`, `fopen`...).
    DevUrandom = 0,
    /// `/dev/random` opened.
    DevRandom = 1,
    /// `getrandom` called (the C function or the system call).
    Getrandom = 2,
    /// `getentropy` called.
    Getentropy = 3,
    /// `arc4random`, `arc4random_buf` or `arc4random_uniform` called.
    Arc4random = 4,
    /// C++'s `std::random_device` read.
    RandomDevice = 5,
    /// A hardware random number instruction (`rdrand`, `rdseed`) in
    /// instrumented code.
    RandomInstruction = 6,
    /// The cycle counter read in instrumented code (`rdtsc`, `rdtscp`,
    /// `__builtin_readcyclecounter`).
    CycleCounter = 7,
    /// Real time read past the virtual clock: `timespec_get`, `ftime`, or
    /// the `clock_gettime`, `gettimeofday` or `time` system call made
    /// through `syscall`.
    RealTime = 8,
    /// Processor time read: `clock`, `times`, `getrusage`.
    ProcessorTime = 9,
    /// Code ran on a thread the runtime did not create (a thread of the C
    /// library or of a library that calls `clone` itself), unscheduled.
    ForeignThread = 10,
    /// A thread created with `clone` (the C function or the system call)
    /// instead of `pthread_create`: it runs unscheduled.
    RawClone = 11,
    /// The process runs with address randomisation (ASLR) on: the driver
    /// could not turn it off (a container's system-call filter forbids
    /// it), so addresses differ between processes.
    AddressRandomisation = 12,
    /// Files opened: see [`Sources::files`].
    Files = 13,
}

impl Source {
    /// Every source, in bit order.
    pub const ALL: [Source; 14] = [
        Source::DevUrandom,
        Source::DevRandom,
        Source::Getrandom,
        Source::Getentropy,
        Source::Arc4random,
        Source::RandomDevice,
        Source::RandomInstruction,
        Source::CycleCounter,
        Source::RealTime,
        Source::ProcessorTime,
        Source::ForeignThread,
        Source::RawClone,
        Source::AddressRandomisation,
        Source::Files,
    ];

    /// The source with bit number `code`, if any (untrusted input).
    pub fn from_u32(code: u32) -> Option<Source> {
        Source::ALL.into_iter().find(|s| *s as u32 == code)
    }

    /// This source's bit in [`Sources::seen`].
    pub const fn bit(self) -> u32 {
        1 << self as u32
    }
}

/// Most sources (bits of [`Sources::seen`]).
pub const MAX_SOURCES: usize = 32;
/// Most files an execution's [`Sources::files`] names.
pub const MAX_FILES: usize = 8;
/// Bytes of a file path kept (longer paths are cut, and flagged).
pub const FILE_PATH_BYTES: usize = 112;

/// Bit of [`FileRecord::flags`]: opened so that it can be written.
pub const FILE_WRITES: u32 = 1;
/// Bit of [`FileRecord::flags`]: the path was longer than
/// [`FILE_PATH_BYTES`] and is cut.
pub const FILE_PATH_CUT: u32 = 2;

/// A file the program opened during the execution.
#[repr(C)]
pub struct FileRecord {
    /// Site (or return address) of the call that opened it; 0 if unknown.
    pub site: AtomicU64,
    /// `FILE_*` bits.
    pub flags: AtomicU32,
    /// Bytes of `path` in use: written last, 0 while the record is being
    /// written.
    pub path_len: AtomicU32,
    /// The path as the program gave it (not NUL-terminated), written once
    /// by the thread that claimed the record.
    pub path: UnsafeCell<[u8; FILE_PATH_BYTES]>,
}

impl FileRecord {
    /// The path bytes, once the record is complete.
    fn path(&self) -> Option<&[u8]> {
        let len = (self.path_len.load(Ordering::Acquire) as usize).min(FILE_PATH_BYTES);
        // SAFETY: the bytes below a published `path_len` are written before
        // it (release) and never again.
        (len > 0).then(|| unsafe { &(&*self.path.get())[..len] })
    }
}

/// What the runtime saw of nondeterminism during one execution: a region
/// of the channel header ([`crate::Header::sources`]), all zero at the
/// start of an execution.
#[repr(C)]
pub struct Sources {
    /// [`Source::bit`]s of the sources seen.
    pub seen: AtomicU32,
    /// Records claimed in `files` (may exceed [`MAX_FILES`]: the extra
    /// claims found no room).
    pub file_count: AtomicU32,
    /// Per source, the site (or return address) of its first use; 0 if
    /// unknown.
    pub sites: [AtomicU64; MAX_SOURCES],
    /// Per source, the events recorded before its first use (the step it
    /// came before).
    pub steps: [AtomicU64; MAX_SOURCES],
    /// The first [`MAX_FILES`] distinct files opened.
    pub files: [FileRecord; MAX_FILES],
}

// SAFETY: every field is atomic except a record's path bytes, which only
// the thread that claimed the record writes, before it publishes their
// length with release ordering; readers read them after an acquire load.
unsafe impl Sync for Sources {}

impl Sources {
    /// Notes `source`, used at `site` (0: unknown; a later note with a
    /// site fills it in) before step `step`.
    #[inline]
    pub fn note(&self, source: Source, site: u64, step: u64) {
        let bit = source.bit();
        if self.seen.load(Ordering::Relaxed) & bit == 0
            && self.seen.fetch_or(bit, Ordering::Relaxed) & bit == 0
        {
            self.steps[source as usize].store(step, Ordering::Relaxed);
        }
        if site != 0 {
            let slot = &self.sites[source as usize];
            if slot.load(Ordering::Relaxed) == 0 {
                let _ = slot.compare_exchange(0, site, Ordering::Relaxed, Ordering::Relaxed);
            }
        }
    }

    /// True if `source` was noted.
    #[inline]
    pub fn noted(&self, source: Source) -> bool {
        self.seen.load(Ordering::Relaxed) & source.bit() != 0
    }

    /// True if a file opened at `path` would get a new record: it has
    /// none yet and there is room. A known file opened to write now gets
    /// its record's [`FILE_WRITES`] bit.
    pub fn has_room_for(&self, path: &[u8], writes: bool) -> bool {
        let kept = &path[..path.len().min(FILE_PATH_BYTES)];
        let claimed = (self.file_count.load(Ordering::Acquire) as usize).min(MAX_FILES);
        if let Some(known) = self.files[..claimed]
            .iter()
            .find(|f| f.path() == Some(kept))
        {
            if writes {
                known.flags.fetch_or(FILE_WRITES, Ordering::Relaxed);
            }
            return false;
        }
        claimed < MAX_FILES
    }

    /// Claims a record for a file opened at `site` and fills it, unless
    /// the path is recorded already or every record is taken. `writes`:
    /// opened so that it can be written (a record of the same path that
    /// only read becomes a writing one). Not for the hot path: it
    /// compares paths.
    pub fn note_file(&self, path: &[u8], writes: bool, site: u64, step: u64) {
        if !self.has_room_for(path, writes) {
            return;
        }
        let kept = &path[..path.len().min(FILE_PATH_BYTES)];
        let write_bit = if writes { FILE_WRITES } else { 0 };
        let at = self.file_count.fetch_add(1, Ordering::AcqRel) as usize;
        let Some(record) = self.files.get(at) else {
            self.file_count.store(MAX_FILES as u32, Ordering::Relaxed);
            return;
        };
        record.site.store(site, Ordering::Relaxed);
        let cut = if path.len() > FILE_PATH_BYTES {
            FILE_PATH_CUT
        } else {
            0
        };
        record.flags.store(write_bit | cut, Ordering::Relaxed);
        // SAFETY: this thread claimed record `at`; nobody else writes it,
        // and readers wait for its length.
        unsafe { (&mut *record.path.get())[..kept.len()].copy_from_slice(kept) };
        record.path_len.store(kept.len() as u32, Ordering::Release);
        self.note(Source::Files, site, step);
    }
}

/// One source as the driver read it: the source, the site of its first
/// use (0 if unknown) and the step that use came before.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SourceSeen {
    /// What.
    pub source: Source,
    /// Where it was first used.
    pub site: u64,
    /// Events recorded before it was first used.
    pub step: u64,
}

/// One file as the driver read it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FileSeen {
    /// The path as the program gave it (lossy UTF-8; cut if `cut`).
    pub path: String,
    /// Site (or return address) of the call that opened it; 0 if unknown.
    pub site: u64,
    /// Opened so that it can be written.
    pub writes: bool,
    /// The path was longer than [`FILE_PATH_BYTES`] and is cut.
    pub cut: bool,
}

/// What the runtime saw of nondeterminism in an execution (or the union
/// over several executions of one schedule), as the driver reads it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Seen {
    /// The sources, in [`Source`] order, each with its first site.
    pub sources: Vec<SourceSeen>,
    /// The files opened, in the order they were first opened.
    pub files: Vec<FileSeen>,
}

impl Seen {
    /// True if nothing was seen.
    pub fn is_empty(&self) -> bool {
        self.sources.is_empty() && self.files.is_empty()
    }

    /// The site where `source` was first used, if it was seen.
    pub fn site_of(&self, source: Source) -> Option<u64> {
        self.get(source).map(|s| s.site)
    }

    /// `source` as seen, if it was.
    pub fn get(&self, source: Source) -> Option<&SourceSeen> {
        self.sources.iter().find(|s| s.source == source)
    }

    /// Adds what `other` saw: sources and files not seen yet (a known
    /// source without a site takes `other`'s).
    pub fn merge(&mut self, other: &Seen) {
        for s in &other.sources {
            match self.sources.iter_mut().find(|m| m.source == s.source) {
                Some(mine) if mine.site == 0 => mine.site = s.site,
                Some(_) => {}
                None => self.sources.push(*s),
            }
        }
        self.sources.sort_by_key(|s| s.source);
        for f in &other.files {
            match self.files.iter_mut().find(|m| m.path == f.path) {
                Some(mine) => mine.writes |= f.writes,
                None => self.files.push(f.clone()),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn empty() -> Sources {
        // SAFETY: all-zero bytes are a valid `Sources` (atomics and
        // integers), as the driver's reset leaves them.
        unsafe { core::mem::zeroed() }
    }

    #[test]
    fn a_source_keeps_the_site_of_its_first_use() {
        let s = empty();
        s.note(Source::Getrandom, 0, 3);
        assert!(s.noted(Source::Getrandom));
        assert!(!s.noted(Source::DevUrandom));
        s.note(Source::Getrandom, 7, 4);
        s.note(Source::Getrandom, 9, 5);
        assert_eq!(
            s.sites[Source::Getrandom as usize].load(Ordering::Relaxed),
            7
        );
        assert_eq!(
            s.steps[Source::Getrandom as usize].load(Ordering::Relaxed),
            3
        );
    }

    #[test]
    fn files_are_recorded_once_each_up_to_the_capacity() {
        let s = empty();
        s.note_file(b"/etc/a", false, 1, 0);
        s.note_file(b"/etc/a", true, 2, 0);
        for i in 0..20u8 {
            s.note_file(&[b'/', b'f', b'0' + i], false, 3, 0);
        }
        assert_eq!(s.file_count.load(Ordering::Relaxed) as usize, MAX_FILES);
        assert_eq!(s.files[0].path(), Some(&b"/etc/a"[..]));
        assert_eq!(s.files[0].flags.load(Ordering::Relaxed), FILE_WRITES);
        assert_eq!(s.files[0].site.load(Ordering::Relaxed), 1);
        assert_eq!(s.files[1].path(), Some(&b"/f0"[..]));
        assert!(s.noted(Source::Files));
        let long = [b'x'; FILE_PATH_BYTES + 5];
        let t = empty();
        t.note_file(&long, false, 4, 0);
        assert_eq!(
            t.files[0].path_len.load(Ordering::Relaxed) as usize,
            FILE_PATH_BYTES
        );
        assert_eq!(t.files[0].flags.load(Ordering::Relaxed), FILE_PATH_CUT);
    }

    #[test]
    fn merging_keeps_one_entry_per_source_and_file() {
        let mut a = Seen {
            sources: vec![SourceSeen {
                source: Source::Getrandom,
                site: 0,
                step: 1,
            }],
            files: vec![],
        };
        let b = Seen {
            sources: vec![
                SourceSeen {
                    source: Source::DevUrandom,
                    site: 5,
                    step: 2,
                },
                SourceSeen {
                    source: Source::Getrandom,
                    site: 6,
                    step: 3,
                },
            ],
            files: vec![FileSeen {
                path: "/tmp/x".into(),
                site: 1,
                writes: true,
                cut: false,
            }],
        };
        a.merge(&b);
        a.merge(&b);
        assert_eq!(a.sources.len(), 2);
        assert_eq!(a.sources[0].source, Source::DevUrandom);
        assert_eq!(a.site_of(Source::Getrandom), Some(6));
        assert_eq!(a.get(Source::Getrandom).map(|s| s.step), Some(1));
        assert_eq!(a.files.len(), 1);
    }
}
