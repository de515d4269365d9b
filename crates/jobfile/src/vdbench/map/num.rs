//! vdbench's values: sizes with binary suffixes (`k`, `m`, `g`, `t`,
//! optionally followed by `b`: `1GB` is 1 GiB), plain numbers,
//! percentages and times (seconds; `m` minutes and `h` hours, as
//! vdbench reads `elapsed`, `interval`, `warmup` and `pause`), and the
//! text iolab's keys and vdbench's run names show for them.

const K: u64 = 1024;

/// A plain number (no suffix), finite and not negative.
pub fn number(v: &str) -> Result<f64, String> {
    let t = v.trim();
    match t.parse::<f64>() {
        Ok(f) if f.is_finite() && f >= 0.0 && !t.is_empty() => Ok(f),
        _ => Err(format!("'{v}' is not a number")),
    }
}

/// A whole number (no suffix).
pub fn whole(v: &str) -> Result<u64, String> {
    let f = number(v)?;
    if f.fract() != 0.0 || f > 1e15 {
        return Err(format!("'{v}' is not a whole number"));
    }
    Ok(f as u64)
}

/// A percentage, 0 to 100.
pub fn pct(v: &str) -> Result<f64, String> {
    let f = number(v).map_err(|_| format!("'{v}' is not a percentage (0-100)"))?;
    if f > 100.0 {
        return Err(format!("'{v}' is above 100 %"));
    }
    Ok(f)
}

/// A whole percentage, 0 to 100 (iolab's mixes are whole percentages).
pub fn whole_pct(v: &str) -> Result<f64, String> {
    let f = pct(v)?;
    if f < 0.0 || f.fract() != 0.0 {
        return Err(format!(
            "'{v}' is not a whole percentage (0-100): iolab's mixes are whole percentages"
        ));
    }
    Ok(f)
}

/// A size in bytes: `4096`, `4k`, `1.5m`, `1GB`.
pub fn size(v: &str) -> Result<u64, String> {
    let t = v.trim().to_ascii_lowercase();
    let t = match t.strip_suffix('b') {
        Some(s) if s.ends_with(['k', 'm', 'g', 't']) => s.to_string(),
        _ => t,
    };
    let (digits, mult) = match t.chars().last() {
        Some('k') => (&t[..t.len() - 1], K),
        Some('m') => (&t[..t.len() - 1], K * K),
        Some('g') => (&t[..t.len() - 1], K * K * K),
        Some('t') => (&t[..t.len() - 1], K * K * K * K),
        _ => (t.as_str(), 1),
    };
    let f = number(digits).map_err(|_| format!("'{v}' is not a size (e.g. 8k, 1m, 1g)"))?;
    let bytes = f * mult as f64;
    if bytes >= 1.8e19 {
        return Err(format!("'{v}' is too large"));
    }
    if bytes.fract() != 0.0 {
        return Err(format!("'{v}' is not a whole number of bytes"));
    }
    Ok(bytes as u64)
}

/// A time in seconds: `90`, `90s`, `6m` (minutes), `1h`.
pub fn secs(v: &str) -> Result<f64, String> {
    let t = v.trim().to_ascii_lowercase();
    let (digits, mult) = match t.chars().last() {
        Some('s') => (&t[..t.len() - 1], 1.0),
        Some('m') => (&t[..t.len() - 1], 60.0),
        Some('h') => (&t[..t.len() - 1], 3600.0),
        _ => (t.as_str(), 1.0),
    };
    let f = number(digits).map_err(|_| format!("'{v}' is not a time (seconds, or 5m, 1h)"))?;
    let s = f * mult;
    if s > 1e9 {
        return Err(format!("'{v}' is too long"));
    }
    Ok(s)
}

/// A size as iolab's keys take it: the largest binary suffix that keeps
/// it exact (`8k`, `1g`), else bytes.
pub fn iolab_size(b: u64) -> String {
    for (suffix, m) in [
        ("t", K * K * K * K),
        ("g", K * K * K),
        ("m", K * K),
        ("k", K),
    ] {
        if b >= m && b.is_multiple_of(m) {
            return format!("{}{suffix}", b / m);
        }
    }
    b.to_string()
}

/// A size as vdbench's run names show it: bytes below 1 KiB, else
/// three decimals of the largest unit, `.000` dropped (`8k`, `1.500m`).
pub fn vdb_size(b: u64) -> String {
    if b < K {
        return b.to_string();
    }
    let mut unit = K;
    let mut suffix = 'k';
    for (s, m) in [('m', K * K), ('g', K * K * K), ('t', K * K * K * K)] {
        if b >= m {
            unit = m;
            suffix = s;
        }
    }
    let txt = format!("{:.3}", b as f64 / unit as f64);
    let txt = txt.strip_suffix(".000").unwrap_or(&txt);
    format!("{txt}{suffix}")
}

/// A number as short as it goes: `100`, `2.5`.
pub fn fmt_num(f: f64) -> String {
    if f.fract() == 0.0 && f.abs() < 1e15 {
        format!("{}", f as i64)
    } else {
        let s = format!("{f:.6}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

/// Seconds as iolab's durations: `90s`, `0.5s`.
pub fn fmt_secs(s: f64) -> String {
    format!("{}s", fmt_num(s))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_as_vdbench_reads_them() {
        assert_eq!(size("8k"), Ok(8192));
        assert_eq!(size("1GB"), Ok(1 << 30));
        assert_eq!(size("1.5m"), Ok(1572864));
        assert_eq!(size("512"), Ok(512));
        assert!(size("1.3").is_err());
        assert!(size("lots").is_err());
        assert!(size("99999999t").is_err());
        assert_eq!(secs("6m"), Ok(360.0));
        assert_eq!(secs("1h"), Ok(3600.0));
        assert_eq!(secs("90"), Ok(90.0));
        assert!(pct("101").is_err());
        assert!(number("-1").is_err());
    }

    #[test]
    fn sizes_print_as_vdbench_and_iolab_print_them() {
        assert_eq!(vdb_size(8192), "8k");
        assert_eq!(vdb_size(1536), "1.500k");
        assert_eq!(vdb_size(512), "512");
        assert_eq!(vdb_size(1 << 30), "1g");
        assert_eq!(iolab_size(1 << 30), "1g");
        assert_eq!(iolab_size(1536), "1536");
        assert_eq!(fmt_num(2.5), "2.5");
        assert_eq!(fmt_num(100.0), "100");
    }
}
