//! I/O buffers: one page-aligned anonymous mapping per worker, cut into one
//! slot per outstanding I/O. Page alignment satisfies O_DIRECT on every
//! device; one mapping lets io_uring register all slots at once.

use std::io;

pub struct BufferPool {
    base: *mut u8,
    len: usize,
    slot_size: usize,
    slots: usize,
}

// SAFETY: the pool owns its mapping; it is used by one worker thread at a
// time (moved into the thread, never shared).
unsafe impl Send for BufferPool {}

impl BufferPool {
    /// `slots` buffers of at least `max_bs` bytes each, rounded up to 4 KiB.
    pub fn new(slots: usize, max_bs: usize) -> io::Result<BufferPool> {
        let slot_size = max_bs.div_ceil(4096).max(1) * 4096;
        let len = slot_size
            .checked_mul(slots)
            .ok_or_else(|| io::Error::other("buffer size overflow"))?;
        // SAFETY: anonymous private mapping, no fd; the result is checked.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_POPULATE,
                -1,
                0,
            )
        };
        if p == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        Ok(BufferPool {
            base: p as *mut u8,
            len,
            slot_size,
            slots,
        })
    }

    pub fn slots(&self) -> usize {
        self.slots
    }

    /// Pointer to slot `i`'s buffer.
    #[inline]
    pub fn ptr(&self, i: usize) -> *mut u8 {
        debug_assert!(i < self.slots);
        // SAFETY: i < slots, so the offset stays inside the mapping.
        unsafe { self.base.add(i * self.slot_size) }
    }

    /// Slot `i`'s buffer as a slice (the worker only touches a slot's
    /// buffer while no I/O on that slot is in flight).
    #[inline]
    pub fn slot_mut(&mut self, i: usize) -> &mut [u8] {
        // SAFETY: in bounds as above; &mut self ensures no other slice.
        unsafe { std::slice::from_raw_parts_mut(self.ptr(i), self.slot_size) }
    }

    /// iovecs for io_uring buffer registration, one per slot.
    pub fn iovecs(&self) -> Vec<libc::iovec> {
        (0..self.slots)
            .map(|i| libc::iovec {
                iov_base: self.ptr(i) as *mut libc::c_void,
                iov_len: self.slot_size,
            })
            .collect()
    }
}

impl Drop for BufferPool {
    fn drop(&mut self) {
        // SAFETY: base/len are exactly the mapping created in new().
        unsafe {
            libc::munmap(self.base as *mut libc::c_void, self.len);
        }
    }
}
