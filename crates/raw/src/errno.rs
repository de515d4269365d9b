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
}
