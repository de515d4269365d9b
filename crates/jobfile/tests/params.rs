//! docs/jobfile.md agrees with the parameter definitions
//! (`iolab_spec::params`): its parameter table and its list of sweep
//! parameters are the generated text, and its alias table names every
//! alias. `IOLAB_BLESS=1 cargo test -p iolab-jobfile --test params`
//! rewrites the generated parts after a definition changes.

use iolab_spec::params::{self, PARAMS};
use std::path::PathBuf;

fn doc_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/jobfile.md")
}

/// The text between `<!-- BEGIN generated: NAME ... -->` and `<!-- END
/// generated: NAME -->`, and where it is.
fn generated_part(doc: &str, name: &str) -> (usize, usize) {
    let begin = format!("<!-- BEGIN generated: {name}");
    let end = format!("<!-- END generated: {name} -->");
    let b = doc
        .find(&begin)
        .unwrap_or_else(|| panic!("docs/jobfile.md has no '{begin}' marker"));
    let start = b + doc[b..].find('\n').expect("marker line ends") + 1;
    let stop = doc[start..]
        .find(&end)
        .unwrap_or_else(|| panic!("docs/jobfile.md has no '{end}' marker"))
        + start;
    (start, stop)
}

/// The first line where two texts differ, for the message.
fn first_difference(have: &str, want: &str) -> String {
    for (i, (h, w)) in have.lines().zip(want.lines()).enumerate() {
        if h != w {
            return format!("line {} of the part:\n  docs: {h}\n  defs: {w}", i + 1);
        }
    }
    format!(
        "the docs have {} lines, the definitions {}",
        have.lines().count(),
        want.lines().count()
    )
}

#[test]
fn the_docs_tables_are_the_definitions() {
    let path = doc_path();
    let mut doc = std::fs::read_to_string(&path).unwrap();
    let bless = std::env::var_os("IOLAB_BLESS").is_some();
    let mut wrong = Vec::new();
    for (name, want) in [
        ("parameter table", params::docs_table()),
        ("sweep parameters", params::docs_sweep_list()),
    ] {
        // Blank lines around it: Markdown ends a table or a paragraph there,
        // not at the marker.
        let want = format!("\n{want}\n");
        let (a, b) = generated_part(&doc, name);
        if doc[a..b] != want {
            if bless {
                doc.replace_range(a..b, &want);
            } else {
                wrong.push(format!(
                    "the {name} of docs/jobfile.md differs from the parameter definitions in crates/spec/src/params.rs ({}); run IOLAB_BLESS=1 cargo test -p iolab-jobfile --test params to regenerate it",
                    first_difference(&doc[a..b], &want)
                ));
            }
        }
    }
    if bless {
        std::fs::write(&path, &doc).unwrap();
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn the_alias_table_names_every_alias() {
    let doc = std::fs::read_to_string(doc_path()).unwrap();
    let section = &doc[doc
        .find("### For fio, vdbench and dd users")
        .expect("the alias section")..];
    for p in PARAMS {
        for a in p.aliases {
            let row = format!("| `{a}` | `{}` |", p.name);
            assert!(
                section.contains(&row),
                "docs/jobfile.md's alias table lacks the row {row} (alias of {} in crates/spec/src/params.rs)",
                p.name
            );
        }
    }
}

/// Every key of the table is one a job file accepts, and every alias too:
/// the docs and the parser read the same definitions.
#[test]
fn every_documented_key_and_alias_parses() {
    for p in PARAMS.iter().filter(|p| p.is_key()) {
        for k in std::iter::once(p.name).chain(p.aliases.iter().copied()) {
            let value = match p.kind {
                params::Kind::Bool => "true",
                params::Kind::Uint => "1",
                _ => "'1'",
            };
            let text = format!("[global]\n{k} = {value}\n");
            iolab_jobfile::parse_job_text(&text, "t.toml")
                .unwrap_or_else(|e| panic!("{k}: {}", e.0));
        }
    }
}
