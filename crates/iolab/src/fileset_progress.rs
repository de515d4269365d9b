//! The progress of a fileset's creation before a run, on stderr: on a
//! terminal one line rewritten as the run reports it (about ten times a
//! second: files and bytes done of the totals, and the rate); otherwise a
//! plain line at most every [`PLAIN_EVERY_S`] and a last one, so that the
//! log of a long creation shows it going. The figures come from the run's
//! observer (`Observer::fileset_progress`); this module only words them.

use iolab_core::FilesetProgress;
use iolab_spec::{format_bytes, thousands};

/// Seconds between two plain lines (not a terminal).
pub const PLAIN_EVERY_S: f64 = 5.0;
/// A creation at least this long leaves its last line behind.
const LAST_LINE_S: f64 = 1.0;

/// What to print.
#[derive(Debug, PartialEq)]
pub enum Line {
    /// Rewrite the terminal's progress line with this.
    Live(String),
    /// A line of its own.
    Plain(String),
    /// Clear the terminal's progress line.
    Clear,
}

/// The lines of the creation in progress.
#[derive(Debug, Default)]
pub struct FilesetLines {
    anchor: String,
    /// When the last plain line was printed, and whether any line was.
    last_s: f64,
    printed: bool,
}

impl FilesetLines {
    /// What to print for `p` of the fileset at `anchor`, on a terminal
    /// (`tty`) or not; `None`: nothing now.
    pub fn next(&mut self, anchor: &str, p: &FilesetProgress, tty: bool) -> Option<Line> {
        if self.anchor != anchor {
            *self = FilesetLines {
                anchor: anchor.to_string(),
                ..Default::default()
            };
        }
        if p.finished {
            let printed = std::mem::take(&mut self.printed);
            return if p.elapsed_s >= LAST_LINE_S || (printed && !tty) {
                Some(Line::Plain(text(anchor, p)))
            } else {
                printed.then_some(Line::Clear)
            };
        }
        if tty {
            self.printed = true;
            return Some(Line::Live(text(anchor, p)));
        }
        if p.elapsed_s - self.last_s < PLAIN_EVERY_S {
            return None;
        }
        self.last_s = p.elapsed_s;
        self.printed = true;
        Some(Line::Plain(text(anchor, p)))
    }
}

/// `creating fileset at /mnt/t/fs: 1,200 of 20,000 files, 150 MiB of
/// 2.3 GiB, 64 MiB/s`; when it ended, `fileset at ...: 20,000 of 20,000
/// files, 2.3 GiB of 2.3 GiB in 2.3 s, 1.0 GiB/s`.
pub fn text(anchor: &str, p: &FilesetProgress) -> String {
    let rate = if p.elapsed_s > 0.0 {
        format_bytes((p.bytes_written as f64 / p.elapsed_s) as u64) + "/s"
    } else {
        "0 B/s".into()
    };
    let figures = format!(
        "{} of {} files, {} of {}",
        thousands(p.files_done),
        thousands(p.files_total),
        format_bytes(p.bytes_done),
        format_bytes(p.bytes_total)
    );
    if p.finished {
        format!(
            "fileset at {anchor}: {figures} in {:.1} s, {rate} written",
            p.elapsed_s
        )
    } else {
        format!("creating fileset at {anchor}: {figures}, {rate}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(elapsed_s: f64, finished: bool) -> FilesetProgress {
        FilesetProgress {
            files_done: 1200,
            files_total: 20_000,
            bytes_done: 150 << 20,
            bytes_total: 2 << 30,
            bytes_written: 150 << 20,
            elapsed_s,
            finished,
        }
    }

    #[test]
    fn a_terminal_gets_every_report_and_a_log_one_line_in_five_seconds() {
        let mut l = FilesetLines::default();
        let live = l.next("/t/a", &at(0.1, false), true);
        assert_eq!(
            live,
            Some(Line::Live(
                "creating fileset at /t/a: 1,200 of 20,000 files, 150 MiB of 2 GiB, 1.5 GiB/s"
                    .into()
            ))
        );
        assert!(matches!(
            l.next("/t/a", &at(0.5, true), true),
            Some(Line::Clear)
        ));
        let mut l = FilesetLines::default();
        let plain: Vec<f64> = (1..=130)
            .map(|i| i as f64 / 10.0)
            .filter(|&t| l.next("/t/a", &at(t, false), false).is_some())
            .collect();
        assert_eq!(plain, vec![5.0, 10.0]);
        let last = l.next("/t/a", &at(13.0, true), false);
        assert!(
            matches!(&last, Some(Line::Plain(t)) if t.starts_with("fileset at /t/a: 1,200 of 20,000 files") && t.ends_with("in 13.0 s, 11.5 MiB/s written")),
            "{last:?}"
        );
        // A short creation prints nothing in a log; one of a second or more
        // its last line.
        let mut l = FilesetLines::default();
        assert_eq!(l.next("/t/b", &at(0.3, false), false), None);
        assert_eq!(l.next("/t/b", &at(0.4, true), false), None);
        assert!(matches!(
            l.next("/t/c", &at(2.3, true), false),
            Some(Line::Plain(_))
        ));
    }
}
