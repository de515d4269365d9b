//! `iolab report RESULT.json -o report.html`: one self-contained HTML file,
//! or the tables as Markdown or CSV (`--format md|csv`).

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// A result document written by iolab run --json or iolab study
    #[arg(value_name = "RESULT.json")]
    pub result: PathBuf,

    /// Write the report here (default: standard output); a new file, or one that holds an earlier iolab report of this format
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,

    /// html, md or csv
    #[arg(long, value_name = "FORMAT", default_value = "html")]
    pub format: String,

    /// Let -o replace an existing file that iolab did not write (never a block device or the result document itself; see docs/results.md)
    #[arg(long)]
    pub force: bool,
}

pub fn run(args: Args) -> ExitCode {
    use iolab_target::OutputKind;
    let (render, kind): (fn(&iolab_report::ResultDoc) -> String, _) = match args.format.as_str() {
        "html" => (iolab_report::html::document_report, OutputKind::Html),
        "md" | "markdown" => (
            iolab_report::tables::document_markdown,
            OutputKind::Markdown,
        ),
        "csv" => (iolab_report::tables::document_csv, OutputKind::Csv),
        other => {
            eprintln!("iolab: unknown --format '{other}'; use html, md or csv");
            return ExitCode::from(crate::exit::EXIT_BAD_INPUT);
        }
    };
    // The output is checked before the document is read.
    let out = match &args.output {
        Some(path) => {
            let mut rules = iolab_target::OutputRules::new(args.force);
            rules.protect(&args.result, "the result document being reported");
            match iolab_target::check_output("-o", path, kind, &rules) {
                Ok(o) => Some(o),
                Err(e) => return crate::outputs::refused(&e),
            }
        }
        None => None,
    };
    let doc = match iolab_report::load_document(&args.result) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("iolab: {e}");
            return ExitCode::from(crate::exit::EXIT_BAD_INPUT);
        }
    };
    let text = render(&doc);
    let written = match &out {
        Some(o) => o.write_bytes(text.as_bytes()).map_err(|e| e.0),
        None => {
            if args.format == "html" && std::io::stdout().is_terminal() {
                return html_to_a_terminal();
            }
            let mut out = std::io::stdout().lock();
            match out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
                Ok(()) => Ok(()),
                // A closed pipe (`| head`) is not an error.
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
                Err(e) => Err(format!("cannot write the report to standard output: {e}")),
            }
        }
    };
    match written {
        Ok(()) => ExitCode::SUCCESS,
        Err(msg) => {
            eprintln!("iolab: {msg}");
            ExitCode::from(crate::exit::EXIT_BAD_INPUT)
        }
    }
}

/// Pages of HTML on a terminal help nobody: refuse, and say what to do
/// (docs/report.md). A pipe or a redirected file still gets the report.
fn html_to_a_terminal() -> ExitCode {
    eprintln!(
        "iolab: the HTML report is not for a terminal; give -o FILE (e.g. -o report.html), redirect it (> report.html), or use --format md"
    );
    ExitCode::from(crate::exit::EXIT_BAD_INPUT)
}
