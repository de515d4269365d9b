//! /proc/self/mountinfo: which mount a path lives on, its file system,
//! source device and options.

use serde::{Deserialize, Serialize};

/// One line of mountinfo.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mount {
    /// `major:minor` of the file system (0:N for btrfs, ZFS, tmpfs ...).
    pub dev: String,
    pub mount_point: String,
    pub fstype: String,
    /// `/dev/sda1`, `pool/dataset`, `tmpfs` ...
    pub source: String,
    /// Per-mount options then super-block options, as one comma list.
    pub options: String,
}

impl Mount {
    /// The value of a mount option (`compress=zstd:3` -> `zstd:3`), or an
    /// empty string for a flag that is present without a value.
    pub fn option(&self, name: &str) -> Option<&str> {
        self.options
            .split(',')
            .find_map(|o| match o.split_once('=') {
                Some((k, v)) if k == name => Some(v),
                None if o == name => Some(""),
                _ => None,
            })
    }
}

/// Undo mountinfo's octal escapes (`\040` is a space).
fn unescape(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' && i + 4 <= b.len() {
            let oct = &b[i + 1..i + 4];
            if oct.iter().all(|c| (b'0'..=b'7').contains(c)) {
                let oct = std::str::from_utf8(oct).unwrap_or("");
                if let Ok(v) = u8::from_str_radix(oct, 8) {
                    out.push(v);
                    i += 4;
                    continue;
                }
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Parse mountinfo text; malformed lines are skipped.
pub fn parse(text: &str) -> Vec<Mount> {
    let mut v = Vec::new();
    for line in text.lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        let Some(sep) = f.iter().position(|x| *x == "-") else {
            continue;
        };
        if sep < 6 || f.len() < sep + 3 {
            continue;
        }
        let mut options = f[5].to_string();
        if let Some(sup) = f.get(sep + 3) {
            // A set, not a search of `options` per option: that was
            // quadratic (2 s for one 50 KB line of distinct options).
            let mut seen: std::collections::HashSet<&str> = f[5].split(',').collect();
            for o in sup.split(',') {
                if seen.insert(o) {
                    options.push(',');
                    options.push_str(o);
                }
            }
        }
        v.push(Mount {
            dev: f[2].to_string(),
            mount_point: unescape(f[4]),
            fstype: f[sep + 1].to_string(),
            source: unescape(f[sep + 2]),
            options,
        });
    }
    v
}

/// The mount holding `path` (absolute, already canonical): the longest
/// mount point that is a prefix of it; of equal ones the last (it covers
/// the others).
pub fn mount_of<'a>(mounts: &'a [Mount], path: &str) -> Option<&'a Mount> {
    let mut best: Option<&Mount> = None;
    for m in mounts {
        let mp = m.mount_point.as_str();
        let inside = path == mp
            || mp == "/"
            || (path.starts_with(mp) && path.as_bytes().get(mp.len()) == Some(&b'/'));
        if inside && best.is_none_or(|b| mp.len() >= b.mount_point.len()) {
            best = Some(m);
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = "\
27 1 254:0 / / rw,relatime - ext4 /dev/vda rw,discard
60 27 7:3 / /mnt/my\\040data rw,noatime shared:5 - ext4 /dev/loop3 rw
61 27 0:45 / /mnt/b rw - btrfs /dev/loop4 rw,compress=zstd:3,space_cache=v2
62 27 0:46 / /tank/db rw - zfs tank/db rw,xattr
";

    #[test]
    fn parses_and_finds() {
        let m = parse(TEXT);
        assert_eq!(m.len(), 4);
        assert_eq!(m[1].mount_point, "/mnt/my data");
        assert_eq!(m[1].options, "rw,noatime");
        assert_eq!(m[2].option("compress"), Some("zstd:3"));
        assert_eq!(mount_of(&m, "/mnt/my data/f").unwrap().source, "/dev/loop3");
        assert_eq!(mount_of(&m, "/mnt/bx").unwrap().source, "/dev/vda");
        assert_eq!(mount_of(&m, "/tank/db").unwrap().fstype, "zfs");
    }

    /// Found by the fuzz work: one mountinfo line with 9000 distinct
    /// super-block options (an overlay's long option list) took 2 s to
    /// merge in a debug build, each option searched for in the list so far.
    #[test]
    fn a_mount_with_thousands_of_options_parses_in_linear_time() {
        let opts: Vec<String> = (0..9000).map(|i| format!("o{i}")).collect();
        let line = format!(
            "22 1 254:1 / / rw,o1 - ext4 /dev/vda1 {},rw\n",
            opts.join(",")
        );
        let t = std::time::Instant::now();
        let m = parse(&line);
        assert!(t.elapsed().as_secs_f64() < 1.0, "took {:?}", t.elapsed());
        assert_eq!(m[0].options.split(',').count(), 9001, "rw once, o1 once");
        assert!(m[0].options.starts_with("rw,o1,o0,o2,"));
    }
}
