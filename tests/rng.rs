//! The random-number contract: fixed output vectors (any change to the generator, its seeding,
//! the word order or a primitive breaks them), the words against numpy's PCG64DXSM, and
//! statistical tests of every primitive against exact distributions.

use sgsample::{minibatch, Error, Rng};

#[test]
fn value_stability() {
    // next_u32 is the high half of one 64-bit word (the words are checked against numpy below).
    let mut r = Rng::new(2020, 7);
    let v: Vec<u32> = (0..6).map(|_| r.next_u32()).collect();
    assert_eq!(
        v,
        [2073644736, 4068968355, 3191461879, 3564787533, 596969730, 3466329398]
    );

    let mut r = Rng::new(1, 0);
    let v: Vec<u64> = (0..4).map(|_| r.uniform_f64().to_bits()).collect();
    assert_eq!(
        v,
        [
            0x3fdb6fe84ff3ec7c,
            0x3fedc44c14ca0d66,
            0x3feb2083f5124186,
            0x3fea067ae66ba8b1
        ]
    );
    let mut r = Rng::new(1, 0);
    let v: Vec<u32> = (0..4).map(|_| r.uniform_f32().to_bits()).collect();
    assert_eq!(v, [0x3edb7f42, 0x3f6e2260, 0x3f59041f, 0x3f5033d7]);

    let mut r = Rng::new(3, 1);
    let v: Vec<u64> = (0..8).map(|_| r.below(10)).collect();
    assert_eq!(v, [9, 4, 2, 5, 0, 3, 4, 8]);
    let mut r = Rng::new(3, 1);
    let v: Vec<u64> = (0..3).map(|_| r.below(3 << 40)).collect();
    assert_eq!(v, [3091442906778, 1570949777831, 948557280812]);

    let mut r = Rng::new(5, 2);
    let v: Vec<u64> = (0..8).map(|_| r.normal().to_bits()).collect();
    assert_eq!(
        v,
        [
            0xbfc17771877f79b6,
            0xbfddd9c8c6b1a4a2,
            0xbfdef6aaa4be4497,
            0xc007baefedfe5d30,
            0xbfce5bf84c1c4b92,
            0xbfcbf79e5aeac48b,
            0x3feed3cddfb8745d,
            0x3fdd24bb919382de
        ]
    );

    let mut idx = [0u64; 6];
    minibatch(99, 1000, &mut idx).unwrap();
    assert_eq!(idx, [380, 302, 914, 564, 221, 794]);
}

#[test]
fn streams_and_seeds_differ() {
    let first = |seed, stream| Rng::new(seed, stream).next_u64();
    assert_ne!(first(0, 0), first(0, 1));
    assert_ne!(first(0, 0), first(1, 0));
    // All 64 bits of the stream id count (the old 32-bit generator ignored the top one).
    assert_ne!(first(0, 0), first(0, 1 << 63));
    // Same pair, same sequence.
    assert_eq!(first(123, 456), first(123, 456));
}

#[test]
fn words_are_numpys_pcg64dxsm() {
    // Computed with numpy 2.4 (an implementation independent of this crate and of rand_pcg):
    // for (seed, stream) = (2020, 7), s = 2020 ^ splitmix64(7), the 128-bit state is
    // splitmix64(s) | splitmix64(s + 0x9e3779b97f4a7c15) << 64, the increment 2·7 + 1; as
    // rand_pcg's `new`, the state is advanced once, (state + inc)·M + inc, and then
    // `np.random.PCG64DXSM` with {state, inc} set to those values gives `random_raw(4)`.
    let mut r = Rng::new(2020, 7);
    let v: Vec<u64> = (0..4).map(|_| r.next_u64()).collect();
    assert_eq!(
        v,
        [
            0x7b994ec04fa227e4,
            0xf28787a3188eb2eb,
            0xbe39d7f775c34501,
            0xd47a574df664482c
        ]
    );
}

#[test]
fn neighbouring_streams_are_uncorrelated() {
    // k chains on streams 0..k with one seed must be independent: the sample correlation of the
    // uniforms of streams j and j+1 (and of stream 0 with every other) is N(0, 1/n) under
    // independence; 5 standard errors over 2·7 pairs.
    let n = 200_000;
    let draws: Vec<Vec<f64>> = (0..8)
        .map(|s| {
            let mut r = Rng::new(9, s);
            (0..n).map(|_| r.uniform_f64() - 0.5).collect()
        })
        .collect();
    let corr = |a: &[f64], b: &[f64]| {
        let ab: f64 = a.iter().zip(b).map(|(x, y)| x * y).sum();
        ab / (n as f64 / 12.0)
    };
    let bound = 5.0 / (n as f64).sqrt();
    for j in 1..8 {
        let c = corr(&draws[j - 1], &draws[j]);
        assert!(c.abs() < bound, "streams {} and {j}: {c}", j - 1);
        let c = corr(&draws[0], &draws[j]);
        assert!(c.abs() < bound, "streams 0 and {j}: {c}");
        // And lagged by one draw (a shifted copy of a neighbour would show here).
        let c = corr(&draws[j - 1][1..], &draws[j][..n - 1]);
        assert!(c.abs() < bound, "streams {} and {j}, lag 1: {c}", j - 1);
    }
}

/// Φ, the standard normal CDF.
fn phi(x: f64) -> f64 {
    0.5 * libm::erfc(-x / std::f64::consts::SQRT_2)
}

/// Kolmogorov–Smirnov statistic √n·D of sorted samples against `cdf`.
fn ks(sorted: &[f64], cdf: impl Fn(f64) -> f64) -> f64 {
    let n = sorted.len() as f64;
    let mut d: f64 = 0.0;
    for (i, &x) in sorted.iter().enumerate() {
        let f = cdf(x);
        d = d.max((i as f64 + 1.0) / n - f).max(f - i as f64 / n);
    }
    d * n.sqrt()
}

// √n·D exceeds 1.95 with probability 0.001 under the null (Kolmogorov distribution).
const KS_CRIT: f64 = 1.95;

#[test]
fn normal_moments_tails_and_ks() {
    let n = 1_000_000;
    let mut r = Rng::new(11, 3);
    let mut xs: Vec<f64> = (0..n).map(|_| r.normal()).collect();
    let nf = n as f64;
    let m1 = xs.iter().sum::<f64>() / nf;
    let m2 = xs.iter().map(|x| x * x).sum::<f64>() / nf;
    let m3 = xs.iter().map(|x| x * x * x).sum::<f64>() / nf;
    let m4 = xs.iter().map(|x| x * x * x * x).sum::<f64>() / nf;
    // Standard errors of the raw moments of N(0,1): √(Var(xᵏ)/n) with Var = E x²ᵏ − (E xᵏ)².
    let se = |var: f64| (var / nf).sqrt();
    assert!(m1.abs() < 4.0 * se(1.0), "mean {m1}");
    assert!((m2 - 1.0).abs() < 4.0 * se(2.0), "E x² {m2}");
    assert!(m3.abs() < 4.0 * se(15.0), "E x³ {m3}");
    assert!((m4 - 3.0).abs() < 4.0 * se(105.0 - 9.0), "E x⁴ {m4}");

    // Tails: counts beyond 2, 3 and beyond the Ziggurat's base edge R ≈ 3.44 are binomial.
    for &t in &[2.0, 3.0, 3.4426198558966528, 4.0] {
        let p = 2.0 * phi(-t);
        let count = xs.iter().filter(|x| x.abs() > t).count() as f64;
        let sd = (nf * p * (1.0 - p)).sqrt();
        assert!(
            (count - nf * p).abs() < 4.0 * sd,
            "|x| > {t}: {count} vs {}",
            nf * p
        );
    }
    xs.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let d = ks(&xs, phi);
    assert!(d < KS_CRIT, "KS √n·D = {d}");
}

#[test]
fn normal_tail_beyond_r_is_exact() {
    // The tail branch is taken for ~0.06 % of the draws: collect ~6000 tail samples from 10⁷
    // draws and test their conditional law P(|x| ≤ t | |x| > R) by KS.
    let r_edge = 3.4426198558966528;
    let mut r = Rng::new(12, 0);
    let mut tail: Vec<f64> = (0..10_000_000)
        .map(|_| r.normal().abs())
        .filter(|&x| x > r_edge)
        .collect();
    assert!(tail.len() > 5000);
    tail.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let q = phi(-r_edge);
    let d = ks(&tail, |t| 1.0 - phi(-t) / q);
    assert!(d < KS_CRIT, "tail KS √n·D = {d} over {} draws", tail.len());
}

#[test]
fn normal_wedges_are_exact() {
    // Values near layer edges go through the wedge test; a KS on a narrow window (0.9, 1.3)
    // conditional law catches an error there that the global KS would dilute.
    let (lo, hi) = (0.9, 1.3);
    let mut r = Rng::new(13, 0);
    let mut w: Vec<f64> = (0..2_000_000)
        .map(|_| r.normal())
        .filter(|&x| x > lo && x < hi)
        .collect();
    w.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let z = phi(hi) - phi(lo);
    let d = ks(&w, |t| (phi(t) - phi(lo)) / z);
    assert!(d < KS_CRIT, "window KS √n·D = {d}");
}

/// The Ziggurat's layer edges, recomputed from their definition (as the unit test in
/// `src/ziggurat.rs` does, which checks them bit for bit against the tables).
fn layer_edges() -> Vec<f64> {
    let f = |x: f64| libm::exp(-0.5 * x * x);
    let r = 3.4426198558966528;
    let v = r * f(r)
        + libm::sqrt(std::f64::consts::FRAC_PI_2) * libm::erfc(r / std::f64::consts::SQRT_2);
    let mut x = vec![r];
    while x.len() < 127 {
        let last = *x.last().unwrap();
        x.push(libm::sqrt(-2.0 * libm::log(v / last + f(last))));
    }
    x.push(0.0);
    x // x[0] = R, …, x[127] = 0: the edges between the 128 layers and the tail
}

#[test]
fn normal_every_layer_and_sign_has_its_exact_probability() {
    // The fast path (x < X[i+1] in layer i) decides 99 % of the draws; a wrong table entry,
    // layer index or sign bit in one layer would move mass between the bands
    // |x| ∈ [X[i+1], X[i]) that the layers cover. χ² over the 2·128 signed bands (and the tail
    // beyond R) against the exact normal probabilities.
    let edges = layer_edges();
    let bands = edges.len(); // 127 bands between the edges, plus the tail
    let n = 10_000_000usize;
    let mut counts = vec![0u64; 2 * bands];
    let mut r = Rng::new(14, 5);
    for _ in 0..n {
        let z = r.normal();
        let a = z.abs();
        // Edges decrease: band k is [edges[k+1], edges[k]) for k < 127, band 127 is [R, ∞).
        let k = edges.iter().position(|&e| a >= e).unwrap();
        let band = if k == 0 { bands - 1 } else { k - 1 };
        counts[band + if z.is_sign_negative() { bands } else { 0 }] += 1;
    }
    let mut chi2 = 0.0;
    for (b, &c) in counts.iter().enumerate() {
        let k = b % bands;
        let p = if k == bands - 1 {
            phi(-edges[0])
        } else {
            phi(edges[k]) - phi(edges[k + 1])
        };
        let e = n as f64 * p;
        chi2 += (c as f64 - e).powi(2) / e;
    }
    let dof = (2 * bands - 1) as f64;
    assert!(
        chi2_ok((chi2, dof)),
        "χ² {chi2} with {dof} degrees of freedom"
    );
}

/// Pearson χ² of counts against equal expectations; returns (χ², degrees of freedom).
fn chi2(counts: &[u64]) -> (f64, f64) {
    let n: u64 = counts.iter().sum();
    let e = n as f64 / counts.len() as f64;
    let c = counts.iter().map(|&c| (c as f64 - e).powi(2) / e).sum();
    (c, counts.len() as f64 - 1.0)
}

/// A χ² with k degrees of freedom is within its mean + 5 sd with overwhelming probability.
fn chi2_ok((c, k): (f64, f64)) -> bool {
    c < k + 5.0 * (2.0 * k).sqrt()
}

#[test]
fn uniforms_and_bounded_integers_are_uniform() {
    let mut r = Rng::new(21, 0);
    let mut counts = [0u64; 64];
    for _ in 0..640_000 {
        let u = r.uniform_f64();
        assert!((0.0..1.0).contains(&u));
        counts[(u * 64.0) as usize] += 1;
    }
    assert!(chi2_ok(chi2(&counts)), "uniform_f64 {:?}", chi2(&counts));

    let mut counts = [0u64; 64];
    for _ in 0..640_000 {
        let u = r.uniform_f32();
        assert!((0.0..1.0).contains(&u));
        counts[(u * 64.0) as usize] += 1;
    }
    assert!(chi2_ok(chi2(&counts)), "uniform_f32 {:?}", chi2(&counts));

    for &n in &[1u64, 2, 3, 6, 7, 1000] {
        let mut counts = vec![0u64; n as usize];
        for _ in 0..200 * n.max(50) {
            let k = r.below(n);
            assert!(k < n);
            counts[k as usize] += 1;
        }
        if n > 1 {
            assert!(chi2_ok(chi2(&counts)), "below({n}) {:?}", chi2(&counts));
        }
    }
    // n just above 2³² takes the 64-bit path; n = 3·2⁴⁰ splits into three equal thirds.
    let n = 3u64 << 40;
    let mut thirds = [0u64; 3];
    for _ in 0..300_000 {
        let k = r.below(n);
        assert!(k < n);
        thirds[(k >> 40) as usize] += 1;
    }
    assert!(chi2_ok(chi2(&thirds)), "below(3·2⁴⁰) {thirds:?}");
    assert!(r.below((1 << 32) + 1) <= 1 << 32);
    assert_eq!(r.below(0), 0);
}

#[test]
fn below_has_no_modulo_bias() {
    // n = 3·2³⁰ (one 32-bit word per attempt) and n = 3·2⁶² (one 64-bit word): a modulo
    // reduction of the word would make the first third of the range twice as likely as the
    // rest; the high half of word·n without Lemire's rejection would make every k ≡ 0 (mod 3)
    // twice as likely as the others (n/2^k = 3/4: one word in four maps to such a k twice as
    // often). The rejection makes both the thirds and the residues mod 3 equally likely.
    let mut r = Rng::new(22, 0);
    for shift in [30u32, 62] {
        let n = 3u64 << shift;
        let (mut thirds, mut residues) = ([0u64; 3], [0u64; 3]);
        for _ in 0..300_000 {
            let k = r.below(n);
            thirds[(k >> shift) as usize] += 1;
            residues[(k % 3) as usize] += 1;
        }
        assert!(chi2_ok(chi2(&thirds)), "n = 3·2^{shift}: thirds {thirds:?}");
        assert!(
            chi2_ok(chi2(&residues)),
            "n = 3·2^{shift}: residues mod 3 {residues:?}"
        );
    }
}

#[test]
fn minibatch_is_a_uniform_sample_without_replacement() {
    let (n, b) = (20u64, 5usize);
    let mut inclusion = vec![0u64; n as usize];
    let mut first = vec![0u64; n as usize];
    let mut idx = vec![0u64; b];
    for seed in 0..40_000u64 {
        minibatch(seed, n, &mut idx).unwrap();
        let mut s = idx.clone();
        s.sort();
        s.dedup();
        assert_eq!(s.len(), b, "duplicates for seed {seed}: {idx:?}");
        for &i in &idx {
            assert!(i < n);
            inclusion[i as usize] += 1;
        }
        first[idx[0] as usize] += 1;
    }
    assert!(chi2_ok(chi2(&inclusion)), "inclusion {inclusion:?}");
    // The order is random too: the first element alone is uniform.
    assert!(chi2_ok(chi2(&first)), "first {first:?}");

    // B = n is a permutation.
    let mut all = vec![0u64; 50];
    minibatch(1, 50, &mut all).unwrap();
    let mut s = all.clone();
    s.sort();
    assert_eq!(s, (0..50).collect::<Vec<_>>());

    // Errors, output untouched.
    let mut out = [7u64; 3];
    assert_eq!(minibatch(1, 2, &mut out), Err(Error::InvalidMinibatch));
    assert_eq!(minibatch(1, 0, &mut out), Err(Error::InvalidMinibatch));
    assert_eq!(out, [7, 7, 7]);
    assert_eq!(minibatch(1, 0, &mut []), Err(Error::InvalidMinibatch));
    assert_eq!(minibatch(1, 5, &mut []), Ok(()));
}
