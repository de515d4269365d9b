//! The FUSE file system itself: a root directory holding `disk.img` (the
//! backing file, seen through the fault table) and `ctl` (the command and
//! state file). It exists so that a loop device over `disk.img` becomes a
//! block device whose failures a test controls.
//!
//! Every open replies with `FOPEN_DIRECT_IO`, so the kernel keeps no page
//! cache for either file: every read and write of `disk.img` reaches
//! [`FaultFilesystem`] and is judged by the fault table, and a read of `ctl`
//! is never served stale. A read of `ctl` returns a snapshot of the state
//! taken when the file was opened (refreshed after each write through that
//! handle), so reads at increasing offsets see one consistent text.

use std::collections::HashMap;
use std::ffi::OsStr;
use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, SystemTime};

use fuser::{
    Errno, FileAttr, FileHandle, FileType, Filesystem, FopenFlags, Generation, INodeNo, LockOwner,
    OpenFlags, ReplyAttr, ReplyData, ReplyDirectory, ReplyEmpty, ReplyEntry, ReplyOpen, ReplyWrite,
    Request, WriteFlags,
};

use crate::faults::{Decision, FaultTable, Op};

/// Inode of `disk.img`.
pub const DISK_INO: u64 = 2;
/// Inode of `ctl`.
pub const CTL_INO: u64 = 3;
/// File name of the faulty disk image in the mount.
pub const DISK_NAME: &str = "disk.img";
/// File name of the control file in the mount.
pub const CTL_NAME: &str = "ctl";

/// How long the kernel may cache attributes and names. Short, since the
/// backing file may be resized offline between runs.
const TTL: Duration = Duration::from_secs(1);
/// Alignment for O_DIRECT buffers, offsets and lengths on the backing file.
const DIO_ALIGN: usize = 4096;
/// Offsets and lengths must be multiples of this to try O_DIRECT at all.
const DIO_MIN: u64 = 512;

/// The file system served by the `iolab-faultfs` daemon.
pub struct FaultFilesystem {
    backing: File,
    /// The backing file opened again with O_DIRECT (`--direct-io`); aligned
    /// I/O uses it, anything it refuses with EINVAL goes through `backing`.
    direct: Option<File>,
    table: Mutex<FaultTable>,
    ctl_snapshots: Mutex<HashMap<u64, Vec<u8>>>,
    next_fh: AtomicU64,
    uid: u32,
    gid: u32,
    started: SystemTime,
}

impl FaultFilesystem {
    /// Open `backing` read-write (and again with O_DIRECT when `direct_io`).
    pub fn new(backing: &Path, direct_io: bool) -> io::Result<Self> {
        let file = OpenOptions::new().read(true).write(true).open(backing)?;
        let direct = if direct_io {
            Some(
                OpenOptions::new()
                    .read(true)
                    .write(true)
                    .custom_flags(libc::O_DIRECT)
                    .open(backing)
                    .map_err(|e| {
                        io::Error::new(e.kind(), format!("O_DIRECT open of backing file: {e}"))
                    })?,
            )
        } else {
            None
        };
        // SAFETY: getuid/getgid have no preconditions and cannot fail.
        let (uid, gid) = unsafe { (libc::getuid(), libc::getgid()) };
        Ok(FaultFilesystem {
            backing: file,
            direct,
            table: Mutex::new(FaultTable::new()),
            ctl_snapshots: Mutex::new(HashMap::new()),
            next_fh: AtomicU64::new(1),
            uid,
            gid,
            started: SystemTime::now(),
        })
    }

    /// The fault table (a poisoned lock is taken over: the table stays valid).
    pub fn table(&self) -> MutexGuard<'_, FaultTable> {
        self.table.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn snapshots(&self) -> MutexGuard<'_, HashMap<u64, Vec<u8>>> {
        self.ctl_snapshots.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn size(&self) -> u64 {
        self.backing.metadata().map(|m| m.len()).unwrap_or(0)
    }

    fn attr(&self, ino: u64) -> Option<FileAttr> {
        let (kind, perm, size, nlink) = match ino {
            1 => (FileType::Directory, 0o755, 0, 2),
            DISK_INO => (FileType::RegularFile, 0o644, self.size(), 1),
            CTL_INO => (FileType::RegularFile, 0o600, 0, 1),
            _ => return None,
        };
        Some(FileAttr {
            ino: INodeNo(ino),
            size,
            blocks: size.div_ceil(512),
            atime: self.started,
            mtime: self.started,
            ctime: self.started,
            crtime: self.started,
            kind,
            perm,
            nlink,
            uid: self.uid,
            gid: self.gid,
            rdev: 0,
            blksize: 4096,
            flags: 0,
        })
    }

    fn use_direct(&self, offset: u64, len: usize) -> Option<&File> {
        // DIO_MIN is a power of two: a mask tests alignment.
        let aligned = len > 0 && (offset | len as u64) & (DIO_MIN - 1) == 0;
        self.direct.as_ref().filter(|_| aligned)
    }

    /// Read up to `len` bytes at `offset`, short only at the end of the file.
    fn read_backing(&self, offset: u64, len: usize) -> io::Result<Vec<u8>> {
        let size = self.size();
        let len = len.min(size.saturating_sub(offset) as usize);
        if let Some(direct) = self.use_direct(offset, len) {
            let mut buf = AlignedBuf::new(len);
            match read_full(direct, buf.as_mut_slice(), offset) {
                Ok(n) => return Ok(buf.as_mut_slice()[..n].to_vec()),
                Err(e) if e.raw_os_error() == Some(libc::EINVAL) => {}
                Err(e) => return Err(e),
            }
        }
        let mut buf = vec![0u8; len];
        let n = read_full(&self.backing, &mut buf, offset)?;
        buf.truncate(n);
        Ok(buf)
    }

    fn write_backing(&self, offset: u64, data: &[u8]) -> io::Result<()> {
        if let Some(direct) = self.use_direct(offset, data.len()) {
            let mut buf = AlignedBuf::new(data.len());
            buf.as_mut_slice().copy_from_slice(data);
            match direct.write_all_at(buf.as_mut_slice(), offset) {
                Ok(()) => return Ok(()),
                Err(e) if e.raw_os_error() == Some(libc::EINVAL) => {}
                Err(e) => return Err(e),
            }
        }
        self.backing.write_all_at(data, offset)
    }

    fn write_disk(&self, offset: u64, data: &[u8]) -> Result<u32, Errno> {
        let size = self.size();
        if offset >= size {
            return Err(Errno::ENOSPC);
        }
        // A fixed-size device: a write straddling the end is cut short.
        let n = data.len().min((size - offset) as usize);
        let data = &data[..n];
        let decision = self.table().decide(Op::Write, offset, n as u64);
        match decision {
            Decision::Fail(errno) => return Err(Errno::from_i32(errno)),
            Decision::Drop => {}
            Decision::Pass => self.write_backing(offset, data)?,
            Decision::Redirect(delta) => {
                // Store at offset+delta; whatever falls outside the device is lost.
                let target = i128::from(offset) + i128::from(delta);
                let lo = target.max(0);
                let hi = (target + n as i128).min(i128::from(size));
                if lo < hi {
                    let skip = (lo - target) as usize;
                    let len = (hi - lo) as usize;
                    self.write_backing(lo as u64, &data[skip..skip + len])?;
                }
            }
        }
        Ok(n as u32)
    }
}

/// `read_at` until `buf` is full or end of file; returns the bytes read.
fn read_full(f: &File, buf: &mut [u8], offset: u64) -> io::Result<usize> {
    let mut done = 0;
    while done < buf.len() {
        match f.read_at(&mut buf[done..], offset + done as u64) {
            Ok(0) => break,
            Ok(n) => done += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(done)
}

/// A zeroed heap buffer aligned for O_DIRECT.
struct AlignedBuf {
    ptr: *mut u8,
    len: usize,
    layout: std::alloc::Layout,
}

impl AlignedBuf {
    fn new(len: usize) -> Self {
        let layout =
            std::alloc::Layout::from_size_align(len.max(1), DIO_ALIGN).expect("buffer layout");
        // SAFETY: the layout has a non-zero size.
        let ptr = unsafe { std::alloc::alloc_zeroed(layout) };
        if ptr.is_null() {
            std::alloc::handle_alloc_error(layout);
        }
        AlignedBuf { ptr, len, layout }
    }

    fn as_mut_slice(&mut self) -> &mut [u8] {
        // SAFETY: ptr points to an initialised (zeroed) allocation of at least
        // len bytes owned by self, and &mut self makes this the only borrow.
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.len) }
    }
}

impl Drop for AlignedBuf {
    fn drop(&mut self) {
        // SAFETY: ptr was allocated by alloc_zeroed with this very layout.
        unsafe { std::alloc::dealloc(self.ptr, self.layout) }
    }
}

impl Filesystem for FaultFilesystem {
    fn lookup(&self, _req: &Request, parent: INodeNo, name: &OsStr, reply: ReplyEntry) {
        let ino = match name.to_str() {
            Some(DISK_NAME) if parent == INodeNo::ROOT => DISK_INO,
            Some(CTL_NAME) if parent == INodeNo::ROOT => CTL_INO,
            _ => return reply.error(Errno::ENOENT),
        };
        match self.attr(ino) {
            Some(a) => reply.entry(&TTL, &a, Generation(0)),
            None => reply.error(Errno::ENOENT),
        }
    }

    fn getattr(&self, _req: &Request, ino: INodeNo, _fh: Option<FileHandle>, reply: ReplyAttr) {
        match self.attr(ino.0) {
            Some(a) => reply.attr(&TTL, &a),
            None => reply.error(Errno::ENOENT),
        }
    }

    fn setattr(
        &self,
        _req: &Request,
        ino: INodeNo,
        _mode: Option<u32>,
        _uid: Option<u32>,
        _gid: Option<u32>,
        size: Option<u64>,
        _atime: Option<fuser::TimeOrNow>,
        _mtime: Option<fuser::TimeOrNow>,
        _ctime: Option<SystemTime>,
        _fh: Option<FileHandle>,
        _crtime: Option<SystemTime>,
        _chgtime: Option<SystemTime>,
        _bkuptime: Option<SystemTime>,
        _flags: Option<fuser::BsdFileFlags>,
        reply: ReplyAttr,
    ) {
        // Nothing is settable. O_TRUNC on ctl (`echo heal > ctl`) arrives as
        // size=0 and is ignored; disk.img keeps the backing file's size.
        if ino.0 == DISK_INO && size.is_some_and(|s| s != self.size()) {
            return reply.error(Errno::EPERM);
        }
        match self.attr(ino.0) {
            Some(a) => reply.attr(&TTL, &a),
            None => reply.error(Errno::ENOENT),
        }
    }

    fn open(&self, _req: &Request, ino: INodeNo, _flags: OpenFlags, reply: ReplyOpen) {
        let fh = self.next_fh.fetch_add(1, Ordering::Relaxed);
        match ino.0 {
            DISK_INO => {}
            CTL_INO => {
                let text = self.table().render().into_bytes();
                self.snapshots().insert(fh, text);
            }
            1 => return reply.error(Errno::EISDIR),
            _ => return reply.error(Errno::ENOENT),
        }
        reply.opened(FileHandle(fh), FopenFlags::FOPEN_DIRECT_IO);
    }

    fn read(
        &self,
        _req: &Request,
        ino: INodeNo,
        fh: FileHandle,
        offset: u64,
        size: u32,
        _flags: OpenFlags,
        _lock_owner: Option<LockOwner>,
        reply: ReplyData,
    ) {
        match ino.0 {
            DISK_INO => {
                if let Decision::Fail(errno) =
                    self.table().decide(Op::Read, offset, u64::from(size))
                {
                    return reply.error(Errno::from_i32(errno));
                }
                match self.read_backing(offset, size as usize) {
                    Ok(buf) => reply.data(&buf),
                    Err(e) => reply.error(e.into()),
                }
            }
            CTL_INO => {
                let snaps = self.snapshots();
                let text = snaps.get(&fh.0).map(Vec::as_slice).unwrap_or_default();
                let start = (offset as usize).min(text.len());
                let end = start.saturating_add(size as usize).min(text.len());
                reply.data(&text[start..end]);
            }
            _ => reply.error(Errno::EISDIR),
        }
    }

    fn write(
        &self,
        _req: &Request,
        ino: INodeNo,
        fh: FileHandle,
        offset: u64,
        data: &[u8],
        _write_flags: WriteFlags,
        _flags: OpenFlags,
        _lock_owner: Option<LockOwner>,
        reply: ReplyWrite,
    ) {
        match ino.0 {
            DISK_INO => match self.write_disk(offset, data) {
                Ok(n) => reply.written(n),
                Err(e) => reply.error(e),
            },
            CTL_INO => {
                let Ok(text) = std::str::from_utf8(data) else {
                    eprintln!("iolab-faultfs: ctl write is not UTF-8");
                    return reply.error(Errno::EINVAL);
                };
                let mut table = self.table();
                let result = table.apply(text);
                let state = table.render().into_bytes();
                drop(table);
                self.snapshots().insert(fh.0, state);
                match result {
                    Ok(()) => reply.written(data.len() as u32),
                    Err(msg) => {
                        eprintln!("iolab-faultfs: {msg}");
                        reply.error(Errno::EINVAL);
                    }
                }
            }
            _ => reply.error(Errno::EISDIR),
        }
    }

    fn flush(
        &self,
        _req: &Request,
        _ino: INodeNo,
        _fh: FileHandle,
        _lock_owner: LockOwner,
        reply: ReplyEmpty,
    ) {
        reply.ok();
    }

    fn fsync(
        &self,
        _req: &Request,
        ino: INodeNo,
        _fh: FileHandle,
        _datasync: bool,
        reply: ReplyEmpty,
    ) {
        if ino.0 != DISK_INO {
            return reply.ok();
        }
        if let Some(errno) = self.table().decide_fsync() {
            return reply.error(Errno::from_i32(errno));
        }
        match self.backing.sync_data() {
            Ok(()) => reply.ok(),
            Err(e) => reply.error(e.into()),
        }
    }

    fn release(
        &self,
        _req: &Request,
        _ino: INodeNo,
        fh: FileHandle,
        _flags: OpenFlags,
        _lock_owner: Option<LockOwner>,
        _flush: bool,
        reply: ReplyEmpty,
    ) {
        self.snapshots().remove(&fh.0);
        reply.ok();
    }

    fn readdir(
        &self,
        _req: &Request,
        ino: INodeNo,
        _fh: FileHandle,
        offset: u64,
        mut reply: ReplyDirectory,
    ) {
        if ino != INodeNo::ROOT {
            return reply.error(Errno::ENOTDIR);
        }
        let entries = [
            (1, FileType::Directory, "."),
            (1, FileType::Directory, ".."),
            (DISK_INO, FileType::RegularFile, DISK_NAME),
            (CTL_INO, FileType::RegularFile, CTL_NAME),
        ];
        for (i, (ino, kind, name)) in entries.iter().enumerate().skip(offset as usize) {
            if reply.add(INodeNo(*ino), (i + 1) as u64, *kind, name) {
                break;
            }
        }
        reply.ok();
    }

    fn access(&self, _req: &Request, _ino: INodeNo, _mask: fuser::AccessFlags, reply: ReplyEmpty) {
        reply.ok();
    }
}
