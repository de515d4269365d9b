//! Checking a block against what should be there, and classifying what
//! was found instead.

use crate::stamp::{parse, Sector, Stamp, Stamper, HEADER, SECTOR};
use serde::{Deserialize, Serialize};
use std::time::{Duration, UNIX_EPOCH};

/// The kind of a finding (see docs/validation.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Class {
    /// A sector whose checksum fails: flipped bits, garbage, or data that
    /// was never stamped where stamped data was expected.
    Corrupt,
    /// A sector holding a valid stamp for another offset or target.
    Misdirected,
    /// Every sector holds a valid stamp for this place but an older
    /// generation (or another run): a lost write.
    Stale,
    /// Sectors that read back as zeros where stamped data was expected.
    Zeroed,
    /// Some sectors of the block hold the expected data and others an
    /// older generation of it: a write that landed in part.
    Torn,
    /// A file shorter than iolab wrote it: a read ended before the size
    /// iolab knows the file to have (file-system workloads only).
    Truncated,
}

impl Class {
    pub const ALL: [Class; 6] = [
        Class::Corrupt,
        Class::Misdirected,
        Class::Stale,
        Class::Zeroed,
        Class::Torn,
        Class::Truncated,
    ];
    pub fn name(self) -> &'static str {
        match self {
            Class::Corrupt => "corrupt",
            Class::Misdirected => "misdirected",
            Class::Stale => "stale",
            Class::Zeroed => "zeroed",
            Class::Torn => "torn",
            Class::Truncated => "truncated",
        }
    }
}

/// Expected and found bytes around the first difference.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HexWindow {
    /// Offset of the window's first byte within the block.
    pub offset: u64,
    pub expected: String,
    pub found: String,
}

/// One block that did not hold what it should.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Finding {
    pub class: Class,
    pub target: String,
    /// Byte offset of the block in the target.
    pub offset: u64,
    pub block_size: u64,
    /// Sectors (512 bytes, numbered within the block) that differ: the
    /// first, the last and how many.
    pub sector_first: u32,
    pub sector_last: u32,
    pub sectors_bad: u32,
    /// File-system workloads: the same first and last sector numbered
    /// within the file (sector `k` covers bytes `512k..512k+512`), which
    /// is what people look for; absent for block workloads, whose
    /// blocks are the map's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file_sector_first: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file_sector_last: Option<u64>,
    pub expected_gen: u8,
    /// Generation of the stamp found in the first differing sector, when
    /// it has a valid one.
    pub found_gen: Option<u8>,
    /// Where the found stamp says its data belongs (misdirected).
    pub found_offset: Option<u64>,
    pub found_target: Option<u32>,
    /// Series (run or journal identity, hex) of the found stamp.
    pub found_series: Option<String>,
    /// When the found data was written, from its stamp (RFC 3339).
    pub found_written_at: Option<String>,
    /// Offset within the block of the first byte that differs from what
    /// was expected.
    pub first_bad_byte: Option<u64>,
    pub hex: Option<HexWindow>,
    /// `read` (a workload read), `verify-after` (the re-read of a write)
    /// or `scan` (`iolab verify`).
    pub detected_by: String,
    /// Seconds since the run started when it was found (runs only).
    pub time_s: Option<f64>,
    /// One sentence for people.
    pub summary: String,
}

/// What a block should hold.
#[derive(Debug, Clone, Copy)]
pub struct Expect {
    pub target: u32,
    pub offset: u64,
    /// Block size in bytes (a multiple of 512).
    pub unit: usize,
    pub gen: u8,
    /// After a crash, a block whose write was not promised durable may
    /// hold the new or any earlier stamp of this place, sector by sector.
    pub old_or_new: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SectorVerdict {
    Good,
    Old,
    Foreign,
    Zero,
    Corrupt,
}

/// The result of checking one block.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    Ok,
    /// Not the expected generation, but acceptable (`old_or_new`).
    Accepted,
    Finding(Box<Finding>),
}

fn verdict(st: &Stamper, sec: &Sector, e: &Expect, i: usize) -> SectorVerdict {
    let off = e.offset + (i * SECTOR) as u64;
    match sec {
        Sector::Zero => SectorVerdict::Zero,
        Sector::Bad { .. } => SectorVerdict::Corrupt,
        Sector::Stamped(t) => {
            let same_series = t.series == st.series();
            if t.offset != off || (same_series && t.target != e.target) {
                SectorVerdict::Foreign
            } else if same_series
                && t.gen == e.gen
                && t.index as usize == i % (e.unit / SECTOR)
                && t.unit_sectors as usize == e.unit / SECTOR
            {
                SectorVerdict::Good
            } else {
                SectorVerdict::Old
            }
        }
    }
}

/// Check one block. The fast path is one checksum and a few compares per
/// sector; the classification runs only when something differs.
pub fn check_block(st: &Stamper, data: &[u8], e: &Expect) -> Outcome {
    let us = (e.unit / SECTOR) as u32;
    let all_ok = data[..e.unit]
        .chunks_exact(SECTOR)
        .enumerate()
        .all(|(i, s)| st.sector_ok(s, e.target, e.offset + (i * SECTOR) as u64, e.gen, us));
    if all_ok {
        return Outcome::Ok;
    }
    let parsed: Vec<Sector> = data[..e.unit].chunks_exact(SECTOR).map(parse).collect();
    let verdicts: Vec<SectorVerdict> = parsed
        .iter()
        .enumerate()
        .map(|(i, s)| verdict(st, s, e, i))
        .collect();
    let has = |v: SectorVerdict| verdicts.contains(&v);
    if e.old_or_new
        && (e.gen == 1
            || verdicts
                .iter()
                .all(|v| matches!(v, SectorVerdict::Good | SectorVerdict::Old)))
    {
        // Generation 1 in flight may have been the block's first write:
        // its old content is whatever was there before iolab wrote it.
        return Outcome::Accepted;
    }
    let class = if has(SectorVerdict::Corrupt) {
        Class::Corrupt
    } else if has(SectorVerdict::Foreign) {
        Class::Misdirected
    } else if has(SectorVerdict::Zero) {
        Class::Zeroed
    } else if has(SectorVerdict::Good) {
        Class::Torn
    } else {
        Class::Stale
    };
    Outcome::Finding(Box::new(describe(st, data, e, &parsed, &verdicts, class)))
}

fn describe(
    st: &Stamper,
    data: &[u8],
    e: &Expect,
    parsed: &[Sector],
    verdicts: &[SectorVerdict],
    class: Class,
) -> Finding {
    let bad: Vec<usize> = verdicts
        .iter()
        .enumerate()
        .filter(|(_, v)| **v != SectorVerdict::Good)
        .map(|(i, _)| i)
        .collect();
    let first = bad.first().copied().unwrap_or(0);
    let last = bad.last().copied().unwrap_or(0);
    // The sector that decided the class, for the found-stamp fields.
    let key = match class {
        Class::Corrupt => SectorVerdict::Corrupt,
        Class::Misdirected => SectorVerdict::Foreign,
        Class::Zeroed | Class::Truncated => SectorVerdict::Zero,
        Class::Stale | Class::Torn => SectorVerdict::Old,
    };
    let ki = verdicts.iter().position(|v| *v == key).unwrap_or(first);
    let found: Option<Stamp> = match parsed[ki] {
        Sector::Stamped(t) => Some(t),
        _ => None,
    };
    // Rebuild the expected bytes of the first differing sector.
    let mut exp = [0u8; SECTOR];
    let off = e.offset + (first * SECTOR) as u64;
    let found_sec = &data[first * SECTOR..(first + 1) * SECTOR];
    let time = u64::from_le_bytes(found_sec[40..48].try_into().unwrap_or([0; 8]));
    st.stamp_sector(
        &mut exp,
        &Stamp {
            gen: e.gen,
            index: (first % (e.unit / SECTOR)) as u16,
            series: st.series(),
            target: e.target,
            unit_sectors: (e.unit / SECTOR) as u32,
            offset: off,
            time_ns: time,
        },
    );
    // Without the data pattern only the stamp fields can be compared.
    let upto = if st.payload_known() { SECTOR } else { HEADER };
    let diff = exp[..upto]
        .iter()
        .zip(&found_sec[..upto])
        .position(|(a, b)| a != b)
        .filter(|&d| st.payload_known() || d >= 8);
    let (first_bad_byte, hex) = match diff {
        Some(d) => {
            let w0 = d & !15;
            let w1 = (w0 + 32).min(SECTOR);
            (
                Some((first * SECTOR + d) as u64),
                Some(HexWindow {
                    offset: (first * SECTOR + w0) as u64,
                    expected: hex(&exp[w0..w1]),
                    found: hex(&found_sec[w0..w1]),
                }),
            )
        }
        None => (None, None),
    };
    let written = found.map(|t| rfc3339(t.time_ns));
    let summary = match class {
        Class::Corrupt => format!(
            "corrupt: {} of {} sectors fail their checksum (first differing byte {})",
            verdicts
                .iter()
                .filter(|v| **v == SectorVerdict::Corrupt)
                .count(),
            verdicts.len(),
            first_bad_byte.map_or("?".into(), |b| b.to_string())
        ),
        Class::Misdirected => format!(
            "misdirected: holds data written for offset {}{} (generation {})",
            found.map_or(0, block_start),
            found
                .filter(|t| t.target != e.target && t.series == st.series())
                .map_or(String::new(), |t| format!(" of target {}", t.target)),
            found.map_or(0, |t| t.gen)
        ),
        Class::Stale => format!(
            "stale: holds generation {}{} where generation {} was written: a lost write",
            found.map_or(0, |t| t.gen),
            found
                .filter(|t| t.series != st.series())
                .map_or(String::new(), |_| " of another run".into()),
            e.gen
        ),
        Class::Zeroed => format!(
            "zeroed: {} of {} sectors read back as zeros where generation {} was written",
            verdicts
                .iter()
                .filter(|v| **v == SectorVerdict::Zero)
                .count(),
            verdicts.len(),
            e.gen
        ),
        Class::Torn => format!(
            "torn: sectors {}-{} hold an older generation ({}) while the rest hold generation {}",
            first,
            last,
            found.map_or(0, |t| t.gen),
            e.gen
        ),
        // check_block never classes a block truncated (a file's reader does).
        Class::Truncated => "truncated".to_string(),
    };
    Finding {
        class,
        target: String::new(),
        offset: e.offset,
        block_size: e.unit as u64,
        sector_first: first as u32,
        sector_last: last as u32,
        sectors_bad: bad.len() as u32,
        file_sector_first: None,
        file_sector_last: None,
        expected_gen: e.gen,
        found_gen: found.map(|t| t.gen),
        found_offset: found.map(block_start),
        found_target: found.map(|t| t.target),
        found_series: found.map(|t| format!("{:016x}", t.series)),
        found_written_at: written,
        first_bad_byte,
        hex,
        detected_by: String::new(),
        time_s: None,
        summary,
    }
}

/// Compare a block read at `offset` with a fixed data pattern
/// (`data = pattern:...`): `None` when every byte matches, else a
/// `corrupt` finding naming the differing sectors and the first
/// differing byte. The pattern's length divides 512, so it starts afresh
/// at each sector.
pub fn pattern_finding(pat: &[u8], block: &[u8], offset: u64) -> Option<Finding> {
    let bad_at = |sec: &[u8]| {
        sec.chunks(pat.len()).enumerate().find_map(|(i, c)| {
            c.iter()
                .zip(pat)
                .position(|(a, b)| a != b)
                .map(|d| i * pat.len() + d)
        })
    };
    let mut bad = block
        .chunks(SECTOR)
        .enumerate()
        .filter_map(|(i, s)| bad_at(s).map(|d| (i, i * SECTOR + d)));
    let (first, byte) = bad.next()?;
    let (mut last, mut n) = (first, 1u32);
    for (i, _) in bad {
        last = i;
        n += 1;
    }
    let w0 = byte & !15;
    let w1 = (w0 + 32).min(block.len());
    let expected: Vec<u8> = (w0..w1).map(|x| pat[x % pat.len()]).collect();
    Some(Finding {
        class: Class::Corrupt,
        target: String::new(),
        offset,
        block_size: block.len() as u64,
        sector_first: first as u32,
        sector_last: last as u32,
        sectors_bad: n,
        file_sector_first: None,
        file_sector_last: None,
        expected_gen: 0,
        found_gen: None,
        found_offset: None,
        found_target: None,
        found_series: None,
        found_written_at: None,
        first_bad_byte: Some(byte as u64),
        hex: Some(HexWindow {
            offset: w0 as u64,
            expected: hex(&expected),
            found: hex(&block[w0..w1]),
        }),
        detected_by: String::new(),
        time_s: None,
        summary: format!(
            "corrupt: {n} of {} sectors differ from the data pattern (first differing byte {}, at offset {})",
            block.len() / SECTOR,
            byte,
            offset + byte as u64
        ),
    })
}

/// Where the block of a found stamp starts, by its own word: its offset
/// less its index in the block. A stamp from elsewhere (another tool, a
/// forged or damaged one with a valid checksum) may claim an index past
/// its offset: then 0, not an underflow.
fn block_start(t: Stamp) -> u64 {
    t.offset.saturating_sub(t.index as u64 * SECTOR as u64)
}

fn hex(b: &[u8]) -> String {
    let mut s = String::with_capacity(b.len() * 3);
    for (i, x) in b.iter().enumerate() {
        if i > 0 {
            s.push(' ');
        }
        s.push_str(&format!("{x:02x}"));
    }
    s
}

/// RFC 3339 time of a stamp (ns since the epoch), UTC.
pub fn rfc3339(ns: u64) -> String {
    let t = UNIX_EPOCH + Duration::from_nanos(ns);
    let secs = t
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let (days, rem) = (secs / 86_400, secs % 86_400);
    let (y, m, d) = civil_from_days(days as i64);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3600,
        rem / 60 % 60,
        rem % 60,
        (ns / 1_000_000) % 1000
    )
}

/// Days since 1970-01-01 to (year, month, day) (H. Hinnant's algorithm).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe + era * 400 + (m <= 2) as i64, m, d)
}

#[cfg(test)]
mod tests {

    #[test]
    fn a_pattern_finding_names_the_sector_and_the_byte() {
        let pat = [0xaa, 0x55, 0x5a, 0xa5];
        let mut b: Vec<u8> = pat.iter().copied().cycle().take(8192).collect();
        assert!(pattern_finding(&pat, &b, 65536).is_none());
        b[1500] = 0;
        b[7000] ^= 1;
        let f = pattern_finding(&pat, &b, 65536).unwrap();
        assert_eq!(f.class, Class::Corrupt);
        assert_eq!((f.sector_first, f.sector_last, f.sectors_bad), (2, 13, 2));
        assert_eq!(f.first_bad_byte, Some(1500));
        assert_eq!(f.offset, 65536);
        let h = f.hex.unwrap();
        assert_eq!(h.offset, 1488);
        assert_ne!(h.expected, h.found);
    }

    use super::*;
    use iolab_spec::DataPattern;

    const UNIT: usize = 4096;

    fn block(st: &Stamper, off: u64, gen: u8) -> Vec<u8> {
        let mut b = vec![0u8; UNIT];
        st.stamp_write(&mut b, 0, off, UNIT, 1_700_000_000_000_000_000, |_| gen);
        b
    }

    fn expect(off: u64, gen: u8) -> Expect {
        Expect {
            target: 0,
            offset: off,
            unit: UNIT,
            gen,
            old_or_new: false,
        }
    }

    fn class(o: Outcome) -> Class {
        match o {
            Outcome::Finding(f) => f.class,
            o => panic!("expected a finding, got {o:?}"),
        }
    }

    #[test]
    fn each_fault_gets_its_class() {
        let st = Stamper::new(0xabc, DataPattern::Random, 3);
        let good = block(&st, 8192, 4);
        assert_eq!(check_block(&st, &good, &expect(8192, 4)), Outcome::Ok);

        let mut flip = good.clone();
        flip[3000] ^= 0x10;
        let f = match check_block(&st, &flip, &expect(8192, 4)) {
            Outcome::Finding(f) => f,
            o => panic!("{o:?}"),
        };
        assert_eq!(f.class, Class::Corrupt);
        assert_eq!(f.first_bad_byte, Some(3000));
        assert_eq!((f.sector_first, f.sector_last, f.sectors_bad), (5, 5, 1));

        let other = block(&st, 16384, 4);
        let f = check_block(&st, &other, &expect(8192, 4));
        assert_eq!(class(f.clone()), Class::Misdirected);
        if let Outcome::Finding(f) = f {
            assert_eq!(f.found_offset, Some(16384));
        }

        let old = block(&st, 8192, 3);
        assert_eq!(
            class(check_block(&st, &old, &expect(8192, 4))),
            Class::Stale
        );

        let mut zero = good.clone();
        zero[1024..1536].fill(0);
        assert_eq!(
            class(check_block(&st, &zero, &expect(8192, 4))),
            Class::Zeroed
        );

        let mut torn = good.clone();
        torn[2048..].copy_from_slice(&old[2048..]);
        let f = check_block(&st, &torn, &expect(8192, 4));
        assert_eq!(class(f.clone()), Class::Torn);
        if let Outcome::Finding(f) = f {
            assert_eq!((f.sector_first, f.sector_last), (4, 7));
            assert_eq!(f.found_gen, Some(3));
        }
    }

    /// Found by the fuzz pass: a sector with a valid checksum whose stamp
    /// claims an index past its offset (offset 0, index 5) made the
    /// misdirected finding underflow computing its block's start.
    #[test]
    fn a_stamp_with_an_index_past_its_offset_is_misdirected_not_a_panic() {
        let st = Stamper::new(0xabc, DataPattern::Random, 3);
        let mut b = vec![0u8; SECTOR];
        let t = Stamp {
            gen: 4,
            index: 5,
            series: 0xabc,
            target: 0,
            unit_sectors: 1,
            offset: 0,
            time_ns: 0,
        };
        st.stamp_sector(&mut b, &t);
        let e = Expect {
            unit: SECTOR,
            ..expect(8192, 4)
        };
        match check_block(&st, &b, &e) {
            Outcome::Finding(f) => {
                assert_eq!(f.class, Class::Misdirected);
                assert_eq!(f.found_offset, Some(0));
            }
            o => panic!("expected a finding, got {o:?}"),
        }
    }

    #[test]
    fn data_of_another_run_is_stale() {
        let a = Stamper::new(1, DataPattern::Random, 3);
        let b = Stamper::new(2, DataPattern::Random, 3);
        let old = block(&a, 0, 4);
        assert_eq!(class(check_block(&b, &old, &expect(0, 4))), Class::Stale);
    }

    #[test]
    fn old_or_new_accepts_either_sector_by_sector_but_not_zeros() {
        let st = Stamper::new(5, DataPattern::Random, 3);
        let new = block(&st, 0, 2);
        let old = block(&st, 0, 1);
        let mut mixed = new.clone();
        mixed[..512].copy_from_slice(&old[..512]);
        let mut e = expect(0, 2);
        e.old_or_new = true;
        assert_eq!(check_block(&st, &new, &e), Outcome::Ok);
        assert_eq!(check_block(&st, &old, &e), Outcome::Accepted);
        assert_eq!(check_block(&st, &mixed, &e), Outcome::Accepted);
        let mut z = new.clone();
        z[..512].fill(0);
        assert_eq!(class(check_block(&st, &z, &e)), Class::Zeroed);
        // A first write (generation 1) in flight: anything was there before.
        let mut e1 = expect(0, 1);
        e1.old_or_new = true;
        assert_eq!(check_block(&st, &[0u8; UNIT], &e1), Outcome::Accepted);
        e1.old_or_new = false;
        assert_eq!(class(check_block(&st, &[0u8; UNIT], &e1)), Class::Zeroed);
    }

    #[test]
    fn time_formatting() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(
            rfc3339(1_795_000_000_123_000_000),
            "2026-11-18T11:06:40.123Z"
        );
    }
}
