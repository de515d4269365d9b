//! The fileset's definition as a user writes it (job file or flags): the
//! anchor directory and the shape of the tree, either vdbench's
//! (`depth`, `width`, `files` per leaf directory, weighted `sizes`) or
//! filebench's (`entries`, mean `dir_width`, a fixed or gamma file size,
//! `prealloc` percent). `validate` says in one line what to change.
//! The fileset crate (iolab-fileset) lays such a spec out and creates it.

use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// Most files one fileset may have: a layout costs 8 bytes per file, so
/// this bounds its memory at 800 MiB whatever the input says.
pub const MAX_FILES: u64 = 100_000_000;
/// Deepest tree accepted (path length stays far below PATH_MAX).
pub const MAX_DEPTH: u32 = 32;

/// A fileset: a tree of directories and files under `anchor`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FilesetSpec {
    /// The anchor directory: created if missing (its parent must exist),
    /// adopted if empty, refused if it holds anything but iolab's marker.
    pub anchor: PathBuf,
    pub shape: Shape,
}

/// The two ways of describing the tree.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Shape {
    /// vdbench's anchor shape.
    Tree(TreeShape),
    /// filebench's fileset shape.
    Entries(EntriesShape),
}

/// vdbench: `depth` levels of `width` directories each; `files` files in
/// each leaf directory (depth 0: the files sit in the anchor).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TreeShape {
    pub depth: u32,
    pub width: u32,
    pub files: u64,
    /// Weighted sizes, `"64k:30,1m:70"`, or one size `"128k"`.
    pub sizes: String,
}

/// filebench: `entries` files, `dir_width` files per directory (filebench
/// draws each directory's width around this mean; iolab uses the mean
/// exactly, so paths can be computed from a file's number), a file size,
/// and the percentage of files created up front.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EntriesShape {
    pub entries: u64,
    pub dir_width: u32,
    pub size: FileSize,
    #[serde(default = "hundred")]
    pub prealloc: f64,
}

fn hundred() -> f64 {
    100.0
}

/// A filebench file size.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum FileSize {
    /// Every file has this many bytes.
    Fixed(u64),
    /// A gamma distribution with this mean (bytes) and shape (filebench's
    /// `gamma`, 1.5 in its personalities).
    Gamma { mean: u64, shape: f64 },
}

/// vdbench's `format=`: what to do with a fileset that already exists
/// (see iolab-fileset's `create` module for the exact rules).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Format {
    /// Delete what exists and make every file again.
    Yes,
    /// Use what exists as it is; create what is missing.
    #[default]
    No,
    /// Like `no`, but bring files of the wrong size back to their size.
    Restart,
}

/// What is wrong with a spec, as one line saying what to change.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct SpecError(pub String);

fn err<T>(s: impl Into<String>) -> Result<T, SpecError> {
    Err(SpecError(s.into()))
}

/// `"64k:30,1m:70"` (or `"128k"`) as (size, weight) pairs with positive
/// total weight.
pub fn parse_size_mix(s: &str) -> Result<Vec<(u64, u32)>, SpecError> {
    let weighted = s.split(',').filter(|p| p.contains(':')).count();
    if weighted > 0 && weighted < s.split(',').count() {
        return err(format!(
            "sizes {s} gives weights to some sizes but not to others; give every size a weight (e.g. 64k:30,1m:70) or a sweep without weights (e.g. 64k,1m)"
        ));
    }
    let mut out = Vec::new();
    for part in s.split(',') {
        let part = part.trim();
        let (size, weight) = match part.split_once(':') {
            Some((a, b)) => {
                let w: u32 = b.trim().parse().map_err(|_| {
                    SpecError(format!(
                        "sizes: weight '{}' in '{part}' is not a whole number; write e.g. 64k:30,1m:70",
                        b.trim()
                    ))
                })?;
                (a, w)
            }
            None => (part, 1),
        };
        let size = crate::parse_size(size).map_err(|e| SpecError(format!("sizes: {e}")))?;
        out.push((size, weight));
        if out.len() > 1024 {
            return err("sizes: more than 1024 entries; give fewer sizes");
        }
    }
    if out.iter().map(|&(_, w)| u64::from(w)).sum::<u64>() == 0 {
        return err("sizes: the weights add up to 0; give at least one size a weight above 0");
    }
    Ok(out)
}

impl FilesetSpec {
    /// Checks the shape; the anchor is checked on disk by `Anchor::prepare`.
    pub fn validate(&self) -> Result<(), SpecError> {
        if self.anchor.as_os_str().is_empty() {
            return err("fileset: the anchor is empty; name a directory, e.g. /mnt/test/fs1");
        }
        match &self.shape {
            Shape::Tree(t) => t.validate(),
            Shape::Entries(e) => e.validate(),
        }
    }
}

impl FilesetSpec {
    /// False when every file of the fileset is empty (size 0), so reading
    /// or rewriting them moves no bytes.
    pub fn may_hold_data(&self) -> bool {
        match &self.shape {
            Shape::Tree(t) => parse_size_mix(&t.sizes)
                .map(|m| m.iter().any(|&(s, w)| s > 0 && w > 0))
                .unwrap_or(true),
            Shape::Entries(e) => match e.size {
                FileSize::Fixed(n) => n > 0,
                FileSize::Gamma { mean, .. } => mean > 0,
            },
        }
    }
}

impl TreeShape {
    /// Leaf directories (`width^depth`), when it fits in a u64.
    pub fn leaves(&self) -> Option<u64> {
        u64::from(self.width).checked_pow(self.depth)
    }

    fn validate(&self) -> Result<(), SpecError> {
        if self.depth > MAX_DEPTH {
            return err(format!(
                "depth {} is above {MAX_DEPTH}; give a smaller depth",
                self.depth
            ));
        }
        if self.width == 0 && self.depth > 0 {
            return err("width is 0; give at least 1 directory per level (or depth 0)");
        }
        if self.files == 0 {
            return err("files is 0; give at least 1 file per leaf directory");
        }
        let total = self.leaves().and_then(|l| l.checked_mul(self.files));
        match total {
            Some(n) if n <= MAX_FILES => {}
            _ => {
                return err(format!(
                    "width^depth x files is above {MAX_FILES} files; lower depth, width or files"
                ))
            }
        }
        parse_size_mix(&self.sizes).map(|_| ())
    }
}

impl EntriesShape {
    fn validate(&self) -> Result<(), SpecError> {
        if self.entries == 0 || self.entries > MAX_FILES {
            return err(format!(
                "entries {} is outside 1..={MAX_FILES}; give a count in that range",
                self.entries
            ));
        }
        if self.dir_width < 2 {
            return err(format!(
                "dir_width {} is below 2; give the mean number of files per directory, e.g. 20",
                self.dir_width
            ));
        }
        if !(0.0..=100.0).contains(&self.prealloc) {
            return err(format!(
                "prealloc {} is not a percentage; give 0 to 100",
                self.prealloc
            ));
        }
        if let FileSize::Gamma { shape, .. } = self.size {
            if !(shape.is_finite() && shape > 0.0 && shape <= 1e6) {
                return err(format!(
                    "gamma shape {shape} must be above 0 (filebench uses 1.5)"
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn size_mix_parses_weights_and_refuses_nonsense() {
        assert_eq!(
            parse_size_mix("64k:30,1m:70").unwrap(),
            vec![(65536, 30), (1 << 20, 70)]
        );
        assert_eq!(parse_size_mix("128k").unwrap(), vec![(131072, 1)]);
        for bad in ["", "64k:x", "64q:1", "4k:0", "-1k:3", "4k:-1"] {
            let e = parse_size_mix(bad).unwrap_err().0;
            assert!(!e.contains('\n') && !e.is_empty(), "{bad}: {e}");
        }
    }

    /// Regression: `64k:30,1m` was taken with 1m weighted 1, where `--bs
    /// 4k:60,8k` and `--mix read:60,write` are refused.
    #[test]
    fn sizes_with_weights_on_some_only_are_refused() {
        for bad in ["64k:30,1m", "64k,1m:70", "4k:1,8k:2,16k"] {
            let e = parse_size_mix(bad).unwrap_err().0;
            assert!(
                e.contains("gives weights to some sizes but not to others"),
                "{bad}: {e}"
            );
        }
        assert_eq!(parse_size_mix("4k,8k").unwrap(), [(4096, 1), (8192, 1)]);
    }

    #[test]
    fn validate_names_what_to_change() {
        let mut s = FilesetSpec {
            anchor: "/tmp/x".into(),
            shape: Shape::Tree(TreeShape {
                depth: 2,
                width: 3,
                files: 4,
                sizes: "4k".into(),
            }),
        };
        s.validate().unwrap();
        s.shape = Shape::Tree(TreeShape {
            depth: 30,
            width: 100,
            files: 4,
            sizes: "4k".into(),
        });
        assert!(s.validate().unwrap_err().0.contains("lower depth"));
        s.shape = Shape::Entries(EntriesShape {
            entries: 10,
            dir_width: 20,
            size: FileSize::Gamma {
                mean: 1000,
                shape: -1.0,
            },
            prealloc: 80.0,
        });
        assert!(s.validate().unwrap_err().0.contains("shape"));
    }

    #[test]
    fn spec_round_trips_through_json() {
        let s = FilesetSpec {
            anchor: "/mnt/a".into(),
            shape: Shape::Entries(EntriesShape {
                entries: 1000,
                dir_width: 20,
                size: FileSize::Gamma {
                    mean: 128 << 10,
                    shape: 1.5,
                },
                prealloc: 80.0,
            }),
        };
        let j = serde_json::to_string(&s).unwrap();
        assert_eq!(serde_json::from_str::<FilesetSpec>(&j).unwrap(), s);
    }
}
