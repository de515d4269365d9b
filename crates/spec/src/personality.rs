//! The filebench personalities by name: `fileserver`, `varmail`,
//! `webserver`, `webproxy`, `videoserver` and `oltp`, with the defaults
//! of filebench 1.5's `workloads/*.f` (file counts, mean directory
//! widths, sizes, prealloc, I/O and append sizes, threads, flows), each
//! overridable ([`Overrides`]). Their filesets sit under
//! `<dir>/<filesetname>`.
//!
//! What iolab has no exact equivalent for is mapped, and each mapping is
//! documented in docs/filesystem.md ("Personalities"): a file filebench
//! keeps open across passes (`fd=2` of webserver's log, videoserver's
//! and oltp's readers and writers) is opened and closed by the flow
//! (amortised over `xN` transfers where filebench loops on one file);
//! `aiowrite`/`aiowait` are writes with `--qd` in flight; semaphores
//! (`semblock`/`sempost`) and `hog` are dropped, so oltp's flows run at
//! their own pace; `eventgen` with `bwlimit` becomes the flow's
//! `rate_ops`; `delay` becomes the flow's think time; `opslimit` and
//! `eventlimit` without an event rate do nothing in filebench either.

use crate::fileset::{EntriesShape, FileSize, FilesetSpec, Format, Shape};
use crate::fs::{FileSelect, Flow, FsFileset, FsSpec, FsWork, Step};
use crate::op::Op;
use crate::SpecError;
use std::path::Path;

/// The personalities, in the order of the docs.
pub const NAMES: [&str; 6] = [
    "fileserver",
    "varmail",
    "webserver",
    "webproxy",
    "videoserver",
    "oltp",
];

/// filebench's `run 60`: a personality runs 60 s unless told otherwise.
pub const DURATION_S: f64 = 60.0;

const K: u64 = 1024;
const M: u64 = 1024 * 1024;

/// What a user may change of a personality (each `None` keeps
/// filebench's value). `files`, `file_size`, `dir_width` and `prealloc`
/// apply to the personality's main fileset (the first in its table);
/// `file_size` also to webserver's log file and videoserver's passive
/// videos, which share filebench's `$filesize`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Overrides {
    pub files: Option<u64>,
    pub file_size: Option<FileSize>,
    pub dir_width: Option<u32>,
    pub prealloc: Option<f64>,
    /// Threads of the main flow (filebench `$nthreads`, oltp's
    /// `$nshadows`).
    pub jobs: Option<u32>,
    /// The I/O size (filebench `$iosize`; videoserver's read and write
    /// sizes; oltp's 2k data-file transfers).
    pub iosize: Option<u64>,
    /// The largest append (filebench `$meanappendsize`, webproxy's
    /// `$meaniosize`).
    pub append_size: Option<u64>,
}

/// A personality resolved: its workload, and whether its writes are
/// O_DSYNC (oltp's `dsync`).
#[derive(Clone, Debug, PartialEq)]
pub struct Personality {
    pub fs: FsSpec,
    pub dsync: bool,
}

fn step(op: Op) -> Step {
    Step::new(op)
}

fn data(op: Op, xfer: u64) -> Step {
    Step {
        xfer,
        ..Step::new(op)
    }
}

fn whole(op: Op, xfer: u64) -> Step {
    Step {
        whole: true,
        ..data(op, xfer)
    }
}

fn rand(op: Op, xfer: u64) -> Step {
    Step {
        random: true,
        ..data(op, xfer)
    }
}

fn on(fileset: u32, s: Step) -> Step {
    Step { fileset, ..s }
}

fn times(iters: u32, s: Step) -> Step {
    Step { iters, ..s }
}

fn flow(name: &str, threads: u32, steps: Vec<Step>) -> Flow {
    Flow {
        name: name.into(),
        threads,
        steps,
        rate_ops: None,
        think_us: 0,
    }
}

/// One filebench fileset: `entries` files of `size`, `width` per
/// directory, `prealloc` percent created up front.
fn set(
    dir: &Path,
    name: &str,
    entries: u64,
    width: u32,
    size: FileSize,
    prealloc: f64,
) -> FsFileset {
    FsFileset {
        name: name.into(),
        spec: FilesetSpec {
            anchor: dir.join(name),
            shape: Shape::Entries(EntriesShape {
                entries,
                dir_width: width,
                size,
                prealloc,
            }),
        },
        format: Format::No,
        cleanup: false,
        make_parent: true,
    }
}

fn gamma(mean: u64) -> FileSize {
    FileSize::Gamma { mean, shape: 1.5 }
}

/// filebench's values with the overrides applied.
struct Values<'a> {
    o: &'a Overrides,
}

impl Values<'_> {
    fn main(
        &self,
        dir: &Path,
        name: &str,
        files: u64,
        width: u32,
        size: FileSize,
        pre: f64,
    ) -> FsFileset {
        set(
            dir,
            name,
            self.o.files.unwrap_or(files),
            self.o.dir_width.unwrap_or(width),
            self.o.file_size.clone().unwrap_or(size),
            self.o.prealloc.unwrap_or(pre),
        )
    }
    fn size(&self, s: FileSize) -> FileSize {
        self.o.file_size.clone().unwrap_or(s)
    }
    fn jobs(&self, n: u32) -> u32 {
        self.o.jobs.unwrap_or(n)
    }
    fn io(&self, n: u64) -> u64 {
        self.o.iosize.unwrap_or(n)
    }
    fn append(&self, n: u64) -> u64 {
        self.o.append_size.unwrap_or(n)
    }
}

/// The personality `name` with its filesets under `dir`, overridden by
/// `o`; a name that is none is refused naming the six.
pub fn personality(name: &str, dir: &Path, o: &Overrides) -> Result<Personality, SpecError> {
    let v = Values { o };
    let (filesets, flows, dsync) = match name {
        "fileserver" => fileserver(&v, dir),
        "varmail" => varmail(&v, dir),
        "webserver" => webserver(&v, dir),
        "webproxy" => webproxy(&v, dir),
        "videoserver" => videoserver(&v, dir)?,
        "oltp" => oltp(&v, dir),
        other => {
            return Err(SpecError(format!(
                "--personality {other} is not known; use one of {}",
                NAMES.join(", ")
            )))
        }
    };
    let fs = FsSpec {
        filesets,
        work: FsWork::Flows(flows),
        select: FileSelect::Uniform,
        personality: Some(name.to_string()),
        layout_seed: None,
    };
    fs.validate()
        .map_err(|e| SpecError(format!("--personality {name}: {}", e.0)))?;
    Ok(Personality { fs, dsync })
}

type Parts = (Vec<FsFileset>, Vec<Flow>, bool);

/// fileserver.f: 10,000 files (gamma, mean 128k), mean width 20, 80 %
/// preallocated, 50 threads, 1m I/O, 16k appends.
fn fileserver(v: &Values, dir: &Path) -> Parts {
    let fs = v.main(dir, "bigfileset", 10_000, 20, gamma(128 * K), 80.0);
    let (io, app) = (v.io(M), v.append(16 * K));
    let steps = vec![
        step(Op::Create),
        whole(Op::Write, io),
        step(Op::Close),
        step(Op::Open),
        rand(Op::Append, app),
        step(Op::Close),
        step(Op::Open),
        whole(Op::Read, io),
        step(Op::Close),
        step(Op::Delete),
        step(Op::Stat),
    ];
    (vec![fs], vec![flow("filereader", v.jobs(50), steps)], false)
}

/// varmail.f: 1,000 files (gamma, mean 16k) in one directory (width
/// 1,000,000), 80 % preallocated, 16 threads, 1m reads, 16k appends,
/// fsync after each append.
fn varmail(v: &Values, dir: &Path) -> Parts {
    let fs = v.main(dir, "bigfileset", 1000, 1_000_000, gamma(16 * K), 80.0);
    let (io, app) = (v.io(M), v.append(16 * K));
    let steps = vec![
        step(Op::Delete),
        step(Op::Create),
        rand(Op::Append, app),
        step(Op::Fsync),
        step(Op::Close),
        step(Op::Open),
        whole(Op::Read, io),
        rand(Op::Append, app),
        step(Op::Fsync),
        step(Op::Close),
        step(Op::Open),
        whole(Op::Read, io),
        step(Op::Close),
    ];
    (vec![fs], vec![flow("filereader", v.jobs(16), steps)], false)
}

/// webserver.f: 1,000 files (gamma, mean 16k), width 20, all
/// preallocated; a log fileset of one file; 100 threads each reading ten
/// whole files and appending up to 16k to the log.
fn webserver(v: &Values, dir: &Path) -> Parts {
    let fs = v.main(dir, "bigfileset", 1000, 20, gamma(16 * K), 100.0);
    let log = set(dir, "logfiles", 1, 20, v.size(gamma(16 * K)), 100.0);
    let io = v.io(M);
    let mut steps = Vec::new();
    for _ in 0..10 {
        steps.extend([step(Op::Open), whole(Op::Read, io), step(Op::Close)]);
    }
    // filebench keeps the log open in fd 2; iolab opens it each pass.
    steps.extend([
        on(1, step(Op::Open)),
        on(1, rand(Op::Append, v.append(16 * K))),
        on(1, step(Op::Close)),
    ]);
    (
        vec![fs, log],
        vec![flow("filereader", v.jobs(100), steps)],
        false,
    )
}

/// webproxy.f: 10,000 files of 16k (fixed) in one directory, 80 %
/// preallocated, 100 threads: replace one file, read five whole.
fn webproxy(v: &Values, dir: &Path) -> Parts {
    let fs = v.main(
        dir,
        "bigfileset",
        10_000,
        1_000_000,
        FileSize::Fixed(16 * K),
        80.0,
    );
    let io = v.io(M);
    let mut steps = vec![
        step(Op::Delete),
        step(Op::Create),
        rand(Op::Append, v.append(16 * K)),
        step(Op::Close),
    ];
    for _ in 0..5 {
        steps.extend([step(Op::Open), whole(Op::Read, io), step(Op::Close)]);
    }
    (
        vec![fs],
        vec![flow("proxycache", v.jobs(100), steps)],
        false,
    )
}

/// filebench's videoserver event rate: 96 events/s, 1 MiB per event
/// for `bwlimit`.
const VIDEO_EVENTS_PER_S: f64 = 96.0;
/// filebench's `delay` of the video writer, seconds.
const VIDEO_REPLACE_S: u64 = 10;

/// videoserver.f: 32 active videos (width 4, all preallocated) and 194
/// passive (width 20, half preallocated) of 10g; one writer replaces a
/// passive video every 10 s in 1m writes; 48 readers read active videos
/// in 256k transfers, 96 MiB/s together (eventgen 96 with bwlimit).
fn videoserver(v: &Values, dir: &Path) -> Result<Parts, SpecError> {
    let active = v.main(dir, "activevids", 32, 4, FileSize::Fixed(10 << 30), 100.0);
    let passive = set(
        dir,
        "passivevids",
        194,
        20,
        v.size(FileSize::Fixed(10 << 30)),
        50.0,
    );
    let (rd, wr) = (v.io(256 * K), v.io(M));
    let mut writer = flow(
        "vidwriter",
        1,
        vec![
            on(1, step(Op::Delete)),
            on(1, step(Op::Create)),
            on(1, whole(Op::Write, wr)),
            on(1, step(Op::Close)),
        ],
    );
    writer.think_us = VIDEO_REPLACE_S * 1_000_000;
    // filebench reads one open file on and on; iolab reads a whole video
    // sequentially in `rd` transfers, then opens another.
    let size = match &active.spec.shape {
        Shape::Entries(e) => match e.size {
            FileSize::Fixed(s) => s,
            FileSize::Gamma { mean, .. } => mean,
        },
        Shape::Tree(_) => rd,
    };
    let iters = (size / rd.max(1)).clamp(1, u64::from(crate::fs_parse::MAX_ITERS)) as u32;
    let mut readers = flow(
        "vidreaders",
        v.jobs(48),
        vec![
            step(Op::Open),
            times(iters, data(Op::Read, rd)),
            step(Op::Close),
        ],
    );
    // 96 MiB/s of reads, plus the open and close of each video.
    let per_s = VIDEO_EVENTS_PER_S * M as f64 / rd.max(1) as f64;
    readers.rate_ops = Some(per_s * f64::from(iters + 2) / f64::from(iters));
    Ok((vec![active, passive], vec![writer, readers], false))
}

/// oltp.f: 10 data files and 1 log file of 10m (width 1024, all
/// preallocated); a log writer (256k random O_DSYNC writes), 10 database
/// writers (2k random O_DSYNC writes, 100 per pass) and 200 shadows (2k
/// random reads). filebench's semaphores tie the writers to the shadows;
/// iolab has none, so each flow runs at its own pace.
fn oltp(v: &Values, dir: &Path) -> Parts {
    let data_files = v.main(dir, "datafiles", 10, 1024, FileSize::Fixed(10 * M), 100.0);
    let log = set(dir, "logfile", 1, 1024, FileSize::Fixed(10 * M), 100.0);
    let io = v.io(2 * K);
    let flows = vec![
        flow(
            "lgwr",
            1,
            vec![
                on(1, step(Op::Open)),
                on(1, times(100, rand(Op::Write, 256 * K))),
                on(1, step(Op::Close)),
            ],
        ),
        flow(
            "dbwr",
            10,
            vec![
                step(Op::Open),
                times(100, rand(Op::Write, io)),
                step(Op::Close),
            ],
        ),
        flow(
            "shadow",
            v.jobs(200),
            vec![
                step(Op::Open),
                times(100, rand(Op::Read, io)),
                step(Op::Close),
            ],
        ),
    ];
    (vec![data_files, log], flows, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn get(name: &str) -> Personality {
        personality(name, Path::new("/mnt/fb"), &Overrides::default()).unwrap()
    }

    fn shape(p: &Personality, i: usize) -> (u64, u32, FileSize, f64) {
        match &p.fs.filesets[i].spec.shape {
            Shape::Entries(e) => (e.entries, e.dir_width, e.size.clone(), e.prealloc),
            Shape::Tree(_) => panic!("personalities use filebench's shape"),
        }
    }

    fn flows(p: &Personality) -> &[Flow] {
        match &p.fs.work {
            FsWork::Flows(f) => f,
            FsWork::Mix(_) => panic!("personalities are flows"),
        }
    }

    fn ops(f: &Flow) -> Vec<&'static str> {
        f.steps.iter().map(|s| s.op.name()).collect()
    }

    /// The values of filebench 1.5's workloads/*.f.
    #[test]
    fn defaults_match_filebench() {
        let fsv = get("fileserver");
        assert_eq!(shape(&fsv, 0), (10_000, 20, gamma(128 * K), 80.0));
        assert_eq!(
            fsv.fs.filesets[0].spec.anchor,
            Path::new("/mnt/fb/bigfileset")
        );
        let f = &flows(&fsv)[0];
        assert_eq!(f.threads, 50);
        assert_eq!(
            ops(f),
            [
                "create", "write", "close", "open", "append", "close", "open", "read", "close",
                "delete", "stat"
            ]
        );
        assert!(f.steps[1].whole && f.steps[1].xfer == M);
        assert!(f.steps[4].random && f.steps[4].xfer == 16 * K);

        let vm = get("varmail");
        assert_eq!(shape(&vm, 0), (1000, 1_000_000, gamma(16 * K), 80.0));
        assert_eq!(flows(&vm)[0].threads, 16);
        assert_eq!(
            flows(&vm)[0]
                .steps
                .iter()
                .filter(|s| s.op == Op::Fsync)
                .count(),
            2
        );
        assert_eq!(flows(&vm)[0].steps.len(), 13);

        let ws = get("webserver");
        assert_eq!(shape(&ws, 0), (1000, 20, gamma(16 * K), 100.0));
        assert_eq!(shape(&ws, 1).0, 1);
        let f = &flows(&ws)[0];
        assert_eq!(f.threads, 100);
        assert_eq!(
            f.steps
                .iter()
                .filter(|s| s.op == Op::Read && s.whole)
                .count(),
            10
        );
        assert_eq!(f.steps.last().unwrap().fileset, 1);

        let wp = get("webproxy");
        assert_eq!(
            shape(&wp, 0),
            (10_000, 1_000_000, FileSize::Fixed(16 * K), 80.0)
        );
        assert_eq!(flows(&wp)[0].threads, 100);
        assert_eq!(
            flows(&wp)[0]
                .steps
                .iter()
                .filter(|s| s.op == Op::Read)
                .count(),
            5
        );

        let vs = get("videoserver");
        assert_eq!(shape(&vs, 0), (32, 4, FileSize::Fixed(10 << 30), 100.0));
        assert_eq!(shape(&vs, 1), (194, 20, FileSize::Fixed(10 << 30), 50.0));
        let f = flows(&vs);
        assert_eq!((f[0].threads, f[0].think_us), (1, 10_000_000));
        assert_eq!(f[1].threads, 48);
        assert_eq!(f[1].steps[1].iters, 40_960);
        let rate = f[1].rate_ops.unwrap();
        assert!((rate - 384.0).abs() < 0.1, "96 MiB/s of 256k reads: {rate}");

        let ol = get("oltp");
        assert!(ol.dsync);
        assert_eq!(shape(&ol, 0), (10, 1024, FileSize::Fixed(10 * M), 100.0));
        let f = flows(&ol);
        let threads: Vec<(&str, u32)> = f.iter().map(|f| (f.name.as_str(), f.threads)).collect();
        assert_eq!(threads, [("lgwr", 1), ("dbwr", 10), ("shadow", 200)]);
        assert_eq!((f[1].steps[1].xfer, f[1].steps[1].iters), (2 * K, 100));
        assert_eq!(f[0].steps[1].xfer, 256 * K);
    }

    #[test]
    fn overrides_apply_to_the_main_fileset_and_flow() {
        let o = Overrides {
            files: Some(50_000),
            file_size: Some(FileSize::Fixed(4 * K)),
            dir_width: Some(100),
            prealloc: Some(50.0),
            jobs: Some(16),
            iosize: Some(64 * K),
            append_size: Some(8 * K),
        };
        let p = personality("fileserver", Path::new("/d"), &o).unwrap();
        assert_eq!(shape(&p, 0), (50_000, 100, FileSize::Fixed(4 * K), 50.0));
        let f = &flows(&p)[0];
        assert_eq!(
            (f.threads, f.steps[1].xfer, f.steps[4].xfer),
            (16, 64 * K, 8 * K)
        );
        let o = Overrides {
            jobs: Some(20),
            iosize: Some(4 * K),
            file_size: Some(FileSize::Fixed(M)),
            ..Default::default()
        };
        let ol = personality("oltp", Path::new("/d"), &o).unwrap();
        let f = flows(&ol);
        assert_eq!(
            (f[2].threads, f[2].steps[1].xfer, f[0].steps[1].xfer),
            (20, 4 * K, 256 * K)
        );
        let vs = personality("videoserver", Path::new("/d"), &o).unwrap();
        let f = flows(&vs);
        assert_eq!((f[1].threads, f[1].steps[1].iters), (20, 256));
        assert_eq!(shape(&vs, 1).2, FileSize::Fixed(M));
    }

    #[test]
    fn every_personality_is_valid_and_bad_names_and_overrides_are_refused() {
        for n in NAMES {
            get(n).fs.validate().unwrap();
        }
        let e = personality("filserver", Path::new("/d"), &Overrides::default())
            .unwrap_err()
            .0;
        assert!(
            e.contains("fileserver, varmail") && !e.contains('\n'),
            "{e}"
        );
        let o = Overrides {
            files: Some(0),
            ..Default::default()
        };
        let e = personality("varmail", Path::new("/d"), &o).unwrap_err().0;
        assert!(
            e.starts_with("--personality varmail: fileset bigfileset: entries 0"),
            "{e}"
        );
    }
}
