//! The run core: what every run has whatever its workloads do. It owns
//! the threads, the start gate, the clock, interval boundaries, stall
//! detection, error accounting, observers, device samplers and events,
//! and drives workload drivers (the block driver lives in the engine
//! crate) behind one trait. It knows nothing about blocks.

pub mod events;
pub mod mark_protocol;
pub mod observer;

pub use events::{EventLog, Marked};
pub use observer::{Observer, Quiet};
