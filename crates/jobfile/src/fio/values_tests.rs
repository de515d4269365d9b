//! Tests of fio's value syntax (values.rs, expr.rs).

use super::*;

const K: Units = Units { kb_base: 1024 };
const SI: Units = Units { kb_base: 1000 };

#[test]
fn sizes_follow_kb_base_and_the_inverted_iec_suffixes() {
    assert_eq!(parse_size("4096", &K), Ok(4096));
    assert_eq!(parse_size("4k", &K), Ok(4096));
    assert_eq!(parse_size("4KB", &K), Ok(4096));
    assert_eq!(parse_size("4kib", &K), Ok(4000));
    assert_eq!(parse_size("1MiB", &K), Ok(1_000_000));
    assert_eq!(parse_size("1m", &K), Ok(1 << 20));
    assert_eq!(parse_size("1mi", &K), Ok(1 << 20));
    assert_eq!(parse_size("1g", &K), Ok(1 << 30));
    assert_eq!(parse_size("1t", &K), Ok(1 << 40));
    assert_eq!(parse_size("1p", &K), Ok(1 << 50));
    assert_eq!(parse_size("512b", &K), Ok(512));
    assert_eq!(parse_size("4k", &SI), Ok(4000));
    assert_eq!(parse_size("1m", &SI), Ok(1_000_000));
    assert_eq!(parse_size("1mib", &SI), Ok(1 << 20));
    assert_eq!(parse_size("4KiB", &SI), Ok(4096));
    assert_eq!(parse_size("0x1000", &K), Ok(4096));
    assert_eq!(parse_size(" 8k ", &K), Ok(8192));
}

#[test]
fn odd_sizes_are_refused_not_misread() {
    for bad in [
        "",
        "k",
        "1.5k",
        "4kx",
        "-4k",
        "99999999999999999999",
        "16777216p",
        "4 k",
    ] {
        let e = parse_size(bad, &K).unwrap_err();
        assert!(!e.contains('\n'), "{bad}: {e}");
    }
    assert!(parse_size("20%", &K).is_err());
}

#[test]
fn percentages_of_sizes() {
    assert_eq!(
        parse_size_or_percent("20%", &K),
        Ok(SizeOrPercent::Percent(20))
    );
    assert_eq!(
        parse_size_or_percent("2k", &K),
        Ok(SizeOrPercent::Bytes(2048))
    );
    assert!(parse_size_or_percent("101%", &K).is_err());
    assert_eq!(parse_percent("70"), Ok(70.0));
    assert_eq!(parse_percent("12.5%"), Ok(12.5));
    assert!(parse_percent("120").is_err());
    assert!(parse_percent("x").is_err());
}

#[test]
fn times_take_the_default_unit_of_their_option() {
    assert_eq!(parse_time_us("30", TimeUnit::Seconds), Ok(30_000_000));
    assert_eq!(parse_time_us("30", TimeUnit::Micros), Ok(30));
    assert_eq!(parse_time_us("30", TimeUnit::Millis), Ok(30_000));
    assert_eq!(parse_time_us("10s", TimeUnit::Micros), Ok(10_000_000));
    assert_eq!(parse_time_us("2m", TimeUnit::Seconds), Ok(120_000_000));
    assert_eq!(parse_time_us("5MS", TimeUnit::Seconds), Ok(5_000));
    assert_eq!(parse_time_us("7usec", TimeUnit::Seconds), Ok(7));
    assert_eq!(parse_time_us("1h", TimeUnit::Seconds), Ok(3_600_000_000));
    assert_eq!(parse_time_us("1d", TimeUnit::Seconds), Ok(86_400_000_000));
    assert_eq!(parse_time_us("(2*30)", TimeUnit::Seconds), Ok(60_000_000));
    assert_eq!(parse_time_us("(1m+30s)", TimeUnit::Seconds), Ok(90_000_000));
    for bad in ["", "s", "10y", "1.5s", "99999999999999999d"] {
        assert!(parse_time_us(bad, TimeUnit::Seconds).is_err(), "{bad}");
    }
}

#[test]
fn booleans_are_integers_or_bare() {
    assert_eq!(parse_bool(None), Ok(true));
    assert_eq!(parse_bool(Some("1")), Ok(true));
    assert_eq!(parse_bool(Some(" 0 ")), Ok(false));
    for bad in ["true", "yes", "2", ""] {
        assert!(parse_bool(Some(bad)).is_err(), "{bad}");
    }
}

#[test]
fn ints_in_decimal_hex_and_arithmetic() {
    assert_eq!(parse_int("42"), Ok(42));
    assert_eq!(parse_int("-3"), Ok(-3));
    assert_eq!(parse_int("0x10"), Ok(16));
    assert_eq!(parse_int("(4*8+1)"), Ok(33));
    assert!(parse_int("4k").is_err());
    assert!(parse_int("").is_err());
    assert!(parse_int("--9223372036854775808").is_err());
    assert!(parse_int("+-1").is_err());
}

#[test]
fn per_direction_lists_carry_an_unterminated_value_forward() {
    let s = |v: &[Option<&str>; 3]| v.map(|o| o.map(String::from));
    assert_eq!(
        split_dirs("4k"),
        Ok(s(&[Some("4k"), Some("4k"), Some("4k")]))
    );
    assert_eq!(
        split_dirs("8k,32k"),
        Ok(s(&[Some("8k"), Some("32k"), Some("32k")]))
    );
    assert_eq!(
        split_dirs("8k,32k,"),
        Ok(s(&[Some("8k"), Some("32k"), None]))
    );
    assert_eq!(split_dirs(",8k"), Ok(s(&[None, Some("8k"), Some("8k")])));
    assert_eq!(split_dirs("8k,"), Ok(s(&[Some("8k"), None, None])));
    assert_eq!(
        split_dirs("512,512,16384"),
        Ok(s(&[Some("512"), Some("512"), Some("16384")]))
    );
    assert_eq!(split_dirs("1k,,2k"), Ok(s(&[Some("1k"), None, Some("2k")])));
    assert!(split_dirs("1,2,3,4").is_err());
}

#[test]
fn ranges_with_dash_or_colon_swapped_when_reversed() {
    assert_eq!(parse_range("4k-64k", &K), Ok((4096, 65536)));
    assert_eq!(parse_range("4k:64k", &K), Ok((4096, 65536)));
    assert_eq!(parse_range("64k-4k", &K), Ok((4096, 65536)));
    assert_eq!(parse_range("8k", &K), Ok((8192, 8192)));
    assert!(parse_range("4k-", &K).is_err());
    assert!(parse_range("-", &K).is_err());
    assert!(parse_range("", &K).is_err());
    assert!(parse_range("é-4k", &K).is_err());
    assert!(parse_range("4k-é", &K).is_err());
}

#[test]
fn arithmetic_follows_fio_grammar() {
    assert_eq!(parse_size("(2*1g)", &K), Ok(2 << 30));
    assert_eq!(parse_size("(1024*4)", &K), Ok(4096));
    assert_eq!(parse_size("(1+2k)", &K), Ok(2049));
    assert_eq!(parse_size("(3kib)", &K), Ok(3000));
    assert_eq!(parse_size("(0x10)", &K), Ok(16));
    assert_eq!(parse_size("(1.5*1024)", &K), Ok(1536));
    assert_eq!(eval("(2^10)", Expr::Plain), Ok(1024));
    assert_eq!(eval("(2^3^2)", Expr::Plain), Ok(512));
    assert_eq!(eval("(10 % 4)", Expr::Plain), Ok(2));
    assert_eq!(eval("(-3+10)", Expr::Plain), Ok(7));
    assert_eq!(eval("(7/2)", Expr::Plain), Ok(3));
    assert_eq!(eval("(1+2):junk", Expr::Plain), Ok(3));
    assert_eq!(eval("(1e3)", Expr::Plain), Ok(1000));
    assert_eq!(eval_bc("5*1024*1024*8000/8"), Ok(5 * 1024 * 1024 * 1000));
}

#[test]
fn arithmetic_is_bounded() {
    let deep = format!("{}1{}", "(".repeat(200), ")".repeat(200));
    let long = format!("({})", "1+".repeat(600) + "1");
    let minus = format!("({}1)", "-".repeat(500));
    for bad in [
        "(1/0)",
        "(1%0)",
        "(2^64)",
        "(9223372036854775807+1)",
        "(1e300*1e300)",
        "(1",
        "()",
        "(1+)",
        "(1 2)",
        "(4s)",
        "(1.5%1)",
        "(0^-1)",
        deep.as_str(),
        long.as_str(),
        minus.as_str(),
        "(1x)",
    ] {
        let e = eval(bad, Expr::Bytes).unwrap_err();
        assert!(!e.contains('\n'), "{bad}: {e}");
    }
    assert!(eval_bc("1.5*2").is_err());
    assert!(eval_bc("2k").is_err());
}
