//! Signatures from the system's libblkid, the library behind `blkid`,
//! `wipefs` and mkfs's own "this device holds data" checks.
//!
//! libblkid knows every superblock, RAID/volume-manager label and partition
//! table util-linux knows (Oracle ASM, Ceph BlueStore, VMFS, LVM2, LUKS, md,
//! bcache, ZFS, ...), at every offset they live at, with their own sanity
//! checks. iolab probes the device the way `wipefs` does: superblocks with
//! `BLKID_SUBLKS_MAGIC | BLKID_SUBLKS_TYPE | BLKID_SUBLKS_BADCSUM` (a
//! superblock with a damaged checksum still means data), partition tables
//! with `BLKID_PARTS_MAGIC | BLKID_PARTS_FORCE_GPT`, then `blkid_do_probe`
//! in a loop, collecting `TYPE` / `SBMAGIC_OFFSET` and `PTTYPE` /
//! `PTMAGIC_OFFSET` of each result.
//!
//! **How it is loaded, and why.** `libblkid.so.1` is opened at run time with
//! `libc::dlopen` (not linked, not through the `libloading` crate): the
//! build must need nothing beyond the Rust toolchain, so no `libblkid-dev`
//! headers or `.so` link stub and no pkg-config, and `libc` is already a
//! dependency, so dlopen costs no new crate (the few symbols needed do not
//! justify `libloading`'s wrapper). util-linux ships `libblkid.so.1` on every
//! Debian, so it is there at run time. When it cannot be loaded (or
//! `IOLAB_LIBBLKID=off` is set, for tests and troubleshooting), the caller
//! falls back to the hand-kept list of `signature` and says so. The
//! prototypes and constants below follow util-linux's
//! `libblkid/src/blkid.h.in`; the library is loaded once and never unloaded.
//!
//! The crate's other `unsafe` lives in `sys`; the FFI to libblkid is kept
//! here, next to the only code that uses it.

use crate::Signature;
use std::ffi::{c_char, c_int, c_void, CStr};
use std::fs::File;
use std::io;
use std::os::unix::fs::OpenOptionsExt;
use std::os::unix::io::AsRawFd;
use std::sync::OnceLock;

/// `blkid_probe` is an opaque pointer.
type Probe = *mut c_void;
/// `blkid_loff_t` is `int64_t`.
type Loff = i64;

// blkid.h.in: superblocks chain flags.
const BLKID_SUBLKS_TYPE: c_int = 1 << 5;
const BLKID_SUBLKS_MAGIC: c_int = 1 << 9;
const BLKID_SUBLKS_BADCSUM: c_int = 1 << 10;
// blkid.h.in: partitions chain flags.
const BLKID_PARTS_FORCE_GPT: c_int = 1 << 1;
const BLKID_PARTS_MAGIC: c_int = 1 << 3;

/// More results than any real device carries; a guard against a library
/// that would keep returning results.
const MAX_RESULTS: usize = 256;

/// The environment variable that forces the hand-kept list.
pub const DISABLE_ENV: &str = "IOLAB_LIBBLKID";

/// The libblkid functions iolab calls, resolved from the loaded library.
struct Lib {
    new_probe: unsafe extern "C" fn() -> Probe,
    free_probe: unsafe extern "C" fn(Probe),
    set_device: unsafe extern "C" fn(Probe, c_int, Loff, Loff) -> c_int,
    enable_superblocks: unsafe extern "C" fn(Probe, c_int) -> c_int,
    set_superblocks_flags: unsafe extern "C" fn(Probe, c_int) -> c_int,
    enable_partitions: unsafe extern "C" fn(Probe, c_int) -> c_int,
    set_partitions_flags: unsafe extern "C" fn(Probe, c_int) -> c_int,
    do_probe: unsafe extern "C" fn(Probe) -> c_int,
    lookup_value:
        unsafe extern "C" fn(Probe, *const c_char, *mut *const c_char, *mut usize) -> c_int,
}

/// The last `dlerror()` text, or `fallback`.
fn dl_error(fallback: &str) -> String {
    // SAFETY: dlerror returns NULL or a NUL-terminated string owned by libc,
    // valid until the next dl* call on this thread; it is copied at once.
    let p = unsafe { libc::dlerror() };
    if p.is_null() {
        fallback.to_string()
    } else {
        // SAFETY: non-NULL, NUL-terminated (see above).
        unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
    }
}

/// `dlsym(handle, name)` as a function pointer of type `T`.
///
/// # Safety
/// `T` must be an `extern "C" fn` type matching the C prototype of `name`.
unsafe fn sym<T: Copy>(handle: *mut c_void, name: &CStr) -> Result<T, String> {
    let p = libc::dlsym(handle, name.as_ptr());
    if p.is_null() {
        return Err(dl_error(&format!(
            "libblkid.so.1 has no {}",
            name.to_string_lossy()
        )));
    }
    debug_assert_eq!(std::mem::size_of::<T>(), std::mem::size_of::<*mut c_void>());
    Ok(std::mem::transmute_copy::<*mut c_void, T>(&p))
}

fn load() -> Result<Lib, String> {
    // SAFETY: dlopen with a constant NUL-terminated name; the handle is
    // kept for the life of the process (never dlclose'd), so the function
    // pointers taken from it stay valid.
    let handle =
        unsafe { libc::dlopen(c"libblkid.so.1".as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL) };
    if handle.is_null() {
        return Err(dl_error("libblkid.so.1 could not be loaded"));
    }
    // SAFETY: each type below is the prototype blkid.h.in declares for the
    // symbol (blkid_probe = pointer, blkid_loff_t = int64_t, size_t = usize).
    unsafe {
        Ok(Lib {
            new_probe: sym(handle, c"blkid_new_probe")?,
            free_probe: sym(handle, c"blkid_free_probe")?,
            set_device: sym(handle, c"blkid_probe_set_device")?,
            enable_superblocks: sym(handle, c"blkid_probe_enable_superblocks")?,
            set_superblocks_flags: sym(handle, c"blkid_probe_set_superblocks_flags")?,
            enable_partitions: sym(handle, c"blkid_probe_enable_partitions")?,
            set_partitions_flags: sym(handle, c"blkid_probe_set_partitions_flags")?,
            do_probe: sym(handle, c"blkid_do_probe")?,
            lookup_value: sym(handle, c"blkid_probe_lookup_value")?,
        })
    }
}

fn lib() -> Result<&'static Lib, String> {
    static LIB: OnceLock<Result<Lib, String>> = OnceLock::new();
    LIB.get_or_init(load).as_ref().map_err(|e| e.clone())
}

/// Whether libblkid can be used: `Err` says why not (the library is
/// missing or lacks a symbol, or `IOLAB_LIBBLKID=off` disabled it).
pub fn available() -> Result<(), String> {
    if let Some(v) = std::env::var_os(DISABLE_ENV) {
        if v == "off" || v == "0" {
            return Err(format!("disabled by {DISABLE_ENV}={}", v.to_string_lossy()));
        }
    }
    lib().map(|_| ())
}

/// Frees the probe on every path out of `detect`.
struct ProbeGuard<'a>(&'a Lib, Probe);

impl Drop for ProbeGuard<'_> {
    fn drop(&mut self) {
        // SAFETY: the probe came from blkid_new_probe and is freed once.
        unsafe { (self.0.free_probe)(self.1) }
    }
}

impl ProbeGuard<'_> {
    /// The value `name` of the current result, if set.
    fn value(&self, name: &CStr) -> Option<String> {
        let mut data: *const c_char = std::ptr::null();
        // SAFETY: valid probe, NUL-terminated name, out-pointer to a local;
        // libblkid's value strings are NUL-terminated and live until the
        // next probe call, and are copied before that.
        let rc = unsafe {
            (self.0.lookup_value)(self.1, name.as_ptr(), &mut data, std::ptr::null_mut())
        };
        if rc != 0 || data.is_null() {
            return None;
        }
        // SAFETY: see above.
        Some(
            unsafe { CStr::from_ptr(data) }
                .to_string_lossy()
                .into_owned(),
        )
    }
}

/// Whether `f` was opened with O_DIRECT (libblkid reads into unaligned
/// buffers, which an O_DIRECT descriptor refuses).
fn is_direct(f: &File) -> bool {
    // SAFETY: F_GETFL on a descriptor we own reads its flags only.
    let fl = unsafe { libc::fcntl(f.as_raw_fd(), libc::F_GETFL) };
    fl >= 0 && fl & libc::O_DIRECT != 0
}

/// Every signature libblkid finds in the first `size` bytes of `f`.
/// Errors when libblkid is not available (see `available`) or fails to
/// read the device.
pub fn detect(f: &File, size: u64) -> io::Result<Vec<Signature>> {
    available().map_err(io::Error::other)?;
    let lib = lib().map_err(io::Error::other)?;
    if size == 0 {
        return Ok(Vec::new());
    }
    // A buffered descriptor on the same file when the caller's is O_DIRECT.
    let reopened;
    let file = if is_direct(f) {
        reopened = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_CLOEXEC)
            .open(format!("/proc/self/fd/{}", f.as_raw_fd()))?;
        &reopened
    } else {
        f
    };
    let size = Loff::try_from(size)
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "size too large for libblkid"))?;

    // SAFETY: blkid_new_probe takes no arguments; NULL means out of memory.
    let pr = unsafe { (lib.new_probe)() };
    if pr.is_null() {
        return Err(io::Error::other("libblkid could not allocate a probe"));
    }
    let probe = ProbeGuard(lib, pr);
    // SAFETY: valid probe; the descriptor outlives the probe (both end in
    // this function, the guard first); libblkid does not close a descriptor
    // it was given.
    let rc = unsafe { (lib.set_device)(pr, file.as_raw_fd(), 0, size) };
    if rc != 0 {
        return Err(io::Error::other(
            "libblkid could not use the device for probing",
        ));
    }
    // SAFETY: valid probe, plain integer flags from blkid.h.in.
    unsafe {
        (lib.enable_superblocks)(pr, 1);
        (lib.set_superblocks_flags)(
            pr,
            BLKID_SUBLKS_MAGIC | BLKID_SUBLKS_TYPE | BLKID_SUBLKS_BADCSUM,
        );
        (lib.enable_partitions)(pr, 1);
        (lib.set_partitions_flags)(pr, BLKID_PARTS_MAGIC | BLKID_PARTS_FORCE_GPT);
    }

    let mut out: Vec<Signature> = Vec::new();
    for _ in 0..MAX_RESULTS {
        // SAFETY: valid probe; 0 = a result, 1 = done, -1 = error.
        match unsafe { (lib.do_probe)(pr) } {
            0 => {}
            1 => break,
            _ => {
                return Err(io::Error::other(
                    "libblkid failed while probing for signatures (a read error?)",
                ))
            }
        }
        let found = if let Some(t) = probe.value(c"TYPE") {
            Some((t, probe.value(c"SBMAGIC_OFFSET")))
        } else {
            probe
                .value(c"PTTYPE")
                .map(|t| (t, probe.value(c"PTMAGIC_OFFSET")))
        };
        if let Some((name, off)) = found {
            let offset = off.and_then(|o| o.trim().parse().ok()).unwrap_or(0);
            let s = Signature { name, offset };
            if !out.contains(&s) {
                out.push(s);
            }
        }
    }
    drop(probe);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::FileExt;

    /// A 4 MiB sparse image with an Oracle ASM label, which the hand-kept
    /// list of old missed.
    fn image() -> tempfile::NamedTempFile {
        let t = tempfile::NamedTempFile::new().unwrap();
        let f = t.reopen().unwrap();
        f.set_len(4 << 20).unwrap();
        f.write_all_at(b"ORCLDISKDATA_0001", 32).unwrap();
        t
    }

    macro_rules! needs_libblkid {
        () => {
            iolab_testutil::require!(
                available().is_ok(),
                format!("libblkid.so.1 not usable: {:?}", available())
            );
        };
    }

    #[test]
    fn finds_what_the_old_list_missed_in_a_file() {
        needs_libblkid!();
        let t = image();
        let f = File::open(t.path()).unwrap();
        let got = detect(&f, 4 << 20).unwrap();
        assert_eq!(
            got,
            vec![Signature {
                name: "oracleasm".into(),
                offset: 32
            }]
        );
        // Nothing to probe in zero bytes; a blank file has no signature.
        assert!(detect(&f, 0).unwrap().is_empty());
        let blank = tempfile::NamedTempFile::new().unwrap();
        blank.as_file().set_len(1 << 20).unwrap();
        assert!(detect(blank.as_file(), 1 << 20).unwrap().is_empty());
    }

    #[test]
    fn works_through_an_o_direct_descriptor() {
        needs_libblkid!();
        let t = image();
        let direct = match std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_DIRECT)
            .open(t.path())
        {
            Ok(f) => f,
            Err(e) => {
                iolab_testutil::print_skip(
                    module_path!(),
                    &format!("no O_DIRECT on the temp file system: {e}"),
                );
                return;
            }
        };
        assert!(is_direct(&direct));
        let got = detect(&direct, 4 << 20).unwrap();
        assert_eq!(got.len(), 1, "{got:?}");
        assert_eq!(got[0].name, "oracleasm");
        // The caller's descriptor keeps its flags.
        assert!(is_direct(&direct));
    }

    #[test]
    fn loading_is_cached_and_reports_why_not() {
        // Either the library and all its symbols load, or the error says
        // what is missing; both answers are stable across calls.
        let a = lib().map(|_| ());
        let b = lib().map(|_| ());
        assert_eq!(a, b);
        if let Err(e) = a {
            assert!(!e.is_empty());
        }
    }
}
