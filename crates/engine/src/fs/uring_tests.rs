//! Tests of the io_uring backend: conformance with the system calls
//! (the same sequence of every request kind, expected results included,
//! through [`syscall`] one at a time and through [`UringBackend`] with
//! each phase's requests in flight together, and again with every kind
//! forced onto the fallback), many opens in flight, pushes beyond the
//! ring's depth, and which operations fall back on this kernel.

use super::*;
use iolab_testutil::require_io_uring;
use std::collections::BTreeSet;
use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;

/// Runs one phase (requests independent of each other) and gives each
/// request's result, in order.
type Exec<'a> = dyn FnMut(&[Req]) -> Vec<i32> + 'a;

/// One request at a time, as plain system calls.
fn by_syscall(batch: &[Req]) -> Vec<i32> {
    batch.iter().map(syscall).collect()
}

/// Every request of the batch pushed (tag = its index), then reaped.
fn by_backend(b: &mut UringBackend, batch: &[Req]) -> Vec<i32> {
    let mut out = vec![i32::MIN; batch.len()];
    for (i, r) in batch.iter().enumerate() {
        b.push(i as u32, *r);
    }
    assert_eq!(
        b.in_flight(),
        batch.len() as u32,
        "all of the phase in flight"
    );
    let mut got = 0;
    while got < batch.len() {
        got += b.reap(1, &mut |tag, res| {
            assert_eq!(out[tag as usize], i32::MIN, "tag {tag} handed back twice");
            out[tag as usize] = res;
        }) as usize;
    }
    assert_eq!(b.in_flight(), 0);
    out
}

/// The directory `dir` opened for `*at` calls (closed on drop).
struct DirFd(RawFd);

impl DirFd {
    fn open(dir: &std::path::Path) -> DirFd {
        let p = CString::new(dir.as_os_str().as_bytes()).unwrap();
        // SAFETY: a valid C string.
        let fd = unsafe { libc::open(p.as_ptr(), libc::O_RDONLY | libc::O_DIRECTORY) };
        assert!(fd >= 0, "open {dir:?}");
        DirFd(fd)
    }
}

impl Drop for DirFd {
    fn drop(&mut self) {
        // SAFETY: our own descriptor.
        unsafe { libc::close(self.0) };
    }
}

fn cs(s: &str) -> CString {
    CString::new(s).unwrap()
}

/// The names in a getdents64 buffer of `len` bytes.
fn dent_names(buf: &[u8], len: usize) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    let mut at = 0;
    while at < len {
        // struct linux_dirent64: u64 ino, i64 off, u16 reclen, u8 type, name.
        let reclen = u16::from_ne_bytes([buf[at + 16], buf[at + 17]]) as usize;
        let name = &buf[at + 19..at + reclen];
        let end = name.iter().position(|&c| c == 0).unwrap_or(name.len());
        names.insert(String::from_utf8_lossy(&name[..end]).into_owned());
        at += reclen;
    }
    names
}

/// A result as the log shows it: descriptors as `fd` (their numbers
/// depend on what else the process has open), errors by name.
fn show(open: bool, r: i32) -> String {
    match r {
        r if r >= 0 && open => "fd".into(),
        r if r >= 0 => r.to_string(),
        r => format!("-{}", errno_name(-r)),
    }
}

fn errno_name(e: i32) -> &'static str {
    match e {
        libc::ENOENT => "ENOENT",
        libc::EEXIST => "EEXIST",
        libc::ENOTEMPTY => "ENOTEMPTY",
        libc::EBADF => "EBADF",
        _ => "other",
    }
}

/// The memory the scenario's requests point into.
struct Mem {
    names: [CString; 7],
    wbuf: Vec<u8>,
    rbuf: Vec<u8>,
    tail: Vec<u8>,
    stx: [libc::statx; 3],
    dents: Vec<u8>,
}

const D: usize = 0;
const E: usize = 1;
const F: usize = 2;
const F2: usize = 3;
const DG: usize = 4;
const MISSING: usize = 5;
const EMPTY: usize = 6;

impl Mem {
    fn new() -> Box<Mem> {
        Box::new(Mem {
            names: ["d", "e", "f", "f2", "d/g", "missing", ""].map(cs),
            wbuf: (0..8192u32).map(|i| (i * 31 + 7) as u8).collect(),
            rbuf: vec![0; 8192],
            tail: vec![0; 4096],
            // SAFETY: statx is plain data; all zeroes is a valid value.
            stx: unsafe { std::mem::zeroed() },
            dents: vec![0; 4096],
        })
    }
    fn n(&self, i: usize) -> *const libc::c_char {
        self.names[i].as_ptr()
    }
}

/// Phase 1: directories, the exclusive create, and ENOENT of each kind.
fn phase1(root: RawFd, m: &mut Mem) -> Vec<Req> {
    let s2 = &mut m.stx[2] as *mut _;
    let creat = libc::O_CREAT | libc::O_EXCL | libc::O_RDWR;
    vec![
        Req::Mkdir {
            dir: root,
            path: m.n(D),
            mode: 0o755,
        },
        Req::Mkdir {
            dir: root,
            path: m.n(E),
            mode: 0o755,
        },
        Req::Open {
            dir: root,
            path: m.n(F),
            flags: creat,
            mode: 0o644,
        },
        Req::Statx {
            dir: root,
            path: m.n(MISSING),
            flags: 0,
            out: s2,
        },
        Req::Unlink {
            dir: root,
            path: m.n(MISSING),
            rmdir: false,
        },
        Req::Open {
            dir: root,
            path: m.n(MISSING),
            flags: libc::O_RDONLY,
            mode: 0,
        },
        Req::Access {
            dir: root,
            path: m.n(MISSING),
            mode: libc::F_OK,
        },
        Req::Unlink {
            dir: root,
            path: m.n(MISSING),
            rmdir: true,
        },
    ]
}

/// Phase 2: EEXIST twice, two writes, two more opens.
fn phase2(root: RawFd, m: &Mem, f: RawFd) -> Vec<Req> {
    let creat = libc::O_CREAT | libc::O_EXCL | libc::O_RDWR;
    let w = m.wbuf.as_ptr();
    vec![
        Req::Open {
            dir: root,
            path: m.n(F),
            flags: creat,
            mode: 0o644,
        },
        Req::Write {
            fd: f,
            buf: w,
            len: 4096,
            off: 0,
        },
        Req::Write {
            fd: f,
            buf: w.wrapping_add(4096),
            len: 4096,
            off: 4096,
        },
        Req::Mkdir {
            dir: root,
            path: m.n(D),
            mode: 0o755,
        },
        Req::Open {
            dir: root,
            path: m.n(DG),
            flags: libc::O_CREAT | libc::O_WRONLY,
            mode: 0o644,
        },
        Req::Open {
            dir: root,
            path: m.n(D),
            flags: libc::O_RDONLY | libc::O_DIRECTORY,
            mode: 0,
        },
    ]
}

/// Phase 3: syncs, reads (one past the end), stat and getattr, access,
/// readdir, a close.
fn phase3(root: RawFd, m: &mut Mem, f: RawFd, g: RawFd, d: RawFd) -> Vec<Req> {
    let (s0, s1) = (&mut m.stx[0] as *mut _, &mut m.stx[1] as *mut _);
    vec![
        Req::Fsync {
            fd: f,
            datasync: false,
        },
        Req::Fsync {
            fd: f,
            datasync: true,
        },
        Req::Read {
            fd: f,
            buf: m.rbuf.as_mut_ptr(),
            len: 8192,
            off: 0,
        },
        Req::Read {
            fd: f,
            buf: m.tail.as_mut_ptr(),
            len: 4096,
            off: 8192,
        },
        Req::Statx {
            dir: root,
            path: m.n(F),
            flags: 0,
            out: s0,
        },
        Req::Statx {
            dir: f,
            path: m.n(EMPTY),
            flags: libc::AT_EMPTY_PATH,
            out: s1,
        },
        Req::Access {
            dir: root,
            path: m.n(F),
            mode: libc::R_OK | libc::W_OK,
        },
        Req::Getdents {
            fd: d,
            buf: m.dents.as_mut_ptr(),
            len: 4096,
        },
        Req::Close { fd: g },
    ]
}

/// Phase 4: setattr, rename, ENOTEMPTY, the end of the directory.
fn phase4(root: RawFd, m: &mut Mem, f: RawFd, d: RawFd) -> Vec<Req> {
    vec![
        Req::Setattr { fd: f, mode: 0o600 },
        Req::Rename {
            dir: root,
            from: m.n(F),
            to_dir: root,
            to: m.n(F2),
        },
        Req::Unlink {
            dir: root,
            path: m.n(D),
            rmdir: true,
        },
        Req::Getdents {
            fd: d,
            buf: m.tail.as_mut_ptr(),
            len: 4096,
        },
        Req::Close { fd: d },
    ]
}

/// Phase 5: getattr after setattr, the old name gone, clean-up. (Not
/// the close of `f`: io_uring resolves statx's descriptor in a worker,
/// after a close pushed beside it would have run.)
fn phase5(root: RawFd, m: &mut Mem, f: RawFd) -> Vec<Req> {
    let s2 = &mut m.stx[2] as *mut _;
    vec![
        Req::Statx {
            dir: f,
            path: m.n(EMPTY),
            flags: libc::AT_EMPTY_PATH,
            out: s2,
        },
        Req::Statx {
            dir: root,
            path: m.n(F),
            flags: 0,
            out: s2,
        },
        Req::Access {
            dir: root,
            path: m.n(F2),
            mode: libc::F_OK,
        },
        Req::Unlink {
            dir: root,
            path: m.n(DG),
            rmdir: false,
        },
        Req::Unlink {
            dir: root,
            path: m.n(E),
            rmdir: true,
        },
    ]
}

/// Phase 6: the file's close, the last removals and EBADF (descriptor -1: never one a
/// parallel test could own).
fn phase6(root: RawFd, m: &Mem, f: RawFd) -> Vec<Req> {
    vec![
        Req::Close { fd: f },
        Req::Unlink {
            dir: root,
            path: m.n(F2),
            rmdir: false,
        },
        Req::Unlink {
            dir: root,
            path: m.n(D),
            rmdir: true,
        },
        Req::Close { fd: -1 },
        Req::Fsync {
            fd: -1,
            datasync: false,
        },
    ]
}

/// Run the phases in `root` through `exec`; the log of every result and
/// of what the reads, stats and getdents filled in.
fn scenario(root: RawFd, exec: &mut Exec) -> Vec<String> {
    let mut m = Mem::new();
    let mut log = Vec::new();
    let mut run = |log: &mut Vec<String>, phase: usize, batch: Vec<Req>| {
        let res = exec(&batch);
        for (i, (q, r)) in batch.iter().zip(&res).enumerate() {
            let open = matches!(q, Req::Open { .. });
            log.push(format!("{phase}.{i} {}", show(open, *r)));
        }
        res
    };
    let r1 = run(&mut log, 1, phase1(root, &mut m));
    let f = r1[2];
    let r2 = run(&mut log, 2, phase2(root, &m, f));
    let (g, d) = (r2[4], r2[5]);
    let r3 = run(&mut log, 3, phase3(root, &mut m, f, g, d));
    run(&mut log, 4, phase4(root, &mut m, f, d));
    run(&mut log, 5, phase5(root, &mut m, f));
    run(&mut log, 6, phase6(root, &m, f));
    log.push(format!("read matches write: {}", m.rbuf == m.wbuf));
    for (i, s) in m.stx.iter().enumerate() {
        let (size, mode) = (s.stx_size, s.stx_mode as u32);
        log.push(format!(
            "stx{i} size {size} mode {mode:o} nlink {}",
            s.stx_nlink
        ));
    }
    log.push(format!(
        "same inode: {}",
        m.stx[0].stx_ino == m.stx[1].stx_ino
    ));
    log.push(format!(
        "dents {:?}",
        dent_names(&m.dents, r3[7].max(0) as usize)
    ));
    log
}

/// What POSIX says the scenario gives.
fn expected() -> Vec<String> {
    let lines = [
        "1.0 0",
        "1.1 0",
        "1.2 fd",
        "1.3 -ENOENT",
        "1.4 -ENOENT",
        "1.5 -ENOENT",
        "1.6 -ENOENT",
        "1.7 -ENOENT",
        "2.0 -EEXIST",
        "2.1 4096",
        "2.2 4096",
        "2.3 -EEXIST",
        "2.4 fd",
        "2.5 fd",
        "3.0 0",
        "3.1 0",
        "3.2 8192",
        "3.3 0",
        "3.4 0",
        "3.5 0",
        "3.6 0",
        "3.7 DENTS",
        "3.8 0",
        "4.0 0",
        "4.1 0",
        "4.2 -ENOTEMPTY",
        "4.3 0",
        "4.4 0",
        "5.0 0",
        "5.1 -ENOENT",
        "5.2 0",
        "5.3 0",
        "5.4 0",
        "6.0 0",
        "6.1 0",
        "6.2 0",
        "6.3 -EBADF",
        "6.4 -EBADF",
        "read matches write: true",
        "stx0 size 8192 mode 100644 nlink 1",
        "stx1 size 8192 mode 100644 nlink 1",
        "stx2 size 8192 mode 100600 nlink 1",
        "same inode: true",
        r#"dents {".", "..", "g"}"#,
    ];
    lines.iter().map(|s| s.to_string()).collect()
}

/// The scenario's log with getdents' byte count (it depends on the
/// file system's record layout) checked positive and replaced.
fn run_in_tempdir(exec: &mut Exec) -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    let root = DirFd::open(dir.path());
    let mut log = scenario(root.0, exec);
    let dents = log.iter_mut().find(|l| l.starts_with("3.7 ")).unwrap();
    let n: i32 = dents[4..].parse().unwrap_or(-1);
    assert!(n > 0, "getdents gave {dents}");
    *dents = "3.7 DENTS".into();
    log
}

/// The umask would mask created modes; the expected modes assume 022.
fn umask_022() {
    // SAFETY: sets the process's umask; every test here wants 022.
    unsafe { libc::umask(0o022) };
}

#[test]
fn syscall_and_uring_give_the_same_results_for_every_request() {
    require_io_uring!();
    umask_022();
    let by_sys = run_in_tempdir(&mut by_syscall);
    assert_eq!(by_sys, expected(), "system calls");

    let mut b = UringBackend::new(16).unwrap();
    let by_ring = run_in_tempdir(&mut |batch: &[Req]| by_backend(&mut b, batch));
    assert_eq!(by_ring, by_sys, "io_uring against system calls");

    let mut b = UringBackend::new(16).unwrap();
    b.run_as_syscalls(&Op::FS);
    assert_eq!(b.sync_ops(), &Op::FS[..]);
    let by_fallback = run_in_tempdir(&mut |batch: &[Req]| by_backend(&mut b, batch));
    assert_eq!(by_fallback, by_sys, "forced fallback against system calls");
}

/// Opens `names` in `dir` through `b`, all pushed before any reap; the
/// results by tag.
fn push_all(b: &mut UringBackend, reqs: &[Req]) -> Vec<i32> {
    let mut out = vec![i32::MIN; reqs.len()];
    for (i, r) in reqs.iter().enumerate() {
        b.push(i as u32, *r);
    }
    let mut got = 0;
    while got < reqs.len() {
        got += b.reap(reqs.len() as u32, &mut |tag, res| out[tag as usize] = res) as usize;
    }
    out
}

/// Create, stat, close and delete `n` files with `n` requests in flight
/// on a ring of `depth`.
fn many_in_flight(depth: u32, n: usize) {
    let dir = tempfile::tempdir().unwrap();
    let root = DirFd::open(dir.path());
    let names: Vec<CString> = (0..n).map(|i| cs(&format!("f{i}"))).collect();
    // SAFETY: plain data; zeroes are a valid statx.
    let mut stx: Vec<libc::statx> = vec![unsafe { std::mem::zeroed() }; n];
    let mut b = UringBackend::new(depth).unwrap();
    let flags = libc::O_CREAT | libc::O_EXCL | libc::O_WRONLY;
    let open: Vec<Req> = (names.iter())
        .map(|p| Req::Open {
            dir: root.0,
            path: p.as_ptr(),
            flags,
            mode: 0o644,
        })
        .collect();
    let fds = push_all(&mut b, &open);
    assert!(fds.iter().all(|&fd| fd >= 0), "opens: {fds:?}");
    assert_eq!(fds.iter().collect::<BTreeSet<_>>().len(), n, "distinct fds");
    let stat: Vec<Req> = (names.iter().zip(stx.iter_mut()))
        .map(|(p, s)| Req::Statx {
            dir: root.0,
            path: p.as_ptr(),
            flags: 0,
            out: s,
        })
        .collect();
    assert_eq!(push_all(&mut b, &stat), vec![0; n]);
    assert!(stx.iter().all(|s| s.stx_size == 0 && s.stx_nlink == 1));
    let close: Vec<Req> = fds.iter().map(|&fd| Req::Close { fd }).collect();
    assert_eq!(push_all(&mut b, &close), vec![0; n]);
    let unlink: Vec<Req> = (names.iter())
        .map(|p| Req::Unlink {
            dir: root.0,
            path: p.as_ptr(),
            rmdir: false,
        })
        .collect();
    assert_eq!(push_all(&mut b, &unlink), vec![0; n]);
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[test]
fn sixty_four_opens_in_flight() {
    require_io_uring!();
    many_in_flight(64, 64);
}

#[test]
fn pushes_beyond_the_depth_submit_first_and_lose_nothing() {
    require_io_uring!();
    many_in_flight(4, 64);
}

/// The kernel's release as (major, minor).
fn kernel() -> (u32, u32) {
    let rel = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap();
    let mut it = rel.trim().split(['.', '-']).map(|p| p.parse().unwrap_or(0));
    (it.next().unwrap_or(0), it.next().unwrap_or(0))
}

#[test]
fn only_requests_without_an_opcode_fall_back_on_5_15_and_later() {
    require_io_uring!();
    let b = UringBackend::new(8).unwrap();
    let k = kernel();
    println!(
        "kernel {k:?}: sync ops {:?}, ring {:?}",
        b.sync_ops(),
        b.setup()
    );
    for op in [Op::Readdir, Op::Setattr, Op::Access] {
        assert!(b.sync_ops().contains(&op), "{op:?} has no opcode");
    }
    if k >= (5, 15) {
        // openat/close/statx/read/write 5.6, renameat/unlinkat 5.11, mkdirat 5.15.
        assert_eq!(b.sync_ops(), &[Op::Readdir, Op::Setattr, Op::Access]);
    }
}

#[test]
fn operations_chosen_to_run_as_syscalls_take_their_siblings() {
    require_io_uring!();
    let mut b = UringBackend::new(4).unwrap();
    b.run_as_syscalls(&[Op::Stat, Op::Mkdir]);
    assert!(b.sync_ops().contains(&Op::Getattr), "{:?}", b.sync_ops());
    assert!(b.sync_ops().contains(&Op::Mkdir));
    assert!(!b.sync_ops().contains(&Op::Open));
    // A statx pushed now completes at push time: nothing reaches the ring.
    let dir = tempfile::tempdir().unwrap();
    let root = DirFd::open(dir.path());
    // SAFETY: plain data; zeroes are a valid statx.
    let mut stx: libc::statx = unsafe { std::mem::zeroed() };
    let dot = cs(".");
    let req = Req::Statx {
        dir: root.0,
        path: dot.as_ptr(),
        flags: 0,
        out: &mut stx,
    };
    b.push(7, req);
    assert_eq!(b.ring_in_flight, 0);
    assert_eq!(b.in_flight(), 1);
    assert_ne!(stx.stx_mode, 0, "statx ran when pushed");
    let mut got = vec![];
    b.reap(1, &mut |t, r| got.push((t, r)));
    assert_eq!(got, vec![(7, 0)]);
}

#[test]
fn sync_ops_name_every_operation_of_a_missing_opcode() {
    let mut on_ring = [true; KINDS];
    on_ring[Kind::Statx as usize] = false;
    on_ring[Kind::Write as usize] = false;
    let want = [Op::Write, Op::Stat, Op::Append, Op::Rewrite, Op::Getattr];
    let mut want = want.to_vec();
    want.sort_by_key(|o| Op::FS.iter().position(|a| a == o));
    assert_eq!(sync_ops_of(&on_ring), want);
}

/// Opens on the ring (OpenAt2) in flight together, each with its own
/// flags: creates of new names succeed, while a symbolic link anywhere on
/// a path (the middle, or the end) is refused and the file it leads to
/// is left alone; no two opens share an `open_how`.
#[test]
fn ring_opens_follow_no_symlink_and_keep_their_own_flags() {
    require_io_uring!();
    let dir = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    std::fs::write(out.path().join("f"), b"user data").unwrap();
    std::os::unix::fs::symlink(out.path(), dir.path().join("link")).unwrap();
    std::os::unix::fs::symlink(out.path().join("f"), dir.path().join("flink")).unwrap();
    let root = DirFd::open(dir.path());
    let names: Vec<CString> = (0..8)
        .map(|i| match i % 4 {
            1 => cs("link/f"),
            3 => cs("flink"),
            _ => cs(&format!("new{i}")),
        })
        .collect();
    let reqs: Vec<Req> = (names.iter().enumerate())
        .map(|(i, p)| Req::Open {
            dir: root.0,
            path: p.as_ptr(),
            flags: match i % 4 {
                1 | 3 => libc::O_WRONLY | libc::O_TRUNC,
                _ => libc::O_CREAT | libc::O_EXCL | libc::O_WRONLY,
            },
            mode: 0o600,
        })
        .collect();
    let mut b = UringBackend::new(8).unwrap();
    assert!(!b.sync_ops().contains(&Op::Open), "{:?}", b.sync_ops());
    let res = push_all(&mut b, &reqs);
    for (i, &r) in res.iter().enumerate() {
        match i % 4 {
            1 | 3 => assert!([libc::ELOOP, libc::EXDEV].contains(&-r), "open {i}: {r}"),
            _ => {
                assert!(r >= 0, "create {i}: {r}");
                // SAFETY: the descriptor the open returned.
                unsafe { libc::close(r) };
            }
        }
    }
    assert_eq!(std::fs::read(out.path().join("f")).unwrap(), b"user data");
}
