//! What iolab asked for against what reached the device, and what the
//! difference means: reads served from a cache above the device, reads
//! added by read-ahead or read-modify-write, writes that grew on the way
//! down (read-modify-write, journal, metadata, copy-on-write, parity) or
//! that never arrived (still in the page cache), requests merged or split.

use crate::diskstats::DeviceCounts;
use crate::units::bytes;
use serde::{Deserialize, Serialize};

/// iolab's own counts for a run (or an interval), as plain numbers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AppCounts {
    pub read_ops: u64,
    pub read_bytes: u64,
    pub write_ops: u64,
    pub write_bytes: u64,
    /// The I/O was O_DIRECT (no page cache between iolab and the device).
    pub direct: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CountNote {
    /// Stable code: `reads-from-cache`, `reads-grew`, `writes-grew`,
    /// `writes-not-on-device`, `requests-merged`, `requests-split`.
    pub code: String,
    pub device: String,
    pub text: String,
}

/// Differences below this many bytes are noise (metadata, other users).
const SLACK: u64 = 1 << 20;

fn pct(a: u64, b: u64) -> f64 {
    if b == 0 {
        0.0
    } else {
        a as f64 * 100.0 / b as f64
    }
}

/// `a` as a multiple of `b` (`2.50x`), or `none` in words when `b` is
/// zero: a ratio never prints as `infx` or `NaNx`.
fn times(a: u64, b: u64, none: &str) -> String {
    if b == 0 {
        none.to_string()
    } else {
        format!("{:.2}x", a as f64 / b as f64)
    }
}

/// Compare `app` with what `device` saw over the same time. `device` is the
/// one directly under the target (see `Discovery::top`); a device shared
/// with other work shows that work too, which the slack of 1 MiB and 10 %
/// does not hide.
pub fn compare(app: &AppCounts, device: &str, dev: &DeviceCounts) -> Vec<CountNote> {
    let mut v = Vec::new();
    let mut note = |code: &str, text: String| {
        v.push(CountNote {
            code: code.into(),
            device: device.into(),
            text,
        })
    };
    let ar = app.read_bytes;
    let dr = dev.read_bytes;
    if ar >= SLACK && dr * 10 < ar * 9 {
        let missing = ar - dr;
        let above = if app.direct {
            "a cache above the device (for a loop device, the page cache of its backing file)"
        } else {
            "the page cache"
        };
        note(
            "reads-from-cache",
            format!(
                "{} of {} read ({:.0} %) never reached {device}: served from {above}",
                bytes(missing),
                bytes(ar),
                pct(missing, ar)
            ),
        );
    } else if dr > ar + SLACK && dr * 10 > ar * 11 {
        let why = if app.write_bytes > 0 && !app.direct {
            "read-ahead, or reads of partial blocks before writing them (read-modify-write)"
        } else if app.write_bytes > 0 {
            "reads of partial blocks before writing them (read-modify-write) or metadata reads"
        } else {
            "read-ahead or metadata reads"
        };
        note(
            "reads-grew",
            format!(
                "{device} read {} for {} that iolab read ({}): {why}",
                bytes(dr),
                bytes(ar),
                times(dr, ar, "iolab read nothing")
            ),
        );
    }
    let aw = app.write_bytes;
    let dw = dev.write_bytes;
    if dw > aw + SLACK && dw * 10 > aw * 11 {
        note(
            "writes-grew",
            format!(
                "{device} wrote {} for {} that iolab wrote ({}): writes grew on the way down through read-modify-write, journal or metadata traffic, copy-on-write or parity",
                bytes(dw),
                bytes(aw),
                times(dw, aw, "iolab wrote nothing")
            ),
        );
    } else if aw >= SLACK && dw * 10 < aw * 9 {
        let why = if app.direct {
            "compressed, deduplicated or absorbed by a cache below iolab"
        } else {
            "still in the page cache when the run ended (buffered writes without fsync), or overwritten there before write-back"
        };
        note(
            "writes-not-on-device",
            format!(
                "{} of {} written ({:.0} %) did not reach {device}: {why}",
                bytes(aw - dw),
                bytes(aw),
                pct(aw - dw, aw)
            ),
        );
    }
    let app_ops = app.read_ops + app.write_ops;
    let dev_ops = dev.reads + dev.writes;
    let app_bytes = ar + aw;
    let dev_bytes = dr + dw;
    // Only when the bytes match: otherwise the notes above explain it.
    if app_ops > 0
        && dev_ops > 0
        && dev_bytes * 10 >= app_bytes * 9
        && dev_bytes * 10 <= app_bytes * 11
    {
        let app_sz = app_bytes / app_ops;
        let dev_sz = dev_bytes / dev_ops;
        if dev_ops * 2 <= app_ops {
            note(
                "requests-merged",
                format!(
                    "{app_ops} iolab I/Os of {} on average reached {device} as {dev_ops} requests of {}: adjacent requests were merged (or buffered I/O was written back in larger pieces)",
                    bytes(app_sz),
                    bytes(dev_sz)
                ),
            );
        } else if dev_ops >= app_ops * 2 {
            note(
                "requests-split",
                format!(
                    "{app_ops} iolab I/Os of {} on average reached {device} as {dev_ops} requests of {}: requests were split (max_sectors_kb, stripe or chunk boundaries)",
                    bytes(app_sz),
                    bytes(dev_sz)
                ),
            );
        }
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    const M: u64 = 1 << 20;

    fn codes(v: &[CountNote]) -> Vec<&str> {
        v.iter().map(|n| n.code.as_str()).collect()
    }

    #[test]
    fn cache_hits() {
        let app = AppCounts {
            read_ops: 2560,
            read_bytes: 10 * M,
            ..Default::default()
        };
        let dev = DeviceCounts {
            reads: 10,
            read_bytes: M,
            ..Default::default()
        };
        let n = compare(&app, "loop3", &dev);
        assert_eq!(codes(&n), ["reads-from-cache"]);
        assert!(
            n[0].text.contains("9 MiB of 10 MiB read (90 %)"),
            "{}",
            n[0].text
        );
    }

    #[test]
    fn write_growth_and_rmw_reads() {
        let app = AppCounts {
            write_ops: 2560,
            write_bytes: 10 * M,
            direct: true,
            ..Default::default()
        };
        let dev = DeviceCounts {
            reads: 2560,
            read_bytes: 10 * M,
            writes: 2560,
            write_bytes: 20 * M,
            ..Default::default()
        };
        assert_eq!(
            codes(&compare(&app, "sda", &dev)),
            ["reads-grew", "writes-grew"]
        );
    }

    #[test]
    fn matching_counts_say_nothing_and_merges_are_noticed() {
        let app = AppCounts {
            read_ops: 256,
            read_bytes: 256 * 65536,
            direct: true,
            ..Default::default()
        };
        let same = DeviceCounts {
            reads: 256,
            read_bytes: 256 * 65536,
            ..Default::default()
        };
        assert!(compare(&app, "sda", &same).is_empty());
        let merged = DeviceCounts { reads: 16, ..same };
        assert_eq!(codes(&compare(&app, "sda", &merged)), ["requests-merged"]);
        let split = DeviceCounts {
            reads: 1024,
            ..same
        };
        assert_eq!(codes(&compare(&app, "sda", &split)), ["requests-split"]);
    }

    #[test]
    fn a_zero_ratio_never_prints_inf() {
        // A write-only run on a device that read (read-ahead, metadata):
        // iolab read nothing, so there is no ratio to print.
        let app = AppCounts {
            write_ops: 2560,
            write_bytes: 10 * M,
            ..Default::default()
        };
        let dev = DeviceCounts {
            reads: 100,
            read_bytes: 5 * M,
            writes: 2560,
            write_bytes: 10 * M,
            ..Default::default()
        };
        let reads_only = AppCounts {
            read_ops: 10,
            read_bytes: 40960,
            ..Default::default()
        };
        let dev_writes = DeviceCounts {
            writes: 100,
            write_bytes: 5 * M,
            ..Default::default()
        };
        let notes = [
            compare(&app, "sda", &dev),
            compare(&reads_only, "sda", &dev_writes),
        ]
        .concat();
        assert_eq!(codes(&notes), ["reads-grew", "writes-grew"]);
        for n in &notes {
            for bad in ["inf", "NaN"] {
                assert!(!n.text.contains(bad), "{}", n.text);
            }
        }
        assert!(
            notes[0].text.contains("(iolab read nothing)"),
            "{}",
            notes[0].text
        );
        assert!(
            notes[1].text.contains("(iolab wrote nothing)"),
            "{}",
            notes[1].text
        );
    }

    #[test]
    fn buffered_writes_not_yet_written_back() {
        let app = AppCounts {
            write_ops: 100,
            write_bytes: 100 * M,
            ..Default::default()
        };
        let n = compare(&app, "sda", &DeviceCounts::default());
        assert_eq!(codes(&n), ["writes-not-on-device"]);
    }
}
