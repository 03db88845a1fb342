//! The target, in one place: what the library knows of the machine it is built for and, on
//! x86-64, of the CPU it runs on. Other modules ask here rather than test `target_arch`,
//! `target_os` or CPU features themselves (as `libm` keeps its `arch` module). Each switch
//! chooses between forms that compute the same bits; the host tests also call the form the host
//! does not choose (the bare-metal one, the portable copy) and compare bit for bit, so that no
//! alternative is tested only under QEMU.
//!
//! * [`HOSTED`]: an operating system under us, i.e. not `target_os = "none"` (the Cortex-M
//!   firmware). Hosted builds take the faster forms that cost flash or stack; bare metal keeps the
//!   smaller ones.
//! * [`VECTOR`]: vector units that the SVGD pair loops are tiled for (`sgs_vector`, set by
//!   build.rs for x86-64, aarch64 and wasm32 with simd128).
//! * [`Level`] and [`level`]: the widest x86-64 vector extension this CPU and operating system
//!   support, checked once at run time (the base level elsewhere and under Miri).
//! * [`sqrt`] and [`sqrtf`]: the square roots of [`Float`](crate::Float).
//!
//! Inlining attributes that differ between hosts and bare metal (`#[cfg_attr(target_os = "none",
//! inline(never))]`, `#[cfg_attr(sgs_vector, inline(always))]`) cannot read a constant and stay
//! where they are; they test the same two conditions as [`HOSTED`] and [`VECTOR`]. The x86-64
//! copies of the SVGD loops (`#[target_feature]` functions) are in their modules too, next to
//! the loops they compile, and are chosen by [`level`].

/// Hosted (an operating system, caches; flash and stack to spare): not `target_os = "none"`.
pub(crate) const HOSTED: bool = cfg!(not(target_os = "none"));

/// Vector units the SVGD pair loops are tiled for (the `sgs_vector` cfg of build.rs).
pub(crate) const VECTOR: bool = cfg!(sgs_vector);

/// The widest vector unit the hosted SVGD pair loops (`src/svgd/pairs/`: blocked, packed, lanes)
/// have a copy for and this CPU runs, checked once at run time: on x86-64 AVX-512 (`avx512f`,
/// when the compiler is recent enough to enable it: `sgs_avx512`, set by build.rs for rustc ≥
/// 1.89), AVX2, or the baseline (SSE2); elsewhere the baseline. Only the register width differs
/// between the copies: no fused multiply-add is enabled (and Rust never contracts), so the bits
/// are the same.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
// Off x86-64 only `Base` is ever reported (the other levels are named in comparisons).
#[cfg_attr(not(all(target_arch = "x86_64", not(miri))), allow(dead_code))]
pub(crate) enum Level {
    /// The target's baseline vector unit.
    Base,
    /// x86-64 with AVX2 (256-bit vectors).
    Avx2,
    /// x86-64 with AVX-512F (512-bit vectors).
    Avx512,
}

/// See [`Level`].
#[cfg(all(target_arch = "x86_64", not(miri)))]
pub(crate) use x86::level;

/// Asks the caches for the line holding `*p` (x86-64: `prefetcht0`; elsewhere nothing): for
/// scatters to rows known a few records ahead, whose misses would otherwise wait one by one.
/// Only a hint: `p` is not dereferenced, any address is sound.
#[inline(always)]
pub(crate) fn prefetch<T>(p: *const T) {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    // SAFETY: a prefetch reads nothing a program can see and cannot fault.
    unsafe {
        core::arch::x86_64::_mm_prefetch::<{ core::arch::x86_64::_MM_HINT_T0 }>(p.cast());
    }
    #[cfg(not(all(target_arch = "x86_64", not(miri))))]
    let _ = p;
}

/// See [`Level`].
#[cfg(not(all(target_arch = "x86_64", not(miri))))]
pub(crate) fn level() -> Level {
    Level::Base
}

/// The run-time check (no `std` here: `cpuid` and `xgetbv` directly).
#[cfg(all(target_arch = "x86_64", not(miri)))]
mod x86 {
    use super::Level;
    use core::arch::x86_64::{__cpuid, __cpuid_count, _xgetbv};
    use core::sync::atomic::{AtomicU8, Ordering};

    /// 0: not checked yet, else 1 + the `Level`.
    static STATE: AtomicU8 = AtomicU8::new(0);

    /// The widest level this CPU and operating system support (checked once; racing first calls
    /// compute the same answer).
    pub(crate) fn level() -> Level {
        let s = match STATE.load(Ordering::Relaxed) {
            0 => {
                let s = 1 + detect() as u8;
                STATE.store(s, Ordering::Relaxed);
                s
            }
            s => s,
        };
        match s {
            3 => Level::Avx512,
            2 => Level::Avx2,
            _ => Level::Base,
        }
    }

    fn detect() -> Level {
        // `cpuid` exists on every x86-64 CPU (safe in newer Rust, hence the allow).
        #[allow(unused_unsafe)]
        // SAFETY: cpuid is part of the x86-64 baseline; leaf 0 reports the highest leaf.
        let max_leaf = unsafe { __cpuid(0) }.eax;
        if max_leaf < 7 {
            return Level::Base;
        }
        #[allow(unused_unsafe)]
        // SAFETY: leaf 1 exists (max_leaf ≥ 7).
        let ecx = unsafe { __cpuid(1) }.ecx;
        let (osxsave, avx) = (ecx & (1 << 27) != 0, ecx & (1 << 28) != 0);
        if !(osxsave && avx) {
            return Level::Base;
        }
        // SAFETY: OSXSAVE is set, so `xgetbv` is enabled.
        let xcr0 = unsafe { xcr0() };
        // XMM and YMM state saved by the operating system.
        if xcr0 & 0b110 != 0b110 {
            return Level::Base;
        }
        #[allow(unused_unsafe)]
        // SAFETY: leaf 7 exists (max_leaf ≥ 7).
        let ebx = unsafe { __cpuid_count(7, 0) }.ebx;
        if ebx & (1 << 5) == 0 {
            return Level::Base;
        }
        // AVX-512F, and the opmask and both halves of the ZMM state saved.
        if cfg!(sgs_avx512) && ebx & (1 << 16) != 0 && xcr0 & 0b1110_0000 == 0b1110_0000 {
            return Level::Avx512;
        }
        Level::Avx2
    }

    /// XCR0: which register states the operating system saves.
    ///
    /// # Safety
    /// The CPU must report OSXSAVE.
    #[target_feature(enable = "xsave")]
    unsafe fn xcr0() -> u64 {
        // SAFETY: the caller checked OSXSAVE.
        unsafe { _xgetbv(0) }
    }
}

/// `√x`, correctly rounded. Not `libm::sqrt` on x86-64: there it is inline assembly (a
/// legacy-SSE `sqrtsd`), which the compiler can neither vectorise nor encode as AVX, and inside
/// the AVX2 pair loop each one stalled on the SSE/AVX transition (full SVGD with the IMQ kernel at
/// β = ½ ran 3.3× slower than with `ln` and `exp`). The intrinsic is LLVM's `sqrt`:
/// vectorisable, VEX-encoded in AVX code, and correctly rounded like every IEEE square root, so
/// the bits are `libm::sqrt`'s (tested below).
#[inline(always)]
pub(crate) fn sqrt(x: f64) -> f64 {
    #[cfg(target_arch = "x86_64")]
    {
        sse::sqrt(x)
    }
    #[cfg(not(target_arch = "x86_64"))]
    libm::sqrt(x)
}

/// `√x` in `f32`, as [`sqrt`].
#[inline(always)]
pub(crate) fn sqrtf(x: f32) -> f32 {
    #[cfg(target_arch = "x86_64")]
    {
        sse::sqrtf(x)
    }
    #[cfg(not(target_arch = "x86_64"))]
    libm::sqrtf(x)
}

/// The SSE square roots (x86-64's baseline).
#[cfg(target_arch = "x86_64")]
mod sse {
    use core::arch::x86_64::{_mm_cvtsd_f64, _mm_cvtss_f32, _mm_set_sd, _mm_set_ss};
    use core::arch::x86_64::{_mm_sqrt_pd, _mm_sqrt_ps};

    #[inline(always)]
    pub(super) fn sqrt(x: f64) -> f64 {
        // SAFETY: SSE2 is part of x86-64's baseline instruction set.
        #[allow(unused_unsafe)]
        unsafe {
            _mm_cvtsd_f64(_mm_sqrt_pd(_mm_set_sd(x)))
        }
    }

    #[inline(always)]
    pub(super) fn sqrtf(x: f32) -> f32 {
        // SAFETY: SSE is part of x86-64's baseline instruction set.
        #[allow(unused_unsafe)]
        unsafe {
            _mm_cvtss_f32(_mm_sqrt_ps(_mm_set_ss(x)))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    /// Values where square roots go wrong: zeros of both signs, subnormals, the extremes,
    /// infinities, NaN and negatives, then random bit patterns over every exponent.
    fn values() -> impl Iterator<Item = u64> {
        let special = [
            0.0,
            -0.0,
            1.0,
            2.0,
            0.25,
            f64::MIN_POSITIVE,
            5e-324,
            f64::MAX,
            -1.0,
        ];
        let mut rng = Rng::new(3, 9);
        let specials = special
            .into_iter()
            .chain([f64::INFINITY, f64::NEG_INFINITY, f64::NAN])
            .map(f64::to_bits);
        specials.chain((0..200_000).map(move |_| rng.next_u64()))
    }

    /// The form the host chooses against the portable one (libm's), bit for bit, in both types:
    /// on x86-64 the SSE intrinsic, elsewhere the same call twice.
    #[test]
    fn square_roots_are_libms_bit_for_bit() {
        for b in values() {
            let x = f64::from_bits(b);
            let (got, want) = (sqrt(x), libm::sqrt(x));
            assert!(
                got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()),
                "{x:e}"
            );
            let y = f32::from_bits(b as u32);
            let (got, want) = (sqrtf(y), libm::sqrtf(y));
            assert!(
                got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()),
                "{y:e}"
            );
        }
    }

    /// The level is the same every time it is asked (checked once), and the base level is
    /// always below the others (the copies' `min` relies on the order).
    #[test]
    fn the_level_is_stable_and_ordered() {
        let first = level();
        assert!((0..4).all(|_| level() == first));
        assert!(Level::Base < Level::Avx2 && Level::Avx2 < Level::Avx512);
    }
}
