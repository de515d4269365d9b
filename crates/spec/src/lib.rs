//! The workload model shared by every part of iolab.
//!
//! Front ends (flags, job files) produce a [`WorkloadSpec`]: every parameter
//! resolved to a concrete value, validated, and serializable so that the
//! result document records exactly what ran. The engine consumes it.

pub mod coupling;
pub mod curve;
pub mod dist;
pub mod fileset;
pub mod fs;
pub mod fs_parse;
pub mod hosts;
pub mod numa;
pub mod op;
pub mod origin;
pub mod params;
pub mod pattern;
pub mod personality;
pub mod prio;
pub mod run;
pub mod steady;
pub mod units;
pub mod workload;

pub use coupling::{ExitWhat, FlowSpec};
pub use curve::{parse_curve, CurveSpec};
pub use hosts::HostSpec;
pub use numa::{MemMode, MemPolicy, NumaSpec};
pub use op::Op;
pub use origin::JobOrigin;
pub use pattern::{parse_pattern, PatternBytes};
pub use run::RunSpec;
pub use steady::{SteadyCheck, SteadyMetric, SteadySpec};
pub use units::{
    format_bytes, format_duration, format_duration_exact, parse_duration, parse_size, thousands,
    UnitError,
};
pub use workload::*;
