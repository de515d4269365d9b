//! The defaults of the workload parameters as `iolab run --help` shows
//! them, read from their definitions (`iolab_spec::params`): each flag's
//! help ends with `[default: X]`. The flags stay `Option`s (an absent flag
//! must not override a job file), so clap's own `default_value` cannot be
//! used; [`resolve`](crate::resolve) applies the defaults, and the test
//! below resolves every value a definition shows given explicitly against
//! nothing given at all, so the text and the behaviour cannot drift apart.

use iolab_spec::params::{DefaultIs, PARAMS};

/// `[default: 4k]` or `[default: 10s, when neither --io-size nor --ops is
/// given]` for the flag with clap id `id` (the parameter's name), if it has
/// one.
pub fn help_suffix(id: &str) -> Option<String> {
    PARAMS.iter().find(|p| p.name == id)?.help_suffix()
}

/// The clap ids of every flag with a shown default.
pub fn ids() -> impl Iterator<Item = &'static str> {
    PARAMS
        .iter()
        .filter(|p| p.default != DefaultIs::Unset)
        .map(|p| p.name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resolve::DEFAULT_SEED;
    use crate::{resolve, WorkloadOptions};
    use clap::Parser;

    #[derive(Parser)]
    struct Flags {
        #[command(flatten)]
        o: WorkloadOptions,
    }

    /// The parameters of file-system workloads (resolved with `--dir`).
    const FS: &str = "File system";

    fn spec(args: &[String]) -> iolab_spec::WorkloadSpec {
        spec_on(&["--target", "/tmp/x"], args)
    }

    fn spec_on(base: &[&str], args: &[String]) -> iolab_spec::WorkloadSpec {
        let mut argv = vec!["t".to_string()];
        argv.extend(base.iter().map(|s| s.to_string()));
        argv.extend(args.iter().cloned());
        let f = Flags::try_parse_from(&argv).unwrap_or_else(|e| panic!("{argv:?}: {e}"));
        resolve(&f.o, 0).unwrap_or_else(|e| panic!("{argv:?}: {}", e.0))
    }

    #[test]
    fn the_shown_defaults_of_file_system_parameters_are_what_an_absent_flag_does() {
        let base = ["--dir", "/tmp/x", "--flow", "open,read,close"];
        let implicit = spec_on(&base, &[]);
        let mut all = Vec::new();
        // `think` is shown under Concurrency, for block and flow workloads.
        for p in PARAMS
            .iter()
            .filter(|p| p.heading == FS || p.name == "think")
        {
            let DefaultIs::Value(v, _) = p.default else {
                continue;
            };
            let one = if p.value_after_equals() {
                vec![format!("--{}={v}", p.flag)]
            } else {
                vec![format!("--{}", p.flag), v.to_string()]
            };
            assert_eq!(spec_on(&base, &one), implicit, "--{} {v}", p.flag);
            all.extend(one);
        }
        assert!(all.len() >= 7, "{all:?}");
        assert_eq!(spec_on(&base, &all), implicit);
        assert_ne!(spec_on(&base, &["--width".into(), "5".into()]), implicit);
    }

    #[test]
    fn the_shown_defaults_are_what_an_absent_flag_does() {
        let implicit = spec(&[]);
        let mut all = Vec::new();
        let mut checked = 0;
        for p in PARAMS.iter().filter(|p| p.heading != FS) {
            let DefaultIs::Value(v, _) = p.default else {
                continue;
            };
            let one = if p.value_after_equals() {
                vec![format!("--{}={v}", p.flag)]
            } else {
                vec![format!("--{}", p.flag), v.to_string()]
            };
            assert_eq!(spec(&one), implicit, "--{} {v}", p.flag);
            all.extend(one);
            checked += 1;
        }
        assert_eq!(spec(&all), implicit);
        assert!(checked >= 25, "{checked}");
        // And a value that is not the default changes something, so the
        // comparison above can fail.
        assert_ne!(spec(&["--qd".into(), "2".into()]), implicit);
        assert_ne!(spec(&["--start-delay".into(), "1s".into()]), implicit);
    }

    #[test]
    fn the_seed_shown_is_the_seed_used() {
        let seed = PARAMS.iter().find(|p| p.name == "seed").unwrap();
        assert!(matches!(seed.default, DefaultIs::Value(v, _) if v == DEFAULT_SEED.to_string()));
    }
}
