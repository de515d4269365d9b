//! A self-contained HTML report: one file with its style and charts inline
//! (SVG), no network needed to view it, readable on a phone and in print.
//!
//! [`Page`] builds any report (`iolab report`, `iolab compare --html`);
//! [`document_report`] is what `iolab report` writes for a result document.
//! Every piece of text that reaches the page goes through [`esc`]: run names,
//! paths and notes are user input.
//!
//! The HTML is written by hand rather than through a template crate: a
//! report is a dozen element kinds in a fixed order, built by a few methods
//! that all escape through one function (unit-tested, and checked again by a
//! test that feeds markup through every user-controlled field).

mod charts;
mod document;
mod hosts;
mod svg;

pub use charts::{axis_number, axis_title, percentile_ns};
pub use document::document_report;
pub use svg::{Band, BandKind, ChartExtras, PALETTE};

use crate::model::{Chart, Host, Table};
use crate::tables::{cell_text, numeric_column};
use std::fmt::Write;

/// Text made safe for HTML element content and attribute values.
pub fn esc(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&#39;"),
            c => o.push(c),
        }
    }
    o
}

const STYLE: &str = include_str!("style.css");

/// Opens every collapsed section before printing, so a printout holds the
/// whole report. The page works without it.
const PRINT_SCRIPT: &str = "addEventListener('beforeprint',function(){document.querySelectorAll('details').forEach(function(d){d.open=true})});";

/// An HTML report under construction. Methods append to the body in call
/// order; [`Page::finish`] wraps it into the whole document.
#[derive(Debug, Clone)]
pub struct Page {
    title: String,
    body: String,
    charts: usize,
    /// Consecutive charts share a responsive grid; this is open while they
    /// are being added.
    grid_open: bool,
}

impl Page {
    pub fn new(title: &str) -> Page {
        let mut p = Page {
            title: title.to_string(),
            body: String::new(),
            charts: 0,
            grid_open: false,
        };
        let _ = writeln!(p.body, "<h1>{}</h1>", esc(title));
        p
    }

    fn close_grid(&mut self) {
        if self.grid_open {
            self.body.push_str("</div>\n");
            self.grid_open = false;
        }
    }

    /// A heading, level 2 to 4 (level 1 is the page title).
    pub fn heading(&mut self, level: u8, text: &str) {
        self.close_grid();
        let l = level.clamp(2, 4);
        let _ = writeln!(self.body, "<h{l}>{}</h{l}>", esc(text));
    }

    /// A paragraph of text (escaped).
    pub fn paragraph(&mut self, text: &str) {
        self.close_grid();
        let _ = writeln!(self.body, "<p>{}</p>", esc(text));
    }

    /// A paragraph set off as a warning (incomplete runs, errors).
    pub fn warning(&mut self, text: &str) {
        self.close_grid();
        let _ = writeln!(self.body, "<p class=\"warn\">{}</p>", esc(text));
    }

    /// A command line or other literal text, in monospace.
    pub fn code(&mut self, text: &str) {
        self.close_grid();
        let _ = writeln!(self.body, "<p class=\"cmd mono\">{}</p>", esc(text));
    }

    /// A bulleted list (each item escaped).
    pub fn list(&mut self, items: &[String]) {
        self.close_grid();
        if items.is_empty() {
            return;
        }
        self.body.push_str("<ul class=\"conclusions\">\n");
        for i in items {
            let _ = writeln!(self.body, "<li>{}</li>", esc(i));
        }
        self.body.push_str("</ul>\n");
    }

    /// A table from the model: its title as caption, numeric columns
    /// right-aligned, numbers rounded for reading.
    pub fn table(&mut self, t: &Table) {
        self.close_grid();
        let num: Vec<bool> = (0..t.columns.len()).map(|i| numeric_column(t, i)).collect();
        self.body.push_str("<div class=\"scroll\"><table>");
        if !t.title.is_empty() {
            let _ = write!(self.body, "<caption>{}</caption>", esc(&t.title));
        }
        self.body.push_str("<thead><tr>");
        for (i, c) in t.columns.iter().enumerate() {
            let _ = write!(
                self.body,
                "<th{}>{}</th>",
                if num[i] { " class=\"num\"" } else { "" },
                esc(c)
            );
        }
        self.body.push_str("</tr></thead><tbody>\n");
        for r in &t.rows {
            self.body.push_str("<tr>");
            for (i, n) in num.iter().enumerate() {
                let v = r.get(i).map(cell_text).unwrap_or_default();
                // Short text stays on one line; sentences wrap.
                let class = if *n {
                    " class=\"num\""
                } else if v.chars().count() > 32 {
                    " class=\"wrap\""
                } else {
                    ""
                };
                let _ = write!(self.body, "<td{class}>{}</td>", esc(&v));
            }
            self.body.push_str("</tr>\n");
        }
        self.body.push_str("</tbody></table></div>\n");
    }

    /// Key-value pairs as a two-column table.
    pub fn key_values(&mut self, caption: &str, pairs: &[(String, String)]) {
        self.close_grid();
        self.body
            .push_str("<div class=\"scroll kvwrap\"><table class=\"kv\">");
        if !caption.is_empty() {
            let _ = write!(self.body, "<caption>{}</caption>", esc(caption));
        }
        self.body.push_str("<tbody>\n");
        for (k, v) in pairs {
            let _ = writeln!(self.body, "<tr><th>{}</th><td>{}</td></tr>", esc(k), esc(v));
        }
        self.body.push_str("</tbody></table></div>\n");
    }

    /// A chart as inline SVG. Consecutive charts are laid out side by side
    /// when the page is wide enough.
    pub fn chart(&mut self, c: &Chart) {
        self.chart_with(c, &ChartExtras::default());
    }

    /// A chart with error bars, shaded ranges, a log y axis or custom ticks.
    pub fn chart_with(&mut self, c: &Chart, extras: &ChartExtras) {
        if !self.grid_open {
            self.body.push_str("<div class=\"charts\">\n");
            self.grid_open = true;
        }
        self.charts += 1;
        let _ = writeln!(
            self.body,
            "<figure><figcaption>{}</figcaption><div class=\"scroll\">{}</div></figure>",
            esc(&c.title),
            svg::render(c, extras)
        );
    }

    /// The machine the document was measured on.
    pub fn host(&mut self, h: &Host) {
        let mem = iolab_spec::format_bytes(h.memory_bytes);
        self.key_values(
            "Host",
            &[
                ("hostname".into(), h.hostname.clone()),
                (
                    "OS".into(),
                    if h.os.is_empty() {
                        "unknown".into()
                    } else {
                        h.os.clone()
                    },
                ),
                ("kernel".into(), h.kernel.clone()),
                ("CPUs".into(), h.cpus.to_string()),
                ("memory".into(), mem),
            ],
        );
    }

    /// Start a collapsible section; everything added until
    /// [`Page::end_section`] is inside it. Open when `open` is true.
    pub fn begin_section(&mut self, summary: &str, open: bool) {
        self.close_grid();
        let _ = writeln!(
            self.body,
            "<details{}><summary>{}</summary>",
            if open { " open" } else { "" },
            esc(summary)
        );
    }

    pub fn end_section(&mut self) {
        self.close_grid();
        self.body.push_str("</details>\n");
    }

    /// Charts drawn so far.
    pub fn chart_count(&self) -> usize {
        self.charts
    }

    /// The whole document: doctype, head with the style and a content
    /// security policy that forbids any network access, and the body.
    pub fn finish(mut self) -> String {
        self.close_grid();
        let mut s = String::with_capacity(self.body.len() + STYLE.len() + 1024);
        s.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
        s.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
        s.push_str("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">\n");
        let _ = writeln!(
            s,
            "<meta name=\"generator\" content=\"iolab {}\">",
            env!("CARGO_PKG_VERSION")
        );
        let _ = writeln!(s, "<title>{}</title>", esc(&self.title));
        let _ = writeln!(s, "<style>\n{STYLE}</style>");
        s.push_str("</head>\n<body>\n");
        s.push_str(&self.body);
        let _ = writeln!(
            s,
            "<footer>Written by iolab {}.</footer>\n<script>{PRINT_SCRIPT}</script>\n</body>\n</html>",
            env!("CARGO_PKG_VERSION")
        );
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn escapes_markup_and_quotes() {
        assert_eq!(
            esc("<a href=\"x\">&'"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;"
        );
        assert_eq!(esc("plain µs"), "plain µs");
    }

    #[test]
    fn page_escapes_every_piece_of_text() {
        let evil = "<script>alert(1)</script>";
        let mut p = Page::new(evil);
        p.heading(2, evil);
        p.paragraph(evil);
        p.list(&[evil.to_string()]);
        p.table(&Table {
            title: evil.into(),
            columns: vec![evil.into()],
            rows: vec![vec![json!(evil)]],
        });
        p.key_values(evil, &[(evil.into(), evil.into())]);
        p.begin_section(evil, true);
        p.end_section();
        let html = p.finish();
        // The only script element is the page's own.
        assert_eq!(html.matches("<script>").count(), 1, "{html}");
        assert!(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
    }

    #[test]
    fn numeric_columns_are_right_aligned() {
        let mut p = Page::new("t");
        p.table(&Table {
            title: String::new(),
            columns: vec!["name".into(), "IOPS".into()],
            rows: vec![vec![json!("a"), json!(1234.56)]],
        });
        let html = p.finish();
        assert!(html.contains("<th class=\"num\">IOPS</th>"));
        assert!(html.contains("<td class=\"num\">1235</td>"));
        assert!(html.contains("<td>a</td>"));
    }
}
