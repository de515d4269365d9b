//! The measurement behind bench/fs-meta-uring (an ignored test: run it
//! through that script, in release). One thread creates (openat with
//! O_CREAT|O_EXCL, then close), stats (statx) and deletes (unlinkat) N
//! empty files, first as plain system calls one after another, then
//! through the io_uring backend with QD requests in flight; it prints one
//! line per backend and phase: ops/s and CPU µs per operation (the
//! process's user + system time, io_uring's io-wq workers included).
//!
//! Environment: IOLAB_FS_BENCH_DIR (where the directories go; default
//! /tmp), IOLAB_FS_BENCH_FILES (N, default 20000), IOLAB_FS_BENCH_QD (the
//! backends in order: `sys` for system calls, a number for the ring at
//! that depth; default "sys,1,16,64,sys"), IOLAB_FS_BENCH_PHASES (default
//! "create,stat,delete"), IOLAB_FS_BENCH_KEEP=1 (each backend works in
//! `DIR/fsmeta-<backend>-<n>`, kept between runs, so a script can
//! remount the file system between phases to measure cold metadata;
//! otherwise a temporary directory per backend) and IOLAB_FS_BENCH_WQ
//! (cap on each ring's io-wq workers; 0, the default, leaves the
//! kernel's).

use super::*;
use std::ffi::CString;
use std::time::Instant;

/// How one phase starts a file's work and continues it: the first
/// request for file `i`, and the next one after the result `res` of its
/// request number `step` (0 the first; None: the file is done).
struct Phase<'a> {
    name: &'static str,
    first: &'a dyn Fn(usize) -> Req,
    then: &'a dyn Fn(u32, i32) -> Option<Req>,
}

/// CPU time of the whole process (all its threads), in µs.
fn cpu_us() -> f64 {
    // SAFETY: getrusage fills the zeroed struct it is given.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) };
    let us = |t: libc::timeval| t.tv_sec as f64 * 1e6 + t.tv_usec as f64;
    us(ru.ru_utime) + us(ru.ru_stime)
}

/// The phase as system calls, file after file; errors seen.
fn by_syscall(n: usize, p: &Phase) -> u64 {
    let mut errors = 0;
    for i in 0..n {
        let (mut res, mut step) = (syscall(&(p.first)(i)), 0);
        errors += (res < 0) as u64;
        while let Some(q) = (p.then)(step, res) {
            res = syscall(&q);
            errors += (res < 0) as u64;
            step += 1;
        }
    }
    errors
}

/// The phase through `b` with `qd` files in progress (slot = tag); errors.
fn by_ring(b: &mut UringBackend, qd: usize, n: usize, p: &Phase) -> u64 {
    let (mut file, mut step) = (vec![0usize; qd], vec![0u32; qd]);
    let mut ready: Vec<(u32, i32)> = Vec::with_capacity(qd);
    let (mut next, mut errors) = (0, 0);
    while next < n.min(qd) {
        (file[next], step[next]) = (next, 0);
        b.push(next as u32, (p.first)(next));
        next += 1;
    }
    while b.in_flight() > 0 {
        b.reap(1, &mut |tag, res| ready.push((tag, res)));
        for &(slot, res) in &ready {
            errors += (res < 0) as u64;
            let s = slot as usize;
            if let Some(q) = (p.then)(step[s], res) {
                step[s] += 1;
                b.push(slot, q);
            } else if next < n {
                (file[s], step[s]) = (next, 0);
                b.push(slot, (p.first)(next));
                next += 1;
            }
        }
        ready.clear();
    }
    errors
}

fn env<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// The memory one backend's run points into: the directory, the names
/// and the statx buffers of its `n` files.
struct Files {
    _tmp: Option<tempfile::TempDir>,
    root: RawFd,
    names: Vec<CString>,
    stx: Vec<std::cell::UnsafeCell<libc::statx>>,
}

impl Files {
    /// `n` names in a new temporary directory under `base`, or in
    /// `base/fsmeta-<label>-<n>` (made if missing, kept) when `keep`.
    fn new(base: &str, n: usize, label: &str, keep: bool) -> Files {
        let (tmp, dir) = if keep {
            let d = std::path::Path::new(base).join(format!("fsmeta-{label}-{n}"));
            std::fs::create_dir_all(&d).unwrap();
            (None, d)
        } else {
            let t = tempfile::tempdir_in(base).unwrap();
            let d = t.path().to_path_buf();
            (Some(t), d)
        };
        let cpath = CString::new(dir.to_str().unwrap()).unwrap();
        // SAFETY: a valid C string; the descriptor is closed on drop.
        let root = unsafe { libc::open(cpath.as_ptr(), libc::O_RDONLY | libc::O_DIRECTORY) };
        assert!(root >= 0, "open {}", dir.display());
        let names = (0..n).map(|i| CString::new(format!("f{i}")).unwrap());
        // SAFETY: plain data; zeroes are a valid statx.
        let zero = || std::cell::UnsafeCell::new(unsafe { std::mem::zeroed() });
        Files {
            _tmp: tmp,
            root,
            names: names.collect(),
            stx: (0..n).map(|_| zero()).collect(),
        }
    }

    fn path(&self, i: usize) -> *const libc::c_char {
        self.names[i].as_ptr()
    }
}

impl Drop for Files {
    fn drop(&mut self) {
        // SAFETY: our own descriptor.
        unsafe { libc::close(self.root) };
    }
}

/// One backend's `phases` on `n` files; prints a line per phase.
/// `exec` runs a phase on `n` files.
fn measure(f: &Files, phases: &str, label: &str, exec: &mut dyn FnMut(usize, &Phase) -> u64) {
    let (root, n) = (f.root, f.names.len());
    let flags = libc::O_CREAT | libc::O_EXCL | libc::O_WRONLY;
    let open = |i: usize| Req::Open {
        dir: root,
        path: f.path(i),
        flags,
        mode: 0o644,
    };
    let stat = |i: usize| Req::Statx {
        dir: root,
        path: f.path(i),
        flags: 0,
        out: f.stx[i].get(),
    };
    let unlink = |i: usize| Req::Unlink {
        dir: root,
        path: f.path(i),
        rmdir: false,
    };
    // A create is the open, then the close of what it opened.
    let close = |step: u32, fd: i32| (step == 0 && fd >= 0).then_some(Req::Close { fd });
    let none = |_: u32, _: i32| None;
    let all = [
        Phase {
            name: "create",
            first: &open,
            then: &close,
        },
        Phase {
            name: "stat",
            first: &stat,
            then: &none,
        },
        Phase {
            name: "delete",
            first: &unlink,
            then: &none,
        },
    ];
    for p in all
        .iter()
        .filter(|p| phases.split(',').any(|q| q == p.name))
    {
        let (t, c) = (Instant::now(), cpu_us());
        let errors = exec(n, p);
        let (secs, cpu) = (t.elapsed().as_secs_f64(), cpu_us() - c);
        let (ops, cpu_op) = (n as f64 / secs, cpu / n as f64);
        println!(
            "{label:<16} {:<7} {ops:>10.0} ops/s {cpu_op:>7.2} cpu_us/op",
            p.name
        );
        assert_eq!(errors, 0, "{label} {}", p.name);
    }
}

#[test]
#[ignore = "a benchmark: bench/fs-meta-uring runs it"]
fn fs_meta_bench() {
    let base: String = env("IOLAB_FS_BENCH_DIR", "/tmp".to_string());
    let n: usize = env("IOLAB_FS_BENCH_FILES", 20000);
    let backends: String = env("IOLAB_FS_BENCH_QD", "sys,1,16,64,sys".to_string());
    let phases: String = env("IOLAB_FS_BENCH_PHASES", "create,stat,delete".to_string());
    let keep = env("IOLAB_FS_BENCH_KEEP", 0) == 1;
    // io-wq workers per ring (bounded, unbounded); 0: the kernel's default.
    let wq: u32 = env("IOLAB_FS_BENCH_WQ", 0);
    println!("fs-meta-uring: {n} empty files under {base}, one thread, io-wq cap {wq}");
    let mut sys_runs = 0;
    for item in backends.split(',').map(str::trim) {
        if item == "sys" {
            sys_runs += 1;
            let label = format!("syscall#{sys_runs}");
            measure(
                &Files::new(&base, n, &label, keep),
                &phases,
                &label,
                &mut by_syscall,
            );
            continue;
        }
        let qd: usize = item.parse().expect("IOLAB_FS_BENCH_QD: sys or a depth");
        let mut b = UringBackend::new(qd as u32).unwrap();
        if wq > 0 {
            b.ring
                .submitter()
                .register_iowq_max_workers(&mut [wq, wq])
                .unwrap();
        }
        let label = format!("uring-qd{qd}");
        let files = Files::new(&base, n, &label, keep);
        measure(&files, &phases, &label, &mut |n, p| {
            by_ring(&mut b, qd, n, p)
        });
    }
}
