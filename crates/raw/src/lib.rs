//! Raw results: what a run measured, before any formatting. The engine
//! produces these types and the report crate turns them into the result
//! document; they live in a crate of their own so that the report (and
//! anything else that reads results) does not depend on the engine.

mod errno;
mod merge;
mod ops;
mod raw;

pub use errno::errno_name;
pub use merge::{common_stalls, completion, merge_notes, merge_runs, merge_workloads};
pub use ops::{Op, OpStats};
pub use raw::*;
