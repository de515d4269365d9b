//! Thin, checked wrappers over the Linux calls std does not offer: extended
//! attributes, statx(STATX_DIOALIGN) and the block-device size ioctls.
//!
//! Every `unsafe` block of the crate lives here (apart from the libblkid
//! bindings in `blkid`), so the modules above deal
//! only in `io::Result` and plain values.

use std::ffi::CString;
use std::fs::File;
use std::io;
use std::mem::MaybeUninit;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::io::AsRawFd;
use std::path::Path;

/// Mark on a file iolab created (any value counts).
pub const XATTR_OWNER: &str = "user.iolab.owner";
/// Bytes of an owned file written once end to end, as a decimal string.
pub const XATTR_PREFILLED: &str = "user.iolab.prefilled";
/// The value written to `XATTR_OWNER`.
pub const OWNER_VALUE: &[u8] = b"iolab";
/// Mark on an output file iolab wrote (result document, report, findings
/// log, ...): the kind of output, e.g. `result-json` (see `output.rs`).
pub const XATTR_OUTPUT: &str = "user.iolab.output";

/// `_IOR(ty, nr, size)` for the architectures whose ioctl encoding differs
/// from the generic one (2 direction bits at 30, 14 size bits at 16).
const fn ior(ty: u32, nr: u32, size: usize) -> libc::Ioctl {
    #[cfg(any(
        target_arch = "mips",
        target_arch = "mips64",
        target_arch = "powerpc",
        target_arch = "powerpc64",
        target_arch = "sparc",
        target_arch = "sparc64"
    ))]
    const READ: u32 = 2 << 29;
    #[cfg(not(any(
        target_arch = "mips",
        target_arch = "mips64",
        target_arch = "powerpc",
        target_arch = "powerpc64",
        target_arch = "sparc",
        target_arch = "sparc64"
    )))]
    const READ: u32 = 2 << 30;
    (READ | ((size as u32) << 16) | (ty << 8) | nr) as libc::Ioctl
}

/// BLKGETSIZE64 = _IOR(0x12, 114, size_t): device size in bytes (u64).
const BLKGETSIZE64: libc::Ioctl = ior(0x12, 114, std::mem::size_of::<usize>());

fn cpath(path: &Path) -> io::Result<CString> {
    CString::new(path.as_os_str().as_bytes())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "path contains a NUL byte"))
}

fn cname(name: &str) -> CString {
    // The attribute names are constants of this module without NUL bytes.
    CString::new(name).unwrap_or_default()
}

/// True for the errno values that mean "this file system has no (user)
/// extended attributes".
pub fn is_xattr_unsupported(e: &io::Error) -> bool {
    matches!(e.raw_os_error(), Some(libc::ENOTSUP))
}

/// The value of extended attribute `name` of `path` (following links), or
/// `None` when the file does not have it or the file system has none.
pub fn get_xattr(path: &Path, name: &str) -> io::Result<Option<Vec<u8>>> {
    let p = cpath(path)?;
    let n = cname(name);
    let mut buf = vec![0u8; 256];
    loop {
        // SAFETY: `p` and `n` are NUL-terminated strings that outlive the
        // call; `buf` is a live, writable allocation of exactly `buf.len()`
        // bytes, which is the size passed to the kernel.
        let r = unsafe {
            libc::getxattr(
                p.as_ptr(),
                n.as_ptr(),
                buf.as_mut_ptr().cast::<libc::c_void>(),
                buf.len(),
            )
        };
        if r >= 0 {
            buf.truncate(r as usize);
            return Ok(Some(buf));
        }
        let e = io::Error::last_os_error();
        match e.raw_os_error() {
            Some(libc::ENODATA) => return Ok(None),
            Some(libc::ENOTSUP) => return Ok(None),
            Some(libc::ERANGE) if buf.len() < 64 * 1024 => {
                let len = buf.len() * 4;
                buf.resize(len, 0);
            }
            _ => return Err(e),
        }
    }
}

/// Set extended attribute `name` of `path` (following links) to `value`.
pub fn set_xattr(path: &Path, name: &str, value: &[u8]) -> io::Result<()> {
    let p = cpath(path)?;
    let n = cname(name);
    // SAFETY: `p` and `n` are NUL-terminated strings that outlive the call;
    // `value` is a readable slice of `value.len()` bytes.
    let r = unsafe {
        libc::setxattr(
            p.as_ptr(),
            n.as_ptr(),
            value.as_ptr().cast::<libc::c_void>(),
            value.len(),
            0,
        )
    };
    if r == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

/// Set extended attribute `name` on the open file `f` to `value`.
pub fn fset_xattr(f: &File, name: &str, value: &[u8]) -> io::Result<()> {
    let n = cname(name);
    // SAFETY: the fd is owned by `f`, which is borrowed for the call; `n` is
    // NUL-terminated and `value` is a readable slice of `value.len()` bytes.
    let r = unsafe {
        libc::fsetxattr(
            f.as_raw_fd(),
            n.as_ptr(),
            value.as_ptr().cast::<libc::c_void>(),
            value.len(),
            0,
        )
    };
    if r == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

/// Whether this process may create and remove entries in the directory
/// `dir` (access(2) with W_OK | X_OK, which also says EROFS for a
/// read-only file system).
pub fn dir_writable(dir: &Path) -> io::Result<()> {
    let p = cpath(dir)?;
    // SAFETY: `p` is a NUL-terminated string that outlives the call.
    if unsafe { libc::access(p.as_ptr(), libc::W_OK | libc::X_OK) } == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

/// O_DIRECT alignment from statx(STATX_DIOALIGN): (memory, offset), both 0
/// when the kernel or the file system does not report them.
pub fn dio_align(path: &Path) -> (u32, u32) {
    let Ok(p) = cpath(path) else {
        return (0, 0);
    };
    let mut stx = MaybeUninit::<libc::statx>::zeroed();
    // SAFETY: `p` is NUL-terminated and outlives the call; `stx` points to a
    // zeroed `struct statx` the kernel fills (it never writes past its size).
    let r = unsafe {
        libc::statx(
            libc::AT_FDCWD,
            p.as_ptr(),
            0,
            libc::STATX_DIOALIGN,
            stx.as_mut_ptr(),
        )
    };
    if r != 0 {
        return (0, 0);
    }
    // SAFETY: the struct was zero-initialised (a valid bit pattern for this
    // plain-integer struct) and statx succeeded.
    let stx = unsafe { stx.assume_init() };
    if stx.stx_mask & libc::STATX_DIOALIGN == 0 {
        return (0, 0);
    }
    (stx.stx_dio_mem_align, stx.stx_dio_offset_align)
}

/// statx's atomic write unit (STATX_WRITE_ATOMIC, Linux 6.11). The
/// libc crate's `struct statx` predates these fields, so the call fills
/// a buffer of the kernel's 256-byte layout and the two words are read
/// at their fixed offsets (0xa8 and 0xac, include/uapi/linux/stat.h).
pub fn atomic_write_unit(path: &Path) -> Option<(u32, u32)> {
    const STATX_WRITE_ATOMIC: u32 = 0x0001_0000;
    let p = cpath(path).ok()?;
    let mut buf = [0u64; 32];
    // SAFETY: `p` is NUL-terminated and outlives the call; `buf` is 256
    // writable bytes, 8-aligned, the size of the kernel's struct statx.
    let r = unsafe {
        libc::statx(
            libc::AT_FDCWD,
            p.as_ptr(),
            0,
            STATX_WRITE_ATOMIC,
            buf.as_mut_ptr() as *mut libc::statx,
        )
    };
    if r != 0 {
        return None;
    }
    let word = |off: usize| {
        let w = buf[off / 8];
        (if off.is_multiple_of(8) { w } else { w >> 32 }) as u32
    };
    if word(0) & STATX_WRITE_ATOMIC == 0 || word(0xac) == 0 {
        return None;
    }
    Some((word(0xa8), word(0xac)))
}

/// Size in bytes of the block device open as `f` (BLKGETSIZE64).
pub fn block_size_bytes(f: &File) -> io::Result<u64> {
    let mut size: u64 = 0;
    // SAFETY: BLKGETSIZE64 writes one u64 through the pointer, which points
    // to a live local; the fd is owned by the borrowed `f`.
    let r = unsafe { libc::ioctl(f.as_raw_fd(), BLKGETSIZE64, &mut size as *mut u64) };
    if r == 0 {
        Ok(size)
    } else {
        Err(io::Error::last_os_error())
    }
}

/// Logical sector size of the block device open as `f` (BLKSSZGET).
pub fn block_logical(f: &File) -> io::Result<u32> {
    let mut v: libc::c_int = 0;
    // SAFETY: BLKSSZGET writes one int through the pointer, which points to
    // a live local; the fd is owned by the borrowed `f`.
    let r = unsafe { libc::ioctl(f.as_raw_fd(), libc::BLKSSZGET, &mut v as *mut libc::c_int) };
    if r == 0 && v > 0 {
        Ok(v as u32)
    } else if r == 0 {
        Err(io::Error::new(
            io::ErrorKind::InvalidData,
            "BLKSSZGET returned 0",
        ))
    } else {
        Err(io::Error::last_os_error())
    }
}

/// Physical block size of the block device open as `f` (BLKPBSZGET).
pub fn block_physical(f: &File) -> io::Result<u32> {
    let mut v: libc::c_uint = 0;
    // SAFETY: BLKPBSZGET writes one unsigned int through the pointer, which
    // points to a live local; the fd is owned by the borrowed `f`.
    let r = unsafe { libc::ioctl(f.as_raw_fd(), libc::BLKPBSZGET, &mut v as *mut libc::c_uint) };
    if r == 0 && v > 0 {
        Ok(v)
    } else if r == 0 {
        Err(io::Error::new(
            io::ErrorKind::InvalidData,
            "BLKPBSZGET returned 0",
        ))
    } else {
        Err(io::Error::last_os_error())
    }
}

/// Bytes an unprivileged writer may still allocate on the file system
/// holding `path` (statvfs `f_bavail * f_frsize`); `None` when the file
/// system reports no size at all (`f_blocks` 0, as some FUSE and pseudo
/// file systems do), so its free space says nothing.
pub fn free_bytes(path: &Path) -> io::Result<Option<u64>> {
    let c = cpath(path)?;
    let mut st = MaybeUninit::<libc::statvfs>::zeroed();
    // SAFETY: `c` is a NUL-terminated path and `st` points to writable
    // memory of the struct's size; statvfs fills it on success.
    let r = unsafe { libc::statvfs(c.as_ptr(), st.as_mut_ptr()) };
    if r != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: statvfs returned 0, so the struct is initialised.
    let st = unsafe { st.assume_init() };
    if st.f_blocks == 0 {
        return Ok(None);
    }
    // fsblkcnt_t and c_ulong are 32 bits on some targets.
    #[allow(clippy::unnecessary_cast)]
    let free = (st.f_bavail as u64).saturating_mul(st.f_frsize as u64);
    Ok(Some(free))
}

/// Split a Linux `dev_t` into (major, minor), as glibc's gnu_dev_major and
/// gnu_dev_minor do.
pub fn split_dev(dev: u64) -> (u32, u32) {
    let major = ((dev >> 8) & 0xfff) | ((dev >> 32) & !0xfff);
    let minor = (dev & 0xff) | ((dev >> 12) & !0xff);
    (major as u32, minor as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    // `libc::Ioctl` is c_ulong on glibc but c_int on musl.
    #[allow(clippy::unnecessary_cast)]
    fn blkgetsize64_matches_the_kernel_header_value() {
        #[cfg(target_arch = "x86_64")]
        assert_eq!(BLKGETSIZE64 as u32, 0x8008_1272);
        #[cfg(target_arch = "aarch64")]
        assert_eq!(BLKGETSIZE64 as u32, 0x8008_1272);
    }

    #[test]
    fn split_dev_matches_libc() {
        for &(ma, mi) in &[
            (7u32, 0u32),
            (259, 3),
            (8, 17),
            (4095, 1 << 19),
            (65535, 255),
        ] {
            let dev = libc::makedev(ma, mi);
            assert_eq!(split_dev(dev), (ma, mi));
        }
    }

    #[test]
    fn xattr_round_trip_or_unsupported() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f");
        let f = File::create(&p).unwrap();
        assert_eq!(get_xattr(&p, XATTR_OWNER).unwrap(), None);
        match fset_xattr(&f, XATTR_OWNER, OWNER_VALUE) {
            Ok(()) => {
                assert_eq!(
                    get_xattr(&p, XATTR_OWNER).unwrap().as_deref(),
                    Some(OWNER_VALUE)
                );
                set_xattr(&p, XATTR_PREFILLED, b"4096").unwrap();
                assert_eq!(
                    get_xattr(&p, XATTR_PREFILLED).unwrap().as_deref(),
                    Some(&b"4096"[..])
                );
            }
            Err(e) => assert!(is_xattr_unsupported(&e), "{e}"),
        }
    }

    #[test]
    fn missing_file_xattr_is_an_error() {
        let e = get_xattr(Path::new("/nonexistent/iolab/x"), XATTR_OWNER).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::NotFound);
    }
}
