//! The site table: maps site ids carried by hooks to source locations.
//!
//! Each instrumented module contributes text records to the ELF section
//! [`crate::hooks::SITES_SECTION`]; the linker concatenates them. One record
//! per line, tab-separated:
//!
//! ```text
//! <site id, 16 hex digits> \t <what> \t <file> \t <line> \t <column> \t <function> \t <inlined-at>
//! ```
//!
//! `what` is a short description (`load`, `store`, `call pthread_mutex_lock`...).
//! `inlined-at` is empty, or a `;`-separated chain of `function@file:line:column`
//! from the innermost caller outwards. Tabs and newlines never occur inside a
//! field (writers replace them with spaces).
//!
//! Site ids are `hash(module source path) << 32 | ordinal-in-module`, so they
//! are stable across builds of the same source and distinct across modules.
//!
//! Each module's table starts with one more line, [`abi_record`], stating the
//! hook ABI version the module was instrumented for
//! ([`crate::hooks::ABI_VERSION`]); [`parse_table`] skips it and
//! [`abi_versions`] reads it.

/// A source location of one site.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Site {
    /// Site id.
    pub id: u64,
    /// What the instrumented instruction is.
    pub what: String,
    /// Source file.
    pub file: String,
    /// 1-based line (0 if unknown).
    pub line: u32,
    /// 1-based column (0 if unknown).
    pub column: u32,
    /// Enclosing function (demangled when possible).
    pub function: String,
    /// Inlined-at chain, innermost first.
    pub inlined_at: Vec<String>,
}

impl Site {
    /// Formats this site as one table record (with trailing newline).
    pub fn to_record(&self) -> String {
        let clean = |s: &str| s.replace(['\t', '\n'], " ");
        format!(
            "{:016x}\t{}\t{}\t{}\t{}\t{}\t{}\n",
            self.id,
            clean(&self.what),
            clean(&self.file),
            self.line,
            self.column,
            clean(&self.function),
            self.inlined_at
                .iter()
                .map(|s| clean(s).replace(';', ","))
                .collect::<Vec<_>>()
                .join(";")
        )
    }

    /// `file:line:column`.
    pub fn location(&self) -> String {
        format!("{}:{}:{}", self.file, self.line, self.column)
    }
}

/// Stable 32-bit hash of a module's source path (FNV-1a), the high half of its site ids.
pub fn module_hash(path: &str) -> u32 {
    let mut h: u32 = 0x811c_9dc5;
    for b in path.bytes() {
        h ^= u32::from(b);
        h = h.wrapping_mul(0x0100_0193);
    }
    h
}

/// Site id of the `ordinal`-th site of the module with source path `path`.
pub fn site_id(path: &str, ordinal: u32) -> u64 {
    (u64::from(module_hash(path)) << 32) | u64::from(ordinal)
}

/// Where the sources of Rust's standard library lie, as its debug
/// information names them: the toolchain's remapped paths
/// (`/rustc/<commit>/library/core/src/...`, std's own dependencies under
/// `/rust/deps/`), or a `library/{core,alloc,std}/src` directory of a
/// toolchain's source tree (a local build, `rust-src`).
const LIBRARY_SOURCE_DIRS: &[&str] = &[
    "/library/core/src/",
    "/library/alloc/src/",
    "/library/std/src/",
];

/// True if `path` (a source file as debug information names it) is one of
/// the Rust standard library's sources: a step there is shown at the
/// nearest caller in the program's own code.
pub fn is_library_source(path: &str) -> bool {
    path.starts_with("/rustc/")
        || path.starts_with("/rust/deps/")
        || LIBRARY_SOURCE_DIRS.iter().any(|d| path.contains(d))
}

/// `what` of the site a module built with `REACH_SYMBOLIC=1` carries once:
/// its data flow into branch conditions is traced.
pub const SHADOW_MARKER: &str = "shadow";

/// Start of the record that states a module's hook ABI version.
pub const ABI_PREFIX: &str = "#reach-hook-abi\t";

/// The record stating the hook ABI version of this build (with trailing
/// newline), the first line of every module's table.
pub fn abi_record() -> String {
    format!("{ABI_PREFIX}{}\n", crate::hooks::ABI_VERSION)
}

/// The hook ABI versions stated in a site table, one per module that states
/// one (a malformed version reads as 0). Tables written before versions
/// were recorded state none: they are version 1.
pub fn abi_versions(text: &str) -> Vec<u32> {
    text.split(['\n', '\0'])
        .filter_map(|line| line.strip_prefix(ABI_PREFIX))
        .map(|v| v.trim().parse().unwrap_or(0))
        .collect()
}

/// Parses a site table; malformed lines (and NUL padding between modules) are skipped.
pub fn parse_table(text: &str) -> Vec<Site> {
    text.split(['\n', '\0'])
        .filter_map(|line| {
            let mut f = line.split('\t');
            let id = u64::from_str_radix(f.next()?, 16).ok()?;
            let what = f.next()?.to_string();
            let file = f.next()?.to_string();
            let line_no = f.next()?.parse().ok()?;
            let column = f.next()?.parse().ok()?;
            let function = f.next()?.to_string();
            let inlined_at = f
                .next()
                .unwrap_or("")
                .split(';')
                .filter(|s| !s.is_empty())
                .map(str::to_string)
                .collect();
            Some(Site {
                id,
                what,
                file,
                line: line_no,
                column,
                function,
                inlined_at,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_round_trip() {
        let site = Site {
            id: site_id("a.c", 7),
            what: "store".into(),
            file: "dir/a.c".into(),
            line: 12,
            column: 5,
            function: "worker".into(),
            inlined_at: vec!["main@a.c:30:3".into()],
        };
        let text = format!(
            "{}{}\0\0{}{}",
            abi_record(),
            site.to_record(),
            abi_record(),
            "garbage line\n"
        );
        assert_eq!(parse_table(&text), vec![site.clone()]);
        assert_eq!(
            abi_versions(&text),
            vec![crate::hooks::ABI_VERSION, crate::hooks::ABI_VERSION]
        );
        assert_eq!(abi_versions("#reach-hook-abi\tx\n"), vec![0]);
        assert!(abi_versions(&site.to_record()).is_empty());
    }

    #[test]
    fn the_standard_librarys_sources_are_recognised_by_path() {
        for path in [
            "/rustc/59807616e1fa2540724bfbac14d7976d7e4a3860/library/core/src/sync/atomic.rs",
            "/rustc/59807616e1fa2540724bfbac14d7976d7e4a3860/library/std/src/sys/alloc/unix.rs",
            "/rust/deps/hashbrown-0.15.2/src/raw/mod.rs",
            "/home/u/.rustup/toolchains/nightly/lib/rustlib/src/rust/library/alloc/src/sync.rs",
        ] {
            assert!(is_library_source(path), "{path}");
        }
        for path in [
            "/src/app/src/main.rs",
            "src/lib.rs",
            "/home/u/.cargo/registry/src/index/lock_api-0.4.12/src/mutex.rs",
            "/src/library/src/lib.rs",
            "",
        ] {
            assert!(!is_library_source(path), "{path}");
        }
    }

    #[test]
    fn ids_are_stable_and_module_specific() {
        assert_eq!(site_id("x.c", 1), site_id("x.c", 1));
        assert_ne!(site_id("x.c", 1), site_id("y.c", 1));
    }
}
