//! The runs of a multi-host job as each host runs them (docs/multi-host.md,
//! docs/jobfile.md "Several hosts"): which targets and `destroy_data_on`
//! names are whose, the host file's targets, the check that a run on this
//! host alone names no host, and the parse-only line that lists the hosts.
//!
//! A name `HOST:PATH` (`--target h1:/dev/sdb`, a job file's
//! `target = { h1 = "/dev/sdb" }`, a vdbench sd's lun on `host=h1`) is
//! that host's only; a name without a host is the same path on every
//! host. A local file whose name holds ':' after a plain word is written
//! `./NAME`.
//!
//! `{host}` in a path (a target, a `destroy_data_on` name, `dir`, a
//! fileset's `path=`) is the host's name as the run names it (`h1`,
//! `db-2.example.com`), vdbench's `$host`: hosts on one shared file
//! system (NFS, a cluster file system) each get their own files and
//! anchors. In a run on this host alone it is `localhost`.

use crate::options::WorkloadOptions;
use crate::runs::RunOptions;
use iolab_spec::hosts::{names_for_host, split_host};
use iolab_spec::HostSpec;

mod rates;
mod unique;

/// The host word of a name that reads as `HOST:PATH` (a name, alias or
/// address before the first ':', a non-empty path after it), whether or
/// not such a host is in the run.
fn qualifier(name: &str) -> Option<&str> {
    let (h, p) = name.split_once(':')?;
    let ok = |c: char| c.is_ascii_alphanumeric() || "-._%".contains(c);
    (!h.is_empty() && !p.is_empty() && !h.starts_with('-') && h.chars().all(ok)).then_some(h)
}

/// The lists of names a layer holds, with their flags.
fn lists(o: &WorkloadOptions) -> [(&'static str, &Vec<String>); 2] {
    [
        ("target", &o.target),
        ("destroy-data-on", &o.destroy_data_on),
    ]
}

/// Every layer of a run: the run's, each workload's, the overrides.
fn layers(r: &RunOptions) -> impl Iterator<Item = &WorkloadOptions> {
    std::iter::once(&r.run)
        .chain(r.workloads.iter())
        .chain(std::iter::once(&r.overrides))
}

/// A run on this host alone names no host: a `HOST:PATH` target or
/// `destroy_data_on` name (a job file's per-host map) is refused.
pub fn check_local(runs: &[RunOptions]) -> Result<(), String> {
    for r in runs {
        for l in layers(r) {
            for (flag, names) in lists(l) {
                if let Some((n, h)) = names.iter().find_map(|n| Some((n, qualifier(n)?))) {
                    let what = if flag == "target" { "target" } else { flag };
                    return Err(format!(
                        "{what} '{n}' names host {h}; give --hosts {h},... to run on hosts (a local file with ':' in its name is written ./{n})"
                    ));
                }
            }
        }
    }
    Ok(())
}

/// A qualified name whose host is not one of `hosts`: refused, so that a
/// typo in a host's name is not taken for a path on every host.
fn check_known(runs: &[RunOptions], hosts: &[HostSpec]) -> Result<(), String> {
    let names: Vec<&str> = hosts.iter().map(|h| h.name.as_str()).collect();
    for r in runs {
        for l in layers(r) {
            for (flag, list) in lists(l) {
                for n in list {
                    if split_host(n, hosts).0.is_some() {
                        continue;
                    }
                    if let Some(h) = qualifier(n) {
                        return Err(format!(
                            "{flag} '{n}' names host {h}, which is not one of the run's hosts ({}); name one of them, or write a local path with ':' as ./{n}",
                            names.join(", ")
                        ));
                    }
                }
            }
        }
    }
    Ok(())
}

/// `o` with its names kept for `host`, `{host}` in them made its name.
fn layer_for(o: &WorkloadOptions, host: &str, hosts: &[HostSpec]) -> WorkloadOptions {
    let mut o = o.clone();
    o.target = names_for_host(&o.target, host, hosts);
    o.destroy_data_on = names_for_host(&o.destroy_data_on, host, hosts);
    name_paths(&mut o, host);
    o
}

/// What `{host}` stands for in a path.
pub const HOST_WORD: &str = "{host}";
/// `{host}` in a run on this host alone.
pub const LOCAL_HOST: &str = "localhost";

/// `{host}` in the paths of `o` (targets, `destroy_data_on`, `dir`, the
/// filesets' `path=`) replaced by `host`.
fn name_paths(o: &mut WorkloadOptions, host: &str) {
    let named = |s: &mut String| {
        if s.contains(HOST_WORD) {
            *s = s.replace(HOST_WORD, host);
        }
    };
    o.target.iter_mut().for_each(named);
    o.destroy_data_on.iter_mut().for_each(named);
    o.dir
        .iter_mut()
        .flat_map(|v| v.0.iter_mut())
        .for_each(named);
    o.filesets.iter_mut().for_each(named);
}

/// The runs of a run on this host alone: `{host}` in their paths is
/// [`LOCAL_HOST`].
pub fn for_local(runs: &[RunOptions]) -> Vec<RunOptions> {
    let mut out = runs.to_vec();
    for r in &mut out {
        name_paths(&mut r.run, LOCAL_HOST);
        r.workloads
            .iter_mut()
            .for_each(|w| name_paths(w, LOCAL_HOST));
        name_paths(&mut r.overrides, LOCAL_HOST);
    }
    out
}

/// The run as `host` runs it, every workload kept (an empty target list
/// where the host has none); a fio job's files under its `directory=`
/// named for the host (fio's `unique_filename`).
fn run_for(r: &RunOptions, host: &HostSpec, hosts: &[HostSpec]) -> RunOptions {
    let mut out = r.clone();
    out.run = layer_for(&r.run, &host.name, hosts);
    out.workloads = r
        .workloads
        .iter()
        .map(|w| layer_for(w, &host.name, hosts))
        .collect();
    for (w, o) in out.workloads.iter_mut().zip(&r.origins) {
        if let Some(o) = o {
            unique::apply(w, o, &host.name);
        }
    }
    out.overrides = layer_for(&r.overrides, &host.name, hosts);
    // The host file's targets are the host's `--target HOST:PATH`.
    out.overrides.target.extend(host.targets.iter().cloned());
    out
}

/// The targets workload `j` of `r` has: the first layer that names any
/// (flags over the workload over the run), as the planner merges them.
fn targets_of(r: &RunOptions, j: usize) -> &[String] {
    [&r.overrides.target, &r.workloads[j].target, &r.run.target]
        .into_iter()
        .find(|t| !t.is_empty())
        .map_or(&[], |t| t.as_slice())
}

/// Workload `j` of `r` for messages: `'NAME'`, `2`, `2 of run 'NAME'`.
fn workload_label(r: &RunOptions, j: usize) -> String {
    match (&r.workloads[j].name, r.single) {
        (Some(n), _) => format!("'{n}'"),
        (None, true) => format!("{}", r.index + 1),
        (None, false) => format!("{} of run '{}'", j + 1, r.name()),
    }
}

/// Whether `r` came from a vdbench file: its workloads run only where
/// their sd has a lun, as vdbench runs them.
fn is_vdbench(r: &RunOptions) -> bool {
    r.origins.iter().flatten().any(|o| o.format == "vdbench")
}

/// The runs as host `host` of `hosts` runs them: in every layer the
/// `target` and `destroy_data_on` names keep that host's own (`HOST:PATH`,
/// prefix removed) and those of every host; the host's own targets (a host
/// file's) join the command line's. A workload with no target on `host`
/// while it has one on another host is refused (a vdbench workload is not
/// run there, as vdbench runs an sd only on the hosts it names).
pub fn runs_for_host(
    runs: &[RunOptions],
    host: &HostSpec,
    hosts: &[HostSpec],
) -> Result<Vec<RunOptions>, String> {
    check_known(runs, hosts)?;
    // Another host's own targets (a host file's) reach every workload.
    let others_own = hosts
        .iter()
        .any(|h| h.name != host.name && !h.targets.is_empty());
    let mut out = Vec::with_capacity(runs.len());
    for r in runs {
        let mine = run_for(r, host, hosts);
        let mut keep = Vec::new();
        for j in 0..mine.workloads.len() {
            if !targets_of(&mine, j).is_empty() {
                keep.push(j);
                continue;
            }
            // None here: any name left in the layers is another host's.
            let elsewhere = others_own
                || [&r.overrides.target, &r.workloads[j].target, &r.run.target]
                    .iter()
                    .any(|t| !t.is_empty());
            match elsewhere {
                false => keep.push(j),
                true if is_vdbench(r) => {}
                true => {
                    return Err(format!(
                        "workload {} has no target on host {h}; give --target {h}:PATH or a target map entry for {h}",
                        workload_label(r, j),
                        h = host.name
                    ))
                }
            }
        }
        if keep.is_empty() {
            return Err(format!(
                "run '{}' has no workload on host {h}: none of its storage is defined there; drop {h} from the hosts or give it a lun",
                r.name(),
                h = host.name
            ));
        }
        let mut mine = keep_workloads(mine, &keep);
        if is_vdbench(r) {
            rates::share(r, &mut mine, &keep, hosts);
        }
        out.push(mine);
    }
    Ok(out)
}

/// `r` with only the workloads at `keep` (and their origins).
fn keep_workloads(mut r: RunOptions, keep: &[usize]) -> RunOptions {
    if keep.len() == r.workloads.len() {
        return r;
    }
    r.workloads = keep.iter().map(|&j| r.workloads[j].clone()).collect();
    if !r.origins.is_empty() {
        r.origins = keep
            .iter()
            .map(|&j| r.origins.get(j).cloned().flatten())
            .collect();
    }
    r
}

/// Notes when one file path (not under /dev) is a target on several
/// hosts, or one directory is the anchor (`dir`) of several: on a shared
/// file system the hosts would write, lay out and verify one file (a
/// verify would report each other's blocks as corrupt), or lay out one
/// fileset and create and delete each other's files. None with fewer
/// than two hosts, or when nothing is shared (or a host's runs are
/// refused: that refusal is said elsewhere).
pub fn shared_files(runs: &[RunOptions], hosts: &[HostSpec]) -> Vec<String> {
    if hosts.len() < 2 {
        return Vec::new();
    }
    let (mut files, mut anchors) = (Shared::default(), Shared::default());
    for h in hosts {
        let Ok(runs) = runs_for_host(runs, h, hosts) else {
            return Vec::new();
        };
        for r in &runs {
            for j in 0..r.workloads.len() {
                for t in targets_of(r, j) {
                    if t != "/dev" && !t.starts_with("/dev/") {
                        files.add(t, &h.name);
                    }
                }
                for d in dirs_of(r, j) {
                    anchors.add(d, &h.name);
                }
            }
        }
    }
    let mut out = Vec::new();
    if let Some(l) = files.list() {
        out.push(format!(
            "the same file is a target on several hosts: {l}; on a shared file system those hosts write and verify one file (a verify then reports the other hosts' blocks as corrupt): give each host its own (HOST:PATH, a target map, {HOST_WORD} in the path, fio's directory= with unique_filename)"
        ));
    }
    if let Some(l) = anchors.list() {
        out.push(format!(
            "the same directory is the anchor (--dir) on several hosts: {l}; on a shared file system those hosts lay out one fileset together and create and delete each other's files: put {HOST_WORD} in it (--dir /mnt/nfs/fs/{HOST_WORD}) to give each host its own"
        ));
    }
    out
}

/// The anchors workload `j` of `r` has: the first layer's `dir` (flags
/// over the workload over the run), every value of a sweep.
fn dirs_of(r: &RunOptions, j: usize) -> &[String] {
    [&r.overrides.dir, &r.workloads[j].dir, &r.run.dir]
        .into_iter()
        .find_map(|d| d.as_ref())
        .map_or(&[], |v| v.0.as_slice())
}

/// Paths and the hosts that use each, in the order first met.
#[derive(Default)]
struct Shared<'a> {
    users: std::collections::HashMap<String, Vec<&'a str>>,
    order: Vec<String>,
}

impl<'a> Shared<'a> {
    fn add(&mut self, path: &str, host: &'a str) {
        let on = self.users.entry(path.to_string()).or_insert_with(|| {
            self.order.push(path.to_string());
            Vec::new()
        });
        if on.last() != Some(&host) {
            on.push(host);
        }
    }

    /// `PATH (h1, h2)` of the paths on several hosts, at most three and a
    /// count of the rest; `None` when there is none.
    fn list(&self) -> Option<String> {
        let shared: Vec<String> = (self.order.iter())
            .filter(|p| self.users[*p].len() > 1)
            .map(|p| format!("{p} ({})", self.users[p].join(", ")))
            .collect();
        let more = match shared.len() {
            0 => return None,
            n if n > 3 => format!(" and {} more", n - 3),
            _ => String::new(),
        };
        Some(shared[..shared.len().min(3)].join(", ") + &more)
    }
}

/// The line `--parse-only` prints for a multi-host job: each host, how
/// the channel reaches it when that is not its name, and its targets
/// (every run's, each once): `hosts: h1 (/dev/sdb), h2 (/dev/sdc)`;
/// without runs, the hosts alone.
pub fn describe(hosts: &[HostSpec], runs: &[RunOptions]) -> String {
    let parts: Vec<String> = hosts
        .iter()
        .map(|h| {
            let mut s = h.name.clone();
            let via = reach(h);
            if via != h.name {
                s.push_str(&format!(" via {via}"));
            }
            let mut targets: Vec<String> = Vec::new();
            for r in runs {
                let mine = run_for(r, h, hosts);
                for j in 0..mine.workloads.len() {
                    // Its targets, or a file-system workload's anchors.
                    for t in targets_of(&mine, j).iter().chain(dirs_of(&mine, j)) {
                        if !targets.contains(t) {
                            targets.push(t.clone());
                        }
                    }
                }
            }
            match (targets.is_empty(), runs.is_empty()) {
                (_, true) => {}
                (true, false) => s.push_str(" (no target)"),
                (false, false) => s.push_str(&format!(" ({})", targets.join(", "))),
            }
            s
        })
        .collect();
    format!("hosts: {}", parts.join(", "))
}

/// `[USER@]ADDRESS[:PORT]`, as the channel reaches the host.
fn reach(h: &HostSpec) -> String {
    let mut s = String::new();
    if let Some(u) = &h.user {
        s.push_str(&format!("{u}@"));
    }
    let a = h.address();
    match h.port {
        Some(p) if a.contains(':') => s.push_str(&format!("[{a}]:{p}")),
        Some(p) => s.push_str(&format!("{a}:{p}")),
        None => s.push_str(a),
    }
    s
}

#[cfg(test)]
mod tests;
