//! A file-system workload: the filesets it works on and the work its
//! threads do there, either a weighted mix of independent operations
//! (vdbench `fwd`s, elbencho) or flows, ordered steps each thread repeats
//! (filebench flowops). A [`crate::WorkloadSpec`] with `fs` set runs on
//! the file-system driver instead of the block driver; its `jobs`, `qd`
//! (operations in flight per thread), `bs` (the mix's transfer size),
//! `direct`, `sync`, end conditions (`duration_s`, `ops`, `io_size`),
//! `rate_iops`, `seed`, `on_error` and `verify` keep their meaning.
//!
//! Parsing of `--mix`/`--flow` strings and the filebench personalities
//! live beside this module (modules `fs_parse` and `personality`).

use crate::fileset::{FilesetSpec, Format};
use crate::op::Op;
use serde::{Deserialize, Serialize};

/// Most filesets one workload names (filebench's tpcso.f defines 30
/// files, each a fileset of one).
pub const MAX_FILESETS: usize = 64;
/// Most steps of a flow, entries of a mix, flows of a workload.
pub const MAX_STEPS: usize = 256;

/// What a file-system workload does.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FsSpec {
    /// The filesets, each under its own anchor (a personality with two
    /// filesets puts them at `<dir>/<name>`). Steps name them by index.
    pub filesets: Vec<FsFileset>,
    pub work: FsWork,
    /// How an operation that needs an existing file chooses it.
    #[serde(default)]
    pub select: FileSelect,
    /// The filebench personality this came from, for display.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub personality: Option<String>,
    /// The seed the filesets' layouts draw their sizes and prealloc
    /// choices with: the job's base seed, not the workload's own (base +
    /// its position in the plan), so one fileset spec on one anchor is one
    /// tree whichever workload or sweep point lays it out. `None` (a spec
    /// from before this field): the workload's seed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub layout_seed: Option<u64>,
}

impl FsSpec {
    /// The seed of the filesets' layouts ([`FsSpec::layout_seed`]) of a
    /// workload whose own seed is `workload_seed`.
    pub fn layout_seed_or(&self, workload_seed: u64) -> u64 {
        self.layout_seed.unwrap_or(workload_seed)
    }

    /// Why the workload writes in the anchor of `set` whatever it finds
    /// there, if it does: an operation that changes files (the first one
    /// of the work, [`Op::changes_files`]), `format = "yes"` or `cleanup`.
    /// A workload without any of them only reads and stats files that are
    /// there, and may run on a read-only anchor.
    pub fn writes_anyway(&self, set: &FsFileset) -> Option<String> {
        // Steps name their fileset by index; names are unique.
        let i = self.filesets.iter().position(|f| f.name == set.name);
        let mut on_set = self
            .work
            .steps()
            .into_iter()
            .filter(|s| i == Some(s.fileset as usize));
        if let Some(op) = on_set.find(|s| s.op.changes_files()).map(|s| s.op) {
            return Some(format!("its {} operations", op.name()));
        }
        if set.format == Format::Yes {
            return Some("--format yes".into());
        }
        set.cleanup.then(|| "--cleanup".into())
    }
}

/// One fileset of a workload.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FsFileset {
    /// Short name for tables and notes (`bigfileset`, `logfiles`, `fs`).
    pub name: String,
    pub spec: FilesetSpec,
    /// What to do with a fileset that exists (vdbench `format=`).
    #[serde(default)]
    pub format: Format,
    /// Remove the fileset's files after the run (default: kept for the
    /// next run, like vdbench's anchors and filebench's `reuse`).
    #[serde(default)]
    pub cleanup: bool,
    /// The anchor is `DIR/NAME` (a personality's or a `filesets` entry's)
    /// and `DIR` is made before the run when it is missing and its parent
    /// exists (removed again when the run leaves it empty).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub make_parent: bool,
}

/// A weighted mix or flows.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum FsWork {
    /// Each thread (the workload's `jobs`) draws its next operation by
    /// weight; every operation is self-contained (it opens and closes
    /// what it needs; those opens and closes show in the fileset
    /// counters, not as operations of their own).
    Mix(Vec<MixEntry>),
    /// Flows, each with threads of its own that repeat its steps in order.
    Flows(Vec<Flow>),
}

impl FsWork {
    /// Every step of the work: a mix's entries' steps, or every flow's
    /// steps in order.
    pub fn steps(&self) -> Vec<&Step> {
        match self {
            FsWork::Mix(m) => m.iter().map(|e| &e.step).collect(),
            FsWork::Flows(f) => f.iter().flat_map(|f| f.steps.iter()).collect(),
        }
    }

    /// [`FsWork::steps`], to change them.
    pub fn steps_mut(&mut self) -> Vec<&mut Step> {
        match self {
            FsWork::Mix(m) => m.iter_mut().map(|e| &mut e.step).collect(),
            FsWork::Flows(f) => f.iter_mut().flat_map(|f| f.steps.iter_mut()).collect(),
        }
    }
}

/// One operation of a mix and its weight.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MixEntry {
    pub step: Step,
    pub weight: u32,
}

/// An ordered sequence of steps that `threads` threads each repeat.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Flow {
    pub name: String,
    pub threads: u32,
    pub steps: Vec<Step>,
    /// Most operations per second of the whole flow (all its threads);
    /// `None` is unlimited (filebench `eventlimit`/`rate`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate_ops: Option<f64>,
    /// Pause after each pass through the steps, microseconds (filebench
    /// `delay`); 0 none.
    #[serde(default)]
    pub think_us: u64,
}

/// One operation as a mix entry or a flow step names it.
///
/// In a flow, each thread has a current file: `create` and `open` make a
/// file current (create picks a file that does not exist, open one that
/// does), and `read`, `write`, `append`, `rewrite`, `fsync`,
/// `fdatasync`, `getattr`, `setattr` and `close` act on it; `stat`,
/// `delete`, `access`, `rename`, `mkdir`, `rmdir` and `readdir` choose
/// their own file or directory (a file not open in that thread).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Step {
    pub op: Op,
    /// Index into [`FsSpec::filesets`].
    #[serde(default)]
    pub fileset: u32,
    /// For read/write/rewrite: the whole file (from its start, in `xfer`
    /// transfers; filebench `readwholefile`/`writewholefile`) or one
    /// transfer of `xfer` bytes.
    #[serde(default)]
    pub whole: bool,
    /// Bytes per transfer (read/write/rewrite); for append the size, or
    /// with `random` the largest size (uniform in 1..=xfer, filebench
    /// `appendfilerand`). 0: the workload's `bs`.
    #[serde(default)]
    pub xfer: u64,
    /// A transfer at a random `xfer`-aligned offset within the file
    /// (else sequential from where the thread's last transfer on the file
    /// ended); for append, a random size.
    #[serde(default)]
    pub random: bool,
    /// Times the step runs each pass (filebench `iters`); at least 1.
    #[serde(default = "one")]
    pub iters: u32,
    /// O_DIRECT on the open of the file this step works on (filebench
    /// `directio`), whatever the workload's `direct`: on an `open` or
    /// `create`, and on a mix entry (which opens its own file). A flow
    /// step on the current file carries it to the step that opened it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub direct: bool,
    /// O_DSYNC on that open (filebench `dsync`), likewise.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub dsync: bool,
}

fn one() -> u32 {
    1
}

impl Step {
    /// A plain step: `op` on fileset 0, one transfer of the workload's
    /// `bs`, sequential, once.
    pub fn new(op: Op) -> Step {
        Step {
            op,
            fileset: 0,
            whole: false,
            xfer: 0,
            random: false,
            iters: 1,
            direct: false,
            dsync: false,
        }
    }
}

/// How an operation chooses an existing file (vdbench `fileselect`,
/// fio `file_service_type`). filebench picks files in rotation (one rotor
/// per fileset shared by its threads); its personalities use `Uniform`,
/// which touches the files as evenly but in random order
/// (docs/filesystem.md "Choosing files").
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FileSelect {
    /// Files in layout order, each thread from its own starting point.
    Sequential,
    #[default]
    Uniform,
    /// Zipf with this exponent (theta, e.g. 1.1): a few files get most
    /// operations.
    Zipf(f64),
}

/// Most threads of all flows of a workload together.
pub const MAX_FLOW_THREADS: u64 = 65_536;

fn bad<T>(s: String) -> Result<T, crate::SpecError> {
    Err(crate::SpecError(s))
}

impl FsSpec {
    /// Checks what can be checked without the disk, one line each: the
    /// filesets (shape, distinct names and anchors), the mix's weights,
    /// the flows' threads, rates and steps (fileset indices, a current
    /// file for every step that needs one, no file left open at the end
    /// of a pass).
    pub fn validate(&self) -> Result<(), crate::SpecError> {
        self.validate_filesets()?;
        if let FileSelect::Zipf(t) = self.select {
            if !(t > 0.0 && t.is_finite()) {
                return bad(format!(
                    "--file-select zipf:{t}: give a theta above 0, e.g. zipf:1.1"
                ));
            }
        }
        match &self.work {
            FsWork::Mix(m) => self.validate_mix(m),
            FsWork::Flows(f) => self.validate_flows(f),
        }
    }

    /// True when some step can move bytes: an append or a partial write
    /// always does; a read, rewrite or whole write only on files that
    /// are not all empty. An `io_size` end needs one, or the run never
    /// ends.
    pub fn moves_data(&self) -> bool {
        let can = |s: &Step| {
            s.op.moves_data()
                && (s.op == Op::Append
                    || (s.op == Op::Write && !s.whole)
                    || self
                        .filesets
                        .get(s.fileset as usize)
                        .is_some_and(|f| f.spec.may_hold_data()))
        };
        match &self.work {
            FsWork::Mix(m) => m.iter().any(|e| can(&e.step)),
            FsWork::Flows(f) => f.iter().flat_map(|f| &f.steps).any(can),
        }
    }

    fn validate_filesets(&self) -> Result<(), crate::SpecError> {
        let n = self.filesets.len();
        if n == 0 || n > MAX_FILESETS {
            return bad(format!(
                "a file-system workload needs 1 to {MAX_FILESETS} filesets, not {n}; give --dir DIR"
            ));
        }
        for (i, f) in self.filesets.iter().enumerate() {
            if f.name.is_empty() {
                return bad(format!("fileset @{i} has no name; name it"));
            }
            f.spec
                .validate()
                .map_err(|e| crate::SpecError(format!("fileset {}: {}", f.name, e.0)))?;
            if let Some(o) = self.filesets[..i]
                .iter()
                .find(|o| o.name == f.name || o.spec.anchor == f.spec.anchor)
            {
                return bad(format!(
                    "filesets {} and {} share a name or the anchor {}; give each its own",
                    o.name,
                    f.name,
                    f.spec.anchor.display()
                ));
            }
            let (a, b) = (&f.spec.anchor, &self.filesets[..i]);
            if let Some(o) = b
                .iter()
                .find(|o| a.starts_with(&o.spec.anchor) || o.spec.anchor.starts_with(a))
            {
                return bad(format!(
                    "the anchor of fileset {} ({}) and that of {} ({}) lie one inside the other; give each its own directory",
                    f.name,
                    a.display(),
                    o.name,
                    o.spec.anchor.display()
                ));
            }
        }
        Ok(())
    }

    fn check_step(&self, where_: &str, s: &Step) -> Result<(), crate::SpecError> {
        if s.fileset as usize >= self.filesets.len() {
            return bad(format!(
                "{where_}: fileset @{} does not exist; there are {} (numbered from 0)",
                s.fileset,
                self.filesets.len()
            ));
        }
        if s.iters == 0 || s.iters > crate::fs_parse::MAX_ITERS {
            return bad(format!(
                "{where_}: x{} is outside x1..x{}",
                s.iters,
                crate::fs_parse::MAX_ITERS
            ));
        }
        if s.xfer > crate::fs_parse::MAX_XFER {
            return bad(format!(
                "{where_}: a transfer above 1 GiB; give a smaller size"
            ));
        }
        if (s.whole || s.random || s.xfer > 0) && !s.op.moves_data() {
            return bad(format!(
                "{where_}: {} moves no data, so it takes no size, whole or rand",
                s.op.name()
            ));
        }
        if s.whole && !matches!(s.op, Op::Read | Op::Write | Op::Rewrite) {
            return bad(format!(
                "{where_}: whole applies to read, write and rewrite, not {}",
                s.op.name()
            ));
        }
        Ok(())
    }

    fn validate_mix(&self, m: &[MixEntry]) -> Result<(), crate::SpecError> {
        if m.is_empty() || m.len() > MAX_STEPS {
            return bad(format!(
                "--mix needs 1 to {MAX_STEPS} entries, not {}",
                m.len()
            ));
        }
        for (i, e) in m.iter().enumerate() {
            let w = format!("--mix entry {} ({})", i + 1, e.step.op.name());
            self.check_step(&w, &e.step)?;
            if e.weight == 0 {
                return bad(format!(
                    "{w} has weight 0; give it a weight above 0 or drop it"
                ));
            }
            if e.step.iters != 1 {
                return bad(format!("{w}: iterations (xN) belong to flows, not mixes"));
            }
        }
        Ok(())
    }

    fn validate_flows(&self, flows: &[Flow]) -> Result<(), crate::SpecError> {
        if flows.is_empty() || flows.len() > MAX_STEPS {
            return bad(format!(
                "--flow needs 1 to {MAX_STEPS} flows, not {}",
                flows.len()
            ));
        }
        let threads: u64 = flows.iter().map(|f| u64::from(f.threads)).sum();
        if threads > MAX_FLOW_THREADS {
            return bad(format!(
                "the flows have {threads} threads together, more than {MAX_FLOW_THREADS}; give fewer"
            ));
        }
        for (i, f) in flows.iter().enumerate() {
            if flows[..i].iter().any(|o| o.name == f.name) {
                return bad(format!(
                    "two flows are named '{}'; give each its own name",
                    f.name
                ));
            }
            self.validate_flow(f)?;
        }
        Ok(())
    }

    fn validate_flow(&self, f: &Flow) -> Result<(), crate::SpecError> {
        let name = &format!("'{}'", f.name);
        if f.threads == 0 || u64::from(f.threads) > crate::JOBS_RANGE.1 {
            return bad(format!(
                "flow {name} has {} threads; give 1 to {}",
                f.threads,
                crate::JOBS_RANGE.1
            ));
        }
        if f.rate_ops.is_some_and(|r| !(r > 0.0 && r.is_finite())) {
            return bad(format!(
                "flow {name}: the rate must be above 0 operations per second"
            ));
        }
        if f.think_us > crate::fs_parse::MAX_THINK_US {
            return bad(format!("flow {name}: think time above an hour; give less"));
        }
        if f.steps.is_empty() || f.steps.len() > MAX_STEPS {
            return bad(format!(
                "flow {name} needs 1 to {MAX_STEPS} steps, not {}",
                f.steps.len()
            ));
        }
        // (step number, fileset) of the file the thread has open.
        let mut open: Option<(usize, u32)> = None;
        for (i, s) in f.steps.iter().enumerate() {
            let w = format!("flow {name}, step {} ({})", i + 1, s.op.name());
            self.check_step(&w, s)?;
            match (s.op, open) {
                (Op::Create | Op::Open, Some((j, _))) => {
                    return bad(format!(
                        "{w}: the file of step {j} is still open; put close before step {}",
                        i + 1
                    ))
                }
                (Op::Create | Op::Open, None) => open = Some((i + 1, s.fileset)),
                (op, None) if crate::fs_parse::needs_current(op) => {
                    return bad(format!(
                        "{w} needs an open file; put open or create before it (each pass starts with no file open)"
                    ))
                }
                (op, Some((j, fs))) if crate::fs_parse::needs_current(op) && s.fileset != fs => {
                    return bad(format!(
                        "{w} names fileset @{} but the file of step {j} is in @{fs}; drop the @ or open a file there",
                        s.fileset
                    ))
                }
                _ => {}
            }
            if s.op == Op::Close {
                open = None;
            }
        }
        if let Some((j, _)) = open {
            return bad(format!(
                "flow {name} ends with the file of step {j} open; end it with close (each pass starts with no file open)"
            ));
        }
        Ok(())
    }
}

impl FsFileset {
    /// `bigfileset at /mnt/fb/bigfileset: 10000 files of gamma mean 128 KiB
    /// (shape 1.5), 20 a directory, 80% created before the run`.
    pub fn describe(&self) -> String {
        use crate::fileset::{FileSize, Shape};
        use crate::format_bytes;
        let shape = match &self.spec.shape {
            Shape::Tree(t) => format!(
                "{} files ({} in each of {} leaf directories, depth {} x width {}), sizes {}",
                t.leaves().unwrap_or(0).saturating_mul(t.files),
                t.files,
                t.leaves().unwrap_or(0),
                t.depth,
                t.width,
                t.sizes
            ),
            Shape::Entries(e) => {
                let size = match e.size {
                    FileSize::Fixed(b) => format_bytes(b),
                    FileSize::Gamma { mean, shape } => {
                        format!("gamma mean {} (shape {shape})", format_bytes(mean))
                    }
                };
                format!(
                    "{} files of {size}, {} a directory, {}% created before the run",
                    e.entries, e.dir_width, e.prealloc
                )
            }
        };
        let format = match self.format {
            Format::Yes => "format yes",
            Format::No => "format no",
            Format::Restart => "format restart",
        };
        let keep = if self.cleanup {
            "removed after"
        } else {
            "kept"
        };
        format!(
            "fileset {} at {}: {shape}; {format}, {keep}",
            self.name,
            self.spec.anchor.display()
        )
    }
}

impl FsSpec {
    /// The workload in lines for `--dry-run` and the run's heading: the
    /// filesets, then the mix or each flow in the `--mix`/`--flow` syntax.
    pub fn describe(&self) -> Vec<String> {
        use crate::fs_parse::{flow_text, mix_text};
        let names: Vec<&str> = self.filesets.iter().map(|f| f.name.as_str()).collect();
        let mut out: Vec<String> = self.filesets.iter().map(FsFileset::describe).collect();
        let select = match self.select {
            FileSelect::Sequential => "seq".to_string(),
            FileSelect::Uniform => "random".to_string(),
            FileSelect::Zipf(t) => format!("zipf:{t}"),
        };
        match &self.work {
            FsWork::Mix(m) => out.push(format!(
                "mix: {} (files picked {select})",
                mix_text(m, &names)
            )),
            FsWork::Flows(f) => {
                for f in f {
                    out.push(format!(
                        "flow {} (files picked {select})",
                        flow_text(f, &names)
                    ));
                }
            }
        }
        out
    }
}

impl crate::WorkloadSpec {
    /// Why a file-system workload runs on system calls rather than
    /// io_uring, as far as the spec says (io_uring being unavailable is
    /// found when it runs); None: io_uring.
    pub fn fs_sync_reason(&self) -> Option<String> {
        if self.engine != crate::EngineKind::IoUring {
            return Some(format!("--engine {}", self.engine.name()));
        }
        (self.qd <= 1).then(|| {
            "--qd 1: one operation in flight per thread, nothing to overlap; --qd 2 or more uses io_uring".to_string()
        })
    }

    /// The heading of a file-system workload (`None` for a block one):
    /// its name, what it runs, its queue depth, the backend (and why
    /// system calls) and options; the filesets
    /// and flows ([`FsSpec::describe`]) follow on lines of their own.
    pub fn fs_heading(&self) -> Option<String> {
        let fs = self.fs.as_ref()?;
        let plural = |n: usize| if n == 1 { "" } else { "s" };
        let what = match (&fs.personality, &fs.work) {
            (Some(p), _) => format!("filebench personality {p}"),
            (None, FsWork::Mix(_)) => {
                format!("mix, {} thread{}", self.jobs, plural(self.jobs as usize))
            }
            (None, FsWork::Flows(f)) => format!("{} flow{}", f.len(), plural(f.len())),
        };
        let backend = match self.fs_sync_reason() {
            None => self.engine.name().to_string(),
            Some(why) => format!("system calls ({why})"),
        };
        let mut s = format!("{}: files, {what}, qd {}, {backend}", self.name, self.qd);
        if self.direct {
            s.push_str(", O_DIRECT");
        }
        if self.sync == crate::SyncMode::Dsync {
            s.push_str(", O_DSYNC");
        }
        if let Some(r) = self.rate_iops {
            s.push_str(&format!(", rate {r} ops/s"));
        }
        Some(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fileset::{Shape, TreeShape};
    use crate::fs_parse::{parse_flows, parse_mix};

    fn spec(work: FsWork) -> FsSpec {
        let set = |name: &str| FsFileset {
            name: name.into(),
            spec: FilesetSpec {
                anchor: format!("/mnt/{name}").into(),
                shape: Shape::Tree(TreeShape {
                    depth: 1,
                    width: 10,
                    files: 10,
                    sizes: "64k".into(),
                }),
            },
            format: Format::No,
            cleanup: false,
            make_parent: false,
        };
        FsSpec {
            filesets: vec![set("a"), set("b")],
            work,
            select: FileSelect::Uniform,
            personality: None,
            layout_seed: None,
        }
    }

    fn flows(s: &str) -> FsSpec {
        spec(FsWork::Flows(parse_flows(s, &["a", "b"], 2).unwrap()))
    }

    #[test]
    fn a_fileset_is_written_only_by_the_steps_on_it() {
        let f = flows("open@a,read:whole,close | w(1): open@b,write:rand:4k,close");
        assert_eq!(f.writes_anyway(&f.filesets[0]), None);
        let b = f.writes_anyway(&f.filesets[1]).unwrap();
        assert!(b.contains("write"), "{b}");
        let mut f = f;
        f.filesets[0].cleanup = true;
        assert_eq!(
            f.writes_anyway(&f.filesets[0]).as_deref(),
            Some("--cleanup")
        );
    }

    #[test]
    fn good_mixes_and_flows_pass() {
        spec(FsWork::Mix(
            parse_mix("read:60,write:20,stat:10,create:5,delete:5", &["a"]).unwrap(),
        ))
        .validate()
        .unwrap();
        flows(
            "create,write:whole,close,open,append:rand:16k,close,open,read:whole,close,delete,stat",
        )
        .validate()
        .unwrap();
        flows("stat,mkdir,readdir,rmdir,rename,access | w(3): open@b,fsync,getattr,setattr,close")
            .validate()
            .unwrap();
    }

    #[test]
    fn bad_workloads_say_what_to_change_in_one_line() {
        let mut cases: Vec<(FsSpec, &str)> = vec![
            (
                flows("read:whole,close"),
                "step 1 (read) needs an open file",
            ),
            (
                flows("open,close,fsync"),
                "step 3 (fsync) needs an open file",
            ),
            (flows("open,read"), "ends with the file of step 1 open"),
            (
                flows("open,create,close"),
                "the file of step 1 is still open",
            ),
            (
                flows("open,read@b,close"),
                "names fileset @1 but the file of step 1 is in @0",
            ),
        ];
        let mut s = flows("open,close");
        if let FsWork::Flows(f) = &mut s.work {
            f[0].threads = 0;
            f[0].steps[0].fileset = 0;
        }
        cases.push((s, "has 0 threads"));
        let mut s = flows("open,close");
        if let FsWork::Flows(f) = &mut s.work {
            f[0].steps[0].fileset = 5;
        }
        cases.push((s, "fileset @5 does not exist"));
        let mut s = spec(FsWork::Mix(parse_mix("read:1,write:1", &["a"]).unwrap()));
        if let FsWork::Mix(m) = &mut s.work {
            m[1].weight = 0;
        }
        cases.push((s, "entry 2 (write) has weight 0"));
        let mut s = flows("stat");
        s.filesets[1].spec.anchor = "/mnt/a".into();
        cases.push((s, "share a name or the anchor /mnt/a"));
        let mut s = flows("stat");
        s.filesets.clear();
        cases.push((s, "needs 1 to 64 filesets"));
        let mut s = spec(FsWork::Mix(vec![]));
        s.select = FileSelect::Zipf(-1.0);
        cases.push((s, "zipf:-1"));
        for (s, needle) in cases {
            let e = s.validate().unwrap_err().0;
            assert!(e.contains(needle) && !e.contains('\n'), "{needle}: {e}");
        }
    }

    #[test]
    fn describe_names_filesets_and_the_work_in_step_syntax() {
        let d = flows("w(3 think=1ms): open@b,read:whole:1m,close").describe();
        assert_eq!(d.len(), 3);
        assert!(
            d[0].starts_with("fileset a at /mnt/a: 100 files (10 in each of 10 leaf directories"),
            "{}",
            d[0]
        );
        assert_eq!(
            d[2],
            "flow w(3 think=1ms): open@b,read:whole:1m,close (files picked random)"
        );
    }

    #[test]
    fn a_workload_validates_its_file_system_part() {
        let mut w = crate::WorkloadSpec::example("w", "/x", "read");
        w.fs = Some(flows("open,close"));
        let e = w.validate().unwrap_err().0;
        assert!(e.contains("not both"), "{e}");
        w.targets.clear();
        w.validate().unwrap();
        w.fs = Some(flows("close"));
        let e = w.validate().unwrap_err().0;
        assert!(e.contains("step 1 (close) needs an open file"), "{e}");
        w.fs = None;
        assert!(w.validate().unwrap_err().0.contains("no target"));
    }

    /// An end on bytes needs an operation that moves bytes, or the run
    /// never ends (a stat mix, reads of empty files).
    #[test]
    fn io_size_needs_an_operation_that_moves_data() {
        let mut w = crate::WorkloadSpec::example("w", "/x", "read");
        w.targets.clear();
        w.duration_s = None;
        w.io_size = Some(1 << 20);
        let mix = |m: &str| spec(FsWork::Mix(parse_mix(m, &["a"]).unwrap()));
        let mut empty = mix("read:1,stat:1");
        if let Shape::Tree(t) = &mut empty.filesets[0].spec.shape {
            t.sizes = "0".into();
        }
        for s in [
            mix("stat:1"),
            flows("open,close,mkdir,rmdir"),
            empty.clone(),
        ] {
            w.fs = Some(s);
            let e = w.validate().unwrap_err().0;
            assert!(e.contains("--io-size") && !e.contains('\n'), "{e}");
        }
        for s in [mix("stat:1,read:1"), flows("stat,create,append,close")] {
            w.fs = Some(s);
            w.validate().unwrap();
        }
        if let FsWork::Mix(m) = &mut empty.work {
            m.push(parse_mix("write:1", &["a"]).unwrap().remove(0));
        }
        w.fs = Some(empty);
        w.validate().unwrap();
    }
}
