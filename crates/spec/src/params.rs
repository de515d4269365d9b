//! Every workload parameter, defined once (in the spirit of fio's
//! `fio_options[]` and ripgrep's `flags/defs.rs`).
//!
//! [`workload_params!`](crate::workload_params) holds one entry per
//! parameter: its name (the job-file key and the field of
//! `iolab_jobfile::WorkloadOptions`), its flag, its job-file aliases (also
//! accepted as flags, `_` written `-`), how its value is given ([`Kind`]),
//! its help line, its default ([`DefaultIs`]), whether it takes a list (a
//! sweep, and where in the expansion order), whether it defines a workload
//! for `iolab compare` (and where among the match keys), and its line of the
//! parameter table in docs/jobfile.md. The macro hands the entries to a
//! callback macro, so each user builds what it needs from the same text:
//!
//! - [`PARAMS`] here: the table as data (for `compare`'s match keys, the
//!   docs table, `--help` defaults, aliases);
//! - `iolab_jobfile`: the `WorkloadOptions` struct with its serde keys and
//!   aliases, its clap flags (help with `[default: X]`), merging and sweeps;
//! - the binary: `iolab man` and `iolab completions` from those flags.
//!
//! Adding a parameter:
//! 1. add its entry to `workload_params!` below, where it belongs in
//!    `--help` (a `sweep` or `compare` place between two others' tens, e.g.
//!    235, puts it between them in the expansion order or the match keys);
//! 2. write the code that uses it: its `WorkloadSpec` field (and check, if
//!    any) in `workload.rs`, its resolution in `iolab_jobfile`'s
//!    `resolve.rs`, the driver that acts on it, and, if it is a match key,
//!    its value in `iolab_report`'s `compare/key.rs` (a test fails until
//!    there is one);
//! 3. regenerate the docs table: `IOLAB_BLESS=1 cargo test -p
//!    iolab-jobfile --test params` (that test fails until then, and names
//!    an alias missing from the docs' alias table).
//!
//! The flag, the job-file key and aliases, `--help` with its default, the
//! merging of a job file with flags, sweeps, `iolab man` and `iolab
//! completions` need nothing more.

/// How a parameter's value is given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Text parsed when the workload is resolved (a size, time, count or
    /// mode); may be a list (a sweep) when the parameter sweeps.
    Values,
    /// Like [`Kind::Values`], but the flag takes its value only with `=`
    /// (`--direct`, `--direct=false`).
    ValuesEq,
    /// Like [`Kind::Values`] for values that hold commas themselves (a
    /// `--mix`, a `--flow`): a list separates values with `;` (or is a
    /// TOML array).
    ValuesSemi,
    /// A string (a TOML string in a job file).
    Text,
    /// A string, or a number taken as its text (`interval = 2`).
    TextOrNumber,
    /// true or false; the flag takes its value only with `=`.
    Bool,
    /// A whole number.
    Uint,
    /// One path or several: the flag is repeated, the key takes an array.
    Paths,
    /// A flag without a value that sets the parameter named in `negates`
    /// to false (`--buffered`); not a job-file key.
    Switch,
}

/// What an unset parameter does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DefaultIs {
    /// Nothing: the parameter is not used (`--size`, `--journal`).
    Unset,
    /// A value a user could type, and when it applies (may be empty). A
    /// test resolves each against nothing given at all.
    Value(&'static str, &'static str),
    /// What happens, where no one value says it.
    Described(&'static str),
}

/// One workload parameter. See the module documentation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Param {
    /// The job-file key and the options field.
    pub name: &'static str,
    /// The long flag without `--`: the name with `_` written `-`.
    pub flag: &'static str,
    /// Other job-file keys (fio and vdbench names); each is also a flag.
    pub aliases: &'static [&'static str],
    pub short: Option<char>,
    pub kind: Kind,
    /// The placeholder of the value in `--help` (`SIZE`).
    pub value_name: &'static str,
    /// The `--help` section.
    pub heading: &'static str,
    /// The `--help` line (the default is appended from `default`).
    pub help: &'static str,
    pub default: DefaultIs,
    /// Takes a list: its place in the expansion order (the lowest is
    /// outermost). Numbered in tens, so that a new one fits in between.
    pub sweep: Option<u16>,
    /// Defines a workload for `iolab compare`: its place among the match
    /// keys (their display order), numbered in tens.
    pub compare: Option<u16>,
    /// For a [`Kind::Switch`]: the parameter it sets to false.
    pub negates: Option<&'static str>,
    /// The Type column of the docs table.
    pub doc_type: &'static str,
    /// The Meaning column of the docs table (Markdown).
    pub doc: &'static str,
}

impl Param {
    /// Whether a job file has this key (switches are flags only).
    pub fn is_key(&self) -> bool {
        self.kind != Kind::Switch
    }

    /// Whether the flag takes its value only after `=`.
    pub fn value_after_equals(&self) -> bool {
        matches!(self.kind, Kind::Bool | Kind::ValuesEq)
    }

    /// The flags of the aliases: `iodepth_batch_complete_min` is
    /// `--iodepth-batch-complete-min`.
    pub fn alias_flags(&self) -> impl Iterator<Item = String> {
        self.aliases.iter().map(|a| a.replace('_', "-"))
    }

    /// What `--help` appends to the help line: `[default: 4k]`,
    /// `[default: 10s, when neither --io-size nor --ops is given]`.
    pub fn help_suffix(&self) -> Option<String> {
        match self.default {
            DefaultIs::Unset => None,
            DefaultIs::Value(v, "") => Some(format!("[default: {v}]")),
            DefaultIs::Value(v, note) => Some(format!("[default: {v}, {note}]")),
            DefaultIs::Described(what) => Some(format!("[default: {what}]")),
        }
    }
}

/// The entries, handed to `$callback!` as
/// `name: Kind { flag: "...", aliases: [...], ... }, ...`.
#[macro_export]
macro_rules! workload_params {
    ($callback:ident) => {
        $callback! {
            name: Text {
                flag: "name", aliases: [], short: None, value_name: "NAME", heading: "Workload",
                help: "Workload name, shown in tables and stored in results",
                default: Described("the mode and the workload's number, e.g. read-1"),
                sweep: None, compare: None, negates: None,
                doc_type: "string",
                doc: "Name shown in tables and stored in the results. Unset: `<rw>-<n>`, e.g. `randread-2` (n = position in the job, from 1); a file-system workload's `<personality>-<n>`, `mix-<n>` or `flow-<n>`, and when its `mix` or `flow` is swept the point's value too, `mix[read:1]-1`, `mix[stat:1]-1`.",
            },
            target: Paths {
                flag: "target", aliases: ["targets"], short: Some('t'), value_name: "PATH", heading: "Targets",
                help: "A regular file or block device (repeat for several targets; HOST:PATH is one host's)",
                default: Unset,
                sweep: None, compare: None, negates: None,
                doc_type: "string, list or table by host",
                doc: "Regular files or block devices. With several targets, worker *i* drives target *i* mod T when there are at least as many workers as targets (LUN A, LUN B, A, ...); with fewer workers, each worker cycles over several targets. Without a target, `iolab run` runs its default job. On several hosts, `{ h1 = \"/dev/sdb\", h2 = \"/dev/sdc\" }` (or `--target h1:/dev/sdb`) gives each host its own, and `{host}` in a path is the host's name ([Several hosts](#several-hosts)).",
            },
            size: Values {
                flag: "size", aliases: [], short: None, value_name: "SIZE", heading: "Targets",
                help: "Create a missing file at this size (or use this much of a target)",
                default: Unset,
                sweep: Some(170), compare: None, negates: None,
                doc_type: "size",
                doc: "A missing file is created at this size (sparse). A smaller file that iolab owns is extended to it. On a larger file or a device, only the first SIZE bytes are used. A device smaller than SIZE is an error, and so is a file to create or extend beyond the free space of its file system (checked before any I/O). Must be at least `offset` + the largest block size.",
            },
            offset: Values {
                flag: "offset", aliases: [], short: None, value_name: "SIZE", heading: "Targets",
                help: "Start of the region I/O goes to, in bytes from the target's start",
                default: Value("0", ""),
                sweep: Some(180), compare: None, negates: None,
                doc_type: "size",
                doc: "Start of the region that I/O goes to, in bytes. Applies to every target.",
            },
            range: Values {
                flag: "range", aliases: [], short: None, value_name: "SIZE", heading: "Targets",
                help: "Length of the region",
                default: Described("to the end of the target"),
                sweep: Some(190), compare: None, negates: None,
                doc_type: "size",
                doc: "Length of the region.",
            },
            hit_area: Values {
                flag: "hit-area", aliases: [], short: None, value_name: "SIZE", heading: "Targets",
                help: "Leading part of the region that \"cached\" I/O goes to (vdbench hitarea)",
                default: Value("0", "no hit area"),
                sweep: Some(200), compare: Some(120), negates: None,
                doc_type: "size",
                doc: "The first `hit_area` bytes of each target's region are the hit area (vdbench `hitarea`). Hit-area I/O stays inside it; all other I/O goes to the rest of the region. Must not be larger than the region.",
            },
            read_hit_pct: Values {
                flag: "read-hit-pct", aliases: ["rhpct"], short: None, value_name: "PCT", heading: "Targets",
                help: "Share of reads sent to the hit area, 0-100 (vdbench rhpct)",
                default: Value("0", ""),
                sweep: Some(210), compare: Some(130), negates: None,
                doc_type: "0-100",
                doc: "Share of reads sent to the hit area (vdbench `rhpct`). Has no effect without `hit_area`.",
            },
            write_hit_pct: Values {
                flag: "write-hit-pct", aliases: ["whpct"], short: None, value_name: "PCT", heading: "Targets",
                help: "Share of writes sent to the hit area, 0-100 (vdbench whpct)",
                default: Value("0", ""),
                sweep: Some(220), compare: Some(140), negates: None,
                doc_type: "0-100",
                doc: "Share of writes sent to the hit area (vdbench `whpct`).",
            },
            destroy_data_on: Paths {
                flag: "destroy-data-on", aliases: [], short: None, value_name: "PATH", heading: "Targets",
                help: "Writing a target iolab did not create (or a device carrying data) destroys its data: name it here to allow that",
                default: Unset,
                sweep: None, compare: None, negates: None,
                doc_type: "string, list or table by host",
                doc: "Paths whose data you allow iolab to destroy. See [Data safety](#data-safety). On several hosts, a table by host (or `h1:/dev/sdb`) names a host's own ([Several hosts](#several-hosts)).",
            },
            allow_mounted_write: Bool {
                flag: "allow-mounted-write", aliases: [], short: None, value_name: "BOOL", heading: "Targets",
                help: "Also write a --destroy-data-on device while it is mounted, held or active swap (fio allow_mounted_write); this corrupts whatever uses it",
                default: Value("false", ""),
                sweep: None, compare: None, negates: None,
                doc_type: "bool",
                doc: "Also write a device named in `destroy_data_on` while it is mounted, held, active swap or claimed (fio `allow_mounted_write`). This corrupts whatever uses the device. See [Data safety](#data-safety).",
            },
            prefill: Bool {
                flag: "prefill", aliases: [], short: None, value_name: "BOOL", heading: "Targets",
                help: "Write every target end to end first, block devices too",
                default: Described("only files iolab created"),
                sweep: None, compare: None, negates: None,
                doc_type: "bool",
                doc: "`true`: write every target end to end before the workload, block devices included. `false`: never. Unset: only files iolab created. See [Prefill](#prefill).",
            },
            no_prefill: Switch {
                flag: "no-prefill", aliases: [], short: None, value_name: "", heading: "Targets",
                help: "Do not write files end to end before the workload",
                default: Unset,
                sweep: None, compare: None, negates: Some("prefill"),
                doc_type: "",
                doc: "",
            },
            dir: Values {
                flag: "dir", aliases: ["anchor"], short: None, value_name: "DIR", heading: "File system",
                help: "Run a file-system workload on files under DIR (its anchor; vdbench anchor=, filebench $dir)",
                default: Unset,
                sweep: Some(165), compare: None, negates: None,
                doc_type: "string (directory)",
                doc: "The anchor directory of a file-system workload, instead of `target`: the fileset is created under it (a personality's filesets under `DIR/NAME`). Created if missing (its parent must exist), adopted if empty, refused if it holds files iolab did not mark. A list sweeps, e.g. the same workload on two file systems. `{host}` in it is the host's name on several hosts (`localhost` on this one alone), so hosts sharing a file system each get their own anchor. See [docs/filesystem.md](filesystem.md).",
            },
            personality: Values {
                flag: "personality", aliases: [], short: None, value_name: "NAME", heading: "File system",
                help: "A filebench personality: fileserver, varmail, webserver, webproxy, videoserver or oltp",
                default: Unset,
                sweep: Some(11), compare: None, negates: None,
                doc_type: "string",
                doc: "Run a filebench personality by name (`fileserver`, `varmail`, `webserver`, `webproxy`, `videoserver`, `oltp`) with filebench 1.5's defaults; `files`, `file_size`, `dir_width`, `prealloc`, `jobs`, `bs`, `append_size` and `duration` override them, and `mix` or `flow` replace its flows on its filesets. Needs `dir`.",
            },
            mix: ValuesSemi {
                flag: "mix", aliases: [], short: None, value_name: "MIX", heading: "File system",
                help: "A weighted mix of file operations, e.g. read:60,write:20,stat:10,create:5,delete:5",
                default: Unset,
                sweep: Some(12), compare: None, negates: None,
                doc_type: "string",
                doc: "A weighted mix of file operations, `OP[:MODIFIERS]:WEIGHT,...` (elbencho, vdbench `fwd`s with `skew`); each of `jobs` threads draws its next operation by weight. Several mixes to sweep: separate them with `;` or give an array. See [the step syntax](filesystem.md#steps).",
            },
            flow: ValuesSemi {
                flag: "flow", aliases: [], short: None, value_name: "STEPS", heading: "File system",
                help: "Steps each thread repeats in order, e.g. create,write:whole,close,open,read:whole,close,delete",
                default: Unset,
                sweep: Some(13), compare: None, negates: None,
                doc_type: "string",
                doc: "Flows of ordered steps each thread repeats (filebench flowops): `[NAME(THREADS rate=OPS think=TIME):] STEP,...`, several flows separated by `|`; a flow without a head has `jobs` threads. Several to sweep: separate them with `;` or give an array. See [the step syntax](filesystem.md#steps).",
            },
            filesets: Text {
                flag: "filesets", aliases: [], short: None, value_name: "SETS", heading: "File system",
                help: "Several named filesets, each at DIR/NAME, e.g. 'big(files=1000 size=gamma:128k) | log(files=1)'",
                default: Unset,
                sweep: None, compare: None, negates: None,
                doc_type: "string",
                doc: "Several named filesets of one workload (filebench's `define fileset`s), separated by `|`, each `NAME(OPTIONS)` with space-separated `files=N`, `dir_width=N`, `size=SIZE` or `gamma:MEAN[:SHAPE]`, `prealloc=PCT`, `path=DIR`, `reuse`, `readonly`; what a fileset leaves out is the single fileset's default. Each goes to `PATH/NAME` (`PATH` the workload's `dir` unless given; made when missing). Steps name them `@NAME`. Instead of `files`, `file_size`, `dir_width`, `prealloc`, `depth`, `width` and `sizes`. See [filesets](filesystem.md#several-filesets).",
            },
            files: Values {
                flag: "files", aliases: ["nfiles", "entries"], short: None, value_name: "N", heading: "File system",
                help: "Files in the fileset, all directories together (filebench nfiles)",
                default: Described("1000, or the personality's"),
                sweep: Some(171), compare: None, negates: None,
                doc_type: "integer",
                doc: "Files in the fileset, all its directories together (filebench `nfiles`/`entries`; vdbench's `files=` counts per leaf directory: multiply it by `width^depth`). With `depth`/`width` it must divide evenly among the `width^depth` leaf directories; otherwise any number lays out, `dir_width` to a directory.",
            },
            file_size: Values {
                flag: "file-size", aliases: ["filesize"], short: None, value_name: "SIZE", heading: "File system",
                help: "Size of each file: SIZE, or gamma:MEAN[:SHAPE] as filebench draws it",
                default: Described("64k, or the personality's"),
                sweep: Some(172), compare: None, negates: None,
                doc_type: "size or gamma:MEAN[:SHAPE]",
                doc: "Size of each file: a size (`64k`) or `gamma:MEAN[:SHAPE]` (filebench's `cvar-gamma`, shape 1.5 unless given; needs filebench's shape, `dir_width`).",
            },
            sizes: Values {
                flag: "sizes", aliases: [], short: None, value_name: "SIZES", heading: "File system",
                help: "Weighted file sizes as vdbench gives them, e.g. 64k:30,1m:70",
                default: Unset,
                sweep: Some(173), compare: None, negates: None,
                doc_type: "size mix",
                doc: "Weighted file sizes (vdbench `sizes=`, weights instead of percentages), e.g. `64k:30,1m:70`: every size gets a weight (`64k:30,1m` is refused; `64k,1m` sweeps); instead of `file_size`, with `depth`/`width`.",
            },
            depth: Values {
                flag: "depth", aliases: [], short: None, value_name: "N", heading: "File system",
                help: "Directory levels under the anchor (vdbench depth)",
                default: Described("1 once width or sizes is given; unset: files go dir_width to a directory"),
                sweep: Some(174), compare: None, negates: None,
                doc_type: "integer",
                doc: "Levels of directories under the anchor (vdbench `depth`); 0 puts the files in the anchor. Chooses vdbench's tree (with `width` 10 unless given) instead of filebench's shape.",
            },
            width: Values {
                flag: "width", aliases: [], short: None, value_name: "N", heading: "File system",
                help: "Directories per level (vdbench width)",
                default: Described("10 once depth or sizes is given; unset: files go dir_width to a directory"),
                sweep: Some(175), compare: None, negates: None,
                doc_type: "integer",
                doc: "Directories in each directory of a level (vdbench `width`): `width^depth` leaf directories hold the files. Chooses vdbench's tree (with `depth` 1 unless given).",
            },
            dir_width: Values {
                flag: "dir-width", aliases: ["dirwidth", "meandirwidth"], short: None, value_name: "N", heading: "File system",
                help: "Files per directory, filebench's shape (used unless depth, width or sizes ask for vdbench's tree)",
                default: Described("100, or the personality's"),
                sweep: Some(176), compare: None, negates: None,
                doc_type: "integer",
                doc: "Files per directory, and subdirectories per directory (filebench `dirwidth`/`$meandirwidth`, used as is, not as a mean): the tree is as deep as it needs to be, and any number of files lays out. filebench's shape is the default; `depth`, `width` or `sizes` choose vdbench's tree instead.",
            },
            prealloc: Values {
                flag: "prealloc", aliases: [], short: None, value_name: "PCT", heading: "File system",
                help: "Share of the files created before the run, 0-100 (filebench prealloc)",
                default: Described("100, or the personality's"),
                sweep: Some(177), compare: None, negates: None,
                doc_type: "0-100",
                doc: "Share of the files created (and filled) before the run (filebench `prealloc`); the others are there for `create` to make. filebench's shape only (vdbench's tree makes every file).",
            },
            format: Text {
                flag: "format", aliases: [], short: None, value_name: "MODE", heading: "File system",
                help: "A fileset that exists: yes (make it again), no (use it) or restart (also fix sizes)",
                default: Value("no", ""),
                sweep: None, compare: None, negates: None,
                doc_type: "string",
                doc: "What to do with a fileset that exists (vdbench `format=`): `yes` deletes it and makes every file again, `no` uses what exists and creates what is missing, `restart` also brings files of the wrong size back to theirs. Under `no` an anchor whose marker records another layout (files at other paths or sizes than this run's) is refused before any I/O, also between the points of a sweep; a change of the file count alone that keeps every file's path and size is used (see [format](filesystem.md#format)).",
            },
            cleanup: Bool {
                flag: "cleanup", aliases: [], short: None, value_name: "BOOL", heading: "File system",
                help: "Remove the fileset's files after the run",
                default: Value("false", "kept for the next run"),
                sweep: None, compare: None, negates: None,
                doc_type: "bool",
                doc: "Remove the fileset after the run: its files, the side directories `NAME.d` its `mkdir` operations made beside them, then its directories when empty (the anchor and its marker stay, the marker then recording an empty tree, as do files iolab did not make); by default all is kept for the next run, like vdbench's anchors and filebench's `reuse`.",
            },
            file_select: Values {
                flag: "file-select", aliases: ["fileselect"], short: None, value_name: "MODE", heading: "File system",
                help: "How an operation picks a file: seq, random or zipf:THETA",
                default: Value("random", ""),
                sweep: Some(178), compare: None, negates: None,
                doc_type: "string",
                doc: "How an operation that needs an existing file picks it (vdbench `fileselect=`): `seq` in order, `random` uniformly (filebench's choice), `zipf:THETA` skewed, a few files getting most operations.",
            },
            append_size: Values {
                flag: "append-size", aliases: ["meanappendsize"], short: None, value_name: "SIZE", heading: "File system",
                help: "Size of the append steps that give none; a personality's largest append (filebench $meanappendsize)",
                default: Described("the personality's; else bs"),
                sweep: Some(179), compare: None, negates: None,
                doc_type: "size",
                doc: "The size of the `append` steps that give none: a personality's largest append (filebench `$meanappendsize`, webproxy's `$meaniosize`; appends are uniform up to it), and in a `mix` or `flow` the size of each `append` step without a SIZE of its own (else `bs`; `append:rand` is uniform up to it). A mix or flow with no such step refuses it.",
            },
            rw: Values {
                flag: "rw", aliases: [], short: None, value_name: "MODE", heading: "Access pattern",
                help: "read, write, randread, randwrite, rw, randrw, trim, randtrim, trimwrite, randtrimwrite",
                default: Value("read", ""),
                sweep: Some(10), compare: None, negates: None,
                doc_type: "string",
                doc: "`read`, `write`, `randread`, `randwrite`, `rw` (or `readwrite`), `randrw`, or the trim (discard) modes `trim`, `randtrim`, `trimwrite`, `randtrimwrite` (fio's: trimwrite trims each block, then writes the same block). Sets `read_pct` and `random_pct`: read 100/0, write 0/0, randread 100/100, randwrite 0/100, rw 50/0, randrw 50/100, trim and trimwrite 0/0, randtrim and randtrimwrite 0/100. A trim destroys data as a write does (`destroy_data_on` applies); it is a BLKDISCARD on a block device (refused before any I/O where the device has no discard) and a punched hole in a file; `verify` refuses trim modes.",
            },
            read_pct: Values {
                flag: "read-pct", aliases: ["rdpct"], short: None, value_name: "PCT", heading: "Access pattern",
                help: "Share of I/Os that are reads, 0-100 (overrides the mix of --rw)",
                default: Described("the mix of --rw"),
                sweep: Some(20), compare: Some(10), negates: None,
                doc_type: "0-100",
                doc: "Share of I/Os that are reads. Overrides the mix of `rw`.",
            },
            random_pct: Values {
                flag: "random-pct", aliases: ["seekpct"], short: None, value_name: "PCT", heading: "Access pattern",
                help: "Chance, 0-100, that an I/O jumps to a random offset (vdbench seekpct)",
                default: Described("the mix of --rw"),
                sweep: Some(30), compare: Some(20), negates: None,
                doc_type: "0-100",
                doc: "Chance that an I/O jumps to a random offset instead of continuing its stream sequentially (vdbench `seekpct`): 0 is sequential, 100 is all random.",
            },
            bs: Values {
                flag: "bs", aliases: ["iosize"], short: None, value_name: "SIZE", heading: "Access pattern",
                help: "Block size, or a weighted mix such as 4k:60,8k:30,64k:10",
                default: Value("4k", ""),
                sweep: Some(40), compare: Some(30), negates: None,
                doc_type: "size or mix",
                doc: "Block size, or a weighted mix. At most 1 GiB.",
            },
            align: Values {
                flag: "align", aliases: [], short: None, value_name: "SIZE", heading: "Access pattern",
                help: "Offset alignment",
                default: Described("the smallest block size"),
                sweep: Some(50), compare: None, negates: None,
                doc_type: "size",
                doc: "Random offsets are multiples of `align` from the start of the region.",
            },
            distribution: Values {
                flag: "distribution", aliases: [], short: None, value_name: "DIST", heading: "Access pattern",
                help: "Random offsets: uniform, zipf:THETA, pareto:H, normal:DEV, zoned:IO/SPACE:..., zoned_abs:IO/SIZE:... or hotspot:PCT_IO/PCT_SPACE",
                default: Value("uniform", ""),
                sweep: Some(60), compare: Some(110), negates: None,
                doc_type: "string",
                doc: "How random offsets are chosen: `uniform` (or fio's `random`); `zipf:THETA[:CENTER]` (theta > 0 and not 1, e.g. `zipf:1.2`; hot blocks are scattered over the region, the hottest `CENTER` (0-1) of the way in, else at a seeded place); `pareto:H[:CENTER]` (0 < H < 1, scattered like zipf); `normal:DEV[:CENTER]` (a Gaussian with standard deviation DEV % of the region, centred `CENTER` of the way in, default 0.5); `hotspot:PCT_IO/PCT_SPACE` (e.g. `hotspot:90/10`: 90 % of random I/O goes to the first 10 % of the region); `zoned:IO/SPACE:...` (fio's: e.g. `zoned:60/10:30/20:10/70`, zones in order from the region's start, an empty SPACE shares what is left) or `zoned_abs:IO/SIZE:...` (zones in bytes, e.g. `zoned_abs:60/20g:40/100g`). Per-direction zones (fio's `,`) are refused.",
            },
            bs_write: Values {
                flag: "bs-write", aliases: [], short: None, value_name: "SIZE", heading: "Access pattern",
                help: "Block size or mix of writes (fio bs=,W)",
                default: Described("--bs"),
                sweep: Some(41), compare: None, negates: None,
                doc_type: "size or mix",
                doc: "Block size or weighted mix of writes, as `bs` (fio's second value of `bs=R,W,T`); unset, writes use `bs`.",
            },
            bs_trim: Values {
                flag: "bs-trim", aliases: [], short: None, value_name: "SIZE", heading: "Access pattern",
                help: "Block size or mix of trims (fio bs=,,T)",
                default: Described("--bs"),
                sweep: Some(42), compare: None, negates: None,
                doc_type: "size or mix",
                doc: "Block size or weighted mix of trims, as `bs` (fio's third value of `bs=R,W,T`); unset, trims use `bs`. With `trimwrite` the write after a trim covers the trimmed block, so it has the trim's size.",
            },
            hole: Values {
                flag: "hole", aliases: [], short: None, value_name: "SIZE", heading: "Access pattern",
                help: "Bytes a sequential stream skips after each I/O (fio rw=write:4k); negative steps back (rw=read:-8k)",
                default: Value("0", ""),
                sweep: None, compare: None, negates: None,
                doc_type: "size",
                doc: "A sequential stream skips this many bytes after each I/O (fio's `rw=write:4k`): with `bs = 4k` and `hole = 4k`, every other block. A negative hole (`-8k`, fio's `rw=read:-8k`) moves the stream by bs + hole after each I/O, so with `bs = 4k` it reads blocks going down; a stream that would pass the region's start wraps to its end minus the hole's size, as fio's does. Random I/O is not affected.",
            },
            random_every: Values {
                flag: "random-every", aliases: [], short: None, value_name: "N", heading: "Access pattern",
                help: "A random workload jumps every N I/Os, sequential in between (fio rw=randread:8)",
                default: Value("1", "every I/O"),
                sweep: None, compare: None, negates: None,
                doc_type: "count",
                doc: "A random workload draws a new random offset every N I/Os and goes on sequentially in between (fio's `rw=randread:8`); with `random_pct` below 100 the N-th I/O jumps with that chance.",
            },
            offset_increment: Values {
                flag: "offset-increment", aliases: [], short: None, value_name: "SIZE", heading: "Access pattern",
                help: "Worker i's region starts at offset + i x this (fio offset_increment)",
                default: Value("0", "every worker shares the region"),
                sweep: None, compare: None, negates: None,
                doc_type: "size",
                doc: "Worker i (counting the workers of a target from 0) gets its own region from `offset` + i × `offset_increment`, `range` bytes long (to the end of the target without `range`), as fio's `offset_increment` with `numjobs`. Every worker's region must fit in the target: refused before any I/O otherwise.",
            },
            prio_class: TextOrNumber {
                flag: "prio-class", aliases: ["prioclass"], short: None, value_name: "CLASS", heading: "Access pattern",
                help: "I/O priority class of every I/O: rt, be or idle (fio prioclass)",
                default: Value("none", "the process's"),
                sweep: None, compare: None, negates: None,
                doc_type: "string",
                doc: "The I/O priority class of the workload's I/Os (fio `prioclass`): `rt` (1), `be` (2) or `idle` (3), with `prio` as the level. io_uring carries it on every I/O (`sqe.ioprio`); the synchronous engines set it on each worker thread (`ioprio_set`). The device's I/O scheduler decides what it means (none ignores it). RT needs CAP_SYS_ADMIN.",
            },
            prio: Values {
                flag: "prio", aliases: [], short: None, value_name: "LEVEL", heading: "Access pattern",
                help: "I/O priority level 0 (highest) to 7 (fio prio); alone, class be",
                default: Described("none; 4 when prio_class is rt or be"),
                sweep: None, compare: None, negates: None,
                doc_type: "0-7",
                doc: "The level within `prio_class` (fio `prio`), 0 highest; a level without a class is best-effort's, as in fio.",
            },
            cmdprio_pct: TextOrNumber {
                flag: "cmdprio-pct", aliases: ["cmdprio_percentage"], short: None, value_name: "PCT[,W]", heading: "Access pattern",
                help: "Share of reads[,writes] issued with cmdprio_class/cmdprio's priority (fio cmdprio_percentage; io_uring)",
                default: Value("0", ""),
                sweep: None, compare: None, negates: None,
                doc_type: "percent[,percent]",
                doc: "The share of I/Os, reads and writes (`20,10`; one value for both), that carry the priority `cmdprio_class`/`cmdprio` instead of the workload's (fio `cmdprio_percentage`). Each I/O draws from its own seeded random numbers. io_uring only.",
            },
            cmdprio_class: TextOrNumber {
                flag: "cmdprio-class", aliases: [], short: None, value_name: "CLASS[,W]", heading: "Access pattern",
                help: "Class of cmdprio's I/Os, reads[,writes] (fio cmdprio_class)",
                default: Value("rt", ""),
                sweep: None, compare: None, negates: None,
                doc_type: "string",
                doc: "The class of the I/Os `cmdprio_pct` or the short form of `cmdprio_bssplit` picks: `rt`, `be`, `idle` or 1-3, for reads and writes (`1,3`).",
            },
            cmdprio: TextOrNumber {
                flag: "cmdprio", aliases: [], short: None, value_name: "LEVEL[,W]", heading: "Access pattern",
                help: "Level of cmdprio's I/Os, reads[,writes] (fio cmdprio)",
                default: Value("0", ""),
                sweep: None, compare: None, negates: None,
                doc_type: "0-7[,0-7]",
                doc: "The level of the I/Os `cmdprio_pct` or the short form of `cmdprio_bssplit` picks, for reads and writes.",
            },
            cmdprio_bssplit: Text {
                flag: "cmdprio-bssplit", aliases: [], short: None, value_name: "SPEC", heading: "Access pattern",
                help: "Per block size shares with their own priority: BS/PCT[/CLASS/LEVEL[/HINT]]:...[,writes] (fio cmdprio_bssplit)",
                default: Described("none"),
                sweep: None, compare: None, negates: None,
                doc_type: "string",
                doc: "fio's `cmdprio_bssplit`: for reads (and, after a comma, writes; one list serves both), entries `BS/PCT` (the I/Os of size BS get `cmdprio_class`/`cmdprio` with chance PCT %) or `BS/PCT/CLASS/LEVEL[/HINT]` (their own priority; HINT 0-1023 is the ioprio hint, e.g. a CDL descriptor), joined by `:`; entries of one size add up to at most 100 %. Other I/Os carry the workload's priority. Excludes `cmdprio_pct`. io_uring only.",
            },
            seed: Uint {
                flag: "seed", aliases: [], short: None, value_name: "N", heading: "Access pattern",
                help: "Seed for every random choice (runs with the same seed repeat exactly)",
                default: Value("65963", "plus the run's index in its plan"),
                sweep: None, compare: None, negates: None,
                doc_type: "integer",
                doc: "Seed for every random choice (65963 is 0x101AB). Workload n of a job (counting from 0) uses seed + n, so every workload has its own sequence, and the same job with the same seed repeats each worker's sequence of offsets, sizes and directions. A fileset's layout (its drawn file sizes, which files are made before the run) uses the base seed alone, so the workloads and runs of a job that give one anchor the same fileset keys lay out one tree.",
            },
            jobs: Values {
                flag: "jobs", aliases: ["numjobs", "nthreads"], short: None, value_name: "N", heading: "Concurrency",
                help: "Worker threads",
                default: Value("1", ""),
                sweep: Some(80), compare: Some(60), negates: None,
                doc_type: "1-4096",
                doc: "Worker threads. Each sequential worker is one stream, with its own cursor started at an evenly spaced point of the region.",
            },
            qd: Values {
                flag: "qd", aliases: ["iodepth"], short: None, value_name: "N", heading: "Concurrency",
                help: "Outstanding I/Os per worker",
                default: Value("1", ""),
                sweep: Some(90), compare: Some(40), negates: None,
                doc_type: "1-4096",
                doc: "Outstanding I/Os per worker. Total outstanding = `jobs` × `qd`.",
            },
            batch_complete: Values {
                flag: "batch-complete", aliases: ["iodepth_batch_complete_min"], short: None, value_name: "N", heading: "Concurrency",
                help: "Wait until N of a worker's I/Os have completed (or all in flight, if fewer) before issuing more (fio iodepth_batch_complete_min)",
                default: Value("1", "refill after every completion"),
                sweep: Some(100), compare: Some(50), negates: None,
                doc_type: "1-4096",
                doc: "A worker waits until this many of its I/Os have completed (all of them, if fewer are in flight) before it issues more, like fio `iodepth_batch_complete_min`. `1` refills after every completion, so `qd` I/Os are always outstanding. Larger values take fewer system calls and wake-ups per I/O, which can raise IOPS where the submitting thread competes for CPU with the I/O path (io_uring's io-wq workers on zram, a loop device's worker), at the price of fewer outstanding I/Os on average (between `qd` − N and `qd`) and latencies that include the wait for the batch. Submissions are always batched: everything that can be issued goes in one system call.",
            },
            engine: Values {
                flag: "engine", aliases: ["ioengine"], short: None, value_name: "ENGINE", heading: "Concurrency",
                help: "io_uring, psync, null, or fio's falloc, ftruncate, page_fault",
                default: Value("io_uring", ""),
                sweep: Some(70), compare: Some(70), negates: None,
                doc_type: "string",
                doc: "`io_uring` (also `iouring`, `uring`), `psync` (also `sync`; one I/O per worker, so `qd` must be 1) or `null` (no I/O, to measure iolab itself); fio's synchronous engines (one I/O per worker, `qd` 1, no data moved, so no `verify`) `falloc` (a write is `fallocate` mode 0, extending the file; a read `fallocate` with `KEEP_SIZE`; a trim a punched hole), `ftruncate` (a write truncates the file to its offset: a write workload's target must be a file, never a block device) and `page_fault` (reads and writes copy a block from and to anonymous memory of the region's size, private to the worker, faulting its pages in: the target is opened, not read or written). If io_uring is not available, iolab falls back to psync with `jobs` × `qd` workers and says so.",
            },
            cpus: TextOrNumber {
                flag: "cpus", aliases: ["cpus_allowed"], short: None, value_name: "LIST", heading: "Concurrency",
                help: "Pin workers to these CPUs, e.g. 2 or 0-3,8: worker i runs on the i-th CPU of the list, round robin (fio cpus_allowed with cpus_allowed_policy=split)",
                default: Described("not pinned"),
                sweep: None, compare: None, negates: None,
                doc_type: "string",
                doc: "CPUs to pin the workers to, in the kernel's list notation (`2`, `0-3,8`). Worker *i* runs on the *i*-th CPU of the list, round robin (fio's `cpus_allowed` with `cpus_allowed_policy=split`). Every CPU must be one iolab may run on (see `taskset -p $$`), or the run is refused with exit code 2. A worker pins itself before it allocates its buffers. Not a sweep parameter. See \"Pinning\" below.",
            },
            numa_cpu_nodes: Values {
                flag: "numa-cpu-nodes", aliases: [], short: None, value_name: "NODES", heading: "Concurrency",
                help: "Run the workers on the CPUs of these NUMA nodes (fio numa_cpu_nodes)",
                default: Unset,
                sweep: None, compare: None, negates: None,
                doc_type: "string",
                doc: "Let every worker run on the CPUs of these NUMA nodes (fio `numa_cpu_nodes`): `0`, `0-1`, `0,2`. The CPUs are read from /sys/devices/system/node/nodeN/cpulist when the workload starts; a node that does not exist there stops it before any I/O. With `cpus` too, `cpus` pins each worker and this is checked only.",
            },
            numa_mem_policy: Values {
                flag: "numa-mem-policy", aliases: [], short: None, value_name: "POLICY", heading: "Concurrency",
                help: "Memory policy of each worker's buffers: local, prefer:N, bind:NODES, interleave:NODES (fio numa_mem_policy)",
                default: Unset,
                sweep: None, compare: None, negates: None,
                doc_type: "string",
                doc: "Each worker sets this memory policy (set_mempolicy(2)) on its thread before it allocates its I/O buffers (fio `numa_mem_policy`): `default`, `local`, `prefer:N`, `bind:NODES` or `interleave:NODES`. The nodes must exist when the workload starts.",
            },
            clock: Text {
                flag: "clock", aliases: ["clocksource"], short: None, value_name: "CLOCK", heading: "Concurrency",
                help: "Clock for every timestamp: auto (the CPU's TSC where the kernel's own clocksource is tsc, else clock_gettime), tsc (fio clocksource=cpu) or clock_gettime",
                default: Value("auto", ""),
                sweep: None, compare: None, negates: None,
                doc_type: "string",
                doc: "The clock every timestamp is read from: `auto` reads the CPU's time-stamp counter where the kernel itself keeps CLOCK_MONOTONIC on it (`current_clocksource` is `tsc`), else `clock_gettime`; `tsc` (fio's `cpu`) insists on the TSC and is refused with exit code 2 where the kernel does not use it; `clock_gettime` never reads the TSC. The result's `effective.clock` says which was used. Not a sweep parameter. See \"Clock\" below.",
            },
            rate: Values {
                flag: "rate", aliases: ["iorate"], short: None, value_name: "IOPS", heading: "Concurrency",
                help: "Total I/O rate in IOPS on a fixed schedule",
                default: Described("unlimited"),
                sweep: Some(110), compare: Some(170), negates: None,
                doc_type: "number",
                doc: "Total I/Os per second across all workers, issued on a fixed schedule. Response times are then measured from each I/O's scheduled start. Omit the key for unlimited; there is no `\"max\"` value.",
            },
            think: Values {
                flag: "think", aliases: [], short: None, value_name: "TIME", heading: "Concurrency",
                help: "Pause of each worker after every --think-blocks I/Os (fio thinktime), or of each flow thread after every pass (filebench delay)",
                default: Value("0s", ""),
                sweep: Some(235), compare: None, negates: None,
                doc_type: "duration",
                doc: "A block workload's workers each pause this long after every `think_blocks` I/Os (fio `thinktime`, `thinktime_blocks`): a worker issues `think_blocks` I/Os, waits until they have all completed, then sleeps. A file-system workload's flow threads pause this long after every pass through their steps (filebench `delay`), unless the flow has its own (a head's `think=`, videoserver's writer); a mix has no passes and refuses it.",
            },
            think_blocks: Values {
                flag: "think-blocks", aliases: [], short: None, value_name: "N", heading: "Concurrency",
                help: "I/Os a worker issues between two pauses of --think (fio thinktime_blocks)",
                default: Value("1", ""),
                sweep: None, compare: None, negates: None,
                doc_type: "integer",
                doc: "How many I/Os each worker of a block workload issues between two pauses of `think` (fio `thinktime_blocks`). Needs `think`. Not a sweep parameter.",
            },
            arrival: Values {
                flag: "arrival", aliases: [], short: None, value_name: "PROCESS", heading: "Concurrency",
                help: "With --rate: fixed (evenly spaced I/Os) or poisson (exponential gaps, fio rate_process=poisson)",
                default: Value("fixed", ""),
                sweep: None, compare: None, negates: None,
                doc_type: "string",
                doc: "How a `rate` spaces a worker's I/Os: `fixed`, evenly; `poisson`, with exponentially distributed gaps of the same mean, drawn from the worker's seeded random numbers (fio `rate_process=poisson`). Response times are measured from each I/O's scheduled start either way. Needs `rate`. Not a sweep parameter.",
            },
            skew: Values {
                flag: "skew", aliases: [], short: None, value_name: "PCT", heading: "Concurrency",
                help: "This workload's share of its run's rate, in percent (vdbench skew)",
                default: Described("an even part of what the other workloads' shares leave"),
                sweep: None, compare: Some(180), negates: None,
                doc_type: "number, above 0 to 100",
                doc: "The share of its run's `rate`, in percent, that this workload issues (vdbench `skew`): with a run rate of 10000 IOPS, `skew = 25` runs the workload at 2500 IOPS. The shares of a run's workloads add up to at most 100; what they leave is split evenly over the workloads without one. A share needs a rate on the run. Not a sweep parameter.",
            },
            curve: Text {
                flag: "curve", aliases: [], short: None, value_name: "PCTS", heading: "Concurrency",
                help: "Run a response-time curve (vdbench iorate=curve): at the maximum rate, then at each of these percentages of the IOPS it measured, e.g. 10,50,90 or default (10,50,70,80,90,100)",
                default: Unset,
                sweep: None, compare: None, negates: None,
                doc_type: "string",
                doc: "A key of the run (vdbench `iorate=curve` with `curve=`): the run runs first at the maximum rate (no `rate`), then once per percentage, in the order given, at that percentage of the total IOPS the maximum run measured, each later run's rate shared by its workloads as a `rate` is (`skew`). Percentages are comma-separated numbers above 0 (above 100 is allowed); `default` is vdbench's 10,50,70,80,90,100. The runs are named `NAME (max)` and `NAME (10%)`, .... The curve needs no `rate`, and refuses one. See \"Curves\" below.",
            },
            stop_curve: Values {
                flag: "stop-curve", aliases: [], short: None, value_name: "TIME", heading: "Concurrency",
                help: "End a --curve once a point's mean service time is above this, e.g. 5ms (vdbench stopcurve)",
                default: Unset,
                sweep: None, compare: None, negates: None,
                doc_type: "duration",
                doc: "A key of the run (vdbench `stopcurve=`, which gives milliseconds): once a curve point's mean response time from issue (its service time, `summary.total.svc_lat_us.mean`: every operation of the run, as vdbench's response time) is above this, the curve's remaining points are not run; the point that crossed it is kept. Give a unit (`5ms`): a bare number is refused, since vdbench's is milliseconds and iolab's durations are seconds. Needs `curve`.",
            },
            duration: Values {
                flag: "duration", aliases: [], short: None, value_name: "TIME", heading: "Duration",
                help: "Measured run time after warm-up, e.g. 30s",
                default: Value("10s", "when neither --io-size nor --ops is given"),
                sweep: Some(240), compare: None, negates: None,
                doc_type: "duration",
                doc: "Measured time after the warm-up.",
            },
            io_size: Values {
                flag: "io-size", aliases: [], short: None, value_name: "SIZE", heading: "Duration",
                help: "End after this many bytes (all workers together)",
                default: Unset,
                sweep: Some(250), compare: None, negates: None,
                doc_type: "size",
                doc: "End after this many bytes, all workers together, counted after the warm-up.",
            },
            ops: Values {
                flag: "ops", aliases: [], short: None, value_name: "N", heading: "Duration",
                help: "End after this many I/Os (all workers together)",
                default: Unset,
                sweep: Some(260), compare: None, negates: None,
                doc_type: "integer",
                doc: "End after this many I/Os, all workers together, counted after the warm-up.",
            },
            warmup: Values {
                flag: "warmup", aliases: [], short: None, value_name: "TIME", heading: "Duration",
                help: "Run this long before measuring; excluded from every figure",
                default: Value("0s", ""),
                sweep: Some(270), compare: None, negates: None,
                doc_type: "duration",
                doc: "Run this long before measuring. Warm-up is excluded from every figure except the error counts.",
            },
            start_delay: Values {
                flag: "start-delay", aliases: ["startdelay"], short: None, value_name: "TIME", heading: "Duration",
                help: "Start this long after the run starts (fio startdelay), e.g. 5s",
                default: Value("0s", ""),
                sweep: Some(230), compare: None, negates: None,
                doc_type: "duration",
                doc: "The workload starts this long after its run starts (fio `startdelay`): streams launched 5 s apart are workloads of one run with `start_delay` 0, 5 s, 10 s, ...",
            },
            interval: TextOrNumber {
                flag: "interval", aliases: [], short: None, value_name: "TIME", heading: "Duration",
                help: "Length of each interval of the time series",
                default: Value("1s", ""),
                sweep: None, compare: None, negates: None,
                doc_type: "duration",
                doc: "Length of each interval of the time series (at least 1 ms).",
            },
            stall_threshold: TextOrNumber {
                flag: "stall-threshold", aliases: [], short: None, value_name: "TIME", heading: "Duration",
                help: "A gap with no completion this long is reported as a stall",
                default: Value("1s", ""),
                sweep: None, compare: None, negates: None,
                doc_type: "duration",
                doc: "A time with I/O outstanding and no completion at least this long is recorded as a stall event (gaps under 10 ms are never recorded).",
            },
            steady: Values {
                flag: "steady", aliases: [], short: None, value_name: "CRITERION:LIMIT", heading: "Duration",
                help: "End once IOPS, bandwidth or latency has levelled: iops:10%, iops_slope:0.1%, bw:5%, bw_slope:1m, lat:5% (fio ss)",
                default: Described("none; fio's iops_slope:0.01% when only steady_duration is given"),
                sweep: None, compare: None, negates: None,
                doc_type: "string",
                doc: "End the workload as soon as its IOPS, bandwidth or mean latency has levelled (fio `ss`): `iops`, `iops_slope`, `bw`, `bw_slope`, `lat` or `lat_slope`, a colon and a limit. Once a second (after `steady_ramp`) the run core takes the workload's IOPS, bandwidth and mean latency over that second; over the last `steady_duration` of such samples, `iops`/`bw`/`lat` hold when every sample is within the limit of the window's mean, `iops_slope`/`bw_slope`/`lat_slope` when the least-squares slope is (per second). A limit with `%` is a share of the window's mean; without, IOPS, bytes per second (`bw:10m`) or a latency (`lat:200us`; a bare number is microseconds, as in fio). The run goes on for the other workloads; without levelling, the workload runs its full time and the result says steady state was not reached. Needs `steady_duration`; `steady_duration` alone judges `iops_slope:0.01%`, fio's default. See [results](results.md) `steady_state`.",
            },
            steady_duration: Values {
                flag: "steady-duration", aliases: [], short: None, value_name: "TIME", heading: "Duration",
                help: "The window over which --steady is judged (fio ss_dur)",
                default: Unset,
                sweep: None, compare: None, negates: None,
                doc_type: "duration",
                doc: "The sliding window over which `steady` is judged (fio `ss_dur`), a whole number of seconds (at least 2 samples). Needed with `steady`.",
            },
            steady_ramp: Values {
                flag: "steady-ramp", aliases: [], short: None, value_name: "TIME", heading: "Duration",
                help: "Run this long before --steady starts sampling (fio ss_ramp)",
                default: Value("0s", ""),
                sweep: None, compare: None, negates: None,
                doc_type: "duration",
                doc: "How long the workload runs, from its start (after `warmup`), before `steady` starts taking samples (fio `ss_ramp`).",
            },
            exitall: Bool {
                flag: "exitall", aliases: [], short: None, value_name: "BOOL", heading: "Duration",
                help: "When this workload ends, end the others of its group (fio exitall)",
                default: Value("false", ""),
                sweep: None, compare: None, negates: None,
                doc_type: "bool",
                doc: "When this workload ends (its time, size or I/O count done, or its steady state reached), the run core stops the other workloads that `exit_what` names (fio `exitall`). A workload ended this way says so in its `ended_by`; it is complete. A workload ended by another's `exitall` does not end others in turn.",
            },
            exit_what: Values {
                flag: "exit-what", aliases: [], short: None, value_name: "SCOPE", heading: "Duration",
                help: "Which workloads exitall ends: group, stonewall or all (fio exit_what)",
                default: Value("group", ""),
                sweep: None, compare: None, negates: None,
                doc_type: "string",
                doc: "Which workloads `exitall` ends (fio `exit_what`): `group`, the run's workloads of the same fio reporting group (for iolab's own jobs, every workload of the run); `stonewall`, every workload of the run; `all`, every workload of the run, and the job's later runs do not run.",
            },
            flow_weight: Uint {
                flag: "flow-weight", aliases: [], short: None, value_name: "N", heading: "Rate and pacing",
                help: "Weight in token-based flow control between workloads of one flow id (fio flow)",
                default: Unset,
                sweep: None, compare: None, negates: None,
                doc_type: "integer",
                doc: "Couple this workload's progress to the run's other workloads with the same `flow_id` (fio `flow`): every worker counts its I/Os against the flow's shared count, and a worker whose share of that count is above its share of the flow's total weight (the weights of every worker of the flow) sleeps `flow_sleep` before its next I/O. Workloads of weights 8 and 1 do about 8 I/Os to 1 (per worker). Unset: not coupled (no cost per I/O).",
            },
            flow_id: Uint {
                flag: "flow-id", aliases: [], short: None, value_name: "N", heading: "Rate and pacing",
                help: "The flow --flow-weight counts in (fio flow_id)",
                default: Value("0", ""),
                sweep: None, compare: None, negates: None,
                doc_type: "integer",
                doc: "The flow a workload with `flow_weight` belongs to (fio `flow_id`); workloads of one run with the same id are coupled.",
            },
            flow_sleep: Values {
                flag: "flow-sleep", aliases: [], short: None, value_name: "TIME", heading: "Rate and pacing",
                help: "How long a worker ahead of its flow share sleeps (fio flow_sleep)",
                default: Value("0", "the worker yields the CPU"),
                sweep: None, compare: None, negates: None,
                doc_type: "duration",
                doc: "How long a worker that is ahead of its share of its flow sleeps before it tries again (fio `flow_sleep`, whose unit is microseconds: the mapper writes `us`). 0 yields the CPU instead.",
            },
            direct: ValuesEq {
                flag: "direct", aliases: [], short: None, value_name: "BOOL", heading: "Caching and durability",
                help: "O_DIRECT",
                default: Described("true for block devices, false for files"),
                sweep: Some(120), compare: Some(80), negates: None,
                doc_type: "bool",
                doc: "O_DIRECT: bypass the page cache. With O_DIRECT, `bs`, `align` and `offset` must be multiples of the target's logical block size (or the file system's direct-I/O alignment).",
            },
            buffered: Switch {
                flag: "buffered", aliases: [], short: None, value_name: "", heading: "Caching and durability",
                help: "Buffered I/O through the page cache (--direct=false)",
                default: Unset,
                sweep: None, compare: None, negates: Some("direct"),
                doc_type: "",
                doc: "",
            },
            sync: Values {
                flag: "sync", aliases: [], short: None, value_name: "MODE", heading: "Caching and durability",
                help: "none or dsync (O_DSYNC: every write durable on completion)",
                default: Value("none", ""),
                sweep: Some(130), compare: Some(90), negates: None,
                doc_type: "string",
                doc: "`none`, or `dsync` (also `o_dsync`): open with O_DSYNC, so every write is durable when it completes.",
            },
            fsync_every: Values {
                flag: "fsync-every", aliases: [], short: None, value_name: "N", heading: "Caching and durability",
                help: "fsync after every N writes per worker",
                default: Value("0", "never"),
                sweep: Some(140), compare: Some(100), negates: None,
                doc_type: "integer",
                doc: "Each worker waits for its in-flight I/O and calls fsync after every N writes.",
            },
            fdatasync_every: Values {
                flag: "fdatasync-every", aliases: [], short: None, value_name: "N", heading: "Caching and durability",
                help: "fdatasync after every N writes per worker",
                default: Value("0", "never"),
                sweep: None, compare: None, negates: None,
                doc_type: "integer",
                doc: "Each worker waits for its in-flight I/O and calls fdatasync on every target it wrote after every N writes (fio `fdatasync`); counted in `fsyncs`. With `fsync_every` too, whichever falls due syncs. Not a sweep parameter.",
            },
            end_fsync: Bool {
                flag: "end-fsync", aliases: [], short: None, value_name: "BOOL", heading: "Caching and durability",
                help: "fsync every written target when the workload ends (fio end_fsync)",
                default: Value("false", ""),
                sweep: None, compare: None, negates: None,
                doc_type: "bool",
                doc: "When the workload ends, each worker waits for its in-flight I/O and fsyncs every target it wrote (fio `end_fsync`); counted in `fsyncs`, and part of the measured time.",
            },
            invalidate: Bool {
                flag: "invalidate", aliases: [], short: None, value_name: "BOOL", heading: "Caching and durability",
                help: "Drop the targets' page cache before the workload (fio invalidate)",
                default: Value("false", ""),
                sweep: None, compare: None, negates: None,
                doc_type: "bool",
                doc: "Before the workload's first I/O (after any prefill), drop the cached pages of each target's region with `posix_fadvise(POSIX_FADV_DONTNEED)`, files and block devices alike (fio `invalidate`, whose default is on; iolab's is off; fio uses the `BLKFLSBUF` ioctl on a device). iolab writes nothing for it (the kernel may start writing back pages that were already dirty). A target whose cache cannot be dropped gets a note.",
            },
            unlink: Bool {
                flag: "unlink", aliases: [], short: None, value_name: "BOOL", heading: "Caching and durability",
                help: "Remove the target files iolab created when the workload ends (fio unlink)",
                default: Value("false", ""),
                sweep: None, compare: None, negates: None,
                doc_type: "bool",
                doc: "When the workload ends, remove each of its target files that iolab created: in this run, or in an earlier one (the file carries iolab's ownership mark) (fio `unlink`). Any other file, and a block device, is never removed: each gets a note instead.",
            },
            fill: Bool {
                flag: "fill", aliases: [], short: None, value_name: "BOOL", heading: "Caching and durability",
                help: "Write until the target is full: ENOSPC ends the workload, not an error (fio fill_device)",
                default: Value("false", ""),
                sweep: None, compare: None, negates: None,
                doc_type: "bool",
                doc: "Write until the file system is full (fio `fill_device`/`fill_fs`): a write that fails with ENOSPC or EDQUOT ends each worker as the workload's natural end: a note counts them, they are not errors, the results are kept and the exit code is 0. A short write counts the same way. A missing file without `size` is created at the file system's free space. Block devices end at their size as usual.",
            },
            atomic: Bool {
                flag: "atomic", aliases: [], short: None, value_name: "BOOL", heading: "Caching and durability",
                help: "Issue writes with RWF_ATOMIC, torn-write protection (fio atomic; Linux 6.11+)",
                default: Value("false", ""),
                sweep: None, compare: None, negates: None,
                doc_type: "bool",
                doc: "Every write is issued with `RWF_ATOMIC` (fio `atomic`): all or none of it reaches the medium after a power cut or crash. Needs `direct`, Linux 6.11 or later and a target whose atomic write limits (statx `STATX_WRITE_ATOMIC`) cover every write block size; otherwise the run stops before any I/O with one line saying the target's limits.",
            },
            data: Values {
                flag: "data", aliases: [], short: None, value_name: "PATTERN", heading: "Data",
                help: "random, zero, compress:RATIO or pattern:0xHEX",
                default: Value("random", ""),
                sweep: Some(150), compare: Some(150), negates: None,
                doc_type: "string",
                doc: "What writes contain: `random`, `zero` (also `zeros`), `compress:RATIO` (ratio ≥ 1, e.g. `compress:2`) or `pattern:0xHEX` / `pattern:\"TEXT\"` (1, 2, 4, ... 64 bytes repeated by offset; with `verify` every read is compared with it). See [Data](#data).",
            },
            dedupe: Values {
                flag: "dedupe", aliases: [], short: None, value_name: "PCT", heading: "Data",
                help: "Share of written blocks, 0-100, that repeat earlier content",
                default: Value("0", ""),
                sweep: Some(160), compare: Some(160), negates: None,
                doc_type: "0-100",
                doc: "Share of writes whose blocks repeat earlier content.",
            },
            on_error: Text {
                flag: "on-error", aliases: [], short: None, value_name: "POLICY", heading: "Errors",
                help: "stop or continue after an I/O error",
                default: Value("stop", ""),
                sweep: None, compare: None, negates: None,
                doc_type: "string",
                doc: "`stop`: the first I/O error stops the run and the rest of the job. `continue`: count errors and go on. Either way every error is counted and recorded (path, offset of a transfer, errno) and a run with errors exits 1. In a file-system workload, errors that say someone else changed the tree never stop it: a file or directory removed (`ENOENT`, `ESTALE`), made (`EEXIST`), filled (`ENOTEMPTY`), replaced by another kind or a symbolic link (`ENOTDIR`, `EISDIR`, `ELOOP`, `EXDEV`), or a file cut short (`short_transfer`, once per cut); any other (`EIO`, `ENOSPC`, `EACCES`, `EROFS`, ...) stops it under `stop`. See [filesystem.md](filesystem.md#files-changed-by-someone-else).",
            },
            verify: Bool {
                flag: "verify", aliases: [], short: None, value_name: "BOOL", heading: "Data validation",
                help: "Stamp every written 512-byte sector and check every read of a written block",
                default: Value("false", ""),
                sweep: None, compare: Some(190), negates: None,
                doc_type: "bool",
                doc: "Stamp every written 512-byte sector and check every read of a block written by this run or its journal. See [Data validation](#data-validation). As a match key of `iolab compare` it includes `verify_after`.",
            },
            verify_after: Bool {
                flag: "verify-after", aliases: [], short: None, value_name: "BOOL", heading: "Data validation",
                help: "Re-read every write once it completes and check it (implies --verify)",
                default: Value("false", ""),
                sweep: None, compare: None, negates: None,
                doc_type: "bool",
                doc: "Re-read every write once it completes and check it. Implies `verify`.",
            },
            journal: Text {
                flag: "journal", aliases: [], short: None, value_name: "DIR", heading: "Data validation",
                help: "Keep the generation map on stable storage in DIR: later runs carry on from it and `iolab verify --journal DIR` checks after a crash (implies --verify)",
                default: Unset,
                sweep: None, compare: None, negates: None,
                doc_type: "string (directory)",
                doc: "Keep the generation map on stable storage in this directory: later runs carry on from it and `iolab verify --journal DIR` checks the target, also after a crash. Implies `verify`.",
            },
            max_errors: Uint {
                flag: "max-errors", aliases: [], short: None, value_name: "N", heading: "Data validation",
                help: "Stop the run after N data validation findings",
                default: Value("50", "0: never stop"),
                sweep: None, compare: None, negates: None,
                doc_type: "integer",
                doc: "Stop the run after this many data validation findings (`0`: never). Counted per workload.",
            },
        }
    };
}

/// Builds [`PARAMS`] from the entries.
macro_rules! param_table {
    ($($name:ident : $kind:ident {
        flag: $flag:literal, aliases: [$($alias:literal),*], short: $short:expr,
        value_name: $vn:literal, heading: $heading:literal, help: $help:literal,
        default: $default:expr, sweep: $sweep:expr, compare: $compare:expr,
        negates: $negates:expr, doc_type: $doc_type:literal, doc: $doc:literal $(,)?
    }),* $(,)?) => {
        /// Every workload parameter, in the order of `--help` and the docs
        /// table.
        pub const PARAMS: &[Param] = &[$(Param {
            name: stringify!($name),
            flag: $flag,
            aliases: &[$($alias),*],
            short: $short,
            kind: Kind::$kind,
            value_name: $vn,
            heading: $heading,
            help: $help,
            default: {
                #[allow(unused_imports)]
                use DefaultIs::*;
                $default
            },
            sweep: $sweep,
            compare: $compare,
            negates: $negates,
            doc_type: $doc_type,
            doc: $doc,
        }),*];
    };
}

workload_params!(param_table);

/// The parameter with this name or alias, in key (`read_pct`) or flag
/// (`--read-pct`, `read-pct`) form.
pub fn find(name: &str) -> Option<&'static Param> {
    let key = name.trim_start_matches('-').replace('-', "_");
    PARAMS
        .iter()
        .find(|p| p.name == key || p.aliases.contains(&key.as_str()))
}

/// The parameters that take a list, in expansion order: the first is
/// outermost, the last varies fastest.
pub fn swept() -> Vec<&'static Param> {
    let mut v: Vec<&Param> = PARAMS.iter().filter(|p| p.sweep.is_some()).collect();
    v.sort_by_key(|p| p.sweep);
    v
}

/// The flags of the parameters that define a workload for `iolab
/// compare`, in display order.
pub fn match_keys() -> Vec<&'static str> {
    let mut v: Vec<&Param> = PARAMS.iter().filter(|p| p.compare.is_some()).collect();
    v.sort_by_key(|p| p.compare);
    v.into_iter().map(|p| p.flag).collect()
}

/// The switch that sets `p` to false (`--buffered` for `direct`).
pub fn negation_of(p: &Param) -> Option<&'static Param> {
    PARAMS.iter().find(|s| s.negates == Some(p.name))
}

/// The parameter table of docs/jobfile.md, one row per job-file key.
pub fn docs_table() -> String {
    let mut out =
        String::from("| Key (alias) | Flag | Type | Default | Meaning |\n|---|---|---|---|---|\n");
    for p in PARAMS.iter().filter(|p| p.is_key()) {
        let mut key = format!("`{}`", p.name);
        if !p.aliases.is_empty() {
            let a: Vec<String> = p.aliases.iter().map(|a| format!("`{a}`")).collect();
            key.push_str(&format!(" ({})", a.join(", ")));
        }
        let mut flags = Vec::new();
        if let Some(s) = p.short {
            flags.push(format!("`-{s}`"));
        }
        let eq = if p.value_after_equals() {
            "[=BOOL]"
        } else {
            ""
        };
        flags.push(format!("`--{}{eq}`", p.flag));
        if let Some(n) = negation_of(p) {
            flags.push(format!("`--{}`", n.flag));
        }
        let default = match p.default {
            DefaultIs::Unset => "none".to_string(),
            DefaultIs::Value(v, "") => format!("`{v}`"),
            DefaultIs::Value(v, note) => format!("`{v}` ({note})"),
            DefaultIs::Described(what) => what.to_string(),
        };
        out.push_str(&format!(
            "| {key} | {} | {} | {default} | {} |\n",
            flags.join(", "),
            p.doc_type,
            p.doc
        ));
    }
    out
}

/// The sentence of docs/jobfile.md that lists the parameters taking
/// lists, in expansion order.
pub fn docs_sweep_list() -> String {
    let names: Vec<String> = swept().iter().map(|p| format!("`{}`", p.name)).collect();
    let (last, rest) = names.split_last().expect("some parameters sweep");
    format!(
        "**Parameters that take lists**, in expansion order: {} and {last}.\n",
        rest.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_flags_and_aliases_are_unique_and_consistent() {
        let mut seen = std::collections::BTreeSet::new();
        for p in PARAMS {
            assert_eq!(p.flag, p.name.replace('_', "-"), "{}", p.name);
            for n in std::iter::once(p.name).chain(p.aliases.iter().copied()) {
                assert!(seen.insert(n), "{n} is defined twice");
            }
            assert_eq!(find(&format!("--{}", p.flag)), Some(p));
            for a in p.alias_flags() {
                assert_eq!(find(&a), Some(p), "{a}");
            }
            assert!(
                !p.help.ends_with('.'),
                "{}: help ends with a period",
                p.name
            );
            if p.kind == Kind::Switch {
                let n = p.negates.and_then(find);
                assert!(n.is_some_and(|n| n.is_key()), "{}", p.name);
            } else {
                assert!(!p.value_name.is_empty() && !p.doc.is_empty(), "{}", p.name);
            }
        }
    }

    #[test]
    fn sweep_and_compare_places_are_unique() {
        for place in [|p: &Param| p.sweep, |p: &Param| p.compare] {
            let mut r: Vec<u16> = PARAMS.iter().filter_map(place).collect();
            let n = r.len();
            r.sort();
            r.dedup();
            assert_eq!(r.len(), n, "two parameters share a place: {r:?}");
        }
        // Only parameters given as text parsed later can take a list.
        for p in swept() {
            assert!(
                matches!(p.kind, Kind::Values | Kind::ValuesEq | Kind::ValuesSemi),
                "{}",
                p.name
            );
        }
        assert_eq!(swept()[0].name, "rw");
        assert_eq!(swept().last().unwrap().name, "warmup");
    }

    #[test]
    fn the_new_parameters_are_defined() {
        let s = find("startdelay").unwrap();
        assert_eq!((s.name, s.flag), ("start_delay", "start-delay"));
        assert!(s.sweep.is_some());
        assert_eq!(s.help_suffix().as_deref(), Some("[default: 0s]"));
        let k = find("--skew").unwrap();
        assert!(k.sweep.is_none() && k.compare.is_some());
        assert!(match_keys().contains(&"skew"));
        assert!(docs_table().contains("| `start_delay` (`startdelay`) | `--start-delay` |"));
    }
}
