//! sgsample on a Cortex-M under QEMU: runs the samplers of [`runs`] (AMAGOLD and RBM-SVGD, each in
//! `f64` and `f32`) with static buffers, prints
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
mod runs;

/// Workspace length for the largest AMAGOLD run (its configuration's size query).
const AMAGOLD_WS: usize = runs::AMAGOLD_WS;

#[entry]
fn main() -> ! {
    // cortex-m-rt turns these into `&'static mut` references: the buffers live in .bss.
    static mut WS64: [f64; AMAGOLD_WS] = [0.0; AMAGOLD_WS];
    static mut WS32: [f32; AMAGOLD_WS] = [0.0; AMAGOLD_WS];
    static mut PARTICLES64: [f64; runs::SVGD_N] = [0.0; runs::SVGD_N];
    static mut PARTICLES32: [f32; runs::SVGD_N] = [0.0; runs::SVGD_N];
    static mut SVGD_WS64: [f64; runs::SVGD_WS] = [0.0; runs::SVGD_WS];
    static mut SVGD_WS32: [f32; runs::SVGD_WS] = [0.0; runs::SVGD_WS];
    static mut INDEX: [u32; runs::SVGD_N] = [0; runs::SVGD_N];

    let status = match hio::hstdout() {
        Ok(mut out) => match run_all(
            &mut out,
            Buffers {
                ws64: WS64,
                ws32: WS32,
                particles64: PARTICLES64,
                particles32: PARTICLES32,
                svgd_ws64: SVGD_WS64,
                svgd_ws32: SVGD_WS32,
                index: INDEX,
            },
        ) {
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

/// The static buffers, borrowed for the whole run.
struct Buffers {
    ws64: &'static mut [f64],
    ws32: &'static mut [f32],
    particles64: &'static mut [f64],
    particles32: &'static mut [f32],
    svgd_ws64: &'static mut [f64],
    svgd_ws32: &'static mut [f32],
    index: &'static mut [u32],
}

fn run_all(out: &mut dyn Write, b: Buffers) -> Result<(), runs::Failure> {
    for run in &runs::AMAGOLD_RUNS {
        runs::amagold_core::<f64>(out, run, b.ws64)?;
        runs::amagold_core::<f32>(out, run, b.ws32)?;
    }
    for run in &runs::SVGD_RUNS {
        runs::svgd_core::<f64>(out, run, b.particles64, b.svgd_ws64, b.index)?;
        runs::svgd_core::<f32>(out, run, b.particles32, b.svgd_ws32, b.index)?;
    }
    Ok(())
}
