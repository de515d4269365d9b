//! Room for a fleet's file descriptors: each host's channel holds about
//! [`PER_HOST`] of the controller's (its pipes, while starting a copy's
//! too), so the soft `RLIMIT_NOFILE` is raised to the hard limit before
//! connecting, and a fleet that cannot fit is refused with one line
//! rather than failing half-way with "Too many open files".

/// Descriptors one host's channel holds, about.
pub const PER_HOST: u64 = 4;
/// Descriptors kept for everything else (ssh's control sockets, a
/// report's files, the run's own).
pub const SLACK: u64 = 64;

/// Raise the soft limit to the hard one; an error line when `hosts`
/// still cannot fit.
pub fn make_room(hosts: usize) -> Result<(), String> {
    let need = open_now() + PER_HOST * hosts as u64 + SLACK;
    let (soft, hard) = limits().ok_or("cannot read RLIMIT_NOFILE")?;
    let soft = if soft < need && soft < hard {
        raise(hard).unwrap_or(soft)
    } else {
        soft
    };
    if soft < need {
        return Err(format!(
            "{hosts} hosts need about {need} open files and this process may open {soft} (ulimit -n, hard limit {hard}); raise the limit (ulimit -Hn, LimitNOFILE=) or run fewer hosts at once"
        ));
    }
    Ok(())
}

/// (soft, hard) `RLIMIT_NOFILE`.
#[allow(clippy::unnecessary_cast)] // rlim_t is not u64 everywhere
fn limits() -> Option<(u64, u64)> {
    // SAFETY: getrlimit fills the struct it is given.
    let mut r: libc::rlimit = unsafe { std::mem::zeroed() };
    (unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut r) } == 0)
        .then_some((r.rlim_cur as u64, r.rlim_max as u64))
}

/// Set the soft limit to `hard` (to the kernel's `nr_open` when the hard
/// limit is unlimited): the new soft limit.
#[allow(clippy::unnecessary_cast)] // rlim_t is not u64 everywhere
fn raise(hard: u64) -> Option<u64> {
    let to = if hard == libc::RLIM_INFINITY as u64 {
        std::fs::read_to_string("/proc/sys/fs/nr_open")
            .ok()?
            .trim()
            .parse()
            .ok()?
    } else {
        hard
    };
    let r = libc::rlimit {
        rlim_cur: to as libc::rlim_t,
        rlim_max: hard as libc::rlim_t,
    };
    // SAFETY: setrlimit reads the struct it is given.
    (unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &r) } == 0).then_some(to)
}

/// Descriptors open now.
fn open_now() -> u64 {
    std::fs::read_dir("/proc/self/fd").map_or(16, |d| d.count() as u64)
}
