//! Golden-output tests: `doctor` on fixture trees of sysfs, /proc and
//! captured command outputs (tests/fixtures, written by make_fixtures.py),
//! rendered as text and JSON and compared with tests/golden/. After an
//! intended change, regenerate them and review the diff:
//!
//!     UPDATE_GOLDEN=1 cargo test -p iolab-devices --test golden

use iolab_devices::cmd::runner_for;
use iolab_devices::{doctor, render_text, Sysroot};
use std::path::{Path, PathBuf};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// Text and JSON of a doctor report on one fixture, with the fixture's
/// absolute path replaced by `<fixtures>` so the goldens do not depend on
/// where the checkout is.
pub fn render(fixture: &str, targets: &[&str]) -> (String, String) {
    let root = Sysroot::new(fixtures().join(fixture));
    let runner = runner_for(&root);
    let targets: Vec<String> = targets.iter().map(|s| s.to_string()).collect();
    let r = doctor(&root, runner.as_ref(), &targets);
    let base = fixtures().to_string_lossy().into_owned();
    let text = render_text(&r).replace(&base, "<fixtures>");
    let json = (serde_json::to_string_pretty(&r).unwrap() + "\n").replace(&base, "<fixtures>");
    (text, json)
}

fn check(name: &str, fixture: &str, targets: &[&str]) -> (String, String) {
    let (text, json) = render(fixture, targets);
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden");
    for (ext, got) in [("txt", &text), ("json", &json)] {
        let path = dir.join(format!("{name}.{ext}"));
        if std::env::var_os("UPDATE_GOLDEN").is_some() {
            std::fs::write(&path, got).unwrap();
            continue;
        }
        let want = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("{}: {e}; create it with UPDATE_GOLDEN=1", path.display()));
        if &want != got {
            let line = want
                .lines()
                .zip(got.lines())
                .position(|(a, b)| a != b)
                .unwrap_or(want.lines().count().min(got.lines().count()));
            panic!(
                "{} differs from the output at line {}:\n  golden: {:?}\n  output: {:?}\nregenerate with UPDATE_GOLDEN=1 if the change is intended",
                path.display(),
                line + 1,
                want.lines().nth(line),
                got.lines().nth(line)
            );
        }
    }
    (text, json)
}

fn codes(json: &str) -> Vec<(String, String)> {
    let v: serde_json::Value = serde_json::from_str(json).unwrap();
    v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["code"].as_str().unwrap().to_string(),
                f["device"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn partition_at_sector_34_on_4k_physical_disk() {
    let (text, json) = check("misaligned", "misaligned", &[]);
    assert_eq!(
        codes(&json),
        [("partition-misaligned".into(), "sda1".into())]
    );
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let parts = &v["devices"][0]["partitions"];
    assert_eq!(parts[0]["start_sector"], 34);
    assert_eq!(parts[0]["aligned_physical"], false);
    assert_eq!(parts[1]["start_sector"], 2099200);
    assert_eq!(parts[1]["aligned_1mib"], true);
    assert!(
        text.contains("WARNING partition-misaligned [sda1]"),
        "{text}"
    );
}

#[test]
fn nvme_controller_and_namespace() {
    let (text, json) = check("nvme", "nvme", &["/srv/db/table.dat"]);
    assert!(codes(&json).is_empty());
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["targets"][0]["top"][0], "nvme0n1p1");
    assert_eq!(v["targets"][0]["leaves"][0], "nvme0n1");
    assert_eq!(v["devices"][0]["nvme"]["controller"], "nvme0");
    assert_eq!(v["devices"][0]["nvme"]["nsid"], 1);
    assert!(
        text.contains("NVMe controller nvme0 (pcie, live), namespace 1, 4 hardware queues"),
        "{text}"
    );
}

#[test]
fn fc_link_errors_and_failed_multipath_path() {
    let (_, json) = check("fc-multipath", "fc-multipath", &["/oradata/redo01.log"]);
    let c = codes(&json);
    assert!(
        c.contains(&("multipath-path-failed".into(), "mpatha".into())),
        "{c:?}"
    );
    assert!(
        c.contains(&("fc-link-errors".into(), "host2".into())),
        "{c:?}"
    );
    assert!(!c.iter().any(|(_, d)| d == "host1"), "{c:?}");
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["targets"][0]["top"][0], "dm-0");
    assert_eq!(v["targets"][0]["leaves"], serde_json::json!(["sdb", "sdc"]));
    assert_eq!(v["multipath"][0]["paths"][1]["state"], "failed");
}

#[test]
fn zfs_pool_from_command_outputs() {
    let (_, json) = check("zfs", "zfs", &["/tank/db/file", "/dev/zvol/tank/vol1"]);
    let c = codes(&json);
    assert!(
        c.contains(&("zfs-sync-disabled".into(), "tank/db".into())),
        "{c:?}"
    );
    assert!(
        c.contains(&("zfs-ashift-small".into(), "tank".into())),
        "{c:?}"
    );
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["targets"][0]["leaves"], serde_json::json!(["sdd", "sde"]));
    assert_eq!(v["targets"][1]["top"][0], "zd0");
    assert_eq!(v["zfs"]["module_parameters"]["zfs_vdev_max_active"], "1000");
    let ds = &v["zfs"]["datasets"];
    assert_eq!(ds.as_array().unwrap().len(), 3, "the snapshot is left out");
    assert_eq!(ds[2]["volblocksize"], 16384);
}

#[test]
fn missing_everything_is_notes_not_a_crash() {
    let d = tempfile::tempdir().unwrap();
    let root = Sysroot::new(d.path());
    let r = doctor(
        &root,
        runner_for(&root).as_ref(),
        &["/nowhere/file".to_string(), "/dev/sdq".to_string()],
    );
    assert!(r.devices.is_empty());
    assert!(
        r.notes.iter().any(|n| n.contains("lists no block devices")),
        "{:?}",
        r.notes
    );
    assert!(
        r.targets[0].notes.iter().any(|n| n.contains("mountinfo")),
        "{:?}",
        r.targets[0].notes
    );
    let text = render_text(&r);
    assert!(text.contains("findings: none"));
}

#[test]
fn run_time_advice_from_a_zfs_fixture_context() {
    use iolab_devices::context::{run_findings, target_context};
    use iolab_devices::diskstats::{DeviceRow, IostatRow};
    use iolab_devices::inventory::{FcCounters, FcHost};
    use iolab_devices::WorkloadFacts;
    let root = Sysroot::new(fixtures().join("zfs"));
    let runner = runner_for(&root);
    let ctx = target_context(&root, runner.as_ref(), "/tank/db/file");
    assert_eq!(
        ctx.zfs_block,
        Some(("recordsize".into(), "tank/db".into(), 131072))
    );
    assert_eq!(ctx.compression.as_deref(), Some("zfs compression=lz4"));
    assert!(ctx.thin.is_some());
    assert_eq!(ctx.devices.len(), 4, "{:?}", ctx.devices);
    assert_eq!(ctx.devices[0].queue_limit, Some(32));
    let w = WorkloadFacts {
        target: "/tank/db/file".into(),
        reads: true,
        writes: true,
        random: true,
        bs: 8192,
        zero_data: true,
        working_set_bytes: 1 << 30,
        ..Default::default()
    };
    // sdd1's queue sat at its limit of 32 in every interval.
    let rows: Vec<DeviceRow> = (0..4)
        .map(|_| DeviceRow {
            device: "sdd1".into(),
            stats: IostatRow {
                aqu_sz: 31.5,
                util_pct: 100.0,
                ..Default::default()
            },
        })
        .collect();
    let mut after = ctx.fc_hosts.clone();
    after.push(FcHost {
        host: "host9".into(),
        counters: FcCounters::default(),
        ..Default::default()
    });
    let f = run_findings(&ctx, &w, &rows, &[], &after);
    let codes: Vec<&str> = f.iter().map(|f| f.code.as_str()).collect();
    assert_eq!(
        codes,
        [
            "device-queue-at-limit",
            "read-unwritten-space",
            "record-size-mismatch",
            "working-set-in-ram",
            "zero-data-compressed"
        ]
    );
    assert!(
        f[2].seen
            .contains("recordsize 128 KiB of tank/db with random 8 KiB I/O"),
        "{}",
        f[2].seen
    );
}

#[test]
fn idle_queue_info_only_once_and_only_where_it_tells_something() {
    use iolab_devices::context::{run_findings, target_context};
    use iolab_devices::diskstats::{DeviceRow, IostatRow};
    use iolab_devices::WorkloadFacts;
    let root = Sysroot::new(fixtures().join("zfs"));
    let runner = runner_for(&root);
    let ctx = target_context(&root, runner.as_ref(), "/tank/db/file");
    assert!(ctx.devices.len() > 1, "{:?}", ctx.devices);
    // Every device under the target busy but with a short queue.
    let rows: Vec<DeviceRow> = ctx
        .devices
        .iter()
        .flat_map(|d| {
            (0..4).map(|_| DeviceRow {
                device: d.device.clone(),
                stats: IostatRow {
                    aqu_sz: 1.0,
                    util_pct: 50.0,
                    ..Default::default()
                },
            })
        })
        .collect();
    let idle = |w: &WorkloadFacts| {
        run_findings(&ctx, w, &rows, &[], &ctx.fc_hosts)
            .into_iter()
            .filter(|f| f.code == "device-queue-idle")
            .map(|f| f.device)
            .collect::<Vec<_>>()
    };
    let base = WorkloadFacts {
        target: "/tank/db/file".into(),
        reads: true,
        bs: 131072,
        written_before_read: true,
        ..Default::default()
    };
    // Buffered I/O: the device queue is the kernel's write-back, not ours.
    let buffered = WorkloadFacts {
        outstanding: 32,
        ..base.clone()
    };
    assert_eq!(idle(&buffered), Vec::<String>::new());
    // QD 1 explains an idle queue by itself.
    let qd1 = WorkloadFacts {
        direct: true,
        outstanding: 1,
        ..base.clone()
    };
    assert_eq!(idle(&qd1), Vec::<String>::new());
    // Enough outstanding I/O to fill the queue, yet it stayed short: said
    // once, for the device nearest the target.
    let deep = WorkloadFacts {
        direct: true,
        outstanding: 32,
        ..base
    };
    assert_eq!(idle(&deep), [ctx.devices[0].device.clone()]);
}

#[test]
fn fc_counters_that_grow_during_a_run() {
    use iolab_devices::findings::fc_errors_grew;
    use iolab_devices::inventory::fc_hosts;
    let root = Sysroot::new(fixtures().join("fc-multipath"));
    let before = fc_hosts(&root);
    let mut after = before.clone();
    after[1].counters.invalid_crc_count = Some(19);
    let f = fc_errors_grew(&before, &after);
    assert_eq!(f.len(), 1);
    assert_eq!(f[0].device, "host2");
    assert!(
        f[0].seen.contains("invalid_crc_count +12 (7 -> 19)"),
        "{}",
        f[0].seen
    );
    assert!(fc_errors_grew(&before, &before).is_empty());
}

#[test]
fn local_lun_queue_depths_over_a_port_queue() {
    use iolab_devices::findings::local_port_oversubscription;
    use iolab_devices::inventory::DeviceInfo;
    let lun = |n: &str, l: u32| DeviceInfo {
        name: n.into(),
        scsi_address: Some(format!("1:0:0:{l}")),
        queue_depth: Some(254),
        ..Default::default()
    };
    let luns: Vec<DeviceInfo> = (0..9).map(|l| lun(&format!("sd{l}"), l)).collect();
    let f = local_port_oversubscription(&luns, 2048);
    assert_eq!(f.len(), 1);
    assert_eq!(f[0].device, "target 1:0:0");
    assert!(f[0].fix.contains("at most 227"), "{}", f[0].fix);
    assert!(local_port_oversubscription(&luns[..8], 2048).is_empty());
}
