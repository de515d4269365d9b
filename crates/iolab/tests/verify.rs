//! Data validation end to end: clean runs find nothing; every injected
//! fault is found, classified and placed; lost writes are caught while
//! the run goes on; a journal survives kill -9; bad journals are refused
//! and left untouched.

mod common;

use common::*;
use iolab_testutil::{require_fuse, require_root, LoopDevice};
use serde_json::Value;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::process::Output;

const BS: u64 = 4096;

fn verify_json(args: &[&str], dir: &Path) -> (Output, Value) {
    cmd_json("verify", args, dir)
}

fn read_at(p: &Path, off: u64, len: usize) -> Vec<u8> {
    let f = std::fs::File::open(p).unwrap();
    let mut b = vec![0u8; len];
    f.read_exact_at(&mut b, off).unwrap();
    b
}

fn write_at(p: &Path, off: u64, data: &[u8]) {
    let f = std::fs::OpenOptions::new().write(true).open(p).unwrap();
    f.write_all_at(data, off).unwrap();
    f.sync_all().unwrap();
}

/// The generation map of journal target 0 (docs/validation.md).
fn journal_map(j: &Path) -> Vec<u8> {
    std::fs::read(j.join("map-0.bin")).unwrap()[4096..].to_vec()
}

/// Every file of a journal directory and its bytes (the lock file aside).
fn journal_files(j: &Path) -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<(String, Vec<u8>)> = std::fs::read_dir(j)
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.file_name() != "journal.lock")
        .map(|e| {
            (
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect();
    v.sort();
    v
}

fn findings(v: &Value) -> Vec<(String, u64)> {
    ptr(v, "verify/findings")
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["class"].as_str().unwrap().to_string(), u(f, "offset")))
        .collect()
}

#[test]
fn clean_runs_of_many_shapes_report_no_findings() {
    let d = tempfile::tempdir().unwrap();
    let cases: &[&[&str]] = &[
        &["--rw", "randrw", "--bs", "4k", "--qd", "16"],
        &[
            "--rw",
            "randrw",
            "--bs",
            "4k:50,16k:30,64k:20",
            "--qd",
            "8",
            "--jobs",
            "3",
        ],
        &["--rw", "rw", "--bs", "64k", "--qd", "4", "--jobs", "2"],
        &[
            "--rw", "randrw", "--bs", "8k", "--engine", "psync", "--jobs", "2",
        ],
        &[
            "--rw",
            "randwrite",
            "--bs",
            "4k:70,8k:30",
            "--qd",
            "4",
            "--verify-after",
        ],
        &[
            "--rw",
            "randrw",
            "--bs",
            "4k",
            "--qd",
            "8",
            "--data",
            "compress:3",
            "--fsync-every",
            "16",
        ],
    ];
    for (i, c) in cases.iter().enumerate() {
        let target = format!("t{i}.dat");
        let mut args = vec![
            "--target",
            &target,
            "--size",
            "8m",
            "--duration",
            "0.6s",
            "--verify",
        ];
        args.extend_from_slice(c);
        let (out, doc) = run_json(&args, d.path());
        assert_eq!(out.status.code(), Some(0), "{c:?}: {}", stderr(&out));
        let v = ptr(&doc, "runs/0/verify");
        assert_eq!(u(v, "findings_total"), 0, "{c:?}: {v}");
        let reads = u(&doc, "runs/0/summary/read/ops");
        if c.contains(&"--verify-after") {
            assert_eq!(u(v, "reads_after"), u(&doc, "runs/0/summary/write/ops"));
            assert!(u(v, "blocks_checked") >= u(v, "reads_after"));
        } else {
            assert!(reads > 50, "{c:?}: {reads} reads");
            // Every read covered at least one block, and all were written
            // (the prefill stamped the file).
            assert!(u(v, "blocks_checked") >= reads, "{c:?}: {v}");
            assert_eq!(u(v, "blocks_unwritten"), 0, "{c:?}");
        }
    }
}

/// A journalled target with two generations of history: run 1 wrote
/// every block (prefill) and then some; `snap1` is the target after run 1;
/// run 2 carried on. Returns (dir, target, journal, snap1, map1).
fn two_generations(
    target: Option<&Path>,
) -> (tempfile::TempDir, PathBuf, PathBuf, Vec<u8>, Vec<u8>) {
    let d = tempfile::tempdir().unwrap();
    let t = target
        .map(Path::to_path_buf)
        .unwrap_or_else(|| d.path().join("t.dat"));
    let j = d.path().join("journal");
    let ts = t.to_str().unwrap().to_string();
    let js = j.to_str().unwrap().to_string();
    let size = "2m";
    let mut base = vec![
        "--target",
        &ts,
        "--rw",
        "randwrite",
        "--bs",
        "4k",
        "--qd",
        "4",
        "--ops",
        "1500",
        "--journal",
        &js,
    ];
    if target.is_some() {
        base.extend_from_slice(&["--range", size, "--prefill"]);
    } else {
        base.extend_from_slice(&["--size", size]);
    }
    let (out, doc) = run_json(&base, d.path());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(u(&doc, "runs/0/verify/findings_total"), 0);
    let snap1 = read_at(&t, 0, 2 << 20);
    let map1 = journal_map(&j);
    let (out, doc) = run_json(&base, d.path());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(ptr(&doc, "runs/0/verify/journal_resumed")
        .as_bool()
        .unwrap());
    (d, t, j, snap1, map1)
}

/// Inject each class of fault in turn and check `iolab verify` finds
/// exactly it, at the right offset, and nothing else.
fn inject_each_class(t: &Path, j: &Path, snap1: &[u8], map1: &[u8], dir: &Path) {
    let js = j.to_str().unwrap();
    let (out, doc) = verify_json(&["--journal", js], dir);
    assert_eq!(out.status.code(), Some(0), "clean: {}", stderr(&out));
    assert_eq!(u(&doc, "verify/findings_total"), 0);
    assert_eq!(u(&doc, "verify/blocks_checked"), 512);
    let map2 = journal_map(j);
    // Blocks whose generation changed in run 2 have an older version in
    // snap1.
    let changed: Vec<u64> = (0..512u64)
        .filter(|&b| map2[b as usize] & 0x3f != map1[b as usize] & 0x3f)
        .collect();
    assert!(changed.len() > 20, "run 2 rewrote {} blocks", changed.len());
    let (a, b) = (changed[3], changed[10]);
    let (oa, ob) = (a * BS, b * BS);
    let cur_a = read_at(t, oa, BS as usize);
    let cur_b = read_at(t, ob, BS as usize);
    let old_a = snap1[oa as usize..(oa + BS) as usize].to_vec();

    let mut flip = cur_a.clone();
    flip[1234] ^= 0x08;
    let mut torn = cur_a.clone();
    torn[2048..].copy_from_slice(&old_a[2048..]);
    let mut zero = cur_a.clone();
    zero[1536..2048].fill(0);
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("corrupt", flip),
        ("misdirected", cur_b.clone()),
        ("stale", old_a.clone()),
        ("zeroed", zero),
        ("torn", torn),
    ];
    for (class, bytes) in cases {
        write_at(t, oa, &bytes);
        let (out, doc) = verify_json(&["--journal", js], dir);
        assert_eq!(out.status.code(), Some(1), "{class}: {}", stderr(&out));
        assert_eq!(findings(&doc), vec![(class.to_string(), oa)], "{class}");
        let f = ptr(&doc, "verify/findings/0");
        assert_eq!(u(&doc, &format!("verify/by_class/{class}")), 1);
        match class {
            "corrupt" => {
                assert_eq!(u(f, "first_bad_byte"), 1234);
                assert_eq!((u(f, "sector_first"), u(f, "sector_last")), (2, 2));
            }
            "misdirected" => assert_eq!(u(f, "found_offset"), ob),
            "stale" => {
                assert_eq!(u(f, "found_gen") as u8, map1[a as usize] & 0x3f);
                assert_eq!(u(f, "expected_gen") as u8, map2[a as usize] & 0x3f);
            }
            "zeroed" => assert_eq!((u(f, "sector_first"), u(f, "sector_last")), (3, 3)),
            _ => assert_eq!((u(f, "sector_first"), u(f, "sector_last")), (4, 7)),
        }
        assert!(f["hex"]["found"].as_str().unwrap().len() > 10);
        write_at(t, oa, &cur_a);
    }
    let (out, doc) = verify_json(&["--journal", js], dir);
    assert_eq!(out.status.code(), Some(0), "restored: {}", stderr(&out));
    assert_eq!(u(&doc, "verify/findings_total"), 0);
    // The findings log holds every finding reported above.
    let log = std::fs::read_to_string(j.join("findings.log")).unwrap();
    for class in ["corrupt", "misdirected", "stale", "zeroed", "torn"] {
        assert!(
            log.contains(&format!("{class} ")),
            "{class} missing from the log"
        );
    }
}

#[test]
fn each_injected_fault_in_a_file_is_found_and_classified() {
    let (d, t, j, snap1, map1) = two_generations(None);
    inject_each_class(&t, &j, &snap1, &map1, d.path());
    // Without the journal, the stamps alone still catch a flipped bit and
    // a misplaced block (but not a lost write).
    let ts = t.to_str().unwrap();
    let cur = read_at(&t, 0, 8192);
    let mut bad = cur.clone();
    bad[100] ^= 1;
    bad[4096..].copy_from_slice(&read_at(&t, 40960, 4096));
    write_at(&t, 0, &bad);
    let (out, doc) = verify_json(&["--target", ts], d.path());
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(
        findings(&doc),
        vec![("corrupt".into(), 0), ("misdirected".into(), 4096)]
    );
    write_at(&t, 0, &cur);
}

#[test]
fn each_injected_fault_on_a_loop_device_is_found_and_classified() {
    require_root!();
    let lo = LoopDevice::new(4 << 20, true).expect("loop device");
    let (d, t, j, snap1, map1) = two_generations(Some(&lo.path));
    inject_each_class(&t, &j, &snap1, &map1, d.path());
}

#[test]
fn a_later_run_carries_on_from_the_journal_and_its_reads_check_the_old_data() {
    let d = tempfile::tempdir().unwrap();
    let common = [
        "--target",
        "t.dat",
        "--size",
        "1m",
        "--journal",
        "j",
        "--bs",
        "4k",
    ];
    let mut w = common.to_vec();
    w.extend_from_slice(&["--rw", "randwrite", "--ops", "400"]);
    let (out, _) = run_json(&w, d.path());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // Flip a bit in block 7; a read-only run over the whole file finds it.
    let t = d.path().join("t.dat");
    let mut b = read_at(&t, 7 * BS, 4096);
    b[600] ^= 0x40;
    write_at(&t, 7 * BS, &b);
    let mut r = common.to_vec();
    r.extend_from_slice(&["--rw", "read", "--io-size", "1m"]);
    let (out, doc) = run_json(&r, d.path());
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let v = ptr(&doc, "runs/0/verify");
    assert!(v["journal_resumed"].as_bool().unwrap());
    assert_eq!(u(v, "blocks_prefilled"), 0, "the journal knew every block");
    assert_eq!(u(v, "blocks_checked"), 256);
    assert_eq!(findings(&doc), vec![("corrupt".into(), 7 * BS)]);
    assert_eq!(ptr(v, "findings/0/detected_by"), "read");
    assert_eq!(u(&doc, "verify/findings_total"), 1, "document total");
    assert!(stdout(&out).contains("CORRUPT"), "{}", stdout(&out));
}

/// A random read workload reads a bad block again and again: it is one
/// finding (the rest counted as repeats), so `--max-errors` counts
/// damaged places, not reads of them (issue 16's audit: 11,143 findings
/// of one changed byte in 1.5 s).
#[test]
fn a_bad_block_read_again_and_again_is_one_finding() {
    let d = tempfile::tempdir().unwrap();
    let common = [
        "--target",
        "t.dat",
        "--size",
        "64k",
        "--journal",
        "j",
        "--bs",
        "4k",
    ];
    let mut w = common.to_vec();
    w.extend_from_slice(&["--rw", "write", "--io-size", "64k"]);
    assert_eq!(run_json(&w, d.path()).0.status.code(), Some(0));
    let t = d.path().join("t.dat");
    let mut b = read_at(&t, 3 * BS, 4096);
    b[100] ^= 1;
    write_at(&t, 3 * BS, &b);
    let mut r = common.to_vec();
    r.extend_from_slice(&["--rw", "randread", "--ops", "400"]);
    let (out, doc) = run_json(&r, d.path());
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let v = ptr(&doc, "runs/0/verify");
    assert_eq!(findings(&doc), vec![("corrupt".into(), 3 * BS)]);
    assert_eq!(u(v, "findings_total"), 1);
    assert!(u(v, "findings_repeated") > 5, "{v}");
    assert!(ptr(&doc, "runs/0/complete").as_bool().unwrap());
    assert!(stdout(&out).contains("reads of places already reported"));
}

#[test]
fn max_errors_stops_the_run() {
    let d = tempfile::tempdir().unwrap();
    let common = [
        "--target",
        "t.dat",
        "--size",
        "1m",
        "--journal",
        "j",
        "--bs",
        "4k",
    ];
    let mut w = common.to_vec();
    w.extend_from_slice(&["--rw", "randwrite", "--ops", "100"]);
    assert_eq!(run_json(&w, d.path()).0.status.code(), Some(0));
    write_at(&d.path().join("t.dat"), 0, &vec![0u8; 64 << 10]);
    let mut r = common.to_vec();
    r.extend_from_slice(&["--rw", "read", "--io-size", "1m", "--max-errors", "3"]);
    let (out, doc) = run_json(&r, d.path());
    assert_eq!(out.status.code(), Some(1));
    let v = ptr(&doc, "runs/0/verify");
    assert_eq!(u(v, "findings_total"), 3);
    assert!(v["stopped_on_max_errors"].as_bool().unwrap());
    assert!(ptr(&doc, "runs/0/incomplete_reason")
        .as_str()
        .unwrap()
        .contains("--max-errors"));
    assert!(findings(&doc)
        .iter()
        .all(|(c, o)| c == "zeroed" && *o < 64 << 10));
}

#[test]
fn dropped_writes_are_caught_during_the_run() {
    require_root!();
    require_fuse!();
    let (fs, lo) = faultfs_loop(16 << 20);
    let d = tempfile::tempdir().unwrap();
    let dev = lo.path().to_str().unwrap().to_string();
    let bg = run_json_bg(
        &[
            "--target",
            &dev,
            "--rw",
            "randwrite",
            "--bs",
            "4k",
            "--qd",
            "4",
            "--duration",
            "2s",
            "--verify-after",
            "--prefill",
            "--max-errors",
            "0",
        ],
        d.path(),
    );
    std::thread::sleep(std::time::Duration::from_millis(1300));
    fs.control("drop-writes times 5").unwrap();
    let (out, doc) = bg.join().unwrap();
    assert!(
        fs.state().unwrap().contains("dropped_writes=5"),
        "{}",
        fs.state().unwrap()
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let v = ptr(&doc, "runs/0/verify");
    let f = findings(&doc);
    assert_eq!(f.len(), 5, "{v}");
    assert!(f.iter().all(|(c, _)| c == "stale"), "{f:?}");
    for x in ptr(v, "findings").as_array().unwrap() {
        assert_eq!(x["detected_by"], "verify-after");
        assert!(x["time_s"].as_f64().unwrap() > 0.5);
    }
    assert!(
        ptr(&doc, "runs/0/complete").as_bool().unwrap(),
        "the run went on"
    );
}

#[test]
fn misdirected_writes_are_caught_during_the_run() {
    require_root!();
    require_fuse!();
    let (fs, lo) = faultfs_loop(16 << 20);
    let d = tempfile::tempdir().unwrap();
    let dev = lo.path().to_str().unwrap().to_string();
    // A small region read far more than written: the block a misdirected
    // write landed on is read (and found holding another block's data)
    // long before it is written again.
    let bg = run_json_bg(
        &[
            "--target",
            &dev,
            "--range",
            "64k",
            "--rw",
            "randrw",
            "--read-pct",
            "95",
            "--bs",
            "4k",
            "--qd",
            "2",
            "--duration",
            "2s",
            "--verify",
            "--prefill",
            "--max-errors",
            "0",
        ],
        d.path(),
    );
    std::thread::sleep(std::time::Duration::from_millis(1000));
    fs.control("misdirect 0 60k 4096 times 3").unwrap();
    let (out, doc) = bg.join().unwrap();
    assert!(
        fs.state().unwrap().contains("misdirected_writes=3"),
        "{}",
        fs.state().unwrap()
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let f = findings(&doc);
    assert!(f.iter().any(|(c, _)| c == "misdirected"), "{f:?}");
    assert!(f.iter().any(|(c, _)| c == "stale"), "{f:?}");
    assert!(
        f.iter()
            .all(|(c, o)| (c == "misdirected" || c == "stale") && *o < 64 << 10),
        "{f:?}"
    );
}

#[test]
fn after_kill_9_acknowledged_dsync_writes_verify_and_a_lost_one_is_found() {
    let d = tempfile::tempdir().unwrap();
    let t = d.path().join("t.dat");
    let args = [
        "--target",
        "t.dat",
        "--size",
        "2m",
        "--journal",
        "j",
        "--rw",
        "randwrite",
        "--bs",
        "4k",
        "--qd",
        "8",
        "--sync",
        "dsync",
    ];
    let mut first = args.to_vec();
    first.extend_from_slice(&["--ops", "2000"]);
    let (out, _) = run_json(&first, d.path());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let snap1 = read_at(&t, 0, 2 << 20);
    let map1 = journal_map(&d.path().join("j"));

    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("iolab"))
        .arg("run")
        .args(args)
        .args(["--duration", "30s", "-q"])
        .current_dir(d.path())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1500));
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();

    let (out, doc) = verify_json(&["--journal", "j"], d.path());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(ptr(&doc, "verify/journal_crashed").as_bool().unwrap());
    assert_eq!(u(&doc, "verify/findings_total"), 0);
    assert_eq!(u(&doc, "verify/blocks_checked"), 512);

    // A block acknowledged (and durable: O_DSYNC) in the killed run, not
    // in flight at the kill: put its run-1 content back, a lost write.
    let map2 = journal_map(&d.path().join("j"));
    let b = (0..512usize)
        .find(|&b| map2[b] & 0xc0 == 0 && map2[b] & 0x3f != map1[b] & 0x3f)
        .expect("a block rewritten and acknowledged in the killed run");
    let off = b as u64 * BS;
    write_at(&t, off, &snap1[off as usize..off as usize + 4096]);
    let (out, doc) = verify_json(&["--journal", "j"], d.path());
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(findings(&doc), vec![("stale".into(), off)]);
}

#[test]
fn first_writes_in_flight_at_a_kill_are_not_findings() {
    // Without a prefill, the first write of a block takes it from
    // never-written to generation 1; one in flight at the kill may have
    // left the old (unstamped) content, which is allowed.
    let d = tempfile::tempdir().unwrap();
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("iolab"))
        .args([
            "run",
            "--target",
            "t.dat",
            "--size",
            "64m",
            "--no-prefill",
            "--journal",
            "j",
        ])
        .args([
            "--rw",
            "randwrite",
            "--bs",
            "4k",
            "--qd",
            "32",
            "--sync",
            "dsync",
        ])
        .args(["--duration", "30s", "-q"])
        .current_dir(d.path())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1200));
    child.kill().unwrap();
    child.wait().unwrap();
    let map = journal_map(&d.path().join("j"));
    let in_flight = map.iter().filter(|&&b| b & 0x7f == 0x41).count();
    let (out, doc) = verify_json(&["--journal", "j"], d.path());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(u(&doc, "verify/findings_total"), 0);
    assert!(u(&doc, "verify/blocks_checked") > 100);
    assert!(in_flight > 0, "no first write was in flight at the kill");
}

#[test]
fn bad_journals_are_refused_and_left_untouched() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path();
    let w = [
        "--target",
        "a.dat",
        "--size",
        "1m",
        "--journal",
        "j",
        "--rw",
        "randwrite",
        "--ops",
        "50",
    ];
    assert_eq!(run_json(&w, dir).0.status.code(), Some(0));
    std::fs::write(dir.join("b.dat"), vec![0u8; 1 << 20]).unwrap();
    let j = dir.join("j");
    let before = journal_files(&j);
    let check = |args: &[&str], needle: &str| {
        let o = iolab().args(args).current_dir(dir).output().unwrap();
        assert_bad_input(&o, needle);
    };
    // Another target, for a run and for verify.
    check(
        &[
            "run",
            "--target",
            "b.dat",
            "--journal",
            "j",
            "--rw",
            "randread",
            "--ops",
            "5",
        ],
        "was written for",
    );
    check(
        &["verify", "--target", "b.dat", "--journal", "j"],
        "was written for",
    );
    assert_eq!(journal_files(&j), before);
    // A target smaller than the journal says.
    let a = dir.join("a.dat");
    let full = std::fs::read(&a).unwrap();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&a)
        .unwrap()
        .set_len(512 << 10)
        .unwrap();
    check(
        &["verify", "--journal", "j"],
        "journal j recorded 1048576 bytes",
    );
    check(
        &[
            "run",
            "--target",
            "a.dat",
            "--journal",
            "j",
            "--rw",
            "randread",
            "--ops",
            "5",
        ],
        "recorded 1048576 bytes",
    );
    std::fs::write(&a, &full).unwrap();
    assert_eq!(journal_files(&j), before);
    // A truncated map, a corrupted map, a corrupted header, a map from
    // another journal.
    let mp = j.join("map-0.bin");
    let map = std::fs::read(&mp).unwrap();
    std::fs::write(&mp, &map[..map.len() - 7]).unwrap();
    check(&["verify", "--journal", "j"], "truncated");
    let mut m2 = map.clone();
    let last = m2.len() - 1;
    m2[last] ^= 0x01;
    std::fs::write(&mp, &m2).unwrap();
    check(&["verify", "--journal", "j"], "corrupted");
    check(
        &[
            "run",
            "--target",
            "a.dat",
            "--journal",
            "j",
            "--rw",
            "randread",
            "--ops",
            "5",
        ],
        "corrupted",
    );
    std::fs::write(&mp, &map).unwrap();
    let hp = j.join("journal.json");
    let header = std::fs::read(&hp).unwrap();
    std::fs::write(&hp, &header[..header.len() / 3]).unwrap();
    check(&["verify", "--journal", "j"], "corrupted");
    std::fs::write(&hp, &header).unwrap();
    let w2 = [
        "--target",
        "c.dat",
        "--size",
        "1m",
        "--journal",
        "k",
        "--rw",
        "randwrite",
        "--ops",
        "5",
    ];
    assert_eq!(run_json(&w2, dir).0.status.code(), Some(0));
    std::fs::copy(dir.join("k/map-0.bin"), &mp).unwrap();
    check(&["verify", "--journal", "j"], "another journal");
    std::fs::write(&mp, &map).unwrap();
    assert_eq!(journal_files(&j), before);
    // And the journal still works.
    let (out, doc) = verify_json(&["--journal", "j"], dir);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(u(&doc, "verify/findings_total"), 0);
    // Nothing to verify against, and a directory that is not a journal.
    check(&["verify"], "needs --target");
    std::fs::create_dir(dir.join("notj")).unwrap();
    std::fs::write(dir.join("notj/x"), b"x").unwrap();
    check(&["verify", "--journal", "notj"], "not an iolab journal");
    // A target that iolab never stamped: nothing to verify is not a pass.
    std::fs::write(dir.join("plain.dat"), vec![7u8; 1 << 20]).unwrap();
    check(
        &["verify", "--target", "plain.dat"],
        "holds no iolab stamps",
    );
    check(
        &[
            "run",
            "--target",
            "a.dat",
            "--journal",
            "notj",
            "--rw",
            "randwrite",
            "--ops",
            "5",
        ],
        "not empty",
    );
}

#[test]
fn verify_refuses_what_it_cannot_stamp() {
    let d = tempfile::tempdir().unwrap();
    let o = iolab()
        .args([
            "run",
            "--target",
            "t.dat",
            "--size",
            "1m",
            "--verify",
            "--bs",
            "1000",
            "--align",
            "1000",
            "--rw",
            "randwrite",
        ])
        .current_dir(d.path())
        .output()
        .unwrap();
    assert_bad_input(&o, "multiples of 512");
    let o = iolab()
        .args([
            "run", "--target", "t.dat", "--size", "1m", "--verify", "--dedupe", "20",
        ])
        .current_dir(d.path())
        .output()
        .unwrap();
    assert_bad_input(&o, "--dedupe cannot be combined with --verify");
    assert!(!d.path().join("t.dat").exists(), "bad input leaves nothing");
}
