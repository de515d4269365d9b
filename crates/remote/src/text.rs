//! Text from another host (an agent's notes, refusals, errors, versions,
//! host names) is untrusted: before it is printed or kept it is made one
//! harmless line of a sane length ([`untrusted`]).

/// The most characters of one piece of an agent's text kept.
pub const MAX_TEXT: usize = 2000;

/// `s` with every control character but tab (escape sequences, carriage
/// returns, new lines) shown as `?`, cut to [`MAX_TEXT`] characters with
/// `...` appended when longer.
pub fn untrusted(s: &str) -> String {
    untrusted_max(s, MAX_TEXT)
}

/// [`untrusted`] with a cap of `max` characters (a line quoting several
/// hosts).
pub fn untrusted_max(s: &str, max: usize) -> String {
    let mut out: String = s
        .chars()
        .take(max)
        .map(|c| if c.is_control() && c != '\t' { '?' } else { c })
        .collect();
    if s.chars().nth(max).is_some() {
        out.push_str("...");
    }
    out
}

/// [`untrusted`] in place.
pub fn clean(s: &mut String) {
    if s.len() > MAX_TEXT || s.chars().any(|c| c.is_control() && c != '\t') {
        *s = untrusted(s);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_and_new_lines_are_shown_tabs_kept_and_length_capped() {
        let s = "ok\tfine\x1b]0;pwned\x07\r\nnext\u{9b}2J";
        assert_eq!(untrusted(s), "ok\tfine?]0;pwned???next?2J");
        let long = "é".repeat(MAX_TEXT + 5);
        let got = untrusted(&long);
        assert_eq!(got.chars().count(), MAX_TEXT + 3);
        assert!(got.ends_with("é..."));
        assert_eq!(untrusted(&"x".repeat(MAX_TEXT)), "x".repeat(MAX_TEXT));
        let mut m = "a\x1b[2Kb".to_string();
        clean(&mut m);
        assert_eq!(m, "a?[2Kb");
    }
}
