//! Reading a module from bitcode or textual IR, and writing it back.

use crate::bitcode;
use crate::error::PassError;
use inkwell::context::Context;
use inkwell::memory_buffer::MemoryBuffer;
use inkwell::module::Module;
use std::path::Path;

/// Major version of the LLVM this crate is linked against.
pub fn llvm_major() -> u32 {
    let (mut major, mut minor, mut patch) = (0u32, 0u32, 0u32);
    // SAFETY: writes three integers.
    unsafe { inkwell::llvm_sys::core::LLVMGetVersion(&mut major, &mut minor, &mut patch) };
    major
}

/// Reads `path` (bitcode, detected by its magic, or textual IR) into `ctx`.
///
/// Bitcode whose producer is a newer LLVM gives [`PassError::NewerLlvm`].
pub fn read_module<'ctx>(ctx: &'ctx Context, path: &Path) -> Result<Module<'ctx>, PassError> {
    let bytes = std::fs::read(path).map_err(|e| PassError::Read {
        path: path.to_path_buf(),
        message: e.to_string(),
    })?;
    let supported = llvm_major();
    let newer = |producer: String| PassError::NewerLlvm {
        path: path.to_path_buf(),
        producer,
        supported,
    };
    let is_bitcode = bitcode::is_bitcode(&bytes);
    if is_bitcode {
        if let Some(producer) = bitcode::producer(&bytes) {
            if bitcode::producer_major(&producer).is_some_and(|m| m > supported) {
                return Err(newer(producer));
            }
        }
    }
    let name = path.to_string_lossy();
    let buffer = MemoryBuffer::create_from_memory_range_copy(&bytes, &name);
    let parsed = if is_bitcode {
        Module::parse_bitcode_from_buffer(&buffer, ctx)
    } else {
        ctx.create_module_from_ir(buffer)
    };
    parsed.map_err(|e| {
        let message = e.to_string();
        match producer_in_message(&message) {
            Some(p) if bitcode::producer_major(&p).is_some_and(|m| m > supported) => newer(p),
            _ => PassError::Parse {
                path: path.to_path_buf(),
                message: message.trim().to_string(),
            },
        }
    })
}

/// LLVM's bitcode reader errors name the producer: `(Producer: 'LLVM23.0.0' Reader: 'LLVM 22.1.0')`.
fn producer_in_message(message: &str) -> Option<String> {
    let start = message.find("Producer: '")? + "Producer: '".len();
    let end = message[start..].find('\'')?;
    Some(message[start..start + end].to_string())
}

/// Verifies `module`, mapping a failure to an internal-bug error.
pub fn verify(module: &Module<'_>, path: &Path) -> Result<(), PassError> {
    module.verify().map_err(|e| PassError::Verify {
        path: path.to_path_buf(),
        message: e.to_string().trim().to_string(),
    })
}

/// Inlines the hooks' always-inline guards ([`crate::hooks`]) into their
/// callers, so that code generation alone, without the optimisation
/// pipeline, turns each into a compare and a branch.
pub fn inline_guards(module: &Module<'_>, path: &Path) -> Result<(), PassError> {
    run_passes(module, path, c"always-inline", "inlining the hook guards")
}

/// Deletes the functions and globals nothing in the module can reach: the
/// internal definitions no kept symbol refers to (`globaldce`). An
/// unoptimised whole-program module (a Rust binary's fat-LTO module in a
/// debug build) holds every function of every crate it links, most of them
/// never called; they cannot run, so instrumenting and compiling them is
/// wasted work.
pub fn drop_dead_code(module: &Module<'_>, path: &Path) -> Result<(), PassError> {
    run_passes(module, path, c"globaldce", "deleting unreachable code")
}

/// Runs the new pass manager's pipeline `passes` on `module`; `what` names
/// it in an error.
fn run_passes(
    module: &Module<'_>,
    path: &Path,
    passes: &std::ffi::CStr,
    what: &str,
) -> Result<(), PassError> {
    use inkwell::llvm_sys::error::{LLVMDisposeErrorMessage, LLVMGetErrorMessage};
    use inkwell::llvm_sys::transforms::pass_builder as pb;
    // SAFETY: the module is live for the call; the options are created and
    // disposed here; a null target machine is allowed (the passes run here
    // need no target-specific analyses); the error message is copied
    // before it is disposed.
    let error = unsafe {
        let options = pb::LLVMCreatePassBuilderOptions();
        let error = pb::LLVMRunPasses(
            module.as_mut_ptr(),
            passes.as_ptr(),
            std::ptr::null_mut(),
            options,
        );
        pb::LLVMDisposePassBuilderOptions(options);
        if error.is_null() {
            None
        } else {
            let raw = LLVMGetErrorMessage(error);
            let text = std::ffi::CStr::from_ptr(raw).to_string_lossy().into_owned();
            LLVMDisposeErrorMessage(raw);
            Some(text)
        }
    };
    match error {
        None => Ok(()),
        Some(message) => Err(PassError::Internal {
            path: path.to_path_buf(),
            message: format!("{what}: {message}"),
        }),
    }
}

/// Writes `module` as bitcode to `path`.
pub fn write_bitcode(module: &Module<'_>, path: &Path) -> Result<(), PassError> {
    if module.write_bitcode_to_path(path) {
        Ok(())
    } else {
        Err(PassError::Write {
            path: path.to_path_buf(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::producer_in_message;

    #[test]
    fn finds_the_producer_in_reader_errors() {
        let m = "Unknown attribute kind (102) (Producer: 'LLVM24.0.0git' Reader: 'LLVM 22.1.0')";
        assert_eq!(producer_in_message(m).as_deref(), Some("LLVM24.0.0git"));
        assert_eq!(producer_in_message("Invalid record"), None);
    }
}
