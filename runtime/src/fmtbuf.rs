//! A fixed-size text buffer implementing `core::fmt::Write` (no allocation),
//! for status messages.

use reach_channel::layout::MESSAGE_BYTES;

/// Text buffer; writes past the end are dropped.
pub struct FmtBuf {
    buf: [u8; MESSAGE_BYTES],
    len: usize,
}

impl FmtBuf {
    /// An empty buffer.
    pub const fn new() -> FmtBuf {
        FmtBuf {
            buf: [0; MESSAGE_BYTES],
            len: 0,
        }
    }

    /// The text written so far.
    pub fn bytes(&self) -> &[u8] {
        &self.buf[..self.len]
    }
}

impl Default for FmtBuf {
    fn default() -> Self {
        FmtBuf::new()
    }
}

impl core::fmt::Write for FmtBuf {
    fn write_str(&mut self, s: &str) -> core::fmt::Result {
        let room = self.buf.len() - self.len;
        let mut n = s.len().min(room);
        while n > 0 && !s.is_char_boundary(n) {
            n -= 1;
        }
        self.buf[self.len..self.len + n].copy_from_slice(&s.as_bytes()[..n]);
        self.len += n;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use core::fmt::Write;

    #[test]
    fn truncates_at_a_char_boundary() {
        let mut b = FmtBuf::new();
        for _ in 0..MESSAGE_BYTES {
            let _ = write!(b, "é");
        }
        assert!(b.bytes().len() <= MESSAGE_BYTES);
        assert!(core::str::from_utf8(b.bytes()).is_ok());
    }
}
