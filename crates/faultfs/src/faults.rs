//! The fault model, kept apart from FUSE so it can be unit-tested without a
//! mount: parsing the text commands written to `ctl`, deciding what happens
//! to each read or write of `disk.img`, counting hits, and rendering the
//! state that a read of `ctl` returns.
//!
//! Command grammar (one command per line; blank lines and `#` comments are
//! ignored; numbers are decimal or `0x` hex and may carry a binary `k`, `m`
//! or `g` suffix; ERR is an errno name such as `EIO` or a positive number):
//!
//! ```text
//! fail ERR                     every read and write fails with ERR
//! fail-reads ERR               reads only
//! fail-writes ERR              writes only
//! fail-range START LEN ERR     reads and writes overlapping [START, START+LEN)
//! drop-writes [START LEN]      overlapping writes are acknowledged, not stored
//! misdirect START LEN DELTA    overlapping writes are stored at offset+DELTA
//! heal                         remove every fail* fault
//! clear                        remove every fault
//! ```
//!
//! Any fault command may end in `once` or `times N`: the fault then affects
//! only the first (N) matching I/Os and stays listed, marked spent, so its
//! hit counter can still be read. A matching I/O is affected whole: the range
//! selects I/Os, it does not split them.
//!
//! When several faults match one I/O, a failure wins over a dropped write,
//! which wins over a misdirected one; among faults of one kind the oldest
//! wins. Only the fault that decides an I/O counts a hit.

use std::fmt::Write as _;

/// The direction of an I/O on `disk.img`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Read,
    Write,
}

/// What a fault does to the I/Os it matches.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Fail with `errno`; `reads`/`writes` say which directions.
    Fail {
        errno: i32,
        reads: bool,
        writes: bool,
    },
    /// Acknowledge writes in full without storing them (a lost write).
    DropWrites,
    /// Store writes at `offset + delta` instead, and acknowledge them.
    Misdirect { delta: i64 },
}

/// One active (or spent) fault.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fault {
    /// Sequence number, 1 for the first fault added since the daemon started.
    pub id: u64,
    pub kind: Kind,
    /// Byte range `(start, len)` an I/O must overlap to match; None = all.
    pub range: Option<(u64, u64)>,
    /// How many more I/Os this fault may affect; None = unlimited.
    pub remaining: Option<u64>,
    /// How many I/Os this fault has decided.
    pub hits: u64,
}

impl Fault {
    fn matches(&self, op: Op, offset: u64, len: u64) -> bool {
        if self.remaining == Some(0) {
            return false;
        }
        let dir_ok = match self.kind {
            Kind::Fail { reads, writes, .. } => match op {
                Op::Read => reads,
                Op::Write => writes,
            },
            Kind::DropWrites | Kind::Misdirect { .. } => op == Op::Write,
        };
        dir_ok && self.overlaps(offset, len)
    }

    fn overlaps(&self, offset: u64, len: u64) -> bool {
        match self.range {
            None => true,
            Some((start, rlen)) => {
                let len = len.max(1);
                offset < start.saturating_add(rlen) && start < offset.saturating_add(len)
            }
        }
    }

    fn hit(&mut self) {
        self.hits += 1;
        if let Some(r) = self.remaining.as_mut() {
            *r = r.saturating_sub(1);
        }
    }

    /// The fault as a command that would recreate it, e.g. `fail-range 0 4096 EIO once`.
    pub fn command(&self) -> String {
        let mut s = match (&self.kind, self.range) {
            (Kind::Fail { errno, .. }, Some((start, len))) => {
                format!("fail-range {start} {len} {}", errno_name(*errno))
            }
            (
                Kind::Fail {
                    errno,
                    reads,
                    writes,
                },
                None,
            ) => {
                let cmd = match (reads, writes) {
                    (true, false) => "fail-reads",
                    (false, true) => "fail-writes",
                    _ => "fail",
                };
                format!("{cmd} {}", errno_name(*errno))
            }
            (Kind::DropWrites, Some((start, len))) => format!("drop-writes {start} {len}"),
            (Kind::DropWrites, None) => "drop-writes".to_string(),
            (Kind::Misdirect { delta }, range) => {
                let (start, len) = range.unwrap_or((0, u64::MAX));
                format!("misdirect {start} {len} {delta}")
            }
        };
        if let Some(n) = self.initial_count() {
            if n == 1 {
                s.push_str(" once");
            } else {
                let _ = write!(s, " times {n}");
            }
        }
        s
    }

    fn initial_count(&self) -> Option<u64> {
        self.remaining.map(|r| r + self.hits)
    }
}

/// What to do with one I/O.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    /// Perform it normally.
    Pass,
    /// Fail it with this errno.
    Fail(i32),
    /// Acknowledge the write without storing it.
    Drop,
    /// Store the write at `offset + delta`.
    Redirect(i64),
}

/// Counters over every I/O since the daemon started (not reset by `clear`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Totals {
    pub reads: u64,
    pub writes: u64,
    pub read_bytes: u64,
    pub write_bytes: u64,
    pub failed_reads: u64,
    pub failed_writes: u64,
    pub failed_fsyncs: u64,
    pub dropped_writes: u64,
    pub misdirected_writes: u64,
}

/// The set of faults and the counters: the whole mutable state of the daemon.
#[derive(Debug, Default)]
pub struct FaultTable {
    faults: Vec<Fault>,
    next_id: u64,
    totals: Totals,
}

impl FaultTable {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn faults(&self) -> &[Fault] {
        &self.faults
    }

    pub fn totals(&self) -> Totals {
        self.totals
    }

    /// Apply every command in `text` (one per line). Lines before a bad one
    /// stay applied; the error names the bad line.
    pub fn apply(&mut self, text: &str) -> Result<(), String> {
        for line in text.lines() {
            let line = line.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            self.apply_one(line)
                .map_err(|e| format!("bad ctl command {line:?}: {e}"))?;
        }
        Ok(())
    }

    fn apply_one(&mut self, line: &str) -> Result<(), String> {
        let mut words: Vec<&str> = line.split_whitespace().collect();
        let cmd = words.remove(0).to_ascii_lowercase();
        match cmd.as_str() {
            "heal" => {
                no_args(&words)?;
                self.faults.retain(|f| !matches!(f.kind, Kind::Fail { .. }));
                return Ok(());
            }
            "clear" => {
                no_args(&words)?;
                self.faults.clear();
                return Ok(());
            }
            _ => {}
        }
        let remaining = take_count(&mut words)?;
        let (kind, range) = match cmd.as_str() {
            "fail" | "fail-reads" | "fail-writes" => {
                let [err] = words[..] else {
                    return Err(format!("usage: {cmd} ERR"));
                };
                let errno = parse_errno(err)?;
                let (reads, writes) = match cmd.as_str() {
                    "fail-reads" => (true, false),
                    "fail-writes" => (false, true),
                    _ => (true, true),
                };
                (
                    Kind::Fail {
                        errno,
                        reads,
                        writes,
                    },
                    None,
                )
            }
            "fail-range" => {
                let [start, len, err] = words[..] else {
                    return Err("usage: fail-range START LEN ERR".into());
                };
                let range = parse_range(start, len)?;
                let errno = parse_errno(err)?;
                (
                    Kind::Fail {
                        errno,
                        reads: true,
                        writes: true,
                    },
                    Some(range),
                )
            }
            "drop-writes" => match words[..] {
                [] => (Kind::DropWrites, None),
                [start, len] => (Kind::DropWrites, Some(parse_range(start, len)?)),
                _ => return Err("usage: drop-writes [START LEN]".into()),
            },
            "misdirect" => {
                let [start, len, delta] = words[..] else {
                    return Err("usage: misdirect START LEN DELTA".into());
                };
                let range = parse_range(start, len)?;
                let delta = parse_signed(delta)?;
                (Kind::Misdirect { delta }, Some(range))
            }
            _ => return Err(format!("unknown command {cmd:?}")),
        };
        self.next_id += 1;
        self.faults.push(Fault {
            id: self.next_id,
            kind,
            range,
            remaining,
            hits: 0,
        });
        Ok(())
    }

    /// Decide the fate of one read or write of `len` bytes at `offset`,
    /// counting the hit on the deciding fault and in the totals.
    pub fn decide(&mut self, op: Op, offset: u64, len: u64) -> Decision {
        let pick = |t: &Self, want: fn(&Kind) -> bool| {
            t.faults
                .iter()
                .position(|f| want(&f.kind) && f.matches(op, offset, len))
        };
        let found = pick(self, |k| matches!(k, Kind::Fail { .. }))
            .or_else(|| pick(self, |k| matches!(k, Kind::DropWrites)))
            .or_else(|| pick(self, |k| matches!(k, Kind::Misdirect { .. })));
        let decision = match found {
            None => Decision::Pass,
            Some(i) => {
                let f = &mut self.faults[i];
                f.hit();
                match f.kind {
                    Kind::Fail { errno, .. } => Decision::Fail(errno),
                    Kind::DropWrites => Decision::Drop,
                    Kind::Misdirect { delta } => Decision::Redirect(delta),
                }
            }
        };
        let t = &mut self.totals;
        match op {
            Op::Read => {
                t.reads += 1;
                if let Decision::Fail(_) = decision {
                    t.failed_reads += 1;
                } else {
                    t.read_bytes += len;
                }
            }
            Op::Write => {
                t.writes += 1;
                match decision {
                    Decision::Fail(_) => t.failed_writes += 1,
                    Decision::Drop => t.dropped_writes += 1,
                    Decision::Redirect(_) => t.misdirected_writes += 1,
                    Decision::Pass => {}
                }
                if !matches!(decision, Decision::Fail(_)) {
                    t.write_bytes += len;
                }
            }
        }
        decision
    }

    /// Decide an fsync: it fails when an unlimited, whole-device write
    /// failure (`fail` or `fail-writes` without `once`/`times`) is active, so
    /// a failed device also fails its flushes; one-shot faults are left for
    /// the writes they were meant for.
    pub fn decide_fsync(&mut self) -> Option<i32> {
        let f = self.faults.iter_mut().find(|f| {
            matches!(f.kind, Kind::Fail { writes: true, .. })
                && f.range.is_none()
                && f.remaining.is_none()
        })?;
        f.hits += 1;
        self.totals.failed_fsyncs += 1;
        match f.kind {
            Kind::Fail { errno, .. } => Some(errno),
            _ => None,
        }
    }

    /// The text a read of `ctl` returns: one `totals` line, then one line per
    /// fault, `fault ID: COMMAND hits=N` with ` spent` once a counted fault
    /// is used up.
    pub fn render(&self) -> String {
        let t = &self.totals;
        let mut s = format!(
            "totals reads={} writes={} read_bytes={} write_bytes={} failed_reads={} \
             failed_writes={} failed_fsyncs={} dropped_writes={} misdirected_writes={}\n",
            t.reads,
            t.writes,
            t.read_bytes,
            t.write_bytes,
            t.failed_reads,
            t.failed_writes,
            t.failed_fsyncs,
            t.dropped_writes,
            t.misdirected_writes
        );
        for f in &self.faults {
            let _ = write!(s, "fault {}: {} hits={}", f.id, f.command(), f.hits);
            if f.remaining == Some(0) {
                s.push_str(" spent");
            }
            s.push('\n');
        }
        s
    }
}

fn no_args(words: &[&str]) -> Result<(), String> {
    if words.is_empty() {
        Ok(())
    } else {
        Err(format!("unexpected arguments {words:?}"))
    }
}

/// Strip a trailing `once` or `times N` from `words`.
fn take_count(words: &mut Vec<&str>) -> Result<Option<u64>, String> {
    match words.last().map(|w| w.to_ascii_lowercase()) {
        Some(w) if w == "once" => {
            words.pop();
            Ok(Some(1))
        }
        _ if words.len() >= 2 && words[words.len() - 2].eq_ignore_ascii_case("times") => {
            let n = parse_u64(words[words.len() - 1])?;
            if n == 0 {
                return Err("times 0 would never match".into());
            }
            words.truncate(words.len() - 2);
            Ok(Some(n))
        }
        _ => Ok(None),
    }
}

fn parse_range(start: &str, len: &str) -> Result<(u64, u64), String> {
    let start = parse_u64(start)?;
    let len = parse_u64(len)?;
    if len == 0 {
        return Err("range length 0 would never match".into());
    }
    Ok((start, len))
}

/// A byte count: decimal or 0x hex, optional binary k/m/g suffix.
pub fn parse_u64(s: &str) -> Result<u64, String> {
    let lower = s.to_ascii_lowercase();
    let (digits, mult) = match lower.as_bytes().last() {
        Some(b'k') => (&lower[..lower.len() - 1], 1u64 << 10),
        Some(b'm') => (&lower[..lower.len() - 1], 1 << 20),
        Some(b'g') => (&lower[..lower.len() - 1], 1 << 30),
        _ => (&lower[..], 1),
    };
    let v = match digits.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => digits.parse::<u64>(),
    }
    .map_err(|_| format!("not a number: {s:?}"))?;
    v.checked_mul(mult)
        .ok_or_else(|| format!("number too large: {s:?}"))
}

fn parse_signed(s: &str) -> Result<i64, String> {
    let (neg, rest) = match s.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, s.strip_prefix('+').unwrap_or(s)),
    };
    let v = i64::try_from(parse_u64(rest)?).map_err(|_| format!("number too large: {s:?}"))?;
    Ok(if neg { -v } else { v })
}

const ERRNOS: &[(&str, i32)] = &[
    ("EPERM", libc::EPERM),
    ("EINTR", libc::EINTR),
    ("EIO", libc::EIO),
    ("ENXIO", libc::ENXIO),
    ("EAGAIN", libc::EAGAIN),
    ("ENOMEM", libc::ENOMEM),
    ("EACCES", libc::EACCES),
    ("EFAULT", libc::EFAULT),
    ("EBUSY", libc::EBUSY),
    ("ENODEV", libc::ENODEV),
    ("EINVAL", libc::EINVAL),
    ("EFBIG", libc::EFBIG),
    ("ENOSPC", libc::ENOSPC),
    ("EROFS", libc::EROFS),
    ("ENOLINK", libc::ENOLINK),
    ("EBADMSG", libc::EBADMSG),
    ("EOVERFLOW", libc::EOVERFLOW),
    ("EILSEQ", libc::EILSEQ),
    ("EOPNOTSUPP", libc::EOPNOTSUPP),
    ("ENOTCONN", libc::ENOTCONN),
    ("ETIMEDOUT", libc::ETIMEDOUT),
    ("ESTALE", libc::ESTALE),
    ("EDQUOT", libc::EDQUOT),
    ("ENODATA", libc::ENODATA),
    ("ENOLCK", libc::ENOLCK),
    ("ECANCELED", libc::ECANCELED),
    ("EREMOTEIO", libc::EREMOTEIO),
    ("EMEDIUMTYPE", libc::EMEDIUMTYPE),
    ("ENOMEDIUM", libc::ENOMEDIUM),
];

/// An errno by name (`EIO`, case-insensitive) or number (`5`, 1..=4095).
pub fn parse_errno(s: &str) -> Result<i32, String> {
    if let Some(&(_, n)) = ERRNOS.iter().find(|(name, _)| name.eq_ignore_ascii_case(s)) {
        return Ok(n);
    }
    match s.parse::<i32>() {
        Ok(n) if (1..=4095).contains(&n) => Ok(n),
        _ => Err(format!(
            "unknown errno {s:?} (use a number or one of {})",
            ERRNOS.iter().map(|e| e.0).collect::<Vec<_>>().join(" ")
        )),
    }
}

/// The name of an errno when known (`EIO`), else its number.
pub fn errno_name(errno: i32) -> String {
    ERRNOS
        .iter()
        .find(|&&(_, n)| n == errno)
        .map(|e| e.0.to_string())
        .unwrap_or_else(|| errno.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fail_and_heal() {
        let mut t = FaultTable::new();
        assert_eq!(t.decide(Op::Read, 0, 512), Decision::Pass);
        t.apply("fail EIO\n").unwrap();
        assert_eq!(t.decide(Op::Read, 0, 512), Decision::Fail(libc::EIO));
        assert_eq!(t.decide(Op::Write, 4096, 512), Decision::Fail(libc::EIO));
        assert_eq!(t.decide_fsync(), Some(libc::EIO));
        assert!(
            t.render().contains("fault 1: fail EIO hits=3"),
            "{}",
            t.render()
        );
        t.apply("heal").unwrap();
        assert_eq!(t.decide(Op::Read, 0, 512), Decision::Pass);
        assert_eq!(t.decide_fsync(), None);
        let tot = t.totals();
        assert_eq!((tot.reads, tot.failed_reads, tot.failed_writes), (3, 1, 1));
    }

    #[test]
    fn errno_forms() {
        assert_eq!(parse_errno("EIO"), Ok(5));
        assert_eq!(parse_errno("enospc"), Ok(libc::ENOSPC));
        assert_eq!(parse_errno("61"), Ok(61));
        assert!(parse_errno("0").is_err());
        assert!(parse_errno("EWHAT").is_err());
        assert_eq!(errno_name(28), "ENOSPC");
        assert_eq!(errno_name(300), "300");
    }

    #[test]
    fn directions() {
        let mut t = FaultTable::new();
        t.apply("fail-reads ENOSPC").unwrap();
        assert_eq!(t.decide(Op::Read, 0, 1), Decision::Fail(libc::ENOSPC));
        assert_eq!(t.decide(Op::Write, 0, 1), Decision::Pass);
        t.apply("clear\nfail-writes 61").unwrap();
        assert_eq!(t.decide(Op::Read, 0, 1), Decision::Pass);
        assert_eq!(t.decide(Op::Write, 0, 1), Decision::Fail(61));
        assert!(t.render().contains("fail-writes ENODATA"));
    }

    #[test]
    fn ranges_overlap() {
        let mut t = FaultTable::new();
        t.apply("fail-range 8k 4k EIO").unwrap();
        assert_eq!(t.decide(Op::Read, 0, 8192), Decision::Pass);
        assert_eq!(t.decide(Op::Read, 12288, 4096), Decision::Pass);
        assert_eq!(t.decide(Op::Read, 4096, 8192), Decision::Fail(5));
        assert_eq!(t.decide(Op::Write, 12287, 1), Decision::Fail(5));
        assert_eq!(t.faults()[0].hits, 2);
    }

    #[test]
    fn once_and_times() {
        let mut t = FaultTable::new();
        t.apply("drop-writes 0 4096 once").unwrap();
        assert_eq!(t.decide(Op::Read, 0, 4096), Decision::Pass);
        assert_eq!(t.decide(Op::Write, 0, 4096), Decision::Drop);
        assert_eq!(t.decide(Op::Write, 0, 4096), Decision::Pass);
        assert!(t.render().contains("drop-writes 0 4096 once hits=1 spent"));
        t.apply("fail EIO times 2").unwrap();
        assert_eq!(t.decide(Op::Read, 0, 1), Decision::Fail(5));
        assert_eq!(t.decide_fsync(), None, "counted faults leave fsync alone");
        assert_eq!(t.decide(Op::Read, 0, 1), Decision::Fail(5));
        assert_eq!(t.decide(Op::Read, 0, 1), Decision::Pass);
        assert!(t.render().contains("fail EIO times 2 hits=2 spent"));
    }

    #[test]
    fn misdirect_and_precedence() {
        let mut t = FaultTable::new();
        t.apply("misdirect 0 1m -4096\ndrop-writes 64k 4k").unwrap();
        assert_eq!(t.decide(Op::Write, 8192, 4096), Decision::Redirect(-4096));
        assert_eq!(t.decide(Op::Write, 65536, 4096), Decision::Drop);
        t.apply("fail-writes EIO once").unwrap();
        assert_eq!(t.decide(Op::Write, 65536, 4096), Decision::Fail(5));
        assert_eq!(t.decide(Op::Write, 65536, 4096), Decision::Drop);
        assert_eq!(t.decide(Op::Read, 8192, 4096), Decision::Pass);
        assert!(t.render().contains("misdirect 0 1048576 -4096 hits=1"));
        let tot = t.totals();
        assert_eq!(
            (
                tot.misdirected_writes,
                tot.dropped_writes,
                tot.failed_writes
            ),
            (1, 2, 1)
        );
    }

    #[test]
    fn bad_commands() {
        let mut t = FaultTable::new();
        for bad in [
            "explode",
            "fail",
            "fail EIO extra",
            "fail-range 0 EIO",
            "fail-range 0 0 EIO",
            "drop-writes 5",
            "misdirect 0 4096",
            "misdirect 0 4096 x",
            "heal now",
            "fail EIO times 0",
        ] {
            assert!(t.apply(bad).is_err(), "{bad:?} was accepted");
        }
        assert!(t.faults().is_empty());
        t.apply("# comment\n\n  fail 5  # trailing\n").unwrap();
        assert_eq!(t.faults().len(), 1);
    }

    #[test]
    fn numbers() {
        assert_eq!(parse_u64("0x1000"), Ok(4096));
        assert_eq!(parse_u64("4k"), Ok(4096));
        assert_eq!(parse_u64("2M"), Ok(2 << 20));
        assert_eq!(parse_signed("-8k"), Ok(-8192));
        assert_eq!(parse_signed("+12"), Ok(12));
        assert!(parse_u64("99999999999g").is_err());
    }
}
