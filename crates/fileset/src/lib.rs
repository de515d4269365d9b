//! iolab's filesets (issue 16, first step): what a fileset is
//! ([`FilesetSpec`]), where its files go ([`Layout`], computed from the spec
//! and a seed without touching disk), the anchor directory's marker and
//! safety rules ([`anchor`]), the free space and inode check
//! ([`capacity`]) and creating and removing the files ([`create`]).
//!
//! Data safety comes first: iolab writes, rewrites or deletes only inside
//! an anchor that carries its marker file [`anchor::MARKER`], only the
//! paths the layout names, and never through a symbolic link. See the
//! module doc of [`anchor`] and docs/filesystem.md, "Filesets and the
//! anchor".

pub mod anchor;
pub mod capacity;
pub mod create;
pub mod layout;
pub mod spec;

pub use anchor::{Anchor, AnchorState, FsError, MARKER};
pub use capacity::{check_capacity, Needs};
pub use create::{
    create, remove, CreateError, CreateOptions, CreateReport, FillFn, Format, Progress,
    RemoveReport,
};
pub use layout::Layout;
pub use spec::{parse_size_mix, EntriesShape, FileSize, FilesetSpec, Shape, SpecError, TreeShape};
