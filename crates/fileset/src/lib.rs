//! iolab's filesets (issue 16, first step): what a fileset is
//! ([`FilesetSpec`]), where its files go ([`Layout`], computed from the spec
//! and a seed without touching disk; [`LayoutKey`], what determines its
//! paths and sizes), the anchor directory's marker and
//! safety rules ([`anchor`]), the free space and inode check
//! ([`capacity`]) and creating and removing the files ([`create`],
//! [`remove`]).
//!
//! Data safety comes first: iolab writes, rewrites or deletes only inside
//! an anchor that carries its marker file [`anchor::MARKER`], only the
//! paths the layout names, and never through a symbolic link. See the
//! module doc of [`anchor`] and docs/filesystem.md, "Filesets and the
//! anchor".

pub mod anchor;
pub mod capacity;
pub mod create;
pub mod key;
pub mod layout;
pub mod remove;
pub mod spec;

pub use anchor::{Anchor, AnchorState, FsError, Marker, MARKER};
pub use capacity::{check_capacity, Needs};
pub use create::{
    create, CreateError, CreateOptions, CreateReport, FillFn, Format, Progress, SeenFn,
};
pub use key::{Fit, LayoutKey};
pub use layout::Layout;
pub use remove::{remove, RemoveReport};
pub use spec::{parse_size_mix, EntriesShape, FileSize, FilesetSpec, Shape, SpecError, TreeShape};
