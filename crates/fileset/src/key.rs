//! What determines a fileset's paths and sizes, and nothing else: the
//! layout key. The anchor's marker records the key of the tree it holds
//! (and its hash, the marker's `spec_hash`), so that a run can tell
//! whether the files there are the ones its own layout names, at the
//! sizes it gives them, before it uses them as they are (`format=no`).
//!
//! In the key: the number of files, the tree's shape (levels, width,
//! files per leaf directory), the size rule (one size, vdbench's weighted
//! sizes or filebench's gamma) and, only when the sizes are drawn at
//! random, the seed they are drawn with. Not in it: `prealloc` (which
//! files exist before the run, not where they go or how big they are),
//! the anchor's path, and any workload key. The same spec and base seed
//! give one key, whatever workload of a job uses it; specs that lay out
//! the same tree (`--depth 0 --files 8` and `--files 8`) give one key
//! too.
//!
//! Sizes are drawn in file order from one generator, so two keys that
//! differ only in their count of files agree on every file they share:
//! [`fit`] says so (`Grows`, `Shrinks`) and such a tree is used as it is.

use crate::spec::{parse_size_mix, FileSize, FilesetSpec, Shape, SpecError};
use iolab_spec::format_bytes;
use serde::{Deserialize, Serialize};

/// The paths and sizes of a layout, as a value (see the module doc).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LayoutKey {
    pub files: u64,
    /// Levels of directories; 0: the files sit in the anchor.
    pub depth: u32,
    /// Subdirectories per directory (0 when `depth` is 0).
    pub width: u64,
    /// Files per leaf directory (`files` when `depth` is 0).
    pub per_leaf: u64,
    pub sizes: Sizes,
    /// The seed the sizes are drawn with; absent when they are not drawn
    /// (one size for every file).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
}

/// The size rule of a layout, in its simplest form.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Sizes {
    /// Every file has this size.
    Fixed(u64),
    /// vdbench's weighted sizes (size, weight), weights of 0 left out.
    Weighted(Vec<(u64, u32)>),
    /// filebench's gamma: mean (bytes) and shape.
    Gamma { mean: u64, shape: f64 },
}

/// How the tree an anchor holds relates to the one a run lays out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fit {
    /// The same paths and sizes.
    Same,
    /// The run's layout has more files; those of the anchor's tree are
    /// its first ones, at the same paths and sizes.
    Grows,
    /// The run's layout has fewer files, each at the path and size the
    /// anchor's tree gives it.
    Shrinks,
    /// The anchor holds no files of iolab's (its fileset was removed).
    Empty,
    /// Another tree, or one the marker does not describe (written by an
    /// iolab before layout keys, or during a reshape that did not end).
    Differs,
}

impl Fit {
    /// A creation over a tree that fits this way leaves the anchor's
    /// marker as it is (the tree it records is still there, files kept);
    /// any other way, the marker ends up recording the run's layout.
    pub fn keeps_marker(self) -> bool {
        matches!(self, Fit::Same | Fit::Shrinks)
    }
}

impl LayoutKey {
    /// The key of `spec` laid out with `seed` (validated first).
    pub fn of(spec: &FilesetSpec, seed: u64) -> Result<LayoutKey, SpecError> {
        spec.validate()?;
        let (files, depth, width, per_leaf, sizes) = match &spec.shape {
            Shape::Tree(t) => {
                let files = t.leaves().unwrap_or(0) * t.files;
                let mix: Vec<(u64, u32)> = parse_size_mix(&t.sizes)?
                    .into_iter()
                    .filter(|&(_, w)| w > 0)
                    .collect();
                let sizes = match mix.as_slice() {
                    [(s, _)] => Sizes::Fixed(*s),
                    _ => Sizes::Weighted(mix),
                };
                (files, t.depth, u64::from(t.width), t.files, sizes)
            }
            Shape::Entries(e) => {
                let w = u64::from(e.dir_width);
                let leaves = e.entries.div_ceil(w);
                let (mut depth, mut span) = (0, 1u64);
                while span < leaves {
                    span = span.saturating_mul(w);
                    depth += 1;
                }
                let sizes = match e.size {
                    FileSize::Fixed(s) | FileSize::Gamma { mean: s @ 0, .. } => Sizes::Fixed(s),
                    FileSize::Gamma { mean, shape } => Sizes::Gamma { mean, shape },
                };
                (e.entries, depth, w, w, sizes)
            }
        };
        let random = !matches!(sizes, Sizes::Fixed(_));
        let (width, per_leaf) = if depth == 0 {
            (0, files)
        } else {
            (width, per_leaf)
        };
        Ok(LayoutKey {
            files,
            depth,
            width,
            per_leaf,
            sizes,
            seed: random.then_some(seed),
        })
    }

    /// The key's hash, 16 hex digits (FNV-1a of its JSON; written here to
    /// avoid a hashing dependency for 8 lines): the marker's `spec_hash`.
    pub fn hash(&self) -> String {
        fnv(serde_json::to_string(self).unwrap_or_default().bytes())
    }

    /// `50 files of 16 KiB in the anchor`, `10000 files of gamma mean
    /// 128 KiB (seed 0x101ab), 20 a directory in 3 levels`.
    pub fn describe(&self) -> String {
        let sizes = match &self.sizes {
            Sizes::Fixed(s) => format_bytes(*s),
            Sizes::Weighted(m) => {
                let parts: Vec<String> = m
                    .iter()
                    .map(|&(s, w)| format!("{}:{w}", format_bytes(s)))
                    .collect();
                parts.join(",")
            }
            Sizes::Gamma { mean, shape } => {
                format!("gamma mean {} shape {shape}", format_bytes(*mean))
            }
        };
        let seed = self
            .seed
            .map_or(String::new(), |s| format!(" (seed {s:#x})"));
        let place = match self.depth {
            0 => "in the anchor".to_string(),
            d => format!(
                "{} a directory in {d} level{} of {}",
                self.per_leaf,
                if d == 1 { "" } else { "s" },
                self.width
            ),
        };
        format!("{} files of {sizes}{seed}, {place}", self.files)
    }
}

/// How the tree `have` (the anchor's) relates to `want` (the run's).
pub fn fit(have: &LayoutKey, want: &LayoutKey) -> Fit {
    let paths = (have.depth == 0 && want.depth == 0)
        || (have.depth == want.depth && have.width == want.width && have.per_leaf == want.per_leaf);
    if !(paths && have.sizes == want.sizes && have.seed == want.seed) {
        return Fit::Differs;
    }
    match want.files.cmp(&have.files) {
        std::cmp::Ordering::Equal => Fit::Same,
        std::cmp::Ordering::Greater => Fit::Grows,
        std::cmp::Ordering::Less => Fit::Shrinks,
    }
}

/// The `spec_hash` markers held before layout keys (the spec's JSON and
/// the seed), so that such an anchor laid out by the same spec and seed
/// is still known for what it is.
pub fn legacy_hash(spec: &FilesetSpec, seed: u64) -> String {
    let text = serde_json::to_string(&spec.shape).unwrap_or_default();
    fnv(text.bytes().chain(seed.to_le_bytes()))
}

/// Every hash a marker written before layout keys may hold for the tree
/// of `key`: the spec with `layout_seed` (the seed the layout is drawn
/// from) and, when the sizes are not drawn (`key.seed` is `None`, so no
/// seed moves a file), also with the workload's own seed `own_seed`.
pub fn legacy_hashes(
    spec: &FilesetSpec,
    key: &LayoutKey,
    layout_seed: u64,
    own_seed: u64,
) -> Vec<String> {
    let mut v = vec![legacy_hash(spec, layout_seed)];
    if key.seed.is_none() && own_seed != layout_seed {
        v.push(legacy_hash(spec, own_seed));
    }
    v
}

fn fnv(bytes: impl Iterator<Item = u8>) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
    }
    format!("{h:016x}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::testing;

    // Two anchors: the key does not hold the anchor.
    fn entries(n: u64, width: u32, size: FileSize, prealloc: f64) -> FilesetSpec {
        testing::entries("/a", n, width, size, prealloc)
    }

    fn tree(depth: u32, width: u32, files: u64, sizes: &str) -> FilesetSpec {
        testing::tree("/b", depth, width, files, sizes)
    }

    #[test]
    fn the_key_holds_what_sets_paths_and_sizes_and_nothing_else() {
        let k = |s: &FilesetSpec, seed| LayoutKey::of(s, seed).unwrap();
        let fixed = entries(50, 100, FileSize::Fixed(16 << 10), 100.0);
        // Seed, prealloc and anchor do not move a fixed-size file.
        assert_eq!(
            k(&fixed, 1),
            k(&entries(50, 100, FileSize::Fixed(16 << 10), 50.0), 7)
        );
        assert_eq!(k(&fixed, 1), k(&tree(0, 9, 50, "16k"), 3));
        assert_eq!(
            k(&fixed, 1).hash(),
            k(&tree(0, 1, 50, "16k:1,1m:0"), 3).hash()
        );
        let gamma = |n| {
            entries(
                n,
                20,
                FileSize::Gamma {
                    mean: 1 << 17,
                    shape: 1.5,
                },
                80.0,
            )
        };
        assert_ne!(
            k(&gamma(100), 1),
            k(&gamma(100), 2),
            "drawn sizes follow the seed"
        );
        assert_eq!(k(&gamma(100), 1).seed, Some(1));
        assert_eq!(k(&fixed, 1).seed, None);
    }

    #[test]
    fn fit_accepts_a_count_change_that_keeps_every_path_and_size() {
        let k = |s: &FilesetSpec| LayoutKey::of(s, 5).unwrap();
        let f = |n| entries(n, 100, FileSize::Fixed(4096), 100.0);
        assert_eq!(fit(&k(&f(50)), &k(&f(50))), Fit::Same);
        assert_eq!(fit(&k(&f(50)), &k(&f(80))), Fit::Grows);
        assert_eq!(fit(&k(&f(80)), &k(&f(50))), Fit::Shrinks);
        // 100 files sit in the anchor, 200 in two directories.
        assert_eq!(fit(&k(&f(100)), &k(&f(200))), Fit::Differs);
        assert_eq!(fit(&k(&f(300)), &k(&f(900))), Fit::Grows);
        let big = entries(50, 100, FileSize::Fixed(8192), 100.0);
        assert_eq!(fit(&k(&f(50)), &k(&big)), Fit::Differs);
        // vdbench: files per leaf move every path but the first leaf's.
        assert_eq!(
            fit(&k(&tree(1, 4, 16, "1m")), &k(&tree(1, 4, 32, "1m"))),
            Fit::Differs
        );
        assert_eq!(
            fit(&k(&tree(0, 1, 16, "1m")), &k(&tree(0, 4, 32, "1m"))),
            Fit::Grows
        );
    }

    #[test]
    fn describe_says_count_sizes_and_place() {
        let k = LayoutKey::of(&entries(50, 100, FileSize::Fixed(16 << 10), 100.0), 1).unwrap();
        assert_eq!(k.describe(), "50 files of 16 KiB, in the anchor");
        let k = LayoutKey::of(&tree(2, 3, 4, "4k:1,8k:3"), 0x10).unwrap();
        assert_eq!(
            k.describe(),
            "36 files of 4 KiB:1,8 KiB:3 (seed 0x10), 4 a directory in 2 levels of 3"
        );
    }
}
