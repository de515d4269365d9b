//! Process CPU time from getrusage(RUSAGE_SELF): it covers every thread of
//! the process, io_uring's kernel workers (iou-wrk) included.

use iolab_raw::CpuTime;

pub fn process_cpu() -> CpuTime {
    // SAFETY: getrusage writes into the zeroed struct we pass.
    let ru = unsafe {
        let mut ru: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_SELF, &mut ru);
        ru
    };
    let us = |t: libc::timeval| t.tv_sec as u64 * 1_000_000 + t.tv_usec as u64;
    CpuTime {
        user_us: us(ru.ru_utime),
        sys_us: us(ru.ru_stime),
    }
}
