//! Human-readable function names for site records.

/// Demangles a Rust (legacy or v0) or Itanium C++ symbol; returns other names
/// unchanged.
///
/// ```text
/// _ZN3std6thread5spawn17h0123456789abcdefE  ->  std::thread::spawn
/// _Z6workerPv                                ->  worker(void*)
/// worker                                     ->  worker
/// ```
pub fn demangle(name: &str) -> String {
    if let Ok(d) = rustc_demangle::try_demangle(name) {
        return format!("{d:#}");
    }
    if name.starts_with("_Z") {
        if let Ok(sym) = cpp_demangle::Symbol::new(name) {
            if let Ok(d) = sym.demangle(&cpp_demangle::DemangleOptions::default()) {
                return d;
            }
        }
    }
    name.to_string()
}

#[cfg(test)]
mod tests {
    use super::demangle;

    #[test]
    fn demangles_cpp_rust_and_c() {
        assert_eq!(demangle("_Z6workerPv"), "worker(void*)");
        assert_eq!(
            demangle("_ZN3std6thread5spawn17h0123456789abcdefE"),
            "std::thread::spawn"
        );
        assert_eq!(demangle("main"), "main");
    }
}
