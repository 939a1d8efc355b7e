//! What the program left in the working directory: a snapshot of the
//! directory's entries (size, modification time, inode) taken when the run
//! starts, compared with the directory when it ends. A file that a run
//! without `--isolate-files` created, changed or removed means that later
//! executions may have started from other files than earlier ones: the
//! search is then not complete, and a nondeterminism report names the files.

use std::collections::{HashMap, VecDeque};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// Entries looked at, breadth first (the top level first): a larger
/// directory is compared in its first this many entries only. Each entry
/// costs a `stat` twice per run: 20,000 made a run started in a source
/// tree with a build directory take 0.6 s longer.
const MAX_ENTRIES: usize = 5_000;

/// What identifies an entry's state: directory or not, size, modification
/// time (seconds and nanoseconds) and inode.
type State = (bool, u64, i64, i64, u64);

/// The entries of a directory tree when the snapshot was taken.
#[derive(Debug)]
pub struct DirSnapshot {
    root: PathBuf,
    /// By path relative to the root; hashed, as ordering paths compares
    /// them component by component (a sorted map made that the larger
    /// part of a walk's cost).
    entries: HashMap<PathBuf, State>,
}

impl DirSnapshot {
    /// Takes the snapshot of `root` (an empty one if it cannot be read).
    pub fn take(root: &Path) -> DirSnapshot {
        DirSnapshot {
            root: root.to_path_buf(),
            entries: walk(root),
        }
    }

    /// The entries (relative to the root) created, changed or removed since
    /// the snapshot, sorted; a directory's own time is not compared, only
    /// whether it is there.
    pub fn changes(&self) -> Vec<PathBuf> {
        let now = walk(&self.root);
        let mut changed: Vec<PathBuf> = self
            .entries
            .iter()
            .filter(|(path, before)| match now.get(*path) {
                None => true,
                Some(after) if before.0 && after.0 => false,
                Some(after) => after != *before,
            })
            .map(|(path, _)| path.clone())
            .collect();
        // New entries (only if the walk was not cut short before them).
        if now.len() < MAX_ENTRIES {
            changed.extend(
                now.keys()
                    .filter(|p| !self.entries.contains_key(*p))
                    .cloned(),
            );
        }
        changed.sort();
        changed
    }
}

/// The entries under `root`, breadth first, at most [`MAX_ENTRIES`];
/// symbolic links are not followed, nor mount points of other file systems.
fn walk(root: &Path) -> HashMap<PathBuf, State> {
    let mut entries = HashMap::new();
    // Other file systems (`/proc`, `/sys`, tmpfs mounts) are not entered.
    let Ok(device) = std::fs::metadata(root).map(|m| m.dev()) else {
        return entries;
    };
    let mut queue = VecDeque::from([PathBuf::new()]);
    while let Some(rel) = queue.pop_front() {
        let Ok(list) = std::fs::read_dir(root.join(&rel)) else {
            continue;
        };
        for entry in list.flatten() {
            if entries.len() >= MAX_ENTRIES {
                return entries;
            }
            let path = rel.join(entry.file_name());
            if written_by_the_tool(&path) {
                continue;
            }
            let Ok(meta) = entry.metadata() else {
                continue;
            };
            let dir = meta.is_dir();
            entries.insert(
                path.clone(),
                (dir, meta.len(), meta.mtime(), meta.mtime_nsec(), meta.ino()),
            );
            if dir && meta.dev() == device {
                queue.push_back(path);
            }
        }
    }
    entries
}

/// Files reach-native itself writes beside the program: schedule files
/// (`*.schedule`, `reach-native-schedules/` of a test suite's cases). They
/// are not the program's, and a search running beside another (a test
/// suite's cases with `--jobs`) must not count the other's.
fn written_by_the_tool(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "schedule") || path.starts_with("reach-native-schedules")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn created_changed_and_removed_entries_are_listed() {
        let dir = std::env::temp_dir().join(format!("reach-watch-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("sub")).expect("create");
        std::fs::write(dir.join("kept"), "a").expect("write");
        std::fs::write(dir.join("sub/log"), "a").expect("write");
        std::fs::write(dir.join("gone"), "a").expect("write");
        let snapshot = DirSnapshot::take(&dir);
        assert!(snapshot.changes().is_empty());
        std::fs::write(dir.join("sub/log"), "ab").expect("append");
        std::fs::remove_file(dir.join("gone")).expect("remove");
        std::fs::write(dir.join("new"), "").expect("create");
        assert_eq!(
            snapshot.changes(),
            ["gone", "new", "sub/log"].map(PathBuf::from).to_vec()
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
