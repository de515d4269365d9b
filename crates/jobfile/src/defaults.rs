//! The defaults of the workload parameters as `iolab run --help` shows
//! them: one table, [`SHOWN`], that the binary appends to each flag's help
//! as `[default: X]`. The flags stay `Option`s (an absent flag must not
//! override a job file), so clap's own `default_value` cannot be used;
//! [`resolve`](crate::resolve) applies the defaults, and the test below
//! resolves every value of this table given explicitly against nothing
//! given at all, so the text and the behaviour cannot drift apart.

use crate::resolve::DEFAULT_SEED;

/// One shown default: the flag's clap id (its field name), the value as a
/// user would type it, and an optional note on when it applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shown {
    pub id: &'static str,
    pub value: &'static str,
    pub note: &'static str,
}

const fn d(id: &'static str, value: &'static str, note: &'static str) -> Shown {
    Shown { id, value, note }
}

/// Every workload flag with a fixed default. Flags whose default depends on
/// the target or on other flags are in [`DESCRIBED`]; `--prefill` says its
/// default in its own help.
pub const SHOWN: &[Shown] = &[
    d("offset", "0", ""),
    d("hit_area", "0", "no hit area"),
    d("read_hit_pct", "0", ""),
    d("write_hit_pct", "0", ""),
    d("rw", "read", ""),
    d("bs", "4k", ""),
    d("distribution", "uniform", ""),
    d("jobs", "1", ""),
    d("qd", "1", ""),
    d("batch_complete", "1", "refill after every completion"),
    d("engine", "io_uring", ""),
    d("clock", "auto", ""),
    d(
        "duration",
        "10s",
        "when neither --io-size nor --ops is given",
    ),
    d("warmup", "0s", ""),
    d("interval", "1s", ""),
    d("stall_threshold", "1s", ""),
    d("sync", "none", ""),
    d("fsync_every", "0", "never"),
    d("data", "random", ""),
    d("dedupe", "0", ""),
    d("on_error", "stop", ""),
    d("max_errors", "50", "0: never stop"),
];

/// Flags whose default is not one value a user could type: (clap id,
/// what an absent flag does).
pub const DESCRIBED: &[(&str, &str)] = &[
    ("name", "the mode and the workload's number, e.g. read-1"),
    ("range", "to the end of the target"),
    ("read_pct", "the mix of --rw"),
    ("random_pct", "the mix of --rw"),
    ("align", "the smallest block size"),
    ("cpus", "not pinned"),
    ("rate", "unlimited"),
    ("direct", "true for block devices, false for files"),
    ("verify", "false"),
    ("verify_after", "false"),
];

/// The seed's default, shown as a number: [`DEFAULT_SEED`] plus the run's
/// index in its plan.
pub fn seed_text() -> String {
    format!("{DEFAULT_SEED}, plus the run's index in its plan")
}

/// `[default: 4k]` or `[default: 10s, when neither --io-size nor --ops is
/// given]` for the flag with clap id `id`, if it has one.
pub fn help_suffix(id: &str) -> Option<String> {
    if id == "seed" {
        return Some(format!("[default: {}]", seed_text()));
    }
    if let Some((_, what)) = DESCRIBED.iter().find(|(i, _)| *i == id) {
        return Some(format!("[default: {what}]"));
    }
    let s = SHOWN.iter().find(|s| s.id == id)?;
    Some(if s.note.is_empty() {
        format!("[default: {}]", s.value)
    } else {
        format!("[default: {}, {}]", s.value, s.note)
    })
}

/// The clap ids of every flag with a shown default.
pub fn ids() -> impl Iterator<Item = &'static str> {
    SHOWN
        .iter()
        .map(|s| s.id)
        .chain(DESCRIBED.iter().map(|d| d.0))
        .chain(["seed"])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{resolve, WorkloadOptions};
    use clap::Parser;

    #[derive(Parser)]
    struct Flags {
        #[command(flatten)]
        o: WorkloadOptions,
    }

    fn spec(args: &[String]) -> iolab_spec::WorkloadSpec {
        let mut argv = vec!["t".to_string(), "--target".into(), "/tmp/x".into()];
        argv.extend(args.iter().cloned());
        let f = Flags::try_parse_from(&argv).unwrap_or_else(|e| panic!("{argv:?}: {e}"));
        resolve(&f.o, 0).unwrap_or_else(|e| panic!("{argv:?}: {}", e.0))
    }

    #[test]
    fn the_shown_defaults_are_what_an_absent_flag_does() {
        let implicit = spec(&[]);
        let mut all = Vec::new();
        for s in SHOWN {
            let one = vec![format!("--{}", s.id.replace('_', "-")), s.value.to_string()];
            assert_eq!(spec(&one), implicit, "--{} {}", s.id, s.value);
            all.extend(one);
        }
        all.extend(["--seed".to_string(), DEFAULT_SEED.to_string()]);
        assert_eq!(spec(&all), implicit);
        // And a value that is not the default changes something, so the
        // comparison above can fail.
        assert_ne!(spec(&["--qd".into(), "2".into()]), implicit);
    }
}
