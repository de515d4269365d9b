//! Live tests on this machine (root: loop devices, mounts, dm, zram; each
//! skips with a reason otherwise, and fails under CI): doctor's partition
//! alignment, mounts and holders on real devices, discovery through dm and
//! loop devices, zram as compressing and thin storage, the sampler's
//! agreement with `iostat -x`, and the cache-hit note for a buffered re-read.

use iolab_devices::cmd::{runner_for, CommandRunner, SystemRunner};
use iolab_devices::compare::{compare, AppCounts};
use iolab_devices::context::target_context;
use iolab_devices::discover::discover;
use iolab_devices::{doctor, Sampler, Sysroot};
use iolab_testutil::{require_root, require_tool, require_zram, LoopDevice, MountedFs, Zram};
use std::process::Command;
use std::time::{Duration, Instant};

const MIB: u64 = 1 << 20;

fn live() -> Sysroot {
    Sysroot::new("/")
}

fn sh(cmd: &str, args: &[&str]) {
    let o = Command::new(cmd).args(args).output().unwrap();
    assert!(
        o.status.success(),
        "{cmd} {args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
}

#[test]
fn doctor_flags_the_partition_at_sector_34_and_not_the_one_at_2048() {
    require_root!();
    require_tool!("sfdisk", "partx");
    let bad = LoopDevice::with_partitions(8 * MIB, "label: dos\nstart=34, size=8192\n").unwrap();
    let good = LoopDevice::with_partitions(8 * MIB, "label: dos\nstart=2048, size=8192\n").unwrap();
    let root = live();
    let r = doctor(
        &root,
        &SystemRunner,
        &[bad.path_str().into(), good.path_str().into()],
    );
    let starts: Vec<(String, u64)> = r
        .devices
        .iter()
        .flat_map(|d| {
            d.partitions
                .iter()
                .map(|p| (p.name.clone(), p.start_sector))
        })
        .collect();
    assert_eq!(
        starts,
        [
            (format!("{}p1", bad.name()), 34),
            (format!("{}p1", good.name()), 2048)
        ],
        "{r:#?}"
    );
    let flagged: Vec<(&str, &str)> = r
        .findings
        .iter()
        .filter(|f| f.code == "partition-misaligned")
        .map(|f| (f.code.as_str(), f.device.as_str()))
        .collect();
    assert_eq!(
        flagged,
        [("partition-misaligned", format!("{}p1", bad.name()).as_str())]
    );
}

#[test]
fn ext4_on_a_loop_device_mount_fs_and_the_stack_below() {
    require_root!();
    require_tool!("mkfs.ext4");
    let fs = MountedFs::new("ext4", 64 * MIB).unwrap();
    let target = fs.path().join("data.bin");
    let root = live();
    let d = discover(&root, &SystemRunner, target.to_str().unwrap());
    assert_eq!(d.top, [fs.dev.name()], "{d:#?}");
    assert!(!d.leaves.is_empty(), "{d:#?}");
    assert!(
        d.leaves.iter().all(|l| *l != fs.dev.name())
            || d.notes.iter().any(|n| n.contains("not on a block device")),
        "the loop device's backing file should lead further down: {d:#?}"
    );
    let r = doctor(&root, &SystemRunner, &[target.to_str().unwrap().into()]);
    let dev = r.devices.iter().find(|x| x.name == fs.dev.name()).unwrap();
    let canon = fs.path().canonicalize().unwrap();
    assert_eq!(dev.mounts.len(), 1, "{dev:#?}");
    assert_eq!(dev.mounts[0].fstype, "ext4");
    assert_eq!(dev.mounts[0].mount_point, canon.to_str().unwrap());
    assert_eq!(dev.loop_backing_file.as_deref(), fs.dev.backing.to_str());
    assert!(dev.holders.is_empty());
}

/// Removes a dm device on drop.
struct DmDevice(String);
impl Drop for DmDevice {
    fn drop(&mut self) {
        let _ = Command::new("dmsetup").args(["remove", &self.0]).output();
    }
}

#[test]
fn btrfs_on_a_loop_device_with_compression() {
    require_root!();
    require_tool!("mkfs.btrfs");
    let fs = MountedFs::new("btrfs", 128 * MIB).unwrap();
    let mp = fs.path().to_str().unwrap().to_string();
    sh("mount", &["-o", "remount,compress=zstd", &mp]);
    let root = live();
    let target = format!("{mp}/f");
    let r = doctor(&root, &SystemRunner, std::slice::from_ref(&target));
    assert_eq!(r.targets[0].top, [fs.dev.name()], "{:#?}", r.targets[0]);
    let dev = r.devices.iter().find(|d| d.name == fs.dev.name()).unwrap();
    assert_eq!(dev.mounts.len(), 1, "{dev:#?}");
    assert_eq!(dev.mounts[0].fstype, "btrfs");
    assert!(dev.mounts[0].options.contains("compress=zstd"), "{dev:#?}");
    assert!(dev.holders.is_empty() && dev.slaves.is_empty());
    let ctx = target_context(&root, &SystemRunner, &target);
    assert_eq!(ctx.fstype.as_deref(), Some("btrfs"));
    assert!(
        ctx.compression
            .as_deref()
            .unwrap_or("")
            .contains("compress=zstd"),
        "{:?}",
        ctx.compression
    );
    assert!(ctx.thin.is_some());
}

/// True when the kernel has device-mapper (dm-mod loaded or built in).
fn device_mapper() -> bool {
    std::path::Path::new("/sys/module/dm_mod").exists()
        || std::fs::read_to_string("/proc/misc")
            .map(|m| m.contains("device-mapper"))
            .unwrap_or(false)
}

#[test]
fn btrfs_on_dm_on_loop_holders_slaves_and_compression() {
    require_root!();
    require_tool!("dmsetup");
    require_tool!("mkfs.btrfs");
    if !device_mapper() {
        // Not a CI requirement: some kernels are built without it.
        iolab_testutil::print_skip(module_path!(), "this kernel has no device-mapper");
        return;
    }
    let lo = LoopDevice::new(256 * MIB, false).unwrap();
    let name = format!("iolab-test-{}", std::process::id());
    let table = format!("0 {} linear {} 0", 256 * MIB / 512, lo.path_str());
    sh("dmsetup", &["create", &name, "--table", &table]);
    let _dm = DmDevice(name.clone());
    let mapper = format!("/dev/mapper/{name}");
    sh("mkfs.btrfs", &["-q", "-f", &mapper]);
    let dir = tempfile::tempdir().unwrap();
    let mp = dir.path().to_str().unwrap().to_string();
    sh("mount", &["-o", "compress=zstd", &mapper, &mp]);
    struct Umount(String);
    impl Drop for Umount {
        fn drop(&mut self) {
            let _ = Command::new("umount").arg(&self.0).output();
        }
    }
    let _m = Umount(mp.clone());

    let root = live();
    let target = format!("{mp}/f");
    let r = doctor(&root, &SystemRunner, std::slice::from_ref(&target));
    let t = &r.targets[0];
    let dm = &t.top[0];
    assert!(dm.starts_with("dm-"), "{t:#?}");
    let dmi = r.devices.iter().find(|d| &d.name == dm).unwrap();
    assert_eq!(dmi.dm_name.as_deref(), Some(name.as_str()));
    assert_eq!(dmi.slaves, [lo.name()]);
    assert_eq!(dmi.mounts[0].fstype, "btrfs");
    let loi = r.devices.iter().find(|d| d.name == lo.name()).unwrap();
    assert_eq!(loi.holders, std::slice::from_ref(dm));
    let ctx = target_context(&root, &SystemRunner, &target);
    assert_eq!(ctx.fstype.as_deref(), Some("btrfs"));
    assert!(
        ctx.compression
            .as_deref()
            .unwrap_or("")
            .contains("compress=zstd"),
        "{:?}",
        ctx.compression
    );
    assert!(ctx.thin.is_some());
}

#[test]
fn zram_is_compressing_and_thin() {
    require_zram!();
    let z = Zram::new(64 * MIB).unwrap();
    let root = live();
    let r = doctor(&root, runner_for(&root).as_ref(), &[z.path_str().into()]);
    assert_eq!(r.devices.len(), 1);
    assert_eq!(r.devices[0].name, z.name());
    assert_eq!(r.devices[0].size_bytes, Some(64 * MIB));
    let ctx = target_context(&root, &SystemRunner, z.path_str());
    assert!(
        ctx.compression
            .as_deref()
            .unwrap_or("")
            .starts_with(&format!("zram {}", z.name())),
        "{ctx:#?}"
    );
    assert!(ctx.thin.is_some());
    assert_eq!(ctx.devices[0].device, z.name());
}

/// The JSON numbers of `iostat -x -d -y -o JSON 1 1 DEV` for DEV.
fn iostat_json(out: &[u8]) -> serde_json::Value {
    let v: serde_json::Value = serde_json::from_slice(out).expect("iostat JSON");
    v["sysstat"]["hosts"][0]["statistics"][0]["disk"][0].clone()
}

#[test]
fn sampler_agrees_with_iostat_over_the_same_second() {
    require_root!();
    require_tool!("iostat");
    let lo = LoopDevice::new(64 * MIB, true).unwrap();
    let name = lo.name();
    // Both start before any I/O, both end after it: the same counts fall in
    // both windows, and the windows are one second long each.
    let iostat = Command::new("iostat")
        .args(["-x", "-d", "-y", "-o", "JSON", "1", "1", &name])
        .env("LC_ALL", "C")
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let t0 = Instant::now();
    let mut s = Sampler::new(&live(), std::slice::from_ref(&name));
    std::thread::sleep(Duration::from_millis(300));
    let of = format!("of={}", lo.path_str());
    let inf = format!("if={}", lo.path_str());
    sh(
        "dd",
        &[
            "if=/dev/zero",
            &of,
            "bs=64k",
            "count=160",
            "oflag=direct",
            "status=none",
        ],
    );
    sh(
        "dd",
        &[
            &inf,
            "of=/dev/null",
            "bs=16k",
            "count=640",
            "iflag=direct",
            "status=none",
        ],
    );
    let io_done = t0.elapsed();
    assert!(
        io_done < Duration::from_millis(850),
        "the I/O took {io_done:?}, too long to fit inside both one-second windows"
    );
    std::thread::sleep(Duration::from_millis(1000).saturating_sub(t0.elapsed()));
    let mine = s.sample();
    let out = iostat.wait_with_output().unwrap();
    assert!(out.status.success());
    let theirs = iostat_json(&out.stdout);
    assert_eq!(theirs["disk_device"], name.as_str());
    let m = &mine[0].stats;
    assert_eq!(m.counts.writes, 160, "{m:#?}");
    // iostat prints two decimals: allow 2 % plus half of the last digit.
    let close = |what: &str, a: f64, key: &str| {
        let b = theirs[key]
            .as_f64()
            .unwrap_or_else(|| panic!("no {key} in {theirs}"));
        assert!(
            (a - b).abs() <= 0.02 * b.abs() + 0.0051,
            "{what}: iolab {a:.4}, iostat {b:.2} (interval {:.1} ms)",
            m.interval_ms
        );
    };
    close("r/s", m.r_s, "r/s");
    close("w/s", m.w_s, "w/s");
    close("rkB/s", m.rkb_s, "rkB/s");
    close("wkB/s", m.wkb_s, "wkB/s");
    close("rrqm/s", m.rrqm_s, "rrqm/s");
    close("wrqm/s", m.wrqm_s, "wrqm/s");
    close("r_await", m.r_await, "r_await");
    close("w_await", m.w_await, "w_await");
    close("rareq-sz", m.rareq_sz, "rareq-sz");
    close("wareq-sz", m.wareq_sz, "wareq-sz");
    close("aqu-sz", m.aqu_sz, "aqu-sz");
    close("%util", m.util_pct, "util");
    close("f/s", m.f_s, "f/s");
    close("d/s", m.d_s, "d/s");
    eprintln!(
        "iolab: r/s {:.2} w/s {:.2} rkB/s {:.2} wkB/s {:.2} r_await {:.3} w_await {:.3} aqu-sz {:.3} %util {:.2}; iostat: {theirs}",
        m.r_s, m.w_s, m.rkb_s, m.wkb_s, m.r_await, m.w_await, m.aqu_sz, m.util_pct
    );
}

#[test]
fn buffered_reread_of_a_small_file_is_a_cache_hit_note() {
    require_root!();
    require_tool!("mkfs.ext4");
    let fs = MountedFs::new("ext4", 64 * MIB).unwrap();
    let f = fs.path().join("small.dat");
    let data = vec![0x5au8; 8 * MIB as usize];
    std::fs::write(&f, &data).unwrap();
    std::fs::File::open(&f).unwrap().sync_all().unwrap();
    let _ = std::fs::read(&f).unwrap(); // the first read may or may not hit
    let root = live();
    let d = discover(&root, &SystemRunner, f.to_str().unwrap());
    let mut s = Sampler::new(&root, &d.top);
    let got = std::fs::read(&f).unwrap();
    let rows = s.sample();
    let app = AppCounts {
        read_ops: 1,
        read_bytes: got.len() as u64,
        ..Default::default()
    };
    let notes = compare(&app, &rows[0].device, &rows[0].stats.counts);
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert_eq!(notes[0].code, "reads-from-cache");
    assert!(notes[0].text.contains("page cache"), "{}", notes[0].text);
}

#[test]
fn doctor_on_this_machine_as_is_does_not_fail() {
    // Any user: whatever is readable is reported, the rest are notes.
    let root = live();
    let runner: Box<dyn CommandRunner + Send + Sync> = runner_for(&root);
    let r = doctor(&root, runner.as_ref(), &[]);
    assert!(!r.devices.is_empty(), "{r:#?}");
    let r = doctor(
        &root,
        runner.as_ref(),
        &["/no/such/dir/file".into(), "/dev/null".into()],
    );
    assert!(
        r.targets[0]
            .notes
            .iter()
            .any(|n| n.contains("no such file")),
        "{:?}",
        r.targets[0].notes
    );
    let _ = iolab_devices::render_text(&r);
}
