//! Every file iolab-devices reads goes through [`Sysroot`], so the same code
//! runs against the live system (`/`) and against fixture trees of sysfs and
//! /proc in tests. A missing or unreadable entry is `None`, never an error:
//! callers turn it into a note.

use std::path::{Path, PathBuf};

/// A root directory that absolute paths such as `/sys/block` are read under.
#[derive(Clone, Debug)]
pub struct Sysroot {
    root: PathBuf,
}

impl Default for Sysroot {
    fn default() -> Self {
        Sysroot::new("/")
    }
}

impl Sysroot {
    pub fn new(root: impl AsRef<Path>) -> Self {
        Sysroot {
            root: root.as_ref().to_path_buf(),
        }
    }

    /// The root directory itself.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// True when reading the running system (root is `/`): only then may
    /// paths named by the user be `stat`ed and commands be run.
    pub fn is_live(&self) -> bool {
        self.root == Path::new("/")
    }

    /// `abs` (an absolute path such as `/sys/block/sda/size`) under the root.
    pub fn path(&self, abs: &str) -> PathBuf {
        self.root.join(abs.trim_start_matches('/'))
    }

    /// File contents with surrounding white space trimmed.
    pub fn read(&self, abs: &str) -> Option<String> {
        std::fs::read_to_string(self.path(abs))
            .ok()
            .map(|s| s.trim().to_string())
    }

    /// Whole file, untrimmed, into a reused buffer. False when unreadable.
    pub fn read_into(&self, abs: &str, buf: &mut String) -> bool {
        use std::io::Read;
        buf.clear();
        match std::fs::File::open(self.path(abs)) {
            Ok(mut f) => f.read_to_string(buf).is_ok(),
            Err(_) => false,
        }
    }

    /// A decimal (or `0x` hexadecimal, as fc_host statistics are) number.
    pub fn read_u64(&self, abs: &str) -> Option<u64> {
        parse_u64(&self.read(abs)?)
    }

    pub fn exists(&self, abs: &str) -> bool {
        self.path(abs).exists()
    }

    /// Names in a directory, sorted; empty when it is missing.
    pub fn list(&self, abs: &str) -> Vec<String> {
        let mut v: Vec<String> = match std::fs::read_dir(self.path(abs)) {
            Ok(rd) => rd
                .filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect(),
            Err(_) => Vec::new(),
        };
        v.sort_by(|a, b| natural_cmp(a, b));
        v
    }

    /// The target of a symbolic link, as written in the link.
    pub fn read_link(&self, abs: &str) -> Option<PathBuf> {
        std::fs::read_link(self.path(abs)).ok()
    }
}

/// Decimal or `0x`-prefixed hexadecimal.
pub fn parse_u64(s: &str) -> Option<u64> {
    let s = s.trim();
    if let Some(h) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        u64::from_str_radix(h, 16).ok()
    } else {
        s.parse().ok()
    }
}

/// Orders `sdb` before `sdaa` and `loop2` before `loop10`: shorter name
/// stems first, then the stem, then the number at the end.
pub fn natural_cmp(a: &str, b: &str) -> std::cmp::Ordering {
    fn key(s: &str) -> (usize, &str) {
        (s.len(), s)
    }
    let split = |s: &str| -> (String, u64) {
        let p = s.trim_end_matches(|c: char| c.is_ascii_digit());
        (p.to_string(), s[p.len()..].parse().unwrap_or(0))
    };
    let (pa, na) = split(a);
    let (pb, nb) = split(b);
    key(&pa).cmp(&key(&pb)).then(na.cmp(&nb)).then(a.cmp(b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers() {
        assert_eq!(parse_u64("0x1f\n"), Some(31));
        assert_eq!(parse_u64(" 42 "), Some(42));
        assert_eq!(parse_u64("x"), None);
    }

    #[test]
    fn natural_order() {
        let mut v = vec!["loop10", "sdb", "loop2", "sdaa", "sda"];
        v.sort_by(|a, b| natural_cmp(a, b));
        assert_eq!(v, ["sda", "sdb", "loop2", "loop10", "sdaa"]);
    }
}
