//! The devices underneath an iolab target, read from sysfs and /proc under
//! a root directory (`/` on a live system, a fixture tree in tests):
//!
//! - [`discover`]: file -> mount -> device -> partition's parent -> dm, md
//!   and multipath slaves -> loop backing files, recursively;
//! - [`diskstats`]: /proc/diskstats samples, the `iostat -x` arithmetic
//!   exactly as sysstat does it, and a [`Sampler`] for once per interval;
//! - [`compare`]: iolab's own counts against the device's, and what the
//!   difference means;
//! - [`doctor`] and [`inventory`]: configuration of each device, multipath
//!   maps, FC ports, NVMe, ZFS;
//! - [`findings`]: advice with a stable code, what was seen, why it
//!   matters and the fix; [`context`] gathers what run-time advice needs;
//! - [`qdepth`]: per-LUN queue depth against a target port's queue.
//!
//! Nothing here writes anything, and nothing a missing file or tool can
//! cause is an error: it is a note in the result.

pub mod blockdev;
pub mod cmd;
pub mod compare;
pub mod context;
pub mod discover;
pub mod diskstats;
pub mod doctor;
pub mod findings;
pub mod inventory;
pub mod mountinfo;
pub mod qdepth;
pub mod sysroot;
pub mod units;
pub mod zfs;

pub use cmd::{runner_for, CommandRunner};
pub use compare::{compare, AppCounts, CountNote};
pub use context::{run_findings, target_context, TargetContext};
pub use discover::{discover, Discovery};
pub use diskstats::{iostat, DeviceCounts, DeviceRow, IostatRow, Sample, Sampler};
pub use doctor::{doctor, render_text, DoctorReport};
pub use findings::{Finding, Severity, WorkloadFacts};
pub use sysroot::Sysroot;
