//! The line that says what a file-system workload is about to run: its
//! personality or mix or flows, threads and operations in flight, file
//! selection, and each fileset's shape and anchor.

use iolab_spec::fileset::{FileSize, Shape};
use iolab_spec::fs::{FileSelect, FsFileset, FsSpec, FsWork};
use iolab_spec::{format_bytes, SyncMode, WorkloadSpec};
use std::fmt::Write;

/// `mix read:60,write:20` or `flows filereader x50 (create, write, ...)`.
fn work_text(spec: &WorkloadSpec, fs: &FsSpec) -> String {
    match &fs.work {
        FsWork::Mix(m) => {
            let parts: Vec<String> = m
                .iter()
                .map(|e| format!("{}:{}", e.step.op.name(), e.weight))
                .collect();
            format!(
                "mix {} x {} thread{}",
                parts.join(","),
                spec.jobs,
                plural(spec.jobs)
            )
        }
        FsWork::Flows(f) => {
            let flows: Vec<String> = f
                .iter()
                .map(|f| {
                    let steps: Vec<&str> = f.steps.iter().map(|s| s.op.name()).collect();
                    format!("{} x {} ({})", f.name, f.threads, steps.join(", "))
                })
                .collect();
            format!("flow{} {}", plural(f.len() as u32), flows.join("; "))
        }
    }
}

fn plural(n: u32) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// `bigfileset: 10000 files of gamma 128 KiB in dirs of 20 at /mnt/fb`.
fn fileset_text(f: &FsFileset) -> String {
    let shape = match &f.spec.shape {
        Shape::Tree(t) => format!(
            "depth {} width {}, {} files per leaf of {}",
            t.depth, t.width, t.files, t.sizes
        ),
        Shape::Entries(e) => {
            let size = match e.size {
                FileSize::Fixed(b) => format_bytes(b),
                FileSize::Gamma { mean, shape } => {
                    format!("gamma mean {} shape {shape}", format_bytes(mean))
                }
            };
            format!("{} files of {size}, dirs of {}", e.entries, e.dir_width)
        }
    };
    format!("{}: {shape} at {}", f.name, f.spec.anchor.display())
}

/// One line describing a file-system workload about to run.
pub fn fs_heading(spec: &WorkloadSpec, fs: &FsSpec) -> String {
    let mut s = format!("{}: ", spec.name);
    if let Some(p) = &fs.personality {
        write!(s, "{p}, ").unwrap();
    }
    write!(
        s,
        "{}, {} in flight per thread",
        work_text(spec, fs),
        spec.qd
    )
    .unwrap();
    match fs.select {
        FileSelect::Sequential => s.push_str(", files in order"),
        FileSelect::Uniform => {}
        FileSelect::Zipf(t) => write!(s, ", files by zipf:{t}").unwrap(),
    }
    if spec.direct {
        s.push_str(", O_DIRECT");
    }
    if spec.sync == SyncMode::Dsync {
        s.push_str(", O_DSYNC");
    }
    if let Some(r) = spec.rate_iops {
        write!(s, ", rate {r} ops/s").unwrap();
    }
    for f in &fs.filesets {
        write!(s, "; {}", fileset_text(f)).unwrap();
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_heading_names_the_flow_and_its_threads() {
        let mut spec = WorkloadSpec::example("fb", "/tmp/x", "read");
        crate::testraw::fileserver_spec(&mut spec);
        let h = crate::terminal::run_heading(&spec);
        assert!(
            h.starts_with("fb: fileserver, flow filereader x 50 (create, write, close, open, append, close, open, read, close, delete, stat)"),
            "{h}"
        );
        assert!(!h.contains("% read"), "{h}");
    }
}
