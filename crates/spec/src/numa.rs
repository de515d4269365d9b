//! NUMA placement of a block workload's workers (fio `numa_cpu_nodes`,
//! `numa_mem_policy`): the nodes whose CPUs the workers run on, and the
//! memory policy each worker sets before it allocates its buffers. Only
//! the syntax is checked here; whether the nodes exist is checked when
//! the workload runs (the engine reads /sys/devices/system/node).

use crate::SpecError;
use serde::{Deserialize, Serialize};

/// Largest node number accepted (the kernel's MAX_NUMNODES is at most
/// 1024).
pub const MAX_NODE: u32 = 1023;

/// A memory policy mode (set_mempolicy(2)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MemMode {
    /// The process's default policy.
    Default,
    /// On the node of the CPU that allocates.
    Local,
    /// On the node given, else elsewhere.
    Prefer,
    /// Only on the nodes given.
    Bind,
    /// Page by page across the nodes given.
    Interleave,
}

/// A memory policy and its nodes (empty for `default` and `local`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemPolicy {
    pub mode: MemMode,
    pub nodes: Vec<u32>,
}

/// Where a workload's workers run and allocate.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct NumaSpec {
    /// Nodes whose CPUs every worker may run on; empty: unchanged.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cpu_nodes: Vec<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mem: Option<MemPolicy>,
}

/// A node list: `0`, `0-1`, `0,2-3`.
pub fn parse_nodes(s: &str, flag: &str) -> Result<Vec<u32>, SpecError> {
    let bad = || {
        SpecError(format!(
            "--{flag} {s}: give NUMA node numbers and ranges such as 0 or 0-1,3"
        ))
    };
    let mut out = Vec::new();
    for part in s.split(',') {
        let part = part.trim();
        let (a, b) = part.split_once('-').unwrap_or((part, part));
        let a: u32 = a.trim().parse().map_err(|_| bad())?;
        let b: u32 = b.trim().parse().map_err(|_| bad())?;
        if a > b || b > MAX_NODE {
            return Err(bad());
        }
        for n in a..=b {
            if !out.contains(&n) {
                out.push(n);
            }
        }
    }
    Ok(out)
}

/// fio's `numa_mem_policy`: `default`, `local`, `prefer:N`, `bind:LIST`,
/// `interleave:LIST`.
pub fn parse_mem_policy(s: &str) -> Result<MemPolicy, SpecError> {
    let t = s.trim();
    let (mode, nodes) = t.split_once(':').unwrap_or((t, ""));
    let mode = match mode.trim() {
        "default" => MemMode::Default,
        "local" => MemMode::Local,
        "prefer" => MemMode::Prefer,
        "bind" => MemMode::Bind,
        "interleave" => MemMode::Interleave,
        o => {
            return Err(SpecError(format!(
                "--numa-mem-policy {o} is not a policy; use default, local, prefer:N, bind:LIST or interleave:LIST"
            )))
        }
    };
    let needs = matches!(mode, MemMode::Prefer | MemMode::Bind | MemMode::Interleave);
    let nodes = if nodes.trim().is_empty() {
        Vec::new()
    } else {
        parse_nodes(nodes, "numa-mem-policy")?
    };
    if needs == nodes.is_empty() || (mode == MemMode::Prefer && nodes.len() != 1) {
        return Err(SpecError(format!(
            "--numa-mem-policy {t}: prefer takes one node, bind and interleave a list, default and local none (e.g. bind:0)"
        )));
    }
    Ok(MemPolicy { mode, nodes })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_fios_policies_and_node_lists() {
        assert_eq!(parse_nodes("0-1,3", "x").unwrap(), vec![0, 1, 3]);
        let p = parse_mem_policy("interleave:0-1").unwrap();
        assert_eq!((p.mode, p.nodes), (MemMode::Interleave, vec![0, 1]));
        let p = parse_mem_policy("prefer:2").unwrap();
        assert_eq!((p.mode, p.nodes), (MemMode::Prefer, vec![2]));
        assert_eq!(parse_mem_policy("local").unwrap().mode, MemMode::Local);
        for bad in [
            "bind",
            "prefer:0-1",
            "local:0",
            "nearest:0",
            "bind:x",
            "bind:3-1",
        ] {
            let e = parse_mem_policy(bad).unwrap_err().0;
            assert!(
                e.contains("--numa-mem-policy") && !e.contains('\n'),
                "{bad}: {e}"
            );
        }
        assert!(parse_nodes("2000", "numa-cpu-nodes").is_err());
    }
}
