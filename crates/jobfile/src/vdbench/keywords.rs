//! The keywords vdbench 5.04 knows, per definition kind (read from its
//! `MiscParms`, `HostParms`, `ReplayRun`, `FsdEntry`, `SD_entry`,
//! `WD_entry`, `FwdEntry` and `RD_entry` classes), and how a keyword as
//! written becomes the one [`super::VdbParam::key`] holds.
//!
//! vdbench accepts any abbreviation of at least two characters (it asks
//! `"xfersize".startsWith(keyword)`, first match wins). iolab accepts an
//! abbreviation when it abbreviates one keyword only and writes it out
//! (`xfer` -> `xfersize`); aliases become the first name of their entry
//! (`readpct` -> `rdpct`, `total_size` -> `totalsize`).

use super::DefKind;

/// `(keyword, aliases)`.
type Entry = (&'static str, &'static [&'static str]);

/// vdbench's dedup keywords (exact names in vdbench).
const DEDUP: &[Entry] = &[
    ("dedupratio", &[]),
    ("dedupunit", &[]),
    ("dedupsets", &[]),
    ("deduphotsets", &[]),
    ("dedupflipflop", &[]),
    ("dedupacross", &[]),
    ("dedupmaxkey", &[]),
];

/// Parameters before the first definition.
const GENERAL: &[Entry] = &[
    ("compratio", &[]),
    ("compressionseed", &[]),
    ("compression", &[]),
    ("dedup", &[]),
    ("port", &[]),
    ("pattern", &[]),
    ("data_errors", &["dataerrors"]),
    ("swat", &[]),
    ("validate", &[]),
    ("journal", &[]),
    ("startcmd", &["start_cmd"]),
    ("endcmd", &["end_cmd"]),
    ("heartbeat_error", &[]),
    ("debug", &[]),
    ("unix2windows", &[]),
    ("formatxfersize", &[]),
    ("create_anchors", &[]),
    ("formatsds", &[]),
    ("report", &[]),
    ("report_run_totals", &[]),
    ("histogram", &[]),
    ("psrset", &[]),
    ("auxreport", &[]),
    ("monitor", &[]),
    ("concatenatesds", &[]),
    ("messagescan", &[]),
    ("abort_failed_skew", &[]),
    ("misc", &[]),
    ("pattern_buffer", &[]),
    ("showlba", &[]),
    ("loop", &[]),
];

const HOST: &[Entry] = &[
    ("system", &[]),
    ("vdbench", &[]),
    ("shell", &[]),
    ("user", &[]),
    ("jvms", &[]),
    ("clients", &[]),
    ("mount", &[]),
];

const REPLICATION: &[Entry] = &[("devices", &[])];

const FSD: &[Entry] = &[
    ("anchor", &[]),
    ("journal", &[]),
    ("host", &["hd"]),
    ("width", &[]),
    ("depth", &[]),
    ("sizes", &[]),
    ("shared", &[]),
    ("wss", &["workingsetsize"]),
    ("totalsize", &["total_size"]),
    ("files", &[]),
    ("distribution", &[]),
    ("cleanup", &[]),
    ("openflags", &[]),
    ("log", &[]),
    ("count", &[]),
    ("mask", &[]),
];

const SD: &[Entry] = &[
    ("host", &["hd"]),
    ("lun", &[]),
    ("count", &[]),
    ("size", &[]),
    ("threads", &[]),
    ("hitarea", &[]),
    ("offset", &[]),
    ("align", &[]),
    ("kstat", &[]),
    ("instance", &[]),
    ("replay", &[]),
    ("journal", &[]),
    ("resetlun", &[]),
    ("resetbus", &[]),
    ("openflags", &[]),
    ("range", &[]),
    ("streams", &[]),
];

const WD: &[Entry] = &[
    ("sd", &[]),
    ("skew", &[]),
    ("xfersize", &[]),
    ("rdpct", &["readpct"]),
    ("wrpct", &["writepct"]),
    ("range", &[]),
    ("hotband", &[]),
    ("seekpct", &[]),
    ("stride", &[]),
    ("priority", &[]),
    ("iorate", &[]),
    ("rhpct", &[]),
    ("whpct", &[]),
    ("host", &["hd"]),
    ("openflags", &[]),
    ("user", &[]),
    ("threads", &[]),
    ("streams", &[]),
];

const FWD: &[Entry] = &[
    ("fsd", &[]),
    ("rdpct", &["readpct"]),
    ("stopafter", &[]),
    ("operation", &[]),
    ("fileselect", &[]),
    ("fileio", &[]),
    ("xfersize", &["xfersizes"]),
    ("skew", &[]),
    ("threads", &[]),
    ("target", &[]),
    ("host", &["hd"]),
    ("openflags", &[]),
];

const RD: &[Entry] = &[
    ("wd", &[]),
    ("sd", &[]),
    ("fsd", &[]),
    ("fwd", &[]),
    ("iorate", &[]),
    ("maxdata", &[]),
    ("maxdataread", &[]),
    ("maxdatawritten", &[]),
    ("curve", &[]),
    ("stopcurve", &[]),
    ("elapsed", &[]),
    ("interval", &[]),
    ("warmup", &[]),
    ("replay", &[]),
    ("pause", &[]),
    ("forxfersize", &[]),
    ("forthreads", &[]),
    ("forrdpct", &[]),
    ("forrhpct", &[]),
    ("forwhpct", &[]),
    ("forseekpct", &[]),
    ("forhitarea", &[]),
    ("forcompratio", &[]),
    ("forcompression", &[]),
    ("fordepth", &[]),
    ("forwidth", &[]),
    ("forfiles", &[]),
    ("forsizes", &[]),
    ("fortotalsize", &[]),
    ("forwss", &["forworkingsetsize"]),
    ("foroperations", &[]),
    ("xfersize", &[]),
    ("threads", &[]),
    ("rdpct", &[]),
    ("rhpct", &[]),
    ("whpct", &[]),
    ("seekpct", &[]),
    ("hitarea", &[]),
    ("compratio", &[]),
    ("compression", &[]),
    ("depth", &[]),
    ("width", &[]),
    ("files", &[]),
    ("sizes", &[]),
    ("totalsize", &[]),
    ("wss", &["workingsetsize"]),
    ("distribution", &[]),
    ("startcmd", &["start_cmd"]),
    ("endcmd", &["end_cmd"]),
    ("fwdrate", &[]),
    ("operations", &[]),
    ("format", &[]),
    ("openflags", &[]),
    ("mount", &[]),
];

/// The keywords of a kind (`None`: the general parameters), without the
/// dedup ones.
fn table(kind: Option<DefKind>) -> &'static [Entry] {
    match kind {
        None => GENERAL,
        Some(DefKind::Host) => HOST,
        Some(DefKind::Replication) => REPLICATION,
        Some(DefKind::FileSystem) => FSD,
        Some(DefKind::Storage) => SD,
        Some(DefKind::Workload) => WD,
        Some(DefKind::FsWorkload) => FWD,
        Some(DefKind::Run) => RD,
    }
}

/// Whether the kind takes vdbench's dedup keywords.
fn has_dedup(kind: Option<DefKind>) -> bool {
    matches!(kind, None | Some(DefKind::Storage | DefKind::FileSystem))
}

/// Every keyword of a kind, in vdbench's order (for messages).
pub fn names(kind: Option<DefKind>) -> Vec<&'static str> {
    let mut v: Vec<&'static str> = table(kind).iter().map(|e| e.0).collect();
    if has_dedup(kind) {
        v.extend(DEDUP.iter().map(|e| e.0));
    }
    v
}

/// Why a keyword was not taken.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unknown {
    /// No keyword of the kind is it or starts with it.
    Unknown,
    /// It abbreviates several keywords (listed).
    Ambiguous(Vec<&'static str>),
}

/// The keyword `key` (lower-case) stands for in a definition of `kind`:
/// itself or its alias's first name, else the one keyword it abbreviates
/// (two characters at least, as vdbench).
pub fn canonical(kind: Option<DefKind>, key: &str) -> Result<&'static str, Unknown> {
    let entries = table(kind)
        .iter()
        .chain(if has_dedup(kind) { DEDUP } else { &[] });
    let mut prefix_of: Vec<&'static str> = Vec::new();
    for &(name, aliases) in entries {
        if name == key || aliases.contains(&key) {
            return Ok(name);
        }
        let abbreviates =
            key.len() >= 2 && (name.starts_with(key) || aliases.iter().any(|a| a.starts_with(key)));
        if abbreviates && !prefix_of.contains(&name) {
            prefix_of.push(name);
        }
    }
    match prefix_of.len() {
        0 => Err(Unknown::Unknown),
        1 => Ok(prefix_of[0]),
        _ => Err(Unknown::Ambiguous(prefix_of)),
    }
}

/// The general keywords a parameter file may start with (see
/// [`super::parse::looks_like_vdbench`]), besides the definitions'.
pub fn is_general(key: &str) -> bool {
    key == "include"
        || GENERAL.iter().any(|e| e.0 == key || e.1.contains(&key))
        || DEDUP.iter().any(|e| e.0 == key)
}
