//! A device that vanishes mid-run: after `vanish()` I/O on an attached and
//! open loop device fails quickly instead of hanging, and dropping the
//! guards leaves no mount and no bound loop device behind.

mod common;

use std::sync::mpsc;
use std::time::{Duration, Instant};

use common::*;

/// Run `f` on a thread; panic if it takes longer than `limit` (a hang).
fn within<T: Send + 'static>(
    limit: Duration,
    what: &str,
    f: impl FnOnce() -> T + Send + 'static,
) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(limit)
        .unwrap_or_else(|_| panic!("{what} hung for more than {limit:?}"))
}

#[test]
fn vanish_fails_io_without_hanging_and_drop_cleans_up() {
    require_loop!();
    let mut fs = start(1 << 20);
    let lo = fs.attach_loop().unwrap();
    let name = lo.name();
    let disk = fs.disk_path();
    let mount = fs.mount_path().to_path_buf();
    let dev = std::sync::Arc::new(open_direct(lo.path()));
    assert_eq!(pwrite(&dev, 0, &pattern(1, BLOCK)), Ok(BLOCK));
    assert_eq!(pread(&dev, 0, BLOCK), Ok(pattern(1, BLOCK)));

    // A reader keeps I/O in flight while the device vanishes.
    let (tx, busy) = mpsc::channel();
    let d = dev.clone();
    std::thread::spawn(move || {
        let start = Instant::now();
        let mut n = 0u64;
        let last = loop {
            match pread(&d, (n % 64) * BLOCK as u64, BLOCK) {
                Ok(_) if start.elapsed() < Duration::from_secs(20) => n += 1,
                other => break other.map(|_| ()),
            }
        };
        let _ = tx.send((n, last));
    });
    std::thread::sleep(Duration::from_millis(50));

    let t = Instant::now();
    fs.vanish().unwrap();
    let (n, last) = busy
        .recv_timeout(Duration::from_secs(5))
        .expect("reader hung after vanish");
    eprintln!(
        "busy reader: {n} reads, then {last:?} after {:?}",
        t.elapsed()
    );
    let e = last.expect_err("reader ran out of time instead of failing");
    assert!(e == libc::EIO || e == libc::ENOTCONN, "errno {e}");
    let conn = fs.connection().unwrap();
    assert!(
        std::path::Path::new(&format!("/sys/fs/fuse/connections/{conn}/abort")).exists(),
        "fusectl has the connection"
    );

    let d = dev.clone();
    let read = within(Duration::from_secs(5), "pread after vanish", move || {
        pread(&d, 4 * BLOCK as u64, BLOCK)
    });
    let d = dev.clone();
    let write = within(Duration::from_secs(5), "pwrite after vanish", move || {
        pwrite(&d, 0, &pattern(2, BLOCK))
    });
    let d = disk.clone();
    let open = within(
        Duration::from_secs(5),
        "open disk.img after vanish",
        move || std::fs::File::open(d).map_err(|e| e.raw_os_error()),
    );
    eprintln!(
        "after vanish ({:?}): loop pread {read:?}, loop pwrite {write:?}, open disk.img {:?}",
        t.elapsed(),
        open.as_ref().map(|_| ())
    );
    for r in [read.map(|_| ()), write.map(|_| ())] {
        let e = r.expect_err("I/O succeeded on a vanished device");
        assert!(e == libc::EIO || e == libc::ENOTCONN, "errno {e}");
    }
    assert_eq!(open.err(), Some(Some(libc::ENOTCONN)));

    // Clean-up must not hang either, and must leave nothing behind.
    drop(dev);
    within(Duration::from_secs(10), "dropping the guards", move || {
        drop(lo);
        drop(fs);
    });
    let deadline = Instant::now() + Duration::from_secs(2);
    while loop_backing(&name).is_some_and(|b| b.contains(disk.to_str().unwrap()))
        && Instant::now() < deadline
    {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(
        !loop_backing(&name).is_some_and(|b| b.contains(disk.to_str().unwrap())),
        "{name} still bound to {}",
        disk.display()
    );
    assert!(!in_proc_mounts(&mount), "{} still mounted", mount.display());
    assert!(!mount.exists(), "temp dir left behind");
}

#[test]
fn vanish_without_loop_device() {
    require_fuse!();
    let mut fs = start(64 << 10);
    let f = std::fs::File::open(fs.disk_path()).unwrap();
    fs.vanish().unwrap();
    let r = within(Duration::from_secs(5), "read after vanish", move || {
        use std::os::unix::fs::FileExt;
        let mut b = [0u8; 512];
        f.read_at(&mut b, 0).map_err(|e| e.raw_os_error())
    });
    assert_eq!(r.err(), Some(Some(libc::ENOTCONN)));
    let mount = fs.mount_path().to_path_buf();
    drop(fs);
    assert!(!in_proc_mounts(&mount));
}
