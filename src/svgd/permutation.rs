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

/// `f(x, radix) = (h·radix) >> 32` with `h = (m·x + c mod 2^64) >> 32` (`x < 2^32`,
/// `radix ≤ 2^32`): one 64-bit multiply where the target has them, else [`hash_pieces`].
#[inline(always)]
fn hash(k: [u64; 2], x: u64, radix: u64) -> u64 {
    if cfg!(target_pointer_width = "64") {
        hash_wide(k, x, radix)
    } else {
        hash_pieces(k, x, radix)
    }
}

/// [`hash`] with a 64-bit multiply.
#[inline(always)]
fn hash_wide([m, c]: [u64; 2], x: u64, radix: u64) -> u64 {
    let h = m.wrapping_mul(x).wrapping_add(c) >> 32;
    // h < 2^32 and radix ≤ 2^32: the product fits.
    (h * radix) >> 32
}

/// [`hash`] in 32-bit pieces: `h` is bits 32..63 of `(m_hi·x + c_hi)·2^32 + (m_lo·x + c_lo)`,
/// where `m_lo·x + c_lo < 2^64`. The same bits as [`hash_wide`], but each product is 32 × 32 →
/// 64 bits, which 32-bit processors multiply in one instruction and vector units lane by lane
/// (x86-64's `pmuludq`, as the vector copies below compute it).
#[inline(always)]
fn hash_pieces([m, c]: [u64; 2], x: u64, radix: u64) -> u64 {
    const LO: u64 = 0xffff_ffff;
    let x = x & LO;
    let low = (m & LO) * x + (c & LO);
    let h = ((m >> 32) * x + (c >> 32) + (low >> 32)) & LO;
    (h * radix) >> 32
}

/// One round on `(l, r)`, `l` of radix `ml`: `(r, (l + f(r, ml)) mod ml)`.
#[inline(always)]
fn round(k: [u64; 2], l: u64, r: u64, ml: u64) -> (u64, u64) {
    let t = l + hash(k, r, ml);
    (r, if t >= ml { t - ml } else { t })
}

/// One round backwards: `(l, r)` from round `(r, (l + f(r, ml)) mod ml)`'s output, `ml` the
/// radix the round updated.
#[inline(always)]
fn round_back(k: [u64; 2], l: u64, r: u64, ml: u64) -> (u64, u64) {
    let f = hash(k, l, ml);
    // r < ml and f < ml: (r − f) mod ml without a division.
    let left = if r >= f { r - f } else { r + ml - f };
    (left, l)
}

/// Slots evaluated side by side by [`Feistel::fill`]: independent chains of rounds that the
/// processor overlaps (one chain at a time waits on each round's multiplies).
#[cfg(not(target_os = "none"))]
const LANES: usize = 8;

/// Slots evaluated side by side by the vector copies of [`Feistel::fill`]: 4 or 8 vectors of
/// independent lanes, whose rounds the processor overlaps.
#[cfg(all(target_arch = "x86_64", not(miri)))]
const VECTOR_LANES: usize = 32;

/// `(x div d, x mod d)` for `d ≥ 1` (0 is taken as 1).
#[cfg(all(target_arch = "x86_64", not(miri)))]
fn split_by(x: u64, d: u64) -> (u64, u64) {
    let d = d.max(1);
    (x / d, x % d)
}

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
        self.pass::<true>(first, out);
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
        self.pass::<false>(first, out);
    }

    /// `out[j] = invert(first + j)` when `INVERSE`, else `apply(first + j)`: on hosts in blocks
    /// of [`LANES`] (the vector unit's copy [`level`](crate::arch::level) chooses), elsewhere
    /// value by value.
    #[inline(always)]
    fn pass<const INVERSE: bool>(&self, first: u64, out: &mut [u32]) {
        #[cfg(not(target_os = "none"))]
        match crate::arch::level() {
            // SAFETY: the level is one this CPU supports.
            #[cfg(all(target_arch = "x86_64", not(miri), sgs_avx512))]
            crate::arch::Level::Avx512 => unsafe {
                x86::blocked_avx512::<INVERSE>(self, first, out)
            },
            // SAFETY: as above.
            #[cfg(all(target_arch = "x86_64", not(miri)))]
            crate::arch::Level::Avx2 => unsafe { x86::blocked_avx2::<INVERSE>(self, first, out) },
            _ => self.blocked::<INVERSE, 0>(first, out),
        }
        #[cfg(target_os = "none")]
        for (j, o) in out.iter_mut().enumerate() {
            *o = self.one::<INVERSE>(first.wrapping_add(j as u64)) as u32;
        }
    }

    /// `invert(s)` when `INVERSE`, else `apply(s)`.
    #[inline(always)]
    fn one<const INVERSE: bool>(&self, s: u64) -> u64 {
        if INVERSE {
            self.invert(s)
        } else {
            self.apply(s)
        }
    }

    /// The network (backwards when `INVERSE`) on [`LANES`] pairs side by side, with the cached
    /// round keys: one round of every lane at a time, which vector units compute together.
    #[cfg(not(target_os = "none"))]
    #[inline(always)]
    fn lanes<const INVERSE: bool>(&self, l: &mut [u64; LANES], r: &mut [u64; LANES]) {
        let keys = self.keys.get(..self.rounds).unwrap_or(&[]);
        if INVERSE {
            // Round i updated the radix a when i is even; the last round is odd (even count).
            let mut radix = [self.a, self.b];
            for &k in keys.iter().rev() {
                let ml = radix[1];
                for j in 0..LANES {
                    (l[j], r[j]) = round_back(k, l[j], r[j], ml);
                }
                radix.swap(0, 1);
            }
        } else {
            let mut radix = [self.a, self.b];
            for &k in keys {
                let ml = radix[0];
                for j in 0..LANES {
                    (l[j], r[j]) = round(k, l[j], r[j], ml);
                }
                radix.swap(0, 1);
            }
        }
    }

    /// [`pass`](Self::pass) on hosts: [`LANES`] consecutive values at a time, their pairs
    /// `(l, r)` stepped along instead of divided out, each value's cycle walk finished on its
    /// own; value by value where a block would pass `n`, and for the last few.
    #[cfg(not(target_os = "none"))]
    #[inline(always)]
    fn blocked<const INVERSE: bool, const W: u8>(&self, first: u64, out: &mut [u32]) {
        // The vector copies take whole blocks of VECTOR_LANES first.
        let done = match W {
            // SAFETY: `W` is 1 only in the AVX2 copy, which runs on CPUs with AVX2.
            #[cfg(all(target_arch = "x86_64", not(miri)))]
            1 => unsafe { x86::blocks_avx2::<INVERSE>(self, first, out) },
            // SAFETY: `W` is 2 only in the AVX-512 copy, run on CPUs with AVX-512F.
            #[cfg(all(target_arch = "x86_64", not(miri), sgs_avx512))]
            2 => unsafe { x86::blocks_avx512::<INVERSE>(self, first, out) },
            _ => 0,
        };
        let Some(out) = out.get_mut(done..) else {
            return;
        };
        let mut s = first + done as u64;
        let blocked = out.len() / LANES * LANES;
        if s.saturating_add(blocked as u64) > self.n {
            for o in out {
                *o = self.one::<INVERSE>(s) as u32;
                s = s.wrapping_add(1);
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
            self.lanes::<INVERSE>(&mut l, &mut r);
            for ((o, &lj), &rj) in chunk.iter_mut().zip(&l).zip(&r) {
                *o = self.finish::<INVERSE>(lj * self.b + rj) as u32;
            }
            s += LANES as u64;
        }
        for o in chunks.into_remainder() {
            *o = self.one::<INVERSE>(s) as u32;
            s = s.wrapping_add(1);
        }
    }

    /// A network output's cycle walk (backwards when `INVERSE`) to a value below `n`.
    #[cfg(not(target_os = "none"))]
    #[inline(always)]
    fn finish<const INVERSE: bool>(&self, x: u64) -> u64 {
        if INVERSE {
            self.walk_back(x)
        } else {
            self.walk(x)
        }
    }
}

/// The AVX2 and AVX-512 copies of [`Feistel::blocked`] ([`level`](crate::arch::level) chooses):
/// the same arithmetic, each round's 32 × 32-bit products four or eight lanes to an instruction.
#[cfg(all(target_arch = "x86_64", not(miri)))]
mod x86 {
    use super::{split_by, Feistel, VECTOR_LANES};
    use core::arch::x86_64::*;

    /// # Safety
    /// The CPU must support AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn blocked_avx2<const INVERSE: bool>(
        f: &Feistel,
        first: u64,
        out: &mut [u32],
    ) {
        f.blocked::<INVERSE, 1>(first, out)
    }

    /// # Safety
    /// The CPU must support AVX-512F.
    #[cfg(sgs_avx512)]
    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn blocked_avx512<const INVERSE: bool>(
        f: &Feistel,
        first: u64,
        out: &mut [u32],
    ) {
        f.blocked::<INVERSE, 2>(first, out)
    }

    /// The blocks of [`VECTOR_LANES`] consecutive values from `first` that fit in `out` and
    /// below `n`, as `V` vectors of `u64` lanes (`V` times the vector's lanes =
    /// [`VECTOR_LANES`]); returns how many values it wrote. Each lane's pair `(L, R)` steps from
    /// block to block by `VECTOR_LANES = q·b + rem`: `R + rem`, less `b` with a carry into `L`
    /// when it reaches `b`. A round forwards maps `(L, R)` to `(R, min32(t, t − ml))`,
    /// `t = L + f(R)`: `t < 2·ml ≤ 2^17`, and the unsigned minimum of each 32-bit half picks
    /// `t − ml` when it did not wrap (both high halves 0, the low one smaller) and `t` when it
    /// did (its high half is then all ones). Backwards, `(L, R)` to `(min32(u, u + ml), L)`,
    /// `u = R − f(L)`, by the same argument. The hash is [`hash`]'s three 32 × 32-bit products
    /// (`mul_epu32` reads each lane's low half).
    macro_rules! vector_blocks {
        ($(#[$attr:meta])* $name:ident, $feature:literal, $v:ty, $width:literal, $load:ident,
         $store:ident, $set1:ident, $mul:ident, $add:ident, $sub:ident, $srli:ident,
         $min:ident) => {
            /// # Safety
            /// The CPU must support the feature.
            $(#[$attr])*
            #[target_feature(enable = $feature)]
            #[inline]
            pub(super) unsafe fn $name<const INVERSE: bool>(
                f: &Feistel,
                first: u64,
                out: &mut [u32],
            ) -> usize {
                const V: usize = VECTOR_LANES / $width;
                let blocks = (out.len() / VECTOR_LANES)
                    .min((f.n.saturating_sub(first) / VECTOR_LANES as u64) as usize);
                if blocks == 0 {
                    return 0;
                }
                let s = |x: u64| $set1(x as i64);
                let (mut l0, mut r0) = ([0u64; VECTOR_LANES], [0u64; VECTOR_LANES]);
                let (mut l, mut r) = f.split(first);
                for (lj, rj) in l0.iter_mut().zip(r0.iter_mut()) {
                    (*lj, *rj) = (l, r);
                    r += 1;
                    if r == f.b {
                        (l, r) = (l + 1, 0);
                    }
                }
                let load = |a: &[u64; VECTOR_LANES], v: usize| -> $v {
                    // SAFETY: entries width·v .. width·(v + 1) of the array (v < V), an
                    // unaligned load.
                    unsafe { $load(a.as_ptr().add($width * v).cast()) }
                };
                let mut lv: [$v; V] = core::array::from_fn(|v| load(&l0, v));
                let mut rv: [$v; V] = core::array::from_fn(|v| load(&r0, v));
                let (q, rem) = split_by(VECTOR_LANES as u64, f.b);
                let (qv, remv, bv) = (s(q + 1), s(rem), s(f.b));
                let keys = f.keys.get(..f.rounds).unwrap_or(&[]);
                let round_keys = |[m, c]: [u64; 2], ml: u64| {
                    let lo = 0xffff_ffffu64;
                    (s(m & lo), s(m >> 32), s(c & lo), s(c >> 32), s(ml))
                };
                let hash = |(mlo, mhi, clo, chi, _): ($v, $v, $v, $v, $v), x: $v| {
                    let low = $add($mul(mlo, x), clo);
                    $add($add($mul(mhi, x), chi), $srli::<32>(low))
                };
                let mut xs = [0u64; VECTOR_LANES];
                for block in out.chunks_exact_mut(VECTOR_LANES).take(blocks) {
                    let (mut a, mut b) = (lv, rv);
                    let mut radix = [f.a, f.b];
                    if INVERSE {
                        for &k in keys.iter().rev() {
                            let ks = round_keys(k, radix[1]);
                            for v in 0..V {
                                let fv = $srli::<32>($mul(hash(ks, a[v]), ks.4));
                                let u = $sub(b[v], fv);
                                (a[v], b[v]) = ($min(u, $add(u, ks.4)), a[v]);
                            }
                            radix.swap(0, 1);
                        }
                    } else {
                        for &k in keys {
                            let ks = round_keys(k, radix[0]);
                            for v in 0..V {
                                let fv = $srli::<32>($mul(hash(ks, b[v]), ks.4));
                                let t = $add(a[v], fv);
                                (a[v], b[v]) = (b[v], $min(t, $sub(t, ks.4)));
                            }
                            radix.swap(0, 1);
                        }
                    }
                    for v in 0..V {
                        let x = $add($mul(a[v], bv), b[v]);
                        // SAFETY: entries width·v .. width·(v + 1) of `xs` (v < V), unaligned.
                        unsafe { $store(xs.as_mut_ptr().add($width * v).cast(), x) };
                        // The next block's pairs: R + rem − b when that is not negative.
                        let t = $sub($add(rv[v], remv), bv);
                        let wrapped = $srli::<63>(t);
                        rv[v] = $min(t, $add(t, bv));
                        lv[v] = $sub($add(lv[v], qv), wrapped);
                    }
                    for (o, &x) in block.iter_mut().zip(&xs) {
                        *o = f.finish::<INVERSE>(x) as u32;
                    }
                }
                blocks * VECTOR_LANES
            }
        };
    }

    vector_blocks!(
        blocks_avx2,
        "avx2",
        __m256i,
        4,
        _mm256_loadu_si256,
        _mm256_storeu_si256,
        _mm256_set1_epi64x,
        _mm256_mul_epu32,
        _mm256_add_epi64,
        _mm256_sub_epi64,
        _mm256_srli_epi64,
        _mm256_min_epu32
    );

    // build.rs sets `sgs_avx512` only for compilers (1.89 on) where these intrinsics are stable.
    #[cfg(sgs_avx512)]
    vector_blocks!(
        #[allow(clippy::incompatible_msrv)]
        blocks_avx512,
        "avx512f",
        __m512i,
        8,
        _mm512_loadu_si512,
        _mm512_storeu_si512,
        _mm512_set1_epi64,
        _mm512_mul_epu32,
        _mm512_add_epi64,
        _mm512_sub_epi64,
        _mm512_srli_epi64,
        _mm512_min_epu32
    );
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

    /// Every copy of the blocked passes this CPU runs (portable, AVX2, AVX-512), not only the
    /// one [`level`](crate::arch::level) picks, gives `apply`'s and `invert`'s values: for N
    /// of sixteen rounds and of eight, radices below the vector block (so that a lane's `R`
    /// wraps more than once per block), blocks that stop short of `n`, and any start.
    #[test]
    fn every_copy_is_apply() {
        type Pass = fn(&Feistel, u64, &mut [u32]);
        let mut passes: Vec<(&str, Pass, Pass)> = vec![(
            "portable",
            |f, s, o| f.blocked::<false, 0>(s, o),
            |f, s, o| f.blocked::<true, 0>(s, o),
        )];
        #[cfg(all(target_arch = "x86_64", not(miri)))]
        if crate::arch::level() >= crate::arch::Level::Avx2 {
            // SAFETY: this CPU has AVX2 (checked above).
            passes.push((
                "avx2",
                |f, s, o| unsafe { x86::blocked_avx2::<false>(f, s, o) },
                |f, s, o| unsafe { x86::blocked_avx2::<true>(f, s, o) },
            ));
        }
        #[cfg(all(target_arch = "x86_64", not(miri), sgs_avx512))]
        if crate::arch::level() >= crate::arch::Level::Avx512 {
            // SAFETY: this CPU has AVX-512F (checked above).
            passes.push((
                "avx512",
                |f, s, o| unsafe { x86::blocked_avx512::<false>(f, s, o) },
                |f, s, o| unsafe { x86::blocked_avx512::<true>(f, s, o) },
            ));
        }
        for n in [
            1u64, 7, 31, 32, 33, 64, 100, 255, 256, 257, 1000, 1089, 4099, 65_536, 1_000_003,
        ] {
            for key in [0x5eedu64, 7] {
                let f = Feistel::new(key, n);
                for first in [0u64, 1, 5, 31, n / 3, n.saturating_sub(40)] {
                    let len = (n - first.min(n)) as usize + 3;
                    for (name, fill, invert) in &passes {
                        let (mut out, mut back) = (vec![0u32; len], vec![0u32; len]);
                        fill(&f, first, &mut out);
                        invert(&f, first, &mut back);
                        for (j, (&v, &w)) in out.iter().zip(&back).enumerate() {
                            let s = first + j as u64;
                            assert_eq!(v as u64, f.apply(s), "{name} n {n} first {first} j {j}");
                            assert_eq!(w as u64, f.invert(s), "{name} n {n} first {first} j {j}");
                        }
                    }
                }
            }
        }
    }

    /// The hash in 32-bit pieces (32-bit targets, and the vector copies' arithmetic) is the
    /// 64-bit one, at the edges of its arguments and at random.
    #[test]
    fn hash_forms_agree() {
        let mut rng = crate::rng::Rng::new(0x5eed, 0);
        let mut next = || rng.next_u64();
        let edges = [0u64, 1, u64::MAX, u64::MAX - 1, 1 << 32, (1 << 32) - 1];
        for _ in 0..20_000 {
            let (m, c) = (next(), next());
            for k in [[m, c], [edges[(m % 6) as usize], edges[(c % 6) as usize]]] {
                for v in [next() >> 47, (1 << 17) - 1, 0, next() >> 32] {
                    for radix in [1u64, 2, next() >> 48, 1 << 16, 1 << 32] {
                        assert_eq!(hash_wide(k, v, radix), hash_pieces(k, v, radix));
                    }
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
