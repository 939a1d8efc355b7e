//! Inspection of the program under test before running it: is it an ELF
//! executable we can preload into, is it instrumented, and its site table.

use goblin::elf::Elf;
use reach_channel::hooks::{ABI_VERSION, SITES_SECTION};
use reach_channel::sites::{abi_versions, parse_table, Site};
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
    /// Instrumented for another version of the hook ABI: its hooks would
    /// pass the runtime other arguments than it reads.
    #[error("{path} was instrumented for hook ABI version {found}, this reach-native speaks version {expected}; rebuild it with this reach-cc")]
    HookAbi {
        /// The program path.
        path: String,
        /// A version the program's site table states (1 if none).
        found: u32,
        /// [`reach_channel::hooks::ABI_VERSION`].
        expected: u32,
    },
}

/// What the driver knows about the program binary.
pub struct Binary {
    /// True if the pass instrumented it (the site table section is present).
    pub instrumented: bool,
    /// Site id → source location.
    pub sites: HashMap<u64, Site>,
    /// The file it was read from (none for a binary built in memory).
    pub path: Option<std::path::PathBuf>,
}

/// Every module's table must state the current hook ABI version; a table
/// stating none was written before versions were recorded (version 1).
fn check_abi(path: &str, table: &str) -> Result<(), BinaryError> {
    let versions = abi_versions(table);
    let found = if versions.is_empty() {
        Some(1)
    } else {
        versions.into_iter().find(|v| *v != ABI_VERSION)
    };
    match found {
        Some(found) => Err(BinaryError::HookAbi {
            path: path.to_string(),
            found,
            expected: ABI_VERSION,
        }),
        None => Ok(()),
    }
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
                check_abi(&shown, &text)?;
                let sites = parse_table(&text).into_iter().map(|s| (s.id, s)).collect();
                (true, sites)
            }
            None => (false, HashMap::new()),
        };
        Ok(Binary {
            instrumented,
            sites,
            path: Some(path.to_path_buf()),
        })
    }

    /// True if the binary was built with the shadow computations of
    /// concolic testing (its site table has the marker the pass adds).
    pub fn traced(&self) -> bool {
        self.sites
            .values()
            .any(|s| s.what == reach_channel::sites::SHADOW_MARKER)
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

/// Names whose presence in a binary's symbols shows it reads program
/// inputs: the functions of `reach.h` and the runtime's entry points they
/// call.
const INPUT_SYMBOLS: [&str; 6] = [
    "reach_input_int",
    "reach_input_bytes",
    "reach_assume",
    "__reach_input_int",
    "__reach_input_bytes",
    "__reach_assume",
];

/// True if the ELF file at `path` refers to or defines a function that
/// reads program inputs (`reach_input_int`, `reach_input_bytes`,
/// `reach_assume`, or the runtime's entry points behind them); false for
/// a file that cannot be read or parsed.
pub fn reads_inputs(path: &Path) -> bool {
    let Ok(bytes) = std::fs::read(path) else {
        return false;
    };
    let Ok(elf) = Elf::parse(&bytes) else {
        return false;
    };
    let named = |strtab: &goblin::strtab::Strtab, name: usize| {
        strtab
            .get_at(name)
            .is_some_and(|n| INPUT_SYMBOLS.contains(&n))
    };
    elf.syms.iter().any(|s| named(&elf.strtab, s.st_name))
        || elf.dynsyms.iter().any(|s| named(&elf.dynstrtab, s.st_name))
}
