//! The default job: what `iolab` with no arguments runs. A quick
//! characterisation of the storage under the current directory: a
//! temporary file of 1 GiB (less when space is short), sequential 1 MiB
//! write and read, random 4 KiB read and write at 32 outstanding I/Os,
//! about 5 s each, O_DIRECT where the file system allows it. The file is
//! removed afterwards.

use iolab_jobfile::WorkloadOptions;
use std::path::PathBuf;

pub const DEFAULT_SIZE: u64 = 1 << 30;
const MIN_SIZE: u64 = 64 << 20;

/// The default job's temporary file and workloads, with `over` applied on
/// top of each (so `iolab run --duration 2s` shortens it).
pub fn default_job(over: &WorkloadOptions) -> Result<(PathBuf, Vec<WorkloadOptions>), String> {
    let dir =
        std::env::current_dir().map_err(|e| format!("cannot find the current directory: {e}"))?;
    let avail = iolab_plan::free_space(&dir).unwrap_or(DEFAULT_SIZE * 2);
    let size = DEFAULT_SIZE.min(avail / 2 / (1 << 20) * (1 << 20));
    if size < MIN_SIZE {
        return Err(format!(
            "only {} MiB free under {}; the default job needs at least {} MiB, or give --target",
            avail >> 20,
            dir.display(),
            (MIN_SIZE * 2) >> 20
        ));
    }
    let path = dir.join(format!(".iolab-default-{}.tmp", std::process::id()));
    let base = WorkloadOptions {
        target: vec![path.to_string_lossy().into_owned()],
        size: Some(size.into()),
        duration: Some("5s".into()),
        direct: Some(true.into()),
        ..Default::default()
    };
    let mk = |name: &str, rw: &str, bs: &str, qd: u32| WorkloadOptions {
        name: Some(name.into()),
        rw: Some(rw.into()),
        bs: Some(bs.into()),
        qd: Some(qd.into()),
        ..Default::default()
    };
    let list = [
        mk("seq-write-1m", "write", "1m", 1),
        mk("seq-read-1m", "read", "1m", 1),
        mk("rand-read-4k-qd32", "randread", "4k", 32),
        mk("rand-write-4k-qd32", "randwrite", "4k", 32),
    ];
    let mut over = over.clone();
    over.target.clear();
    Ok((
        path,
        list.iter()
            .map(|w| base.overlay(w).overlay(&over))
            .collect(),
    ))
}
