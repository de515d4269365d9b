//! Every workload parameter, once: a clap flag and a serde job-file key.

use clap::Args;
use serde::{Deserialize, Deserializer};

// The job-file deserializers read a `toml::Value` and say what they
// expected by name: serde's untagged enums can only say "did not match any
// variant", which names neither the key nor the type wanted. The key and
// line are added by `parse_job_text` from the error's span.

/// What a TOML value is, for "expected X, found Y".
fn found(v: &toml::Value) -> &'static str {
    match v {
        toml::Value::String(_) => "a string",
        toml::Value::Integer(_) => "an integer",
        toml::Value::Float(_) => "a number with a fraction",
        toml::Value::Boolean(_) => "true or false",
        toml::Value::Datetime(_) => "a date",
        toml::Value::Array(_) => "an array",
        toml::Value::Table(_) => "a table",
    }
}

fn expected<E: serde::de::Error>(what: &str, v: &toml::Value) -> E {
    E::custom(format!("expected {what}, found {}", found(v)))
}

fn de_str<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    let v = toml::Value::deserialize(d)?;
    Ok(Some(match v {
        toml::Value::String(s) => s,
        toml::Value::Integer(i) => i.to_string(),
        toml::Value::Float(f) => f.to_string(),
        other => return Err(expected("a string or a number (e.g. \"1s\")", &other)),
    }))
}

fn de_list<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    let v = toml::Value::deserialize(d)?;
    let what = "a path as a string, or an array of them (e.g. [\"/dev/sdb\", \"/dev/sdc\"])";
    match v {
        toml::Value::String(s) => Ok(vec![s]),
        toml::Value::Array(items) => items
            .into_iter()
            .map(|i| match i {
                toml::Value::String(s) => Ok(s),
                other => Err(expected(what, &other)),
            })
            .collect(),
        other => Err(expected(what, &other)),
    }
}

/// The value of a parameter that may take a list (a sweep): one or more
/// values as text, parsed when the workload is resolved. On the command
/// line and in a job-file string, commas separate values (`16k,32k`); a
/// block-size mix (`4k:60,8k:40`) is one value. In a job file an array is
/// a list too (`qd = [1, 2, 4]`, `bs = ["4k:60,8k:40", "8k"]`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Values(pub Vec<String>);

impl Values {
    /// Split a command-line or job-file string into values.
    pub fn parse_text(s: &str) -> Values {
        let s = s.trim();
        if is_bs_mix(s) {
            return Values(vec![s.to_string()]);
        }
        Values(s.split(',').map(|v| v.trim().to_string()).collect())
    }

    /// clap's value parser: an empty value in the list is an error.
    pub fn parse_arg(s: &str) -> Result<Values, String> {
        let v = Values::parse_text(s);
        if v.0.iter().any(|x| x.is_empty()) {
            return Err(format!(
                "'{s}' has an empty value; separate the values of a list with commas, e.g. 16k,32k"
            ));
        }
        Ok(v)
    }

    /// The value of a single-valued parameter (after expansion).
    pub fn one(&self) -> &str {
        self.0.first().map(String::as_str).unwrap_or("")
    }

    pub fn is_list(&self) -> bool {
        self.0.len() > 1
    }
}

/// `4k:60,8k:40`: comma-separated sizes of which at least one carries a
/// whole `:WEIGHT`. Only block-size mixes have that form. A mix that
/// forgets a weight (`4k:60,8k`) is still one value, so that `--bs`
/// refuses it with a hint instead of sweeping `4k:60` and `8k`.
fn is_bs_mix(s: &str) -> bool {
    let weighted = |item: &str| match item.trim().split_once(':') {
        Some((size, w)) => {
            !size.is_empty()
                && size.starts_with(|c: char| c.is_ascii_digit())
                && !w.is_empty()
                && w.trim().chars().all(|c| c.is_ascii_digit())
        }
        None => false,
    };
    s.split(',').any(weighted)
        && s.split(',')
            .all(|item| item.trim().starts_with(|c: char| c.is_ascii_digit()))
}

impl From<&str> for Values {
    fn from(s: &str) -> Values {
        Values::parse_text(s)
    }
}

impl From<String> for Values {
    fn from(s: String) -> Values {
        Values::parse_text(&s)
    }
}

macro_rules! values_from_display {
    ($($t:ty),*) => {$(
        impl From<$t> for Values {
            fn from(v: $t) -> Values {
                Values(vec![v.to_string()])
            }
        }
    )*};
}
values_from_display!(u32, u64, f64, bool);

fn de_values<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Values>, D::Error> {
    let what = "a string, a number or true/false, or an array of them (a sweep)";
    let one = |v: toml::Value| -> Result<String, D::Error> {
        match v {
            toml::Value::String(s) => Ok(s),
            toml::Value::Integer(i) => Ok(i.to_string()),
            toml::Value::Float(f) => Ok(f.to_string()),
            toml::Value::Boolean(b) => Ok(b.to_string()),
            other => Err(expected(what, &other)),
        }
    };
    let v = match toml::Value::deserialize(d)? {
        toml::Value::String(s) => Values::parse_text(&s),
        toml::Value::Array(items) => {
            Values(items.into_iter().map(one).collect::<Result<Vec<_>, _>>()?)
        }
        other => Values(vec![one(other)?]),
    };
    if v.0.is_empty() || v.0.iter().any(|x| x.trim().is_empty()) {
        return Err(serde::de::Error::custom(
            "a list needs at least one value and no empty ones",
        ));
    }
    Ok(Some(v))
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
    #[arg(long, value_parser = Values::parse_arg, value_name = "SIZE", help_heading = "Targets")]
    #[serde(default, deserialize_with = "de_values")]
    pub size: Option<Values>,

    /// Start of the region I/O goes to, in bytes from the target's start
    #[arg(long, value_parser = Values::parse_arg, value_name = "SIZE", help_heading = "Targets")]
    #[serde(default, deserialize_with = "de_values")]
    pub offset: Option<Values>,

    /// Length of the region
    #[arg(long, value_parser = Values::parse_arg, value_name = "SIZE", help_heading = "Targets")]
    #[serde(default, deserialize_with = "de_values")]
    pub range: Option<Values>,

    /// Leading part of the region that "cached" I/O goes to (vdbench hitarea)
    #[arg(long, value_parser = Values::parse_arg, value_name = "SIZE", help_heading = "Targets")]
    #[serde(default, deserialize_with = "de_values")]
    pub hit_area: Option<Values>,

    /// Share of reads sent to the hit area, 0-100 (vdbench rhpct)
    #[arg(long, value_parser = Values::parse_arg, alias = "rhpct", value_name = "PCT", help_heading = "Targets")]
    #[serde(default, deserialize_with = "de_values", alias = "rhpct")]
    pub read_hit_pct: Option<Values>,

    /// Share of writes sent to the hit area, 0-100 (vdbench whpct)
    #[arg(long, value_parser = Values::parse_arg, alias = "whpct", value_name = "PCT", help_heading = "Targets")]
    #[serde(default, deserialize_with = "de_values", alias = "whpct")]
    pub write_hit_pct: Option<Values>,

    /// Writing a target iolab did not create (or a device carrying data) destroys its data: name it here to allow that
    #[arg(long, value_name = "PATH", help_heading = "Targets")]
    #[serde(default, deserialize_with = "de_list")]
    pub destroy_data_on: Vec<String>,

    /// Also write a --destroy-data-on device while it is mounted, held or active swap (fio allow_mounted_write); this corrupts whatever uses it
    #[arg(long, help_heading = "Targets", num_args = 0..=1, require_equals = true, default_missing_value = "true", value_name = "BOOL")]
    #[serde(default)]
    pub allow_mounted_write: Option<bool>,

    /// Write every target end to end first, block devices too (default: only files iolab created)
    #[arg(long, help_heading = "Targets", num_args = 0..=1, require_equals = true, default_missing_value = "true", value_name = "BOOL")]
    #[serde(default)]
    pub prefill: Option<bool>,

    /// Do not write files end to end before the workload
    #[arg(long, help_heading = "Targets")]
    #[serde(skip)]
    pub no_prefill: bool,

    /// read, write, randread, randwrite, rw, randrw
    #[arg(long, value_parser = Values::parse_arg, value_name = "MODE", help_heading = "Access pattern")]
    #[serde(default, deserialize_with = "de_values")]
    pub rw: Option<Values>,

    /// Share of I/Os that are reads, 0-100 (overrides the mix of --rw)
    #[arg(
        long,
        value_parser = Values::parse_arg,
        alias = "rdpct",
        value_name = "PCT",
        help_heading = "Access pattern"
    )]
    #[serde(default, deserialize_with = "de_values", alias = "rdpct")]
    pub read_pct: Option<Values>,

    /// Chance, 0-100, that an I/O jumps to a random offset (vdbench seekpct)
    #[arg(
        long,
        value_parser = Values::parse_arg,
        alias = "seekpct",
        value_name = "PCT",
        help_heading = "Access pattern"
    )]
    #[serde(default, deserialize_with = "de_values", alias = "seekpct")]
    pub random_pct: Option<Values>,

    /// Block size, or a weighted mix such as 4k:60,8k:30,64k:10
    #[arg(long, value_parser = Values::parse_arg, value_name = "SIZE", help_heading = "Access pattern")]
    #[serde(default, deserialize_with = "de_values")]
    pub bs: Option<Values>,

    /// Offset alignment
    #[arg(long, value_parser = Values::parse_arg, value_name = "SIZE", help_heading = "Access pattern")]
    #[serde(default, deserialize_with = "de_values")]
    pub align: Option<Values>,

    /// Random offsets: uniform, zipf:THETA or hotspot:PCT_IO/PCT_SPACE
    #[arg(long, value_parser = Values::parse_arg, value_name = "DIST", help_heading = "Access pattern")]
    #[serde(default, deserialize_with = "de_values")]
    pub distribution: Option<Values>,

    /// Seed for every random choice (runs with the same seed repeat exactly)
    #[arg(long, value_name = "N", help_heading = "Access pattern")]
    #[serde(default)]
    pub seed: Option<u64>,

    /// Worker threads
    #[arg(
        long,
        value_parser = Values::parse_arg,
        alias = "numjobs",
        value_name = "N",
        help_heading = "Concurrency"
    )]
    #[serde(default, deserialize_with = "de_values", alias = "numjobs")]
    pub jobs: Option<Values>,

    /// Outstanding I/Os per worker
    #[arg(
        long,
        value_parser = Values::parse_arg,
        alias = "iodepth",
        value_name = "N",
        help_heading = "Concurrency"
    )]
    #[serde(default, deserialize_with = "de_values", alias = "iodepth")]
    pub qd: Option<Values>,

    /// Wait until N of a worker's I/Os have completed (or all in flight, if fewer) before issuing more (fio iodepth_batch_complete_min)
    #[arg(
        long,
        value_parser = Values::parse_arg,
        alias = "iodepth-batch-complete-min",
        value_name = "N",
        help_heading = "Concurrency"
    )]
    #[serde(
        default,
        deserialize_with = "de_values",
        alias = "iodepth_batch_complete_min"
    )]
    pub batch_complete: Option<Values>,

    /// io_uring, psync or null
    #[arg(
        long,
        value_parser = Values::parse_arg,
        alias = "ioengine",
        value_name = "ENGINE",
        help_heading = "Concurrency"
    )]
    #[serde(default, deserialize_with = "de_values", alias = "ioengine")]
    pub engine: Option<Values>,

    /// Pin workers to these CPUs, e.g. 2 or 0-3,8: worker i runs on the i-th CPU of the list, round robin (fio cpus_allowed with cpus_allowed_policy=split)
    #[arg(
        long,
        alias = "cpus-allowed",
        value_name = "LIST",
        help_heading = "Concurrency"
    )]
    #[serde(default, deserialize_with = "de_str", alias = "cpus_allowed")]
    pub cpus: Option<String>,

    /// Clock for every timestamp: auto (the CPU's TSC where the kernel's own clocksource is tsc, else clock_gettime), tsc (fio clocksource=cpu) or clock_gettime
    #[arg(
        long,
        alias = "clocksource",
        value_name = "CLOCK",
        help_heading = "Concurrency"
    )]
    #[serde(default, alias = "clocksource")]
    pub clock: Option<String>,

    /// Total I/O rate in IOPS on a fixed schedule
    #[arg(
        long,
        value_parser = Values::parse_arg,
        alias = "iorate",
        value_name = "IOPS",
        help_heading = "Concurrency"
    )]
    #[serde(default, deserialize_with = "de_values", alias = "iorate")]
    pub rate: Option<Values>,

    /// Measured run time after warm-up, e.g. 30s
    #[arg(long, value_parser = Values::parse_arg, value_name = "TIME", help_heading = "Duration")]
    #[serde(default, deserialize_with = "de_values")]
    pub duration: Option<Values>,

    /// End after this many bytes (all workers together)
    #[arg(long, value_parser = Values::parse_arg, value_name = "SIZE", help_heading = "Duration")]
    #[serde(default, deserialize_with = "de_values")]
    pub io_size: Option<Values>,

    /// End after this many I/Os (all workers together)
    #[arg(long, value_parser = Values::parse_arg, value_name = "N", help_heading = "Duration")]
    #[serde(default, deserialize_with = "de_values")]
    pub ops: Option<Values>,

    /// Run this long before measuring; excluded from every figure
    #[arg(long, value_parser = Values::parse_arg, value_name = "TIME", help_heading = "Duration")]
    #[serde(default, deserialize_with = "de_values")]
    pub warmup: Option<Values>,

    /// Length of each interval of the time series
    #[arg(long, value_name = "TIME", help_heading = "Duration")]
    #[serde(default, deserialize_with = "de_str")]
    pub interval: Option<String>,

    /// A gap with no completion this long is reported as a stall
    #[arg(long, value_name = "TIME", help_heading = "Duration")]
    #[serde(default, deserialize_with = "de_str")]
    pub stall_threshold: Option<String>,

    /// O_DIRECT
    #[arg(long, value_parser = Values::parse_arg, help_heading = "Caching and durability", num_args = 0..=1, require_equals = true, default_missing_value = "true", value_name = "BOOL")]
    #[serde(default, deserialize_with = "de_values")]
    pub direct: Option<Values>,

    /// Buffered I/O through the page cache (--direct=false)
    #[arg(long, help_heading = "Caching and durability")]
    #[serde(skip)]
    pub buffered: bool,

    /// none or dsync (O_DSYNC: every write durable on completion)
    #[arg(long, value_parser = Values::parse_arg, value_name = "MODE", help_heading = "Caching and durability")]
    #[serde(default, deserialize_with = "de_values")]
    pub sync: Option<Values>,

    /// fsync after every N writes per worker
    #[arg(long, value_parser = Values::parse_arg, value_name = "N", help_heading = "Caching and durability")]
    #[serde(default, deserialize_with = "de_values")]
    pub fsync_every: Option<Values>,

    /// random, zero or compress:RATIO
    #[arg(long, value_parser = Values::parse_arg, value_name = "PATTERN", help_heading = "Data")]
    #[serde(default, deserialize_with = "de_values")]
    pub data: Option<Values>,

    /// Share of written blocks, 0-100, that repeat earlier content
    #[arg(long, value_parser = Values::parse_arg, value_name = "PCT", help_heading = "Data")]
    #[serde(default, deserialize_with = "de_values")]
    pub dedupe: Option<Values>,

    /// stop or continue after an I/O error
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

    /// Stop the run after N data validation findings
    #[arg(long, value_name = "N", help_heading = "Data validation")]
    #[serde(default)]
    pub max_errors: Option<u64>,
}

/// The parameters that may take a list, in the order their lists expand:
/// the first is outermost, the last varies fastest (docs/jobfile.md).
macro_rules! sweepable {
    ($m:ident) => {
        $m!(
            rw,
            read_pct,
            random_pct,
            bs,
            align,
            distribution,
            engine,
            jobs,
            qd,
            batch_complete,
            rate,
            direct,
            sync,
            fsync_every,
            data,
            dedupe,
            size,
            offset,
            range,
            hit_area,
            read_hit_pct,
            write_hit_pct,
            duration,
            io_size,
            ops,
            warmup
        )
    };
}

/// One combination of swept values: the options with one value each, and
/// the swept parameters' names and values.
pub type Expansion = (WorkloadOptions, Vec<(String, String)>);

impl WorkloadOptions {
    /// The swept parameters (those given more than one value), in
    /// expansion order, with their values.
    pub fn axes(&self) -> Vec<(String, Vec<String>)> {
        let mut axes = Vec::new();
        macro_rules! collect {
            ($($f:ident),*) => {$(
                if let Some(v) = &self.$f {
                    if v.is_list() {
                        axes.push((stringify!($f).replace('_', "-"), v.0.clone()));
                    }
                }
            )*};
        }
        sweepable!(collect);
        axes
    }

    /// The cartesian product of every list, in expansion order (the last
    /// swept parameter varies fastest). Without lists, the options alone.
    pub fn expand(&self) -> Vec<Expansion> {
        let mut out: Vec<Expansion> = vec![(self.clone(), Vec::new())];
        macro_rules! product {
            ($($f:ident),*) => {$(
                if let Some(v) = self.$f.as_ref().filter(|v| v.is_list()) {
                    let name = stringify!($f).replace('_', "-");
                    out = out
                        .into_iter()
                        .flat_map(|(o, params)| {
                            let name = name.clone();
                            v.0.iter().map(move |x| {
                                let mut o = o.clone();
                                o.$f = Some(Values(vec![x.clone()]));
                                let mut p = params.clone();
                                p.push((name.clone(), x.clone()));
                                (o, p)
                            }).collect::<Vec<_>>()
                        })
                        .collect();
                }
            )*};
        }
        sweepable!(product);
        out
    }

    /// How many runs `expand` gives, without building them; `u128::MAX`
    /// when that does not fit (26 lists of 40 values do not).
    pub fn expansion_count(&self) -> u128 {
        self.axes()
            .iter()
            .fold(1u128, |n, (_, v)| n.saturating_mul(v.len() as u128))
    }
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
            o.direct = Some(false.into());
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
                batch_complete,
                engine,
                cpus,
                clock,
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
                max_errors,
                allow_mounted_write
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Found by the fuzz pass: every sweepable key of a job file with a
    /// list of 40 values made counting the runs overflow a u128 (a panic
    /// in debug builds, a wrong count in release) before the plan could
    /// refuse it as too big.
    #[test]
    fn a_sweep_of_more_runs_than_a_u128_counts_saturates() {
        let mut o = WorkloadOptions::default();
        let forty = || Some(Values((0..40).map(|i| i.to_string()).collect()));
        macro_rules! set {
            ($($f:ident),*) => {$( o.$f = forty(); )*};
        }
        sweepable!(set);
        assert_eq!(o.axes().len(), 26);
        assert_eq!(o.expansion_count(), u128::MAX);
    }
}
