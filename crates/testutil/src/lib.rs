//! Fixtures for iolab's tests: loop devices, tmpfs mounts and zram devices
//! of their own that are released when the guard drops (also when the test
//! panics; zram devices of an interrupted test are removed by the next
//! one), and the `require!` family of macros that skip a test with a
//! `SKIP <test>: <reason>` line, or fail it under CI, where every
//! capability must be present. [`sshd`]: a private OpenSSH server for
//! multi-host tests.

use std::path::{Path, PathBuf};
use std::process::Command;

pub mod sshd;

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

/// The running test's name: libtest runs each test on a thread named after
/// it (`module::test_name`); `fallback` (the caller's module path) is used
/// when the thread has no name, or is the main thread.
pub fn test_name(fallback: &str) -> String {
    match std::thread::current().name() {
        Some(n) if n != "main" => n.to_string(),
        _ => fallback.to_string(),
    }
}

/// The line a skipped test prints: `SKIP <test>: <reason>`.
pub fn skip_line(test: &str, why: &str) -> String {
    format!("SKIP {test}: {why}\n")
}

/// Print `SKIP <test>: <why>` (see `require!`), or panic under CI.
///
/// The line is written to the process's stderr handle directly: libtest
/// captures `print!`/`eprint!` of passing tests (so `eprintln!` would show
/// nothing without `--nocapture`), but not writes to the handle itself.
#[track_caller]
pub fn skip_or_fail<T: std::fmt::Display + ?Sized>(fallback: &str, why: &T) {
    if in_ci() {
        panic!("required under CI but missing: {why}");
    }
    print_skip(fallback, why);
}

/// Print `SKIP <test>: <why>` even under CI, for what CI need not have (a
/// kernel built without device-mapper, say); the caller then returns.
pub fn print_skip<T: std::fmt::Display + ?Sized>(fallback: &str, why: &T) {
    let line = skip_line(&test_name(fallback), &why.to_string());
    let _ = std::io::Write::write_all(&mut std::io::stderr().lock(), line.as_bytes());
}

/// Skip the current test with a printed reason when `cond` is false; under CI
/// the missing capability is a failure instead, so CI runs every test. The
/// line, `SKIP <test>: <reason>`, shows without `--nocapture`.
#[macro_export]
macro_rules! require {
    ($cond:expr, $why:expr) => {
        if !$cond {
            $crate::skip_or_fail(module_path!(), &$why);
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

/// Skip unless every named program is on PATH (`require_tool!("mkfs.xfs")`);
/// the reason names the Debian package that has it.
#[macro_export]
macro_rules! require_tool {
    ($($tool:expr),+ $(,)?) => {
        $( $crate::require!($crate::have_tool($tool), $crate::missing_tool($tool)); )+
    };
}

/// Skip unless root with zram (the module is loaded when missing).
#[macro_export]
macro_rules! require_zram {
    () => {
        $crate::require_root!();
        $crate::require!(
            $crate::zram_available(),
            "needs zram (/sys/class/zram-control; modprobe zram)"
        );
    };
}

/// Skip unless FUSE is available (`/dev/fuse`).
#[macro_export]
macro_rules! require_fuse {
    () => {
        $crate::require!(
            std::path::Path::new("/dev/fuse").exists(),
            "needs /dev/fuse (FUSE in the kernel)"
        );
    };
}

/// Skip unless the kernel lets this process create an io_uring.
#[macro_export]
macro_rules! require_io_uring {
    () => {
        $crate::require!(
            $crate::io_uring_available(),
            "needs io_uring (disabled by kernel.io_uring_disabled or a seccomp filter?)"
        );
    };
}

/// Directories searched besides PATH only to say why a tool was not found.
const SBIN_DIRS: [&str; 3] = ["/usr/local/sbin", "/usr/sbin", "/sbin"];

/// The executable `name` in `dir`, if there is one.
fn executable_in(dir: &Path, name: &str) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let p = dir.join(name);
    let m = std::fs::metadata(&p).ok()?;
    (m.is_file() && m.permissions().mode() & 0o111 != 0).then_some(p)
}

/// True when `name` is an executable on PATH, where `Command::new(name)`
/// finds it.
pub fn have_tool(name: &str) -> bool {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path).any(|d| executable_in(&d, name).is_some())
}

/// Why `require_tool!(name)` skips: not installed (and which Debian package
/// has it), or installed in an sbin directory that is not on PATH.
pub fn missing_tool(name: &str) -> String {
    if let Some(p) = SBIN_DIRS
        .iter()
        .find_map(|d| executable_in(Path::new(d), name))
    {
        let dir = p.parent().unwrap_or(Path::new("/")).display().to_string();
        return format!("{name} is in {dir}, which is not on PATH (add {dir} to PATH)");
    }
    let package = match name {
        "mkfs.ext4" | "mke2fs" | "tune2fs" | "debugfs" => "e2fsprogs",
        "mkfs.xfs" | "xfs_io" => "xfsprogs",
        "mkfs.btrfs" | "btrfs" => "btrfs-progs",
        "sfdisk" | "fdisk" => "fdisk",
        "losetup" | "mount" | "umount" | "swapon" | "swapoff" => "mount",
        "partx" | "mkswap" | "blkid" | "wipefs" | "blockdev" | "setpriv" => "util-linux",
        "iostat" => "sysstat",
        "fusermount3" => "fuse3",
        "dmsetup" => "dmsetup",
        other => other,
    };
    format!("{name} is not installed (apt-get install {package}, or scripts/test as root)")
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

/// The zram control directory (`hot_add`, `hot_remove`).
const ZRAM_CONTROL: &str = "/sys/class/zram-control";
/// Where fixtures record the zram devices they added, one file `zramN`
/// holding `<pid> <start time> <boot id>` of the owner, and the lock taken
/// around adding and removing (bench/vs-fio uses the same registry). Under
/// /run: root's, and emptied at boot like the devices themselves.
const ZRAM_REGISTRY: &str = "/run/iolab-zram";

/// True when this kernel has zram with hot_add (root: loads the module
/// with no devices of its own when it is missing).
pub fn zram_available() -> bool {
    if !Path::new(ZRAM_CONTROL).exists() && is_root() {
        let _ = Command::new("modprobe")
            .args(["zram", "num_devices=0"])
            .output();
    }
    Path::new(ZRAM_CONTROL).join("hot_add").exists()
}

/// A zram device of its own (`/dev/zramN`, added through
/// /sys/class/zram-control/hot_add and sized for the test), reset and
/// removed through `hot_remove` on drop. The host's devices (zram0 is often
/// swap) are never touched. Devices left behind by an interrupted test are
/// removed by the next `Zram::new` once their owner is gone.
pub struct Zram {
    pub path: PathBuf,
    /// N in zramN.
    pub id: u32,
}

/// The registry's lock: an exclusive flock held while devices are added,
/// registered, removed and unregistered, so a number freed by one process
/// and reused by another is never mistaken for the first one's.
struct RegistryLock {
    _file: std::fs::File,
}

impl RegistryLock {
    fn take() -> Result<Self, String> {
        use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt};
        use std::os::unix::io::AsRawFd;
        let dir = Path::new(ZRAM_REGISTRY);
        let _ = std::fs::DirBuilder::new().mode(0o700).create(dir);
        // Trust only a real directory of root's that nobody else can write.
        let m = std::fs::symlink_metadata(dir).map_err(|e| format!("{ZRAM_REGISTRY}: {e}"))?;
        if !m.is_dir() || m.uid() != 0 || m.mode() & 0o022 != 0 {
            return Err(format!(
                "{ZRAM_REGISTRY} is not a directory of root's that only root can write"
            ));
        }
        let f = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .custom_flags(libc::O_NOFOLLOW)
            .open(dir.join("lock"))
            .map_err(|e| format!("{ZRAM_REGISTRY}/lock: {e}"))?;
        // SAFETY: flock on a descriptor we own; blocks until it is free.
        if unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX) } != 0 {
            return Err(format!(
                "{ZRAM_REGISTRY}/lock: {}",
                std::io::Error::last_os_error()
            ));
        }
        Ok(RegistryLock { _file: f })
    }
}

/// The start time of process `pid` (field 22 of /proc/PID/stat), which with
/// the pid names a process even after pids wrap.
fn start_time(pid: u32) -> Option<String> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) is in parentheses and may hold spaces.
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_whitespace().nth(19).map(str::to_string)
}

fn boot_id() -> String {
    std::fs::read_to_string("/proc/sys/kernel/random/boot_id")
        .map(|s| s.trim().to_string())
        .unwrap_or_default()
}

/// This process as the registry records an owner.
fn owner_line() -> String {
    let pid = std::process::id();
    format!(
        "{pid} {} {}\n",
        start_time(pid).unwrap_or_default(),
        boot_id()
    )
}

/// Whether a registry entry's owner is still running (same boot, same pid
/// and start time). An unreadable entry counts as alive: never remove a
/// device on a guess.
fn owner_alive(entry: &str) -> bool {
    let f: Vec<&str> = entry.split_whitespace().collect();
    let (Some(pid), Some(start), Some(boot)) = (f.first(), f.get(1), f.get(2)) else {
        return true;
    };
    let Ok(pid) = pid.parse::<u32>() else {
        return true;
    };
    *boot == boot_id() && start_time(pid).as_deref() == Some(*start)
}

/// Write `value` to a sysfs attribute, retrying for up to 10 s while the
/// device is busy: io_uring tears a ring down in a kernel worker after its
/// process exits, and udev probes new devices, so a device can stay open
/// for a moment after its last user.
fn write_retrying(attr: &Path, value: &str) -> std::io::Result<()> {
    let mut tries = 0;
    loop {
        match std::fs::write(attr, value) {
            Err(e) if e.raw_os_error() == Some(libc::EBUSY) && tries < 100 => {
                tries += 1;
                std::thread::sleep(std::time::Duration::from_millis(100));
            }
            r => return r,
        }
    }
}

/// Reset and remove zramN; Ok also when it is already gone.
fn zram_remove(id: u32) -> Result<(), String> {
    let sys = PathBuf::from(format!("/sys/block/zram{id}"));
    if !sys.exists() {
        return Ok(());
    }
    write_retrying(&sys.join("reset"), "1").map_err(|e| format!("resetting zram{id}: {e}"))?;
    match write_retrying(&Path::new(ZRAM_CONTROL).join("hot_remove"), &id.to_string()) {
        Err(e) if e.raw_os_error() != Some(libc::ENODEV) => {
            Err(format!("hot_remove zram{id}: {e}"))
        }
        _ => Ok(()),
    }
}

/// Remove the devices whose registered owner is gone (a test killed before
/// its guard dropped), and forget entries from an earlier boot. Called with
/// the registry lock held.
fn zram_remove_stale() {
    let Ok(entries) = std::fs::read_dir(ZRAM_REGISTRY) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let Some(id) = name
            .strip_prefix("zram")
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        let Ok(entry) = std::fs::read_to_string(e.path()) else {
            continue;
        };
        if owner_alive(&entry) {
            continue;
        }
        let same_boot = entry.split_whitespace().nth(2) == Some(boot_id().as_str());
        if !same_boot || zram_remove(id).is_ok() {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

impl Zram {
    /// Add a zram device of `size` bytes.
    pub fn new(size: u64) -> Result<Self, String> {
        if !zram_available() {
            return Err(format!("no {ZRAM_CONTROL} on this kernel (modprobe zram)"));
        }
        let id = {
            let _lock = RegistryLock::take()?;
            zram_remove_stale();
            let n = std::fs::read_to_string(Path::new(ZRAM_CONTROL).join("hot_add"))
                .map_err(|e| format!("zram hot_add: {e}"))?;
            let id: u32 = n
                .trim()
                .parse()
                .map_err(|_| format!("zram hot_add returned {n:?}"))?;
            let entry = Path::new(ZRAM_REGISTRY).join(format!("zram{id}"));
            if let Err(e) = std::fs::write(&entry, owner_line()) {
                let _ = zram_remove(id);
                return Err(format!("{}: {e}", entry.display()));
            }
            id
        };
        // From here on the guard removes the device, also on error.
        let z = Zram {
            path: PathBuf::from(format!("/dev/zram{id}")),
            id,
        };
        let sys = PathBuf::from(format!("/sys/block/zram{id}"));
        write_retrying(&sys.join("disksize"), &size.to_string())
            .map_err(|e| format!("setting zram{id} disksize: {e}"))?;
        // udev creates the node; wait for it (up to 5 s).
        for _ in 0..50 {
            if z.path.exists() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        if !z.path.exists() {
            return Err(format!("{} did not appear", z.path.display()));
        }
        Ok(z)
    }

    pub fn path_str(&self) -> &str {
        self.path.to_str().unwrap()
    }

    /// The device name as in /proc/diskstats and /sys/block (`zram1`).
    pub fn name(&self) -> String {
        format!("zram{}", self.id)
    }

    /// /sys/block/zramN.
    pub fn sys(&self) -> PathBuf {
        PathBuf::from(format!("/sys/block/zram{}", self.id))
    }
}

impl Drop for Zram {
    fn drop(&mut self) {
        // Reset without the lock (it may wait for a busy device), then
        // remove and unregister under it. On failure the entry stays, and
        // the next fixture removes the device once this process is gone.
        let _ = write_retrying(&self.sys().join("reset"), "1");
        let Ok(_lock) = RegistryLock::take() else {
            return;
        };
        match zram_remove(self.id) {
            Ok(()) => {
                let _ = std::fs::remove_file(Path::new(ZRAM_REGISTRY).join(self.name()));
            }
            Err(e) => {
                let _ = std::io::Write::write_all(
                    &mut std::io::stderr().lock(),
                    format!("iolab-testutil: {e}; left for the next test to remove\n").as_bytes(),
                );
            }
        }
    }
}

/// Read a whole block device or file (for byte-identical checks).
pub fn read_all(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()))
}

/// The non-zero 64 KiB chunks of a device or file, with their offsets: a
/// byte-exact picture of a mostly empty device that stays small in memory
/// (for byte-identical checks of large loop devices).
pub fn nonzero_chunks(path: &Path) -> Vec<(u64, Vec<u8>)> {
    use std::io::Read;
    let mut f =
        std::fs::File::open(path).unwrap_or_else(|e| panic!("opening {}: {e}", path.display()));
    let mut out = Vec::new();
    let mut buf = vec![0u8; 65536];
    let mut off = 0u64;
    loop {
        let mut n = 0;
        while n < buf.len() {
            match f.read(&mut buf[n..]) {
                Ok(0) => break,
                Ok(k) => n += k,
                Err(e) => panic!("reading {}: {e}", path.display()),
            }
        }
        if n == 0 {
            break;
        }
        if buf[..n].iter().any(|&b| b != 0) {
            out.push((off, buf[..n].to_vec()));
        }
        off += n as u64;
    }
    out
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skip_lines_name_the_test_thread() {
        // libtest names each test's thread after the test.
        assert_eq!(
            test_name("fallback"),
            "tests::skip_lines_name_the_test_thread"
        );
        assert_eq!(skip_line("a::b", "needs x"), "SKIP a::b: needs x\n");
        let t = std::thread::Builder::new()
            .spawn(|| test_name("fallback"))
            .unwrap();
        assert_eq!(t.join().unwrap(), "fallback");
    }

    #[test]
    fn missing_tools_are_named_with_their_package() {
        assert!(have_tool("sh"));
        assert!(!have_tool("iolab-no-such-tool"));
        assert_eq!(
            missing_tool("iolab-no-such-tool"),
            "iolab-no-such-tool is not installed (apt-get install iolab-no-such-tool, or scripts/test as root)"
        );
        if !SBIN_DIRS
            .iter()
            .any(|d| executable_in(Path::new(d), "mkfs.xfs").is_some())
        {
            assert!(missing_tool("mkfs.xfs").contains("apt-get install xfsprogs"));
        }
    }

    #[test]
    fn registry_owners() {
        assert!(owner_alive(&owner_line()));
        // A pid that cannot exist, or another boot: gone.
        assert!(!owner_alive(&format!("4294967 1 {}", boot_id())));
        let me = owner_line();
        let f: Vec<&str> = me.split_whitespace().collect();
        assert!(!owner_alive(&format!("{} {} another-boot", f[0], f[1])));
        // The same pid with another start time is a later process.
        assert!(!owner_alive(&format!("{} 1 {}", f[0], f[2])));
        // Unreadable entries are kept (never remove a device on a guess).
        assert!(owner_alive(""));
        assert!(owner_alive("x y z"));
    }

    /// The devices in /sys/block named zramN.
    fn zram_devices() -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir("/sys/block")
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with("zram"))
            .collect();
        v.sort();
        v
    }

    /// zramN is gone, or was added again by a live fixture (tests run in
    /// parallel and numbers are reused): checked under the lock, where a
    /// fixture's device exists only while it is registered.
    fn gone_or_reused(name: &str) -> bool {
        let _l = RegistryLock::take().unwrap();
        let entry = std::fs::read_to_string(Path::new(ZRAM_REGISTRY).join(name));
        let exists = Path::new("/sys/block").join(name).exists();
        match entry {
            Ok(e) => exists && owner_alive(&e),
            Err(_) => !exists,
        }
    }

    #[test]
    fn zram_devices_are_our_own_and_removed() {
        require_zram!();
        let host0 = std::fs::read_to_string("/sys/block/zram0/disksize").ok();
        let a = Zram::new(16 << 20).unwrap();
        let b = Zram::new(32 << 20).unwrap();
        assert_ne!(a.id, b.id);
        for (z, size) in [(&a, 16u64 << 20), (&b, 32 << 20)] {
            let got = std::fs::read_to_string(z.sys().join("disksize")).unwrap();
            assert_eq!(got.trim(), size.to_string(), "{}", z.name());
            assert!(z.path.exists());
            assert!(Path::new(ZRAM_REGISTRY).join(z.name()).exists());
        }
        if host0.is_some() {
            assert!(a.id != 0 && b.id != 0, "reused the host's zram0");
        }
        let (an, bn) = (a.name(), b.name());
        drop(a);
        drop(b);
        assert!(
            gone_or_reused(&an) && gone_or_reused(&bn),
            "{:?}",
            zram_devices()
        );
        assert_eq!(
            std::fs::read_to_string("/sys/block/zram0/disksize").ok(),
            host0
        );
    }

    #[test]
    fn a_dead_owners_zram_device_is_removed_by_the_next_fixture() {
        require_zram!();
        // A device "left behind" by a process that has exited.
        let mut child = Command::new("true").spawn().unwrap();
        let pid = child.id();
        child.wait().unwrap();
        let id: u32 = {
            let _l = RegistryLock::take().unwrap();
            let n = std::fs::read_to_string(Path::new(ZRAM_CONTROL).join("hot_add")).unwrap();
            let id = n.trim().parse().unwrap();
            std::fs::write(
                Path::new(ZRAM_REGISTRY).join(format!("zram{id}")),
                format!("{pid} 1 {}\n", boot_id()),
            )
            .unwrap();
            id
        };
        let stale = format!("zram{id}");
        assert!(zram_devices().contains(&stale));
        let gone_or_reused = || gone_or_reused(&stale);
        let z = Zram::new(16 << 20).unwrap();
        assert!(gone_or_reused(), "{:?}", zram_devices());
        drop(z);
        assert!(gone_or_reused(), "{:?}", zram_devices());
    }
}
