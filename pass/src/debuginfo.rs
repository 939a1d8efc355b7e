//! Source locations of instructions from debug info (`!dbg` DILocations).
//!
//! ```text
//! store i32 1, ptr @x, !dbg !12
//! !12 = !DILocation(line: 7, column: 5, scope: !10, inlinedAt: !13)
//! !13 = !DILocation(line: 20, column: 3, scope: !14)
//! ```
//! gives `file:7:5` in the function of `!10`, inlined at `main@file:20:3`.

use crate::demangle::demangle;
use crate::llvm::{self, Value};
use inkwell::llvm_sys::debuginfo as di;
use inkwell::llvm_sys::prelude::{LLVMContextRef, LLVMMetadataRef};
use inkwell::llvm_sys::{core as c, debuginfo::LLVMMetadataKind as Kind};

/// Where an instruction comes from.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SourceLoc {
    /// Source file (joined with the compilation directory when relative).
    pub file: String,
    /// 1-based line, 0 if unknown.
    pub line: u32,
    /// 1-based column, 0 if unknown.
    pub column: u32,
    /// Function the instruction belongs to in the source (the inlined
    /// callee for inlined code), demangled.
    pub function: String,
    /// Callers it was inlined into, innermost first, as `function@file:line:column`.
    pub inlined_at: Vec<String>,
}

/// Reads the location of `inst`; `fallback_file` and `fallback_function`
/// are used when it has no debug location.
pub(crate) fn source_loc(
    ctx: LLVMContextRef,
    inst: Value,
    fallback_file: &str,
    fallback_function: &str,
) -> SourceLoc {
    let loc = llvm::debug_loc(inst);
    if loc.is_null() {
        return SourceLoc {
            file: fallback_file.to_string(),
            function: demangle(fallback_function),
            ..SourceLoc::default()
        };
    }
    let (file, line, column, scope) = location_parts(loc);
    // SAFETY: `loc` is a DILocation; inlinedAt is a DILocation or null.
    let mut at = unsafe { di::LLVMDILocationGetInlinedAt(loc) };
    // Code that was not inlined belongs to the IR function itself, whose
    // (mangled) name is always complete; inlined code to its subprogram.
    let mut function = if at.is_null() {
        demangle(fallback_function)
    } else {
        subprogram_name(ctx, scope)
    };
    if function.is_empty() {
        function = demangle(fallback_function);
    }
    let mut inlined_at = Vec::new();
    while !at.is_null() && inlined_at.len() < 64 {
        let (f, l, col, s) = location_parts(at);
        inlined_at.push(format!("{}@{f}:{l}:{col}", subprogram_name(ctx, s)));
        // SAFETY: as above.
        at = unsafe { di::LLVMDILocationGetInlinedAt(at) };
    }
    SourceLoc {
        file,
        line,
        column,
        function,
        inlined_at,
    }
}

/// (file, line, column, scope) of a DILocation.
fn location_parts(loc: LLVMMetadataRef) -> (String, u32, u32, LLVMMetadataRef) {
    // SAFETY: `loc` is a DILocation; its scope is a DIScope with a file.
    unsafe {
        let line = di::LLVMDILocationGetLine(loc);
        let column = di::LLVMDILocationGetColumn(loc);
        let scope = di::LLVMDILocationGetScope(loc);
        (file_of_scope(scope), line, column, scope)
    }
}

/// The source file of a DIScope (joined with its directory), empty if it
/// names none.
pub(crate) fn file_of_scope(scope: LLVMMetadataRef) -> String {
    // SAFETY: `scope` is a DIScope; its file (if any) is a DIFile.
    unsafe {
        let file = di::LLVMDIScopeGetFile(scope);
        if file.is_null() {
            return String::new();
        }
        let mut n = 0u32;
        let name = llvm::lstr(di::LLVMDIFileGetFilename(file, &mut n), n as usize);
        let mut d = 0u32;
        let dir = llvm::lstr(di::LLVMDIFileGetDirectory(file, &mut d), d as usize);
        join(&dir, &name)
    }
}

/// `dir/name` (or `name` if absolute), with `.` and `..` components removed
/// lexically: `/usr/lib/gcc/x/12/../../../../include/a.h` -> `/usr/include/a.h`.
pub fn join(dir: &str, name: &str) -> String {
    let full = if name.starts_with('/') || dir.is_empty() {
        name.to_string()
    } else {
        format!("{}/{}", dir.trim_end_matches('/'), name)
    };
    let absolute = full.starts_with('/');
    let mut parts: Vec<&str> = Vec::new();
    for part in full.split('/') {
        match part {
            "" | "." => {}
            ".." if parts.last().is_some_and(|p| *p != "..") => {
                parts.pop();
            }
            ".." if absolute => {}
            p => parts.push(p),
        }
    }
    let joined = parts.join("/");
    if absolute {
        format!("/{joined}")
    } else if joined.is_empty() {
        ".".to_string()
    } else {
        joined
    }
}

/// Operand `i` of a metadata node, as metadata (null if absent).
fn md_operand(ctx: LLVMContextRef, node: LLVMMetadataRef, i: usize) -> Option<Value> {
    // SAFETY: `node` is an MDNode; operands are read into a buffer of its size.
    unsafe {
        let v = c::LLVMMetadataAsValue(ctx, node);
        let n = c::LLVMGetMDNodeNumOperands(v) as usize;
        if i >= n {
            return None;
        }
        let mut ops: Vec<Value> = vec![std::ptr::null_mut(); n];
        c::LLVMGetMDNodeOperands(v, ops.as_mut_ptr());
        let op = ops[i];
        (!op.is_null()).then_some(op)
    }
}

fn md_string(v: Value) -> String {
    let mut len = 0u32;
    // SAFETY: `v` wraps metadata; a non-MDString yields null.
    let p = unsafe { c::LLVMGetMDString(v, &mut len) };
    llvm::lstr(p, len as usize)
}

/// Name of the subprogram enclosing a scope (walking out of lexical blocks):
/// the demangled linkage name if there is one, else the source name.
pub(crate) fn subprogram_name(ctx: LLVMContextRef, mut scope: LLVMMetadataRef) -> String {
    for _ in 0..256 {
        if scope.is_null() {
            return String::new();
        }
        // SAFETY: `scope` is a metadata node.
        let kind = unsafe { di::LLVMGetMetadataKind(scope) };
        match kind {
            Kind::LLVMDISubprogramMetadataKind => {
                // DISubprogram operands: file, scope, name, linkageName, ...
                let linkage = md_operand(ctx, scope, 3).map(md_string).unwrap_or_default();
                if !linkage.is_empty() {
                    return demangle(&linkage);
                }
                return md_operand(ctx, scope, 2).map(md_string).unwrap_or_default();
            }
            Kind::LLVMDILexicalBlockMetadataKind | Kind::LLVMDILexicalBlockFileMetadataKind => {
                // Lexical blocks: file, scope, ...
                scope = match md_operand(ctx, scope, 1) {
                    // SAFETY: the operand wraps metadata.
                    Some(v) => unsafe { c::LLVMValueAsMetadata(v) },
                    None => return String::new(),
                };
            }
            _ => return String::new(),
        }
    }
    String::new()
}

/// The module's source path for site ids: its `source_filename`, joined with
/// the compilation directory of its debug-info compile unit when relative,
/// so that `util.c` compiled in two directories gives two distinct modules.
pub fn module_source_path(module: &inkwell::module::Module<'_>) -> String {
    let source = module.get_source_file_name().to_string_lossy().into_owned();
    if source.starts_with('/') {
        return join("", &source);
    }
    let Some(cu) = module.get_global_metadata("llvm.dbg.cu").into_iter().next() else {
        return source;
    };
    // SAFETY: `llvm.dbg.cu` holds DICompileUnits, which are DIScopes with a file.
    let dir = unsafe {
        let cu = c::LLVMValueAsMetadata(inkwell::values::AsValueRef::as_value_ref(&cu));
        let file = di::LLVMDIScopeGetFile(cu);
        if file.is_null() {
            return source;
        }
        let mut n = 0u32;
        llvm::lstr(di::LLVMDIFileGetDirectory(file, &mut n), n as usize)
    };
    join(&dir, &source)
}

#[cfg(test)]
mod tests {
    use super::join;

    #[test]
    fn joins_and_normalises_lexically() {
        assert_eq!(join("/src", "a.c"), "/src/a.c");
        assert_eq!(join("/src", "/abs/b.c"), "/abs/b.c");
        assert_eq!(
            join("/b", "/usr/lib/gcc/x/12/../../../../include/c++/12/atomic"),
            "/usr/include/c++/12/atomic"
        );
        assert_eq!(join("/w/./d/", "../x/./y.c"), "/w/x/y.c");
        assert_eq!(join("", "../a/b.c"), "../a/b.c");
    }
}
