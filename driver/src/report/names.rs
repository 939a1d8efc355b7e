//! Names for what a report shows: objects by the variable that holds them
//! (`counter`, `buffer[3]`, `q.head`, from the ELF symbol table and the
//! DWARF variables and types), code addresses and site ids by source line
//! (the site table of an instrumented binary, the DWARF line table for the
//! return addresses the runtime records at calls from uninstrumented code),
//! source files relative to the current directory, and the text of a source
//! line.
//!
//! The program runs with address-space randomisation off, so a
//! position-independent executable is loaded at a fixed base
//! ([`PIE_BASE`]) and its addresses map back to file addresses by one
//! subtraction.

use super::frames::{self, Frame};
use crate::binary::Binary;
use crate::objects::{Holder, ObjectLog};
use addr2line::gimli;
use goblin::elf::{header::ET_DYN, program_header::PT_LOAD, sym::STT_OBJECT, Elf};
use std::cell::RefCell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::rc::Rc;

/// Where the kernel loads a position-independent executable whose first
/// segment starts at address 0 when randomisation is off (`ELF_ET_DYN_BASE`
/// rounded down to a page).
#[cfg(target_arch = "x86_64")]
pub const PIE_BASE: u64 = 0x5555_5555_4000;
/// Where the kernel loads a position-independent executable whose first
/// segment starts at address 0 when randomisation is off.
#[cfg(target_arch = "aarch64")]
pub const PIE_BASE: u64 = 0xaaaa_aaaa_0000;
/// Where the kernel loads a position-independent executable whose first
/// segment starts at address 0 when randomisation is off (unknown here:
/// no object is named).
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
pub const PIE_BASE: u64 = 0;

/// A source position: file (relative to the current directory when under
/// it), line, column and function.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Place {
    /// Source file as shown.
    pub file: String,
    /// The file as recorded (to read it).
    pub path: String,
    /// 1-based line (0 if unknown).
    pub line: u32,
    /// 1-based column (0 if unknown).
    pub column: u32,
    /// Enclosing function (empty if unknown).
    pub function: String,
    /// Inlined-at chain, innermost first (`file:line:col`).
    pub inlined_at: Vec<String>,
    /// For a step that ran in Rust's standard library, placed at the
    /// program's line that called it: the library's code it ran in.
    pub library: Option<InLibrary>,
}

/// The standard library's code a step ran in, when a report places the
/// step at the program's line that called it (see [`super::frames`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct InLibrary {
    /// The library function the program's code called, or had inlined
    /// (`core::sync::atomic::AtomicUsize::fetch_add`).
    pub function: String,
    /// Where in the library's sources the step ran (`file:line:col` as
    /// recorded), empty if unknown.
    pub location: String,
}

impl Place {
    /// `file:line`, or `in function` for code without a source line (a
    /// codegen unit's pseudo-file).
    pub fn short(&self) -> String {
        if self.file.is_empty() {
            return format!("in {}", self.function_or_unknown());
        }
        format!("{}:{}", self.file, self.line)
    }

    /// `file:line:col (function) inlined at ...`; for a step placed at the
    /// program's call into the standard library, `file:line:col (function,
    /// in library-function) ...`.
    pub fn long(&self) -> String {
        if self.file.is_empty() {
            let mut text = format!("in {}", self.function_or_unknown());
            for caller in &self.inlined_at {
                text.push_str(&format!(" inlined at {caller}"));
            }
            return text;
        }
        let mut text = format!("{}:{}:{}", self.file, self.line, self.column);
        let called = self
            .library
            .as_ref()
            .map(|l| l.function.as_str())
            .filter(|f| !f.is_empty());
        match (self.function.is_empty(), called) {
            (false, Some(called)) => text.push_str(&format!(" ({}, in {called})", self.function)),
            (true, Some(called)) => text.push_str(&format!(" (in {called})")),
            (false, None) => text.push_str(&format!(" ({})", self.function)),
            (true, None) => {}
        }
        for caller in &self.inlined_at {
            text.push_str(&format!(" inlined at {caller}"));
        }
        text
    }

    /// The enclosing function, or `?`.
    fn function_or_unknown(&self) -> &str {
        if self.function.is_empty() {
            "?"
        } else {
            &self.function
        }
    }
}

/// The layout of a variable's type, as far as naming a byte in it needs.
#[derive(Debug)]
enum Ty {
    /// Anything without named parts, of this many bytes.
    Scalar(u64),
    /// A structure of this many bytes and its members (name, offset, type).
    Record(u64, Vec<(String, u64, Rc<Ty>)>),
    /// An array of this many elements.
    Array(Rc<Ty>, u64),
}

impl Ty {
    fn size(&self) -> u64 {
        match self {
            Ty::Scalar(size) | Ty::Record(size, _) => *size,
            Ty::Array(element, count) => element.size().saturating_mul(*count),
        }
    }

    /// Appends the path to byte `offset` (`[3].head`), and `+n` for a byte
    /// inside a part without parts.
    fn describe(&self, offset: u64, out: &mut String) {
        match self {
            Ty::Array(element, count) => {
                let size = element.size();
                if size > 0 && offset / size < *count {
                    out.push_str(&format!("[{}]", offset / size));
                    element.describe(offset % size, out);
                } else if offset > 0 {
                    out.push_str(&format!("+{offset}"));
                }
            }
            Ty::Record(_, members) => {
                let covering: Vec<&(String, u64, Rc<Ty>)> = members
                    .iter()
                    .filter(|(_, at, ty)| {
                        *at <= offset && offset < at.saturating_add(ty.size().max(1))
                    })
                    .collect();
                if covering.len() > 1 && covering.iter().all(|(name, _, _)| !name.is_empty()) {
                    // Bit-fields sharing the byte (one C11 memory
                    // location), or an anonymous union's members.
                    let names: Vec<&str> = covering.iter().map(|m| m.0.as_str()).collect();
                    out.push_str(&format!(".{{{}}}", names.join(",")));
                    return;
                }
                match covering.last() {
                    Some((name, at, ty)) => {
                        if !name.is_empty() {
                            out.push('.');
                            out.push_str(name);
                        }
                        ty.describe(offset - at, out);
                    }
                    None if offset > 0 => out.push_str(&format!("+{offset}")),
                    None => {}
                }
            }
            Ty::Scalar(_) if offset > 0 => out.push_str(&format!("+{offset}")),
            Ty::Scalar(_) => {}
        }
    }
}

/// A global or static variable: file address, size, name, and its type when
/// the DWARF describes it.
struct Global {
    start: u64,
    size: u64,
    name: String,
    ty: Option<Rc<Ty>>,
}

/// Names objects and code addresses of one program.
pub struct Names<'a> {
    binary: &'a Binary,
    /// Added to a file address to get the address in the running program.
    bias: u64,
    /// Globals sorted by start address.
    globals: Vec<Global>,
    /// The program's DWARF line tables, if it has any.
    lines: Option<addr2line::Loader>,
    cwd: Option<PathBuf>,
    sources: RefCell<HashMap<String, Option<Rc<Vec<String>>>>>,
}

impl<'a> Names<'a> {
    /// Reads the symbols and debugging information of `binary` (nothing
    /// if the file cannot be read: every object is then shown by address).
    pub fn new(binary: &'a Binary) -> Names<'a> {
        let mut names = Names {
            binary,
            bias: 0,
            globals: Vec::new(),
            lines: None,
            cwd: std::env::current_dir().ok(),
            sources: RefCell::new(HashMap::new()),
        };
        let Some(path) = &binary.path else {
            return names;
        };
        let Ok(bytes) = std::fs::read(path) else {
            return names;
        };
        let Ok(elf) = Elf::parse(&bytes) else {
            return names;
        };
        let first_load = elf
            .program_headers
            .iter()
            .filter(|ph| ph.p_type == PT_LOAD)
            .map(|ph| ph.p_vaddr)
            .min()
            .unwrap_or(0);
        names.bias = if elf.header.e_type == ET_DYN {
            PIE_BASE.saturating_sub(first_load & !0xfff)
        } else {
            0
        };
        let types = dwarf_globals(&elf, &bytes).unwrap_or_default();
        let mut globals: Vec<Global> = elf
            .syms
            .iter()
            .filter(|s| s.st_type() == STT_OBJECT && s.st_value != 0)
            .filter_map(|s| {
                let name = elf.strtab.get_at(s.st_name)?;
                Some(Global {
                    start: s.st_value,
                    size: s.st_size,
                    name: super::demangle::demangle(name),
                    ty: types.get(&s.st_value).cloned(),
                })
            })
            .collect();
        globals.sort_by_key(|g| (g.start, std::cmp::Reverse(g.size)));
        globals.dedup_by_key(|g| g.start);
        names.globals = globals;
        names.lines = addr2line::Loader::new(path).ok();
        names
    }

    /// The object at `address` as shown to people: `counter`, `q.head`,
    /// `buffer[3]`, or the address when it is no global of the program.
    pub fn object(&self, address: u64) -> String {
        self.global(address)
            .unwrap_or_else(|| format!("{address:#x}"))
    }

    /// The object at `address` when event `step` of an execution with
    /// `objects` ran: a global as in [`Names::object`], else a heap block
    /// (`heap#3 (allocated at f.c:12)`, `heap#3+8 (freed; allocated at
    /// f.c:12)`) or a thread's stack object (`T1 stack (worker)`), else the
    /// address.
    pub fn object_at(&self, address: u64, objects: &ObjectLog, step: usize) -> String {
        self.named_at(address, objects, step)
            .unwrap_or_else(|| format!("{address:#x}"))
    }

    /// The name [`Names::object_at`] gives `address`, if it has one.
    pub fn named_at(&self, address: u64, objects: &ObjectLog, step: usize) -> Option<String> {
        if let Some(global) = self.global(address) {
            return Some(global);
        }
        let held = objects.holder(address, step)?;
        let offset = match held.offset {
            0 => String::new(),
            n => format!("+{n}"),
        };
        Some(match held.holder {
            Holder::Heap {
                ordinal,
                origin,
                caller,
                freed,
            } => {
                let state = if freed { "freed; " } else { "" };
                match self.step_place(origin, caller) {
                    Some(place) if place.file.is_empty() => format!(
                        "heap#{ordinal}{offset} ({state}allocated {})",
                        place.short()
                    ),
                    Some(place) => {
                        let file = Path::new(&place.file)
                            .file_name()
                            .map_or(place.file.clone(), |f| f.to_string_lossy().into_owned());
                        format!(
                            "heap#{ordinal}{offset} ({state}allocated at {file}:{})",
                            place.line
                        )
                    }
                    None if freed => format!("heap#{ordinal}{offset} (freed)"),
                    None => format!("heap#{ordinal}{offset}"),
                }
            }
            Holder::Stack { thread, site } => {
                let function = self
                    .place(site)
                    .map(|p| p.function)
                    .filter(|f| !f.is_empty());
                let variable = self.binary.sites.get(&site).and_then(|s| {
                    s.what
                        .strip_prefix(reach_channel::hooks::STACK_VARIABLE_PREFIX)
                        .map(str::to_string)
                });
                match (function, variable) {
                    (Some(f), Some(v)) => format!("T{thread} stack ({f}: {v}){offset}"),
                    (Some(f), None) => format!("T{thread} stack ({f}){offset}"),
                    (None, Some(v)) => format!("T{thread} stack ({v}){offset}"),
                    (None, None) => format!("T{thread} stack{offset}"),
                }
            }
        })
    }

    /// The name of the global holding `address`, with the path to the byte.
    pub fn global(&self, address: u64) -> Option<String> {
        let file_address = address.checked_sub(self.bias)?;
        let at = self.globals.partition_point(|g| g.start <= file_address);
        let global = self.globals.get(at.checked_sub(1)?)?;
        let offset = file_address - global.start;
        if offset >= global.size.max(1) {
            return None;
        }
        let mut name = global.name.clone();
        match &global.ty {
            Some(ty) => ty.describe(offset, &mut name),
            None if offset > 0 => name.push_str(&format!("+{offset}")),
            None => {}
        }
        Some(name)
    }

    /// The source position of a site id, or of a return address recorded
    /// for a call from uninstrumented code.
    pub fn place(&self, site: u64) -> Option<Place> {
        let frames = self.frames(site)?;
        Some(self.place_at(&frames, 0, frames.len()))
    }

    /// The source position of a step with site `site` that ran while the
    /// program's call into the standard library `caller` was in progress
    /// (0 if none): its own, unless it lies in the library's sources; then
    /// the first frame of the program's code its inlined-at chain reaches,
    /// else `caller`'s, with the library's code as
    /// [`Place::library`] (see [`super::frames`]).
    pub fn step_place(&self, site: u64, caller: u64) -> Option<Place> {
        let own = self.frames(site);
        let library_location = match &own {
            Some(frames) if !frames[0].in_library() => {
                return Some(self.place_at(frames, 0, frames.len()))
            }
            Some(frames) => {
                let position = if super::demangle::is_codegen_unit(&frames[0].path) {
                    String::new()
                } else {
                    frames[0].position()
                };
                if let Some((k, called)) = frames::program_frame(frames) {
                    return Some(self.in_library(frames, k, called, position));
                }
                position
            }
            None => String::new(),
        };
        let from_caller = (caller != 0)
            .then(|| self.frames(caller))
            .flatten()
            .and_then(|callers| {
                let callee = self
                    .binary
                    .sites
                    .get(&caller)
                    .and_then(frames::library_callee)
                    .unwrap_or_default();
                let (k, called) = if callers[0].in_library() {
                    frames::program_frame(&callers)?
                } else {
                    (0, callee)
                };
                // An indirect call: the outermost library function the step
                // ran in.
                let called = match (called, &own) {
                    ("", Some(frames)) => frames.last().map_or("", |f| f.function.as_str()),
                    (called, _) => called,
                };
                Some(self.in_library(&callers, k, called, library_location.clone()))
            });
        from_caller.or_else(|| own.map(|frames| self.place_at(&frames, 0, frames.len())))
    }

    /// The place of frame `k` of the program's code in `frames`, which
    /// called (or inlined) the library function `called`; its inlined-at
    /// chain ends where the library's code (which called the program's)
    /// begins.
    fn in_library(&self, frames: &[Frame], k: usize, called: &str, location: String) -> Place {
        let end = frames[k..]
            .iter()
            .position(Frame::in_library)
            .map_or(frames.len(), |n| k + n);
        let mut place = self.place_at(frames, k, end);
        place.library = Some(InLibrary {
            function: called.to_string(),
            location,
        });
        place
    }

    /// The place of frame `k` of `frames`, inlined into frames `k + 1` up
    /// to `end`.
    fn place_at(&self, frames: &[Frame], k: usize, end: usize) -> Place {
        let f = &frames[k];
        let known = !(f.line == 0 && super::demangle::is_codegen_unit(&f.path));
        Place {
            file: if known {
                self.shown_path(&f.path)
            } else {
                String::new()
            },
            path: if known { f.path.clone() } else { String::new() },
            line: f.line,
            column: f.column,
            function: f.function.clone(),
            inlined_at: frames
                .get(k + 1..end)
                .unwrap_or_default()
                .iter()
                .map(|f| f.text.clone())
                .collect(),
            library: None,
        }
    }

    /// The frames of a site id, or of a return address recorded for a call
    /// from uninstrumented code, innermost first (never empty).
    fn frames(&self, site: u64) -> Option<Vec<Frame>> {
        if site == 0 {
            return None;
        }
        if let Some(s) = self.binary.sites.get(&site) {
            return Some(frames::of_site(s));
        }
        // A return address: the call is the instruction before it.
        let probe = site.checked_sub(self.bias)?.checked_sub(1)?;
        let lines = self.lines.as_ref()?;
        let mut found = lines.find_frames(probe).ok()?;
        let mut frames = Vec::new();
        while let Ok(Some(frame)) = found.next() {
            let Some(location) = frame.location else {
                continue;
            };
            let path = location.file.unwrap_or("?").to_string();
            let (line, column) = (location.line.unwrap_or(0), location.column.unwrap_or(0));
            frames.push(Frame {
                function: frame
                    .function
                    .as_ref()
                    .and_then(|f| f.raw_name().ok())
                    .map(|f| super::demangle::demangle(&f))
                    .unwrap_or_default(),
                text: format!("{}:{line}:{column}", self.shown_path(&path)),
                path,
                line,
                column,
            });
        }
        (!frames.is_empty()).then_some(frames)
    }

    /// `file:line:col (function)` of a site, or a placeholder.
    pub fn location(&self, site: u64) -> String {
        self.step_location(site, 0)
    }

    /// `file:line:col (function)` of a step (see [`Names::step_place`]), or
    /// a placeholder.
    pub fn step_location(&self, site: u64, caller: u64) -> String {
        match self.step_place(site, caller) {
            Some(place) => place.long(),
            None if site == 0 => "(no source location: uninstrumented caller)".to_string(),
            None => format!("(site {site:#x})"),
        }
    }

    /// `file:line` of a site, or empty.
    pub fn short_location(&self, site: u64) -> String {
        self.place(site).map(|p| p.short()).unwrap_or_default()
    }

    /// The text of the source line of `place`, trimmed, if the file is
    /// readable.
    pub fn source_line(&self, place: &Place) -> Option<String> {
        if place.line == 0 {
            return None;
        }
        let mut cache = self.sources.borrow_mut();
        let lines = cache
            .entry(place.path.clone())
            .or_insert_with(|| {
                std::fs::read(&place.path).ok().map(|bytes| {
                    Rc::new(
                        String::from_utf8_lossy(&bytes)
                            .lines()
                            .map(str::to_string)
                            .collect(),
                    )
                })
            })
            .clone()?;
        lines
            .get(place.line as usize - 1)
            .map(|l| l.trim().to_string())
    }

    /// `path` relative to the current directory when it lies under it.
    pub fn shown_path(&self, path: &str) -> String {
        let p = Path::new(path);
        match &self.cwd {
            Some(cwd) if p.is_absolute() => p
                .strip_prefix(cwd)
                .map(|rel| rel.display().to_string())
                .unwrap_or_else(|_| path.to_string()),
            _ => path.to_string(),
        }
    }
}

type Reader<'b> = gimli::EndianSlice<'b, gimli::RunTimeEndian>;

/// The types of the program's global and static variables, by file
/// address, from its DWARF (`None` without debugging information).
fn dwarf_globals(elf: &Elf, bytes: &[u8]) -> Option<HashMap<u64, Rc<Ty>>> {
    let endian = if elf.little_endian {
        gimli::RunTimeEndian::Little
    } else {
        gimli::RunTimeEndian::Big
    };
    let section = |id: gimli::SectionId| -> Result<Reader<'_>, gimli::Error> {
        let data = elf
            .section_headers
            .iter()
            .find(|sh| elf.shdr_strtab.get_at(sh.sh_name) == Some(id.name()))
            .filter(|sh| sh.sh_type != goblin::elf::section_header::SHT_NOBITS)
            .and_then(|sh| {
                let start = sh.sh_offset as usize;
                bytes.get(start..start.checked_add(sh.sh_size as usize)?)
            })
            .unwrap_or_default();
        Ok(gimli::EndianSlice::new(data, endian))
    };
    let dwarf = gimli::Dwarf::load(section).ok()?;
    let mut found = HashMap::new();
    let mut units = dwarf.units();
    while let Ok(Some(header)) = units.next() {
        let Ok(unit) = dwarf.unit(header) else {
            continue;
        };
        let mut memo = HashMap::new();
        let mut variables = Vec::new();
        let mut entries = unit.entries();
        while let Ok(Some((_, entry))) = entries.next_dfs() {
            if entry.tag() != gimli::DW_TAG_variable {
                continue;
            }
            let Ok(Some(gimli::AttributeValue::Exprloc(expr))) =
                entry.attr_value(gimli::DW_AT_location)
            else {
                continue;
            };
            let address = match expr.operations(unit.encoding()).next() {
                Ok(Some(gimli::Operation::Address { address })) => Some(address),
                Ok(Some(gimli::Operation::AddressIndex { index })) => {
                    dwarf.address(&unit, index).ok()
                }
                _ => None,
            };
            let ty = match entry.attr_value(gimli::DW_AT_type) {
                Ok(Some(gimli::AttributeValue::UnitRef(offset))) => Some(offset),
                _ => None,
            };
            if let (Some(address), Some(ty)) = (address, ty) {
                variables.push((address, ty));
            }
        }
        for (address, ty) in variables {
            if let Some(ty) = type_of(&dwarf, &unit, ty, &mut memo, 0) {
                found.insert(address, ty);
            }
        }
    }
    Some(found)
}

/// The layout of the type at `offset` (bounded in depth: types nest by
/// value only finitely, but a broken file could loop).
fn type_of(
    dwarf: &gimli::Dwarf<Reader<'_>>,
    unit: &gimli::Unit<Reader<'_>>,
    offset: gimli::UnitOffset,
    memo: &mut HashMap<gimli::UnitOffset, Rc<Ty>>,
    depth: u32,
) -> Option<Rc<Ty>> {
    if let Some(ty) = memo.get(&offset) {
        return Some(ty.clone());
    }
    if depth > 32 {
        return None;
    }
    let entry = unit.entry(offset).ok()?;
    let size = match entry.attr_value(gimli::DW_AT_byte_size) {
        Ok(Some(value)) => value.udata_value().unwrap_or(0),
        _ => 0,
    };
    let inner = match entry.attr_value(gimli::DW_AT_type) {
        Ok(Some(gimli::AttributeValue::UnitRef(inner))) => Some(inner),
        _ => None,
    };
    let ty = match entry.tag() {
        gimli::DW_TAG_typedef
        | gimli::DW_TAG_const_type
        | gimli::DW_TAG_volatile_type
        | gimli::DW_TAG_restrict_type
        | gimli::DW_TAG_atomic_type => type_of(dwarf, unit, inner?, memo, depth + 1)?,
        // A union's bytes belong to every member at once: it is named as a
        // whole (`pthread_mutex_t` is one).
        gimli::DW_TAG_union_type => Rc::new(Ty::Scalar(size)),
        gimli::DW_TAG_structure_type | gimli::DW_TAG_class_type => {
            let mut members = Vec::new();
            let mut tree = unit.entries_tree(Some(offset)).ok()?;
            let mut children = tree.root().ok()?.children();
            while let Ok(Some(child)) = children.next() {
                let member = child.entry();
                if member.tag() != gimli::DW_TAG_member {
                    continue;
                }
                let name = match member.attr_value(gimli::DW_AT_name) {
                    Ok(Some(value)) => dwarf
                        .attr_string(unit, value)
                        .map(|s| s.to_string_lossy().into_owned())
                        .unwrap_or_default(),
                    _ => String::new(),
                };
                let mut at = match member.attr_value(gimli::DW_AT_data_member_location) {
                    Ok(Some(value)) => value.udata_value().unwrap_or(0),
                    _ => 0,
                };
                // A bit-field covers the bytes of its bits.
                let bits = match member.attr_value(gimli::DW_AT_bit_size) {
                    Ok(Some(value)) => value.udata_value(),
                    _ => None,
                };
                let bit_offset = match member.attr_value(gimli::DW_AT_data_bit_offset) {
                    Ok(Some(value)) => value.udata_value(),
                    _ => None,
                };
                if let (Some(bits), Some(bit_offset)) = (bits, bit_offset) {
                    at = bit_offset / 8;
                    let len = (bit_offset % 8 + bits).div_ceil(8);
                    members.push((name, at, Rc::new(Ty::Scalar(len.max(1)))));
                    continue;
                }
                let member_ty = match member.attr_value(gimli::DW_AT_type) {
                    Ok(Some(gimli::AttributeValue::UnitRef(t))) => t,
                    _ => continue,
                };
                let member_ty = type_of(dwarf, unit, member_ty, memo, depth + 1)
                    .unwrap_or_else(|| Rc::new(Ty::Scalar(0)));
                if name.is_empty() {
                    // An anonymous structure or union: its members are the
                    // outer one's, at its offset.
                    if let Ty::Record(_, inner) = &*member_ty {
                        for (n, o, t) in inner {
                            members.push((n.clone(), at + o, t.clone()));
                        }
                        continue;
                    }
                }
                members.push((name, at, member_ty));
            }
            members.sort_by_key(|m| m.1);
            Rc::new(Ty::Record(size, members))
        }
        gimli::DW_TAG_array_type => {
            let element = type_of(dwarf, unit, inner?, memo, depth + 1)?;
            let mut counts = Vec::new();
            let mut tree = unit.entries_tree(Some(offset)).ok()?;
            let mut children = tree.root().ok()?.children();
            while let Ok(Some(child)) = children.next() {
                let range = child.entry();
                if range.tag() != gimli::DW_TAG_subrange_type {
                    continue;
                }
                let count = match range.attr_value(gimli::DW_AT_count) {
                    Ok(Some(value)) => value.udata_value(),
                    _ => match range.attr_value(gimli::DW_AT_upper_bound) {
                        Ok(Some(value)) => value.udata_value().map(|u| u + 1),
                        _ => None,
                    },
                };
                counts.push(count.unwrap_or(0));
            }
            // `int a[2][3]`: an array of 2 arrays of 3.
            counts
                .iter()
                .rev()
                .fold(element, |inner, &count| Rc::new(Ty::Array(inner, count)))
        }
        _ => Rc::new(Ty::Scalar(size)),
    };
    memo.insert(offset, ty.clone());
    Some(ty)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_of_nested_types_are_named_by_path() {
        let int = Rc::new(Ty::Scalar(4));
        let node = Rc::new(Ty::Record(
            8,
            vec![
                ("head".into(), 0, int.clone()),
                ("tail".into(), 4, int.clone()),
            ],
        ));
        let queue = Ty::Array(node, 4);
        let name = |offset| {
            let mut s = "q".to_string();
            queue.describe(offset, &mut s);
            s
        };
        assert_eq!(name(0), "q[0].head");
        assert_eq!(name(12), "q[1].tail");
        assert_eq!(name(13), "q[1].tail+1");
        assert_eq!(name(40), "q+40");
    }

    #[test]
    fn bit_fields_sharing_a_byte_are_named_together() {
        let byte = Rc::new(Ty::Scalar(1));
        // `struct { unsigned low:4, high:4; char tag; unsigned wide:12; }`.
        let bits = Ty::Record(
            4,
            vec![
                ("low".into(), 0, byte.clone()),
                ("high".into(), 0, byte.clone()),
                ("tag".into(), 1, byte.clone()),
                ("wide".into(), 2, Rc::new(Ty::Scalar(2))),
            ],
        );
        let name = |offset| {
            let mut s = "bits".to_string();
            bits.describe(offset, &mut s);
            s
        };
        assert_eq!(name(0), "bits.{low,high}");
        assert_eq!(name(1), "bits.tag");
        assert_eq!(name(3), "bits.wide+1");
    }
}
