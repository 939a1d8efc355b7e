//! Inspection of the program under test before running it: is it an ELF
//! executable we can preload into, is it instrumented, and its site table.

use goblin::elf::Elf;
use reach_channel::hooks::SITES_SECTION;
use reach_channel::sites::{parse_table, Site};
use std::collections::HashMap;
use std::path::Path;
use thiserror::Error;

/// Why a program cannot be tested.
#[derive(Debug, Error)]
pub enum BinaryError {
    /// The file could not be read.
    #[error("cannot read {path}: {source}")]
    Read {
        /// The program path.
        path: String,
        /// The I/O error.
        source: std::io::Error,
    },
    /// Not an ELF file.
    #[error("{0} is not an ELF executable (build it with reach-cc, or pass the compiled program)")]
    NotElf(String),
    /// A static executable: `LD_PRELOAD` cannot reach it.
    #[error("{0} is statically linked: the runtime cannot be preloaded; link it dynamically (reach-cc does)")]
    Static(String),
}

/// What the driver knows about the program binary.
pub struct Binary {
    /// True if the pass instrumented it (the site table section is present).
    pub instrumented: bool,
    /// Site id → source location.
    pub sites: HashMap<u64, Site>,
}

impl Binary {
    /// Reads and checks the ELF file at `path`.
    pub fn inspect(path: &Path) -> Result<Binary, BinaryError> {
        let shown = path.display().to_string();
        let bytes = std::fs::read(path).map_err(|source| BinaryError::Read {
            path: shown.clone(),
            source,
        })?;
        let elf = Elf::parse(&bytes).map_err(|_| BinaryError::NotElf(shown.clone()))?;
        if elf.interpreter.is_none() && elf.dynamic.is_none() {
            return Err(BinaryError::Static(shown));
        }
        let section = elf
            .section_headers
            .iter()
            .find(|sh| elf.shdr_strtab.get_at(sh.sh_name) == Some(SITES_SECTION));
        let (instrumented, sites) = match section {
            Some(sh) => {
                let start = sh.sh_offset as usize;
                let end = start.saturating_add(sh.sh_size as usize).min(bytes.len());
                let text = String::from_utf8_lossy(bytes.get(start..end).unwrap_or_default());
                let sites = parse_table(&text).into_iter().map(|s| (s.id, s)).collect();
                (true, sites)
            }
            None => (false, HashMap::new()),
        };
        Ok(Binary {
            instrumented,
            sites,
        })
    }

    /// `file:line:col (function)` for a site id, if known.
    pub fn location(&self, site: u64) -> Option<String> {
        let s = self.sites.get(&site)?;
        let mut text = format!("{} ({})", s.location(), s.function);
        for caller in &s.inlined_at {
            text.push_str(&format!(" inlined at {caller}"));
        }
        Some(text)
    }
}
