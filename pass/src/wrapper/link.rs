//! The link mode of `reach-rustc`: rustc, given `-C linker-plugin-lto`,
//! calls it as its linker with a `cc` command line whose crate objects and
//! rlib members are LLVM bitcode.
//!
//! ```text
//! main.cgu.0.rcgu.o (bitcode)   -> reach-instrument -> clang -c -x ir -> T/0-main.cgu.0.rcgu.o
//! libdep-HASH.rlib (bitcode members)
//!                               -> each member as above, others kept  -> T/1-libdep-HASH.rlib (llvm-ar)
//! -Wl,-plugin-opt=O2,...        -> dropped (the optimisation level is used for code generation)
//! cc <arguments, inputs replaced> (the real linker: `cc`, or rustc's -C linker)
//! ```
//!
//! Native inputs (the standard library's rlibs, `symbols.o`) are passed on
//! unchanged. Code generation uses the optimisation level rustc asked the
//! linker plugin for, without the optimisation pipeline (rustc already
//! optimised the bitcode; `reach-instrument` inlined its guards), as
//! `reach-cc` does.

use super::plan::Step;
use super::run::{RunError, Tools};
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

/// Magic of a raw LLVM bitcode file.
pub const BITCODE_MAGIC: &[u8; 4] = b"BC\xC0\xDE";
const AR_MAGIC: &[u8; 8] = b"!<arch>\n";

/// Why a link failed.
#[derive(Debug, thiserror::Error)]
pub enum LinkError {
    /// Reading or writing an input or a temporary file failed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The error.
        source: std::io::Error,
    },
    /// An archive is malformed.
    #[error("{0}: not a valid archive")]
    BadArchive(String),
    /// A tool failed.
    #[error(transparent)]
    Run(#[from] RunError),
}

impl LinkError {
    fn io(path: &Path, source: std::io::Error) -> LinkError {
        LinkError::Io {
            path: path.display().to_string(),
            source,
        }
    }

    /// Exit status the linker should end with.
    pub fn exit_code(&self) -> i32 {
        match self {
            LinkError::Run(e) => e.exit_code(),
            _ => 1,
        }
    }
}

/// What kind of input a linker argument names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InputKind {
    /// LLVM bitcode.
    Bitcode,
    /// An `ar` archive with at least one bitcode member.
    BitcodeArchive,
    /// Anything else (passed on).
    Other,
}

fn magic_of(f: &mut std::fs::File) -> std::io::Result<[u8; 8]> {
    let mut buf = [0u8; 8];
    let mut got = 0;
    while got < 8 {
        let n = f.read(&mut buf[got..])?;
        if n == 0 {
            break;
        }
        got += n;
    }
    Ok(buf)
}

/// One member's header fields that matter: its raw name and data extent.
struct MemberHeader {
    name: String,
    offset: u64,
    size: u64,
}

fn parse_header(h: &[u8; 60], offset: u64) -> Option<MemberHeader> {
    if &h[58..60] != b"`\n" {
        return None;
    }
    let name = String::from_utf8_lossy(&h[0..16]).trim_end().to_string();
    let size = std::str::from_utf8(&h[48..58]).ok()?.trim().parse().ok()?;
    Some(MemberHeader {
        name,
        offset: offset + 60,
        size,
    })
}

/// The headers of an archive's members, read by seeking (the data is not read).
fn member_headers(f: &mut std::fs::File, path: &Path) -> Result<Vec<MemberHeader>, LinkError> {
    let len = f.metadata().map_err(|e| LinkError::io(path, e))?.len();
    let mut out = Vec::new();
    let mut pos = 8u64;
    while pos + 60 <= len {
        f.seek(SeekFrom::Start(pos))
            .map_err(|e| LinkError::io(path, e))?;
        let mut h = [0u8; 60];
        f.read_exact(&mut h).map_err(|e| LinkError::io(path, e))?;
        let m = parse_header(&h, pos)
            .ok_or_else(|| LinkError::BadArchive(path.display().to_string()))?;
        pos = m.offset + m.size + (m.size & 1);
        out.push(m);
    }
    Ok(out)
}

/// Classifies `path` by its contents (a missing or unreadable file is `Other`).
pub fn classify(path: &Path) -> InputKind {
    let Ok(mut f) = std::fs::File::open(path) else {
        return InputKind::Other;
    };
    let Ok(magic) = magic_of(&mut f) else {
        return InputKind::Other;
    };
    if magic.starts_with(BITCODE_MAGIC) {
        return InputKind::Bitcode;
    }
    if &magic != AR_MAGIC {
        return InputKind::Other;
    }
    let Ok(headers) = member_headers(&mut f, path) else {
        return InputKind::Other;
    };
    for m in headers {
        if m.name.starts_with('/') && (m.name == "/" || m.name == "//" || m.name == "/SYM64/") {
            continue;
        }
        let mut b = [0u8; 4];
        if f.seek(SeekFrom::Start(m.offset)).is_ok()
            && m.size >= 4
            && f.read_exact(&mut b).is_ok()
            && &b == BITCODE_MAGIC
        {
            return InputKind::BitcodeArchive;
        }
    }
    InputKind::Other
}

/// An archive's members (symbol table and name table excluded) with their
/// names resolved and their data.
pub fn read_members(path: &Path) -> Result<Vec<(String, Vec<u8>)>, LinkError> {
    let data = std::fs::read(path).map_err(|e| LinkError::io(path, e))?;
    let bad = || LinkError::BadArchive(path.display().to_string());
    if !data.starts_with(AR_MAGIC) {
        return Err(bad());
    }
    let mut pos = 8usize;
    let mut long_names: &[u8] = &[];
    let mut out = Vec::new();
    while pos + 60 <= data.len() {
        let h: &[u8; 60] = data[pos..pos + 60].try_into().map_err(|_| bad())?;
        let m = parse_header(h, pos as u64).ok_or_else(bad)?;
        let start = m.offset as usize;
        let end = start.checked_add(m.size as usize).ok_or_else(bad)?;
        let body = data.get(start..end).ok_or_else(bad)?;
        pos = end + (end & 1);
        let name = if m.name == "//" {
            long_names = body;
            continue;
        } else if m.name == "/" || m.name == "/SYM64/" {
            continue;
        } else if let Some(off) = m.name.strip_prefix('/') {
            let off: usize = off.trim().parse().map_err(|_| bad())?;
            let rest = long_names.get(off..).ok_or_else(bad)?;
            let n = rest.iter().position(|b| *b == b'\n').unwrap_or(rest.len());
            String::from_utf8_lossy(&rest[..n])
                .trim_end_matches('/')
                .to_string()
        } else {
            m.name.trim_end_matches('/').to_string()
        };
        out.push((name, body.to_vec()));
    }
    Ok(out)
}

/// The optimisation level rustc asked the linker plugin for (`-plugin-opt=O<n>`).
fn plugin_opt_level(args: &[String]) -> Option<String> {
    args.iter()
        .filter_map(|a| a.strip_prefix("-Wl,"))
        .flat_map(|a| a.split(','))
        .filter_map(|p| p.strip_prefix("-plugin-opt=O"))
        .next_back()
        .map(str::to_string)
}

/// `args` without the linker-plugin options (no plugin is loaded).
fn without_plugin_opts(args: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    for a in args {
        match a.strip_prefix("-Wl,") {
            Some(rest) => {
                let kept: Vec<&str> = rest
                    .split(',')
                    .filter(|p| !p.starts_with("-plugin-opt="))
                    .collect();
                if !kept.is_empty() {
                    out.push(format!("-Wl,{}", kept.join(",")));
                }
            }
            None => out.push(a.clone()),
        }
    }
    out
}

struct Linker<'a> {
    tools: &'a Tools,
    tmp: &'a Path,
    opt: String,
    count: usize,
}

impl Linker<'_> {
    /// Instruments and compiles bitcode `input` to a new object in the
    /// temporary directory named after `name`.
    fn compile(&mut self, input: &Path, name: &str) -> Result<PathBuf, LinkError> {
        let n = self.count;
        self.count += 1;
        let base = self.tmp.join(format!("{n}-{name}"));
        let inst = base.with_extension("inst.bc");
        let object = self.tmp.join(format!("{n}-{name}.o"));
        self.tools.run(&Step::Instrument {
            input: input.to_path_buf(),
            output: inst.clone(),
        })?;
        self.tools.run(&Step::Clang(vec![
            format!("-O{}", self.opt),
            "-Qunused-arguments".to_string(),
            "-Wno-override-module".to_string(),
            "-fPIC".to_string(),
            "-c".to_string(),
            "-x".to_string(),
            "ir".to_string(),
            "-Xclang".to_string(),
            "-disable-llvm-passes".to_string(),
            inst.to_string_lossy().into_owned(),
            "-o".to_string(),
            object.to_string_lossy().into_owned(),
        ]))?;
        Ok(object)
    }

    /// A copy of archive `path` whose bitcode members are compiled objects.
    fn archive(&mut self, path: &Path, llvm_ar: &Path) -> Result<PathBuf, LinkError> {
        let n = self.count;
        self.count += 1;
        let file_name = path
            .file_name()
            .map(|f| f.to_string_lossy().into_owned())
            .unwrap_or_else(|| "lib.a".to_string());
        let dir = self.tmp.join(format!("{n}-members"));
        std::fs::create_dir_all(&dir).map_err(|e| LinkError::io(&dir, e))?;
        let mut members = Vec::new();
        for (i, (name, data)) in read_members(path)?.into_iter().enumerate() {
            // Distinct names in order: archives may repeat a member name.
            let file = dir.join(format!("{i}-{}", sanitize(&name)));
            std::fs::write(&file, &data).map_err(|e| LinkError::io(&file, e))?;
            if data.starts_with(BITCODE_MAGIC) {
                members.push(self.compile(&file, &sanitize(&name))?);
            } else {
                members.push(file);
            }
        }
        let out = self.tmp.join(format!("{n}-{file_name}"));
        let mut args = vec!["rcsD".to_string(), out.to_string_lossy().into_owned()];
        args.extend(members.iter().map(|m| m.to_string_lossy().into_owned()));
        self.tools.run_program(llvm_ar, &args, "llvm-ar")?;
        Ok(out)
    }
}

fn sanitize(name: &str) -> String {
    name.chars()
        .map(|c| if c == '/' { '_' } else { c })
        .collect()
}

/// `llvm-ar-22` on the `PATH`, else LLVM 22's install directory.
fn llvm_ar() -> PathBuf {
    let on_path = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).any(|d| d.join("llvm-ar-22").is_file()))
        .unwrap_or(false);
    if on_path {
        PathBuf::from("llvm-ar-22")
    } else {
        PathBuf::from("/usr/lib/llvm-22/bin/llvm-ar")
    }
}

/// The link: `args` is rustc's `cc` command line, `linker` the real linker.
pub fn link(args: &[String], linker: &str, tools: &Tools, tmp: &Path) -> Result<(), LinkError> {
    let args = super::response::expand(args);
    let mut l = Linker {
        tools,
        tmp,
        opt: plugin_opt_level(&args).unwrap_or_else(|| "0".to_string()),
        count: 0,
    };
    let ar = llvm_ar();
    let mut out = Vec::new();
    let mut after_o = false;
    for a in without_plugin_opts(&args) {
        let is_output = std::mem::replace(&mut after_o, a == "-o");
        if is_output || a.starts_with('-') {
            out.push(a);
            continue;
        }
        let path = Path::new(&a);
        let name = path
            .file_name()
            .map(|f| f.to_string_lossy().into_owned())
            .unwrap_or_else(|| "input".to_string());
        match classify(path) {
            InputKind::Bitcode => out.push(l.compile(path, &name)?.to_string_lossy().into_owned()),
            InputKind::BitcodeArchive => {
                out.push(l.archive(path, &ar)?.to_string_lossy().into_owned())
            }
            InputKind::Other => out.push(a),
        }
    }
    tools.run_program(Path::new(linker), &out, "the linker given to rustc")?;
    Ok(())
}

/// Entry point of the link mode; returns the exit code.
pub fn main_with(args: &[String], linker: &str) -> i32 {
    let tools = Tools::locate(false);
    let tmp = match tempfile::Builder::new().prefix("reach-rustc.").tempdir() {
        Ok(t) => t,
        Err(e) => {
            eprintln!("reach-rustc: error: cannot create a temporary directory: {e}");
            return 1;
        }
    };
    std::env::remove_var(reach_channel::env::RUSTC_LINK);
    match link(args, linker, &tools, tmp.path()) {
        Ok(()) => 0,
        Err(e) => {
            if !matches!(e, LinkError::Run(RunError::Failed { .. })) {
                eprintln!("reach-rustc: error: {e}");
            }
            e.exit_code()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn plugin_options_give_the_level_and_are_dropped() {
        let a = s(&[
            "-Wl,--as-needed",
            "-Wl,-plugin-opt=O2,-plugin-opt=mcpu=x86-64",
            "-Wl,-z,relro,-plugin-opt=foo",
        ]);
        assert_eq!(plugin_opt_level(&a).as_deref(), Some("2"));
        assert_eq!(
            without_plugin_opts(&a),
            s(&["-Wl,--as-needed", "-Wl,-z,relro"])
        );
    }

    #[test]
    fn archives_are_read_with_long_names_and_classified() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut ar = Vec::new();
        ar.extend_from_slice(AR_MAGIC);
        let member = |name: &str, body: &[u8], ar: &mut Vec<u8>| {
            ar.extend_from_slice(
                format!(
                    "{name:<16}{:<12}{:<6}{:<6}{:<8}{:<10}`\n",
                    0,
                    0,
                    0,
                    644,
                    body.len()
                )
                .as_bytes(),
            );
            ar.extend_from_slice(body);
            if body.len() % 2 == 1 {
                ar.push(b'\n');
            }
        };
        member("//", b"a-very-long-member-name.rcgu.o/\n", &mut ar);
        member("lib.rmeta/", b"meta", &mut ar);
        member("/0", b"BC\xC0\xDEbody", &mut ar);
        let path = dir.path().join("libx.rlib");
        std::fs::write(&path, &ar).expect("write");
        let members = read_members(&path).expect("members");
        assert_eq!(
            members,
            vec![
                ("lib.rmeta".to_string(), b"meta".to_vec()),
                (
                    "a-very-long-member-name.rcgu.o".to_string(),
                    b"BC\xC0\xDEbody".to_vec()
                ),
            ]
        );
        assert_eq!(classify(&path), InputKind::BitcodeArchive);
        let bc = dir.path().join("x.o");
        std::fs::write(&bc, b"BC\xC0\xDE").expect("write");
        assert_eq!(classify(&bc), InputKind::Bitcode);
        assert_eq!(classify(&dir.path().join("missing")), InputKind::Other);
    }
}
