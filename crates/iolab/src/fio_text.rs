//! Where `iolab fio` sends iolab's terminal lines: fio's scripts read
//! standard output as fio writes it. With `--output-format=json` and no
//! `--output`, stdout carries only fio's JSON: iolab's own lines are
//! moved to stderr at the descriptor (every `println!` of the run follows)
//! and the JSON is written to a copy of the original stdout. With the
//! normal format and `--output=FILE`, the terminal text is captured
//! through a pipe and written to FILE at the end under iolab's output
//! rules (crates/target/src/output.rs).

use iolab_target::{check_output, OutputKind, OutputPath, OutputRules};
use std::fs::File;
use std::io::{Read, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::path::Path;
use std::process::ExitCode;

fn os_err(what: &str) -> String {
    format!("{what}: {}", std::io::Error::last_os_error())
}

/// A copy of standard output as a file.
pub fn dup_stdout() -> Result<File, String> {
    // SAFETY: dup returns a new descriptor we own, or -1.
    let fd = unsafe { libc::fcntl(1, libc::F_DUPFD_CLOEXEC, 3) };
    if fd < 0 {
        return Err(os_err("cannot duplicate standard output"));
    }
    // SAFETY: fd is a fresh descriptor owned by nobody else.
    Ok(File::from(unsafe { OwnedFd::from_raw_fd(fd) }))
}

/// Standard output from now on goes to stderr; the original stdout is
/// returned for fio's JSON.
pub fn stdout_to_stderr() -> Result<File, String> {
    let _ = std::io::stdout().flush();
    let saved = dup_stdout()?;
    // SAFETY: dup2 of two open descriptors of this process.
    if unsafe { libc::dup2(2, 1) } < 0 {
        return Err(os_err("cannot send iolab's lines to stderr"));
    }
    Ok(saved)
}

/// The terminal text of a run, captured for `--output=FILE`.
pub struct Capture {
    out: OutputPath,
    saved: File,
    reader: std::thread::JoinHandle<Vec<u8>>,
}

impl Capture {
    /// Check `path` as an output and start capturing stdout.
    pub fn start(path: &Path, force: bool) -> Result<Capture, String> {
        let rules = OutputRules::new(force);
        let out = check_output("--output", path, OutputKind::FioText, &rules).map_err(|e| e.0)?;
        let mut fds = [0; 2];
        // SAFETY: pipe2 fills two descriptors we then own.
        if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } < 0 {
            return Err(os_err("cannot capture the output"));
        }
        // SAFETY: both are fresh descriptors owned by nobody else.
        let (r, w) = unsafe { (File::from_raw_fd(fds[0]), File::from_raw_fd(fds[1])) };
        let _ = std::io::stdout().flush();
        let saved = dup_stdout()?;
        // SAFETY: dup2 of two open descriptors of this process.
        if unsafe { libc::dup2(w.as_raw_fd(), 1) } < 0 {
            return Err(os_err("cannot capture the output"));
        }
        drop(w);
        let reader = std::thread::spawn(move || {
            let mut r = r;
            let mut buf = Vec::new();
            let _ = r.read_to_end(&mut buf);
            buf
        });
        Ok(Capture { out, saved, reader })
    }

    /// Restore stdout, write the captured text to the output; the exit
    /// code (1 when the text could not be written).
    pub fn finish(self, code: ExitCode) -> ExitCode {
        let _ = std::io::stdout().flush();
        // SAFETY: dup2 of two open descriptors; this closes the pipe's
        // write end that fd 1 was, so the reader sees its end.
        unsafe { libc::dup2(self.saved.as_raw_fd(), 1) };
        let text = self.reader.join().unwrap_or_default();
        match self.out.write_bytes(&text) {
            Ok(()) => code,
            Err(e) => {
                eprintln!("iolab: {e}");
                if code == ExitCode::SUCCESS {
                    ExitCode::FAILURE
                } else {
                    code
                }
            }
        }
    }
}
