//! The checks a workload's targets get before any I/O, shared by the run
//! itself (`runner`) and by `check_workload`, which makes them without
//! creating, extending or writing anything: for `--dry-run`, and for every
//! run of a plan before the first of them starts.

use crate::runner::RunError;
use iolab_spec::{TargetSpec, WorkloadSpec};
use iolab_target::{Checked, PrepareOptions, Space, TargetError};
use iolab_verify::{journal, TargetIdent};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

/// What `prepare` is told about target `t` of `spec`: the one place the
/// write intent (the workload writes, or `--prefill` writes every target)
/// is decided.
pub fn prepare_options(spec: &WorkloadSpec, t: &TargetSpec) -> PrepareOptions {
    PrepareOptions {
        write: spec.writes() || spec.prefill_always(),
        size: t.size.or_else(|| fill_size(spec, t)),
        destroy_data_on: spec.destroy_data_on.iter().map(PathBuf::from).collect(),
        allow_mounted_write: spec.allow_mounted_write,
    }
}

/// `fill` with a missing file and no size: the file system's free space
/// (whole 1 MiB), so the writes run until it is full.
fn fill_size(spec: &WorkloadSpec, t: &TargetSpec) -> Option<u64> {
    let p = Path::new(&t.path);
    if !spec.fill || p.exists() {
        return None;
    }
    iolab_target::free_bytes_near(p).map(|f| f & !((1 << 20) - 1))
}

/// The length of the region of target `t` (of `size` bytes) that I/O goes
/// to, or why the region does not fit.
pub fn region_len(spec: &WorkloadSpec, t: &TargetSpec, size: u64) -> Result<u64, RunError> {
    if t.offset >= size {
        return Err(RunError::Setup(format!(
            "--offset {} is past the end of {} ({size} bytes); give a smaller offset",
            t.offset, t.path
        )));
    }
    let avail = size - t.offset;
    let region_len = match t.range {
        Some(r) if r > avail => {
            return Err(RunError::Setup(format!(
                "--range {r} from offset {} runs past the end of {} ({size} bytes); give a smaller range",
                t.offset, t.path
            )))
        }
        Some(r) => r,
        None => avail,
    };
    if region_len < spec.max_bs() {
        return Err(RunError::Setup(format!(
            "{} offers {region_len} bytes, less than the block size {}; give a larger --size or a smaller --bs",
            t.path,
            spec.max_bs()
        )));
    }
    if spec.hit_area > region_len {
        return Err(RunError::Setup(format!(
            "--hit-area {} is larger than the region of {} ({region_len} bytes); give a smaller hit area",
            spec.hit_area, t.path
        )));
    }
    let worker = crate::regions::worker_region(spec, t, size, region_len)?;
    crate::regions::check_zones(spec, t, worker)?;
    crate::regions::check_discard(spec, t)?;
    Ok(region_len)
}

/// Checks the runs of a plan in order, remembering the files earlier runs
/// would create, so a later run of the same file is checked as the real
/// run would find it.
#[derive(Debug, Default)]
pub struct PlanCheck {
    created: HashMap<PathBuf, u64>,
    /// Targets already checked with the same options (a sweep checks
    /// each target once, not once per run).
    checked: HashMap<String, Checked>,
    /// Journals already matched with their targets.
    journals: HashSet<String>,
    /// Space each file the plan creates or extends takes: (st_dev of its
    /// file system, bytes), so that files on one file system are checked
    /// together against its free space.
    committed: HashMap<PathBuf, (u64, u64)>,
}

impl PlanCheck {
    pub fn new() -> Self {
        Self::default()
    }

    /// Every check a run makes before its first I/O that needs no
    /// I/O: the spec, `--cpus`, and for each target the checks of
    /// `iolab_target::check` (existence, type, ownership, the write-safety
    /// checks of devices, `--size` against the device or the free space)
    /// and its region. Creates, extends and writes nothing.
    pub fn check(&mut self, spec: &WorkloadSpec) -> Result<(), RunError> {
        spec.validate()?;
        crate::affinity::check_cpus(&spec.cpus).map_err(RunError::Setup)?;
        let mut sizes = Vec::with_capacity(spec.targets.len());
        for t in &spec.targets {
            let path = Path::new(&t.path);
            let size = match self.created.get(path) {
                Some(&made) if !path.exists() => t.size.unwrap_or(made),
                _ => {
                    let opts = prepare_options(spec, t);
                    let key = format!("{path:?} {opts:?}");
                    let checked = match self.checked.get(&key) {
                        Some(c) => c.clone(),
                        None => {
                            let c = iolab_target::check(path, &opts)?;
                            self.checked.insert(key, c.clone());
                            c
                        }
                    };
                    if let Some(space) = &checked.space {
                        self.commit(path, checked.size, space)?;
                    }
                    checked.size
                }
            };
            region_len(spec, t, size)?;
            sizes.push(size);
            if !path.exists() {
                let e = self.created.entry(path.to_path_buf()).or_insert(size);
                *e = (*e).max(size);
            }
        }
        self.check_journal(spec, &sizes)
    }

    /// An existing `--journal` must be readable and written for these
    /// targets (the checks `Journal::open_for_run` makes first). Targets
    /// that do not exist yet cannot be identified: the run checks them.
    fn check_journal(&mut self, spec: &WorkloadSpec, sizes: &[u64]) -> Result<(), RunError> {
        let Some(dir) = spec.journal.as_deref().map(Path::new) else {
            return Ok(());
        };
        if !dir.join("journal.json").exists() {
            return Ok(());
        }
        let idents: Option<Vec<TargetIdent>> = spec
            .targets
            .iter()
            .zip(sizes)
            .map(|(t, &size)| TargetIdent::of(Path::new(&t.path), size).ok())
            .collect();
        let Some(idents) = idents else {
            return Ok(());
        };
        let key = format!("{dir:?} {idents:?}");
        if self.journals.contains(&key) {
            return Ok(());
        }
        let (h, _) = journal::load(dir).map_err(|e| RunError::Setup(e.0))?;
        journal::match_targets(dir, &h, &idents).map_err(|e| RunError::Setup(e.0))?;
        self.journals.insert(key);
        Ok(())
    }

    /// Add the space of the file at `path` (`size` bytes) to what the plan
    /// takes from its file system, refusing when the files together need
    /// more than is free.
    fn commit(&mut self, path: &Path, size: u64, space: &Space) -> Result<(), RunError> {
        let bytes = self
            .committed
            .get(path)
            .map_or(space.bytes, |&(_, b)| b.max(space.bytes));
        let others: u64 = self
            .committed
            .iter()
            .filter(|(p, (dev, _))| *dev == space.fs_dev && p.as_path() != path)
            .map(|(_, &(_, b))| b)
            .sum();
        if let Some(free) = space.free {
            if others.saturating_add(bytes) > free {
                return Err(TargetError::NoSpace {
                    path: path.to_path_buf(),
                    size,
                    free,
                    fs: space.file_system_name(),
                    others,
                }
                .into());
            }
        }
        self.committed
            .insert(path.to_path_buf(), (space.fs_dev, bytes));
        Ok(())
    }
}

/// `PlanCheck` for a single workload.
pub fn check_workload(spec: &WorkloadSpec) -> Result<(), RunError> {
    PlanCheck::new().check(spec)
}
