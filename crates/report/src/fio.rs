//! fio's output formats from a result document: the JSON fio 3.x writes
//! (`--output-format=json` and `json+`) and fio's per-interval log files
//! (`write_bw_log`, `write_lat_log`, `write_iops_log`), so tools that read
//! fio's output read iolab's. Computation only: the caller writes the
//! text where the user asked.

use crate::model::ResultDoc;

/// One fio log file: the name fio would give it and its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FioLog {
    pub path: String,
    pub text: String,
}

/// fio's JSON for `doc` (`plus`: `json+`, with the latency bins).
pub fn json(doc: &ResultDoc, plus: bool) -> serde_json::Value {
    let _ = (doc, plus);
    serde_json::json!({})
}

/// fio's log files for the workloads of `doc` whose fio job asked for
/// them (`write_bw_log=PREFIX`, ...).
pub fn logs(doc: &ResultDoc) -> Vec<FioLog> {
    let _ = doc;
    Vec::new()
}
