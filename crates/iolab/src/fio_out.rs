//! fio's outputs of a run, written after the runs from the result
//! document: fio's JSON (`iolab run --fio-json FILE`, `iolab fio
//! --output-format=json`) and the log files a fio job asks for
//! (`write_bw_log=NAME`, ...). The texts come from `iolab_report::fio`;
//! this module only writes them, under iolab's output rules
//! (crates/target/src/output.rs): never a block device, a target of the
//! run or a file iolab did not write (without `--force`).

use iolab_report::ResultDoc;
use iolab_target::{check_output, OutputKind, OutputPath, OutputRules};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Where fio's JSON goes.
#[derive(Debug)]
pub enum FioDest {
    /// A file (or a stream the user named), checked before the run.
    File { flag: &'static str, path: PathBuf },
    /// `iolab fio --output-format=json` without `--output`: the standard
    /// output iolab started with, kept apart from its terminal lines
    /// (which go to stderr then; crate::fio_cmd).
    Stdout(std::fs::File),
}

/// fio's JSON of a run: where, and whether json+ (with latency bins).
#[derive(Debug)]
pub struct FioOut {
    pub dest: FioDest,
    pub plus: bool,
}

impl FioOut {
    /// The file to check before the run, if the JSON goes to one.
    pub fn file(&self) -> Option<(&'static str, &Path, OutputKind)> {
        match &self.dest {
            FioDest::File { flag, path } => Some((flag, path.as_path(), OutputKind::FioJson)),
            FioDest::Stdout(_) => None,
        }
    }
}

/// fio's JSON text of `doc` (fio's key order and layout), ending in a
/// newline as fio's does.
fn json_text(doc: &ResultDoc, plus: bool) -> Vec<u8> {
    let mut text = iolab_report::fio::json_text(doc, plus).into_bytes();
    if !text.ends_with(b"\n") {
        text.push(b'\n');
    }
    text
}

/// The fio log files a plan's fio jobs ask for (`write_bw_log=NAME`,
/// ...), named as they will be written: checked before the run.
pub fn planned_logs(plan: &iolab_plan::Plan) -> Vec<PathBuf> {
    let ws: Vec<(&iolab_spec::WorkloadSpec, u32, u32)> = plan
        .runs
        .iter()
        .flat_map(|r| &r.spec.workloads)
        .map(|w| (w, w.qd, w.jobs))
        .collect();
    iolab_report::fio::log_paths(&ws)
        .into_iter()
        .map(PathBuf::from)
        .collect()
}

/// Write fio's JSON of `doc` where `fio` says (`checked`: its file,
/// checked before the run). An error is one line for stderr.
pub fn write_json(
    doc: &ResultDoc,
    fio: &mut FioOut,
    checked: Option<&OutputPath>,
) -> Result<Option<PathBuf>, String> {
    let text = json_text(doc, fio.plus);
    match (&mut fio.dest, checked) {
        (FioDest::Stdout(f), _) => match std::io::stdout()
            .flush()
            .and_then(|_| f.write_all(&text))
            .and_then(|_| f.flush())
        {
            Ok(()) => Ok(None),
            // `iolab fio ... | head`: a closed pipe is the reader's choice.
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(None),
            Err(e) => Err(format!("cannot write fio's JSON to standard output: {e}")),
        },
        (FioDest::File { path, .. }, Some(out)) => {
            out.write_bytes(&text).map_err(|e| e.0)?;
            Ok((!out.is_stream()).then(|| path.clone()))
        }
        (FioDest::File { flag, path }, None) => Err(format!(
            "{flag} {} was not checked before the run; nothing written",
            path.display()
        )),
    }
}

/// Write the fio log files of `doc` (none unless a fio job asked for
/// them), each checked with `rules` as it is written: a file iolab did not
/// write is refused, not clobbered. The paths written, and one line per
/// log not written.
pub fn write_logs(doc: &ResultDoc, rules: &OutputRules) -> (Vec<String>, Vec<String>) {
    let mut written = Vec::new();
    let mut errors = Vec::new();
    for log in iolab_report::fio::logs(doc) {
        let path = Path::new(&log.path);
        let done = check_output("the fio log", path, OutputKind::FioLog, rules)
            .and_then(|o| o.write_bytes(log.text.as_bytes()));
        match done {
            Ok(()) => written.push(log.path),
            Err(e) => errors.push(e.0),
        }
    }
    (written, errors)
}
