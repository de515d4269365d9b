//! Checks of a block workload's regions that its new keys need, made
//! before any I/O (by the run and by `--dry-run` alike, through
//! [`crate::precheck::region_len`]): each worker's own region with
//! `offset_increment`, `zoned_abs` zones against the region, and discard
//! support of a device that a trim workload targets.

use crate::runner::RunError;
use iolab_spec::{Distribution, TargetSpec, WorkloadSpec};
use std::path::Path;

/// The workers (streams) on target `t` of `spec` (`prepare::assign`).
fn streams_on(spec: &WorkloadSpec, t: &TargetSpec) -> u64 {
    let ti = spec
        .targets
        .iter()
        .position(|x| std::ptr::eq(x, t))
        .unwrap_or(0);
    crate::prepare::assign(spec.jobs, spec.targets.len().max(1))
        .iter()
        .flatten()
        .filter(|x| x.0 == ti)
        .count() as u64
}

/// The smallest region a worker of target `t` gets (`region_len` bytes
/// from `t.offset` in a target of `size` bytes), after checking that with
/// `offset_increment` every worker's region fits in the target.
pub(crate) fn worker_region(
    spec: &WorkloadSpec,
    t: &TargetSpec,
    size: u64,
    region_len: u64,
) -> Result<u64, RunError> {
    let inc = spec.offset_increment;
    if inc == 0 {
        return Ok(region_len);
    }
    let last = streams_on(spec, t).saturating_sub(1);
    let start = t.offset.saturating_add(last.saturating_mul(inc));
    let len = match t.range {
        Some(r) => r,
        None => region_len.saturating_sub(last.saturating_mul(inc)),
    };
    if start.saturating_add(len) > size || len < spec.max_bs() {
        return Err(RunError::Setup(format!(
            "--offset-increment {inc}: worker {last}'s region of {} starts at {start} and needs {} bytes, but the target has {size}; give a smaller --offset-increment, --range or --jobs",
            t.path,
            len.max(spec.max_bs())
        )));
    }
    Ok(len)
}

/// `zoned_abs` zones must fit in every worker's region (fio refuses
/// zones past the end of the file too).
pub(crate) fn check_zones(
    spec: &WorkloadSpec,
    t: &TargetSpec,
    region: u64,
) -> Result<(), RunError> {
    let Distribution::ZonedAbs { zones } = &spec.distribution else {
        return Ok(());
    };
    let need: f64 = zones.iter().map(|z| z.size).sum();
    let have = region.saturating_sub(spec.hit_area);
    if need > have as f64 {
        return Err(RunError::Setup(format!(
            "--distribution {}: the zones need {} bytes, but a worker's region of {} has {have}; give smaller zones or a larger region",
            spec.distribution, need as u64, t.path
        )));
    }
    Ok(())
}

/// A trim workload on a block device without discard (its queue's
/// `discard_max_bytes` is 0) is refused before any I/O.
pub(crate) fn check_discard(spec: &WorkloadSpec, t: &TargetSpec) -> Result<(), RunError> {
    use std::os::unix::fs::FileTypeExt;
    use std::os::unix::fs::MetadataExt;
    if !spec.trims() || !crate::engines::caps(spec.engine).moves_data {
        return Ok(());
    }
    let Ok(m) = std::fs::metadata(&t.path) else {
        return Ok(());
    };
    if !m.file_type().is_block_device() {
        return Ok(());
    }
    let (major, minor) = (libc::major(m.rdev()), libc::minor(m.rdev()));
    let dev = format!("/sys/dev/block/{major}:{minor}");
    // A partition has no queue of its own: its disk's is one level up.
    let max = ["queue/discard_max_bytes", "../queue/discard_max_bytes"]
        .iter()
        .find_map(|q| std::fs::read_to_string(Path::new(&dev).join(q)).ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    if max == Some(0) {
        return Err(RunError::Setup(format!(
            "{} does not support discard ({dev}/queue/discard_max_bytes is 0), so --rw {} cannot run on it; use a device that discards, or a write workload",
            t.path, spec.rw
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offset_increment_regions_must_fit_in_the_target() {
        let mut s = WorkloadSpec::example("t", "/x", "read");
        s.jobs = 4;
        s.offset_increment = 16 << 20;
        s.targets[0].range = Some(16 << 20);
        let size = 64u64 << 20;
        assert_eq!(
            worker_region(&s, &s.targets[0], size, size).unwrap(),
            16 << 20
        );
        s.jobs = 5;
        let e = worker_region(&s, &s.targets[0], size, size)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("worker 4")
                && e.contains("starts at 67108864")
                && e.contains("has 67108864"),
            "{e}"
        );
    }

    #[test]
    fn zoned_abs_zones_past_a_workers_region_are_refused() {
        let mut s = WorkloadSpec::example("t", "/x", "randread");
        s.distribution = iolab_spec::parse_distribution("zoned_abs:50/1m:50/2m").unwrap();
        let t = s.targets[0].clone();
        assert!(check_zones(&s, &t, 3 << 20).is_ok());
        let e = check_zones(&s, &t, 2 << 20).unwrap_err().to_string();
        assert!(
            e.contains("need 3145728 bytes") && e.contains("has 2097152"),
            "{e}"
        );
    }
}
