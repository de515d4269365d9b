//! Every workload parameter, once: a clap flag and a serde job-file key.

use clap::Args;
use serde::{Deserialize, Deserializer};

fn de_str<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum V {
        S(String),
        I(i64),
        F(f64),
    }
    Ok(Some(match V::deserialize(d)? {
        V::S(s) => s,
        V::I(i) => i.to_string(),
        V::F(f) => f.to_string(),
    }))
}

fn de_list<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum V {
        One(String),
        Many(Vec<String>),
    }
    Ok(match V::deserialize(d)? {
        V::One(s) => vec![s],
        V::Many(v) => v,
    })
}

/// Workload parameters. Unset fields take the defaults documented in
/// docs/jobfile.md.
#[derive(Debug, Clone, Default, Args, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WorkloadOptions {
    /// Workload name, shown in tables and stored in results
    #[arg(long, value_name = "NAME", help_heading = "Workload")]
    #[serde(default)]
    pub name: Option<String>,

    /// A regular file or block device (repeat for several targets)
    #[arg(
        long = "target",
        short = 't',
        value_name = "PATH",
        help_heading = "Targets"
    )]
    #[serde(default, deserialize_with = "de_list", alias = "targets")]
    pub target: Vec<String>,

    /// Create a missing file at this size (or use this much of a target)
    #[arg(long, value_name = "SIZE", help_heading = "Targets")]
    #[serde(default, deserialize_with = "de_str")]
    pub size: Option<String>,

    /// Start of the region I/O goes to, in bytes from the target's start
    #[arg(long, value_name = "SIZE", help_heading = "Targets")]
    #[serde(default, deserialize_with = "de_str")]
    pub offset: Option<String>,

    /// Length of the region (default: to the end of the target)
    #[arg(long, value_name = "SIZE", help_heading = "Targets")]
    #[serde(default, deserialize_with = "de_str")]
    pub range: Option<String>,

    /// Leading part of the region that "cached" I/O goes to (vdbench hitarea)
    #[arg(long, value_name = "SIZE", help_heading = "Targets")]
    #[serde(default, deserialize_with = "de_str")]
    pub hit_area: Option<String>,

    /// Share of reads sent to the hit area, 0-100 (vdbench rhpct)
    #[arg(long, alias = "rhpct", value_name = "PCT", help_heading = "Targets")]
    #[serde(default, alias = "rhpct")]
    pub read_hit_pct: Option<u32>,

    /// Share of writes sent to the hit area, 0-100 (vdbench whpct)
    #[arg(long, alias = "whpct", value_name = "PCT", help_heading = "Targets")]
    #[serde(default, alias = "whpct")]
    pub write_hit_pct: Option<u32>,

    /// Writing a target iolab did not create (or a device carrying data) destroys its data: name it here to allow that
    #[arg(long, value_name = "PATH", help_heading = "Targets")]
    #[serde(default, deserialize_with = "de_list")]
    pub destroy_data_on: Vec<String>,

    /// Write every target end to end first, block devices too (default: only files iolab created)
    #[arg(long, help_heading = "Targets", num_args = 0..=1, require_equals = true, default_missing_value = "true", value_name = "BOOL")]
    #[serde(default)]
    pub prefill: Option<bool>,

    /// Do not write files end to end before the workload
    #[arg(long, help_heading = "Targets")]
    #[serde(skip)]
    pub no_prefill: bool,

    /// read, write, randread, randwrite, rw, randrw
    #[arg(long, value_name = "MODE", help_heading = "Access pattern")]
    #[serde(default)]
    pub rw: Option<String>,

    /// Share of I/Os that are reads, 0-100 (overrides the mix of --rw)
    #[arg(
        long,
        alias = "rdpct",
        value_name = "PCT",
        help_heading = "Access pattern"
    )]
    #[serde(default, alias = "rdpct")]
    pub read_pct: Option<u32>,

    /// Chance, 0-100, that an I/O jumps to a random offset (vdbench seekpct)
    #[arg(
        long,
        alias = "seekpct",
        value_name = "PCT",
        help_heading = "Access pattern"
    )]
    #[serde(default, alias = "seekpct")]
    pub random_pct: Option<u32>,

    /// Block size, or a weighted mix such as 4k:60,8k:30,64k:10
    #[arg(long, value_name = "SIZE", help_heading = "Access pattern")]
    #[serde(default, deserialize_with = "de_str")]
    pub bs: Option<String>,

    /// Offset alignment (default: the smallest block size)
    #[arg(long, value_name = "SIZE", help_heading = "Access pattern")]
    #[serde(default, deserialize_with = "de_str")]
    pub align: Option<String>,

    /// Random offsets: uniform, zipf:THETA or hotspot:PCT_IO/PCT_SPACE
    #[arg(long, value_name = "DIST", help_heading = "Access pattern")]
    #[serde(default)]
    pub distribution: Option<String>,

    /// Seed for every random choice (runs with the same seed repeat exactly)
    #[arg(long, value_name = "N", help_heading = "Access pattern")]
    #[serde(default)]
    pub seed: Option<u64>,

    /// Worker threads
    #[arg(
        long,
        alias = "numjobs",
        value_name = "N",
        help_heading = "Concurrency"
    )]
    #[serde(default, alias = "numjobs")]
    pub jobs: Option<u32>,

    /// Outstanding I/Os per worker
    #[arg(
        long,
        alias = "iodepth",
        value_name = "N",
        help_heading = "Concurrency"
    )]
    #[serde(default, alias = "iodepth")]
    pub qd: Option<u32>,

    /// io_uring (default), psync or null
    #[arg(
        long,
        alias = "ioengine",
        value_name = "ENGINE",
        help_heading = "Concurrency"
    )]
    #[serde(default, alias = "ioengine")]
    pub engine: Option<String>,

    /// Total I/O rate in IOPS on a fixed schedule (default: unlimited)
    #[arg(
        long,
        alias = "iorate",
        value_name = "IOPS",
        help_heading = "Concurrency"
    )]
    #[serde(default, alias = "iorate")]
    pub rate: Option<f64>,

    /// Measured run time after warm-up, e.g. 30s
    #[arg(long, value_name = "TIME", help_heading = "Duration")]
    #[serde(default, deserialize_with = "de_str")]
    pub duration: Option<String>,

    /// End after this many bytes (all workers together)
    #[arg(long, value_name = "SIZE", help_heading = "Duration")]
    #[serde(default, deserialize_with = "de_str")]
    pub io_size: Option<String>,

    /// End after this many I/Os (all workers together)
    #[arg(long, value_name = "N", help_heading = "Duration")]
    #[serde(default)]
    pub ops: Option<u64>,

    /// Run this long before measuring; excluded from every figure
    #[arg(long, value_name = "TIME", help_heading = "Duration")]
    #[serde(default, deserialize_with = "de_str")]
    pub warmup: Option<String>,

    /// Length of each interval of the time series
    #[arg(long, value_name = "TIME", help_heading = "Duration")]
    #[serde(default, deserialize_with = "de_str")]
    pub interval: Option<String>,

    /// A gap with no completion this long is reported as a stall
    #[arg(long, value_name = "TIME", help_heading = "Duration")]
    #[serde(default, deserialize_with = "de_str")]
    pub stall_threshold: Option<String>,

    /// O_DIRECT (the default for block devices)
    #[arg(long, help_heading = "Caching and durability", num_args = 0..=1, require_equals = true, default_missing_value = "true", value_name = "BOOL")]
    #[serde(default)]
    pub direct: Option<bool>,

    /// Buffered I/O through the page cache (the default for files)
    #[arg(long, help_heading = "Caching and durability")]
    #[serde(skip)]
    pub buffered: bool,

    /// none or dsync (O_DSYNC: every write durable on completion)
    #[arg(long, value_name = "MODE", help_heading = "Caching and durability")]
    #[serde(default)]
    pub sync: Option<String>,

    /// fsync after every N writes per worker
    #[arg(long, value_name = "N", help_heading = "Caching and durability")]
    #[serde(default)]
    pub fsync_every: Option<u64>,

    /// random (default), zero or compress:RATIO
    #[arg(long, value_name = "PATTERN", help_heading = "Data")]
    #[serde(default)]
    pub data: Option<String>,

    /// Share of written blocks, 0-100, that repeat earlier content
    #[arg(long, value_name = "PCT", help_heading = "Data")]
    #[serde(default)]
    pub dedupe: Option<u32>,

    /// stop (default) or continue after an I/O error
    #[arg(long, value_name = "POLICY", help_heading = "Errors")]
    #[serde(default)]
    pub on_error: Option<String>,

    /// Stamp every written 512-byte sector and check every read of a written block
    #[arg(long, help_heading = "Data validation", num_args = 0..=1, require_equals = true, default_missing_value = "true", value_name = "BOOL")]
    #[serde(default)]
    pub verify: Option<bool>,

    /// Re-read every write once it completes and check it (implies --verify)
    #[arg(long, help_heading = "Data validation", num_args = 0..=1, require_equals = true, default_missing_value = "true", value_name = "BOOL")]
    #[serde(default)]
    pub verify_after: Option<bool>,

    /// Keep the generation map on stable storage in DIR: later runs carry on from it and `iolab verify --journal DIR` checks after a crash (implies --verify)
    #[arg(long, value_name = "DIR", help_heading = "Data validation")]
    #[serde(default)]
    pub journal: Option<String>,

    /// Stop the run after N data validation findings (default 50; 0 never)
    #[arg(long, value_name = "N", help_heading = "Data validation")]
    #[serde(default)]
    pub max_errors: Option<u64>,
}

macro_rules! overlay {
    ($base:expr, $over:expr, [$($opt:ident),*], [$($vec:ident),*], [$($flag:ident),*]) => {
        WorkloadOptions {
            $($opt: $over.$opt.clone().or_else(|| $base.$opt.clone()),)*
            $($vec: if $over.$vec.is_empty() { $base.$vec.clone() } else { $over.$vec.clone() },)*
            $($flag: $over.$flag || $base.$flag,)*
        }
    };
}

impl WorkloadOptions {
    /// `over`'s values where set, `self`'s elsewhere.
    pub fn overlay(&self, over: &WorkloadOptions) -> WorkloadOptions {
        // A --buffered or --no-prefill on the command line beats a job
        // file's `direct = true` or `prefill = true`.
        let mut o = over.clone();
        if o.buffered {
            o.direct = Some(false);
        }
        if o.no_prefill {
            o.prefill = Some(false);
        }
        overlay!(
            self,
            o,
            [
                name,
                size,
                offset,
                range,
                hit_area,
                read_hit_pct,
                write_hit_pct,
                prefill,
                rw,
                read_pct,
                random_pct,
                bs,
                align,
                distribution,
                seed,
                jobs,
                qd,
                engine,
                rate,
                duration,
                io_size,
                ops,
                warmup,
                interval,
                stall_threshold,
                direct,
                sync,
                fsync_every,
                data,
                dedupe,
                on_error,
                verify,
                verify_after,
                journal,
                max_errors
            ],
            [target, destroy_data_on],
            [no_prefill, buffered]
        )
    }

    /// True when no field is set.
    pub fn is_empty(&self) -> bool {
        let d = WorkloadOptions::default();
        format!("{self:?}") == format!("{d:?}")
    }
}
