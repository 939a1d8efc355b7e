//! Recognising a test harness from a binary's symbols.

use super::{Harness, HarnessError};
use goblin::elf::Elf;
use std::path::Path;

/// The harness `path` was built with, from the names in its symbol tables
/// (the static one, and the dynamic one for a harness linked as a shared
/// library).
pub fn detect(path: &Path) -> Result<Harness, HarnessError> {
    let shown = path.display().to_string();
    let unreadable = |reason: String| HarnessError::Unreadable {
        path: shown.clone(),
        reason,
    };
    let bytes = std::fs::read(path).map_err(|e| unreadable(e.to_string()))?;
    let elf = Elf::parse(&bytes).map_err(|e| unreadable(e.to_string()))?;
    let statics = elf.syms.iter().filter_map(|s| elf.strtab.get_at(s.st_name));
    let dynamics = elf
        .dynsyms
        .iter()
        .filter_map(|s| elf.dynstrtab.get_at(s.st_name));
    harness_of(statics.chain(dynamics)).ok_or(HarnessError::Unknown(shown))
}

/// The harness whose entry points appear among `symbols` (mangled names).
/// GoogleTest and Catch2 come first: a C++ test binary may link Rust code,
/// never the other way round with a harness of its own.
pub fn harness_of<'a>(symbols: impl Iterator<Item = &'a str>) -> Option<Harness> {
    let mut libtest = false;
    for symbol in symbols {
        if symbol.starts_with("_ZN7testing14InitGoogleTest")
            || symbol.starts_with("_ZN7testing8UnitTest11GetInstance")
        {
            return Some(Harness::GoogleTest);
        }
        if symbol.starts_with("_ZN5Catch7Session") {
            return Some(Harness::Catch2);
        }
        libtest = libtest || is_libtest_main(symbol);
    }
    libtest.then_some(Harness::Libtest)
}

/// True for a symbol of libtest's entry point (`test::test_main`,
/// `test::test_main_static`, ... in the crate `test`), in either of
/// rustc's manglings.
fn is_libtest_main(symbol: &str) -> bool {
    if !symbol.contains("test_main") {
        return false;
    }
    let Ok(demangled) = rustc_demangle::try_demangle(symbol) else {
        return false;
    };
    let text = format!("{demangled:#}");
    text.match_indices("test::test_main").any(|(at, _)| {
        text[..at]
            .chars()
            .next_back()
            .is_none_or(|c| !(c.is_alphanumeric() || c == '_'))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn libtest_is_recognised_in_both_manglings() {
        let v0 = "_RNCINvCs3mSbOeLENLV_4test28test_main_with_exit_callbackNCNvB4_9test_main0E0B4_";
        assert_eq!(harness_of([v0].into_iter()), Some(Harness::Libtest));
        let legacy = "_ZN4test16test_main_static17h0123456789abcdefE";
        assert_eq!(harness_of([legacy].into_iter()), Some(Harness::Libtest));
    }

    #[test]
    fn a_user_function_named_like_libtest_is_not_libtest() {
        let mine = "_ZN6mytest9test_main17h0123456789abcdefE";
        assert_eq!(harness_of([mine].into_iter()), None);
        assert_eq!(harness_of(["main", "pthread_create"].into_iter()), None);
    }

    #[test]
    fn googletest_and_catch2_are_recognised() {
        let gtest = ["main", "_ZN7testing14InitGoogleTestEPiPPc"];
        assert_eq!(harness_of(gtest.into_iter()), Some(Harness::GoogleTest));
        let catch2 = ["_ZN5Catch7SessionC1Ev"];
        assert_eq!(harness_of(catch2.into_iter()), Some(Harness::Catch2));
    }
}
