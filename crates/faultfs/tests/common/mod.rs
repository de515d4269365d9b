//! Helpers shared by the faultfs integration tests: starting the file system
//! from this package's own binary, O_DIRECT buffers and positioned I/O that
//! report the raw errno, and recognisable data patterns.

#![allow(dead_code)]

use std::fs::{File, OpenOptions};
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::Path;

use iolab_faultfs::FaultFs;

pub const BLOCK: usize = 4096;

/// Skip (or fail under CI) unless root with /dev/fuse and loop devices.
#[macro_export]
macro_rules! require_fuse {
    () => {
        iolab_testutil::require_root!();
        iolab_testutil::require!(
            std::path::Path::new("/dev/fuse").exists(),
            "needs /dev/fuse (FUSE in the kernel)"
        );
    };
}

/// Skip (or fail under CI) unless loop devices can be made.
#[macro_export]
macro_rules! require_loop {
    () => {
        $crate::require_fuse!();
        iolab_testutil::require!(
            std::path::Path::new("/dev/loop-control").exists(),
            "needs loop devices (/dev/loop-control)"
        );
    };
}

/// Start a faultfs from the binary cargo built for this package's tests.
pub fn start(size: u64) -> FaultFs {
    let bin = Path::new(env!("CARGO_BIN_EXE_iolab-faultfs"));
    FaultFs::start_with(bin, size, false).unwrap_or_else(|e| panic!("starting faultfs: {e}"))
}

/// A zeroed heap buffer aligned for O_DIRECT.
pub struct AlignedBuf {
    ptr: *mut u8,
    len: usize,
    layout: std::alloc::Layout,
}

impl AlignedBuf {
    pub fn new(len: usize) -> Self {
        let layout = std::alloc::Layout::from_size_align(len.max(1), BLOCK).unwrap();
        // SAFETY: the layout has a non-zero size.
        let ptr = unsafe { std::alloc::alloc_zeroed(layout) };
        assert!(!ptr.is_null(), "allocation failed");
        AlignedBuf { ptr, len, layout }
    }

    pub fn filled(data: &[u8]) -> Self {
        let mut b = Self::new(data.len());
        b.as_mut().copy_from_slice(data);
        b
    }
}

impl AsRef<[u8]> for AlignedBuf {
    fn as_ref(&self) -> &[u8] {
        // SAFETY: ptr is an initialised allocation of len bytes owned by self.
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }
}

impl AsMut<[u8]> for AlignedBuf {
    fn as_mut(&mut self) -> &mut [u8] {
        // SAFETY: as in as_ref, and &mut self makes this the only borrow.
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.len) }
    }
}

impl Drop for AlignedBuf {
    fn drop(&mut self) {
        // SAFETY: ptr came from alloc_zeroed with this layout.
        unsafe { std::alloc::dealloc(self.ptr, self.layout) }
    }
}

/// Open a block device (or file) read-write with O_DIRECT.
pub fn open_direct(path: &Path) -> File {
    OpenOptions::new()
        .read(true)
        .write(true)
        .custom_flags(libc::O_DIRECT)
        .open(path)
        .unwrap_or_else(|e| panic!("opening {} O_DIRECT: {e}", path.display()))
}

/// One pread of `len` bytes at `offset`: the data, or the raw errno.
pub fn pread(f: &File, offset: u64, len: usize) -> Result<Vec<u8>, i32> {
    let mut buf = AlignedBuf::new(len);
    match f.read_at(buf.as_mut(), offset) {
        Ok(n) => Ok(buf.as_ref()[..n].to_vec()),
        Err(e) => Err(e.raw_os_error().unwrap_or(-1)),
    }
}

/// One pwrite of `data` at `offset`: the byte count, or the raw errno.
pub fn pwrite(f: &File, offset: u64, data: &[u8]) -> Result<usize, i32> {
    let buf = AlignedBuf::filled(data);
    f.write_at(buf.as_ref(), offset)
        .map_err(|e| e.raw_os_error().unwrap_or(-1))
}

/// `len` bytes that name their seed and position, so a misplaced block is
/// recognisable.
pub fn pattern(seed: u8, len: usize) -> Vec<u8> {
    (0..len)
        .map(|i| seed.wrapping_mul(31).wrapping_add((i % 251) as u8))
        .collect()
}

/// `len` bytes of the backing file at `offset`, read outside FUSE.
pub fn backing_at(fs: &FaultFs, offset: u64, len: usize) -> Vec<u8> {
    let f = File::open(fs.backing_path()).unwrap();
    let mut buf = vec![0u8; len];
    f.read_exact_at(&mut buf, offset).unwrap();
    buf
}

/// Write `data` into the backing file at `offset`, outside FUSE.
pub fn poke_backing(fs: &FaultFs, offset: u64, data: &[u8]) {
    let f = OpenOptions::new()
        .write(true)
        .open(fs.backing_path())
        .unwrap();
    f.write_all_at(data, offset).unwrap();
}

/// Whether `path` appears as a mount point in /proc/mounts.
pub fn in_proc_mounts(path: &Path) -> bool {
    let mounts = std::fs::read_to_string("/proc/mounts").unwrap();
    let p = path.to_str().unwrap();
    mounts
        .lines()
        .any(|l| l.split_whitespace().nth(1) == Some(p))
}

/// The backing file of loop device `name` (e.g. `loop3`), if it is bound.
pub fn loop_backing(name: &str) -> Option<String> {
    std::fs::read_to_string(format!("/sys/block/{name}/loop/backing_file"))
        .ok()
        .map(|s| s.trim().to_string())
}
