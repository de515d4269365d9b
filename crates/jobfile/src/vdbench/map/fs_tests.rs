//! Tests of the file-system mapping (fs.rs): parameter files parsed and
//! translated, the keys of their workloads checked.

use super::super::{translate, Translation};
use super::*;
use crate::vdbench::parse::parse;

fn tr(text: &str) -> Result<Translation, JobError> {
    let f = parse("t.vdb", text, &[])?;
    translate(&f, &LoadOptions::default())
}

fn err(text: &str) -> String {
    tr(text).unwrap_err().0
}

/// `key=value` of a table, sorted by key (strings without quotes).
fn keys(t: &toml::Table) -> Vec<String> {
    t.iter()
        .map(|(k, v)| match v {
            Value::String(s) => format!("{k}={s}"),
            other => format!("{k}={other}"),
        })
        .collect()
}

const SAS: &str = "fsd=fsd1,anchor=/mnt/sas/fs1,depth=1,width=4,files=16,sizes=5g
fwd=default,fsd=fsd1,xfersize=512k,fileio=sequential,fileselect=random,threads=8
fwd=fwdw,operation=write
fwd=fwdr,operation=read
rd=write,fwd=fwdw,fwdrate=max,format=restart,elapsed=300,interval=10
rd=read,fwd=fwdr,fwdrate=max,format=no,elapsed=300,interval=10
";

#[test]
fn the_sas_study_write_then_read() {
    let t = tr(SAS).unwrap();
    assert_eq!(t.runs.len(), 2);
    let (w, origin) = &t.runs[0].workloads[0];
    assert_eq!(
        keys(w),
        [
            "depth=1",
            "dir=/mnt/sas/fs1",
            "file_select=random",
            "files=64",
            "flow=fwdw(8): open,write:whole:512k,close",
            "name=fwdw/fsd1",
            "sizes=5g",
            "width=4",
        ]
    );
    assert_eq!(origin.section, "write/fwdw/fsd1");
    assert_eq!(
        t.runs[0].run.get("duration").unwrap().as_str(),
        Some("300s")
    );
    assert_eq!(
        t.runs[0].run.get("format").unwrap().as_str(),
        Some("restart")
    );
    let (r, _) = &t.runs[1].workloads[0];
    assert_eq!(
        r.get("flow").unwrap().as_str(),
        Some("fwdr(8): open,read:whole:512k,close")
    );
    assert_eq!(t.runs[1].run.get("format").unwrap().as_str(), Some("no"));
}

#[test]
fn the_mapped_keys_make_a_valid_iolab_workload() {
    let f = parse("t.vdb", SAS, &[]).unwrap();
    let loaded = crate::vdbench::map::map(&f, &LoadOptions::default()).unwrap();
    let w = &loaded.runs[0].workloads[0];
    let fs = crate::fs::resolve_fs(w, 1).unwrap().unwrap();
    assert_eq!(fs.fs.filesets.len(), 1);
}

#[test]
fn fwds_on_one_fsd_are_flows_of_one_workload_sharing_the_rate_by_skew() {
    let t = tr(
        "fsd=f,anchor=/a,depth=2,width=3,files=5,sizes=(32k,50,64k,50)
fwd=rd,fsd=f,operation=read,fileio=random,threads=4,skew=30,xfersize=8k
fwd=wr,fsd=f,operation=write,fileio=random,threads=2,xfersize=8k,stopafter=10
rd=r1,fwd=(rd,wr),fwdrate=1000,elapsed=10
",
    )
    .unwrap();
    let ws = &t.runs[0].workloads;
    assert_eq!(ws.len(), 1);
    let w = &ws[0].0;
    assert_eq!(w.get("files").unwrap().as_integer(), Some(45));
    assert_eq!(w.get("sizes").unwrap().as_str(), Some("32k:50,64k:50"));
    // The mean file is 48k: 6 transfers of 8k by default; stopafter=10.
    // fwdrate paces vdbench's transfers (300 and 700 a second), a flow's
    // rate all its steps: the open and close of each pass too.
    assert_eq!(
        w.get("flow").unwrap().as_str(),
        Some("rd(4 rate=400): open,read:rand:8k:x6,close | wr(2 rate=840): open,rewrite:rand:8k:x10,close")
    );
    assert_eq!(w.get("file_select").unwrap().as_str(), Some("seq"));
    assert_eq!(ws[0].1.section, "r1/rd+wr/f");
}

#[test]
fn a_fwd_on_two_fsds_splits_its_threads_and_rate() {
    let t = tr("fsd=a,anchor=/a
fsd=b,anchor=/b,openflags=o_direct
fwd=w,fsd=(a,b),operation=create,threads=8
rd=r1,fwd=w,fwdrate=100,format=yes
")
    .unwrap();
    let ws = &t.runs[0].workloads;
    assert_eq!(ws.len(), 2);
    assert_eq!(
        ws[0].0.get("flow").unwrap().as_str(),
        // 50 creates a second on each, each a pass of 3 steps.
        Some("w(4 rate=150): create,write:whole:4k,close")
    );
    // vdbench's defaults: depth 1, width 1, 10 files of 4k.
    assert_eq!(ws[0].0.get("files").unwrap().as_integer(), Some(10));
    assert!(ws[0].0.get("direct").is_none());
    assert_eq!(ws[1].0.get("direct").unwrap().as_bool(), Some(true));
    assert_eq!(ws[1].0.get("dir").unwrap().as_str(), Some("/b"));
}

#[test]
fn read_write_mix_within_files_and_operations_on_the_rd() {
    let t = tr("fsd=f,anchor=/a,sizes=1m
fwd=m,fsd=f,operation=read,rdpct=70,fileio=random,xfersize=64k,threads=3
rd=r1,fwd=m,fwdrate=max
rd=r2,fwd=m,operations=(read,getattr,mkdir),threads=6
")
    .unwrap();
    assert_eq!(
        t.runs[0].workloads[0].0.get("flow").unwrap().as_str(),
        Some("m(3): open,read:rand:64k:x11,rewrite:rand:64k:x5,close")
    );
    assert_eq!(
        t.runs[1].workloads[0].0.get("flow").unwrap().as_str(),
        Some("m-read(2): open,read:rand:64k:x11,rewrite:rand:64k:x5,close | m-getattr(2): stat | m-mkdir(2): mkdir")
    );
}

#[test]
fn file_system_loops_make_runs_in_vdbench_order() {
    let t = tr("fsd=f,anchor=/a,width=2,files=3
fwd=w,fsd=f,operation=write,xfersize=4k
rd=r,fwd=w,fordepth=(1,2),forsizes=(8k,16k),fwdrate=(100-300,100),forxfersize=(4k,8k)
")
    .unwrap();
    let names: Vec<&str> = t.runs.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(names.len(), 2 * 2 * 3 * 2);
    assert_eq!(names[0], "r depth=1 sizes=8k fwdrate=100 xfersize=4k");
    assert_eq!(names[23], "r depth=2 sizes=16k fwdrate=300 xfersize=8k");
    let w = &t.runs[23].workloads[0].0;
    assert_eq!(w.get("files").unwrap().as_integer(), Some(12));
    assert_eq!(w.get("sizes").unwrap().as_str(), Some("16k"));
    assert_eq!(
        w.get("flow").unwrap().as_str(),
        // 300 writes of 8k a second are 150 files of 16k: 450 steps.
        Some("w(1 rate=450): open,write:whole:8k,close")
    );
    let t =
        tr("fsd=f,anchor=/a\nfwd=w,fsd=f\nrd=r,fwd=w,foroperations=(create,delete),width=(1,2)\n")
            .unwrap();
    let names: Vec<&str> = t.runs.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "r operations=create width=1",
            "r operations=create width=2",
            "r operations=delete width=1",
            "r operations=delete width=2"
        ]
    );
    assert_eq!(
        t.runs[2].workloads[0].0.get("flow").unwrap().as_str(),
        Some("w(1): delete")
    );
}

#[test]
fn ranges_expand_by_step_and_by_doubling() {
    let v = |s: &[&str]| s.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    assert_eq!(
        expand_ranges(&v(&["1-4", "1"])).unwrap(),
        v(&["1", "2", "3", "4"])
    );
    assert_eq!(
        expand_ranges(&v(&["4k-32k", "d", "1m"])).unwrap(),
        v(&["4k", "8k", "16k", "32k", "1m"])
    );
    assert_eq!(
        expand_ranges(&v(&["64-16", "d"])).unwrap(),
        v(&["64", "32", "16"])
    );
    assert!(expand_ranges(&v(&["1-4"]))
        .unwrap_err()
        .contains("needs a step"));
    assert!(expand_ranges(&v(&["1-100000", "1"]))
        .unwrap_err()
        .contains("more than 4096"));
}

#[test]
fn what_iolab_cannot_do_is_refused_with_keyword_and_place() {
    for (text, want) in [
        ("fsd=f,anchor=/a,totalsize=1g\nfwd=w,fsd=f\nrd=r,fwd=w\n", "t.vdb:1: iolab does not support totalsize= on fsd=f: iolab's fileset has a fixed number of files"),
        ("fsd=f,anchor=/a,distribution=all\nfwd=w,fsd=f\nrd=r,fwd=w\n", "t.vdb:1: iolab does not support distribution= on fsd=f"),
        ("fsd=f,anchor=/a\nfwd=w,fsd=f\nrd=r,fwd=w,format=only\n", "t.vdb:3: rd=r: format=only: iolab creates the files before each run"),
        ("fsd=f,anchor=/a\nfwd=w,fsd=f\nrd=r,fwd=w,format=clean\n", "t.vdb:3: rd=r: format=clean"),
        ("fsd=f,anchor=/a\nfwd=w,fsd=f,xfersize=(4k,50,8k,50)\nrd=r,fwd=w\n", "t.vdb:2: fwd=w: xfersize=(4k,50,8k,50): a distribution of transfer sizes"),
        ("fsd=f,anchor=/a\nfwd=w,fsd=f,operation=copy\nrd=r,fwd=w\n", "fwd=w: operation=copy: iolab has no copy operation"),
        ("fsd=f,anchor=/a\nfwd=w,fsd=f,fileselect=(poisson,3)\nrd=r,fwd=w\n", "t.vdb:2: fwd=w: fileselect=poisson: iolab selects files"),
        ("fsd=f,anchor=/a\nfwd=w,fsd=f,rdpct=50\nrd=r,fwd=w\n", "fwd=w: operation=read: rdpct= with sequential fileio"),
        ("fsd=f,anchor=/a\nfwd=w\nrd=r,fwd=w\n", "t.vdb:2: fwd=w names no fsd=; add fsd=NAME"),
        ("fsd=f,depth=1\nfwd=w,fsd=f\nrd=r,fwd=w\n", "t.vdb:1: fsd=f has no anchor=; add anchor=DIR"),
        ("fsd=f,anchor=/a\nfwd=w,fsd=f\nrd=r,fwd=w,iorate=100\n", "t.vdb:3: iorate= on rd=r: a run of fwd= workloads takes fwdrate"),
        ("fsd=f,anchor=/a\nfwd=w,fsd=f\nrd=r,fwd=w,fwdrate=curve\n", "t.vdb:3: rd=r: fwdrate=curve"),
        ("fsd=f,anchor=/a,sizes=(1k,50,2k,40)\nfwd=w,fsd=f\nrd=r,fwd=w\n", "t.vdb:1: fsd=f: sizes=(1k,50,2k,40): the percentages add up to 90, not 100"),
        ("fsd=f,anchor=/a\nfwd=a,fsd=f,skew=60\nfwd=b,fsd=f,skew=60\nrd=r,fwd=(a,b),fwdrate=10\n", "the fwds' skew= add up to 120%"),
        ("fsd=f,anchor=/a\nfwd=a,fsd=f,fileselect=random\nfwd=b,fsd=f\nrd=r,fwd=(a,b)\n", "fwd=a and fwd=b work on fsd=f with different fileselect="),
        ("fsd=f,anchor=/a\nfwd=w,fsd=f,openflags=o_nonsense\nrd=r,fwd=w\n", "t.vdb:2: fwd=w: openflags=o_nonsense"),
        ("fsd=f,anchor=/a,depth=20,width=100,files=10\nfwd=w,fsd=f\nrd=r,fwd=w\n", "make more files than iolab lays out"),
        ("fsd=f,anchor=/a\nfwd=w,fsd=f,operation=(read,write)\nrd=r,fwd=w\n", "t.vdb:2: fwd=w: operation=(read,write): a fwd has one operation"),
        ("fsd=f,anchor=/a\nfwd=w,fsd=f\nrd=r,fwd=w,fsd=f\n", "t.vdb:3: iolab does not support fsd= on rd=r: the fwds name their fsds"),
    ] {
        let e = err(text);
        assert!(e.contains(want), "{text:?}:\n{e}");
        assert!(!e.contains('\n'), "{e}");
    }
}

#[test]
fn ignored_and_approximated_keywords_are_noted() {
    let t = tr("fsd=f,anchor=/a,shared=yes,sizes=(64k,0)\nfwd=w,fsd=f,fileio=(random,shared),openflags=o_sync\nrd=r,fwd=w,format=once\n").unwrap();
    let notes = t.notes.join("\n");
    assert!(notes.contains("sizes=(64k,0): vdbench draws file sizes around this average; iolab makes every file 64k"), "{notes}");
    assert!(notes.contains("fileio=(random,shared)"), "{notes}");
    assert!(notes.contains("o_sync runs as O_DSYNC"), "{notes}");
    assert!(
        notes.contains("format=once runs as format=restart"),
        "{notes}"
    );
    assert!(
        notes.contains("fsd shared= (one host uses the fsd)"),
        "{notes}"
    );
    let w = &t.runs[0].workloads[0].0;
    assert_eq!(w.get("sync").unwrap().as_str(), Some("dsync"));
    assert_eq!(
        t.runs[0].run.get("format").unwrap().as_str(),
        Some("restart")
    );
}

#[test]
fn the_single_fwd_entry_point_agrees() {
    let f = parse("t.vdb", SAS, &[]).unwrap();
    let rd = f.of(DefKind::Run).next().unwrap();
    let fwd = f
        .of(DefKind::FsWorkload)
        .find(|d| d.name == "fwdw")
        .unwrap();
    let t = fwd_workload(&f, rd, fwd, &[]).unwrap();
    assert_eq!(
        t.get("flow").unwrap().as_str(),
        Some("fwdw(8): open,write:whole:512k,close")
    );
    assert_eq!(
        fs_run_keys(rd).unwrap().get("format").unwrap().as_str(),
        Some("restart")
    );
    let loops = fs_loops(f.of(DefKind::Run).next().unwrap());
    assert!(loops.is_empty());
}

#[test]
fn fwd_format_only_tunes_vdbench_s_format_run() {
    let t =
        tr("fsd=f,anchor=/a\nfwd=format,threads=16\nfwd=w,fsd=f\nrd=r,fwd=*,format=yes\n").unwrap();
    let w = &t.runs[0].workloads;
    assert_eq!(w.len(), 1);
    assert_eq!(
        w[0].0.get("flow").unwrap().as_str(),
        Some("w(1): open,read:whole:4k,close")
    );
    assert!(
        t.notes
            .iter()
            .any(|n| n.starts_with("fwd=format sets the threads")),
        "{:?}",
        t.notes
    );
    let e = err("fsd=f,anchor=/a\nfwd=format,threads=16\nrd=r,fwd=format\n");
    assert!(
        e.starts_with("t.vdb:3: rd=r: fwd=format only sets how vdbench formats"),
        "{e}"
    );
}
