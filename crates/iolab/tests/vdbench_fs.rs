//! Issue 18, "Reproduce the seeds' files": the SAS study's vdbench
//! file-system parameter file (examples/vdbench/sas-fs.vdb) runs
//! unchanged on ext4 on a loop device of the test's own, with small files
//! given as `size=` and a short run (`--duration` overrides `elapsed=`),
//! and the result's file-system counters match the fileset's shape: 64
//! files in 4 directories made once, then written whole, then read whole.

mod common;
mod fs_support;

use common::*;
use fs_support::*;
use serde_json::Value;
use std::path::PathBuf;

fn sas_file() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/vdbench/sas-fs.vdb")
}

/// `runs.<run>.workloads.0.<path>` as a number.
fn w_u(doc: &Value, run: usize, path: &str) -> u64 {
    u(doc, &format!("runs.{run}.workloads.0.{path}"))
}

/// `operations.<op>.<field>` of a run's workload (0 when it did not run).
fn op(doc: &Value, run: usize, name: &str, field: &str) -> u64 {
    ptr(doc, &format!("runs.{run}.workloads.0"))
        .pointer(&format!("/operations/{name}/{field}"))
        .and_then(Value::as_u64)
        .unwrap_or(0)
}

#[test]
fn sas_study_parameter_file_writes_then_reads_its_fileset() {
    let Some(fs) = mount("ext4") else { return };
    let out = scratch();
    let anchor = fs.path().join("sas");
    let anchor_arg = format!("anchor={}", anchor.display());
    let file = sas_file();
    let (o, doc) = run_json(
        &[s(&file), &anchor_arg, "size=1m", "--duration", "1s"],
        out.path(),
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let names: Vec<&str> = doc["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["rd_write", "rd_read"]);
    const MIB: u64 = 1 << 20;

    // The write run: format=restart makes the 64 files of 1 MiB in
    // width^depth = 4 directories before the measured time.
    assert_eq!(w_u(&doc, 0, "filesets.0.files"), 64);
    assert_eq!(w_u(&doc, 0, "filesets.0.files_made"), 64);
    assert_eq!(w_u(&doc, 0, "filesets.0.dirs_made"), 4);
    assert_eq!(w_u(&doc, 0, "filesets.0.bytes_written"), 64 * MIB);
    assert_eq!(w_u(&doc, 0, "filesets.0.files_at_end"), 64);
    // Then each pass opens a file, writes it whole and closes it; no file
    // is created or deleted while measured.
    let opens = w_u(&doc, 0, "fileset.opens_write");
    assert!(opens > 0, "no writes in a second");
    assert_eq!(w_u(&doc, 0, "fileset.opens_read"), 0);
    assert_eq!(w_u(&doc, 0, "fileset.closes"), opens);
    assert_eq!(w_u(&doc, 0, "fileset.files_created"), 0);
    assert_eq!(w_u(&doc, 0, "fileset.files_deleted"), 0);
    // One whole-file write per open; the 8 threads' last passes may be
    // cut by the end of the run between their open and their write.
    let writes = op(&doc, 0, "write", "ops");
    assert!(
        writes <= opens && opens - writes <= 8,
        "{writes} writes, {opens} opens"
    );
    assert_eq!(op(&doc, 0, "write", "bytes"), writes * MIB);

    // The read run (format=no): the files are there; read whole.
    assert_eq!(w_u(&doc, 1, "filesets.0.files_made"), 0);
    let reads = op(&doc, 1, "read", "ops");
    assert!(reads > 0, "no reads in a second");
    let opens = w_u(&doc, 1, "fileset.opens_read");
    assert!(
        reads <= opens && opens - reads <= 8,
        "{reads} reads, {opens} opens"
    );
    assert_eq!(w_u(&doc, 1, "fileset.opens_write"), 0);
    assert_eq!(w_u(&doc, 1, "fileset.closes"), opens);
    assert_eq!(op(&doc, 1, "read", "bytes"), reads * MIB);
    assert_eq!(op(&doc, 1, "write", "ops"), 0);

    // What is on the file system is the fileset's shape, kept.
    assert_eq!(find_counts(&anchor), (64, 4));
}

#[test]
fn sas_study_parameter_file_needs_its_anchor_and_size() {
    let out = scratch();
    let o = iolab()
        .args(["run", s(&sas_file()), "size=1m", "--dry-run"])
        .current_dir(out.path())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let e = stderr(&o);
    assert!(
        e.contains("sas-fs.vdb:17: $anchor has no value; give it on the command line after the file as anchor=VALUE"),
        "{e}"
    );
    assert_eq!(e.trim().lines().count(), 1, "{e}");
}

/// `fwdrate=` is vdbench's operations per second of the run, shared by
/// the fwds (evenly here): 100 getattrs a second and 100 reads of 16k a
/// second (25 whole files of 64k), whatever steps iolab's flows take
/// around them. Loose bounds: a busy machine may fall short, never far
/// over.
#[test]
fn fwdrate_paces_vdbench_s_operations() {
    let Some(fs) = mount("ext4") else { return };
    let out = scratch();
    let vdb = out.path().join("rate.vdb");
    std::fs::write(
        &vdb,
        "fsd=f,anchor=$anchor,width=2,files=8,sizes=64k\n\
         fwd=stats,fsd=f,operation=getattr,threads=2\n\
         fwd=reads,fsd=f,operation=read,xfersize=16k,threads=2\n\
         rd=r,fwd=(stats,reads),fwdrate=200,format=restart,elapsed=2,interval=1\n",
    )
    .unwrap();
    let anchor_arg = format!("anchor={}", fs.path().join("rate").display());
    let (o, doc) = run_json(&[s(&vdb), &anchor_arg], out.path());
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let secs = f(&doc, "runs.0.workloads.0.measured_s");
    let stats = op(&doc, 0, "stat", "ops") as f64 / secs;
    let reads = op(&doc, 0, "read", "bytes") as f64 / 16384.0 / secs;
    for (what, rate) in [("getattr", stats), ("16k reads", reads)] {
        assert!(
            (40.0..=130.0).contains(&rate),
            "{what}: {rate:.1} a second, fwdrate gives each fwd 100"
        );
    }
}

/// An fsd whose anchor cannot be used is refused before any I/O with the
/// parameter file and the definitions it comes from (not only `--dir`),
/// and `--parse-only` does not look at the anchor at all.
#[test]
fn a_refused_anchor_names_the_parameter_file_and_fsd() {
    let out = scratch();
    let missing = out.path().join("no-such-parent/a1");
    let foreign = out.path().join("foreign");
    std::fs::create_dir(&foreign).unwrap();
    std::fs::write(foreign.join("keep.txt"), b"not iolab's").unwrap();
    for (anchor, what) in [(&missing, "does not exist"), (&foreign, "not empty")] {
        let file = out.path().join("anchor.vdb");
        std::fs::write(
            &file,
            format!(
                "fsd=fsd1,anchor={}\nfwd=fwd1,fsd=fsd1,operation=read\nrd=rd1,fwd=fwd1,fwdrate=max,elapsed=1\n",
                anchor.display()
            ),
        )
        .unwrap();
        let o = iolab()
            .args(["run", s(&file), "--dry-run"])
            .current_dir(out.path())
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        let e = stderr(&o);
        assert!(
            e.contains("anchor.vdb: vdbench rd1/fwd1/fsd1: --dir") && e.contains(what),
            "{e}"
        );
        assert_eq!(e.trim().lines().count(), 1, "{e}");
        let o = iolab()
            .args(["run", s(&file), "--parse-only"])
            .current_dir(out.path())
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    }
    assert!(!missing.parent().unwrap().exists(), "nothing made");
    assert_eq!(std::fs::read_dir(&foreign).unwrap().count(), 1);
}
