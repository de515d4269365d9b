//! Per-LUN host queue depth against a target port's command queue
//! (studies section 7): floor(port_queue / (hosts x LUNs)), halved again
//! for an active/active two-node cluster, because after a failover one
//! port serves both nodes' LUNs.

use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct QdepthPlan {
    pub port_queue: u64,
    pub hosts: u64,
    pub luns: u64,
    pub cluster: bool,
    /// The queue depth to set on each LUN of each host (0: the port cannot
    /// give every LUN even one command).
    pub per_lun: u64,
    /// The arithmetic, one line per step.
    pub steps: Vec<String>,
}

/// Compute the plan. Errors (one line) for zero inputs.
pub fn plan(port_queue: u64, hosts: u64, luns: u64, cluster: bool) -> Result<QdepthPlan, String> {
    if port_queue == 0 {
        return Err("--port-queue must be at least 1".into());
    }
    if hosts == 0 {
        return Err("--hosts must be at least 1".into());
    }
    if luns == 0 {
        return Err("--luns must be at least 1".into());
    }
    let paths = hosts.saturating_mul(luns);
    let base = port_queue / paths;
    let mut steps = vec![format!(
        "floor({port_queue} / ({hosts} hosts x {luns} LUNs)) = floor({port_queue} / {paths}) = {base}"
    )];
    let per_lun = if cluster {
        let h = base / 2;
        steps.push(format!(
            "active/active cluster: after a failover one port serves both nodes' LUNs, so halve it: floor({base} / 2) = {h}"
        ));
        h
    } else {
        base
    };
    Ok(QdepthPlan {
        port_queue,
        hosts,
        luns,
        cluster,
        per_lun,
        steps,
    })
}

#[cfg(test)]
mod tests {
    use super::plan;

    #[test]
    fn formula() {
        assert_eq!(plan(2048, 1, 1, false).unwrap().per_lun, 2048);
        assert_eq!(plan(2048, 2, 4, true).unwrap().per_lun, 128);
        assert_eq!(plan(2048, 3, 5, false).unwrap().per_lun, 136); // 136.53
        assert_eq!(plan(2048, 3, 5, true).unwrap().per_lun, 68);
        assert_eq!(plan(2048, 3, 7, true).unwrap().per_lun, 48); // 97 / 2 = 48.5
        assert_eq!(plan(2048, 64, 64, false).unwrap().per_lun, 0);
        assert!(plan(2048, 0, 1, false).is_err());
    }
}
