//! The match key of a run: the parameters that define its workload (see
//! the module documentation of `compare` and docs/compare.md).

use crate::model::{Effective, RunResult};
use iolab_spec::WorkloadSpec;
use std::collections::BTreeMap;

/// The key parameters every entry has, in display order: the parameters
/// whose definition (`iolab_spec::params`) says they define a workload.
pub static KEY_PARAMS: std::sync::LazyLock<Vec<&'static str>> =
    std::sync::LazyLock::new(iolab_spec::params::match_keys);

/// Swept parameters already covered by [`KEY_PARAMS`] (`rw` is read-pct and
/// random-pct).
fn covered(param: &str) -> bool {
    param == "rw" || KEY_PARAMS.contains(&param)
}

/// The match key of a run: its workload's defining parameters, as resolved
/// (the effective engine, direct, qd and jobs), plus the document's other
/// swept parameters, minus `ignore`. A run of several workloads: the
/// number of workloads (`workloads`) plus the swept parameters. A run with
/// no workload (a monitor): `-` for every workload parameter.
pub fn run_key(r: &RunResult, ignore: &[String]) -> BTreeMap<String, String> {
    let mut key = match (&r.spec, &r.effective) {
        // A run of several workloads is defined by how many it runs
        // together; their parameters are compared workload by workload.
        _ if r.workloads.len() > 1 => {
            BTreeMap::from([("workloads".to_string(), r.workloads.len().to_string())])
        }
        (Some(s), Some(e)) => workload_key(s, e, ignore),
        // A run with no workload (a monitor): nothing defines it but its
        // swept parameters.
        _ => KEY_PARAMS
            .iter()
            .filter(|k| !ignored(ignore, k))
            .map(|k| (k.to_string(), "-".to_string()))
            .collect(),
    };
    for (k, v) in &r.params {
        if !covered(k) && !ignored(ignore, k) {
            key.insert(k.clone(), v.clone());
        }
    }
    key
}

fn ignored(ignore: &[String], p: &str) -> bool {
    ignore
        .iter()
        .any(|i| i == p || (i == "rw" && (p == "read-pct" || p == "random-pct")))
}

/// The defining parameters of one workload (the run key of a run of one
/// workload, without the document's other swept parameters).
pub fn workload_key(
    s: &WorkloadSpec,
    e: &Effective,
    ignore: &[String],
) -> BTreeMap<String, String> {
    use iolab_spec::{format_bytes, DataPattern, SyncMode};
    let mix = |bs: &[iolab_spec::BsWeight]| {
        if bs.len() == 1 {
            format_bytes(bs[0].bytes)
        } else {
            bs.iter()
                .map(|b| format!("{}:{}", format_bytes(b.bytes), b.weight))
                .collect::<Vec<_>>()
                .join(",")
        }
    };
    // Writes' and trims' own sizes, where given, are part of `bs` (so a
    // document written before they existed keys as it did).
    let mut bs = mix(&s.bs);
    if let Some(w) = &s.bs_write {
        bs.push_str(&format!("; writes {}", mix(w)));
    }
    if let Some(t) = &s.bs_trim {
        bs.push_str(&format!("; trims {}", mix(t)));
    }
    // Trims are no reads: a trim workload is told from a write workload
    // of the same shares by its mode, in `read-pct`.
    let read_pct = match s.trim {
        iolab_spec::TrimMode::None => s.read_pct.to_string(),
        iolab_spec::TrimMode::Only => format!("{} (trim)", s.read_pct),
        iolab_spec::TrimMode::ThenWrite => format!("{} (trimwrite)", s.read_pct),
    };
    let distribution = s.distribution.to_string();
    let data = match s.data {
        DataPattern::Random => "random".to_string(),
        DataPattern::Zero => "zero".to_string(),
        DataPattern::Compress { ratio } => format!("compress:{ratio}"),
    };
    let verify = match (s.verify, s.verify_after) {
        (false, _) => "off",
        (true, false) => "on",
        (true, true) => "on+after",
    };
    // The value of each match key, as resolved; a key without a value
    // here is a parameter defined as a match key that this function does
    // not know yet (a test fails on it).
    let value = |k: &str| -> Option<String> {
        Some(match k {
            "read-pct" => read_pct.clone(),
            "random-pct" => s.random_pct.to_string(),
            "bs" => bs.clone(),
            "qd" => e.qd.to_string(),
            // What the worker does: it never waits for more than it has in flight.
            "batch-complete" => s.batch_complete.min(e.qd).to_string(),
            "jobs" => e.jobs.to_string(),
            "engine" => e.engine.clone(),
            "direct" => e.direct.to_string(),
            "sync" => if s.sync == SyncMode::Dsync {
                "dsync"
            } else {
                "none"
            }
            .into(),
            "fsync-every" => s.fsync_every.to_string(),
            "distribution" => distribution.clone(),
            "hit-area" => format_bytes(s.hit_area),
            "read-hit-pct" => s.read_hit_pct.to_string(),
            "write-hit-pct" => s.write_hit_pct.to_string(),
            "data" => data.clone(),
            "dedupe" => s.dedupe_pct.to_string(),
            "rate" => s.rate_iops.map_or("max".into(), |r| format!("{r}")),
            "skew" => s.skew_pct.map_or("none".into(), |k| format!("{k}")),
            "verify" => verify.into(),
            _ => return None,
        })
    };
    let values = KEY_PARAMS
        .iter()
        .map(|k| (*k, value(k).unwrap_or_else(|| "?".into())));
    let mut key = BTreeMap::new();
    let fs = s.fs.as_ref().map(fs_key).unwrap_or_default();
    for (k, v) in values.chain(fs) {
        if !ignored(ignore, k) {
            key.insert(k.to_string(), v);
        }
    }
    key
}

/// The key parameters only file-system workloads have, in display order.
pub const FS_KEYS: [&str; 3] = ["fs-work", "fileset", "file-select"];

/// What defines a file-system workload besides the common parameters: its
/// personality and mix or flows (in the `--mix`/`--flow` syntax), each
/// fileset's shape (not its anchor: a before/after pair often runs on
/// another file system) and how files are picked.
fn fs_key(fs: &iolab_spec::fs::FsSpec) -> [(&'static str, String); 3] {
    use iolab_spec::fileset::{FileSize, Shape};
    use iolab_spec::fs::{FileSelect, FsWork};
    use iolab_spec::fs_parse::{flow_text, mix_text, size_text};
    let names: Vec<&str> = fs.filesets.iter().map(|f| f.name.as_str()).collect();
    let mut work = match &fs.work {
        FsWork::Mix(m) => format!("mix {}", mix_text(m, &names)),
        FsWork::Flows(f) => {
            let f: Vec<String> = f.iter().map(|f| flow_text(f, &names)).collect();
            format!("flow {}", f.join(" | "))
        }
    };
    if let Some(p) = &fs.personality {
        work = format!("{p}: {work}");
    }
    let shape = |f: &iolab_spec::fs::FsFileset| match &f.spec.shape {
        Shape::Tree(t) => format!(
            "{}: depth {} width {} files {} sizes {}",
            f.name, t.depth, t.width, t.files, t.sizes
        ),
        Shape::Entries(e) => {
            let size = match e.size {
                FileSize::Fixed(b) => size_text(b),
                FileSize::Gamma { mean, shape } => format!("gamma:{}:{shape}", size_text(mean)),
            };
            format!(
                "{}: {} files of {size}, dir width {}, prealloc {}%",
                f.name, e.entries, e.dir_width, e.prealloc
            )
        }
    };
    let sets: Vec<String> = fs.filesets.iter().map(shape).collect();
    let select = match fs.select {
        FileSelect::Sequential => "seq".to_string(),
        FileSelect::Uniform => "random".to_string(),
        FileSelect::Zipf(t) => format!("zipf:{t}"),
    };
    [
        ("fs-work", work),
        ("fileset", sets.join("; ")),
        ("file-select", select),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every parameter defined as a match key has a value here: a new one
    /// shows as `?` until `run_key` says what it is.
    #[test]
    fn fs_workloads_are_keyed_by_their_work_and_fileset_not_anchor() {
        use crate::study::testing::spec;
        let e = Effective::default();
        let mut a = spec("a");
        crate::testraw::fileserver_spec(&mut a);
        let ka = workload_key(&a, &e, &[]);
        assert!(ka["fs-work"].starts_with("fileserver: flow "), "{ka:?}");
        assert!(ka["fs-work"].contains("create"), "{ka:?}");
        let mut b = a.clone();
        if let Some(iolab_spec::fs::FsWork::Flows(f)) = b.fs.as_mut().map(|f| &mut f.work) {
            f[0].steps.pop();
        }
        assert_ne!(workload_key(&b, &e, &[])["fs-work"], ka["fs-work"]);
        // A block workload has none of these keys.
        let kb = workload_key(&spec("b"), &e, &[]);
        assert!(FS_KEYS.iter().all(|k| !kb.contains_key(*k)));
        let ign = workload_key(&a, &e, &["fs-work".into()]);
        assert!(!ign.contains_key("fs-work") && ign.contains_key("file-select"));
    }

    #[test]
    fn every_defined_match_key_has_a_value() {
        use crate::study::testing::{run, spec};
        let key = run_key(&run(spec("w"), 1000.0, 4.0, 100.0), &[]);
        for k in KEY_PARAMS.iter() {
            let v = key.get(*k).unwrap_or_else(|| panic!("{k} not in the key"));
            assert_ne!(v, "?", "{k} has no value in run_key");
        }
        assert_eq!(key.get("skew").map(String::as_str), Some("none"));
        assert!(KEY_PARAMS.contains(&"qd") && !KEY_PARAMS.contains(&"start-delay"));
    }

    #[test]
    fn trims_and_per_direction_sizes_are_part_of_the_key() {
        let e = Effective::default();
        let write = WorkloadSpec::example("w", "/x", "randwrite");
        let trim = WorkloadSpec::example("w", "/x", "randtrim");
        let (kw, kt) = (workload_key(&write, &e, &[]), workload_key(&trim, &e, &[]));
        assert_eq!(kw["read-pct"], "0");
        assert_eq!(kt["read-pct"], "0 (trim)");
        let mut big = write.clone();
        big.bs_write = Some(vec![iolab_spec::BsWeight {
            bytes: 65536,
            weight: 1,
        }]);
        let kb = workload_key(&big, &e, &[]);
        assert_eq!(kw["bs"], "4 KiB");
        assert_eq!(kb["bs"], "4 KiB; writes 64 KiB");
    }
}
