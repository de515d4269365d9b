//! A fileset's layout: the directories and files (relative paths and
//! sizes) a spec and a seed describe, computed without touching disk.
//!
//! Every layout is a uniform tree: `depth` levels of directories, each
//! directory holding up to `width` subdirectories, and the leaves holding
//! up to `per_leaf` files; only the directories that lead to a used leaf
//! exist. Paths are derived from indices (directory `d2/d0`, file
//! `d2/d0/f17`), never stored.
//!
//! Memory: one file costs 8 bytes (its size in a `Vec<u64>`), plus the
//! fixed-size struct; 1,000,000 files take 8 MB. Prealloc (filebench) is a
//! hash of the seed and the file's number, so it costs nothing.

use crate::key::{LayoutKey, Sizes};
use crate::spec::{FilesetSpec, Shape, SpecError};
use std::path::PathBuf;

/// The deterministic layout of a fileset.
#[derive(Clone, Debug, PartialEq)]
pub struct Layout {
    width: u64,
    depth: u32,
    per_leaf: u64,
    /// Directories in use at each level 1..=depth (index 0 is level 1).
    level_dirs: Vec<u64>,
    sizes: Vec<u64>,
    seed: u64,
    /// Files in 10,000 that exist up front (10,000 = all).
    prealloc_per_10k: u64,
    key: LayoutKey,
}

impl Layout {
    /// The layout of `spec` for `seed` (sizes and prealloc draws); the same
    /// spec and seed give the same layout.
    pub fn new(spec: &FilesetSpec, seed: u64) -> Result<Layout, SpecError> {
        let key = LayoutKey::of(spec, seed)?;
        let pre = match &spec.shape {
            Shape::Tree(_) => 10_000,
            Shape::Entries(e) => (e.prealloc * 100.0).round() as u64,
        };
        Ok(Self::build(key, seed, pre))
    }

    /// The layout a key describes, every file made up front: the tree an
    /// anchor's marker records (for its clean-up).
    pub fn from_key(key: &LayoutKey) -> Layout {
        Self::build(key.clone(), key.seed.unwrap_or(0), 10_000)
    }

    fn build(key: LayoutKey, seed: u64, pre: u64) -> Layout {
        let mut rng = fastrand::Rng::with_seed(key.seed.unwrap_or(seed));
        let sizes: Vec<u64> = match &key.sizes {
            Sizes::Fixed(s) => vec![*s; key.files as usize],
            Sizes::Weighted(mix) => {
                let total: u64 = mix.iter().map(|&(_, w)| u64::from(w)).sum();
                (0..key.files)
                    .map(|_| pick(mix, rng.u64(0..total)))
                    .collect()
            }
            Sizes::Gamma { mean, shape } => (0..key.files)
                .map(|_| (gamma(&mut rng, *shape) * *mean as f64 / shape).round() as u64)
                .collect(),
        };
        let (width, per_leaf) = (key.width.max(1), key.per_leaf);
        let n = sizes.len() as u64;
        let used_leaves = if per_leaf == 0 {
            0
        } else {
            n.div_ceil(per_leaf)
        };
        let depth = key.depth;
        let level_dirs = (1..=depth)
            .map(|l| used_leaves.div_ceil(width.pow(depth - l)))
            .collect();
        Layout {
            width,
            depth,
            per_leaf,
            level_dirs,
            sizes,
            seed,
            prealloc_per_10k: pre,
            key,
        }
    }

    /// What determines this layout's paths and sizes (the marker records
    /// it).
    pub fn key(&self) -> &LayoutKey {
        &self.key
    }

    /// Number of files.
    pub fn files(&self) -> u64 {
        self.sizes.len() as u64
    }

    /// Number of directories (the anchor not counted).
    pub fn dirs(&self) -> u64 {
        self.level_dirs.iter().sum()
    }

    /// Size in bytes of file `i`.
    pub fn size(&self, i: u64) -> u64 {
        self.sizes[i as usize]
    }

    /// Sum of the sizes of every file of the layout (saturating).
    pub fn total_bytes(&self) -> u64 {
        self.sizes.iter().fold(0u64, |t, &s| t.saturating_add(s))
    }

    /// Sum of the sizes of the files created up front (saturating).
    pub fn prealloc_bytes(&self) -> u64 {
        (0..self.files())
            .filter(|&i| self.prealloc(i))
            .fold(0u64, |t, i| t.saturating_add(self.size(i)))
    }

    /// Whether file `i` is created with the fileset (filebench's prealloc;
    /// always true for a vdbench shape).
    pub fn prealloc(&self, i: u64) -> bool {
        self.prealloc_per_10k >= 10_000
            || splitmix(self.seed ^ i.wrapping_mul(0x9e37)) % 10_000 < self.prealloc_per_10k
    }

    /// Directory number `d` (level order: all of level 1, then level 2...),
    /// relative to the anchor.
    pub fn dir_path(&self, d: u64) -> PathBuf {
        let mut rest = d;
        for (l, &count) in self.level_dirs.iter().enumerate() {
            if rest < count {
                return self.dir_at(l as u32 + 1, rest);
            }
            rest -= count;
        }
        panic!("directory {d} of {}", self.dirs());
    }

    fn dir_at(&self, level: u32, idx: u64) -> PathBuf {
        let mut p = PathBuf::new();
        for k in 1..=level {
            let digit = (idx / self.width.pow(level - k)) % self.width;
            p.push(format!("d{digit}"));
        }
        p
    }

    /// File `i`'s path relative to the anchor.
    pub fn file_path(&self, i: u64) -> PathBuf {
        let (leaf, j) = (i / self.per_leaf, i % self.per_leaf);
        let mut p = self.dir_at(self.depth, leaf);
        p.push(format!("f{j}"));
        p
    }

    /// File `i`'s path relative to the anchor written into `out` (cleared
    /// first) without allocating once `out` has room: the per-operation
    /// form of [`Layout::file_path`].
    pub fn file_path_into(&self, i: u64, out: &mut Vec<u8>) {
        self.leaf_dir_into(i, out);
        if !out.is_empty() {
            out.push(b'/');
        }
        push_num(out, b'f', i % self.per_leaf.max(1));
    }

    /// The number of the leaf directory holding file `i` (files of one
    /// leaf directory share it).
    pub fn leaf_of(&self, i: u64) -> u64 {
        i / self.per_leaf.max(1)
    }

    /// The directory holding file `i`, relative to the anchor, into `out`
    /// (cleared first; empty when the files sit in the anchor itself).
    pub fn leaf_dir_into(&self, i: u64, out: &mut Vec<u8>) {
        out.clear();
        let leaf = i / self.per_leaf.max(1);
        for k in 1..=self.depth {
            let digit = (leaf / self.width.pow(self.depth - k)) % self.width;
            if k > 1 {
                out.push(b'/');
            }
            push_num(out, b'd', digit);
        }
    }

    /// Bytes this layout holds on the heap (what it costs in memory).
    pub fn heap_bytes(&self) -> usize {
        self.sizes.capacity() * std::mem::size_of::<u64>()
            + self.level_dirs.capacity() * std::mem::size_of::<u64>()
    }
}

fn pick(mix: &[(u64, u32)], mut r: u64) -> u64 {
    for &(size, w) in mix {
        if r < u64::from(w) {
            return size;
        }
        r -= u64::from(w);
    }
    mix[mix.len() - 1].0
}

fn splitmix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// `prefix` and the decimal digits of `n` appended to `out`.
fn push_num(out: &mut Vec<u8>, prefix: u8, mut n: u64) {
    out.push(prefix);
    let start = out.len();
    loop {
        out.push(b'0' + (n % 10) as u8);
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out[start..].reverse();
}

/// A gamma(shape, 1) draw (Marsaglia and Tsang); written here because it is
/// twenty lines and the well-kept crates (rand_distr) would pull in `rand`
/// beside the `fastrand` the workspace already uses.
fn gamma(rng: &mut fastrand::Rng, shape: f64) -> f64 {
    if shape < 1.0 {
        let u = rng.f64().max(f64::MIN_POSITIVE);
        return gamma(rng, shape + 1.0) * u.powf(1.0 / shape);
    }
    let d = shape - 1.0 / 3.0;
    let c = 1.0 / (9.0 * d).sqrt();
    loop {
        let u1 = rng.f64().max(f64::MIN_POSITIVE);
        let x = (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * rng.f64()).cos();
        let v = (1.0 + c * x).powi(3);
        if v <= 0.0 {
            continue;
        }
        let u = rng.f64().max(f64::MIN_POSITIVE);
        if u.ln() < 0.5 * x * x + d - d * v + d * v.ln() {
            return d * v;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::{EntriesShape, FileSize};
    use std::collections::HashSet;

    fn tree(depth: u32, width: u32, files: u64, sizes: &str) -> FilesetSpec {
        crate::spec::testing::tree("/a", depth, width, files, sizes)
    }

    #[test]
    fn tree_shape_counts_are_exact_and_paths_unique() {
        let l = Layout::new(&tree(3, 4, 5, "4k"), 1).unwrap();
        assert_eq!(l.dirs(), 4 + 16 + 64);
        assert_eq!(l.files(), 64 * 5);
        let dirs: HashSet<_> = (0..l.dirs()).map(|d| l.dir_path(d)).collect();
        assert_eq!(dirs.len() as u64, l.dirs());
        for d in &dirs {
            let parent = d.parent().unwrap();
            assert!(
                parent.as_os_str().is_empty() || dirs.contains(parent),
                "{d:?}"
            );
        }
        let files: HashSet<_> = (0..l.files()).map(|i| l.file_path(i)).collect();
        assert_eq!(files.len() as u64, l.files());
        for f in &files {
            let parent = f.parent().unwrap();
            assert_eq!(parent.components().count(), 3);
            assert!(dirs.contains(parent), "{f:?}");
        }
        assert_eq!(l.total_bytes(), 320 * 4096);
        let flat = Layout::new(&tree(0, 7, 9, "1k"), 1).unwrap();
        assert_eq!((flat.dirs(), flat.files()), (0, 9));
        assert_eq!(flat.file_path(8), PathBuf::from("f8"));
    }

    #[test]
    fn layout_is_deterministic_per_seed_and_follows_weights() {
        let s = tree(2, 10, 100, "64k:30,1m:70");
        let a = Layout::new(&s, 7).unwrap();
        assert_eq!(a, Layout::new(&s, 7).unwrap());
        assert_ne!(a, Layout::new(&s, 8).unwrap());
        let big = (0..a.files()).filter(|&i| a.size(i) == 1 << 20).count() as f64;
        let share = big / a.files() as f64;
        assert!((share - 0.70).abs() < 0.03, "1m share {share}");
        assert!((0..a.files()).all(|i| a.size(i) == 1 << 20 || a.size(i) == 64 << 10));
    }

    #[test]
    fn entries_shape_uses_the_mean_width_gamma_sizes_and_prealloc() {
        let s = FilesetSpec {
            anchor: "/a".into(),
            shape: Shape::Entries(EntriesShape {
                entries: 10_000,
                dir_width: 20,
                size: FileSize::Gamma {
                    mean: 128 << 10,
                    shape: 1.5,
                },
                prealloc: 80.0,
            }),
        };
        let l = Layout::new(&s, 3).unwrap();
        // 500 leaves of 20 files need depth 3 (20^2 = 400 < 500 <= 8000):
        // 500 leaves, 25 at level 2, 2 at level 1.
        assert_eq!(l.files(), 10_000);
        assert_eq!(l.dirs(), 500 + 25 + 2);
        let mean = (0..l.files()).map(|i| l.size(i)).sum::<u64>() as f64 / 10_000.0;
        assert!(
            (mean / (128 << 10) as f64 - 1.0).abs() < 0.05,
            "mean {mean}"
        );
        let pre = (0..l.files()).filter(|&i| l.prealloc(i)).count() as f64 / 10_000.0;
        assert!((pre - 0.80).abs() < 0.02, "prealloc {pre}");
    }

    #[test]
    fn total_bytes_saturate_instead_of_overflowing() {
        let l = Layout::new(&tree(0, 1, 10_000, "8p"), 1).unwrap();
        assert_eq!(l.total_bytes(), u64::MAX);
    }

    #[test]
    fn path_into_matches_file_path() {
        let l = Layout::new(&tree(2, 3, 4, "4k"), 1).unwrap();
        let mut b = Vec::new();
        for i in 0..l.files() {
            l.file_path_into(i, &mut b);
            assert_eq!(b, l.file_path(i).as_os_str().as_encoded_bytes());
        }
    }

    /// A million files: the layout must hold 8 bytes per file and a few
    /// words, i.e. 8,000,000 bytes plus slack well under the issue's
    /// 200 MiB for the whole process.
    #[test]
    fn a_million_files_cost_eight_bytes_each() {
        let l = Layout::new(&tree(2, 100, 100, "4k:1,8k:1"), 1).unwrap();
        assert_eq!(l.files(), 1_000_000);
        let heap = l.heap_bytes();
        assert!(heap >= 8_000_000, "{heap}: sizes not counted?");
        assert!(heap <= 8_000_000 + 4096, "{heap} bytes for 1,000,000 files");
        assert_eq!(l.file_path(999_999), PathBuf::from("d99/d99/f99"));
    }
}
