//! Offline verification: read a target end to end and check every block
//! (`iolab verify`).

use crate::check::{check_block, Expect, Finding, Outcome};
use crate::map::{GEN, UNSURE};
use crate::stamp::{parse, Sector, Stamper, SECTOR};
use serde::{Deserialize, Serialize};
use std::alloc::{alloc_zeroed, dealloc, Layout};
use std::collections::BTreeMap;
use std::os::unix::fs::FileExt;

/// Findings kept in full; the rest are counted.
pub const MAX_FINDING_RECORDS: usize = 1000;

/// What to expect of one target.
pub struct ScanTarget<'a> {
    pub path: String,
    pub file: &'a std::fs::File,
    /// Number of the target in its series (the stamp's target field).
    pub index: u32,
    pub size: u64,
    /// The journal's map (one byte per block), or None to check the
    /// stamps only for consistency.
    pub map: Option<&'a [u8]>,
}

pub struct ScanOptions {
    pub stamper: Stamper,
    pub block_size: usize,
    /// The journal was not closed cleanly: blocks marked UNSURE may hold
    /// old or new data.
    pub crashed: bool,
    /// Stop after this many findings (0: never).
    pub max_findings: u64,
}

/// The verification totals (of a run or a scan).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct VerifyTotals {
    /// Blocks whose content was checked against what was written.
    pub blocks_checked: u64,
    /// Blocks read that were never written in this run or the journal
    /// (not checked).
    pub blocks_unwritten: u64,
    /// After a crash: blocks whose last write had no durability promise
    /// and that held an older stamp (accepted, not a finding).
    pub blocks_old_accepted: u64,
    pub findings_total: u64,
    /// Reads that met a place already reported (same target, generation
    /// and bad range: [`crate::Reported`]): not findings.
    #[serde(default)]
    pub findings_repeated: u64,
    /// Findings by class.
    pub by_class: BTreeMap<String, u64>,
    pub findings: Vec<Finding>,
}

impl VerifyTotals {
    pub fn add_finding(&mut self, f: Finding) {
        self.findings_total += 1;
        *self.by_class.entry(f.class.name().to_string()).or_default() += 1;
        if self.findings.len() < MAX_FINDING_RECORDS {
            self.findings.push(f);
        }
    }
    pub fn merge(&mut self, o: VerifyTotals) {
        self.blocks_checked += o.blocks_checked;
        self.blocks_unwritten += o.blocks_unwritten;
        self.blocks_old_accepted += o.blocks_old_accepted;
        self.findings_total += o.findings_total;
        self.findings_repeated += o.findings_repeated;
        for (k, v) in o.by_class {
            *self.by_class.entry(k).or_default() += v;
        }
        for f in o.findings {
            if self.findings.len() < MAX_FINDING_RECORDS {
                self.findings.push(f);
            }
        }
    }
}

/// A read error met while scanning.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReadError {
    pub target: String,
    pub offset: u64,
    pub errno: i32,
}

struct AlignedBuf {
    ptr: *mut u8,
    layout: Layout,
}

impl AlignedBuf {
    fn new(len: usize) -> AlignedBuf {
        let layout = Layout::from_size_align(len.max(4096), 4096).expect("valid layout");
        // SAFETY: non-zero size; checked for null.
        let ptr = unsafe { alloc_zeroed(layout) };
        if ptr.is_null() {
            std::alloc::handle_alloc_error(layout);
        }
        AlignedBuf { ptr, layout }
    }
    fn slice(&mut self, len: usize) -> &mut [u8] {
        // SAFETY: len <= layout.size(), memory owned by self.
        unsafe { std::slice::from_raw_parts_mut(self.ptr, len.min(self.layout.size())) }
    }
}

impl Drop for AlignedBuf {
    fn drop(&mut self) {
        // SAFETY: allocated with this layout in new.
        unsafe { dealloc(self.ptr, self.layout) }
    }
}

/// Check one block without a journal: the stamps must agree with each
/// other and with where they are.
fn check_unjournalled(data: &[u8], offset: u64, unit: usize) -> Option<Outcome> {
    let parsed: Vec<Sector> = data.chunks_exact(SECTOR).map(parse).collect();
    let newest = parsed
        .iter()
        .filter_map(|s| match s {
            Sector::Stamped(t) => Some(*t),
            _ => None,
        })
        .max_by_key(|t| (t.time_ns, t.gen));
    let Some(r) = newest else {
        // Nothing stamped: never written by iolab (or all zero / garbage).
        return if parsed
            .iter()
            .any(|s| matches!(s, Sector::Bad { magic: true }))
        {
            Some(check_block(
                &Stamper::unknown(0),
                data,
                &Expect {
                    target: 0,
                    offset,
                    unit,
                    gen: 1,
                    old_or_new: false,
                },
            ))
        } else {
            None
        };
    };
    let st = Stamper::unknown(r.series);
    Some(check_block(
        &st,
        data,
        &Expect {
            target: r.target,
            offset,
            unit,
            gen: r.gen,
            old_or_new: false,
        },
    ))
}

/// Read `t` end to end and check it. `progress(done, total)` is called
/// about every 64 MiB.
pub fn scan(
    t: &ScanTarget,
    o: &ScanOptions,
    totals: &mut VerifyTotals,
    read_errors: &mut Vec<ReadError>,
    progress: &mut dyn FnMut(u64, u64),
) {
    let unit = o.block_size;
    let blocks_total = t.size / unit as u64;
    let blocks = match t.map {
        Some(m) => (m.len() as u64).min(blocks_total),
        None => blocks_total,
    };
    let per_read = ((1usize << 20) / unit).max(1);
    let chunk = per_read * unit;
    let mut buf = AlignedBuf::new(chunk);
    let mut b = 0u64;
    let mut last_progress = 0u64;
    while b < blocks {
        let n = (per_read as u64).min(blocks - b) as usize;
        // Skip runs of never-written blocks without reading them.
        if let Some(m) = t.map {
            if m[b as usize..b as usize + n].iter().all(|v| v & GEN == 0) {
                totals.blocks_unwritten += n as u64;
                b += n as u64;
                continue;
            }
        }
        let off = b * unit as u64;
        let data = buf.slice(n * unit);
        if let Err(e) = read_full(t.file, data, off) {
            read_errors.push(ReadError {
                target: t.path.clone(),
                offset: off,
                errno: e.raw_os_error().unwrap_or(libc::EIO),
            });
            b += n as u64;
            continue;
        }
        for k in 0..n {
            let bo = off + (k * unit) as u64;
            let bd = &data[k * unit..(k + 1) * unit];
            let outcome = match t.map {
                Some(m) => {
                    let v = m[(b + k as u64) as usize];
                    if v & GEN == 0 {
                        totals.blocks_unwritten += 1;
                        continue;
                    }
                    Some(check_block(
                        &o.stamper,
                        bd,
                        &Expect {
                            target: t.index,
                            offset: bo,
                            unit,
                            gen: v & GEN,
                            old_or_new: o.crashed && v & UNSURE != 0,
                        },
                    ))
                }
                None => check_unjournalled(bd, bo, unit),
            };
            match outcome {
                None => totals.blocks_unwritten += 1,
                Some(Outcome::Ok) => totals.blocks_checked += 1,
                Some(Outcome::Accepted) => {
                    totals.blocks_checked += 1;
                    totals.blocks_old_accepted += 1;
                }
                Some(Outcome::Finding(mut f)) => {
                    totals.blocks_checked += 1;
                    f.target = t.path.clone();
                    f.detected_by = "scan".into();
                    totals.add_finding(*f);
                    if o.max_findings > 0 && totals.findings_total >= o.max_findings {
                        return;
                    }
                }
            }
        }
        b += n as u64;
        if (b - last_progress) * unit as u64 >= 64 << 20 || b == blocks {
            progress(b * unit as u64, blocks * unit as u64);
            last_progress = b;
        }
    }
}

fn read_full(f: &std::fs::File, buf: &mut [u8], off: u64) -> std::io::Result<()> {
    let mut done = 0;
    while done < buf.len() {
        match f.read_at(&mut buf[done..], off + done as u64) {
            Ok(0) => {
                return Err(std::io::Error::from_raw_os_error(libc::EIO));
            }
            Ok(n) => done += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::Class;
    use iolab_spec::DataPattern;

    #[test]
    fn scan_with_and_without_a_map() {
        let st = Stamper::new(42, DataPattern::Random, 1);
        let unit = 4096;
        let mut img = vec![0u8; unit * 64];
        for b in 0..32 {
            st.stamp_write(
                &mut img[b * unit..(b + 1) * unit],
                0,
                (b * unit) as u64,
                unit,
                5,
                |_| 2,
            );
        }
        let mut map = vec![2u8; 32];
        map.extend(vec![0u8; 32]);
        // Block 3: torn against generation 1; block 9: one flipped bit.
        let mut old = vec![0u8; unit];
        st.stamp_write(&mut old, 0, 3 * unit as u64, unit, 4, |_| 1);
        img[3 * unit + 2048..4 * unit].copy_from_slice(&old[2048..]);
        img[9 * unit + 100] ^= 4;
        let f = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(f.path(), &img).unwrap();
        let file = std::fs::File::open(f.path()).unwrap();
        let run = |map: Option<&[u8]>| {
            let mut totals = VerifyTotals::default();
            let mut errs = Vec::new();
            scan(
                &ScanTarget {
                    path: "t".into(),
                    file: &file,
                    index: 0,
                    size: img.len() as u64,
                    map,
                },
                &ScanOptions {
                    stamper: st.clone(),
                    block_size: unit,
                    crashed: false,
                    max_findings: 0,
                },
                &mut totals,
                &mut errs,
                &mut |_, _| {},
            );
            totals
        };
        let t = run(Some(&map));
        assert_eq!(t.blocks_checked, 32);
        assert_eq!(t.blocks_unwritten, 32);
        let got: Vec<(Class, u64)> = t.findings.iter().map(|f| (f.class, f.offset)).collect();
        assert_eq!(
            got,
            vec![
                (Class::Torn, 3 * unit as u64),
                (Class::Corrupt, 9 * unit as u64)
            ]
        );
        assert_eq!(t.findings[1].first_bad_byte, Some(100));
        let t = run(None);
        let got: Vec<(Class, u64)> = t.findings.iter().map(|f| (f.class, f.offset)).collect();
        assert_eq!(
            got,
            vec![
                (Class::Torn, 3 * unit as u64),
                (Class::Corrupt, 9 * unit as u64)
            ]
        );
        assert_eq!(t.blocks_unwritten, 32);
    }
}
