//! sgsample on a Cortex-M under QEMU: runs the samplers of [`runs`] with static buffers, prints
//! every sample as hexadecimal bits over semihosting, and exits with status 0 (1 if a sampler
//! returned an error, or on a panic).
//!
//! Built for `thumbv7em-none-eabihf` (Cortex-M4F, `f32` on the FPU) and `thumbv7m-none-eabi`
//! (Cortex-M3, no FPU); `scripts/test-firmware.sh` runs both and compares their output with the
//! host's (`examples/firmware_host.rs`).
#![no_std]
#![no_main]

use core::fmt::Write;
use cortex_m_rt::entry;
use cortex_m_semihosting::{debug, hio};
use panic_semihosting as _;
use sgsample::Amagold;

mod runs;

/// Workspace length for the largest AMAGOLD run.
const AMAGOLD_WS: usize = Amagold::<f64>::workspace_len(runs::MAX_D);

#[entry]
fn main() -> ! {
    // cortex-m-rt turns these into `&'static mut` references: the buffers live in .bss.
    static mut WS64: [f64; AMAGOLD_WS] = [0.0; AMAGOLD_WS];
    static mut WS32: [f32; AMAGOLD_WS] = [0.0; AMAGOLD_WS];

    let status = match hio::hstdout() {
        Ok(mut out) => match run_all(&mut out, WS64, WS32) {
            Ok(()) => debug::EXIT_SUCCESS,
            Err(e) => {
                let _ = writeln!(out, "FAILED: {:?}", e);
                debug::EXIT_FAILURE
            }
        },
        Err(()) => debug::EXIT_FAILURE,
    };
    debug::exit(status);
    loop {
        cortex_m::asm::wfi();
    }
}

fn run_all(out: &mut dyn Write, ws64: &mut [f64], ws32: &mut [f32]) -> Result<(), runs::Failure> {
    for run in &runs::AMAGOLD_RUNS {
        runs::amagold_core::<f64>(out, run, ws64)?;
        runs::amagold_core::<f32>(out, run, ws32)?;
    }
    Ok(())
}
