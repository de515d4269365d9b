//! fio's value syntax: sizes and `kb_base`, times with a default unit,
//! booleans, percentages, ranges, per-direction lists and arithmetic in
//! parentheses (fio HOWTO "Parameter types"; fio's parse.c and exp/).
//!
//! Every function takes the value as written (variables already filled
//! by [`super::parse`]) and returns either the number or a one-line
//! reason without the option's name (the mapper adds name, file and
//! line). Where fio would silently read something odd (`1.5k` is 1 byte
//! to fio, `4kx` is 4096) these refuse instead: a job must not run a
//! different size from the one its author meant.
//!
//! Units follow what fio does, which differs from its HOWTO in one place:
//! with the default `kb_base=1024`, `k`/`kb`, `m`/`mb`, ... are powers of
//! 1024 and the IEC spellings with a `b` (`kib`, `mib`, ...) are powers of
//! 1000 ("inverted for compatibility"); with `kb_base=1000` it is the
//! other way round. fio 3.33 and 3.42 read `ki`/`mi` (no `b`) as `k`/`m`
//! although the HOWTO lists them with `kib`/`mib` (measured: `size=1mi`
//! does 1048576 bytes of I/O), so iolab does the same.

/// The unit base in force for a job (fio `kb_base`, 1024 or 1000).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Units {
    pub kb_base: u64,
}

impl Default for Units {
    fn default() -> Self {
        Units { kb_base: 1024 }
    }
}

impl Units {
    /// `kb_base=VALUE` (only 1024 and 1000 are fio's).
    pub fn from_kb_base(value: &str) -> Result<Units, String> {
        match value.trim() {
            "1024" => Ok(Units { kb_base: 1024 }),
            "1000" => Ok(Units { kb_base: 1000 }),
            other => Err(format!("kb_base must be 1024 or 1000, not {other:?}")),
        }
    }
}

/// The unit of a time written without one (fio: seconds for `runtime`,
/// `ramp_time`, `startdelay`...; microseconds for `thinktime`,
/// `latency_target`, `max_latency`...; milliseconds for `log_avg_msec`...).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeUnit {
    Seconds,
    Millis,
    Micros,
}

impl TimeUnit {
    fn micros(self) -> i64 {
        match self {
            TimeUnit::Seconds => 1_000_000,
            TimeUnit::Millis => 1_000,
            TimeUnit::Micros => 1,
        }
    }
}

/// A size that fio also takes as a percentage (`size=20%`, `offset=50%`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SizeOrPercent {
    Bytes(u64),
    /// 0..=100.
    Percent(u64),
}

/// The longest value the arithmetic reads (fio's lexer buffer is 1000).
pub const MAX_EXPR_LEN: usize = 997;
/// The deepest nesting of parentheses the arithmetic reads.
pub const MAX_EXPR_DEPTH: usize = 64;

/// A size in bytes: `4096`, `4k`, `4KiB`, `1m`, `0x1000`, `(2*1g)`.
pub fn parse_size(text: &str, units: &Units) -> Result<u64, String> {
    match parse_size_or_percent(text, units)? {
        SizeOrPercent::Bytes(b) => Ok(b),
        SizeOrPercent::Percent(_) => Err(format!(
            "{:?} is a percentage; a size is wanted here",
            text.trim()
        )),
    }
}

/// A size in bytes or a percentage (`20%`).
pub fn parse_size_or_percent(text: &str, units: &Units) -> Result<SizeOrPercent, String> {
    let t = text.trim();
    if t.is_empty() {
        return Err("an empty value where a size is wanted".into());
    }
    if t.starts_with('(') {
        let v = eval(t, Expr::Bytes)?;
        return u64::try_from(v)
            .map(SizeOrPercent::Bytes)
            .map_err(|_| format!("{t:?} is negative; a size is wanted"));
    }
    if let Some(hex) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        return u64::from_str_radix(hex, 16)
            .map(SizeOrPercent::Bytes)
            .map_err(|_| format!("{t:?} is not a hexadecimal number"));
    }
    let (num, suffix) = split_number(t);
    if num.is_empty() {
        return Err(format!(
            "{t:?} is not a size (a number with an optional unit like 4k)"
        ));
    }
    if suffix.starts_with('.') {
        return Err(format!(
            "{t:?} has a fraction, which fio reads as a whole number without the unit; write it in a smaller unit (1536k, not 1.5m)"
        ));
    }
    let n: u64 = num
        .parse()
        .map_err(|_| format!("{t:?} is too large for a size"))?;
    if suffix == "%" {
        return if n <= 100 {
            Ok(SizeOrPercent::Percent(n))
        } else {
            Err(format!("{t:?} is more than 100%"))
        };
    }
    let mult = size_multiplier(suffix, units).ok_or_else(|| {
        format!(
            "{t:?} has an unknown unit {suffix:?}; fio's are b, k, m, g, t, p (and kib, mib, ...)"
        )
    })?;
    n.checked_mul(mult)
        .map(SizeOrPercent::Bytes)
        .ok_or_else(|| format!("{t:?} is too large for a size"))
}

/// The leading digits of `t` and the rest.
fn split_number(t: &str) -> (&str, &str) {
    let end = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    (&t[..end], &t[end..])
}

/// The multiplier of a size suffix (case-insensitive), as fio's
/// `__get_mult_bytes` reads it, but only for whole suffixes.
fn size_multiplier(suffix: &str, units: &Units) -> Option<u64> {
    let s = suffix.to_ascii_lowercase();
    let other = if units.kb_base == 1000 { 1024 } else { 1000 };
    let (pow, base) = match s.as_str() {
        "" | "b" => (0, units.kb_base),
        "k" | "kb" | "ki" => (1, units.kb_base),
        "m" | "mb" | "mi" => (2, units.kb_base),
        "g" | "gb" | "gi" => (3, units.kb_base),
        "t" | "tb" | "ti" => (4, units.kb_base),
        "p" | "pb" | "pi" => (5, units.kb_base),
        "kib" => (1, other),
        "mib" => (2, other),
        "gib" => (3, other),
        "tib" => (4, other),
        "pib" => (5, other),
        _ => return None,
    };
    base.checked_pow(pow)
}

/// A whole number (`8`, `0x10`, `-1`, `(4*2)`), no units.
pub fn parse_int(text: &str) -> Result<i64, String> {
    let t = text.trim();
    if t.starts_with('(') {
        return eval(t, Expr::Plain);
    }
    let (neg, body) = match t.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, t.strip_prefix('+').unwrap_or(t)),
    };
    let parsed = if let Some(hex) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        i64::from_str_radix(hex, 16)
    } else {
        body.parse::<i64>()
    };
    let bad = || format!("{t:?} is not a whole number");
    if !body.starts_with(|c: char| c.is_ascii_digit()) {
        return Err(bad());
    }
    let v = parsed.map_err(|_| bad())?;
    if neg {
        v.checked_neg().ok_or_else(bad)
    } else {
        Ok(v)
    }
}

/// A time in microseconds: `30` (in `default`), `10s`, `500ms`, `100us`,
/// `2m` (minutes), `1h`, `1d`, `(2*30)` (in `default` unless the
/// expression names a unit).
pub fn parse_time_us(text: &str, default: TimeUnit) -> Result<u64, String> {
    let t = text.trim();
    if t.is_empty() {
        return Err("an empty value where a time is wanted".into());
    }
    if t.starts_with('(') {
        let v = eval(t, Expr::Time(default))?;
        return u64::try_from(v).map_err(|_| format!("{t:?} is negative; a time is wanted"));
    }
    let (num, suffix) = split_number(t);
    if num.is_empty() {
        return Err(format!(
            "{t:?} is not a time (a number with an optional unit like 10s)"
        ));
    }
    let n: u64 = num
        .parse()
        .map_err(|_| format!("{t:?} is too large for a time"))?;
    let mult = match suffix.to_ascii_lowercase().as_str() {
        "" => default.micros() as u64,
        "us" | "usec" => 1,
        "ms" | "msec" => 1_000,
        "s" | "sec" => 1_000_000,
        "m" => 60_000_000,
        "h" => 3_600_000_000,
        "d" => 86_400_000_000,
        _ => {
            return Err(format!(
                "{t:?} has an unknown time unit {suffix:?}; fio's are us, ms, s, m, h, d"
            ))
        }
    };
    n.checked_mul(mult)
        .ok_or_else(|| format!("{t:?} is too long a time"))
}

/// A boolean: bare (`None`: true), `1` or `0` (fio reads booleans as
/// integers; `true`/`yes` are errors to fio and here).
pub fn parse_bool(value: Option<&str>) -> Result<bool, String> {
    let Some(v) = value else { return Ok(true) };
    match parse_int(v) {
        Ok(1) => Ok(true),
        Ok(0) => Ok(false),
        _ => Err(format!(
            "{:?} is not a boolean; fio's are 1 and 0",
            v.trim()
        )),
    }
}

/// A percentage 0..=100, with or without `%` (`rwmixread=70`,
/// `percentage_random=50%`); fractions allowed (`buffer_compress_percentage`
/// are whole, but `normal:dev` is not).
pub fn parse_percent(text: &str) -> Result<f64, String> {
    let t = text.trim();
    let body = t.strip_suffix('%').unwrap_or(t).trim();
    let v: f64 = body
        .parse()
        .map_err(|_| format!("{t:?} is not a percentage"))?;
    if (0.0..=100.0).contains(&v) {
        Ok(v)
    } else {
        Err(format!("{t:?} is not between 0 and 100"))
    }
}

/// A value per direction, `read,write,trim` (fio's `bs=4k,64k`): a value
/// not followed by a comma applies to the directions after it too
/// (`4k,64k` = 4k reads, 64k writes and trims; `4k,64k,` leaves trims
/// unset; `,8k` leaves reads unset). Empty entries are `None`.
pub fn split_dirs(text: &str) -> Result<[Option<String>; 3], String> {
    let t = text.trim();
    let parts: Vec<&str> = t.split(',').collect();
    if parts.len() > 3 {
        return Err(format!(
            "{t:?} has more than three comma-separated values (read,write,trim)"
        ));
    }
    let mut out: [Option<String>; 3] = [None, None, None];
    for (i, p) in parts.iter().enumerate() {
        let p = p.trim();
        if !p.is_empty() {
            out[i] = Some(p.to_string());
        }
    }
    let last = parts.len() - 1;
    if let Some(v) = out[last].clone() {
        for slot in out.iter_mut().skip(last + 1) {
            *slot = Some(v.clone());
        }
    }
    Ok(out)
}

/// A size range `4k-64k` or `4k:64k` (swapped if written high to low, as
/// fio does); a single size is the range of one value.
pub fn parse_range(text: &str, units: &Units) -> Result<(u64, u64), String> {
    let t = text.trim();
    // A `-` first is a sign, not the separator.
    let first = t.chars().next().map_or(0, char::len_utf8);
    let sep = t[first..].find(['-', ':']).map(|i| i + first);
    let (lo, hi) = match sep {
        Some(i) => (parse_size(&t[..i], units)?, parse_size(&t[i + 1..], units)?),
        None => {
            let v = parse_size(t, units)?;
            (v, v)
        }
    };
    Ok((lo.min(hi), lo.max(hi)))
}

/// What an expression's bare numbers and unit suffixes mean.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expr {
    /// Bytes: `k`, `m`, `g`, `t`, `p` (with or without `b`) are powers of
    /// 1024 and `kib`, `mib`, `gib`, `pib` powers of 1000, whatever
    /// `kb_base` says (fio's expression lexer ignores it).
    Bytes,
    /// Microseconds: `us`, `ms`, `s`, `m` (minutes), `h`, `d`; without a
    /// unit the whole value is in the given one.
    Time(TimeUnit),
    /// Plain numbers (no suffixes).
    Plain,
}

/// fio's arithmetic in parentheses, `(1024*4)`, `(2*1g)`, `(10+5)s`:
/// `+ - * / % ^` (power), unary minus, parentheses, decimal, hexadecimal
/// and fractional numbers and unit suffixes, as fio's exp/ grammar reads
/// them; anything after `:`, `,` or `#` is ignored as fio's lexer does.
/// Bounded: at most [`MAX_EXPR_LEN`] characters and [`MAX_EXPR_DEPTH`]
/// levels; overflow and division by zero are errors.
pub fn eval(text: &str, kind: Expr) -> Result<i64, String> {
    let t = text.trim();
    if t.len() > MAX_EXPR_LEN {
        return Err(format!(
            "an expression of {} characters; fio reads at most {MAX_EXPR_LEN}",
            t.len()
        ));
    }
    let cut = t.find([':', ',', '#']).unwrap_or(t.len());
    let mut p = expr::Parser::new(&t[..cut], kind);
    let v = p.run().map_err(|e| format!("{t:?}: {e}"))?;
    let v = if p.units_seen {
        v
    } else {
        match kind {
            Expr::Time(u) => v.mul(expr::Num::int(u.micros()))?,
            _ => v,
        }
    };
    Ok(v.to_i64())
}

/// fio's arithmetic with whole numbers only, as fio hands a value with
/// `$ncpus`, `$mb_memory` or `$pagesize` and `+ - * /` to `bc`: integer
/// division, `^` power, `%` remainder, parentheses; no units.
pub fn eval_bc(text: &str) -> Result<i64, String> {
    let t = text.trim();
    if t.len() > MAX_EXPR_LEN {
        return Err(format!("an expression of {} characters", t.len()));
    }
    let mut p = expr::Parser::new(t, Expr::Plain);
    p.integers_only = true;
    p.run()
        .map(|v| v.to_i64())
        .map_err(|e| format!("{t:?}: {e}"))
}

#[path = "expr.rs"]
mod expr;

#[cfg(test)]
#[path = "values_tests.rs"]
mod tests;
