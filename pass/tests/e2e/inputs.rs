//! Bad and unusual inputs to `reach-instrument`.

use super::common::*;
use std::path::Path;

/// Writes bits least-significant first, as the LLVM bitstream does.
struct BitWriter {
    bytes: Vec<u8>,
    bit: usize,
}

impl BitWriter {
    fn emit(&mut self, value: u64, width: u32) {
        for i in 0..width {
            if self.bit & 7 == 0 {
                self.bytes.push(0);
            }
            if value >> i & 1 == 1 {
                let last = self.bytes.len() - 1;
                self.bytes[last] |= 1 << (self.bit % 8);
            }
            self.bit += 1;
        }
    }

    fn vbr(&mut self, mut value: u64, width: u32) {
        let hi = 1u64 << (width - 1);
        loop {
            if value < hi {
                self.emit(value, width);
                return;
            }
            self.emit((value & (hi - 1)) | hi, width);
            value >>= width - 1;
        }
    }

    fn align32(&mut self) {
        while self.bit & 31 != 0 {
            self.emit(0, 1);
        }
    }
}

/// Replaces the identification block of a bitcode file by one naming
/// `producer` (char6 letters, digits and dots), padded with ignored records to
/// the original block's size so offsets in the module block stay valid.
fn with_producer(bitcode: &[u8], producer: &str) -> Vec<u8> {
    assert_eq!(&bitcode[..4], b"BC\xC0\xDE");
    let words = u32::from_le_bytes([bitcode[8], bitcode[9], bitcode[10], bitcode[11]]) as usize;
    let rest = &bitcode[12 + 4 * words..];
    let char6 = |b: u8| -> u64 {
        u64::from(match b {
            b'a'..=b'z' => b - b'a',
            b'A'..=b'Z' => b - b'A' + 26,
            b'0'..=b'9' => b - b'0' + 52,
            b'.' => 62,
            _ => 63,
        })
    };
    let mut w = BitWriter {
        bytes: b"BC\xC0\xDE".to_vec(),
        bit: 32,
    };
    w.emit(1, 2); // ENTER_SUBBLOCK
    w.vbr(13, 8); // IDENTIFICATION_BLOCK
    w.vbr(5, 4); // abbreviation width
    w.align32();
    let len_at = w.bytes.len();
    w.emit(0, 32);
    let body_start = w.bit;
    // DEFINE_ABBREV [literal 1 (STRING), array of char6]
    w.emit(2, 5);
    w.vbr(3, 5);
    w.emit(1, 1);
    w.vbr(1, 8);
    w.emit(0, 1);
    w.emit(3, 3);
    w.emit(0, 1);
    w.emit(4, 3);
    w.emit(4, 5); // the abbreviated STRING record
    w.vbr(producer.len() as u64, 6);
    for b in producer.bytes() {
        w.emit(char6(b), 6);
    }
    w.emit(3, 5); // UNABBREV_RECORD EPOCH [0]
    w.vbr(2, 6);
    w.vbr(1, 6);
    w.vbr(0, 6);
    // Pad with repeated EPOCH records until END_BLOCK ends in the last word.
    while (w.bit - body_start + 5).div_ceil(32) < words {
        w.emit(3, 5);
        w.vbr(2, 6);
        w.vbr(1, 6);
        w.vbr(0, 6);
    }
    w.emit(0, 5); // END_BLOCK
    w.align32();
    let body_words = (w.bit - body_start) / 32;
    assert_eq!(
        body_words, words,
        "replacement identification block does not fit"
    );
    w.bytes[len_at..len_at + 4].copy_from_slice(&(body_words as u32).to_le_bytes());
    let mut out = w.bytes;
    out.extend_from_slice(rest);
    out
}

fn c_bitcode(dir: &Path) -> Vec<u8> {
    std::fs::write(dir.join("x.c"), "int g; int main(void) { return g; }\n").expect("write");
    ok_in(dir, "clang-22", &["-emit-llvm", "-c", "x.c", "-o", "x.bc"]);
    std::fs::read(dir.join("x.bc")).expect("read")
}

#[test]
fn producer_of_clang_bitcode_is_read() {
    let dir = tempdir();
    let bc = c_bitcode(dir.path());
    let producer = reach_pass::bitcode::producer(&bc).expect("producer");
    assert_eq!(
        reach_pass::bitcode::producer_major(&producer),
        Some(22),
        "{producer}"
    );
    // The rewriting helper itself yields readable bitcode.
    let same = with_producer(&bc, &producer);
    std::fs::write(dir.path().join("same.bc"), same).expect("write");
    ok_in(
        dir.path(),
        bin("reach-instrument"),
        &["same.bc", "-o", "same.inst.bc"],
    );
}

#[test]
fn bitcode_from_a_newer_llvm_is_one_clear_error() {
    let dir = tempdir();
    let bc = c_bitcode(dir.path());
    std::fs::write(dir.path().join("new.bc"), with_producer(&bc, "LLVM99.1.0")).expect("write");
    let out = run_in(
        dir.path(),
        bin("reach-instrument"),
        &["new.bc", "-o", "out.bc"],
    );
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("LLVM99.1.0") && err.contains("LLVM 22"),
        "{err}"
    );
    assert!(err.contains("clang-22"), "{err}");
    assert!(!dir.path().join("out.bc").exists());
}

#[test]
fn missing_garbage_and_already_instrumented_inputs() {
    let dir = tempdir();
    let d = dir.path();
    let out = run_in(d, bin("reach-instrument"), &["missing.bc", "-o", "o.bc"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && err.contains("cannot read missing.bc"),
        "{err}"
    );

    std::fs::write(d.join("junk.ll"), "this is not IR\n").expect("write");
    let out = run_in(d, bin("reach-instrument"), &["junk.ll", "-o", "o.bc"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && err.contains("cannot parse junk.ll"),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");

    c_bitcode(d);
    ok_in(d, bin("reach-instrument"), &["x.bc", "-o", "once.bc"]);
    let out = run_in(d, bin("reach-instrument"), &["once.bc", "-o", "twice.bc"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && err.contains("already instrumented"),
        "{err}"
    );
}

#[test]
fn textual_ir_input() {
    let dir = tempdir();
    let ir = "@g = global i32 0\n\ndefine i32 @f() {\n  %v = load i32, ptr @g\n  store i32 1, ptr @g\n  ret i32 %v\n}\n";
    std::fs::write(dir.path().join("f.ll"), ir).expect("write");
    ok_in(dir.path(), bin("reach-instrument"), &["f.ll", "-o", "f.bc"]);
    let out = disassemble(&dir.path().join("f.bc"));
    let body = function_body(&out, "f");
    assert!(body.contains("@__reach_load.guard(i64 "), "{body}");
    assert!(body.contains("@__reach_store.guard(i64 "), "{body}");
}
