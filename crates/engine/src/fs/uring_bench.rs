//! The measurement behind bench/fs-meta-uring (an ignored test: run it
//! through that script, in release). One thread creates (openat with
//! O_CREAT|O_EXCL, then close), stats (statx) and deletes (unlinkat) N
//! empty files, first as plain system calls one after another, then
//! through the io_uring backend with QD requests in flight; it prints one
//! line per backend and phase: ops/s and CPU µs per operation (the
//! process's user + system time, io_uring's io-wq workers included).
//!
//! Environment: IOLAB_FS_BENCH_DIR (where the temporary directory goes;
//! default /tmp), IOLAB_FS_BENCH_FILES (N, default 20000),
//! IOLAB_FS_BENCH_QD (comma-separated queue depths, default "1,16,64").

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

/// One backend's three phases on `n` new files in a new directory under
/// `base`; prints a line per phase. `exec` runs a phase on `n` files.
fn measure(base: &str, n: usize, label: &str, exec: &mut dyn FnMut(usize, &Phase) -> u64) {
    let dir = tempfile::tempdir_in(base).unwrap();
    let cpath = CString::new(dir.path().to_str().unwrap()).unwrap();
    // SAFETY: a valid C string; the descriptor is closed at the end.
    let root = unsafe { libc::open(cpath.as_ptr(), libc::O_RDONLY | libc::O_DIRECTORY) };
    assert!(root >= 0, "open {}", dir.path().display());
    let names: Vec<CString> = (0..n)
        .map(|i| CString::new(format!("f{i}")).unwrap())
        .collect();
    // SAFETY: plain data; zeroes are a valid statx.
    let stx: Vec<std::cell::UnsafeCell<libc::statx>> = (0..n)
        .map(|_| std::cell::UnsafeCell::new(unsafe { std::mem::zeroed() }))
        .collect();
    let flags = libc::O_CREAT | libc::O_EXCL | libc::O_WRONLY;
    let path = |i: usize| names[i].as_ptr();
    let open = |i: usize| Req::Open {
        dir: root,
        path: path(i),
        flags,
        mode: 0o644,
    };
    let stat = |i: usize| Req::Statx {
        dir: root,
        path: path(i),
        flags: 0,
        out: stx[i].get(),
    };
    let unlink = |i: usize| Req::Unlink {
        dir: root,
        path: path(i),
        rmdir: false,
    };
    // A create is the open, then the close of what it opened.
    let close = |step: u32, fd: i32| (step == 0 && fd >= 0).then_some(Req::Close { fd });
    let none = |_: u32, _: i32| None;
    let phases = [
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
    for p in &phases {
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
    // SAFETY: our own descriptor.
    unsafe { libc::close(root) };
}

#[test]
#[ignore = "a benchmark: bench/fs-meta-uring runs it"]
fn fs_meta_bench() {
    let base: String = env("IOLAB_FS_BENCH_DIR", "/tmp".to_string());
    let n: usize = env("IOLAB_FS_BENCH_FILES", 20000);
    let qds: String = env("IOLAB_FS_BENCH_QD", "1,16,64".to_string());
    // io-wq workers per ring (bounded, unbounded); 0: the kernel's default.
    let wq: u32 = env("IOLAB_FS_BENCH_WQ", 0);
    println!("fs-meta-uring: {n} empty files under {base}, one thread, io-wq cap {wq}");
    measure(&base, n, "syscall", &mut by_syscall);
    for qd in qds
        .split(',')
        .filter_map(|q| q.trim().parse::<usize>().ok())
    {
        let mut b = UringBackend::new(qd as u32).unwrap();
        if wq > 0 {
            b.ring
                .submitter()
                .register_iowq_max_workers(&mut [wq, wq])
                .unwrap();
        }
        let label = format!("uring qd={qd}");
        measure(&base, n, &label, &mut |n, p| by_ring(&mut b, qd, n, p));
    }
    measure(&base, n, "syscall (again)", &mut by_syscall);
}
