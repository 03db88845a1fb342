//! The library's random numbers: one generator, a handful of exact primitives, a documented
//! consumption order.
//!
//! # Contract
//!
//! [`Rng`] is PCG64-DXSM (`rand_pcg::Lcg128CmDxsm64`: 128-bit LCG state with the 64-bit "cheap"
//! multiplier, 64-bit DXSM output) and is the only source of randomness in the crate. Every value
//! below is a pure function of the `(seed, stream)` pair and of how many 64-bit words were
//! consumed before it, on every target, in every build:
//!
//! | primitive | words consumed | definition |
//! |---|---|---|
//! | [`Rng::next_u64`] | 1 | the PCG output |
//! | [`Rng::next_u32`] | 1 | the high half of one word, `next_u64() >> 32` |
//! | [`Rng::uniform_f64`] | 1 | `(next_u64() >> 11) · 2⁻⁵³`, in `[0, 1)` |
//! | [`Rng::uniform_f32`] | 1 | `(next_u32() >> 8) · 2⁻²⁴`, in `[0, 1)` |
//! | [`Rng::below`] | ≥ 1 | exact integer in `[0, n)` by Lemire's multiply-and-reject |
//! | [`Rng::normal`] | ≥ 1 | exact N(0, 1) by a 128-layer Ziggurat (one word per attempt) |
//!
//! Independent chains use the same seed with different stream ids: all 64 bits of `stream` select
//! the PCG increment `2·stream + 1`. The starting state is the first two SplitMix64 outputs from
//! `seed ^ splitmix64(stream)`, so that two streams never start from related states.
//!
//! # Why the arithmetic is written here
//!
//! The generator is the one `rand_pcg` defines (a test compares every output with
//! `rand_pcg::Lcg128CmDxsm64`), but its state is held as 64-bit words: `rand_pcg` stores it as
//! `u128`, which is 16-byte aligned on x86-64, and the C API's opaque states are arrays of
//! `uint64_t` (8-byte alignment, the same on every target). Holding the stream id rather than
//! the increment keeps the generator at 24 bytes.

/// The PCG64-DXSM multiplier (the LCG's and the output permutation's).
const MUL: u64 = 0xda94_2042_e4dd_58b5;

/// The sampler's random-number generator. `Clone` so that a step can roll it back when a
/// callback aborts (the retried step then sees the same draws).
#[derive(Clone, Debug)]
pub struct Rng {
    /// LCG state, low and high halves.
    lo: u64,
    hi: u64,
    /// The stream id; the LCG increment is `2·stream + 1`.
    stream: u64,
}

// Every (state, stream) pair is a generator: nothing to validate.
#[cfg(feature = "ffi")]
crate::wire::wire_struct!(Rng { lo, hi, stream });

/// The generator's position in its stream (the 128-bit state without the stream id, which never
/// changes): what a step saves to roll the generator back, 16 bytes instead of the 24 of a clone
/// (the SVGD step keeps two on the stack; see `Rng::checkpoint`), and what the Ziggurat's rare
/// path hands back (see `ziggurat::normal`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Checkpoint {
    lo: u64,
    hi: u64,
}

#[cfg(feature = "ffi")]
impl Checkpoint {
    /// As two plain words (state low, high).
    #[inline]
    pub(crate) fn to_words(self) -> [u64; 2] {
        [self.lo, self.hi]
    }

    /// Back from [`Checkpoint::to_words`].
    #[inline]
    pub(crate) fn from_words([lo, hi]: [u64; 2]) -> Self {
        Checkpoint { lo, hi }
    }
}

/// The SplitMix64 finaliser (Steele, Lea & Flood 2014): a bijection of `u64` that scatters nearby
/// seeds far apart.
pub const fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(GOLDEN_GAMMA);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// SplitMix64's increment: `splitmix64(x + GOLDEN_GAMMA)` is the output after `splitmix64(x)`.
const GOLDEN_GAMMA: u64 = 0x9e37_79b9_7f4a_7c15;

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
        let s = seed ^ splitmix64(stream);
        let state =
            (splitmix64(s) as u128) | ((splitmix64(s.wrapping_add(GOLDEN_GAMMA)) as u128) << 64);
        let mut rng = Rng {
            lo: 0,
            hi: 0,
            stream,
        };
        // As `rand_pcg`'s `new(state, stream)`: add the increment, then one LCG step.
        rng.set(state.wrapping_add(rng.increment()));
        rng.step();
        rng
    }

    #[inline(always)]
    fn increment(&self) -> u128 {
        ((self.stream as u128) << 1) | 1
    }

    #[inline(always)]
    fn state(&self) -> u128 {
        (self.lo as u128) | ((self.hi as u128) << 64)
    }

    #[inline(always)]
    fn set(&mut self, state: u128) {
        self.lo = state as u64;
        self.hi = (state >> 64) as u64;
    }

    /// One LCG step with the 64-bit multiplier (a 128×64-bit product).
    #[inline(always)]
    fn step(&mut self) {
        let next = self
            .state()
            .wrapping_mul(MUL as u128)
            .wrapping_add(self.increment());
        self.set(next);
    }

    /// One 64-bit word: the DXSM permutation of the current state, then one LCG step.
    ///
    /// Inlined on hosted targets; one out-of-line copy on bare metal, where its ~45 Thumb
    /// instructions at every call site would cost flash (see `ziggurat::normal`).
    #[cfg_attr(not(target_os = "none"), inline)]
    #[cfg_attr(target_os = "none", inline(never))]
    pub fn next_u64(&mut self) -> u64 {
        let mut hi = self.hi;
        let lo = self.lo | 1;
        self.step();
        hi ^= hi >> 32;
        hi = hi.wrapping_mul(MUL);
        hi ^= hi >> 48;
        hi.wrapping_mul(lo)
    }

    /// Where the generator is now; [`Rng::restore`] goes back there.
    #[inline]
    pub(crate) fn checkpoint(&self) -> Checkpoint {
        Checkpoint {
            lo: self.lo,
            hi: self.hi,
        }
    }

    /// The stream id this generator was made with.
    #[inline]
    pub(crate) fn stream(&self) -> u64 {
        self.stream
    }

    /// The generator of `stream` at position `at`.
    #[inline]
    pub(crate) fn resume(at: Checkpoint, stream: u64) -> Self {
        Rng {
            lo: at.lo,
            hi: at.hi,
            stream,
        }
    }

    /// Back to a checkpoint taken from this generator (same stream).
    #[inline]
    pub(crate) fn restore(&mut self, at: Checkpoint) {
        self.lo = at.lo;
        self.hi = at.hi;
    }

    /// The high 32 bits of one word.
    #[inline]
    pub fn next_u32(&mut self) -> u32 {
        (self.next_u64() >> 32) as u32
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
    /// One word per attempt, by Lemire's method (2019): for `n ≤ 2³²` the high half of
    /// `next_u32() · n`, otherwise of `next_u64() · n`, rejecting the `2^k mod n` low values that
    /// would bias it. The rejection probability is below `n / 2^k`.
    pub fn below(&mut self, n: u64) -> u64 {
        self.below_inlined(n)
    }

    /// [`below`](Self::below), always inlined: for loops that draw many (the permutation of an
    /// SVGD iteration), on a generator copied into a local so that its state stays in
    /// registers instead of going through memory at every draw.
    #[inline(always)]
    pub(crate) fn below_inlined(&mut self, n: u64) -> u64 {
        if n == 0 {
            return 0;
        }
        // The threshold `2^k mod n` is below n, so a low half `≥ n` is accepted without it: the
        // division (tens of cycles; a library call on Cortex-M) runs only for the rare low half
        // below n, with the same accept/reject decisions, so the same draws and the same values.
        if n <= 1 << 32 {
            loop {
                let m = self.next_u32() as u64 * n;
                let low = m & 0xffff_ffff;
                if low >= n || low >= (1u64 << 32) % n {
                    return m >> 32;
                }
            }
        } else {
            loop {
                let m = self.next_u64() as u128 * n as u128;
                let low = m as u64;
                if low >= n || low >= n.wrapping_neg() % n {
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

    /// Fills `out` with N(0, 1) draws: the same values, in the same order, as `out.len()` calls
    /// of [`Rng::normal`], but faster in a loop: the generator is copied into a local for the
    /// loop, so that its state stays in registers instead of being stored and reloaded through
    /// `self` at every draw.
    ///
    /// ```
    /// use sgsample::Rng;
    /// let mut a = Rng::new(7, 0);
    /// let mut b = a.clone();
    /// let mut out = [0.0; 5];
    /// a.fill_normal(&mut out);
    /// assert!(out.iter().all(|&z| z.to_bits() == b.normal().to_bits()));
    /// ```
    pub fn fill_normal(&mut self, out: &mut [f64]) {
        let mut local = self.clone();
        for v in out.iter_mut() {
            *v = local.normal();
        }
        *self = local;
    }

    /// N(0, 1) rounded to the coordinate type: the `f64` draw, then one rounding. The `f32` and
    /// `f64` samplers therefore consume the stream identically.
    #[inline]
    pub fn normal_as<T: crate::Float>(&mut self) -> T {
        T::from_f64(self.normal())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_core::Rng as _;

    /// The words are `rand_pcg`'s PCG64-DXSM, started as `Lcg128CmDxsm64::new(state, stream)`.
    #[test]
    fn same_words_as_rand_pcg() {
        for &(seed, stream) in &[
            (0u64, 0u64),
            (42, 1),
            (2020, 7),
            (u64::MAX, u64::MAX),
            (1, 1 << 63),
        ] {
            let s = seed ^ splitmix64(stream);
            let state = (splitmix64(s) as u128)
                | ((splitmix64(s.wrapping_add(GOLDEN_GAMMA)) as u128) << 64);
            let mut oracle = rand_pcg::Lcg128CmDxsm64::new(state, stream as u128);
            let mut ours = Rng::new(seed, stream);
            for _ in 0..1000 {
                assert_eq!(
                    ours.next_u64(),
                    oracle.next_u64(),
                    "seed {seed} stream {stream}"
                );
            }
        }
    }
}
