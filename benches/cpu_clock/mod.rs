//! The calling thread's CPU clock, shared by `benches/cputime.rs` and `examples/svgd_schedule.rs`
//! (included by path): on a machine shared with other work, time on a core is what a
//! measurement can compare, not wall time.

/// CPU time of this thread in seconds: Linux `clock_gettime(CLOCK_THREAD_CPUTIME_ID)`; `None`
/// where that clock is not known to be available. Not `/proc/thread-self/schedstat`: for the
/// running thread that file is only brought up to date at scheduler ticks (4 ms here).
#[cfg(target_os = "linux")]
pub fn thread_cpu_seconds() -> Option<f64> {
    /// `struct timespec` of the 64-bit Linux targets.
    #[repr(C)]
    struct Timespec {
        sec: i64,
        nsec: i64,
    }
    extern "C" {
        fn clock_gettime(clock: i32, ts: *mut Timespec) -> i32;
    }
    /// `CLOCK_THREAD_CPUTIME_ID` in <time.h>.
    const CLOCK_THREAD_CPUTIME_ID: i32 = 3;
    if core::mem::size_of::<usize>() != 8 {
        return None; // 32-bit targets' timespec may have a 32-bit tv_sec
    }
    let mut ts = Timespec { sec: 0, nsec: 0 };
    // SAFETY: `ts` is a valid, writable timespec of the layout the 64-bit C library uses, and
    // clock_gettime writes only that struct.
    let rc = unsafe { clock_gettime(CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    (rc == 0).then_some(ts.sec as f64 + ts.nsec as f64 * 1e-9)
}

/// No thread CPU clock known here.
#[cfg(not(target_os = "linux"))]
pub fn thread_cpu_seconds() -> Option<f64> {
    None
}
