//! fio's `page_fault` engine: no file I/O. Each worker maps private
//! anonymous memory as large as each of its targets' regions reach; a
//! read copies a block from that memory into the I/O buffer, a write
//! copies the buffer into it, so first touches fault pages in (the memory
//! subsystem under test). Trims and syncs complete at once. One I/O per
//! worker thread.

use super::{Cqe, Engine, OpKind, Sqe};
use std::io;

/// One anonymous mapping.
struct Map {
    ptr: *mut u8,
    len: usize,
}

impl Drop for Map {
    fn drop(&mut self) {
        if self.len > 0 {
            // SAFETY: `ptr`/`len` are a mapping made in `new`, unmapped once.
            unsafe { libc::munmap(self.ptr as *mut libc::c_void, self.len) };
        }
    }
}

pub struct PageFaultEngine {
    maps: Vec<Map>,
    done: Vec<Cqe>,
}

// SAFETY: the mappings belong to this engine alone (one worker thread).
unsafe impl Send for PageFaultEngine {}

impl PageFaultEngine {
    /// `ends[i]`: the end of the worker's regions on its target i, bytes.
    pub fn new(ends: &[u64], qd: usize) -> io::Result<Self> {
        let mut maps = Vec::with_capacity(ends.len());
        for &end in ends {
            let len = usize::try_from(end).map_err(|_| io::Error::other("region too large"))?;
            let ptr = if len == 0 {
                std::ptr::null_mut()
            } else {
                // SAFETY: a new private anonymous mapping; checked below.
                let p = unsafe {
                    libc::mmap(
                        std::ptr::null_mut(),
                        len,
                        libc::PROT_READ | libc::PROT_WRITE,
                        libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
                        -1,
                        0,
                    )
                };
                if p == libc::MAP_FAILED {
                    return Err(io::Error::last_os_error());
                }
                p as *mut u8
            };
            maps.push(Map { ptr, len });
        }
        Ok(PageFaultEngine {
            maps,
            done: Vec::with_capacity(qd),
        })
    }
}

impl Engine for PageFaultEngine {
    const CAPS: super::EngineCaps = super::EngineCaps { moves_data: false };

    #[inline]
    fn queue(&mut self, sqe: &Sqe) -> io::Result<()> {
        let m = &self.maps[sqe.file as usize];
        let (off, len) = (sqe.offset as usize, sqe.len as usize);
        let res = if !matches!(sqe.op, OpKind::Read | OpKind::Write) {
            0
        } else if off.checked_add(len).is_none_or(|e| e > m.len) {
            -libc::EINVAL
        } else {
            // SAFETY: [off, off+len) lies inside the mapping (checked) and
            // `buf` holds `len` bytes owned by this slot; they never overlap.
            unsafe {
                if sqe.op == OpKind::Read {
                    std::ptr::copy_nonoverlapping(m.ptr.add(off), sqe.buf, len);
                } else {
                    std::ptr::copy_nonoverlapping(sqe.buf, m.ptr.add(off), len);
                }
            }
            sqe.len as i32
        };
        self.done.push(Cqe {
            slot: sqe.slot,
            res,
        });
        Ok(())
    }

    super::synchronous_reap!();
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(e: &mut PageFaultEngine, op: OpKind, offset: u64, buf: &mut [u8]) -> i32 {
        let sqe = Sqe {
            slot: 0,
            op,
            file: 0,
            offset,
            len: buf.len() as u32,
            buf: buf.as_mut_ptr(),
            ioprio: 0,
        };
        e.queue(&sqe).unwrap();
        let mut out = Vec::with_capacity(1);
        e.submit_and_reap(1, None, &mut out).unwrap();
        out[0].res
    }

    #[test]
    fn a_read_returns_what_a_write_left_and_out_of_range_fails() {
        let mut e = PageFaultEngine::new(&[1 << 20], 1).unwrap();
        let mut w = vec![0xa5u8; 4096];
        let mut r = vec![0u8; 4096];
        assert_eq!(one(&mut e, OpKind::Read, 8192, &mut r), 4096);
        assert!(r.iter().all(|&b| b == 0), "fresh anonymous memory is zero");
        assert_eq!(one(&mut e, OpKind::Write, 8192, &mut w), 4096);
        assert_eq!(one(&mut e, OpKind::Read, 8192, &mut r), 4096);
        assert_eq!(r, w);
        assert_eq!(
            one(&mut e, OpKind::Read, (1 << 20) - 2048, &mut r),
            -libc::EINVAL
        );
    }
}
