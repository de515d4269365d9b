//! vdbench's hosts (docs/vdbench.md "Several hosts"): `hd=` definitions
//! onto iolab's hosts, the luns an sd names on each host (`host=`/`lun=`
//! pairs, as vdbench's `SD_entry` reads them) and the hosts a wd runs on
//! (`host=`, vdbench's default every host), as `HOST:PATH` targets.

use super::super::{DefKind, VdbDef, VdbFile, VdbParam};
use super::Notes;
use crate::resolve::JobError;
use iolab_spec::HostSpec;

/// `hd` keywords accepted and ignored, with why.
const IGNORED: &[(&str, &str)] = &[
    (
        "jvms",
        "iolab runs one agent per host; its workers are threads",
    ),
    (
        "vdbench",
        "iolab runs `iolab` from the host's PATH, or --agent-path",
    ),
    (
        "clients",
        "iolab runs one agent per host; give the workloads more threads instead",
    ),
    ("mount", "iolab does not mount file systems"),
];

fn first(p: &VdbParam) -> &str {
    p.values.first().map(|s| s.trim()).unwrap_or("")
}

/// The hosts of the file's `hd=` definitions (`hd=default` gives their
/// defaults), in order; empty for a file without any, or whose only host
/// is `hd=localhost` (vdbench's name of the host it runs on).
pub fn hosts(file: &VdbFile, notes: &mut Notes) -> Result<Vec<HostSpec>, JobError> {
    let mut out = Vec::new();
    for hd in file.of(DefKind::Host).filter(|d| d.name != "default") {
        let h = host(hd, notes)?;
        iolab_spec::hosts::add_host(&mut out, h)
            .map_err(|e| JobError(format!("{}: hd={}: {e}", hd.place(), hd.name)))?;
    }
    if let [h] = out.as_slice() {
        if h.name == "localhost" && h.address.is_none() && h.user.is_none() {
            notes.once("hd=localhost is this host: the run is on this host alone");
            return Ok(Vec::new());
        }
    }
    Ok(out)
}

/// One `hd=NAME,system=ADDRESS,user=USER,shell=ssh`.
fn host(hd: &VdbDef, notes: &mut Notes) -> Result<HostSpec, JobError> {
    let bad = |p: &VdbParam, m: &str| {
        JobError(format!(
            "{}: hd={}: {}={}: {m}",
            p.place(),
            hd.name,
            p.key,
            first(p)
        ))
    };
    let mut h = iolab_spec::hosts::parse_host(&hd.name)
        .ok()
        .filter(|h| h.name == hd.name)
        .map(|h| HostSpec::named(&h.name))
        .ok_or_else(|| {
            JobError(format!(
                "{}: hd={}: a host's name is a word of letters, digits, '-', '.' and '_' (iolab's HOST: prefixes and results use it)",
                hd.place(),
                hd.name
            ))
        })?;
    for p in &hd.params {
        match p.key.as_str() {
            "system" => {
                let a = iolab_spec::hosts::parse_host(first(p))
                    .ok()
                    .filter(|a| a.user.is_none() && a.port.is_none())
                    .ok_or_else(|| bad(p, "give the host's name or address"))?;
                h.address = Some(a.name).filter(|a| *a != h.name);
            }
            "user" => {
                let u = first(p);
                let ok = |c: char| c.is_ascii_alphanumeric() || "-._".contains(c);
                if u.is_empty() || u.starts_with('-') || !u.chars().all(ok) {
                    return Err(bad(p, "give a user name"));
                }
                h.user = Some(u.to_string());
            }
            "shell" => {
                if !first(p).eq_ignore_ascii_case("ssh") {
                    return Err(bad(
                        p,
                        "iolab reaches hosts only through ssh or --remote-shell; write shell=ssh or drop it",
                    ));
                }
            }
            k => {
                let why = IGNORED
                    .iter()
                    .find(|(i, _)| *i == k)
                    .map_or("iolab has no such host option", |(_, why)| *why);
                notes.ignore(&format!("hd {k}="), why);
            }
        }
    }
    Ok(h)
}

/// The hosts a `host=` list selects (vdbench's wildcards, against the
/// hosts' names and addresses), by name; `None` for every host (`*`).
fn select(p: &VdbParam, hosts: &[HostSpec], def: &VdbDef) -> Result<Option<Vec<String>>, JobError> {
    if p.values.iter().any(|v| v.trim() == "*") {
        return Ok(None);
    }
    let mut out: Vec<String> = Vec::new();
    for pat in &p.values {
        let pat = pat.trim();
        let found: Vec<&HostSpec> = hosts
            .iter()
            .filter(|h| super::wildcard(pat, &h.name) || super::wildcard(pat, h.address()))
            .collect();
        if found.is_empty() {
            let names: Vec<&str> = hosts.iter().map(|h| h.name.as_str()).collect();
            let have = if names.is_empty() {
                "the file defines no hd=; add hd=NAME,system=ADDRESS for each host".to_string()
            } else {
                format!("there are: {}", names.join(", "))
            };
            return Err(JobError(format!(
                "{}: {}={}: host={pat} names no hd= ({have})",
                p.place(),
                def.kind.keyword(),
                def.name
            )));
        }
        for h in found {
            if !out.contains(&h.name) {
                out.push(h.name.clone());
            }
        }
    }
    Ok(Some(out))
}

/// Whether `p` is the definition's own (not from its `xx=default`): the
/// defaults come from lines before the definition's.
fn own(def: &VdbDef, p: &VdbParam) -> bool {
    p.file == def.file && p.line >= def.line
}

/// A lun and the hosts it is on (`None`: every host).
type Lun = (Option<Vec<String>>, String);

/// An sd's luns: each with the hosts it is on (`None`: every host the
/// sd's hosts are, vdbench's `*`). vdbench pairs its own `host=` and
/// `lun=` in order (`host=(a,b),lun=X,lun=Y,host=c`); one `lun=`
/// without a `host=` is on the sd's default hosts (`sd=default,host=`).
fn sd_luns(sd: &VdbDef, hosts: &[HostSpec]) -> Result<Vec<Lun>, JobError> {
    let mine = |k: &str| -> Vec<&VdbParam> {
        sd.params
            .iter()
            .filter(|p| p.key == k && own(sd, p))
            .collect()
    };
    let (own_hosts, mut luns) = (mine("host"), mine("lun"));
    if luns.is_empty() {
        // vdbench refuses lun= on sd=default; iolab takes the last one.
        luns.extend(sd.params.iter().rev().find(|p| p.key == "lun"));
    }
    let default_host = sd
        .params
        .iter()
        .rev()
        .find(|p| p.key == "host" && !own(sd, p));
    let pairs: Vec<(Option<&VdbParam>, &VdbParam)> = match (own_hosts.len(), luns.len()) {
        (_, 0) => {
            return Err(JobError(format!(
                "{}: sd={} has no lun=; name the device or file (lun=/dev/sdb)",
                sd.place(),
                sd.name
            )))
        }
        (0, 1) => vec![(default_host, luns[0])],
        (h, l) if h == l => own_hosts.into_iter().map(Some).zip(luns).collect(),
        (h, l) => {
            return Err(JobError(format!(
                "{}: sd={} has {h} host= and {l} lun=: vdbench pairs them in order (sd={},host=hd1,lun=/dev/sdb,host=hd2,lun=/dev/sdc); give one host= per lun=",
                sd.place(),
                sd.name,
                sd.name
            )))
        }
    };
    pairs
        .into_iter()
        .map(|(h, lun)| {
            // Without hosts, host= is localhost or * (checked by the caller).
            let on = match h {
                Some(p) if !hosts.is_empty() => select(p, hosts, sd)?,
                _ => None,
            };
            Ok((on, first(lun).to_string()))
        })
        .collect()
}

/// The targets of workload `wd` on `sd`: each lun as `HOST:LUN` on the
/// hosts both the wd and the lun are on, a lun of every host as itself
/// when the wd runs on every host. Without `hd=`, `host=` may only be
/// `localhost` or `*`.
pub fn targets(wd: &VdbDef, sd: &VdbDef, hosts: &[HostSpec]) -> Result<Vec<String>, JobError> {
    if hosts.is_empty() {
        for def in [sd, wd] {
            let p = def.params.iter().filter(|p| p.key == "host");
            if let Some(p) = p
                .into_iter()
                .find(|p| p.values.iter().any(|h| h != "localhost" && h != "*"))
            {
                return Err(JobError(format!(
                    "{}: {}={} runs on host={}, but the file defines no hd=; add hd=NAME,system=ADDRESS for each host, or drop host= to run on this host",
                    p.place(),
                    def.kind.keyword(),
                    def.name,
                    p.values.join(",")
                )));
            }
        }
        return sd_luns(sd, hosts).map(|l| l.into_iter().map(|(_, lun)| lun).collect());
    }
    let wd_on = match wd.get("host") {
        Some(p) => select(p, hosts, wd)?,
        None => None,
    };
    let mut out = Vec::new();
    for (on, lun) in sd_luns(sd, hosts)? {
        let names: Vec<String> = match (&on, &wd_on) {
            (None, None) => {
                out.push(lun);
                continue;
            }
            (Some(a), None) => a.clone(),
            (None, Some(b)) => b.clone(),
            (Some(a), Some(b)) => a.iter().filter(|h| b.contains(h)).cloned().collect(),
        };
        out.extend(names.iter().map(|h| format!("{h}:{lun}")));
    }
    if out.is_empty() {
        return Err(JobError(format!(
            "{}: wd={} runs on host={}, where sd={} has no lun; give the sd a lun= on those hosts (host=NAME,lun=PATH) or the wd other hosts",
            wd.place(),
            wd.name,
            wd.get("host").map(|p| p.values.join(",")).unwrap_or_default(),
            sd.name
        )));
    }
    Ok(out)
}
