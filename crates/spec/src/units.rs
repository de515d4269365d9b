//! Sizes and durations as storage engineers write them.
//!
//! Sizes: a plain number is bytes; the suffixes k, m, g, t, p (with or
//! without a trailing `b`, `ib` or `iB`, any case) are binary multiples
//! (1k = 1024), as in fio's default `kb_base=1024`, vdbench and dd. There
//! is no decimal suffix: give bytes for decimal sizes.
//!
//! Durations: a plain number is seconds; suffixes ns, us, ms, s, m, h, d.

use std::time::Duration;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UnitError {
    #[error(
        "'{0}' is not a size; write bytes or a number with k, m, g, t (1k = 1024), e.g. 4k or 1m"
    )]
    BadSize(String),
    #[error(
        "'{0}' is not a duration; write seconds or a number with ms, s, m, h, e.g. 30s or 500ms"
    )]
    BadDuration(String),
    #[error("'{0}' is too large (max {MAX_SIZE_TEXT}); give a smaller size")]
    SizeTooLarge(String),
    #[error("'{0}' is negative; give a size of 0 or more, e.g. 4k")]
    NegativeSize(String),
    #[error("'{0}' is too long (max {MAX_DURATION_TEXT}); give a shorter time")]
    DurationTooLarge(String),
    #[error("'{0}' is negative; give a time of 0 or more, e.g. 30s")]
    NegativeDuration(String),
}

/// The largest size: a byte count must fit in 64 bits.
pub const MAX_SIZE_TEXT: &str = "16383p, just under 16 EiB";
/// The longest duration iolab takes, in seconds (about 317 years).
pub const MAX_DURATION_S: f64 = 1e10;
const MAX_DURATION_TEXT: &str = "10000000000s, about 317 years";

/// A leading minus sign before a number: said as "negative", not "not a size".
fn is_negative(t: &str) -> bool {
    t.strip_prefix('-').is_some_and(|r| {
        r.trim_start()
            .starts_with(|c: char| c.is_ascii_digit() || c == '.')
    })
}

fn split_number(s: &str) -> (&str, &str) {
    let end = s
        .char_indices()
        .find(|(_, c)| !(c.is_ascii_digit() || *c == '.'))
        .map(|(i, _)| i)
        .unwrap_or(s.len());
    (&s[..end], s[end..].trim())
}

/// Parse a size such as `4096`, `4k`, `1m`, `1.5g`, `64KiB`.
pub fn parse_size(s: &str) -> Result<u64, UnitError> {
    let t = s.trim();
    let bad = || UnitError::BadSize(s.to_string());
    let big = || UnitError::SizeTooLarge(s.to_string());
    if is_negative(t) {
        return Err(UnitError::NegativeSize(s.to_string()));
    }
    let (num, suffix) = split_number(t);
    if num.is_empty() {
        return Err(bad());
    }
    let mult: u64 = match suffix.to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kb" | "kib" => 1 << 10,
        "m" | "mb" | "mib" => 1 << 20,
        "g" | "gb" | "gib" => 1 << 30,
        "t" | "tb" | "tib" => 1 << 40,
        "p" | "pb" | "pib" => 1 << 50,
        _ => return Err(bad()),
    };
    if num.contains('.') {
        let v: f64 = num.parse().map_err(|_| bad())?;
        let bytes = v * mult as f64;
        if bytes.is_infinite() || bytes >= u64::MAX as f64 {
            return Err(big());
        }
        if !bytes.is_finite() || bytes < 0.0 || bytes.fract() != 0.0 {
            return Err(bad());
        }
        Ok(bytes as u64)
    } else {
        let v: u64 = num.parse().map_err(|e: std::num::ParseIntError| {
            if *e.kind() == std::num::IntErrorKind::PosOverflow {
                big()
            } else {
                bad()
            }
        })?;
        v.checked_mul(mult).ok_or_else(big)
    }
}

/// Parse a duration such as `30`, `30s`, `500ms`, `5m`, `1h`, `1.5s`.
pub fn parse_duration(s: &str) -> Result<Duration, UnitError> {
    let t = s.trim();
    let bad = || UnitError::BadDuration(s.to_string());
    if is_negative(t) {
        return Err(UnitError::NegativeDuration(s.to_string()));
    }
    let (num, suffix) = split_number(t);
    if num.is_empty() {
        return Err(bad());
    }
    let v: f64 = num.parse().map_err(|_| bad())?;
    let secs_per_unit = match suffix.to_ascii_lowercase().as_str() {
        "" | "s" | "sec" | "secs" => 1.0,
        "ns" => 1e-9,
        "us" | "usec" => 1e-6,
        "ms" | "msec" => 1e-3,
        "m" | "min" => 60.0,
        "h" => 3600.0,
        "d" => 86400.0,
        _ => return Err(bad()),
    };
    let secs = v * secs_per_unit;
    if secs.is_infinite() || secs > MAX_DURATION_S {
        return Err(UnitError::DurationTooLarge(s.to_string()));
    }
    if !secs.is_finite() || secs < 0.0 {
        return Err(bad());
    }
    Ok(Duration::from_secs_f64(secs))
}

/// A count with a comma every three digits: 64200 as "64,200" (Java's
/// `%,d`, as vdbench prints its counters; iolab's refusals with numbers).
pub fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Bytes as a short human string with binary units: `4 KiB`, `1.5 MiB`.
pub fn format_bytes(b: u64) -> String {
    const UNITS: [&str; 6] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
    let mut v = b as f64;
    let mut i = 0;
    while v >= 1024.0 && i + 1 < UNITS.len() {
        v /= 1024.0;
        i += 1;
    }
    if i == 0 {
        format!("{b} B")
    } else if v.fract() == 0.0 {
        format!("{} {}", v as u64, UNITS[i])
    } else {
        format!("{v:.1} {}", UNITS[i])
    }
}

/// A duration as a short human string: `500ms`, `30s`, `2m30s`.
pub fn format_duration(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s < 1.0 {
        format!("{}ms", (s * 1000.0).round() as u64)
    } else if s < 60.0 {
        if s.fract() == 0.0 {
            format!("{}s", s as u64)
        } else {
            format!("{s:.1}s")
        }
    } else {
        let m = (s / 60.0).floor() as u64;
        let r = (s - m as f64 * 60.0).round() as u64;
        if r == 0 {
            format!("{m}m")
        } else {
            format!("{m}m{r}s")
        }
    }
}

/// Seconds with the unit that shows them best, to 3 significant
/// decimals: `1us`, `0.5ms`, `250ms`, `1.5s` (for messages about short
/// times, where `format_duration` would round to `0ms`).
pub fn format_duration_exact(s: f64) -> String {
    if !s.is_finite() || s <= 0.0 {
        return format!("{s}s");
    }
    let (v, unit) = if s < 1e-6 {
        (s * 1e9, "ns")
    } else if s < 1e-3 {
        (s * 1e6, "us")
    } else if s < 1.0 {
        (s * 1e3, "ms")
    } else {
        (s, "s")
    };
    let t = format!("{v:.3}");
    let t = t.trim_end_matches('0').trim_end_matches('.');
    format!("{t}{unit}")
}

/// Microseconds in the largest unit that holds them exactly, in the
/// syntax [`parse_duration`] reads back to the same count: `100ms`,
/// `10s`, `1500us`, `2min`, `1h` (a flow's `think=` as it was most
/// likely written, not `100000us`).
pub fn format_us_exact(us: u64) -> String {
    const UNITS: [(u64, &str); 4] = [
        (3_600_000_000, "h"),
        (60_000_000, "min"),
        (1_000_000, "s"),
        (1_000, "ms"),
    ];
    match UNITS
        .iter()
        .find(|(n, _)| us >= *n && us.is_multiple_of(*n))
    {
        Some((n, unit)) => format!("{}{unit}", us / n),
        None => format!("{us}us"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_microseconds_take_their_natural_unit_and_parse_back() {
        for (us, t) in [
            (100_000, "100ms"),
            (10_000_000, "10s"),
            (1_500, "1500us"),
            (1_500_000, "1500ms"),
            (120_000_000, "2min"),
            (3_600_000_000, "1h"),
            (7, "7us"),
            (0, "0us"),
        ] {
            assert_eq!(format_us_exact(us), t);
            assert_eq!(parse_duration(t).unwrap().as_micros() as u64, us, "{t}");
        }
    }

    #[test]
    fn thousands_groups_digits() {
        assert_eq!(super::thousands(64200), "64,200");
        assert_eq!(super::thousands(1_000_000), "1,000,000");
        assert_eq!(super::thousands(999), "999");
        assert_eq!(super::thousands(0), "0");
    }

    #[test]
    fn sizes() {
        assert_eq!(parse_size("4096").unwrap(), 4096);
        assert_eq!(parse_size("4k").unwrap(), 4096);
        assert_eq!(parse_size("4K").unwrap(), 4096);
        assert_eq!(parse_size("64KiB").unwrap(), 65536);
        assert_eq!(parse_size("1m").unwrap(), 1 << 20);
        assert_eq!(parse_size("1.5g").unwrap(), 3 << 29);
        assert_eq!(parse_size(" 2 MiB ").unwrap(), 2 << 20);
        for bad in ["", "k", "4q", "-1", "1.3", "99999999999999999999", "1e3"] {
            assert!(parse_size(bad).is_err(), "{bad} parsed");
        }
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("30").unwrap(), Duration::from_secs(30));
        assert_eq!(parse_duration("30s").unwrap(), Duration::from_secs(30));
        assert_eq!(parse_duration("500ms").unwrap(), Duration::from_millis(500));
        assert_eq!(parse_duration("2m").unwrap(), Duration::from_secs(120));
        assert_eq!(parse_duration("1.5s").unwrap(), Duration::from_millis(1500));
        for bad in ["", "s", "3x", "-2s"] {
            assert!(parse_duration(bad).is_err(), "{bad} parsed");
        }
    }

    #[test]
    fn overflowing_sizes_and_durations_say_too_large() {
        for big in [
            "99999999999999999999",
            "16384p",
            "20000000t",
            "99999999999999999999k",
            "99999999999999999999.5",
        ] {
            let e = parse_size(big).unwrap_err();
            assert!(matches!(e, UnitError::SizeTooLarge(_)), "{big}: {e}");
            assert!(e.to_string().contains("too large (max 16383p"), "{e}");
        }
        assert_eq!(parse_size("16383p").unwrap(), 16383 << 50);
        for big in ["99999999999999999999999", "99999999999h", "400000d"] {
            let e = parse_duration(big).unwrap_err();
            assert!(matches!(e, UnitError::DurationTooLarge(_)), "{big}: {e}");
            assert!(e.to_string().contains("too long (max"), "{e}");
        }
        for neg in ["-1", "-4k", " -0.5m"] {
            let e = parse_size(neg).unwrap_err();
            assert!(matches!(e, UnitError::NegativeSize(_)), "{neg}: {e}");
        }
        assert!(matches!(
            parse_duration("-2s").unwrap_err(),
            UnitError::NegativeDuration(_)
        ));
    }

    #[test]
    fn formatting() {
        assert_eq!(format_bytes(512), "512 B");
        assert_eq!(format_bytes(4096), "4 KiB");
        assert_eq!(format_bytes(3 << 19), "1.5 MiB");
        assert_eq!(format_duration(Duration::from_millis(250)), "250ms");
        assert_eq!(format_duration(Duration::from_secs(150)), "2m30s");
        assert_eq!(format_duration_exact(1e-6), "1us");
        assert_eq!(format_duration_exact(0.0005), "500us");
        assert_eq!(format_duration_exact(0.25), "250ms");
        assert_eq!(format_duration_exact(1.5), "1.5s");
    }
}
