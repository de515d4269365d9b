//! The hosts section of a multi-host run in the HTML report: how closely
//! the hosts started and how well their clocks were known, lost hosts
//! marked, a row per host and each host's throughput over time beside
//! the total.

use super::charts::host_time_charts;
use super::Page;
use crate::model::RunResult;
use crate::tables::{fmt_num, hosts_table, skew_text};

/// The section of a run on several hosts; nothing for a run on one.
pub(super) fn hosts_section(p: &mut Page, r: &RunResult) {
    if r.hosts.is_empty() {
        return;
    }
    p.heading(4, &format!("Hosts ({})", r.hosts.len()));
    if let Some(k) = skew_text(r) {
        p.paragraph(&format!(
            "{k}. The run's figures above are every host's together: counts added, percentiles from the merged histograms."
        ));
    }
    for h in &r.hosts {
        if let Some(l) = &h.lost {
            p.warning(&format!(
                "Host {} was lost at {:.1} s ({}): {}. What it measured until then is kept.",
                h.host, l.at_s, l.at, l.reason
            ));
        }
    }
    p.table(&hosts_table(r));
    let clocks: Vec<(String, String)> = r
        .hosts
        .iter()
        .map(|h| {
            let c = &h.clock;
            let mut v = format!(
                "offset {} us (known within ±{} us)",
                fmt_num(c.offset_us),
                fmt_num(c.rtt_us / 2.0)
            );
            if let Some(s) = c.start_us {
                v.push_str(&format!(
                    ", run clock started {} us after the instant asked for",
                    fmt_num(s)
                ));
            }
            (h.host.clone(), v)
        })
        .collect();
    p.key_values("Host clocks against the controller's", &clocks);
    for (c, ex) in host_time_charts(r) {
        p.chart_with(&c, &ex);
    }
}

#[cfg(test)]
mod tests {
    use crate::testraw;

    /// The cells of the table captioned `caption`, row by row, as text.
    fn table_rows(html: &str, caption: &str) -> Vec<Vec<String>> {
        let at = html
            .find(&format!("<caption>{caption}</caption>"))
            .unwrap_or_else(|| panic!("no table {caption}"));
        let body = &html[at..];
        let body = &body[body.find("<tbody>").unwrap()..body.find("</tbody>").unwrap()];
        body.split("<tr>")
            .skip(1)
            .map(|row| {
                row.split("<td")
                    .skip(1)
                    .map(|c| {
                        let c = &c[c.find('>').unwrap() + 1..];
                        c[..c.find("</td>").unwrap()].to_string()
                    })
                    .collect()
            })
            .collect()
    }

    #[test]
    fn a_two_host_report_names_both_hosts_with_their_figures() {
        let mut r = testraw::two_hosts();
        r.hosts[1].lost = Some(crate::model::HostLoss {
            at_s: 2.5,
            at: "2027-01-15T08:00:02.500Z".into(),
            reason: "the channel closed".into(),
        });
        let doc = crate::ResultDoc {
            runs: vec![r.clone()],
            ..Default::default()
        };
        let html = crate::html::document_report(&doc);
        assert!(html.contains("<h4>Hosts (2)</h4>"), "no hosts section");
        let rows = table_rows(&html, "Hosts of shared");
        assert_eq!(rows.len(), 2);
        for (row, h) in rows.iter().zip(&r.hosts) {
            assert_eq!(row[0], h.host);
            assert_eq!(row[1], h.host_info.hostname);
            let n = |i: usize| row[i].parse::<f64>().unwrap();
            let t = &h.run.summary.total;
            let close = |a: f64, b: f64| (a - b).abs() <= 0.01 * b.abs() + 0.5;
            assert!(
                close(n(2), t.iops),
                "{}: IOPS {} vs {}",
                h.host,
                row[2],
                t.iops
            );
            assert!(close(n(4), t.lat_us.mean), "{}: mean {}", h.host, row[4]);
            assert!(close(n(5), t.lat_us.p99), "{}: p99 {}", h.host, row[5]);
            assert_eq!(n(8), h.clock.offset_us);
        }
        // The lost host: when, and not complete.
        assert_eq!(rows[1][11].parse::<f64>().unwrap(), 2.5);
        assert_eq!(rows[1][12], "no");
        assert_eq!(rows[0][12], "yes");
        assert!(html.contains("Host h2 was lost at 2.5 s"));
        // The per-host chart: a line per host and the total, the loss
        // marked.
        let fig = html
            .split("<figure>")
            .find(|f| f.contains("Throughput over time, per host"))
            .expect("no per-host throughput chart");
        assert_eq!(fig.matches("class=\"series\"").count(), 3, "{fig}");
        for name in [">h1<", ">h2<", ">total<", "h2 lost"] {
            assert!(fig.contains(name), "{name} not in the chart");
        }
        let skew = "hosts started within 0.21 ms of each other";
        assert!(html.contains(skew));
        // A local run has no hosts section.
        let local = crate::ResultDoc {
            runs: vec![crate::build_run(&testraw::host_run(2, 10, 1000, 2000))],
            ..Default::default()
        };
        assert!(!crate::html::document_report(&local).contains("Hosts ("));
    }
}
