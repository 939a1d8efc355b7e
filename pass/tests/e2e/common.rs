//! Shared helpers: locating binaries, running commands, reading site tables.

use reach_channel::sites::{parse_table, Site};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The directory holding the release binaries.
pub fn bin_dir() -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let workspace = manifest.parent().expect("workspace root");
    let target = match std::env::var_os("CARGO_TARGET_DIR") {
        Some(t) => {
            let t = PathBuf::from(t);
            if t.is_absolute() {
                t
            } else {
                workspace.join(t)
            }
        }
        None => workspace.join("target"),
    };
    target.join("release")
}

/// Path of a release binary of this crate; panics with a hint if missing.
pub fn bin(name: &str) -> PathBuf {
    let p = bin_dir().join(name);
    assert!(
        p.is_file(),
        "{} is missing: run `cargo build --release --workspace` before the tests",
        p.display()
    );
    p
}

/// A `reach-c++` symlink to `reach-cc` inside `dir` (how the install names the C++ wrapper).
pub fn cxx_symlink(dir: &Path) -> PathBuf {
    let link = dir.join("reach-c++");
    if !link.exists() {
        std::os::unix::fs::symlink(bin("reach-cc"), &link).expect("symlink reach-c++");
    }
    link
}

/// A fresh temporary directory.
pub fn tempdir() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("reach-pass-test.")
        .tempdir()
        .expect("tempdir")
}

/// Runs a command in `dir`, returning its output.
pub fn run_in(dir: &Path, program: impl AsRef<std::ffi::OsStr>, args: &[&str]) -> Output {
    let program = program.as_ref();
    Command::new(program)
        .args(args)
        .current_dir(dir)
        .env_remove("REACH_CLANG")
        .env_remove("REACH_INSTRUMENT")
        .output()
        .unwrap_or_else(|e| panic!("cannot run {program:?}: {e}"))
}

/// Runs a command in `dir` and asserts it succeeds; returns stdout.
pub fn ok_in(dir: &Path, program: impl AsRef<std::ffi::OsStr>, args: &[&str]) -> String {
    let program = program.as_ref().to_owned();
    let out = run_in(dir, &program, args);
    assert!(
        out.status.success(),
        "{program:?} {args:?} failed with {}\nstdout:\n{}\nstderr:\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The site table of an ELF file (`None` if it has no `reach_sites` section).
pub fn site_table(path: &Path) -> Option<Vec<Site>> {
    let bytes = std::fs::read(path).expect("read ELF");
    let elf = goblin::elf::Elf::parse(&bytes).expect("parse ELF");
    let section = elf.section_headers.iter().find(|sh| {
        elf.shdr_strtab.get_at(sh.sh_name) == Some(reach_channel::hooks::SITES_SECTION)
    })?;
    let start = section.sh_offset as usize;
    let data = &bytes[start..start + section.sh_size as usize];
    Some(parse_table(&String::from_utf8_lossy(data)))
}

/// The 1-based line of the first line of `source` containing `marker`.
pub fn line_of(source: &str, marker: &str) -> u32 {
    source
        .lines()
        .position(|l| l.contains(marker))
        .map(|i| i as u32 + 1)
        .unwrap_or_else(|| panic!("marker {marker} not in source"))
}

/// Textual IR of a bitcode file.
pub fn disassemble(bc: &Path) -> String {
    ok_in(
        bc.parent().expect("dir"),
        "llvm-dis-22",
        &[bc.to_str().expect("utf8"), "-o", "-"],
    )
}

/// The text of the definition of `@name` in textual IR.
pub fn function_body<'a>(ir: &'a str, name: &str) -> &'a str {
    let head = format!("@{name}(");
    let start = ir
        .lines()
        .scan(0usize, |off, l| {
            let here = *off;
            *off += l.len() + 1;
            Some((here, l))
        })
        .find(|(_, l)| l.starts_with("define") && l.contains(&head))
        .map(|(o, _)| o)
        .unwrap_or_else(|| panic!("no definition of {name}"));
    let end = ir[start..]
        .find("\n}")
        .map(|e| start + e)
        .unwrap_or(ir.len());
    &ir[start..end]
}
