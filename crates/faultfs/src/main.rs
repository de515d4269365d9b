//! The `iolab-faultfs` daemon: parses the command line, mounts
//! [`FaultFilesystem`] with fuser's pure-Rust mount (no libfuse), serves it
//! until it is unmounted, and turns SIGTERM/SIGINT/SIGHUP into a clean
//! unmount (lazy when a loop device keeps the mount busy) and exit. It is a separate process (not a thread of the test) so that a
//! test can make the device vanish by killing it.
//!
//! ```text
//! iolab-faultfs --backing FILE --mount DIR [--direct-io]
//! ```

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use fuser::{Config, MountOption, Session};
use iolab_faultfs::fs::FaultFilesystem;

const USAGE: &str = "\
usage: iolab-faultfs --backing FILE --mount DIR [--direct-io]

Serves DIR/disk.img (FILE seen through injected faults) and DIR/ctl until
unmounted, or until SIGTERM/SIGINT/SIGHUP, which unmount it and exit (when a
loop device still holds disk.img open the unmount is lazy, and the loop
device's later I/O fails).

  --backing FILE  the real data; disk.img has its size
  --mount DIR     an existing empty directory to mount on
  --direct-io     also open FILE with O_DIRECT and use it for 512-byte aligned
                  I/O, so data goes past the host page cache to FILE's device

Write commands to DIR/ctl (fail EIO, fail-reads ERR, fail-writes ERR,
fail-range START LEN ERR, drop-writes START LEN, misdirect START LEN DELTA,
heal, clear; any fault may end in `once` or `times N`); read it for the state.";

struct Args {
    backing: PathBuf,
    mount: PathBuf,
    direct_io: bool,
}

fn parse_args() -> Result<Args, String> {
    let mut backing = None;
    let mut mount = None;
    let mut direct_io = false;
    let mut it = std::env::args_os().skip(1);
    while let Some(arg) = it.next() {
        let arg = arg.to_string_lossy().into_owned();
        let (flag, inline) = match arg.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f.to_string(), Some(PathBuf::from(v))),
            _ => (arg.clone(), None),
        };
        let mut value = |name: &str| {
            inline
                .clone()
                .or_else(|| it.next().map(PathBuf::from))
                .ok_or_else(|| format!("{name} needs a value"))
        };
        match flag.as_str() {
            "--backing" => backing = Some(value("--backing")?),
            "--mount" => mount = Some(value("--mount")?),
            "--direct-io" => direct_io = true,
            "-h" | "--help" => {
                println!("{USAGE}");
                std::process::exit(0);
            }
            "-V" | "--version" => {
                println!("iolab-faultfs {}", env!("CARGO_PKG_VERSION"));
                std::process::exit(0);
            }
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    Ok(Args {
        backing: backing.ok_or("--backing FILE is required")?,
        mount: mount.ok_or("--mount DIR is required")?,
        direct_io,
    })
}

/// The termination signals, blocked in every thread and taken by `sigwait`.
fn term_signals() -> libc::sigset_t {
    // SAFETY: sigemptyset/sigaddset initialise and fill a local sigset_t.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        for sig in [libc::SIGTERM, libc::SIGINT, libc::SIGHUP] {
            libc::sigaddset(&mut set, sig);
        }
        set
    }
}

/// Unmount `mnt`; when busy (a loop device holds disk.img) detach it lazily.
/// Returns whether the detach was lazy.
fn unmount(mnt: &Path) -> Result<bool, String> {
    let c = CString::new(mnt.as_os_str().as_bytes()).map_err(|e| e.to_string())?;
    // SAFETY: c is a valid NUL-terminated path.
    if unsafe { libc::umount2(c.as_ptr(), 0) } == 0 {
        return Ok(false);
    }
    let err = std::io::Error::last_os_error();
    match err.raw_os_error() {
        Some(libc::EBUSY) => {
            // SAFETY: as above.
            if unsafe { libc::umount2(c.as_ptr(), libc::MNT_DETACH) } == 0 {
                Ok(true)
            } else {
                Err(format!("lazy unmount: {}", std::io::Error::last_os_error()))
            }
        }
        Some(libc::EPERM) => {
            // Not root: the setuid helper may unmount what we mounted.
            let ok = std::process::Command::new("fusermount3")
                .arg("-u")
                .arg("-z")
                .arg(mnt)
                .status()
                .is_ok_and(|s| s.success());
            if ok {
                Ok(true)
            } else {
                Err("fusermount3 -uz failed".into())
            }
        }
        _ => Err(format!("unmount: {err}")),
    }
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("iolab-faultfs: {e}\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };

    // Block the termination signals before any thread exists, so every
    // thread inherits the mask and only the signal thread's sigwait takes them.
    let set = term_signals();
    // SAFETY: set is an initialised sigset_t; a null old-set pointer is allowed.
    unsafe { libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut()) };

    let mount = match args.mount.canonicalize() {
        Ok(m) => m,
        Err(e) => {
            eprintln!("iolab-faultfs: mount dir {}: {e}", args.mount.display());
            return ExitCode::FAILURE;
        }
    };
    let fs = match FaultFilesystem::new(&args.backing, args.direct_io) {
        Ok(fs) => fs,
        Err(e) => {
            eprintln!(
                "iolab-faultfs: backing file {}: {e}",
                args.backing.display()
            );
            return ExitCode::FAILURE;
        }
    };
    let size = std::fs::metadata(&args.backing)
        .map(|m| m.len())
        .unwrap_or(0);

    let mut config = Config::default();
    config.mount_options = vec![
        MountOption::FSName("iolab-faultfs".into()),
        MountOption::NoAtime,
    ];
    config.n_threads = Some(4);
    let session = match Session::new(fs, &mount, &config) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("iolab-faultfs: mounting on {}: {e}", mount.display());
            return ExitCode::FAILURE;
        }
    };
    eprintln!(
        "iolab-faultfs: serving {}/disk.img ({size} bytes from {}){}",
        mount.display(),
        args.backing.display(),
        if args.direct_io { " with O_DIRECT" } else { "" }
    );

    let mnt = mount.clone();
    std::thread::spawn(move || {
        let mut sig: libc::c_int = 0;
        // SAFETY: set is an initialised sigset_t blocked in all threads;
        // sig is a valid out pointer.
        while unsafe { libc::sigwait(&set, &mut sig) } != 0 {}
        match unmount(&mnt) {
            // The kernel ends the session; session.run() returns in main.
            Ok(false) => eprintln!("iolab-faultfs: signal {sig}, unmounted"),
            Ok(true) => {
                eprintln!(
                    "iolab-faultfs: signal {sig}, mount busy (a loop device?): detached \
                     lazily and exiting; its users now get I/O errors"
                );
                std::process::exit(0);
            }
            Err(e) => {
                eprintln!("iolab-faultfs: signal {sig}: {e}; exiting");
                std::process::exit(1);
            }
        }
    });

    match session.run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("iolab-faultfs: session ended with error: {e}");
            ExitCode::FAILURE
        }
    }
}
