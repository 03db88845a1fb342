//! The permutation draws of an iteration (module docs of [`super`], "Draw order").

use crate::rng::Rng;

/// `for t in 0..count { j = t + below(len − t); swap(perm[t], perm[j]) }`, on a local copy of
/// the generator (its state in registers: the draws are the serial part of an iteration).
pub(super) fn shuffle_prefix(rng: &mut Rng, perm: &mut [u32], count: usize) {
    let len = perm.len();
    let mut local = rng.clone();
    for t in 0..count.min(len) {
        let j = t + local.below_inlined((len - t) as u64) as usize;
        // Always true (`below(k) < k`); it lets the compiler drop the bounds check.
        if j < len {
            perm.swap(t, j);
        }
    }
    *rng = local;
}

/// How an iteration without replacement permutes the particles into batches.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Permutation {
    /// Forward Fisher–Yates on the identity with N − 1 bounded draws (the default; the only
    /// one before 0.5). Sequential: slot s is known only after the draws of slots before it.
    #[default]
    Shuffle,
    /// A keyed bijection of 0..N ([`Feistel`]) from one draw per iteration: slot s holds
    /// particle `Feistel::new(key, N).apply(s)`, which any thread or process can evaluate for
    /// its own slots alone, in O(1) expected time each.
    Feistel,
}

/// Rounds of [`Feistel`]. Luby and Rackoff's bound (three or four rounds make a pseudo-random
/// permutation) is asymptotic in the half width; the halves here are a few bits for small N,
/// where six rounds were measurably non-uniform (N = 12: the slot-occupancy χ² of
/// tests/svgd_permutation.rs 218 against a limit of 214, and RBM-SVGD's batch force biased at
/// 6.7 standard errors in tests/svgd_unbiased.rs). Twelve pass both.
const ROUNDS: usize = 12;

/// A keyed permutation of `0..n`: a balanced Feistel network on `2h` bits (`h` = half of
/// ⌈log₂ n⌉ rounded up, at least 1), whose round r maps `(L, R)` to `(R, L ⊕ F_r(R))` with
/// `F_r(R) = splitmix64(R ⊕ k_r) mod 2^h` and round keys `k_r = splitmix64(key + r·γ)` (γ the
/// SplitMix64 increment); values at or above n are walked through the network again (cycle
/// walking) until they fall in `0..n`, at most a few times on average since `2^(2h) < 4n`.
/// A bijection of `0..2^(2h)` restricted by cycle walking is a bijection of `0..n`.
#[derive(Clone, Copy, Debug)]
pub struct Feistel {
    /// The key; the round keys are derived from it in each pass (a few words on the stack
    /// instead of twelve: the fill runs under the RBM-SVGD step on Cortex-M).
    key: u64,
    half: u32,
    mask: u64,
    n: u64,
}

impl Feistel {
    /// The permutation of `0..n` for `key` (`n` ≥ 1).
    pub fn new(key: u64, n: u64) -> Self {
        let bits = 64 - n.saturating_sub(1).leading_zeros();
        let half = bits.div_ceil(2).max(1);
        Feistel {
            key,
            half,
            mask: (1u64 << half) - 1,
            n,
        }
    }

    /// The network once on a value of `2·half` bits.
    #[inline]
    fn network(&self, x: u64) -> u64 {
        let (mut l, mut r) = (x >> self.half, x & self.mask);
        for round in 0..ROUNDS as u64 {
            let k = crate::rng::splitmix64(self.key.wrapping_add(round.wrapping_mul(GAMMA)));
            let f = crate::rng::splitmix64(r ^ k) & self.mask;
            (l, r) = (r, l ^ f);
        }
        (l << self.half) | r
    }

    /// The image of `s` (`s < n`; other values are returned as they are).
    #[inline]
    pub fn apply(&self, s: u64) -> u64 {
        if s >= self.n {
            return s;
        }
        let mut x = self.network(s);
        while x >= self.n {
            x = self.network(x);
        }
        x
    }
}

/// SplitMix64's increment, spacing the round keys.
const GAMMA: u64 = 0x9e37_79b9_7f4a_7c15;

/// The iteration's key (one draw), then `perm[s] = F(s)` for every slot. Out of line, so that
/// the network's round keys are not on `begin`'s frame, which is on the RBM-SVGD step's deepest
/// stack path (docs/footprint.md).
#[inline(never)]
pub(super) fn feistel_fill(rng: &mut Rng, perm: &mut [u32]) {
    let f = Feistel::new(rng.next_u64(), perm.len() as u64);
    for (s, v) in perm.iter_mut().enumerate() {
        *v = f.apply(s as u64) as u32;
    }
}

#[cfg(test)]
mod feistel_tests {
    use super::*;

    #[test]
    fn a_bijection_for_every_n() {
        for n in (1..=300u64).chain([1023, 1024, 1025, 65_537]) {
            for key in [0u64, 1, 0xdead_beef] {
                let f = Feistel::new(key, n);
                let mut seen = vec![false; n as usize];
                for s in 0..n {
                    let v = f.apply(s);
                    assert!(v < n && !seen[v as usize], "n {n} key {key} s {s}");
                    seen[v as usize] = true;
                }
            }
        }
    }
}
