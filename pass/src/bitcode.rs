//! Reading the producer string of a bitcode file (its IDENTIFICATION block)
//! without LLVM, so that bitcode from a newer LLVM is reported clearly
//! instead of failing somewhere inside the reader.
//!
//! ```text
//! 'BC' C0DE  ENTER_SUBBLOCK(13)  DEFINE_ABBREV ...  STRING "LLVM22.1.0"  EPOCH 0  END_BLOCK  MODULE_BLOCK ...
//! ```

const MAGIC: [u8; 4] = [b'B', b'C', 0xC0, 0xDE];
const WRAPPER_MAGIC: [u8; 4] = [0xDE, 0xC0, 0x17, 0x0B];
const IDENTIFICATION_BLOCK: u64 = 13;
const CODE_STRING: u64 = 1;

/// True if `bytes` starts like LLVM bitcode (raw or wrapped).
pub fn is_bitcode(bytes: &[u8]) -> bool {
    bytes.starts_with(&MAGIC) || bytes.starts_with(&WRAPPER_MAGIC)
}

/// The producer string (e.g. `LLVM22.1.0`) of a bitcode file, if it has an
/// identification block.
pub fn producer(bytes: &[u8]) -> Option<String> {
    let body = if bytes.starts_with(&WRAPPER_MAGIC) {
        let word = |i: usize| -> Option<usize> {
            let b = bytes.get(i..i + 4)?;
            Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
        };
        let (offset, size) = (word(8)?, word(12)?);
        bytes.get(offset..offset.checked_add(size)?)?
    } else {
        bytes
    };
    if !body.starts_with(&MAGIC) {
        return None;
    }
    let mut r = Bits {
        data: body,
        pos: 32,
    };
    if r.fixed(2)? != 1 || r.vbr(8)? != IDENTIFICATION_BLOCK {
        return None;
    }
    let width = r.vbr(4)? as u32;
    r.align32();
    r.fixed(32)?;
    read_identification(&mut r, width)
}

/// The major version in a producer string `LLVM<major>.<minor>...`.
pub fn producer_major(producer: &str) -> Option<u32> {
    let rest = producer.strip_prefix("LLVM")?;
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

#[derive(Clone, Copy)]
enum Operand {
    Literal(u64),
    Fixed(u32),
    Vbr(u32),
    Array,
    Char6,
    Blob,
}

struct Bits<'a> {
    data: &'a [u8],
    pos: usize,
}

impl Bits<'_> {
    fn fixed(&mut self, n: u32) -> Option<u64> {
        let mut v = 0u64;
        for i in 0..n {
            let byte = *self.data.get(self.pos / 8)?;
            let bit = (byte >> (self.pos % 8)) & 1;
            v |= u64::from(bit) << i;
            self.pos += 1;
        }
        Some(v)
    }

    fn vbr(&mut self, n: u32) -> Option<u64> {
        if n < 2 {
            return None;
        }
        let hi = 1u64 << (n - 1);
        let (mut v, mut shift) = (0u64, 0u32);
        loop {
            let chunk = self.fixed(n)?;
            v |= (chunk & (hi - 1)).checked_shl(shift)?;
            if chunk & hi == 0 {
                return Some(v);
            }
            shift += n - 1;
            if shift > 64 {
                return None;
            }
        }
    }

    fn align32(&mut self) {
        self.pos = self.pos.div_ceil(32) * 32;
    }

    fn scalar(&mut self, op: Operand) -> Option<u64> {
        match op {
            Operand::Literal(v) => Some(v),
            Operand::Fixed(n) => self.fixed(n),
            Operand::Vbr(n) => self.vbr(n),
            Operand::Char6 => {
                let c = self.fixed(6)? as u8;
                Some(u64::from(match c {
                    0..=25 => b'a' + c,
                    26..=51 => b'A' + c - 26,
                    52..=61 => b'0' + c - 52,
                    62 => b'.',
                    _ => b'_',
                }))
            }
            Operand::Array | Operand::Blob => None,
        }
    }
}

fn read_abbrev(r: &mut Bits<'_>) -> Option<Vec<Operand>> {
    let n = r.vbr(5)?;
    let mut ops = Vec::new();
    for _ in 0..n.min(64) {
        if r.fixed(1)? == 1 {
            ops.push(Operand::Literal(r.vbr(8)?));
        } else {
            ops.push(match r.fixed(3)? {
                1 => Operand::Fixed(r.vbr(5)? as u32),
                2 => Operand::Vbr(r.vbr(5)? as u32),
                3 => Operand::Array,
                4 => Operand::Char6,
                5 => Operand::Blob,
                _ => return None,
            });
        }
    }
    Some(ops)
}

/// Reads one abbreviated record: (code, operands).
fn read_abbreviated(r: &mut Bits<'_>, abbrev: &[Operand]) -> Option<(u64, Vec<u64>)> {
    let mut values = Vec::new();
    let mut i = 0;
    while i < abbrev.len() {
        match abbrev[i] {
            Operand::Array => {
                let elem = *abbrev.get(i + 1)?;
                let len = r.vbr(6)?;
                for _ in 0..len.min(1 << 16) {
                    values.push(r.scalar(elem)?);
                }
                i += 2;
            }
            Operand::Blob => {
                let len = r.vbr(6)?;
                r.align32();
                for _ in 0..len.min(1 << 16) {
                    values.push(r.fixed(8)?);
                }
                r.align32();
                i += 1;
            }
            op => {
                values.push(r.scalar(op)?);
                i += 1;
            }
        }
    }
    if values.is_empty() {
        return None;
    }
    let code = values.remove(0);
    Some((code, values))
}

fn read_identification(r: &mut Bits<'_>, width: u32) -> Option<String> {
    let mut abbrevs: Vec<Vec<Operand>> = Vec::new();
    for _ in 0..64 {
        let id = r.fixed(width)?;
        let (code, values) = match id {
            0 | 1 => return None,
            2 => {
                abbrevs.push(read_abbrev(r)?);
                continue;
            }
            3 => {
                let code = r.vbr(6)?;
                let n = r.vbr(6)?;
                let mut values = Vec::new();
                for _ in 0..n.min(1 << 16) {
                    values.push(r.vbr(6)?);
                }
                (code, values)
            }
            n => read_abbreviated(r, abbrevs.get(usize::try_from(n - 4).ok()?)?)?,
        };
        if code == CODE_STRING {
            return Some(values.iter().map(|&v| char::from(v as u8)).collect());
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn producer_major_parses_llvm_strings() {
        assert_eq!(producer_major("LLVM22.1.0"), Some(22));
        assert_eq!(producer_major("LLVM23.0.0git-rust-1.99"), Some(23));
        assert_eq!(producer_major("APPLE_1"), None);
    }

    #[test]
    fn garbage_is_not_bitcode() {
        assert!(!is_bitcode(b"; ModuleID"));
        assert_eq!(producer(b"BC\xC0\xDE"), None);
    }
}
