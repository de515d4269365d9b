//! `iolab qdepth`: the per-LUN host queue depth for a target port, with
//! the arithmetic and how to set it (studies section 7).

use crate::exit::EXIT_BAD_INPUT;
use iolab_devices::qdepth::plan;
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Commands the array's target port can queue
    #[arg(long, value_name = "N", default_value_t = 2048)]
    pub port_queue: u64,

    // --luns and --hosts are checked here rather than by clap, so a missing
    // one gets a one-line message that names it.
    /// LUNs each host reaches through the port (required)
    #[arg(long, value_name = "L")]
    pub luns: Option<u64>,

    /// Hosts (initiators) sharing the port (required)
    #[arg(long, value_name = "N")]
    pub hosts: Option<u64>,

    /// Active/active two-node cluster: after a failover one port serves both nodes' LUNs, so halve again
    #[arg(long)]
    pub cluster: bool,
}

pub fn run(args: Args) -> ExitCode {
    let (Some(luns), Some(hosts)) = (args.luns, args.hosts) else {
        eprintln!(
            "iolab: qdepth needs --luns L and --hosts N, e.g. iolab qdepth --port-queue 2048 --luns 4 --hosts 2"
        );
        return ExitCode::from(EXIT_BAD_INPUT);
    };
    let p = match plan(args.port_queue, hosts, luns, args.cluster) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("iolab: {e}");
            return ExitCode::from(EXIT_BAD_INPUT);
        }
    };
    outln!("per-LUN queue depth: {}", p.per_lun);
    outln!();
    outln!("arithmetic:");
    for s in &p.steps {
        outln!("  {s}");
    }
    if p.per_lun == 0 {
        outln!();
        outln!(
            "  {} hosts x {} LUNs is more than the port's {} commands: not even one command per LUN.",
            p.hosts, p.luns, p.port_queue
        );
        outln!("  Spread the LUNs over more target ports, or use fewer, larger LUNs.");
        return ExitCode::SUCCESS;
    }
    let q = p.per_lun;
    outln!();
    outln!("Linux (per SCSI disk; takes effect at once, lost at reboot):");
    outln!("  echo {q} > /sys/block/sdX/device/queue_depth");
    outln!("  cat /sys/block/sdX/device/queue_depth     # check; the HBA driver may cap it");
    outln!("to keep it, a udev rule, e.g. /etc/udev/rules.d/99-iolab-queue-depth.rules:");
    outln!(
        "  ACTION==\"add|change\", SUBSYSTEM==\"block\", KERNEL==\"sd*[!0-9]\", ENV{{ID_VENDOR}}==\"VENDOR\", ATTR{{device/queue_depth}}=\"{q}\""
    );
    outln!(
        "  (match the array's vendor or model; then: udevadm control --reload && udevadm trigger)"
    );
    outln!();
    outln!("Solaris (what it was): in /etc/system, set sd:sd_max_throttle={q}");
    outln!(
        "  (ssd:ssd_max_throttle={q} for FC disks under the ssd driver); takes effect at reboot."
    );
    outln!();
    outln!("Prefer the smaller number when in doubt, and redo this when LUNs or hosts are added.");
    ExitCode::SUCCESS
}
