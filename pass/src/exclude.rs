//! What the pass leaves alone: functions marked not to be instrumented,
//! and the runtime's and the pass's own.

use inkwell::attributes::{Attribute, AttributeLoc};
use inkwell::values::FunctionValue;

/// Function attribute (string key) that excludes a function from instrumentation.
pub const NO_INSTRUMENT_ATTRIBUTE: &str = "reach-no-instrument";
/// Functions placed in a section whose name contains this are not instrumented
/// (C: `__attribute__((section(".text.reach_noinstr")))`).
pub const NO_INSTRUMENT_SECTION: &str = "reach_noinstr";

/// True for functions that must not be instrumented: the runtime's and the
/// pass's own (`__reach_*`), and those marked with
/// [`NO_INSTRUMENT_ATTRIBUTE`], [`NO_INSTRUMENT_SECTION`] or
/// `disable_sanitizer_instrumentation`.
pub fn skip_function(f: FunctionValue<'_>) -> bool {
    let name = f.get_name().to_string_lossy();
    if name.starts_with("__reach_") || name.starts_with("reach_runtime") {
        return true;
    }
    // A naked function's body is only inline assembly: nothing may be added.
    let naked = Attribute::get_named_enum_kind_id("naked");
    if f.get_enum_attribute(AttributeLoc::Function, naked)
        .is_some()
    {
        return true;
    }
    if f.get_section()
        .is_some_and(|s| s.to_string_lossy().contains(NO_INSTRUMENT_SECTION))
    {
        return true;
    }
    if f.get_string_attribute(AttributeLoc::Function, NO_INSTRUMENT_ATTRIBUTE)
        .is_some()
    {
        return true;
    }
    let kind = Attribute::get_named_enum_kind_id("disable_sanitizer_instrumentation");
    kind != 0 && f.get_enum_attribute(AttributeLoc::Function, kind).is_some()
}
