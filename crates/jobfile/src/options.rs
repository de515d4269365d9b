//! The options of a workload as given in a job file or on the command
//! line: [`WorkloadOptions`], one field per parameter of
//! `iolab_spec::params` (built from its entries, with their job-file keys
//! and aliases), merging, and the expansion of lists into runs.

use iolab_spec::params;
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
    let what = "a path as a string, an array of them (e.g. [\"/dev/sdb\", \"/dev/sdc\"]) or a table of them by host (e.g. { h1 = \"/dev/sdb\", h2 = \"/dev/sdc\" })";
    match v {
        toml::Value::String(s) => Ok(vec![s]),
        toml::Value::Array(items) => items
            .into_iter()
            .map(|i| match i {
                toml::Value::String(s) => Ok(s),
                other => Err(expected(what, &other)),
            })
            .collect(),
        toml::Value::Table(t) => host_map(t).map_err(serde::de::Error::custom),
        other => Err(expected(what, &other)),
    }
}

/// A per-host map, `{ h1 = "/dev/sdb", h2 = ["/dev/sdc", "/dev/sdd"] }`:
/// each path as `HOST:PATH` (docs/jobfile.md "Several hosts"), hosts in
/// name order. Keys are host names as `--hosts` gives them.
fn host_map(t: toml::Table) -> Result<Vec<String>, String> {
    if t.is_empty() {
        return Err(
            "a table of paths by host names at least one host (e.g. { h1 = \"/dev/sdb\" })".into(),
        );
    }
    let mut out = Vec::new();
    for (host, v) in t {
        let named = iolab_spec::hosts::parse_host(&host)
            .ok()
            .filter(|h| h.name == host && h.user.is_none() && h.port.is_none());
        if named.is_none() {
            return Err(format!(
                "'{host}' is not a host's name; the keys of a table of paths are host names as --hosts gives them (h1, db-2.example.com), without user or port"
            ));
        }
        let paths = match v {
            toml::Value::String(p) => vec![p],
            toml::Value::Array(items) => items
                .into_iter()
                .map(|i| match i {
                    toml::Value::String(p) => Ok(p),
                    other => Err(format!(
                        "host {host}: expected a path as a string, found {}",
                        found(&other)
                    )),
                })
                .collect::<Result<Vec<_>, _>>()?,
            other => {
                return Err(format!(
                    "host {host}: expected a path as a string or an array of them, found {}",
                    found(&other)
                ))
            }
        };
        if paths.is_empty() || paths.iter().any(|p| p.trim().is_empty()) {
            return Err(format!(
                "host {host}: give at least one path and no empty one"
            ));
        }
        out.extend(paths.into_iter().map(|p| format!("{host}:{p}")));
    }
    Ok(out)
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

impl Values {
    /// Split the text of a parameter whose values hold commas (`--mix`,
    /// `--flow`): values are separated by `;`.
    pub fn parse_text_semi(s: &str) -> Values {
        Values(s.split(';').map(|v| v.trim().to_string()).collect())
    }

    /// clap's value parser of such a parameter.
    pub fn parse_arg_semi(s: &str) -> Result<Values, String> {
        let v = Values::parse_text_semi(s);
        if v.0.iter().any(|x| x.is_empty()) {
            return Err(format!(
                "'{s}' has an empty value; separate the values of a list with ';', e.g. read:60,write:40;read:100"
            ));
        }
        Ok(v)
    }
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

/// [`de_values`] for values that hold commas: a string is split at `;`.
fn de_values_semi<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Values>, D::Error> {
    let v = match toml::Value::deserialize(d)? {
        toml::Value::String(s) => toml::Value::Array(
            Values::parse_text_semi(&s)
                .0
                .into_iter()
                .map(toml::Value::String)
                .collect(),
        ),
        other => other,
    };
    de_values(v).map_err(serde::de::Error::custom)
}

/// Builds the [`WorkloadOptions`] struct from the entries of
/// [`iolab_spec::workload_params!`]: one field per parameter, its type and
/// serde attributes (key, aliases, how the TOML value is read) chosen by
/// its kind. A tt-muncher, because a struct's fields cannot come from a
/// macro one by one.
macro_rules! options_struct {
    (@fields [$($done:tt)*]) => {
        /// Workload parameters as given: every field is a job-file key and a
        /// flag, defined in `iolab_spec::params` (one entry per parameter).
        /// Unset fields take the defaults documented there and in
        /// docs/jobfile.md.
        #[derive(Debug, Clone, Default, Deserialize)]
        #[serde(deny_unknown_fields)]
        pub struct WorkloadOptions {
            $($done)*
        }
    };
    (@fields [$($done:tt)*] $name:ident : $kind:ident {
        flag: $flag:literal, aliases: [$($alias:literal),*], short: $short:expr,
        value_name: $vn:literal, heading: $heading:literal, help: $help:literal,
        $($entry:tt)*
    } $(, $($more:tt)*)?) => {
        options_struct!(@field [$($done)* #[doc = $help]] $kind $name [$($alias),*] [$($($more)*)?]);
    };
    (@field [$($done:tt)*] Values $name:ident [$($alias:literal),*] [$($more:tt)*]) => {
        options_struct!(@fields [$($done)*
            #[serde(default, deserialize_with = "de_values" $(, alias = $alias)*)]
            pub $name: Option<Values>,
        ] $($more)*);
    };
    (@field [$($done:tt)*] ValuesEq $name:ident [$($alias:literal),*] [$($more:tt)*]) => {
        options_struct!(@field [$($done)*] Values $name [$($alias),*] [$($more)*]);
    };
    (@field [$($done:tt)*] ValuesSemi $name:ident [$($alias:literal),*] [$($more:tt)*]) => {
        options_struct!(@fields [$($done)*
            #[serde(default, deserialize_with = "de_values_semi" $(, alias = $alias)*)]
            pub $name: Option<Values>,
        ] $($more)*);
    };
    (@field [$($done:tt)*] Text $name:ident [$($alias:literal),*] [$($more:tt)*]) => {
        options_struct!(@fields [$($done)*
            #[serde(default $(, alias = $alias)*)]
            pub $name: Option<String>,
        ] $($more)*);
    };
    (@field [$($done:tt)*] TextOrNumber $name:ident [$($alias:literal),*] [$($more:tt)*]) => {
        options_struct!(@fields [$($done)*
            #[serde(default, deserialize_with = "de_str" $(, alias = $alias)*)]
            pub $name: Option<String>,
        ] $($more)*);
    };
    (@field [$($done:tt)*] Bool $name:ident [$($alias:literal),*] [$($more:tt)*]) => {
        options_struct!(@fields [$($done)*
            #[serde(default $(, alias = $alias)*)]
            pub $name: Option<bool>,
        ] $($more)*);
    };
    (@field [$($done:tt)*] Uint $name:ident [$($alias:literal),*] [$($more:tt)*]) => {
        options_struct!(@fields [$($done)*
            #[serde(default $(, alias = $alias)*)]
            pub $name: Option<u64>,
        ] $($more)*);
    };
    (@field [$($done:tt)*] Paths $name:ident [$($alias:literal),*] [$($more:tt)*]) => {
        options_struct!(@fields [$($done)*
            #[serde(default, deserialize_with = "de_list" $(, alias = $alias)*)]
            pub $name: Vec<String>,
        ] $($more)*);
    };
    (@field [$($done:tt)*] Switch $name:ident [] [$($more:tt)*]) => {
        options_struct!(@fields [$($done)*
            #[serde(skip)]
            pub $name: bool,
        ] $($more)*);
    };
    ($($entries:tt)*) => {
        options_struct!(@fields [] $($entries)*);
    };
}

iolab_spec::workload_params!(options_struct);

/// One statement per parameter, by kind, for the generated methods below.
macro_rules! per_kind {
    // `over`'s value where set, `base`'s elsewhere.
    (overlay Paths $out:ident $base:ident $over:ident $f:ident) => {
        $out.$f = if $over.$f.is_empty() { $base.$f.clone() } else { $over.$f.clone() };
    };
    (overlay Switch $out:ident $base:ident $over:ident $f:ident) => {
        $out.$f = $over.$f || $base.$f;
    };
    (overlay $kind:ident $out:ident $base:ident $over:ident $f:ident) => {
        $out.$f = $over.$f.clone().or_else(|| $base.$f.clone());
    };
    // The field of a parameter given as text that may be a list.
    (values Values $self:ident $name:ident $f:ident) => {
        if $name == stringify!($f) {
            return Some(&$self.$f);
        }
    };
    (values ValuesEq $self:ident $name:ident $f:ident) => {
        per_kind!(values Values $self $name $f);
    };
    (values ValuesSemi $self:ident $name:ident $f:ident) => {
        per_kind!(values Values $self $name $f);
    };
    (values $kind:ident $self:ident $name:ident $f:ident) => {};
    (values_mut Values $self:ident $name:ident $f:ident) => {
        if $name == stringify!($f) {
            return Some(&mut $self.$f);
        }
    };
    (values_mut ValuesEq $self:ident $name:ident $f:ident) => {
        per_kind!(values_mut Values $self $name $f);
    };
    (values_mut ValuesSemi $self:ident $name:ident $f:ident) => {
        per_kind!(values_mut Values $self $name $f);
    };
    (values_mut $kind:ident $self:ident $name:ident $f:ident) => {};
    // From parsed flags (`crate::flags` defines each flag's value type).
    (matches Values $self:ident $m:ident $f:ident) => {
        if let Some(v) = $m.get_one::<Values>(stringify!($f)) {
            $self.$f = Some(v.clone());
        }
    };
    (matches ValuesEq $self:ident $m:ident $f:ident) => {
        per_kind!(matches Values $self $m $f);
    };
    (matches ValuesSemi $self:ident $m:ident $f:ident) => {
        per_kind!(matches Values $self $m $f);
    };
    (matches Text $self:ident $m:ident $f:ident) => {
        if let Some(v) = $m.get_one::<String>(stringify!($f)) {
            $self.$f = Some(v.clone());
        }
    };
    (matches TextOrNumber $self:ident $m:ident $f:ident) => {
        per_kind!(matches Text $self $m $f);
    };
    (matches Bool $self:ident $m:ident $f:ident) => {
        if let Some(v) = $m.get_one::<bool>(stringify!($f)) {
            $self.$f = Some(*v);
        }
    };
    (matches Uint $self:ident $m:ident $f:ident) => {
        if let Some(v) = $m.get_one::<u64>(stringify!($f)) {
            $self.$f = Some(*v);
        }
    };
    (matches Paths $self:ident $m:ident $f:ident) => {
        if let Some(v) = $m.get_many::<String>(stringify!($f)) {
            $self.$f = v.cloned().collect();
        }
    };
    (matches Switch $self:ident $m:ident $f:ident) => {
        if $m.get_flag(stringify!($f)) {
            $self.$f = true;
        }
    };
}

/// The methods that go over every field, from the same entries.
macro_rules! options_impls {
    ($($name:ident : $kind:ident { $($entry:tt)* }),* $(,)?) => {
        impl WorkloadOptions {
            /// The options with every value of `over` that is set, `self`'s
            /// elsewhere (switches: either).
            fn overlay_fields(&self, over: &WorkloadOptions) -> WorkloadOptions {
                let mut out = WorkloadOptions::default();
                $(per_kind!(overlay $kind out self over $name);)*
                out
            }

            /// The field of the parameter `name` if it is given as text
            /// that may be a list ([`Kind::Values`](iolab_spec::params::Kind)).
            pub fn values(&self, name: &str) -> Option<&Option<Values>> {
                $(per_kind!(values $kind self name $name);)*
                None
            }

            /// [`values`](Self::values), to change.
            pub fn values_mut(&mut self, name: &str) -> Option<&mut Option<Values>> {
                $(per_kind!(values_mut $kind self name $name);)*
                None
            }

            /// Take every flag given in `m` (built by `crate::flags`).
            pub(crate) fn update_from_matches(&mut self, m: &clap::ArgMatches) {
                $(per_kind!(matches $kind self m $name);)*
            }
        }
    };
}

iolab_spec::workload_params!(options_impls);

/// One combination of swept values: the options with one value each, and
/// the swept parameters' names and values.
pub type Expansion = (WorkloadOptions, Vec<(String, String)>);

impl WorkloadOptions {
    /// The values of the parameter `name` when it is given a list.
    fn list(&self, name: &str) -> Option<&Values> {
        self.values(name)?.as_ref().filter(|v| v.is_list())
    }

    /// The swept parameters (those given more than one value), in
    /// expansion order, with their values.
    pub fn axes(&self) -> Vec<(String, Vec<String>)> {
        params::swept()
            .into_iter()
            .filter_map(|p| Some((p.flag.to_string(), self.list(p.name)?.0.clone())))
            .collect()
    }

    /// The cartesian product of every list, in expansion order (the last
    /// swept parameter varies fastest). Without lists, the options alone.
    pub fn expand(&self) -> Vec<Expansion> {
        let mut out: Vec<Expansion> = vec![(self.clone(), Vec::new())];
        for p in params::swept() {
            let Some(v) = self.list(p.name) else {
                continue;
            };
            out = out
                .into_iter()
                .flat_map(|(o, params)| {
                    v.0.iter().map(move |x| {
                        let mut o = o.clone();
                        if let Some(slot) = o.values_mut(p.name) {
                            *slot = Some(Values(vec![x.clone()]));
                        }
                        let mut params = params.clone();
                        params.push((p.flag.to_string(), x.clone()));
                        (o, params)
                    })
                })
                .collect();
        }
        out
    }

    /// How many runs `expand` gives, without building them; `u128::MAX`
    /// when that does not fit (26 lists of 40 values do not).
    pub fn expansion_count(&self) -> u128 {
        self.axes()
            .iter()
            .fold(1u128, |n, (_, v)| n.saturating_mul(v.len() as u128))
    }

    /// The first parameter that is given a list but does not sweep
    /// (`--skew 10,20`), with its flag.
    pub fn list_where_one_value_goes(&self) -> Option<&'static str> {
        params::PARAMS
            .iter()
            .filter(|p| p.sweep.is_none())
            .find(|p| self.list(p.name).is_some())
            .map(|p| p.flag)
    }

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
        self.overlay_fields(&o)
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
        for p in params::swept() {
            *o.values_mut(p.name).unwrap() = Some(Values((0..40).map(|i| i.to_string()).collect()));
        }
        assert_eq!(o.axes().len(), params::swept().len());
        assert!(o.axes().len() >= 26);
        assert_eq!(o.expansion_count(), u128::MAX);
    }

    #[test]
    fn every_swept_parameter_has_a_field_that_takes_a_list() {
        let o = WorkloadOptions::default();
        for p in params::swept() {
            assert!(o.values(p.name).is_some(), "{}", p.name);
        }
        assert!(o.values("seed").is_none());
    }

    #[test]
    fn lists_expand_in_the_defined_order_the_last_fastest() {
        let o = WorkloadOptions {
            rw: Some("read,write".into()),
            qd: Some("1,4".into()),
            start_delay: Some("0s,5s".into()),
            ..Default::default()
        };
        let names: Vec<String> = o
            .expand()
            .iter()
            .map(|(_, p)| {
                p.iter()
                    .map(|(k, v)| format!("{k}={v}"))
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect();
        assert_eq!(names[0], "rw=read qd=1 start-delay=0s");
        assert_eq!(names[1], "rw=read qd=1 start-delay=5s");
        assert_eq!(names[2], "rw=read qd=4 start-delay=0s");
        assert_eq!(names.len(), 8);
    }

    #[test]
    fn overlay_takes_every_field_set_over_the_base() {
        let base = WorkloadOptions {
            qd: Some(4u32.into()),
            target: vec!["/a".into()],
            seed: Some(1),
            skew: Some("10".into()),
            ..Default::default()
        };
        let over = WorkloadOptions {
            start_delay: Some("5s".into()),
            seed: Some(2),
            ..Default::default()
        };
        let m = base.overlay(&over);
        assert_eq!(m.qd, Some(4u32.into()));
        assert_eq!(m.target, vec!["/a".to_string()]);
        assert_eq!(m.seed, Some(2));
        assert_eq!(m.skew, Some("10".into()));
        assert_eq!(m.start_delay, Some("5s".into()));
    }
}
