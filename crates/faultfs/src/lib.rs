//! `iolab-faultfs`: a block device that fails on command, for iolab's tests.
//!
//! The kernel iolab is tested on has loop devices and FUSE but no
//! device-mapper, null_blk, scsi_debug or nbd. So this crate is a small FUSE
//! file system exposing one file, `disk.img`, backed by a real file, and a
//! `ctl` file through which a test switches faults on and off (EIO/ENOSPC
//! or any errno per direction or byte range, lost writes, misdirected
//! writes, each optionally one-shot; see [`faults`] for the grammar). A
//! loop device attached to `<mount>/disk.img` is then a block device whose
//! failures the test controls; killing the daemon makes it vanish.
//!
//! The file system runs in its own process, the `iolab-faultfs` binary, and
//! [`FaultFs`] is the guard a test holds: it creates a sparse backing file,
//! spawns and mounts the daemon, and on drop (also when the test panics)
//! stops it, unmounts lazily and removes its temporary directory.
//!
//! ```no_run
//! use iolab_faultfs::FaultFs;
//! use std::os::unix::fs::FileExt;
//!
//! let fs = FaultFs::start(16 << 20).unwrap();      // 16 MiB disk.img
//! let dev = fs.attach_loop().unwrap();             // /dev/loopN, detached on drop
//! fs.control("fail-writes EIO once").unwrap();
//! // ... run the code under test against dev.path() (open it with O_DIRECT:
//! // the loop device's own page cache would otherwise absorb writes) ...
//! assert!(fs.state().unwrap().contains("hits=1"));
//! fs.control("clear").unwrap();
//! let raw = std::fs::File::open(fs.backing_path()).unwrap(); // offline view
//! let mut b = [0u8; 512];
//! raw.read_at(&mut b, 0).unwrap();
//! ```
//!
//! # Finding the daemon binary
//!
//! [`FaultFs::start`] runs the binary found by [`binary_path`], in order:
//! 1. the path in the environment variable `IOLAB_FAULTFS_BIN`, if set;
//! 2. `iolab-faultfs` next to the running test executable or one directory
//!    up (a test runs from `target/debug/deps/`, the binary lives in
//!    `target/debug/`); cargo builds it there for this crate's own tests and
//!    for `cargo build`/`cargo test` of the whole workspace, but a test of
//!    another crate run alone (`cargo test -p other`) may find a stale one,
//!    so run `cargo build -p iolab-faultfs` first or set the variable;
//! 3. otherwise it builds it, once per process, with
//!    `cargo build --quiet -p iolab-faultfs` (the cargo running the tests,
//!    from `$CARGO`) and uses the executable cargo reports (normally
//!    `target/debug/iolab-faultfs`).
//!
//! Mounting needs root (or a setuid `fusermount3`) and `/dev/fuse`; loop
//! devices need root.

pub mod faults;
pub mod fs;

use std::ffi::CString;
use std::fs::OpenOptions;
use std::io::Write as _;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// Name of the daemon executable.
pub const BIN_NAME: &str = "iolab-faultfs";
/// Environment variable naming the daemon executable.
pub const BIN_ENV: &str = "IOLAB_FAULTFS_BIN";

/// How long `start` waits for `disk.img` to appear.
const MOUNT_TIMEOUT: Duration = Duration::from_secs(10);
/// How long drop waits for the daemon to unmount and exit after SIGTERM.
const TERM_TIMEOUT: Duration = Duration::from_secs(3);
const FUSECTL_DIR: &str = "/sys/fs/fuse/connections";

/// A mounted faultfs: the daemon process, its mount point and backing file.
/// Dropping it stops the daemon, unmounts and removes the temporary directory.
pub struct FaultFs {
    child: Option<Child>,
    /// Holds `backing.img`, `mnt/` and `daemon.log`; None once deliberately leaked.
    dir: Option<tempfile::TempDir>,
    mount: PathBuf,
    backing: PathBuf,
    log: PathBuf,
    /// The FUSE connection number (the name under /sys/fs/fuse/connections).
    conn: Option<u64>,
}

impl FaultFs {
    /// Create a sparse backing file of `size` bytes in a temp dir and mount
    /// the fs by spawning the iolab-faultfs binary ([`binary_path`]); waits
    /// until disk.img is visible.
    pub fn start(size: u64) -> Result<FaultFs, String> {
        Self::start_with(&binary_path()?, size, false)
    }

    /// Like [`FaultFs::start`] with an explicit daemon binary; `direct_io`
    /// passes `--direct-io` (the daemon opens the backing file with O_DIRECT).
    pub fn start_with(bin: &Path, size: u64, direct_io: bool) -> Result<FaultFs, String> {
        let dir = tempfile::Builder::new()
            .prefix("iolab-faultfs-")
            .tempdir()
            .map_err(|e| format!("temp dir: {e}"))?;
        let backing = dir.path().join("backing.img");
        let mount = dir.path().join("mnt");
        let log = dir.path().join("daemon.log");
        std::fs::File::create(&backing)
            .and_then(|f| f.set_len(size))
            .map_err(|e| format!("creating {}: {e}", backing.display()))?;
        std::fs::create_dir(&mount).map_err(|e| format!("mkdir {}: {e}", mount.display()))?;
        let log_file =
            std::fs::File::create(&log).map_err(|e| format!("{}: {e}", log.display()))?;
        let log_err = log_file.try_clone().map_err(|e| e.to_string())?;

        let mut cmd = Command::new(bin);
        cmd.arg("--backing")
            .arg(&backing)
            .arg("--mount")
            .arg(&mount)
            .stdin(Stdio::null())
            .stdout(log_file)
            .stderr(log_err);
        if direct_io {
            cmd.arg("--direct-io");
        }
        let child = cmd
            .spawn()
            .map_err(|e| format!("spawning {}: {e}", bin.display()))?;

        // From here on an early return drops `me`, which cleans up.
        let mut me = FaultFs {
            child: Some(child),
            dir: Some(dir),
            mount,
            backing,
            log,
            conn: None,
        };
        me.wait_mounted()?;
        let st = std::fs::metadata(&me.mount).map_err(|e| format!("stat mount: {e}"))?;
        me.conn = Some(connection_id(st.dev()));
        Ok(me)
    }

    fn wait_mounted(&mut self) -> Result<(), String> {
        let deadline = Instant::now() + MOUNT_TIMEOUT;
        let disk = self.disk_path();
        loop {
            if let Some(child) = self.child.as_mut() {
                if let Ok(Some(status)) = child.try_wait() {
                    self.child = None;
                    return Err(format!(
                        "iolab-faultfs exited ({status}) before mounting: {}",
                        self.daemon_log().trim()
                    ));
                }
            }
            if is_mounted(&self.mount) && disk.metadata().is_ok() {
                return Ok(());
            }
            if Instant::now() > deadline {
                return Err(format!(
                    "{} did not appear within {MOUNT_TIMEOUT:?}: {}",
                    disk.display(),
                    self.daemon_log().trim()
                ));
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// `<mount>/disk.img`, the faulty file (attach a loop device to it).
    pub fn disk_path(&self) -> PathBuf {
        self.mount.join(fs::DISK_NAME)
    }

    /// `<mount>/ctl`, the command and state file.
    pub fn ctl_path(&self) -> PathBuf {
        self.mount.join(fs::CTL_NAME)
    }

    /// The mount point.
    pub fn mount_path(&self) -> &Path {
        &self.mount
    }

    /// The real file behind disk.img (for offline inspection/injection).
    pub fn backing_path(&self) -> PathBuf {
        self.backing.clone()
    }

    /// The FUSE connection number, as named under /sys/fs/fuse/connections.
    pub fn connection(&self) -> Option<u64> {
        self.conn
    }

    /// What the daemon wrote to stdout/stderr so far.
    pub fn daemon_log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// Write one command to ctl (see [`faults`] for the grammar). A rejected
    /// command is an error carrying the daemon's reason.
    pub fn control(&self, cmd: &str) -> Result<(), String> {
        let mut f = OpenOptions::new()
            .write(true)
            .open(self.ctl_path())
            .map_err(|e| format!("opening ctl: {e}"))?;
        f.write_all(cmd.as_bytes()).map_err(|e| {
            let log = self.daemon_log();
            let why = log.lines().last().unwrap_or("");
            format!("ctl command {cmd:?} failed: {e} ({why})")
        })
    }

    /// Read ctl: the totals line and one line per fault with its hit count.
    pub fn state(&self) -> Result<String, String> {
        std::fs::read_to_string(self.ctl_path()).map_err(|e| format!("reading ctl: {e}"))
    }

    /// Make the device vanish: kill the daemon with SIGKILL and abort the
    /// FUSE connection (/sys/fs/fuse/connections/N/abort, mounting fusectl
    /// there if it is not), so every later I/O fails (ENOTCONN/EIO) instead
    /// of hanging. The mount stays until drop.
    pub fn vanish(&mut self) -> Result<(), String> {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
        self.abort_connection()
    }

    /// Abort the FUSE connection: every pending and later request fails.
    fn abort_connection(&self) -> Result<(), String> {
        let id = self.conn.ok_or("connection number unknown")?;
        let dir = Path::new(FUSECTL_DIR).join(id.to_string());
        if !dir.exists() {
            ensure_fusectl()?;
        }
        if dir.exists() {
            return std::fs::write(dir.join("abort"), "1")
                .map_err(|e| format!("writing {}/abort: {e}", dir.display()));
        }
        // No control fs: a forced unmount also aborts a FUSE connection
        // (fuse_umount_begin), whether or not the unmount itself succeeds.
        let c = path_cstring(&self.mount)?;
        // SAFETY: c is a valid NUL-terminated path.
        unsafe { libc::umount2(c.as_ptr(), libc::MNT_FORCE) };
        Ok(())
    }

    /// The daemon's process id while it runs: SIGSTOP on it makes every I/O
    /// wait (a hung path), SIGCONT lets it go on.
    pub fn daemon_pid(&self) -> Option<u32> {
        self.child.as_ref().map(|c| c.id())
    }

    /// Attach a loop device to disk.img (`losetup -f --show --direct-io=off`),
    /// detached when the returned guard drops.
    pub fn attach_loop(&self) -> Result<FaultLoop, String> {
        FaultLoop::attach(&self.disk_path())
    }
}

impl Drop for FaultFs {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            if let Ok(None) = child.try_wait() {
                // SAFETY: kill on the pid of our own child, which has not been reaped.
                unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGTERM) };
                let deadline = Instant::now() + TERM_TIMEOUT;
                while matches!(child.try_wait(), Ok(None)) && Instant::now() < deadline {
                    std::thread::sleep(Duration::from_millis(10));
                }
                if let Ok(None) = child.try_wait() {
                    let _ = child.kill();
                    let _ = child.wait();
                    let _ = self.abort_connection();
                }
            }
        }
        if is_mounted(&self.mount) {
            lazy_unmount(&self.mount);
        }
        if is_mounted(&self.mount) {
            // Never let TempDir recurse into a live mount: leak the dir instead.
            if let Some(dir) = self.dir.take() {
                let _ = dir.keep();
            }
        }
    }
}

/// A loop device over a faultfs disk.img; detached (`losetup -d`) on drop.
pub struct FaultLoop {
    path: PathBuf,
}

impl FaultLoop {
    /// `losetup -f --show --direct-io=off FILE`, retried a few times when a
    /// concurrent test grabs the same free device first.
    pub fn attach(file: &Path) -> Result<FaultLoop, String> {
        let mut last = String::new();
        for _ in 0..10 {
            let out = Command::new("losetup")
                .args(["-f", "--show", "--direct-io=off"])
                .arg(file)
                .output()
                .map_err(|e| format!("losetup: {e}"))?;
            if out.status.success() {
                let path = String::from_utf8_lossy(&out.stdout).trim().to_string();
                return Ok(FaultLoop {
                    path: PathBuf::from(path),
                });
            }
            last = String::from_utf8_lossy(&out.stderr).trim().to_string();
            if !last.contains("busy") {
                break;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        Err(format!("losetup -f --show {}: {last}", file.display()))
    }

    /// The device, e.g. `/dev/loop3`.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The device name as in /sys/block and /proc/diskstats (`loop3`).
    pub fn name(&self) -> String {
        self.path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    }
}

impl Drop for FaultLoop {
    fn drop(&mut self) {
        let _ = Command::new("losetup")
            .arg("-d")
            .arg(&self.path)
            .stderr(Stdio::null())
            .status();
    }
}

/// Locate the daemon binary: `$IOLAB_FAULTFS_BIN`, else `iolab-faultfs` next
/// to the current executable or in its parent directory, else build it with
/// cargo (once per process). See the crate documentation.
pub fn binary_path() -> Result<PathBuf, String> {
    if let Some(p) = std::env::var_os(BIN_ENV) {
        let p = PathBuf::from(p);
        return if p.is_file() {
            Ok(p)
        } else {
            Err(format!("{BIN_ENV}={} is not a file", p.display()))
        };
    }
    if let Ok(exe) = std::env::current_exe() {
        for dir in exe.ancestors().skip(1).take(2) {
            let candidate = dir.join(BIN_NAME);
            if candidate.is_file() {
                return Ok(candidate);
            }
        }
    }
    static BUILT: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    BUILT.get_or_init(build_binary).clone()
}

/// `cargo build --quiet -p iolab-faultfs` in this crate's workspace; returns
/// the executable cargo reports.
fn build_binary() -> Result<PathBuf, String> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml");
    let out = Command::new(&cargo)
        .args(["build", "--quiet", "-p", BIN_NAME, "--bin", BIN_NAME])
        .arg("--message-format=json")
        .arg("--manifest-path")
        .arg(&manifest)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("running cargo to build {BIN_NAME}: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "cargo build -p {BIN_NAME} failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    let key = "\"executable\":\"";
    let reported = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| {
            let start = l.find(key)? + key.len();
            let end = start + l[start..].find('"')?;
            Some(PathBuf::from(&l[start..end]))
        })
        .find(|p| p.file_name().is_some_and(|n| n == BIN_NAME));
    let path = reported.unwrap_or_else(|| {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/debug/iolab-faultfs")
    });
    if path.is_file() {
        Ok(path)
    } else {
        Err(format!(
            "built {BIN_NAME} but {} is missing",
            path.display()
        ))
    }
}

/// The fusectl name of the connection behind a mount with device `dev`: the
/// kernel-internal dev_t, (major << 20) | minor.
fn connection_id(dev: u64) -> u64 {
    let (major, minor) = (libc::major(dev), libc::minor(dev));
    (u64::from(major) << 20) | u64::from(minor)
}

fn path_cstring(p: &Path) -> Result<CString, String> {
    CString::new(p.as_os_str().as_bytes()).map_err(|e| e.to_string())
}

/// Mount the FUSE control file system on /sys/fs/fuse/connections unless it
/// is there already (systemd normally does this; minimal VMs may not).
fn ensure_fusectl() -> Result<(), String> {
    let mounts = std::fs::read_to_string("/proc/self/mounts").unwrap_or_default();
    if mounts
        .lines()
        .any(|l| l.split_whitespace().nth(2) == Some("fusectl"))
    {
        return Ok(());
    }
    let src = CString::new("fusectl").expect("no NUL");
    let dir = CString::new(FUSECTL_DIR).expect("no NUL");
    // SAFETY: all pointers are valid NUL-terminated strings; data may be null.
    let rc = unsafe {
        libc::mount(
            src.as_ptr(),
            dir.as_ptr(),
            src.as_ptr(),
            0,
            std::ptr::null(),
        )
    };
    if rc == 0 {
        Ok(())
    } else {
        Err(format!(
            "mounting fusectl on {FUSECTL_DIR}: {}",
            std::io::Error::last_os_error()
        ))
    }
}

/// Whether `path` is a mount point in this mount namespace.
pub fn is_mounted(path: &Path) -> bool {
    let Ok(info) = std::fs::read_to_string("/proc/self/mountinfo") else {
        return false;
    };
    info.lines().any(|l| {
        l.split_whitespace()
            .nth(4)
            .is_some_and(|m| Path::new(&unescape_mount_path(m)) == path)
    })
}

/// Undo the octal escapes (`\040` for a space) of /proc mount tables.
fn unescape_mount_path(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\'
            && i + 4 <= b.len()
            && b[i + 1..i + 4].iter().all(|c| (b'0'..=b'7').contains(c))
        {
            let v = b[i + 1..i + 4]
                .iter()
                .fold(0u32, |acc, c| acc * 8 + u32::from(c - b'0'));
            if let Ok(v) = u8::try_from(v) {
                out.push(v);
                i += 4;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Detach a mount lazily: umount2(MNT_DETACH), else `fusermount3 -uz`.
fn lazy_unmount(path: &Path) {
    if let Ok(c) = path_cstring(path) {
        // SAFETY: c is a valid NUL-terminated path.
        if unsafe { libc::umount2(c.as_ptr(), libc::MNT_DETACH) } == 0 {
            return;
        }
    }
    let _ = Command::new("fusermount3")
        .arg("-u")
        .arg("-z")
        .arg(path)
        .stderr(Stdio::null())
        .status();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unescape() {
        assert_eq!(unescape_mount_path("/tmp/a\\040b"), "/tmp/a b");
        assert_eq!(unescape_mount_path("/plain"), "/plain");
        assert_eq!(unescape_mount_path("/end\\04"), "/end\\04");
    }

    #[test]
    fn conn_id() {
        assert_eq!(connection_id(libc::makedev(0, 57)), 57);
        assert_eq!(connection_id(libc::makedev(0, 300)), 300);
    }
}
