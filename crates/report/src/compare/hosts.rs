//! Comparing multi-host documents host by host: a matched row of runs on
//! several hosts gets a row per host of the baseline's run (label
//! `ROW on HOST`), its counterparts being the same host (by `host` name)
//! in the matched runs of the other documents. A host found on one side
//! only is listed in the notes, not compared.

use super::{judge, Entry, Figures, Row, FIGURES};
use crate::model::{ResultDoc, RunResult};
use std::collections::{HashMap, HashSet};

/// The hosts of an entry's runs, in the order first seen.
fn host_names(doc: &ResultDoc, e: &Entry) -> Vec<String> {
    let mut seen: HashSet<&str> = HashSet::new();
    let mut v: Vec<String> = Vec::new();
    for &i in &e.runs {
        for h in &doc.runs[i as usize].hosts {
            if seen.insert(&h.host) {
                v.push(h.host.clone());
            }
        }
    }
    v
}

/// Each host's own records in an entry's runs, by host name (the first
/// record of a name in each run).
fn host_runs<'a>(doc: &'a ResultDoc, e: &Entry) -> HashMap<&'a str, Vec<&'a RunResult>> {
    let mut m: HashMap<&str, Vec<&RunResult>> = HashMap::new();
    for &i in &e.runs {
        let mut seen: HashSet<&str> = HashSet::new();
        for h in &doc.runs[i as usize].hosts {
            if seen.insert(&h.host) {
                m.entry(&h.host).or_default().push(&h.run);
            }
        }
    }
    m
}

/// The host rows of a matched row (empty when no run of it ran on
/// several hosts); a note for each host only one side has.
pub(super) fn host_rows(
    docs: &[(String, String, &ResultDoc)],
    entries: &[Option<Entry>],
    notes: &mut Vec<String>,
) -> Vec<Row> {
    let names: Vec<Option<Vec<String>>> = entries
        .iter()
        .map(|e| e.as_ref().map(|e| host_names(docs[e.doc].2, e)))
        .collect();
    let Some(Some(base)) = entries.first() else {
        return Vec::new();
    };
    let base_names = names[0].clone().unwrap_or_default();
    let sets: Vec<Option<HashSet<&str>>> = names
        .iter()
        .map(|n| n.as_ref().map(|n| n.iter().map(String::as_str).collect()))
        .collect();
    for (d, n) in names.iter().enumerate() {
        let Some(n) = n else { continue };
        for h in n {
            let elsewhere: Vec<&str> = sets
                .iter()
                .enumerate()
                .filter(|(o, x)| *o != d && x.as_ref().is_some_and(|x| !x.contains(h.as_str())))
                .map(|(o, _)| docs[o].0.as_str())
                .collect();
            if !elsewhere.is_empty() {
                notes.push(format!(
                    "{}: host {h} of {} is not in {}; it is listed, not compared",
                    docs[d].0,
                    base.label,
                    elsewhere.join(", ")
                ));
            }
        }
    }
    let by_host: Vec<Option<HashMap<&str, Vec<&RunResult>>>> = entries
        .iter()
        .map(|e| e.as_ref().map(|e| host_runs(docs[e.doc].2, e)))
        .collect();
    base_names
        .iter()
        .map(|h| {
            let per_doc: Vec<Option<Entry>> = entries
                .iter()
                .zip(&by_host)
                .map(|(e, m)| {
                    let e = e.as_ref()?;
                    let runs = m.as_ref()?.get(h.as_str())?;
                    (!runs.is_empty()).then(|| Entry {
                        label: format!("{} on {h}", base.label),
                        name: e.name.clone(),
                        incomplete_runs: runs.iter().filter(|r| !r.complete).count() as u32,
                        figures: Figures::of_runs(runs),
                        ..e.clone()
                    })
                })
                .collect();
            let b = per_doc[0].clone().expect("the baseline has its own hosts");
            let mut changes = Vec::new();
            for (d, e) in per_doc.iter().enumerate().skip(1) {
                let Some(e) = e else { continue };
                for f in FIGURES {
                    changes.push(judge(f, d, b.figures.get(f), e.figures.get(f)));
                }
            }
            Row {
                label: b.label.clone(),
                key: b.key.clone(),
                entries: per_doc,
                changes,
                workloads: Vec::new(),
                hosts: Vec::new(),
                operations: Vec::new(),
                fileset: Vec::new(),
            }
        })
        .collect()
}
