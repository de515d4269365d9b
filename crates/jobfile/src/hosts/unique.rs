//! fio's `unique_filename` on several hosts (docs/fio.md "Several
//! hosts"): in client/server mode fio puts the client's address before
//! the name of every file it opens under `directory=` (options.c
//! `set_name_idx`: `DIR/ADDRESS.NAME`), so that hosts on a shared file
//! system never share a file. iolab does the same with the host's name:
//! `DIR/HOST.NAME`, for the files a fio job's mapping put under its
//! `directory=` (its derived `$jobname.$jobnum.$filenum` names and its
//! relative `filename=` entries, except devices under `directory=/dev`),
//! unless the job says `unique_filename=0`.

use crate::fio::map::val::colon_list;
use crate::options::WorkloadOptions;
use iolab_spec::JobOrigin;

/// The last value of `key` in the job's options.
fn opt<'a>(o: &'a JobOrigin, key: &str) -> Option<&'a str> {
    o.options
        .iter()
        .rev()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.trim())
}

/// Whether fio's `unique_filename` is on for the job (its default).
fn unique(o: &JobOrigin) -> bool {
    !matches!(
        opt(o, "unique_filename")
            .map(str::to_ascii_lowercase)
            .as_deref(),
        Some("0" | "false" | "no" | "off")
    )
}

/// `t` with `host.` before its name when it is a file the job put under
/// one of `dirs` (a derived name, or one of the relative `listed` names).
fn rename(t: &str, dirs: &[String], listed: Option<&[String]>, host: &str) -> Option<String> {
    dirs.iter().find_map(|d| {
        let base = d.trim_end_matches('/');
        let rest = t.strip_prefix(base)?.strip_prefix('/')?;
        // `directory=/dev` with `filename=sdb` names a device: a host's
        // own file in /dev would write no device at all.
        let devices = base == "/dev" || base.starts_with("/dev/");
        let ours = match listed {
            None => true,
            Some(l) => !devices && l.iter().any(|f| f == rest && !f.starts_with('/')),
        };
        (!rest.is_empty() && ours).then(|| format!("{base}/{host}.{rest}"))
    })
}

/// Workload `w` (of fio job `o`) as host `host` runs it: each file of
/// its own targets under the job's `directory=` named `DIR/HOST.NAME`.
pub(super) fn apply(w: &mut WorkloadOptions, o: &JobOrigin, host: &str) {
    if o.format != "fio" || !unique(o) {
        return;
    }
    let Some(dirs) = opt(o, "directory").map(colon_list) else {
        return;
    };
    let listed = opt(o, "filename").map(colon_list);
    for t in w.target.iter_mut() {
        if let Some(n) = rename(t, &dirs, listed.as_deref(), host) {
            *t = n;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_under_the_directory_take_the_host_before_them() {
        let d = vec!["/mnt/nfs/".to_string(), "/b".to_string()];
        assert_eq!(
            rename("/mnt/nfs/j.0.0", &d, None, "h1").as_deref(),
            Some("/mnt/nfs/h1.j.0.0")
        );
        assert_eq!(
            rename("/b/j.1.0", &d, None, "h2").as_deref(),
            Some("/b/h2.j.1.0")
        );
        // A relative filename= under the directory (fio's HOWTO example).
        let l = vec!["fileio.tmp".to_string(), "/dev/sdb".to_string()];
        assert_eq!(
            rename("/mnt/nfs/fileio.tmp", &d, Some(&l), "h1").as_deref(),
            Some("/mnt/nfs/h1.fileio.tmp")
        );
        // A device named under directory=/dev is the device on each host.
        let dev = vec!["/dev".to_string()];
        let sdb = vec!["sdb".to_string()];
        assert_eq!(rename("/dev/sdb", &dev, Some(&sdb), "h1"), None);
        // An absolute filename= is the file named, on every host.
        assert_eq!(rename("/dev/sdb", &d, Some(&l), "h1"), None);
        assert_eq!(rename("/mnt/nfsx/j.0.0", &d, None, "h1"), None);
    }
}
