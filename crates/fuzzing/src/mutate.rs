//! Mutations of seed inputs, as a fuzzer makes them: bit flips, byte
//! changes, insertions, deletions, truncations, repeated chunks (long
//! strings, long lists), splices from another seed, deep nesting and
//! tokens that break parsers (huge and negative numbers, NaN, quotes,
//! escapes, odd Unicode), also in place of a number or a quoted string
//! of the seed so the structure around them stays valid.
//!
//! A mutation is plain data, so the property tests can generate and
//! shrink lists of them; positions are taken modulo the input's length.

/// Inputs never grow past this (the pass stays fast; the limits it checks
/// are relative to the input's size).
pub const MAX_LEN: usize = 64 * 1024;

/// Tokens that parsers get wrong.
pub const TOKENS: &[&str] = &[
    "0",
    "-1",
    "-0",
    "1.5",
    "0.0000001",
    "4294967295",
    "4294967296",
    "18446744073709551615",
    "18446744073709551616",
    "-9223372036854775808",
    "340282366920938463463374607431768211456",
    "99999999999999999999999999999999999999999999",
    "1e308",
    "1e999",
    "-1e999",
    "NaN",
    "nan",
    "inf",
    "-inf",
    "0x",
    "0xffffffffffffffff",
    "\"",
    "'",
    "'''",
    "\"\"\"",
    "\\",
    "\\u0000",
    "\\ud800",
    "\\040",
    "\\777",
    "\u{0}",
    "\u{feff}",
    "\u{10ffff}",
    "é",
    "\r\n",
    "\n",
    " ",
    "\t",
    ",",
    ":",
    ";",
    "-",
    "/",
    "=",
    "#",
    "[",
    "]",
    "{",
    "}",
    "[[",
    "]]",
    "null",
    "true",
    "[]",
    "{}",
    "\"\"",
    "k",
    "KiB",
    "ms",
    "x",
    "%",
    "4k:60,8k:40",
    "0-1023",
    "1023-0",
];

/// Numbers that break number handling: the limits of every integer type
/// and one past them, negatives, floats out of range.
pub const NUMBERS: &[&str] = &[
    "0",
    "-1",
    "1",
    "255",
    "65536",
    "4294967295",
    "4294967296",
    "9223372036854775807",
    "9223372036854775808",
    "18446744073709551615",
    "18446744073709551616",
    "-9223372036854775808",
    "1e308",
    "-1e308",
    "1e-320",
    "0.5",
];

/// One change to an input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mutation {
    /// Flip one bit.
    FlipBit { at: usize, bit: u8 },
    /// Set one byte.
    SetByte { at: usize, byte: u8 },
    /// Insert bytes.
    Insert { at: usize, bytes: Vec<u8> },
    /// Insert a token of [`TOKENS`].
    Token { at: usize, token: usize },
    /// Remove up to `len` bytes.
    Delete { at: usize, len: usize },
    /// Cut the input at `at`.
    Truncate { at: usize },
    /// Repeat a chunk: long strings, long lists, many sections.
    Repeat { at: usize, len: usize, times: usize },
    /// Open `depth` brackets (`[`, `{` or `[[`-style table headers).
    Nest { at: usize, depth: usize, kind: u8 },
    /// Put `len` bytes of another seed at `at`.
    Splice {
        at: usize,
        seed: usize,
        from: usize,
        len: usize,
    },
    /// Replace the n-th number of the input (a run of digits) by one of
    /// [`NUMBERS`].
    Number { nth: usize, token: usize },
    /// Replace every `every`-th number from the `first`-th by one of
    /// [`NUMBERS`]: sums and products of many huge values.
    Numbers {
        first: usize,
        every: usize,
        token: usize,
    },
    /// Replace the n-th quoted string's content by a token, repeated.
    Quoted {
        nth: usize,
        token: usize,
        times: usize,
    },
}

fn pos(at: usize, len: usize) -> usize {
    if len == 0 {
        0
    } else {
        at % (len + 1)
    }
}

/// Byte ranges of runs of ASCII digits.
fn numbers(b: &[u8]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i].is_ascii_digit() {
            let s = i;
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
            out.push((s, i));
        } else {
            i += 1;
        }
    }
    out
}

/// Byte ranges of the contents of `"..."` strings (no escape handling: a
/// fuzzer's approximation).
fn quoted(b: &[u8]) -> Vec<(usize, usize)> {
    let q: Vec<usize> = b
        .iter()
        .enumerate()
        .filter(|(_, c)| **c == b'"')
        .map(|(i, _)| i)
        .collect();
    q.chunks_exact(2).map(|p| (p[0] + 1, p[1])).collect()
}

fn replace(b: &mut Vec<u8>, (s, e): (usize, usize), with: &[u8]) {
    b.splice(s..e, with.iter().copied());
}

/// Apply one mutation; `seeds` are the splice sources.
pub fn apply_one(b: &mut Vec<u8>, m: &Mutation, seeds: &[&[u8]]) {
    let len = b.len();
    match *m {
        Mutation::FlipBit { at, bit } => {
            if len > 0 {
                b[at % len] ^= 1 << (bit % 8);
            }
        }
        Mutation::SetByte { at, byte } => {
            if len > 0 {
                b[at % len] = byte;
            }
        }
        Mutation::Insert { at, ref bytes } => {
            let p = pos(at, len);
            b.splice(p..p, bytes.iter().copied());
        }
        Mutation::Token { at, token } => {
            let p = pos(at, len);
            let t = TOKENS[token % TOKENS.len()].as_bytes();
            b.splice(p..p, t.iter().copied());
        }
        Mutation::Delete { at, len: n } => {
            if len > 0 {
                let s = at % len;
                let e = (s + n.max(1)).min(len);
                b.drain(s..e);
            }
        }
        Mutation::Truncate { at } => b.truncate(pos(at, len)),
        Mutation::Repeat { at, len: n, times } => {
            if len > 0 {
                let s = at % len;
                let e = (s + n.max(1)).min(len);
                let chunk = b[s..e].to_vec();
                let times = times.min(MAX_LEN / chunk.len().max(1));
                let rep: Vec<u8> = chunk.repeat(times);
                b.splice(e..e, rep);
            }
        }
        Mutation::Nest { at, depth, kind } => {
            let p = pos(at, len);
            let open: &[u8] = match kind % 4 {
                0 => b"[",
                1 => b"{\"a\":",
                2 => b"a=[",
                _ => b"[x.",
            };
            let rep = open.repeat(depth.min(MAX_LEN / open.len()));
            b.splice(p..p, rep);
        }
        Mutation::Splice {
            at,
            seed,
            from,
            len: n,
        } => {
            if !seeds.is_empty() {
                let src = seeds[seed % seeds.len()];
                if !src.is_empty() {
                    let s = from % src.len();
                    let e = (s + n.max(1)).min(src.len());
                    let p = pos(at, len);
                    b.splice(p..p, src[s..e].iter().copied());
                }
            }
        }
        Mutation::Number { nth, token } => {
            let n = numbers(b);
            if !n.is_empty() {
                let t = NUMBERS[token % NUMBERS.len()].as_bytes();
                replace(b, n[nth % n.len()], t);
            }
        }
        Mutation::Numbers {
            first,
            every,
            token,
        } => {
            let n = numbers(b);
            if !n.is_empty() {
                let t = NUMBERS[token % NUMBERS.len()].as_bytes();
                // From the back, so earlier ranges stay where they are.
                for r in n.iter().skip(first % n.len()).step_by(every.max(1)).rev() {
                    replace(b, *r, t);
                }
            }
        }
        Mutation::Quoted { nth, token, times } => {
            let q = quoted(b);
            if !q.is_empty() {
                let t = TOKENS[token % TOKENS.len()].as_bytes();
                let with = t.repeat(times.clamp(1, MAX_LEN / t.len().max(1)));
                replace(b, q[nth % q.len()], &with);
            }
        }
    }
    b.truncate(MAX_LEN);
}

/// `input` with every mutation applied in order.
pub fn apply(input: &[u8], muts: &[Mutation], seeds: &[&[u8]]) -> Vec<u8> {
    let mut b = input.to_vec();
    for m in muts {
        apply_one(&mut b, m, seeds);
    }
    b
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_strings_are_replaced_in_place() {
        let b = apply(
            br#"{"a": 12, "b": "xy"}"#,
            &[
                Mutation::Number { nth: 0, token: 9 },
                Mutation::Quoted {
                    nth: 2,
                    token: 1,
                    times: 2,
                },
            ],
            &[],
        );
        assert_eq!(
            String::from_utf8(b).unwrap(),
            r#"{"a": 18446744073709551615, "b": "-1-1"}"#
        );
    }

    #[test]
    fn growth_is_capped() {
        let b = apply(
            b"abc",
            &[Mutation::Repeat {
                at: 0,
                len: 3,
                times: usize::MAX,
            }],
            &[],
        );
        assert_eq!(b.len(), MAX_LEN);
    }
}
