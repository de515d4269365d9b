//! Results: the versioned result document and the exporters that turn it
//! into text. Building the document from a raw run is pure computation;
//! only exporters produce bytes, and only the binary prints them.

mod build;
pub mod compare;
pub mod fio;
pub mod fs;
mod host;
pub mod html;
mod json;
pub mod model;
pub mod multi;
mod points;
pub mod study;
pub mod style;
pub mod tables;
pub mod terminal;
#[cfg(test)]
pub(crate) mod testraw;

pub use build::{build_run, build_workload, event_record, interval_record};
pub use host::host_info;
pub use iolab_raw::errno_name;
pub use json::{load_document, parse_document, save_document, write_document, LoadError};
pub use model::*;
pub use multi::{merge_hosts, HostOutcome};
pub use points::{spread, summarize_points};

impl ResultDoc {
    /// An empty document stamped with this host, now and this process's
    /// command line.
    pub fn new() -> ResultDoc {
        ResultDoc {
            schema_version: SCHEMA_VERSION,
            tool: "iolab".into(),
            tool_version: env!("CARGO_PKG_VERSION").into(),
            host: host_info(),
            started_at: model_time_now(),
            finished_at: None,
            command: std::env::args().collect(),
            complete: false,
            runs: Vec::new(),
            verify: None,
            plan: None,
            points: Vec::new(),
            study: None,
        }
    }
}

impl Default for ResultDoc {
    fn default() -> Self {
        ResultDoc::new()
    }
}

/// The current time as RFC 3339 with milliseconds, for document stamps.
pub fn model_time_now() -> String {
    build::rfc3339(std::time::SystemTime::now())
}
