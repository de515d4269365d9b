//! errno values as names a storage engineer recognises.

/// "EIO (Input/output error)"; errno 0 is a short transfer.
pub fn errno_name(e: i32) -> String {
    let name = match e {
        0 => return "short transfer (fewer bytes than requested)".into(),
        libc::EPERM => "EPERM",
        libc::ENOENT => "ENOENT",
        libc::EINTR => "EINTR",
        libc::EIO => "EIO",
        libc::ENXIO => "ENXIO",
        libc::EBADF => "EBADF",
        libc::EAGAIN => "EAGAIN",
        libc::ENOMEM => "ENOMEM",
        libc::EACCES => "EACCES",
        libc::EFAULT => "EFAULT",
        libc::EBUSY => "EBUSY",
        libc::ENODEV => "ENODEV",
        libc::EINVAL => "EINVAL",
        libc::EFBIG => "EFBIG",
        libc::ENOSPC => "ENOSPC",
        libc::EROFS => "EROFS",
        libc::EOPNOTSUPP => "EOPNOTSUPP",
        libc::ETIMEDOUT => "ETIMEDOUT",
        libc::ENOTCONN => "ENOTCONN",
        libc::EDQUOT => "EDQUOT",
        libc::ECANCELED => "ECANCELED",
        libc::ENOLINK => "ENOLINK",
        libc::EREMOTEIO => "EREMOTEIO",
        libc::EILSEQ => "EILSEQ",
        libc::EEXIST => "EEXIST",
        libc::ENOTDIR => "ENOTDIR",
        libc::EISDIR => "EISDIR",
        libc::ELOOP => "ELOOP",
        libc::ENOTEMPTY => "ENOTEMPTY",
        libc::EMFILE => "EMFILE",
        libc::ENFILE => "ENFILE",
        libc::ENAMETOOLONG => "ENAMETOOLONG",
        libc::EXDEV => "EXDEV",
        libc::ETXTBSY => "ETXTBSY",
        libc::ESTALE => "ESTALE",
        libc::ESRCH => "ESRCH",
        libc::E2BIG => "E2BIG",
        libc::ESPIPE => "ESPIPE",
        libc::EMLINK => "EMLINK",
        libc::EPIPE => "EPIPE",
        libc::ERANGE => "ERANGE",
        libc::ENOSYS => "ENOSYS",
        libc::EOVERFLOW => "EOVERFLOW",
        _ => "",
    };
    let text = std::io::Error::from_raw_os_error(e).to_string();
    let text = text.split(" (os error").next().unwrap_or(&text).to_string();
    if name.is_empty() {
        format!("errno {e} ({text})")
    } else {
        format!("{name} ({text})")
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn names() {
        assert_eq!(super::errno_name(5), "EIO (Input/output error)");
        assert!(super::errno_name(28).starts_with("ENOSPC"));
        assert!(super::errno_name(0).starts_with("short"));
    }

    /// The errnos file-system operations meet have names, not numbers.
    #[test]
    fn file_system_errnos_have_names() {
        let named = [
            (libc::EEXIST, "EEXIST"),
            (libc::ENOTDIR, "ENOTDIR"),
            (libc::ELOOP, "ELOOP"),
            (libc::ENOTEMPTY, "ENOTEMPTY"),
            (libc::EISDIR, "EISDIR"),
            (libc::EMFILE, "EMFILE"),
            (libc::ENFILE, "ENFILE"),
            (libc::ENAMETOOLONG, "ENAMETOOLONG"),
            (libc::EXDEV, "EXDEV"),
            (libc::EBUSY, "EBUSY"),
            (libc::ETXTBSY, "ETXTBSY"),
            (libc::EFBIG, "EFBIG"),
            (libc::EDQUOT, "EDQUOT"),
            (libc::EROFS, "EROFS"),
            (libc::EPERM, "EPERM"),
            (libc::EACCES, "EACCES"),
            (libc::ESTALE, "ESTALE"),
        ];
        for (e, n) in named {
            let got = super::errno_name(e);
            assert!(got.starts_with(&format!("{n} (")), "{e}: {got}");
        }
    }
}
