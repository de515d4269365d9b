//! Bounded inputs: the one way iolab reads a file it was given (job files,
//! result documents, journals). Only a regular file is read, and only up to
//! a limit, so `/dev/zero`, `/dev/urandom`, a FIFO nobody writes to or a
//! huge file is refused at once with one line instead of reading forever.
//!
//! The path is looked at with `stat` before it is opened (opening some
//! character devices has effects of its own), opened with `O_NONBLOCK` (a
//! FIFO swapped in meanwhile does not wait for a writer) and checked again
//! with `fstat` on the open descriptor.

use crate::prepare::{is_missing, what_is};
use std::fs::{self, OpenOptions};
use std::io::{self, Read};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

/// The limit for text inputs: job files, result documents, a journal's
/// header.
pub const TEXT_LIMIT: u64 = 64 << 20;

/// Why an input was not read. Displays as "PATH is ..." without advice:
/// the caller adds what the file should have been.
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    #[error("{path} does not exist")]
    NotFound { path: PathBuf },
    #[error("{path} is {what}, not a regular file")]
    NotRegular { path: PathBuf, what: &'static str },
    #[error("{path} is {size} bytes, more than the {limit}-byte limit")]
    TooLarge {
        path: PathBuf,
        size: u64,
        limit: u64,
    },
    #[error("{path} is {size} bytes where exactly {want} were expected")]
    WrongLength { path: PathBuf, size: u64, want: u64 },
    #[error("cannot read {path}: {source}")]
    Io { path: PathBuf, source: io::Error },
}

fn io_err(path: &Path, e: io::Error) -> InputError {
    if is_missing(&e) {
        InputError::NotFound {
            path: path.to_path_buf(),
        }
    } else {
        InputError::Io {
            path: path.to_path_buf(),
            source: e,
        }
    }
}

/// The regular file `path`, whole, if it is at most `limit` bytes.
pub fn read_bounded(path: &Path, limit: u64) -> Result<Vec<u8>, InputError> {
    read_checked(path, |size| {
        (size > limit).then_some(InputError::TooLarge {
            path: path.to_path_buf(),
            size,
            limit,
        })
    })
    .map(|(v, _)| v)
}

/// The regular file `path` as UTF-8 text of at most `limit` bytes.
pub fn read_text_bounded(path: &Path, limit: u64) -> Result<String, InputError> {
    let v = read_bounded(path, limit)?;
    String::from_utf8(v).map_err(|_| InputError::Io {
        path: path.to_path_buf(),
        source: io::Error::new(io::ErrorKind::InvalidData, "it is not UTF-8 text"),
    })
}

/// The regular file `path`, which must be exactly `len` bytes long.
pub fn read_exact_len(path: &Path, len: u64) -> Result<Vec<u8>, InputError> {
    read_checked(path, |size| {
        (size != len).then_some(InputError::WrongLength {
            path: path.to_path_buf(),
            size,
            want: len,
        })
    })
    .map(|(v, _)| v)
}

fn read_checked(
    path: &Path,
    size_ok: impl Fn(u64) -> Option<InputError>,
) -> Result<(Vec<u8>, u64), InputError> {
    let regular = |m: &fs::Metadata| -> Result<(), InputError> {
        if m.is_file() {
            Ok(())
        } else {
            Err(InputError::NotRegular {
                path: path.to_path_buf(),
                what: what_is(m.file_type()),
            })
        }
    };
    let m = fs::metadata(path).map_err(|e| io_err(path, e))?;
    regular(&m)?;
    if let Some(e) = size_ok(m.len()) {
        return Err(e);
    }
    let f = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_CLOEXEC | libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path)
        .map_err(|e| io_err(path, e))?;
    let m = f.metadata().map_err(|e| io_err(path, e))?;
    regular(&m)?;
    let size = m.len();
    if let Some(e) = size_ok(size) {
        return Err(e);
    }
    let mut v = Vec::with_capacity(size as usize);
    // One byte more than stat said, to see a file that grew meanwhile.
    f.take(size.saturating_add(1))
        .read_to_end(&mut v)
        .map_err(|e| io_err(path, e))?;
    if let Some(e) = size_ok(v.len() as u64) {
        return Err(e);
    }
    Ok((v, size))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    #[test]
    fn a_regular_file_within_the_limit_is_read_whole() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("f");
        fs::write(&p, b"hello").unwrap();
        assert_eq!(read_bounded(&p, 5).unwrap(), b"hello");
        assert_eq!(read_text_bounded(&p, 64).unwrap(), "hello");
        assert_eq!(read_exact_len(&p, 5).unwrap(), b"hello");
    }

    #[test]
    fn too_large_or_wrong_length_is_refused() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("f");
        fs::write(&p, b"hello").unwrap();
        let e = read_bounded(&p, 4).unwrap_err();
        assert!(
            matches!(
                e,
                InputError::TooLarge {
                    size: 5,
                    limit: 4,
                    ..
                }
            ),
            "{e}"
        );
        let e = read_exact_len(&p, 6).unwrap_err();
        assert!(e.to_string().contains("exactly 6"), "{e}");
    }

    #[test]
    fn dev_zero_a_fifo_and_a_directory_are_refused_at_once() {
        let t = Instant::now();
        let e = read_bounded(Path::new("/dev/zero"), TEXT_LIMIT).unwrap_err();
        assert!(e.to_string().contains("character device"), "{e}");
        let d = tempfile::tempdir().unwrap();
        let fifo = d.path().join("p");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: mkfifo on a path in our own temporary directory.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let e = read_bounded(&fifo, TEXT_LIMIT).unwrap_err();
        assert!(e.to_string().contains("FIFO"), "{e}");
        let e = read_exact_len(d.path(), 1).unwrap_err();
        assert!(e.to_string().contains("directory"), "{e}");
        assert!(t.elapsed() < Duration::from_secs(1));
        let e = read_bounded(&d.path().join("none"), 1).unwrap_err();
        assert!(matches!(e, InputError::NotFound { .. }), "{e}");
    }
}
