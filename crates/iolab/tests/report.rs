//! `iolab report`: Markdown and CSV compared with golden files, the HTML
//! report's content and escaping, and bad input.
//!
//! The documents come from real runs (null engine, so a sweep takes a
//! second) whose varying fields (host, times, command, every figure) are
//! then replaced by fixed ones, so the output is the same on every machine.
//! After an intended change, regenerate the golden files and review the
//! diff:
//!
//!     UPDATE_GOLDEN=1 cargo test -p iolab --test report

mod common;
use common::*;
use iolab_report::{
    load_document, summarize_points, write_document, Chart, Host, Mark, ResultDoc, Series,
    StudyResult, Table,
};
use serde_json::json;
use std::path::{Path, PathBuf};

/// Replace everything that differs between machines and runs.
fn normalise(doc: &mut ResultDoc, cmd: &str) {
    doc.host = Host {
        hostname: "testhost".into(),
        kernel: "6.1.0-test".into(),
        os: "Debian GNU/Linux 12 (bookworm)".into(),
        cpus: 2,
        memory_bytes: 8 << 30,
    };
    doc.started_at = "2026-01-02T03:04:05.000Z".into();
    doc.finished_at = Some("2026-01-02T03:04:35.000Z".into());
    doc.command = cmd.split(' ').map(String::from).collect();
    for (i, r) in doc.runs.iter_mut().enumerate() {
        // Figures that grow with block size and queue depth, repetitions
        // a few percent apart.
        let spec = r.spec.clone().expect("a run of one workload");
        let bs = spec.bs[0].bytes as f64;
        let qd = spec.qd as f64;
        let rep = r.repeat.unwrap_or(1) as f64;
        let write = spec.read_pct == 0;
        let iops = (if write { 20_000.0 } else { 50_000.0 })
            * qd.sqrt()
            * (4096.0 / bs).sqrt()
            * (1.0 + 0.03 * (rep - 1.0));
        let t = &mut r.summary.total;
        t.iops = iops;
        t.mbps = iops * bs / 1e6;
        t.mibps = iops * bs / 1048576.0;
        t.lat_us.mean = qd * 1e6 / iops;
        t.lat_us.p99 = 2.5 * t.lat_us.mean + i as f64;
        r.summary.cpu.usec_per_io = 3.25 + 0.5 * i as f64;
        r.started_at = doc.started_at.clone();
    }
    if let Some(p) = doc.plan.as_mut() {
        p.estimated_s = 1.5;
    }
    doc.points = summarize_points(doc);
}

/// A sweep over rw x bs x qd with 2 repetitions, its figures fixed.
fn sweep_doc(dir: &Path) -> ResultDoc {
    let (out, v) = run_json(
        &[
            "--engine",
            "null",
            "--target",
            "nt",
            "--no-prefill",
            "--size",
            "16m",
            "--rw",
            "read,write",
            "--bs",
            "4k,64k",
            "--qd",
            "1,4",
            "--duration",
            "40ms",
            "--repeat",
            "2",
            "--pause",
            "0s",
        ],
        dir,
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let mut doc: ResultDoc = serde_json::from_value(v).unwrap();
    assert_eq!(doc.runs.len(), 16);
    normalise(
        &mut doc,
        "iolab run --target nt --rw read,write --bs 4k,64k --qd 1,4 --repeat 2",
    );
    doc
}

/// The sweep with a study's results added, as `iolab study` stores them.
fn study_doc(dir: &Path) -> ResultDoc {
    let mut doc = sweep_doc(dir);
    doc.study = Some(StudyResult {
        name: "bs-ladder".into(),
        title: "Sequential MB/s by block size".into(),
        settings: [("duration", "40ms"), ("sizes", "4k,64k")]
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        tables: vec![Table {
            title: "MB/s by block size".into(),
            columns: vec![
                "bs".into(),
                "read MB/s".into(),
                "write MB/s".into(),
                "note".into(),
            ],
            rows: vec![
                vec![json!("4k"), json!(204.8), json!(81.92), json!("")],
                vec![
                    json!("64k"),
                    json!(819.2),
                    json!(327.68),
                    json!("flattens, here"),
                ],
            ],
        }],
        charts: vec![Chart {
            kind: "line".into(),
            title: "MB/s by block size".into(),
            x_label: "block size".into(),
            y_label: "MB/s".into(),
            log_x: true,
            x: vec!["4k".into(), "64k".into()],
            x_values: vec![4096.0, 65536.0],
            series: vec![
                Series {
                    name: "read".into(),
                    values: vec![Some(204.8), Some(819.2)],
                },
                Series {
                    name: "write".into(),
                    values: vec![Some(81.92), Some(327.68)],
                },
            ],
            marks: vec![Mark {
                x: "64k".into(),
                label: "read flattens at 64k".into(),
            }],
        }],
        figures: [("flatten_bs_read".to_string(), 65536.0)]
            .into_iter()
            .collect(),
        conclusions: vec!["Read MB/s flattens at 64k.".into()],
    });
    doc
}

/// One randrw run without a plan, under a name with Markdown and CSV
/// separators in it.
fn single_doc(dir: &Path) -> ResultDoc {
    let (out, v) = run_json(
        &[
            "--engine",
            "null",
            "--target",
            "nt",
            "--no-prefill",
            "--size",
            "16m",
            "--rw",
            "randrw",
            "--bs",
            "8k",
            "--qd",
            "32",
            "--duration",
            "40ms",
            "--name",
            "oltp|mix, 8k",
        ],
        dir,
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let mut doc: ResultDoc = serde_json::from_value(v).unwrap();
    normalise(
        &mut doc,
        "iolab run --target nt --rw randrw --bs 8k --qd 32",
    );
    doc
}

fn save(doc: &ResultDoc, dir: &Path, name: &str) -> PathBuf {
    let p = dir.join(name);
    write_document(&p, doc).unwrap();
    p
}

fn report(args: &[&str], file: &Path) -> std::process::Output {
    iolab().arg("report").arg(file).args(args).output().unwrap()
}

fn md_and_csv(doc: &ResultDoc, dir: &Path, stem: &str) {
    let f = save(doc, dir, &format!("{stem}.json"));
    for fmt in ["md", "csv"] {
        let out = report(&["--format", fmt], &f);
        assert!(out.status.success(), "{}", stderr(&out));
        assert!(out.stderr.is_empty(), "{}", stderr(&out));
        golden(&format!("{stem}.{fmt}"), &stdout(&out));
    }
    // Every column of every exported table says its unit (or is a label).
    let axes = iolab_report::tables::axis_names(doc);
    for t in iolab_report::tables::document_tables(doc) {
        for c in &t.columns {
            assert!(
                iolab_report::tables::column_has_unit(c, &axes),
                "{stem}: {}: column {c:?} has no unit",
                t.title
            );
        }
    }
}

#[test]
fn sweep_tables_as_markdown_and_csv() {
    let dir = tempfile::tempdir().unwrap();
    md_and_csv(&sweep_doc(dir.path()), dir.path(), "report-sweep");
}

#[test]
fn study_tables_as_markdown_and_csv() {
    let dir = tempfile::tempdir().unwrap();
    md_and_csv(&study_doc(dir.path()), dir.path(), "report-study");
}

#[test]
fn single_run_tables_as_markdown_and_csv() {
    let dir = tempfile::tempdir().unwrap();
    md_and_csv(&single_doc(dir.path()), dir.path(), "report-single");
}

#[test]
fn html_report_of_a_sweep_has_its_curves_runs_and_no_outside_references() {
    let dir = tempfile::tempdir().unwrap();
    let f = save(&sweep_doc(dir.path()), dir.path(), "s.json");
    let html_path = dir.path().join("s.html");
    let out = report(&["-o", html_path.to_str().unwrap()], &f);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(out.stdout.is_empty(), "with -o nothing goes to stdout");
    let html = std::fs::read_to_string(&html_path).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>"));
    assert!(html.trim_end().ends_with("</html>"));
    // Self-contained: nothing to fetch. The only URL is SVG's namespace.
    for bad in ["src=", "<link", "@import", "url("] {
        assert!(!html.contains(bad), "{bad} in the report");
    }
    let urls = html.matches("http://").count() + html.matches("https://").count();
    let ns = html.matches("xmlns=\"http://www.w3.org/2000/svg\"").count();
    assert_eq!(urls, ns, "a URL other than the SVG namespace");
    // qd is the fastest numeric axis: on x, one line per rw x bs.
    for t in ["IOPS by qd", "MB/s by qd", "p99 latency by qd"] {
        assert!(
            html.contains(&format!(
                "<figcaption>{t} (mean; bars: min to max)</figcaption>"
            )),
            "{t}"
        );
    }
    for l in [
        "rw=read bs=4k",
        "rw=read bs=64k",
        "rw=write bs=4k",
        "rw=write bs=64k",
    ] {
        assert!(html.contains(&format!(">{l}</text>")), "legend {l}");
    }
    // Repetitions differ by 3 %: every point of the 3 curves has a bar.
    assert_eq!(html.matches("class=\"err\"").count(), 3 * 8);
    // One collapsed section per run, each with its time series.
    assert_eq!(html.matches("<details>").count(), 16);
    assert_eq!(
        html.matches("<figcaption>Throughput over time</figcaption>")
            .count(),
        16
    );
    assert_eq!(
        html.matches("<figcaption>Latency percentiles</figcaption>")
            .count(),
        16
    );
    // The points table with its spread columns.
    assert!(html.contains("<caption>Points (mean over repetitions)</caption>"));
    assert!(html.contains("<th class=\"num\">IOPS CV %</th>"));

    // Without -o the report goes to standard output.
    let out = report(&[], &f);
    assert!(out.status.success());
    assert_eq!(stdout(&out), html);
}

#[test]
fn html_report_of_a_study_shows_conclusions_tables_and_marks() {
    let dir = tempfile::tempdir().unwrap();
    let f = save(&study_doc(dir.path()), dir.path(), "st.json");
    let out = report(&[], &f);
    assert!(out.status.success(), "{}", stderr(&out));
    let html = stdout(&out);
    assert!(html.contains("<h1>Sequential MB/s by block size</h1>"));
    assert!(html.contains("<li>Read MB/s flattens at 64k.</li>"));
    assert!(html.contains("<caption>MB/s by block size</caption>"));
    assert!(html.contains("<td>flattens, here</td>"));
    assert!(html.contains("class=\"mark\""));
    assert!(html.contains(">read flattens at 64k</text>"));
}

#[test]
fn names_and_paths_are_escaped_in_the_html_report() {
    let dir = tempfile::tempdir().unwrap();
    let evil = "<img src=x onerror=alert(1)>&\"'";
    let (out, v) = run_json(
        &[
            "--engine",
            "null",
            "--target",
            "nt<b>",
            "--no-prefill",
            "--size",
            "8m",
            "--duration",
            "30ms",
            "--name",
            evil,
        ],
        dir.path(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let mut doc: ResultDoc = serde_json::from_value(v).unwrap();
    doc.runs[0].notes.push("<script>alert(2)</script>".into());
    let f = save(&doc, dir.path(), "e.json");
    let out = report(&[], &f);
    assert!(out.status.success(), "{}", stderr(&out));
    let html = stdout(&out);
    assert!(!html.contains("<img"), "unescaped name");
    assert!(!html.contains("<b>"), "unescaped target");
    assert_eq!(
        html.matches("<script>").count(),
        1,
        "only the page's own script"
    );
    assert!(html.contains("&lt;img src=x onerror=alert(1)&gt;&amp;&quot;&#39;"));
    assert!(html.contains("&lt;script&gt;alert(2)&lt;/script&gt;"));
    // Markdown escapes the brackets too, so renderers show them as text
    // (the command line is in a code span, which renderers show as is).
    let md = stdout(&report(&["--format", "md"], &f));
    for l in md.lines().filter(|l| !l.starts_with("- command: `")) {
        let unescaped = l.match_indices('<').any(|(i, _)| !l[..i].ends_with('\\'));
        assert!(!unescaped, "{l}");
    }
    assert!(md.contains("\\<img src=x onerror=alert(1)\\>"), "{md}");
}

#[test]
fn an_incomplete_document_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let mut doc = sweep_doc(dir.path());
    doc.runs.truncate(5);
    doc.complete = false;
    doc.finished_at = None;
    doc.runs[4].complete = false;
    doc.runs[4].incomplete_reason = Some("interrupted (SIGINT)".into());
    doc.points = summarize_points(&doc);
    let f = save(&doc, dir.path(), "i.json");
    let html = stdout(&report(&[], &f));
    assert!(
        html.contains("This document is incomplete") && html.contains("5 of 16 planned runs"),
        "{html}"
    );
    assert!(html.contains("interrupted (SIGINT)"));
    let md = stdout(&report(&["--format", "md"], &f));
    assert!(md.contains("; INCOMPLETE"), "{md}");
}

#[test]
fn bad_input_is_one_line_and_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let good = save(&single_doc(dir.path()), dir.path(), "g.json");
    assert!(load_document(&good).is_ok());

    let out = report(&["--format", "pdf"], &good);
    assert_bad_input(&out, "unknown --format 'pdf'; use html, md or csv");

    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&good).unwrap()).unwrap();
    v["schema_version"] = json!(99);
    let other = dir.path().join("v99.json");
    std::fs::write(&other, v.to_string()).unwrap();
    assert_bad_input(
        &report(&[], &other),
        "has schema version 99, this iolab reads versions 1 to 2",
    );

    let text = std::fs::read_to_string(&good).unwrap();
    let cut = dir.path().join("cut.json");
    std::fs::write(&cut, &text[..text.len() / 2]).unwrap();
    assert_bad_input(&report(&[], &cut), "is not an iolab result document");

    let other_json = dir.path().join("other.json");
    std::fs::write(&other_json, "{\"hello\": 1}").unwrap();
    assert_bad_input(&report(&[], &other_json), "is not an iolab result document");

    assert_bad_input(
        &report(&[], &dir.path().join("missing.json")),
        "cannot read",
    );

    let out = report(
        &[
            "-o",
            dir.path().join("no/such/dir/r.html").to_str().unwrap(),
        ],
        &good,
    );
    assert_bad_input(&out, "no/such/dir does not exist");
}

#[test]
fn report_html_to_a_terminal_is_refused() {
    // util-linux `script` gives the command a pseudo-terminal as stdout.
    let have_script = std::process::Command::new("script")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    iolab_testutil::require!(have_script, "needs script (util-linux) for a terminal");
    let dir = tempfile::tempdir().unwrap();
    let f = save(&single_doc(dir.path()), dir.path(), "t.json");
    let bin = assert_cmd::cargo::cargo_bin("iolab");
    let in_terminal = |args: &str| {
        std::process::Command::new("script")
            .args(["-qec"])
            .arg(format!("{} report {} {args}", bin.display(), f.display()))
            .arg("/dev/null")
            .current_dir(dir.path())
            .output()
            .unwrap()
    };
    let out = in_terminal("");
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(2), "{text}");
    assert!(!text.contains("<html"), "HTML went to the terminal: {text}");
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(lines.len(), 1, "{text}");
    assert!(lines[0].contains("give -o FILE"), "{text}");
    // Markdown is for reading: it still prints there.
    let out = in_terminal("--format md");
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert!(stdout(&out).contains("| # | name |"), "{}", stdout(&out));
    // Redirected or with -o, the HTML is written as before.
    let out = report(&[], &f);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).starts_with("<!DOCTYPE html>"));
    let html = dir.path().join("t.html");
    let out = in_terminal(&format!("-o {}", html.display()));
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert!(std::fs::read_to_string(&html)
        .unwrap()
        .starts_with("<!DOCTYPE html>"));
}

/// A multi-host document (two hosts with two job sections each, one host
/// lost; the fuzz seed, written by `merge_hosts`): `iolab report` gives
/// the hosts section and table, `iolab compare` of it with itself a row
/// per host.
#[test]
fn a_multi_host_document_reports_and_compares_per_host() {
    let seed = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../fuzzing/seeds/result_doc/multi-host.json"
    );
    let doc = load_document(Path::new(seed)).unwrap();
    let r = &doc.runs[0];
    assert_eq!(r.hosts.len(), 2);
    let dir = tempfile::tempdir().unwrap();
    let f = save(&doc, dir.path(), "multi.json");
    let out = report(&[], &f);
    assert!(out.status.success(), "{}", stderr(&out));
    let html = stdout(&out);
    assert!(html.contains("<h4>Hosts (2)</h4>"), "no hosts section");
    assert!(html.contains("Throughput over time, per host"));
    assert!(html.contains("Host h2 was lost at 2.1 s"));
    let csv = stdout(&report(&["--format", "csv"], &f));
    let block = csv
        .split("Hosts of shared-lun\n")
        .nth(1)
        .expect("no hosts table");
    let rows: Vec<Vec<&str>> = block
        .lines()
        .skip(1)
        .take_while(|l| !l.is_empty())
        .map(|l| l.split(',').collect())
        .collect();
    assert_eq!(rows.len(), 2);
    for (row, h) in rows.iter().zip(&r.hosts) {
        assert_eq!(row[0], h.host);
        let iops: f64 = row[2].parse().unwrap();
        assert!((iops - h.run.summary.total.iops).abs() < 1e-3, "{row:?}");
    }
    let out = iolab().arg("compare").args([&f, &f]).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    for h in ["h1", "h2"] {
        let line = format!("shared-lun on {h}");
        assert!(
            text.lines().any(|l| l.starts_with(&line)),
            "{line} not in {text}"
        );
    }
}
