//! Building a module's site table and embedding it in the object file.
//!
//! Sites are numbered in the order they are added (the pass adds them in a
//! deterministic traversal: functions, blocks and instructions in module
//! order), so ids are stable across builds of the same source. The records
//! ([`reach_channel::sites::Site::to_record`]) are emitted as one private
//! byte array in the section [`reach_channel::hooks::SITES_SECTION`], kept by
//! `llvm.used`; the linker concatenates every module's table:
//!
//! ```text
//! @__reach_sites.table = private constant [N x i8] c"...records...", section "reach_sites", align 1
//! @llvm.used = appending global [1 x ptr] [ptr @__reach_sites.table], section "llvm.metadata"
//! ```

use crate::debuginfo::SourceLoc;
use inkwell::llvm_sys::core as c;
use inkwell::module::{Linkage, Module};
use inkwell::values::{AsValueRef, BasicValueEnum, PointerValue};
use reach_channel::hooks::SITES_SECTION;
use reach_channel::sites::{abi_record, site_id, Site};

/// Name of the table global; its presence marks an already instrumented module.
pub const TABLE_GLOBAL: &str = "__reach_sites.table";

/// The site records of one module, in ordinal order.
#[derive(Debug)]
pub struct SiteTable {
    module_path: String,
    sites: Vec<Site>,
}

impl SiteTable {
    /// An empty table for the module whose source path is `module_path`.
    pub fn new(module_path: &str) -> Self {
        SiteTable {
            module_path: module_path.to_string(),
            sites: Vec::new(),
        }
    }

    /// Adds a site and returns its id.
    pub fn add(&mut self, what: &str, loc: SourceLoc) -> u64 {
        let ordinal = u32::try_from(self.sites.len()).unwrap_or(u32::MAX);
        let id = site_id(&self.module_path, ordinal);
        self.sites.push(Site {
            id,
            what: what.to_string(),
            file: loc.file,
            line: loc.line,
            column: loc.column,
            function: loc.function,
            inlined_at: loc.inlined_at,
        });
        id
    }

    /// The sites added so far.
    pub fn sites(&self) -> &[Site] {
        &self.sites
    }

    /// The table as text (what the section holds): the hook ABI record,
    /// then one record per site.
    pub fn text(&self) -> String {
        let mut text = abi_record();
        text.extend(self.sites.iter().map(Site::to_record));
        text
    }

    /// Embeds the table in `module` and appends it to `llvm.used`.
    pub fn emit(&self, module: &Module<'_>) {
        let ctx = module.get_context();
        let bytes = self.text().into_bytes();
        let init = ctx.const_string(&bytes, false);
        let global = module.add_global(init.get_type(), None, TABLE_GLOBAL);
        global.set_initializer(&init);
        global.set_constant(true);
        global.set_linkage(Linkage::Private);
        global.set_section(Some(SITES_SECTION));
        global.set_alignment(1);
        append_to_used(module, global.as_pointer_value());
    }
}

/// Rebuilds `llvm.used` with `value` appended to its existing entries.
fn append_to_used<'ctx>(module: &Module<'ctx>, value: PointerValue<'ctx>) {
    let ctx = module.get_context();
    let ptr_type = ctx.ptr_type(inkwell::AddressSpace::default());
    let mut entries: Vec<PointerValue<'ctx>> = Vec::new();
    if let Some(old) = module.get_global("llvm.used") {
        if let Some(BasicValueEnum::ArrayValue(arr)) = old.get_initializer() {
            // SAFETY: the operands of the array initialiser are pointer constants.
            unsafe {
                let raw = arr.as_value_ref();
                for i in 0..c::LLVMGetNumOperands(raw).max(0) as u32 {
                    entries.push(PointerValue::new(c::LLVMGetOperand(raw, i)));
                }
            }
        }
        // SAFETY: `old` is a global of this module, replaced just below.
        unsafe { old.delete() };
    }
    entries.push(value);
    let init = ptr_type.const_array(&entries);
    let used = module.add_global(init.get_type(), None, "llvm.used");
    used.set_initializer(&init);
    used.set_linkage(Linkage::Appending);
    used.set_section(Some("llvm.metadata"));
}
