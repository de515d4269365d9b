//! Setting up `--verify` for a run: the generation maps (in memory or in
//! the journal), the stamper, the prefill that stamps every block, and
//! closing the journal at the end.

use crate::verify::VerifyShared;
use iolab_raw::{VerifyRaw, VerifyRunRaw};
use iolab_spec::{SyncMode, WorkloadSpec};
use iolab_verify::journal::{new_series, Journal};
use iolab_verify::map::{GEN, UNSURE};
use iolab_verify::{next_gen, GenMap, Stamper, TargetIdent};
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

/// A run's verification state, held by the runner.
pub struct VerifyRun {
    pub shared: Arc<VerifyShared>,
    pub journal: Option<Journal>,
    pub raw: VerifyRunRaw,
}

/// One target as verification sees it.
pub struct VerifyTarget<'a> {
    pub path: &'a Path,
    pub size: u64,
}

impl VerifyRun {
    /// Open (or create) the journal, or make maps in memory.
    pub fn setup(spec: &WorkloadSpec, targets: &[VerifyTarget]) -> Result<VerifyRun, String> {
        let mut unit = spec.verify_block_size();
        // The workload promises durability: the journal is synced before
        // its writes are issued.
        let promised = spec.writes()
            && (spec.sync == SyncMode::Dsync || spec.fsync_every > 0 || spec.fdatasync_every > 0);
        let mut raw = VerifyRunRaw {
            after: spec.verify_after,
            max_errors: spec.max_errors,
            journal: spec.journal.clone(),
            ..Default::default()
        };
        let (maps, ids, series, data_seed, journal) = match &spec.journal {
            Some(dir) => {
                let idents = targets
                    .iter()
                    .map(|t| {
                        TargetIdent::of(t.path, t.size)
                            .map_err(|e| format!("cannot identify {}: {e}", t.path.display()))
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                let j = Journal::open_for_run(
                    Path::new(dir),
                    &idents,
                    unit,
                    spec.data,
                    spec.seed,
                    promised,
                )
                .map_err(|e| e.0)?;
                unit = j.header().block_size;
                let maps = j
                    .index_of
                    .iter()
                    .map(|&i| j.maps()[i as usize].clone())
                    .collect();
                raw.journal_resumed = j.resumed;
                raw.journal_reset_blocks = j.reset_unsure;
                (
                    maps,
                    j.index_of.clone(),
                    j.series(),
                    j.header().data_seed,
                    Some(j),
                )
            }
            None => {
                let maps = targets
                    .iter()
                    .map(|t| {
                        GenMap::anonymous((t.size / unit) as usize)
                            .map(Arc::new)
                            .map_err(|e| format!("cannot allocate the generation map: {e}"))
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                (
                    maps,
                    (0..targets.len() as u32).collect(),
                    new_series(),
                    spec.seed,
                    None,
                )
            }
        };
        raw.block_size = unit;
        raw.series = series;
        raw.journal_sync = journal.is_some() && promised;
        let shared = Arc::new(VerifyShared {
            stamper: Stamper::new(series, spec.data, data_seed),
            pattern: match spec.data {
                iolab_spec::DataPattern::Pattern { bytes } => Some(bytes),
                _ => None,
            },
            unit,
            maps,
            ids,
            durable_writes: spec.sync == SyncMode::Dsync,
            journal_sync: raw.journal_sync,
            after: spec.verify_after,
            max_findings: spec.max_errors,
            findings: AtomicU64::new(0),
            stopped: AtomicBool::new(false),
            reported: Default::default(),
        });
        Ok(VerifyRun {
            shared,
            journal,
            raw,
        })
    }

    /// True when any block of target `t`'s region was never written.
    pub fn region_has_unwritten(&self, t: usize, start: u64, len: u64) -> bool {
        let (first, n) = self.blocks(start, len);
        self.shared.maps[t].entries()[first..first + n]
            .iter()
            .any(|b| b.load(Ordering::Relaxed) & GEN == 0)
    }

    fn blocks(&self, start: u64, len: u64) -> (usize, usize) {
        let u = self.shared.unit;
        ((start / u) as usize, (len / u) as usize)
    }

    /// Before a prefill of target `t`'s region: its blocks take their next
    /// generation, marked unsure until the prefill is synced.
    pub fn prefill_begin(&self, t: usize, start: u64, len: u64) {
        let (first, n) = self.blocks(start, len);
        let m = &self.shared.maps[t];
        for b in &m.entries()[first..first + n] {
            let v = b.load(Ordering::Relaxed);
            b.store(UNSURE | next_gen(v & GEN), Ordering::Relaxed);
        }
        let _ = m.sync();
    }

    /// Stamp one prefill chunk at `offset` (whole blocks only).
    pub fn prefill_stamp(&self, t: usize, buf: &mut [u8], offset: u64, time_ns: u64) {
        if let Some(p) = &self.shared.pattern {
            p.fill(buf);
            return;
        }
        let u = self.shared.unit as usize;
        let whole = buf.len() / u * u;
        let first = (offset / self.shared.unit) as usize;
        let e = &self.shared.maps[t].entries()[first..];
        self.shared.stamper.stamp_write(
            &mut buf[..whole],
            self.shared.ids[t],
            offset,
            u,
            time_ns,
            |k| e[k].load(Ordering::Relaxed) & GEN,
        );
    }

    /// After a prefill that was synced: its blocks are durable.
    pub fn prefill_end(&mut self, t: usize, start: u64, len: u64, ok: bool) {
        let (first, n) = self.blocks(start, len);
        let m = &self.shared.maps[t];
        for b in &m.entries()[first..first + n] {
            let v = b.load(Ordering::Relaxed);
            b.store(if ok { v & GEN } else { 0 }, Ordering::Relaxed);
        }
        let _ = m.sync();
        if ok {
            self.raw.blocks_prefilled += n as u64;
        }
    }

    /// After the workers stopped: merge their results and close the
    /// journal (cleanly when the targets' writes were synced).
    pub fn finish(
        mut self,
        workers: Vec<VerifyRaw>,
        synced: bool,
    ) -> (VerifyRunRaw, Option<String>) {
        for w in workers {
            self.raw.w.merge(w);
        }
        self.raw.stopped_on_max_errors = self.shared.stopped.load(Ordering::Relaxed);
        let mut note = None;
        if let Some(j) = self.journal.take() {
            let dir = j.dir().display().to_string();
            if let Err(e) = j.close(synced) {
                note = Some(format!("could not close journal {dir} cleanly: {e}; `iolab verify --journal {dir}` treats its unsure blocks as in flight"));
            }
        }
        (self.raw, note)
    }
}
