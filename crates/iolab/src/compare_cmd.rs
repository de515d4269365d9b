//! `iolab compare BEFORE.json AFTER.json [MORE.json ...]`: runs matched by
//! their parameters, figures side by side with the change in percent and
//! whether it is beyond the run-to-run spread (docs/compare.md). The work
//! is in iolab_report::compare; this loads the documents and writes output.

use crate::exit::bad_input;
use iolab_report::compare::{self, render};
use iolab_report::{load_document, LoadError, ResultDoc};
use iolab_target::OutputKind;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Result documents (two or more), the first is the baseline
    #[arg(value_name = "RESULT.json")]
    pub results: Vec<PathBuf>,

    /// Also write the comparison as a self-contained HTML report with overlaid curves
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,

    /// Also write the comparison as JSON (docs/compare.md) to FILE
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,

    /// Print text, md (Markdown tables) or csv
    #[arg(long, value_name = "FORMAT", default_value = "text")]
    pub format: String,

    /// Leave parameters out of the match key, e.g. engine to compare psync with io_uring runs
    #[arg(long, value_name = "PARAM", value_delimiter = ',')]
    pub ignore: Vec<String>,

    /// Let --html or --json replace an existing file that iolab did not write (never a block device or a document compared; see docs/results.md)
    #[arg(long)]
    pub force: bool,
}

/// One line saying what is wrong with a document and what to do.
fn load_message(e: &LoadError) -> String {
    match e {
        LoadError::Read { path, err } => format!(
            "cannot read {path}: {err}; give the path of a result document written by iolab run --json"
        ),
        other => other.to_string(),
    }
}

/// Short names for the documents: file names without `.json`, the paths as
/// given where those collide, numbered where the same path is given twice.
fn labels(paths: &[PathBuf]) -> Vec<String> {
    let stem = |p: &Path| {
        p.file_name()
            .map(|n| n.to_string_lossy().trim_end_matches(".json").to_string())
            .unwrap_or_else(|| p.display().to_string())
    };
    let stems: Vec<String> = paths.iter().map(|p| stem(p)).collect();
    let mut out: Vec<String> = paths
        .iter()
        .enumerate()
        .map(|(i, p)| {
            if stems.iter().filter(|s| **s == stems[i]).count() > 1 {
                p.display().to_string()
            } else {
                stems[i].clone()
            }
        })
        .collect();
    for i in 0..out.len() {
        let n = out[..i].iter().filter(|l| **l == out[i]).count();
        if n > 0 {
            out[i] = format!("{} #{}", out[i], n + 1);
        }
    }
    out
}

/// Every parameter `--ignore` could name in these documents.
fn known_params(docs: &[ResultDoc]) -> Vec<String> {
    let mut v: Vec<String> = compare::KEY_PARAMS.iter().map(|s| s.to_string()).collect();
    v.push("rw".into());
    v.extend(compare::FS_KEYS.iter().map(|s| s.to_string()));
    for d in docs {
        for r in &d.runs {
            for k in r.params.keys() {
                if !v.contains(k) {
                    v.push(k.clone());
                }
            }
        }
    }
    v
}

/// The comparison as JSON: the document's identity first, as in every
/// iolab JSON document, so a later `--json` recognises it as iolab's.
#[derive(serde::Serialize)]
struct CompareDoc<'a> {
    schema_version: u32,
    tool: &'static str,
    tool_version: &'static str,
    #[serde(flatten)]
    res: &'a compare::CompareResult,
}

pub fn run(args: Args) -> ExitCode {
    // Checked here rather than by clap, to say what a comparison needs.
    if args.results.len() < 2 {
        return bad_input(&format!(
            "compare needs two or more result documents, the baseline first: iolab compare BEFORE.json AFTER.json [MORE.json ...] (got {})",
            args.results.len()
        ));
    }
    if !matches!(args.format.as_str(), "text" | "md" | "csv") {
        return bad_input(&format!(
            "--format {}: unknown format; give text, md or csv",
            args.format
        ));
    }
    // The outputs are checked before any document is read; none may
    // replace a document being compared.
    let mut rules = iolab_target::OutputRules::new(args.force);
    for r in &args.results {
        rules.protect(r, "one of the documents compared");
    }
    let mut list = Vec::new();
    if let Some(p) = &args.html {
        list.push(("--html", p.as_path(), OutputKind::Html));
    }
    if let Some(p) = &args.json {
        list.push(("--json", p.as_path(), OutputKind::CompareJson));
    }
    let outs = match iolab_target::check_outputs(&list, &rules) {
        Ok(v) => v,
        Err(e) => return crate::outputs::refused(&e),
    };
    let html_out = outs.iter().find(|o| o.kind() == OutputKind::Html);
    let json_out = outs.iter().find(|o| o.kind() == OutputKind::CompareJson);
    let mut docs = Vec::with_capacity(args.results.len());
    for p in &args.results {
        match load_document(p) {
            Ok(d) => docs.push(d),
            Err(e) => return bad_input(&load_message(&e)),
        }
    }
    let known = known_params(&docs);
    for i in &args.ignore {
        if !known.contains(i) {
            return bad_input(&format!(
                "--ignore {i}: no such parameter; give one of {}",
                known.join(", ")
            ));
        }
    }
    let labels = labels(&args.results);
    let input: Vec<(String, String, &ResultDoc)> = labels
        .into_iter()
        .zip(&args.results)
        .zip(&docs)
        .map(|((l, p), d)| (l, p.display().to_string(), d))
        .collect();
    let res = compare::compare(&input, &args.ignore);
    match args.format.as_str() {
        "md" => out!("{}", render::markdown(&res)),
        "csv" => out!("{}", render::csv(&res)),
        _ => out!("{}", render::text(&res)),
    }
    if let Some(o) = html_out {
        if let Err(e) = o.write_bytes(render::html(&res).as_bytes()) {
            return bad_input(&e.0);
        }
        eprintln!("iolab: comparison report written to {}", o.path().display());
    }
    if let Some(o) = json_out {
        let doc = CompareDoc {
            schema_version: 1,
            tool: "iolab",
            tool_version: env!("CARGO_PKG_VERSION"),
            res: &res,
        };
        let mut text = match serde_json::to_string_pretty(&doc) {
            Ok(t) => t,
            Err(e) => return bad_input(&format!("could not encode the comparison: {e}")),
        };
        text.push('\n');
        if let Err(e) = o.write_bytes(text.as_bytes()) {
            return bad_input(&e.0);
        }
        eprintln!("iolab: comparison written to {}", o.path().display());
    }
    ExitCode::SUCCESS
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_are_file_stems_unless_they_collide() {
        let p = |s: &str| PathBuf::from(s);
        assert_eq!(
            labels(&[p("a/before.json"), p("b/after.json")]),
            ["before", "after"]
        );
        assert_eq!(
            labels(&[p("a/r.json"), p("b/r.json")]),
            ["a/r.json", "b/r.json"]
        );
        assert_eq!(labels(&[p("r.json"), p("r.json")]), ["r.json", "r.json #2"]);
    }
}
