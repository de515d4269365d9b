//! The fileset's definition lives in the spec crate (so a workload's
//! spec can hold it); re-exported here under its old path.

pub use iolab_spec::fileset::*;
