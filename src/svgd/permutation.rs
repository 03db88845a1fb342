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

/// Rounds of [`Feistel`] for N above [`SMALL_N`]. Each round's function is drawn from a strongly
/// universal family, so a few rounds suffice once the radices are large; tests/svgd_permutation.rs
/// checks slot occupancy and batch-mate pairs at N = 300 and 520 with these, and four rounds fail
/// there.
const ROUNDS: usize = 8;

/// Rounds of [`Feistel`] for N up to [`SMALL_N`], where the radices are a few values and a round
/// mixes little: eight were measurably non-uniform at N = 5 (slot occupancy χ² 64 against a
/// limit of 50 in tests/svgd_permutation.rs), sixteen pass down to N = 2.
const ROUNDS_SMALL: usize = 16;

/// The largest N that gets [`ROUNDS_SMALL`] rounds.
const SMALL_N: u64 = 256;

/// A keyed permutation of `0..n`: a Feistel network on the mixed-radix pairs `(l, r)`,
/// `l < a`, `r < b`, `b = ⌈√n⌉`, `a = ⌈n/b⌉` (so `n ≤ a·b < n + b`), value `l·b + r`. Round
/// `i` maps `(l, r)` to `(r, (l + f_i(r, A)) mod A)`, `A` the radix of `l`, so the radices
/// alternate and an even number of rounds ends on `(a, b)`; `f_i(r, A) = (h·A) >> 32` with
/// `h = (m_i·r + c_i mod 2^64) >> 32` (a multiply-add-shift hash, strongly universal over its
/// keys, reduced to `0..A` by a multiply), the round keys `m_i = splitmix64(key + 2i·γ)`,
/// `c_i = splitmix64(key + (2i + 1)·γ)` (γ the SplitMix64 increment, wrapping sums). Values at
/// or above `n` go through the network again (cycle walking), which happens with probability
/// below `1/a ≈ 1/√n` per slot. A bijection of `0..a·b` restricted by cycle walking is a
/// bijection of `0..n`.
#[derive(Clone, Copy, Debug)]
pub struct Feistel {
    key: u64,
    a: u64,
    b: u64,
    n: u64,
    rounds: usize,
    /// The round keys, computed once (hosts). Bare metal derives them in each pass instead: 256
    /// bytes on the stack of the RBM-SVGD step's deepest path otherwise (docs/footprint.md).
    #[cfg(not(target_os = "none"))]
    keys: [[u64; 2]; ROUNDS_SMALL],
}

/// Round `i`'s keys `(m_i, c_i)` for `key`.
#[inline(always)]
fn round_keys(key: u64, i: usize) -> [u64; 2] {
    let k = |j: u64| crate::rng::splitmix64(key.wrapping_add(j.wrapping_mul(GAMMA)));
    [k(2 * i as u64), k(2 * i as u64 + 1)]
}

/// One round on `(l, r)`, `l` of radix `ml`: `(r, (l + f(r, ml)) mod ml)`.
#[inline(always)]
fn round([m, c]: [u64; 2], l: u64, r: u64, ml: u64) -> (u64, u64) {
    let h = m.wrapping_mul(r).wrapping_add(c) >> 32;
    // h < 2^32 and ml ≤ b ≤ 2^16: the product fits.
    let f = (h * ml) >> 32;
    let t = l + f;
    (r, if t >= ml { t - ml } else { t })
}

/// One round backwards: `(l, r)` from round `(r, (l + f(r, ml)) mod ml)`'s output, `ml` the
/// radix the round updated.
#[inline(always)]
fn round_back([m, c]: [u64; 2], l: u64, r: u64, ml: u64) -> (u64, u64) {
    let h = m.wrapping_mul(l).wrapping_add(c) >> 32;
    let f = (h * ml) >> 32;
    // r < ml and f < ml: (r − f) mod ml without a division.
    let left = if r >= f { r - f } else { r + ml - f };
    (left, l)
}

/// Slots evaluated side by side by [`Feistel::fill`]: independent chains of rounds that the
/// processor overlaps (one chain at a time waits on each round's multiplies).
const LANES: usize = 8;

impl Feistel {
    /// The permutation of `0..n` for `key` (`1 ≤ n ≤ 2^32`: the permutations index particles
    /// by `u32`; `n` is clamped to that range).
    pub fn new(key: u64, n: u64) -> Self {
        let n = n.clamp(1, 1 << 32);
        // At least 1 (n ≥ 1), written out so that the compiler drops the division's zero check.
        let b = ceil_sqrt(n).max(1);
        let rounds = if n <= SMALL_N { ROUNDS_SMALL } else { ROUNDS };
        Feistel {
            key,
            a: n.div_ceil(b),
            b,
            n,
            rounds,
            #[cfg(not(target_os = "none"))]
            keys: core::array::from_fn(|i| round_keys(key, i)),
        }
    }

    #[inline(always)]
    fn keys(&self, i: usize) -> [u64; 2] {
        #[cfg(not(target_os = "none"))]
        if let Some(&k) = self.keys.get(i) {
            return k;
        }
        round_keys(self.key, i)
    }

    /// The network once on `(l, r)` (`l < a`, `r < b`).
    #[inline(always)]
    fn network(&self, mut l: u64, mut r: u64) -> u64 {
        let (mut ml, mut mr) = (self.a, self.b);
        for i in 0..self.rounds {
            (l, r) = round(self.keys(i), l, r, ml);
            (ml, mr) = (mr, ml);
        }
        l * self.b + r
    }

    /// The image of `s` (`s < n`; other values are returned as they are).
    #[inline]
    pub fn apply(&self, s: u64) -> u64 {
        if s >= self.n {
            return s;
        }
        let (l, r) = self.split(s);
        self.walk(self.network(l, r))
    }

    /// The preimage of `i`: the slot `s` with `apply(s) == i` (`i < n`; other values are
    /// returned as they are). The rounds backwards, then cycle walking backwards: a process
    /// that holds particles `lo..hi` finds their slots without evaluating the others'.
    ///
    /// ```
    /// use sgsample::svgd::Feistel;
    /// let f = Feistel::new(7, 1000);
    /// assert!((0..1000).all(|s| f.invert(f.apply(s)) == s));
    /// ```
    #[inline]
    pub fn invert(&self, i: u64) -> u64 {
        if i >= self.n {
            return i;
        }
        let (l, r) = self.split(i);
        self.walk_back(self.network_inverse(l, r))
    }

    /// Cycle walking backwards from an inverse network output `x`.
    #[inline(always)]
    fn walk_back(&self, mut x: u64) -> u64 {
        while x >= self.n {
            let (l, r) = self.split(x);
            x = self.network_inverse(l, r);
        }
        x
    }

    /// The radix round `i` updates: the left value's, `a` in even rounds and `b` in odd ones.
    #[inline(always)]
    fn radix(&self, i: usize) -> u64 {
        if i.is_multiple_of(2) {
            self.a
        } else {
            self.b
        }
    }

    /// `out[j] = invert(first + j)` for every `j` (entries past `n` get their own index), eight
    /// at a time on hosts as [`fill`](Self::fill) does: a process finds the slots of its block
    /// of particles.
    pub fn invert_fill(&self, first: u64, out: &mut [u32]) {
        let lanes = |l: &mut [u64; LANES], r: &mut [u64; LANES]| {
            for i in (0..self.rounds).rev() {
                let k = self.keys(i);
                let ml = self.radix(i);
                for (lj, rj) in l.iter_mut().zip(r.iter_mut()) {
                    (*lj, *rj) = round_back(k, *lj, *rj, ml);
                }
            }
        };
        self.blocked(first, out, |s| self.invert(s), lanes, |x| self.walk_back(x));
    }

    /// The network backwards on `(l, r)` (`l < a`, `r < b`): round `i` had `(l, r)` of radices
    /// `(a, b)` when `i` is even, `(b, a)` when odd, and gave `(r, (l + f_i(r, radix of l)))`.
    #[inline(always)]
    fn network_inverse(&self, mut l: u64, mut r: u64) -> u64 {
        for i in (0..self.rounds).rev() {
            (l, r) = round_back(self.keys(i), l, r, self.radix(i));
        }
        l * self.b + r
    }

    /// `(x div b, x mod b)` for `x < a·b ≤ 2^32`, in 32 bits: a 64-bit division would link a
    /// library routine on 32-bit targets.
    #[inline(always)]
    fn split(&self, x: u64) -> (u64, u64) {
        // b ≥ 1 always; the non-zero type spares the division its panic path.
        let Some(b) = core::num::NonZeroU32::new(self.b as u32) else {
            return (0, x);
        };
        let x = x as u32;
        ((x / b) as u64, (x % b) as u64)
    }

    /// Cycle walking from a network output `x`.
    #[inline(always)]
    fn walk(&self, mut x: u64) -> u64 {
        while x >= self.n {
            let (l, r) = self.split(x);
            x = self.network(l, r);
        }
        x
    }

    /// `out[j] = apply(first + j)` for every `j` (`first + out.len() ≤ n`; entries past `n` get
    /// their own index, as `apply` gives). The same values as `apply`, computed eight slots
    /// at a time on hosts, with the pairs `(l, r)` stepped along instead of divided out.
    pub fn fill(&self, first: u64, out: &mut [u32]) {
        let lanes = |l: &mut [u64; LANES], r: &mut [u64; LANES]| {
            let (mut ml, mut mr) = (self.a, self.b);
            for i in 0..self.rounds {
                let k = self.keys(i);
                for (lj, rj) in l.iter_mut().zip(r.iter_mut()) {
                    (*lj, *rj) = round(k, *lj, *rj, ml);
                }
                (ml, mr) = (mr, ml);
            }
        };
        self.blocked(first, out, |s| self.apply(s), lanes, |x| self.walk(x));
    }

    /// `out[j] = one(first + j)` for every `j`: on hosts eight at a time, the pairs `(l, r)` of
    /// consecutive values stepped along instead of divided out, `lanes` applying the network
    /// (forwards or backwards) to eight pairs side by side and `walk` finishing each value's
    /// cycle walk; elsewhere (and where a block would pass `n`) `one` value by value.
    #[inline(always)]
    fn blocked(
        &self,
        first: u64,
        out: &mut [u32],
        one: impl Fn(u64) -> u64,
        lanes: impl Fn(&mut [u64; LANES], &mut [u64; LANES]),
        walk: impl Fn(u64) -> u64,
    ) {
        let mut s = first;
        let blocked = out.len() / LANES * LANES;
        if !crate::arch::HOSTED || first.saturating_add(blocked as u64) > self.n {
            for o in out {
                *o = one(s) as u32;
                s += 1;
            }
            return;
        }
        let mut chunks = out.chunks_exact_mut(LANES);
        let (mut l0, mut r0) = self.split(s);
        for chunk in &mut chunks {
            let (mut l, mut r) = ([0u64; LANES], [0u64; LANES]);
            for (lj, rj) in l.iter_mut().zip(r.iter_mut()) {
                (*lj, *rj) = (l0, r0);
                r0 += 1;
                if r0 == self.b {
                    (l0, r0) = (l0 + 1, 0);
                }
            }
            lanes(&mut l, &mut r);
            for ((o, &lj), &rj) in chunk.iter_mut().zip(&l).zip(&r) {
                *o = walk(lj * self.b + rj) as u32;
            }
            s += LANES as u64;
        }
        for o in chunks.into_remainder() {
            *o = one(s) as u32;
            s += 1;
        }
    }
}

/// `⌈√n⌉` (`1 ≤ n ≤ 2^32`), exactly, in integers: a float square root would link soft-float
/// routines on targets without a double-precision unit.
fn ceil_sqrt(n: u64) -> u64 {
    // ⌊√n⌋ ≤ 2^16 bit by bit, then up by one unless n is a square.
    let mut r = 0u64;
    let mut bit = 1u64 << 16;
    while bit > 0 {
        if (r | bit) * (r | bit) <= n {
            r |= bit;
        }
        bit >>= 1;
    }
    if r * r < n {
        r + 1
    } else {
        r
    }
}

/// SplitMix64's increment, spacing the round keys.
const GAMMA: u64 = 0x9e37_79b9_7f4a_7c15;

/// The iteration's key (one draw), then `perm[s] = F(s)` for every slot. Out of line, so that
/// the network's state is not on `begin`'s frame, which is on the RBM-SVGD step's deepest
/// stack path (docs/footprint.md).
#[inline(never)]
pub(super) fn feistel_fill(rng: &mut Rng, perm: &mut [u32]) {
    Feistel::new(rng.next_u64(), perm.len() as u64).fill(0, perm);
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

    #[test]
    fn invert_is_the_inverse() {
        for n in (1..=300u64).chain([1023, 1025, 65_537]) {
            for key in [0u64, 9, 0xdead_beef] {
                let f = Feistel::new(key, n);
                for s in 0..n {
                    assert_eq!(f.invert(f.apply(s)), s, "n {n} key {key} s {s}");
                }
                assert_eq!(f.invert(n), n);
            }
        }
        let f = Feistel::new(3, 1 << 32);
        for s in [0u64, 1, (1 << 32) - 1, (1 << 31) + 12_345] {
            assert_eq!(f.invert(f.apply(s)), s);
        }
        // The blocked inverse gives `invert`'s values for any start and length.
        for n in [1u64, 7, 64, 65, 257, 4099, 65_536] {
            let f = Feistel::new(0x5eed, n);
            for first in [0u64, 1, 5, n / 3] {
                let mut out = vec![0u32; (n - first.min(n)) as usize + 3];
                f.invert_fill(first, &mut out);
                for (j, &v) in out.iter().enumerate() {
                    assert_eq!(
                        v as u64,
                        f.invert(first + j as u64),
                        "n {n} first {first} j {j}"
                    );
                }
            }
        }
    }

    /// The blocked fill gives `apply`'s values for any start and length, and the radices are
    /// the tightest pair (`n ≤ a·b < n + b`).
    #[test]
    fn fill_is_apply() {
        for n in [1u64, 2, 7, 63, 64, 65, 257, 1000, 4099, 65_536] {
            let f = Feistel::new(0x5eed, n);
            assert!(f.a * f.b >= n && f.a * f.b < n + f.b && f.a <= f.b, "n {n}");
            for first in [0u64, 1, 5, n / 3] {
                let len = (n - first.min(n)) as usize + 3;
                let mut out = vec![0u32; len];
                f.fill(first, &mut out);
                for (j, &v) in out.iter().enumerate() {
                    assert_eq!(
                        v as u64,
                        f.apply(first + j as u64),
                        "n {n} first {first} j {j}"
                    );
                }
            }
        }
    }

    /// The round keys the hosts cache are the ones bare metal derives in each pass.
    #[test]
    fn cached_keys_are_derived_keys() {
        let f = Feistel::new(42, 1000);
        for i in 0..ROUNDS_SMALL {
            assert_eq!(f.keys(i), round_keys(42, i));
        }
    }

    /// At the largest N (2^32, where `a·b = 2^32` and the 32-bit division is at its limit)
    /// values stay in range; a larger n is clamped to it.
    #[test]
    fn largest_n() {
        let f = Feistel::new(3, u64::MAX);
        assert_eq!((f.n, f.a, f.b), (1 << 32, 1 << 16, 1 << 16));
        for s in [0u64, 1, (1 << 32) - 1, (1 << 31) + 12_345] {
            assert!(f.apply(s) < 1 << 32);
        }
    }

    #[test]
    fn ceil_sqrt_is_exact() {
        for n in
            (1u64..=70_000).chain([(1 << 32) - 1, 1 << 32, 65_535 * 65_535, 65_535 * 65_535 + 1])
        {
            let b = ceil_sqrt(n);
            assert!(b * b >= n && (b - 1) * (b - 1) < n, "n {n}: {b}");
        }
    }
}
