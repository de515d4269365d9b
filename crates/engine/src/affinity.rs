//! `--cpus`: pinning worker threads to CPUs with `sched_setaffinity`.
//!
//! A worker pins itself before it allocates its buffers, so their pages are
//! first touched (and placed, on a NUMA machine) on the CPU that uses them.

use std::io;

/// The CPUs this process may run on (its affinity mask, which a cpuset or
/// `taskset` narrows), in ascending order.
pub fn allowed_cpus() -> io::Result<Vec<u32>> {
    // SAFETY: cpu_set_t is plain data; sched_getaffinity writes at most
    // size_of::<cpu_set_t>() bytes into it.
    let set = unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) != 0 {
            return Err(io::Error::last_os_error());
        }
        set
    };
    let max = (std::mem::size_of::<libc::cpu_set_t>() * 8) as u32;
    // SAFETY: CPU_ISSET reads the set within its size (c < max).
    Ok((0..max)
        .filter(|&c| unsafe { libc::CPU_ISSET(c as usize, &set) })
        .collect())
}

/// Pin the calling thread to one CPU.
pub fn pin_current_thread(cpu: u32) -> io::Result<()> {
    // SAFETY: as above; sched_setaffinity(0, ..) changes only this thread.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(cpu as usize, &mut set);
        if libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) != 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}

/// A CPU list in the kernel's notation: `0-3,8`.
pub fn cpu_list_text(cpus: &[u32]) -> String {
    let mut sorted = cpus.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < sorted.len() {
        let start = sorted[i];
        let mut end = start;
        while i + 1 < sorted.len() && sorted[i + 1] == end + 1 {
            i += 1;
            end = sorted[i];
        }
        parts.push(if start == end {
            start.to_string()
        } else {
            format!("{start}-{end}")
        });
        i += 1;
    }
    parts.join(",")
}

/// Check that every CPU of `--cpus` is one this process may run on.
pub fn check_cpus(cpus: &[u32]) -> Result<(), String> {
    if cpus.is_empty() {
        return Ok(());
    }
    let allowed =
        allowed_cpus().map_err(|e| format!("--cpus: cannot read this process's CPUs: {e}"))?;
    let missing: Vec<u32> = cpus
        .iter()
        .copied()
        .filter(|c| !allowed.contains(c))
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    Err(format!(
        "--cpus: CPU {} is not available to iolab (it may run on {}); give CPUs from that list",
        cpu_list_text(&missing),
        cpu_list_text(&allowed)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn list_text_merges_ranges() {
        assert_eq!(cpu_list_text(&[3, 0, 1, 2, 8, 10, 11]), "0-3,8,10-11");
        assert_eq!(cpu_list_text(&[5]), "5");
        assert_eq!(cpu_list_text(&[]), "");
    }

    #[test]
    fn this_process_may_run_somewhere_and_not_on_cpu_1023() {
        let allowed = allowed_cpus().unwrap();
        assert!(!allowed.is_empty());
        assert!(check_cpus(&allowed).is_ok());
        if !allowed.contains(&1023) {
            let e = check_cpus(&[1023]).unwrap_err();
            assert!(e.contains("CPU 1023 is not available"), "{e}");
        }
    }

    #[test]
    fn pinning_narrows_this_threads_mask() {
        let first = allowed_cpus().unwrap()[0];
        std::thread::spawn(move || {
            pin_current_thread(first).unwrap();
            assert_eq!(allowed_cpus().unwrap(), vec![first]);
        })
        .join()
        .unwrap();
    }
}
