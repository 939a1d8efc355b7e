//! Readable names for the symbols reports show: Rust (legacy and v0
//! manglings, without hashes or crate disambiguators) and Itanium C++.

/// The demangled form of `symbol`, or `symbol` itself when it is not a
/// mangled name.
///
/// ```text
/// _RNvNtNtCsjrHSEGnQ3l9_3std6thread7current7CURRENT  ->  std::thread::current::CURRENT
/// _ZZN7testing8UnitTest11GetInstanceEvE8instance     ->  testing::UnitTest::GetInstance()::instance
/// counter                                            ->  counter
/// ```
pub fn demangle(symbol: &str) -> String {
    if let Ok(rust) = rustc_demangle::try_demangle(symbol) {
        return format!("{rust:#}");
    }
    if symbol.starts_with("_Z") {
        if let Ok(cpp) = cpp_demangle::Symbol::new(symbol) {
            if let Ok(text) = cpp.demangle(&cpp_demangle::DemangleOptions::default()) {
                return text;
            }
        }
    }
    symbol.to_string()
}

/// True for the pseudo-file rustc names a codegen unit by
/// (`.../lock_kit.3da50023bda25a8c-cgu.0`): code without a source line of
/// its own.
pub fn is_codegen_unit(file: &str) -> bool {
    let name = file.rsplit('/').next().unwrap_or(file);
    name.rsplit_once("-cgu.")
        .is_some_and(|(_, unit)| !unit.is_empty() && unit.bytes().all(|b| b.is_ascii_digit()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rust_and_cpp_symbols_are_demangled_without_hashes() {
        assert_eq!(
            demangle("_RNvNtNtCsjrHSEGnQ3l9_3std6thread7current7CURRENT"),
            "std::thread::current::CURRENT"
        );
        assert_eq!(
            demangle("_ZN3std6thread5spawn17h0123456789abcdefE"),
            "std::thread::spawn"
        );
        assert_eq!(
            demangle("_ZZN7testing8UnitTest11GetInstanceEvE8instance"),
            "testing::UnitTest::GetInstance()::instance"
        );
        assert_eq!(demangle("counter"), "counter");
    }

    #[test]
    fn codegen_unit_pseudo_files_are_recognised() {
        assert!(is_codegen_unit(
            "/work/rust-examples/lock_kit.3da50023bda25a8c-cgu.0"
        ));
        assert!(is_codegen_unit("kit.1a-cgu.12"));
        assert!(!is_codegen_unit("src/lib.rs"));
        assert!(!is_codegen_unit("src/my-cgu.rs"));
    }
}
