//! The few readings of fio's value syntax the mapper needs (sizes with
//! `kb_base`, times with a default unit, booleans, per-direction lists,
//! `:` lists with `\:` escapes), as the mapper uses them. fio's HOWTO
//! "Parameter types" is the reference. Kept here, small, so the mapper
//! does not depend on the shape of the parser's value module; arithmetic
//! and variables were filled by the parser before these run.

/// A size in bytes: a number with fio's suffixes. With `kb_base` 1024
/// (fio's default) `k`/`kb` are 1024 and the IEC forms `ki`/`kib` are
/// 1000 (fio inverts them for compatibility); with 1000 the other way.
pub fn size(text: &str, kb_base: u64) -> Result<u64, String> {
    let t = text.trim();
    let bad = || format!("'{t}' is not a size (fio: a number with k, m, g, t, p, e.g. 4k)");
    let end = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, suffix) = t.split_at(end);
    if num.is_empty() {
        return Err(bad());
    }
    let n: f64 = num.parse().map_err(|_| bad())?;
    let s = suffix.trim().to_ascii_lowercase();
    let (letter, rest) = match s.chars().next() {
        Some(c) if "kmgtpe".contains(c) => (Some(c), &s[1..]),
        _ => (None, s.as_str()),
    };
    let other = if kb_base == 1000 { 1024 } else { 1000 };
    let base = match rest {
        "" | "b" => kb_base,
        "i" | "ib" => other,
        _ if letter.is_none() && (rest.is_empty() || rest == "b") => kb_base,
        _ => return Err(bad()),
    };
    let power = match letter {
        None => 0,
        Some(c) => "kmgtpe".find(c).unwrap_or(0) as i32 + 1,
    };
    let bytes = n * (base as f64).powi(power);
    if !bytes.is_finite() || bytes >= u64::MAX as f64 {
        return Err(format!("'{t}' is too large a size"));
    }
    Ok(bytes.round() as u64)
}

/// A time in microseconds; a bare number is in `default_us` units
/// (1,000,000 for seconds, 1 for microseconds).
pub fn time_us(text: &str, default_us: u64) -> Result<u64, String> {
    let t = text.trim();
    let bad = || format!("'{t}' is not a time (fio: a number with d, h, m, s, ms, us)");
    let end = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, suffix) = t.split_at(end);
    if num.is_empty() {
        return Err(bad());
    }
    let n: f64 = num.parse().map_err(|_| bad())?;
    let unit = match suffix.trim().to_ascii_lowercase().as_str() {
        "" => default_us as f64,
        "d" => 86_400e6,
        "h" => 3_600e6,
        "m" | "min" => 60e6,
        "s" | "sec" => 1e6,
        "ms" | "msec" => 1e3,
        "us" | "usec" => 1.0,
        "ns" | "nsec" => 1e-3,
        _ => return Err(bad()),
    };
    let us = n * unit;
    if !us.is_finite() || us > 1e16 {
        return Err(format!("'{t}' is too long a time"));
    }
    Ok(us.round() as u64)
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

/// A boolean: a bare option is true; fio takes 0/1 and the words.
pub fn boolean(v: Option<&str>) -> Result<bool, String> {
    match v.map(|s| s.trim().to_ascii_lowercase()) {
        None => Ok(true),
        Some(s) => match s.as_str() {
            "" | "1" | "true" | "yes" | "on" => Ok(true),
            "0" | "false" | "no" | "off" => Ok(false),
            _ => Err(format!("'{s}' is not a boolean (fio: 0 or 1)")),
        },
    }
}

/// A whole number.
pub fn uint(v: &str) -> Result<u64, String> {
    v.trim()
        .parse()
        .map_err(|_| format!("'{}' is not a whole number", v.trim()))
}

/// A percentage 0-100 (a trailing `%` allowed).
pub fn percent(v: &str) -> Result<u64, String> {
    let n = uint(v.trim().trim_end_matches('%'))?;
    if n > 100 {
        return Err(format!("'{}' is not a percentage (0-100)", v.trim()));
    }
    Ok(n)
}

/// fio's per-direction list `read,write,trim`: a value not followed by a
/// comma applies to the directions after it too; an empty one keeps the
/// default (`None`). `bs=8k,32k` is 8k, 32k, 32k; `bs=8k,32k,` leaves
/// trims at the default; `bs=,8k` leaves reads.
pub fn per_dir(v: &str) -> Result<[Option<String>; 3], String> {
    let parts: Vec<&str> = v.split(',').map(str::trim).collect();
    if parts.len() > 3 {
        return Err(format!(
            "'{v}' has more than three values (fio: read,write,trim)"
        ));
    }
    let mut out: [Option<String>; 3] = [None, None, None];
    for (i, p) in parts.iter().enumerate() {
        if !p.is_empty() {
            out[i] = Some(p.to_string());
        }
    }
    if let Some(last) = parts.last().filter(|p| !p.is_empty()) {
        for slot in out.iter_mut().skip(parts.len()) {
            *slot = Some(last.to_string());
        }
    }
    Ok(out)
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
    fn sizes_follow_kb_base_and_the_inverted_iec_suffixes() {
        assert_eq!(size("4k", 1024), Ok(4096));
        assert_eq!(size("4ki", 1024), Ok(4000));
        assert_eq!(size("1mi", 1000), Ok(1 << 20));
        assert_eq!(size("1M", 1000), Ok(1_000_000));
        assert_eq!(size("512", 1024), Ok(512));
        assert_eq!(size("1.5g", 1024), Ok(3 << 29));
        assert!(size("4q", 1024).is_err());
        assert!(size("k", 1024).is_err());
    }

    #[test]
    fn times_have_a_default_unit() {
        assert_eq!(time_us("30", 1_000_000), Ok(30_000_000));
        assert_eq!(time_us("100", 1), Ok(100));
        assert_eq!(time_us("2m", 1), Ok(120_000_000));
        assert_eq!(time_us("5ms", 1_000_000), Ok(5000));
        assert_eq!(fmt_us(1_500_000), "1500ms");
        assert!(time_us("x", 1).is_err());
    }

    #[test]
    fn per_direction_lists_carry_the_last_value_on() {
        let s = |v: &str| per_dir(v).unwrap().map(|x| x.unwrap_or_default());
        assert_eq!(s("8k,32k"), ["8k", "32k", "32k"]);
        assert_eq!(s("8k,32k,"), ["8k", "32k", ""]);
        assert_eq!(s(",8k"), ["", "8k", "8k"]);
        assert_eq!(s("4k"), ["4k", "4k", "4k"]);
        assert!(per_dir("1,2,3,4").is_err());
    }

    #[test]
    fn colon_lists_keep_escaped_colons() {
        assert_eq!(colon_list("/a:/b"), ["/a", "/b"]);
        assert_eq!(colon_list(r"iscsi\://h/1:/c"), ["iscsi://h/1", "/c"]);
        assert_eq!(fmt_size(65536), "64k");
        assert_eq!(fmt_size(1000), "1000");
    }
}
