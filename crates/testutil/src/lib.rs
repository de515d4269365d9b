//! Fixtures for iolab's tests: loop devices, tmpfs mounts and zram that are
//! released when the guard drops (also when the test panics), and the
//! `require!` macro that skips a test with a printed reason, or fails it
//! under CI, where every capability must be present.

use std::path::{Path, PathBuf};
use std::process::Command;

/// True when running as root (uid 0).
pub fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() == 0 }
}

/// True under CI (`CI` set to anything but empty, "0" or "false").
pub fn in_ci() -> bool {
    matches!(std::env::var("CI"), Ok(v) if !v.is_empty() && v != "0" && v != "false")
}

/// True when the kernel lets this process create an io_uring.
pub fn io_uring_available() -> bool {
    // SAFETY: io_uring_setup with a zeroed params struct and 1 entry; the fd
    // is closed straight away if it was created.
    unsafe {
        let mut p: [u8; 120] = [0; 120];
        let fd = libc::syscall(libc::SYS_io_uring_setup, 1u32, p.as_mut_ptr());
        if fd >= 0 {
            libc::close(fd as i32);
            true
        } else {
            false
        }
    }
}

/// Skip the current test with a printed reason when `cond` is false; under CI
/// the missing capability is a failure instead, so CI runs every test.
#[macro_export]
macro_rules! require {
    ($cond:expr, $why:expr) => {
        if !$cond {
            if $crate::in_ci() {
                panic!("required under CI but missing: {}", $why);
            }
            eprintln!("SKIP {}: {}", module_path!(), $why);
            return;
        }
    };
}

/// Skip unless root (loop devices, mounts, zram).
#[macro_export]
macro_rules! require_root {
    () => {
        $crate::require!($crate::is_root(), "needs root (loop devices, mounts, zram)");
    };
}

fn run(cmd: &str, args: &[&str]) -> Result<String, String> {
    let out = Command::new(cmd)
        .args(args)
        .output()
        .map_err(|e| format!("{cmd}: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "{cmd} {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// A loop device over a sparse backing file in a temporary directory; both
/// are removed on drop.
pub struct LoopDevice {
    pub path: PathBuf,
    pub backing: PathBuf,
    _dir: tempfile::TempDir,
}

impl LoopDevice {
    /// Attach a new loop device of `size` bytes. `direct_io` asks the loop
    /// driver to use O_DIRECT on its backing file (`losetup --direct-io=on`).
    pub fn new(size: u64, direct_io: bool) -> Result<Self, String> {
        Self::new_in(None, size, direct_io)
    }

    /// Like `new`, with the backing file inside `dir` (for example a tmpfs).
    pub fn new_in(dir: Option<&Path>, size: u64, direct_io: bool) -> Result<Self, String> {
        let tmp = match dir {
            Some(d) => tempfile::tempdir_in(d),
            None => tempfile::tempdir(),
        }
        .map_err(|e| e.to_string())?;
        let backing = tmp.path().join("backing.img");
        let f = std::fs::File::create(&backing).map_err(|e| e.to_string())?;
        f.set_len(size).map_err(|e| e.to_string())?;
        drop(f);
        let b = backing.to_str().ok_or("non-UTF-8 temp path")?;
        let dio = if direct_io {
            "--direct-io=on"
        } else {
            "--direct-io=off"
        };
        let path = run("losetup", &["-f", "--show", dio, b])?;
        Ok(LoopDevice {
            path: PathBuf::from(path),
            backing,
            _dir: tmp,
        })
    }

    /// A loop device whose backing file was first partitioned by `sfdisk`
    /// with `script` (for example "label: dos\nstart=34, size=4096\n"),
    /// attached with partition scanning and its partitions added, so
    /// `/sys/block/loopN/loopNp1` exists.
    pub fn with_partitions(size: u64, script: &str) -> Result<Self, String> {
        use std::io::Write;
        let tmp = tempfile::tempdir().map_err(|e| e.to_string())?;
        let backing = tmp.path().join("backing.img");
        let f = std::fs::File::create(&backing).map_err(|e| e.to_string())?;
        f.set_len(size).map_err(|e| e.to_string())?;
        drop(f);
        let b = backing.to_str().ok_or("non-UTF-8 temp path")?;
        let mut child = Command::new("sfdisk")
            .args(["--no-reread", "--no-tell-kernel", "-q", b])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .map_err(|e| format!("sfdisk: {e}"))?;
        child
            .stdin
            .take()
            .ok_or("sfdisk: no stdin")?
            .write_all(script.as_bytes())
            .map_err(|e| format!("sfdisk: {e}"))?;
        let out = child
            .wait_with_output()
            .map_err(|e| format!("sfdisk: {e}"))?;
        if !out.status.success() {
            return Err(format!(
                "sfdisk {b}: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
        let path = run("losetup", &["-f", "--show", "-P", b])?;
        let dev = LoopDevice {
            path: PathBuf::from(path),
            backing,
            _dir: tmp,
        };
        // Kernels built without the DOS/EFI partition parsers scan nothing:
        // partx reads the table itself and adds the partitions (BLKPG).
        run("partx", &["-u", dev.path_str()])?;
        Ok(dev)
    }

    pub fn path_str(&self) -> &str {
        self.path.to_str().unwrap()
    }

    /// The device name as in /proc/diskstats and /sys/block (`loop3`).
    pub fn name(&self) -> String {
        self.path
            .file_name()
            .unwrap()
            .to_string_lossy()
            .into_owned()
    }
}

impl Drop for LoopDevice {
    fn drop(&mut self) {
        let _ = run("losetup", &["-d", self.path_str()]);
    }
}

/// A tmpfs of a given size mounted on a fresh temporary directory;
/// unmounted (lazily, so a busy mount never blocks) on drop.
pub struct TmpfsMount {
    pub dir: tempfile::TempDir,
}

impl TmpfsMount {
    pub fn new(size: &str) -> Result<Self, String> {
        let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
        let d = dir.path().to_str().ok_or("non-UTF-8 temp path")?;
        run(
            "mount",
            &["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs", d],
        )?;
        Ok(TmpfsMount { dir })
    }
    pub fn path(&self) -> &Path {
        self.dir.path()
    }
}

impl Drop for TmpfsMount {
    fn drop(&mut self) {
        let _ = run("umount", &["-l", self.dir.path().to_str().unwrap_or("")]);
    }
}

/// A file system made with `mkfs_cmd` on a loop device and mounted on a
/// temporary directory; unmounted and detached on drop.
pub struct MountedFs {
    pub dir: tempfile::TempDir,
    pub dev: LoopDevice,
}

impl MountedFs {
    /// `fstype` is ext4, xfs or btrfs.
    pub fn new(fstype: &str, size: u64) -> Result<Self, String> {
        let dev = LoopDevice::new(size, false)?;
        let mkfs = format!("mkfs.{fstype}");
        let force = if fstype == "ext4" { "-F" } else { "-f" };
        run(&mkfs, &["-q", force, dev.path_str()])?;
        let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
        run("mount", &[dev.path_str(), dir.path().to_str().unwrap()])?;
        Ok(MountedFs { dir, dev })
    }
    pub fn path(&self) -> &Path {
        self.dir.path()
    }
}

impl Drop for MountedFs {
    fn drop(&mut self) {
        let _ = run("umount", &[self.dir.path().to_str().unwrap_or("")]);
        let _ = run("umount", &["-l", self.dir.path().to_str().unwrap_or("")]);
    }
}

/// The one zram device, sized for a test and reset on drop. An exclusive
/// flock on /tmp/iolab-zram.lock is held meanwhile, so tests in parallel
/// threads or processes never share the device.
pub struct Zram {
    pub path: PathBuf,
    _lock: std::fs::File,
}

impl Zram {
    pub fn new(size: u64) -> Result<Self, String> {
        use std::os::unix::io::AsRawFd;
        let lock = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open("/tmp/iolab-zram.lock")
            .map_err(|e| format!("zram lock: {e}"))?;
        // SAFETY: flock on an fd we own; blocks until the lock is free.
        if unsafe { libc::flock(lock.as_raw_fd(), libc::LOCK_EX) } != 0 {
            return Err("zram lock: flock failed".into());
        }
        let sys = Path::new("/sys/block/zram0");
        if !sys.exists() {
            return Err("no /sys/block/zram0 on this kernel".into());
        }
        // io_uring tears a ring down in a kernel worker after its process
        // exits, so zram0 can stay open (EBUSY) for a moment after the
        // previous test: retry for up to 5 s.
        let mut tries = 0;
        loop {
            let _ = std::fs::write(sys.join("reset"), "1");
            match std::fs::write(sys.join("disksize"), size.to_string()) {
                Ok(()) => break,
                Err(e) if e.raw_os_error() == Some(libc::EBUSY) && tries < 50 => {
                    tries += 1;
                    std::thread::sleep(std::time::Duration::from_millis(100));
                }
                Err(e) => return Err(format!("setting zram0 disksize: {e}")),
            }
        }
        Ok(Zram {
            path: PathBuf::from("/dev/zram0"),
            _lock: lock,
        })
    }
    pub fn path_str(&self) -> &str {
        self.path.to_str().unwrap()
    }
}

impl Drop for Zram {
    fn drop(&mut self) {
        // Retry while busy (see `new`), so the next test finds it free.
        for _ in 0..50 {
            match std::fs::write("/sys/block/zram0/reset", "1") {
                Err(e) if e.raw_os_error() == Some(libc::EBUSY) => {
                    std::thread::sleep(std::time::Duration::from_millis(100))
                }
                _ => break,
            }
        }
    }
}

/// Read a whole block device or file (for byte-identical checks).
pub fn read_all(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()))
}

/// (reads completed, sectors read, writes completed, sectors written) of a
/// block device from /proc/diskstats.
pub fn diskstats(name: &str) -> Option<(u64, u64, u64, u64)> {
    let text = std::fs::read_to_string("/proc/diskstats").ok()?;
    for line in text.lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        if f.len() > 9 && f[2] == name {
            let n = |i: usize| f[i].parse::<u64>().unwrap_or(0);
            return Some((n(3), n(5), n(7), n(9)));
        }
    }
    None
}
