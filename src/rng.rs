//! The library's random numbers: one generator, a handful of exact primitives, a documented
//! consumption order.
//!
//! # Contract
//!
//! [`Rng`] wraps `rand_pcg::Pcg32` (PCG-XSH-RR, 64-bit state, 32-bit output) and is the only
//! source of randomness in the crate. Every value below is a pure function of the `(seed, stream)`
//! pair and of how many words were consumed before it, on every target, in every build:
//!
//! | primitive | words consumed | definition |
//! |---|---|---|
//! | [`Rng::next_u32`] | 1 | the PCG output |
//! | [`Rng::next_u64`] | 2 | `lo | hi << 32`, low word drawn first |
//! | [`Rng::uniform_f64`] | 2 | `(next_u64() >> 11) · 2⁻⁵³`, in `[0, 1)` |
//! | [`Rng::uniform_f32`] | 1 | `(next_u32() >> 8) · 2⁻²⁴`, in `[0, 1)` |
//! | [`Rng::below`] | ≥ 1 or ≥ 2 | exact integer in `[0, n)` by Lemire's multiply-and-reject |
//! | [`Rng::normal`] | ≥ 2 | exact N(0, 1) by a 128-layer Ziggurat |
//!
//! Independent chains use the same seed with different stream ids (the low 63 bits of `stream`
//! select the PCG increment; the top bit is ignored). Because PCG streams that share a state are
//! correlated, the starting state is `splitmix64(seed ^ splitmix64(stream))`, not `seed` itself.

use rand_core::Rng as _;
use rand_pcg::Pcg32;

/// The sampler's random-number generator. `Clone` so that a step can roll it back when a
/// callback aborts (the retried step then sees the same draws).
#[derive(Clone, Debug)]
pub struct Rng {
    pcg: Pcg32,
}

/// The SplitMix64 finaliser (Steele, Lea & Flood 2014): a bijection of `u64` that scatters nearby
/// seeds far apart.
pub const fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl Rng {
    /// The generator for `(seed, stream)`. Same pair, same sequence, everywhere.
    ///
    /// ```
    /// use sgsample::Rng;
    /// let mut a = Rng::new(42, 0);
    /// let mut b = Rng::new(42, 0);
    /// assert_eq!(a.next_u64(), b.next_u64());
    /// assert_ne!(Rng::new(42, 1).next_u64(), Rng::new(42, 0).next_u64());
    /// ```
    pub fn new(seed: u64, stream: u64) -> Self {
        let state = splitmix64(seed ^ splitmix64(stream));
        Rng {
            pcg: Pcg32::new(state, stream),
        }
    }

    /// One 32-bit word.
    #[inline]
    pub fn next_u32(&mut self) -> u32 {
        self.pcg.next_u32()
    }

    /// Two words, low first: `lo | (hi << 32)`. Written out here rather than taken from
    /// `rand_core` so that the composition is part of this crate's contract.
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        let lo = self.next_u32() as u64;
        let hi = self.next_u32() as u64;
        lo | (hi << 32)
    }

    /// Uniform in `[0, 1)` with 53 random bits.
    #[inline]
    pub fn uniform_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / 9007199254740992.0)
    }

    /// Uniform in `[0, 1)` with 24 random bits.
    #[inline]
    pub fn uniform_f32(&mut self) -> f32 {
        (self.next_u32() >> 8) as f32 * (1.0 / 16777216.0)
    }

    /// Exactly uniform integer in `[0, n)`; `n = 0` returns 0 without drawing.
    ///
    /// For `n ≤ 2³²` one 32-bit word per attempt, otherwise one 64-bit word per attempt, by
    /// Lemire's method (2019): the high half of `word · n`, rejecting the `2^k mod n` low values
    /// that would bias it. The rejection probability is below `n / 2^k`.
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            return 0;
        }
        if n <= 1 << 32 {
            let threshold = (1u64 << 32) % n;
            loop {
                let m = self.next_u32() as u64 * n;
                if (m & 0xffff_ffff) >= threshold {
                    return m >> 32;
                }
            }
        } else {
            let threshold = n.wrapping_neg() % n;
            loop {
                let m = self.next_u64() as u128 * n as u128;
                if (m as u64) >= threshold {
                    return (m >> 64) as u64;
                }
            }
        }
    }

    /// Exact N(0, 1) draw (Ziggurat, 128 layers; see the module docs for the words consumed).
    #[inline]
    pub fn normal(&mut self) -> f64 {
        crate::ziggurat::normal(self)
    }

    /// N(0, 1) rounded to the coordinate type: the `f64` draw, then one rounding. The `f32` and
    /// `f64` samplers therefore consume the stream identically.
    #[inline]
    pub fn normal_as<T: crate::Float>(&mut self) -> T {
        T::from_f64(self.normal())
    }
}
