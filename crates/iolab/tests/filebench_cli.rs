//! filebench WML files on iolab's command line: `iolab run FILE.f
//! dir=DIR` is recognised by content, plans with `--parse-only` (and
//! makes nothing), refuses a bad file in one line with its file and line
//! (exit 2), and runs: a small WML file of the test's own for a second,
//! its flowops counted as iolab's operations and its origin recorded.

mod common;
mod fs_support;

use common::*;
use fs_support::*;
use std::path::{Path, PathBuf};

fn corpus(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../jobfile/tests/filebench")
        .join(name)
}

#[test]
fn a_wml_file_plans_with_parse_only_and_makes_nothing() {
    let tmp = scratch();
    let dir = tmp.path().join("fb");
    let o = iolab()
        .arg("run")
        .arg(corpus("fb-fileserver.f"))
        .arg(format!("dir={}", dir.display()))
        .arg("--parse-only")
        .output()
        .unwrap();
    let out = stdout(&o);
    assert!(o.status.success(), "stderr: {}\nstdout: {out}", stderr(&o));
    assert!(out.contains("echo: test file server ready"), "{out}");
    assert!(
        out.contains("flow filereader(50): create,write:whole:1m,close,open,append:rand:16k"),
        "{out}"
    );
    assert!(
        out.contains(&format!("{}/bigfileset", dir.display())),
        "{out}"
    );
    assert!(!dir.exists(), "--parse-only made {}", dir.display());
}

#[test]
fn a_bad_wml_file_is_refused_in_one_line_with_file_and_line() {
    for (name, needle) in [
        (
            "refuse-unknown-flowop.f",
            "refuse-unknown-flowop.f:9: 'truncatefile'",
        ),
        (
            "refuse-unset-var.f",
            "refuse-unset-var.f:6: $nthreads is never set",
        ),
    ] {
        let o = iolab()
            .arg("run")
            .arg(corpus(name))
            .arg("dir=/nonexistent-iolab-fb")
            .arg("--parse-only")
            .output()
            .unwrap();
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{name}: {e}");
        assert_eq!(e.trim_end().lines().count(), 1, "{name}: not one line: {e}");
        assert!(e.contains(needle), "{name}: {needle:?} not in {e}");
    }
}

#[test]
fn a_small_wml_file_runs_its_flowops() {
    let tmp = scratch();
    let wml = tmp.path().join("small.f");
    std::fs::write(
        &wml,
        "# two threads reading and appending, for one second\n\
         set $dir=/nonexistent\n\
         define fileset name=pool,path=$dir,size=8k,entries=40,dirwidth=10,prealloc\n\
         define process name=worker,instances=2\n{\n\
           thread name=t,memsize=1m,instances=1\n  {\n\
             flowop openfile name=o,filesetname=pool,fd=1\n\
             flowop readwholefile name=r,fd=1,iosize=4k\n\
             flowop appendfile name=a,fd=1,iosize=512\n\
             flowop closefile name=c,fd=1\n\
             flowop statfile name=s,filesetname=pool\n\
           }\n}\n\
         run 1\n",
    )
    .unwrap();
    let dir = tmp.path().join("anchor");
    let (o, doc) = run_json(
        &[wml.to_str().unwrap(), &format!("dir={}", dir.display())],
        tmp.path(),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    for op in ["open", "read", "append", "close", "stat"] {
        assert!(ops(&doc, op) > 0, "{op} never ran: {:?}", all_ops(&doc));
    }
    // Each pass opens and closes once: the counts stay within the
    // passes in flight of each other.
    let (open, close) = (ops(&doc, "open"), ops(&doc, "close"));
    assert!(open.abs_diff(close) <= 2, "open {open}, close {close}");
    assert_eq!(
        ptr(wl(&doc), "spec.fs.work.flows.0.threads").as_u64(),
        Some(2),
        "2 process instances x 1 thread"
    );
    let text = doc.to_string();
    assert!(text.contains("\"filebench\""), "the origin's format");
    assert!(dir.join("pool").is_dir(), "the fileset is at DIR/NAME");
}

#[test]
fn a_fileset_path_problem_names_the_fileset_not_a_dir_flag() {
    let tmp = scratch();
    let busy = tmp.path().join("busy");
    std::fs::create_dir_all(busy.join("logs")).unwrap();
    std::fs::write(busy.join("logs/theirs"), "not iolab's").unwrap();
    let f = tmp.path().join("two.f");
    std::fs::write(
        &f,
        format!(
            "set $dir={}\ndefine fileset name=logs,path=$dir,entries=4,size=4k,prealloc\n\
             define process name=p {{\n thread name=t {{\n  flowop statfile name=s,filesetname=logs\n }}\n}}\nrun 1\n",
            busy.display()
        ),
    )
    .unwrap();
    let o = iolab()
        .arg("run")
        .arg(&f)
        .arg("--dry-run")
        .output()
        .unwrap();
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("fileset logs: ") && !err.contains("--dir"),
        "{err}"
    );
    assert_eq!(
        std::fs::read_to_string(busy.join("logs/theirs")).unwrap(),
        "not iolab's"
    );
}
