//! The arithmetic of fio values in parentheses (`(2*1g)`, `(10+5)s`): a
//! small recursive-descent reader of fio's exp/ grammar, written here
//! because no crate reads fio's units and precedence, bounded in length
//! and depth, with checked integer arithmetic.
//!
//! Precedence as fio's grammar has it, loosest first: `+ -`; `* /` and a
//! unit suffix (which scales everything multiplied before it); `^`
//! (right-associative); `%`; unary minus.

use super::{Expr, MAX_EXPR_DEPTH};

/// A value as fio's grammar carries it: an integer, or a float once a
/// fractional number took part.
#[derive(Debug, Clone, Copy)]
pub(super) struct Num {
    i: i64,
    f: f64,
    is_f: bool,
}

const OVERFLOW: &str = "the arithmetic overflows";

impl Num {
    pub(super) fn int(i: i64) -> Num {
        Num {
            i,
            f: i as f64,
            is_f: false,
        }
    }

    fn float(f: f64) -> Result<Num, String> {
        if !f.is_finite() || f.abs() >= 9.2e18 {
            return Err(OVERFLOW.into());
        }
        Ok(Num {
            i: f as i64,
            f,
            is_f: true,
        })
    }

    pub(super) fn to_i64(self) -> i64 {
        if self.is_f {
            self.f as i64
        } else {
            self.i
        }
    }

    fn either(
        self,
        o: Num,
        fi: fn(i64, i64) -> Option<i64>,
        ff: fn(f64, f64) -> f64,
    ) -> Result<Num, String> {
        if self.is_f || o.is_f {
            Num::float(ff(self.f, o.f))
        } else {
            fi(self.i, o.i).map(Num::int).ok_or_else(|| OVERFLOW.into())
        }
    }

    pub(super) fn mul(self, o: Num) -> Result<Num, String> {
        self.either(o, i64::checked_mul, |a, b| a * b)
    }

    fn div(self, o: Num) -> Result<Num, String> {
        if (!o.is_f && o.i == 0) || (o.is_f && o.f.abs() < 1e-20) {
            return Err("division by zero".into());
        }
        self.either(o, i64::checked_div, |a, b| a / b)
    }

    fn rem(self, o: Num) -> Result<Num, String> {
        if self.is_f || o.is_f {
            return Err("% of a fractional number".into());
        }
        if o.i == 0 {
            return Err("division by zero".into());
        }
        self.i
            .checked_rem(o.i)
            .map(Num::int)
            .ok_or_else(|| OVERFLOW.into())
    }

    fn pow(self, o: Num) -> Result<Num, String> {
        if !self.is_f && !o.is_f && o.i >= 0 {
            let e = u32::try_from(o.i).map_err(|_| OVERFLOW.to_string())?;
            return self
                .i
                .checked_pow(e)
                .map(Num::int)
                .ok_or_else(|| OVERFLOW.into());
        }
        if self.f == 0.0 && o.f <= 0.0 {
            return Err("0 to a power of 0 or less".into());
        }
        Num::float(self.f.powf(o.f))
    }
}

/// The reader: the text, where it is, and what it has seen.
pub(super) struct Parser<'a> {
    s: &'a [u8],
    pos: usize,
    depth: usize,
    kind: Expr,
    /// Whether a unit suffix was written (then the value is not scaled
    /// by the default unit).
    pub(super) units_seen: bool,
    /// `bc`'s arithmetic: whole numbers only, no suffixes.
    pub(super) integers_only: bool,
}

impl<'a> Parser<'a> {
    pub(super) fn new(text: &'a str, kind: Expr) -> Parser<'a> {
        Parser {
            s: text.as_bytes(),
            pos: 0,
            depth: 0,
            kind,
            units_seen: false,
            integers_only: false,
        }
    }

    /// The whole text as one expression.
    pub(super) fn run(&mut self) -> Result<Num, String> {
        let v = self.sum()?;
        self.skip_ws();
        match self.s.get(self.pos) {
            None => Ok(v),
            Some(&c) => Err(format!(
                "unexpected {:?} at character {}",
                c as char,
                self.pos + 1
            )),
        }
    }

    fn skip_ws(&mut self) {
        while matches!(self.s.get(self.pos), Some(b' ' | b'\t')) {
            self.pos += 1;
        }
    }

    fn peek(&mut self) -> Option<u8> {
        self.skip_ws();
        self.s.get(self.pos).copied()
    }

    fn enter(&mut self) -> Result<(), String> {
        self.depth += 1;
        if self.depth > MAX_EXPR_DEPTH {
            return Err(format!("nested more than {MAX_EXPR_DEPTH} deep"));
        }
        Ok(())
    }

    fn sum(&mut self) -> Result<Num, String> {
        let mut v = self.product()?;
        while let Some(op @ (b'+' | b'-')) = self.peek() {
            self.pos += 1;
            let r = self.product()?;
            v = if op == b'+' {
                v.either(r, i64::checked_add, |a, b| a + b)?
            } else {
                v.either(r, i64::checked_sub, |a, b| a - b)?
            };
        }
        Ok(v)
    }

    fn product(&mut self) -> Result<Num, String> {
        let mut v = self.power()?;
        loop {
            match self.peek() {
                Some(b'*') => {
                    self.pos += 1;
                    v = v.mul(self.power()?)?;
                }
                Some(b'/') => {
                    self.pos += 1;
                    v = v.div(self.power()?)?;
                }
                Some(c) if c.is_ascii_alphabetic() => {
                    let m = self.suffix()?;
                    v = v.mul(m)?;
                }
                _ => return Ok(v),
            }
        }
    }

    fn power(&mut self) -> Result<Num, String> {
        let base = self.modulo()?;
        if self.peek() == Some(b'^') {
            self.pos += 1;
            self.enter()?;
            let e = self.power()?;
            self.depth -= 1;
            return base.pow(e);
        }
        Ok(base)
    }

    fn modulo(&mut self) -> Result<Num, String> {
        let mut v = self.unary()?;
        while self.peek() == Some(b'%') {
            self.pos += 1;
            v = v.rem(self.unary()?)?;
        }
        Ok(v)
    }

    fn unary(&mut self) -> Result<Num, String> {
        match self.peek() {
            Some(b'-') => {
                self.pos += 1;
                self.enter()?;
                let v = self.unary()?;
                self.depth -= 1;
                Num::int(0).either(v, i64::checked_sub, |_, b| -b)
            }
            Some(b'(') => {
                self.pos += 1;
                self.enter()?;
                let v = self.sum()?;
                self.depth -= 1;
                if self.peek() != Some(b')') {
                    return Err("a ( without its )".into());
                }
                self.pos += 1;
                Ok(v)
            }
            Some(c) if c.is_ascii_digit() || c == b'.' => self.number(),
            Some(c) => Err(format!(
                "unexpected {:?} at character {}",
                c as char,
                self.pos + 1
            )),
            None => Err("the expression ends too early".into()),
        }
    }

    fn number(&mut self) -> Result<Num, String> {
        let start = self.pos;
        let rest = &self.s[start..];
        if rest.len() > 2 && rest[0] == b'0' && (rest[1] | 0x20) == b'x' {
            let n = rest[2..]
                .iter()
                .take_while(|c| c.is_ascii_hexdigit())
                .count();
            let digits = std::str::from_utf8(&rest[2..2 + n]).unwrap_or("");
            self.pos += 2 + n;
            return i64::from_str_radix(digits, 16)
                .map(Num::int)
                .map_err(|_| "a bad hexadecimal number".into());
        }
        let mut end = start;
        let mut is_f = false;
        while end < self.s.len() {
            let c = self.s[end];
            let exp_sign =
                matches!(c, b'+' | b'-') && end > start && (self.s[end - 1] | 0x20) == b'e' && is_f;
            if c.is_ascii_digit() || exp_sign {
                end += 1;
            } else if c == b'.'
                || ((c | 0x20) == b'e'
                    && self
                        .s
                        .get(end + 1)
                        .is_some_and(|d| d.is_ascii_digit() || matches!(d, b'+' | b'-')))
            {
                is_f = true;
                end += 1;
            } else {
                break;
            }
        }
        let text = std::str::from_utf8(&self.s[start..end]).unwrap_or("");
        self.pos = end;
        if is_f {
            if self.integers_only {
                return Err("a fractional number where bc reads whole ones".into());
            }
            let f: f64 = text.parse().map_err(|_| format!("a bad number {text:?}"))?;
            Num::float(f)
        } else {
            text.parse::<i64>()
                .map(Num::int)
                .map_err(|_| format!("{text} is too large"))
        }
    }

    /// A unit suffix at the cursor, as the multiplier it stands for.
    fn suffix(&mut self) -> Result<Num, String> {
        let start = self.pos;
        let n = self.s[start..]
            .iter()
            .take_while(|c| c.is_ascii_alphabetic())
            .count();
        self.pos += n;
        let word = String::from_utf8_lossy(&self.s[start..start + n]).to_ascii_lowercase();
        let bytes = match word.as_str() {
            "k" | "kb" => Some(1i64 << 10),
            "m" | "mb" => Some(1 << 20),
            "g" | "gb" => Some(1 << 30),
            "t" | "tb" => Some(1 << 40),
            "p" | "pb" => Some(1 << 50),
            "kib" => Some(1_000),
            "mib" => Some(1_000_000),
            "gib" => Some(1_000_000_000),
            "pib" => Some(1_000_000_000_000),
            _ => None,
        };
        let time = match word.as_str() {
            "us" => Some(1i64),
            "ms" => Some(1_000),
            "s" => Some(1_000_000),
            "m" => Some(60_000_000),
            "h" => Some(3_600_000_000),
            "d" => Some(86_400_000_000),
            _ => None,
        };
        let m = match self.kind {
            _ if self.integers_only => None,
            Expr::Bytes => bytes,
            Expr::Time(_) => time,
            Expr::Plain => None,
        };
        self.units_seen = true;
        m.map(Num::int)
            .ok_or_else(|| format!("{word:?} is not a unit here"))
    }
}
