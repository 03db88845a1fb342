//! The Feistel permutation of RBM-SVGD without replacement (`Permutation::Feistel`,
//! docs/algorithms.md §2, "Draw order") as a source of random batches: over many keys, each
//! particle lands in each slot with probability 1/N, and each pair of particles shares a batch
//! with the probability Fisher–Yates gives, `Σ_b m_b(m_b − 1)/(N(N − 1))`. Both by a χ² test
//! against those exact probabilities; a biased permutation (the identity, a rotation; a network
//! of too few rounds, in the mutation check) fails them (the first two checked here too, so the
//! tests have power).
//!
//! Tolerance: χ² with k degrees of freedom has mean k and sd √(2k); the statistic must be
//! below k + 6·√(2k) (a false alarm below 1e-6 for the k used here, the keys fixed).

use sgsample::svgd::Feistel;
use sgsample::Rng;

fn chi2(counts: &[f64], expected: &[f64]) -> f64 {
    counts
        .iter()
        .zip(expected)
        .map(|(c, e)| (c - e) * (c - e) / e)
        .sum()
}

fn limit(k: usize) -> f64 {
    k as f64 + 6.0 * (2.0 * k as f64).sqrt()
}

/// χ² of slot occupancy (N² cells, (N − 1)² degrees of freedom) and of pair co-occurrence
/// (N(N − 1)/2 cells, as many − 1) over `reps` permutations from `perm(key)`.
fn statistics(n: usize, p: usize, reps: usize, perm: impl Fn(u64) -> Vec<usize>) -> (f64, f64) {
    let mut rng = Rng::new(99, 3);
    let mut slot = vec![0.0; n * n];
    let mut pair = vec![0.0; n * n];
    for _ in 0..reps {
        let pm = perm(rng.next_u64());
        for (s, &i) in pm.iter().enumerate() {
            slot[i * n + s] += 1.0;
        }
        for b in 0..n / p {
            let slots = b * p..if b + 1 < n / p { b * p + p } else { n };
            for s in slots.clone() {
                for t in s + 1..slots.end {
                    let (i, j) = (pm[s].min(pm[t]), pm[s].max(pm[t]));
                    pair[i * n + j] += 1.0;
                }
            }
        }
    }
    let e_slot = vec![reps as f64 / n as f64; n * n];
    let nb = n / p;
    let sizes: Vec<usize> = (0..nb)
        .map(|b| if b + 1 < nb { p } else { n - p * (nb - 1) })
        .collect();
    let same: f64 = sizes.iter().map(|&m| (m * (m - 1)) as f64).sum::<f64>() / (n * (n - 1)) as f64;
    let (mut pc, mut pe) = (Vec::new(), Vec::new());
    for i in 0..n {
        for j in i + 1..n {
            pc.push(pair[i * n + j]);
            pe.push(reps as f64 * same);
        }
    }
    (chi2(&slot, &e_slot), chi2(&pc, &pe))
}

fn feistel(n: usize) -> impl Fn(u64) -> Vec<usize> {
    move |key| {
        let f = Feistel::new(key, n as u64);
        (0..n).map(|s| f.apply(s as u64) as usize).collect()
    }
}

#[test]
fn slots_and_batch_mates_are_uniform() {
    // N ≤ 256 get the small-N rounds, 300 and 520 the others.
    for (n, p) in [
        (5, 2),
        (12, 5),
        (13, 2),
        (16, 4),
        (37, 8),
        (300, 8),
        (520, 4),
    ] {
        let (s, c) = statistics(n, p, 40_000, feistel(n));
        let (ks, kc) = ((n - 1) * (n - 1), n * (n - 1) / 2 - 1);
        assert!(s < limit(ks), "N {n} p {p}: slot χ² {s:.1} (dof {ks})");
        assert!(c < limit(kc), "N {n} p {p}: pair χ² {c:.1} (dof {kc})");
    }
}

#[test]
fn the_tests_see_biased_permutations() {
    let n = 12;
    // A rotation by the key: batch mates are always neighbours.
    let rotation = |key: u64| {
        (0..n)
            .map(|s| (s + key as usize % n) % n)
            .collect::<Vec<_>>()
    };
    let (_, c) = statistics(n, 5, 40_000, rotation);
    assert!(
        c > limit(n * (n - 1) / 2 - 1),
        "rotation: pairs are not uniform ({c:.1})"
    );
    // The identity: neither.
    let (s, _) = statistics(n, 5, 2_000, |_| (0..n).collect());
    assert!(s > limit((n - 1) * (n - 1)));
}
