//! `[[run]]` tables: workloads that run together (issue 15).
//!
//! A `[[run]]` table holds the run's own keys (`name`, `duration`,
//! `warmup`, `interval`, `rate`, `curve`, `stop_curve`, `pause`), any
//! workload key as the default for its
//! workloads, and its `[[run.workload]]` tables. Precedence: `[global]` <
//! `[[run]]` < `[[run.workload]]` < command-line flags. The tables are
//! read straight from the TOML deserializer (not through a `toml::Value`),
//! so a bad value keeps its line number.
//!
//! [`RunOptions`] is what the planner (crates/plan) takes: the layers of
//! one run kept apart, so that a list is swept where it was written (a
//! list in the `[[run]]` is one axis of the run, not one per workload).

use crate::options::WorkloadOptions;
use crate::resolve::JobError;
use serde::de::{DeserializeSeed, Deserializer, IntoDeserializer, MapAccess, Visitor};
use serde::Deserialize;

/// Keys that are the run's own and mean nothing in a `[[run.workload]]`:
/// the run has one clock.
pub const RUN_ONLY_KEYS: &[&str] = &["warmup", "interval", "curve", "stop_curve"];

/// One `[[run]]` table as written.
#[derive(Debug, Clone, Default)]
pub struct RunTable {
    /// The run's keys and its workloads' defaults.
    pub opts: WorkloadOptions,
    /// Its `[[run.workload]]` tables: each workload's own keys.
    pub workload: Vec<WorkloadOptions>,
    /// Its `pause` key: the pause after the run (a time), as written.
    pub pause: Option<String>,
}

/// A `pause` as written: a time (`"10s"`) or a number of seconds.
#[derive(Deserialize)]
#[serde(untagged)]
enum PauseValue {
    Text(String),
    Secs(f64),
}

/// A map that hands `WorkloadOptions` every key of a `[[run]]` table but
/// `workload` (its `[[run.workload]]` tables), which it reads itself,
/// straight from the TOML deserializer.
struct Filter<'s, A> {
    inner: A,
    workloads: &'s mut Option<Vec<WorkloadOptions>>,
    pause: &'s mut Option<String>,
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for Filter<'_, A> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        let mut seed = Some(seed);
        loop {
            let key = KeySeed { seed: &mut seed };
            match self.inner.next_key_seed(key)? {
                None => return Ok(None),
                Some(Key::Forward(v)) => return Ok(Some(v)),
                Some(Key::Workloads) => *self.workloads = Some(self.inner.next_value()?),
                Some(Key::Pause) => {
                    *self.pause = Some(match self.inner.next_value()? {
                        PauseValue::Text(t) => t,
                        PauseValue::Secs(v) => v.to_string(),
                    })
                }
            }
        }
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, A::Error> {
        self.inner.next_value_seed(seed)
    }
}

enum Key<V> {
    Forward(V),
    Workloads,
    Pause,
}

/// Reads a key inside the TOML deserializer's own key step, so that an
/// unknown key's error carries the key's line: `workload` and `pause` are
/// the filter's, any other key is handed to `WorkloadOptions`' seed.
struct KeySeed<'a, K> {
    seed: &'a mut Option<K>,
}

impl<'de, K: DeserializeSeed<'de>> DeserializeSeed<'de> for KeySeed<'_, K> {
    type Value = Key<K::Value>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        let key = String::deserialize(d)?;
        if key == "workload" {
            return Ok(Key::Workloads);
        }
        if key == "pause" {
            return Ok(Key::Pause);
        }
        let Some(seed) = self.seed.take() else {
            return Err(serde::de::Error::custom("a key was read twice"));
        };
        seed.deserialize(IntoDeserializer::<D::Error>::into_deserializer(key))
            .map(Key::Forward)
    }
}

/// A `[[run]]` table: its keys for `WorkloadOptions`, its workloads.
struct TableVisitor;

impl<'de> Visitor<'de> for TableVisitor {
    type Value = RunTable;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a table of workload keys")
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        let (mut workloads, mut pause) = (None, None);
        let opts =
            WorkloadOptions::deserialize(serde::de::value::MapAccessDeserializer::new(Filter {
                inner: map,
                workloads: &mut workloads,
                pause: &mut pause,
            }))?;
        Ok(RunTable {
            opts,
            workload: workloads.unwrap_or_default(),
            pause,
        })
    }
}

impl<'de> Deserialize<'de> for RunTable {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_map(TableVisitor)
    }
}

/// One run to plan, its layers of options kept apart.
#[derive(Debug, Clone, Default)]
pub struct RunOptions {
    /// The run's position among the runs of its job file, from 0.
    pub index: usize,
    /// A plain `[[workload]]` (or a command line without `--workload`): a
    /// run of that one workload, whose clock is the workload's
    /// (`RunSpec::single`), planned exactly as before runs existed.
    pub single: bool,
    /// The run's keys and its workloads' defaults: `[global]` < `[[run]]`.
    pub run: WorkloadOptions,
    /// Each workload's own keys, in the file's order.
    pub workloads: Vec<WorkloadOptions>,
    /// Command-line flags given with a job file: they override every
    /// layer. For a run of several workloads, `--rate` is the run's rate.
    pub overrides: WorkloadOptions,
    /// Where each workload came from when the job file was not iolab's
    /// own (a fio section), by position; empty for iolab's job files.
    pub origins: Vec<Option<iolab_spec::JobOrigin>>,
    /// Pause after this run before the next one starts (vdbench's
    /// `pause=` on an `rd`); `None`: the plan's `--pause`.
    pub pause_s: Option<f64>,
    /// vdbench's `iorate=curve`: the planner expands this run into a run
    /// at the maximum rate and one per percentage of what it measured.
    pub curve: Option<iolab_spec::CurveSpec>,
}

impl RunOptions {
    /// A run of one workload (`w` merged with its defaults already).
    pub fn single(index: usize, w: WorkloadOptions) -> RunOptions {
        RunOptions {
            index,
            single: true,
            workloads: vec![w],
            ..Default::default()
        }
    }

    /// The origin of workload `j`, if it has one.
    pub fn origin(&self, j: usize) -> Option<iolab_spec::JobOrigin> {
        self.origins.get(j).cloned().flatten()
    }

    /// The run's name as given, or `run-N`.
    pub fn name(&self) -> String {
        let named = self
            .overrides
            .name
            .clone()
            .or_else(|| self.run.name.clone());
        named.unwrap_or_else(|| format!("run-{}", self.index + 1))
    }
}

/// The keys of a run of several workloads, resolved.
#[derive(Debug, Clone, PartialEq)]
pub struct RunKeys {
    /// The run's `duration`; `None`: it ends when its last workload does.
    pub duration_s: Option<f64>,
    pub warmup_s: f64,
    pub interval_s: f64,
    /// The run's `rate`, shared by its workloads (skew).
    pub rate_iops: Option<f64>,
}

/// Resolve the run's own keys from its options (lists expanded first).
pub fn resolve_run_keys(o: &WorkloadOptions) -> Result<RunKeys, JobError> {
    use crate::resolve::{num, secs, secs_v};
    Ok(RunKeys {
        duration_s: secs_v(&o.duration, "duration")?,
        warmup_s: secs_v(&o.warmup, "warmup")?.unwrap_or(0.0),
        interval_s: secs(&o.interval, "interval")?.unwrap_or(1.0),
        rate_iops: num(&o.rate, "rate", "a number of I/Os per second")?,
    })
}

/// The run's curve: its `curve` key (`default` or percentages) over the
/// curve a front end gave (`given`, vdbench's `iorate=curve`), with its
/// `stop_curve` key over the curve's own stop. `None`: no curve.
pub fn resolve_curve(
    o: &WorkloadOptions,
    given: Option<&iolab_spec::CurveSpec>,
) -> Result<Option<iolab_spec::CurveSpec>, JobError> {
    let mut curve = match &o.curve {
        Some(t) => Some(iolab_spec::CurveSpec {
            pcts: iolab_spec::parse_curve(t).map_err(|e| JobError(format!("--curve: {e}")))?,
            stop_ms: None,
        }),
        None => given.cloned(),
    };
    let Some(text) = crate::resolve::text(&o.stop_curve) else {
        return Ok(curve);
    };
    if text.trim().parse::<f64>().is_ok() {
        return Err(JobError(format!(
            "--stop-curve {text}: give a unit, e.g. {text}ms (vdbench's stopcurve= is in milliseconds, iolab's times in seconds)"
        )));
    }
    let s = crate::resolve::secs(&Some(text.to_string()), "stop-curve")?.unwrap_or(0.0);
    match curve.as_mut() {
        Some(c) if s > 0.0 => c.stop_ms = Some(s * 1e3),
        Some(_) => {
            return Err(JobError(
                "--stop-curve: give a response time above 0, e.g. 5ms".into(),
            ))
        }
        None => {
            return Err(JobError(
                "--stop-curve ends a curve; give the run a curve too, e.g. curve = \"default\""
                    .into(),
            ))
        }
    }
    Ok(curve)
}

/// Whether options give a workload an end of its own (`duration`,
/// `io_size` or `ops`); one without runs until its run ends.
pub fn has_own_end(o: &WorkloadOptions) -> bool {
    o.duration.is_some() || o.io_size.is_some() || o.ops.is_some() || o.fill == Some(true)
}

/// The runs of a job file with `[[run]]` tables; the keys that are wrong
/// where they are written are refused with their line.
pub(crate) fn runs_of(
    global: &WorkloadOptions,
    runs: &[RunTable],
    text: Option<&str>,
) -> Result<Vec<RunOptions>, JobError> {
    if global.name.is_some() {
        let at = text.and_then(|t| run_key_line(t, "name", None, None));
        return Err(JobError(format!(
            "{}name in [global] would name every run the same; give each [[run]] its own name",
            line_prefix(at)
        )));
    }
    let mut out = Vec::with_capacity(runs.len());
    for (ri, r) in runs.iter().enumerate() {
        if r.workload.is_empty() {
            let at = text.and_then(|t| table_line(t, ri));
            return Err(JobError(format!(
                "{}run {} has no workload; add a [[run.workload]] table after its [[run]]",
                line_prefix(at),
                ri + 1
            )));
        }
        for (wi, w) in r.workload.iter().enumerate() {
            for key in RUN_ONLY_KEYS {
                let set = match *key {
                    "warmup" => w.warmup.is_some(),
                    "curve" => w.curve.is_some(),
                    "stop_curve" => w.stop_curve.is_some(),
                    _ => w.interval.is_some(),
                };
                if set {
                    let at = text.and_then(|t| run_key_line(t, key, Some(ri), Some(wi)));
                    let why = if key.contains("curve") {
                        "its curve sets the rate its workloads share"
                    } else {
                        "its workloads share one clock"
                    };
                    return Err(JobError(format!(
                        "{}{key} is a key of the [[run]] ({why}), not of a [[run.workload]]; move it to the [[run]]",
                        line_prefix(at)
                    )));
                }
            }
        }
        let pause_s = match &r.pause {
            Some(p) => Some(
                iolab_spec::parse_duration(p)
                    .map_err(|e| {
                        let at = text.and_then(|t| run_key_line(t, "pause", Some(ri), None));
                        JobError(format!("{}pause: {e}", line_prefix(at)))
                    })?
                    .as_secs_f64(),
            ),
            None => None,
        };
        out.push(RunOptions {
            index: ri,
            single: false,
            run: global.overlay(&r.opts),
            workloads: r.workload.clone(),
            overrides: WorkloadOptions::default(),
            origins: Vec::new(),
            pause_s,
            ..Default::default()
        });
    }
    Ok(out)
}

fn line_prefix(at: Option<usize>) -> String {
    at.map(|l| format!("line {l}: ")).unwrap_or_default()
}

/// The line of the `index`-th `[[run]]` header, from 1.
fn table_line(text: &str, index: usize) -> Option<usize> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| section_of(l.trim()) == Some(Section::Run))
        .nth(index)
        .map(|(n, _)| n + 1)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Section {
    Global,
    Run,
    RunWorkload,
    Other,
}

fn section_of(l: &str) -> Option<Section> {
    if !l.starts_with('[') {
        return None;
    }
    let name: String = l
        .trim_start_matches('[')
        .split(']')
        .next()
        .unwrap_or("")
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect();
    Some(match (l.starts_with("[["), name.as_str()) {
        (false, "global") => Section::Global,
        (true, "run") => Section::Run,
        (true, "run.workload") => Section::RunWorkload,
        _ => Section::Other,
    })
}

/// The line (from 1) where a job file with `[[run]]` tables sets the
/// parameter `--flag` for the `run`-th run's `workload`-th workload
/// (both from 0): in that `[[run.workload]]`, else in its `[[run]]`, else
/// in `[global]`. For messages about values that are valid TOML but wrong
/// for the key.
pub fn run_key_line(
    text: &str,
    flag: &str,
    run: Option<usize>,
    workload: Option<usize>,
) -> Option<usize> {
    let keys = crate::resolve::keys_of(flag);
    let (mut global, mut in_run, mut in_workload) = (None, None, None);
    let mut section = Section::Other;
    let (mut ri, mut wi) = (-1i64, -1i64);
    for (n, line) in text.lines().enumerate() {
        let l = line.trim();
        if let Some(s) = section_of(l) {
            section = s;
            match s {
                Section::Run => {
                    ri += 1;
                    wi = -1;
                }
                Section::RunWorkload => wi += 1,
                _ => {}
            }
            continue;
        }
        let Some((k, _)) = l.split_once('=') else {
            continue;
        };
        let k = k.trim().trim_matches(['"', '\'']);
        if !keys.iter().any(|key| key == k) {
            continue;
        }
        let this_run = run.is_some_and(|r| r as i64 == ri);
        match section {
            Section::Global => {
                global.get_or_insert(n + 1);
            }
            Section::Run if this_run => {
                in_run.get_or_insert(n + 1);
            }
            Section::RunWorkload if this_run && workload.is_some_and(|w| w as i64 == wi) => {
                in_workload.get_or_insert(n + 1);
            }
            _ => {}
        }
    }
    in_workload.or(in_run).or(global)
}

#[cfg(test)]
mod tests {
    use crate::{parse_job_text, Values};

    const TWO: &str = r#"
[global]
target = "/tmp/x"
size = "64m"

[[run]]
name = "mixed"
duration = "30s"
rate = 1000
bs = "8k"

[[run.workload]]
name = "db"
rw = "randrw"
skew = 75

[[run.workload]]
name = "backup"
rw = "read"
bs = "1m"
start_delay = "5s"
target = "/tmp/y"

[[run]]
qd = [1, 4]

[[run.workload]]
rw = "write"
"#;

    #[test]
    fn runs_keep_their_layers_and_order() {
        let j = parse_job_text(TWO, "t.toml").unwrap();
        let runs = j.runs().unwrap();
        assert_eq!(runs.len(), 2);
        let r = &runs[0];
        assert!(!r.single);
        assert_eq!(r.name(), "mixed");
        assert_eq!(r.run.bs, Some(Values::from("8k")));
        assert_eq!(r.run.size, Some(Values::from("64m")), "global under run");
        assert_eq!(r.workloads.len(), 2);
        assert_eq!(r.workloads[0].name.as_deref(), Some("db"));
        assert_eq!(r.workloads[0].skew, Some(Values::from("75")));
        assert_eq!(r.workloads[1].start_delay, Some(Values::from("5s")));
        assert_eq!(r.workloads[1].target, ["/tmp/y"]);
        assert_eq!(runs[1].name(), "run-2");
        assert!(runs[1].run.qd.as_ref().unwrap().is_list());
    }

    #[test]
    fn plain_workloads_are_runs_of_one() {
        let j = parse_job_text(
            "[global]\ntarget='/x'\n[[workload]]\nrw='read'\n[[workload]]\nrw='write'\n",
            "t",
        )
        .unwrap();
        let runs = j.runs().unwrap();
        assert_eq!(runs.len(), 2);
        assert!(runs.iter().all(|r| r.single && r.workloads.len() == 1));
        assert_eq!(runs[1].workloads[0].target, ["/x"]);
        let only_global = parse_job_text("[global]\ntarget='/x'\n", "t").unwrap();
        assert_eq!(only_global.runs().unwrap().len(), 1);
    }

    fn err(text: &str) -> String {
        let e = match parse_job_text(text, "j.toml") {
            Ok(j) => j.runs().unwrap_err().0,
            Err(e) => e.0,
        };
        assert!(!e.contains('\n'), "{e}");
        e
    }

    #[test]
    fn bad_run_tables_are_one_line_with_the_line_number() {
        let e = err("[[run]]\nname='a'\n[[run.workload]]\ntarget='/x'\nblocksize='4k'\n");
        assert!(e.contains("line 5") && e.contains("blocksize"), "{e}");
        let e = err("[[run]]\nname='a'\n[[run.workload]]\ntarget='/x'\nqd = { x = 1 }\n");
        assert!(e.contains("line 5") && e.contains("key qd"), "{e}");
        // start_delay and skew are read like any other key.
        let e = err("[[run]]\nname='a'\n[[run.workload]]\ntarget='/x'\nskew = { x = 1 }\n");
        assert!(e.contains("line 5") && e.contains("key skew"), "{e}");
        let e = err("[[run]]\nname='a'\nstart_delay = [['1s']]\n[[run.workload]]\ntarget='/x'\n");
        assert!(e.contains("line 3") && e.contains("key start_delay"), "{e}");
        let e = err("[[workload]]\ntarget='/x'\n[[run]]\n[[run.workload]]\ntarget='/y'\n");
        assert!(
            e.contains("line 1") && e.contains("both [[workload]] and [[run]]"),
            "{e}"
        );
        let e = err("[global]\ntarget='/x'\n[[run]]\nname='a'\n");
        assert!(e.contains("line 3") && e.contains("no workload"), "{e}");
        let e = err("[[run]]\nname='a'\n[[run.workload]]\ntarget='/x'\n\nwarmup='1s'\n");
        assert!(
            e.contains("line 6") && e.contains("warmup is a key of the [[run]]"),
            "{e}"
        );
        let e = err("[run]\nname='a'\n");
        assert!(e.contains("[[run]]"), "{e}");
        let e = err("[global]\nname='x'\n[[run]]\n[[run.workload]]\ntarget='/y'\n");
        assert!(e.contains("line 2") && e.contains("each [[run]]"), "{e}");
    }

    #[test]
    fn an_unknown_key_of_a_run_lists_the_keys() {
        let e = err("[[run]]\nname='a'\nbogus = 1\n[[run.workload]]\ntarget='/x'\n");
        assert!(e.contains("line 3") && e.contains("`bogus`"), "{e}");
        for key in [
            "name",
            "duration",
            "warmup",
            "interval",
            "rate",
            "start_delay",
            "startdelay",
            "skew",
            "qd",
        ] {
            assert!(e.contains(&format!("`{key}`")), "{key}: {e}");
        }
        // In [global] too, start_delay and skew are keys like any other.
        let j = parse_job_text(
            "[global]\nstartdelay='2s'\nskew=5\n[[run]]\n[[run.workload]]\n",
            "t",
        )
        .unwrap();
        let r = &j.runs().unwrap()[0];
        assert_eq!(r.run.start_delay, Some(Values::from("2s")));
        assert_eq!(r.run.skew, Some(Values::from("5")));
    }

    #[test]
    fn a_runs_pause_and_curve() {
        let j = parse_job_text(
            "[[run]]\nname='a'\npause='250ms'\ncurve='default'\nstop_curve='5ms'\n[[run.workload]]\ntarget='/x'\n[[run]]\npause=2\n[[run.workload]]\ntarget='/x'\n[[run]]\n[[run.workload]]\ntarget='/x'\n",
            "t",
        )
        .unwrap();
        let runs = j.runs().unwrap();
        let pauses: Vec<Option<f64>> = runs.iter().map(|r| r.pause_s).collect();
        assert_eq!(pauses, [Some(0.25), Some(2.0), None]);
        let c = super::resolve_curve(&runs[0].run, None).unwrap().unwrap();
        assert_eq!(c.pcts, iolab_spec::curve::DEFAULT_CURVE);
        assert_eq!(c.stop_ms, Some(5.0));
        assert_eq!(super::resolve_curve(&runs[1].run, None).unwrap(), None);
        let e = err("[[run]]\nname='a'\n\npause='soon'\n[[run.workload]]\ntarget='/x'\n");
        assert!(e.contains("line 4") && e.contains("pause"), "{e}");
        let e = err("[[run]]\nname='a'\n[[run.workload]]\ntarget='/x'\ncurve='10'\n");
        assert!(
            e.contains("line 5") && e.contains("curve is a key of the [[run]]"),
            "{e}"
        );
    }

    #[test]
    fn key_lines_of_runs() {
        let t = "[global]\nqd=1\n[[run]]\nqd=2\n[[run.workload]]\nrw='read'\n[[run.workload]]\nqd=3\n[[run]]\nbs='4k'\n[[run.workload]]\n";
        assert_eq!(super::run_key_line(t, "--qd", Some(0), Some(1)), Some(8));
        assert_eq!(super::run_key_line(t, "--qd", Some(0), Some(0)), Some(4));
        assert_eq!(super::run_key_line(t, "--qd", Some(1), Some(0)), Some(2));
        assert_eq!(super::run_key_line(t, "qd", Some(1), None), Some(2));
        assert_eq!(super::run_key_line(t, "--jobs", Some(0), Some(0)), None);
    }
}
