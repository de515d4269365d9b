//! A loop device over disk.img is a block device whose failures the test
//! controls: O_DIRECT I/O on it round-trips, fails with the injected errno,
//! recovers after `heal`, loses writes under `drop-writes` and lands them
//! elsewhere under `misdirect`.

mod common;

use common::*;

const SIZE: u64 = 4 << 20;

#[test]
fn loop_device_round_trip_fail_and_heal() {
    require_loop!();
    let fs = start(SIZE);
    let lo = fs.attach_loop().unwrap();
    let dev = open_direct(lo.path());

    let offsets = [0u64, 65536, 1 << 20, SIZE - BLOCK as u64];
    for (i, &off) in offsets.iter().enumerate() {
        let data = pattern(i as u8 + 1, BLOCK);
        assert_eq!(pwrite(&dev, off, &data), Ok(BLOCK), "pwrite at {off}");
        assert_eq!(pread(&dev, off, BLOCK), Ok(data.clone()), "pread at {off}");
        assert_eq!(backing_at(&fs, off, BLOCK), data, "backing at {off}");
    }

    fs.control("fail EIO").unwrap();
    assert_eq!(pread(&dev, 65536, BLOCK), Err(libc::EIO));
    assert_eq!(pwrite(&dev, 65536, &pattern(9, BLOCK)), Err(libc::EIO));
    fs.control("heal").unwrap();
    assert_eq!(pread(&dev, 65536, BLOCK), Ok(pattern(2, BLOCK)));
    assert_eq!(
        backing_at(&fs, 65536, BLOCK),
        pattern(2, BLOCK),
        "failed write stored nothing"
    );

    // One direction, one range, one shot.
    fs.control("fail-writes EIO").unwrap();
    assert!(pread(&dev, 0, BLOCK).is_ok());
    assert_eq!(pwrite(&dev, 0, &pattern(1, BLOCK)), Err(libc::EIO));
    fs.control("heal").unwrap();
    fs.control("fail-range 1m 4k EIO once").unwrap();
    assert!(pread(&dev, (1 << 20) - BLOCK as u64, BLOCK).is_ok());
    assert_eq!(pread(&dev, 1 << 20, BLOCK), Err(libc::EIO));
    assert_eq!(pread(&dev, 1 << 20, BLOCK), Ok(pattern(3, BLOCK)));

    let state = fs.state().unwrap();
    assert!(
        state.contains("fail-range 1048576 4096 EIO once hits=1 spent"),
        "{state}"
    );
}

#[test]
fn loop_device_passes_other_errnos_through() {
    require_loop!();
    let fs = start(SIZE);
    let lo = fs.attach_loop().unwrap();
    let dev = open_direct(lo.path());
    // The block layer keeps the errnos it has a status for
    // (errno_to_blk_status: ENOSPC, ENODATA = medium error, ETIMEDOUT, ...)
    // and turns the rest into EIO.
    fs.control("fail ENOSPC").unwrap();
    assert_eq!(pwrite(&dev, 0, &pattern(1, BLOCK)), Err(libc::ENOSPC));
    assert_eq!(pread(&dev, 0, BLOCK), Err(libc::ENOSPC));
    fs.control("clear\nfail ENODATA").unwrap();
    assert_eq!(pread(&dev, 0, BLOCK), Err(libc::ENODATA));
    fs.control("clear\nfail EROFS").unwrap();
    assert_eq!(pread(&dev, 0, BLOCK), Err(libc::EIO));
}

#[test]
fn drop_writes_and_misdirect() {
    require_loop!();
    let fs = start(SIZE);
    let old = pattern(100, BLOCK);
    poke_backing(&fs, 8 * BLOCK as u64, &old);
    let lo = fs.attach_loop().unwrap();
    let dev = open_direct(lo.path());

    // A lost write: acknowledged in full, not stored, once.
    fs.control("drop-writes 32k 4k once").unwrap();
    let new = pattern(101, BLOCK);
    assert_eq!(pwrite(&dev, 8 * BLOCK as u64, &new), Ok(BLOCK));
    assert_eq!(
        backing_at(&fs, 8 * BLOCK as u64, BLOCK),
        old,
        "dropped write was stored"
    );
    assert_eq!(
        pread(&dev, 8 * BLOCK as u64, BLOCK),
        Ok(old.clone()),
        "device shows old data"
    );
    assert_eq!(pwrite(&dev, 8 * BLOCK as u64, &new), Ok(BLOCK));
    assert_eq!(
        backing_at(&fs, 8 * BLOCK as u64, BLOCK),
        new,
        "second write stored"
    );

    // A misdirected write: acknowledged, stored DELTA bytes away.
    let (src, delta) = (64 * BLOCK as u64, 3 * BLOCK as i64);
    let dst = (src as i64 + delta) as u64;
    fs.control(&format!("misdirect {src} 4096 {delta}"))
        .unwrap();
    let data = pattern(102, BLOCK);
    assert_eq!(pwrite(&dev, src, &data), Ok(BLOCK));
    assert_eq!(
        backing_at(&fs, src, BLOCK),
        vec![0; BLOCK],
        "intended block untouched"
    );
    assert_eq!(backing_at(&fs, dst, BLOCK), data, "data at offset+DELTA");
    assert_eq!(pread(&dev, dst, BLOCK), Ok(data.clone()));

    // Negative DELTA, and writes outside the range go straight.
    fs.control(&format!("clear\nmisdirect {src} 4096 -{}", 2 * BLOCK))
        .unwrap();
    let data2 = pattern(103, BLOCK);
    assert_eq!(pwrite(&dev, src, &data2), Ok(BLOCK));
    assert_eq!(backing_at(&fs, src - 2 * BLOCK as u64, BLOCK), data2);
    assert_eq!(pwrite(&dev, src + BLOCK as u64, &data2), Ok(BLOCK));
    assert_eq!(backing_at(&fs, src + BLOCK as u64, BLOCK), data2);

    let state = fs.state().unwrap();
    assert!(state.contains("misdirected_writes=2"), "{state}");
    assert!(state.contains("dropped_writes=1"), "{state}");
    assert!(
        state.contains(&format!("misdirect {src} 4096 -8192 hits=1")),
        "{state}"
    );
}
