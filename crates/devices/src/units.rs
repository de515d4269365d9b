//! Byte counts for people: `4 KiB`, `1.5 GiB`.

/// Binary units, exact when whole (`128 KiB`), else one decimal.
pub fn bytes(n: u64) -> String {
    const U: [&str; 6] = ["bytes", "KiB", "MiB", "GiB", "TiB", "PiB"];
    let mut v = n as f64;
    let mut i = 0;
    while v >= 1024.0 && i < U.len() - 1 {
        v /= 1024.0;
        i += 1;
    }
    if i == 0 {
        format!("{n} bytes")
    } else if v.fract() == 0.0 {
        format!("{v:.0} {}", U[i])
    } else {
        format!("{v:.1} {}", U[i])
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn units() {
        assert_eq!(super::bytes(512), "512 bytes");
        assert_eq!(super::bytes(131072), "128 KiB");
        assert_eq!(super::bytes(1536 << 20), "1.5 GiB");
    }
}
