//! The run core: what every run has whatever its workloads do. It owns
//! the threads, the start gate, the clock, interval boundaries, stall
//! detection, error accounting, observers, samplers and events, and drives
//! workload drivers (the block driver lives in the engine crate) behind
//! one trait ([`Driver`]). It knows nothing about blocks.

mod collect;
pub mod cpu;
pub mod driver;
pub mod events;
mod exitall;
pub mod mark_protocol;
pub mod observer;
pub mod port;
mod run;
pub mod sampler;
mod stalls;
mod steady;
pub mod timeline;

pub use driver::{Caps, Driver, Task};
pub use events::{EventLog, Marked};
pub use observer::{FilesetProgress, Observer, Quiet};
pub use port::{
    Detached, ErrorTally, GapTracker, Port, Setup, Snapshot, Window, WorkerEnd, GAP_RECORD_NS,
    MAX_ERROR_RECORDS,
};
pub use run::{run, run_with, timeline, window, CoreError};
pub use sampler::{Sampler, Tick};
pub use timeline::Timeline;
