//! The synchronous backend: each [`Req`] runs as its system call when it
//! is pushed and its result waits in a queue for the next reap. The
//! fallback when io_uring is missing, off (`IOLAB_NO_IO_URING=1`) or not
//! built yet; with `qd` > 1 the slots still take turns on one thread.
//!
//! Each request runs through [`syscall`], the one synchronous execution
//! of a request (opens through openat2 with `RESOLVE_BENEATH |
//! RESOLVE_NO_SYMLINKS`, see `syscall.rs`).

use super::backend::{Backend, Req};
use super::syscall::syscall;
use iolab_spec::Op;
use std::collections::VecDeque;

/// Plain system calls, one at a time.
pub struct SyncBackend {
    done: VecDeque<(u32, i32)>,
}

impl SyncBackend {
    /// A backend for up to `qd` requests in flight.
    pub fn new(qd: u32) -> SyncBackend {
        SyncBackend {
            done: VecDeque::with_capacity(qd as usize * 2 + 4),
        }
    }
}

impl Backend for SyncBackend {
    #[inline]
    fn push(&mut self, tag: u32, req: Req) {
        self.done.push_back((tag, syscall(&req)));
    }

    #[inline]
    fn reap(&mut self, _min: u32, done: &mut impl FnMut(u32, i32)) -> u32 {
        let n = self.done.len() as u32;
        while let Some((tag, r)) = self.done.pop_front() {
            done(tag, r);
        }
        n
    }

    fn in_flight(&self) -> u32 {
        self.done.len() as u32
    }

    fn sync_ops(&self) -> &[Op] {
        &Op::FS
    }

    fn runs_inline(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::CString;
    use std::os::unix::io::AsRawFd;

    #[test]
    fn opens_refuse_a_symlink_anywhere_on_the_path() {
        let d = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("f"), b"secret").unwrap();
        std::os::unix::fs::symlink(outside.path(), d.path().join("link")).unwrap();
        let dir = std::fs::File::open(d.path()).unwrap();
        let mut b = SyncBackend::new(1);
        let p = CString::new("link/f").unwrap();
        let req = Req::Open {
            dir: dir.as_raw_fd(),
            path: p.as_ptr(),
            flags: libc::O_RDONLY,
            mode: 0,
        };
        b.push(7, req);
        let mut got = Vec::new();
        assert_eq!(b.reap(1, &mut |t, r| got.push((t, r))), 1);
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].0, 7);
        assert!(
            got[0].1 == -libc::ELOOP || got[0].1 == -libc::EXDEV,
            "{got:?}"
        );
        assert_eq!(b.in_flight(), 0);
    }
}
