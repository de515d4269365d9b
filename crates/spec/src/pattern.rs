//! A fixed data pattern (`data = pattern:...`, fio's `verify_pattern` and
//! `buffer_pattern`): the bytes every write repeats, laid by offset, so a
//! read can be checked against it wherever it lands.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Longest pattern, bytes. fio allows 512; 64 covers the examples and
/// keeps [`crate::DataPattern`] small enough to copy per worker.
pub const MAX_PATTERN: usize = 64;

/// The bytes of a pattern: byte `x` of a target holds `bytes[x % len]`.
/// `len` divides 512, so every sector starts the pattern afresh whatever
/// the block sizes and offsets of the workload.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct PatternBytes {
    len: u8,
    bytes: [u8; MAX_PATTERN],
}

impl PatternBytes {
    /// A pattern of 1, 2, 4, ... 64 bytes.
    pub fn new(b: &[u8]) -> Result<PatternBytes, String> {
        if b.is_empty() || b.len() > MAX_PATTERN || !b.len().is_power_of_two() {
            return Err(format!(
                "a data pattern of {} bytes: iolab takes 1, 2, 4, 8, 16, 32 or 64 bytes (a length that divides a 512-byte sector); repeat or pad it",
                b.len()
            ));
        }
        let mut bytes = [0u8; MAX_PATTERN];
        bytes[..b.len()].copy_from_slice(b);
        Ok(PatternBytes {
            len: b.len() as u8,
            bytes,
        })
    }

    pub fn as_slice(&self) -> &[u8] {
        &self.bytes[..self.len as usize]
    }

    /// Fill `buf`, which starts at a target offset that is a multiple of
    /// the pattern's length (every I/O offset is a multiple of 512).
    pub fn fill(&self, buf: &mut [u8]) {
        let p = self.as_slice();
        for c in buf.chunks_mut(p.len()) {
            c.copy_from_slice(&p[..c.len()]);
        }
    }

    /// The first byte of `buf` (starting at a multiple of the length)
    /// that differs from the pattern.
    pub fn first_mismatch(&self, buf: &[u8]) -> Option<usize> {
        let p = self.as_slice();
        buf.chunks(p.len()).enumerate().find_map(|(i, c)| {
            c.iter()
                .zip(p)
                .position(|(a, b)| a != b)
                .map(|d| i * p.len() + d)
        })
    }

    /// `0x` and the bytes in hex, as `data = pattern:` takes them.
    pub fn to_hex(&self) -> String {
        let mut s = String::from("0x");
        for b in self.as_slice() {
            s.push_str(&format!("{b:02x}"));
        }
        s
    }
}

impl std::fmt::Debug for PatternBytes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.to_hex())
    }
}

/// Parse a pattern: `0x` and hex digits (bytes in the order written, as
/// fio reads them), or a quoted string (`"abcd"` or `'abcd'`).
pub fn parse_pattern(s: &str) -> Result<PatternBytes, String> {
    let s = s.trim();
    if let Some(h) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        if h.is_empty() || h.len() % 2 != 0 || !h.bytes().all(|c| c.is_ascii_hexdigit()) {
            return Err(format!(
                "pattern {s}: give an even number of hex digits after 0x (e.g. 0xaa555aa5)"
            ));
        }
        let b: Vec<u8> = (0..h.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&h[i..i + 2], 16).unwrap_or(0))
            .collect();
        return PatternBytes::new(&b);
    }
    for q in ['"', '\''] {
        if s.len() >= 2 && s.starts_with(q) && s.ends_with(q) {
            return PatternBytes::new(&s.as_bytes()[1..s.len() - 1]);
        }
    }
    Err(format!(
        "pattern {s}: give 0x and hex digits (0xaa555aa5) or a quoted string (\"abcd\")"
    ))
}

impl Serialize for PatternBytes {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_hex())
    }
}

impl<'de> Deserialize<'de> for PatternBytes {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        parse_pattern(&s).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_keeps_the_bytes_in_the_order_written() {
        let p = parse_pattern("0xaa555aa5").unwrap();
        assert_eq!(p.as_slice(), &[0xaa, 0x55, 0x5a, 0xa5]);
        assert_eq!(p.to_hex(), "0xaa555aa5");
        assert_eq!(parse_pattern("'abcd'").unwrap().as_slice(), b"abcd");
    }

    #[test]
    fn bad_patterns_say_what_to_give() {
        for bad in ["0x", "0xabc", "0xzz", "abc", "'abc'", "\"\""] {
            assert!(parse_pattern(bad).is_err(), "{bad}");
        }
        let long = format!("0x{}", "ab".repeat(128));
        assert!(parse_pattern(&long).unwrap_err().contains("1, 2, 4"));
    }

    #[test]
    fn fill_and_mismatch_agree() {
        let p = parse_pattern("0xdeadbeef").unwrap();
        let mut b = vec![0u8; 1024];
        p.fill(&mut b);
        assert_eq!(p.first_mismatch(&b), None);
        b[517] ^= 1;
        assert_eq!(p.first_mismatch(&b), Some(517));
    }
}
