//! The fileset's definition lives in the spec crate (so a workload's
//! spec can hold it); re-exported here under its old path.

pub use iolab_spec::fileset::*;

/// Specs for the crate's unit tests.
#[cfg(test)]
pub(crate) mod testing {
    use super::*;

    /// vdbench's shape under `anchor`.
    pub fn tree(anchor: &str, depth: u32, width: u32, files: u64, sizes: &str) -> FilesetSpec {
        FilesetSpec {
            anchor: anchor.into(),
            shape: Shape::Tree(TreeShape {
                depth,
                width,
                files,
                sizes: sizes.into(),
            }),
        }
    }

    /// filebench's shape under `anchor`.
    pub fn entries(anchor: &str, n: u64, width: u32, size: FileSize, prealloc: f64) -> FilesetSpec {
        FilesetSpec {
            anchor: anchor.into(),
            shape: Shape::Entries(EntriesShape {
                entries: n,
                dir_width: width,
                size,
                prealloc,
            }),
        }
    }
}
