//! The schedule file: one versioned, serialisable artefact for the prefix the
//! driver sends, the interleaving printed on a bug, and `--replay`'s input.

use serde::{Deserialize, Serialize};
use std::path::Path;
use thiserror::Error;

/// Format tag of schedule files.
pub const FORMAT: &str = "reach-schedule";
/// Current schedule file version.
pub const VERSION: u32 = 1;

/// One step of a recorded interleaving, for the replay check.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StepRecord {
    /// Thread that ran.
    pub thread: u32,
    /// Operation name (`LOAD`, `M_LOCK`, ...).
    pub op: String,
    /// Object (address or thread id).
    pub object: u64,
}

/// A schedule file.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ScheduleFile {
    /// Always [`FORMAT`].
    pub format: String,
    /// [`VERSION`].
    pub version: u32,
    /// Program it was recorded on (for the user's information).
    pub program: String,
    /// Program arguments it was recorded with.
    pub args: Vec<String>,
    /// The thread chosen at each scheduling point.
    pub schedule: Vec<u32>,
    /// The steps the recorded execution performed.
    pub steps: Vec<StepRecord>,
    /// Bug kind found by the recorded execution, if any.
    pub bug: Option<String>,
}

/// Errors reading a schedule file.
#[derive(Debug, Error)]
pub enum ScheduleError {
    /// I/O error.
    #[error("cannot read schedule file {0}: {1}")]
    Io(String, std::io::Error),
    /// Not valid JSON of the expected shape.
    #[error("{0} is not a reach-native schedule file: {1}")]
    Parse(String, serde_json::Error),
    /// Another format or version.
    #[error("{0} has format {1} version {2}; this reach-native reads {FORMAT} version {VERSION}")]
    Version(String, String, u32),
}

impl ScheduleFile {
    /// Reads and validates a schedule file.
    pub fn read(path: &Path) -> Result<ScheduleFile, ScheduleError> {
        let shown = path.display().to_string();
        let text =
            std::fs::read_to_string(path).map_err(|e| ScheduleError::Io(shown.clone(), e))?;
        let file: ScheduleFile =
            serde_json::from_str(&text).map_err(|e| ScheduleError::Parse(shown.clone(), e))?;
        if file.format != FORMAT || file.version != VERSION {
            return Err(ScheduleError::Version(shown, file.format, file.version));
        }
        Ok(file)
    }

    /// Writes the file as pretty JSON.
    pub fn write(&self, path: &Path) -> std::io::Result<()> {
        let text = serde_json::to_string_pretty(self).map_err(std::io::Error::other)?;
        std::fs::write(path, text + "\n")
    }
}
