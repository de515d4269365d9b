//! NUMA placement of a block workload's workers (`numa_cpu_nodes`,
//! `numa_mem_policy`, fio's options of the same names): the nodes' CPUs
//! from /sys/devices/system/node, the thread's CPU mask, and its memory
//! policy with set_mempolicy(2) (no libnuma: two system calls and a
//! file read do not need it). A worker applies both on its own thread
//! before it allocates its buffers, so their pages land where asked.

use iolab_spec::{MemMode, MemPolicy};
use std::io;
use std::path::Path;

const NODE_DIR: &str = "/sys/devices/system/node";

/// The CPUs of `nodes` (each node's `cpulist`), in order, without repeats;
/// an error naming the node when one does not exist here.
pub fn node_cpus(nodes: &[u32]) -> Result<Vec<u32>, String> {
    node_cpus_in(Path::new(NODE_DIR), nodes)
}

fn node_cpus_in(dir: &Path, nodes: &[u32]) -> Result<Vec<u32>, String> {
    let mut cpus = Vec::new();
    for &n in nodes {
        let p = dir.join(format!("node{n}/cpulist"));
        let text = std::fs::read_to_string(&p).map_err(|_| missing(dir, n))?;
        let list = text.trim();
        if list.is_empty() {
            continue;
        }
        let got = iolab_spec::parse_cpu_list(list)
            .map_err(|e| format!("NUMA node {n}: reading {}: {}", p.display(), e.0))?;
        for c in got {
            if !cpus.contains(&c) {
                cpus.push(c);
            }
        }
    }
    if cpus.is_empty() && !nodes.is_empty() {
        return Err("numa_cpu_nodes: those NUMA nodes have no CPUs; give nodes with CPUs".into());
    }
    Ok(cpus)
}

fn missing(dir: &Path, n: u32) -> String {
    let online = std::fs::read_to_string(dir.join("online")).unwrap_or_default();
    format!(
        "NUMA node {n} does not exist on this machine (nodes: {}); give one of those",
        if online.trim().is_empty() {
            "none found"
        } else {
            online.trim()
        }
    )
}

/// Check that every node of a memory policy exists here.
pub fn check_policy(p: &MemPolicy) -> Result<(), String> {
    for &n in &p.nodes {
        if !Path::new(NODE_DIR).join(format!("node{n}")).is_dir() {
            return Err(missing(Path::new(NODE_DIR), n));
        }
    }
    Ok(())
}

/// Let the calling thread run on `cpus` only.
pub fn set_thread_cpus(cpus: &[u32]) -> io::Result<()> {
    // SAFETY: cpu_set_t is plain data; CPU_SET stays within it (the CPUs
    // come from the kernel's lists, below 1024 as parse_cpu_list checks);
    // sched_setaffinity(0, ..) changes only this thread.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        for &c in cpus {
            libc::CPU_SET(c as usize, &mut set);
        }
        if libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) != 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}

/// The kernel's numbers of the modes (linux/mempolicy.h).
fn mode_number(m: MemMode) -> i32 {
    match m {
        MemMode::Default => 0,
        MemMode::Prefer => 1,
        MemMode::Bind => 2,
        MemMode::Interleave => 3,
        MemMode::Local => 4,
    }
}

/// Words of the node mask: nodes up to 1023.
const MASK_WORDS: usize = 1024 / 64;

/// Set the calling thread's memory policy.
pub fn set_thread_policy(p: &MemPolicy) -> io::Result<()> {
    let mut mask = [0u64; MASK_WORDS];
    for &n in &p.nodes {
        mask[n as usize / 64] |= 1 << (n % 64);
    }
    let (ptr, maxnode) = if p.nodes.is_empty() {
        (std::ptr::null(), 0)
    } else {
        (mask.as_ptr(), MASK_WORDS * 64)
    };
    // SAFETY: set_mempolicy reads at most `maxnode` bits from `mask`,
    // which holds that many; it changes only this thread's policy.
    let r = unsafe {
        libc::syscall(
            libc::SYS_set_mempolicy,
            mode_number(p.mode),
            ptr,
            maxnode as libc::c_ulong,
        )
    };
    if r != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The thread's policy as the kernel reports it: (mode, node mask's
    /// first word).
    fn thread_policy() -> (i32, u64) {
        let mut mode: i32 = -1;
        let mut mask = [0u64; MASK_WORDS];
        // SAFETY: get_mempolicy writes the mode and at most maxnode bits.
        let r = unsafe {
            libc::syscall(
                libc::SYS_get_mempolicy,
                &mut mode as *mut i32,
                mask.as_mut_ptr(),
                (MASK_WORDS * 64) as libc::c_ulong,
                0usize,
                0usize,
            )
        };
        assert_eq!(r, 0, "get_mempolicy: {}", io::Error::last_os_error());
        (mode, mask[0])
    }

    #[test]
    fn a_thread_binds_its_memory_to_node_0_and_others_keep_theirs() {
        iolab_testutil::require!(
            Path::new(NODE_DIR).join("node0").is_dir(),
            "no NUMA node 0 in /sys/devices/system/node (kernel without NUMA)"
        );
        let p = MemPolicy {
            mode: MemMode::Bind,
            nodes: vec![0],
        };
        check_policy(&p).unwrap();
        let (mode, mask) = std::thread::spawn(move || {
            set_thread_policy(&p).unwrap();
            thread_policy()
        })
        .join()
        .unwrap();
        assert_eq!((mode, mask), (2, 1), "MPOL_BIND on node 0");
        let (mode, _) = std::thread::spawn(|| {
            set_thread_policy(&MemPolicy {
                mode: MemMode::Interleave,
                nodes: vec![0],
            })
            .unwrap();
            thread_policy()
        })
        .join()
        .unwrap();
        assert_eq!(mode, 3, "MPOL_INTERLEAVE");
        assert_eq!(thread_policy().0, 0, "this thread keeps the default");
    }

    #[test]
    fn node_cpus_come_from_sysfs_and_a_missing_node_is_named() {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(d.path().join("node0")).unwrap();
        std::fs::create_dir_all(d.path().join("node1")).unwrap();
        std::fs::write(d.path().join("node0/cpulist"), "0-1\n").unwrap();
        std::fs::write(d.path().join("node1/cpulist"), "1,4\n").unwrap();
        std::fs::write(d.path().join("online"), "0-1\n").unwrap();
        assert_eq!(node_cpus_in(d.path(), &[0, 1]).unwrap(), vec![0, 1, 4]);
        let e = node_cpus_in(d.path(), &[7]).unwrap_err();
        assert!(
            e.contains("node 7 does not exist") && e.contains("0-1"),
            "{e}"
        );
        if Path::new(NODE_DIR).join("node0").is_dir() {
            assert!(!node_cpus(&[0]).unwrap().is_empty());
        }
    }
}
