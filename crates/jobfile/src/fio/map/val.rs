//! fio's values as the mapper reads them: thin wrappers over
//! [`crate::fio::values`] (the parser's, fio's syntax in one place) in
//! the units the mapper uses, plus `:` lists with `\:` escapes, ranges
//! kept as text, and how iolab writes sizes and times back.

use crate::fio::values::{self, TimeUnit, Units};

/// A size in bytes with the job's `kb_base` ([`values::parse_size`]).
pub fn size(text: &str, kb_base: u64) -> Result<u64, String> {
    values::parse_size(text, &Units { kb_base })
}

/// A time in microseconds; a bare number is in `default_us` units
/// (1,000,000 for seconds, 1000 for milliseconds, 1 for microseconds).
pub fn time_us(text: &str, default_us: u64) -> Result<u64, String> {
    let unit = match default_us {
        1_000_000 => TimeUnit::Seconds,
        1000 => TimeUnit::Millis,
        _ => TimeUnit::Micros,
    };
    values::parse_time_us(text, unit)
}

/// Microseconds written for iolab: whole seconds as `Ns`, else `Nms` or
/// `Nus`.
pub fn fmt_us(us: u64) -> String {
    if us.is_multiple_of(1_000_000) {
        format!("{}s", us / 1_000_000)
    } else if us.is_multiple_of(1000) {
        format!("{}ms", us / 1000)
    } else {
        format!("{us}us")
    }
}

/// Bytes written for iolab (binary suffixes, exact).
pub fn fmt_size(b: u64) -> String {
    for (shift, s) in [(50, "p"), (40, "t"), (30, "g"), (20, "m"), (10, "k")] {
        if b != 0 && b.is_multiple_of(1u64 << shift) {
            return format!("{}{s}", b >> shift);
        }
    }
    b.to_string()
}

/// A boolean: a bare option is true ([`values::parse_bool`]).
pub fn boolean(v: Option<&str>) -> Result<bool, String> {
    values::parse_bool(v)
}

/// A whole number (arithmetic allowed, as fio's integers).
pub fn uint(v: &str) -> Result<u64, String> {
    let n = values::parse_int(v)?;
    u64::try_from(n).map_err(|_| format!("{:?} is negative; give 0 or more", v.trim()))
}

/// A whole percentage 0-100 (a trailing `%` allowed).
pub fn percent(v: &str) -> Result<u64, String> {
    let p = values::parse_percent(v)?;
    if p.fract() != 0.0 {
        return Err(format!("{:?}: iolab takes whole percentages", v.trim()));
    }
    Ok(p as u64)
}

/// fio's per-direction list `read,write,trim` ([`values::split_dirs`]):
/// a value not followed by a comma applies to the directions after it
/// too; an empty one keeps the default (`None`).
pub fn per_dir(v: &str) -> Result<[Option<String>; 3], String> {
    values::split_dirs(v)
}

/// A `:` list with `\:` escapes (fio `filename`, `directory`).
pub fn colon_list(v: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut chars = v.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&':') => {
                chars.next();
                cur.push(':');
            }
            ':' => out.push(std::mem::take(&mut cur)),
            c => cur.push(c),
        }
    }
    out.push(cur);
    out.into_iter().filter(|s| !s.is_empty()).collect()
}

/// A range `lo-hi` or `lo:hi` (or one value), as text.
pub fn range(v: &str) -> (String, Option<String>) {
    let t = v.trim();
    match t.split_once(['-', ':']) {
        Some((a, b)) if !a.is_empty() => (a.trim().to_string(), Some(b.trim().to_string())),
        _ => (t.to_string(), None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrappers_keep_the_units() {
        assert_eq!(size("4k", 1024), Ok(4096));
        assert_eq!(size("1m", 1000), Ok(1_000_000));
        assert_eq!(time_us("30", 1_000_000), Ok(30_000_000));
        assert_eq!(time_us("100", 1), Ok(100));
        assert_eq!(fmt_us(1_500_000), "1500ms");
        assert_eq!(percent("25%"), Ok(25));
        assert!(percent("2.5").is_err());
        assert!(uint("-1").is_err());
    }

    #[test]
    fn colon_lists_keep_escaped_colons() {
        assert_eq!(colon_list("/a:/b"), ["/a", "/b"]);
        assert_eq!(colon_list(r"iscsi\://h/1:/c"), ["iscsi://h/1", "/c"]);
        assert_eq!(fmt_size(65536), "64k");
        assert_eq!(fmt_size(1000), "1000");
    }
}
