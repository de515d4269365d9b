//! What each anchor of a plan holds, run after run, so that the plan's
//! check refuses before the first run what a later run would refuse: a
//! tree of another layout under `format=no` (a sweep over a fileset's
//! shape on one `--dir`, two personalities on one `--dir`), and an anchor
//! a run would write in and cannot (read-only, permission), which
//! `--dry-run` then says too. Cheap: layout keys from the specs, the
//! markers on disk, faccessat(2) and statvfs(2); no file of a tree is
//! looked at (the run's own check does that, before its first I/O).

use iolab_fileset::anchor::{cannot_write_path, read_marker, write_refusal};
use iolab_fileset::key::legacy_hashes;
use iolab_fileset::{Fit, LayoutKey, Marker, MARKER};
use iolab_spec::fs::FsFileset;
use iolab_spec::WorkloadSpec;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The tree each anchor holds after the runs checked so far: its marker
/// as it will be, and the run of the plan that laid it out (`None`: as
/// found on disk).
#[derive(Default)]
pub struct Trees {
    by_anchor: HashMap<PathBuf, (Marker, Option<String>)>,
}

/// An existing anchor as found.
enum OnDisk {
    Missing,
    Empty,
    Marked(Marker),
    /// Not readable here: the run's own check says why.
    Unknown,
}

impl Trees {
    /// Check fileset `f` of workload `w`, run `run` of the plan (`run 2`,
    /// for a later refusal's words; `None` in a plan of one run), given as
    /// `flag` (`--dir`, `fileset NAME`), and note what it leaves.
    pub fn check(
        &mut self,
        w: &WorkloadSpec,
        f: &FsFileset,
        run: Option<String>,
        flag: &str,
    ) -> Result<(), String> {
        let Some(fs) = &w.fs else { return Ok(()) };
        let seed = fs.layout_seed_or(w.seed);
        // A bad spec is the run's check's to word.
        let Ok(key) = LayoutKey::of(&f.spec, seed) else {
            return Ok(());
        };
        let a = &f.spec.anchor;
        let abs = std::path::absolute(a).unwrap_or_else(|_| a.clone());
        let disk = look(a);
        let (have, by) = match self.by_anchor.get(&abs) {
            Some((m, by)) => (Some(m.clone()), by.clone()),
            None => match &disk {
                OnDisk::Marked(m) => (Some(m.clone()), None),
                _ => (None, None),
            },
        };
        let legacy = legacy_hashes(&f.spec, &key, seed, w.seed);
        let by = by.map(|r| format!("{r} of this plan"));
        let fit = match &have {
            Some(m) => (m.check(&key, &legacy, f.format, by.as_deref()))
                .map_err(|r| format!("{flag}: {}: {r}", a.display()))?,
            None => Fit::Empty,
        };
        check_writable(fs.writes_anyway(f), fit, &disk, a)?;
        let next = match (f.cleanup, have) {
            (true, _) => Marker::empty(),
            (false, Some(m)) if fit.keeps_marker() => m,
            _ => Marker::of(&key),
        };
        self.by_anchor.insert(abs, (next, run));
        Ok(())
    }
}

/// The anchor `a` as it is now.
fn look(a: &Path) -> OnDisk {
    if !a.exists() {
        return OnDisk::Missing;
    }
    if !a.join(MARKER).exists() {
        return match std::fs::read_dir(a).map(|mut rd| rd.next().is_none()) {
            Ok(true) => OnDisk::Empty,
            _ => OnDisk::Unknown,
        };
    }
    read_marker(a).map_or(OnDisk::Unknown, OnDisk::Marked)
}

/// Refuse, as the run would, a run that writes in an anchor it cannot
/// write in (or cannot make, when it is missing and its parent exists).
fn check_writable(
    workload: Option<String>,
    fit: Fit,
    disk: &OnDisk,
    a: &Path,
) -> Result<(), String> {
    let what = workload.or_else(|| match (disk, fit) {
        (OnDisk::Missing, _) => Some("creating the anchor".into()),
        (OnDisk::Empty, _) => Some("writing the marker".into()),
        (_, Fit::Grows | Fit::Empty | Fit::Differs) => Some("laying out its fileset".into()),
        _ => None,
    });
    let Some(what) = what else { return Ok(()) };
    match disk {
        OnDisk::Missing => {
            let parent = match a.parent().filter(|p| !p.as_os_str().is_empty()) {
                Some(p) if p.is_dir() => p.to_path_buf(),
                None => PathBuf::from("."),
                // Made by the run (a personality's DIR): checked when it is.
                Some(_) => return Ok(()),
            };
            match cannot_write_path(&parent) {
                Some(why) => Err(format!(
                    "{}: cannot be created: {} cannot be written in ({why}); make it writable or give another --dir",
                    a.display(),
                    parent.display()
                )),
                None => Ok(()),
            }
        }
        OnDisk::Unknown => Ok(()),
        _ => match cannot_write_path(a) {
            Some(why) => Err(write_refusal(a, &why, &what)),
            None => Ok(()),
        },
    }
}
