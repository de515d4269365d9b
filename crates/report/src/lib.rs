//! Results: the versioned result document and the exporters that turn it
//! into text. Building the document from a raw run is pure computation;
//! only exporters produce bytes, and only the binary prints them.

mod build;
mod host;
mod json;
pub mod model;
pub mod terminal;

pub use build::{build_run, interval_record};
pub use host::host_info;
pub use iolab_engine::errno_name;
pub use json::{load_document, write_document, LoadError};
pub use model::*;

/// The current time as RFC 3339 with milliseconds, for document stamps.
pub fn model_time_now() -> String {
    build::rfc3339(std::time::SystemTime::now())
}
