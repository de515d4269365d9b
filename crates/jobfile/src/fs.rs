//! A file-system workload from its options: `dir` with a `personality`,
//! a `mix` or a `flow`, and the fileset's shape (`files`, `file_size`,
//! `sizes`, `depth`, `width`, `dir_width`, `prealloc`), resolved into a
//! [`FsSpec`] (docs/filesystem.md). Defaults without a personality:
//! 1000 files of 64k, 100 to a directory (10 directories), all created
//! before the run; `depth`, `width` or `sizes` choose vdbench's tree
//! (depth 1 and width 10 unless given).

use crate::options::WorkloadOptions;
use crate::resolve::{int, size, text, JobError};
use iolab_spec::fileset::{
    parse_size_mix, EntriesShape, FileSize, FilesetSpec, Shape, TreeShape, MAX_DEPTH, MAX_FILES,
};
use iolab_spec::fs::{FileSelect, FsFileset, FsSpec, FsWork};
use iolab_spec::fs_parse::{
    parse_file_select, parse_file_size, parse_filesets, parse_flows, parse_format, parse_mix,
    think_us,
};
use iolab_spec::parse_duration;
use iolab_spec::personality::{personality, Overrides};
use iolab_spec::Op;
use std::path::PathBuf;

/// Files of a fileset given by `dir` alone.
pub const DEFAULT_FILES: u64 = 1000;
/// Their size.
pub const DEFAULT_FILE_SIZE: u64 = 64 << 10;
/// Files per directory (and subdirectories per directory) without
/// `depth`/`width`: any count of files lays out.
pub const DEFAULT_DIR_WIDTH: u32 = 100;
/// vdbench's tree when only one of `depth` and `width` (or `sizes`) is
/// given.
pub const DEFAULT_DEPTH: u32 = 1;
pub const DEFAULT_WIDTH: u32 = 10;

/// A file-system workload resolved, and what it changes of the workload.
pub struct FsResolved {
    pub fs: FsSpec,
    /// A personality whose writes are O_DSYNC (oltp).
    pub dsync: bool,
    /// The default name (`fileserver-1`, `mix-1`).
    pub kind: String,
}

/// The parameters that only file-system workloads have, as (flag, set).
fn fs_keys(o: &WorkloadOptions) -> [(&'static str, bool); 16] {
    [
        ("personality", o.personality.is_some()),
        ("filesets", o.filesets.is_some()),
        ("mix", o.mix.is_some()),
        ("flow", o.flow.is_some()),
        ("files", o.files.is_some()),
        ("file-size", o.file_size.is_some()),
        ("sizes", o.sizes.is_some()),
        ("depth", o.depth.is_some()),
        ("width", o.width.is_some()),
        ("dir-width", o.dir_width.is_some()),
        ("prealloc", o.prealloc.is_some()),
        ("format", o.format.is_some()),
        ("cleanup", o.cleanup.is_some()),
        ("file-select", o.file_select.is_some()),
        ("append-size", o.append_size.is_some()),
        ("dir", o.dir.is_some()),
    ]
}

/// Whether the options describe a file-system workload.
pub fn is_fs(o: &WorkloadOptions) -> bool {
    fs_keys(o).iter().any(|(_, set)| *set)
}

/// The file-system workload of `o`, if it has one; `jobs` threads run a
/// mix or a flow without a head.
pub fn resolve_fs(o: &WorkloadOptions, jobs: u32) -> Result<Option<FsResolved>, JobError> {
    if !is_fs(o) {
        return Ok(None);
    }
    let dir = anchor_dir(o)?;
    refuse_block_keys(o)?;
    if o.personality.is_some() && o.filesets.is_some() {
        return Err(JobError(
            "--filesets and --personality both give the filesets (a personality has its own); give one".into(),
        ));
    }
    let names_of = |f: &[FsFileset]| f.iter().map(|f| f.name.clone()).collect::<Vec<_>>();
    let (mut filesets, work, dsync, kind) = match text(&o.personality) {
        Some(name) => {
            let p = personality(name, &dir, &overrides(o)?)?;
            let names = names_of(&p.fs.filesets);
            let work = given_work(o, &names, jobs)?;
            (
                p.fs.filesets,
                work.unwrap_or(p.fs.work),
                p.dsync,
                name.to_string(),
            )
        }
        None => {
            let sets = match o.filesets.as_deref() {
                Some(t) => named_filesets(o, &dir, t)?,
                None => vec![plain_fileset(o, dir)?],
            };
            let work = given_work(o, &names_of(&sets), jobs)?;
            let Some(work) = work else {
                return Err(JobError(
                    "--dir needs what to do with the files: give --mix, --flow or --personality"
                        .into(),
                ));
            };
            (sets, work, false, String::new())
        }
    };
    let format = o.format.as_deref().map(parse_format).transpose()?;
    for f in &mut filesets {
        if let Some(fmt) = format {
            f.format = fmt;
        }
        f.cleanup = o.cleanup.unwrap_or(false);
    }
    let work = with_think(o, work)?;
    let kind = if !kind.is_empty() {
        kind
    } else if matches!(work, FsWork::Mix(_)) {
        "mix".into()
    } else {
        "flow".into()
    };
    let fs = FsSpec {
        filesets,
        work,
        select: match text(&o.file_select) {
            Some(s) => parse_file_select(s)?,
            None => FileSelect::Uniform,
        },
        personality: text(&o.personality).map(str::to_string),
        layout_seed: None,
    };
    validate(&fs, o)?;
    Ok(Some(FsResolved { fs, dsync, kind }))
}

/// `--dir`, which every file-system workload needs.
fn anchor_dir(o: &WorkloadOptions) -> Result<PathBuf, JobError> {
    let Some(dir) = text(&o.dir) else {
        let (flag, _) = fs_keys(o)
            .into_iter()
            .find(|(_, s)| *s)
            .unwrap_or(("mix", true));
        return Err(JobError(format!(
            "--{flag} is for files under a directory; give --dir DIR (the anchor of the files)"
        )));
    };
    if dir.trim().is_empty() {
        return Err(JobError(
            "--dir is empty; name a directory, e.g. --dir /mnt/test/fs".into(),
        ));
    }
    Ok(PathBuf::from(dir))
}

/// `fs` validated, its error naming the key the user gave (so a job
/// file's line is found).
fn validate(fs: &FsSpec, o: &WorkloadOptions) -> Result<(), JobError> {
    fs.validate().map_err(|e| {
        let given = match fs.work {
            FsWork::Mix(_) if o.mix.is_some() => "--mix: ",
            FsWork::Flows(_) if o.flow.is_some() => "--flow: ",
            _ => "",
        };
        if e.0.starts_with("--") {
            JobError(e.0)
        } else {
            JobError(format!("{given}{}", e.0))
        }
    })
}

/// Block-workload keys that mean nothing for files.
fn refuse_block_keys(o: &WorkloadOptions) -> Result<(), JobError> {
    let block = [
        ("target", !o.target.is_empty()),
        ("rw", o.rw.is_some()),
        ("read-pct", o.read_pct.is_some()),
        ("random-pct", o.random_pct.is_some()),
        ("size", o.size.is_some()),
        ("offset", o.offset.is_some()),
        ("range", o.range.is_some()),
        ("hit-area", o.hit_area.is_some()),
        ("distribution", o.distribution.is_some()),
        ("think-blocks", o.think_blocks.is_some()),
        ("arrival", o.arrival.is_some()),
        ("fdatasync-every", o.fdatasync_every.is_some()),
        ("end-fsync", o.end_fsync.is_some()),
        ("invalidate", o.invalidate.is_some()),
        ("unlink", o.unlink.is_some()),
        ("fill", o.fill.is_some()),
        ("atomic", o.atomic.is_some()),
    ];
    if let Some((flag, _)) = block.iter().find(|(_, s)| *s) {
        return Err(JobError(format!(
            "--{flag} is for block targets, not for files under --dir; drop it (a file workload's operations come from --mix, --flow or --personality)"
        )));
    }
    Ok(())
}

/// `--mix` or `--flow` as given, on filesets named `names`.
fn given_work(
    o: &WorkloadOptions,
    names: &[String],
    jobs: u32,
) -> Result<Option<FsWork>, JobError> {
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let work = match (text(&o.mix), text(&o.flow)) {
        (Some(_), Some(_)) => {
            return Err(JobError(
                "--mix and --flow both say what the threads do; give one".into(),
            ))
        }
        (Some(m), None) => FsWork::Mix(parse_mix(m, &names)?),
        (None, Some(f)) => FsWork::Flows(parse_flows(f, &names, jobs)?),
        (None, None) => return Ok(None),
    };
    with_append_size(o, work).map(Some)
}

/// `--append-size` on the given mix or flows: the size of their `append`
/// steps that give none (which would otherwise append up to `bs`), as a
/// personality's appends take it. Refused when no such step exists, as it
/// would change nothing.
fn with_append_size(o: &WorkloadOptions, mut work: FsWork) -> Result<FsWork, JobError> {
    let Some(n) = nonzero(size(&o.append_size, "append-size")?, "append-size")? else {
        return Ok(work);
    };
    let mut applied = false;
    for s in work
        .steps_mut()
        .into_iter()
        .filter(|s| s.op == Op::Append && s.xfer == 0)
    {
        s.xfer = n;
        applied = true;
    }
    if !applied {
        let (flag, what) = match work {
            FsWork::Mix(_) => ("mix", "the mix has none"),
            FsWork::Flows(_) => ("flow", "the flows have none"),
        };
        return Err(JobError(format!(
            "--append-size is the size of --{flag}'s append steps that give none, and {what}; give the size on the step (append:rand:16k) or drop --append-size"
        )));
    }
    Ok(work)
}

/// `--think` on every flow that has no think time of its own.
fn with_think(o: &WorkloadOptions, work: FsWork) -> Result<FsWork, JobError> {
    let Some(t) = text(&o.think) else {
        return Ok(work);
    };
    let secs = parse_duration(t)
        .map_err(|e| JobError(format!("--think: {e}")))?
        .as_secs_f64();
    let us = think_us(secs).map_err(|e| JobError(format!("--think {t} {}", e.0)))?;
    match work {
        FsWork::Mix(_) => Err(JobError(
            "--think pauses flows between passes; a mix has none: use --rate to slow it".into(),
        )),
        FsWork::Flows(mut flows) => {
            for f in flows.iter_mut().filter(|f| f.think_us == 0) {
                f.think_us = us;
            }
            Ok(FsWork::Flows(flows))
        }
    }
}

/// A personality's overrides from the options.
fn overrides(o: &WorkloadOptions) -> Result<Overrides, JobError> {
    for (flag, set) in [
        ("depth", o.depth.is_some()),
        ("width", o.width.is_some()),
        ("sizes", o.sizes.is_some()),
    ] {
        if set {
            return Err(JobError(format!(
                "--{flag} describes vdbench's tree; a personality has filebench's filesets: give --files, --dir-width or --file-size instead"
            )));
        }
    }
    let iosize = match text(&o.bs) {
        Some(b) => {
            let bs = iolab_spec::parse_bs(b)?;
            if bs.len() > 1 {
                return Err(JobError(format!(
                    "--bs {b}: a personality takes one I/O size (filebench $iosize), not a mix; give e.g. --bs 64k"
                )));
            }
            Some(bs[0].bytes)
        }
        None => None,
    };
    Ok(Overrides {
        files: int(&o.files, "files", (1, MAX_FILES))?,
        file_size: text(&o.file_size).map(parse_file_size).transpose()?,
        dir_width: int(&o.dir_width, "dir-width", (2, u64::from(u32::MAX)))?,
        prealloc: prealloc(o)?,
        jobs: int(&o.jobs, "jobs", iolab_spec::JOBS_RANGE)?,
        iosize,
        append_size: nonzero(size(&o.append_size, "append-size")?, "append-size")?,
    })
}

fn nonzero(v: Option<u64>, flag: &str) -> Result<Option<u64>, JobError> {
    match v {
        Some(0) => Err(JobError(format!(
            "--{flag} 0 appends nothing; give at least 1 byte"
        ))),
        Some(n) if n > iolab_spec::fs_parse::MAX_XFER => Err(JobError(format!(
            "--{flag} above 1 GiB; give a smaller size"
        ))),
        v => Ok(v),
    }
}

fn prealloc(o: &WorkloadOptions) -> Result<Option<f64>, JobError> {
    text(&o.prealloc)
        .map(|s| match s.trim().trim_end_matches('%').parse::<f64>() {
            Ok(p) if (0.0..=100.0).contains(&p) => Ok(p),
            _ => Err(JobError(format!(
                "--prealloc {s} is not a percentage; give 0 to 100"
            ))),
        })
        .transpose()
}

/// The filesets of `--filesets`, each at `PATH/NAME` (`PATH` the
/// workload's `dir` unless the fileset gives `path=`), with the single
/// fileset's defaults where a fileset says nothing. The single
/// fileset's keys and a personality are refused beside it.
fn named_filesets(
    o: &WorkloadOptions,
    dir: &std::path::Path,
    text: &str,
) -> Result<Vec<FsFileset>, JobError> {
    for (flag, set) in [
        ("files", o.files.is_some()),
        ("file-size", o.file_size.is_some()),
        ("dir-width", o.dir_width.is_some()),
        ("prealloc", o.prealloc.is_some()),
        ("depth", o.depth.is_some()),
        ("width", o.width.is_some()),
        ("sizes", o.sizes.is_some()),
    ] {
        if set {
            return Err(JobError(format!(
                "--{flag} describes one fileset, and --filesets gives each of its filesets its own: drop --{flag} or put it in the filesets (files=N dir_width=N size=SIZE prealloc=PCT)"
            )));
        }
    }
    let decls = parse_filesets(text)?;
    Ok(decls
        .into_iter()
        .map(|d| FsFileset {
            spec: FilesetSpec {
                anchor: d
                    .path
                    .as_deref()
                    .map_or(dir, std::path::Path::new)
                    .join(&d.name),
                shape: Shape::Entries(EntriesShape {
                    entries: d.files.unwrap_or(DEFAULT_FILES),
                    dir_width: d.dir_width.unwrap_or(DEFAULT_DIR_WIDTH),
                    size: d.size.unwrap_or(FileSize::Fixed(DEFAULT_FILE_SIZE)),
                    prealloc: d.prealloc.unwrap_or(100.0),
                }),
            },
            name: d.name,
            format: Default::default(),
            cleanup: false,
            make_parent: true,
        })
        .collect())
}

/// The fileset of `dir` without a personality: filebench's shape
/// (`files`, `dir_width` 100 unless given, `file_size`, `prealloc`), or
/// vdbench's tree when `depth`, `width` or `sizes` is given.
fn plain_fileset(o: &WorkloadOptions, dir: PathBuf) -> Result<FsFileset, JobError> {
    let files = int(&o.files, "files", (1, MAX_FILES))?.unwrap_or(DEFAULT_FILES);
    let file_size = text(&o.file_size).map(parse_file_size).transpose()?;
    if o.sizes.is_some() && file_size.is_some() {
        return Err(JobError(
            "--sizes and --file-size both give the file sizes; give one".into(),
        ));
    }
    let tree = o.depth.is_some() || o.width.is_some() || o.sizes.is_some();
    let entries = o.dir_width.is_some()
        || o.prealloc.is_some()
        || matches!(file_size, Some(FileSize::Gamma { .. }));
    let shape = if tree {
        if entries {
            return Err(JobError(
                "--depth, --width and --sizes are vdbench's tree, --dir-width, --prealloc and a gamma --file-size filebench's shape; give one or the other".into(),
            ));
        }
        tree_shape(o, files, file_size)?
    } else {
        Shape::Entries(EntriesShape {
            entries: files,
            dir_width: int(&o.dir_width, "dir-width", (2, u64::from(u32::MAX)))?
                .unwrap_or(DEFAULT_DIR_WIDTH),
            size: file_size.unwrap_or(FileSize::Fixed(DEFAULT_FILE_SIZE)),
            prealloc: prealloc(o)?.unwrap_or(100.0),
        })
    };
    Ok(FsFileset {
        name: "fs".into(),
        spec: FilesetSpec { anchor: dir, shape },
        format: Default::default(),
        cleanup: false,
        make_parent: false,
    })
}

fn tree_shape(
    o: &WorkloadOptions,
    files: u64,
    file_size: Option<FileSize>,
) -> Result<Shape, JobError> {
    let depth = int(&o.depth, "depth", (0, u64::from(MAX_DEPTH)))?.unwrap_or(DEFAULT_DEPTH);
    let width = int(&o.width, "width", (1, u64::from(u32::MAX)))?.unwrap_or(DEFAULT_WIDTH);
    let leaves = match u64::from(width).checked_pow(depth) {
        Some(l) if l <= MAX_FILES => l,
        _ => {
            return Err(JobError(format!(
                "--width {width} and --depth {depth} make more than {MAX_FILES} leaf directories (width^depth), more files than a fileset may hold; lower --width or --depth"
            )))
        }
    };
    if !files.is_multiple_of(leaves) {
        let lo = files / leaves * leaves;
        let hi = lo.saturating_add(leaves);
        let near = if lo == 0 {
            format!("{hi}")
        } else {
            format!("{lo} or {hi}")
        };
        return Err(JobError(format!(
            "--files {files} does not divide among the {leaves} leaf directories (--width {width}, --depth {depth}); give {near} files, another --width/--depth, or --dir-width N for filebench's shape"
        )));
    }
    let sizes = match (text(&o.sizes), file_size) {
        // Checked here, so the error names the key (the fileset's own
        // check comes after the mix's or flow's and would name that).
        (Some(s), _) => {
            parse_size_mix(s).map_err(|e| JobError(format!("--{}", e.0)))?;
            s.to_string()
        }
        (None, Some(FileSize::Fixed(b))) => b.to_string(),
        _ => "64k".to_string(),
    };
    Ok(Shape::Tree(TreeShape {
        depth,
        width,
        files: files / leaves,
        sizes,
    }))
}

#[cfg(test)]
mod tests {
    use crate::{parse_job_text, resolve};
    use iolab_spec::fileset::{EntriesShape, FileSize, Format, Shape, TreeShape};
    use iolab_spec::fs::{FileSelect, FsWork};
    use iolab_spec::{Op, SyncMode, WorkloadSpec};

    fn job(text: &str) -> Result<WorkloadSpec, String> {
        let j = parse_job_text(text, "t.toml").map_err(|e| e.0)?;
        resolve(&j.workloads()[0], 0).map_err(|e| e.0)
    }

    /// Regression: `--append-size` beside a mix or flow was accepted and
    /// ignored. It sizes the append steps that give no size; with none,
    /// it is refused.
    #[test]
    fn append_size_sizes_the_appends_that_give_none() {
        let steps = |t: &str| -> Vec<(Op, u64)> {
            let s = job(&format!(
                "[global]\ndir = '/mnt/t/fs'\nduration = '1s'\n{t}"
            ))
            .unwrap();
            match s.fs.unwrap().work {
                FsWork::Mix(m) => m.iter().map(|e| (e.step.op, e.step.xfer)).collect(),
                FsWork::Flows(f) => f[0].steps.iter().map(|s| (s.op, s.xfer)).collect(),
            }
        };
        assert_eq!(
            steps("mix = 'append:1,append:rand:16k:1,read:1'\nappend_size = '4k'\n"),
            [(Op::Append, 4096), (Op::Append, 16384), (Op::Read, 0)]
        );
        assert_eq!(
            steps("flow = 'open,append,close'\nappend_size = '8k'\n"),
            [(Op::Open, 0), (Op::Append, 8192), (Op::Close, 0)]
        );
        assert_eq!(steps("mix = 'append:1'\n"), [(Op::Append, 0)]);
        for (t, needle) in [
            (
                "mix = 'read:1'\nappend_size = '4k'\n",
                "and the mix has none",
            ),
            (
                "flow = 'open,append:16k,close'\nappend_size = '4k'\n",
                "and the flows have none",
            ),
            (
                "personality = 'varmail'\nmix = 'read:1'\nappend_size = '4k'\n",
                "and the mix has none",
            ),
        ] {
            let e = job(&format!(
                "[global]\ndir = '/mnt/t/fs'\nduration = '1s'\n{t}"
            ))
            .unwrap_err();
            assert!(
                e.starts_with("--append-size is the size of") && e.contains(needle),
                "{e}"
            );
        }
        // A personality's own flows take it as before.
        assert!(
            job("[global]\ndir = '/mnt/t/fs'\npersonality = 'varmail'\nappend_size = '4k'\n")
                .is_ok()
        );
    }

    #[test]
    fn dir_and_mix_give_the_documented_default_fileset() {
        let s = job("[global]\ndir = '/mnt/t/fs'\nmix = 'read:60,write:20,stat:10,create:5,delete:5'\njobs = 4\nops = 10000\n").unwrap();
        assert!(s.targets.is_empty());
        assert_eq!(s.name, "mix-1");
        assert_eq!(
            (s.ops, s.duration_s, s.jobs, s.direct),
            (Some(10000), None, 4, false)
        );
        let fs = s.fs.unwrap();
        assert_eq!(fs.filesets.len(), 1);
        assert_eq!(
            fs.filesets[0].spec.anchor,
            std::path::Path::new("/mnt/t/fs")
        );
        assert_eq!(
            fs.filesets[0].spec.shape,
            Shape::Entries(EntriesShape {
                entries: 1000,
                dir_width: 100,
                size: FileSize::Fixed(64 << 10),
                prealloc: 100.0
            })
        );
        assert_eq!(
            (fs.filesets[0].format, fs.filesets[0].cleanup),
            (Format::No, false)
        );
        let FsWork::Mix(m) = &fs.work else { panic!() };
        assert_eq!(m.iter().map(|e| e.weight).sum::<u32>(), 100);
        assert_eq!(fs.select, FileSelect::Uniform);
    }

    #[test]
    fn vdbench_and_filebench_shapes_from_keys() {
        let s = job("[global]\nanchor = '/a'\nflow = 'open,read:whole:512k,close'\nfiles = 64\ndepth = 2\nwidth = 2\nsizes = '4g:1,6g:1'\nformat = 'restart'\ncleanup = true\nfileselect = 'seq'\n").unwrap();
        let fs = s.fs.unwrap();
        assert_eq!(
            fs.filesets[0].spec.shape,
            Shape::Tree(TreeShape {
                depth: 2,
                width: 2,
                files: 16,
                sizes: "4g:1,6g:1".into()
            })
        );
        assert_eq!(
            (fs.filesets[0].format, fs.filesets[0].cleanup, fs.select),
            (Format::Restart, true, FileSelect::Sequential)
        );
        let s = job("[global]\ndir = '/a'\nflow = 'create,close'\nnfiles = 5000\nfilesize = 'gamma:128k'\nmeandirwidth = 20\nprealloc = 80\nthink = '5ms'\n").unwrap();
        let fs = s.fs.unwrap();
        let Shape::Entries(e) = &fs.filesets[0].spec.shape else {
            panic!()
        };
        assert_eq!((e.entries, e.dir_width, e.prealloc), (5000, 20, 80.0));
        assert_eq!(
            e.size,
            FileSize::Gamma {
                mean: 128 << 10,
                shape: 1.5
            }
        );
        let FsWork::Flows(f) = &fs.work else { panic!() };
        assert_eq!((f[0].think_us, f[0].threads), (5000, 1));
    }

    #[test]
    fn personality_defaults_and_overrides_through_keys_and_flags() {
        let s = job("[global]\ndir = '/mnt/fb'\npersonality = 'fileserver'\n").unwrap();
        assert_eq!(
            (s.name.as_str(), s.duration_s, s.jobs),
            ("fileserver-1", Some(60.0), 1)
        );
        let fs = s.fs.as_ref().unwrap();
        assert_eq!(fs.personality.as_deref(), Some("fileserver"));
        assert_eq!(
            fs.filesets[0].spec.anchor,
            std::path::Path::new("/mnt/fb/bigfileset")
        );
        let FsWork::Flows(f) = &fs.work else { panic!() };
        assert_eq!(f[0].threads, 50);
        // The example: --personality fileserver --dir D --files 50000 --jobs 16.
        let file = parse_job_text(
            "[global]\ndir = '/mnt/fb'\npersonality = 'fileserver'\nfiles = 1000\n",
            "t",
        )
        .unwrap();
        let flags = crate::WorkloadOptions {
            files: Some("50000".into()),
            jobs: Some(16u32.into()),
            duration: Some("1s".into()),
            ..Default::default()
        };
        let s = resolve(&file.workloads()[0].overlay(&flags), 0).unwrap();
        let fs = s.fs.unwrap();
        let Shape::Entries(e) = &fs.filesets[0].spec.shape else {
            panic!()
        };
        assert_eq!(e.entries, 50_000, "the flag beats the key");
        let FsWork::Flows(f) = &fs.work else { panic!() };
        assert_eq!((f[0].threads, s.duration_s), (16, Some(1.0)));
        let s = job("[global]\ndir = '/d'\npersonality = 'oltp'\n").unwrap();
        assert_eq!(s.sync, SyncMode::Dsync);
        let s = job("[global]\ndir = '/d'\npersonality = 'varmail'\nmix = 'read:1,append:16k:1'\n")
            .unwrap();
        let fs = s.fs.unwrap();
        assert!(matches!(&fs.work, FsWork::Mix(m) if m[1].step.op == Op::Append));
        assert_eq!(
            fs.filesets[0].name, "bigfileset",
            "the personality's filesets stay"
        );
    }

    #[test]
    fn filesets_go_to_path_slash_name_with_the_single_filesets_defaults() {
        let s = job("[global]\ndir = '/mnt/fb'\nfilesets = 'bigfileset(files=10000 dir_width=20 size=gamma:128k prealloc=80) | logs(files=1 path=/mnt/other reuse)'\nflow = 'open,read:whole,close,open@logs,append:rand:16k,close'\nformat = 'restart'\ncleanup = true\n").unwrap();
        let fs = s.fs.unwrap();
        let names: Vec<_> = fs
            .filesets
            .iter()
            .map(|f| {
                (
                    f.name.as_str(),
                    f.spec.anchor.to_str().unwrap(),
                    f.make_parent,
                    f.format,
                    f.cleanup,
                )
            })
            .collect();
        assert_eq!(
            names,
            [
                (
                    "bigfileset",
                    "/mnt/fb/bigfileset",
                    true,
                    Format::Restart,
                    true
                ),
                ("logs", "/mnt/other/logs", true, Format::Restart, true)
            ]
        );
        assert_eq!(
            fs.filesets[0].spec.shape,
            Shape::Entries(EntriesShape {
                entries: 10_000,
                dir_width: 20,
                size: FileSize::Gamma {
                    mean: 128 << 10,
                    shape: 1.5
                },
                prealloc: 80.0
            })
        );
        assert_eq!(
            fs.filesets[1].spec.shape,
            Shape::Entries(EntriesShape {
                entries: 1,
                dir_width: 100,
                size: FileSize::Fixed(64 << 10),
                prealloc: 100.0
            })
        );
        let FsWork::Flows(f) = &fs.work else { panic!() };
        assert_eq!(
            f[0].steps.iter().map(|s| s.fileset).collect::<Vec<_>>(),
            [0, 0, 0, 1, 1, 1]
        );
        assert_eq!((s.name.as_str(), fs.personality), ("flow-1", None));
    }

    #[test]
    fn filesets_refuse_the_single_filesets_keys_and_a_personality() {
        for (extra, needle) in [
            ("files = 10", "--files describes one fileset"),
            ("file_size = '4k'", "--file-size describes one fileset"),
            ("dir_width = 4", "--dir-width describes one fileset"),
            ("prealloc = 50", "--prealloc describes one fileset"),
            ("depth = 1", "--depth describes one fileset"),
            ("width = 2", "--width describes one fileset"),
            ("sizes = '4k'", "--sizes describes one fileset"),
            ("personality = 'oltp'", "--filesets and --personality"),
            ("flow = 'open@nope,close'", "no fileset named 'nope'"),
        ] {
            let flow = if extra.starts_with("flow") {
                ""
            } else {
                "flow = 'open,close'\n"
            };
            let e = job(&format!(
                "[global]\ndir = '/d'\nfilesets = 'a(files=2) | b'\n{flow}{extra}\n"
            ))
            .unwrap_err();
            assert!(e.contains(needle) && !e.contains('\n'), "{extra}: {e}");
        }
        let e = job("[global]\ndir = '/d'\nfilesets = 'a(files=2) | b(size=3x)'\nmix = 'read:1'\n")
            .unwrap_err();
        assert!(e.contains("--filesets: 'size=3x' of fileset b"), "{e}");
        let e = job("[global]\nfilesets = 'a'\nmix = 'read:1'\n").unwrap_err();
        assert!(
            e.contains("--filesets is for files under a directory; give --dir DIR"),
            "{e}"
        );
        let e = job("[global]\ndir = '/d'\nfilesets = 'a | b(path=/d)'\nmix = 'read:1'\n");
        assert!(e.is_ok(), "/d/a and /d/b: {e:?}");
        let e = job("[global]\ndir = '/d'\nfilesets = 'a | a2(path=/d/a)'\nmix = 'read:1'\n");
        assert!(
            e.unwrap_err().contains("one inside the other"),
            "an anchor in another fileset's anchor"
        );
    }

    #[test]
    fn bad_file_system_input_is_one_line_naming_the_key() {
        for (body, needle) in [
            (
                "mix = 'read:1'",
                "--mix is for files under a directory; give --dir DIR",
            ),
            ("dir = '/d'", "--dir needs what to do with the files"),
            (
                "dir = '/d'\ntarget = '/x'\nmix = 'read:1'",
                "--target is for block targets",
            ),
            (
                "dir = '/d'\nrw = 'randread'\nmix = 'read:1'",
                "--rw is for block targets",
            ),
            ("dir = '/d'\nmix = 'read:1'\nflow = 'stat'", "give one"),
            (
                "dir = '/d'\nmix = 'read:1'\nfiles = 1001\nwidth = 10",
                "give 1000 or 1010 files",
            ),
            (
                "dir = '/d'\nmix = 'read:1'\nfiles = 5\ndepth = 1",
                "give 10 files",
            ),
            (
                "dir = '/d'\nmix = 'read:1'\nthink = '1s'",
                "--think pauses flows",
            ),
            (
                "dir = '/d'\npersonality = 'fileserver'\ndepth = 2",
                "--depth describes vdbench's tree",
            ),
            (
                "dir = '/d'\npersonality = 'fileserve'",
                "--personality fileserve is not known",
            ),
            (
                "dir = '/d'\npersonality = 'fileserver'\nbs = '4k:1,8k:1'",
                "one I/O size",
            ),
            ("dir = '/d'\nflow = 'read,close'", "needs an open file"),
            (
                "dir = '/d'\nmix = 'read:1'\nformat = 'only'",
                "--format only is not known",
            ),
            (
                "dir = '/d'\nmix = 'read:1'\nfile_select = 'zipf:0'",
                "--file-select",
            ),
            (
                "dir = '/d'\nmix = 'read:1'\nprealloc = 120",
                "--prealloc 120",
            ),
            (
                "dir = '/d'\nmix = 'read:1'\ndir_width = 20\ndepth = 2",
                "give one or the other",
            ),
            (
                "dir = '/d'\nmix = 'read:1'\nsizes = '4k'\nfile_size = '8k'",
                "give one",
            ),
            (
                "dir = '/d'\nmix = 'read:1'\nsizes = '64k:30,1m'",
                "--sizes 64k:30,1m gives weights to some sizes but not to others",
            ),
            ("dir = ''\nmix = 'read:1'", "key dir"),
        ] {
            let e = job(&format!("[global]\n{body}\n")).unwrap_err();
            assert!(e.contains(needle) && !e.contains('\n'), "{body}: {e}");
        }
    }

    #[test]
    fn mixes_and_flows_sweep_with_semicolons_or_arrays() {
        let j = parse_job_text(
            "[global]\ndir = '/d'\nmix = 'read:60,write:40;read:100'\nfiles = [100, 1000]\n",
            "t",
        )
        .unwrap();
        let runs = j.workloads()[0].expand();
        assert_eq!(runs.len(), 4);
        let specs: Vec<WorkloadSpec> = runs.iter().map(|(o, _)| resolve(o, 0).unwrap()).collect();
        let FsWork::Mix(m) = &specs[2].fs.as_ref().unwrap().work else {
            panic!()
        };
        assert_eq!(m.len(), 1, "the second mix, read:100");
        assert_eq!(
            runs[1].1,
            [
                ("mix".to_string(), "read:60,write:40".to_string()),
                ("files".into(), "1000".into())
            ]
        );
        let j = parse_job_text(
            "[global]\ndir = '/d'\nflow = ['open,read,close', 'create,close']\n",
            "t",
        )
        .unwrap();
        assert_eq!(j.workloads()[0].expand().len(), 2);
        let v = crate::Values::parse_arg_semi("read:60,write:40").unwrap();
        assert!(!v.is_list());
        assert!(crate::Values::parse_arg_semi("read:1;;stat:1").is_err());
    }
}
